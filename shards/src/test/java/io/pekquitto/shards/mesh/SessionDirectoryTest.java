package io.pekquitto.shards.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SessionDirectoryTest {
    private final SessionDirectory directory = new SessionDirectory();

    @Test
    void aClaimReturnsThePreviousOwner() {
        assertEquals(SessionDirectory.NONE, directory.claim("c", 1));
        assertEquals(1, directory.claim("c", 0));
        assertEquals(0, directory.claim("c", 0));
    }

    @Test
    void anEndedReportFromAFormerOwnerIsIgnored() {
        directory.claim("c", 1);
        directory.claim("c", 0);
        directory.ended("c", 1);
        assertEquals(0, directory.claim("c", 2), "shard 0 still owns the session");
        directory.ended("c", 2);
        assertEquals(0, directory.size());
    }

    @Test
    void homeIsNeverNegativeEvenForMinValueHashes() {
        // "polygenelubricants".hashCode() is Integer.MIN_VALUE (STYLE.md part (a) 4).
        assertEquals(Integer.MIN_VALUE, "polygenelubricants".hashCode());
        for (int shards = 1; shards <= 16; shards++) {
            int home = SessionDirectory.homeOf("polygenelubricants", shards);
            assertTrue(home >= 0 && home < shards);
        }
    }

    @Test
    void aRestartedOwnerIsForgotten() {
        directory.claim("a", 1);
        directory.claim("b", 2);
        directory.forgetOwner(1);
        assertEquals(SessionDirectory.NONE, directory.claim("a", 3));
        assertEquals(2, directory.claim("b", 3));
    }
}
