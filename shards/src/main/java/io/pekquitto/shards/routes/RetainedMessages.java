package io.pekquitto.shards.routes;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.routing.RetainedIndex;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SubscribeRequest;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * The retained messages of one shard (3.3.1.3) and what a new subscription receives of them. Each
 * shard keeps a copy of every retained message (the payloads are shared, not copied), so a
 * SUBSCRIBE is answered from its own shard. Their payload bytes count once per broker against the
 * memory budgets: each of the {@code shards} shards counts its equal part.
 */
public final class RetainedMessages {
    private final RetainedIndex<Message> index = new RetainedIndex<>();
    private final boolean available;
    private final MemoryBudget memory;
    private final int shards;
    private long bytes;

    /** @param available whether retained messages are supported ({@code retain-available}) */
    public RetainedMessages(boolean available) {
        this(available, MemoryBudget.NONE, 1);
    }

    /**
     * @param memory the shard's budget, which counts its part of the retained payloads
     * @param shards how many shards hold a copy, each counting its part
     */
    public RetainedMessages(boolean available, MemoryBudget memory, int shards) {
        this.available = available;
        this.memory = memory;
        this.shards = shards;
    }

    /**
     * Stores a message published with RETAIN 1, replacing the topic's previous one ([MQTT-3.3.1-5]);
     * an empty payload removes it instead ([MQTT-3.3.1-6] in 5.0, [MQTT-3.3.1-10] in 3.1.1).
     *
     * @return whether the message changed what is retained (it had RETAIN 1, and retaining is available)
     */
    public boolean retain(Message message) {
        if (!available || !message.retain()) return false;
        var previous = message.payload().isEmpty() ? index.remove(message.topic()) : index.put(message.topic(), message);
        counted(previous, message.payload().isEmpty() ? null : message);
        return true;
    }

    /**
     * A retained message of another node, sent to this node as it joined (docs/cluster.md, Retained messages
     * across nodes): kept unless this shard holds a newer one for the topic (received later, on the clocks
     * of the nodes, which the mesh keeps in step by sending ages). Returns whether it was kept.
     */
    public boolean caughtUp(Message message) {
        if (!available || message.payload().isEmpty()) return false;
        var held = index.get(message.topic());
        if (held != null && held.receivedAt() - message.receivedAt() >= 0) return false;
        counted(index.put(message.topic(), message), message);
        return true;
    }

    /** Every retained message held now, for a node that joins. */
    public List<Message> all() {
        var all = new ArrayList<Message>(index.size());
        index.forEach((topic, message) -> all.add(message));
        return all;
    }

    /** The payload bytes retained changed from {@code before} to {@code after} (either may be null). */
    private void counted(Message before, Message after) {
        long part = bytes / shards;
        if (before != null) bytes -= before.payload().length();
        if (after != null) bytes += after.payload().length();
        memory.shared(bytes / shards - part);
    }

    /** The payload bytes of the retained messages. */
    public long bytes() {
        return bytes;
    }

    /**
     * The retained messages a subscription gets as it is made, by its Retain Handling: 0 always
     * ([MQTT-3.3.1-9]), 1 only for a new subscription ([MQTT-3.3.1-10]), 2 never ([MQTT-3.3.1-11]);
     * none for a shared subscription (4.8.2). Each carries RETAIN 1, the lower QoS and the
     * subscription's identifier; an expired one is removed instead ([MQTT-3.3.2-5]).
     *
     * @param isNew whether the client had no subscription to this filter before
     */
    public List<Message> forSubscription(SubscribeRequest request, boolean isNew, long now) {
        int retainHandling = request.options().retainHandling();
        if (TopicFilter.isShared(request.topicFilter()) || retainHandling == 2 || (retainHandling == 1 && !isNew)) {
            return List.of();
        }
        var entry = new SubscriptionEntry(request.options(), request.subscriptionIdentifier());
        var messages = new ArrayList<Message>();
        index.forEachMatching(request.topicFilter(), (topic, message) -> {
            if (message.isExpired(now)) {
                counted(index.remove(topic), null);
                return;
            }
            messages.add(message.forSubscriber(QoS.min(message.qos(), request.options().maximumQos()), true,
                    SubscriberDeliveries.withIdentifier(message.properties(), entry)));
        });
        return messages;
    }

    public int size() {
        return index.size();
    }
}
