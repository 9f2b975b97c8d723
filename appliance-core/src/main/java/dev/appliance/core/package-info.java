/**
 * The storage engine's public surface: {@link dev.appliance.core.ObjectStore} and the values it takes and returns.
 * Everything else in the engine sits in capability packages behind it.
 */
package dev.appliance.core;
