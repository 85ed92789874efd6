package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.binarySize;
import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.checkRemainingLength;
import static io.pekquitto.protocol.codec.DataRepresentation.readBinary;
import static io.pekquitto.protocol.codec.DataRepresentation.readByte;
import static io.pekquitto.protocol.codec.DataRepresentation.readString;
import static io.pekquitto.protocol.codec.DataRepresentation.readTwoByteInteger;
import static io.pekquitto.protocol.codec.DataRepresentation.stringSize;
import static io.pekquitto.protocol.codec.DataRepresentation.writeBinary;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;
import static io.pekquitto.protocol.codec.DataRepresentation.writeString;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.TopicName;
import io.pekquitto.protocol.Will;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * CONNECT (3.1). The packet names its own protocol version (3.1.2.1, 3.1.2.2), so unlike the other codecs
 * this one ignores the connection's version; {@link #readVersion} lets the reader learn the version
 * before the rest of the packet is judged, so a malformed CONNECT is still answered in its own version.
 */
final class ConnectCodec {
    static final int FLAGS = 0b0000;
    /** Protocol name "MQTT" (6 bytes), level, connect flags, keep alive: 3.1.2. */
    static final int MIN_REMAINING_LENGTH = 10;

    // Connect flags, 3.1.2.3.
    private static final int USER_NAME = 0x80;
    private static final int PASSWORD = 0x40;
    private static final int WILL_RETAIN = 0x20;
    private static final int WILL_QOS_SHIFT = 3;
    private static final int WILL_QOS_MASK = 0x18;
    private static final int WILL = 0x04;
    private static final int CLEAN_START = 0x02;
    private static final int RESERVED = 0x01;
    /** The top bit of the protocol level: a bridge (Mosquitto's try_private), with 3.1 and 3.1.1 only. */
    private static final int BRIDGE = 0x80;

    private ConnectCodec() {}

    /** The version a CONNECT frame's body names, read without moving the buffer's position. */
    static ProtocolVersion readVersion(ByteBuffer body) {
        return readProtocol(body.duplicate());
    }

    /**
     * 3.1.2.1, 3.1.2.2: "MQTT" with level 4 or 5, "MQIsdp" with level 3; 0x84 and 0x83 are a bridge's 4 and 3
     * ({@link #BRIDGE}). A known name with another level is UNSUPPORTED_PROTOCOL_VERSION (3.1.1 return code 1,
     * [MQTT-3.1.2-2]); another name is Malformed. Mosquitto (handle_connect.c) also lets 0x85 through as MQTT 5,
     * but then reads its properties only if the level is exactly 5, so no bridge sends it; it is refused here.
     */
    private static ProtocolVersion readProtocol(ByteBuffer in) {
        String name = readString(in, "protocol name");
        boolean mqtt = name.equals(ProtocolVersion.MQTT_5.protocolName());
        if (!mqtt && !name.equals(ProtocolVersion.MQTT_3_1.protocolName())) {
            throw new MalformedPacketException("unknown protocol name [MQTT-3.1.2-1]");
        }
        int level = readByte(in, "protocol level");
        int withoutBridge = level & ~BRIDGE;
        if (mqtt && withoutBridge == ProtocolVersion.MQTT_3_1_1.level()) return ProtocolVersion.MQTT_3_1_1;
        if (mqtt && level == ProtocolVersion.MQTT_5.level()) return ProtocolVersion.MQTT_5;
        if (!mqtt && withoutBridge == ProtocolVersion.MQTT_3_1.level()) return ProtocolVersion.MQTT_3_1;
        throw new MalformedPacketException(ReasonCode.UNSUPPORTED_PROTOCOL_VERSION,
                "protocol " + name + " level " + level + " is not supported [MQTT-3.1.2-2]");
    }

    static Connect decode(int flags, ByteBuffer in) {
        checkFlags(flags, FLAGS, PacketType.CONNECT);
        checkRemainingLength(in, MIN_REMAINING_LENGTH, PacketType.CONNECT);
        var version = readProtocol(in);
        boolean bridge = (in.get(in.position() - 1) & BRIDGE) != 0;  // the level byte readProtocol accepted
        int connectFlags = readByte(in, "connect flags");
        if ((connectFlags & RESERVED) != 0) {
            throw new MalformedPacketException("reserved connect flag set [MQTT-3.1.2-3]");
        }
        boolean hasWill = (connectFlags & WILL) != 0;
        int willQos = (connectFlags & WILL_QOS_MASK) >> WILL_QOS_SHIFT;
        boolean willRetain = (connectFlags & WILL_RETAIN) != 0;
        if (!hasWill && willQos != 0) {
            // [MQTT-3.1.2-11] in 5.0, [MQTT-3.1.2-13] in 3.1.1
            throw new MalformedPacketException("Will QoS without a Will [MQTT-3.1.2-11]");
        }
        if (!hasWill && willRetain) {
            // [MQTT-3.1.2-13] in 5.0, [MQTT-3.1.2-15] in 3.1.1
            throw new MalformedPacketException("Will Retain without a Will [MQTT-3.1.2-13]");
        }
        if (willQos == 3) {
            // [MQTT-3.1.2-12] in 5.0, [MQTT-3.1.2-14] in 3.1.1
            throw new MalformedPacketException("Will QoS 3 [MQTT-3.1.2-12]");
        }
        boolean hasUserName = (connectFlags & USER_NAME) != 0;
        boolean hasPassword = (connectFlags & PASSWORD) != 0;
        if (hasPassword && !hasUserName && !version.hasProperties()) {
            // 5.0 allows a password without a user name (3.1.2.9); 3.1.1 does not.
            throw new MalformedPacketException("password without user name [MQTT-3.1.2-22]");
        }
        int keepAlive = readTwoByteInteger(in, "keep alive");
        var properties = version.hasProperties() ? PropertiesCodec.decode(in, Scope.CONNECT) : Properties.NONE;

        // Payload, 3.1.3. An empty client id is the broker's to accept or refuse ([MQTT-3.1.3-6/7]).
        String clientId = readString(in, "client identifier");
        Optional<Will> will = Optional.empty();
        if (hasWill) {
            var willProperties = version.hasProperties() ? PropertiesCodec.decode(in, Scope.WILL) : Properties.NONE;
            String topic = readString(in, "Will Topic");
            if (!TopicName.isValid(topic)) {
                // No Topic Alias can stand in for a Will Topic: it must be a whole, wildcard-free name.
                throw new MalformedPacketException(ReasonCode.TOPIC_NAME_INVALID, "invalid Will Topic [MQTT-3.1.3-11]");
            }
            Binary payload = readBinary(in, "Will Payload");
            will = Optional.of(new Will(topic, payload, QoS.of(willQos), willRetain, willProperties));
        }
        Optional<String> userName = hasUserName ? Optional.of(readString(in, "user name")) : Optional.empty();
        Optional<Binary> password = hasPassword ? Optional.of(readBinary(in, "password")) : Optional.empty();
        return new Connect(version, clientId, (connectFlags & CLEAN_START) != 0, keepAlive, will,
                userName, password, properties, bridge);
    }

    /** The remaining length, in the packet's own version. */
    static int remainingLength(Connect connect) {
        var version = connect.version();
        boolean v5 = version.hasProperties();
        int length = stringSize(version.protocolName()) + 1 + 1 + 2;
        if (v5) length += PropertiesCodec.encodedSize(connect.properties());
        length += stringSize(connect.clientId());
        if (connect.will().isPresent()) {
            var will = connect.will().get();
            if (v5) length += PropertiesCodec.encodedSize(will.properties());
            length += stringSize(will.topic()) + binarySize(will.payload());
        }
        if (connect.username().isPresent()) length += stringSize(connect.username().get());
        if (connect.password().isPresent()) length += binarySize(connect.password().get());
        return length;
    }

    static void encode(Connect connect, int remainingLength, ByteBuffer out) {
        var version = connect.version();
        boolean v5 = version.hasProperties();
        writeFixedHeader(out, PacketType.CONNECT.value() << 4 | FLAGS, remainingLength);
        writeString(out, version.protocolName());
        writeByte(out, version.level() | (connect.bridge() ? BRIDGE : 0));
        int connectFlags = connect.cleanStart() ? CLEAN_START : 0;
        if (connect.will().isPresent()) {
            var will = connect.will().get();
            connectFlags |= WILL | will.qos().value() << WILL_QOS_SHIFT | (will.retain() ? WILL_RETAIN : 0);
        }
        if (connect.username().isPresent()) connectFlags |= USER_NAME;
        if (connect.password().isPresent()) connectFlags |= PASSWORD;
        writeByte(out, connectFlags);
        writeTwoByteInteger(out, connect.keepAlive());
        if (v5) PropertiesCodec.encode(out, connect.properties());
        writeString(out, connect.clientId());
        if (connect.will().isPresent()) {
            var will = connect.will().get();
            if (v5) PropertiesCodec.encode(out, will.properties());
            writeString(out, will.topic());
            writeBinary(out, will.payload());
        }
        if (connect.username().isPresent()) writeString(out, connect.username().get());
        if (connect.password().isPresent()) writeBinary(out, connect.password().get());
    }
}
