package dev.appliance.jmh;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How {@link S3Load}'s signed requests reach the server and their answers come back: HTTP/1.1 over plain TCP, one
 * kept-alive connection per worker thread.
 *
 * <p>Two ways, chosen with {@code --client}: {@link #socket} (the default) writes each request on a blocking socket
 * and reads the answer on the calling thread; {@link #jdk} goes through {@code java.net.http}. They send the same
 * requests. The socket one exists because on a two-core machine the load client shares the CPU with the server it
 * measures: {@code java.net.http} spent about as much CPU on a PutObjectRetention call as this appliance spent
 * answering it (its selector thread, futures and hand-offs between threads), which capped the rate any server could
 * show. The JDK's stays as the reference: {@code LoadTransportTest} checks both against one server.
 */
interface LoadTransport extends AutoCloseable {

    /** A request body: the first {@code headLength} bytes of {@code head}, then all of {@code tail}. */
    record Body(byte[] head, int headLength, byte[] tail) {
        static final Body EMPTY = new Body(new byte[0], 0, new byte[0]);

        static Body of(byte[] content) {
            return new Body(content, content.length, new byte[0]);
        }

        long length() {
            return (long) headLength + tail.length;
        }
    }

    /** An answer: its status, its {@code x-amz-version-id} (null when absent), and its body, which must be closed. */
    record Response(int status, String versionId, InputStream body) {}

    /**
     * Sends one request and returns once the answer's head is read.
     *
     * @param headers each {@code {name, value}}; Host and Content-Length are the transport's
     */
    Response send(String method, URI uri, List<String[]> headers, Body body) throws IOException, InterruptedException;

    @Override
    void close();

    /** The names {@link #named} takes, the default first. */
    List<String> NAMES = List.of("socket", "jdk");

    /** The named transport, one of {@link #NAMES}. */
    static LoadTransport named(String name, int connections) {
        return switch (name) {
            case "socket" -> socket();
            case "jdk" -> jdk(connections);
            default -> throw new IllegalArgumentException("transport: " + name + " (expected one of " + NAMES + ")");
        };
    }

    static LoadTransport socket() {
        return new SocketTransport();
    }

    static LoadTransport jdk(int connections) {
        return new JdkTransport(connections);
    }

    /** {@code java.net.http}: the reference. */
    final class JdkTransport implements LoadTransport {
        private final HttpClient http;

        JdkTransport(int connections) {
            // The JDK keeps at most this many idle connections: one per worker, reused request after request.
            System.setProperty("jdk.httpclient.connectionPoolSize", String.valueOf(connections));
            this.http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
        }

        @Override
        public Response send(String method, URI uri, List<String[]> headers, Body body)
                throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(5));
            for (String[] h : headers) {
                b.header(h[0], h[1]);
            }
            HttpRequest.BodyPublisher publisher;
            if (body.length() == 0) {
                publisher = HttpRequest.BodyPublishers.noBody();
            } else if (body.tail().length == 0) {
                publisher = HttpRequest.BodyPublishers.ofByteArray(body.head(), 0, body.headLength());
            } else {
                publisher = HttpRequest.BodyPublishers.concat(
                        HttpRequest.BodyPublishers.ofByteArray(body.head(), 0, body.headLength()),
                        HttpRequest.BodyPublishers.ofByteArray(body.tail()));
            }
            b.method(method, publisher);
            HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            return new Response(
                    r.statusCode(), r.headers().firstValue("x-amz-version-id").orElse(null), r.body());
        }

        @Override
        public void close() {
            http.close();
        }
    }

    /** A blocking socket per calling thread, kept alive between its requests. */
    final class SocketTransport implements LoadTransport {
        private static final int TIMEOUT_MILLIS = 5 * 60 * 1000;
        private final ThreadLocal<Connection> mine = new ThreadLocal<>();
        private final List<Connection> all = new ArrayList<>();

        @Override
        public Response send(String method, URI uri, List<String[]> headers, Body body) throws IOException {
            byte[] head = requestHead(method, uri, headers, body.length());
            Connection c = mine.get();
            if (c != null && (c.busy || c.closed() || !c.endpoint.equals(endpointOf(uri)))) {
                discard(c); // its last body was never closed, the server ended it, or another server
                c = null;
            }
            boolean reused = c != null;
            if (c == null) {
                c = open(uri);
            }
            try {
                return c.exchange(head, body, method.equals("HEAD"));
            } catch (IOException e) {
                discard(c);
                if (!reused || c.answered) {
                    throw e;
                }
                // A kept-alive connection the server had closed meanwhile: the request never reached it; once more.
                return open(uri).exchange(head, body, method.equals("HEAD"));
            }
        }

        private Connection open(URI uri) throws IOException {
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                s.setSoTimeout(TIMEOUT_MILLIS);
                s.connect(new InetSocketAddress(uri.getHost(), uri.getPort() >= 0 ? uri.getPort() : 80), 10_000);
            } catch (IOException e) {
                s.close();
                throw e;
            }
            Connection c = new Connection(endpointOf(uri), s);
            mine.set(c);
            synchronized (all) {
                all.add(c);
            }
            return c;
        }

        private void discard(Connection c) {
            c.close();
            synchronized (all) {
                all.remove(c);
            }
        }

        private static String endpointOf(URI uri) {
            return uri.getHost() + ":" + (uri.getPort() >= 0 ? uri.getPort() : 80);
        }

        static byte[] requestHead(String method, URI uri, List<String[]> headers, long contentLength) {
            StringBuilder h = new StringBuilder(512);
            h.append(method).append(' ').append(uri.getRawPath());
            if (uri.getRawQuery() != null) {
                h.append('?').append(uri.getRawQuery());
            }
            h.append(" HTTP/1.1\r\nHost: ").append(uri.getHost());
            if (uri.getPort() >= 0) {
                h.append(':').append(uri.getPort());
            }
            h.append("\r\n");
            for (String[] kv : headers) {
                h.append(kv[0]).append(": ").append(kv[1]).append("\r\n");
            }
            // Every request states its length, an empty body too: no server has to guess where it ends.
            h.append("Content-Length: ").append(contentLength).append("\r\n\r\n");
            return h.toString().getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() {
            synchronized (all) {
                all.forEach(Connection::close);
                all.clear();
            }
        }
    }

    /** One kept-alive connection and the answer being read on it. */
    final class Connection {
        final String endpoint;
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        boolean busy;
        /** Whether any byte of the current answer arrived: only a request that got none may be sent again. */
        boolean answered;

        Connection(String endpoint, Socket socket) throws IOException {
            this.endpoint = endpoint;
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
            this.out = new BufferedOutputStream(socket.getOutputStream(), 16 << 10);
        }

        Response exchange(byte[] head, Body body, boolean headRequest) throws IOException {
            busy = true;
            answered = false;
            out.write(head);
            out.write(body.head(), 0, body.headLength());
            out.write(body.tail());
            out.flush();
            while (true) {
                String statusLine = line(true);
                // "HTTP/1.1 200 OK"
                if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
                    throw new IOException("not an HTTP/1.1 status line: '" + statusLine + "'");
                }
                int status;
                try {
                    status = Integer.parseInt(statusLine.substring(9, 12));
                } catch (NumberFormatException e) {
                    throw new IOException("bad status in '" + statusLine + "'");
                }
                long length = -1;
                boolean chunked = false;
                boolean keepAlive = statusLine.startsWith("HTTP/1.1");
                String versionId = null;
                for (String h; !(h = line(false)).isEmpty(); ) {
                    int colon = h.indexOf(':');
                    if (colon <= 0) {
                        throw new IOException("bad header line '" + h + "'");
                    }
                    String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                    String value = h.substring(colon + 1).trim();
                    switch (name) {
                        case "content-length" -> {
                            try {
                                length = Long.parseLong(value);
                            } catch (NumberFormatException e) {
                                throw new IOException("bad Content-Length '" + value + "'");
                            }
                        }
                        case "transfer-encoding" ->
                            chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                        case "connection" -> keepAlive = !value.equalsIgnoreCase("close");
                        case "x-amz-version-id" -> versionId = value;
                        default -> {}
                    }
                }
                if (status >= 100 && status < 200) {
                    continue; // 100 Continue and the like: the real answer follows
                }
                InputStream content;
                if (headRequest || status == 204 || status == 304) {
                    content = new FixedBody(this, 0, keepAlive); // never a body, whatever the head says
                } else if (chunked) {
                    content = new ChunkedBody(this, keepAlive);
                } else if (length >= 0) {
                    content = new FixedBody(this, length, keepAlive);
                } else {
                    content = new FixedBody(this, Long.MAX_VALUE, false); // to the end of the connection
                }
                return new Response(status, versionId, content);
            }
        }

        /** One CRLF-ended line of the head, ISO-8859-1. */
        String line(boolean first) throws IOException {
            StringBuilder b = new StringBuilder(64);
            while (true) {
                int c = in.read();
                if (c < 0) {
                    throw new EOFException(
                            first && b.isEmpty() ? "connection closed before an answer" : "answer ended in its head");
                }
                answered = true;
                if (c == '\n') {
                    int n = b.length();
                    if (n > 0 && b.charAt(n - 1) == '\r') {
                        b.setLength(n - 1);
                    }
                    return b.toString();
                }
                if (b.length() > 16 << 10) {
                    throw new IOException("header line longer than 16 KiB");
                }
                b.append((char) c);
            }
        }

        /** The answer's body was read to its end: the connection takes the next request, or is closed. */
        void finished(boolean keepAlive) {
            busy = false;
            if (!keepAlive) {
                close();
            }
        }

        boolean closed() {
            return socket.isClosed();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing: nothing to keep
            }
        }
    }

    /** An answer's body on a kept-alive connection: closing it reads what is left, so the connection can go on. */
    abstract class AnswerBody extends InputStream {
        final Connection c;
        final boolean keepAlive;
        boolean done;

        AnswerBody(Connection c, boolean keepAlive) {
            this.c = c;
            this.keepAlive = keepAlive;
        }

        @Override
        public final int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public final int read(byte[] b, int off, int len) throws IOException {
            return done ? -1 : len == 0 ? 0 : readSome(b, off, len);
        }

        /** Reads at least one byte of a body not yet at its end, or -1 at the end. */
        abstract int readSome(byte[] b, int off, int len) throws IOException;

        @Override
        public final void close() throws IOException {
            byte[] skip = new byte[8192];
            while (!done && read(skip, 0, skip.length) >= 0) {
                // drain
            }
        }
    }

    /** A body of known length (or up to the connection's end). */
    final class FixedBody extends AnswerBody {
        private long left;

        FixedBody(Connection c, long length, boolean keepAlive) {
            super(c, keepAlive);
            this.left = length;
            if (length == 0) {
                end();
            }
        }

        @Override
        int readSome(byte[] b, int off, int len) throws IOException {
            int n = c.in.read(b, off, (int) Math.min(len, left));
            if (n < 0) {
                if (left != Long.MAX_VALUE) {
                    c.close();
                    throw new EOFException("answer body ended " + left + " bytes early");
                }
                end();
                return -1;
            }
            left -= n;
            if (left == 0) {
                end();
            }
            return n;
        }

        private void end() {
            done = true;
            c.finished(keepAlive && left == 0);
        }
    }

    /** A chunked body. */
    final class ChunkedBody extends AnswerBody {
        private long chunkLeft;

        ChunkedBody(Connection c, boolean keepAlive) {
            super(c, keepAlive);
        }

        @Override
        int readSome(byte[] b, int off, int len) throws IOException {
            if (chunkLeft == 0) {
                String size = c.line(false);
                int semicolon = size.indexOf(';');
                try {
                    chunkLeft = Long.parseLong((semicolon >= 0 ? size.substring(0, semicolon) : size).trim(), 16);
                } catch (NumberFormatException e) {
                    throw new IOException("bad chunk size line '" + size + "'");
                }
                if (chunkLeft == 0) {
                    while (!c.line(false).isEmpty()) {
                        // trailers
                    }
                    done = true;
                    c.finished(keepAlive);
                    return -1;
                }
            }
            int n = c.in.read(b, off, (int) Math.min(len, chunkLeft));
            if (n < 0) {
                c.close();
                throw new EOFException("answer ended inside a chunk");
            }
            chunkLeft -= n;
            if (chunkLeft == 0 && !c.line(false).isEmpty()) {
                throw new IOException("chunk not followed by CRLF");
            }
            return n;
        }
    }
}
