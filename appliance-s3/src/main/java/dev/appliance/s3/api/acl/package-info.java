/** Access control lists, disabled as on AWS buckets with Object Ownership "bucket owner enforced". */
package dev.appliance.s3.api.acl;
