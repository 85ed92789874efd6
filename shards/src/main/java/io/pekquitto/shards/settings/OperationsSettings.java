package io.pekquitto.shards.settings;

import java.time.Duration;
import java.util.Objects;

/**
 * How the broker is watched and stopped: {@code $SYS} topics, Prometheus metrics and the graceful
 * shutdown.
 *
 * @param sysInterval     how often the {@code $SYS/broker/...} topics are published; zero for never
 *                        ({@code pekquitto.sys-interval}, Mosquitto's {@code sys_interval})
 * @param shutdownTimeout how long a graceful shutdown may take, clients disconnected and the store
 *                        closed ({@code pekquitto.shutdown-timeout})
 * @param metrics         the Prometheus endpoint ({@code pekquitto.metrics})
 */
public record OperationsSettings(Duration sysInterval, Duration shutdownTimeout, MetricsSettings metrics) {

    /**
     * @param enabled whether {@code GET /metrics} is served ({@code pekquitto.metrics.enabled})
     * @param host    the address it binds ({@code pekquitto.metrics.host})
     * @param port    its port, 0 for any free one ({@code pekquitto.metrics.port})
     */
    public record MetricsSettings(boolean enabled, String host, int port) {
        public MetricsSettings {
            Objects.requireNonNull(host, "host");
            if (port < 0 || port > 65_535) throw new IllegalArgumentException("metrics.port must be 0..65535, not " + port);
        }
    }

    public OperationsSettings {
        Objects.requireNonNull(sysInterval, "sysInterval");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        Objects.requireNonNull(metrics, "metrics");
        if (sysInterval.isNegative()) throw new IllegalArgumentException("sys-interval must not be negative, not " + sysInterval);
        if (shutdownTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("shutdown-timeout must be at least 1s, not " + shutdownTimeout);
        }
    }

    /** Whether the {@code $SYS} topics are published at all. */
    public boolean publishesSys() {
        return !sysInterval.isZero();
    }
}
