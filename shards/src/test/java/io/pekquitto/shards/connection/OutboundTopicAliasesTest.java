package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.Publish;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class OutboundTopicAliasesTest {
    /** A client without a Maximum Packet Size: every PUBLISH fits. */
    private static final Predicate<Publish> ANY_SIZE = publish -> true;

    private static Publish publish(String topic) {
        return Publish.atMostOnce(topic, Binary.utf8("x"), false);
    }

    @Test
    void theFirstUseEstablishesTheAliasAndLaterOnesOmitTheTopic() {  // 3.3.2.3.4
        var aliases = new OutboundTopicAliases(2, ANY_SIZE);
        var first = aliases.apply(publish("a/b"));
        assertEquals("a/b", first.topic());
        assertEquals(Optional.of(1), first.properties().topicAlias());
        var second = aliases.apply(publish("a/b"));
        assertEquals("", second.topic());
        assertEquals(Optional.of(1), second.properties().topicAlias());
    }

    @Test
    void neverMoreAliasesThanTheClientsMaximum() {  // [MQTT-3.3.2-9]
        var aliases = new OutboundTopicAliases(1, ANY_SIZE);
        aliases.apply(publish("a"));
        var other = publish("b");
        assertSame(other, aliases.apply(other), "past the maximum a topic goes out in full, without an alias");
    }

    @Test
    void aClientWithoutTopicAliasMaximumGetsNoAliases() {  // [MQTT-3.3.2-8]: the default maximum is 0
        var aliases = OutboundTopicAliases.upTo(0, ANY_SIZE);
        var plain = publish("a");
        assertSame(plain, aliases.apply(plain));
        assertEquals(Properties.NONE, aliases.apply(plain).properties());
    }

    @Test
    void anAliasIsEstablishedOnlyByAPublishThatFits() {  // [MQTT-3.1.2-25]: the alias property adds bytes
        var fits = new AtomicBoolean(false);
        var aliases = new OutboundTopicAliases(2, establishing -> fits.get());
        var tooBig = publish("a");
        assertSame(tooBig, aliases.apply(tooBig), "sent plain, no alias set");
        fits.set(true);
        var later = aliases.apply(publish("a"));
        assertEquals("a", later.topic(), "the alias was never told to the client, so it is established now");
        assertEquals(Optional.of(1), later.properties().topicAlias());
    }
}
