package io.pekquitto.shards.settings;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Path;
import java.util.Optional;

/** Reads {@link AuthSettings} from the {@code pekquitto.auth} section. */
final class AuthSettingsReader {
    private AuthSettingsReader() {}

    static AuthSettings read(Config config, String path) {
        var passwordFile = file(config, path + ".password-file");
        return new AuthSettings(passwordFile, allowAnonymous(config, path + ".allow-anonymous", passwordFile.isPresent()),
                file(config, path + ".acl-file"), config.getStringList(path + ".acl"));
    }

    /** An empty string is no file. */
    private static Optional<Path> file(Config config, String path) {
        return SettingsReader.text(config, path).map(Path::of);
    }

    /** {@code auto}: anonymous clients may connect only while there is no password file, as in Mosquitto 2.0. */
    private static boolean allowAnonymous(Config config, String path, boolean passwordFile) {
        var value = config.getValue(path);
        if (value.valueType() == ConfigValueType.STRING && "auto".equals(value.unwrapped())) return !passwordFile;
        try {
            return config.getBoolean(path);
        } catch (com.typesafe.config.ConfigException.WrongType e) {
            throw new ConfigurationException(path + " must be true, false or auto, not " + value.render()
                    + " (" + SettingsReader.origin(config, path) + ")", e);
        }
    }
}
