package dev.appliance.core.checksum;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The S3 additional checksums: header/trailer name, a running computation giving the raw value, and how multipart
 * uploads build an object's checksum from its parts' ({@link #composite}, {@link #combine}).
 *
 * <p>Which multipart checksum types an algorithm allows, as S3 defines them: CRC-64/NVME only {@link
 * ChecksumType#FULL_OBJECT}; CRC-32 and CRC-32C both, {@link ChecksumType#COMPOSITE} by default; SHA-1 and SHA-256 only
 * {@link ChecksumType#COMPOSITE} (a digest cannot be combined).
 */
public enum ChecksumAlgorithm {
    CRC32(4, 0xEDB88320L),
    CRC32C(4, 0x82F63B78L),
    CRC64NVME(8, 0x9a6c9329ac4bc9b5L),
    SHA1(20, 0),
    SHA256(32, 0);

    /** A checksum over a stream of bytes. */
    public interface Running {
        void update(byte[] b, int off, int len);

        /** The raw value (big-endian for CRCs); S3 transmits it base64-encoded. Call once. */
        byte[] value();
    }

    private final int valueLength;
    private final CrcCombine combine;
    /** Built once: every GET and PUT looks up each algorithm's header. */
    private final String headerName = "x-amz-checksum-" + name().toLowerCase(Locale.ROOT);

    ChecksumAlgorithm(int valueLength, long reflectedPoly) {
        this.valueLength = valueLength;
        this.combine = reflectedPoly == 0 ? null : new CrcCombine(valueLength * 8, reflectedPoly);
    }

    /** {@code x-amz-checksum-crc32} etc. */
    public String headerName() {
        return headerName;
    }

    /** {@code ChecksumCRC32} etc.: the XML element of the value. */
    public String xmlElement() {
        return "Checksum" + name();
    }

    /** Length in bytes of the raw value. */
    public int valueLength() {
        return valueLength;
    }

    /** Whether this is a CRC, whose part values combine into the whole object's ({@link #combine}). */
    public boolean isCrc() {
        return combine != null;
    }

    /** The multipart checksum type used when an upload names this algorithm but no type. */
    public ChecksumType defaultType() {
        return this == CRC64NVME ? ChecksumType.FULL_OBJECT : ChecksumType.COMPOSITE;
    }

    /** Whether a multipart upload may use this algorithm with {@code type}. */
    public boolean supports(ChecksumType type) {
        return switch (type) {
            case FULL_OBJECT -> isCrc();
            case COMPOSITE -> this != CRC64NVME;
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

    /** The algorithm named by an {@code x-amz-checksum-algorithm} value such as {@code CRC32C} (case-insensitive). */
    public static Optional<ChecksumAlgorithm> forName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.strip().toUpperCase(Locale.ROOT);
        for (ChecksumAlgorithm a : values()) {
            if (a.name().equals(n)) {
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

    /** The raw checksum of {@code bytes}. */
    public byte[] of(byte[] bytes) {
        Running r = newRunning();
        r.update(bytes, 0, bytes.length);
        return r.value();
    }

    /** The base64 checksum of {@code bytes}, as S3 transmits it. */
    public String base64Of(byte[] bytes) {
        return Base64.getEncoder().encodeToString(of(bytes));
    }

    /**
     * The raw value of a base64 checksum of this algorithm, or empty when it is not base64 or not of this algorithm's
     * length.
     */
    public Optional<byte[]> decode(String base64) {
        if (base64 == null) {
            return Optional.empty();
        }
        try {
            byte[] raw = Base64.getDecoder().decode(base64.strip());
            return raw.length == valueLength ? Optional.of(raw) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The CRC of {@code A ‖ B} from the CRCs of A and B and the length of B (raw big-endian values), without the bytes.
     *
     * @throws UnsupportedOperationException for SHA-1 and SHA-256
     */
    public byte[] combine(byte[] crcA, byte[] crcB, long lengthB) {
        if (combine == null) {
            throw new UnsupportedOperationException(name() + " values cannot be combined");
        }
        return toBytes(combine.combine(toLong(crcA), toLong(crcB), lengthB));
    }

    /**
     * The checksum of a multipart object from its parts' raw checksums: {@link ChecksumType#COMPOSITE} is this
     * algorithm over the concatenated part values, base64, then {@code -N}; {@link ChecksumType#FULL_OBJECT} is the
     * part CRCs combined ({@code partSizes} give each part's length), base64.
     */
    public String multipartValue(ChecksumType type, List<byte[]> partValues, List<Long> partSizes) {
        if (!supports(type)) {
            throw new IllegalArgumentException(name() + " does not support " + type + " checksums");
        }
        if (partValues.size() != partSizes.size() || partValues.isEmpty()) {
            throw new IllegalArgumentException(
                    "part values: " + partValues.size() + ", sizes: " + partSizes.size() + " (expected equal, > 0)");
        }
        if (type == ChecksumType.COMPOSITE) {
            Running r = newRunning();
            for (byte[] v : partValues) {
                r.update(v, 0, v.length);
            }
            return Base64.getEncoder().encodeToString(r.value()) + "-" + partValues.size();
        }
        byte[] crc = partValues.getFirst();
        for (int i = 1; i < partValues.size(); i++) {
            crc = combine(crc, partValues.get(i), partSizes.get(i));
        }
        return Base64.getEncoder().encodeToString(crc);
    }

    private long toLong(byte[] raw) {
        if (raw.length != valueLength) {
            throw new IllegalArgumentException(
                    name() + " value: " + raw.length + " bytes (expected " + valueLength + ")");
        }
        long v = 0;
        for (byte b : raw) {
            v = (v << 8) | (b & 0xff);
        }
        return v;
    }

    private byte[] toBytes(long v) {
        byte[] out = new byte[valueLength];
        for (int i = valueLength - 1; i >= 0; i--) {
            out[i] = (byte) v;
            v >>>= 8;
        }
        return out;
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
