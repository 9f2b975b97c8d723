package dev.appliance.core;

/**
 * What the pool can hold, in bytes of object data after erasure overhead (what a client can store, not raw disk).
 *
 * @param usableBytes total object bytes the pool holds when full
 * @param freeBytes object bytes that still fit now
 */
public record StorageCapacity(long usableBytes, long freeBytes) {}
