/**
 * Actuator health on the console address: indicators for the drives, the erasure sets' quorum and the retention clock.
 * {@code /actuator/health} is DOWN (503) while any set has lost write quorum; its details show to signed admins only.
 */
package dev.appliance.app.console.health;
