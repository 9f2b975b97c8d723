package dev.appliance.s3.io;

import java.io.IOException;
import java.io.InputStream;

/** An input stream whose subclasses implement only bulk reads; single-byte reads go through them. */
public abstract class BulkInputStream extends InputStream {

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] b, int off, int len) throws IOException;
}
