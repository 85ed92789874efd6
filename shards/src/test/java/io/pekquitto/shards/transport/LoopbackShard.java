package io.pekquitto.shards.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.TestConnections;
import io.pekquitto.shards.listener.Listener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A shard's sockets over real loopback connections: an {@link Acceptor} on 127.0.0.1, a loop that stands for
 * the shard's thread, and its {@link ShardChannels}. Every call into a transport goes through
 * {@link #onLoop}, as the connection actor's would run there. A test's extension, one per test: after it
 * the clients, the acceptor and the loop are closed.
 */
final class LoopbackShard implements AfterEachCallback {
    private final MultiThreadIoEventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, SocketKind.chosen().handlerFactory());
    private final LinkedBlockingQueue<AcceptedSocket> accepted = new LinkedBlockingQueue<>();
    private final Acceptor acceptor = Acceptor.listen(new InetSocketAddress("127.0.0.1", 0), "test-acceptor", accepted::add);
    private final List<Socket> clients = new ArrayList<>();
    private final InetSocketAddress address;
    final ShardChannels channels;

    LoopbackShard(int maxFrameSize) {
        channels = new ShardChannels(Runnable::run, maxFrameSize);
        address = acceptor.bound().toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
    }

    /**
     * A client connects to {@code listener} (which takes its place, as the acceptor does), and the shard
     * adopts the socket for {@code connection}, which hears {@link Connection.TransportReady}.
     */
    Socket connect(Listener listener, ActorRef<Connection.Command> connection) throws Exception {
        assertTrue(listener.connections().tryOpen(), "the place the listener takes as it accepts");
        var client = new Socket(address.getAddress(), address.getPort());
        clients.add(client);
        client.setSoTimeout(5_000);
        var socket = accepted.poll(5, TimeUnit.SECONDS);
        onLoop(() -> {
            channels.adopt(socket, TestConnections.servedBy(connection), Optional.empty(), listener);
            return null;
        });
        return client;
    }

    /** The client's side sees this address as its peer's. */
    InetSocketAddress address() {
        return address;
    }

    <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(5, TimeUnit.SECONDS);
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        for (var client : clients) client.close();
        acceptor.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
