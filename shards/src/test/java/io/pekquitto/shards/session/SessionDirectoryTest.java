package io.pekquitto.shards.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.session.SessionTransfer.Successor;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SessionDirectoryTest {
    private final SessionDirectory directory = new SessionDirectory();

    @Test
    void eachClaimTakesTheSessionFromTheClaimBeforeIt() {
        assertEquals(Optional.empty(), directory.claim("c", new Successor(1, 10)));
        assertEquals(Optional.of(new Successor(1, 10)), directory.claim("c", new Successor(0, 20)));
        assertEquals(Optional.of(new Successor(0, 20)), directory.claim("c", new Successor(0, 30)));
    }

    @Test
    void anEndedReportOfAnEarlierClaimIsIgnored() {
        directory.claim("c", new Successor(1, 10));
        directory.claim("c", new Successor(0, 20));
        directory.ended("c", 10);
        assertEquals(Optional.of(new Successor(0, 20)), directory.claim("c", new Successor(2, 30)),
                "the session of claim 20 still exists");
        directory.ended("c", 30);
        assertEquals(0, directory.size(), "the latest claim's session ended: nothing is kept");
    }

    @Test
    void homeIsNeverNegativeEvenForMinValueHashes() {
        // "polygenelubricants".hashCode() is Integer.MIN_VALUE: Math.abs of it is negative.
        assertEquals(Integer.MIN_VALUE, "polygenelubricants".hashCode());
        for (int shards = 1; shards <= 16; shards++) {
            int home = SessionDirectory.homeOf("polygenelubricants", shards);
            assertTrue(home >= 0 && home < shards);
        }
    }

    @Test
    void theSessionsOfARestartedShardAreForgottenAndPeersRestoreTheirs() {
        directory.claim("a", new Successor(1, 10));
        directory.claim("b", new Successor(2, 20));
        directory.forgetShard(1);
        assertEquals(Optional.empty(), directory.claim("a", new Successor(3, 30)));
        directory.restore("b", new Successor(4, 40));
        assertEquals(Optional.of(new Successor(2, 20)), directory.claim("b", new Successor(3, 50)),
                "a restored holder does not replace a recorded claim");
        directory.restore("d", new Successor(4, 40));
        assertEquals(Optional.of(new Successor(4, 40)), directory.claim("d", new Successor(3, 60)));
    }
}
