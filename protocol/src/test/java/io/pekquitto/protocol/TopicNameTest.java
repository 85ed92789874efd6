package io.pekquitto.protocol;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TopicNameTest {

    @Test
    void sysAndWhatIsUnderItAreTheBrokers() {  // 4.7.2
        assertTrue(TopicName.isBrokers("$SYS"));
        assertTrue(TopicName.isBrokers("$SYS/"));
        assertTrue(TopicName.isBrokers("$SYS/broker/uptime"));
        assertFalse(TopicName.isBrokers("$SYSTEM/x"), "another $ topic");
        assertFalse(TopicName.isBrokers("$share/g/x"));
        assertFalse(TopicName.isBrokers("a/$SYS"));
        assertFalse(TopicName.isBrokers("$sys/x"), "topics are case-sensitive (4.7.3)");
    }
}
