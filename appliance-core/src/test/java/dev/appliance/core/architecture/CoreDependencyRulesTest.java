package dev.appliance.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine stays a plain library: no network framework, no application framework, no XML. Those belong to the
 * front ends (appliance-s3) and the application (appliance-admin-ui), which depend on the engine, never the reverse.
 */
class CoreDependencyRulesTest {
    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.appliance.core");
    }

    @Test
    void core_importsNoNettySpringOrXml() {
        ArchRule rule = noClasses()
                .that()
                .resideInAPackage("dev.appliance.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.netty..",
                        "org.springframework..",
                        "javax.xml..",
                        "jakarta.xml..",
                        "org.w3c.dom..",
                        "org.xml.sax..",
                        "com.fasterxml.jackson.dataformat.xml..")
                .because("appliance-core is the storage engine: transports, wiring and XML live in other modules");
        rule.check(core);
    }

    @Test
    void core_dependsOnNoOtherApplianceModule() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.appliance.s3..", "dev.appliance.app..")
                .check(core);
    }

    @Test
    void onlyTheEngineWiresTheCapabilities_nothingInCoreDependsOnIt() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.core..")
                .and()
                .resideOutsideOfPackage("dev.appliance.core.engine..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.appliance.core.engine..")
                .because("the engine package builds the store from its capabilities; they know nothing of it")
                .check(core);
    }

    @Test
    void theReadAndWritePaths_knowNothingOfBackgroundWork() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.core.erasure..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.appliance.core.heal..",
                        "dev.appliance.core.scanner..",
                        "dev.appliance.core.multipart..",
                        "dev.appliance.core.bucket..",
                        "dev.appliance.core.usage..",
                        "dev.appliance.core.alerts..")
                .because("sets, placement and the read and write paths report damage through an interface; healing,"
                        + " scanning, multipart uploads and bucket state are built on them, never the reverse")
                .check(core);
    }

    @Test
    void corePackages_areFreeOfCycles() {
        slices().assignedFrom(PackageSlices.topLevelUnder("dev.appliance.core"))
                .should()
                .beFreeOfCycles()
                .because("each capability is a room: entry and value types at the root, implementations depending on"
                        + " them, never the reverse")
                .check(core);
    }

    @Test
    void policy_isAPureLanguage_withoutTheStorageEngine() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.core.policy..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.appliance.core",
                        "dev.appliance.core.erasure..",
                        "dev.appliance.core.engine..",
                        "dev.appliance.core.drive..",
                        "dev.appliance.core.meta..",
                        "dev.appliance.core.bucket..")
                .because("policies are evaluated by the front ends and the admin API; the user store wires them to"
                        + " storage, not the policy language")
                .check(core);
    }
}
