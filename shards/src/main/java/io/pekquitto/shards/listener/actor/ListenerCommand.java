package io.pekquitto.shards.listener.actor;

/** What the broker tells a listener. */
public sealed interface ListenerCommand {

    /** The broker shuts down: close the listening socket, accept no more. */
    enum Unbind implements ListenerCommand { INSTANCE }
}
