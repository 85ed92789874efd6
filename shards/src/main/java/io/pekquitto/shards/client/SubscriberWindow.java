package io.pekquitto.shards.client;

import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Queueing;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.stats.ShardStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The messages an in-process client's session gives its subscribers, what {@code DeliveryWindow} is to
 * a socket. Each subscription has a Subscription Identifier of the client's own, so a delivered message
 * names the subscriptions it matched (3.3.4: one message per client, however many match) and each of
 * their subscribers is told once. A message is delivered when every subscriber it was told to has
 * acknowledged it: then a QoS 1/2 message leaves the session's in-flight window (PUBACK, or PUBREC and
 * PUBCOMP at once). At most the client's Receive Maximum of them are unacknowledged; the rest wait in
 * the session's queue, within {@code max-queued-messages} / {@code max-queued-bytes}, as for a socket
 * client that reads slowly. QoS 0 messages do not queue: past {@code qos0Limit} unacknowledged ones,
 * they are dropped and counted, as a socket drops them for a client that does not read.
 *
 * <p>A message that matches no subscription of this client (one the session kept while the client was
 * away, whose subscriber was another client actor's) is held in flight until a subscription matches it;
 * a QoS 0 one is dropped. A stale Subscription Identifier, from the session's earlier life, is
 * recognised by its filter not matching the message.
 *
 * <p>Plain rules, no actors: the caller tells each returned {@link Delivery} to its subscriber.
 *
 * @param <S> a subscriber: an actor reference for the client actor, anything for a test
 */
final class SubscriberWindow<S> {
    /** The largest Subscription Identifier (3.8.2.1.2: a Variable Byte Integer of 1 to 268,435,455). */
    static final int MAX_SUBSCRIPTION_IDENTIFIER = 268_435_455;

    /** A message for one subscriber, acknowledged by its number. */
    record Delivery<S>(S subscriber, long number, Publish publish) {}

    /** What a subscriber that stopped leaves: its filters to unsubscribe, and what its leaving lets go out. */
    record Stopped<S>(List<String> filters, List<Delivery<S>> deliveries) {}

    private record Subscription<S>(String filter, S subscriber) {
        /** A shared subscription matches by its filter part: a resent message no longer names its group. */
        boolean matches(String topic) {
            return TopicFilter.matches(TopicFilter.isShared(filter) ? TopicFilter.sharedFilterTopic(filter) : filter, topic);
        }
    }

    /** A delivery not yet acknowledged: its message's packet identifier (0 for QoS 0), and to whom it went. */
    private record Unacknowledged<S>(int packetId, S subscriber) {}

    private final Session session;
    private final int receiveMaximum;
    private final int qos0Limit;
    /** The shard's counters: what is dropped here counts in $SYS and the metrics, as for a socket client. */
    private final ShardStats stats;
    private final Map<Integer, Subscription<S>> subscriptions = new HashMap<>();
    private final Map<Long, Unacknowledged<S>> unacknowledged = new HashMap<>();
    /** Per QoS 1/2 packet identifier in flight, how many subscribers have still to acknowledge it. */
    private final Map<Integer, Integer> awaitingSubscribers = new HashMap<>();
    /** QoS 1/2 messages in flight that no subscription of this client matches yet. */
    private final List<Publish> unclaimed = new ArrayList<>();
    private int qos0Unacknowledged;
    private long lastDelivery;
    private int lastSubscriptionIdentifier;
    private long droppedQos0;

    /**
     * @param receiveMaximum QoS 1/2 messages unacknowledged at most ({@code max-inflight-messages})
     * @param qos0Limit      QoS 0 deliveries unacknowledged at most
     * @param stats          the shard's counters
     */
    SubscriberWindow(Session session, int receiveMaximum, int qos0Limit, ShardStats stats) {
        this.session = session;
        this.stats = stats;
        this.receiveMaximum = receiveMaximum;
        this.qos0Limit = qos0Limit;
    }

    Session session() {
        return session;
    }

    long droppedQos0() {
        return droppedQos0;
    }

    int unclaimedCount() {
        return unclaimed.size();
    }

    // ---- subscriptions

    /** A subscription to {@code filter} for {@code subscriber}: its Subscription Identifier. One to the same filter is replaced. */
    int subscribe(String filter, S subscriber) {
        subscriptions.values().removeIf(subscription -> subscription.filter().equals(filter));
        do {
            lastSubscriptionIdentifier = lastSubscriptionIdentifier % MAX_SUBSCRIPTION_IDENTIFIER + 1;
        } while (subscriptions.containsKey(lastSubscriptionIdentifier));
        subscriptions.put(lastSubscriptionIdentifier, new Subscription<>(filter, subscriber));
        return lastSubscriptionIdentifier;
    }

    /** The shard has removed the subscription: messages routed before it have been delivered. */
    void unsubscribed(String filter) {
        subscriptions.values().removeIf(subscription -> subscription.filter().equals(filter));
    }

    /** The held messages a new subscription matches, to its subscriber now. */
    List<Delivery<S>> claimUnclaimed() {
        if (unclaimed.isEmpty()) return List.of();
        var held = List.copyOf(unclaimed);
        unclaimed.clear();
        var out = new ArrayList<Delivery<S>>();
        held.forEach(publish -> dispatch(publish, out));  // still unmatched: held again
        return out;
    }

    /**
     * A subscriber stopped: its subscriptions are to go, and its unacknowledged deliveries count as
     * acknowledged, since nobody is left to acknowledge them.
     */
    Stopped<S> subscriberStopped(S subscriber, long now) {
        var filters = new ArrayList<String>();
        subscriptions.values().removeIf(subscription -> {
            if (!subscription.subscriber().equals(subscriber)) return false;
            filters.add(subscription.filter());
            return true;
        });
        var numbers = new ArrayList<Long>();
        unacknowledged.forEach((number, delivery) -> {
            if (delivery.subscriber().equals(subscriber)) numbers.add(number);
        });
        var out = new ArrayList<Delivery<S>>();
        numbers.forEach(number -> out.addAll(acknowledged(number, now)));
        return new Stopped<>(filters, out);
    }

    // ---- messages

    /** Messages from the shard, QoS and retain decided by the subscriptions; then what the queue holds and the window has room for. */
    List<Delivery<S>> deliver(List<Message> messages, long now) {
        var out = new ArrayList<Delivery<S>>();
        for (var message : messages) {
            if (message.isExpired(now)) {
                session.dropped(message);  // [MQTT-3.3.2-5]
            } else if (message.qos() == QoS.AT_MOST_ONCE) {
                dispatch(message.toPublish(0, false, now), out);
            } else if (session.canSendNow(receiveMaximum, message)) {
                dispatch(session.startFlight(message, now), out);
            } else if (session.offer(message, false, false) == Queueing.FULL) {
                stats.publishDropped();  // past the queue's limits; past the memory budget, the budget counts it
            }
        }
        session.drain(receiveMaximum, now, publish -> dispatch(publish, out));
        return out;
    }

    /**
     * The session is attached to this client: its unacknowledged messages again, with DUP
     * ([MQTT-4.4.0-1]), then its queue. A QoS 2 message already past PUBREC (sent to a socket client
     * before) is complete: here PUBREL and PUBCOMP have nobody to wait for.
     */
    List<Delivery<S>> resume(long now) {
        var out = new ArrayList<Delivery<S>>();
        var released = new ArrayList<Integer>();
        session.resend(now, packet -> {
            if (packet instanceof Publish publish) {
                dispatch(publish, out);
            } else {
                released.add(((PubRel) packet).packetId());
            }
        });
        released.forEach(session::complete);
        session.drain(receiveMaximum, now, publish -> dispatch(publish, out));
        return out;
    }

    /** A subscriber acknowledged delivery {@code number}; the messages this lets go out. Twice is once. */
    List<Delivery<S>> acknowledged(long number, long now) {
        var delivery = unacknowledged.remove(number);
        if (delivery == null) return List.of();
        if (delivery.packetId() == 0) {
            qos0Unacknowledged--;
            return List.of();
        }
        int left = awaitingSubscribers.merge(delivery.packetId(), -1, Integer::sum);
        if (left > 0) return List.of();
        awaitingSubscribers.remove(delivery.packetId());
        if (!session.acknowledge(delivery.packetId())) {  // QoS 2: PUBREC and PUBCOMP in one step
            session.received(delivery.packetId());
            session.complete(delivery.packetId());
        }
        var out = new ArrayList<Delivery<S>>();
        session.drain(receiveMaximum, now, publish -> dispatch(publish, out));
        return out;
    }

    private void dispatch(Publish publish, List<Delivery<S>> out) {
        var subscribers = subscribersOf(publish);
        boolean qos0 = publish.qos() == QoS.AT_MOST_ONCE;
        if (subscribers.isEmpty()) {
            if (qos0) {
                droppedQos0++;
                stats.publishDropped();
            } else {
                unclaimed.add(publish);
            }
            return;
        }
        if (qos0) {
            if (qos0Unacknowledged + subscribers.size() > qos0Limit) {
                droppedQos0++;  // subscribers that do not keep up lose QoS 0, never memory without bound
                stats.publishDropped();
                return;
            }
            qos0Unacknowledged += subscribers.size();
        } else {
            awaitingSubscribers.put(publish.packetId(), subscribers.size());
        }
        for (var subscriber : subscribers) {
            unacknowledged.put(++lastDelivery, new Unacknowledged<>(publish.packetId(), subscriber));
            out.add(new Delivery<>(subscriber, lastDelivery, publish));
        }
    }

    /**
     * The subscribers of the subscriptions the message names; if it names none of this client's (it was
     * routed to an earlier life of the session), those whose filters match it.
     */
    private List<S> subscribersOf(Publish publish) {
        var found = new ArrayList<S>(1);
        for (int identifier : publish.properties().subscriptionIdentifiers()) {
            var subscription = subscriptions.get(identifier);
            if (subscription != null && subscription.matches(publish.topic()) && !found.contains(subscription.subscriber())) {
                found.add(subscription.subscriber());
            }
        }
        if (!found.isEmpty()) return found;
        for (var subscription : subscriptions.values()) {
            if (subscription.matches(publish.topic()) && !found.contains(subscription.subscriber())) found.add(subscription.subscriber());
        }
        return found;
    }
}
