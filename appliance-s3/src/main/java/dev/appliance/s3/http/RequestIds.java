package dev.appliance.s3.http;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/** Unique request ids ({@code x-amz-request-id}: 16 upper-case hex) and the per-server host id ({@code x-amz-id-2}). */
final class RequestIds {
    private final long base;
    private final AtomicLong counter = new AtomicLong();
    private final String hostId;

    RequestIds() {
        SecureRandom random = new SecureRandom();
        this.base = random.nextLong() & 0x7fff_ffff_0000_0000L;
        byte[] host = new byte[24];
        random.nextBytes(host);
        this.hostId = Base64.getEncoder().encodeToString(host);
    }

    String next() {
        return HexFormat.of().withUpperCase().toHexDigits(base + counter.incrementAndGet());
    }

    String hostId() {
        return hostId;
    }
}
