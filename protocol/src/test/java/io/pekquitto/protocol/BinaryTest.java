package io.pekquitto.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
}
