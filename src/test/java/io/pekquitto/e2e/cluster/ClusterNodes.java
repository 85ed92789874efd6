package io.pekquitto.e2e.cluster;

import io.pekquitto.e2e.RunnableJar;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Runnable jars started as the nodes of one cluster on loopback, for the cluster's end-to-end tests. */
final class ClusterNodes {
    private ClusterNodes() {}

    /** A port free now, for a seed node's cluster port (the others may take any, 0). */
    static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** A node started with {@code configuration}; a failure to start is unchecked, for starting nodes in parallel. */
    static RunnableJar start(String configuration) {
        try {
            return RunnableJar.start(configuration);
        } catch (IOException | InterruptedException e) {
            throw new CompletionException(e);
        }
    }

    /** The nodes, started in parallel (each JVM takes seconds); none is left running if one fails. */
    static List<RunnableJar> startAll(List<String> configurations) throws InterruptedException {
        var starting = configurations.stream().map(configuration -> CompletableFuture.supplyAsync(() -> start(configuration))).toList();
        var started = new ArrayList<RunnableJar>();
        CompletionException failed = null;
        for (var node : starting) {
            try {
                started.add(node.join());
            } catch (CompletionException e) {
                failed = e;
            }
        }
        if (failed != null) {
            stopAll(started);
            throw failed;
        }
        return started;
    }

    static void stopAll(List<RunnableJar> nodes) throws InterruptedException {
        for (var node : nodes) node.close();
        nodes.clear();
    }
}
