package io.pekquitto.auth;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * What a CONNECT offers to prove who it is.
 *
 * @param clientId              the client identifier (assigned by the broker if the client sent none)
 * @param username              the User Name of the CONNECT, if any
 * @param password              the Password of the CONNECT, if any (bytes: MQTT 5 allows binary passwords);
 *                              never logged
 * @param address               the client's address
 * @param certificateCommonName the subject CN of a client certificate verified by a TLS listener that has
 *                              {@code cert-cn-as-username}; empty otherwise
 */
public record Credentials(String clientId, Optional<String> username, Optional<byte[]> password, InetSocketAddress address,
                          Optional<String> certificateCommonName) {}
