/**
 * The engine: {@link dev.appliance.core.engine.Stores} opens it, and {@code ErasureObjectStore} is the façade that
 * builds the store from its capabilities (erasure sets, bucket registry, multipart uploads, healing, scanner, listing,
 * usage, alerts, agents) and implements {@code ObjectStore} and {@code admin.ApplianceStore} by delegating to them.
 * Nothing else in the engine depends on this package (enforced by ArchUnit rules).
 */
package dev.appliance.core.engine;
