/** Per-key namespace locks that serialise commits of one object while other keys proceed in parallel. */
package dev.appliance.core.lock;
