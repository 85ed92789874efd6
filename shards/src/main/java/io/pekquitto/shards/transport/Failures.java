package io.pekquitto.shards.transport;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.haproxy.HAProxyProtocolException;
import java.io.IOException;
import javax.net.ssl.SSLException;

/** Why a socket failed, in the words the connection log uses. */
final class Failures {
    private Failures() {}

    static String describe(Throwable failure) {
        var cause = failure instanceof DecoderException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof HAProxyProtocolException) return "PROXY protocol: " + message(cause);
        if (cause instanceof SSLException) return "TLS: " + message(cause);
        if (cause instanceof IOException) return message(cause);
        return cause.toString();
    }

    static String message(Throwable failure) {
        return failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName();
    }
}
