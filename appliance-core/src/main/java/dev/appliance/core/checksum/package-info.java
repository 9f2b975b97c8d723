/**
 * The S3 additional checksums (CRC32, CRC32C, CRC64NVME, SHA-1, SHA-256): running computations, and the multipart
 * arithmetic on their values (composite checksums, CRC combination without re-reading data).
 */
package dev.appliance.core.checksum;
