package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.MalformedPacketException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class DataRepresentationTest {
    private static String readString(int... vector) {
        var buffer = ByteBuffer.wrap(bytes(vector));
        var text = DataRepresentation.readString(buffer, "test");
        assertEquals(0, buffer.remaining());
        return text;
    }

    private static void assertNotUtf8(int... vector) {
        assertThrows(MalformedPacketException.class, () -> readString(vector));
    }

    @Test
    void asciiStringIsRead() {
        assertEquals("a/b", readString(0, 3, 'a', '/', 'b'));
    }

    @Test
    void multiByteSequencesAreRead() {
        assertEquals("é€\uD83D\uDE00", readString(
                0, 9,                       // length
                0xC3, 0xA9,                 // U+00E9
                0xE2, 0x82, 0xAC,           // U+20AC
                0xF0, 0x9F, 0x98, 0x80));   // U+1F600
    }

    @Test
    void stringFromReadOnlyBufferIsRead() {
        var buffer = ByteBuffer.wrap(bytes(0, 2, 0xC3, 0xA9)).asReadOnlyBuffer();
        assertEquals("é", DataRepresentation.readString(buffer, "test"));
    }

    @Test
    void nullCharacterIsMalformed() {
        assertNotUtf8(0, 2, 'a', 0x00);  // U+0000 [MQTT-1.5.4-2]
    }

    @Test
    void encodedSurrogateIsMalformed() {
        assertNotUtf8(0, 3, 0xED, 0xA0, 0x80);  // U+D800 [MQTT-1.5.4-1]
    }

    @Test
    void overlongEncodingIsMalformed() {
        assertNotUtf8(0, 2, 0xC0, 0x80);         // overlong U+0000 [MQTT-1.5.4-1]
        assertNotUtf8(0, 3, 0xE0, 0x80, 0xAF);   // overlong '/'
    }

    @Test
    void truncatedSequenceIsMalformed() {
        assertNotUtf8(0, 2, 'a', 0xC3);          // lead byte without continuation [MQTT-1.5.4-1]
        assertNotUtf8(0, 2, 0xC3, 'a');          // continuation byte missing
    }

    @Test
    void codePointAboveUnicodeIsMalformed() {
        assertNotUtf8(0, 4, 0xF4, 0x90, 0x80, 0x80);  // U+110000
    }

    @Test
    void stringRunningPastTheEndIsMalformed() {
        assertNotUtf8(0, 5, 'a', 'b');
    }

    @Test
    void variableByteIntegerIsReadLeastSignificantFirst() {
        assertEquals(321, DataRepresentation.readVariableByteInteger(ByteBuffer.wrap(bytes(0xC1, 0x02)), "test"));
        assertEquals(268_435_455, DataRepresentation.readVariableByteInteger(
                ByteBuffer.wrap(bytes(0xFF, 0xFF, 0xFF, 0x7F)), "test"));
    }

    @Test
    void variableByteIntegerOfFiveBytesIsMalformed() {
        assertThrows(MalformedPacketException.class, () -> DataRepresentation.readVariableByteInteger(
                ByteBuffer.wrap(bytes(0x80, 0x80, 0x80, 0x80, 0x01)), "test"));
    }

    @Test
    void variableByteIntegerNotMinimalIsMalformed() {
        // [MQTT-1.5.5-1]: 0 written in two bytes
        assertThrows(MalformedPacketException.class, () -> DataRepresentation.readVariableByteInteger(
                ByteBuffer.wrap(bytes(0x80, 0x00)), "test"));
    }

    @Test
    void stringsAreWrittenAsUtf8() {
        var buffer = ByteBuffer.allocate(16);
        DataRepresentation.writeString(buffer, "aé€\uD83D\uDE00");
        assertEquals(2 + 10, DataRepresentation.stringSize("aé€\uD83D\uDE00"));
        assertEquals(ByteBuffer.wrap(bytes(0, 10, 'a', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80)),
                buffer.flip());
    }

    @Test
    void fieldsAreReadFromASliceAtAnArrayOffset() {
        var padded = bytes(
                0xEE, 0xEE, 0xEE,           // bytes before the slice, not to be read
                0, 2, 0xC3, 0xA9,           // string "é"
                0, 3, 'a', '/', 'b',        // string "a/b", read at position 4 of the slice
                0, 2, 0xCA, 0xFE,           // binary CA FE
                0xEE);                      // a byte after the slice
        var slice = ByteBuffer.wrap(padded, 3, padded.length - 4).slice();
        assertEquals(3, slice.arrayOffset());
        assertEquals("é", DataRepresentation.readString(slice, "test"));
        assertEquals("a/b", DataRepresentation.readString(slice, "test"));
        assertEquals(Binary.of(bytes(0xCA, 0xFE)), DataRepresentation.readBinary(slice, "test"));
        assertEquals(0, slice.remaining());
    }

    /**
     * The array path decodes a string straight from the buffer's array; a buffer without an accessible
     * array costs a copy first. Seen as allocation: about one string's bytes against two.
     */
    @Test
    void stringsOfArrayBackedBuffersAreNotCopiedBeforeDecoding() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
                && threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        int length = 60_000;
        var padded = new byte[5 + 2 + length];
        padded[5] = (byte) (length >> 8);           // length prefix at offset 5
        padded[6] = (byte) length;
        Arrays.fill(padded, 7, padded.length, (byte) 'a');
        var stringAt0 = Arrays.copyOfRange(padded, 5, padded.length);

        long wrapped = bytesAllocatedReading(() -> ByteBuffer.wrap(stringAt0));
        long sliced = bytesAllocatedReading(() -> ByteBuffer.wrap(padded, 5, 2 + length).slice());
        long readOnly = bytesAllocatedReading(() -> ByteBuffer.wrap(stringAt0).asReadOnlyBuffer());
        assertTrue(wrapped < length * 3 / 2, () -> "wrapped: " + wrapped);
        assertTrue(sliced < length * 3 / 2, () -> "sliced: " + sliced);
        assertTrue(readOnly > length * 3 / 2, () -> "read-only: " + readOnly);  // the probe does see a copy
    }

    private static long bytesAllocatedReading(Supplier<ByteBuffer> buffers) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        DataRepresentation.readString(buffers.get(), "warm-up");
        var buffer = buffers.get();
        long before = threads.getCurrentThreadAllocatedBytes();
        DataRepresentation.readString(buffer, "test");
        return threads.getCurrentThreadAllocatedBytes() - before;
    }
}
