package io.pekquitto.shards.transport.websocket;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker13;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.pekquitto.shards.settings.WebSocketSettings;
import java.nio.charset.StandardCharsets;

/**
 * What a WebSocket listener answers to an HTTP request: on its path, a WebSocket upgrade (RFC 6455 version
 * 13) asking for an MQTT subprotocol gets Netty's handshake, then the frames are read by a
 * {@link StreamingFrameDecoder} in place of Netty's decoder and this handler's place goes to
 * {@link MqttOverWebSocketFrames}; a request without an upgrade gets 426, one of another version 426 with
 * the version it may ask for, one without such a subprotocol or with a bad handshake 400; elsewhere the
 * status page's files, if the listener serves them, and 404 for anything else. Stateless: one per listener
 * on each shard, shared by the listener's connections there.
 */
@ChannelHandler.Sharable
final class WebSocketRequests extends ChannelInboundHandlerAdapter {
    private final WebSocketSettings settings;
    private final StatusPage statusPage;
    /** The largest frame a client may send ({@code max-packet-size}). */
    private final int maxFrameSize;

    WebSocketRequests(WebSocketSettings settings, int maxFrameSize) {
        this.settings = settings;
        this.statusPage = new StatusPage(settings.path());
        this.maxFrameSize = maxFrameSize;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (!(message instanceof FullHttpRequest request)) {
            ctx.fireChannelRead(message);
            return;
        }
        if (request.decoderResult().isFailure()) {  // no request line, headers past their bound
            answer(ctx, request, error(HttpResponseStatus.BAD_REQUEST, "not an HTTP request: " + request.decoderResult().cause()), false);
            return;
        }
        var path = new QueryStringDecoder(request.uri()).path();
        if (path.equals(settings.path())) {
            upgrade(ctx, request);
            return;
        }
        FullHttpResponse response = null;
        if (settings.statusPage() && request.method().equals(HttpMethod.GET)) {
            response = statusPage.file(path.equals("/") ? StatusPage.INDEX : path.substring(1)).orElse(null);
        }
        if (response == null) {
            response = error(HttpResponseStatus.NOT_FOUND, "nothing at " + path + ": MQTT over WebSockets is at " + settings.path());
        }
        answer(ctx, request, response, true);
    }

    private void upgrade(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!request.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)) {
            var response = error(HttpResponseStatus.UPGRADE_REQUIRED, settings.path() + " speaks MQTT over WebSockets only");
            response.headers().set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
            answer(ctx, request, response, true);
        } else if (!WebSocketUpgrade.asksForMqtt(request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL))) {
            answer(ctx, request, error(HttpResponseStatus.BAD_REQUEST,
                    "MQTT over WebSockets needs the subprotocol mqtt (Sec-WebSocket-Protocol)"), true);
        } else if (!request.headers().contains(HttpHeaderNames.SEC_WEBSOCKET_VERSION, WebSocketVersion.V13.toHttpHeaderValue(), true)) {
            request.release();
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
        } else {
            handshake(ctx, request);
        }
    }

    /**
     * Netty's handshake answers 101 with the subprotocol, picked as {@link WebSocketUpgrade#asksForMqtt} does, and
     * puts its frame encoder and decoder in place of the HTTP codec: the decoder is replaced at once, before
     * any frame can reach it.
     */
    private void handshake(ChannelHandlerContext ctx, FullHttpRequest request) {
        var handshaker = new WebSocketServerHandshaker13(settings.path(), String.join(",", WebSocketUpgrade.SUBPROTOCOLS),
                false, maxFrameSize);
        try {
            handshaker.handshake(ctx.channel(), request);
        } catch (WebSocketHandshakeException e) {  // no key, not a GET
            answer(ctx, request, error(HttpResponseStatus.BAD_REQUEST, e.getMessage()), false);
            return;
        }
        request.release();
        var pipeline = ctx.pipeline();
        pipeline.replace(WebSocketFrameDecoder.class, "websocket-frames", new StreamingFrameDecoder(maxFrameSize));
        pipeline.replace(this, "mqtt-over-websocket", new MqttOverWebSocketFrames());
    }

    /** Answers {@code request}; the connection stays open for the next if the client keeps it alive and {@code keepOpen}. */
    private static void answer(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response, boolean keepOpen) {
        boolean keepAlive = keepOpen && HttpUtil.isKeepAlive(request);
        request.release();
        HttpUtil.setContentLength(response, response.content().readableBytes());
        HttpUtil.setKeepAlive(response, keepAlive);
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) written.addListener(ChannelFutureListener.CLOSE);
    }

    private static FullHttpResponse error(HttpResponseStatus status, String message) {
        var response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(message + "\n", StandardCharsets.UTF_8));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN + "; charset=UTF-8");
        return response;
    }
}
