package io.pekquitto.cluster.mesh;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.SharedGroups;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.MigratedSession;
import io.pekquitto.shards.session.MovingSession;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.shard.ShardCommand;
import java.nio.BufferUnderflowException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The byte layout of what a shard sends a peer shard (docs/cluster.md, The mesh's messages on the wire):
 * {@link ShardCommand.Forward}, {@link ShardCommand.ForwardAck} and {@link ShardCommand.Control}, told apart by their manifest;
 * inside them a tag byte per record type, then its fields in declaration order. Plain Java: the Pekko
 * serializer, {@code MeshSerializer}, only wraps it.
 */
public final class MeshCodec {
    public static final String FORWARD = "F";
    public static final String FORWARD_ACK = "A";
    public static final String CONTROL = "C";

    /** What a {@code Handover} that carries a live session is refused with: only its portable form leaves its node. */
    public static final String LIVE_SESSION = "a live session cannot leave its node; export it first";

    /** This JVM's nanosecond clock, which a message's times are on ({@link MessageCodec}). */
    private final LongSupplier clock;

    public MeshCodec(LongSupplier clock) {
        this.clock = clock;
    }

    /** The manifest of a mesh message, which names its type. */
    public static String manifest(Object message) {
        if (message instanceof ShardCommand.Forward) return FORWARD;
        if (message instanceof ShardCommand.ForwardAck) return FORWARD_ACK;
        if (message instanceof ShardCommand.Control) return CONTROL;
        throw new IllegalArgumentException("not a message of the mesh: " + message.getClass().getName());
    }

    public byte[] encode(Object message) {
        return encode(message, ShardNaming.SAME_NODE);
    }

    /** The bytes of a mesh message, the shards it names (but the sender) named by {@code naming}. */
    public byte[] encode(Object message, ShardNaming naming) {
        var out = new MeshOutput();
        if (message instanceof ShardCommand.Forward forward) {
            long now = clock.getAsLong();
            out.int32(forward.from()).int32(forward.items().size());
            for (var item : forward.items()) writeForwarded(out, item, naming, now);
        } else if (message instanceof ShardCommand.ForwardAck ack) {
            out.int32(ack.from()).bool(ack.written());
        } else if (message instanceof ShardCommand.Control control) {
            writeControl(out.int32(control.from()), control.message(), naming, clock.getAsLong());
        } else {
            throw new IllegalArgumentException("not a message of the mesh: " + message.getClass().getName());
        }
        return out.toByteArray();
    }

    /** The message of {@code bytes}; {@link MeshFormatException} if they are not one of {@code manifest}. */
    public Object decode(byte[] bytes, String manifest) {
        return decode(bytes, 0, manifest, ShardNaming.SAME_NODE);
    }

    /**
     * The message of {@code bytes} from {@code offset} on, whose sender's shards (the sender, a shared member on it) are numbered
     * here by {@code naming} ({@code MeshPeers}).
     */
    public Object decode(byte[] bytes, int offset, String manifest, ShardNaming naming) {
        var in = new MeshInput(bytes, offset);
        try {
            Object message = switch (manifest) {
                case FORWARD -> readForward(in, naming);
                case FORWARD_ACK -> new ShardCommand.ForwardAck(naming.sender(in.int32()), in.bool());
                case CONTROL -> new ShardCommand.Control(naming.sender(in.int32()), readControl(in, naming, clock.getAsLong()));
                default -> throw new MeshFormatException("an unknown manifest " + manifest);
            };
            in.end();
            return message;
        } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException | MalformedPacketException e) {
            if (e instanceof MeshFormatException format) throw format;
            throw new MeshFormatException("a mesh message (" + manifest + ") cannot be read: " + e, e);
        }
    }

    private ShardCommand.Forward readForward(MeshInput in, ShardNaming naming) {
        int from = naming.sender(in.int32());
        int count = in.int32();
        if (count < 0) throw new MeshFormatException("a batch of " + count);
        long now = clock.getAsLong();
        var items = new ArrayList<Forwarded>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) items.add(readForwarded(in, naming, now));
        return new ShardCommand.Forward(from, items);
    }

    private static void writeForwarded(MeshOutput out, Forwarded item, ShardNaming naming, long now) {
        if (item instanceof Forwarded.Published p) {
            MessageCodec.write(out.tag(1).string(p.publisherId()), p.message(), now);
        } else if (item instanceof Forwarded.ToMember m) {
            MessageCodec.write(out.tag(2).string(m.publisherId()), m.message(), now);
            out.string(m.clientId()).string(m.sharedFilter()).bytes(m.relay()).bool(m.redirected());
        } else if (item instanceof Forwarded.ToClient c) {
            MessageCodec.write(out.tag(3).string(c.clientId()), c.message(), now);
        } else if (item instanceof Forwarded.Retained r) {
            MessageCodec.write(out.tag(4), r.message(), now);
        } else if (item instanceof Forwarded.Cut cut) {
            out.tag(5).string(cut.clientId());
        } else if (item instanceof Forwarded.CutPassed passed) {
            writeShard(out.tag(6).string(passed.clientId()), passed.peer(), naming);
        } else {
            throw unknown(item);
        }
    }

    private static Forwarded readForwarded(MeshInput in, ShardNaming naming, long now) {
        int tag = in.tag();
        return switch (tag) {
            case 1 -> new Forwarded.Published(in.string(), MessageCodec.read(in, now));
            case 2 -> new Forwarded.ToMember(in.string(), MessageCodec.read(in, now), in.string(), in.string(),
                    in.bytes(), in.bool());
            case 3 -> new Forwarded.ToClient(in.string(), MessageCodec.read(in, now));
            case 4 -> new Forwarded.Retained(MessageCodec.read(in, now));
            case 5 -> new Forwarded.Cut(in.string());
            case 6 -> new Forwarded.CutPassed(in.string(), readShard(in, naming));
            default -> throw new MeshFormatException("an unknown forward " + tag);
        };
    }

    private static void writeControl(MeshOutput out, ControlMessage message, ShardNaming naming, long now) {
        if (message instanceof ControlMessage.Hello) {
            out.tag(1);
        } else if (message instanceof ControlMessage.Resync resync) {
            out.tag(2).int32(resync.routes().size());
            for (var change : resync.routes()) writeRouteChange(out, change);
            writeHolders(out, resync.heldSessions(), naming);
        } else if (message instanceof ControlMessage.Routes routes) {
            writeRouteChange(out.tag(3), routes.change());
        } else if (message instanceof ControlMessage.Sessions sessions) {
            writeTransfer(out.tag(4), sessions.transfer(), naming, now);
        } else if (message instanceof ControlMessage.Sync sync) {
            out.tag(5).int64(sync.token());
        } else if (message instanceof ControlMessage.SyncAck ack) {
            out.tag(6).int64(ack.token());
        } else if (message instanceof ControlMessage.Homes homes) {
            writeHolders(out.tag(7).int64(homes.epoch()).tag(homes.round()), homes.holders(), naming);
        } else if (message instanceof ControlMessage.Moved moved) {
            writeShard(out.tag(8).string(moved.clientId()), moved.from(), naming);
        } else {
            throw unknown(message);
        }
    }

    private static ControlMessage readControl(MeshInput in, ShardNaming naming, long now) {
        int tag = in.tag();
        return switch (tag) {
            case 1 -> new ControlMessage.Hello();
            case 2 -> {
                var routes = new ArrayList<RouteChange>();
                for (int i = in.count(); i > 0; i--) routes.add(readRouteChange(in, naming));
                yield new ControlMessage.Resync(routes, readHolders(in, naming));
            }
            case 3 -> new ControlMessage.Routes(readRouteChange(in, naming));
            case 4 -> new ControlMessage.Sessions(readTransfer(in, naming, now));
            case 5 -> new ControlMessage.Sync(in.int64());
            case 6 -> new ControlMessage.SyncAck(in.int64());
            case 7 -> new ControlMessage.Homes(in.int64(), in.tag(), readHolders(in, naming));
            case 8 -> new ControlMessage.Moved(in.string(), readShard(in, naming));
            default -> throw new MeshFormatException("an unknown control message " + tag);
        };
    }

    /** A shard other than the sender: its node ("" for the sender's) and its index there. */
    private static void writeShard(MeshOutput out, int shard, ShardNaming naming) {
        out.string(naming.node(shard)).int32(naming.index(shard));
    }

    private static int readShard(MeshInput in, ShardNaming naming) {
        return naming.id(in.string(), in.int32());
    }

    private static SessionTransfer.Successor readSuccessor(MeshInput in, ShardNaming naming) {
        return new SessionTransfer.Successor(readShard(in, naming), in.int64());
    }

    private static void writeSuccessor(MeshOutput out, SessionTransfer.Successor successor, ShardNaming naming) {
        writeShard(out, successor.shard(), naming);
        out.int64(successor.token());
    }

    private static void writeHolders(MeshOutput out, List<Map.Entry<String, SessionTransfer.Successor>> holders,
                                     ShardNaming naming) {
        out.int32(holders.size());
        for (var holder : holders) writeSuccessor(out.string(holder.getKey()), holder.getValue(), naming);
    }

    private static List<Map.Entry<String, SessionTransfer.Successor>> readHolders(MeshInput in, ShardNaming naming) {
        var holders = new ArrayList<Map.Entry<String, SessionTransfer.Successor>>();
        for (int i = in.count(); i > 0; i--) holders.add(Map.entry(in.string(), readSuccessor(in, naming)));
        return holders;
    }

    /** A record type added to the mesh and not to this codec: a test fails before any node sees it. */
    private static IllegalArgumentException unknown(Object value) {
        return new IllegalArgumentException("the mesh serializer does not know " + value.getClass().getName());
    }

    private static void writeRouteChange(MeshOutput out, RouteChange change) {
        if (change instanceof RouteChange.InterestAdded added) {
            out.tag(1).string(added.filter());
        } else if (change instanceof RouteChange.InterestRemoved removed) {
            out.tag(2).string(removed.filter());
        } else if (change instanceof RouteChange.Joined joined) {
            var member = joined.member();
            out.tag(3).string(joined.group()).string(joined.filter()).string(member.clientId()).int32(member.shard())
                    .entry(member.entry()).tag(availability(member.availability()));
        } else if (change instanceof RouteChange.Left left) {
            out.tag(4).string(left.group()).string(left.filter()).string(left.clientId());
        } else if (change instanceof RouteChange.Available available) {
            out.tag(5).string(available.clientId()).tag(availability(available.availability()));
        } else {
            throw unknown(change);
        }
    }

    /** A Joined's member is on the sender's shard: numbered here as the sender is. */
    private static RouteChange readRouteChange(MeshInput in, ShardNaming naming) {
        int tag = in.tag();
        return switch (tag) {
            case 1 -> new RouteChange.InterestAdded(in.string());
            case 2 -> new RouteChange.InterestRemoved(in.string());
            case 3 -> {
                var group = in.string();
                var filter = in.string();
                var clientId = in.string();
                int shard = naming.sender(in.int32());
                var entry = in.entry();
                yield new RouteChange.Joined(group, filter, new SharedGroups.Member(clientId, shard, entry, availability(in.tag())));
            }
            case 4 -> new RouteChange.Left(in.string(), in.string(), in.string());
            case 5 -> new RouteChange.Available(in.string(), availability(in.tag()));
            default -> throw new MeshFormatException("an unknown route change " + tag);
        };
    }

    /** Written by name, not ordinal, so that reordering the enum does not change the wire. */
    private static int availability(Availability availability) {
        return switch (availability) {
            case READY -> 0;
            case BUSY -> 1;
            case STALLED -> 2;
        };
    }

    private static Availability availability(int code) {
        return switch (code) {
            case 0 -> Availability.READY;
            case 1 -> Availability.BUSY;
            case 2 -> Availability.STALLED;
            default -> throw new MeshFormatException("an availability of " + code);
        };
    }

    /** A Handover's session goes in its portable form ({@link SessionCodec}), exported by its shard before. */
    private static void writeTransfer(MeshOutput out, SessionTransfer transfer, ShardNaming naming, long now) {
        if (transfer instanceof SessionTransfer.Claim claim) {
            writeShard(out.tag(1).string(claim.clientId()), claim.shard(), naming);
            out.int64(claim.token()).int64(claim.from());
        } else if (transfer instanceof SessionTransfer.Relinquish relinquish) {
            writeSuccessor(out.tag(2).string(relinquish.clientId()).int64(relinquish.token()), relinquish.to(), naming);
        } else if (transfer instanceof SessionTransfer.Handover handover) {
            var session = handover.session().orElse(null);
            if (session instanceof MigratedSession) {
                throw new IllegalArgumentException(LIVE_SESSION + " (the Handover of client id " + handover.clientId() + ")");
            }
            out.tag(3).string(handover.clientId()).int64(handover.token()).bool(session != null);
            if (session != null) SessionCodec.write(out, (PortableSession) session, now);
            out.bool(handover.indexedOn() != SessionTransfer.NOWHERE);
            if (handover.indexedOn() != SessionTransfer.NOWHERE) writeShard(out, handover.indexedOn(), naming);
        } else if (transfer instanceof SessionTransfer.Ended ended) {
            out.tag(4).string(ended.clientId()).int64(ended.token());
        } else if (transfer instanceof SessionTransfer.Redirect redirect) {
            writeTransfer(out.tag(5), redirect.message(), naming, now);
        } else if (transfer instanceof SessionTransfer.KeepWill keep) {
            writeShard(out.tag(6).string(keep.clientId()), keep.shard(), naming);
            MessageCodec.write(out.int64(keep.token()), keep.will(), now);
            out.int64(keep.delaySeconds());
        } else if (transfer instanceof SessionTransfer.ForgetWill forget) {
            writeShard(out.tag(7).string(forget.clientId()), forget.shard(), naming);
            out.int64(forget.token());
        } else if (transfer instanceof SessionTransfer.Adopt adopt) {
            out.tag(8).string(adopt.clientId()).int64(adopt.from());
        } else {
            throw unknown(transfer);
        }
    }

    private static SessionTransfer readTransfer(MeshInput in, ShardNaming naming, long now) {
        int tag = in.tag();
        return switch (tag) {
            case 1 -> new SessionTransfer.Claim(in.string(), readShard(in, naming), in.int64(), in.int64());
            case 2 -> new SessionTransfer.Relinquish(in.string(), in.int64(), readSuccessor(in, naming));
            case 3 -> readHandover(in, naming, now);
            case 4 -> new SessionTransfer.Ended(in.string(), in.int64());
            case 5 -> {
                var inner = readTransfer(in, naming, now);
                if (inner instanceof SessionTransfer.Redirect) throw new MeshFormatException("a redirect of a redirect");
                yield new SessionTransfer.Redirect(inner);
            }
            case 6 -> new SessionTransfer.KeepWill(in.string(), readShard(in, naming), in.int64(), MessageCodec.read(in, now),
                    in.int64());
            case 7 -> new SessionTransfer.ForgetWill(in.string(), readShard(in, naming), in.int64());
            case 8 -> new SessionTransfer.Adopt(in.string(), in.int64());
            default -> throw new MeshFormatException("an unknown session transfer " + tag);
        };
    }

    private static SessionTransfer.Handover readHandover(MeshInput in, ShardNaming naming, long now) {
        var clientId = in.string();
        long token = in.int64();
        var session = in.bool() ? Optional.<MovingSession>of(SessionCodec.read(in, now)) : Optional.<MovingSession>empty();
        if (session.isPresent() && !session.get().clientId().equals(clientId)) {
            throw new MeshFormatException("the Handover of client id " + clientId + " carries the session of " + session.get().clientId());
        }
        int indexedOn = in.bool() ? readShard(in, naming) : SessionTransfer.NOWHERE;
        return new SessionTransfer.Handover(clientId, token, session, indexedOn);
    }

}
