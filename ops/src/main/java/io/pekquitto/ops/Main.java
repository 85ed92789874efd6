package io.pekquitto.ops;

import io.pekquitto.auth.acl.AclFileException;
import io.pekquitto.auth.password.PasswdCommand;
import io.pekquitto.auth.password.PasswordFileException;
import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.ops.convert.ConvertCommand;
import io.pekquitto.ops.fatal.HaltOnFatalError;
import io.pekquitto.shards.broker.Broker;
import io.pekquitto.shards.settings.AuthSettings;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.tcp.ClientTls;
import io.pekquitto.shards.tcp.TlsFiles;
import java.io.PrintStream;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * The standalone broker: {@code java -jar pekquitto.jar [-c FILE] [-p PORT] [-v] [-h] [--version] [--test-config]}.
 * A bad command line or configuration prints {@code pekquitto: <message>} on stderr and exits with 1;
 * {@code --test-config} checks the configuration and the files it names and exits, as Mosquitto 2.1's.
 * {@code java -jar pekquitto.jar passwd [-c] [-b] [-D] FILE USER [PASSWORD]} manages a password file as
 * {@code mosquitto_passwd} does; {@code java -jar pekquitto.jar convert mosquitto.conf} prints a Mosquitto
 * configuration as pekquitto's ({@link ConvertCommand}).
 */
public final class Main {

    /** {@code text} (the default) or {@code json} ({@link ConsoleLogging}); the environment variable works too. */
    static final String LOG_FORMAT_PROPERTY = "PEKQUITTO_LOG_FORMAT";
    /** Netty's switch for its Java Flight Recorder events (on wherever JFR is). */
    static final String NETTY_JFR = "io.netty.jfr.enabled";

    private Main() {}

    public static void main(String[] args) {
        // First: from here on, a fatal error on any thread ends the process at once (README, "When the heap fills").
        HaltOnFatalError.install();
        withoutNettysFlightRecorderEvents();
        var status = run(args, System.out, System.err);
        // Explicit also after the broker has stopped: no library thread left behind keeps the JVM up.
        System.exit(status);
    }

    /** Runs the command line; returns the exit status once done (for a broker, once it has stopped). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && args[0].equals("passwd")) {
            return PasswdCommand.run(List.of(args).subList(1, args.length), System.in, out, err);
        }
        if (args.length > 0 && args[0].equals("convert")) {
            return ConvertCommand.run(List.of(args).subList(1, args.length), out, err);
        }
        CommandLine commandLine;
        CommandLine.Configuration configuration;
        try {
            commandLine = CommandLine.parse(args);
            if (commandLine.help()) {
                out.print(CommandLine.USAGE);
                return 0;
            }
            if (commandLine.version()) {
                out.println("pekquitto " + version());
                return 0;
            }
            configuration = commandLine.configuration(System.getProperties());
            checkLogFormat(logFormat());
        } catch (ConfigurationException e) {
            err.println("pekquitto: " + e.getMessage());
            err.println("Use -h to see usage.");
            return 1;
        }
        var settings = configuration.broker();
        if (commandLine.testConfig()) return testConfig(commandLine, settings, out, err);
        var logLevel = LogLevel.atStart(commandLine.verbose(), configuration.logLevel());
        logLevel.beforeLogback();
        try {
            return serve(commandLine, settings, logLevel);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // A listener that cannot bind, or settings the broker cannot run yet: say which, exit 1.
            err.println("pekquitto: " + e.getMessage());
            return 1;
        }
    }

    /**
     * {@code --test-config}: the configuration is read already; now what the broker reads at start
     * besides it: the password and ACL files, and every TLS listener's certificate, key and CA files.
     * The store is not opened: a running broker holds its lock.
     */
    private static int testConfig(CommandLine commandLine, BrokerSettings settings, PrintStream out, PrintStream err) {
        try {
            settings.auth().readSecurity();
            for (var listener : settings.listeners()) listener.tls().ifPresent(TlsFiles::load);
            for (var bridge : settings.bridges()) bridge.tls().ifPresent(tls -> ClientTls.load(bridge.name(), tls));
        } catch (IllegalArgumentException | PasswordFileException | AclFileException | TlsConfigurationException e) {
            err.println("pekquitto: " + e.getMessage());
            return 1;
        }
        out.println("pekquitto: the configuration is valid"
                + commandLine.configFile().map(file -> " (" + file + ")").orElse(" (the built-in defaults)"));
        return 0;
    }

    /**
     * Before Netty's first class: Netty's buffer events for Java Flight Recorder off, unless
     * {@code -Dio.netty.jfr.enabled} says otherwise. No recording takes them unless its settings name them
     * (they are disabled by default), but the first allocation loads one, and with it JFR's event machinery:
     * about 100 classes and 2 MiB of an empty broker's RSS (BENCHMARKS.md, "Footprint of an empty broker").
     */
    static void withoutNettysFlightRecorderEvents() {
        if (System.getProperty(NETTY_JFR) == null) System.setProperty(NETTY_JFR, "false");
    }

    /** {@code PEKQUITTO_LOG_FORMAT}, the system property else the environment variable; null without either. */
    static String logFormat() {
        return System.getProperty(LOG_FORMAT_PROPERTY, System.getenv(LOG_FORMAT_PROPERTY));
    }

    /** An unknown format is refused, never ignored (Logback, configured at the first logger, writes it as text). */
    static void checkLogFormat(String format) {
        if (format != null && !format.equals("text") && !format.equals("json")) {
            throw new ConfigurationException(LOG_FORMAT_PROPERTY + " must be text or json, not " + format);
        }
    }

    /** The version in the runnable jar's manifest; "dev" when run from classes. */
    static String version() {
        return Broker.version();
    }

    /** Serves until the broker stops; 1 if its cluster stopped it (a supervisor restarts it then), else 0. */
    private static int serve(CommandLine commandLine, BrokerSettings settings, LogLevel logLevel) {
        // Only now: Logback configures itself at the first logger, and -v must be set before that.
        var log = LoggerFactory.getLogger(Main.class);
        var broker = Pekquitto.startStandalone(settings);
        // SIGTERM and SIGINT shut the broker down gracefully, and main then exits 0: as a JVM shutdown hook
        // the same work would end in exit status 143. Other exits still run Pekko's own hook.
        for (var name : List.of("TERM", "INT")) Signal.handle(new Signal(name), signal -> stopOnSignal(broker, log, name));
        ReloadOnHangup.install(broker, commandLine, settings, logLevel);
        var addresses = broker.boundAddresses();
        for (int i = 0; i < addresses.size(); i++) {
            var address = addresses.get(i);
            var listener = settings.listeners().get(i);
            log.info("pekquitto {} listening on [{}:{}]{}", version(), address.getHostString(), address.getPort(),
                    listener.websocket().map(websocket -> " (MQTT over WebSockets: " + (listener.tls().isPresent() ? "wss" : "ws")
                            + "://" + address.getHostString() + ":" + address.getPort() + websocket.path() + ")")
                            .orElse(listener.tls().isPresent() ? " (TLS)" : ""));
        }
        log.info(access(settings.auth()));
        broker.metricsAddress().ifPresent(metrics -> log.info("Prometheus metrics at http://{}:{}/metrics",
                metrics.getHostString(), metrics.getPort()));
        if (broker.boundAddresses().stream().allMatch(address -> address.getAddress().isLoopbackAddress())) {
            log.info("Local only: clients on other machines cannot connect. To accept them, configure a listener "
                    + "with a host (e.g. listeners = [{ host = \"0.0.0.0\", port = 1883 }]) and authentication.");
        }
        broker.awaitTermination();
        var stoppedByCluster = broker.stoppedByCluster();
        stoppedByCluster.ifPresent(why -> log.error("pekquitto stopped: {}", why));
        return stoppedByCluster.isPresent() ? 1 : 0;
    }

    private static void stopOnSignal(Pekquitto broker, Logger log, String signal) {
        log.info("SIG{} received: shutting down", signal);
        new Thread(broker::close, "pekquitto-shutdown").start();  // the signal's thread is not kept waiting
    }

    /** Who may connect and what they may do, in one line: what an operator checks first. */
    static String access(AuthSettings auth) {
        var who = auth.passwordFile().map(file -> "users of " + file).orElse("any username")
                + (auth.allowAnonymous() ? " and anonymous clients" : "; anonymous clients refused");
        var what = !auth.hasAcl() ? "may publish and subscribe anywhere (no ACL)"
                : "may do what the ACL" + auth.aclFile().map(file -> " in " + file).orElse("")
                        + (auth.acl().isEmpty() ? "" : auth.aclFile().isPresent() ? " and auth.acl" : " in auth.acl")
                        + " grants";
        return "Clients: " + who + " " + what;
    }
}
