package dev.appliance.s3.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.appliance.core.architecture.EngineEntryRules;
import dev.appliance.core.architecture.PackageSlices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The S3 front end talks to the engine through {@code dev.appliance.core.ObjectStore} and its value types only, and its
 * own packages (http, auth, xml, api, error...) depend on each other without cycles.
 */
class S3DependencyRulesTest {
    private static JavaClasses main;
    private static JavaClasses mainAndTests;

    @BeforeAll
    static void importS3() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.appliance.s3");
        mainAndTests = new ClassFileImporter().importPackages("dev.appliance.s3");
    }

    @Test
    void s3_usesNoErasureClass() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.s3..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.appliance.core.erasure..")
                .because("the engine's entry types (ObjectStore, StoreAdmin, Stores) are the only way in")
                .check(mainAndTests);
    }

    @Test
    void s3Packages_areFreeOfCycles() {
        slices().assignedFrom(PackageSlices.topLevelUnder("dev.appliance.s3"))
                .should()
                .beFreeOfCycles()
                .check(main);
    }

    @Test
    void s3_usesOnlyTheEnginesEntryTypes() {
        EngineEntryRules.onlyThroughEntryTypes("dev.appliance.s3..").check(mainAndTests);
    }
}
