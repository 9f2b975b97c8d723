/**
 * The S3 endpoint's traffic figures ({@link dev.appliance.s3.metrics.S3Metrics}): requests by operation and status with
 * their latency, bytes in and out, authentication failures; recorded by the HTTP layer, turned into metrics by the
 * appliance process.
 */
package dev.appliance.s3.metrics;
