package io.pekquitto.ops;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import org.apache.pekko.serialization.JSerializer;

/**
 * The actor system's configuration for a broker without a cluster, so that it loads no class of Pekko
 * Remote, Cluster or Streams. The runnable jar carries them (Artery runs on Streams), and their reference.conf
 * registers serializers that Pekko's Serialization extension, which every actor system starts, instantiates,
 * and bindings whose classes it loads: some hundred and fifty classes. Pekko lays its reference under any
 * configuration it is given, so they cannot be removed; instead their serializers are replaced by
 * {@link Unused} and their bindings set to {@code none}. A local actor system serializes nothing, so nothing
 * is lost (ClusterOffIT). Streams also starts its materializer with every actor system (a library extension):
 * left out of the list, it would start at its first use, which a broker without a cluster does not have; that
 * is another hundred classes and their metaspace, in an empty broker's RSS.
 */
final class WithoutRemoting {
    /** The packages whose serializers and bound classes are set aside. */
    private static final List<String> PACKAGES = List.of("org.apache.pekko.remote.", "org.apache.pekko.cluster.",
            "org.apache.pekko.stream.");
    private static final String SERIALIZERS = "pekko.actor.serializers";
    private static final String BINDINGS = "pekko.actor.serialization-bindings";
    /** Extensions every actor system starts with it. */
    private static final String LIBRARY_EXTENSIONS = "pekko.library-extensions";

    private WithoutRemoting() {}

    /** {@code config} with Pekko Remote's, Cluster's and Streams' serializers replaced, their bindings off, and no stream materializer started. */
    static Config strip(Config config) {
        var replaced = new HashSet<String>();
        var overrides = new HashMap<String, Object>();
        if (config.hasPath(SERIALIZERS)) {
            for (var entry : config.getObject(SERIALIZERS).entrySet()) {
                if (!ours(entry.getValue().unwrapped())) continue;
                replaced.add(entry.getKey());
                overrides.put(SERIALIZERS + "." + ConfigUtil.quoteString(entry.getKey()), Unused.class.getName());
            }
        }
        if (config.hasPath(BINDINGS)) {
            for (var entry : config.getObject(BINDINGS).entrySet()) {
                if (ours(entry.getKey()) || replaced.contains(String.valueOf(entry.getValue().unwrapped()))) {
                    overrides.put(BINDINGS + "." + ConfigUtil.quoteString(entry.getKey()), "none");  // the class is not loaded
                }
            }
        }
        if (config.hasPath(LIBRARY_EXTENSIONS)) {
            var kept = config.getStringList(LIBRARY_EXTENSIONS).stream().filter(extension -> !ours(extension)).toList();
            overrides.put(LIBRARY_EXTENSIONS, kept);
        }
        return ConfigFactory.parseMap(overrides, "a broker without a cluster").withFallback(config);
    }

    private static boolean ours(Object className) {
        var name = String.valueOf(className);
        return PACKAGES.stream().anyMatch(name::startsWith);
    }

    /**
     * What Pekko instantiates for each serializer set aside: bound to nothing, never used. Its instances are
     * equal, so that Pekko, which wants one serializer per identifier, accepts one for every alias.
     */
    public static final class Unused extends JSerializer {
        /** Outside Pekko's reserved 0..40 and the broker's own (none yet). */
        static final int IDENTIFIER = 1_350_425_001;

        @Override
        public int identifier() {
            return IDENTIFIER;
        }

        @Override
        public boolean includeManifest() {
            return false;
        }

        @Override
        public byte[] toBinary(Object message) {
            throw new UnsupportedOperationException("a broker without a cluster serializes nothing: " + message.getClass());
        }

        @Override
        public Object fromBinaryJava(byte[] bytes, Class<?> manifest) {
            throw new UnsupportedOperationException("a broker without a cluster serializes nothing");
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Unused;
        }

        @Override
        public int hashCode() {
            return IDENTIFIER;
        }
    }
}
