package dev.appliance.s3.api.post;

import static java.util.Objects.requireNonNull;

import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A pull reader of a {@code multipart/form-data} body (RFC 7578 over RFC 2046), reading from a stream without ever
 * holding more than its fixed buffer: {@link #next()} moves to the next part and returns its head, {@link
 * #readValue()} reads a small field value, {@link #body()} streams a part (the upload) to its end.
 *
 * <pre>
 *   preamble CRLF "--" boundary [padding] CRLF      ← the first delimiter (the CRLF is implied at the very start)
 *   header: value CRLF ... CRLF                     ← part head, at least Content-Disposition: form-data; name="..."
 *   data                                            ← part body: any bytes that do not contain CRLF "--" boundary
 *   CRLF "--" boundary [padding] CRLF               ← next part ...
 *   CRLF "--" boundary "--" epilogue                ← the close delimiter; the epilogue is ignored
 * </pre>
 *
 * A state machine over one buffer; {@code "\r\n"} is put in front of the input so that the first delimiter looks like
 * every other one. Everything read outside {@link #body()} (preamble, part heads, values) counts against {@code
 * preDataLimit}; going past it fails with {@code MaxPostPreDataLengthExceededError}. Any framing error, including the
 * input ending inside a part, fails with {@code MalformedPOSTRequest}: both are {@link BodyException}s, so a failure
 * while the upload streams into the store reaches the store as the body's own failure and nothing is committed.
 */
final class FormDataReader {
    /** The head of one part. */
    record PartHead(String name, String filename, String contentType) {
        PartHead {
            requireNonNull(name, "name");
        }
    }

    private enum State {
        PREAMBLE,
        HEADERS,
        BODY,
        END
    }

    static final int BUFFER_SIZE = 16 * 1024;
    private static final int MAX_BOUNDARY = 70;

    private final InputStream in;
    private final byte[] delimiter;
    private final long preDataLimit;
    private final byte[] buf = new byte[BUFFER_SIZE];
    private int pos;
    private int lim;
    private boolean eof;
    private State state = State.PREAMBLE;
    private long preData;

    FormDataReader(InputStream in, String boundary, long preDataLimit) {
        this.in = requireNonNull(in, "in");
        requireNonNull(boundary, "boundary");
        if (boundary.isEmpty() || boundary.length() > MAX_BOUNDARY) {
            throw new IllegalArgumentException("boundary: " + boundary.length() + " characters (expected 1..70)");
        }
        this.delimiter = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        this.preDataLimit = preDataLimit;
        buf[0] = '\r';
        buf[1] = '\n';
        lim = 2;
        preData = -2; // the implied CRLF is not the client's
    }

    /**
     * The boundary of a {@code Content-Type: multipart/form-data; boundary=...} value, or null when the value is not
     * that media type or names no usable boundary.
     */
    static String boundary(String contentType) {
        if (contentType == null) {
            return null;
        }
        String[] parts = contentType.split(";");
        if (!parts[0].strip().equalsIgnoreCase("multipart/form-data")) {
            return null;
        }
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].strip();
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).strip().equalsIgnoreCase("boundary")) {
                String v = p.substring(eq + 1).strip();
                if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
                    v = v.substring(1, v.length() - 1);
                }
                boolean ascii = v.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
                return v.isEmpty() || v.length() > MAX_BOUNDARY || !ascii ? null : v;
            }
        }
        return null;
    }

    /** Moves past the rest of the current part to the next one; null after the close delimiter. */
    PartHead next() throws IOException {
        while (true) {
            switch (state) {
                case PREAMBLE -> {
                    int i = indexOf(delimiter, pos, lim);
                    if (i >= 0) {
                        countPreData(i + delimiter.length - pos);
                        pos = i + delimiter.length;
                        afterDelimiter();
                    } else {
                        int keep = partialDelimiterStart();
                        countPreData(keep - pos);
                        pos = keep;
                        if (!fill()) {
                            throw malformed();
                        }
                    }
                }
                case BODY -> skipBody();
                case HEADERS -> {
                    return readHead();
                }
                case END -> {
                    return null;
                }
            }
        }
    }

    /** The body of the current part as UTF-8 text, counted as pre-data. */
    String readValue() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[1024];
        int n;
        while ((n = readBody(chunk, 0, chunk.length)) > 0) {
            countPreData(n);
            out.write(chunk, 0, n);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * The body of the current part as a stream that ends where the part ends and fails (with a {@link BodyException})
     * when the input ends before. Not counted as pre-data.
     */
    InputStream body() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n <= 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                return readBody(b, off, len);
            }
        };
    }

    /** Reads and drops the rest of the input, at most {@code max} bytes; answers whether the input ended. */
    boolean drain(long max) throws IOException {
        long dropped = lim - pos;
        pos = lim;
        while (dropped <= max) {
            int n = in.read(buf, 0, buf.length);
            if (n < 0) {
                eof = true;
                return true;
            }
            dropped += n;
        }
        return false;
    }

    /** Bytes of preamble, part heads and values read so far. */
    long preDataLength() {
        return Math.max(0, preData);
    }

    private void countPreData(long n) throws BodyException {
        preData += n;
        if (preData > preDataLimit) {
            throw new BodyException(
                    S3ErrorCode.MaxPostPreDataLengthExceededError,
                    "Your POST request fields preceding the upload file were too large.");
        }
    }

    /** Reads part body bytes; -1 once the part's end (the next delimiter) has been reached. */
    private int readBody(byte[] b, int off, int len) throws IOException {
        while (true) {
            if (state != State.BODY) {
                return -1;
            }
            int i = indexOf(delimiter, pos, lim);
            int end = i >= 0 ? i : partialDelimiterStart();
            if (end > pos) {
                int n = Math.min(len, end - pos);
                System.arraycopy(buf, pos, b, off, n);
                pos += n;
                return n;
            }
            if (i >= 0) {
                pos = i + delimiter.length;
                afterDelimiter();
                return -1;
            }
            if (!fill()) {
                throw malformed();
            }
        }
    }

    private void skipBody() throws IOException {
        byte[] scratch = new byte[4096];
        while (readBody(scratch, 0, scratch.length) > 0) {
            // dropped: a field nobody asked for
        }
    }

    /** After {@code CRLF--boundary}: {@code --} closes the body, else optional padding and CRLF open a part. */
    private void afterDelimiter() throws IOException {
        if (!ensure(2)) {
            throw malformed();
        }
        if (buf[pos] == '-' && buf[pos + 1] == '-') {
            pos += 2;
            state = State.END;
            return;
        }
        while (true) {
            if (!ensure(1)) {
                throw malformed();
            }
            byte c = buf[pos];
            if (c == ' ' || c == '\t') {
                countPreData(1);
                pos++;
                continue;
            }
            if (c == '\r' && ensure(2) && buf[pos + 1] == '\n') {
                countPreData(2);
                pos += 2;
                state = State.HEADERS;
                return;
            }
            throw malformed();
        }
    }

    private PartHead readHead() throws IOException {
        String name = null;
        String filename = null;
        String contentType = null;
        boolean disposition = false;
        while (true) {
            String line = readLine();
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw malformed();
            }
            String header = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            if (header.equals("content-disposition")) {
                if (disposition) {
                    throw malformed();
                }
                disposition = true;
                String[] nf = parseDisposition(value);
                name = nf[0];
                filename = nf[1];
            } else if (header.equals("content-type")) {
                contentType = value;
            }
        }
        if (name == null) {
            throw malformed();
        }
        state = State.BODY;
        return new PartHead(name, filename, contentType);
    }

    /** A header line without its CRLF, decoded as UTF-8 (browsers send file names that way). */
    private String readLine() throws IOException {
        while (true) {
            for (int i = pos; i + 1 < lim; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n') {
                    String line = new String(buf, pos, i - pos, StandardCharsets.UTF_8);
                    countPreData(i + 2 - pos);
                    pos = i + 2;
                    return line;
                }
            }
            if (lim - pos >= buf.length - 1) {
                throw new BodyException(
                        S3ErrorCode.MaxPostPreDataLengthExceededError,
                        "Your POST request fields preceding the upload file were too large.");
            }
            if (!fill()) {
                throw malformed();
            }
        }
    }

    /**
     * {@code form-data; name="a"; filename="b"}: the name and the file name (null when absent). Values are tokens or
     * quoted strings ({@code \} escapes the next character).
     */
    static String[] parseDisposition(String value) throws BodyException {
        int i = 0;
        int n = value.length();
        int semi = value.indexOf(';');
        String type = (semi < 0 ? value : value.substring(0, semi)).strip();
        if (!type.equalsIgnoreCase("form-data")) {
            throw malformed();
        }
        String name = null;
        String filename = null;
        i = semi < 0 ? n : semi + 1;
        while (i < n) {
            while (i < n && (value.charAt(i) == ' ' || value.charAt(i) == '\t' || value.charAt(i) == ';')) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int eq = value.indexOf('=', i);
            if (eq < 0) {
                throw malformed();
            }
            String param = value.substring(i, eq).strip().toLowerCase(Locale.ROOT);
            i = eq + 1;
            while (i < n && value.charAt(i) == ' ') {
                i++;
            }
            StringBuilder v = new StringBuilder();
            if (i < n && value.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = value.charAt(i++);
                    if (c == '\\' && i < n) {
                        v.append(value.charAt(i++));
                    } else if (c == '"') {
                        closed = true;
                        break;
                    } else {
                        v.append(c);
                    }
                }
                if (!closed) {
                    throw malformed();
                }
            } else {
                while (i < n && value.charAt(i) != ';') {
                    v.append(value.charAt(i++));
                }
            }
            String text = param.endsWith("*") ? null : v.toString().strip();
            if (param.equals("name")) {
                name = text;
            } else if (param.equals("filename")) {
                filename = text;
            }
        }
        return new String[] {name, filename};
    }

    /** The first index in [pos, lim) from which the rest of the buffer is a proper prefix of the delimiter, or lim. */
    private int partialDelimiterStart() {
        for (int j = Math.max(pos, lim - delimiter.length + 1); j < lim; j++) {
            boolean prefix = true;
            for (int k = 0; j + k < lim; k++) {
                if (buf[j + k] != delimiter[k]) {
                    prefix = false;
                    break;
                }
            }
            if (prefix) {
                return j;
            }
        }
        return lim;
    }

    private int indexOf(byte[] pattern, int from, int to) {
        byte first = pattern[0];
        for (int i = from; i <= to - pattern.length; i++) {
            if (buf[i] != first) {
                continue;
            }
            int k = 1;
            while (k < pattern.length && buf[i + k] == pattern[k]) {
                k++;
            }
            if (k == pattern.length) {
                return i;
            }
        }
        return -1;
    }

    /** Makes at least {@code n} unread bytes available; false when the input ends first. */
    private boolean ensure(int n) throws IOException {
        while (lim - pos < n) {
            if (!fill()) {
                return false;
            }
        }
        return true;
    }

    /** Reads more input behind the unread bytes (compacting first); false at the end of input. */
    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        if (lim == buf.length) {
            return true; // full: callers make progress on what is there
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) {
            eof = true;
            return false;
        }
        lim += n;
        return true;
    }

    static BodyException malformed() {
        return new BodyException(
                S3ErrorCode.MalformedPOSTRequest,
                "The body of your POST request is not well-formed multipart/form-data.");
    }
}
