package io.pekquitto.ops;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * A scrape as the Prometheus client's handler sees it, asking for the text formats only: an {@code Accept}
 * header that asks for the protobuf format is dropped, so the answer is Prometheus' text format, which
 * every Prometheus server takes. The protobuf format's classes (the client's shaded protobuf, 1.6 MB) are
 * left out of the runnable jar, and the client would otherwise pick its writer by the header alone and fail.
 */
final class TextScrapes extends HttpExchange {
    /** What the Prometheus client's protobuf writer answers to (its {@code accepts}). */
    static final String PROTOBUF = "application/vnd.google.protobuf";

    private final HttpExchange exchange;
    private final Headers requestHeaders;

    TextScrapes(HttpExchange exchange) {
        this.exchange = exchange;
        this.requestHeaders = new Headers();
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Accept") || values.stream().noneMatch(value -> value.contains(PROTOBUF))) {
                requestHeaders.put(name, values);
            }
        });
    }

    @Override public Headers getRequestHeaders() { return requestHeaders; }
    @Override public Headers getResponseHeaders() { return exchange.getResponseHeaders(); }
    @Override public URI getRequestURI() { return exchange.getRequestURI(); }
    @Override public String getRequestMethod() { return exchange.getRequestMethod(); }
    @Override public HttpContext getHttpContext() { return exchange.getHttpContext(); }
    @Override public void close() { exchange.close(); }
    @Override public InputStream getRequestBody() { return exchange.getRequestBody(); }
    @Override public OutputStream getResponseBody() { return exchange.getResponseBody(); }
    @Override public void sendResponseHeaders(int code, long length) throws IOException { exchange.sendResponseHeaders(code, length); }
    @Override public InetSocketAddress getRemoteAddress() { return exchange.getRemoteAddress(); }
    @Override public int getResponseCode() { return exchange.getResponseCode(); }
    @Override public InetSocketAddress getLocalAddress() { return exchange.getLocalAddress(); }
    @Override public String getProtocol() { return exchange.getProtocol(); }
    @Override public Object getAttribute(String name) { return exchange.getAttribute(name); }
    @Override public void setAttribute(String name, Object value) { exchange.setAttribute(name, value); }
    @Override public void setStreams(InputStream in, OutputStream out) { exchange.setStreams(in, out); }
    @Override public HttpPrincipal getPrincipal() { return exchange.getPrincipal(); }
}
