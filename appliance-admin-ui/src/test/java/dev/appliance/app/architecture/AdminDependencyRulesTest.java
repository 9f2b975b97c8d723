package dev.appliance.app.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.appliance.core.architecture.EngineEntryRules;
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

    @Test
    void app_usesOnlyTheEnginesEntryTypes() {
        EngineEntryRules.onlyThroughEntryTypes("dev.appliance.app..").check(app);
    }
}
