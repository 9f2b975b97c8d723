/**
 * Repairing the store: {@link dev.appliance.core.heal.Healing} (the entry type) builds the most-recently-failed (MRF)
 * heal queue's drain and journal, one object healer per set, the background healer, the drive filler of a replaced
 * drive and the drive monitor; the queue, what a heal did ({@link dev.appliance.core.heal.HealResult}) and the figures
 * the operator sees are the values it hands out. Healing reads and rewrites shards through the erasure sets; the sets
 * report damage to the queue through {@link dev.appliance.core.erasure.ErasureSet.HealReports}, never the reverse.
 */
package dev.appliance.core.heal;
