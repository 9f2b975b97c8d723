package dev.appliance.app.console;

import dev.appliance.core.policy.S3Action;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The S3 actions a route acts on a bucket's data with (the object browser): {@link AdminAuthorization} decides them as
 * the S3 front end would, on the resource the request names ({@code {bucket}} path variable, {@code key} query
 * parameter; see {@link ObjectTarget}), before the controller runs. Data is reached as S3 reaches it, so a
 * bucket-scoped user sees their bucket only and the auditor (every S3 read) can read but not change; no appliance
 * ({@code admin:}) action is needed or enough.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface ObjectAccess {
    /** Asked when the request names no {@code versionId}. */
    S3Action[] value();

    /** Asked instead when it names one (S3's {@code s3:GetObjectVersion}, ...); empty: {@link #value()}. */
    S3Action[] withVersionId() default {};
}
