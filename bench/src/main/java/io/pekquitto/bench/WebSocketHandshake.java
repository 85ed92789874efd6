package io.pekquitto.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The HTTP/1.1 Upgrade of RFC 6455 section 4 for the `mqtt` subprotocol: the request a client sends,
 * and the checks on the server's answer (101, Upgrade, Connection, Sec-WebSocket-Accept derived from
 * our key, the subprotocol chosen, no extension), each failure named.
 */
final class WebSocketHandshake {

    static final String SUBPROTOCOL = "mqtt";
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    final String key;
    final byte[] request;

    WebSocketHandshake(String host, int port, String path) {
        this(host, port, path, randomKey());
    }

    WebSocketHandshake(String host, int port, String path, String key) {
        this.key = key;
        this.request = ("GET " + path + " HTTP/1.1\r\n"
                + "Host: " + host + ":" + port + "\r\n"
                + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\n"
                + "Sec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: " + SUBPROTOCOL + "\r\n"
                + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A nonce, not a secret (section 4.1): 16 random bytes in base64. */
    static String randomKey() {
        var bytes = new byte[16];
        ThreadLocalRandom.current().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** What the server must answer in Sec-WebSocket-Accept for this key. */
    static String accept(String key) {
        try {
            var sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }

    /** Checks the response head (status line and headers, without the blank line); throws naming what is wrong. */
    void check(String head) throws WebSocketFrames.ProtocolException {
        var lines = head.split("\r\n");
        var status = lines[0];
        if (!status.matches("HTTP/1\\.1 101( .*)?")) throw refused("the broker answered " + status);
        String upgrade = null;
        String connection = null;
        String accept = null;
        String protocol = null;
        String extensions = null;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon <= 0) throw refused("malformed header line '" + lines[i] + "'");
            var name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            var value = lines[i].substring(colon + 1).trim();
            switch (name) {
                case "upgrade" -> upgrade = value;
                case "connection" -> connection = value;
                case "sec-websocket-accept" -> accept = value;
                case "sec-websocket-protocol" -> protocol = value;
                case "sec-websocket-extensions" -> extensions = value;
                default -> { }
            }
        }
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) throw refused("Upgrade: " + upgrade);
        if (connection == null || !hasToken(connection, "upgrade")) throw refused("Connection: " + connection);
        if (!accept(key).equals(accept)) throw refused("Sec-WebSocket-Accept " + accept + ", expected " + accept(key));
        if (!SUBPROTOCOL.equals(protocol)) throw refused("subprotocol " + (protocol == null ? "not chosen" : "'" + protocol + "'") + ", asked for 'mqtt'");
        if (extensions != null) throw refused("extensions '" + extensions + "' that were not asked for");
    }

    private static boolean hasToken(String list, String token) {
        for (var part : list.split(",")) if (part.trim().equalsIgnoreCase(token)) return true;
        return false;
    }

    private static WebSocketFrames.ProtocolException refused(String why) {
        return new WebSocketFrames.ProtocolException("WebSocket upgrade failed: " + why);
    }
}
