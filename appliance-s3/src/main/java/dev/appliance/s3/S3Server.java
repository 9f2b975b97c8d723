package dev.appliance.s3;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectStore;
import dev.appliance.s3.access.AccessLog;
import dev.appliance.s3.api.S3Dispatcher;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.http.HttpServer;
import dev.appliance.s3.metrics.S3Metrics;
import java.time.Clock;

/**
 * The S3 endpoint over an {@link ObjectStore}: path-style and virtual-hosted-style addressing, plain HTTP or TLS,
 * SigV4 header and query (presigned URL) authentication (all payload modes including aws-chunked with trailers), the
 * operations listed in {@code docs/s3-api.md}, admission control of connections and requests.
 *
 * <p>Request path: Netty event loop (parse, authenticate) → virtual thread (authorize, run the operation against the
 * store, stream the response) → event loop. The store is never called on an event loop. The server does not own the
 * store: closing the server leaves the store open.
 */
public final class S3Server implements AutoCloseable {
    private final HttpServer http;
    private final AccessLog accessLog;

    private S3Server(HttpServer http, AccessLog accessLog) {
        this.http = http;
        this.accessLog = accessLog;
    }

    /** Binds and returns once listening. */
    public static S3Server start(ObjectStore store, S3ServerConfig config) throws InterruptedException {
        return start(store, config, S3Metrics.NONE);
    }

    /** Binds and returns once listening; requests, bytes and authentication failures are told to {@code metrics}. */
    public static S3Server start(ObjectStore store, S3ServerConfig config, S3Metrics metrics)
            throws InterruptedException {
        return start(store, config, metrics, new AccessLog(AccessLog.SYSTEM_LOGGER, false));
    }

    /**
     * As above, offering each answered request to {@code accessLog} (which records it when switched on); the server
     * owns it from here and closes it after the last request.
     */
    public static S3Server start(ObjectStore store, S3ServerConfig config, S3Metrics metrics, AccessLog accessLog)
            throws InterruptedException {
        requireNonNull(store, "store");
        requireNonNull(accessLog, "accessLog");
        requireNonNull(config, "config");
        SigV4Verifier verifier = new SigV4Verifier(config.credentials(), config.region(), Clock.systemUTC());
        // audited calls go to the engine's audit log when it keeps one (docs/audit.md)
        S3Dispatcher dispatcher = new S3Dispatcher(
                store, config.authorizer(), config.region(), verifier, dev.appliance.s3.audit.AuditSink.of(store));
        S3ServerConfig.Limits limits = config.limits();
        HttpServer.Options options = new HttpServer.Options(
                config.tls() == null ? null : config.tls().sslContext(),
                config.domain(),
                limits.maxConnections(),
                limits.maxInFlight(),
                limits.maxWaiting(),
                config.timeouts().requestHead(),
                config.timeouts().bodyRead(),
                config.timeouts().idle());
        return new S3Server(
                HttpServer.start(config.host(), config.port(), options, verifier, dispatcher, metrics, accessLog),
                accessLog);
    }

    /** Open connections, requests in flight and requests waiting for admission, now. */
    public HttpServer.Stats stats() {
        return http.stats();
    }

    /** The S3 access log, to switch on and off at run time. */
    public AccessLog accessLog() {
        return accessLog;
    }

    /** The port actually bound. */
    public int port() {
        return http.port();
    }

    /** Stops accepting, lets requests in flight finish briefly (5 s), closes connections. */
    @Override
    public void close() {
        http.close();
        accessLog.close(); // after the last request: its line is written too
    }

    /**
     * Stops accepting and refuses new requests (503), lets requests in flight finish for up to {@code grace}, then
     * closes every connection (see {@link HttpServer#close(java.time.Duration)}).
     *
     * @return the number of requests cut short when the grace period ran out
     */
    public int close(java.time.Duration grace) {
        return http.close(grace);
    }
}
