package dev.appliance.s3.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.api.S3Dispatcher;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.SigV4Verifier;
import dev.appliance.s3.testing.NettyLeaks;
import dev.appliance.s3.testing.S3TestServer;
import dev.appliance.s3.testing.SignedRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The connection pipeline ({@link HttpServer.ConnectionInitializer}: head timer, HTTP codec, idle handler, {@link
 * S3ChannelHandler}) on an {@link EmbeddedChannel}, over a real store on four temporary drives. The request workers,
 * virtual threads in the server, run here on the test thread, in turn with the channel's pending tasks, so every step
 * is deterministic: a request's worker runs only once all its bytes were written, and its completion (posted to the
 * event loop) is what lets the handler take the next pipelined request.
 *
 * <p>Every buffer written in is checked to be released ({@code refCnt() == 0}) and Netty's leak detector must report
 * nothing after each test.
 */
class S3ChannelHandlerTest {
    private static final String HOST = "s3.test:9000";
    private static final String BUCKET = "embedded";
    private static final AtomicInteger KEYS = new AtomicInteger();

    @TempDir
    static Path root;

    private static ObjectStore store;
    private static SigV4Verifier verifier;
    private static S3Dispatcher dispatcher;

    /** The server's worker executor, run by hand on the test thread. */
    private final WorkerQueue workers = new WorkerQueue();
    /** Every buffer a test wrote into a channel: each must be released by the pipeline. */
    private final List<ByteBuf> written = new ArrayList<>();

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @BeforeAll
    static void openStore() throws Exception {
        store = TestStore.on(root).open();
        verifier = new SigV4Verifier(S3TestServer.CREDENTIALS, "us-east-1", Clock.systemUTC());
        dispatcher = new S3Dispatcher(store, Authorizer.allowAll(), "us-east-1", verifier);
    }

    @AfterAll
    static void closeStore() {
        store.close();
    }

    @AfterEach
    void everyBufferReleased() {
        for (EmbeddedChannel ch : channels) {
            settle(ch);
            assertThat(ch.finishAndReleaseAll())
                    .as("messages left unread in the channel")
                    .isFalse();
            settle(ch);
        }
        assertThat(written)
                .as("inbound buffers")
                .allSatisfy(b -> assertThat(b.refCnt()).as("refCnt").isZero());
        assertThat(NettyLeaks.detect()).as("Netty leak reports").isEmpty();
    }

    // ---- requests and answers ----------------------------------------------------------------------------------

    @Test
    void aRequestIsAnswered_andTheConnectionStaysOpen() {
        EmbeddedChannel ch = connection();
        createBucket(ch);
        String key = key();

        List<Answer> put =
                send(ch, SignedRequest.of("PUT", "/" + BUCKET + "/" + key).body("hello"));
        List<Answer> get = send(ch, SignedRequest.of("GET", "/" + BUCKET + "/" + key));

        assertThat(put).singleElement().satisfies(a -> {
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.header("etag")).isEqualTo("\"5d41402abc4b2a76b9719d911017c592\""); // MD5 of "hello"
        });
        assertThat(get).singleElement().satisfies(a -> {
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.body()).isEqualTo("hello");
            assertThat(a.header("connection")).isEqualToIgnoringCase("keep-alive");
        });
        assertThat(ch.isOpen()).as("keep-alive: the connection stays open").isTrue();
    }

    @Test
    void pipelinedRequests_inOneBuffer_areAnsweredInOrder() {
        EmbeddedChannel ch = connection();
        createBucket(ch);
        String key = key();

        List<Answer> answers = send(
                ch,
                SignedRequest.of("PUT", "/" + BUCKET + "/" + key).body("first"),
                SignedRequest.of("GET", "/" + BUCKET + "/" + key),
                SignedRequest.of("PUT", "/" + BUCKET + "/" + key).body("second"),
                SignedRequest.of("GET", "/" + BUCKET + "/" + key),
                SignedRequest.of("GET", "/" + BUCKET + "/" + key + "-missing"));

        assertThat(answers).extracting(Answer::status).containsExactly(200, 200, 200, 200, 404);
        // each GET saw the PUT written before it in the same buffer, not the one after
        assertThat(answers.get(1).body()).isEqualTo("first");
        assertThat(answers.get(3).body()).isEqualTo("second");
        assertThat(answers.get(4).body()).contains("<Code>NoSuchKey</Code>");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void aRequestSplitAtAnyByte_isAnsweredAsWhole() {
        EmbeddedChannel setup = connection();
        createBucket(setup);
        String key = key();
        assertThat(send(setup, SignedRequest.of("PUT", "/" + BUCKET + "/" + key).body("split body")))
                .extracting(Answer::status)
                .containsExactly(200);
        byte[] get = SignedRequest.of("GET", "/" + BUCKET + "/" + key).bytes(HOST);

        for (int at = 1; at < get.length; at++) {
            EmbeddedChannel ch = connection();
            write(ch, slice(get, 0, at));
            assertThat(outbound(ch))
                    .as("nothing answered before the head is whole (split at %d)", at)
                    .isEmpty();
            write(ch, slice(get, at, get.length));
            List<Answer> answers = outbound(ch);
            assertThat(answers).as("split at %d", at).singleElement().satisfies(a -> {
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.body()).isEqualTo("split body");
            });
            closeAndCheck(ch);
        }
    }

    @Test
    void aRequestWithBody_writtenOneByteAtATime_isStoredWhole() {
        EmbeddedChannel ch = connection();
        createBucket(ch);
        String key = key();
        String body = "one byte at a time: " + "x".repeat(100);
        byte[] put =
                SignedRequest.of("PUT", "/" + BUCKET + "/" + key).body(body).bytes(HOST);

        for (int i = 0; i < put.length; i++) {
            write(ch, slice(put, i, i + 1));
        }
        List<Answer> answers = outbound(ch);
        List<Answer> get = send(ch, SignedRequest.of("GET", "/" + BUCKET + "/" + key));

        assertThat(answers).extracting(Answer::status).containsExactly(200);
        assertThat(get).singleElement().extracting(Answer::body).isEqualTo(body);
    }

    @Test
    void connectionClose_isAnsweredThenClosed() {
        EmbeddedChannel ch = connection();
        createBucket(ch);

        List<Answer> answers = send(ch, SignedRequest.of("GET", "/" + BUCKET).unsignedHeader("Connection", "close"));

        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.body()).contains("<ListBucketResult");
            assertThat(a.header("connection")).isEqualToIgnoringCase("close");
        });
        assertThat(ch.isOpen()).as("closed after the answer").isFalse();
    }

    @Test
    void healthProbes_pipelinedBetweenRequests_areAnsweredInOrder_andAProbeWithABodyClosesTheConnection() {
        EmbeddedChannel ch = connection();
        createBucket(ch);

        List<Answer> answers = send(
                ch,
                SignedRequest.of("GET", "/appliance/health/live"),
                SignedRequest.of("GET", "/" + BUCKET + "/" + key()),
                SignedRequest.of("GET", "/appliance/health/cluster"),
                SignedRequest.of("GET", "/appliance/nothing-here"),
                SignedRequest.of("PUT", "/appliance/health/live").body("not for a probe"),
                SignedRequest.of("GET", "/appliance/health/ready"));

        assertThat(answers).extracting(Answer::status).containsExactly(200, 404, 200, 403, 405);
        assertThat(answers.get(0).body()).isEqualTo("{\"status\":\"UP\"}\n");
        assertThat(answers.get(3).body()).contains("<Code>AllAccessDisabled</Code>");
        assertThat(ch.isOpen())
                .as("the body of the refused PUT is dropped and the connection closed; the last probe is not read")
                .isFalse();
    }

    @Test
    void pipelinedRequestsAfterConnectionClose_areDropped() {
        EmbeddedChannel ch = connection();
        createBucket(ch);

        List<Answer> answers = send(
                ch,
                SignedRequest.of("GET", "/" + BUCKET).unsignedHeader("Connection", "close"),
                SignedRequest.of("PUT", "/" + BUCKET + "/after-close").body("never stored"));

        assertThat(answers).extracting(Answer::status).containsExactly(200);
        assertThat(ch.isOpen()).isFalse();
        EmbeddedChannel other = connection();
        assertThat(send(other, SignedRequest.of("GET", "/" + BUCKET + "/after-close")))
                .extracting(Answer::status)
                .containsExactly(404);
    }

    @Test
    void expect100Continue_isAnsweredBeforeTheBodyIsSent() {
        EmbeddedChannel ch = connection();
        createBucket(ch);
        String key = key();
        SignedRequest put = SignedRequest.of("PUT", "/" + BUCKET + "/" + key)
                .unsignedHeader("Expect", "100-continue")
                .body("after continue");

        write(ch, put.head(HOST));
        List<Answer> interim = outbound(ch);
        write(ch, put.body());
        List<Answer> result = outbound(ch);

        assertThat(interim).extracting(Answer::status).containsExactly(100);
        assertThat(result).extracting(Answer::status).containsExactly(200);
        assertThat(send(ch, SignedRequest.of("GET", "/" + BUCKET + "/" + key)))
                .singleElement()
                .extracting(Answer::body)
                .isEqualTo("after continue");
    }

    @Test
    void aWrongSignature_isRefusedOnTheEventLoop_andTheConnectionServesOn() {
        EmbeddedChannel ch = connection();
        createBucket(ch);

        List<Answer> answers = send(
                ch,
                SignedRequest.of("GET", "/" + BUCKET).signedWith("not-the-secret"),
                SignedRequest.of("GET", "/" + BUCKET));

        assertThat(answers).extracting(Answer::status).containsExactly(403, 200);
        assertThat(answers.getFirst().body()).contains("<Code>SignatureDoesNotMatch</Code>");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void aMissingBucket_isAnsweredByTheWorkerWithS3sError() {
        EmbeddedChannel ch = connection();

        List<Answer> answers = send(ch, SignedRequest.of("GET", "/no-such-bucket-here/key"));

        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.status()).isEqualTo(404);
            assertThat(a.body()).contains("<Code>NoSuchBucket</Code>");
            assertThat(a.header("x-amz-request-id")).isNotBlank();
        });
    }

    @Test
    void anUnframedBody_isRefused_andTheConnectionClosed() {
        EmbeddedChannel ch = connection();
        byte[] head = SignedRequest.of("PUT", "/" + BUCKET + "/k").head(HOST);
        String bad = new String(head, StandardCharsets.UTF_8).replace("Content-Length: 0", "Content-Length: twelve");

        write(ch, (bad + "some body bytes").getBytes(StandardCharsets.UTF_8));
        List<Answer> answers = outbound(ch);

        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.status()).isEqualTo(400);
            assertThat(a.header("connection")).isEqualToIgnoringCase("close");
        });
        assertThat(ch.isOpen()).as("the rest of the stream cannot be framed").isFalse();
    }

    // ---- the harness -------------------------------------------------------------------------------------------

    /** A connection through the server's own pipeline, its workers run by {@link #settle}. */
    private EmbeddedChannel connection() {
        HttpServer.Services services = new HttpServer.Services(
                verifier,
                dispatcher,
                workers,
                new RequestIds(),
                null,
                new Admission(100, 10, 100),
                Duration.ofSeconds(60),
                dev.appliance.s3.metrics.S3Metrics.NONE);
        EmbeddedChannel ch = new EmbeddedChannel(new HttpServer.ConnectionInitializer(
                null, services, TimeUnit.SECONDS.toNanos(30), TimeUnit.MINUTES.toNanos(5)));
        channels.add(ch);
        return ch;
    }

    private void createBucket(EmbeddedChannel ch) {
        List<Answer> answers = send(ch, SignedRequest.of("PUT", "/" + BUCKET));
        assertThat(answers).singleElement().extracting(Answer::status).isIn(200, 409);
    }

    private static String key() {
        return "key-" + KEYS.incrementAndGet();
    }

    /** Writes the requests in one buffer and answers the responses to them. */
    private List<Answer> send(EmbeddedChannel ch, SignedRequest... requests) {
        var all = new java.io.ByteArrayOutputStream();
        for (SignedRequest r : requests) {
            all.writeBytes(r.bytes(HOST));
        }
        write(ch, all.toByteArray());
        return outbound(ch);
    }

    private void write(EmbeddedChannel ch, byte[] bytes) {
        ByteBuf b = Unpooled.directBuffer(bytes.length).writeBytes(bytes); // direct: tracked by the leak detector
        written.add(b);
        ch.writeInbound(b);
        settle(ch);
    }

    private static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, to);
    }

    /**
     * Runs the event loop's tasks and the queued workers until neither has anything left to do (workers of a closed
     * connection run too: their body reads fail, as they do in the server).
     */
    private void settle(EmbeddedChannel ch) {
        for (int rounds = 0; ; rounds++) {
            assertThat(rounds).as("the exchange settles").isLessThan(1000);
            ch.runPendingTasks();
            if (!workers.runOne(!ch.isOpen())) {
                ch.runPendingTasks();
                if (!workers.runOne(!ch.isOpen())) {
                    return;
                }
            }
        }
    }

    /** The responses written so far, decoded as a client would; the buffers are released. */
    private static List<Answer> outbound(EmbeddedChannel ch) {
        EmbeddedChannel client = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 20));
        Object o;
        while ((o = ch.readOutbound()) != null) {
            client.writeInbound(o);
        }
        List<Answer> answers = new ArrayList<>();
        FullHttpResponse r;
        while ((r = client.readInbound()) != null) {
            try {
                answers.add(Answer.of(r));
            } finally {
                r.release();
            }
        }
        assertThat(client.finishAndReleaseAll()).as("a partial response").isFalse();
        return answers;
    }

    private void closeAndCheck(EmbeddedChannel ch) {
        settle(ch);
        assertThat(ch.finishAndReleaseAll()).isFalse();
        channels.remove(ch);
    }

    record Answer(int status, io.netty.handler.codec.http.HttpHeaders headers, String body) {
        static Answer of(FullHttpResponse r) {
            return new Answer(r.status().code(), r.headers().copy(), r.content().toString(StandardCharsets.UTF_8));
        }

        String header(String name) {
            return headers.get(name);
        }
    }

    /** The worker executor: tasks wait in a queue until the test runs them, one at a time, on its own thread. */
    private static final class WorkerQueue extends AbstractExecutorService {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        /**
         * Runs the first task that can run without blocking: a request whose body has not all arrived would wait for
         * it on this, the event loop's, thread, so it stays queued until it has (or {@code all} says run anyway).
         */
        boolean runOne(boolean all) {
            for (var it = tasks.iterator(); it.hasNext(); ) {
                Runnable r = it.next();
                if (all || !(r instanceof Exchange ex) || ex.requestBodyDone) {
                    it.remove();
                    r.run();
                    return true;
                }
            }
            return false;
        }

        @Override
        public void execute(Runnable command) {
            tasks.add(command);
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return false;
        }
    }
}
