package dev.appliance.app.console;

import dev.appliance.core.policy.AdminAction;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The appliance actions an admin route performs, as policies name them ({@code admin:ListUsers}): the caller must be
 * allowed every one ({@link AdminAuthorization}). A route without it is decided as {@code admin:<METHOD> <path>},
 * which only {@code admin:*} grants, so forgetting it locks a route down rather than opening it;
 * {@code AdminRoutesGuardTest} lists the few routes that go without on purpose.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface AdminOperation {
    AdminAction[] value();
}
