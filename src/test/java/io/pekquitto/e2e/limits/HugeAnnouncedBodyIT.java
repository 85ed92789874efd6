package io.pekquitto.e2e.limits;

import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.RawClient;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client may announce a body of up to the maximum packet size (256 MiB under the default
 * {@code max-packet-size}) and then send only a little of it. The broker must hold what arrives, not
 * what is announced: four such connections leave the heap of the in-process broker almost where it
 * was, and other clients are served as usual meanwhile. (A CONNECT this large is now refused at once,
 * by {@code max-connect-size}: see {@code PreConnectLimitIT}.)
 */
class HugeAnnouncedBodyIT {
    private static final int CONNECTIONS = 4;
    /** Far below the 1 GiB the four announcements add up to; generous for what else the JVM does. */
    private static final long HEAP_GROWTH_LIMIT = 100L << 20;

    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess();

    private static final byte[] CONNECT_ANNOUNCING_256_MIB = {
            0x10,                                               // fixed header: CONNECT
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F,        // remaining length 268,435,455 (256 MiB - 1)
            0, 4, 'M', 'Q', 'T', 'T',                           // protocol name "MQTT"
            5,                                                  // protocol level 5
            0x02,                                               // connect flags: Clean Start
            0, 60};                                             // keep alive 60 s; then nothing more

    @Test
    @Timeout(30)
    @DisplayName("four CONNECTs announcing 256 MiB each, 10 bytes sent: the heap barely grows and a normal client is served")
    void announcedBodiesAreNotAllocated() throws Exception {
        long before = heapUsedAfterGc();
        var huge = new ArrayList<RawClient>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                var client = broker.raw();
                huge.add(client);
                client.send(CONNECT_ANNOUNCING_256_MIB);
            }
            // A whole QoS 1 round trip for a normal client while the four wait for their bodies.
            broker.assertServesQos1(V5);
            long growth = heapUsedAfterGc() - before;
            assertTrue(growth < HEAP_GROWTH_LIMIT,
                    "the heap grew by " + (growth >> 20) + " MiB with " + CONNECTIONS + " bodies of 256 MiB announced");
        } finally {
            for (var client : huge) client.close();
        }
    }

    private static long heapUsedAfterGc() {
        var memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
