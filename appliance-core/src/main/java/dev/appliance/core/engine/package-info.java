/** Opens the engine: the one place outside {@code erasure} that names its implementation. */
package dev.appliance.core.engine;
