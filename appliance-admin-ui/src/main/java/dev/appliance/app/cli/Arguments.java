package dev.appliance.app.cli;

import java.util.List;
import java.util.Set;

/**
 * Walks command-line arguments the way every subcommand spells them: {@code --flag value} or {@code --flag=value} for
 * flags that take a value, bare {@code --switch}es, and positional arguments; an unknown option is an error naming it.
 */
final class Arguments {
    /** Receives each argument in order. */
    interface Visitor {
        /** A flag with its value, or a switch with {@code value} null. */
        void option(String flag, String value);

        void positional(String arg);
    }

    private Arguments() {}

    static void walk(List<String> args, Set<String> withValue, Set<String> switches, Visitor visitor) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String flag = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                flag = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            if (withValue.contains(flag)) {
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new IllegalArgumentException(flag + ": missing value");
                    }
                    value = args.get(++i);
                }
                visitor.option(flag, value);
            } else if (switches.contains(flag) && value == null) {
                visitor.option(flag, null);
            } else if (a.startsWith("-")) {
                throw new IllegalArgumentException("unknown option '" + a + "'");
            } else {
                visitor.positional(a);
            }
        }
    }
}
