package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InboundTopicAliasesTest {

    @Test
    void aliasesRunFromOneToTheMaximum() {  // [MQTT-3.3.2-8], [MQTT-3.3.2-9]
        var aliases = new InboundTopicAliases(3);
        assertFalse(aliases.isInRange(0), "0 is not permitted");
        assertTrue(aliases.isInRange(1));
        assertTrue(aliases.isInRange(3));
        assertFalse(aliases.isInRange(4));
        assertFalse(aliases.isInRange(65_535));
    }

    @Test
    void aMaximumOfZeroAllowsNoAlias() {  // [MQTT-3.2.2-17]
        var aliases = new InboundTopicAliases(0);
        assertFalse(aliases.isInRange(0));
        assertFalse(aliases.isInRange(1));
    }

    @Test
    void anAliasNeverSetResolvesToNothing() {  // using it is a Protocol Error (3.3.2.3.4)
        assertNull(new InboundTopicAliases(5).resolve(2));
    }

    @Test
    void settingAnAliasAgainReplacesItsTopic() {  // 3.3.2.3.4: the receiver replaces the mapping
        var aliases = new InboundTopicAliases(65_535);
        aliases.set(65_535, "a");
        aliases.set(65_535, "b");
        assertEquals("b", aliases.resolve(65_535));
    }
}
