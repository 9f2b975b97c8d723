/** Per-chunk checksums that detect silent corruption of shard data on disk. */
package dev.appliance.core.bitrot;
