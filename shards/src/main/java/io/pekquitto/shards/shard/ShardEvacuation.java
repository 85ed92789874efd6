package io.pekquitto.shards.shard;

import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.node.Leaving;
import io.pekquitto.shards.routes.SessionCrossings;
import io.pekquitto.shards.session.Sessions;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * A shard's part of its node leaving the cluster (docs/cluster.md, A node leaving): every session held here that
 * outlives its connection is claimed by its home on another node ({@link Sessions#evacuate}); a connection that has
 * one is told that the server shuts down (DISCONNECT 0x8B) as its session goes. The node hears once none is left.
 * What is still here after a while (a claim that found no record of it, a connection attached meanwhile) is asked
 * for again.
 */
final class ShardEvacuation {
    /** How often the shard looks whether its sessions are gone. */
    private static final Duration CHECK = Duration.ofMillis(100);
    /** After how many looks what is still here is handed again. */
    private static final int CHECKS_BEFORE_AGAIN = 20;

    private final ShardSessions shardSessions;
    private final Sessions<ConnectionRef> sessions;
    private final TimerScheduler<ShardMessage> timers;
    private final SessionCrossings crossings;
    private ActorRef<Leaving.Evacuated> replyTo;
    private int checks;

    ShardEvacuation(ShardSessions shardSessions, Sessions<ConnectionRef> sessions, SessionCrossings crossings,
                    TimerScheduler<ShardMessage> timers) {
        this.shardSessions = shardSessions;
        this.sessions = sessions;
        this.crossings = crossings;
        this.timers = timers;
    }

    boolean isLeaving() {
        return replyTo != null;
    }

    void start(Leaving.Evacuate evacuate, int index) {
        replyTo = evacuate.replyTo();
        shardSessions.leaving();
        shardSessions.perform(sessions.evacuate());
        check(index);
    }

    void check(int index) {
        if (sessions.evacuated() && crossings.noneLeaving()) {  // and what was routed here for them is forwarded
            replyTo.tell(new Leaving.Evacuated(index));
            return;
        }
        if (++checks % CHECKS_BEFORE_AGAIN == 0) shardSessions.perform(sessions.evacuate());
        timers.startSingleTimer(ShardInternal.EvacuationCheck.INSTANCE, CHECK);
    }
}
