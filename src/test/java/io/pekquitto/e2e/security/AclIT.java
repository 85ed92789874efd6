package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An ACL file as Mosquitto reads it, with real clients: a publish the ACL does not grant gets 0x87 and
 * reaches nobody; a subscription is granted only if every topic it can match is readable; {@code %c}
 * and {@code %u} patterns never match by a wildcard hidden in a client id (CVE-2017-7650).
 */
class AclIT {
    private static final SecurityFiles files = SecurityFiles.create("acl");
    private static final String PASSWORDS =
            SecurityFiles.quoted(files.passwords("alice", "a-secret", "bob", "b-secret", "monitor", "m-secret"));
    private static final String ACL = SecurityFiles.quoted(files.write("acl",
            "# anonymous clients",
            "topic read public/#",
            "",
            "user alice",
            "topic readwrite home/alice/#",
            "topic read home/+/status",
            "topic readwrite vault/#",
            "topic deny vault/secret",
            "",
            "user bob",
            "topic write home/bob/#",
            "",
            "user monitor",
            "topic read #",
            "",
            "pattern readwrite devices/%c/#",
            "pattern read inbox/%u/#"));

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("""
            auth.password-file = %s
            auth.allow-anonymous = true
            auth.acl-file = %s
            """.formatted(PASSWORDS, ACL));

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    private static Hive5 user(String name) {
        return Hive5.connect(broker.port(), Names.clientId(name), Optional.of(name), Optional.of(name.charAt(0) + "-secret"));
    }

    private static Hive5 anonymous(String clientId) {
        return Hive5.connect(broker.port(), clientId, Optional.empty(), Optional.empty());
    }

    @Test
    @DisplayName("a granted publish is delivered; one the ACL does not grant gets 0x87 at QoS 1 and 2 and reaches nobody")
    void publishIsCheckedAgainstTheTopic() throws Exception {
        try (var monitor = user("monitor"); var alice = user("alice"); var bob = user("bob")) {
            assertEquals(1, monitor.subscribe("#"));
            assertEquals(0, alice.publish("home/alice/lamp", 1, "on"));
            assertEquals("home/alice/lamp", monitor.next().getTopic().toString());
            assertEquals(0x87, alice.publish("home/bob/lamp", 1, "off"));
            assertEquals(0x87, alice.publish("home/bob/lamp", 2, "off"));
            alice.publish("home/bob/lamp", 0, "off");                 // QoS 0: dropped, nothing to answer
            assertEquals(0x87, alice.publish("vault/secret", 1, "x"));  // deny wins over vault/#
            assertEquals(0x87, monitor.publish("home/alice/lamp", 1, "read-only"));
            assertEquals(0, bob.publish("home/bob/lamp", 1, "write-only"));
            assertEquals("write-only", Hive5.text(monitor.next()));
            assertEquals(Optional.empty(), monitor.quiet().map(Hive5::text));
            assertTrue(alice.isConnected(), "a refused publish does not end the connection");
        }
    }

    @ParameterizedTest(name = "alice subscribing to {0} gets {1}")
    @CsvSource({
            "home/alice/#, 1",          // granted as written
            "home/alice/lamp, 1",       // inside the grant
            "home/+/status, 1",
            "home/bob/status, 1",
            "home/#, 0x87",             // wider than any grant
            "home/+, 0x87",             // home/+/status does not admit home/+
            "+/alice/lamp, 0x87",       // home/alice/# does not admit a wildcard in front of it
            "#, 0x87",
            "vault/public, 1",
            "vault/#, 0x87",            // would include the denied vault/secret
            "+/secret, 0x87",
            "home/bob/lamp, 0x87",      // bob's is write-only for bob, nothing for alice
    })
    @DisplayName("a subscription is granted only if every topic it can match is readable")
    void subscribeIsCheckedBySubsumption(String filter, String expected) {
        try (var alice = user("alice")) {
            assertEquals(Integer.decode(expected), alice.subscribe(filter));
        }
    }

    @Test
    @DisplayName("a write-only grant admits no subscription; anonymous clients get only the rules before the first user")
    void writeOnlyAndAnonymous() {
        try (var bob = user("bob"); var anonymous = anonymous(Names.clientId("anonymous"))) {
            assertEquals(0x87, bob.subscribe("home/bob/#"));
            assertEquals(1, anonymous.subscribe("public/news"));
            assertEquals(0x87, anonymous.subscribe("home/alice/#"));
            assertEquals(0x87, anonymous.publish("public/news", 1, "read-only"));
        }
    }

    @Test
    @DisplayName("%c and %u patterns: a client has its own devices/<client id>/# and reads its own inbox/<username>/#")
    void patternsSubstituteTheClientIdAndUsername() throws Exception {
        try (var monitor = user("monitor");
             var device = anonymous("sensor-7");
             var alice = user("alice")) {
            assertEquals(1, monitor.subscribe("devices/#"));
            assertEquals(0, device.publish("devices/sensor-7/temperature", 1, "21.5"));
            assertEquals("devices/sensor-7/temperature", monitor.next().getTopic().toString());
            assertEquals(0x87, device.publish("devices/sensor-8/temperature", 1, "forged"));
            assertEquals(1, alice.subscribe("inbox/alice/#"));
            assertEquals(0x87, alice.subscribe("inbox/bob/#"));
            assertEquals(0x87, device.subscribe("inbox/+/#"));  // no username: %u never matches
        }
    }

    @ParameterizedTest(name = "client id \"{0}\"")
    @ValueSource(strings = {"+", "#", "devices/+"})
    @DisplayName("CVE-2017-7650: a client id with + # or / never widens a %c pattern")
    void aWildcardInTheClientIdMatchesNoPattern(String clientId) throws Exception {
        try (var monitor = user("monitor"); var attacker = anonymous(clientId)) {
            assertEquals(1, monitor.subscribe("devices/#"));
            assertEquals(0x87, attacker.subscribe("devices/+/#"));
            assertEquals(0x87, attacker.subscribe("devices/#"));
            assertEquals(0x87, attacker.publish("devices/sensor-7/temperature", 1, "forged"));
            assertEquals(Optional.empty(), monitor.quiet().map(Hive5::text));
        }
    }

    @Test
    @DisplayName("3.1.1: a denied subscription gets 0x80 in its SUBACK slot and a denied QoS 1 publish is acknowledged and dropped")
    void deniedInMqtt311() throws Exception {
        try (var monitor = user("monitor");
             var alice = broker.v3(Names.clientId("alice3"), options -> {
                 options.setUserName("alice");
                 options.setPassword("a-secret".toCharArray());
             })) {
            assertEquals(1, monitor.subscribe("home/#"));
            assertEquals(0x80, alice.subscribe("home/#", 1));
            assertEquals(1, alice.subscribe("home/alice/#", 1));
            alice.publish("home/bob/lamp", "dropped".getBytes(StandardCharsets.UTF_8), 1, false);
            assertEquals(Optional.empty(), monitor.quiet().map(Hive5::text));
            assertTrue(alice.isConnected());
        }
    }

    @Test
    @DisplayName("a will on a topic the client may not write refuses the CONNECT with 0x87")
    void aWillTheAclDoesNotGrantIsRefused() {
        var client = Hive5.build(broker.port(), Names.clientId("will"), Optional.empty());
        var refused = org.junit.jupiter.api.Assertions.assertThrows(
                com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException.class,
                () -> client.connectWith().cleanStart(true)
                        .simpleAuth().username("bob").password("b-secret".getBytes(StandardCharsets.UTF_8)).applySimpleAuth()
                        .willPublish().topic("home/alice/lamp").payload("bob was here".getBytes(StandardCharsets.UTF_8))
                        .applyWillPublish()
                        .send());
        assertEquals(0x87, refused.getMqttMessage().getReasonCode().getCode());
    }
}
