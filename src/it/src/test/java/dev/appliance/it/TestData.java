package dev.appliance.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** Reproducible random payloads and their MD5 (the ETag of a single-PUT object). */
public final class TestData {
    private TestData() {}

    public static byte[] bytes(long seed, int size) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    public static String md5Hex(byte[] data) {
        MessageDigest md = md5();
        md.update(data);
        return HexFormat.of().formatHex(md.digest());
    }

    /** Writes {@code size} random bytes to {@code file} in 1 MiB pieces; returns their MD5 in hex. */
    public static String writeRandomFile(Path file, long size, long seed) {
        Random random = new Random(seed);
        MessageDigest md = md5();
        byte[] buf = new byte[1 << 20];
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                long left = size;
                while (left > 0) {
                    int n = (int) Math.min(buf.length, left);
                    random.nextBytes(buf);
                    out.write(buf, 0, n);
                    md.update(buf, 0, n);
                    left -= n;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    public static String md5Hex(Path file) {
        MessageDigest md = md5();
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** The ETag as S3 returns it, without the quotes. */
    public static String unquote(String etag) {
        return etag == null ? null : etag.replace("\"", "");
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
