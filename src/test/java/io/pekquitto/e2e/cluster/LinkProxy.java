package io.pekquitto.e2e.cluster;

import io.pekquitto.e2e.SocketPipe;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of one node's cluster port, for a partition test: the node's canonical address is the proxy's,
 * and the proxy forwards to the port the node binds. {@link #cut} closes every link with the given addresses (the node
 * itself, when it is the one cut off, or another node, whose outbound connections come from its own loopback address)
 * and refuses new ones, both ways. At most a few links at once: the nodes of one test.
 */
final class LinkProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final InetAddress targetHost;
    /** Remote addresses cut off from the target; the target's own address: every link. */
    private final Set<InetAddress> cut = ConcurrentHashMap.newKeySet();
    private final List<Socket[]> links = new CopyOnWriteArrayList<>();

    /** Listens on {@code host:port} and forwards to {@code host:targetPort}. */
    LinkProxy(String host, int port, int targetPort) throws IOException {
        this.targetHost = InetAddress.getByName(host);
        this.server = new ServerSocket(port, 16, targetHost);
        this.target = new InetSocketAddress(targetHost, targetPort);
        var acceptor = new Thread(this::accept, "link-proxy-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Every link from {@code remote} to the target, and from the target to it, is closed and refused from now on. */
    void cut(String remote) throws IOException {
        var address = InetAddress.getByName(remote);
        cut.add(address);
        for (var link : links) {
            if (isCut(link[0].getInetAddress())) closeLink(link);
        }
    }

    private boolean isCut(InetAddress remote) {
        return cut.contains(remote) || cut.contains(targetHost);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                var client = server.accept();
                if (isCut(client.getInetAddress())) {
                    client.close();
                    continue;
                }
                var upstream = new Socket();
                upstream.connect(target, 5_000);
                var link = new Socket[] {client, upstream};
                links.add(link);
                SocketPipe.start(client, upstream, () -> links.remove(link), "link-proxy-pipe");
                SocketPipe.start(upstream, client, () -> links.remove(link), "link-proxy-pipe");
            } catch (IOException e) {
                // the server closed, or the target is gone: the node retries
            }
        }
    }

    private void closeLink(Socket[] link) {
        links.remove(link);
        for (var socket : link) SocketPipe.closeQuietly(socket);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (var link : links) closeLink(link);
    }
}
