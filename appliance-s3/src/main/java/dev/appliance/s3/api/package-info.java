/**
 * S3 operations: {@link dev.appliance.s3.api.S3Dispatcher} routes an authenticated request to its handler (in
 * {@code api.bucket} or {@code api.object}) after asking the {@link dev.appliance.s3.auth.Authorizer}; anything not
 * implemented is answered {@code NotImplemented}.
 */
package dev.appliance.s3.api;
