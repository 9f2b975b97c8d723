/** A Veeam Backup &amp; Replication workload simulator that checks every answer: {@link dev.appliance.it.veeam.VeeamSimulator}. */
package dev.appliance.it.veeam;
