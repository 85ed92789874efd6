package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.Auth;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.UnsubAck;
import io.pekquitto.protocol.Unsubscribe;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;

/**
 * Encodes packets for a connection's protocol version. Sizes are computed without allocating and the
 * bytes are written straight into the target. For 3.1 and 3.1.1 what the version cannot carry is left
 * out: properties, the reasons of acknowledgements, UNSUBACK and DISCONNECT; CONNACK and SUBACK reasons
 * become 3.1.1 return codes. A CONNECT is written in its own version, whatever the argument says.
 *
 * @throws IllegalArgumentException for AUTH in 3.1.1, or a string, binary field or packet too long
 *     for the wire format
 */
public final class PacketEncoder {
    private PacketEncoder() {}

    /** The number of bytes the whole packet takes on the wire, fixed header included. */
    public static int encodedSize(Packet packet, ProtocolVersion version) {
        return DataRepresentation.packetSize(remainingLength(packet, version));
    }

    /** A new buffer, ready to read, holding exactly the encoded packet. */
    public static ByteBuffer encode(Packet packet, ProtocolVersion version) {
        int remainingLength = remainingLength(packet, version);
        var buffer = ByteBuffer.allocate(DataRepresentation.packetSize(remainingLength));
        write(packet, version, remainingLength, buffer);
        return buffer.flip();
    }

    /**
     * A new buffer, ready to read, holding the PUBLISH without its payload: the caller sends the payload
     * after it as it is, one array shared by every subscriber's copy of the message.
     */
    public static ByteBuffer encodeHead(Publish publish, ProtocolVersion version) {
        int remainingLength = PublishCodec.remainingLength(publish, version);
        var buffer = ByteBuffer.allocate(DataRepresentation.packetSize(remainingLength) - publish.payload().length());
        PublishCodec.encodeHead(publish, version, remainingLength, buffer);
        return buffer.flip();
    }

    /**
     * Writes the encoded packet at the target's position.
     *
     * @throws BufferOverflowException if the target has less than {@link #encodedSize} bytes remaining;
     *     nothing is written then
     */
    public static void encode(Packet packet, ProtocolVersion version, ByteBuffer target) {
        int remainingLength = remainingLength(packet, version);
        if (target.remaining() < DataRepresentation.packetSize(remainingLength)) throw new BufferOverflowException();
        write(packet, version, remainingLength, target);
    }

    private static int remainingLength(Packet packet, ProtocolVersion version) {
        return switch (packet.type()) {
            case CONNECT -> ConnectCodec.remainingLength((Connect) packet);
            case CONNACK -> ConnAckCodec.remainingLength((ConnAck) packet, version);
            case PUBLISH -> PublishCodec.remainingLength((Publish) packet, version);
            case PUBACK -> PubAckFamilyCodec.remainingLength(((PubAck) packet).reason(), ((PubAck) packet).properties(), version);
            case PUBREC -> PubAckFamilyCodec.remainingLength(((PubRec) packet).reason(), ((PubRec) packet).properties(), version);
            case PUBREL -> PubAckFamilyCodec.remainingLength(((PubRel) packet).reason(), ((PubRel) packet).properties(), version);
            case PUBCOMP -> PubAckFamilyCodec.remainingLength(((PubComp) packet).reason(), ((PubComp) packet).properties(), version);
            case SUBSCRIBE -> SubscribeCodec.remainingLength((Subscribe) packet, version);
            case SUBACK -> SubAckCodec.remainingLength((SubAck) packet, version);
            case UNSUBSCRIBE -> UnsubscribeCodec.remainingLength((Unsubscribe) packet, version);
            case UNSUBACK -> UnsubAckCodec.remainingLength((UnsubAck) packet, version);
            case PINGREQ, PINGRESP -> PingCodec.REMAINING_LENGTH;
            case DISCONNECT -> DisconnectCodec.remainingLength((Disconnect) packet, version);
            case AUTH -> AuthCodec.remainingLength((Auth) packet, version);
        };
    }

    private static void write(Packet packet, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        switch (packet.type()) {
            case CONNECT -> ConnectCodec.encode((Connect) packet, remainingLength, out);
            case CONNACK -> ConnAckCodec.encode((ConnAck) packet, version, remainingLength, out);
            case PUBLISH -> PublishCodec.encode((Publish) packet, version, remainingLength, out);
            case PUBACK -> {
                var ack = (PubAck) packet;
                PubAckFamilyCodec.encode(ack.type(), ack.packetId(), ack.reason(), ack.properties(), remainingLength, out);
            }
            case PUBREC -> {
                var ack = (PubRec) packet;
                PubAckFamilyCodec.encode(ack.type(), ack.packetId(), ack.reason(), ack.properties(), remainingLength, out);
            }
            case PUBREL -> {
                var ack = (PubRel) packet;
                PubAckFamilyCodec.encode(ack.type(), ack.packetId(), ack.reason(), ack.properties(), remainingLength, out);
            }
            case PUBCOMP -> {
                var ack = (PubComp) packet;
                PubAckFamilyCodec.encode(ack.type(), ack.packetId(), ack.reason(), ack.properties(), remainingLength, out);
            }
            case SUBSCRIBE -> SubscribeCodec.encode((Subscribe) packet, version, remainingLength, out);
            case SUBACK -> SubAckCodec.encode((SubAck) packet, version, remainingLength, out);
            case UNSUBSCRIBE -> UnsubscribeCodec.encode((Unsubscribe) packet, version, remainingLength, out);
            case UNSUBACK -> UnsubAckCodec.encode((UnsubAck) packet, version, remainingLength, out);
            case PINGREQ, PINGRESP -> PingCodec.encode(packet.type(), out);
            case DISCONNECT -> DisconnectCodec.encode((Disconnect) packet, remainingLength, out);
            case AUTH -> AuthCodec.encode((Auth) packet, remainingLength, out);
        }
    }
}
