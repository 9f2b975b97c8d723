package dev.appliance.s3.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.appliance.core.architecture.EngineEntryRules;
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
        slices().assignedFrom(packagesUnder("dev.appliance.s3"))
                .should()
                .beFreeOfCycles()
                .check(main);
    }

    /** One slice per top-level package under {@code root}, and the root package itself as one more. */
    private static SliceAssignment packagesUnder(String root) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String pkg = javaClass.getPackageName();
                if (pkg.equals(root)) {
                    return SliceIdentifier.of("(root)");
                }
                if (!pkg.startsWith(root + ".")) {
                    return SliceIdentifier.ignore();
                }
                String rest = pkg.substring(root.length() + 1);
                int dot = rest.indexOf('.');
                return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
            }

            @Override
            public String getDescription() {
                return "top-level packages of " + root + " (and the root package)";
            }
        };
    }

    @Test
    void s3_usesOnlyTheEnginesEntryTypes() {
        EngineEntryRules.onlyThroughEntryTypes("dev.appliance.s3..").check(mainAndTests);
    }
}
