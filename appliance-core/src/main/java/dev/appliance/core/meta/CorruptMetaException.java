package dev.appliance.core.meta;

/**
 * An {@code xl.meta} file (or one version body inside it) cannot be trusted: bad magic, unsupported major version,
 * truncation, a length or count out of bounds, or a checksum mismatch. The drive's copy counts as missing and is to be
 * healed from the other drives of the set.
 */
public final class CorruptMetaException extends Exception {
    private static final long serialVersionUID = 1L;

    public CorruptMetaException(String message) {
        super(message);
    }

    public CorruptMetaException(String message, Throwable cause) {
        super(message, cause);
    }
}
