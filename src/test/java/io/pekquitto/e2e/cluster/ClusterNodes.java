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
        return start(configuration, List.of());
    }

    /** A node started with {@code configuration} and {@code jvmOptions}; a failure to start is unchecked. */
    static RunnableJar start(String configuration, List<String> jvmOptions) {
        try {
            return RunnableJar.start(configuration, jvmOptions);
        } catch (IOException | InterruptedException e) {
            throw new CompletionException(e);
        }
    }

    /** The nodes, started in parallel (each JVM takes seconds); none is left running if one fails. */
    static List<RunnableJar> startAll(List<String> configurations) throws InterruptedException {
        return startAll(configurations, configurations.stream().map(configuration -> List.<String>of()).toList());
    }

    /** The nodes, each with its JVM options, started in parallel; none is left running if one fails. */
    static List<RunnableJar> startAll(List<String> configurations, List<List<String>> jvmOptions) throws InterruptedException {
        var starting = new ArrayList<CompletableFuture<RunnableJar>>();
        for (int i = 0; i < configurations.size(); i++) {
            var configuration = configurations.get(i);
            var options = jvmOptions.get(i);
            starting.add(CompletableFuture.supplyAsync(() -> start(configuration, options)));
        }
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
