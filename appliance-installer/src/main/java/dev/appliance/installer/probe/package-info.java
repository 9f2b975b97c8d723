/**
 * The O_DIRECT drive probe ({@code check --probe}): a few MiB written, synced and read back on each data drive past
 * the page cache, and the rule that flags a drive far slower than the others.
 */
package dev.appliance.installer.probe;
