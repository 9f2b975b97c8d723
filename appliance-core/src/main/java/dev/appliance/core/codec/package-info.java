/** Systematic Reed-Solomon erasure coding over GF(2^8): parity encoding and reconstruction of missing shards. */
package dev.appliance.core.codec;
