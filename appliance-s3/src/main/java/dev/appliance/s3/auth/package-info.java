/**
 * SigV4 authentication: the header signature, the payload modes (signed hash, unsigned, aws-chunked with chunk
 * signatures and trailers), additional checksums, and the credentials/authorization seams the application wires.
 */
package dev.appliance.s3.auth;
