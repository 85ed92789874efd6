package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Plain TCP: MQTT straight on the socket, nothing held back. */
final class SocketLink implements Link {
    private final SocketChannel channel;

    SocketLink(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return channel.read(dst);
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        channel.write(src);
    }
}
