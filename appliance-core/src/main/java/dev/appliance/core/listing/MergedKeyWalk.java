package dev.appliance.core.listing;

import dev.appliance.core.naming.ObjectKeys;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The object keys several drives hold in one bucket, merged in key order, each key once: what the scanner and a drive
 * fill walk (a key on any one of the drives is found, whichever drives lack it).
 */
public final class MergedKeyWalk {
    private record Head(String key, DriveWalker walker) {}

    private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> ObjectKeys.compare(a.key, b.key));
    private String last;

    /** Walks {@code walkers}, one per drive; common prefixes (directories) are skipped. */
    public MergedKeyWalk(List<DriveWalker> walkers) {
        for (DriveWalker w : walkers) {
            advance(w);
        }
    }

    private void advance(DriveWalker w) {
        while (w.hasNext()) {
            DriveWalker.Entry e = w.next();
            if (!e.commonPrefix()) {
                heads.add(new Head(e.key(), w));
                return;
            }
        }
    }

    /** The next key in order, or null at the end. */
    public String next() {
        while (!heads.isEmpty()) {
            Head h = heads.poll();
            advance(h.walker);
            if (!h.key.equals(last)) {
                last = h.key;
                return h.key;
            }
        }
        return null;
    }
}
