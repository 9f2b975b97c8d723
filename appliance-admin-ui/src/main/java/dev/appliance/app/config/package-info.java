/**
 * The server's configuration: one validated {@code @ConfigurationProperties} tree bound from flags, system
 * properties, the environment and an optional file, before anything is written.
 */
package dev.appliance.app.config;
