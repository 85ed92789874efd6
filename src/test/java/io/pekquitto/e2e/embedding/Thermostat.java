package io.pekquitto.e2e.embedding;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.broker.Broker;
import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.MessageProperties;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.settings.BrokerSettings;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * An application's own actor beside an embedded broker (README, "Embedding pekquitto"): it reads the
 * temperatures MQTT sensors publish and publishes, retained, whether the heating should be on.
 */
final class Thermostat extends AbstractBehavior<Thermostat.Command> {
    sealed interface Command {}

    private record WrappedConnectOutcome(InProcessClient.ConnectOutcome outcome) implements Command {}

    private record WrappedReading(ReceivedMessage reading) implements Command {}

    private final ActorRef<ReceivedMessage> readings;
    private ActorRef<InProcessClient.Command> client;

    /**
     * The application's guardian: the broker and the thermostat, side by side in one actor system. It
     * passes what the system is told on to the broker, so code outside actors reaches it too.
     */
    static Behavior<BrokerCommand> application(BrokerSettings settings) {
        return Behaviors.setup(context -> {
            var broker = context.spawn(Broker.create(settings), "pekquitto");
            context.spawn(Thermostat.create(broker), "thermostat");
            return Behaviors.receiveMessage(command -> {
                broker.tell(command);
                return Behaviors.same();
            });
        });
    }

    static Behavior<Command> create(ActorRef<BrokerCommand> broker) {
        return Behaviors.setup(context -> new Thermostat(context, broker));
    }

    private Thermostat(ActorContext<Command> context, ActorRef<BrokerCommand> broker) {
        super(context);
        this.readings = context.messageAdapter(ReceivedMessage.class, WrappedReading::new);
        var connected = context.messageAdapter(InProcessClient.ConnectOutcome.class, WrappedConnectOutcome::new);
        broker.tell(new BrokerCommand.ConnectClient(ConnectOptions.clientId("thermostat"), connected));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(WrappedConnectOutcome.class, this::onConnectOutcome)
                .onMessage(WrappedReading.class, this::onReading)
                .onSignal(PostStop.class, stopped -> {
                    if (client != null) client.tell(InProcessClient.Disconnect.NORMAL);  // the client is the broker's child, not ours
                    return this;
                })
                .build();
    }

    private Behavior<Command> onConnectOutcome(WrappedConnectOutcome wrapped) {
        if (!(wrapped.outcome() instanceof InProcessClient.Connected connected)) return Behaviors.stopped();
        client = connected.client();
        client.tell(new InProcessClient.Subscribe("sensors/+/temperature", QoS.AT_LEAST_ONCE, readings));
        return this;
    }

    private Behavior<Command> onReading(WrappedReading wrapped) {
        var reading = wrapped.reading();
        double celsius = Double.parseDouble(reading.payload().asUtf8());
        var command = new InProcessClient.Publish("heating/command", Binary.utf8(celsius < 19.0 ? "on" : "off"),
                QoS.EXACTLY_ONCE, true, MessageProperties.NONE.withContentType("text/plain").withUserProperty("because", reading.topic()));
        client.tell(command);
        reading.acknowledge();  // the next reading may come
        return this;
    }
}
