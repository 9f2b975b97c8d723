/** The S3 error table, the exception that carries an entry, and the mapper from engine failures to entries. */
package dev.appliance.s3.error;
