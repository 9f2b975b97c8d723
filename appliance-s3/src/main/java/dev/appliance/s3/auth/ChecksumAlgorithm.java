package dev.appliance.s3.auth;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/** The S3 additional checksums: header/trailer name and a running computation giving the raw value. */
public enum ChecksumAlgorithm {
    CRC32,
    CRC32C,
    CRC64NVME,
    SHA1,
    SHA256;

    /** A checksum over a stream of bytes. */
    public interface Running {
        void update(byte[] b, int off, int len);

        /** The raw value (big-endian for CRCs); S3 transmits it base64-encoded. */
        byte[] value();
    }

    /** {@code x-amz-checksum-crc32} etc. */
    public String headerName() {
        return "x-amz-checksum-" + name().toLowerCase(Locale.ROOT);
    }

    /** Length in bytes of the raw value. */
    public int valueLength() {
        return switch (this) {
            case CRC32, CRC32C -> 4;
            case CRC64NVME -> 8;
            case SHA1 -> 20;
            case SHA256 -> 32;
        };
    }

    public static Optional<ChecksumAlgorithm> forHeader(String name) {
        for (ChecksumAlgorithm a : values()) {
            if (a.headerName().equalsIgnoreCase(name)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    public Running newRunning() {
        return switch (this) {
            case CRC32 -> crc(new CRC32(), 4);
            case CRC32C -> crc(new CRC32C(), 4);
            case CRC64NVME -> crc(new Crc64Nvme(), 8);
            case SHA1 -> digest("SHA-1");
            case SHA256 -> digest("SHA-256");
        };
    }

    private static Running crc(Checksum c, int bytes) {
        return new Running() {
            @Override
            public void update(byte[] b, int off, int len) {
                c.update(b, off, len);
            }

            @Override
            public byte[] value() {
                ByteBuffer buf = ByteBuffer.allocate(8).putLong(c.getValue());
                byte[] out = new byte[bytes];
                System.arraycopy(buf.array(), 8 - bytes, out, 0, bytes);
                return out;
            }
        };
    }

    private static Running digest(String algorithm) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance(algorithm);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " unavailable", e);
        }
        return new Running() {
            @Override
            public void update(byte[] b, int off, int len) {
                md.update(b, off, len);
            }

            @Override
            public byte[] value() {
                return md.digest();
            }
        };
    }
}
