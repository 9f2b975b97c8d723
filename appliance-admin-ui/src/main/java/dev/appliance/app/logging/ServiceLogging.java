package dev.appliance.app.logging;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.spi.FilterReply;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The server's logging, set up by the process itself before anything logs (docs/operations.md#logging): one line per
 * record, {@code 2026-11-27T00:31:14.541Z INFO  logger: message}, in UTC, never with colour codes. Spring Boot is told
 * to leave it alone ({@code LoggingSystem=none}): it would set logging up again only when the console starts, after
 * the drives were opened and the S3 port listens.
 *
 * <ul>
 *   <li>Without a log directory everything goes to standard output (errors to standard error): a checkout's terminal,
 *       or the journal.
 *   <li>With one, {@code DIR/appliance.log} gets every record and {@code DIR/access.log} the S3 access log, each rotated
 *       by size into {@code .1.log.gz} ... compressed files; standard output keeps warnings, errors and the start
 *       banner, so {@code systemctl status} still shows why a start failed and where the server listens.
 *   <li>{@link #SHOWN_ONCE} (generated root credentials) goes to standard output only, never into a file.
 * </ul>
 *
 * The engine and the S3 front end log through {@code java.util.logging}; its records are bridged here.
 */
public final class ServiceLogging {
    /** The start banner, start failures and shutdown: also on standard output when logging to files. */
    public static final String BANNER = "appliance";
    /** Lines printed to standard output only, never to a file: the generated root credentials. */
    public static final String SHOWN_ONCE = "appliance.credentials";
    /** The S3 access log (one line per request; off by default). */
    public static final String ACCESS = "s3.access";

    static final String LINE = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %-5level %logger{36}: %msg%n";
    /** Access lines carry their own fields; the logger name says nothing in their own file. */
    static final String ACCESS_LINE = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX,UTC} %msg%n";

    /** Libraries whose INFO lines only say they started: kept at WARN (ERROR where even that is noise). */
    private static final Map<String, Level> QUIET = Map.of(
            "org.springframework", Level.WARN,
            "org.apache", Level.WARN,
            "org.hibernate.validator", Level.WARN,
            "io.netty", Level.WARN,
            "org.springdoc", Level.WARN,
            // springdoc warns at every start that its document is on; here it is on by design, behind authorization
            "org.springdoc.core.events.SpringDocAppInitializer", Level.ERROR,
            // the registry has meters before Boot adds its property filters; no property here configures them
            "io.micrometer.prometheusmetrics.PrometheusMeterRegistry", Level.ERROR);

    /**
     * Where logs go.
     *
     * @param dir the log directory; null: standard output only
     * @param maxFileSize a file is rotated past this many bytes
     * @param maxFiles rotated files kept of each log (1 to 20)
     * @param checkEvery least time between two size checks of a file (logback checks lazily; tests use 0)
     */
    public record Settings(Path dir, long maxFileSize, int maxFiles, java.time.Duration checkEvery) {
        /** Standard output only. */
        public static final Settings CONSOLE = new Settings(null, 100L << 20, 10, java.time.Duration.ofSeconds(1));
    }

    private ServiceLogging() {}

    /**
     * Sets the logging up (again: a second call replaces the first). Call before anything else logs.
     *
     * @throws IllegalStateException when the log directory cannot be created or written
     */
    public static synchronized void configure(Settings settings) {
        // Spring Boot would otherwise reset all of this when the console's context starts
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        if (settings.dir() != null) {
            requireWritable(settings.dir());
        }
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        context.start(); // again, after a stop
        // java.util.logging levels follow these, so disabled records are not even made
        LevelChangePropagator levels = new LevelChangePropagator();
        levels.setContext(context);
        levels.setResetJUL(true);
        levels.start();
        context.addListener(levels);

        ConsoleAppender<ILoggingEvent> stdout = console(context, "stdout", "System.out", LINE);
        stdout.addFilter(below(Level.ERROR));
        ConsoleAppender<ILoggingEvent> stderr = console(context, "stderr", "System.err", LINE);
        stderr.addFilter(atLeast(Level.ERROR));

        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        QUIET.forEach((name, level) -> context.getLogger(name).setLevel(level));
        Logger shownOnce = context.getLogger(SHOWN_ONCE);
        shownOnce.setAdditive(false);
        Logger access = context.getLogger(ACCESS);
        access.setAdditive(false);
        root.addAppender(stdout);
        root.addAppender(stderr);

        if (settings.dir() == null) {
            shownOnce.addAppender(stdout);
            access.addAppender(stdout);
        } else {
            // the file gets everything (through a queue: no request thread waits for the disk or for a rotation's
            // compression); standard output warnings and errors, and the banner's lines
            root.addAppender(async(context, rolling(context, settings, "appliance", LINE)));
            stdout.addFilter(atLeast(Level.WARN));
            ConsoleAppender<ILoggingEvent> bannerOut = console(context, "banner", "System.out", LINE);
            bannerOut.addFilter(below(Level.WARN)); // its warnings reach standard output through the root
            bannerOut.start();
            context.getLogger(BANNER).addAppender(bannerOut);
            shownOnce.addAppender(bannerOut);
            // the access log has its own queue and writer thread (AccessLog): to the file directly
            access.addAppender(rolling(context, settings, "access", ACCESS_LINE));
        }
        stdout.start();
        stderr.start();
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }

    /**
     * The access log's writer: each line to the {@link #ACCESS} logger, stamped with the time the request was answered
     * (not the later moment the writer thread gets to it).
     */
    public static dev.appliance.s3.access.AccessLog.Writer accessWriter() {
        return (time, line) -> {
            Logger logger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(ACCESS);
            if (!logger.isInfoEnabled()) {
                return;
            }
            LoggingEvent event = new LoggingEvent(ServiceLogging.class.getName(), logger, Level.INFO, line, null, null);
            event.setInstant(time);
            logger.callAppenders(event);
        };
    }

    /** Flushes and closes the files (queued lines are written first); at shutdown. */
    public static synchronized void stop() {
        ((LoggerContext) LoggerFactory.getILoggerFactory()).stop();
    }

    private static void requireWritable(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("log directory " + dir + " (--log-dir) cannot be created: " + e, e);
        }
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new IllegalStateException(
                    "log directory " + dir + " (--log-dir) is not a directory this user can write");
        }
    }

    private static ConsoleAppender<ILoggingEvent> console(
            LoggerContext context, String name, String target, String pattern) {
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName(name);
        appender.setTarget(target);
        appender.setEncoder(encoder(context, pattern));
        return appender;
    }

    private static PatternLayoutEncoder encoder(LoggerContext context, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.start();
        return encoder;
    }

    /** {@code DIR/NAME.log}, rotated past the size cap into {@code NAME.1.log.gz} (newest) .. {@code NAME.N.log.gz}. */
    static RollingFileAppender<ILoggingEvent> rolling(
            LoggerContext context, Settings settings, String name, String pattern) {
        RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
        appender.setContext(context);
        appender.setName(name);
        appender.setFile(settings.dir().resolve(name + ".log").toString());
        appender.setEncoder(encoder(context, pattern));
        FixedWindowRollingPolicy rolls = new FixedWindowRollingPolicy();
        rolls.setContext(context);
        rolls.setParent(appender);
        rolls.setFileNamePattern(settings.dir().resolve(name + ".%i.log.gz").toString());
        rolls.setMinIndex(1);
        rolls.setMaxIndex(settings.maxFiles());
        rolls.start();
        SizeBasedTriggeringPolicy<ILoggingEvent> size = new SizeBasedTriggeringPolicy<>();
        size.setContext(context);
        size.setMaxFileSize(new FileSize(settings.maxFileSize()));
        size.setCheckIncrement(
                Duration.buildByMilliseconds(settings.checkEvery().toMillis()));
        size.start();
        appender.setRollingPolicy(rolls);
        appender.setTriggeringPolicy(size);
        appender.start();
        if (!appender.isStarted()) {
            throw new IllegalStateException("cannot open the log file " + appender.getFile());
        }
        return appender;
    }

    private static Appender<ILoggingEvent> async(LoggerContext context, Appender<ILoggingEvent> target) {
        AsyncAppender async = new AsyncAppender();
        async.setContext(context);
        async.setName(target.getName() + "-queue");
        async.setQueueSize(8192);
        async.setDiscardingThreshold(0); // keep INFO lines too, until the queue is full
        async.setNeverBlock(true); // full: drop the line rather than stall the thread that logs
        async.addAppender(target);
        async.start();
        return async;
    }

    private static Filter<ILoggingEvent> atLeast(Level level) {
        Filter<ILoggingEvent> f = new Filter<>() {
            @Override
            public FilterReply decide(ILoggingEvent event) {
                return event.getLevel().isGreaterOrEqual(level) ? FilterReply.NEUTRAL : FilterReply.DENY;
            }
        };
        f.start();
        return f;
    }

    private static Filter<ILoggingEvent> below(Level level) {
        Filter<ILoggingEvent> f = new Filter<>() {
            @Override
            public FilterReply decide(ILoggingEvent event) {
                return event.getLevel().isGreaterOrEqual(level) ? FilterReply.DENY : FilterReply.NEUTRAL;
            }
        };
        f.start();
        return f;
    }
}
