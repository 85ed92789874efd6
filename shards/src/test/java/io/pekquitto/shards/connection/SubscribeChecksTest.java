package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.connection.SubscribeChecks.Checked;
import io.pekquitto.shards.connection.SubscribeChecks.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules for a SUBSCRIBE before the shard applies it (3.8, 3.9). */
class SubscribeChecksTest {

    private static Subscription subscription(String filter, QoS qos) {
        return new Subscription(filter, SubscriptionOptions.of(qos));
    }

    private static Checked check(ProtocolVersion version, int maxQos, Properties properties, Subscription... subscriptions) {
        var outcome = SubscribeChecks.check(new Subscribe(1, List.of(subscriptions), properties), version, maxQos);
        return assertInstanceOf(Checked.class, outcome);
    }

    @Test
    void oneReasonCodePerFilterInTheOrderOfTheRequest() {  // [MQTT-3.9.3-1]
        var checked = check(ProtocolVersion.MQTT_5, 2, Properties.NONE,
                subscription("a/#", QoS.EXACTLY_ONCE), subscription("b/+", QoS.AT_MOST_ONCE), subscription("c", QoS.AT_LEAST_ONCE));
        assertEquals(List.of(ReasonCode.GRANTED_QOS_2, ReasonCode.GRANTED_QOS_0, ReasonCode.GRANTED_QOS_1), checked.reasons());
        assertEquals(List.of("a/#", "b/+", "c"), checked.requests().stream().map(r -> r.topicFilter()).toList());
    }

    @Test
    void anInvalidFilterIsRefusedAloneAndTheOthersAreApplied() {  // [MQTT-4.7.1-2] [MQTT-4.7.1-3], 0x8F
        var checked = check(ProtocolVersion.MQTT_5, 2, Properties.NONE,
                subscription("a/#/b", QoS.AT_MOST_ONCE), subscription("ok", QoS.AT_MOST_ONCE), subscription("a+", QoS.AT_MOST_ONCE));
        assertEquals(List.of(ReasonCode.TOPIC_FILTER_INVALID, ReasonCode.GRANTED_QOS_0, ReasonCode.TOPIC_FILTER_INVALID), checked.reasons());
        assertEquals(List.of("ok"), checked.requests().stream().map(r -> r.topicFilter()).toList());
    }

    @Test
    void theGrantedQosIsCappedByTheServerMaximum() {  // 3.9.3: the granted QoS may be lower than asked
        var checked = check(ProtocolVersion.MQTT_5, 1, Properties.NONE, subscription("a", QoS.EXACTLY_ONCE));
        assertEquals(List.of(ReasonCode.GRANTED_QOS_1), checked.reasons());
        assertEquals(QoS.AT_LEAST_ONCE, checked.requests().get(0).options().maximumQos());
    }

    @Test
    void noLocalOnASharedSubscriptionIsAProtocolError() {  // [MQTT-3.8.3-4]
        var noLocal = new Subscription("$share/g/a", new SubscriptionOptions(QoS.AT_MOST_ONCE, true, false, 0));
        var outcome = SubscribeChecks.check(new Subscribe(1, List.of(noLocal), Properties.NONE), ProtocolVersion.MQTT_5, 2);
        assertEquals(ReasonCode.PROTOCOL_ERROR, assertInstanceOf(Violation.class, outcome).reason());
    }

    @Test
    void theOptionsBesidesQosAreKeptAsAsked() {  // 3.8.3.1: No Local, Retain As Published, Retain Handling
        var options = new SubscriptionOptions(QoS.AT_LEAST_ONCE, true, true, 2);
        var checked = check(ProtocolVersion.MQTT_5, 2, Properties.NONE, new Subscription("a", options));
        assertEquals(options, checked.requests().get(0).options());
    }

    @Test
    void theSubscriptionIdentifierGoesWithEveryFilterOfTheRequest() {  // 3.8.2.1.2
        var properties = Properties.builder().addSubscriptionIdentifier(42).build();
        var checked = check(ProtocolVersion.MQTT_5, 2, properties, subscription("a", QoS.AT_MOST_ONCE), subscription("b", QoS.AT_MOST_ONCE));
        assertEquals(List.of(42, 42), checked.requests().stream().map(r -> r.subscriptionIdentifier()).toList());
        var none = check(ProtocolVersion.MQTT_5, 2, Properties.NONE, subscription("a", QoS.AT_MOST_ONCE));
        assertEquals(0, none.requests().get(0).subscriptionIdentifier(), "0: none");
    }
}
