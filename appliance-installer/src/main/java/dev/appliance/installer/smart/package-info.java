/**
 * SMART data of the data drives' disks, read with {@code smartctl --json} (smartmontools 7 and later) through a
 * {@link dev.appliance.installer.smart.SmartSource}, so the rules can be fed recorded reports.
 */
package dev.appliance.installer.smart;
