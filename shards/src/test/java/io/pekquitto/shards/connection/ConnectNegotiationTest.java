package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Will;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ConnectNegotiationTest {
    private static final BrokerSettings DEFAULTS = BrokerSettings.defaults();
    private static final String LIMITED = """
            max-packet-size = 1000
            max-keep-alive = 30
            max-queued-messages = 10
            max-session-expiry = 1h
            connect-timeout = 5s
            """;

    private static Connect connect(ProtocolVersion version, String clientId, boolean cleanStart, int keepAlive,
                                   Properties properties) {
        return new Connect(version, clientId, cleanStart, keepAlive, Optional.empty(), Optional.empty(),
                Optional.empty(), properties);
    }

    @Test
    void anEmptyClientIdGetsAnAssignedOne() {  // [MQTT-3.1.3-6], [MQTT-3.2.2-16]
        var terms = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "", true, 60, Properties.NONE), DEFAULTS)
                .terms().orElseThrow();
        assertTrue(terms.clientIdAssigned());
        assertEquals(Optional.of(terms.clientId()), terms.connAckProperties().assignedClientIdentifier());
    }

    @Test
    void v311EmptyClientIdNeedsCleanSession() {  // [MQTT-3.1.3-8]
        var outcome = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_3_1_1, "", false, 60, Properties.NONE), DEFAULTS);
        assertEquals(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, outcome.refusal());
        assertEquals(2, outcome.refusal().connAckReturnCodeV3());
    }

    @Test
    void aKeepAliveAboveTheMaximumIsAnsweredWithServerKeepAlive() {  // 3.2.2.3.14
        var settings = BrokerSettings.parse(LIMITED);
        var terms = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c", true, 600, Properties.NONE), settings)
                .terms().orElseThrow();
        assertEquals(30, terms.keepAliveSeconds());
        assertEquals(Optional.of(30), terms.connAckProperties().serverKeepAlive());
        assertEquals(Optional.of(1000L), terms.connAckProperties().maximumPacketSize());
    }

    @Test
    void aSessionExpiryAboveTheMaximumIsLoweredAndAnnounced() {
        var settings = BrokerSettings.parse(LIMITED);
        var properties = Properties.builder().set(PropertyId.SESSION_EXPIRY_INTERVAL, 86_400L).build();
        var terms = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c", false, 10, properties), settings)
                .terms().orElseThrow();
        assertEquals(3600, terms.sessionExpiryInterval());
        assertEquals(Optional.of(3600L), terms.connAckProperties().sessionExpiryIntervalIfPresent());
    }

    @Test
    void aV5ClientsReceiveMaximumLowersMaxInflightMessagesButNeverRaisesIt() {  // [MQTT-3.3.4-9]
        var settings = BrokerSettings.parse("max-inflight-messages = 20");
        var absent = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c", true, 10, Properties.NONE), settings)
                .terms().orElseThrow();
        assertEquals(20, absent.clientReceiveMaximum(), "no Receive Maximum means 65535, above the setting");
        var five = Properties.builder().set(PropertyId.RECEIVE_MAXIMUM, 5).build();
        var lowered = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c", true, 10, five), settings)
                .terms().orElseThrow();
        assertEquals(5, lowered.clientReceiveMaximum());
    }

    @Test
    void anAuthenticationMethodIsRefused() {  // no enhanced authentication: 0x8C
        var properties = Properties.builder().set(PropertyId.AUTHENTICATION_METHOD, "SCRAM-SHA-1").build();
        var outcome = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c", true, 10, properties), DEFAULTS);
        assertEquals(ReasonCode.BAD_AUTHENTICATION_METHOD, outcome.refusal());
    }

    @Test
    void aWillAboveMaxQosIsRefused() {  // [MQTT-3.2.2-12]
        var settings = BrokerSettings.parse(LIMITED + "max-qos = 1\n");
        var will = new Will("w", Binary.utf8("bye"), QoS.EXACTLY_ONCE, false, Properties.NONE);
        var withWill = new Connect(ProtocolVersion.MQTT_5, "c", true, 10, Optional.of(will), Optional.empty(),
                Optional.empty(), Properties.NONE);
        assertEquals(ReasonCode.QOS_NOT_SUPPORTED, ConnectNegotiation.negotiate(withWill, settings).refusal());
    }

    @Test
    void v311CleanSessionZeroKeepsTheSessionAndOneEndsIt() {
        var keep = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_3_1_1, "c", false, 10, Properties.NONE), DEFAULTS);
        var end = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_3_1_1, "c", true, 10, Properties.NONE), DEFAULTS);
        assertTrue(keep.terms().orElseThrow().sessionExpiryInterval() > 0);
        assertEquals(0, end.terms().orElseThrow().sessionExpiryInterval());
        assertEquals(Properties.NONE, keep.terms().orElseThrow().connAckProperties(), "3.1.1 CONNACK has no properties");
    }

    @Test
    void responseInformationOnlyWhenAskedAndConfigured() {  // [MQTT-3.1.2-28], 3.2.2.3.15
        var asking = Properties.builder().set(PropertyId.REQUEST_RESPONSE_INFORMATION, 1).build();
        var configured = BrokerSettings.parse("response-information-prefix = \"responses/\"");
        var answered = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c1", true, 10, asking), configured);
        assertEquals(Optional.of("responses/c1"), answered.terms().orElseThrow().connAckProperties().responseInformation());
        var notAsking = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c1", true, 10, Properties.NONE), configured);
        assertEquals(Optional.empty(), notAsking.terms().orElseThrow().connAckProperties().responseInformation());
        var notConfigured = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c1", true, 10, asking), DEFAULTS);
        assertEquals(Optional.empty(), notConfigured.terms().orElseThrow().connAckProperties().responseInformation());
    }

    private static Disconnect disconnectWithExpiry(long seconds) {
        return new Disconnect(ReasonCode.NORMAL_DISCONNECTION,
                Properties.builder().set(PropertyId.SESSION_EXPIRY_INTERVAL, seconds).build());
    }

    @Test
    void disconnectKeepsTheExpiryOfTheConnectUnlessItSetsOne() {  // 3.14.2.2.2
        var none = new Disconnect(ReasonCode.NORMAL_DISCONNECTION, Properties.NONE);
        assertEquals(OptionalLong.of(60), ConnectNegotiation.expiryOnDisconnect(none, 60, ProtocolVersion.MQTT_5, DEFAULTS));
        assertEquals(OptionalLong.of(5), ConnectNegotiation.expiryOnDisconnect(disconnectWithExpiry(5), 60, ProtocolVersion.MQTT_5, DEFAULTS));
    }

    @Test
    void disconnectMayNotGiveAnExpiryToASessionThatHadNone() {  // 3.14.2.2.2: a protocol error
        assertTrue(ConnectNegotiation.expiryOnDisconnect(disconnectWithExpiry(5), 0, ProtocolVersion.MQTT_5, DEFAULTS).isEmpty());
        assertEquals(OptionalLong.of(0), ConnectNegotiation.expiryOnDisconnect(disconnectWithExpiry(0), 0, ProtocolVersion.MQTT_5, DEFAULTS));
    }

    @Test
    void disconnectExpiryIsCappedByTheServerMaximum() {  // max-session-expiry
        var settings = BrokerSettings.parse("max-session-expiry = 100s");
        assertEquals(OptionalLong.of(100), ConnectNegotiation.expiryOnDisconnect(disconnectWithExpiry(5_000), 60, ProtocolVersion.MQTT_5, settings));
    }

    @Test
    void aMalformedPacketBeforeConnackIsRefusedInConnackInMqtt5Only() {  // [MQTT-4.13.1-1]
        assertEquals(ReasonCode.MALFORMED_PACKET,
                ConnectNegotiation.refusalOfMalformed(ReasonCode.MALFORMED_PACKET, ProtocolVersion.MQTT_5).orElseThrow().reason());
        assertTrue(ConnectNegotiation.refusalOfMalformed(ReasonCode.MALFORMED_PACKET, ProtocolVersion.MQTT_3_1_1).isEmpty(),
                "3.1.1 has no code for it: the connection just closes");
        assertEquals(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, ConnectNegotiation.refusalOfMalformed(
                ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, ProtocolVersion.MQTT_3_1_1).orElseThrow().reason());  // [MQTT-3.1.2-2]
        var refusal = ConnectNegotiation.refusalOfMalformed(ReasonCode.MALFORMED_PACKET, ProtocolVersion.MQTT_5).orElseThrow();
        assertTrue(!refusal.sessionPresent(), "[MQTT-3.2.2-6] Session Present 0 on a refusal");
    }
}
