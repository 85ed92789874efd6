package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A broker with a password file (made by {@code pekquitto passwd}) and {@code allow-anonymous} left at
 * {@code auto}: a user with the right password connects; a wrong password or an unknown user gets
 * CONNACK 0x86 (4 in 3.1.1) and a client without a username 0x87 (5), with Paho's v3 and v5 clients
 * and HiveMQ's.
 */
class AuthenticationIT {
    private static final SecurityFiles files = SecurityFiles.create("authentication");
    private static final String PASSWORDS = SecurityFiles.quoted(files.passwords("alice", "wonderland", "bob", "b:uilder"));

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("auth.password-file = " + PASSWORDS);

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    private static int v5Refusal(String username, String password) {
        var e = assertThrows(org.eclipse.paho.mqttv5.common.MqttException.class,
                () -> broker.v5(Names.clientId("v5"), options -> {
                    if (username != null) options.setUserName(username);
                    if (password != null) options.setPassword(password.getBytes(StandardCharsets.UTF_8));
                }).close());
        return e.getReasonCode();
    }

    private static int v3Refusal(String username, String password) {
        var e = assertThrows(org.eclipse.paho.client.mqttv3.MqttException.class,
                () -> broker.v3(Names.clientId("v3"), options -> {
                    if (username != null) options.setUserName(username);
                    if (password != null) options.setPassword(password.toCharArray());
                }).close());
        return e.getReasonCode();
    }

    @Test
    @DisplayName("a user with the right password connects, with Paho v3, Paho v5 and HiveMQ, and is served")
    void theRightPasswordConnects() throws Exception {
        var topic = Names.topic("authenticated");
        try (var v5 = broker.v5(Names.clientId("alice5"), options -> {
                 options.setUserName("alice");
                 options.setPassword("wonderland".getBytes(StandardCharsets.UTF_8));
             });
             var v3 = broker.v3(Names.clientId("bob3"), options -> {
                 options.setUserName("bob");
                 options.setPassword("b:uilder".toCharArray());
             });
             var hive = Hive5.connect(broker.port(), Names.clientId("hive"), Optional.of("alice"), Optional.of("wonderland"))) {
            v5.subscribe(topic, 1);
            v3.publish(topic, "hello", 1, false);
            assertEquals("hello", v5.inbox().next().text());
            assertEquals(0, hive.publish(topic, 1, "again") & 0x80);
            assertEquals("again", v5.inbox().next().text());
        }
    }

    @Test
    @DisplayName("5.0: a wrong password, a missing password and an unknown user get CONNACK 0x86 Bad User Name or Password")
    void badCredentialsAreRefusedInMqtt5() {
        assertEquals(0x86, v5Refusal("alice", "Wonderland"));
        assertEquals(0x86, v5Refusal("alice", null));
        assertEquals(0x86, v5Refusal("mallory", "wonderland"));
        assertEquals(0x86, Hive5.refusal(broker.port(), Names.clientId("hive"), Optional.of("bob"), Optional.of("builder")));
    }

    @Test
    @DisplayName("3.1.1: a wrong password and an unknown user get CONNACK 4 Bad user name or password")
    void badCredentialsAreRefusedInMqtt311() {
        assertEquals(4, v3Refusal("alice", "wonderlan"));
        assertEquals(4, v3Refusal("mallory", "wonderland"));
    }

    @Test
    @DisplayName("with a password file and allow-anonymous auto, a client without a username gets 0x87 (5.0) or 5 (3.1.1)")
    void anonymousClientsAreRefused() {
        assertEquals(0x87, v5Refusal(null, null));
        assertEquals(5, v3Refusal(null, null));
        assertEquals(0x87, Hive5.refusal(broker.port(), Names.clientId("hive"), Optional.empty(), Optional.empty()));
    }
}
