package io.pekquitto.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Immutable bytes with value equality: payloads, passwords, Correlation Data, Authentication Data. The
 * bytes may be part of a larger array that nobody writes (a PUBLISH body the decoder joined for itself):
 * a large payload is then kept, and written to every subscriber, without a copy.
 */
public final class Binary {
    public static final Binary EMPTY = new Binary(new byte[0], 0, 0);

    private final byte[] bytes;
    private final int offset;
    private final int length;

    private Binary(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
    }

    /** Copies the array in. */
    public static Binary of(byte[] bytes) { return bytes.length == 0 ? EMPTY : new Binary(bytes.clone(), 0, bytes.length); }

    public static Binary utf8(String text) { return wrap(text.getBytes(StandardCharsets.UTF_8)); }

    /** Takes ownership of an array the caller will not touch again (the decoder's fresh copies). */
    public static Binary wrap(byte[] bytes) { return bytes.length == 0 ? EMPTY : new Binary(bytes, 0, bytes.length); }

    /**
     * Takes {@code length} bytes at {@code offset} of an array that nobody writes again, without a copy: the
     * rest of the array lives as long as this does, so the caller shares only what is most of its array.
     */
    public static Binary share(byte[] array, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, array.length);
        return length == 0 ? EMPTY : new Binary(array, offset, length);
    }

    public int length() { return length; }

    public boolean isEmpty() { return length == 0; }

    /** A copy of the bytes. */
    public byte[] toByteArray() { return Arrays.copyOfRange(bytes, offset, offset + length); }

    /** A read-only view, no copy. */
    public ByteBuffer asByteBuffer() { return ByteBuffer.wrap(bytes, offset, length).slice().asReadOnlyBuffer(); }

    /** Writes the bytes into a buffer, no intermediate copy. */
    public void writeTo(ByteBuffer target) { target.put(bytes, offset, length); }

    /** The bytes in place, to a reader that keeps them no longer than this Binary and never writes them. */
    public <T> T view(ArrayView<T> reader) { return reader.of(bytes, offset, length); }

    /** Reads bytes in place: {@link #view}. */
    @FunctionalInterface
    public interface ArrayView<T> {
        T of(byte[] array, int offset, int length);
    }

    public String asUtf8() { return new String(bytes, offset, length, StandardCharsets.UTF_8); }

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
    public boolean equals(Object o) {
        return o instanceof Binary b && Arrays.equals(bytes, offset, offset + length, b.bytes, b.offset, b.offset + b.length);
    }

    @Override
    public int hashCode() {
        int hash = 1;
        for (int i = offset; i < offset + length; i++) hash = 31 * hash + bytes[i];
        return hash;
    }

    @Override
    public String toString() { return "Binary[" + length + " bytes]"; }
}
