/** Multipart upload operations: create, upload (and copy) parts, complete, abort, list parts and uploads. */
package dev.appliance.s3.api.multipart;
