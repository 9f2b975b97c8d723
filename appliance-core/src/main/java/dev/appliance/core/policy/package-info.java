/**
 * Access policies in AWS's JSON policy language: parsing and validation ({@link dev.appliance.core.policy.PolicyDocument}),
 * compiled evaluation with AWS's order (explicit deny, then allow, else implicit deny) over a user's identity policies
 * and a bucket policy ({@link dev.appliance.core.policy.PolicySet}), the action tables the front ends map requests to,
 * and the built-in policies (read-only, read-write, write-only, admin, auditor, Veeam repository).
 */
package dev.appliance.core.policy;
