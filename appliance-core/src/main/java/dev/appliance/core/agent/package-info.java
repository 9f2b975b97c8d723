/**
 * Background work as agents: each service (healer, drive filler, scanner, trash purger, journal checkpoints, drive
 * checks) has a role name and a duty cycle that decides on the engine's injected clock whether work is due, run by an
 * {@link dev.appliance.core.agent.AgentRunner}; and the foreground load that agents step aside for.
 */
package dev.appliance.core.agent;
