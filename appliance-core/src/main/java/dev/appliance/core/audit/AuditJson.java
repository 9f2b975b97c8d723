package dev.appliance.core.audit;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One event as one JSON object on one line (docs/audit.md). The fields are flat strings and one number, with {@code
 * details} an object of strings, so a few lines of code write and read it; a line that does not read back (a torn
 * tail, a damaged block) is skipped by the reader.
 */
final class AuditJson {
    static final int VERSION = 1;

    private AuditJson() {}

    static String encode(AuditEvent e) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"v\":").append(VERSION);
        field(b, "id", e.id());
        field(b, "time", e.time().toString());
        field(b, "principal", e.principal());
        field(b, "source", e.source());
        field(b, "action", e.action());
        field(b, "resource", e.resource());
        field(b, "outcome", e.outcome());
        b.append(",\"status\":").append(e.status());
        field(b, "requestId", e.requestId());
        b.append(",\"details\":{");
        boolean first = true;
        for (Map.Entry<String, String> d : e.details().entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            string(b, d.getKey());
            b.append(':');
            string(b, d.getValue());
        }
        return b.append("}}").toString();
    }

    /** The event a line holds; throws IllegalArgumentException when it is not one. */
    static AuditEvent decode(String line) {
        Parser p = new Parser(line);
        Map<String, Object> m = p.object();
        p.end();
        Object v = m.get("v");
        if (!(v instanceof Long version) || version != VERSION) {
            throw new IllegalArgumentException("audit line version: " + v + " (expected " + VERSION + ")");
        }
        @SuppressWarnings("unchecked")
        Map<String, String> details = m.get("details") instanceof Map<?, ?> d ? (Map<String, String>) d : Map.of();
        return new AuditEvent(
                str(m, "id"),
                Instant.parse(str(m, "time")),
                str(m, "principal"),
                str(m, "source"),
                str(m, "action"),
                str(m, "resource"),
                str(m, "outcome"),
                m.get("status") instanceof Long s ? s.intValue() : 0,
                str(m, "requestId"),
                details);
    }

    private static String str(Map<String, Object> m, String name) {
        Object o = m.get(name);
        if (o != null && !(o instanceof String)) {
            throw new IllegalArgumentException("audit line field " + name + ": not a string");
        }
        return (String) o;
    }

    private static void field(StringBuilder b, String name, String value) {
        b.append(",\"").append(name).append("\":");
        string(b, value);
    }

    static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    /** Reads objects of strings, integers and objects: all an audit line holds. */
    private static final class Parser {
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        Map<String, Object> object() {
            expect('{');
            Map<String, Object> m = new LinkedHashMap<>();
            skipSpace();
            if (peek() == '}') {
                i++;
                return m;
            }
            while (true) {
                skipSpace();
                String name = string();
                skipSpace();
                expect(':');
                skipSpace();
                char c = peek();
                Object value = c == '"' ? string() : c == '{' ? object() : number();
                m.put(name, value);
                skipSpace();
                char next = next();
                if (next == '}') {
                    return m;
                }
                if (next != ',') {
                    throw bad("',' or '}'");
                }
            }
        }

        void end() {
            skipSpace();
            if (i != s.length()) {
                throw bad("end of line");
            }
        }

        private Long number() {
            int start = i;
            if (peek() == '-') {
                i++;
            }
            while (i < s.length() && Character.isDigit(s.charAt(i))) {
                i++;
            }
            if (start == i) {
                throw bad("a value");
            }
            return Long.parseLong(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return b.toString();
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw bad("four hex digits");
                        }
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> throw bad("an escape");
                }
            }
        }

        private void skipSpace() {
            while (i < s.length() && s.charAt(i) == ' ') {
                i++;
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw bad("more");
            }
            return s.charAt(i);
        }

        private char next() {
            char c = peek();
            i++;
            return c;
        }

        private void expect(char c) {
            if (next() != c) {
                throw bad("'" + c + "'");
            }
        }

        private IllegalArgumentException bad(String expected) {
            return new IllegalArgumentException("audit line: expected " + expected + " at " + i);
        }
    }
}
