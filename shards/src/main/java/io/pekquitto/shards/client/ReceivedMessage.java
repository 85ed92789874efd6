package io.pekquitto.shards.client;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A message for a subscriber of an {@link InProcessClient}: what a PUBLISH would carry to a socket
 * client. The subscriber must {@link #acknowledge()} it once handled, whatever its QoS: that is the
 * client's PUBACK (or PUBREC and PUBCOMP), and until then the message counts against the client's
 * in-flight window, so a subscriber that falls behind gets the broker's queue limits, not an unbounded
 * mailbox. A delivery is one per subscriber, so equality is identity.
 */
public final class ReceivedMessage {
    private final String topic;
    private final Binary payload;
    private final QoS qos;
    private final boolean retain;
    private final boolean duplicate;
    private final MessageProperties properties;
    private final ActorRef<InProcessClient.Command> client;
    private final long delivery;

    ReceivedMessage(String topic, Binary payload, QoS qos, boolean retain, boolean duplicate, MessageProperties properties,
                    ActorRef<InProcessClient.Command> client, long delivery) {
        this.topic = topic;
        this.payload = payload;
        this.qos = qos;
        this.retain = retain;
        this.duplicate = duplicate;
        this.properties = properties;
        this.client = client;
        this.delivery = delivery;
    }

    public String topic() {
        return topic;
    }

    public Binary payload() {
        return payload;
    }

    /** The QoS delivered: the lower of the published one and the subscription's. */
    public QoS qos() {
        return qos;
    }

    /** A retained message sent for a new subscription, or one published with retain to a Retain As Published subscription. */
    public boolean retain() {
        return retain;
    }

    /** Told before, to this client or an earlier one with its session, and not acknowledged then (DUP). */
    public boolean duplicate() {
        return duplicate;
    }

    public MessageProperties properties() {
        return properties;
    }

    /** Handled: the client may count it delivered and give its subscribers the next. Once is enough. */
    public void acknowledge() {
        client.tell(new InProcessClient.Acknowledge(delivery));
    }

    @Override
    public String toString() {
        return "ReceivedMessage[" + topic + ", " + payload + ", " + qos + (retain ? ", retained" : "")
                + (duplicate ? ", duplicate" : "") + "]";
    }
}
