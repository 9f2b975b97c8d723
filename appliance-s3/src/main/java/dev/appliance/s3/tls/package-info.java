/** TLS for the S3 port: loading the PEM certificate chain and key, and generating a self-signed pair. */
package dev.appliance.s3.tls;
