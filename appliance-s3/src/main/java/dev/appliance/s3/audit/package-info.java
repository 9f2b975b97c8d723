/**
 * Where the S3 endpoint tells the calls it audits (deletes, retention, legal hold, versioning, Object Lock, lifecycle,
 * policy and ACL changes, IAM mutations; docs/audit.md): {@link dev.appliance.s3.audit.AuditSink}, kept by the
 * engine's audit log by default.
 */
package dev.appliance.s3.audit;
