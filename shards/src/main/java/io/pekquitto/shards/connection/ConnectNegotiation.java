package io.pekquitto.shards.connection;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.TopicName;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The CONNECT rules (3.1, 3.2): what the broker accepts, what it assigns and what it announces in
 * CONNACK. Plain rules: {@link #negotiate} either refuses with a reason code or returns the terms of
 * the connection.
 */
public final class ConnectNegotiation {

    /** The agreed terms of an accepted CONNECT. */
    public record Terms(
            String clientId,
            boolean clientIdAssigned,
            int keepAliveSeconds,
            long sessionExpiryInterval,
            int clientReceiveMaximum,
            long clientMaximumPacketSize,
            int clientTopicAliasMaximum,
            boolean problemInformation,
            Properties connAckProperties) {}

    /** The outcome: terms, or a refusal (3.2.2.2) with a reason string. */
    public record Outcome(Optional<Terms> terms, ReasonCode refusal, String why) {
        static Outcome accept(Terms terms) { return new Outcome(Optional.of(terms), ReasonCode.SUCCESS, ""); }
        static Outcome refuse(ReasonCode reason, String why) { return new Outcome(Optional.empty(), reason, why); }
    }

    private ConnectNegotiation() {}

    /** The CONNECT on a listener that accepts every version (an in-process client, tests). */
    public static Outcome negotiate(Connect connect, BrokerSettings settings) {
        return negotiateVersionAccepted(connect, settings);
    }

    /**
     * The CONNECT on {@code listener}: a version it does not accept ({@code protocol-versions}) is refused
     * as one the broker does not know, first, as Mosquitto 2.1 does: 0x84, or 1 in 3.1 and 3.1.1
     * ([MQTT-3.1.2-2]; 3.1 has the same return code).
     */
    public static Outcome negotiate(Connect connect, BrokerSettings settings, Listener listener) {
        if (!listener.accepts(connect.version())) {
            return Outcome.refuse(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION,
                    connect.version() + " is not accepted on " + listener);
        }
        return negotiateVersionAccepted(connect, settings);
    }

    private static Outcome negotiateVersionAccepted(Connect connect, BrokerSettings settings) {
        var version = connect.version();
        var properties = connect.properties();
        String clientId = connect.clientId();
        boolean assigned = false;
        if (clientId.isEmpty()) {
            if (version == ProtocolVersion.MQTT_3_1) {
                return Outcome.refuse(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, "MQTT 3.1 needs a client identifier");
            }
            if (version == ProtocolVersion.MQTT_3_1_1 && !connect.cleanStart()) {
                // [MQTT-3.1.3-8] a zero-byte client id needs clean session 1 in 3.1.1.
                return Outcome.refuse(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, "empty client identifier with clean session 0");
            }
            clientId = assignClientId();  // [MQTT-3.1.3-6]
            assigned = true;
        }
        if (properties.authenticationMethod().isPresent()) {
            return Outcome.refuse(ReasonCode.BAD_AUTHENTICATION_METHOD, "extended authentication is not supported");
        }
        if (connect.will().isPresent()) {
            var will = connect.will().get();
            if (!TopicName.isValid(will.topic())) {
                return Outcome.refuse(ReasonCode.TOPIC_NAME_INVALID, "invalid will topic");
            }
            if (TopicName.isBrokers(will.topic())) {
                return Outcome.refuse(ReasonCode.NOT_AUTHORIZED, "a will on $SYS, which is the broker's");  // 3.1.1: 5
            }
            if (will.qos().value() > settings.maxQos()) {
                return Outcome.refuse(ReasonCode.QOS_NOT_SUPPORTED, "will QoS above the server maximum");  // [MQTT-3.2.2-12]
            }
            if (will.retain() && !settings.retainAvailable()) {
                return Outcome.refuse(ReasonCode.RETAIN_NOT_SUPPORTED, "retained wills are not available");  // [MQTT-3.2.2-13]
            }
        }

        var connAck = Properties.builder();
        int keepAlive = connect.keepAlive();
        if (keepAlive > settings.maxKeepAlive() || (keepAlive == 0 && settings.maxKeepAlive() < 65_535)) {
            // The client asked for more than allowed, or for none: Server Keep Alive (3.2.2.3.14).
            keepAlive = settings.maxKeepAlive();
            connAck.set(PropertyId.SERVER_KEEP_ALIVE, keepAlive);
        }
        long sessionExpiry;
        if (version.hasProperties()) {
            sessionExpiry = properties.sessionExpiryInterval();
            long max = settings.maxSessionExpiry().getSeconds();
            if (sessionExpiry > max) {
                sessionExpiry = max;
                connAck.set(PropertyId.SESSION_EXPIRY_INTERVAL, sessionExpiry);
            }
        } else {
            // 3.1.1 clean session 0 keeps the session with no expiry; clean session 1 ends it with the connection.
            sessionExpiry = connect.cleanStart() ? 0 : Math.min(Session.NEVER_EXPIRES, settings.maxSessionExpiry().getSeconds());
        }
        if (assigned) connAck.set(PropertyId.ASSIGNED_CLIENT_IDENTIFIER, clientId);
        // [MQTT-3.1.2-28] only to a client that asked for it (Request Response Information 1).
        if (properties.requestResponseInformation() == 1 && !settings.responseInformationPrefix().isEmpty()) {
            connAck.set(PropertyId.RESPONSE_INFORMATION, settings.responseInformationPrefix() + clientId);
        }
        if (settings.receiveMaximum() != 65_535) connAck.set(PropertyId.RECEIVE_MAXIMUM, settings.receiveMaximum());
        if (settings.maxQos() < 2) connAck.set(PropertyId.MAXIMUM_QOS, settings.maxQos());
        if (!settings.retainAvailable()) connAck.set(PropertyId.RETAIN_AVAILABLE, 0);
        if (settings.maxPacketSize() < BrokerSettings.PROTOCOL_MAX_PACKET_SIZE) {
            connAck.set(PropertyId.MAXIMUM_PACKET_SIZE, (long) settings.maxPacketSize());
        }
        if (settings.topicAliasMaximum() > 0) connAck.set(PropertyId.TOPIC_ALIAS_MAXIMUM, settings.topicAliasMaximum());

        long clientMaxPacketSize = properties.maximumPacketSize().orElse((long) BrokerSettings.PROTOCOL_MAX_PACKET_SIZE);
        return Outcome.accept(new Terms(
                clientId,
                assigned,
                keepAlive,
                sessionExpiry,
                // An MQTT 5 client's Receive Maximum lowers max-inflight-messages, never raises it: else a
                // stuck client with the default 65535 holds that many in flight, past the queue limits.
                version.hasProperties()
                        ? Math.min(properties.receiveMaximum(), settings.maxInflightMessages())
                        : settings.maxInflightMessages(),
                clientMaxPacketSize,
                version.hasProperties() ? properties.topicAliasMaximum() : 0,
                properties.requestProblemInformation() == 1,
                version.hasProperties() ? connAck.build() : Properties.NONE));
    }

    /**
     * The Session Expiry Interval a connection ends with: DISCONNECT may change it (3.14.2.2.2), capped
     * like CONNECT's, but a session that was to end with the connection cannot be extended: empty,
     * a Protocol Error ([MQTT-3.14.2-2]).
     */
    public static OptionalLong expiryOnDisconnect(Disconnect disconnect, long current, ProtocolVersion version,
                                                  BrokerSettings settings) {
        var asked = version.hasProperties() ? disconnect.properties().sessionExpiryIntervalIfPresent() : Optional.<Long>empty();
        if (asked.isEmpty()) return OptionalLong.of(current);
        if (current == 0 && asked.get() != 0) return OptionalLong.empty();
        return OptionalLong.of(Math.min(asked.get(), settings.maxSessionExpiry().getSeconds()));
    }

    /**
     * The CONNACK for a malformed packet read before CONNECT was answered: errors before CONNACK go in
     * CONNACK ([MQTT-4.13.1-1] allows one before closing); a 3.1.1 one only for an unsupported version.
     */
    public static Optional<ConnAck> refusalOfMalformed(ReasonCode reason, ProtocolVersion version) {
        if (!version.hasProperties() && reason != ReasonCode.UNSUPPORTED_PROTOCOL_VERSION) return Optional.empty();
        return Optional.of(refusal(reason.isAllowedIn(PacketType.CONNACK) ? reason : ReasonCode.MALFORMED_PACKET));
    }

    /** A CONNACK refusing the connection, for any version ([MQTT-3.2.2-6]: Session Present 0 on refusal). */
    public static ConnAck refusal(ReasonCode reason) {
        return new ConnAck(false, reason, Properties.NONE);
    }

    private static String assignClientId() {
        var random = ThreadLocalRandom.current();
        return "pekquitto-" + Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
    }
}
