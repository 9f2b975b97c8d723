/**
 * Healing as the operator sees it: the heal queue's figures and the fill of replaced drives. The healers themselves
 * still live in {@code erasure} (they reach into an erasure set's drives and metadata).
 */
package dev.appliance.core.heal;
