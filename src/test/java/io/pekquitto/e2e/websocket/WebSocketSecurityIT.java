package io.pekquitto.e2e.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.auth.Authentication;
import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.Security;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.V5Client;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Authentication and the ACLs see a WebSocket client as they see a TCP one: a wrong password gets
 * CONNACK 0x86, and a signed-in client may subscribe only where the authorizer lets it (SUBACK 0x87
 * elsewhere).
 */
@Timeout(60)
class WebSocketSecurityIT {
    private static final byte[] PASSWORD = "secret".getBytes(StandardCharsets.UTF_8);

    /** alice with her password, and nobody else; each user may subscribe under its own name only. */
    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension("""
            listeners = [ { host = "127.0.0.1", port = 0 }, { host = "127.0.0.1", port = 0, protocol = websocket } ]
            """) {
        @Override
        protected Pekquitto startInProcess(BrokerSettings settings) {
            return Pekquitto.start(settings, new Security(
                    credentials -> credentials.username().equals(Optional.of("alice"))
                            && credentials.password().map(password -> Arrays.equals(password, PASSWORD)).orElse(false)
                            ? Authentication.allowed(credentials.username())
                            : Authentication.refused(Authentication.Refusal.BAD_USERNAME_OR_PASSWORD, "not alice"),
                    new Authorizer() {
                        @Override
                        public boolean canPublish(ClientIdentity client, String topic) {
                            return true;
                        }

                        @Override
                        public boolean canSubscribe(ClientIdentity client, String filter) {
                            return filter.startsWith(client.username().orElse("") + "/");
                        }
                    }));
        }
    };

    private static String ws() {
        return "ws://127.0.0.1:" + broker.pekquitto().boundAddresses().get(1).getPort() + "/mqtt";
    }

    @Test
    void aWrongPasswordOverWebSocketsIsRefusedWith0x86() {
        var refused = assertThrows(MqttException.class, () -> V5Client.connect(ws(), Names.clientId("ws-mallory"), options -> {
            options.setUserName("alice");
            options.setPassword("wrong".getBytes(StandardCharsets.UTF_8));
        }));
        assertEquals(0x86, refused.getReasonCode());
    }

    @Test
    void theAclsSeeTheWebSocketClientsUsername() throws Exception {
        try (var alice = V5Client.connect(ws(), Names.clientId("ws-alice"), options -> {
            options.setUserName("alice");
            options.setPassword(PASSWORD);
        })) {
            assertEquals(1, alice.subscribe("alice/inbox", 1));
            assertEquals(0x87, alice.subscribe("bob/inbox", 1));
        }
    }
}
