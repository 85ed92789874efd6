package io.pekquitto.shards.routes;

import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a published message and its {@link Route} into one message per subscribing client, with the
 * spec's rules for what a subscription changes: the QoS is the lower of the message's and the
 * subscription's ([MQTT-3.8.4-8]); RETAIN is kept only with Retain As Published ([MQTT-3.3.1-12]);
 * No Local skips the publisher's own subscriptions ([MQTT-3.8.3-3]); a client with overlapping
 * subscriptions gets one message with the highest of their QoS ([MQTT-3.3.4-2]) and every one of
 * their Subscription Identifiers ([MQTT-3.3.4-3]). A message goes out unchanged, not copied, when a
 * subscription changes nothing of it.
 */
public final class SubscriberDeliveries {

    /** Receives each client's message. */
    public interface Sink {
        void deliver(String clientId, Message message);
    }

    /** The aggregate of one client's matching subscriptions; reused scratch, cleared per message. */
    private static final class Overlap {
        QoS qos = QoS.AT_MOST_ONCE;
        boolean retainAsPublished;
        List<Integer> subscriptionIdentifiers;
    }

    private final Map<String, Overlap> overlaps = new HashMap<>();

    /** Gives {@code sink} one message per local subscriber of the route. */
    public void deliver(Route route, String publisherId, Message message, Sink sink) {
        if (route.uniqueClients()) {
            // The common case: each client matches once, its message is its subscription's.
            for (var match : route.local()) {
                if (match.entry().options().noLocal() && match.clientId().equals(publisherId)) continue;
                sink.deliver(match.clientId(), forSubscription(message, match.entry()));
            }
            return;
        }
        for (var match : route.local()) {
            var entry = match.entry();
            var options = entry.options();
            if (options.noLocal() && match.clientId().equals(publisherId)) continue;
            var overlap = overlaps.computeIfAbsent(match.clientId(), id -> new Overlap());
            if (options.maximumQos().value() > overlap.qos.value()) overlap.qos = options.maximumQos();
            overlap.retainAsPublished |= options.retainAsPublished();
            if (entry.subscriptionIdentifier() != 0) {
                if (overlap.subscriptionIdentifiers == null) overlap.subscriptionIdentifiers = new ArrayList<>(2);
                overlap.subscriptionIdentifiers.add(entry.subscriptionIdentifier());
            }
        }
        for (var entry : overlaps.entrySet()) {
            var overlap = entry.getValue();
            var properties = message.properties();
            if (overlap.subscriptionIdentifiers != null) {
                var builder = properties.toBuilder();
                overlap.subscriptionIdentifiers.forEach(builder::addSubscriptionIdentifier);
                properties = builder.build();
            }
            sink.deliver(entry.getKey(), message.forSubscriber(QoS.min(message.qos(), overlap.qos),
                    overlap.retainAsPublished && message.retain(), properties));
        }
        overlaps.clear();
    }

    /** The message one subscription gets of a live publish. */
    public static Message forSubscription(Message message, SubscriptionEntry entry) {
        var options = entry.options();
        return message.forSubscriber(QoS.min(message.qos(), options.maximumQos()),
                options.retainAsPublished() && message.retain(), withIdentifier(message.properties(), entry));
    }

    /** The message a shared subscription's member gets: its subscription's, marked with the group. */
    public static Message forMember(SharedGroups.Group group, SharedGroups.Member member, Message message) {
        return forSubscription(message, member.entry()).viaShared(group.sharedFilter());
    }

    static Properties withIdentifier(Properties properties, SubscriptionEntry entry) {
        if (entry.subscriptionIdentifier() == 0) return properties;
        return properties.toBuilder().addSubscriptionIdentifier(entry.subscriptionIdentifier()).build();
    }
}
