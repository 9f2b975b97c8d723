package dev.appliance.s3.api.post;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FormDataReaderTest {
    static final String BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";

    /** A stream that hands out its bytes in the given pieces (each read returns at most up to the next cut). */
    static final class Pieces extends InputStream {
        private final byte[] data;
        private final int[] cuts;
        private int pos;
        private int next;

        Pieces(byte[] data, int... cuts) {
            this.data = data;
            this.cuts = cuts;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= data.length) {
                return -1;
            }
            while (next < cuts.length && cuts[next] <= pos) {
                next++;
            }
            int limit = next < cuts.length ? cuts[next] : data.length;
            int n = Math.min(len, limit - pos);
            System.arraycopy(data, pos, b, off, n);
            pos += n;
            return n;
        }
    }

    /** One byte per read. */
    static final class Trickle extends InputStream {
        private final byte[] data;
        private int pos;

        Trickle(byte[] data) {
            this.data = data;
        }

        @Override
        public int read() {
            return pos < data.length ? data[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= data.length) {
                return -1;
            }
            b[off] = data[pos++];
            return 1;
        }
    }

    static byte[] form(String preamble, Map<String, String> fields, String filename, byte[] file, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(preamble.getBytes(StandardCharsets.UTF_8));
        for (Map.Entry<String, String> e : fields.entrySet()) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + e.getKey() + "\"\r\n\r\n"
                            + e.getValue() + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(file);
        out.writeBytes(("\r\n--" + BOUNDARY + after).getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    record Parsed(Map<String, String> fields, String filename, byte[] file) {}

    static Parsed parse(InputStream in, long preDataLimit) throws IOException {
        FormDataReader r = new FormDataReader(in, BOUNDARY, preDataLimit);
        Map<String, String> fields = new LinkedHashMap<>();
        FormDataReader.PartHead h;
        while ((h = r.next()) != null) {
            if (h.name().equals("file")) {
                byte[] file = r.body().readAllBytes();
                return new Parsed(fields, h.filename(), file);
            }
            fields.put(h.name(), r.readValue());
        }
        return new Parsed(fields, null, null);
    }

    /** File content full of near-delimiters: boundary text without CRLF, CRLF plus partial boundaries, lone CRs. */
    static byte[] trickyFile() {
        String s = "--" + BOUNDARY + "\r\n" // a delimiter line at the very start of the data, but without the CRLF
                + "line\r\n--" + BOUNDARY.substring(0, 10) + "\r\n" // CRLF and a partial boundary
                + "\r\r\n\n-\r\n-" + "\r\n--" + BOUNDARY.substring(0, BOUNDARY.length() - 1) + "X" // all but the last
                + "\r\n-" + BOUNDARY + "\r";
        byte[] text = s.getBytes(StandardCharsets.ISO_8859_1);
        byte[] bin = new byte[300];
        for (int i = 0; i < bin.length; i++) {
            bin[i] = (byte) (i * 31 + 7);
        }
        byte[] all = Arrays.copyOf(text, text.length + bin.length);
        System.arraycopy(bin, 0, all, text.length, bin.length);
        return all;
    }

    static Map<String, String> sampleFields() {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("key", "user/${filename}");
        f.put("Content-Type", "image/png");
        f.put("x-amz-meta-note", "grüße\r\nsecond line");
        f.put("empty", "");
        return f;
    }

    @Test
    void read_whenSplitAtEveryByte_yieldsSameFieldsAndFile() throws IOException {
        byte[] file = trickyFile();
        byte[] body = form("", sampleFields(), "a b.png", file, "--\r\n");
        for (int cut = 0; cut <= body.length; cut++) {
            Parsed p = parse(new Pieces(body, cut), 1 << 20);
            assertThat(p.fields()).as("cut at %d", cut).isEqualTo(sampleFields());
            assertThat(p.filename()).isEqualTo("a b.png");
            assertThat(p.file()).as("cut at %d", cut).isEqualTo(file);
        }
        Parsed trickled = parse(new Trickle(body), 1 << 20);
        assertThat(trickled.file()).isEqualTo(file);
        assertThat(trickled.fields()).isEqualTo(sampleFields());
    }

    @Test
    void read_whenSplitAtEveryPairOfPositions_yieldsSameFile() throws IOException {
        byte[] file = "\r\n--\r\n\r\r\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] body = form("", Map.of("k", "v"), "f", file, "--");
        for (int a = 0; a <= body.length; a++) {
            for (int b = a; b <= body.length; b += 3) {
                Parsed p = parse(new Pieces(body, a, b), 1 << 20);
                assertThat(p.file()).as("cuts %d, %d", a, b).isEqualTo(file);
                assertThat(p.fields()).isEqualTo(Map.of("k", "v"));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\r", "\r\n", "\r\n-", "\r\n--", "-", "x\r\n--" + BOUNDARY + "-"})
    void read_fileEndingInDelimiterPrefixes_isKeptExactly(String tail) throws IOException {
        byte[] file = ("data" + tail).getBytes(StandardCharsets.ISO_8859_1);
        if (tail.startsWith("x\r\n--")) {
            // a full delimiter followed by a single '-' is not a close delimiter: the form is malformed
            byte[] body = form("", Map.of(), "f", file, "--");
            BodyException e = catchThrowableOfType(BodyException.class, () -> parse(new Trickle(body), 1 << 20));
            assertThat(e.code()).isEqualTo(S3ErrorCode.MalformedPOSTRequest);
            return;
        }
        byte[] body = form("", Map.of(), "f", file, "--");
        assertThat(parse(new Trickle(body), 1 << 20).file()).isEqualTo(file);
        assertThat(parse(new Pieces(body, body.length - 3), 1 << 20).file()).isEqualTo(file);
    }

    @Test
    void read_emptyFile_andPreambleAndPaddingAndEpilogue() throws IOException {
        byte[] body = form("This is a preamble.\r\n", Map.of("key", "k"), "", new byte[0], "--\r\nepilogue");
        Parsed p = parse(new Pieces(body, 5, 40), 1 << 20);
        assertThat(p.file()).isEmpty();
        assertThat(p.filename()).isEmpty();
        assertThat(p.fields()).containsEntry("key", "k");

        String padded = "--" + BOUNDARY + " \t\r\nContent-Disposition: form-data; name=key\r\n\r\nv\r\n--" + BOUNDARY
                + "\t\r\ncontent-disposition: FORM-DATA; filename=\"x\\\"y\"; name=\"file\"\r\n\r\nz\r\n--" + BOUNDARY
                + "--";
        Parsed q = parse(new Trickle(padded.getBytes(StandardCharsets.UTF_8)), 1 << 20);
        assertThat(q.fields()).containsExactlyEntriesOf(Map.of("key", "v"));
        assertThat(q.filename()).isEqualTo("x\"y");
        assertThat(q.file()).containsExactly('z');
    }

    @Test
    void read_formWithoutFile_endsAfterFields() throws IOException {
        String body =
                "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--" + BOUNDARY + "--\r\n";
        Parsed p = parse(new Trickle(body.getBytes(StandardCharsets.UTF_8)), 1 << 20);
        assertThat(p.fields()).containsExactlyEntriesOf(Map.of("a", "1"));
        assertThat(p.file()).isNull();
    }

    @Test
    void read_truncatedAnywhereBeforeTheFileEnds_fails() {
        byte[] file = trickyFile();
        byte[] body = form("", sampleFields(), "f", file, "--\r\n");
        byte[] delimiter = ("\r\n--" + BOUNDARY).getBytes(StandardCharsets.ISO_8859_1);
        int fileEnd = body.length - delimiter.length - 4; // the file's closing delimiter starts here
        for (int cut = 0; cut < fileEnd + delimiter.length + 2; cut++) {
            byte[] prefix = Arrays.copyOf(body, cut);
            int half = cut / 2;
            BodyException e = catchThrowableOfType(BodyException.class, () -> parse(new Pieces(prefix, half), 1 << 20));
            assertThat(e).as("truncated at %d", cut).isNotNull();
            assertThat(e.code()).isEqualTo(S3ErrorCode.MalformedPOSTRequest);
        }
    }

    @Test
    void read_fieldsBeyondThePreDataLimit_fail() throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("policy", "p".repeat(30_000));
        byte[] body = form("", fields, "f", new byte[] {1}, "--");
        BodyException e = catchThrowableOfType(BodyException.class, () -> parse(new Pieces(body, 100), 20 * 1024));
        assertThat(e.code()).isEqualTo(S3ErrorCode.MaxPostPreDataLengthExceededError);

        // a long header line is refused the same way, never buffered without bound
        String longHead = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + "n".repeat(40_000)
                + "\"\r\n\r\nv\r\n--" + BOUNDARY + "--";
        BodyException h = catchThrowableOfType(
                BodyException.class, () -> parse(new Pieces(longHead.getBytes(StandardCharsets.UTF_8)), 1 << 20));
        assertThat(h.code()).isEqualTo(S3ErrorCode.MaxPostPreDataLengthExceededError);

        // the file itself does not count
        byte[] big = new byte[200_000];
        Parsed p = parse(new Pieces(form("", Map.of("key", "k"), "f", big, "--"), 1000), 20 * 1024);
        assertThat(p.file()).hasSize(big.length);
    }

    @Test
    void read_malformedParts_areRefused() {
        List<String> bad = new ArrayList<>();
        bad.add(""); // no delimiter at all
        bad.add("--" + BOUNDARY + "\r\nContent-Type: text/plain\r\n\r\nv\r\n--" + BOUNDARY + "--"); // no disposition
        bad.add("--" + BOUNDARY + "\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--" + BOUNDARY + "--");
        bad.add("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--" + BOUNDARY + "--");
        bad.add("--" + BOUNDARY + "\r\nno colon here\r\n\r\nv\r\n--" + BOUNDARY + "--");
        bad.add("--" + BOUNDARY + "X\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--" + BOUNDARY + "--");
        bad.add("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv"); // ends inside
        for (String b : bad) {
            BodyException e = catchThrowableOfType(
                    BodyException.class, () -> parse(new Trickle(b.getBytes(StandardCharsets.UTF_8)), 1 << 20));
            assertThat(e).as(b).isNotNull();
            assertThat(e.code()).isEqualTo(S3ErrorCode.MalformedPOSTRequest);
        }
    }

    @Test
    void boundary_isTakenFromTheContentType() {
        assertThat(FormDataReader.boundary("multipart/form-data; boundary=abc")).isEqualTo("abc");
        assertThat(FormDataReader.boundary("Multipart/Form-Data;charset=utf-8; BOUNDARY=\"a b:c\""))
                .isEqualTo("a b:c");
        assertThat(FormDataReader.boundary("multipart/form-data")).isNull();
        assertThat(FormDataReader.boundary("multipart/form-data; boundary=")).isNull();
        assertThat(FormDataReader.boundary("multipart/form-data; boundary=" + "x".repeat(71)))
                .isNull();
        assertThat(FormDataReader.boundary("application/x-www-form-urlencoded")).isNull();
        assertThat(FormDataReader.boundary(null)).isNull();
    }

    @Test
    void disposition_parsesTokensQuotedStringsAndIgnoresExtendedParameters() throws BodyException {
        assertThat(FormDataReader.parseDisposition("form-data; name=key")).containsExactly("key", null);
        assertThat(FormDataReader.parseDisposition("form-data;name=\"file\";filename=\"a;b.txt\""))
                .containsExactly("file", "a;b.txt");
        assertThat(FormDataReader.parseDisposition("form-data; name=\"file\"; filename*=UTF-8''x; filename=\"y\""))
                .containsExactly("file", "y");
    }
}
