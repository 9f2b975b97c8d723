package dev.appliance.core.error;

import static java.util.Objects.requireNonNull;

/**
 * A failure of an engine call, classified by {@link ErrorKind}. For not-found and method-not-allowed answers on delete
 * markers, {@link #deleteMarker()} and {@link #versionId()} say which marker was met.
 */
public final class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorKind kind;
    private final boolean deleteMarker;
    private final String versionId;

    public StorageException(ErrorKind kind, String message) {
        this(kind, message, null, false, null);
    }

    public StorageException(ErrorKind kind, String message, Throwable cause) {
        this(kind, message, cause, false, null);
    }

    public StorageException(ErrorKind kind, String message, Throwable cause, boolean deleteMarker, String versionId) {
        super(message, cause);
        this.kind = requireNonNull(kind, "kind");
        this.deleteMarker = deleteMarker;
        this.versionId = versionId;
    }

    public ErrorKind kind() {
        return kind;
    }

    public boolean deleteMarker() {
        return deleteMarker;
    }

    /** The version met, when the answer concerns one; null otherwise. */
    public String versionId() {
        return versionId;
    }
}
