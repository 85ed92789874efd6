package io.pekquitto.shards.connection;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.util.ByteString;

/**
 * The whole per-connection stream graph besides Pekko's TCP stage: one stage that hands socket bytes to
 * the {@link Connection} actor and writes what the actor sends back. It is the actor's
 * {@link Transport}. Reading is pulled by the actor ({@link Transport#readMore()}), so an actor that
 * cannot keep up stops the socket being read. Writes that arrive while the socket is busy are
 * concatenated (a rope, no copy) and go out in one push when TCP asks for more.
 */
public final class ConnectionStage extends GraphStage<FlowShape<ByteString, ByteString>> {
    private final Inlet<ByteString> in = Inlet.create("Connection.in");
    private final Outlet<ByteString> out = Outlet.create("Connection.out");
    private final FlowShape<ByteString, ByteString> shape = FlowShape.of(in, out);
    private final ActorRef<Connection.Command> connection;

    private enum Signal { READ_MORE, CLOSE }

    public ConnectionStage(ActorRef<Connection.Command> connection) {
        this.connection = connection;
    }

    @Override
    public FlowShape<ByteString, ByteString> shape() {
        return shape;
    }

    @Override
    public GraphStageLogic createLogic(Attributes inheritedAttributes) {
        return new Logic();
    }

    private final class Logic extends GraphStageLogic implements Transport {
        private final AtomicLong buffered = new AtomicLong();
        private ByteString pending = ByteString.emptyByteString();
        private boolean closeRequested;
        private AsyncCallback<Object> commands;

        Logic() {
            super(shape);
            setHandler(in, new AbstractInHandler() {
                @Override
                public void onPush() {
                    connection.tell(new Connection.BytesReceived(grab(in)));
                }

                @Override
                public void onUpstreamFinish() {
                    connection.tell(new Connection.TransportClosed("closed by the client"));
                    completeStage();
                }

                @Override
                public void onUpstreamFailure(Throwable cause) {
                    connection.tell(new Connection.TransportClosed(String.valueOf(cause.getMessage())));
                    failStage(cause);
                }
            });
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {
                    flush();
                }

                @Override
                public void onDownstreamFinish(Throwable cause) {
                    connection.tell(new Connection.TransportClosed("socket closed"));
                    completeStage();
                }
            });
        }

        @Override
        public void preStart() {
            commands = createAsyncCallback(this::onCommand);
            connection.tell(new Connection.TransportReady(this));
        }

        private void onCommand(Object command) {
            if (command instanceof ByteString bytes) {
                pending = pending.concat(bytes);
                flush();
            } else if (command == Signal.READ_MORE) {
                if (!isClosed(in) && !hasBeenPulled(in)) pull(in);
            } else if (command == Signal.CLOSE) {
                closeRequested = true;
                flush();
            }
        }

        private void flush() {
            if (!pending.isEmpty() && isAvailable(out)) {
                var bytes = pending;
                pending = ByteString.emptyByteString();
                buffered.set(0);
                push(out, bytes);
            }
            if (closeRequested && pending.isEmpty()) completeStage();
        }

        // Transport: called from the Connection actor, which runs on the same shard thread; the async
        // callback hands each call to this stage's own turn.

        @Override
        public void write(ByteString bytes) {
            buffered.addAndGet(bytes.size());
            commands.invoke(bytes);
        }

        @Override
        public void readMore() {
            commands.invoke(Signal.READ_MORE);
        }

        @Override
        public void close() {
            commands.invoke(Signal.CLOSE);
        }

        @Override
        public long bufferedBytes() {
            return buffered.get();
        }
    }
}
