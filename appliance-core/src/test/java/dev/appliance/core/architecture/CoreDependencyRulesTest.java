package dev.appliance.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

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
}
