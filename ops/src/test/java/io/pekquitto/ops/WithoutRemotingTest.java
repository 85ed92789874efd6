package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;

/** Pekko Remote's, Cluster's and Streams' serializers set aside, their bindings off, no stream materializer at start, everything else as it was. */
class WithoutRemotingTest {

    @Test
    void remoteAndClusterSerializersAreReplacedAndTheirBindingsOff() {
        var config = WithoutRemoting.strip(ConfigFactory.parseString("""
                pekko.actor.serializers { remote = "org.apache.pekko.remote.serialization.MiscMessageSerializer", own = "foo.Own" }
                pekko.actor.serialization-bindings {
                  "org.apache.pekko.cluster.ClusterMessage" = own
                  "java.lang.String" = remote
                  "foo.Message" = own
                }"""));
        assertEquals(WithoutRemoting.Unused.class.getName(), config.getString("pekko.actor.serializers.remote"));
        assertEquals("foo.Own", config.getString("pekko.actor.serializers.own"));
        var bindings = config.getObject("pekko.actor.serialization-bindings").unwrapped();
        assertEquals("none", bindings.get("org.apache.pekko.cluster.ClusterMessage"), "its class is not loaded");
        assertEquals("none", bindings.get("java.lang.String"), "bound to a serializer set aside");
        assertEquals("own", bindings.get("foo.Message"));
    }

    @Test
    void noStreamMaterializerStartsWithTheActorSystemAndOtherExtensionsDo() {
        var config = WithoutRemoting.strip(ConfigFactory.parseString("""
                pekko.library-extensions = ["org.apache.pekko.serialization.SerializationExtension$",
                  "org.apache.pekko.stream.SystemMaterializer$", "foo.Own$"]"""));
        assertEquals(List.of("org.apache.pekko.serialization.SerializationExtension$", "foo.Own$"),
                config.getStringList("pekko.library-extensions"));
    }

    @Test
    void pekkoStartsWithOneUnusedSerializerForEveryAliasSetAside() {
        // The test class path holds Pekko Remote and Cluster, as the runnable jar does.
        var system = ActorSystem.create(Behaviors.empty(), "without-remoting", WithoutRemoting.strip(ConfigFactory.load()));
        try {
            var serialization = SerializationExtension.get(system);
            assertTrue(serialization.serializerByIdentity().contains(WithoutRemoting.Unused.IDENTIFIER));
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().join();
        }
    }
}
