package dev.appliance.app.console;

import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.support.GenericApplicationContext;

/**
 * Hands the parts the start already made (validated configuration, the opened store, the running S3 server, the
 * credentials and the authorizer) to the console's context as typed beans. They are made before the context because
 * the start checks and formats the drives and binds the S3 port first; the process, not the context, closes them
 * (no destroy method), in the order the shutdown needs.
 */
record ApplianceBeans(
        ApplianceProperties properties,
        ApplianceStore store,
        S3Server s3,
        CredentialsProvider credentials,
        Authorizer authorizer)
        implements ApplicationContextInitializer<GenericApplicationContext> {

    @Override
    public void initialize(GenericApplicationContext context) {
        context.registerBean(
                "applianceProperties", ApplianceProperties.class, this::properties, bd -> bd.setDestroyMethodName(""));
        context.registerBean("objectStore", ApplianceStore.class, this::store, bd -> bd.setDestroyMethodName(""));
        context.registerBean("s3Server", S3Server.class, this::s3, bd -> bd.setDestroyMethodName(""));
        context.registerBean(
                "credentialsProvider", CredentialsProvider.class, this::credentials, bd -> bd.setDestroyMethodName(""));
        context.registerBean("authorizer", Authorizer.class, this::authorizer, bd -> bd.setDestroyMethodName(""));
    }
}
