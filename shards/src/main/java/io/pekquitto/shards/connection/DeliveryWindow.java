package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.TopicName;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.memory.MemoryBudget;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Queueing;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.SlowSubscriberPolicy;
import io.pekquitto.shards.stats.ShardStats;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Every PUBLISH towards the client goes out here, whether it comes straight from the shard, out of the
 * session's queue or as a resend when the session resumes ([MQTT-4.4.0-1]), so the rules of sending
 * live in one place: at most the client's Receive Maximum in flight ([MQTT-4.9.0-2]), the rest queued;
 * nothing larger than the client's Maximum Packet Size ([MQTT-3.1.2-25]: discarded as if delivered,
 * its in-flight slot freed); outbound topic aliases within the client's maximum; an expired message
 * not sent ([MQTT-3.3.2-5]); QoS 0 dropped for a client that does not read (its socket backlog over
 * {@link #OUTBOUND_QOS0_LIMIT}); and what the client holds within its share of the shard's
 * {@link MemoryBudget}: QoS 0 that finds no room is dropped, QoS 1/2 goes to the session's queue, which
 * spills it to the store or drops it. Under {@code slow-subscriber-policy = throttle}, a queue past half
 * its limit, or a client holding half its share, asks the shard to slow the publishers down
 * ({@link Congestion}).
 */
final class DeliveryWindow {
    /** Above this many bytes waiting for the socket, QoS 0 deliveries are dropped (a client that does not read). */
    static final long OUTBOUND_QOS0_LIMIT = 1 << 20;

    /**
     * A client whose window stays full this long without one acknowledgement counts as stalled: it gets
     * a shared subscription's messages only when every member is stalled. A reader acknowledges within
     * a round trip; on loopback a stuck member is found after about a window and a few messages more.
     */
    static final Duration STALL_TIMEOUT = Duration.ofMillis(20);

    /** The bytes waiting for the client's socket now ({@link PacketWriter} tells them: no function made per connection). */
    @FunctionalInterface
    interface Backlog {
        long backlog();
    }

    /** A change of this client's congestion that the shard must hear of. */
    enum Congestion { UNCHANGED, CONGESTED, RELIEVED }

    private final Session session;
    private final ProtocolVersion version;
    private final int receiveMaximum;
    private final long maximumPacketSize;
    private final OutboundTopicAliases aliases;
    /** The packet writer, or with a store the {@link OutboundGate} in front of it. */
    private final Consumer<Packet> out;
    private final ShardStats stats;
    private final MemoryBudget memory;
    /** The bytes waiting for the client's socket now: the session holds them too. */
    private final Backlog backlog;
    private final boolean throttle;
    private final int congestionHighWater;
    private boolean congested;
    /** Set when a congestion timed out: no new one until the queue has drained. */
    private boolean gaveUp;
    /** How soon it can take shared subscriptions' work, as the shard last heard ({@link #availability}). */
    private Availability availability = Availability.READY;
    /** When the client last acknowledged a QoS 1/2 message, or its window last filled: the broker's nanoseconds. */
    private long progressAt;

    DeliveryWindow(Session session, ConnectNegotiation.Terms terms, ProtocolVersion version, BrokerSettings settings,
                   Consumer<Packet> out, ShardStats stats) {
        this(session, terms, version, settings, out, stats, MemoryBudget.NONE, () -> 0);
    }

    /**
     * @param memory  the shard's budget, which counts the QoS 0 messages dropped for want of room
     * @param backlog the bytes waiting for the client's socket ({@link PacketWriter#backlog()})
     */
    DeliveryWindow(Session session, ConnectNegotiation.Terms terms, ProtocolVersion version, BrokerSettings settings,
                   Consumer<Packet> out, ShardStats stats, MemoryBudget memory, Backlog backlog) {
        this.session = session;
        this.stats = stats;
        this.memory = memory;
        this.backlog = backlog;
        this.version = version;
        this.receiveMaximum = terms.clientReceiveMaximum();
        this.maximumPacketSize = terms.clientMaximumPacketSize();
        this.aliases = OutboundTopicAliases.upTo(terms.clientTopicAliasMaximum(), this::fits);
        this.out = out;
        this.throttle = settings.slowSubscriberPolicy() == SlowSubscriberPolicy.THROTTLE;
        this.congestionHighWater = Math.max(1, settings.maxQueuedMessages() / 2);
    }

    Session session() {
        return session;
    }

    /** Nothing in flight either way, nothing queued, no congestion: the window may be parked. */
    boolean isQuiet() {
        return !congested && session.inflightCount() == 0 && session.queuedCount() == 0 && session.awaitingPubRelCount() == 0;
    }

    /** A message from the shard, QoS and retain already decided by the subscriptions. */
    Congestion deliver(Message message, long now, long outboundBacklog) {
        session.backlog(outboundBacklog);  // what this batch wrote so far counts before the next is let in
        if (message.isExpired(now)) {
            session.dropped(message);  // [MQTT-3.3.2-5]
            return Congestion.UNCHANGED;
        }
        if (message.qos() == QoS.AT_MOST_ONCE) {
            if (outboundBacklog > OUTBOUND_QOS0_LIMIT) {
                stats.publishDropped();  // a client that does not read loses QoS 0, never memory without bound
            } else if (!session.mayTake(message.payload().length()) && !TopicName.isBrokers(message.topic())) {
                // Its share, or the shard's budget, has no room. Not for $SYS: the broker's own figures, a
                // bounded few, reach a monitoring client while the budget is full, when they matter most.
                memory.dropped(1);
            } else {
                stats.delivered(now - message.receivedAt());
                send(message.toPublish(0, false, now));
            }
            return Congestion.UNCHANGED;
        }
        if (session.canSendNow(receiveMaximum, message)) {
            stats.delivered(now - message.receivedAt());
            send(session.startFlight(message, now));
            return Congestion.UNCHANGED;
        }
        var queueing = session.offer(message, false, congested);
        if (queueing == Queueing.FULL) stats.publishDropped();  // past the budget, the budget counts it
        if (queueing != Queueing.QUEUED || !throttle || congested || gaveUp
                || (session.queuedCount() < congestionHighWater && !holdsHalfItsShare())) {
            return Congestion.UNCHANGED;
        }
        // The client acknowledges slower than messages arrive: slow the publishers down before the
        // queue or its share of the heap is full and QoS 1/2 messages would be dropped.
        congested = true;
        return Congestion.CONGESTED;
    }

    /**
     * A retained message a SUBSCRIBE brought, which the caller paces by the socket ({@link RetainedSends}):
     * a QoS 0 one is never dropped for the socket's backlog nor the memory budget, as a live one would be.
     */
    Congestion deliverRetained(Message message, long now) {
        long outboundBacklog = backlog.backlog();
        if (message.qos() != QoS.AT_MOST_ONCE || message.isExpired(now)) return deliver(message, now, outboundBacklog);
        session.backlog(outboundBacklog);
        stats.delivered(now - message.receivedAt());
        send(message.toPublish(0, false, now));
        return Congestion.UNCHANGED;
    }

    private boolean holdsHalfItsShare() {
        return memory.share() > 0 && session.held() >= memory.share() / 2;
    }

    /**
     * Sends what the window has room for; the congestion ends once the queue is down to a quarter of its
     * limit and what the client holds to a quarter of its share.
     */
    Congestion drain(long now) {
        session.backlog(backlog.backlog());
        session.drain(receiveMaximum, now, this::send, stats.delivered());
        if (session.queuedCount() > congestionHighWater / 2) return Congestion.UNCHANGED;
        if (memory.share() > 0 && session.held() > memory.share() / 4) return Congestion.UNCHANGED;
        gaveUp = false;
        return relieve();
    }

    /** The bytes waiting for the socket now, which the session counts as its client's. */
    void accountBacklog() {
        session.backlog(backlog.backlog());
    }

    /** The session resumes on this connection: its unacknowledged messages again, then its queue. */
    Congestion resume(long now) {
        session.resend(now, packet -> {
            if (packet instanceof Publish publish) {
                send(publish);
            } else {
                out.accept(packet);
            }
        });
        return drain(now);
    }

    Congestion pubAck(int packetId, long now) {
        if (!session.acknowledge(packetId)) return Congestion.UNCHANGED;
        progressAt = now;
        return drain(now);
    }

    /** PUBREC: PUBREL next (4.3.3); an error code ends the exchange; an unknown identifier gets 0x92 (5.0). */
    Congestion pubRec(PubRec rec, long now) {
        progressAt = now;  // the client reads
        if (rec.reason().isError()) {
            session.abandon(rec.packetId());
            return drain(now);
        }
        if (session.received(rec.packetId())) {
            // [MQTT-4.3.3-4]; with a store, once PUBREC is written: else a crash could send the PUBLISH again
            var pubRel = new PubRel(rec.packetId());
            if (session.journal().isKept()) {
                OutboundGate.afterWrite(out, pubRel);
            } else {
                out.accept(pubRel);
            }
        } else if (version.hasProperties()) {
            out.accept(new PubRel(rec.packetId(), ReasonCode.PACKET_IDENTIFIER_NOT_FOUND, Properties.NONE));
        }
        return Congestion.UNCHANGED;
    }

    Congestion pubComp(int packetId, long now) {
        if (!session.complete(packetId)) return Congestion.UNCHANGED;
        progressAt = now;
        return drain(now);
    }

    /**
     * How soon the client can take a shared subscription's next message (README.md, shared
     * subscriptions under Shards), if that changed since the shard last heard, else null. READY: its
     * window has room. BUSY: its window is full or a message waits, but it acknowledges. STALLED: it
     * has acknowledged nothing for {@link #STALL_TIMEOUT} while its window was full (a client that
     * stopped reading, not a slow one: a count of waiting messages cannot tell them apart, since a
     * reader acknowledges in bursts), or more than {@link #OUTBOUND_QOS0_LIMIT} bytes wait for its socket. Leaving BUSY takes half the
     * window free, leaving STALLED an acknowledgement and the backlog down to half that limit: the
     * shard hears at most one change per half a window of acknowledgements, never one per message.
     */
    Availability availability(long outboundBacklog, long now) {
        var next = availabilityAt(outboundBacklog, now);
        if (next == availability) return null;
        if (availability == Availability.READY) progressAt = now;  // the window filled: the stall is timed from here
        availability = next;
        return next;
    }

    private Availability availabilityAt(long outboundBacklog, long now) {
        int inflight = session.inflightCount();
        int queued = session.queuedCount();
        long backlogLimit = availability == Availability.STALLED ? OUTBOUND_QOS0_LIMIT / 2 : OUTBOUND_QOS0_LIMIT;
        if (outboundBacklog > backlogLimit) return Availability.STALLED;
        int roomAt = availability == Availability.READY ? receiveMaximum - 1 : receiveMaximum / 2;
        if (queued == 0 && inflight <= roomAt) return Availability.READY;
        boolean stalled = availability != Availability.READY && now - progressAt >= STALL_TIMEOUT.toNanos();
        return stalled ? Availability.STALLED : Availability.BUSY;
    }

    /** How long until a BUSY client counts as stalled if it acknowledges nothing; null unless it is BUSY. */
    Duration untilStalled(long now) {
        if (availability != Availability.BUSY) return null;
        return Duration.ofNanos(Math.max(0, progressAt + STALL_TIMEOUT.toNanos() - now));
    }

    /** A client congested this long is stuck, not slow: publishers stop waiting for it until it drains. */
    Congestion congestionTimedOut() {
        if (!congested) return Congestion.UNCHANGED;
        gaveUp = true;
        return relieve();
    }

    /** The connection ends: a congestion it caused ends with it. */
    Congestion close() {
        return relieve();
    }

    private Congestion relieve() {
        if (!congested) return Congestion.UNCHANGED;
        congested = false;
        return Congestion.RELIEVED;
    }

    private void send(Publish publish) {
        // The size checked is that of the PUBLISH as sent, Topic Alias included.
        var toSend = aliases.apply(publish);
        if (!fits(toSend)) {
            // Discarded as if delivered [MQTT-3.1.2-25]: its slot is free for the next one.
            if (publish.qos() != QoS.AT_MOST_ONCE) session.abandon(publish.packetId());
            return;
        }
        if (publish.qos() == QoS.EXACTLY_ONCE && !publish.dup() && session.journal().isKept()) {
            OutboundGate.afterWrite(out, toSend);  // once its identifier is written: a resend after a crash reuses it
        } else {
            out.accept(toSend);
        }
    }

    private boolean fits(Publish publish) {
        return maximumPacketSize >= BrokerSettings.PROTOCOL_MAX_PACKET_SIZE
                || PacketEncoder.encodedSize(publish, version) <= maximumPacketSize;
    }
}
