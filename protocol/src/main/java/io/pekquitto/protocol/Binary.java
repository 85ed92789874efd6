package io.pekquitto.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Immutable bytes with value equality: payloads, passwords, Correlation Data, Authentication Data. */
public final class Binary {
    public static final Binary EMPTY = new Binary(new byte[0]);

    private final byte[] bytes;

    private Binary(byte[] bytes) { this.bytes = bytes; }

    /** Copies the array in. */
    public static Binary of(byte[] bytes) { return bytes.length == 0 ? EMPTY : new Binary(bytes.clone()); }

    public static Binary utf8(String text) { return new Binary(text.getBytes(StandardCharsets.UTF_8)); }

    /** Takes ownership of an array the caller will not touch again (the decoder's fresh copies). */
    public static Binary wrap(byte[] bytes) { return bytes.length == 0 ? EMPTY : new Binary(bytes); }

    public int length() { return bytes.length; }

    public boolean isEmpty() { return bytes.length == 0; }

    /** A copy of the bytes. */
    public byte[] toByteArray() { return bytes.clone(); }

    /** A read-only view, no copy. */
    public ByteBuffer asByteBuffer() { return ByteBuffer.wrap(bytes).asReadOnlyBuffer(); }

    /** Writes the bytes into a buffer, no intermediate copy. */
    public void writeTo(ByteBuffer target) { target.put(bytes); }

    public String asUtf8() { return new String(bytes, StandardCharsets.UTF_8); }

    /** Whether the bytes are well-formed UTF-8: what a Payload Format Indicator of 1 announces (3.3.2.3.2). */
    public boolean isUtf8() {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(asByteBuffer());
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Override
    public boolean equals(Object o) { return o instanceof Binary b && Arrays.equals(bytes, b.bytes); }

    @Override
    public int hashCode() { return Arrays.hashCode(bytes); }

    @Override
    public String toString() { return "Binary[" + bytes.length + " bytes]"; }
}
