/**
 * What the installer reads of the machine: files under {@code /proc}, {@code /sys} and {@code /etc} through an
 * injectable root directory (a temporary tree in tests), the filesystems under the data drives, and the kernel's
 * time-synchronisation state.
 */
package dev.appliance.installer.system;
