package io.pekquitto.e2e.embedding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.V3Client;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.broker.Broker;
import io.pekquitto.shards.broker.BrokerCommand;
import io.pekquitto.shards.broker.EmbeddedClient;
import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.MessageProperties;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.eclipse.paho.mqttv5.common.packet.UserProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The broker embedded as a Pekko citizen (issue 11): spawned in an application's own actor system,
 * which has its own actors and no configuration for the broker, and in-process clients that publish to
 * and receive from socket clients (Paho 3.1.1 and 5) by the same routing, retained and shared
 * subscription rules. Every scenario runs with one shard and with two, in-process clients on both:
 * whichever shard a socket client lands on, one of them is across the mesh from it; and with two
 * shards and a store.
 */
class EmbeddedBrokerIT {

    @Nested
    class OneShard extends Scenarios {
        OneShard() {
            super(1);
        }
    }

    @Nested
    class TwoShards extends Scenarios {
        TwoShards() {
            super(2);
        }
    }

    /** With a store, a Published waits for the writes on every shard the message went to, as a PUBACK does. */
    @Nested
    class TwoShardsWithAStore extends Scenarios {
        TwoShardsWithAStore() throws IOException {
            super(2, "store { enabled = true, path = \"" + Files.createTempDirectory("pekquitto-embedded") + "\" }");
        }
    }

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @Timeout(60)
    abstract static class Scenarios {
        private static final Duration ARRIVAL = Duration.ofSeconds(5);

        private final int shards;
        private final String moreSettings;
        /** The application's actor system: its configuration knows nothing of pekquitto. */
        private ActorTestKit application;
        private ActorRef<BrokerCommand> broker;
        private int port;
        private final List<AutoCloseable> sockets = new ArrayList<>();

        Scenarios(int shards) {
            this(shards, "");
        }

        Scenarios(int shards, String moreSettings) {
            this.shards = shards;
            this.moreSettings = moreSettings;
        }

        @BeforeAll
        void startTheApplication() {
            application = ActorTestKit.create("home-automation");
            var settings = BrokerSettings.parse("shards = " + shards + "\nlisteners = [{host = \"127.0.0.1\", port = 0}]\n" + moreSettings);
            broker = application.spawn(Broker.create(settings), "pekquitto");
            var bound = application.<BrokerCommand.Bound>createTestProbe();
            broker.tell(new BrokerCommand.GetBoundAddresses(bound.getRef()));
            port = bound.receiveMessage().addresses().get(0).getPort();
        }

        @AfterAll
        void stopTheApplication() throws Exception {
            for (var socket : sockets) socket.close();
            application.shutdownTestKit();
        }

        private V5Client v5(String role) throws Exception {
            return track(V5Client.connect(port, Names.clientId(role), options -> {}));
        }

        private V3Client v3(String role) throws Exception {
            return track(V3Client.connect(port, Names.clientId(role), options -> {}));
        }

        /** Closed after the class's tests. */
        private <C extends AutoCloseable> C track(C client) {
            sockets.add(client);
            return client;
        }

        /** A client id whose home, and so whose in-process client, is {@code shard} (modulo the shards there are). */
        private String clientIdOn(int shard, String role) {
            while (true) {
                var clientId = Names.clientId(role);
                if (SessionDirectory.homeOf(clientId, shards) == shard % shards) return clientId;
            }
        }

        private ActorRef<InProcessClient.Command> connect(ConnectOptions options) {
            var reply = application.<InProcessClient.ConnectOutcome>createTestProbe();
            broker.tell(new BrokerCommand.ConnectClient(options, reply.getRef()));
            return reply.expectMessageClass(InProcessClient.Connected.class).client();
        }

        private void subscribe(ActorRef<InProcessClient.Command> client, String filter, QoS qos, TestProbe<ReceivedMessage> subscriber) {
            var answer = application.<InProcessClient.Subscribed>createTestProbe();
            client.tell(new InProcessClient.Subscribe(filter, qos, subscriber.getRef(), answer.getRef()));
            assertEquals(ReasonCode.granted(qos), answer.receiveMessage().reason());
        }

        private void publish(ActorRef<InProcessClient.Command> client, InProcessClient.Publish publish) {
            client.tell(publish);
        }

        /** The next message of {@code subscriber}, acknowledged. */
        private static ReceivedMessage next(TestProbe<ReceivedMessage> subscriber) {
            var message = subscriber.receiveMessage(ARRIVAL);
            message.acknowledge();
            return message;
        }

        /** The README's example: an application's guardian spawns the broker and its thermostat, side by side. */
        @Test
        void theThermostatHearsTheSocketSensorsAndTellsTheSocketClientsOfTheHeating() throws Exception {
            var settings = BrokerSettings.parse("shards = " + shards + "\nlisteners = [{host = \"127.0.0.1\", port = 0}]");
            var home = ActorSystem.create(Thermostat.application(settings), "home-automation");
            try {
                int homePort = AskPattern.<BrokerCommand, BrokerCommand.Bound>ask(home, BrokerCommand.GetBoundAddresses::new, ARRIVAL,
                        home.scheduler()).toCompletableFuture().get().addresses().get(0).getPort();
                var sensor = track(V3Client.connect(homePort, Names.clientId("sensor"), options -> {}));
                var heating = track(V5Client.connect(homePort, Names.clientId("heating"), options -> {}));
                heating.subscribe("heating/command", 2);
                // Retained: the thermostat gets the last reading when it subscribes, whenever that is.
                sensor.publish("sensors/kitchen/temperature", "18.5", 1, true);
                var on = heating.inbox().next();
                assertEquals("on", on.text());
                assertEquals(2, on.qos());
                assertEquals("text/plain", on.properties().getContentType());
                assertEquals(List.of(new UserProperty("because", "sensors/kitchen/temperature")), on.properties().getUserProperties());
                sensor.publish("sensors/kitchen/temperature", "22.0", 1, false);  // live, after the thermostat's SUBACK
                assertEquals("off", heating.inbox().next().text());
                var latecomer = track(V5Client.connect(homePort, Names.clientId("latecomer"), options -> {}));
                latecomer.subscribe("heating/command", 1);
                var retained = latecomer.inbox().next();
                assertTrue(retained.retained(), "the thermostat's retained command");
                assertEquals("off", retained.text());
                // Code that is not an actor reaches the broker through the system, which passes its commands on.
                var probe = EmbeddedClient.connect(home, home, ConnectOptions.clientId("probe"), ARRIVAL).toCompletableFuture().get();
                var reading = probe.publish("sensors/cellar/temperature", Binary.utf8("12.0"), QoS.AT_LEAST_ONCE, false,
                        MessageProperties.NONE);
                assertTrue(reading.toCompletableFuture().get().isSuccess());
                assertEquals("on", heating.inbox().next().text());
            } finally {
                home.terminate();
                home.getWhenTerminated().toCompletableFuture().get(ARRIVAL.toSeconds(), TimeUnit.SECONDS);
            }
        }

        @Test
        void inProcessPublishesAtEachQosReachSocketClientsWithTheirProperties() throws Exception {
            var v5 = v5("sub5");
            var v3 = v3("sub3");
            var topic = Names.topic("qos");
            v5.subscribe(topic + "/#", 2);
            v3.subscribe(topic + "/#", 2);
            for (int shard = 0; shard < 2; shard++) {
                var publisher = connect(ConnectOptions.clientId(clientIdOn(shard, "pub")));
                var properties = MessageProperties.NONE.withUtf8Payload().withContentType("application/json")
                        .withResponseTopic(topic + "/replies").withCorrelationData(Binary.utf8("request-" + shard))
                        .withMessageExpiryInterval(3_600).withUserProperty("shard", Integer.toString(shard));
                var published = application.<InProcessClient.Published>createTestProbe();
                for (var qos : QoS.values()) {
                    publish(publisher, new InProcessClient.Publish(topic + "/" + qos.value(), Binary.utf8("{\"shard\":" + shard + "}"),
                            qos, qos == QoS.EXACTLY_ONCE, properties, published.getRef()));
                    assertEquals(ReasonCode.SUCCESS, published.receiveMessage().reason(), "routed (" + qos + ")");
                }
                for (var qos : QoS.values()) {
                    var message = v5.inbox().next();
                    assertEquals(topic + "/" + qos.value(), message.topic());
                    assertEquals(qos.value(), message.qos());
                    assertEquals("{\"shard\":" + shard + "}", message.text());
                    assertFalse(message.retained(), "a live message, without Retain As Published");
                    assertProperties(message.properties(), topic, shard);
                    var v3Message = v3.inbox().next();
                    assertEquals(qos.value(), v3Message.qos());
                    assertEquals(message.text(), v3Message.text());
                }
                publisher.tell(InProcessClient.Disconnect.NORMAL);
            }
            var latecomer = v5("latecomer");
            latecomer.subscribe(topic + "/2", 2);
            var retained = latecomer.inbox().next();
            assertTrue(retained.retained());
            assertEquals("{\"shard\":1}", retained.text(), "the last retained message");
        }

        private static void assertProperties(MqttProperties properties, String topic, int shard) {
            assertEquals(Boolean.TRUE, properties.getPayloadFormat(), "Payload Format Indicator 1");
            assertEquals("application/json", properties.getContentType());
            assertEquals(topic + "/replies", properties.getResponseTopic());
            assertArrayEquals(("request-" + shard).getBytes(StandardCharsets.UTF_8), properties.getCorrelationData());
            long expiry = properties.getMessageExpiryInterval();
            assertTrue(expiry > 3_590 && expiry <= 3_600, "what is left of the Message Expiry Interval: " + expiry);
            assertEquals(List.of(new UserProperty("shard", Integer.toString(shard))), properties.getUserProperties());
        }

        @Test
        void inProcessSubscribersReceiveWhatSocketClientsPublishWithTheirProperties() throws Exception {
            var topic = Names.topic("readings");
            var subscribers = new ArrayList<TestProbe<ReceivedMessage>>();
            for (int shard = 0; shard < 2; shard++) {
                var client = connect(ConnectOptions.clientId(clientIdOn(shard, "sub")));
                TestProbe<ReceivedMessage> subscriber = application.createTestProbe();
                subscribe(client, topic + "/+", QoS.EXACTLY_ONCE, subscriber);
                subscribers.add(subscriber);
            }
            var publisher = v5("pub");
            var message = new MqttMessage("21.5".getBytes(StandardCharsets.UTF_8));
            message.setQos(2);
            var properties = new MqttProperties();
            properties.setContentType("text/plain");
            properties.setUserProperties(List.of(new UserProperty("unit", "celsius")));
            message.setProperties(properties);
            publisher.publish(topic + "/kitchen", message);
            for (var subscriber : subscribers) {
                var received = next(subscriber);
                assertEquals(topic + "/kitchen", received.topic());
                assertEquals("21.5", received.payload().asUtf8());
                assertEquals(QoS.EXACTLY_ONCE, received.qos());
                assertEquals("text/plain", received.properties().contentType().orElseThrow());
                assertEquals("celsius", received.properties().userProperties().get(0).value());
            }
        }

        @Test
        void anInProcessSubscriberGetsTheRetainedMessagesWhenItSubscribes() throws Exception {  // [MQTT-3.3.1-9]
            var topic = Names.topic("retained");
            // Published by an in-process client: its Published comes once every shard holds the retained
            // copy. (Without a store, a socket client's PUBACK does not wait for the other shard's copy, and
            // a subscriber there could get the message live, without RETAIN, just after subscribing.)
            var publisher = connect(ConnectOptions.clientId(clientIdOn(1, "pub")));
            var published = application.<InProcessClient.Published>createTestProbe();
            publish(publisher, new InProcessClient.Publish(topic + "/hall", Binary.utf8("off"), QoS.AT_LEAST_ONCE, true,
                    MessageProperties.NONE, published.getRef()));
            assertTrue(published.receiveMessage().isSuccess());
            for (int shard = 0; shard < 2; shard++) {
                var client = connect(ConnectOptions.clientId(clientIdOn(shard, "sub")));
                TestProbe<ReceivedMessage> subscriber = application.createTestProbe();
                subscribe(client, topic + "/#", QoS.AT_LEAST_ONCE, subscriber);
                var retained = next(subscriber);
                assertTrue(retained.retain());
                assertEquals("off", retained.payload().asUtf8());
            }
            var socket = v3("sub");
            socket.subscribe(topic + "/#", 1);
            assertTrue(socket.inbox().next().retained(), "and to socket clients");
        }

        @Test
        void aSharedSubscriptionSpreadsMessagesOverAnInProcessAndASocketMember() throws Exception {  // 4.8.2
            var topic = Names.topic("jobs");
            var group = "$share/workers/" + topic;
            var member = connect(ConnectOptions.clientId(clientIdOn(1, "member")));
            var inProcessJobs = new LinkedBlockingQueue<String>();
            var collector = application.spawn(Behaviors.receiveMessage((ReceivedMessage job) -> {
                inProcessJobs.add(job.payload().asUtf8());
                job.acknowledge();
                return Behaviors.same();
            }));
            var answer = application.<InProcessClient.Subscribed>createTestProbe();
            member.tell(new InProcessClient.Subscribe(group, QoS.AT_LEAST_ONCE, collector, answer.getRef()));
            assertTrue(answer.receiveMessage().isSuccess());
            var socket = v5("member");
            socket.subscribe(group, 1);
            var publisher = v3("pub");
            int count = 20;
            for (int i = 0; i < count; i++) publisher.publish(topic, "job-" + i, 1, false);
            var socketJobs = new ArrayList<String>();
            Eventually.await(ARRIVAL, () -> count + " jobs across the members: " + socketJobs + " " + inProcessJobs, () -> {
                if (socketJobs.size() + inProcessJobs.size() < count) {
                    socket.inbox().within(Duration.ofMillis(20)).forEach(job -> socketJobs.add(job.text()));
                }
                return socketJobs.size() + inProcessJobs.size() >= count;
            });
            socket.inbox().expectNothing();  // and no job a second time
            var all = new HashSet<>(socketJobs);
            all.addAll(inProcessJobs);
            assertEquals(count, socketJobs.size() + inProcessJobs.size(), "each job to one member: " + socketJobs + " " + inProcessJobs);
            assertEquals(count, all.size(), "every job, none twice");
            assertFalse(socketJobs.isEmpty() || inProcessJobs.isEmpty(), "both members take jobs");
        }

        @Test
        void aPersistentSessionKeepsItsMessagesUntilTheNextClientActorSubscribesAgain() throws Exception {
            var topic = Names.topic("offline");
            var options = ConnectOptions.clientId(clientIdOn(0, "durable")).resumingSession().withSessionExpiryInterval(3_600);
            var first = connect(options);
            subscribe(first, topic, QoS.AT_LEAST_ONCE, application.createTestProbe());
            first.tell(InProcessClient.Disconnect.NORMAL);
            application.createTestProbe().expectTerminated(first, ARRIVAL);
            var publisher = v5("pub");
            for (int i = 0; i < 3; i++) publisher.publish(topic, ("while away " + i).getBytes(StandardCharsets.UTF_8), 1, false);
            var reply = application.<InProcessClient.ConnectOutcome>createTestProbe();
            broker.tell(new BrokerCommand.ConnectClient(options, reply.getRef()));
            var second = reply.expectMessageClass(InProcessClient.Connected.class);
            assertTrue(second.sessionPresent());
            // Its subscriber was the first actor's: the messages wait in the session until one subscribes.
            TestProbe<ReceivedMessage> subscriber = application.createTestProbe();
            subscribe(second.client(), topic, QoS.AT_LEAST_ONCE, subscriber);
            for (int i = 0; i < 3; i++) assertEquals("while away " + i, next(subscriber).payload().asUtf8());
        }

        @Test
        void aSocketClientWithTheSameClientIdTakesTheSessionOverAndTheWillIsPublished() throws Exception {  // [MQTT-3.1.4-2]
            var clientId = clientIdOn(1, "twin");
            var watcher = v5("watcher");
            var willTopic = Names.topic("will");
            watcher.subscribe(willTopic, 1);
            var will = new ConnectOptions.Will(willTopic, Binary.utf8("in-process client gone"), QoS.AT_LEAST_ONCE, false);
            var inProcess = connect(ConnectOptions.clientId(clientId).withWill(will));
            var death = application.createTestProbe();
            var takeover = track(V5Client.connect(port, clientId, options -> {}));
            death.expectTerminated(inProcess, ARRIVAL);
            assertEquals("in-process client gone", watcher.inbox().next().text());
            assertTrue(takeover.isConnected());
        }
    }
}
