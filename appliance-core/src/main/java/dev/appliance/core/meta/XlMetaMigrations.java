package dev.appliance.core.meta;

import java.util.List;

/**
 * Upgrades older major versions of {@code xl.meta} to the current one, in order, before {@link XlMeta#parse} reads
 * them.
 *
 * <p>Rules: a <b>minor</b> bump only adds things an older reader may ignore (for example trailing fields of a version
 * body), so every minor of a major is read as is. A <b>major</b> bump changes the layout; it adds exactly one {@link
 * Step} to {@link #STEPS} that rewrites a file of major {@code k} into major {@code k + 1}, so a file of any supported
 * major is carried to {@link XlMeta#MAJOR_VERSION} by running the steps from its major onwards. Majors below {@link
 * #FIRST_MAJOR} or above the current one are refused with a message that says which. Writers always write the current
 * major; an upgraded file is rewritten in the new layout the next time the object changes.
 */
final class XlMetaMigrations {
    /** The oldest major this build can read (possibly through migrations). */
    static final int FIRST_MAJOR = 1;

    /** One upgrade: takes a whole file of major {@code k} and returns the same content as major {@code k + 1}. */
    @FunctionalInterface
    interface Step {
        byte[] upgrade(byte[] file) throws CorruptMetaException;
    }

    /** {@code STEPS.get(i)} upgrades major {@code FIRST_MAJOR + i}. Empty: major 1 is the first format. */
    private static final List<Step> STEPS = List.of();

    private XlMetaMigrations() {}

    /** Returns {@code file} (of major {@code major}) rewritten to the current major, or throws if that is impossible. */
    static byte[] toCurrent(int major, byte[] file) throws CorruptMetaException {
        if (major > XlMeta.MAJOR_VERSION) {
            throw new CorruptMetaException("xl.meta major version " + major + " is newer than this build reads (up to "
                    + XlMeta.MAJOR_VERSION + "): upgrade the appliance to read it");
        }
        if (major < FIRST_MAJOR) {
            throw new CorruptMetaException("xl.meta major version " + major + " is not supported (this build reads "
                    + FIRST_MAJOR + ".." + XlMeta.MAJOR_VERSION + ")");
        }
        byte[] current = file;
        for (int m = major; m < XlMeta.MAJOR_VERSION; m++) {
            int step = m - FIRST_MAJOR;
            if (step >= STEPS.size()) {
                throw new CorruptMetaException("xl.meta major version " + major + " has no migration to "
                        + XlMeta.MAJOR_VERSION + " in this build");
            }
            current = STEPS.get(step).upgrade(current);
        }
        return current;
    }
}
