package io.pekquitto.ops.convert;

import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigValueFactory;

/** Values written into the converted configuration. */
final class Hocon {
    private static final ConfigRenderOptions JSON = ConfigRenderOptions.concise();

    private Hocon() {}

    /** A quoted string as Typesafe Config writes one (JSON's escapes): a path with spaces, colons or quotes stays one value. */
    static String quote(String text) {
        return ConfigValueFactory.fromAnyRef(text).render(JSON);
    }
}
