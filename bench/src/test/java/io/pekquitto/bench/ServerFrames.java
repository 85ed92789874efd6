package io.pekquitto.bench;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The server's side of RFC 6455 framing, written out plainly for the tests (not the code under test):
 * unmasked frames as a broker sends them, and client frames taken apart and unmasked.
 */
final class ServerFrames {

    record Frame(boolean fin, int opcode, boolean masked, byte[] payload) {}

    private ServerFrames() {}

    /** One unmasked frame; the length in the shortest form unless {@code lengthForm} forces 126 or 127. */
    static byte[] frame(boolean fin, int opcode, byte[] payload, int lengthForm) {
        var out = new ByteArrayOutputStream();
        out.write((fin ? 0x80 : 0) | opcode);
        int form = lengthForm != 0 ? lengthForm : payload.length <= 125 ? payload.length : payload.length <= 0xFFFF ? 126 : 127;
        out.write(form);
        if (form == 126) {
            out.write(payload.length >>> 8);
            out.write(payload.length);
        } else if (form == 127) {
            for (int shift = 56; shift >= 0; shift -= 8) out.write((int) ((long) payload.length >>> shift));
        }
        out.writeBytes(payload);
        return out.toByteArray();
    }

    static byte[] frame(boolean fin, int opcode, byte[] payload) {
        return frame(fin, opcode, payload, 0);
    }

    static byte[] concat(byte[]... parts) {
        var out = new ByteArrayOutputStream();
        for (var part : parts) out.writeBytes(part);
        return out.toByteArray();
    }

    /** Every frame in {@code bytes}, which must end at a frame boundary, payloads unmasked. */
    static List<Frame> parse(byte[] bytes) {
        var frames = new ArrayList<Frame>();
        int i = 0;
        while (i < bytes.length) {
            int b0 = bytes[i] & 0xFF;
            int b1 = bytes[i + 1] & 0xFF;
            i += 2;
            long length = b1 & 0x7F;
            if (length == 126) {
                length = (bytes[i] & 0xFF) << 8 | bytes[i + 1] & 0xFF;
                i += 2;
            } else if (length == 127) {
                length = ByteBuffer.wrap(bytes, i, 8).getLong();
                i += 8;
            }
            boolean masked = (b1 & 0x80) != 0;
            var key = new byte[4];
            if (masked) {
                System.arraycopy(bytes, i, key, 0, 4);
                i += 4;
            }
            var payload = new byte[(int) length];
            for (int k = 0; k < length; k++) payload[k] = (byte) (bytes[i + k] ^ key[k % 4]);
            i += (int) length;
            frames.add(new Frame((b0 & 0x80) != 0, b0 & 0x0F, masked, payload));
        }
        return frames;
    }

    static byte[] bytes(int count, int seed) {
        var bytes = new byte[count];
        for (int i = 0; i < count; i++) bytes[i] = (byte) (i * 31 + seed);
        return bytes;
    }
}
