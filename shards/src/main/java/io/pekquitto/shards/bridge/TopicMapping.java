package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.shards.settings.BridgeSettings;
import java.util.List;
import java.util.Optional;

/**
 * Which topics a bridge carries which way, and what they are called on the other side, by Mosquitto's
 * rules: a message goes by the first topic entry of its direction that matches it; out, its topic trades
 * the entry's local prefix for its remote one; in, the other way round; its QoS is at most the entry's.
 */
final class TopicMapping {
    /** A message's topic and QoS on the other side. */
    record Mapped(String topic, QoS qos) {}

    private final List<BridgeSettings.Topic> topics;

    TopicMapping(List<BridgeSettings.Topic> topics) {
        this.topics = List.copyOf(topics);
    }

    /** The filters the bridge subscribes to here, with their QoS: the entries that go out. */
    List<BridgeSettings.Topic> outgoing() {
        return topics.stream().filter(topic -> topic.direction().out()).toList();
    }

    /** The entries the bridge subscribes to at the remote: those that come in. */
    List<BridgeSettings.Topic> incoming() {
        return topics.stream().filter(topic -> topic.direction().in()).toList();
    }

    /** A local message's topic and QoS at the remote; empty if no outgoing entry matches it. */
    Optional<Mapped> toRemote(String localTopic, QoS qos) {
        for (var topic : topics) {
            if (topic.direction().out() && TopicFilter.matches(topic.localFilter(), localTopic)) {
                return Optional.of(new Mapped(topic.remotePrefix() + localTopic.substring(topic.localPrefix().length()),
                        QoS.min(qos, topic.qos())));
            }
        }
        return Optional.empty();
    }

    /** A remote message's topic and QoS here; empty if no incoming entry matches it. */
    Optional<Mapped> toLocal(String remoteTopic, QoS qos) {
        for (var topic : topics) {
            if (topic.direction().in() && TopicFilter.matches(topic.remoteFilter(), remoteTopic)) {
                return Optional.of(new Mapped(topic.localPrefix() + remoteTopic.substring(topic.remotePrefix().length()),
                        QoS.min(qos, topic.qos())));
            }
        }
        return Optional.empty();
    }
}
