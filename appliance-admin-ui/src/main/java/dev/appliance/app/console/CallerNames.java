package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.Credential;

/** The name a verified access key acts under: its IAM user's, or {@link AdminPrincipal#ROOT} for the root key. */
final class CallerNames {
    private final ApplianceStore store;

    CallerNames(ApplianceStore store) {
        this.store = store;
    }

    /** @param accessKey a key the credentials provider verified: an IAM user's, else the root key */
    String of(String accessKey) {
        return store.identity().credential(accessKey).map(Credential::userName).orElse(AdminPrincipal.ROOT);
    }
}
