package io.pekquitto.shards.tcp;

import java.net.InetSocketAddress;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;

/**
 * TLS as one listener serves it: a configured server engine per accepted socket, and whether a verified
 * client certificate's CN stands for the username. {@code newEngine} takes the client's address as a hint
 * for session resumption.
 */
public record ListenerTls(Function<InetSocketAddress, SSLEngine> newEngine, boolean certificateNameAsUsername) {}
