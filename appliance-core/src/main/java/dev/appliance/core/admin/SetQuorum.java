package dev.appliance.core.admin;

/**
 * One erasure set's drives in service against the quorums it needs, from the in-service state the engine already
 * tracks (the drive check and the fault tracking set it): reading one costs no drive I/O, so health probes may ask as
 * often as they like.
 *
 * @param set the set's number, 1-based as the status and the logs count sets
 * @param drives the drives of the set
 * @param online the drives in service now (a replaced drive being filled counts: it takes writes)
 * @param readQuorum the drives a read of a version written at the set's parity needs (its data shards)
 * @param writeQuorum the drives a write started now needs (as the write path counts it, see {@code
 *     ErasureSet#writeLayout})
 */
public record SetQuorum(int set, int drives, int online, int readQuorum, int writeQuorum) {
    public SetQuorum {
        if (set < 1) {
            throw new IllegalArgumentException("set: " + set + " (expected >= 1)");
        }
        if (drives < 1 || online < 0 || online > drives) {
            throw new IllegalArgumentException("online: " + online + " of " + drives + " drives (expected 0..drives)");
        }
        // no order between the two: with drives offline a write is laid out with more parity, and may need fewer
        // drives than a read of what was written at the set's parity
        if (readQuorum < 1 || readQuorum > drives || writeQuorum < 1 || writeQuorum > drives) {
            throw new IllegalArgumentException("quorums: read " + readQuorum + ", write " + writeQuorum + " of "
                    + drives + " drives (expected 1..drives each)");
        }
    }

    /** Enough drives in service to read what the set holds. */
    public boolean readable() {
        return online >= readQuorum;
    }

    /** Enough drives in service to acknowledge a write. */
    public boolean writable() {
        return online >= writeQuorum;
    }
}
