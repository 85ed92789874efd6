package io.pekquitto.shards.websocket;

import java.util.ArrayDeque;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.pekko.http.javadsl.model.ws.BinaryMessage;
import org.apache.pekko.http.javadsl.model.ws.Message;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.AbstractInHandler;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.util.ByteString;

/**
 * The one stage between Pekko HTTP's WebSocket messages and a connection's {@link WebSocketStream}: it
 * hands the client's bytes to the transport one chunk per read, and the transport's writes to the client,
 * a binary message each. One stage instead of queues and operators, and one instance for every connection:
 * Pekko HTTP keeps the handler it was given for as long as the connection lives, so a handler made of
 * operators per connection kept their blueprint per connection (measured: 6 of an idle connection's 51 KiB
 * of heap, with the operators' own state). All its state is the logic's, on the stream's thread.
 */
final class WebSocketStage extends AbstractGraphStageWithMaterializedValue<FlowShape<Message, Message>, WebSocketStream> {
    static final WebSocketStage INSTANCE = new WebSocketStage();

    private final Inlet<Message> in = Inlet.create("WebSocketStage.in");
    private final Outlet<Message> out = Outlet.create("WebSocketStage.out");
    private final FlowShape<Message, Message> shape = FlowShape.of(in, out);

    private WebSocketStage() {}

    @Override
    public FlowShape<Message, Message> shape() {
        return shape;
    }

    @Override
    public Pair<GraphStageLogic, WebSocketStream> createLogicAndMaterializedValuePair(Attributes attributes) {
        var logic = new Logic();
        return Pair.create(logic, logic.stream);
    }

    private final class Logic extends GraphStageLogic {
        final WebSocketStream stream;
        /** The transport's read, waiting for the client's next chunk. */
        private BiConsumer<Optional<ByteString>, Throwable> reader;
        /** A message the client sends in parts (fragments, or a frame not yet whole): read a part at a time. */
        private SubSinkInlet<ByteString> parts;
        private final ArrayDeque<ByteString> writes = new ArrayDeque<>();
        private boolean completing;
        private Throwable failure;

        Logic() {
            super(shape);
            AsyncCallback<BiConsumer<Optional<ByteString>, Throwable>> readCalls = createAsyncCallback(this::read);
            // Writes and closes through one callback: the stage takes them in the order they were made, also
            // those made before it started (two callbacks each keep their own early calls: a close could come first).
            AsyncCallback<Object> outgoing = createAsyncCallback(event -> {
                if (event instanceof ByteString bytes) write(bytes);
                else if (Boolean.TRUE.equals(event)) completeStage();
                else completeAfterWrites();
            });
            stream = new WebSocketStream(readCalls::invoke, outgoing::invoke, outgoing::invoke);
            setHandler(in, new AbstractInHandler() {
                @Override
                public void onPush() {
                    received(grab(in));
                }

                @Override
                public void onUpstreamFinish() {
                    if (parts == null) clientClosed();
                }

                @Override
                public void onUpstreamFailure(Throwable cause) {
                    fail(cause);
                }
            });
            setHandler(out, new AbstractOutHandler() {
                @Override
                public void onPull() {
                    if (!writes.isEmpty()) push(writes.poll());
                    else if (completing) completeStage();
                }

                @Override
                public void onDownstreamFinish(Throwable cause) {
                    completeStage();  // the socket is gone: both sides end
                }
            });
        }

        private void read(BiConsumer<Optional<ByteString>, Throwable> reader) {
            this.reader = reader;
            if (parts != null) {
                if (!parts.hasBeenPulled()) parts.pull();
            } else if (isClosed(in)) {
                deliver(Optional.empty());
            } else if (!hasBeenPulled(in)) {
                pull(in);
            }
        }

        private void received(Message message) {
            if (message.isText()) {  // a protocol error [MQTT-6.0.0-1]: the connection ends here
                stream.textSeen();
                completeStage();
                return;
            }
            var binary = message.asBinaryMessage();
            if (binary.isStrict()) {
                deliver(Optional.of(binary.getStrictData()));
                return;
            }
            parts = new SubSinkInlet<>("WebSocketStage.parts");
            parts.setHandler(new AbstractInHandler() {
                @Override
                public void onPush() {
                    deliver(Optional.of(parts.grab()));
                }

                @Override
                public void onUpstreamFinish() {
                    parts = null;
                    if (isClosed(in)) clientClosed();
                    else if (reader != null) pull(in);
                }

                @Override
                public void onUpstreamFailure(Throwable cause) {
                    fail(cause);
                }
            });
            binary.getStreamedData().runWith(parts.sink(), subFusingMaterializer());
            parts.pull();
        }

        private void deliver(Optional<ByteString> chunk) {
            var waiting = reader;
            reader = null;
            waiting.accept(chunk, null);
        }

        private void clientClosed() {
            if (reader != null) deliver(Optional.empty());
            completeStage();
        }

        private void write(ByteString bytes) {
            if (completing) return;
            if (isAvailable(out) && writes.isEmpty()) push(bytes);
            else writes.add(bytes);
        }

        private void push(ByteString bytes) {
            push(out, BinaryMessage.create(bytes));
            stream.taken(bytes);
        }

        /** The client gets what was written, then a close frame; both sides end, as when the client closes. */
        private void completeAfterWrites() {
            completing = true;
            if (writes.isEmpty()) completeStage();
        }

        private void fail(Throwable cause) {
            failure = cause;
            failStage(cause);
        }

        @Override
        public void postStop() {
            stream.ended(failure);
        }
    }
}
