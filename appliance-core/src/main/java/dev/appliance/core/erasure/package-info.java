/**
 * Erasure sets ({@link dev.appliance.core.erasure.ErasureSet}, the entry type): topology and placement, quorum, the
 * streaming write and read paths, the commit protocol across drives and each drive's metadata files of a key. Damage a
 * set cannot repair on the spot is reported through {@code ErasureSet.HealReports}; the set knows nothing of healing,
 * scanning, multipart uploads or bucket state, which are built on it (enforced by ArchUnit rules). The S3 front end and
 * the admin app never name these classes: they use {@code ObjectStore} and {@code admin.StoreAdmin}.
 */
package dev.appliance.core.erasure;
