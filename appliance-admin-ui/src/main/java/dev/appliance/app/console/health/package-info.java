/**
 * Health on the console address. Actuator indicators for the drives, the erasure sets' quorum and the retention clock:
 * {@code /actuator/health} is DOWN (503) while any set has lost write quorum; its details show to signed admins only.
 * And the appliance's health checks ({@link dev.appliance.app.console.health.HealthChecks}): the installer's preflight
 * rules and the runtime checks of drives, sets and the retention clock, run periodically on a thread of their own,
 * feeding {@code /api/v1/health/checks}, the health alerts and the {@code appliance_health_check} gauge.
 */
package dev.appliance.app.console.health;
