/**
 * S3 Object Lock: retention modes, bucket lock configurations, the rules that decide whether a version may be deleted
 * or its retention changed, and the trusted retention clock they are evaluated against.
 */
package dev.appliance.core.objectlock;
