package dev.appliance.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands drive arguments written with the ellipsis syntax operators know from MinIO: {@code /mnt/disk{1...4}} is
 * four drives, {@code /mnt/disk{01...16}} keeps the zero padding, and several ellipses in one argument multiply
 * ({@code /srv/h{1...2}/d{1...2}} is four drives, leftmost varying slowest).
 */
public final class DriveEllipsis {
    private static final Pattern RANGE = Pattern.compile("\\{(\\d+)\\.\\.\\.(\\d+)}");

    private DriveEllipsis() {}

    public static List<String> expand(String arg) {
        Matcher m = RANGE.matcher(arg);
        if (!m.find()) {
            if (arg.contains("{") || arg.contains("...")) {
                throw new IllegalArgumentException(
                        "drive argument '" + arg + "': malformed ellipsis (expected e.g. /mnt/disk{1...4})");
            }
            return List.of(arg);
        }
        String fromText = m.group(1);
        String toText = m.group(2);
        long from = Long.parseLong(fromText);
        long to = Long.parseLong(toText);
        if (from > to) {
            throw new IllegalArgumentException("drive argument '" + arg + "': range {" + fromText + "..." + toText
                    + "} runs backwards (expected start <= end)");
        }
        if (to - from >= 1024) {
            throw new IllegalArgumentException(
                    "drive argument '" + arg + "': range of " + (to - from + 1) + " drives (expected at most 1024)");
        }
        int width = fromText.startsWith("0") && fromText.length() > 1 ? fromText.length() : 0;
        String head = arg.substring(0, m.start());
        String tail = arg.substring(m.end());
        List<String> out = new ArrayList<>();
        for (long i = from; i <= to; i++) {
            String n = width > 0 ? String.format("%0" + width + "d", i) : Long.toString(i);
            for (String rest : expand(tail)) {
                out.add(head + n + rest);
            }
        }
        return out;
    }

    public static List<String> expandAll(List<String> args) {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            out.addAll(expand(a));
        }
        return out;
    }
}
