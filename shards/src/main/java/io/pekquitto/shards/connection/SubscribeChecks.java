package io.pekquitto.shards.connection;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.shards.session.SubscribeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The rules for a SUBSCRIBE (3.8) before the shard applies it: one reason code per filter, in order
 * ([MQTT-3.9.3-1]); an invalid filter is refused alone (0x8F); the granted QoS is capped by the
 * server's maximum; No Local on a shared subscription ends the connection ([MQTT-3.8.3-4]); a filter
 * the ACLs do not let the client read is refused alone (0x87 Not authorized, 0x80 in 3.1.1). A bridge
 * ({@link io.pekquitto.protocol.Connect#bridge()}) gets No Local and Retain As Published on each of its 3.1 and
 * 3.1.1 subscriptions, so that two brokers bridged both ways do not send a message back (Mosquitto,
 * handle_subscribe.c). Public for the in-process client ({@code client.InProcessClient}), which subscribes by
 * the same rules.
 */
public final class SubscribeChecks {

    /** The outcome for one SUBSCRIBE. */
    public sealed interface Outcome {}

    /** The valid filters to apply and the reason code of every filter, for the SUBACK. */
    public record Checked(List<SubscribeRequest> requests, List<ReasonCode> reasons) implements Outcome {}

    /** A protocol violation: DISCONNECT with this reason. */
    public record Violation(ReasonCode reason, String why) implements Outcome {}

    private SubscribeChecks() {}

    /**
     * @param readable whether the client may subscribe to a filter (given without its {@code $share/GROUP/}
     *                 prefix): the {@link io.pekquitto.auth.Authorizer}'s answer
     */
    public static Outcome check(Subscribe subscribe, ProtocolVersion version, int maxQos, Predicate<String> readable) {
        return check(subscribe, version, false, maxQos, readable);
    }

    /** As {@link #check(Subscribe, ProtocolVersion, int, Predicate)}, for a client that may be a bridge. */
    public static Outcome check(Subscribe subscribe, ProtocolVersion version, boolean bridge, int maxQos,
                                Predicate<String> readable) {
        int subscriptionId = 0;
        if (version.hasProperties() && !subscribe.properties().subscriptionIdentifiers().isEmpty()) {
            subscriptionId = subscribe.properties().subscriptionIdentifiers().get(0);
        }
        var reasons = new ArrayList<ReasonCode>(subscribe.subscriptions().size());
        var requests = new ArrayList<SubscribeRequest>(subscribe.subscriptions().size());
        for (var subscription : subscribe.subscriptions()) {
            var filter = subscription.topicFilter();
            var options = subscription.options();
            if (bridge && !version.hasProperties()) options = asBridge(filter, options);
            if (!TopicFilter.isValid(filter)) {
                reasons.add(ReasonCode.TOPIC_FILTER_INVALID);  // 3.1.1 encodes it as 0x80
            } else if (TopicFilter.isShared(filter) && options.noLocal()) {
                return new Violation(ReasonCode.PROTOCOL_ERROR, "No Local on a shared subscription");
            } else if (!readable.test(TopicFilter.isShared(filter) ? TopicFilter.sharedFilterTopic(filter) : filter)) {
                reasons.add(ReasonCode.NOT_AUTHORIZED);
            } else {
                var granted = QoS.min(options.maximumQos(), QoS.of(maxQos));
                requests.add(new SubscribeRequest(filter, new SubscriptionOptions(granted, options.noLocal(),
                        options.retainAsPublished(), options.retainHandling()), subscriptionId));
                reasons.add(ReasonCode.granted(granted));  // the granted QoS may be lower than asked
            }
        }
        return new Checked(requests, reasons);
    }

    /**
     * A 3.1/3.1.1 bridge's options: Retain As Published, and No Local except on a shared subscription, where
     * MQTT 5 forbids it and Mosquitto, which sets it there too, never looks at it (subs.c, subs__shared_process).
     */
    private static SubscriptionOptions asBridge(String filter, SubscriptionOptions options) {
        boolean noLocal = !TopicFilter.isShared(filter);
        return new SubscriptionOptions(options.maximumQos(), noLocal, true, options.retainHandling());
    }
}
