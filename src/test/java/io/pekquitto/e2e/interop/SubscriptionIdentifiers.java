package io.pekquitto.e2e.interop;

import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import java.util.ArrayList;
import java.util.List;

/**
 * MQTT 5 Subscription Identifiers (3.8.2.1.2, 3.3.2.3.8) at the byte level, from the standard alone:
 * a SUBSCRIBE that carries one, and every identifier in a received PUBLISH (a PUBLISH may carry
 * several, which a map keyed by property identifier would collapse).
 */
final class SubscriptionIdentifiers {
    private SubscriptionIdentifiers() {}

    /** A v5 SUBSCRIBE of one filter; {@code identifier} 0 means none (0 is not a valid identifier). */
    static byte[] subscribe(int packetId, String filter, int qos, int identifier) {
        var properties = new Bytes();
        if (identifier > 0) properties.u8(0x0B).varInt(identifier);    // Subscription Identifier, Variable Byte Integer
        var body = new Bytes()
                .u16(packetId)                                          // Packet Identifier
                .properties(properties.toByteArray())                   // SUBSCRIBE Properties
                .string(filter)                                         // Topic Filter
                .u8(qos);                                               // Subscription Options: Maximum QoS only
        return RawClient.packet(RawClient.SUBSCRIBE << 4 | 0b0010, body.toByteArray());
    }

    /** Every Subscription Identifier in a v5 PUBLISH body, in the order sent. */
    static List<Integer> in(byte[] body, int qos) {
        int[] at = {2 + (((body[0] & 0xFF) << 8) | (body[1] & 0xFF))};  // after the Topic Name
        if (qos > 0) at[0] += 2;                                        // Packet Identifier
        int length = varInt(body, at);
        int end = at[0] + length;
        var identifiers = new ArrayList<Integer>();
        while (at[0] < end) {
            int id = varInt(body, at);
            switch (id) {
                case 0x01 -> at[0] += 1;                                // Payload Format Indicator, Byte
                case 0x02 -> at[0] += 4;                                // Message Expiry Interval, Four Byte Integer
                case 0x23 -> at[0] += 2;                                // Topic Alias, Two Byte Integer
                case 0x03, 0x08, 0x09 -> at[0] += 2 + u16(body, at[0]); // Content Type, Response Topic, Correlation Data
                case 0x26 -> {                                          // User Property: two strings
                    at[0] += 2 + u16(body, at[0]);
                    at[0] += 2 + u16(body, at[0]);
                }
                case 0x0B -> identifiers.add(varInt(body, at));         // Subscription Identifier
                default -> throw new AssertionError("property " + RawClient.hex(id) + " is not allowed in PUBLISH");
            }
        }
        return identifiers;
    }

    private static int u16(byte[] body, int at) {
        return ((body[at] & 0xFF) << 8) | (body[at + 1] & 0xFF);
    }

    private static int varInt(byte[] body, int[] at) {
        int value = 0;
        for (int shift = 0; shift <= 21; shift += 7) {
            int b = body[at[0]++] & 0xFF;
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) return value;
        }
        throw new AssertionError("Variable Byte Integer longer than 4 bytes");
    }
}
