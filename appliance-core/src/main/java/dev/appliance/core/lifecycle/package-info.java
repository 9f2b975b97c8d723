/**
 * Lifecycle rules (S3's bucket lifecycle configuration as records, no XML) and their evaluation: when a version
 * expires, when a noncurrent one is removed, when a lone delete marker or an incomplete upload goes. Pure functions of
 * the versions and a clock; the background scanner applies them.
 */
package dev.appliance.core.lifecycle;
