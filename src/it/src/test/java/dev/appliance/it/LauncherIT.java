package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code ./appliance} launcher script, copied into a scratch project whose JDK and Maven are stand-ins that
 * log their calls: so its decision to build (or not) is seen without a real build. The stand-in Maven writes the jar
 * the way the reproducible build does, with its modification time set to a fixed past date.
 */
class LauncherIT {
    /** As project.build.outputTimestamp: long before the sources were last edited. */
    private static final String REPRODUCIBLE_DATE = "2020-01-01T00:00:00Z";

    @TempDir
    Path tmp;

    private Path root;
    private Path log;
    private Path source;
    private Map<String, String> env;

    @BeforeEach
    void scratchProject() throws IOException {
        Path jar = Path.of(System.getProperty("appliance.jar"));
        Path launcher = jar.getParent().getParent().getParent().resolve("appliance");
        assertThat(launcher).as("the launcher script next to the modules").isRegularFile();
        root = Files.createDirectories(tmp.resolve("project"));
        Files.copy(launcher, root.resolve("appliance"));
        executable(root.resolve("appliance"));
        // the launcher sizes the server's JVM with the package's helper, which it sources
        Path jvmOptions = Path.of("packaging/rpm/files/jvm-options.sh");
        Files.copy(
                launcher.resolveSibling(jvmOptions.toString()),
                Files.createDirectories(root.resolve(jvmOptions).getParent()).resolve("jvm-options.sh"));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        source = Files.createDirectories(root.resolve("appliance-core/src/main/java"))
                .resolve("Engine.java");
        Files.writeString(source, "class Engine {}");
        // Edited an hour ago: after the fixed date the reproducible build gives the jar, before the build below.
        Files.setLastModifiedTime(source, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
        Files.setLastModifiedTime(
                root.resolve("pom.xml"), FileTime.from(Instant.now().minus(Duration.ofHours(1))));

        log = tmp.resolve("calls.log");
        Files.writeString(log, "");
        Path jdkBin = Files.createDirectories(tmp.resolve("jdk/bin"));
        String java = """
                #!/bin/sh
                case "$*" in *XshowSettings*) echo "    java.specification.version = 99" >&2; exit 0 ;; esac
                echo "java $* [MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX]" >> "%s"
                """.formatted(log);
        Files.writeString(jdkBin.resolve("java"), java);
        Files.writeString(jdkBin.resolve("javac"), "#!/bin/sh\n");
        executable(jdkBin.resolve("java"));
        executable(jdkBin.resolve("javac"));
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path builtJar = root.resolve("appliance-admin-ui/target/appliance.jar");
        String mvn = """
                #!/bin/sh
                echo "mvn $*" >> "%s"
                mkdir -p "%s"
                echo "jar built at $(date)" > "%s"
                touch -d %s "%s"
                """.formatted(log, builtJar.getParent(), builtJar, REPRODUCIBLE_DATE, builtJar);
        Files.writeString(bin.resolve("mvn"), mvn);
        executable(bin.resolve("mvn"));
        env = Map.of("JAVA_HOME", tmp.resolve("jdk").toString(), "PATH", bin + ":" + System.getenv("PATH"));
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private Commands.Result launcher(String... args) {
        List<String> cmd = new java.util.ArrayList<>(
                List.of("bash", root.resolve("appliance").toString()));
        cmd.addAll(List.of(args));
        return Commands.run(tmp, cmd, env, 60);
    }

    private List<String> calls() throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8);
    }

    @Test
    void serverAfterBuild_doesNotBuildAgain_butDoesAfterASourceChanges() throws IOException {
        Commands.Result build = launcher("build");
        assertThat(build.status()).as(build.stderr()).isZero();
        assertThat(calls()).singleElement().asString().startsWith("mvn ").contains("package");

        Commands.Result server = launcher("server", "--address", ":9100");
        assertThat(server.status()).as(server.stderr()).isZero();
        assertThat(calls())
                .as(
                        "the jar of ./appliance build is current: no second build, although its date is %s",
                        REPRODUCIBLE_DATE)
                .hasSize(2)
                .last()
                .asString()
                .startsWith("java ")
                .contains("-jar", "server --address :9100");

        // A source edited after the build: the next start builds first.
        Files.writeString(source, "class Engine { int changed; }");
        Files.setLastModifiedTime(source, FileTime.from(Instant.now().plus(Duration.ofMinutes(1))));
        Commands.Result again = launcher("server");
        assertThat(again.status()).as(again.stderr()).isZero();
        assertThat(calls()).hasSize(4);
        assertThat(calls().get(2)).startsWith("mvn ").contains("package");
        assertThat(calls().get(3)).startsWith("java ");
    }

    @Test
    void server_getsAFixedPreTouchedHeap_unlessTheAdminSizesTheHeap() throws IOException {
        assertThat(launcher("build").status()).isZero();
        Commands.Result sized = launcher("server");
        assertThat(sized.status()).as(sized.stderr()).isZero();
        String call = calls().getLast();
        Matcher heap = Pattern.compile(" -Xms(\\d+)m -Xmx(\\d+)m ").matcher(call);
        assertThat(heap.find()).as("heap options in %s", call).isTrue();
        assertThat(heap.group(1))
                .as("-Xms equals -Xmx: the heap does not grow under load")
                .isEqualTo(heap.group(2));
        assertThat(Integer.parseInt(heap.group(2))).isBetween(512, 2048);
        assertThat(call).contains("-XX:+UseG1GC", "-XX:+AlwaysPreTouch", "-XX:MaxDirectMemorySize=");
        assertThat(call).as("glibc's malloc arenas capped").endsWith("[MALLOC_ARENA_MAX=2]");

        env = new HashMap<>(env);
        env.put("APPLIANCE_JAVA_OPTS", "-Xmx3g");
        Commands.Result admin = launcher("server");
        assertThat(admin.status()).as(admin.stderr()).isZero();
        assertThat(calls().getLast())
                .as("the admin's -Xmx is taken whole: no -Xms above it, no pre-touch of a heap it did not ask for")
                .contains(" -Xmx3g ")
                .doesNotContain("-Xms", "AlwaysPreTouch", "-Xmx512m");
    }

    @Test
    void help_printsTheUsageAndSucceeds_anUnknownCommandFails() throws IOException {
        Commands.Result help = launcher("--help");
        assertThat(help.status()).isZero();
        assertThat(help.stdout()).contains("usage: ./appliance server").contains("server --help");
        assertThat(calls()).as("help builds and runs nothing").isEmpty();

        Commands.Result unknown = launcher("serve");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.stderr()).contains("usage: ./appliance server");
    }
}
