package dev.appliance.s3.http;

import dev.appliance.s3.api.Params;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/** Renders {@link S3Response}s and S3 errors as Netty responses, adding the headers every response carries. */
final class Responses {
    static final String SERVER = "Appliance";

    private Responses() {}

    /** The error document {@code <Error><Code/><Message/><Resource/><RequestId/></Error>}. */
    static byte[] errorXml(S3Exception e, String resource, String requestId) {
        return new XmlWriter()
                .start("Error")
                .element("Code", e.code().code())
                .element("Message", e.getMessage())
                .element("Resource", resource)
                .element("RequestId", requestId)
                .toBytes();
    }

    static S3Response errorResponse(S3Exception e, String resource, String requestId, boolean head) {
        S3Response r = S3Response.status(e.code().status());
        for (Map.Entry<String, String> h : e.headers().entrySet()) {
            r.header(h.getKey(), h.getValue());
        }
        if (!head) {
            r.header("Content-Type", "application/xml").body(errorXml(e, resource, requestId));
        }
        return r;
    }

    /**
     * A full response (no body or a byte body). The returned message owns a buffer allocated from {@code alloc};
     * writing it to the channel hands that buffer to Netty.
     */
    static FullHttpResponse full(
            ByteBufAllocator alloc, S3Response r, String requestId, String hostId, boolean keepAlive) {
        byte[] body = r.body();
        ByteBuf content = body == null || body.length == 0
                ? Unpooled.EMPTY_BUFFER
                : alloc.buffer(body.length).writeBytes(body);
        FullHttpResponse resp =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()), content);
        fill(resp.headers(), r, requestId, hostId, keepAlive);
        if (body != null) {
            resp.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        } else if (!resp.headers().contains(HttpHeaderNames.CONTENT_LENGTH) && r.status() != 204 && r.status() != 304) {
            resp.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        }
        return resp;
    }

    /** Headers of a streamed response; the body follows as HttpContent then LastHttpContent. */
    static HttpResponse streamingHead(S3Response r, String requestId, String hostId, boolean keepAlive) {
        HttpResponse resp = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()));
        fill(resp.headers(), r, requestId, hostId, keepAlive);
        resp.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.streaming().length());
        return resp;
    }

    /**
     * A value as it can travel in an HTTP header. Values with non-ASCII or control characters (user metadata sent as
     * UTF-8, overrides from a query string) are sent RFC 2047-encoded, as S3 does, so nothing is mangled or injected.
     */
    static String headerSafe(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c >= 0x7f) {
                return "=?UTF-8?B?" + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "?=";
            }
        }
        return value;
    }

    /** The {@code Date} header of one second, formatted once for all the responses of that second. */
    private record SecondDate(long epochSecond, String text) {}

    private static volatile SecondDate lastDate = new SecondDate(Long.MIN_VALUE, "");

    /** {@code Params.httpDate(now)}, from the last second's text when {@code now} falls in the same second. */
    static String dateHeader(Instant now) {
        SecondDate d = lastDate;
        if (d.epochSecond() != now.getEpochSecond()) {
            // racing threads may each format it once: the same text
            d = new SecondDate(now.getEpochSecond(), Params.httpDate(now));
            lastDate = d;
        }
        return d.text();
    }

    private static void fill(HttpHeaders h, S3Response r, String requestId, String hostId, boolean keepAlive) {
        for (Map.Entry<String, String> e : r.headers().entrySet()) {
            h.set(e.getKey(), headerSafe(e.getValue()));
        }
        h.set("x-amz-request-id", requestId);
        h.set("x-amz-id-2", hostId);
        h.set(HttpHeaderNames.SERVER, SERVER);
        h.set(HttpHeaderNames.DATE, dateHeader(Instant.now()));
        h.set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
    }
}
