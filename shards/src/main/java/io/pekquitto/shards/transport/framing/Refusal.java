package io.pekquitto.shards.transport.framing;

/**
 * A user event from a handler before the transport ({@code transport.ChannelTransport}): it refuses what
 * the client sent (a WebSocket's text message, a malformed frame). The transport closes as the connection
 * would, after what was written, and tells the connection this cause.
 */
public record Refusal(String cause) {}
