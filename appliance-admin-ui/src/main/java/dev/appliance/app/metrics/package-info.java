/**
 * The appliance's metrics (docs/metrics.md): Micrometer meters over the S3 endpoint's traffic and the engine's figures,
 * scraped by Prometheus at {@code /actuator/prometheus} on the console address.
 */
package dev.appliance.app.metrics;
