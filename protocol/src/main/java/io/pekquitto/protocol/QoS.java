package io.pekquitto.protocol;

/** Quality of Service levels (4.3). The value 3 is reserved and never a QoS ([MQTT-3.3.1-4]). */
public enum QoS {
    AT_MOST_ONCE,
    AT_LEAST_ONCE,
    EXACTLY_ONCE;

    private static final QoS[] BY_VALUE = values();

    public int value() { return ordinal(); }

    /** The QoS with this wire value; a caller that may see 3 checks {@link #isValid(int)} first. */
    public static QoS of(int value) { return BY_VALUE[value]; }

    public static boolean isValid(int value) { return value >= 0 && value <= 2; }

    public static QoS min(QoS a, QoS b) { return a.ordinal() <= b.ordinal() ? a : b; }
}
