package io.pekquitto.protocol;

/**
 * A packet that breaks a well-formedness rule of the specification. Carries the MQTT 5 reason code that
 * the connection sends (DISCONNECT, or CONNACK while CONNECT is in progress); 3.1.1 connections close.
 * Stackless: a hostile client can make the broker throw one per packet, so it must be cheap.
 */
public final class MalformedPacketException extends RuntimeException {
    private final ReasonCode reason;

    public MalformedPacketException(ReasonCode reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    /** A plain Malformed Packet (0x81). */
    public MalformedPacketException(String message) {
        this(ReasonCode.MALFORMED_PACKET, message);
    }

    public ReasonCode reason() { return reason; }
}
