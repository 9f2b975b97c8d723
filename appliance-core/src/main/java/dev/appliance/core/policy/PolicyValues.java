package dev.appliance.core.policy;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * How typed condition values are read, from policies and from requests alike: numbers (integers or decimals), dates
 * (ISO 8601 date-times with or without offset, read as UTC without one, plain dates at midnight UTC, or epoch
 * seconds), IP addresses and CIDR blocks (IPv4 and IPv6). Each returns null for text that is no such value.
 */
final class PolicyValues {
    private PolicyValues() {}

    static BigDecimal number(String text) {
        if (text.isEmpty() || text.length() > 64) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9') && c != '.' && c != '-' && c != '+') {
                return null;
            }
        }
        try {
            return new BigDecimal(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static Instant date(String text) {
        if (text.isEmpty() || text.length() > 64) {
            return null;
        }
        boolean digits = true;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-')) {
                digits = false;
                break;
            }
        }
        try {
            if (digits) {
                return text.length() <= 12 ? Instant.ofEpochSecond(Long.parseLong(text)) : null;
            }
            if (text.indexOf('T') < 0) {
                return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
            }
            char last = text.charAt(text.length() - 1);
            if (last == 'Z' || last == 'z' || text.lastIndexOf('+') > 10 || text.lastIndexOf('-') > 10) {
                return OffsetDateTime.parse(text.replace('z', 'Z')).toInstant();
            }
            return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException | NumberFormatException e) {
            return null;
        }
    }

    /** An IPv4 or IPv6 literal's bytes (4 or 16), or null. */
    static byte[] address(String text) {
        if (text.isEmpty() || text.length() > 64) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean ok =
                    (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':';
            if (!ok) {
                return null;
            }
        }
        try {
            return InetAddress.ofLiteral(text).getAddress();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** A CIDR block ({@code 203.0.113.0/24}, {@code 2001:db8::/32}) or one address (a full-length prefix). */
    record Cidr(byte[] network, int prefix) {
        boolean contains(byte[] address) {
            if (address == null || address.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (network[full] & mask);
        }
    }

    static Cidr cidr(String text) {
        int slash = text.indexOf('/');
        byte[] network = address(slash < 0 ? text : text.substring(0, slash));
        if (network == null) {
            return null;
        }
        int max = network.length * 8;
        int prefix = max;
        if (slash >= 0) {
            String bits = text.substring(slash + 1);
            if (bits.isEmpty() || bits.length() > 3 || !bits.chars().allMatch(Character::isDigit)) {
                return null;
            }
            prefix = Integer.parseInt(bits);
            if (prefix > max) {
                return null;
            }
        }
        return new Cidr(network, prefix);
    }

    /**
     * Splits an ARN (or an ARN pattern) into its six colon-separated components; the sixth keeps any further colons.
     * Colons inside a policy variable ({@code ${aws:username}}) do not split. Returns null for fewer than six.
     */
    static String[] arnComponents(String arn) {
        String[] parts = new String[6];
        int start = 0;
        int n = 0;
        int depth = 0;
        for (int i = 0; i < arn.length() && n < 5; i++) {
            char c = arn.charAt(i);
            if (c == '$' && i + 1 < arn.length() && arn.charAt(i + 1) == '{') {
                depth++;
            } else if (c == '}' && depth > 0) {
                depth--;
            } else if (c == ':' && depth == 0) {
                parts[n++] = arn.substring(start, i);
                start = i + 1;
            }
        }
        if (n < 5) {
            return null;
        }
        parts[5] = arn.substring(start);
        return parts;
    }
}
