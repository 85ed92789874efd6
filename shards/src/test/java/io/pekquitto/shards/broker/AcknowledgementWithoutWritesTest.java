package io.pekquitto.shards.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.MessageProperties;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.store.InterceptedStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a store, a PUBACK waits for what its message wrote, and only for that: a clean publisher's message
 * that no persistent session takes writes nothing, and is acknowledged while the store's writer is still
 * busy with another client's write (docs/sessions-and-store.md, Acknowledgements after the write).
 */
class AcknowledgementWithoutWritesTest {
    private final ActorTestKit testKit = ActorTestKit.create();
    private final AtomicBoolean holdWrites = new AtomicBoolean();
    private final CountDownLatch writing = new CountDownLatch(1);
    private final CountDownLatch diskDone = new CountDownLatch(1);
    private ActorRef<BrokerCommand> broker;

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        diskDone.countDown();
        testKit.shutdownTestKit();
    }

    /** One shard, durability fsync: its writer thread writes, and a write held here holds only the writer. */
    private void start() {
        var settings = BrokerSettings.parse("shards = 1\nlisteners = [{host = \"127.0.0.1\", port = 0}]\n"
                + "store { enabled = true, durability = fsync, path = \"" + dir.resolve("store") + "\" }");
        broker = testKit.spawn(Broker.create(settings, settings.auth().readSecurity(), UnaryOperator.identity(),
                LatencyObserver.NONE, store -> new InterceptedStore(store, batch -> {
                    if (!holdWrites.get()) return;
                    writing.countDown();
                    try {
                        diskDone.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })), "pekquitto");
    }

    private ActorRef<InProcessClient.Command> connect(ConnectOptions options) {
        var reply = testKit.<InProcessClient.ConnectOutcome>createTestProbe();
        broker.tell(new BrokerCommand.ConnectClient(options, reply.getRef()));
        return reply.expectMessageClass(InProcessClient.Connected.class).client();
    }

    private TestProbe<InProcessClient.Published> publish(ActorRef<InProcessClient.Command> client, String topic) {
        var answer = testKit.<InProcessClient.Published>createTestProbe();
        client.tell(new InProcessClient.Publish(topic, Binary.utf8("m"), QoS.AT_LEAST_ONCE, false, MessageProperties.NONE,
                Optional.of(answer.getRef())));
        return answer;
    }

    @Test
    void aMessageThatWritesNothingIsAcknowledgedWhileAnotherWriteIsOnTheDisk() throws Exception {
        start();
        var keeper = connect(ConnectOptions.clientId("keeper").withSessionExpiryInterval(3600));
        var publisher = connect(ConnectOptions.clientId("clean"));
        holdWrites.set(true);
        TestProbe<ReceivedMessage> inbox = testKit.createTestProbe();
        keeper.tell(new InProcessClient.Subscribe("kept/#", QoS.AT_LEAST_ONCE, inbox.getRef()));  // its session's write
        assertTrue(writing.await(10, TimeUnit.SECONDS), "the writer holds the persistent session's write");

        assertTrue(publish(publisher, "nobody/listens").receiveMessage(Duration.ofSeconds(5)).isSuccess(),
                "nothing to wait for: acknowledged while the disk still holds the other write");
        var kept = publish(publisher, "kept/one");
        kept.expectNoMessage(Duration.ofMillis(300));  // journaled for the persistent session: it waits for its write
        diskDone.countDown();
        assertTrue(kept.receiveMessage(Duration.ofSeconds(10)).isSuccess());
    }
}
