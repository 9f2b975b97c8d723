package dev.appliance.app.cli;

import java.net.URI;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The flags every command that talks to a running appliance's console shares ({@code --console}, {@code --cacert},
 * {@code --user}, {@code --password}, {@code --json}), read in one walk with the command's own switches and positional
 * arguments, so each command spells and checks them the same way.
 */
final class ConsoleFlags {
    private static final Set<String> WITH_VALUE = Set.of("--console", "--user", "--password", "--cacert");

    private boolean json;
    private String console = AdminClient.DEFAULT_CONSOLE;
    private String user;
    private String password;
    private Path cacert;

    private ConsoleFlags() {}

    /**
     * Walks {@code args}: the shared flags are kept, each of the command's {@code switches} goes to {@code onSwitch},
     * each positional argument to {@code positional}; anything else is an error naming it.
     */
    static ConsoleFlags walk(
            List<String> args, Set<String> switches, Consumer<String> onSwitch, Consumer<String> positional) {
        ConsoleFlags f = new ConsoleFlags();
        Set<String> allSwitches = new HashSet<>(switches);
        allSwitches.add("--json");
        Arguments.walk(args, WITH_VALUE, allSwitches, new Arguments.Visitor() {
            @Override
            public void option(String flag, String value) {
                switch (flag) {
                    case "--console" -> f.console = value;
                    case "--user" -> f.user = value;
                    case "--password" -> f.password = value;
                    case "--cacert" -> f.cacert = Path.of(value);
                    case "--json" -> f.json = true;
                    default -> onSwitch.accept(flag);
                }
            }

            @Override
            public void positional(String arg) {
                positional.accept(arg);
            }
        });
        return f;
    }

    boolean json() {
        return json;
    }

    URI consoleUri() {
        return AdminClient.consoleUri(console);
    }

    Path cacert() {
        return cacert;
    }

    /** The access key and secret from the flags, else from APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD. */
    String[] credentials(Map<String, String> env) {
        return AdminClient.credentials(user, password, env);
    }

    /** A client for the console with these flags; a bad address, certificate or missing credentials throw here. */
    AdminClient client(Map<String, String> env) {
        String[] creds = credentials(env);
        return new AdminClient(consoleUri(), creds[0], creds[1], AdminClient.trusting(cacert));
    }
}
