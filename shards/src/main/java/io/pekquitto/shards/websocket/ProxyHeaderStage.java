package io.pekquitto.shards.websocket;

import io.pekquitto.shards.listener.ProxyHeader;
import io.pekquitto.shards.listener.ProxyHeaderDecoder;
import java.net.InetSocketAddress;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.util.ByteString;

/**
 * The PROXY protocol header on a WebSocket listener with {@code proxy-protocol}: the first bytes of the
 * connection, before TLS and HTTP, read by a {@link ProxyHeaderDecoder} and taken out of the stream; the
 * address it names becomes the connection's {@link Client}. Bytes that are no valid header fail the
 * stream, which closes the connection; a header that never comes is cut by the connection's idle timeout.
 */
final class ProxyHeaderStage {
    private ProxyHeaderStage() {}

    /** The client of one connection: the socket's peer, until a PROXY header names another. */
    static final class Client {
        private final InetSocketAddress peer;
        /** Written by the stream before the first HTTP byte passes, read by the request handler after it. */
        private volatile InetSocketAddress address;

        Client(InetSocketAddress peer) {
            this.peer = peer;
            this.address = peer;
        }

        InetSocketAddress address() {
            return address;
        }

        void named(ProxyHeader header) {
            address = header.clientAddress(peer);
        }
    }

    /** The layer: what comes from the network loses its header; what goes to it passes as it is. */
    static BidiFlow<ByteString, ByteString, ByteString, ByteString, NotUsed> bidi(Client client) {
        return BidiFlow.fromFlows(Flow.create(), inbound(client));
    }

    static Flow<ByteString, ByteString, NotUsed> inbound(Client client) {
        return Flow.<ByteString>create().statefulMapConcat(() -> {
            var decoder = new ProxyHeaderDecoder();
            var read = new boolean[1];
            return chunk -> {
                if (read[0]) return List.of(chunk);
                var bytes = chunk.asByteBuffer();
                var header = decoder.feed(bytes);  // a ProxyHeaderException fails the stream: the connection closes
                if (header == null) return List.of();
                read[0] = true;
                client.named(header);
                var rest = chunk.drop(bytes.position());
                return rest.isEmpty() ? List.of() : List.of(rest);
            };
        });
    }
}
