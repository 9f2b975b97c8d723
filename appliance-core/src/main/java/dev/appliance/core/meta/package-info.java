/** The per-object metadata file {@code xl.meta}: version headers, canonical version bodies and inline shard data. */
package dev.appliance.core.meta;
