package io.pekquitto.shards.websocket;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * The status page's files, served by a WebSocket listener from the classpath directory
 * {@code io/pekquitto/shards/status/}: {@code index.html} at {@code /}, with {@value #PATH_TOKEN} replaced by
 * the listener's MQTT path so that the page connects back to it, and the page's scripts and styles by
 * their names. Each file is read once, on its first request; a name that is not a plain file name is
 * never looked up.
 */
final class StatusPage {
    static final String INDEX = "index.html";
    static final String PATH_TOKEN = "{{MQTT_PATH}}";
    private static final String DIRECTORY = "/io/pekquitto/shards/status/";
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9]+)+");
    private static final Map<String, ContentType> TYPES = Map.of(
            "html", ContentTypes.TEXT_HTML_UTF8,
            "js", MediaTypes.APPLICATION_JAVASCRIPT.toContentType(HttpCharsets.UTF_8),
            "css", MediaTypes.TEXT_CSS.toContentType(HttpCharsets.UTF_8),
            "svg", MediaTypes.IMAGE_SVG_XML.toContentType(),
            "png", MediaTypes.IMAGE_PNG.toContentType(),
            "txt", ContentTypes.TEXT_PLAIN_UTF8);

    private final String mqttPath;
    /** The files found so far: at most the directory's files, as a miss is not kept. */
    private final Map<String, HttpResponse> files = new ConcurrentHashMap<>();

    StatusPage(String mqttPath) {
        this.mqttPath = mqttPath;
    }

    /** The response for {@code name}, if it is one of the page's files. */
    Optional<HttpResponse> file(String name) {
        if (!FILE_NAME.matcher(name).matches()) return Optional.empty();
        var type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        if (type == null) return Optional.empty();
        var cached = files.get(name);
        if (cached != null) return Optional.of(cached);
        var bytes = read(name);
        if (bytes == null) return Optional.empty();
        if (name.equals(INDEX)) {
            bytes = new String(bytes, StandardCharsets.UTF_8).replace(PATH_TOKEN, mqttPath).getBytes(StandardCharsets.UTF_8);
        }
        var response = HttpResponse.create().withEntity(type, bytes)
                .addHeader(RawHeader.create("Cache-Control", "no-cache"));
        files.put(name, response);
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
