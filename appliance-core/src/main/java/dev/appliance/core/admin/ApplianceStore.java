package dev.appliance.core.admin;

import dev.appliance.core.ObjectStore;

/** The engine as the appliance process holds it: the S3 front end's {@link ObjectStore} and the operator's side. */
public interface ApplianceStore extends ObjectStore, StoreAdmin {}
