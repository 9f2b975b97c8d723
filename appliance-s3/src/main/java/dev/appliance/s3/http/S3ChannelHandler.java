package dev.appliance.s3.http;

import dev.appliance.s3.access.AccessLog;
import dev.appliance.s3.api.S3Dispatcher;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.health.HealthProbes;
import dev.appliance.s3.api.iam.IamHandler;
import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.auth.PayloadVerification;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.ErrorMapper;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.metrics.S3Metrics;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The per-connection state machine of HTTP/1.1 requests. On a request head it parses the address, verifies the SigV4
 * header signature (on the event loop, no I/O; a browser-based upload, POST Object, is instead verified by its
 * operation from the signed policy in its form body), answers {@code 100 Continue} if asked, and hands the request to a
 * worker thread together with a {@link BodyStream}; body content is then fed to that stream as it arrives. Requests
 * refused before the worker starts are answered from here.
 *
 * <p><b>ByteBuf ownership:</b> inbound {@link HttpContent} buffers go to the current request's {@link BodyStream}
 * (which releases them); content nobody wants (the body of a refused request, anything after the connection started
 * closing, stray content) is released here. Messages of pipelined requests, which arrive while a response is still
 * being produced, are held in {@code pending}, owned by this handler until replayed or released when the channel
 * closes. Outbound buffers are allocated by the worker and owned by Netty once written.
 *
 * <p><b>Reading:</b> auto-read is off while the body queue is above its high-water mark, while a request whose body
 * has been fully received waits for its response (no request is read ahead), while a request waits for admission
 * ({@link Admission}: it is kept at the head of {@code pending}), and once the connection is closing.
 *
 * <p><b>Timeouts:</b> a request head that does not arrive whole in time ({@link RequestHeadTimer}) and a request body
 * that stops coming while it is being read (nothing for the body read timeout, time spent not reading by
 * back-pressure excluded) are answered {@code 400 RequestTimeout} and the connection is closed.
 */
final class S3ChannelHandler extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(S3ChannelHandler.class.getName());

    private final HttpServer.Services services;
    private final RequestHeadTimer headTimer;
    private final ChannelOutputStream.WritabilityGate gate = new ChannelOutputStream.WritabilityGate();
    private final ArrayDeque<HttpObject> pending = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private Exchange current;
    private boolean bodyPaused;
    private boolean discarding;
    private boolean closing;
    /**
     * The response went out before the request body ended: the rest of the body is read and dropped, up to
     * {@link #LINGER_BYTES} or {@link #LINGER_TIME}, then the connection is closed.
     */
    private boolean lingering;

    private long lingeredBytes;
    static final long LINGER_BYTES = 16L << 20;
    static final java.time.Duration LINGER_TIME = java.time.Duration.ofSeconds(10);
    /** The request at the head of {@code pending} waits for an admission slot. */
    private boolean waitingAdmission;
    /** The current (or just refused) request holds an admission slot. */
    private boolean holdsSlot;

    private boolean countedConnection;
    private boolean overConnectionCap;
    private final Runnable admissionWakeUp = () -> ctx.executor().execute(this::admissionWakeUp);

    /** When the current request's body last made progress (or the server last declined to read it), nanoTime. */
    private long bodyProgressNanos;

    private ScheduledFuture<?> bodyTimer;

    S3ChannelHandler(HttpServer.Services services, RequestHeadTimer headTimer) {
        this.services = services;
        this.headTimer = headTimer;
    }

    ChannelOutputStream.WritabilityGate gate() {
        return gate;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        countedConnection = true;
        overConnectionCap = !services.admission().connectionOpened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            headTimer.headReceived();
        }
        if (msg instanceof LastHttpContent) {
            headTimer.requestReceived();
        }
        if (lingering) {
            if (msg instanceof HttpContent c) {
                lingeredBytes += c.content().readableBytes();
            }
            boolean last = msg instanceof LastHttpContent;
            ReferenceCountUtil.release(msg);
            if (last || lingeredBytes > LINGER_BYTES) {
                closeAfterWrites();
            }
            return;
        }
        if (!(msg instanceof HttpObject obj) || closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!pending.isEmpty() || (current != null && current.requestBodyDone)) {
            pending.add(obj);
            updateAutoRead();
            return;
        }
        handle(obj);
    }

    private void handle(HttpObject obj) {
        if (obj instanceof HttpRequest req) {
            if (services.admission().stopping()) {
                if (waitingAdmission) {
                    waitingAdmission = false;
                    services.admission().abandonWait();
                }
                refuseEarly(req, shuttingDown());
            } else if (!req.decoderResult().isFailure() && !overConnectionCap) {
                Admission.Decision d = services.admission().admit(admissionWakeUp, waitingAdmission);
                if (d == Admission.Decision.WAIT) {
                    waitingAdmission = true;
                    pending.addFirst(obj);
                    updateAutoRead();
                    return;
                }
                waitingAdmission = false;
                if (d == Admission.Decision.REFUSED) {
                    refuseEarly(req, slowDown("Too many requests are waiting; please retry."));
                } else {
                    holdsSlot = true;
                    startRequest(req);
                }
            } else if (overConnectionCap) {
                refuseEarly(req, slowDown("Too many open connections; please retry."));
            } else {
                startRequest(req);
            }
        }
        if (obj instanceof HttpContent content) {
            boolean last = content instanceof LastHttpContent;
            if (discarding || current == null || closing) {
                content.release();
                if (last) {
                    discarding = false;
                }
                return;
            }
            Exchange ex = current;
            ex.bytesIn += content.content().readableBytes(); // only this event loop writes it
            bodyProgressNanos = System.nanoTime();
            if (ex.body.offer(content.content())) {
                bodyPaused = true;
            }
            if (last) {
                ex.requestBodyDone = true;
                ex.body.end();
                cancelBodyCheck();
            }
            updateAutoRead();
        }
    }

    /** A request that arrived after the server began to stop (HttpServer#close): 503, and the connection closes. */
    static S3Exception shuttingDown() {
        return new S3Exception(
                        S3ErrorCode.ServiceUnavailable,
                        "The server is shutting down; retry once it is back (or on another endpoint).")
                .withHeader("Retry-After", "10");
    }

    private static S3Exception slowDown(String message) {
        return new S3Exception(S3ErrorCode.SlowDown, message).withHeader("Retry-After", "1");
    }

    /** Refuses a request before it is parsed, closing the connection afterwards; its content is dropped. */
    private void refuseEarly(HttpRequest req, S3Exception e) {
        String requestId = services.ids().next();
        refuse(e, "/", requestId, req.method().name().equals("HEAD"), true);
        logRefusal(e, req.method().name(), null, null, null, requestId, System.nanoTime());
    }

    /**
     * An access-log line for a request answered here, before any worker ran (when the log is on; it only queues).
     * Bucket and key only when the request was parsed; never its raw URI, whose query may hold a presigned signature.
     */
    private void logRefusal(S3Exception e, String method, ParsedRequest parsed, String requestId, long started) {
        String user = null;
        if (parsed != null) {
            // the key it claims, as the audit log names it: a key id this server does not know is cut short (a client
            // that mixed up its key id and secret sends the secret there)
            user = SigV4Verifier.isAnonymous(parsed.rawQuery(), parsed.headers())
                    ? "anonymous"
                    : services.verifier()
                            .auditedKey(SigV4Verifier.claimedAccessKey(parsed.rawQuery(), parsed.headers()));
        }
        logRefusal(
                e,
                method,
                user,
                parsed == null ? null : parsed.bucket(),
                parsed == null ? null : parsed.key(),
                requestId,
                started);
    }

    private void logRefusal(
            S3Exception e, String method, String user, String bucket, String key, String requestId, long started) {
        AccessLog log = services.accessLog();
        if (!log.enabled()) {
            return;
        }
        log.record(new AccessLog.Entry(
                Instant.now(),
                sourceIp(ctx.channel().remoteAddress()),
                user,
                method,
                bucket,
                key,
                e.code().status(),
                0,
                0,
                System.nanoTime() - started,
                requestId,
                e.code().name()));
    }

    /** Event loop: an admission slot may be free. */
    private void admissionWakeUp() {
        if (!waitingAdmission || closing) {
            services.admission().wakeUpPassedOn();
            return;
        }
        drainPending();
    }

    private void releaseSlot() {
        if (holdsSlot) {
            holdsSlot = false;
            services.admission().release();
        }
    }

    /**
     * A CORS preflight is never signed. No bucket has a CORS configuration here, so a complete preflight is refused as
     * S3 refuses one for a bucket without CORS, and an incomplete one gets S3's 400.
     */
    private static S3Exception corsPreflight(ParsedRequest p) {
        if (p.headers().get("origin") == null) {
            return new S3Exception(S3ErrorCode.BadRequest, "Insufficient information. Origin request header needed.");
        }
        List<String> method = p.headers().get("access-control-request-method");
        if (method == null) {
            return new S3Exception(S3ErrorCode.BadRequest, "Invalid Access-Control-Request-Method: null");
        }
        return new S3Exception(S3ErrorCode.AccessForbidden, "CORSResponse: CORS is not enabled for this bucket.");
    }

    private static final long MALFORMED_LENGTH = -2;

    /** The declared Content-Length: -1 when absent, {@link #MALFORMED_LENGTH} when not a non-negative number. */
    private static long contentLength(HttpRequest req) {
        String value = req.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (value == null) {
            return -1;
        }
        try {
            long n = Long.parseLong(value.strip());
            return n < 0 ? MALFORMED_LENGTH : n;
        } catch (NumberFormatException e) {
            return MALFORMED_LENGTH;
        }
    }

    private void startRequest(HttpRequest req) {
        long started = System.nanoTime();
        String requestId = services.ids().next();
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        boolean head = req.method().name().equals("HEAD");
        long contentLength = contentLength(req);
        boolean hasBody = HttpUtil.isTransferEncodingChunked(req) || contentLength > 0;
        if (contentLength == MALFORMED_LENGTH) {
            // the body's framing is unknown: answer, then close
            S3Exception e =
                    new S3Exception(S3ErrorCode.InvalidArgument, "The Content-Length header is not a valid number.");
            refuse(e, "/", requestId, head, true);
            logRefusal(e, req.method().name(), null, requestId, started);
            return;
        }
        if (req.decoderResult().isFailure()) {
            Throwable cause = req.decoderResult().cause();
            S3ErrorCode code = cause instanceof TooLongHttpHeaderException
                    ? S3ErrorCode.RequestHeaderSectionTooLarge
                    : cause instanceof TooLongHttpLineException || cause instanceof TooLongFrameException
                            ? S3ErrorCode.InvalidURI
                            : S3ErrorCode.InvalidRequest;
            S3Exception e = new S3Exception(code, null, cause);
            refuse(e, "/", requestId, head, true);
            logRefusal(e, req.method().name(), null, requestId, started);
            return;
        }
        String resource = req.uri();
        ParsedRequest parsed = null;
        try {
            ParsedRequest p = ParsedRequest.parse(req, services.domain());
            parsed = p;
            resource = p.resource();
            if (HealthProbes.addresses(p.bucket())) {
                answerProbe(p, requestId, head, hasBody || !keepAlive);
                return;
            }
            if (p.method().equals("OPTIONS")) {
                throw corsPreflight(p);
            }
            // A browser-based upload (POST Object) is authenticated by its form fields, read by the operation; an IAM
            // call (signed for the service iam) by its signature over a body that carries no hash header: both once
            // their handler has read the body.
            boolean iam = IamHandler.isIamRequest(p.headers());
            boolean authenticatedByBody = iam
                    || S3Dispatcher.isFormPost(
                            p.method(),
                            p.bucket(),
                            p.key(),
                            p.operationQuery().keySet(),
                            req.headers().get("content-type"));
            // A request without credentials is anonymous: allowed only what a bucket policy grants everyone
            AuthResult auth;
            RefusedAuthentication refused = null;
            if (authenticatedByBody) {
                auth = AuthResult.formFields();
            } else if (SigV4Verifier.isAnonymous(p.rawQuery(), p.headers())) {
                auth = AuthResult.anonymous();
            } else {
                try {
                    auth = services.verifier().verify(p.method(), p.rawPath(), p.rawQuery(), p.headers());
                } catch (S3Exception e) {
                    refused = auditedRefusal(p, e, requestId);
                    if (refused == null) {
                        throw e;
                    }
                    auth = AuthResult.anonymous(); // nothing verified: the worker only records the refusal
                }
            }
            if (refused == null) {
                RequestLimits.check(p); // a refused request is answered its refusal, as before its audit
            }
            Exchange[] self = new Exchange[1];
            BodyStream body = new BodyStream(() -> ctx.executor().execute(() -> bodyDrained(self[0])));
            // On CompleteMultipartUpload an x-amz-checksum-* header is the whole object's, not the XML body's.
            boolean completion = p.method().equals("POST")
                    && p.key() != null
                    && p.operationQuery().containsKey("uploadId");
            PayloadVerification.VerifiedBody verified = authenticatedByBody || refused != null
                    ? new PayloadVerification.VerifiedBody(body, contentLength)
                    : PayloadVerification.open(body, auth, p.headers(), contentLength, !completion);
            S3Request s3 = new S3Request(
                    p.method(),
                    p.bucket(),
                    p.key(),
                    p.operationQuery(),
                    p.headers(),
                    auth,
                    verified.stream(),
                    verified.size(),
                    requestId,
                    verified.verifiedChecksums(),
                    verified.checksumAlgorithm(),
                    ctx.pipeline().get(SslHandler.class) != null,
                    sourceIp(ctx.channel().remoteAddress()),
                    Instant.now());
            Exchange ex = new Exchange(this, ctx.channel(), services, s3, body, keepAlive, started, refused);
            self[0] = ex;
            current = ex;
            bodyPaused = false;
            // Answer 100 Continue whenever asked, body or not, as S3 does: botocore keeps the status line of a final
            // answer to an Expect request and misreads the next response on that connection (a 60 s stall).
            if (HttpUtil.is100ContinueExpected(req)) {
                ctx.writeAndFlush(new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
            }
            if (!hasBody) {
                // Nothing to wait for: the empty last content that follows is dropped when it arrives.
                ex.requestBodyDone = true;
                body.end();
            } else {
                bodyProgressNanos = System.nanoTime();
                scheduleBodyCheck(ex, services.bodyReadTimeout().toNanos());
            }
            services.workers().execute(ex);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // admitted just as the server began to stop: the workers take no new request
            current = null;
            releaseSlot();
            refuse(shuttingDown(), resource, requestId, head, true);
        } catch (RuntimeException e) {
            current = null;
            releaseSlot();
            S3Exception answer = ErrorMapper.map(e);
            refuse(answer, resource, requestId, head, hasBody || !keepAlive);
            logRefusal(answer, req.method().name(), parsed, requestId, started);
        }
    }

    /**
     * A request the verifier refused, to be audited by its worker before it is answered (docs/audit.md): it addressed
     * an audited operation and the refusal budget allows it. Null when it is refused here, unrecorded.
     */
    private RefusedAuthentication auditedRefusal(ParsedRequest p, S3Exception failure, String requestId) {
        S3Metrics.AuthFailure reason = S3Metrics.AuthFailure.of(failure);
        if (reason == null) {
            return null;
        }
        S3Request asked = new S3Request(
                p.method(),
                p.bucket(),
                p.key(),
                p.operationQuery(),
                p.headers(),
                AuthResult.anonymous(),
                java.io.InputStream.nullInputStream(),
                0,
                requestId,
                java.util.Map::of,
                null);
        long leftOut = services.dispatcher().auditsRefusal(asked);
        if (leftOut < 0) {
            return null;
        }
        return new RefusedAuthentication(
                failure,
                services.verifier().auditedKey(SigV4Verifier.claimedAccessKey(p.rawQuery(), p.headers())),
                reason.label(),
                leftOut);
    }

    /**
     * Why a request was refused at authentication and what its audit event tells.
     *
     * @param claimedKey the access key id it claims, never verified
     * @param reason the metrics' words for the failure
     * @param leftOut refusals left out of the audit log before it
     */
    record RefusedAuthentication(S3Exception failure, String claimedKey, String reason, long leftOut) {}

    /**
     * Answers a request to the reserved bucket: a health probe, unauthenticated, from the engine's cached drive state
     * (no I/O, so on the event loop), or its S3 error. Its body (if any) is dropped, and with {@code close} the
     * connection.
     */
    private void answerProbe(ParsedRequest p, String requestId, boolean head, boolean close) {
        S3Response answer;
        try {
            answer = services.dispatcher().health().answer(p.method(), p.key(), p.operationQuery());
        } catch (RuntimeException e) {
            answer = Responses.errorResponse(ErrorMapper.map(e), p.resource(), requestId, head);
        }
        releaseSlot();
        discarding = true;
        var f = ctx.writeAndFlush(
                Responses.full(ctx.alloc(), answer, requestId, services.ids().hostId(), !close));
        if (close) {
            closing = true;
            f.addListener(ChannelFutureListener.CLOSE);
            releasePending();
        }
        updateAutoRead();
    }

    /** Answers a request before any worker ran; its body (if any) is dropped, and with {@code close} the connection. */
    private void refuse(S3Exception e, String resource, String requestId, boolean head, boolean close) {
        discarding = true;
        S3Metrics metrics = services.metrics();
        if (metrics != S3Metrics.NONE) {
            // refused before any operation was chosen: counted without one; its latency is the refusal's, about 0
            metrics.requestCompleted(null, e.code().status(), 0);
            S3Metrics.AuthFailure reason = S3Metrics.AuthFailure.of(e);
            if (reason != null) {
                metrics.authenticationFailed(reason);
            }
        }
        var resp = Responses.full(
                ctx.alloc(),
                Responses.errorResponse(e, resource, requestId, head),
                requestId,
                services.ids().hostId(),
                !close);
        var f = ctx.writeAndFlush(resp);
        if (close) {
            closing = true;
            f.addListener(ChannelFutureListener.CLOSE);
            releasePending();
        }
        updateAutoRead();
    }

    private void scheduleBodyCheck(Exchange ex, long delayNanos) {
        bodyTimer = ctx.executor().schedule(() -> checkBody(ex), delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Event loop: fails the body of {@code ex} with {@code RequestTimeout} when the client sent nothing of it for the
     * body read timeout while the connection was reading. The worker reading it answers, and the connection is closed
     * after that answer as after any body not fully received; should no worker read it, the connection is closed one
     * timeout later.
     */
    private void checkBody(Exchange ex) {
        bodyTimer = null;
        if (ex != current || ex.requestBodyDone || closing) {
            return;
        }
        long now = System.nanoTime();
        if (!ctx.channel().config().isAutoRead()) {
            bodyProgressNanos = now; // not reading (back-pressure, a response in progress): not the client's delay
        }
        long timeout = services.bodyReadTimeout().toNanos();
        long silent = now - bodyProgressNanos;
        if (silent < timeout) {
            scheduleBodyCheck(ex, timeout - silent);
            return;
        }
        ex.body.fail(new BodyException(
                S3ErrorCode.RequestTimeout,
                "Your socket connection to the server was not read from or written to within the timeout period."));
        closing = true;
        releasePending();
        updateAutoRead();
        ctx.executor().schedule(() -> ctx.close(), timeout, TimeUnit.NANOSECONDS);
    }

    private void cancelBodyCheck() {
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
    }

    private void bodyDrained(Exchange ex) {
        if (ex != null && ex == current) {
            bodyPaused = false;
            updateAutoRead();
        }
    }

    /** Event loop: the worker wrote its response. */
    void exchangeDone(Exchange ex, boolean close) {
        ex.body.discard();
        if (current == ex) {
            current = null;
            bodyPaused = false;
            releaseSlot();
        }
        if (close) {
            closing = true;
            releasePending();
            if (ex.closeLeftToHandler) {
                if (!ex.requestBodyDone && ctx.channel().isActive()) {
                    lingering = true;
                    ctx.channel().config().setAutoRead(true);
                    ctx.executor().schedule(this::closeAfterWrites, LINGER_TIME.toMillis(), TimeUnit.MILLISECONDS);
                    return;
                }
                closeAfterWrites(); // the body ended meanwhile
            }
            updateAutoRead();
            return;
        }
        drainPending();
    }

    /** Closes the connection once everything written to it so far has been sent. */
    private void closeAfterWrites() {
        lingering = false;
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Replays held messages until one must wait (a response in progress, admission) or none is left. */
    private void drainPending() {
        while (!pending.isEmpty() && !closing && (current == null || !current.requestBodyDone)) {
            handle(pending.poll());
            if (waitingAdmission) {
                break;
            }
        }
        updateAutoRead();
    }

    private void updateAutoRead() {
        boolean read = !closing && !bodyPaused && pending.isEmpty() && (current == null || !current.requestBodyDone);
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
        }
    }

    private void releasePending() {
        HttpObject o;
        while ((o = pending.poll()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        gate.signal();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        cancelBodyCheck();
        if (countedConnection) {
            countedConnection = false;
            services.admission().connectionClosed();
        }
        if (waitingAdmission) {
            waitingAdmission = false;
            services.admission().abandonWait();
        }
        if (current != null) {
            current.body.fail(new IOException("connection closed by the client"));
        }
        releasePending();
        gate.signal();
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        if (evt == RequestHeadTimer.EXPIRED) {
            if (closing) {
                return;
            }
            if (current != null || !pending.isEmpty()) {
                headTimer.rearm(); // the head waits behind an earlier request of this connection
                return;
            }
            S3Exception e = new S3Exception(
                    S3ErrorCode.RequestTimeout,
                    "Your request head was not received completely within the timeout period.");
            String requestId = services.ids().next();
            refuse(e, "/", requestId, false, true);
            logRefusal(e, null, null, requestId, System.nanoTime());
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, "connection error, closing", cause);
        ctx.close();
    }

    /** The client's address as policies compare it (aws:SourceIp), or null when it is not an IP socket. */
    private static String sourceIp(java.net.SocketAddress remote) {
        if (!(remote instanceof java.net.InetSocketAddress a) || a.getAddress() == null) {
            return null;
        }
        String ip = a.getAddress().getHostAddress();
        int scope = ip.indexOf('%'); // an IPv6 zone is no part of the address policies name
        return scope < 0 ? ip : ip.substring(0, scope);
    }
}
