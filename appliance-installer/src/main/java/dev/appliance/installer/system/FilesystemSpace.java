package dev.appliance.installer.system;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Space and inodes of the filesystem holding a directory. Bytes come from {@link FileStore}; inodes, which it does not
 * report, from {@code statvfs(3)} through the foreign-function API (as {@code HostTimeSync} reads {@code adjtimex}).
 *
 * @param totalBytes the filesystem's size
 * @param usableBytes what an unprivileged writer may still use
 * @param totalInodes inodes the filesystem has; 0 when it makes them on demand (btrfs), -1 when unknown
 * @param freeInodes inodes free; -1 when unknown
 */
public record FilesystemSpace(long totalBytes, long usableBytes, long totalInodes, long freeInodes) {
    /** {@code struct statvfs} on 64-bit Linux: eight-byte fields, f_files at 40 and f_ffree at 48; 112 bytes. */
    private static final long STATVFS_BYTES = 256;

    private static final long F_FILES = 40;
    private static final long F_FFREE = 48;
    private static final MethodHandle STATVFS;

    static {
        MethodHandle h = null;
        try {
            if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                    && ValueLayout.ADDRESS.byteSize() == 8) {
                Linker linker = Linker.nativeLinker();
                h = linker.downcallHandle(
                        linker.defaultLookup().find("statvfs").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            }
        } catch (Throwable e) { // no native access or no symbol: inodes are unknown
            h = null;
        }
        STATVFS = h;
    }

    static FilesystemSpace of(Path directory) throws IOException {
        FileStore store = Files.getFileStore(directory);
        long[] inodes = inodes(directory);
        return new FilesystemSpace(store.getTotalSpace(), store.getUsableSpace(), inodes[0], inodes[1]);
    }

    private static long[] inodes(Path directory) {
        long[] unknown = {-1, -1};
        if (STATVFS == null) {
            return unknown;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment path = arena.allocateFrom(directory.toAbsolutePath().toString());
            MemorySegment buf = arena.allocate(STATVFS_BYTES, 8);
            int r = (int) STATVFS.invokeExact(path, buf);
            if (r != 0) {
                return unknown;
            }
            return new long[] {buf.get(ValueLayout.JAVA_LONG, F_FILES), buf.get(ValueLayout.JAVA_LONG, F_FFREE)};
        } catch (Throwable e) {
            return unknown;
        }
    }
}
