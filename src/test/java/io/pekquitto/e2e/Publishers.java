package io.pekquitto.e2e;

/**
 * One publishing client per protocol version, shared by the tests of a class: tests publish to
 * topics of their own, so a fresh publisher proves nothing more, and each Paho connect costs about
 * 0.3 s (its sender thread polls at start). A publisher found disconnected is replaced.
 */
public final class Publishers implements AutoCloseable {
    private final int port;
    private V3Client v3;
    private V5Client v5;

    public Publishers(int port) {
        this.port = port;
    }

    /** The MQTT 3.1.1 publisher. */
    public synchronized V3Client v3() throws Exception {
        if (v3 == null || !v3.isConnected()) v3 = V3Client.connect(port, Names.clientId("pub3"), options -> {});
        return v3;
    }

    /** The MQTT 5 publisher. */
    public synchronized V5Client v5() throws Exception {
        if (v5 == null || !v5.isConnected()) v5 = V5Client.connect(port, Names.clientId("pub5"), options -> {});
        return v5;
    }

    /** The publisher of the protocol level ({@link RawClient#V311} or {@link RawClient#V5}). */
    public PahoClient get(int version) throws Exception {
        return version == RawClient.V5 ? v5() : v3();
    }

    @Override
    public synchronized void close() {
        if (v3 != null) v3.close();
        if (v5 != null) v5.close();
    }
}
