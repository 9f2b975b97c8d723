package dev.appliance.s3.api;

import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** Small helpers shared by the handlers: parameter parsing, header formats, bounded body reads. */
public final class Params {
    /** S3's HTTP date format, always two-digit days. */
    public static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private Params() {}

    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
    };

    /**
     * {@code t} as {@link #HTTP_DATE} writes it. Written by hand for the years 1000 to 9999: the formatter took a few
     * per cent of the server's Java time on small GETs (each answer's {@code Last-Modified}); other years go to the
     * formatter, the reference the hand-written text must equal ({@code ParamsTest}).
     */
    public static String httpDate(Instant t) {
        java.time.LocalDateTime d = java.time.LocalDateTime.ofEpochSecond(t.getEpochSecond(), 0, ZoneOffset.UTC);
        int year = d.getYear();
        if (year < 1000 || year > 9999) {
            return HTTP_DATE.format(t);
        }
        StringBuilder b = new StringBuilder(29);
        b.append(DAYS[d.getDayOfWeek().ordinal()]).append(", ");
        twoDigits(b, d.getDayOfMonth()).append(' ');
        b.append(MONTHS[d.getMonthValue() - 1]).append(' ').append(year).append(' ');
        twoDigits(b, d.getHour()).append(':');
        twoDigits(b, d.getMinute()).append(':');
        return twoDigits(b, d.getSecond()).append(" GMT").toString();
    }

    private static StringBuilder twoDigits(StringBuilder b, int n) {
        return b.append((char) ('0' + n / 10)).append((char) ('0' + n % 10));
    }

    public static String quotedEtag(String etag) {
        return etag == null ? null : '"' + etag + '"';
    }

    /** {@code max-keys}: default 1000, above 1000 clamps to 1000, negative or not a number is InvalidArgument. */
    public static int maxKeys(S3Request r) {
        String v = r.param("max-keys");
        if (v == null) {
            return 1000;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n < 0) {
                throw new NumberFormatException(v);
            }
            return (int) Math.min(n, 1000);
        } catch (NumberFormatException e) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument, "Provided max-keys not an integer or within integer range");
        }
    }

    /** True for {@code encoding-type=url}; absent is false; any other value is InvalidArgument. */
    public static boolean urlEncoding(S3Request r) {
        String v = r.param("encoding-type");
        if (v == null) {
            return false;
        }
        if (v.equalsIgnoreCase("url")) {
            return true;
        }
        throw new S3Exception(S3ErrorCode.InvalidArgument, "Invalid Encoding Method specified in Request");
    }

    /** Encodes a key or prefix for {@code encoding-type=url} listings. */
    public static String encodeIf(boolean url, String s) {
        return s == null || !url ? s : UriEncoding.encode(s, true);
    }

    /** Empty strings count as absent for prefix, delimiter and markers. */
    public static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** Reads a small body completely (XML configuration), refusing more than {@code limit} bytes. */
    public static byte[] readSmallBody(S3Request r, int limit) throws IOException {
        InputStream in = r.body();
        byte[] data = in.readNBytes(limit + 1);
        if (data.length > limit) {
            throw new S3Exception(S3ErrorCode.MalformedXML, "The request body is too large for this operation.");
        }
        // reach end of stream so that payload verification runs
        if (in.read() != -1) {
            throw new S3Exception(S3ErrorCode.MalformedXML, "The request body is too large for this operation.");
        }
        return data;
    }
}
