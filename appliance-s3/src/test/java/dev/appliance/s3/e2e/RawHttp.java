package dev.appliance.s3.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Reads one HTTP/1.1 response (Content-Length bodies only) from a socket stream, for tests that talk raw HTTP. */
record RawHttp(int status, Map<String, String> headers, String body) {
    static RawHttp read(InputStream in, boolean head) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new TreeMap<>();
        String l;
        while ((l = line(in)) != null && !l.isEmpty()) {
            int colon = l.indexOf(':');
            headers.put(
                    l.substring(0, colon).toLowerCase(Locale.ROOT),
                    l.substring(colon + 1).strip());
        }
        int length = head ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new RawHttp(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
}
