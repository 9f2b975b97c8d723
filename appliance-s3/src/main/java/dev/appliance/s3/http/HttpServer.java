package dev.appliance.s3.http;

import static java.util.Objects.requireNonNull;

import dev.appliance.s3.access.AccessLog;
import dev.appliance.s3.api.S3Dispatcher;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.metrics.S3Metrics;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The Netty HTTP/1.1 server: epoll when available, else NIO; one {@link S3ChannelHandler} per connection; a virtual
 * thread per request for everything that may block.
 *
 * <p>Pipeline: {@code SslHandler} (with TLS) → {@link RequestHeadTimer} (a request head must arrive whole within
 * the head timeout of its first byte) → {@code HttpServerCodec} (16 KiB request line, 8 KiB header section as S3) →
 * {@code IdleStateHandler} (connections without any traffic for the idle timeout are closed) → {@link
 * S3ChannelHandler} (which also times out request bodies that stop coming). Request bodies are never aggregated.
 * {@link Admission} caps connections and requests in flight.
 */
public final class HttpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HttpServer.class.getName());
    static final int MAX_INITIAL_LINE = 16 * 1024;
    /** S3's limit on the request header section (all header lines together). */
    static final int MAX_HEADER_SIZE = 8 * 1024;

    /** What the per-connection handlers share. */
    record Services(
            SigV4Verifier verifier,
            S3Dispatcher dispatcher,
            ExecutorService workers,
            RequestIds ids,
            String domain,
            Admission admission,
            Duration bodyReadTimeout,
            S3Metrics metrics,
            AccessLog accessLog) {
        /** Without an access log (one that stays off). */
        Services(
                SigV4Verifier verifier,
                S3Dispatcher dispatcher,
                ExecutorService workers,
                RequestIds ids,
                String domain,
                Admission admission,
                Duration bodyReadTimeout,
                S3Metrics metrics) {
            this(verifier, dispatcher, workers, ids, domain, admission, bodyReadTimeout, metrics, OFF);
        }
    }

    /** An access log never switched on. */
    private static final AccessLog OFF = new AccessLog(AccessLog.SYSTEM_LOGGER, false);

    /**
     * Transport options.
     *
     * @param ssl TLS context, or null for plain HTTP
     * @param domain virtual-hosted-style domain, or null
     */
    public record Options(
            SslContext ssl,
            String domain,
            int maxConnections,
            int maxInFlight,
            int maxWaiting,
            Duration requestHeadTimeout,
            Duration bodyReadTimeout,
            Duration idleTimeout) {
        public static final Options DEFAULT = new Options(null, null, 10_000, 256, 10_000);

        /** With the default timeouts: 30 s for a request head, 60 s of silence in a body, 5 minutes idle. */
        public Options(SslContext ssl, String domain, int maxConnections, int maxInFlight, int maxWaiting) {
            this(
                    ssl,
                    domain,
                    maxConnections,
                    maxInFlight,
                    maxWaiting,
                    Duration.ofSeconds(30),
                    Duration.ofSeconds(60),
                    Duration.ofMinutes(5));
        }

        public Options {
            requireNonNull(requestHeadTimeout, "requestHeadTimeout");
            requireNonNull(bodyReadTimeout, "bodyReadTimeout");
            requireNonNull(idleTimeout, "idleTimeout");
        }
    }

    /** Builds the pipeline of one connection (see the class comment); tests run it on an {@code EmbeddedChannel}. */
    static final class ConnectionInitializer extends ChannelInitializer<Channel> {
        private final SslContext ssl;
        private final Services services;
        private final long headNanos;
        private final long idleNanos;

        ConnectionInitializer(SslContext ssl, Services services, long headNanos, long idleNanos) {
            this.ssl = ssl;
            this.services = services;
            this.headNanos = headNanos;
            this.idleNanos = idleNanos;
        }

        @Override
        protected void initChannel(Channel ch) {
            if (ssl != null) {
                ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc()));
            }
            RequestHeadTimer headTimer = new RequestHeadTimer(headNanos);
            ch.pipeline()
                    .addLast("head-timer", headTimer)
                    .addLast(
                            "http",
                            new HttpServerCodec(new HttpDecoderConfig()
                                    .setMaxInitialLineLength(MAX_INITIAL_LINE)
                                    .setMaxHeaderSize(MAX_HEADER_SIZE)
                                    .setMaxChunkSize(64 * 1024)))
                    .addLast("idle", new IdleStateHandler(0, 0, idleNanos, TimeUnit.NANOSECONDS));
            if (services.metrics() != S3Metrics.NONE) {
                ch.pipeline().addLast("bytes", new ByteCounter(services.metrics()));
            }
            ch.pipeline().addLast("s3", new S3ChannelHandler(services, headTimer));
        }
    }

    /** Admission counters at one moment. */
    public record Stats(int connections, int inFlight, int waiting) {}

    private final EventLoopGroup boss;
    private final EventLoopGroup loops;
    private final ExecutorService workers;
    private final Channel serverChannel;
    private final Admission admission;

    private HttpServer(
            EventLoopGroup boss,
            EventLoopGroup loops,
            ExecutorService workers,
            Channel serverChannel,
            Admission admission) {
        this.admission = admission;
        this.boss = boss;
        this.loops = loops;
        this.workers = workers;
        this.serverChannel = serverChannel;
    }

    /** Binds and returns once listening. */
    public static HttpServer start(String host, int port, SigV4Verifier verifier, S3Dispatcher dispatcher)
            throws InterruptedException {
        return start(host, port, Options.DEFAULT, verifier, dispatcher);
    }

    /** Binds and returns once listening. */
    public static HttpServer start(
            String host, int port, Options options, SigV4Verifier verifier, S3Dispatcher dispatcher)
            throws InterruptedException {
        return start(host, port, options, verifier, dispatcher, S3Metrics.NONE);
    }

    /** Binds and returns once listening; traffic is told to {@code metrics}. */
    public static HttpServer start(
            String host, int port, Options options, SigV4Verifier verifier, S3Dispatcher dispatcher, S3Metrics metrics)
            throws InterruptedException {
        return start(host, port, options, verifier, dispatcher, metrics, OFF);
    }

    /** As above; each answered request is offered to {@code accessLog} (which records it when on). */
    public static HttpServer start(
            String host,
            int port,
            Options options,
            SigV4Verifier verifier,
            S3Dispatcher dispatcher,
            S3Metrics metrics,
            AccessLog accessLog)
            throws InterruptedException {
        requireNonNull(host, "host");
        requireNonNull(accessLog, "accessLog");
        requireNonNull(metrics, "metrics");
        requireNonNull(options, "options");
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channelType =
                epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(io);
        ExecutorService workers = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("s3-worker").factory());
        Admission admission = new Admission(options.maxConnections(), options.maxInFlight(), options.maxWaiting());
        Services services = new Services(
                verifier,
                dispatcher,
                workers,
                new RequestIds(),
                options.domain(),
                admission,
                options.bodyReadTimeout(),
                metrics,
                accessLog);
        long headNanos = options.requestHeadTimeout().toNanos();
        long idleNanos = options.idleTimeout().toNanos();
        SslContext ssl = options.ssl();
        try {
            ServerBootstrap b = new ServerBootstrap()
                    .group(boss, loops)
                    .channel(channelType)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
                    .childHandler(new ConnectionInitializer(ssl, services, headNanos, idleNanos));
            Channel ch = b.bind(new InetSocketAddress(host, port)).sync().channel();
            return new HttpServer(boss, loops, workers, ch, admission);
        } catch (InterruptedException | RuntimeException e) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownNow();
            throw e;
        }
    }

    public Stats stats() {
        return new Stats(admission.connections(), admission.inFlight(), admission.waiting());
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** {@link #close(Duration)} with a grace period of 5 seconds. */
    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /**
     * Stops the server: closes the listening socket, refuses every request not yet admitted ({@code 503
     * ServiceUnavailable}, {@code Connection: close}; also those waiting for admission and those arriving on open
     * keep-alive connections), lets the requests in flight run to their end for up to {@code grace} (an upload
     * keeps streaming in: the event loops keep reading), answers each with {@code Connection: close} and waits for
     * those answers to be written out, then closes every connection. Runs on the caller's thread, never on an event
     * loop.
     *
     * @return the number of requests still running (they were interrupted), or else of responses still being
     *     written, when the grace period ran out
     */
    public int close(Duration grace) {
        requireNonNull(grace, "grace");
        long deadline = System.nanoTime() + grace.toNanos();
        admission.stopAdmitting();
        serverChannel.close().awaitUninterruptibly();
        workers.shutdown();
        int cut = 0;
        try {
            if (!workers.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                cut = admission.inFlight();
                LOG.log(
                        System.Logger.Level.WARNING,
                        "stopping: " + cut + " S3 request(s) still running after the grace period of " + grace
                                + " were interrupted");
                workers.shutdownNow();
            } else if (!admission.awaitResponsesWritten(deadline)) {
                // A worker's response is written by its connection's event loop, after the worker ended; a loop that
                // shuts down closes its channels before it runs the writes still queued, so the loops wait for them.
                cut = admission.unwrittenResponses();
                LOG.log(
                        System.Logger.Level.WARNING,
                        "stopping: " + cut + " S3 response(s) still being written after the grace period of " + grace
                                + " were cut short");
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
        // Bounded waits: a process asked to stop must stop, even if an event loop group never reports its end
        // (seen once after a long run: the boss loop's thread was gone but its group's future never completed).
        var bossDone = boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        var loopsDone = loops.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        bossDone.awaitUninterruptibly(5, TimeUnit.SECONDS);
        loopsDone.awaitUninterruptibly(5, TimeUnit.SECONDS);
        return cut;
    }
}
