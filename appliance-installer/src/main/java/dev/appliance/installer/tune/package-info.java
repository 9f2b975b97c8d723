/** Kernel tuning: the sysctl file the appliance wants, shown as a diff against the host's and written on request. */
package dev.appliance.installer.tune;
