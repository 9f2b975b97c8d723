/**
 * The preflight checks: one {@link dev.appliance.installer.check.Check} per rule (CPU, memory, kernel and network
 * settings, time, data drives), each with its measured value, the expected value and a remediation, run by {@link
 * dev.appliance.installer.check.Preflight}.
 */
package dev.appliance.installer.check;
