package io.pekquitto.bench;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WebSocketHandshakeTest {

    private static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";  // RFC 6455 1.3's sample nonce
    private final WebSocketHandshake handshake = new WebSocketHandshake("127.0.0.1", 8080, "/mqtt", KEY);

    @Test
    void acceptIsTheRfcsExample() {
        assertEquals("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", WebSocketHandshake.accept(KEY));
    }

    @Test
    void requestAsksForTheMqttSubprotocolOnThePath() {
        var request = new String(handshake.request, StandardCharsets.ISO_8859_1);
        assertTrue(request.startsWith("GET /mqtt HTTP/1.1\r\n"), request);
        assertTrue(request.contains("\r\nHost: 127.0.0.1:8080\r\n"), request);
        assertTrue(request.contains("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"), request);
        assertTrue(request.contains("\r\nSec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n"), request);
        assertTrue(request.contains("\r\nSec-WebSocket-Protocol: mqtt\r\n"), request);
        assertTrue(request.endsWith("\r\n\r\n"), request);
    }

    @Test
    void randomKeysAreSixteenBytesAndDiffer() {
        var key = WebSocketHandshake.randomKey();
        assertEquals(24, key.length());
        assertTrue(!key.equals(WebSocketHandshake.randomKey()));
    }

    @Test
    void mosquittosAnswerPasses() {
        // As Mosquitto 2.0.11 (libwebsockets) answered on this machine, header case and all.
        assertDoesNotThrow(() -> handshake.check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: mqtt"));
        assertDoesNotThrow(() -> handshake.check("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n"
                + "connection: keep-alive, Upgrade\r\nsec-websocket-accept:s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                + "Server: x\r\nsec-websocket-protocol: mqtt"));
    }

    @Test
    void wrongAnswersAreNamed() {
        var good = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n";
        assertFails("HTTP/1.1 404 Not Found\r\nContent-Length: 0", "answered HTTP/1.1 404 Not Found");
        assertFails("HTTP/1.1 101 Switching Protocols\r\n" + good.trim(), "subprotocol not chosen");
        assertFails("HTTP/1.1 101 Switching Protocols\r\n" + good + "Sec-WebSocket-Protocol: mqttv3.1", "'mqttv3.1'");
        assertFails("HTTP/1.1 101 Switching Protocols\r\n" + good.replace("s3pP", "AAAA") + "Sec-WebSocket-Protocol: mqtt",
                "Sec-WebSocket-Accept");
        assertFails("HTTP/1.1 101 Switching Protocols\r\n" + good + "Sec-WebSocket-Protocol: mqtt\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate", "extensions");
        assertFails("HTTP/1.1 101 Switching Protocols\r\n" + good.replace("Upgrade: websocket", "Upgrade: h2c")
                + "Sec-WebSocket-Protocol: mqtt", "Upgrade: h2c");
    }

    private void assertFails(String head, String why) {
        var e = assertThrows(WebSocketFrames.ProtocolException.class, () -> handshake.check(head));
        assertTrue(e.getMessage().contains(why), e.getMessage() + " should say " + why);
    }
}
