package dev.appliance.s3.api;

import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a handler answers: status, headers, and either no body, a small byte body (XML) or a streaming body. The HTTP
 * layer adds the common headers (request id, date, server, content length).
 */
public final class S3Response {
    /** A body written straight to the connection; closed by the HTTP layer whether or not it was written. */
    public interface StreamingBody extends AutoCloseable {
        long length();

        void writeTo(OutputStream out) throws IOException;

        @Override
        void close();
    }

    private final int status;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private byte[] body;
    private StreamingBody streaming;
    private dev.appliance.s3.error.S3Exception refusal;

    private S3Response(int status) {
        this.status = status;
    }

    public static S3Response status(int status) {
        return new S3Response(status);
    }

    public static S3Response ok() {
        return new S3Response(200);
    }

    public static S3Response noContent() {
        return new S3Response(204);
    }

    public static S3Response xml(byte[] document) {
        return new S3Response(200).header("Content-Type", "application/xml").body(document);
    }

    /** Sets a header; a null value is ignored. */
    public S3Response header(String name, String value) {
        if (value != null) {
            headers.put(name, value);
        }
        return this;
    }

    public S3Response body(byte[] bytes) {
        this.body = bytes;
        return this;
    }

    public S3Response streaming(StreamingBody s) {
        this.streaming = s;
        return this;
    }

    /**
     * The error this answer renders when its handler answers errors in its own format (IAM's XML) instead of throwing:
     * the HTTP layer counts it as it counts a thrown one (authentication failures in the metrics).
     */
    public S3Response refusal(dev.appliance.s3.error.S3Exception e) {
        this.refusal = e;
        return this;
    }

    /** See {@link #refusal(dev.appliance.s3.error.S3Exception)}; null when none. */
    public dev.appliance.s3.error.S3Exception refusal() {
        return refusal;
    }

    public int status() {
        return status;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public byte[] body() {
        return body;
    }

    public StreamingBody streaming() {
        return streaming;
    }
}
