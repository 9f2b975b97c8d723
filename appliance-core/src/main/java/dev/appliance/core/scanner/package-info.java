/**
 * The background scanner ({@link dev.appliance.core.scanner.DataScanner}, an agent): walks every key at a paced rate,
 * applies lifecycle rules through {@code core.lifecycle}, samples keys for heal checks, counts usage, and reports what
 * it found ({@link dev.appliance.core.scanner.ScanReport}) to quotas, SOSAPI capacity, the console, metrics and
 * version-explosion alerts.
 */
package dev.appliance.core.scanner;
