package io.pekquitto.shards.tcp;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;

/**
 * TLS as one listener serves it, made by {@link TlsFiles#load}: the listener's Netty {@link SslContext}
 * (OpenSSL's or the JDK's), from which each accepted socket gets its own engine, and whether a verified
 * client certificate's CN stands for the username, and whose TLS serves the listener and why, as the
 * start-up log says it.
 *
 * <p>An OpenSSL context here is Netty's {@code OPENSSL} kind, not {@code OPENSSL_REFCNT}: each engine holds
 * a reference to it, and the collector frees its native part once nothing holds it (a reload replaced it
 * or its listener stopped, and its last socket closed). No release to get right on each of those paths
 * ({@code --test-config}, a reload that fails on another listener's files), nor a race between a socket
 * accepted with the old context and the reload that drops it. An {@link SslHandler} frees its engine as
 * its socket closes; a finalizer frees one whose handler never ran (a socket that could not be
 * registered), at the price of a finalizer registered per engine.
 */
public record ListenerTls(SslContext context, boolean certificateNameAsUsername, String implementation) {
    /**
     * The TLS handler of a socket accepted from {@code remote} (a hint for session resumption), its
     * buffers from {@code allocator}: the engine's delegated tasks, the slow steps of its handshakes (the
     * JDK's, and OpenSSL's as Netty 4.2 runs it by default), run on {@code delegatedTasks}.
     */
    public SslHandler newHandler(ByteBufAllocator allocator, InetSocketAddress remote, Executor delegatedTasks) {
        return context.newHandler(allocator, remote.getHostString(), remote.getPort(), delegatedTasks);
    }
}
