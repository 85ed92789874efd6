package io.pekquitto.shards.mesh;

import io.pekquitto.shards.session.Message;

/**
 * A published message on its way to another shard. {@code targetClientId} is null for an ordinary
 * publish (the destination matches its own subscriptions); for a shared subscription it names the
 * member chosen by the publishing shard, and {@code sharedGroup} the group ({@code $share/g/f}).
 */
public record Forwarded(String publisherId, Message message, String targetClientId, String sharedGroup) {}
