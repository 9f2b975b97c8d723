package dev.appliance.s3;

import static java.util.Objects.requireNonNull;

import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.tls.ServerTls;
import java.time.Duration;
import java.util.Locale;

/**
 * How to run the S3 endpoint.
 *
 * @param host address to bind, e.g. {@code 0.0.0.0}
 * @param port TCP port; 0 picks a free one (tests)
 * @param region the region clients sign for; null means {@code us-east-1}
 * @param tls TLS on the port, or null for plain HTTP (lab mode)
 * @param domain the domain of virtual-hosted-style addressing ({@code bucket.DOMAIN}), or null for path style only
 * @param limits admission control: connection, in-flight and waiting request caps
 * @param timeouts how long a client may take to send a request head, to keep a request body coming, and to stay
 *     silent
 */
public record S3ServerConfig(
        String host,
        int port,
        String region,
        CredentialsProvider credentials,
        Authorizer authorizer,
        ServerTls tls,
        String domain,
        Limits limits,
        Timeouts timeouts) {
    public static final String DEFAULT_REGION = "us-east-1";

    public S3ServerConfig {
        requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected 0..65535)");
        }
        region = region == null || region.isBlank() ? DEFAULT_REGION : region;
        requireNonNull(credentials, "credentials");
        requireNonNull(authorizer, "authorizer");
        domain = domain == null || domain.isBlank() ? null : normaliseDomain(domain);
        limits = limits == null ? Limits.defaults() : limits;
        timeouts = timeouts == null ? Timeouts.DEFAULTS : timeouts;
    }

    /** With the default timeouts. */
    public S3ServerConfig(
            String host,
            int port,
            String region,
            CredentialsProvider credentials,
            Authorizer authorizer,
            ServerTls tls,
            String domain,
            Limits limits) {
        this(host, port, region, credentials, authorizer, tls, domain, limits, null);
    }

    /** Plain HTTP, path style, default limits. */
    public S3ServerConfig(
            String host, int port, String region, CredentialsProvider credentials, Authorizer authorizer) {
        this(host, port, region, credentials, authorizer, null, null, null, null);
    }

    private static String normaliseDomain(String domain) {
        String d = domain.strip().toLowerCase(Locale.ROOT);
        if (d.endsWith(".")) {
            d = d.substring(0, d.length() - 1);
        }
        if (!d.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")) {
            throw new IllegalArgumentException("domain '" + domain + "': not a DNS name");
        }
        return d;
    }

    /**
     * Admission control.
     *
     * @param maxConnections open connections beyond this are answered {@code 503 SlowDown} and closed
     * @param maxInFlight requests run at once; further requests wait, their connections are not read meanwhile
     * @param maxWaiting requests waiting for admission beyond this are answered {@code 503 SlowDown}
     */
    public record Limits(int maxConnections, int maxInFlight, int maxWaiting) {
        public static final int DEFAULT_MAX_CONNECTIONS = 10_000;

        public Limits {
            if (maxConnections < 1 || maxInFlight < 1 || maxWaiting < 0) {
                throw new IllegalArgumentException(
                        "limits must be positive: " + maxConnections + ", " + maxInFlight + ", " + maxWaiting);
            }
        }

        /** 10,000 connections; in-flight requests from memory and CPUs; waiting up to one request per connection. */
        public static Limits defaults() {
            return of(DEFAULT_MAX_CONNECTIONS, 0);
        }

        /** With {@code maxInFlight} 0 meaning "from the machine" ({@link #defaultInFlight}). */
        public static Limits of(int maxConnections, int maxInFlight) {
            return new Limits(maxConnections, maxInFlight > 0 ? maxInFlight : defaultInFlight(), maxConnections);
        }

        /**
         * 8 MiB of heap per request in flight (an erasure-coded stripe being written or read and its buffers), at most
         * 64 per CPU, within 32..4096.
         */
        public static int defaultInFlight() {
            long byMemory = Runtime.getRuntime().maxMemory() / (8L << 20);
            long byCpu = 64L * Runtime.getRuntime().availableProcessors();
            return (int) Math.max(32, Math.min(4096, Math.min(byMemory, byCpu)));
        }
    }

    /**
     * Read timeouts against slow or stalled clients (slowloris): each closes the connection, so a client cannot hold a
     * connection, and the request slot it may have, by sending slowly.
     *
     * @param requestHead a request head (request line and headers) must arrive whole within this time of its first
     *     byte; otherwise {@code 400 RequestTimeout} and the connection is closed
     * @param bodyRead while the server is reading a request body, the client must send something at least this
     *     often; otherwise the request fails with {@code 400 RequestTimeout} and the connection is closed (time in
     *     which the server itself does not read, by back-pressure, does not count)
     * @param idle a connection without any traffic in either direction for this long is closed (keep-alive
     *     connections between requests included)
     */
    public record Timeouts(Duration requestHead, Duration bodyRead, Duration idle) {
        /** 30 s for a head, 60 s of silence inside a body, 5 minutes idle. */
        public static final Timeouts DEFAULTS =
                new Timeouts(Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5));

        public Timeouts {
            for (Duration d : new Duration[] {requestHead, bodyRead, idle}) {
                requireNonNull(d, "timeout");
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("timeout: " + d + " (expected > 0)");
                }
            }
        }
    }
}
