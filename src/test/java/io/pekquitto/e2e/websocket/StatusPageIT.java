package io.pekquitto.e2e.websocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The status page a WebSocket listener serves at {@code /}: its files with their content types and the
 * listener's path written into the page, none with {@code status-page = false}; and in headless
 * Chromium ({@code status-page.mjs}) its figures move with the load, per shard too. The screenshot goes
 * to {@code target/status-page.png}.
 */
class StatusPageIT {
    private static final String RESOURCES = "io/pekquitto/shards/status/";
    private static final int TCP = 0;
    private static final int WITH_PAGE = 1;
    private static final int WITHOUT_PAGE = 2;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("""
            shards = 2
            sys-interval = 1s
            listeners = [
              { host = "127.0.0.1", port = 0 }
              { host = "127.0.0.1", port = 0, protocol = websocket, path = "/live" }
              { host = "127.0.0.1", port = 0, protocol = websocket, status-page = false }
            ]
            """);

    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static int port(int listener) {
        return broker.pekquitto().boundAddresses().get(listener).getPort();
    }

    private static HttpResponse<byte[]> get(int listener, String path) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(listener) + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = StatusPageIT.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) throw new IOException("no resource " + RESOURCES + name);
            return in.readAllBytes();
        }
    }

    private static String contentType(HttpResponse<?> response) {
        return response.headers().firstValue("content-type").orElse("(none)");
    }

    @Test
    @Timeout(20)
    @DisplayName("GET / is the status page, with the listener's path in place of {{MQTT_PATH}}")
    void slashIsTheStatusPage() throws Exception {
        var response = get(WITH_PAGE, "/");
        assertEquals(200, response.statusCode());
        assertTrue(contentType(response).startsWith("text/html"), contentType(response));
        var page = new String(response.body(), StandardCharsets.UTF_8);
        assertTrue(page.contains("<meta name=\"mqtt-path\" content=\"/live\">"), page);
        assertFalse(page.contains("{{MQTT_PATH}}"), page);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "status.js, (text|application)/javascript.*",
        "status.css, text/css.*",
        "mqtt.min.js, (text|application)/javascript.*",
    })
    @Timeout(20)
    @DisplayName("the page's files are served by name, unchanged, with their content type")
    void thePagesFiles(String name, String type) throws Exception {
        var response = get(WITH_PAGE, "/" + name);
        assertEquals(200, response.statusCode());
        assertTrue(contentType(response).matches(type), name + ": " + contentType(response));
        assertArrayEquals(resource(name), response.body(), name);
    }

    @Test
    @Timeout(20)
    @DisplayName("a file the page does not have is 404")
    void anUnknownFileIsNotFound() throws Exception {
        assertEquals(404, get(WITH_PAGE, "/no-such-file.js").statusCode());
    }

    @Test
    @Timeout(20)
    @DisplayName("with status-page = false, GET / and the page's files are 404")
    void statusPageOff() throws Exception {
        assertEquals(404, get(WITHOUT_PAGE, "/").statusCode());
        assertEquals(404, get(WITHOUT_PAGE, "/status.js").statusCode());
    }

    @Test
    @Timeout(150)
    @DisplayName("in headless Chromium the page connects back, shows the figures and both shards, and they move with the load")
    void statusPageInChromium() throws Exception {
        NodeScript.assumeChromium();
        Path screenshot = Path.of("target", "status-page.png").toAbsolutePath();
        Files.deleteIfExists(screenshot);
        NodeScript.assertPasses("status-page.mjs", Duration.ofSeconds(140),
                "--page", "http://127.0.0.1:" + port(WITH_PAGE) + "/", "--load", "mqtt://127.0.0.1:" + port(TCP),
                "--expect-shards", "2", "--screenshot", screenshot.toString(), "--timeout", "120");
        assertTrue(Files.size(screenshot) > 0, "no screenshot at " + screenshot);
    }
}
