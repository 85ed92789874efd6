package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.Packet;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.transport.OutboundLink;
import java.net.InetSocketAddress;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/** What a {@link Bridge} hears: the broker's word, its local client's, its link's and its timers'. */
public sealed interface BridgeCommand {

    /** Disconnect from the remote and end the local client (its session stays); the bridge stops then. */
    enum Stop implements BridgeCommand { INSTANCE }

    // ---- the local side

    /** The answer to the bridge's connect as a client of this broker. */
    record LocalConnect(InProcessClient.ConnectOutcome outcome) implements BridgeCommand {}

    /** A local message for the remote, from the bridge's local subscriptions. */
    record Outgoing(ReceivedMessage message) implements BridgeCommand {}

    /** A message from the remote is routed here (or refused): its acknowledgement may go to the remote. */
    record LocallyPublished(InProcessClient.Published published) implements BridgeCommand {}

    /** The local client stopped (taken over by another client with its id, or the broker shuts down). */
    enum LocalClientStopped implements BridgeCommand { INSTANCE }

    // ---- the link

    /** The remote's address is resolved (off the shard's thread): connect to it. */
    record Resolved(long attempt, String host, InetSocketAddress address) implements BridgeCommand {}

    record ResolveFailed(long attempt, String why) implements BridgeCommand {}

    /** The socket (and TLS, if any) is up: CONNECT goes out. */
    record LinkOpened(OutboundLink link) implements BridgeCommand {}

    record LinkPackets(OutboundLink link, List<Packet> packets) implements BridgeCommand {}

    /** The socket takes writes again. */
    record LinkWritable(OutboundLink link) implements BridgeCommand {}

    record LinkClosed(OutboundLink link, String why) implements BridgeCommand {}

    // ---- timers

    /** Time to try the remote again. */
    enum Reconnect implements BridgeCommand { INSTANCE }

    /** A Keep Alive period has passed: PINGREQ, or the link is given up if the last one had no answer. */
    enum KeepAliveTick implements BridgeCommand { INSTANCE }

    /** The remote did not answer CONNECT in time. */
    enum ConnAckTimeout implements BridgeCommand { INSTANCE }

    /** A lazy bridge looks whether its link has been idle for idle-timeout. */
    enum IdleCheck implements BridgeCommand { INSTANCE }

    /** The link's events as commands to {@code bridge}: they come on its thread but outside its turn. */
    static OutboundLink.Events linkEvents(ActorRef<BridgeCommand> bridge) {
        return new OutboundLink.Events() {
            @Override public void opened(OutboundLink link) { bridge.tell(new LinkOpened(link)); }
            @Override public void received(OutboundLink link, List<Packet> packets) { bridge.tell(new LinkPackets(link, packets)); }
            @Override public void writable(OutboundLink link) { bridge.tell(new LinkWritable(link)); }
            @Override public void closed(OutboundLink link, String why) { bridge.tell(new LinkClosed(link, why)); }
        };
    }
}
