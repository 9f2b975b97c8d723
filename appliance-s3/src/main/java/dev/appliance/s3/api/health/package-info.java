/** The unauthenticated health probes on the S3 port (load balancers, scripts) and the bucket name they reserve. */
package dev.appliance.s3.api.health;
