package io.pekquitto.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BinaryTest {

    @Test
    void utf8IsWellFormedUtf8Only() {  // 3.3.2.3.2
        assertTrue(Binary.utf8("caf\u00e9 \uD83D\uDE00").isUtf8());
        assertTrue(Binary.EMPTY.isUtf8());
        assertFalse(Binary.of(new byte[] {(byte) 0xC3, 0x28}).isUtf8(), "a continuation byte missing");
        assertFalse(Binary.of(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}).isUtf8(), "a surrogate");
    }

    @Test
    void aSharedSliceIsItsBytesAloneWithoutACopy() {
        byte[] body = {9, 9, 1, 2, 3};
        var shared = Binary.share(body, 2, 3);
        assertEquals(3, shared.length());
        assertArrayEquals(new byte[] {1, 2, 3}, shared.toByteArray());
        assertEquals(Binary.of(new byte[] {1, 2, 3}), shared, "equal by its bytes, not the array around them");
        assertEquals(Binary.of(new byte[] {1, 2, 3}).hashCode(), shared.hashCode());
        assertEquals(3, shared.asByteBuffer().remaining());
        assertEquals(1, shared.asByteBuffer().get(0), "the view starts at the slice");
        assertSame(body, shared.view((array, offset, length) -> array), "in place");
        assertEquals(2, (int) shared.view((array, offset, length) -> offset));
        assertSame(Binary.EMPTY, Binary.share(body, 5, 0));
    }
}
