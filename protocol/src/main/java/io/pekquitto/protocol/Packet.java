package io.pekquitto.protocol;

/**
 * An MQTT control packet. Every packet of 3.1, 3.1.1 and 5.0 is one immutable record; the protocol
 * version is not part of the packet but of the connection, and the codec takes it as a parameter.
 * Java 17 has no pattern switch, so each packet also names its {@link PacketType}.
 */
public sealed interface Packet
        permits Connect, ConnAck, Publish, PubAck, PubRec, PubRel, PubComp, Subscribe, SubAck,
                Unsubscribe, UnsubAck, PingReq, PingResp, Disconnect, Auth {
    PacketType type();
}
