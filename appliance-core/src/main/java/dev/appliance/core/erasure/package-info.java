/** Erasure sets: placement, quorum, the streaming write and read paths, and the commit protocol across drives. */
package dev.appliance.core.erasure;
