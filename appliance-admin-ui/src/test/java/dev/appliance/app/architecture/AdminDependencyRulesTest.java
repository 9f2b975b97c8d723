package dev.appliance.app.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin app wires the engine and the S3 front end but reaches the engine only through its entry types ({@code
 * ObjectStore}, {@code StoreAdmin}, opened by {@code Stores}), never through the erasure classes behind them.
 */
class AdminDependencyRulesTest {
    private static JavaClasses app;

    @BeforeAll
    static void importApp() {
        app = new ClassFileImporter().importPackages("dev.appliance.app");
    }

    @Test
    void admin_usesNoErasureClass() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.app..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.appliance.core.erasure..")
                .because("the admin app talks to the engine through ObjectStore and StoreAdmin")
                .check(app);
    }

    /**
     * Besides {@code erasure}: the rooms the engine builds itself (multipart uploads, bucket registry, agents) and its
     * implementation classes (the façade, healing, the scanner, the listing) are reached only through the entry types.
     */
    @Test
    void app_usesOnlyTheEnginesEntryTypes() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.app..")
                .should()
                .dependOnClassesThat(resideInAnyPackage(
                                "dev.appliance.core.erasure..",
                                "dev.appliance.core.multipart..",
                                "dev.appliance.core.bucket..",
                                "dev.appliance.core.agent..")
                        .or(nameMatching(
                                "dev\\.appliance\\.core\\.(engine\\.ErasureObjectStore|heal\\.(Healing|HealQueue|MrfJournal"
                                        + "|BackgroundHealer|DriveHealer)|scanner\\.DataScanner|listing\\.ObjectListing)"
                                        + "(\\$.*)?")))
                .because("ObjectStore, StoreAdmin and Stores are the way in; the rest may change shape freely")
                .check(app);
    }
}
