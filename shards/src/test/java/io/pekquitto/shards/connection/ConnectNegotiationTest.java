package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Will;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ListenerSettings;
import java.util.EnumSet;
import java.util.List;
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
    void aWillOnSysIsRefused() {  // a client never publishes to $SYS, nor through its will
        var will = new Will("$SYS/broker/clients", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false, Properties.NONE);
        var withWill = new Connect(ProtocolVersion.MQTT_5, "c", true, 10, Optional.of(will), Optional.empty(),
                Optional.empty(), Properties.NONE);
        assertEquals(ReasonCode.NOT_AUTHORIZED, ConnectNegotiation.negotiate(withWill, DEFAULTS).refusal());
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
    void aVersionTheListenerDoesNotAcceptIsRefusedAsAnUnknownOne() {  // [MQTT-3.1.2-2]: 0x84, 3.1.1 return code 1
        var onlyFive = Listener.of(0, new ListenerSettings("0.0.0.0", 1883, Optional.empty(), Optional.empty(), false,
                ListenerSettings.UNLIMITED, EnumSet.of(ProtocolVersion.MQTT_5)));
        for (var version : List.of(ProtocolVersion.MQTT_3_1, ProtocolVersion.MQTT_3_1_1)) {
            var refused = ConnectNegotiation.negotiate(connect(version, "c", true, 10, Properties.NONE), DEFAULTS, onlyFive);
            assertEquals(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, refused.refusal(), version::toString);
            assertEquals(1, refused.refusal().connAckReturnCodeV3());
        }
        var accepted = ConnectNegotiation.negotiate(connect(ProtocolVersion.MQTT_5, "c", true, 10, Properties.NONE), DEFAULTS, onlyFive);
        assertTrue(accepted.terms().isPresent());
    }

    @Test
    void theVersionIsCheckedBeforeTheClientId() {  // as an unknown version is: nothing else of the CONNECT counts
        var onlyFive = Listener.of(0, new ListenerSettings("0.0.0.0", 1883, Optional.empty(), Optional.empty(), false,
                ListenerSettings.UNLIMITED, EnumSet.of(ProtocolVersion.MQTT_5)));
        var emptyIdWithoutCleanSession = connect(ProtocolVersion.MQTT_3_1_1, "", false, 10, Properties.NONE);
        assertEquals(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION,
                ConnectNegotiation.negotiate(emptyIdWithoutCleanSession, DEFAULTS, onlyFive).refusal());
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

    private static OptionalLong v5Expiry(Disconnect disconnect, long current, BrokerSettings settings) {
        return ConnectNegotiation.expiryOnDisconnect(disconnect, current, ProtocolVersion.MQTT_5, settings);
    }

    @Test
    void aDisconnectWithoutSessionExpiryKeepsTheOneFromConnect() {  // 3.14.2.2.2: absent, the CONNECT value applies
        assertEquals(OptionalLong.of(300), v5Expiry(Disconnect.NORMAL, 300, DEFAULTS));
    }

    @Test
    void aDisconnectCannotGiveASessionThatEndsWithTheConnectionAnExpiry() {  // 3.14.2.2.2: a Protocol Error
        assertEquals(OptionalLong.empty(), v5Expiry(disconnectWithExpiry(60), 0, DEFAULTS));
        assertEquals(OptionalLong.of(0), v5Expiry(disconnectWithExpiry(0), 0, DEFAULTS), "0 again is no change, so no error");
    }

    @Test
    void aDisconnectMayShortenOrLengthenAnExpiryWithinTheMaximum() {  // 3.14.2.2.2
        var settings = BrokerSettings.parse(LIMITED);
        assertEquals(OptionalLong.of(0), v5Expiry(disconnectWithExpiry(0), 600, settings));
        assertEquals(OptionalLong.of(1200), v5Expiry(disconnectWithExpiry(1200), 600, settings));
        assertEquals(OptionalLong.of(3600), v5Expiry(disconnectWithExpiry(86_400), 600, settings),
                "capped by max-session-expiry, as in CONNECT");
    }

    @Test
    void a311DisconnectLeavesTheExpiryAlone() {  // 3.1.1 DISCONNECT has no properties
        var asked = disconnectWithExpiry(60);
        assertEquals(OptionalLong.of(0), ConnectNegotiation.expiryOnDisconnect(asked, 0, ProtocolVersion.MQTT_3_1_1, DEFAULTS));
    }

    private static Optional<ConnAck> refusalOfMalformed(ReasonCode reason, ProtocolVersion version) {
        return ConnectNegotiation.refusalOfMalformed(reason, version);
    }

    @Test
    void aMalformedPacketBeforeConnAckIsAnsweredWithConnAckInMqtt5() {  // [MQTT-4.13.1-1], [MQTT-3.2.2-6]
        var connAck = refusalOfMalformed(ReasonCode.MALFORMED_PACKET, ProtocolVersion.MQTT_5).orElseThrow();
        assertEquals(ReasonCode.MALFORMED_PACKET, connAck.reason());
        assertFalse(connAck.sessionPresent(), "Session Present is 0 on a refusal");
        var tooLarge = refusalOfMalformed(ReasonCode.PACKET_TOO_LARGE, ProtocolVersion.MQTT_5).orElseThrow();
        assertEquals(ReasonCode.PACKET_TOO_LARGE, tooLarge.reason(), "a code CONNACK may carry is kept");
    }

    @Test
    void aReasonConnAckCannotCarryBecomesMalformedPacket() {  // 2.4: Table 2-6 lists the codes CONNACK may carry
        var connAck = refusalOfMalformed(ReasonCode.TOPIC_ALIAS_INVALID, ProtocolVersion.MQTT_5).orElseThrow();
        assertEquals(ReasonCode.MALFORMED_PACKET, connAck.reason());
    }

    @Test
    void a311ClientGetsAConnAckOnlyForAnUnsupportedVersion() {  // 3.1.1 [MQTT-3.1.2-2]; no return code for malformed
        assertEquals(Optional.empty(), refusalOfMalformed(ReasonCode.MALFORMED_PACKET, ProtocolVersion.MQTT_3_1_1));
        var connAck = refusalOfMalformed(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, ProtocolVersion.MQTT_3_1_1).orElseThrow();
        assertEquals(1, connAck.reason().connAckReturnCodeV3());
    }
}
