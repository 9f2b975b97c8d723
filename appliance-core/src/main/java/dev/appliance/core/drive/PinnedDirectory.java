package dev.appliance.core.drive;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.Set;

/**
 * A directory held open for a reader: files in it are opened relative to the open directory (as {@code openat}), so
 * they are found even after the directory was renamed into trash, and {@link LocalDrive#purgeTrash} leaves the
 * directory whole until this pin is closed. Costs one file descriptor, however many files are later opened in it.
 */
public final class PinnedDirectory implements AutoCloseable {
    private final LocalDrive drive;
    private final Path path;
    private final DirectoryStream<Path> handle;
    private final Object fileKey;
    private boolean closed;

    private PinnedDirectory(LocalDrive drive, Path path, DirectoryStream<Path> handle, Object fileKey) {
        this.drive = drive;
        this.path = path;
        this.handle = handle;
        this.fileKey = fileKey;
    }

    /** Opens and pins {@code dir}; fails as opening it would ({@code NoSuchFileException} when it is missing). */
    static PinnedDirectory open(LocalDrive drive, Path dir) throws IOException {
        DirectoryStream<Path> handle = Files.newDirectoryStream(dir);
        try {
            Object key;
            if (handle instanceof SecureDirectoryStream<Path> secure) {
                // the open directory's own identity (fstat), whatever its name is by now
                key = secure.getFileAttributeView(BasicFileAttributeView.class)
                        .readAttributes()
                        .fileKey();
            } else {
                key = Files.readAttributes(dir, java.nio.file.attribute.BasicFileAttributes.class)
                        .fileKey();
            }
            PinnedDirectory pin = new PinnedDirectory(drive, dir, handle, key);
            drive.pin(key);
            return pin;
        } catch (IOException | RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /** Opens a file of this directory for reading, wherever the directory is now. */
    public FileChannel openForRead(String name) throws IOException {
        if (handle instanceof SecureDirectoryStream<Path> secure) {
            // newByteChannel of a directory stream is a FileChannel on every platform that has secure streams
            return (FileChannel) secure.newByteChannel(Path.of(name), Set.of(StandardOpenOption.READ));
        }
        // no openat on this platform: by name, as before the directory may have moved
        return FileChannel.open(path.resolve(name), StandardOpenOption.READ);
    }

    /** Releases the pin (trash holding the directory is purged from then on) and closes the directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        drive.unpin(fileKey);
        try {
            handle.close();
        } catch (IOException ignored) {
            // a read-only directory handle: nothing to lose
        }
    }
}
