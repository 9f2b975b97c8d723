/**
 * The audit log: who changed what, when, from where and with what outcome (admin mutations, S3 calls that delete data
 * or change retention, legal hold, versioning, Object Lock, lifecycle or policy, IAM changes), appended durably as JSON
 * lines on every drive in service, rotated, queried and exported by the admin API (docs/audit.md).
 */
package dev.appliance.core.audit;
