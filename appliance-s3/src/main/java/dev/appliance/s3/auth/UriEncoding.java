package dev.appliance.s3.auth;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding as S3 and SigV4 use it: every UTF-8 byte except the unreserved {@code A-Z a-z 0-9 - . _ ~} is
 * written as {@code %XX} with upper-case hex. Decoding is strict: a bad escape or invalid UTF-8 is {@code InvalidURI}.
 * A {@code +} is a literal plus, never a space.
 */
public final class UriEncoding {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private UriEncoding() {}

    /** Encodes {@code s}; with {@code keepSlash} the {@code /} stays literal (paths), else it becomes {@code %2F}. */
    public static String encode(String s, boolean keepSlash) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            if (!unreserved(s.charAt(i), keepSlash)) {
                sb = new StringBuilder(s.length() + 16).append(s, 0, i);
                break;
            }
        }
        if (sb == null) {
            return s;
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        sb.setLength(0);
        for (byte b : bytes) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && unreserved(c, keepSlash)) {
                sb.append(c);
            } else {
                sb.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
        }
        return sb.toString();
    }

    private static boolean unreserved(char c, boolean keepSlash) {
        return (c >= 'A' && c <= 'Z')
                || (c >= 'a' && c <= 'z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '.'
                || c == '_'
                || c == '~'
                || (keepSlash && c == '/');
    }

    /** Decodes percent escapes to UTF-8 text. */
    public static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw invalid(s);
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw invalid(s);
                }
                out.write((hi << 4) | lo);
                i += 2;
            } else if (c < 0x80) {
                out.write(c);
            } else {
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
                    utf8 = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                }
                out.writeBytes(utf8);
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(out.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw invalid(s);
        }
    }

    private static S3Exception invalid(String s) {
        return new S3Exception(S3ErrorCode.InvalidURI, "Could not parse the specified URI: bad percent-encoding.");
    }
}
