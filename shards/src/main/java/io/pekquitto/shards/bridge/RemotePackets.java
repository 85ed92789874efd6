package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.settings.BridgeSettings;
import java.util.List;
import java.util.Optional;

/** The CONNECT and SUBSCRIBE a bridge sends its remote, by its settings. */
final class RemotePackets {
    /** A session the remote keeps while the link is down, as a 3.1.1 Clean Session 0 would be kept. */
    static final long SESSION_EXPIRY = 0xFFFF_FFFFL;

    private RemotePackets() {}

    /**
     * CONNECT: a 3.1.1 bridge with try-private sets the protocol level's top bit (the remote sends it
     * nothing it published and keeps retain flags); an MQTT 5 one asks for a session that outlives the
     * link unless it starts clean, and tells its Receive Maximum.
     */
    static Connect connect(BridgeSettings bridge, int receiveMaximum) {
        var properties = Properties.NONE;
        if (bridge.protocolVersion() == ProtocolVersion.MQTT_5) {
            var builder = Properties.builder().set(PropertyId.RECEIVE_MAXIMUM, receiveMaximum);
            if (!bridge.cleanStart()) builder.set(PropertyId.SESSION_EXPIRY_INTERVAL, SESSION_EXPIRY);
            properties = builder.build();
        }
        boolean bridgeBit = bridge.tryPrivate() && bridge.protocolVersion() != ProtocolVersion.MQTT_5;
        return new Connect(bridge.protocolVersion(), bridge.clientId(), bridge.cleanStart(), bridge.keepAliveSeconds(),
                Optional.empty(), bridge.username(), bridge.password().map(Binary::utf8), properties, bridgeBit);
    }

    /**
     * SUBSCRIBE to every incoming topic at the remote; over MQTT 5 with try-private, with No Local (it is
     * not sent back what the bridge published there) and Retain As Published.
     */
    static Subscribe subscribe(BridgeSettings bridge, List<BridgeSettings.Topic> incoming, int packetId) {
        boolean bridged = bridge.tryPrivate() && bridge.protocolVersion() == ProtocolVersion.MQTT_5;
        var subscriptions = incoming.stream()
                .map(topic -> new Subscription(topic.remoteFilter(), new SubscriptionOptions(topic.qos(), bridged, bridged, 0)))
                .toList();
        return new Subscribe(packetId, subscriptions, Properties.NONE);
    }
}
