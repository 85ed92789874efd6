package io.pekquitto.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Subscribers that stop reading once subscribed: their sockets fill, and the broker must decide what
 * a client that does not keep up costs everyone else (queue and drop for it alone, or slow the
 * publishers down). Plain blocking sockets with a small receive buffer, read only up to the SUBACK.
 */
final class SlowSubscribers implements AutoCloseable {
    private static final int RECEIVE_BUFFER = 4 * 1024;

    private final List<Socket> sockets = new ArrayList<>();

    static SlowSubscribers open(InetSocketAddress address, String runId, String filter, int qos, boolean v5, int count)
            throws IOException {
        var slow = new SlowSubscribers();
        try {
            for (int i = 0; i < count; i++) slow.sockets.add(subscribe(address, "slow-" + runId + "-" + i, filter, qos, v5));
        } catch (IOException e) {
            slow.close();
            throw e;
        }
        return slow;
    }

    private static Socket subscribe(InetSocketAddress address, String clientId, String filter, int qos, boolean v5)
            throws IOException {
        var socket = new Socket();
        socket.setReceiveBufferSize(RECEIVE_BUFFER);  // before connect: the window the broker sees
        socket.setSoTimeout(10_000);
        socket.connect(address, 10_000);
        var out = socket.getOutputStream();
        out.write(Mqtt.connect(clientId, 0, true, v5));
        out.write(Mqtt.subscribe(1, filter, qos, v5));
        out.flush();
        var in = socket.getInputStream();
        Mqtt.expect(in, Mqtt.CONNACK, clientId);
        Mqtt.expect(in, Mqtt.SUBACK, clientId);
        return socket;  // and never read again
    }

    int count() {
        return sockets.size();
    }

    @Override
    public void close() {
        for (var socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a socket nobody reads: nothing to do about a failure
            }
        }
    }
}
