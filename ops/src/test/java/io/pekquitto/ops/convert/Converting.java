package io.pekquitto.ops.convert;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The conversion tests' way in: {@code lines} as a mosquitto.conf in a test's directory, converted, and the result parsed. */
final class Converting {
    private Converting() {}

    static String convert(Path directory, String... lines) throws IOException {
        var file = Files.write(directory.resolve("mosquitto.conf"), List.of(lines));
        return MosquittoConversion.convert(file, MosquittoConf.read(file));
    }

    static Config parsed(String converted) {
        return ConfigFactory.parseString(converted);
    }
}
