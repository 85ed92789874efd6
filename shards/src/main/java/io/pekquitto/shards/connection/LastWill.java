package io.pekquitto.shards.connection;

import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Will;
import io.pekquitto.shards.session.DelayedWill;
import io.pekquitto.shards.session.Message;
import java.util.Optional;

/**
 * The Will Message a connection leaves when it ends without a normal DISCONNECT ([MQTT-3.1.2-8]), as
 * the message to publish and its Will Delay Interval (3.1.3.2.2; 0 in 3.1.1 and when none was set).
 */
final class LastWill {
    private LastWill() {}

    static Optional<DelayedWill> of(Optional<Will> will, ProtocolVersion version, long now) {
        return will.map(w -> {
            // Will Delay Interval is a Will Property only (Table 2-4): the PUBLISH must not carry it.
            var properties = w.properties().toBuilder().remove(PropertyId.WILL_DELAY_INTERVAL).build();
            // Its lifetime runs from its publication (3.1.3.2.4): PendingWill.messageAt moves it there.
            var message = Message.received(w.topic(), w.payload(), w.qos(), w.retain(), properties, now);
            return new DelayedWill(message, version.hasProperties() ? w.properties().willDelayInterval() : 0);
        });
    }
}
