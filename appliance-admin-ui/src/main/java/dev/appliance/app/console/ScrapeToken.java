package dev.appliance.app.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The bearer token that admits a Prometheus scrape of {@code /actuator/prometheus}. Without a configured token every
 * scrape is refused (deny by default). The presented token is compared in constant time, over digests so that not even
 * its length shows in the timing; neither is ever logged or echoed.
 */
final class ScrapeToken {
    /** The scrape endpoint's path, as routed. */
    static final String PATH = "/actuator/prometheus";

    /** What a scrape's Authorization header amounts to. */
    enum Verdict {
        ACCEPTED,
        /** No {@code Bearer} token, or the wrong one: 401, with a challenge. */
        UNAUTHENTICATED,
        /** No token is configured: nobody may scrape, 403. */
        DISABLED
    }

    private final byte[] digest;

    /** @param token the configured token; null or blank disables the endpoint */
    ScrapeToken(String token) {
        this.digest = token == null || token.isBlank() ? null : sha256(token);
    }

    Verdict check(String authorization) {
        if (digest == null) {
            return Verdict.DISABLED;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Verdict.UNAUTHENTICATED;
        }
        byte[] presented = sha256(authorization.substring(7).strip());
        return MessageDigest.isEqual(digest, presented) ? Verdict.ACCEPTED : Verdict.UNAUTHENTICATED;
    }

    /** SHA-256 of {@code s}: secrets are compared as digests, in constant time, so not even their length shows. */
    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
