package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.auth.Authentication;
import io.pekquitto.auth.Authenticator;
import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.Security;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Will;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.settings.BrokerSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The handshake asks the {@link Authenticator} about every CONNECT and the {@link Authorizer} about its
 * will, and refuses with the reason code CONNACK has for each ([MQTT-3.2.2-6], 3.2.2.2): the shard is
 * never asked for a session of a refused client.
 */
class ConnectionAuthenticationTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final BrokerSettings SETTINGS = BrokerSettings.defaults();

    /** alice's password is "secret"; anonymous clients are refused. */
    private static final Authenticator ALICE_ONLY = credentials -> {
        if (credentials.username().isEmpty()) return Authentication.refused(Authentication.Refusal.NOT_AUTHORIZED, "anonymous");
        boolean right = credentials.username().get().equals("alice")
                && credentials.password().map(p -> Arrays.equals(p, "secret".getBytes())).orElse(false);
        return right ? Authentication.allowed(credentials.username())
                : Authentication.refused(Authentication.Refusal.BAD_USERNAME_OR_PASSWORD, "wrong");
    };

    /** Wills may go to "wills/USERNAME" only. */
    private static final Authorizer OWN_WILLS = new Authorizer() {
        @Override
        public boolean canPublish(ClientIdentity client, String topic) {
            return topic.equals("wills/" + client.username().orElse("?"));
        }

        @Override
        public boolean canSubscribe(ClientIdentity client, String filter) {
            return true;
        }
    };

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private record Attempt(TestProbe<ShardRequest> shard, FakeTransport transport) {}

    private static Attempt connect(ProtocolVersion version, Optional<String> username, Optional<String> password,
                                   Optional<Will> will) {
        return connect(new Security(ALICE_ONLY, OWN_WILLS), new FakeTransport(), version, username, password, will);
    }

    private static Attempt connect(Security security, FakeTransport transport, ProtocolVersion version,
                                   Optional<String> username, Optional<String> password, Optional<Will> will) {
        var shard = testKit.<ShardRequest>createTestProbe();
        var environment = ShardEnvironment.of(SETTINGS, security, System::nanoTime);
        var connection = TestConnections.accepted(testKit, environment, shard.getRef(), TestConnections.ANY_LISTENER, transport);
        var connect = new Connect(version, "c", true, 60, will, username, password.map(Binary::utf8), Properties.NONE);
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(connect, version))));
        return new Attempt(shard, transport);
    }

    private static ReasonCode refusal(Attempt attempt, ProtocolVersion version) {
        var connAck = attempt.transport().refusal(testKit, version);
        attempt.shard().expectNoMessage(Duration.ofMillis(20));
        assertEquals(false, connAck.sessionPresent(), "[MQTT-3.2.2-6]");
        return connAck.reason();
    }

    @Test
    void theRightPasswordAttachesTheSession() {
        var attempt = connect(ProtocolVersion.MQTT_5, Optional.of("alice"), Optional.of("secret"), Optional.empty());
        assertEquals("c", attempt.shard().expectMessageClass(ShardRequest.Attach.class).clientId());
    }

    @Test
    void aWrongPasswordIsBadUserNameOrPassword() {  // 3.2.2.2: 0x86; 3.1.1 return code 4
        assertEquals(ReasonCode.BAD_USER_NAME_OR_PASSWORD,
                refusal(connect(ProtocolVersion.MQTT_5, Optional.of("alice"), Optional.of("wrong"), Optional.empty()), ProtocolVersion.MQTT_5));
        assertEquals(ReasonCode.BAD_USER_NAME_OR_PASSWORD,
                refusal(connect(ProtocolVersion.MQTT_3_1_1, Optional.of("bob"), Optional.of("x"), Optional.empty()), ProtocolVersion.MQTT_3_1_1));
    }

    @Test
    void anAnonymousClientTheAuthenticatorRefusesIsNotAuthorized() {  // 0x87; 3.1.1 return code 5
        assertEquals(ReasonCode.NOT_AUTHORIZED,
                refusal(connect(ProtocolVersion.MQTT_5, Optional.empty(), Optional.empty(), Optional.empty()), ProtocolVersion.MQTT_5));
        assertEquals(ReasonCode.NOT_AUTHORIZED,
                refusal(connect(ProtocolVersion.MQTT_3_1_1, Optional.empty(), Optional.empty(), Optional.empty()), ProtocolVersion.MQTT_3_1_1));
    }

    @Test
    void aWillOnATopicTheClientMayNotWriteRefusesTheConnect() {  // wills are judged like publishes
        var will = new Will("wills/bob", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false, Properties.NONE);
        assertEquals(ReasonCode.NOT_AUTHORIZED,
                refusal(connect(ProtocolVersion.MQTT_5, Optional.of("alice"), Optional.of("secret"), Optional.of(will)), ProtocolVersion.MQTT_5));
        var own = new Will("wills/alice", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false, Properties.NONE);
        connect(ProtocolVersion.MQTT_5, Optional.of("alice"), Optional.of("secret"), Optional.of(own)).shard()
                .expectMessageClass(ShardRequest.Attach.class);
    }

    @Test
    void theAuthenticatorAndTheAclsSeeTheAddressTheTransportTells() {
        // A PROXY header's, on a listener that reads one: the client's, not the balancer's.
        var proxied = new InetSocketAddress("192.0.2.7", 51234);
        var transport = new FakeTransport();
        transport.remote = proxied;
        var seen = new ArrayList<InetSocketAddress>();
        Authenticator recording = credentials -> {
            seen.add(credentials.address());
            return Authentication.allowed(credentials.username());
        };
        var fromItsOwnAddress = new Authorizer() {
            @Override
            public boolean canPublish(ClientIdentity client, String topic) {
                return topic.equals("from/" + client.address().getAddress().getHostAddress());
            }

            @Override
            public boolean canSubscribe(ClientIdentity client, String filter) {
                return true;
            }
        };
        var will = new Will("from/192.0.2.7", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false, Properties.NONE);
        connect(new Security(recording, fromItsOwnAddress), transport, ProtocolVersion.MQTT_5, Optional.empty(),
                Optional.empty(), Optional.of(will)).shard().expectMessageClass(ShardRequest.Attach.class);
        assertEquals(List.of(proxied), seen);
    }
}
