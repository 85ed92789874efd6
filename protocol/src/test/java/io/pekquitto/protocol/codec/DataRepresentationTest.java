package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.protocol.MalformedPacketException;
import java.nio.ByteBuffer;
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
}
