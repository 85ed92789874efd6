package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** MQTT 3.1.1 bytes written by hand, independent of the broker's codec: enough for a throwaway connection. */
final class RawMqtt {
    private static final int SOCKET_TIMEOUT_MILLIS = 5_000;

    private RawMqtt() {}

    /** Connects with a clean session, expects CONNACK accepted, sends DISCONNECT and closes. */
    static void connectAndDisconnect(int port, String clientId) throws IOException {
        try (var socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
            var out = socket.getOutputStream();
            out.write(connect(clientId));
            out.flush();
            byte[] connAck = socket.getInputStream().readNBytes(4);
            assertArrayEquals(new byte[] {0x20, 2, 0, 0}, connAck, "CONNACK, no session, accepted");
            out.write(new byte[] {(byte) 0xE0, 0});  // DISCONNECT
            out.flush();
        }
    }

    private static byte[] connect(String clientId) {
        byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        var packet = new ByteArrayOutputStream();
        int remainingLength = 10 + 2 + id.length;
        packet.write(0x10);                       // fixed header: CONNECT
        packet.write(remainingLength);            // remaining length (client ids here are short: one byte)
        packet.writeBytes(new byte[] {0, 4, 'M', 'Q', 'T', 'T'});  // protocol name
        packet.write(4);                          // protocol level: 3.1.1
        packet.write(0x02);                       // connect flags: clean session
        packet.writeBytes(new byte[] {0, 60});    // keep alive: 60 s
        packet.write(id.length >> 8);             // client identifier
        packet.write(id.length & 0xFF);
        packet.writeBytes(id);
        return packet.toByteArray();
    }
}
