package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.error.S3Exception;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The {@code Authorization} header's fields are read by scanning ({@link SigV4Verifier.ParsedAuthorization#parse});
 * this test holds it to the plain reading by {@code String.split} it replaced ({@link #reference}): the same fields, or
 * the same refusal with the same message, for edge cases and for many headers assembled from the pieces that matter
 * (commas, blanks, '=' and '/' in odd places, upper case, empty parts).
 */
class ParsedAuthorizationTest {
    private static final String GOOD_SIGNATURE = "a".repeat(64);
    private static final List<String> PIECES = List.of(
            "Credential=",
            "SignedHeaders=",
            "Signature=",
            "AKID",
            "/",
            "20250101",
            "us-east-1",
            "s3",
            "aws4_request",
            "host",
            ";",
            "x-amz-date",
            "X-Amz-Date",
            ",",
            ", ",
            " ",
            "\t",
            "=",
            GOOD_SIGNATURE,
            "ABCDEF",
            "",
            "é",
            "Other=");

    @Test
    void edgeCases_matchTheSplitReading() {
        String valid = "Credential=AKID/20250101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature="
                + GOOD_SIGNATURE;
        for (String fields : List.of(
                valid,
                valid + ",",
                valid + ",,,",
                valid + ", ",
                "," + valid,
                valid.replace(", ", ",,"),
                valid.replace("Signature=" + GOOD_SIGNATURE, "Signature=" + GOOD_SIGNATURE.toUpperCase(Locale.ROOT)),
                "",
                ",",
                ",,",
                " ",
                "=x",
                "Credential",
                valid.replace("/aws4_request", "/aws4_request/"),
                valid.replace("AKID/", "/"),
                valid.replace("/s3/", "/s3//"),
                valid.replace("20250101", "2025010"),
                valid.replace("host;x-amz-date", "x-amz-date;host"),
                valid.replace("host;x-amz-date", "host;"),
                valid.replace("host;x-amz-date", "Host"),
                valid.replace("host;x-amz-date", "hosté;x"),
                valid + ", Credential=AKID/20250101/us-east-1/s3/aws4_request",
                valid.replace("Credential=", "Credential ="))) {
            assertThat(outcome(() -> SigV4Verifier.ParsedAuthorization.parse(fields)))
                    .as("fields [%s]", fields)
                    .isEqualTo(outcome(() -> reference(fields)));
        }
    }

    @Test
    void assembledHeaders_matchTheSplitReading() {
        Random random = new Random(17);
        int accepted = 0;
        for (int i = 0; i < 50_000; i++) {
            StringBuilder sb = new StringBuilder();
            if (random.nextInt(3) > 0) { // mostly near-valid headers, with a piece changed
                sb.append("Credential=AKID/20250101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, ")
                        .append("Signature=")
                        .append(GOOD_SIGNATURE);
                int at = random.nextInt(sb.length() + 1);
                sb.insert(at, PIECES.get(random.nextInt(PIECES.size())));
            } else {
                int n = random.nextInt(12);
                for (int k = 0; k < n; k++) {
                    sb.append(PIECES.get(random.nextInt(PIECES.size())));
                }
            }
            String fields = sb.toString();
            String parsed = outcome(() -> SigV4Verifier.ParsedAuthorization.parse(fields));
            assertThat(parsed).as("fields [%s]", fields).isEqualTo(outcome(() -> reference(fields)));
            accepted += parsed.startsWith("ParsedAuthorization") ? 1 : 0;
        }
        assertThat(accepted).as("some assembled headers are well formed").isGreaterThan(1_000);
    }

    private static String outcome(java.util.function.Supplier<SigV4Verifier.ParsedAuthorization> parse) {
        try {
            return parse.get().toString();
        } catch (S3Exception e) {
            return e.code() + ": " + e.getMessage();
        }
    }

    /** The plain reading, by {@code String.split}: what the verifier did before it scanned. */
    private static SigV4Verifier.ParsedAuthorization reference(String fields) {
        Map<String, String> found = new java.util.HashMap<>();
        for (String part : fields.split(",")) {
            String p = part.strip();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw SigV4Verifier.malformed("bad field '" + p + "'");
            }
            String name = p.substring(0, eq);
            if (!List.of("Credential", "SignedHeaders", "Signature").contains(name)) {
                throw SigV4Verifier.malformed("unknown field " + name);
            }
            if (found.putIfAbsent(name, p.substring(eq + 1)) != null) {
                throw SigV4Verifier.malformed(name + " given twice");
            }
        }
        if (found.size() != 3) {
            throw SigV4Verifier.malformed("Credential, SignedHeaders and Signature are required");
        }
        String[] scope = found.get("Credential").split("/", -1);
        if (scope.length != 5 || scope[0].isEmpty() || !scope[4].equals("aws4_request")) {
            throw SigV4Verifier.malformed("the Credential must be AccessKey/date/region/s3/aws4_request");
        }
        if (!scope[1].matches("[0-9]{8}")) {
            throw SigV4Verifier.malformed("bad credential date");
        }
        String signature = found.get("Signature");
        if (!signature.matches("[0-9a-fA-F]{64}")) {
            throw SigV4Verifier.malformed("the signature must be 64 hex digits");
        }
        List<String> names = List.of(found.get("SignedHeaders").split(";", -1));
        String previous = "";
        for (String n : names) {
            if (n.isEmpty() || !n.equals(n.toLowerCase(Locale.ROOT)) || n.compareTo(previous) <= 0) {
                throw SigV4Verifier.malformed("SignedHeaders must be lower-case, sorted and unique");
            }
            previous = n;
        }
        return new SigV4Verifier.ParsedAuthorization(
                scope[0], scope[1], scope[2], scope[3], names, signature.toLowerCase(Locale.ROOT));
    }
}
