/** S3 naming rules for buckets, object keys and version ids, and the mapping of keys onto drive paths. */
package dev.appliance.core.naming;
