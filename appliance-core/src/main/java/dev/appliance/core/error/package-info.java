/**
 * The engine's failures a caller can explain to a client: one exception type carrying an {@link
 * dev.appliance.core.error.ErrorKind}, mapped to S3 errors at the front end. Every other package may throw them; they
 * depend on nothing else in the engine.
 */
package dev.appliance.core.error;
