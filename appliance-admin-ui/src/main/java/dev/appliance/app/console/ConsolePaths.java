package dev.appliance.app.console;

/**
 * The one spelling of a console path that is accepted, and what it means. Tomcat decodes, drops {@code ;} parameters
 * and resolves dot segments before it maps a servlet, while Spring MVC matches the raw URI segment by segment after
 * dropping {@code ;} parameters and decoding; a check on yet another form of the path can be walked around. So any
 * path that more than one of these readings could disagree about is refused, and the accepted ones read the same to
 * all of them: the authorizer decides on exactly the path the controller is dispatched on.
 *
 * <p>Refused: no leading {@code /}; {@code ;} anywhere (path parameters); {@code \}; empty segments ({@code //}, a
 * trailing {@code /}); {@code .} and {@code ..} segments and segments ending in a dot; bytes outside printable ASCII;
 * malformed percent escapes; and a percent escape of anything but the few punctuation characters that name nothing
 * to a router (an alert id's colon, which the CLI encodes). So {@code %2F}, {@code %5C}, {@code %2E}, {@code %3B},
 * {@code %25} and encoded letters or digits ({@code /%61dmin/}) never get through.
 */
final class ConsolePaths {
    /** Characters that may arrive percent-encoded: they split nothing and every reader decodes them alike. */
    private static final String ENCODABLE = ":@!$&'()*+,=";

    private ConsolePaths() {}

    /** Why a path was refused; the message is for the caller. */
    static final class Ambiguous extends Exception {
        private static final long serialVersionUID = 1L;

        Ambiguous(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * @param raw the request path as received (the servlet request URI: undecoded, parameters included)
     * @return the path decoded, which is then also what the container normalised it to
     * @throws Ambiguous if the path can be read more than one way
     */
    static String canonical(String raw) throws Ambiguous {
        if (raw == null || !raw.startsWith("/")) {
            throw new Ambiguous("the path must start with '/'");
        }
        StringBuilder decoded = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new Ambiguous("the path holds a control, space or non-ASCII character");
            }
            if (c == ';') {
                throw new Ambiguous("path parameters (';') are not accepted");
            }
            if (c == '\\') {
                throw new Ambiguous("backslashes are not accepted in the path");
            }
            if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (lo < 0) {
                    throw new Ambiguous("malformed percent escape in the path");
                }
                char d = (char) (hi * 16 + lo);
                if (ENCODABLE.indexOf(d) < 0) {
                    throw new Ambiguous("'" + raw.substring(i, i + 3) + "' in the path: only " + ENCODABLE
                            + " may be percent-encoded; send other characters as they are");
                }
                decoded.append(d);
                i += 2;
                continue;
            }
            decoded.append(c);
        }
        if (raw.length() > 1) {
            // split on the raw '/' only: an encoded one was refused above, so the segments are the router's
            for (String segment : raw.substring(1).split("/", -1)) {
                if (segment.isEmpty()) {
                    throw new Ambiguous("empty path segment ('//' or a trailing '/')");
                }
                if (segment.endsWith(".")) {
                    throw new Ambiguous("'.' and '..' segments, and segments ending in '.', are not accepted");
                }
            }
        }
        return decoded.toString();
    }
}
