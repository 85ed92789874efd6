package io.pekquitto.e2e.websocket;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket client that frames MQTT bytes as a test wants (the JDK's {@link WebSocket}): a packet in
 * several messages, several packets in one message, one message in fragments; it reads the broker's
 * bytes into MQTT packets whatever their messages.
 */
final class WebSocketClient implements AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private final WebSocket socket;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private int read;

    private WebSocketClient(WebSocket.Builder builder, URI uri) {
        this.socket = builder.buildAsync(uri, new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
                synchronized (received) {
                    var bytes = new byte[data.remaining()];
                    data.get(bytes);
                    received.writeBytes(bytes);
                    received.notifyAll();
                }
                webSocket.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                closed.complete("close frame " + statusCode);
                return null;
            }

            @Override
            public void onError(WebSocket webSocket, Throwable error) {
                closed.complete("error " + error);
            }
        }).orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Opens a WebSocket to {@code uri} asking for {@code subprotocols}. */
    static WebSocketClient open(String uri, String... subprotocols) {
        var builder = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(WAIT);
        if (subprotocols.length > 0) builder.subprotocols(subprotocols[0], Arrays.copyOfRange(subprotocols, 1, subprotocols.length));
        return new WebSocketClient(builder, URI.create(uri));
    }

    String subprotocol() {
        return socket.getSubprotocol();
    }

    /** One binary message. */
    void send(byte[] bytes) {
        socket.sendBinary(ByteBuffer.wrap(bytes), true).orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** One binary message in fragments: a frame and continuation frames, cut at {@code cuts}. */
    void sendFragmented(byte[] bytes, int... cuts) {
        int from = 0;
        for (int cut : cuts) {
            socket.sendBinary(ByteBuffer.wrap(bytes, from, cut - from), false).orTimeout(5, TimeUnit.SECONDS).join();
            from = cut;
        }
        socket.sendBinary(ByteBuffer.wrap(bytes, from, bytes.length - from), true).orTimeout(5, TimeUnit.SECONDS).join();
    }

    void sendText(String text) {
        socket.sendText(text, true).orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** The next MQTT packet from the broker, whole: its bytes, fixed header first. */
    byte[] nextPacket() throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        synchronized (received) {
            while (true) {
                var bytes = received.toByteArray();
                int length = packetLength(bytes, read);
                if (length > 0) {
                    var packet = Arrays.copyOfRange(bytes, read, read + length);
                    read += length;
                    return packet;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new AssertionError("no whole MQTT packet within " + WAIT + "; have " + (bytes.length - read) + " bytes");
                received.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** The next {@code count} packets' types (the first byte's high nibble). */
    List<Integer> nextTypes(int count) throws InterruptedException {
        var types = new ArrayList<Integer>();
        for (int i = 0; i < count; i++) types.add((nextPacket()[0] & 0xF0) >> 4);
        return types;
    }

    /** How the connection ended, once it has: a close frame or an error. */
    String awaitClosed() {
        return closed.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Drops the TCP connection without a close frame. */
    void abort() {
        socket.abort();
    }

    /** The length of the whole packet at {@code from}, or 0 if it is not all there yet. */
    private static int packetLength(byte[] bytes, int from) {
        int remaining = 0;
        int multiplier = 1;
        for (int i = from + 1; i < bytes.length && i < from + 5; i++) {
            remaining += (bytes[i] & 0x7F) * multiplier;
            if ((bytes[i] & 0x80) == 0) {
                int length = i + 1 - from + remaining;
                return from + length <= bytes.length ? length : 0;
            }
            multiplier *= 128;
        }
        return 0;
    }

    @Override
    public void close() {
        socket.abort();
    }
}
