package dev.appliance.core.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The engine is configured through {@code StoreConfig} (drive timings: {@code DriveSettings}), never through JVM-wide
 * switches read where they are used: a setting read from a system property at class load can be neither validated
 * at start, nor documented with the others, nor set per store in a test.
 */
class CoreConfigurationRulesTest {
    /** Owner → the methods of it that read a system property or an environment variable. */
    private static final Map<String, Set<String>> SWITCH_READERS = Map.of(
            "java.lang.System", Set.of("getProperty", "getProperties", "getenv"),
            "java.lang.Long", Set.of("getLong"),
            "java.lang.Integer", Set.of("getInteger"),
            "java.lang.Boolean", Set.of("getBoolean"));

    /**
     * The classes that may call {@code System.getProperty}, and why: facts about the JVM, or a knob no per-store
     * setting can turn.
     */
    private static final Map<String, String> MAY_READ_A_PROPERTY = Map.of(
            "dev.appliance.core.drive.FilesystemSync", "os.name: syncfs is Linux-only",
            "dev.appliance.core.objectlock.HostTimeSync", "os.name: adjtimex is Linux-only",
            "dev.appliance.core.codec.VectorReedSolomon",
                    "the vector width (a benchmark knob) must be a static final for C2 to intrinsify the Vector API");

    @Test
    void core_readsNoSettingFromSystemPropertiesOrTheEnvironment() {
        DescribedPredicate<JavaMethodCall> readsASwitch =
                new DescribedPredicate<>("a method that reads a system property or an environment variable") {
                    @Override
                    public boolean test(JavaMethodCall call) {
                        String owner = call.getTargetOwner().getName();
                        if (!SWITCH_READERS.getOrDefault(owner, Set.of()).contains(call.getName())) {
                            return false;
                        }
                        return !(owner.equals("java.lang.System")
                                && call.getName().equals("getProperty")
                                && MAY_READ_A_PROPERTY.containsKey(
                                        call.getOriginOwner().getName()));
                    }
                };
        noClasses()
                .that()
                .resideInAPackage("dev.appliance.core..")
                .should()
                .callMethodWhere(readsASwitch)
                .because("the engine's settings come through StoreConfig (docs/decisions/admin-config-properties.md)")
                .check(new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.appliance.core"));
    }
}
