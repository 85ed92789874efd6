package io.pekquitto.shards.broker;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.MessageProperties;
import io.pekquitto.shards.client.ReceivedMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * An {@link InProcessClient} for code that is not an actor: each call asks the client actor and returns
 * a {@link CompletionStage} of its answer, failed with a {@code TimeoutException} past the timeout given
 * at connect. A subscription may take a plain {@link Consumer}, called one message at a time on an actor
 * of the broker's system and acknowledged when it returns.
 *
 * <pre>{@code
 * EmbeddedClient.connect(system, broker, ConnectOptions.clientId("reporter"), Duration.ofSeconds(5))
 *     .thenCompose(client -> client.publish("reports/daily", Binary.utf8("done"), QoS.AT_LEAST_ONCE, false, MessageProperties.NONE));
 * }</pre>
 */
public final class EmbeddedClient {
    private static final AtomicLong SUBSCRIBERS = new AtomicLong();

    /** A connect the broker refused, with what a CONNACK would have said. */
    public static final class RefusedException extends RuntimeException {
        private final ReasonCode reason;

        RefusedException(ReasonCode reason, String why) {
            super("connect refused: " + reason + ": " + why);
            this.reason = reason;
        }

        public ReasonCode reason() {
            return reason;
        }
    }

    private final ActorSystem<?> system;
    private final InProcessClient.Connected connected;
    private final Duration timeout;

    private EmbeddedClient(ActorSystem<?> system, InProcessClient.Connected connected, Duration timeout) {
        this.system = system;
        this.connected = connected;
        this.timeout = timeout;
    }

    /** Connects a client through {@code broker}, spawned in {@code system}; a refusal fails the stage with {@link RefusedException}. */
    public static CompletionStage<EmbeddedClient> connect(ActorSystem<?> system, ActorRef<BrokerCommand> broker,
                                                          ConnectOptions options, Duration timeout) {
        return AskPattern.<BrokerCommand, InProcessClient.ConnectOutcome>ask(broker,
                replyTo -> new BrokerCommand.ConnectClient(options, replyTo), timeout, system.scheduler()).thenApply(outcome -> {
                    if (outcome instanceof InProcessClient.Refused refused) throw new RefusedException(refused.reason(), refused.why());
                    return new EmbeddedClient(system, (InProcessClient.Connected) outcome, timeout);
                });
    }

    /** The client actor, for what this class does not offer. */
    public ActorRef<InProcessClient.Command> actor() {
        return connected.client();
    }

    public String clientId() {
        return connected.clientId();
    }

    public boolean sessionPresent() {
        return connected.sessionPresent();
    }

    /** Completes once the message is routed (and written, with a store), or refused: see {@link InProcessClient.Published#isSuccess()}. */
    public CompletionStage<InProcessClient.Published> publish(String topic, Binary payload, QoS qos, boolean retain,
                                                               MessageProperties properties) {
        return AskPattern.ask(actor(), replyTo -> new InProcessClient.Publish(topic, payload, qos, retain, properties,
                Optional.of(replyTo)), timeout, system.scheduler());
    }

    /** Subscribes an actor, which must acknowledge each {@link ReceivedMessage}. */
    public CompletionStage<InProcessClient.Subscribed> subscribe(String topicFilter, SubscriptionOptions options,
                                                                  ActorRef<ReceivedMessage> subscriber) {
        return AskPattern.ask(actor(), replyTo -> new InProcessClient.Subscribe(topicFilter, options, subscriber,
                Optional.of(replyTo)), timeout, system.scheduler());
    }

    /**
     * Subscribes {@code handler}: called for each message, one at a time, which is acknowledged when it
     * returns. Its actor stops with the client; a handler that throws stops it too, and the subscription
     * with it.
     */
    public CompletionStage<InProcessClient.Subscribed> subscribe(String topicFilter, QoS qos, Consumer<ReceivedMessage> handler) {
        var subscriber = system.systemActorOf(handling(actor(), handler), "in-process-subscriber-" + SUBSCRIBERS.incrementAndGet(),
                Props.empty());
        return subscribe(topicFilter, SubscriptionOptions.of(qos), subscriber);
    }

    public CompletionStage<InProcessClient.Unsubscribed> unsubscribe(String topicFilter) {
        return AskPattern.ask(actor(), replyTo -> new InProcessClient.Unsubscribe(topicFilter, replyTo), timeout, system.scheduler());
    }

    /** Ends the client (its will is not published); it stops once its publishes are answered. */
    public void disconnect() {
        actor().tell(InProcessClient.Disconnect.NORMAL);
    }

    private static Behavior<ReceivedMessage> handling(ActorRef<InProcessClient.Command> client, Consumer<ReceivedMessage> handler) {
        return Behaviors.setup(context -> {
            context.watch(client);
            return Behaviors.receive(ReceivedMessage.class)
                    .onMessage(ReceivedMessage.class, message -> handle(message, handler))
                    .onSignal(Terminated.class, stopped -> Behaviors.stopped())
                    .build();
        });
    }

    private static Behavior<ReceivedMessage> handle(ReceivedMessage message, Consumer<ReceivedMessage> handler) {
        handler.accept(message);
        message.acknowledge();
        return Behaviors.same();
    }
}
