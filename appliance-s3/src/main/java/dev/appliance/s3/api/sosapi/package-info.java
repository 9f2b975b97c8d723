/** Veeam's Smart Object Storage API: the virtual, read-only system.xml and capacity.xml objects of a bucket. */
package dev.appliance.s3.api.sosapi;
