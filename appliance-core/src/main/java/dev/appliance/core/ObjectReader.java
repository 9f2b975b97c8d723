package dev.appliance.core;

import java.io.IOException;
import java.io.OutputStream;

/** An opened object version: its metadata and the requested byte range, decoded block by block on demand. */
public interface ObjectReader extends AutoCloseable {

    ObjectInfo info();

    /** First byte of the range that {@link #transferTo} writes. */
    long offset();

    /** Number of bytes {@link #transferTo} writes. */
    long length();

    /**
     * Decodes and writes the range, one erasure block at a time, verifying bitrot checksums and reading around
     * missing or corrupt shards. Blocks while {@code out} blocks.
     */
    void transferTo(OutputStream out) throws IOException;

    @Override
    void close();
}
