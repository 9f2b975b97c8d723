package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Verifies the SigV4 {@code Authorization} header of a request. Checks, in order: scheme, header syntax, {@code
 * x-amz-content-sha256}, request time and skew (15 minutes), credential scope (date, region, service), signed header
 * list ({@code host} and every {@code x-amz-*} header present must be signed), access key, signature (constant time).
 *
 * <p>Presigned URLs (query authentication, {@code X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=...}) are
 * checked the same way, with the time window {@code X-Amz-Date} + {@code X-Amz-Expires} (1 s .. 7 days) instead of
 * the skew, the payload signed as {@code UNSIGNED-PAYLOAD}, and the query without {@code X-Amz-Signature} as the
 * canonical query. A request carrying both an {@code Authorization} header and query authentication is refused.
 *
 * <p>Runs on the event loop: the {@link CredentialsProvider} must answer from memory.
 */
public final class SigV4Verifier {
    public static final Duration MAX_SKEW = Duration.ofMinutes(15);
    /** The service name in the credential scope of requests to the IAM query API served on the S3 address. */
    public static final String IAM_SERVICE = "iam";

    private final CredentialsProvider credentials;
    private final String region;
    private final Clock clock;
    private final SigningKeyCache keys = new SigningKeyCache(256);

    public SigV4Verifier(CredentialsProvider credentials, String region, Clock clock) {
        this.credentials = requireNonNull(credentials, "credentials");
        this.region = requireNonNull(region, "region");
        this.clock = requireNonNull(clock, "clock");
    }

    /**
     * @param rawPath the request path exactly as received (still percent-encoded)
     * @param rawQuery the query string exactly as received, or null
     * @param headers request headers, names lower-case, values in arrival order
     * @throws S3Exception with the S3 error when the request is not authentic
     */
    public AuthResult verify(String method, String rawPath, String rawQuery, Map<String, List<String>> headers) {
        return verify(method, rawPath, rawQuery, headers, null, "s3");
    }

    /**
     * For small requests read whole before they are verified (the admin API): as SigV4 outside S3, the payload hash may
     * be left out of the headers and is then the SHA-256 of {@code body}; when the header is present the body must
     * match it.
     */
    public AuthResult verifyWholeBody(
            String method, String rawPath, String rawQuery, Map<String, List<String>> headers, byte[] body) {
        return verifyWhole(method, rawPath, rawQuery, headers, body, "s3");
    }

    /**
     * For a request of the IAM query API ({@code Action=...}), signed for the service {@link #IAM_SERVICE} and read
     * whole: as {@link #verifyWholeBody}, with header authentication only (IAM clients do not presign). A request signed
     * for {@code s3} is refused here, as a request signed for {@code iam} is refused by {@link #verify}.
     */
    public AuthResult verifyIam(
            String method, String rawPath, String rawQuery, Map<String, List<String>> headers, byte[] body) {
        if (!PresignedQuery.authParams(rawQuery).isEmpty()) {
            throw new S3Exception(
                    S3ErrorCode.AccessDenied, "IAM requests are authenticated by the Authorization header.");
        }
        AuthResult auth = verifyWhole(method, rawPath, rawQuery, headers, body, IAM_SERVICE);
        if (auth.payloadMode() != PayloadMode.SHA256) {
            // the parameters are in the body: an unsigned body could be swapped for another action
            throw new S3Exception(S3ErrorCode.AccessDenied, "IAM requests must sign their body.");
        }
        return auth;
    }

    /**
     * Whether a request carries no credentials at all: no {@code Authorization} header and no presigned query
     * parameters. The S3 front end takes such a request as anonymous (never to be authenticated by {@link #verify});
     * cheap enough for the event loop.
     */
    public static boolean isAnonymous(String rawQuery, Map<String, List<String>> headers) {
        // a SigV2 presigned query (AWSAccessKeyId=...) is credentials too: refused by verify, never taken as anonymous
        return first(headers, "authorization") == null
                && PresignedQuery.authParams(rawQuery).isEmpty()
                && (rawQuery == null || !rawQuery.contains("AWSAccessKeyId="));
    }

    /**
     * The access key id a request claims to be signed with, verified or not: the first part of the {@code Credential}
     * of an {@code Authorization} header or of {@code X-Amz-Credential}, or a SigV2 header's or query's key id. Only
     * that part is taken, never the signature or the rest of the header. {@link #UNREADABLE_KEY} when there is none or
     * it does not look like a key id (at most 128 letters, digits and {@code ._-+=}), so that whatever else a client
     * put there is never repeated. Cheap enough for the event loop.
     */
    public static String claimedAccessKey(String rawQuery, Map<String, List<String>> headers) {
        String claimed = null;
        try {
            String authorization = first(headers, "authorization");
            if (authorization != null) {
                int at = authorization.indexOf("Credential=");
                if (authorization.startsWith(SigV4.ALGORITHM + " ") && at >= 0) {
                    claimed = upTo(authorization.substring(at + "Credential=".length()), ",/");
                } else if (authorization.startsWith("AWS ")) {
                    claimed = upTo(authorization.substring(4), ":");
                }
            } else {
                String credential = PresignedQuery.authParams(rawQuery).get("X-Amz-Credential");
                if (credential != null) {
                    return claimedAccessKey(credential);
                } else if (rawQuery != null) {
                    for (String part : rawQuery.split("&")) {
                        if (part.startsWith("AWSAccessKeyId=")) {
                            claimed = UriEncoding.decode(part.substring("AWSAccessKeyId=".length()));
                        }
                    }
                }
            }
        } catch (RuntimeException e) { // a query that does not decode: nothing to tell
            claimed = null;
        }
        return readable(claimed);
    }

    /**
     * The access key id of a credential ({@code AK/date/region/service/aws4_request}, a form's {@code x-amz-credential}
     * or a presigned query's), unverified: as {@link #claimedAccessKey(String, Map)}.
     */
    public static String claimedAccessKey(String credential) {
        return readable(credential == null ? null : upTo(credential, "/"));
    }

    private static String readable(String claimed) {
        return claimed != null && KEY_ID.matcher(claimed).matches() ? claimed : UNREADABLE_KEY;
    }

    /**
     * How the audit log names a claimed key id ({@link #claimedAccessKey}): a key this verifier knows as it is (a key id
     * is no secret); any other cut to its first four characters and marked {@code *** (unknown key)}, since a client
     * that mixed up its key id and secret sends the secret there. From memory, cheap enough for the event loop.
     */
    public String auditedKey(String claimed) {
        if (claimed.equals(UNREADABLE_KEY) || credentials.secretKey(claimed).isPresent()) {
            return claimed;
        }
        return claimed.substring(0, Math.min(4, claimed.length())) + "*** (unknown key)";
    }

    /** What {@link #claimedAccessKey} answers when no key id can be read. */
    public static final String UNREADABLE_KEY = "unreadable";

    private static final java.util.regex.Pattern KEY_ID = java.util.regex.Pattern.compile("[A-Za-z0-9._+=-]{1,128}");

    private static String upTo(String s, String stops) {
        int end = s.length();
        for (char c : stops.toCharArray()) {
            int i = s.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        return s.substring(0, end).strip();
    }

    /**
     * The service the {@code Authorization} header's credential scope names ({@code AK/date/region/SERVICE/aws4_request}),
     * or null when there is no such header or it does not have that shape. Nothing is verified: this only tells which
     * verification (S3 or IAM) the request is for; cheap enough for the event loop.
     */
    public static String signedService(Map<String, List<String>> headers) {
        String authorization = first(headers, "authorization");
        if (authorization == null || !authorization.startsWith(SigV4.ALGORITHM + " ")) {
            return null;
        }
        int at = authorization.indexOf("Credential=");
        if (at < 0) {
            return null;
        }
        int end = authorization.indexOf(',', at);
        String credential = authorization
                .substring(at + "Credential=".length(), end < 0 ? authorization.length() : end)
                .strip();
        // AK/date/region/SERVICE/aws4_request: exactly four slashes, the service between the third and the fourth
        int third = nthSlash(credential, 0, 3);
        int fourth = third < 0 ? -1 : credential.indexOf('/', third + 1);
        return fourth < 0 || credential.indexOf('/', fourth + 1) >= 0 ? null : credential.substring(third + 1, fourth);
    }

    /** The index of the {@code n}th {@code '/'} of {@code s} from {@code from}, or -1. */
    private static int nthSlash(String s, int from, int n) {
        int at = from - 1;
        for (int i = 0; i < n; i++) {
            at = s.indexOf('/', at + 1);
            if (at < 0) {
                return -1;
            }
        }
        return at;
    }

    private AuthResult verifyWhole(
            String method,
            String rawPath,
            String rawQuery,
            Map<String, List<String>> headers,
            byte[] body,
            String service) {
        String bodySha = SigV4.sha256Hex(body);
        AuthResult auth = verify(method, rawPath, rawQuery, headers, bodySha, service);
        if (auth.payloadMode() == PayloadMode.SHA256 && !auth.contentSha256().equals(bodySha)) {
            throw new S3Exception(S3ErrorCode.XAmzContentSHA256Mismatch);
        }
        if (auth.payloadMode().chunked()) {
            throw new S3Exception(S3ErrorCode.InvalidRequest, "aws-chunked bodies are not taken here.");
        }
        return auth;
    }

    private AuthResult verify(
            String method,
            String rawPath,
            String rawQuery,
            Map<String, List<String>> headers,
            String absentSha,
            String service) {
        String authorization = first(headers, "authorization");
        Map<String, String> queryAuth = PresignedQuery.authParams(rawQuery);
        if (!queryAuth.isEmpty()) {
            if (authorization != null) {
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument,
                        "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query"
                                + " string parameter or the Authorization header should be specified");
            }
            return verifyPresigned(method, rawPath, rawQuery, headers, queryAuth);
        }
        if (authorization == null) {
            throw new S3Exception(S3ErrorCode.AccessDenied, "Anonymous access is not allowed.");
        }
        if (!authorization.startsWith(SigV4.ALGORITHM + " ")) {
            if (authorization.startsWith("AWS ")) {
                throw new S3Exception(
                        S3ErrorCode.InvalidRequest,
                        "The authorization mechanism you have provided is not supported. Please use " + SigV4.ALGORITHM
                                + ".");
            }
            throw malformed("unknown authorization scheme");
        }
        ParsedAuthorization parsed = ParsedAuthorization.parse(authorization.substring(SigV4.ALGORITHM.length() + 1));

        String contentSha = first(headers, "x-amz-content-sha256");
        if (contentSha == null) {
            contentSha = absentSha;
        }
        if (contentSha == null) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest, "Missing required header for this request: x-amz-content-sha256");
        }
        PayloadMode mode = PayloadMode.parse(contentSha);

        Instant requestTime = requestTime(headers);
        Instant now = clock.instant();
        if (Duration.between(requestTime, now).abs().compareTo(MAX_SKEW) > 0) {
            throw new S3Exception(S3ErrorCode.RequestTimeTooSkewed);
        }
        String amzDate = AmzDate.format(requestTime);

        if (!parsed.date.equals(amzDate.substring(0, 8))) {
            throw malformed("credential date " + parsed.date + " does not match the request date");
        }
        if (!parsed.region.equals(region)) {
            throw new S3Exception(
                    S3ErrorCode.AuthorizationHeaderMalformed,
                    "The authorization header is malformed; the region '" + parsed.region + "' is wrong; expecting '"
                            + region + "'");
        }
        if (!parsed.service.equals(service)) {
            throw malformed("service '" + parsed.service + "' is not " + service);
        }
        if (!parsed.signedHeaders.contains("host")) {
            throw malformed("the host header must be signed");
        }
        requireAmzHeadersSigned(headers, parsed.signedHeaders);

        String secret = credentials
                .secretKey(parsed.accessKey)
                .orElseThrow(() -> new S3Exception(S3ErrorCode.InvalidAccessKeyId));
        byte[] signingKey = keys.get(secret, parsed.date, region, service);
        String scope = SigV4.scope(parsed.date, region, service);
        String canonical = SigV4.canonicalRequest(method, rawPath, rawQuery, parsed.signedHeaders, headers, contentSha);
        String expected = SigV4.signature(signingKey, SigV4.stringToSign(amzDate, scope, canonical));
        if (!MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII), parsed.signature.getBytes(StandardCharsets.US_ASCII))) {
            throw new S3Exception(S3ErrorCode.SignatureDoesNotMatch);
        }
        return new AuthResult(parsed.accessKey, signingKey, amzDate, scope, parsed.signature, mode, contentSha);
    }

    /** Every {@code x-amz-*} header of the request must be signed: unsigned ones could be altered in transit. */
    private static void requireAmzHeadersSigned(Map<String, List<String>> headers, List<String> signedHeaders) {
        List<String> unsigned = new ArrayList<>();
        for (String name : headers.keySet()) {
            if (name.startsWith("x-amz-") && !signedHeaders.contains(name)) {
                unsigned.add(name);
            }
        }
        if (!unsigned.isEmpty()) {
            throw new S3Exception(
                    S3ErrorCode.AccessDenied,
                    "There were headers present in the request which were not signed: " + String.join(", ", unsigned));
        }
    }

    private AuthResult verifyPresigned(
            String method, String rawPath, String rawQuery, Map<String, List<String>> headers, Map<String, String> q) {
        PresignedQuery p = PresignedQuery.parse(q);
        if (!p.region().equals(region)) {
            throw PresignedQuery.error("the region '" + p.region() + "' is wrong; expecting '" + region + "'");
        }
        if (!p.service().equals("s3")) {
            throw PresignedQuery.error("the service '" + p.service() + "' is wrong; expecting 's3'");
        }
        Instant now = clock.instant();
        if (p.date().minus(MAX_SKEW).isAfter(now)) {
            throw new S3Exception(S3ErrorCode.AccessDenied, "Request is not valid yet");
        }
        if (now.isAfter(p.date().plusSeconds(p.expiresSeconds()))) {
            throw new S3Exception(S3ErrorCode.AccessDenied, "Request has expired")
                    .withHeader("x-amz-expires", Long.toString(p.expiresSeconds()));
        }
        if (!p.signedHeaders().contains("host")) {
            throw PresignedQuery.error("the host header must be signed");
        }
        requireAmzHeadersSigned(headers, p.signedHeaders());

        // The body: not covered by the signature; a signed x-amz-content-sha256 hash is still enforced.
        String contentSha = first(headers, "x-amz-content-sha256");
        PayloadMode mode = contentSha == null ? PayloadMode.UNSIGNED : PayloadMode.parse(contentSha);
        if (mode.chunked()) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRequest, "aws-chunked bodies need header authentication, not a presigned URL.");
        }
        String secret =
                credentials.secretKey(p.accessKey()).orElseThrow(() -> new S3Exception(S3ErrorCode.InvalidAccessKeyId));
        byte[] signingKey = keys.get(secret, p.credentialDate(), region, "s3");
        String scope = SigV4.scope(p.credentialDate(), region, "s3");
        String canonical = SigV4.canonicalRequest(
                method,
                rawPath,
                PresignedQuery.withoutSignature(rawQuery),
                p.signedHeaders(),
                headers,
                p.payloadHash());
        String expected = SigV4.signature(signingKey, SigV4.stringToSign(p.amzDate(), scope, canonical));
        if (!MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII), p.signature().getBytes(StandardCharsets.US_ASCII))) {
            throw new S3Exception(S3ErrorCode.SignatureDoesNotMatch);
        }
        String bodySha = mode == PayloadMode.SHA256 ? contentSha : SigV4.UNSIGNED_PAYLOAD;
        return new AuthResult(p.accessKey(), signingKey, p.amzDate(), scope, p.signature(), mode, bodySha);
    }

    /**
     * Verifies the signature of a browser-based upload (POST Object), whose credentials are form fields: {@code
     * x-amz-algorithm} ({@code AWS4-HMAC-SHA256}), {@code x-amz-credential} ({@code AK/date/region/s3/aws4_request}),
     * {@code x-amz-date}, and {@code x-amz-signature}, the hex HMAC-SHA256 of the {@code policy} field (the base64
     * text as sent) under the signing key of the credential's date. There is no clock-skew check: the policy's own
     * expiration bounds the form's life (checked by the operation).
     *
     * @param fields form fields by lower-case name; {@code policy} and {@code x-amz-signature} present
     */
    public AuthResult verifyPostPolicy(Map<String, String> fields) {
        String policy = requireNonNull(fields.get("policy"), "policy");
        String signature = requireNonNull(fields.get("x-amz-signature"), "x-amz-signature");
        String algorithm = postField(fields, "x-amz-algorithm");
        if (!algorithm.equals(SigV4.ALGORITHM)) {
            if (algorithm.equals("AWS4-ECDSA-P256-SHA256")) {
                throw new S3Exception(S3ErrorCode.NotImplemented, "SigV4a (AWS4-ECDSA-P256-SHA256) is not supported.");
            }
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument, "x-amz-algorithm only supports \"" + SigV4.ALGORITHM + "\"");
        }
        String credential = postField(fields, "x-amz-credential");
        String[] scope = credential.split("/", -1);
        if (scope.length != 5
                || scope[0].isEmpty()
                || !scope[1].matches("[0-9]{8}")
                || !scope[4].equals("aws4_request")) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument,
                    "x-amz-credential must be <access key>/<yyyyMMdd>/<region>/s3/aws4_request");
        }
        if (!scope[2].equals(region)) {
            throw new S3Exception(
                    S3ErrorCode.AuthorizationHeaderMalformed,
                    "The authorization header is malformed; the region '" + scope[2] + "' is wrong; expecting '"
                            + region + "'");
        }
        if (!scope[3].equals("s3")) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "x-amz-credential: the service must be s3");
        }
        String amzDate = postField(fields, "x-amz-date");
        try {
            AmzDate.parse(amzDate);
        } catch (DateTimeParseException e) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "x-amz-date must be yyyyMMdd'T'HHmmss'Z'");
        }
        String secret =
                credentials.secretKey(scope[0]).orElseThrow(() -> new S3Exception(S3ErrorCode.InvalidAccessKeyId));
        byte[] signingKey = keys.get(secret, scope[1], region, "s3");
        String expected = SigV4.signature(signingKey, policy);
        if (!MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII),
                signature.strip().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII))) {
            throw new S3Exception(S3ErrorCode.SignatureDoesNotMatch);
        }
        return new AuthResult(
                scope[0],
                signingKey,
                amzDate,
                SigV4.scope(scope[1], region, "s3"),
                expected,
                PayloadMode.UNSIGNED,
                SigV4.UNSIGNED_PAYLOAD);
    }

    private static String postField(Map<String, String> fields, String name) {
        String v = fields.get(name);
        if (v == null || v.isEmpty()) {
            throw new S3Exception(
                    S3ErrorCode.InvalidArgument, "Bucket POST must contain a field named '" + name + "'.");
        }
        return v.strip();
    }

    private static Instant requestTime(Map<String, List<String>> headers) {
        String amz = first(headers, "x-amz-date");
        try {
            if (amz != null) {
                return AmzDate.parse(amz);
            }
            String date = first(headers, "date");
            if (date != null) {
                return ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
            }
        } catch (DateTimeParseException e) {
            // fall through to the refusal below
        }
        throw new S3Exception(
                S3ErrorCode.AccessDenied, "AWS authentication requires a valid Date or x-amz-date header");
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> v = headers.get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    static S3Exception malformed(String why) {
        return new S3Exception(
                S3ErrorCode.AuthorizationHeaderMalformed, "The authorization header is malformed; " + why + ".");
    }

    /** The three parts of {@code Credential=..., SignedHeaders=..., Signature=...}. */
    record ParsedAuthorization(
            String accessKey,
            String date,
            String region,
            String service,
            List<String> signedHeaders,
            String signature) {

        static ParsedAuthorization parse(String fields) {
            // Read by scanning, not String.split: this runs on the event loop for every signed request, and the
            // splits, strips and lists took several per cent of a small GET's CPU. Parts are as split(",") makes
            // them: trailing empty parts dropped, any other empty or blank part refused.
            String credential = null;
            String signedHeaders = null;
            String signature = null;
            int end = fields.length();
            while (end > 0 && fields.charAt(end - 1) == ',') {
                end--;
            }
            for (int from = 0; from < end || (from == 0 && fields.isEmpty()); ) {
                int comma = fields.indexOf(',', from);
                int to = comma < 0 || comma > end ? end : comma;
                int start = from;
                int stop = to;
                while (start < stop && Character.isWhitespace(fields.charAt(start))) {
                    start++;
                }
                while (stop > start && Character.isWhitespace(fields.charAt(stop - 1))) {
                    stop--;
                }
                int eq = fields.indexOf('=', start);
                if (eq < 0 || eq >= stop || eq == start) {
                    throw malformed("bad field '" + fields.substring(start, stop) + "'");
                }
                String value = fields.substring(eq + 1, stop);
                if (fields.startsWith("Credential=", start) && eq == start + "Credential".length()) {
                    credential = once(credential, value, "Credential");
                } else if (fields.startsWith("SignedHeaders=", start) && eq == start + "SignedHeaders".length()) {
                    signedHeaders = once(signedHeaders, value, "SignedHeaders");
                } else if (fields.startsWith("Signature=", start) && eq == start + "Signature".length()) {
                    signature = once(signature, value, "Signature");
                } else {
                    throw malformed("unknown field " + fields.substring(start, eq));
                }
                from = to + 1;
            }
            if (credential == null || signedHeaders == null || signature == null) {
                throw malformed("Credential, SignedHeaders and Signature are required");
            }
            // AccessKey/date/region/service/aws4_request: exactly four slashes
            int s1 = credential.indexOf('/');
            int s4 = s1 <= 0 ? -1 : nthSlash(credential, s1 + 1, 3);
            if (s4 < 0
                    || credential.indexOf('/', s4 + 1) >= 0
                    || !credential.startsWith("aws4_request", s4 + 1)
                    || credential.length() != s4 + 1 + "aws4_request".length()) {
                throw malformed("the Credential must be AccessKey/date/region/s3/aws4_request");
            }
            int s2 = credential.indexOf('/', s1 + 1);
            int s3 = credential.indexOf('/', s2 + 1);
            if (s2 - s1 - 1 != 8 || AmzDate.number(credential, s1 + 1, 8) < 0) {
                throw malformed("bad credential date");
            }
            if (signature.length() != 64 || !PayloadMode.isSha256Hex(signature)) {
                throw malformed("the signature must be 64 hex digits");
            }
            List<String> names = new ArrayList<>(8);
            int from = 0;
            String previous = "";
            while (true) {
                int semicolon = signedHeaders.indexOf(';', from);
                String n = signedHeaders.substring(from, semicolon < 0 ? signedHeaders.length() : semicolon);
                if (n.isEmpty() || !isLowerCase(n) || n.compareTo(previous) <= 0) {
                    throw malformed("SignedHeaders must be lower-case, sorted and unique");
                }
                names.add(n);
                previous = n;
                if (semicolon < 0) {
                    break;
                }
                from = semicolon + 1;
            }
            return new ParsedAuthorization(
                    credential.substring(0, s1),
                    credential.substring(s1 + 1, s2),
                    credential.substring(s2 + 1, s3),
                    credential.substring(s3 + 1, s4),
                    List.copyOf(names),
                    signature.toLowerCase(Locale.ROOT));
        }

        /** Whether lower-casing (as {@code toLowerCase(Locale.ROOT)}) would leave {@code n} as it is. */
        private static boolean isLowerCase(String n) {
            for (int i = 0; i < n.length(); i++) {
                char c = n.charAt(i);
                if (c >= 'A' && c <= 'Z') {
                    return false;
                }
                if (c >= 0x80) {
                    return n.equals(n.toLowerCase(Locale.ROOT)); // beyond ASCII: the reference decides
                }
            }
            return true;
        }

        private static String once(String current, String value, String name) {
            if (current != null) {
                throw malformed(name + " given twice");
            }
            return value;
        }
    }
}
