/** The server's logging: line format, console or rotated files, and the S3 access log's writer. */
package dev.appliance.app.logging;
