package io.pekquitto.protocol;

import java.util.Objects;

/**
 * The Subscription Options byte of a SUBSCRIBE entry (3.8.3.1). In 3.1.1 only the QoS is on the wire
 * and the other options take their defaults. Retain Handling is 0 (send retained messages at
 * subscribe), 1 (only if the subscription is new) or 2 (never).
 */
public record SubscriptionOptions(QoS maximumQos, boolean noLocal, boolean retainAsPublished, int retainHandling) {
    public SubscriptionOptions {
        Objects.requireNonNull(maximumQos, "maximumQos");
        if (retainHandling < 0 || retainHandling > 2) throw new IllegalArgumentException("retainHandling " + retainHandling);
    }

    /** Options as a 3.1.1 SUBSCRIBE gives them: a QoS and the defaults. */
    public static SubscriptionOptions of(QoS maximumQos) {
        return new SubscriptionOptions(maximumQos, false, false, 0);
    }
}
