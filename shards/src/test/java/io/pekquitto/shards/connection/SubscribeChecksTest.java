package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.SubscribeRequest;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SubscribeChecksTest {

    private static Subscribe subscribe(Properties properties, Subscription... subscriptions) {
        return new Subscribe(1, List.of(subscriptions), properties);
    }

    private static Subscription at(String filter, QoS qos) {
        return new Subscription(filter, SubscriptionOptions.of(qos));
    }

    private static SubscribeChecks.Checked checked(Subscribe subscribe, ProtocolVersion version, int maxQos) {
        return assertInstanceOf(SubscribeChecks.Checked.class, SubscribeChecks.check(subscribe, version, maxQos, filter -> true));
    }

    @Test
    void oneReasonCodePerFilterInTheOrderGiven() {  // [MQTT-3.9.3-1]
        var result = checked(subscribe(Properties.NONE, at("a", QoS.AT_LEAST_ONCE), at("a#", QoS.EXACTLY_ONCE),
                at("b/+", QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_5, 2);
        assertEquals(List.of(ReasonCode.GRANTED_QOS_1, ReasonCode.TOPIC_FILTER_INVALID, ReasonCode.GRANTED_QOS_0), result.reasons());
        assertEquals(List.of("a", "b/+"), result.requests().stream().map(SubscribeRequest::topicFilter).toList(),
                "an invalid filter is refused alone; the others still apply");
    }

    @Test
    void invalidFiltersAreRefusedWithTopicFilterInvalid() {  // 4.7.1, 4.7.3, 4.8.2; reason code 0x8F
        var invalid = List.of("", "a/#/b", "sport/tennis#", "sport+", "a/b+/c", "$share/g", "$share//a", "$share/g+/a",
                "$share/g#/a", "$share/g/");
        for (var filter : invalid) {
            var result = checked(subscribe(Properties.NONE, at(filter, QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_5, 2);
            assertEquals(List.of(ReasonCode.TOPIC_FILTER_INVALID), result.reasons(), () -> "filter '" + filter + "'");
            assertTrue(result.requests().isEmpty(), () -> "filter '" + filter + "'");
        }
    }

    @Test
    void anInvalidFilterIsReported0x80In311() {  // 3.1.1 [MQTT-3.9.3-2]: return code 0x80 is Failure
        var result = checked(subscribe(Properties.NONE, at("a/#/b", QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_3_1_1, 2);
        var bytes = PacketEncoder.encode(new SubAck(1, result.reasons(), Properties.NONE), ProtocolVersion.MQTT_3_1_1);
        assertEquals(0x80, bytes.get(bytes.limit() - 1) & 0xFF);
    }

    @Test
    void theGrantedQosIsCappedByTheServersMaximum() {  // 3.9.3: the server may grant a lower QoS than asked
        var result = checked(subscribe(Properties.NONE, at("a", QoS.EXACTLY_ONCE), at("b", QoS.AT_MOST_ONCE)),
                ProtocolVersion.MQTT_5, 1);
        assertEquals(List.of(ReasonCode.GRANTED_QOS_1, ReasonCode.GRANTED_QOS_0), result.reasons());
        assertEquals(QoS.AT_LEAST_ONCE, result.requests().get(0).options().maximumQos(),
                "the subscription delivers at the granted QoS, not the asked one");
    }

    @Test
    void noLocalOnASharedSubscriptionIsAProtocolError() {  // [MQTT-3.8.3-4]
        var noLocal = new Subscription("$share/g/a", new SubscriptionOptions(QoS.AT_LEAST_ONCE, true, false, 0));
        var both = subscribe(Properties.NONE, at("b", QoS.AT_MOST_ONCE), noLocal);
        var outcome = SubscribeChecks.check(both, ProtocolVersion.MQTT_5, 2, filter -> true);
        assertEquals(ReasonCode.PROTOCOL_ERROR, assertInstanceOf(SubscribeChecks.Violation.class, outcome).reason());
    }

    @Test
    void theOtherSubscriptionOptionsAreKept() {  // 3.8.3.1: No Local, Retain As Published, Retain Handling
        var options = new SubscriptionOptions(QoS.EXACTLY_ONCE, true, true, 2);
        var result = checked(subscribe(Properties.NONE, new Subscription("a/b", options)), ProtocolVersion.MQTT_5, 2);
        assertEquals(options, result.requests().get(0).options());
    }

    @Test
    void aBridgeGetsNoLocalAndRetainAsPublishedIn311() {  // Mosquitto's handle_subscribe.c, for try_private bridges
        var asked = subscribe(Properties.NONE, at("t/#", QoS.AT_LEAST_ONCE), at("$share/g/t/#", QoS.AT_MOST_ONCE));
        var result = assertInstanceOf(SubscribeChecks.Checked.class,
                SubscribeChecks.check(asked, ProtocolVersion.MQTT_3_1_1, true, 2, filter -> true));
        assertEquals(List.of(new SubscriptionOptions(QoS.AT_LEAST_ONCE, true, true, 0),
                new SubscriptionOptions(QoS.AT_MOST_ONCE, false, true, 0)),
                result.requests().stream().map(SubscribeRequest::options).toList(),
                "no No Local on a shared subscription: a protocol error in MQTT 5, and Mosquitto ignores it there");
        var plain = checked(asked, ProtocolVersion.MQTT_3_1_1, 2);
        assertEquals(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), plain.requests().get(0).options());
    }

    @Test
    void anMqtt5BridgeChoosesItsOwnOptions() {  // Mosquitto's bridges ask for No Local themselves in MQTT 5
        var options = new SubscriptionOptions(QoS.AT_LEAST_ONCE, false, false, 1);
        var result = assertInstanceOf(SubscribeChecks.Checked.class, SubscribeChecks.check(
                subscribe(Properties.NONE, new Subscription("t/#", options)), ProtocolVersion.MQTT_5, true, 2, filter -> true));
        assertEquals(options, result.requests().get(0).options());
    }

    @Test
    void theSubscriptionIdentifierGoesWithEveryFilter() {  // 3.8.2.1.2
        var withId = Properties.builder().addSubscriptionIdentifier(42).build();
        var result = checked(subscribe(withId, at("a", QoS.AT_MOST_ONCE), at("b/#", QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_5, 2);
        assertEquals(List.of(42, 42), result.requests().stream().map(SubscribeRequest::subscriptionIdentifier).toList());
        var without = checked(subscribe(Properties.NONE, at("a", QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_5, 2);
        assertEquals(0, without.requests().get(0).subscriptionIdentifier(), "0: no identifier");
    }

    @Test
    void wildcardSharedAndIdentifiedSubscriptionsAreGrantedAsConnAckAnnounces() {  // 3.2.2.3.11-3.2.2.3.13
        var connAck = ConnectNegotiation.negotiate(new Connect(ProtocolVersion.MQTT_5, "c", true, 10, Optional.empty(),
                Optional.empty(), Optional.empty(), Properties.NONE), BrokerSettings.defaults()).terms().orElseThrow()
                .connAckProperties();
        // Absent means available: the server must then accept these kinds of subscription.
        assertEquals(Optional.empty(), connAck.wildcardSubscriptionAvailable());
        assertEquals(Optional.empty(), connAck.sharedSubscriptionAvailable());
        assertEquals(Optional.empty(), connAck.subscriptionIdentifierAvailable());
        var withId = Properties.builder().addSubscriptionIdentifier(7).build();
        var result = checked(subscribe(withId, at("a/+/c", QoS.AT_MOST_ONCE), at("#", QoS.AT_MOST_ONCE),
                at("$share/group/a/#", QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_5, 2);
        assertEquals(List.of(ReasonCode.GRANTED_QOS_0, ReasonCode.GRANTED_QOS_0, ReasonCode.GRANTED_QOS_0), result.reasons());
    }

    @Test
    void aFilterTheAclsRefuseGetsNotAuthorizedAloneAndIsNotApplied() {
        var readable = java.util.Set.of("home/+", "shared/x");
        var outcome = SubscribeChecks.check(subscribe(Properties.NONE, at("home/+", QoS.AT_LEAST_ONCE), at("home/#", QoS.AT_LEAST_ONCE),
                at("$share/g/shared/x", QoS.AT_MOST_ONCE), at("$share/g/home/#", QoS.AT_MOST_ONCE)), ProtocolVersion.MQTT_5, 2, readable::contains);
        var result = assertInstanceOf(SubscribeChecks.Checked.class, outcome);
        assertEquals(List.of(ReasonCode.GRANTED_QOS_1, ReasonCode.NOT_AUTHORIZED, ReasonCode.GRANTED_QOS_0, ReasonCode.NOT_AUTHORIZED),
                result.reasons(), "a shared subscription is judged by its filter, without $share/GROUP/");
        assertEquals(List.of("home/+", "$share/g/shared/x"), result.requests().stream().map(SubscribeRequest::topicFilter).toList());
    }
}
