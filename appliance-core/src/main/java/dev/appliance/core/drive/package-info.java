/** One drive: its directory layout, {@code format.json}, and the durable file primitives the commit protocol uses. */
package dev.appliance.core.drive;
