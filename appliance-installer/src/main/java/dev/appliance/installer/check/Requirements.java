package dev.appliance.installer.check;

import java.util.List;

/**
 * The sizing tables of docs/install.md (keep them in step): CPU cores by the capacity a node stores, RAM by its
 * drives and the requests it serves at once.
 */
public final class Requirements {
    private Requirements() {}

    static final long TB = 1_000_000_000_000L;
    static final long GIB = 1L << 30;
    static final long MIB = 1L << 20;

    /**
     * Cores for a node storing up to {@code upToBytes}: erasure coding, checksums and TLS of a node's share of the
     * traffic, and healing a drive's worth of data in hours, grow with what the node holds.
     */
    record CoreTier(long upToBytes, int cores) {}

    static final List<CoreTier> CORE_TIERS = List.of(
            new CoreTier(TB, 8),
            new CoreTier(10 * TB, 16),
            new CoreTier(100 * TB, 32),
            new CoreTier(1000 * TB, 64),
            new CoreTier(Long.MAX_VALUE, 128));

    /** The cores asked for when no capacity is known: the first tier's. */
    static final int MIN_CORES = CORE_TIERS.getFirst().cores();

    static int coresFor(long capacityBytes) {
        for (CoreTier t : CORE_TIERS) {
            if (capacityBytes <= t.upToBytes()) {
                return t.cores();
            }
        }
        throw new AssertionError("the last tier holds every capacity");
    }

    /** The operating system, the JVM's own needs, metadata and the page cache's working floor. */
    static final long BASE_RAM = 4 * GIB;
    /** Per data drive: its metadata cache, healing and scanner buffers, its I/O queue. */
    static final long RAM_PER_DRIVE = GIB;
    /**
     * Per S3 request in flight: the 8 MiB of stripe buffers the front end budgets ({@code S3ServerConfig.Limits}),
     * twice over so the collector has room.
     */
    static final long RAM_PER_REQUEST = 16 * MIB;

    /** The requests in flight the RAM rule assumes unless told ({@code --concurrency}). */
    public static final int DEFAULT_REQUESTS_IN_FLIGHT = 256;

    static long ramFor(int drives, int requestsInFlight) {
        return BASE_RAM + drives * RAM_PER_DRIVE + requestsInFlight * RAM_PER_REQUEST;
    }

    /** The kernel's MemTotal is the installed RAM less what firmware and the kernel keep: within this counts. */
    static final double MEM_TOTAL_TOLERANCE = 0.95;
}
