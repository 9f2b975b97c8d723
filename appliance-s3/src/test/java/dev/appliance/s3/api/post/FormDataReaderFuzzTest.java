package dev.appliance.s3.api.post;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.appliance.s3.error.BodyException;
import dev.appliance.s3.error.S3ErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fuzzes the {@code multipart/form-data} reader of POST Object, fed in fuzzed pieces. Invariants: arbitrary input ends
 * in fields and a file or a {@link BodyException} of {@code MalformedPOSTRequest} / {@code
 * MaxPostPreDataLengthExceededError}, never another exception, and never more pre-data than the limit; a well-formed
 * form built from fuzzed fields and file bytes reads back exactly however it is split; the same form cut short before
 * the file's end is refused, never read as a shorter file.
 */
class FormDataReaderFuzzTest {
    private static final String BOUNDARY = "fuzz-Bnd-7";
    private static final long LIMIT = 2048;

    /** Hands out the input in pieces of the given sizes, round robin. */
    private static InputStream pieces(byte[] data, int[] sizes) {
        return new InputStream() {
            int pos;
            int p;

            @Override
            public int read() {
                return pos < data.length ? data[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= data.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, sizes[p++ % sizes.length]), data.length - pos);
                System.arraycopy(data, pos, b, off, n);
                pos += n;
                return n;
            }
        };
    }

    @FuzzTest
    void formIsReadOrRefusedWithATypedFailure(FuzzedDataProvider data) throws IOException {
        boolean wellFormed = data.consumeBoolean();
        int[] sizes = {data.consumeInt(1, 64), data.consumeInt(1, 5000), data.consumeInt(1, 3)};
        if (wellFormed) {
            roundTrip(data, sizes);
        } else {
            arbitrary(data.consumeRemainingAsBytes(), sizes);
        }
    }

    private static void arbitrary(byte[] body, int[] sizes) throws IOException {
        FormDataReader r = new FormDataReader(pieces(body, sizes), BOUNDARY, LIMIT);
        try {
            FormDataReader.PartHead h;
            while ((h = r.next()) != null) {
                assertThat(h.name()).isNotNull();
                if (h.name().equalsIgnoreCase("file")) {
                    byte[] file = r.body().readAllBytes();
                    assertThat(file.length).isLessThanOrEqualTo(body.length);
                    break;
                }
                r.readValue();
                assertThat(r.preDataLength()).isLessThanOrEqualTo(LIMIT);
            }
        } catch (BodyException e) {
            assertThat(e.code()).isIn(S3ErrorCode.MalformedPOSTRequest, S3ErrorCode.MaxPostPreDataLengthExceededError);
        }
        assertThat(r.preDataLength()).isLessThanOrEqualTo(LIMIT);
    }

    private static void roundTrip(FuzzedDataProvider data, int[] sizes) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        int n = data.consumeInt(0, 4);
        for (int i = 0; i < n; i++) {
            String v = data.consumeString(40);
            // as it reads back from UTF-8 (a lone surrogate cannot be sent)
            fields.put("f" + i, new String(v.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
        }
        byte[] file = data.consumeRemainingAsBytes();
        String delimiter = "\r\n--" + BOUNDARY;
        // a delimiter must not occur in the content (RFC 2046): such inputs are not well-formed forms. It cannot
        // overlap the real one either ('\r' occurs only at its start).
        String fileText = new String(file, StandardCharsets.ISO_8859_1);
        if (fileText.contains(delimiter) || fields.values().stream().anyMatch(v -> v.contains(delimiter))) {
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Map.Entry<String, String> e : fields.entrySet()) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + e.getKey() + "\"\r\n\r\n"
                            + e.getValue() + "\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(file);
        int fileEnd = out.size();
        out.writeBytes((delimiter + "--\r\n").getBytes(StandardCharsets.UTF_8));
        byte[] body = out.toByteArray();

        FormDataReader r = new FormDataReader(pieces(body, sizes), BOUNDARY, 1 << 20);
        Map<String, String> read = new LinkedHashMap<>();
        FormDataReader.PartHead h;
        byte[] got = null;
        while ((h = r.next()) != null) {
            if (h.name().equals("file")) {
                got = r.body().readAllBytes();
                break;
            }
            read.put(h.name(), r.readValue());
        }
        assertThat(read).isEqualTo(fields);
        assertThat(got).isEqualTo(file);

        // cut short before the file's closing delimiter is complete: refused
        int cut = fileEnd + delimiter.length() + 1 - (int) (Math.abs((long) Arrays.hashCode(file)) % (file.length + 2));
        cut = Math.max(0, Math.min(cut, fileEnd + delimiter.length() + 1));
        FormDataReader t = new FormDataReader(pieces(Arrays.copyOf(body, cut), sizes), BOUNDARY, 1 << 20);
        boolean refused = false;
        try {
            while ((h = t.next()) != null) {
                if (h.name().equals("file")) {
                    t.body().readAllBytes();
                    break;
                }
                t.readValue();
            }
            if (h == null) {
                refused = true; // cut inside the fields: ended without a file, also not a stored upload
            }
        } catch (BodyException e) {
            assertThat(e.code()).isEqualTo(S3ErrorCode.MalformedPOSTRequest);
            refused = true;
        }
        assertThat(refused).as("cut at %d of %d", cut, body.length).isTrue();
    }
}
