/**
 * Healing's queue and records: the most-recently-failed (MRF) queue ({@link dev.appliance.core.heal.HealQueue}, the
 * entry type) and its on-disk journal, a replaced drive's heal tracker, and what a heal did ({@link
 * dev.appliance.core.heal.HealResult}), with the figures the operator sees. The healers themselves (object, drive,
 * background) stay in {@code erasure}: they read and rewrite an erasure set's shards and metadata.
 */
package dev.appliance.core.heal;
