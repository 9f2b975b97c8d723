package dev.appliance.s3.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.auth.UriEncoding;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fuzzes the request-head path we own: raw bytes through Netty's HTTP decoder (configured as the server's), then
 * {@link ParsedRequest#parse} and the SigV4 canonical URI and query built from what it kept. Invariants: parsing
 * either succeeds or refuses with {@code InvalidURI} / {@code KeyTooLongError}; a bucket is never empty nor holds a
 * '/', a key is never empty and at most 1024 UTF-8 bytes, and bucket plus key are the decoded path; header names are
 * lower-case; the canonical forms are computed or refused with {@code InvalidURI}, never another exception.
 */
class ParsedRequestFuzzTest {
    private static final List<String> METHODS = List.of("GET", "PUT", "POST", "HEAD", "DELETE", "OPTIONS");

    @FuzzTest
    void requestHeadIsParsedOrRefused(FuzzedDataProvider data) {
        String method = METHODS.get(data.consumeInt(0, METHODS.size() - 1));
        boolean structured = data.consumeBoolean();
        String head;
        if (structured) {
            // a well-framed head with a fuzzed target and fuzzed headers: reaches ParsedRequest most of the time
            String target = data.consumeString(300).replaceAll("[\\s]", "");
            StringBuilder sb = new StringBuilder(method + " /" + target + " HTTP/1.1\r\nHost: h\r\n");
            int n = data.consumeInt(0, 6);
            for (int i = 0; i < n; i++) {
                String name = data.consumeString(20).replaceAll("[^A-Za-z0-9-]", "");
                String value = data.consumeString(60).replaceAll("[\\r\\n]", "");
                if (!name.isEmpty()) {
                    sb.append(name).append(": ").append(value).append("\r\n");
                }
            }
            head = sb.append("\r\n").toString();
        } else {
            head = method + " " + data.consumeRemainingAsString() + "\r\n\r\n";
        }

        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder(new HttpDecoderConfig()
                .setMaxInitialLineLength(HttpServer.MAX_INITIAL_LINE)
                .setMaxHeaderSize(HttpServer.MAX_HEADER_SIZE)));
        try {
            ch.writeInbound(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.UTF_8)));
            for (Object msg; (msg = ch.readInbound()) != null; ) {
                try {
                    if (msg instanceof HttpRequest req && req.decoderResult().isSuccess()) {
                        check(req);
                    }
                } finally {
                    ReferenceCountUtil.release(msg);
                }
            }
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private static void check(HttpRequest req) {
        ParsedRequest p;
        try {
            p = ParsedRequest.parse(req);
        } catch (S3Exception e) {
            assertThat(e.code()).isIn(S3ErrorCode.InvalidURI, S3ErrorCode.KeyTooLongError);
            return;
        }
        assertThat(p.method()).isEqualTo(req.method().name());
        assertThat(p.rawPath()).startsWith("/");
        String decodedPath = UriEncoding.decode(p.rawPath());
        if (p.bucket() == null) {
            assertThat(p.key()).isNull();
            assertThat(decodedPath).isEqualTo("/");
        } else {
            assertThat(p.bucket()).isNotEmpty().doesNotContain("/");
            String expected = "/" + p.bucket() + (p.key() == null ? "" : "/" + p.key());
            assertThat(decodedPath).isIn(expected, expected + "/");
        }
        if (p.key() != null) {
            assertThat(p.key()).isNotEmpty();
            assertThat(p.key().getBytes(StandardCharsets.UTF_8).length)
                    .isLessThanOrEqualTo(ParsedRequest.MAX_KEY_BYTES);
            assertThat(p.resource()).isEqualTo("/" + p.bucket() + "/" + p.key());
        }
        for (Map.Entry<String, List<String>> h : p.headers().entrySet()) {
            assertThat(h.getKey()).isEqualTo(h.getKey().toLowerCase(Locale.ROOT));
            assertThat(h.getValue()).isNotEmpty();
        }
        try {
            assertThat(SigV4.canonicalUri(p.rawPath())).startsWith("/");
            String q = SigV4.canonicalQuery(p.rawQuery());
            assertThat(q).doesNotContain("?");
        } catch (S3Exception e) {
            assertThat(e.code()).isEqualTo(S3ErrorCode.InvalidURI);
        }
    }
}
