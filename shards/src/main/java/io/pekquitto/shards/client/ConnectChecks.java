package io.pekquitto.shards.client;

import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.ClientAuthorizer;
import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.settings.BrokerSettings;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The rules for an in-process client's connect, as {@code ConnectNegotiation} has them for a CONNECT:
 * a client identifier in well-formed UTF-8 (or one assigned, [MQTT-3.1.3-6]), the Session Expiry
 * Interval capped by {@code max-session-expiry}, and a will judged like a publish ({@link PublishChecks}),
 * ACLs included, when the client can still be told. No authentication: an in-process client is code the
 * embedder runs; with a username, the ACLs judge it as that user, else it is trusted and none apply.
 * While the store fails, a persistent session, which needs a write, is refused (0x97 Quota exceeded).
 */
final class ConnectChecks {
    /** Where the ACLs see an in-process client connect from: no network address. */
    static final InetSocketAddress IN_PROCESS = InetSocketAddress.createUnresolved("in-process", 0);

    /** The outcome of a connect. */
    sealed interface Outcome {}

    /** The terms of the client: its client id, how long its session lives, its ACL decisions. */
    record Accepted(String clientId, long sessionExpiryInterval, ClientAuthorizer acl) implements Outcome {}

    /** Refused, with the CONNACK's reason code. */
    record Refused(ReasonCode reason, String why) implements Outcome {}

    private ConnectChecks() {}

    /** @param storeFailing a store is in use, and cannot write now */
    static Outcome check(ConnectOptions options, Authorizer authorizer, BrokerSettings settings, long now, boolean storeFailing) {
        var clientId = options.clientId().isEmpty() ? "pekquitto-" + UUID.randomUUID() : options.clientId();
        if (!PublishChecks.isMqttString(clientId) || clientId.getBytes(StandardCharsets.UTF_8).length > 65_535) {
            return new Refused(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, "the client identifier is not a well-formed UTF-8 string");
        }
        var identity = new ClientIdentity(clientId, options.username(), IN_PROCESS);
        var acl = (options.username().isPresent() ? authorizer : Authorizer.ALLOW_ALL).forClient(identity);
        if (options.will().isPresent()) {
            var will = options.will().get();
            var outcome = PublishChecks.check(will.topic(), will.payload(), will.qos(), will.retain(), will.properties(),
                    acl, settings, now);
            if (outcome instanceof PublishChecks.Refused refused) return new Refused(refused.reason(), "will: " + refused.why());
        }
        long sessionExpiry = Math.min(options.sessionExpiryInterval(), settings.maxSessionExpiry().getSeconds());
        if (storeFailing && sessionExpiry > 0) return new Refused(ReasonCode.QUOTA_EXCEEDED, "the store cannot write the persistent session");
        return new Accepted(clientId, sessionExpiry, acl);
    }
}
