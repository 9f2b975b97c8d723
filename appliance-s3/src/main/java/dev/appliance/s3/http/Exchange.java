package dev.appliance.s3.http;

import dev.appliance.s3.access.AccessLog;
import dev.appliance.s3.api.S3Dispatcher;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.ErrorMapper;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.metrics.S3Metrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;

/**
 * One request in flight, run on a worker thread: dispatches, then writes the response (streaming GET bodies through
 * {@link ChannelOutputStream}), then tells the connection handler it is done.
 *
 * <p>The connection is closed after the response when the client asked for it, or when the request body was not
 * fully received (an early error): the unread rest of the body cannot be told apart from the next request. In the
 * second case the connection handler closes it, after reading and dropping what the client still sends (a lingering
 * close): most clients send the whole body before they read the answer, and a close while they send resets the
 * connection before they see the error.
 */
final class Exchange implements Runnable {
    private static final System.Logger LOG = System.getLogger(Exchange.class.getName());

    /** Streamed bodies up to this size are read before the head is sent ({@link #readIfSmall}). */
    static final int SMALL_BODY = 64 * 1024;

    final S3Request request;
    final BodyStream body;
    private final S3ChannelHandler handler;
    private final Channel channel;
    private final HttpServer.Services services;
    private final boolean keepAlive;
    /** When the request head was taken up, nanoTime: the latency recorded runs from here. */
    private final long startedNanos;
    /** The request was refused at authentication and is only audited; null for any other. */
    private final S3ChannelHandler.RefusedAuthentication refused;
    /** Set on the event loop when the last body byte has been received (before {@link BodyStream#end}). */
    volatile boolean requestBodyDone;
    /** The response went out before the body ended: closing the connection is the handler's (after lingering). */
    volatile boolean closeLeftToHandler;
    /** Request body bytes received so far; written by the event loop only. */
    volatile long bytesIn;
    /** Response body bytes handed to the connection (set by {@link #send}). */
    private long bytesOut;
    /** The last write (or close) of the response, done once the event loop has carried it out; worker thread only. */
    private ChannelFuture lastWrite;
    /** A response made whole by {@link #send}, for {@link #run} to write; worker thread only. */
    private FullHttpResponse whole;

    Exchange(
            S3ChannelHandler handler,
            Channel channel,
            HttpServer.Services services,
            S3Request request,
            BodyStream body,
            boolean keepAlive,
            long startedNanos,
            S3ChannelHandler.RefusedAuthentication refused) {
        this.startedNanos = startedNanos;
        this.refused = refused;
        this.handler = handler;
        this.channel = channel;
        this.services = services;
        this.request = request;
        this.body = body;
        this.keepAlive = keepAlive;
    }

    @Override
    public void run() {
        // Whether the access log records this request is decided as it starts: after the answer has gone out, the
        // client may already have switched the log, and its line must follow the switch it made before the request.
        boolean logged = services.accessLog().enabled();
        S3Response response;
        S3Exception failure = null;
        try {
            response = refused != null
                    ? services.dispatcher()
                            .refusedAtAuthentication(
                                    request,
                                    refused.claimedKey(),
                                    refused.failure(),
                                    refused.reason(),
                                    refused.leftOut())
                    : services.dispatcher().dispatch(request);
        } catch (Throwable t) {
            failure = ErrorMapper.map(t);
            response = error(failure, t);
        }
        if (failure == null) {
            try {
                response = readIfSmall(response);
            } catch (Throwable t) {
                failure = ErrorMapper.map(t);
                response = error(failure, t);
            }
        }
        Admission admission = services.admission();
        admission.responseWriting();
        boolean close;
        try {
            close = send(response);
        } finally {
            // a stopping server shuts its event loops down once the workers are gone, and a loop that shuts down
            // closes its channels before it runs the writes still queued: HttpServer#close waits for this one first
            if (whole == null) {
                if (lastWrite == null) {
                    admission.responseWritten();
                } else {
                    lastWrite.addListener(f -> admission.responseWritten());
                }
            }
        }
        FullHttpResponse written = whole;
        if (written == null) {
            channel.eventLoop().execute(() -> handler.exchangeDone(this, close));
        } else {
            // a whole response is written by the same event-loop task that ends the exchange: one hand-over to the
            // loop (and one wake-up of it) per small request instead of two
            try {
                channel.eventLoop().execute(() -> {
                    ChannelFuture f = channel.writeAndFlush(written);
                    if (close && !closeLeftToHandler) {
                        f.addListener(ChannelFutureListener.CLOSE);
                    }
                    f.addListener(done -> admission.responseWritten());
                    handler.exchangeDone(this, close);
                });
            } catch (RejectedExecutionException e) { // the loop is gone: so is the connection
                ReferenceCountUtil.release(written);
                admission.responseWritten();
            }
        }
        S3Exception error = failure != null ? failure : response.refusal();
        recordMetrics(response.status(), error);
        if (logged) {
            logAccess(response.status(), error);
        }
    }

    /**
     * A streamed body of at most {@link #SMALL_BODY} bytes, read whole: it goes out with the head in one write, one
     * task for the event loop and one flush instead of three, and a read that fails can still be answered with an S3
     * error rather than a connection cut after the status line.
     */
    private S3Response readIfSmall(S3Response response) throws IOException {
        S3Response.StreamingBody streaming = response.streaming();
        if (streaming == null
                || request.method().equals("HEAD")
                || streaming.length() < 0
                || streaming.length() > SMALL_BODY) {
            return response;
        }
        try (streaming) {
            long length = streaming.length();
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) length);
            streaming.writeTo(out);
            if (out.size() != length) {
                throw new IOException("a body of " + length + " bytes gave " + out.size());
            }
            return response.streaming(null).body(out.toByteArray());
        }
    }

    /**
     * One access-log line (it only queues it; dropped if the log was switched off meanwhile); after the connection was
     * handed back.
     */
    private void logAccess(int status, S3Exception error) {
        AccessLog log = services.accessLog();
        String user = refused != null
                ? refused.claimedKey() // unverified, as the audit log records it: which client signs wrongly
                : request.auth().isAnonymous()
                        ? "anonymous"
                        : request.auth().accessKey(); // empty for a form upload: its key is in the body
        log.record(new AccessLog.Entry(
                java.time.Instant.now(),
                request.sourceIp(),
                user,
                request.method(),
                request.bucket(),
                request.key(),
                status,
                bytesIn,
                bytesOut,
                System.nanoTime() - startedNanos,
                request.requestId(),
                error != null ? error.code().name() : null));
    }

    /** Tells the metrics, after the connection was handed back: a slow recorder cannot hold the slot. */
    private void recordMetrics(int status, S3Exception failure) {
        S3Metrics metrics = services.metrics();
        if (metrics == S3Metrics.NONE) {
            return;
        }
        S3Dispatcher.Operation operation;
        try {
            // a few map look-ups; it threw already if it throws now. Refused at authentication: no operation was chosen
            operation = refused != null ? null : S3Dispatcher.route(request);
        } catch (RuntimeException e) {
            operation = null;
        }
        metrics.requestCompleted(operation, status, System.nanoTime() - startedNanos);
        if (failure != null) {
            S3Metrics.AuthFailure reason = S3Metrics.AuthFailure.of(failure);
            if (reason != null) {
                metrics.authenticationFailed(reason);
            }
        }
    }

    private S3Response error(S3Exception e, Throwable t) {
        if (e.code().status() >= 500 && e.code().status() != 501) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "request " + request.requestId() + " failed: " + request.method() + " " + request.resource(),
                    t);
        }
        return Responses.errorResponse(
                e, request.resource(), request.requestId(), request.method().equals("HEAD"));
    }

    /** Writes the response; answers whether the connection is closed after it. */
    private boolean send(S3Response response) {
        boolean bodyPending = !requestBodyDone;
        // a server that is stopping closes each connection after its answer (Connection: close)
        boolean close = !keepAlive || bodyPending || services.admission().stopping();
        closeLeftToHandler = bodyPending;
        String id = request.requestId();
        String hostId = services.ids().hostId();
        S3Response.StreamingBody streaming = response.streaming();
        try {
            if (streaming == null || request.method().equals("HEAD")) {
                whole = Responses.full(channel.alloc(), response, id, hostId, !close);
                bytesOut = whole.content().readableBytes();
                return close; // written by run(), with the end of the exchange
            }
            channel.write(Responses.streamingHead(response, id, hostId, !close));
            ChannelOutputStream out = new ChannelOutputStream(channel, handler.gate());
            try {
                streaming.writeTo(out);
                bytesOut = out.written();
            } catch (IOException | RuntimeException e) {
                bytesOut = out.written();
                // the status line is gone: all that is left is to cut the connection short
                LOG.log(System.Logger.Level.DEBUG, "response body of " + id + " aborted", e);
                lastWrite = channel.close();
                return true;
            }
            ChannelFuture f = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            lastWrite = f;
            if (close && !bodyPending) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
            return close;
        } finally {
            if (streaming != null) {
                streaming.close();
            }
        }
    }
}
