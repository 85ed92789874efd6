package io.pekquitto.shards.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.BridgeSettings;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LinkAttemptsTest {

    private static BridgeSettings bridge(String more) {
        return BrokerSettings.parse("""
                bridges = [{ name = b, addresses = ["one:1883", "two:1883", "three:1883"], topics = [{ pattern = "#" }]
                             restart-timeout { base = 2s, cap = 2s }
                             %s }]
                """.formatted(more)).bridges().get(0);
    }

    @Test
    void aFailedAttemptMovesOnAndALostLinkStartsAgainAtTheFirstAddress() {
        var attempts = new LinkAttempts(bridge(""), () -> 0.5);
        assertEquals("one", attempts.current().host());
        assertEquals(Optional.of(Duration.ofSeconds(2)), attempts.failed(0));
        assertEquals("two", attempts.current().host());
        attempts.failed(0);
        assertEquals("three", attempts.current().host());
        attempts.failed(0);
        assertEquals("one", attempts.current().host());
        attempts.failed(0);
        attempts.up();
        attempts.lost(0);
        assertEquals("one", attempts.current().host());
    }

    @Test
    void roundRobinMovesOnAfterALostLinkToo() {
        var attempts = new LinkAttempts(bridge("round-robin = true"), () -> 0.5);
        attempts.up();
        attempts.lost(0);
        assertEquals("two", attempts.current().host());
    }

    @Test
    void onceNeverTriesAgainAndLazyOnlyWithEnoughWaiting() {
        assertEquals(Optional.empty(), new LinkAttempts(bridge("start-type = once"), () -> 0.5).failed(100));
        var lazy = new LinkAttempts(bridge("start-type = lazy, threshold = 5"), () -> 0.5);
        assertEquals(Optional.empty(), lazy.lost(4));
        assertEquals(Optional.of(Duration.ofSeconds(2)), lazy.lost(5));
    }
}
