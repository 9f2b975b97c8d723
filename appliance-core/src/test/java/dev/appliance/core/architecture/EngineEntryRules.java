package dev.appliance.core.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/** Architecture rules the modules built on the engine check against themselves (the S3 front end, the admin app). */
public final class EngineEntryRules {
    private EngineEntryRules() {}

    /**
     * Classes in {@code packageIdentifier} (e.g. {@code "dev.appliance.s3.."}) reach the engine only through its entry
     * types: no class of the rooms the engine builds itself (erasure sets, multipart uploads, the bucket registry,
     * agents) and none of its implementation classes (the façade, healing, the scanner, the listing).
     */
    public static ArchRule onlyThroughEntryTypes(String packageIdentifier) {
        return noClasses()
                .that()
                .resideInAPackage(packageIdentifier)
                .should()
                .dependOnClassesThat(resideInAnyPackage(
                                "dev.appliance.core.erasure..",
                                "dev.appliance.core.multipart..",
                                "dev.appliance.core.bucket..",
                                "dev.appliance.core.agent..")
                        .or(nameMatching(
                                "dev\\.appliance\\.core\\.(engine\\.ErasureObjectStore|heal\\.(Healing|HealQueue"
                                        + "|MrfJournal|BackgroundHealer|DriveHealer)|scanner\\.DataScanner"
                                        + "|listing\\.ObjectListing)(\\$.*)?")))
                .because("ObjectStore, StoreAdmin and Stores are the way in; the rest may change shape freely");
    }
}
