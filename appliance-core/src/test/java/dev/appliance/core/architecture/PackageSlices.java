package dev.appliance.core.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/** How the modules' cycle rules cut their packages into slices (the core and the S3 front end use it). */
public final class PackageSlices {
    private PackageSlices() {}

    /**
     * One slice per top-level package under {@code root}, and the root package itself as one more: the root holds the
     * entry and value types, so a dependency from it back to an implementation package is a cycle too.
     */
    public static SliceAssignment topLevelUnder(String root) {
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
}
