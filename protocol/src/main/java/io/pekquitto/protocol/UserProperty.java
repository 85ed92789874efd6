package io.pekquitto.protocol;

import java.util.Objects;

/** A User Property (3.1.2.11.8): a UTF-8 string pair; the same name may appear more than once. */
public record UserProperty(String name, String value) {
    public UserProperty {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
