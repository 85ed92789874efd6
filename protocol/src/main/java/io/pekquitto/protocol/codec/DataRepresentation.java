package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The data representations of 1.5 (Two and Four Byte Integers, Variable Byte Integers, UTF-8 strings,
 * Binary Data) read from and written to a {@link ByteBuffer}, plus the small checks every packet codec
 * shares (fixed-header flags, packet identifiers, reason codes).
 *
 * <p>Readers take the buffer of one whole frame and throw {@link MalformedPacketException} when a field
 * runs past its end, never {@code BufferUnderflowException}. Writers write straight into the target and
 * use explicit byte shifts, so the target's byte order does not matter. Size functions allocate nothing:
 * the encoder is on the broker's hot path.
 */
final class DataRepresentation {
    /** The largest value a Variable Byte Integer can hold (1.5.5). */
    static final int MAX_VARIABLE_BYTE_INTEGER = 268_435_455;
    /** The largest UTF-8 string or Binary Data (1.5.4, 1.5.6). */
    static final int MAX_STRING_LENGTH = 0xFFFF;

    /** The reason code for (packet type, wire value), or null: {@link ReasonCode#of} scans all codes. */
    private static final ReasonCode[][] REASON_CODES = new ReasonCode[16][256];
    static {
        for (var type : PacketType.values()) {
            for (var code : ReasonCode.values()) {
                if (code.isAllowedIn(type)) REASON_CODES[type.value()][code.value()] = code;
            }
        }
    }

    private DataRepresentation() {}

    // ---- reading ----

    static MalformedPacketException pastEnd(String field) {
        return new MalformedPacketException(field + " runs past the end of the packet");
    }

    static int readByte(ByteBuffer in, String field) {
        if (!in.hasRemaining()) throw pastEnd(field);
        return in.get() & 0xFF;
    }

    /** 1.5.2: big-endian, unsigned. */
    static int readTwoByteInteger(ByteBuffer in, String field) {
        if (in.remaining() < 2) throw pastEnd(field);
        return ((in.get() & 0xFF) << 8) | (in.get() & 0xFF);
    }

    /** 1.5.3: big-endian, unsigned. */
    static long readFourByteInteger(ByteBuffer in, String field) {
        if (in.remaining() < 4) throw pastEnd(field);
        long value = 0;
        for (int i = 0; i < 4; i++) value = (value << 8) | (in.get() & 0xFF);
        return value;
    }

    /**
     * 1.5.5: at most four bytes, seven bits each, least significant first. A value not in the minimum
     * number of bytes (a trailing 0x00 after a continuation) is malformed too ([MQTT-1.5.5-1]).
     */
    static int readVariableByteInteger(ByteBuffer in, String field) {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int b = readByte(in, field);
            value |= (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (i > 0 && b == 0) {
                    throw new MalformedPacketException(field + " is not encoded in the minimum number of bytes [MQTT-1.5.5-1]");
                }
                return value;
            }
        }
        throw new MalformedPacketException(field + " is a Variable Byte Integer longer than four bytes");
    }

    /** A packet identifier: non-zero ([MQTT-2.2.1-3]). */
    static int readPacketId(ByteBuffer in) {
        int packetId = readTwoByteInteger(in, "packet identifier");
        if (packetId == 0) throw new MalformedPacketException("packet identifier 0 [MQTT-2.2.1-3]");
        return packetId;
    }

    /** A reason code byte, which must be in the packet's column of the table (2.4). */
    static ReasonCode readReasonCode(ByteBuffer in, PacketType type) {
        int value = readByte(in, "reason code");
        var code = REASON_CODES[type.value()][value];
        if (code == null) {
            throw new MalformedPacketException(String.format("reason code 0x%02X is not valid in %s", value, type));
        }
        return code;
    }

    /** 1.5.6: a Two Byte Integer length, then that many bytes, copied out of the frame. */
    static Binary readBinary(ByteBuffer in, String field) {
        int length = readTwoByteInteger(in, field);
        if (in.remaining() < length) throw pastEnd(field);
        var bytes = new byte[length];
        in.get(bytes);
        return Binary.wrap(bytes);
    }

    /** The rest of the frame, copied out (the PUBLISH payload, 3.3.3). */
    static Binary readRemaining(ByteBuffer in) {
        var bytes = new byte[in.remaining()];
        in.get(bytes);
        return Binary.wrap(bytes);
    }

    /** The rest of the frame in place, for a body whose array is the decoder's own (a PUBLISH payload). */
    static Binary shareRemaining(ByteBuffer in) {
        var shared = Binary.share(in.array(), in.arrayOffset() + in.position(), in.remaining());
        in.position(in.limit());
        return shared;
    }

    /** 1.5.4: a Two Byte Integer length, then well-formed UTF-8 without surrogates or U+0000. */
    static String readString(ByteBuffer in, String field) {
        int length = readTwoByteInteger(in, field);
        if (in.remaining() < length) throw pastEnd(field);
        int position = in.position();
        String text;
        if (in.hasArray()) {
            text = decodeUtf8(in.array(), in.arrayOffset() + position, length, field);
        } else {
            // Read-only and direct buffers expose no array: one copy.
            var bytes = new byte[length];
            in.get(position, bytes);
            text = decodeUtf8(bytes, 0, length, field);
        }
        in.position(position + length);
        return text;
    }

    /**
     * Checks and decodes UTF-8. Pure ASCII (most topics and client ids) takes the fast path; otherwise
     * each sequence is checked against the well-formed ranges of Unicode's table 3-7, which excludes
     * overlong forms, code points above U+10FFFF and the surrogates U+D800..U+DFFF ([MQTT-1.5.4-1]).
     */
    static String decodeUtf8(byte[] bytes, int offset, int length, String field) {
        int end = offset + length;
        int i = offset;
        while (i < end && bytes[i] > 0) i++;
        if (i == end) return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
        while (i < end) {
            int b = bytes[i] & 0xFF;
            if (b < 0x80) {
                if (b == 0) throw new MalformedPacketException(field + " contains U+0000 [MQTT-1.5.4-2]");
                i++;
                continue;
            }
            int continuations;
            int low = 0x80;
            int high = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                continuations = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                continuations = 2;
                if (b == 0xE0) low = 0xA0;           // overlong
                else if (b == 0xED) high = 0x9F;     // surrogates
            } else if (b >= 0xF0 && b <= 0xF4) {
                continuations = 3;
                if (b == 0xF0) low = 0x90;           // overlong
                else if (b == 0xF4) high = 0x8F;     // above U+10FFFF
            } else {
                throw notUtf8(field);
            }
            if (i + continuations >= end) throw notUtf8(field);
            int second = bytes[i + 1] & 0xFF;
            if (second < low || second > high) throw notUtf8(field);
            for (int k = 2; k <= continuations; k++) {
                int next = bytes[i + k] & 0xFF;
                if (next < 0x80 || next > 0xBF) throw notUtf8(field);
            }
            i += continuations + 1;
        }
        return new String(bytes, offset, length, StandardCharsets.UTF_8);
    }

    private static MalformedPacketException notUtf8(String field) {
        return new MalformedPacketException(field + " is not well-formed UTF-8 [MQTT-1.5.4-1]");
    }

    /** Reserved fixed-header flags must hold their fixed value ([MQTT-2.1.3-1]; [MQTT-2.2.2-2] in 3.1.1). */
    static void checkFlags(int flags, int expected, PacketType type) {
        if (flags != expected) {
            throw new MalformedPacketException(String.format(
                    "%s with fixed header flags %s, not %s [MQTT-2.1.3-1], [MQTT-2.2.2-2] in 3.1.1", type,
                    Integer.toBinaryString(flags), Integer.toBinaryString(expected)));
        }
    }

    static void checkRemainingLength(ByteBuffer in, int minimum, PacketType type) {
        if (in.remaining() < minimum) {
            throw new MalformedPacketException(type + " with remaining length " + in.remaining()
                    + ", shorter than " + minimum);
        }
    }

    // ---- sizes ----

    static int variableByteIntegerSize(int value) {
        if (value < 0 || value > MAX_VARIABLE_BYTE_INTEGER) {
            throw new IllegalArgumentException("Variable Byte Integer out of range: " + value);
        }
        if (value < 128) return 1;
        if (value < 16_384) return 2;
        if (value < 2_097_152) return 3;
        return 4;
    }

    /** A whole packet: the fixed header byte, the Remaining Length, the rest. */
    static int packetSize(int remainingLength) {
        return 1 + variableByteIntegerSize(remainingLength) + remainingLength;
    }

    /** The bytes {@link #writeString} writes, length prefix included. */
    static int stringSize(String text) {
        int length = utf8Length(text);
        if (length > MAX_STRING_LENGTH) {
            throw new IllegalArgumentException("string of " + length + " UTF-8 bytes is longer than 65,535");
        }
        return 2 + length;
    }

    static int binarySize(Binary binary) {
        if (binary.length() > MAX_STRING_LENGTH) {
            throw new IllegalArgumentException("binary data of " + binary.length() + " bytes is longer than 65,535");
        }
        return 2 + binary.length();
    }

    /** The UTF-8 length of a string; a lone surrogate counts as the one byte '?' it is written as. */
    static int utf8Length(String text) {
        int chars = text.length();
        int length = chars;
        for (int i = 0; i < chars; i++) {
            char c = text.charAt(i);
            if (c < 0x80) continue;
            if (c < 0x800) {
                length += 1;
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(text.charAt(i + 1))) {
                    length += 2;  // four bytes for two chars
                    i++;
                }
            } else {
                length += 2;
            }
        }
        return length;
    }

    // ---- writing ----

    static void writeByte(ByteBuffer out, int value) {
        out.put((byte) value);
    }

    static void writeTwoByteInteger(ByteBuffer out, int value) {
        out.put((byte) (value >>> 8));
        out.put((byte) value);
    }

    static void writeFourByteInteger(ByteBuffer out, long value) {
        out.put((byte) (value >>> 24));
        out.put((byte) (value >>> 16));
        out.put((byte) (value >>> 8));
        out.put((byte) value);
    }

    static void writeVariableByteInteger(ByteBuffer out, int value) {
        do {
            int b = value & 0x7F;
            value >>>= 7;
            out.put((byte) (value > 0 ? b | 0x80 : b));
        } while (value > 0);
    }

    static void writeFixedHeader(ByteBuffer out, int typeAndFlags, int remainingLength) {
        out.put((byte) typeAndFlags);
        writeVariableByteInteger(out, remainingLength);
    }

    /** Writes the length and the UTF-8 bytes char by char: no intermediate byte[]. */
    static void writeString(ByteBuffer out, String text) {
        writeTwoByteInteger(out, utf8Length(text));
        int chars = text.length();
        for (int i = 0; i < chars; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                out.put((byte) c);
            } else if (c < 0x800) {
                out.put((byte) (0xC0 | (c >> 6)));
                out.put((byte) (0x80 | (c & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(text.charAt(i + 1))) {
                    int codePoint = Character.toCodePoint(c, text.charAt(++i));
                    out.put((byte) (0xF0 | (codePoint >> 18)));
                    out.put((byte) (0x80 | ((codePoint >> 12) & 0x3F)));
                    out.put((byte) (0x80 | ((codePoint >> 6) & 0x3F)));
                    out.put((byte) (0x80 | (codePoint & 0x3F)));
                } else {
                    out.put((byte) '?');  // as String.getBytes(UTF_8) does
                }
            } else {
                out.put((byte) (0xE0 | (c >> 12)));
                out.put((byte) (0x80 | ((c >> 6) & 0x3F)));
                out.put((byte) (0x80 | (c & 0x3F)));
            }
        }
    }

    static void writeBinary(ByteBuffer out, Binary binary) {
        writeTwoByteInteger(out, binary.length());
        binary.writeTo(out);
    }
}
