/**
 * {@code prepare-drives}: the disks that could become data drives, and formatting them XFS by label, writing their
 * {@code /etc/fstab} lines and mounting them, refusing any disk that is in use or holds data.
 */
package dev.appliance.installer.prepare;
