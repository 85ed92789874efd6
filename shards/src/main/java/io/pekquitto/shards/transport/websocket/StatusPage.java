package io.pekquitto.shards.transport.websocket;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The status page's files, served by a WebSocket listener from the classpath directory
 * {@code io/pekquitto/shards/status/}: {@code index.html} at {@code /}, with {@value #PATH_TOKEN} replaced by
 * the listener's MQTT path so that the page connects back to it, and the page's scripts and styles by
 * their names. Each file is read once, on its first request, for every listener and shard of the
 * process (the page's script is some hundreds of KiB); a name that is not a plain file name is never
 * looked up.
 */
final class StatusPage {
    static final String INDEX = "index.html";
    static final String PATH_TOKEN = "{{MQTT_PATH}}";
    private static final String DIRECTORY = "/io/pekquitto/shards/status/";
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9]+)+");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=UTF-8",
            "js", "application/javascript; charset=UTF-8",
            "css", "text/css; charset=UTF-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "txt", "text/plain; charset=UTF-8");

    /** The files found so far: at most the directory's files, as a miss is not kept. */
    private static final Map<String, byte[]> FILES = new ConcurrentHashMap<>();

    private final String mqttPath;

    StatusPage(String mqttPath) {
        this.mqttPath = mqttPath;
    }

    /** The response for {@code name}, if it is one of the page's files: a new one each time, as Netty releases what it writes. */
    Optional<FullHttpResponse> file(String name) {
        if (!FILE_NAME.matcher(name).matches()) return Optional.empty();
        var type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        if (type == null) return Optional.empty();
        var bytes = FILES.get(name);
        if (bytes == null) {
            bytes = read(name);
            if (bytes == null) return Optional.empty();
            FILES.put(name, bytes);
        }
        if (name.equals(INDEX)) {
            bytes = new String(bytes, StandardCharsets.UTF_8).replace(PATH_TOKEN, mqttPath).getBytes(StandardCharsets.UTF_8);
        }
        var response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, type).set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        return Optional.of(response);
    }

    private static byte[] read(String name) {
        try (var in = StatusPage.class.getResourceAsStream(DIRECTORY + name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the status page's " + name, e);
        }
    }
}
