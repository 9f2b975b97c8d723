/** The S3 access log: one line per answered request, off by default, switched at run time. */
package dev.appliance.s3.access;
