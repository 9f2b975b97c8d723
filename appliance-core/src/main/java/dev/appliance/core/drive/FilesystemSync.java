package dev.appliance.core.drive;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Linux {@code syncfs(2)} through the foreign-function API: one call writes back and flushes everything dirty on the
 * filesystem holding a path (data, inodes, directory entries, the journal, and the device cache), so it can make many
 * independently written files durable at once (see {@link MetadataJournal#checkpoint}). Since Linux 5.8 it reports write-back errors
 * that happened since the caller's descriptor was opened, as {@code fsync} does.
 *
 * <p>{@link #available()} is false off Linux, or when the JVM refuses native access; callers then force each file.
 */
public final class FilesystemSync {
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000; // the same value on x86-64 and arm64
    private static final int ENOENT = 2;
    private static final int EACCES = 13;

    private static final MethodHandle OPEN;
    private static final MethodHandle SYNCFS;
    private static final MethodHandle CLOSE;
    private static final StructLayout CALL_STATE;
    private static final VarHandle ERRNO;
    private static final String UNAVAILABLE;

    static {
        MethodHandle open = null;
        MethodHandle syncfs = null;
        MethodHandle close = null;
        StructLayout state = null;
        VarHandle errno = null;
        String why = null;
        try {
            if (!System.getProperty("os.name", "")
                    .toLowerCase(java.util.Locale.ROOT)
                    .contains("linux")) {
                throw new UnsupportedOperationException("syncfs is Linux-only");
            }
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            Linker.Option capture = Linker.Option.captureCallState("errno");
            state = Linker.Option.captureStateLayout();
            errno = state.varHandle(MemoryLayout.PathElement.groupElement("errno"));
            open = linker.downcallHandle(
                    libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(
                            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                    capture,
                    Linker.Option.firstVariadicArg(2));
            syncfs = linker.downcallHandle(
                    libc.find("syncfs").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                    capture);
            close = linker.downcallHandle(
                    libc.find("close").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        } catch (Throwable e) { // IllegalCaller/UnsupportedOperation/NoSuchElement: fall back to per-file forces
            why = e.toString();
            open = null;
        }
        OPEN = open;
        SYNCFS = syncfs;
        CLOSE = close;
        CALL_STATE = state;
        ERRNO = errno;
        UNAVAILABLE = why;
    }

    private FilesystemSync() {}

    /** Whether {@link #sync} can be called on this machine and JVM. */
    public static boolean available() {
        return OPEN != null;
    }

    /** Why {@link #available()} is false (null when it is true). */
    public static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** Makes everything written so far on the filesystem holding {@code dir} durable. */
    public static void sync(Path dir) throws IOException {
        try (Descriptor fd = open(dir)) {
            fd.sync();
        }
    }

    /** Opens {@code dir} for {@link Descriptor#sync}. */
    private static Descriptor open(Path dir) throws IOException {
        if (!available()) {
            throw new IOException("syncfs is not available: " + UNAVAILABLE);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment path = arena.allocateFrom(dir.toString());
            int fd = (int) OPEN.invokeExact(state, path, O_RDONLY | O_CLOEXEC, 0);
            if (fd < 0) {
                int err = (int) ERRNO.get(state, 0L);
                throw switch (err) {
                    case ENOENT -> new NoSuchFileException(dir.toString());
                    case EACCES -> new AccessDeniedException(dir.toString());
                    default -> new IOException("open(" + dir + ") failed: errno " + err);
                };
            }
            return new Descriptor(fd, dir);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IOException("open(" + dir + ") failed", e);
        }
    }

    /** An open directory of a filesystem to flush. */
    private static final class Descriptor implements AutoCloseable {
        private final int fd;
        private final Path dir;

        private Descriptor(int fd, Path dir) {
            this.fd = fd;
            this.dir = dir;
        }

        /** {@code syncfs(2)}: writes back and flushes everything dirty on the filesystem. */
        public void sync() throws IOException {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CALL_STATE);
                if ((int) SYNCFS.invokeExact(state, fd) != 0) {
                    throw new IOException("syncfs(" + dir + ") failed: errno " + (int) ERRNO.get(state, 0L));
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IOException("syncfs(" + dir + ") failed", e);
            }
        }

        @Override
        public void close() {
            try {
                int ignored = (int) CLOSE.invokeExact(fd);
            } catch (Throwable e) {
                // nothing to do: the descriptor is gone either way
            }
        }
    }
}
