/** The S3 front end: {@link dev.appliance.s3.S3Server} is its one entry type. */
package dev.appliance.s3;
