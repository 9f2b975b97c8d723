/**
 * What the background scanner found in its last cycle: per-bucket usage and lifecycle actions, the keys with the most
 * versions, per-drive figures. Read by quotas and SOSAPI capacity (through the usage tracker), the admin console,
 * metrics and version-explosion alerts.
 */
package dev.appliance.core.scanner;
