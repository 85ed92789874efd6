package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.Auth;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.UnsubAck;
import io.pekquitto.protocol.Unsubscribe;
import io.pekquitto.protocol.Will;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * Random packets that are valid for a protocol version, so that encoding then decoding gives them back:
 * 3.1 and 3.1.1 packets carry no properties and only the reasons those versions can express. Built
 * from a {@link Random} (no shrinking) because each packet's shape depends on its version and type.
 */
final class ArbitraryPackets {
    private static final String[] CHARS = {"a", "b", "z", "0", "/", " ", "$", "é", "€", "中", "\uD83D\uDE00"};
    private static final String[] TOPIC_CHARS = {"a", "b", "/", "$", "é", "€"};
    private static final List<ReasonCode> CONNACK_V3 = List.of(ReasonCode.SUCCESS,
            ReasonCode.UNSUPPORTED_PROTOCOL_VERSION, ReasonCode.CLIENT_IDENTIFIER_NOT_VALID,
            ReasonCode.SERVER_UNAVAILABLE, ReasonCode.BAD_USER_NAME_OR_PASSWORD, ReasonCode.NOT_AUTHORIZED);
    private static final List<ReasonCode> SUBACK_V3 = List.of(ReasonCode.GRANTED_QOS_0, ReasonCode.GRANTED_QOS_1,
            ReasonCode.GRANTED_QOS_2, ReasonCode.UNSPECIFIED_ERROR);
    private static final int[] VARIABLE_BYTE_INTEGER_EDGES = {1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455};

    private ArbitraryPackets() {}

    record Case(ProtocolVersion version, Packet packet) {}

    static Arbitrary<ProtocolVersion> versions() {
        return Arbitraries.of(ProtocolVersion.values());
    }

    static Arbitrary<Case> cases() {
        return versions().flatMap(version -> Arbitraries.randomValue(random -> new Case(version, packet(random, version))));
    }

    static List<PacketType> types(ProtocolVersion version) {
        var types = new ArrayList<>(Arrays.asList(PacketType.values()));
        if (!version.hasProperties()) types.remove(PacketType.AUTH);
        return types;
    }

    static Packet packet(Random random, ProtocolVersion version) {
        var types = types(version);
        return packet(random, types.get(random.nextInt(types.size())), version);
    }

    static Packet packet(Random random, PacketType type, ProtocolVersion version) {
        boolean v5 = version.hasProperties();
        return switch (type) {
            case CONNECT -> connect(random, version);
            case CONNACK -> new ConnAck(random.nextBoolean(),
                    v5 ? reason(random, type) : CONNACK_V3.get(random.nextInt(CONNACK_V3.size())),
                    properties(random, Scope.CONNACK, version));
            case PUBLISH -> publish(random, version);
            case PUBACK -> new PubAck(packetId(random), ackReason(random, type, version), properties(random, Scope.PUBACK, version));
            case PUBREC -> new PubRec(packetId(random), ackReason(random, type, version), properties(random, Scope.PUBREC, version));
            case PUBREL -> new PubRel(packetId(random), ackReason(random, type, version), properties(random, Scope.PUBREL, version));
            case PUBCOMP -> new PubComp(packetId(random), ackReason(random, type, version), properties(random, Scope.PUBCOMP, version));
            case SUBSCRIBE -> {
                var subscriptions = new ArrayList<Subscription>();
                int count = 1 + random.nextInt(4);
                for (int i = 0; i < count; i++) {
                    var qos = QoS.of(random.nextInt(3));
                    var options = v5
                            ? new SubscriptionOptions(qos, random.nextBoolean(), random.nextBoolean(), random.nextInt(3))
                            : SubscriptionOptions.of(qos);
                    subscriptions.add(new Subscription(text(random), options));
                }
                yield new Subscribe(packetId(random), subscriptions, properties(random, Scope.SUBSCRIBE, version));
            }
            case SUBACK -> {
                var reasons = new ArrayList<ReasonCode>();
                int count = 1 + random.nextInt(4);
                for (int i = 0; i < count; i++) {
                    reasons.add(v5 ? reason(random, type) : SUBACK_V3.get(random.nextInt(SUBACK_V3.size())));
                }
                yield new SubAck(packetId(random), reasons, properties(random, Scope.SUBACK, version));
            }
            case UNSUBSCRIBE -> {
                var filters = new ArrayList<String>();
                int count = 1 + random.nextInt(4);
                for (int i = 0; i < count; i++) filters.add(text(random));
                yield new Unsubscribe(packetId(random), filters, properties(random, Scope.UNSUBSCRIBE, version));
            }
            case UNSUBACK -> {
                var reasons = new ArrayList<ReasonCode>();
                int count = v5 ? 1 + random.nextInt(4) : 0;
                for (int i = 0; i < count; i++) reasons.add(reason(random, type));
                yield new UnsubAck(packetId(random), reasons, properties(random, Scope.UNSUBACK, version));
            }
            case PINGREQ -> PingReq.INSTANCE;
            case PINGRESP -> PingResp.INSTANCE;
            case DISCONNECT -> v5
                    ? new Disconnect(reason(random, type), properties(random, Scope.DISCONNECT, version))
                    : Disconnect.NORMAL;
            case AUTH -> new Auth(reason(random, type), properties(random, Scope.AUTH, version));
        };
    }

    private static Connect connect(Random random, ProtocolVersion version) {
        Optional<Will> will = Optional.empty();
        if (random.nextBoolean()) {
            will = Optional.of(new Will(topic(random), binary(random), QoS.of(random.nextInt(3)), random.nextBoolean(),
                    properties(random, Scope.WILL, version)));
        }
        Optional<String> userName = random.nextBoolean() ? Optional.of(text(random)) : Optional.empty();
        // 3.1.1 forbids a password without a user name ([MQTT-3.1.2-22]).
        boolean password = random.nextBoolean() && (userName.isPresent() || version.hasProperties());
        return new Connect(version, text(random), random.nextBoolean(), random.nextInt(0x10000), will, userName,
                password ? Optional.of(binary(random)) : Optional.empty(), properties(random, Scope.CONNECT, version),
                !version.hasProperties() && random.nextInt(4) == 0);  // a bridge's level (0x83, 0x84)
    }

    private static Publish publish(Random random, ProtocolVersion version) {
        var qos = QoS.of(random.nextInt(3));
        int packetId = qos == QoS.AT_MOST_ONCE ? 0 : packetId(random);
        boolean dup = qos != QoS.AT_MOST_ONCE && random.nextBoolean();
        // 5.0 allows an empty topic name when a Topic Alias stands for it.
        String topic = version.hasProperties() && random.nextInt(10) == 0 ? "" : topic(random);
        return new Publish(topic, binary(random), qos, random.nextBoolean(), dup, packetId,
                properties(random, Scope.PUBLISH, version));
    }

    private static ReasonCode ackReason(Random random, PacketType type, ProtocolVersion version) {
        return version.hasProperties() ? reason(random, type) : ReasonCode.SUCCESS;
    }

    static ReasonCode reason(Random random, PacketType type) {
        var allowed = Arrays.stream(ReasonCode.values()).filter(code -> code.isAllowedIn(type)).toList();
        // Favour the success code, the one with the short encodings.
        return random.nextInt(3) == 0 ? allowed.get(0) : allowed.get(random.nextInt(allowed.size()));
    }

    static int packetId(Random random) {
        return switch (random.nextInt(8)) {
            case 0 -> 1;
            case 1 -> 0xFFFF;
            default -> 1 + random.nextInt(0xFFFF);
        };
    }

    static String text(Random random) {
        int length = random.nextInt(20) == 0 ? 200 + random.nextInt(100) : random.nextInt(9);
        var text = new StringBuilder();
        for (int i = 0; i < length; i++) text.append(CHARS[random.nextInt(CHARS.length)]);
        return text.toString();
    }

    static String topic(Random random) {
        int length = 1 + random.nextInt(8);
        var topic = new StringBuilder();
        for (int i = 0; i < length; i++) topic.append(TOPIC_CHARS[random.nextInt(TOPIC_CHARS.length)]);
        return topic.toString();
    }

    static Binary binary(Random random) {
        var bytes = new byte[random.nextInt(20) == 0 ? 130 + random.nextInt(200) : random.nextInt(17)];
        random.nextBytes(bytes);
        return Binary.of(bytes);
    }

    /** Valid properties for the scope: values the spec allows, a single Subscription Identifier outside PUBLISH. */
    static Properties properties(Random random, Scope scope, ProtocolVersion version) {
        if (!version.hasProperties() || random.nextInt(3) == 0) return Properties.NONE;
        var builder = Properties.builder();
        for (var id : PropertyId.values()) {
            if (!id.isAllowedIn(scope) || random.nextInt(4) != 0) continue;
            switch (id) {
                case SUBSCRIPTION_IDENTIFIER -> {
                    int count = scope == Scope.PUBLISH ? 1 + random.nextInt(3) : 1;
                    for (int i = 0; i < count; i++) {
                        builder.addSubscriptionIdentifier(random.nextBoolean()
                                ? VARIABLE_BYTE_INTEGER_EDGES[random.nextInt(VARIABLE_BYTE_INTEGER_EDGES.length)]
                                : 1 + random.nextInt(268_435_455));
                    }
                }
                case USER_PROPERTY -> {
                    int count = 1 + random.nextInt(3);
                    for (int i = 0; i < count; i++) builder.addUserProperty(text(random), text(random));
                }
                default -> builder.set(id, switch (id.dataType()) {
                    case BYTE -> random.nextInt(2);
                    case TWO_BYTE_INTEGER -> id == PropertyId.RECEIVE_MAXIMUM ? 1 + random.nextInt(0xFFFF) : random.nextInt(0x10000);
                    case FOUR_BYTE_INTEGER -> (id == PropertyId.MAXIMUM_PACKET_SIZE ? 1L : 0L)
                            + (random.nextLong() >>> 33) * (random.nextBoolean() ? 1 : 2);
                    case UTF8_STRING -> text(random);
                    case BINARY -> binary(random);
                    case VARIABLE_BYTE_INTEGER, UTF8_STRING_PAIR -> throw new IllegalStateException(id.name());
                });
            }
        }
        return builder.build();
    }
}
