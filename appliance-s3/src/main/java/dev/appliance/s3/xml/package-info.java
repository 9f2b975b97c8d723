/** S3 XML: a small escaping writer for responses and a hardened (no DTD, no entities) reader for request bodies. */
package dev.appliance.s3.xml;
