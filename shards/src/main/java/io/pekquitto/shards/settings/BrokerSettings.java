package io.pekquitto.shards.settings;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The broker's settings, read once at start from the {@code pekquitto} configuration by
 * {@link SettingsReader} (ops layers a HOCON or TOML file and system properties over the defaults);
 * actors never read configuration themselves. Each component documents its key in the root
 * {@code application.conf}, which is also where every default comes from: {@link #defaults()} and
 * {@link #parse(String)} read it, and no default is repeated in code.
 *
 * @param shards                number of shards, at least 1 ({@code pekquitto.shards}, {@code auto} = processors)
 * @param listeners             the MQTT listeners ({@code pekquitto.listeners}), at least one
 * @param maxPacketSize         largest packet accepted from a client, fixed header included
 *                              ({@code pekquitto.max-packet-size}); larger is DISCONNECT 0x95
 * @param maxKeepAlive          the largest keep-alive a client may ask for, seconds
 *                              ({@code pekquitto.max-keep-alive}); more gets Server Keep Alive (MQTT 5)
 * @param receiveMaximum        unacknowledged QoS 1/2 PUBLISHes a client may send us ({@code pekquitto.receive-maximum})
 * @param maxInflightMessages   unacknowledged QoS 1/2 PUBLISHes we send to a client
 *                              ({@code pekquitto.max-inflight-messages}); an MQTT 5 client's Receive Maximum lowers it
 * @param maxQueuedMessages     messages kept for an offline or slow session ({@code pekquitto.max-queued-messages})
 * @param queueQos0Messages     whether QoS 0 messages are queued for offline sessions ({@code pekquitto.queue-qos0-messages})
 * @param retainAvailable       whether retained messages are supported ({@code pekquitto.retain-available})
 * @param maxQos                the highest QoS granted ({@code pekquitto.max-qos})
 * @param topicAliasMaximum     topic aliases a client may use towards us ({@code pekquitto.topic-alias-maximum})
 * @param maxSessionExpiry      the longest session expiry granted ({@code pekquitto.max-session-expiry})
 * @param connectTimeout        how long a new connection may take to send CONNECT ({@code pekquitto.connect-timeout})
 * @param placement             how new connections are spread over shards ({@code pekquitto.placement})
 * @param maxQueuedBytes        payload bytes queued per session, in the heap and the store, 0 for no limit
 *                              ({@code pekquitto.max-queued-bytes} set to a size; {@code auto} limits only what a
 *                              session holds in the heap, through {@link MemorySettings#clientShare})
 * @param strictReceiveMaximum  whether an MQTT 5 client that exceeds our Receive Maximum gets DISCONNECT
 *                              0x93 ({@code pekquitto.receive-maximum-policy = strict}) or is tolerated ({@code lenient})
 * @param responseInformationPrefix the Response Information an MQTT 5 client that asks for it gets: this
 *                              prefix and its client id; empty sends none ({@code pekquitto.response-information-prefix})
 * @param slowSubscriberPolicy  whether a subscriber that cannot keep up has its messages queued, then dropped
 *                              ({@code queue}), or slows its publishers down ({@code throttle})
 *                              ({@code pekquitto.slow-subscriber-policy})
 * @param parking               whether and when idle connections give up their actor ({@code pekquitto.parking})
 * @param maxConnectSize        largest CONNECT accepted, before authentication ({@code pekquitto.max-connect-size})
 * @param partialPacketBudget   bytes all connections may hold together in packets not fully received,
 *                              an equal share per shard ({@code pekquitto.partial-packet-budget}); past it, 0x97
 * @param auth                  password file, anonymous access and ACLs ({@code pekquitto.auth})
 * @param store                 where state that outlives the process is kept ({@code pekquitto.store})
 * @param connectionMessages    a line at INFO for each client's connect and disconnect
 *                              ({@code pekquitto.log.connection-messages}, Mosquitto's {@code connection_messages})
 * @param operations            $SYS topics, metrics and shutdown ({@code pekquitto.sys-interval}, {@code
 *                              pekquitto.shutdown-timeout}, {@code pekquitto.metrics})
 * @param memory                the heap clients may fill with what they hold, in all and each
 *                              ({@code pekquitto.memory}, and {@code max-queued-bytes} as a client's share)
 * @param cluster               whether and how this broker is a node of a cluster ({@code pekquitto.cluster})
 * @param bridges               the links to remote brokers and the topics they carry ({@code pekquitto.bridges})
 */
public record BrokerSettings(
        int shards,
        List<ListenerSettings> listeners,
        int maxPacketSize,
        int maxKeepAlive,
        int receiveMaximum,
        int maxInflightMessages,
        int maxQueuedMessages,
        boolean queueQos0Messages,
        boolean retainAvailable,
        int maxQos,
        int topicAliasMaximum,
        Duration maxSessionExpiry,
        Duration connectTimeout,
        Placement placement,
        long maxQueuedBytes,
        boolean strictReceiveMaximum,
        String responseInformationPrefix,
        SlowSubscriberPolicy slowSubscriberPolicy,
        ParkingSettings parking,
        int maxConnectSize,
        long partialPacketBudget,
        AuthSettings auth,
        StoreSettings store,
        boolean connectionMessages,
        OperationsSettings operations,
        MemorySettings memory,
        ClusterSettings cluster,
        List<BridgeSettings> bridges) {

    /** The largest value of MQTT's four-byte remaining length plus its fixed header (2.2.3). */
    public static final int PROTOCOL_MAX_PACKET_SIZE = 268_435_455 + 5;

    public BrokerSettings {
        listeners = List.copyOf(listeners);
        bridges = List.copyOf(bridges);
        Objects.requireNonNull(maxSessionExpiry, "maxSessionExpiry");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(responseInformationPrefix, "responseInformationPrefix");
        Objects.requireNonNull(slowSubscriberPolicy, "slowSubscriberPolicy");
        Objects.requireNonNull(parking, "parking");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(operations, "operations");
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(cluster, "cluster");
        require(shards >= 1, "shards must be at least 1, not " + shards);
        require(!listeners.isEmpty(), "at least one listener is needed");
        require(maxPacketSize >= 2 && maxPacketSize <= PROTOCOL_MAX_PACKET_SIZE,
                "max-packet-size must be 2.." + PROTOCOL_MAX_PACKET_SIZE + ", not " + maxPacketSize);
        require(maxConnectSize >= 2 && maxConnectSize <= PROTOCOL_MAX_PACKET_SIZE,
                "max-connect-size must be 2.." + PROTOCOL_MAX_PACKET_SIZE + ", not " + maxConnectSize);
        require(partialPacketBudget > 0, "partial-packet-budget must be more than 0, not " + partialPacketBudget);
        require(maxKeepAlive >= 0 && maxKeepAlive <= 65_535, "max-keep-alive must be 0..65535, not " + maxKeepAlive);
        require(receiveMaximum >= 1 && receiveMaximum <= 65_535, "receive-maximum must be 1..65535, not " + receiveMaximum);
        require(maxInflightMessages >= 1 && maxInflightMessages <= 65_535,
                "max-inflight-messages must be 1..65535, not " + maxInflightMessages);
        require(maxQueuedMessages >= 0, "max-queued-messages must be at least 0, not " + maxQueuedMessages);
        require(maxQueuedBytes >= 0, "max-queued-bytes must be at least 0, not " + maxQueuedBytes);
        require(maxQos >= 0 && maxQos <= 2, "max-qos must be 0, 1 or 2, not " + maxQos);
        require(topicAliasMaximum >= 0 && topicAliasMaximum <= 65_535,
                "topic-alias-maximum must be 0..65535, not " + topicAliasMaximum);
    }

    private static void require(boolean condition, String message) {
        if (!condition) throw new IllegalArgumentException(message);
    }

    /** The built-in defaults: the root {@code application.conf} as packaged, nothing over it. */
    public static BrokerSettings defaults() {
        return SettingsReader.read(SettingsReader.defaults());
    }

    /**
     * The defaults with {@code overrides} over them: HOCON keys without the {@code pekquitto} root, as in
     * a {@code -c} file, e.g. {@code "shards = 2\nlisteners = [{host = \"127.0.0.1\", port = 0}]"}.
     *
     * @throws ConfigurationException as the command line reports it: an unknown key, a value of the wrong
     *                                type or out of range, with the key's full path
     */
    public static BrokerSettings parse(String overrides) {
        var options = ConfigParseOptions.defaults().setOriginDescription("overrides");
        try {
            var parsed = ConfigFactory.parseString(overrides, options).resolve();
            return SettingsReader.read(parsed.atKey(SettingsReader.ROOT).withFallback(SettingsReader.defaults()));
        } catch (ConfigException e) {
            // A syntax error or an unresolved substitution; Typesafe's message names the line.
            throw new ConfigurationException(e.getMessage(), e);
        }
    }
}
