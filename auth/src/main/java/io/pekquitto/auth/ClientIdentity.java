package io.pekquitto.auth;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * Who a connected client is, as the authorization rules see it: the client identifier, the username
 * it was authenticated as (none for an anonymous client) and the address it connects from.
 */
public record ClientIdentity(String clientId, Optional<String> username, InetSocketAddress address) {}
