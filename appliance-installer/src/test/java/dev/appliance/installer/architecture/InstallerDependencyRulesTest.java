package dev.appliance.installer.architecture;

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
 * The installer is a small command-line tool: its packages do not depend on one another in a circle, it uses no
 * server framework, and it touches the engine only through the entry types the other modules use (in practice only
 * {@code HostTimeSync}, so its time check and the retention clock agree).
 */
class InstallerDependencyRulesTest {
    private static JavaClasses installer;

    @BeforeAll
    static void importInstaller() {
        installer = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.appliance.installer");
    }

    @Test
    void packages_haveNoCycles() {
        slices().assignedFrom(PackageSlices.topLevelUnder("dev.appliance.installer"))
                .should()
                .beFreeOfCycles()
                .check(installer);
    }

    @Test
    void systemReading_knowsNothingOfTheRules_andTheRulesNothingOfTheCommandLine() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.installer.system..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.appliance.installer.check..", "dev.appliance.installer.tune..")
                .check(installer);
        noClasses()
                .that()
                .resideInAnyPackage("dev.appliance.installer.check..", "dev.appliance.installer.tune..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.appliance.installer")
                .check(installer);
    }

    @Test
    void installer_usesNoServerFramework_andNoOtherApplianceModule() {
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.installer..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.springframework..", "io.netty..", "dev.appliance.s3..", "dev.appliance.app..")
                .check(installer);
    }

    @Test
    void installer_reachesTheEngineOnlyThroughItsEntryTypes() {
        EngineEntryRules.onlyThroughEntryTypes("dev.appliance.installer..").check(installer);
    }
}
