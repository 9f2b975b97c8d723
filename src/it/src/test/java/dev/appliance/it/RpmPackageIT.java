package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The RPM ({@code packaging/rpm/build.sh}, what {@code ./appliance rpm} runs) built from the reactor's jar with
 * {@code rpmbuild}, inspected ({@code rpm -qp}: files, configuration flags, scriptlets), installed into a throwaway
 * root ({@code rpm --root DIR --nodeps --noscripts -i}: the root holds no shell or useradd for the scriptlets, so they
 * are run on their own below with stand-ins for systemctl and the account tools) and started from there: the
 * installed {@code /usr/bin/appliance} with the bundled runtime, on temporary drives and free ports, the root
 * credentials from a credentials file as the service reads them, answers the AWS SDK and stops on SIGTERM in time.
 * Skipped with a message where {@code rpmbuild} is missing (Debian: {@code apt-get install rpm}).
 */
class RpmPackageIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static Path rpmFile;
    private static Path root;

    @BeforeAll
    static void buildAndInstall() throws IOException {
        assumeTrue(
                onPath("rpmbuild") && onPath("rpm"),
                "rpmbuild is not installed (Debian: apt-get install rpm): the RPM is not built or tested");
        rpmFile = buildRpm(tmp, Map.of());
        Path repo = Path.of(System.getProperty("appliance.jar"))
                .toRealPath()
                .getParent()
                .getParent()
                .getParent();
        assertThat(rpmFile.getParent()).isEqualTo(repo.resolve("packaging/rpm/target"));
        assertThat(rpmFile.getFileName().toString()).matches("appliance-[0-9.]+-[0-9a-z.]+\\.x86_64\\.rpm");

        root = Files.createDirectories(tmp.resolve("root"));
        rpm("--root", root.toString(), "--initdb");
        rpmInRoot(root, "-i", rpmFile.toString());
    }

    @Test
    void package_holdsApplicationRuntimeUnitAndConfiguration_forX86_64() {
        assertThat(rpm("-qp", "--qf", "%{ARCH}", rpmFile.toString()).stdout()).isEqualTo("x86_64");
        List<String> files = rpm("-qpl", rpmFile.toString()).stdout().lines().toList();
        assertThat(files)
                .contains(
                        "/usr/bin/appliance",
                        "/usr/bin/appliance-installer",
                        "/usr/lib/appliance/appliance.jar",
                        "/usr/lib/appliance/appliance-installer.jar",
                        "/usr/lib/appliance/runtime/bin/java",
                        "/usr/lib/appliance/runtime/lib/modules",
                        "/usr/lib/systemd/system/appliance.service",
                        "/etc/sysconfig/appliance",
                        "/usr/lib/firewalld/services/appliance.xml",
                        "/usr/lib/tuned/appliance/tuned.conf",
                        "/var/lib/appliance");
        // Upgrades keep the admin's environment file: %config(noreplace) is RPMFILE_CONFIG (1) | RPMFILE_NOREPLACE (16)
        Map<String, Integer> flags = new LinkedHashMap<>();
        rpm("-qp", "--qf", "[%{FILENAMES} %{FILEFLAGS}\\n]", rpmFile.toString())
                .stdout()
                .lines()
                .forEach(l -> flags.put(
                        l.substring(0, l.lastIndexOf(' ')), Integer.valueOf(l.substring(l.lastIndexOf(' ') + 1))));
        assertThat(flags.get("/etc/sysconfig/appliance") & 17).isEqualTo(17);
        assertThat(flags.entrySet())
                .as("only the environment file is configuration; nothing under the drives")
                .filteredOn(e -> (e.getValue() & 1) != 0)
                .extracting(Map.Entry::getKey)
                .containsExactly("/etc/sysconfig/appliance");
    }

    @Test
    void firewalldServiceAndTunedProfile_coverThePortsAndTheKernelSettings() throws IOException {
        assertThat(Files.readString(root.resolve("usr/lib/firewalld/services/appliance.xml")))
                .contains("<port protocol=\"tcp\" port=\"9000\"/>", "<port protocol=\"tcp\" port=\"9001\"/>");
        assertThat(Files.readString(root.resolve("usr/lib/tuned/appliance/tuned.conf")))
                .contains(
                        "include=throughput-performance",
                        "transparent_hugepages=madvise",
                        "vm.swappiness=10",
                        "vm.max_map_count=",
                        "net.core.rmem_max=",
                        "net.core.wmem_max=",
                        "net.ipv4.tcp_rmem=",
                        "net.ipv4.tcp_wmem=",
                        "net.core.somaxconn=",
                        "net.ipv4.tcp_max_syn_backlog=",
                        "net.core.netdev_max_backlog=",
                        "net.ipv4.tcp_slow_start_after_idle=0");
    }

    @Test
    void scriptlets_createANoLoginUser_andNeverDeleteData() {
        String scripts = rpm("-qp", "--scripts", rpmFile.toString()).stdout();
        assertThat(scripts).contains("preinstall scriptlet", "posttrans scriptlet", "postuninstall scriptlet");
        assertThat(scripts).doesNotContain("rm -rf", "userdel", "groupdel", "/mnt/");
        assertThat(scriptlet("PREIN")).contains("useradd -r", "-s /sbin/nologin");
    }

    @Test
    void pre_createsTheServiceAccount_onlyWhenAbsent() throws IOException {
        Tools tools = new Tools(tmp.resolve("pre"));
        Commands.Result run = tools.run(scriptlet("PREIN"), "1", Map.of("ACCOUNT_EXISTS", "no"));
        assertThat(run.status()).as(run.stderr()).isZero();
        assertThat(tools.calls())
                .anyMatch(c -> c.startsWith("groupadd -r appliance"))
                .anyMatch(c -> c.startsWith("useradd -r -g appliance -d /var/lib/appliance -s /sbin/nologin"));

        Tools again = new Tools(tmp.resolve("pre-again"));
        assertThat(again.run(scriptlet("PREIN"), "2", Map.of("ACCOUNT_EXISTS", "yes"))
                        .status())
                .isZero();
        assertThat(again.calls()).noneMatch(c -> c.startsWith("useradd") || c.startsWith("groupadd"));
    }

    @Test
    void posttrans_restartsARunningService_onlyWhenTheAdminOptedIn() throws IOException {
        Path env = root.resolve("etc/sysconfig/appliance");
        String shipped = Files.readString(env);
        assertThat(shipped).contains("APPLIANCE_RESTART_ON_UPGRADE=no");
        try {
            Tools kept = new Tools(tmp.resolve("posttrans-no"));
            Commands.Result run = kept.run(scriptlet("POSTTRANS"), "0", Map.of("SERVICE_ACTIVE", "yes"));
            assertThat(run.status()).as(run.stderr()).isZero();
            assertThat(kept.calls()).contains("systemctl daemon-reload").noneMatch(c -> c.contains("restart"));
            assertThat(run.stderr()).contains("keeps the old version until: systemctl restart appliance");

            Files.writeString(
                    env, shipped.replace("APPLIANCE_RESTART_ON_UPGRADE=no", "APPLIANCE_RESTART_ON_UPGRADE=yes"));
            Tools opted = new Tools(tmp.resolve("posttrans-yes"));
            assertThat(opted.run(scriptlet("POSTTRANS"), "0", Map.of("SERVICE_ACTIVE", "yes"))
                            .status())
                    .isZero();
            assertThat(opted.calls()).contains("systemctl try-restart appliance.service");

            Tools stopped = new Tools(tmp.resolve("posttrans-stopped"));
            assertThat(stopped.run(scriptlet("POSTTRANS"), "0", Map.of("SERVICE_ACTIVE", "no"))
                            .status())
                    .isZero();
            assertThat(stopped.calls()).as("a stopped service stays stopped").noneMatch(c -> c.contains("restart"));
        } finally {
            Files.writeString(env, shipped);
        }
        // posttrans wrote the drives of the environment file into the unit's drop-in
        assertThat(Files.readString(dropIn()))
                .contains("[Service]", "ReadWritePaths=-/mnt/disk1", "ReadWritePaths=-/mnt/disk4")
                .doesNotContain("disk5");
    }

    @Test
    void uninstall_stopsTheService_andLeavesDrivesAndState() throws IOException {
        Tools preun = new Tools(tmp.resolve("preun"));
        assertThat(preun.run(scriptlet("PREUN"), "0", Map.of()).status()).isZero();
        assertThat(preun.calls()).contains("systemctl --no-reload disable --now appliance.service");
        Tools upgrade = new Tools(tmp.resolve("preun-upgrade"));
        assertThat(upgrade.run(scriptlet("PREUN"), "1", Map.of()).status()).isZero();
        assertThat(upgrade.calls()).as("an upgrade does not stop the service").isEmpty();

        // erase: only the generated drop-in goes; a drive and the state directory in the same root stay untouched
        Path drive = Files.createDirectories(root.resolve("mnt/disk1/.appliance.sys"));
        Files.writeString(drive.resolve("format.json"), "{}");
        Path state = Files.createDirectories(root.resolve("var/lib/appliance/keys"));
        Files.writeString(state.resolve("deployment.key"), "key");
        Files.createDirectories(dropIn().getParent());
        Files.writeString(dropIn(), "[Service]\n");
        Tools postun = new Tools(tmp.resolve("postun"));
        // every absolute path the erase might touch points into the root, so what it deletes there is seen
        String erase = scriptlet("POSTUN")
                .replace("/var/lib/appliance", root.resolve("var/lib/appliance").toString())
                .replace("/mnt/", root.resolve("mnt") + "/");
        assertThat(postun.run(erase, "0", Map.of()).status()).isZero();
        assertThat(dropIn()).doesNotExist();
        assertThat(drive.resolve("format.json")).hasContent("{}");
        assertThat(state.resolve("deployment.key")).hasContent("key");
    }

    @Test
    void unit_hasTheLimitsOrderingRestartPolicyAndHardening() throws IOException {
        Path unitFile = root.resolve("usr/lib/systemd/system/appliance.service");
        Map<String, List<String>> unit = settings(unitFile);
        assertThat(unit.get("LimitNOFILE")).containsExactly("1048576");
        assertThat(unit.get("TasksMax")).containsExactly("infinity");
        assertThat(unit.get("After")).containsExactly("network-online.target time-sync.target");
        assertThat(unit.get("Wants")).containsExactly("network-online.target");
        assertThat(unit.get("Restart")).containsExactly("on-failure");
        assertThat(unit).containsKeys("StartLimitIntervalSec", "StartLimitBurst");
        assertThat(unit.get("EnvironmentFile")).containsExactly("/etc/sysconfig/appliance");
        assertThat(unit.get("User")).containsExactly("appliance");
        assertThat(unit.get("ExecStart")).containsExactly("/usr/bin/appliance server");
        assertThat(unit.get("SuccessExitStatus"))
                .as("the JVM's exit on SIGTERM where the appliance cannot handle the signal (-Xrs)")
                .containsExactly("143");
        assertThat(Integer.parseInt(unit.get("TimeoutStopSec").getFirst()))
                .as("longer than the graceful stop (ShutdownGraceTest checks the budget against the default grace)")
                .isGreaterThanOrEqualTo(120);
        for (String on : List.of(
                "NoNewPrivileges",
                "ProtectHome",
                "PrivateTmp",
                "ProtectKernelTunables",
                "ProtectKernelModules",
                "ProtectControlGroups",
                "RestrictSUIDSGID")) {
            assertThat(unit.get(on)).as(on).containsExactly("yes");
        }
        assertThat(unit.get("ProtectSystem")).containsExactly("strict");
        assertThat(unit).as("the JIT writes code").doesNotContainKey("MemoryDenyWriteExecute");

        if (!onPath("systemd-analyze")) {
            System.err.println("[it] systemd-analyze is not installed: the unit is not verified by systemd");
            return;
        }
        // verify resolves the unit's dependencies (sysinit.target, ...) in the root: give it the host's units beside it
        assertThat(Commands.run(
                                tmp,
                                List.of(
                                        "cp",
                                        "-an",
                                        "/usr/lib/systemd/system/.",
                                        root.resolve("usr/lib/systemd/system").toString()),
                                Map.of(),
                                60)
                        .status())
                .isZero();
        Commands.Result verify = Commands.run(
                tmp,
                List.of("systemd-analyze", "verify", "--root=" + root, "/usr/lib/systemd/system/appliance.service"),
                Map.of("SYSTEMD_LOG_LEVEL", "warning"),
                60);
        assertThat(verify.status()).as(verify.stdout() + verify.stderr()).isZero();
        assertThat(verify.stdout() + verify.stderr())
                .as("no warning about appliance.service")
                .doesNotContain("appliance.service:");
    }

    @Test
    void installedLauncher_printsAManPageStyleHelp() {
        Commands.Result help = Commands.run(tmp, List.of(launcher().toString(), "--help"), Map.of(), 30);
        assertThat(help.status()).isZero();
        assertThat(help.stdout())
                .contains(
                        "NAME",
                        "SYNOPSIS",
                        "DESCRIPTION",
                        "COMMANDS",
                        "FILES",
                        "ENVIRONMENT",
                        "EXIT STATUS",
                        "SEE ALSO")
                .contains("/etc/sysconfig/appliance", "APPLIANCE_DRIVES_PATHS", "service-paths");
        Commands.Result version = Commands.run(tmp, List.of(launcher().toString(), "--version"), Map.of(), 30);
        assertThat(version.stdout()).matches("appliance [0-9.]+-[0-9a-z.]+\\n");
    }

    @Test
    void installedInstaller_printsAManPageStyleHelp_andChecksThisHostWithTheBundledRuntime() throws IOException {
        Path installer = root.resolve("usr/bin/appliance-installer");
        Commands.Result help = Commands.run(tmp, List.of(installer.toString(), "--help"), Map.of(), 30);
        assertThat(help.status()).isZero();
        assertThat(help.stdout())
                .contains("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "FILES", "EXIT STATUS", "SEE ALSO")
                .contains(
                        "appliance-installer check",
                        "appliance-installer tune",
                        "appliance-installer prepare-drives",
                        "/etc/sysctl.d/");
        assertThat(Commands.run(tmp, List.of(installer.toString(), "--version"), Map.of(), 30)
                        .stdout())
                .matches("appliance-installer [0-9.]+-[0-9a-z.]+\\n");

        // The checks of this (build) machine, as an admin runs them on the host before the first start.
        Path drive = Files.createDirectories(tmp.resolve("installer-drive"));
        Commands.Result check = Commands.run(
                tmp, List.of(installer.toString(), "check", "--json", "--drives", drive.toString()), Map.of(), 120);
        assertThat(check.stderr())
                .as("nothing but the report: no JVM warning (native access is enabled)")
                .doesNotContain("WARNING");
        com.fasterxml.jackson.databind.JsonNode report =
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(check.stdout());
        assertThat(report.path("checks").size()).as(check.stdout()).isGreaterThan(5);
        List<String> results = new ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode c : report.path("checks")) {
            assertThat(c.path("id").asText()).as("%s", c).isNotBlank();
            assertThat(c.has("measured") && c.has("expected") && c.has("remediation"))
                    .as("%s", c)
                    .isTrue();
            results.add(c.path("result").asText());
        }
        assertThat(results).isSubsetOf("pass", "warn", "fail");
        int worst = results.contains("fail") ? 2 : results.contains("warn") ? 1 : 0;
        assertThat(check.status()).as("the exit status says the worst result").isEqualTo(worst);
        // the bundled runtime ran it (the launcher execs it): the drives rule saw the drive given
        assertThat(check.stdout()).contains(drive.toString());
    }

    @Test
    void installedLauncher_servesS3WithTheBundledRuntime_andStopsGracefully() throws IOException {
        Path credentials = tmp.resolve("root-credentials");
        String password = "rpm-it-secret-" + System.nanoTime();
        Files.writeString(credentials, "APPLIANCE_ROOT_USER=rpm-admin\nAPPLIANCE_ROOT_PASSWORD=" + password + "\n");
        Path work = tmp.resolve("service");
        ApplianceProcess appliance = LOGS.watch(ApplianceProcess.withGeneratedCredentials(work)
                .withLauncher(launcher())
                .withEnv("APPLIANCE_DRIVES_PATHS", work.resolve("disk{1...4}").toString())
                .withEnv("APPLIANCE_ROOT_CREDENTIALS_FILE", credentials.toString()));
        try {
            appliance.start(List.of());
            assertThat(appliance.accessKey())
                    .as("the user of the credentials file")
                    .isEqualTo("rpm-admin");
            assertThat(ProcessHandle.of(appliance.pid())
                            .orElseThrow()
                            .info()
                            .command()
                            .orElse(""))
                    .as("the launcher execs the bundled runtime's java")
                    .isEqualTo(
                            root.resolve("usr/lib/appliance/runtime/bin/java").toString());
            try (S3Client s3 = appliance.client("rpm-admin", password, b -> {})) {
                s3.createBucket(b -> b.bucket("backups"));
                s3.putObject(b -> b.bucket("backups").key("block"), RequestBody.fromString("from the rpm"));
                assertThat(s3.getObjectAsBytes(b -> b.bucket("backups").key("block"))
                                .asUtf8String())
                        .isEqualTo("from the rpm");
            }
            // the CLI through the installed command: the console's signed API, the credentials from the same file
            Commands.Result heal = Commands.run(
                    tmp,
                    List.of(
                            launcher().toString(),
                            "heal",
                            "status",
                            "--json",
                            "--console",
                            appliance.consoleUri().toString()),
                    Map.of("APPLIANCE_ROOT_CREDENTIALS_FILE", credentials.toString()),
                    120);
            assertThat(heal.status()).as(heal.stdout() + heal.stderr()).isZero();
            assertThat(heal.stdout()).contains("\"drives\"");
            assertThat(heal.stderr())
                    .as("nothing but the answer in the admin's terminal")
                    .isEmpty();
            assertThat(appliance.stop())
                    .as("ended within the grace period after SIGTERM")
                    .isTrue();
            assertThat(appliance.exitStatus())
                    .as("a requested stop is a success (the bundled runtime handles SIGTERM: jdk.unsupported)")
                    .isZero();
            assertThat(appliance.stdout() + appliance.stderr()).doesNotContain("Exception");
        } finally {
            appliance.stop();
        }
    }

    @Test
    void bundledRuntime_isLinkedSmall() throws IOException {
        Path runtime = root.resolve("usr/lib/appliance/runtime");
        long bytes;
        try (Stream<Path> files = Files.walk(runtime)) {
            bytes = files.filter(Files::isRegularFile)
                    .mapToLong(f -> f.toFile().length())
                    .sum();
        }
        assertThat(bytes).as("a jlinked runtime, not a whole JDK").isLessThan(120L << 20);
        String modules = Commands.run(
                        tmp, List.of(runtime.resolve("bin/java").toString(), "--list-modules"), Map.of(), 60)
                .stdout();
        assertThat(modules)
                .contains("java.base", "jdk.incubator.vector", "jdk.unsupported")
                .doesNotContain("jdk.compiler");
    }

    /**
     * The scriptlets run by rpm itself, in the chroot of the root, on install, upgrade and erase. The root gets the
     * few programs they call (sh, getent, groupadd, useradd, and for {@code appliance service-paths} bash and
     * coreutils), copied from this host with their libraries; systemctl is absent, so the service steps are skipped
     * as on a host without systemd (they are checked with stand-ins above). Needs root (rpm chroots); skipped
     * otherwise.
     */
    @Test
    void scriptletsRunByRpmInAChroot_createTheUser_writeTheDropIn_keepSettingsOnUpgrade_andDataOnErase()
            throws IOException {
        assumeTrue(
                Commands.run(tmp, List.of("id", "-u"), Map.of(), 10)
                        .stdout()
                        .strip()
                        .equals("0"),
                "not root: rpm cannot chroot to run the scriptlets");
        Path chroot = Files.createDirectories(tmp.resolve("chroot"));
        String programs =
                "sh bash env getent groupadd useradd nologin readlink dirname grep tail sed mkdir mv cat rm" + " rmdir";
        List<String> make = new ArrayList<>(List.of("bash", "-c", """
                        set -euo pipefail
                        R="$1"; shift
                        mkdir -p "$R/usr/bin" "$R/usr/sbin" "$R/usr/lib64" "$R/etc" "$R/tmp" "$R/var/lib"
                        # merged /usr as on RHEL 9: /bin and /sbin are links, so scriptlet paths resolve either way
                        ln -s usr/bin "$R/bin"; ln -s usr/sbin "$R/sbin"; ln -s usr/lib64 "$R/lib64"
                        for name in "$@"; do
                          path="$(command -v "$name" || true)"
                          [ -z "$path" ] && [ -x "/usr/sbin/$name" ] && path="/usr/sbin/$name"
                          [ -n "$path" ] || { echo "no $name on this host" >&2; exit 3; }
                          case "$path" in /usr/sbin/*|/sbin/*) dest="$R/usr/sbin/$name" ;; *) dest="$R/usr/bin/$name" ;; esac
                          cp -L "$path" "$dest"
                          for lib in $(ldd "$path" 2>/dev/null | grep -o '/[^ ]*' || true); do
                            mkdir -p "$R$(dirname "$lib")"; cp -nL "$lib" "$R$lib"
                          done
                        done
                        mkdir -p "$R/dev"
                        mknod -m 0666 "$R/dev/null" c 1 3 2>/dev/null || install -m 0666 /dev/null "$R/dev/null"
                        printf 'root:x:0:0:root:/root:/bin/sh\n' > "$R/etc/passwd"
                        printf 'root:x:0:\n' > "$R/etc/group"
                        printf 'root:*::0:99999:7:::\n' > "$R/etc/shadow"
                        printf 'root:*::\n' > "$R/etc/gshadow"
                        [ ! -f /etc/login.defs ] || cp /etc/login.defs "$R/etc/"
                        """, "make-chroot", chroot.toString()));
        make.addAll(List.of(programs.split(" ")));
        Commands.Result made = Commands.run(tmp, make, Map.of(), 120);
        assumeTrue(made.status() != 3, "a program the scriptlets call is missing here: " + made.stderr());
        assertThat(made.status()).as(made.stderr()).isZero();

        rpm("--root", chroot.toString(), "--initdb");
        rpmWithScripts(chroot, "-i", rpmFile.toString());
        String passwd = Files.readString(chroot.resolve("etc/passwd"));
        assertThat(passwd.lines().filter(l -> l.startsWith("appliance:")))
                .as("the pre scriptlet made the service account:%n%s", passwd)
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .endsWith(":/var/lib/appliance:/sbin/nologin");
        assertThat(Files.readString(chroot.resolve("etc/group"))).contains("appliance:");
        Path dropIn = chroot.resolve("etc/systemd/system/appliance.service.d/10-drives.conf");
        assertThat(Files.readString(dropIn))
                .as("posttrans wrote the drop-in of the drives")
                .contains("ReadWritePaths=-/mnt/disk1", "ReadWritePaths=-/mnt/disk4")
                .doesNotContain("disk5");

        // the admin's edit, a formatted drive, the key of generated credentials
        Path env = chroot.resolve("etc/sysconfig/appliance");
        String edited = Files.readString(env)
                .replace("APPLIANCE_DRIVES_PATHS=/mnt/disk{1...4}", "APPLIANCE_DRIVES_PATHS=/mnt/disk{1...8}");
        Files.writeString(env, edited);
        Path format = Files.createDirectories(chroot.resolve("mnt/disk1/.appliance.sys"))
                .resolve("format.json");
        Files.writeString(format, "{}");
        Path key = Files.createDirectories(chroot.resolve("var/lib/appliance/keys"))
                .resolve("deployment.key");
        Files.writeString(key, "key");

        rpmWithScripts(chroot, "-U", newerRpm().toString());
        assertThat(rpm("--root", chroot.toString(), "-q", "appliance").stdout()).startsWith("appliance-0.1.0-1.");
        assertThat(env).as("the admin's settings survive the upgrade").hasContent(edited);
        assertThat(Files.readString(chroot.resolve("etc/passwd")).lines().filter(l -> l.startsWith("appliance:")))
                .as("the account is not made twice")
                .hasSize(1);
        assertThat(Files.readString(dropIn))
                .as("the upgrade's posttrans wrote the edited drives")
                .contains("ReadWritePaths=-/mnt/disk8");

        rpmWithScripts(chroot, "-e", "appliance");
        assertThat(chroot.resolve("usr/lib/appliance")).doesNotExist();
        assertThat(dropIn).as("postun removed the generated drop-in").doesNotExist();
        assertThat(format).as("erase never touches a data drive").hasContent("{}");
        assertThat(key).hasContent("key");
        assertThat(Files.readString(chroot.resolve("etc/passwd"))).contains("appliance:");
    }

    @Test
    void upgrade_keepsTheAdminsSettings_andErase_leavesDrivesAndState() throws IOException {
        Path host = Files.createDirectories(tmp.resolve("upgraded-root"));
        rpm("--root", host.toString(), "--initdb");
        rpmInRoot(host, "-i", rpmFile.toString());
        Path env = host.resolve("etc/sysconfig/appliance");
        String edited = Files.readString(env)
                .replace("APPLIANCE_DRIVES_PATHS=/mnt/disk{1...4}", "APPLIANCE_DRIVES_PATHS=/mnt/disk{1...8}");
        assertThat(edited).isNotEqualTo(Files.readString(env));
        Files.writeString(env, edited);
        // what a running service leaves: the key of generated credentials, a formatted drive
        Path key =
                Files.createDirectories(host.resolve("var/lib/appliance/keys")).resolve("deployment.key");
        Files.writeString(key, "key");
        Path format = Files.createDirectories(host.resolve("mnt/disk1/.appliance.sys"))
                .resolve("format.json");
        Files.writeString(format, "{}");

        String newer = newerRpm().toString();
        rpmInRoot(host, "-U", newer);
        assertThat(rpm("--root", host.toString(), "-q", "appliance").stdout()).startsWith("appliance-0.1.0-1.");
        assertThat(env).as("the admin's settings survive the upgrade").hasContent(edited);

        rpmInRoot(host, "-e", "appliance");
        assertThat(host.resolve("usr/lib/appliance")).doesNotExist();
        assertThat(host.resolve("usr/bin/appliance")).doesNotExist();
        assertThat(key).hasContent("key");
        assertThat(format).hasContent("{}");
        assertThat(host.resolve("etc/sysconfig/appliance.rpmsave"))
                .as("the edited settings are saved on erase")
                .hasContent(edited);
    }

    // ---- helpers

    private static Path newerRpm;

    /** A second build of the package, release 1 (newer than the snapshot's 0.snapshot), made once. */
    private static synchronized Path newerRpm() throws IOException {
        if (newerRpm == null) {
            newerRpm = buildRpm(tmp, Map.of("APPLIANCE_RPM_RELEASE", "1"));
        }
        return newerRpm;
    }

    /** {@code rpm --root ROOT --nodeps ARGS} with the scriptlets, which rpm runs chrooted into ROOT. */
    private static void rpmWithScripts(Path root, String... args) {
        List<String> cmd = new ArrayList<>(List.of("rpm", "--root", root.toString(), "--nodeps"));
        if (rpm("--help").stdout().contains("--force-debian")) {
            cmd.add("--force-debian");
        }
        cmd.addAll(List.of(args));
        Commands.Result r = Commands.run(tmp, cmd, Map.of(), 300);
        assertThat(r.status()).as(cmd + "\n" + r.stdout() + r.stderr()).isZero();
        assertThat(r.stderr()).as("the scriptlets' complaints").doesNotContain("appliance:", "scriptlet failed");
    }

    /** {@code rpm --root ROOT --nodeps --noscripts ARGS} (and {@code --force-debian} where Debian's rpm wants it). */
    private static void rpmInRoot(Path root, String... args) {
        List<String> cmd = new ArrayList<>(List.of("rpm", "--root", root.toString(), "--nodeps", "--noscripts"));
        if (rpm("--help").stdout().contains("--force-debian")) {
            cmd.add("--force-debian"); // Debian's rpm refuses installs without it
        }
        cmd.addAll(List.of(args));
        Commands.Result r = Commands.run(tmp, cmd, Map.of(), 300);
        assertThat(r.status()).as(cmd + "\n" + r.stdout() + r.stderr()).isZero();
    }

    /**
     * Runs {@code packaging/rpm/build.sh} (as {@code ./appliance rpm} does) on the reactor's appliance and installer
     * jars with this JDK's jlink; {@code env} adds variables (APPLIANCE_RPM_RELEASE). Returns the RPM it made.
     */
    static Path buildRpm(Path workDir, Map<String, String> env) throws IOException {
        Path jar = Path.of(System.getProperty("appliance.jar")).toRealPath();
        Path repo = jar.getParent().getParent().getParent();
        Map<String, String> all = new LinkedHashMap<>(env);
        all.put("JAVA_HOME", System.getProperty("java.home"));
        Commands.Result build = Commands.run(
                workDir,
                List.of("bash", repo.resolve("packaging/rpm/build.sh").toString(), jar.toString(), installerJar()),
                all,
                900);
        assertThat(build.status()).as(build.stdout() + build.stderr()).isZero();
        return Path.of(build.stdout().strip().lines().reduce((a, b) -> b).orElseThrow())
                .toRealPath();
    }

    /** The installer's shaded jar, built by the reactor (system property set by the failsafe configuration). */
    private static String installerJar() {
        Path jar = Path.of(System.getProperty("appliance.installer.jar"));
        assertThat(jar).as("the installer jar; build the reactor first").isRegularFile();
        return jar.toString();
    }

    private static Path launcher() {
        return root.resolve("usr/bin/appliance");
    }

    private static Path dropIn() {
        return root.resolve("etc/systemd/system/appliance.service.d/10-drives.conf");
    }

    static boolean onPath(String command) {
        return Stream.of(System.getenv("PATH").split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }

    private static Commands.Result rpm(String... args) {
        List<String> cmd = new ArrayList<>(List.of("rpm"));
        cmd.addAll(List.of(args));
        Commands.Result r = Commands.run(tmp, cmd, Map.of(), 120);
        assertThat(r.status()).as(cmd + "\n" + r.stderr()).isZero();
        return r;
    }

    /** One scriptlet's body, its absolute paths moved into the throwaway root. */
    private static String scriptlet(String tag) {
        String body = rpm("-qp", "--qf", "%{" + tag + "}", rpmFile.toString()).stdout();
        assertThat(body).as(tag).isNotBlank().isNotEqualTo("(none)");
        return body.replace("/usr/bin/appliance", launcher().toString())
                .replace("/etc/systemd/system/", root.resolve("etc/systemd/system") + "/");
    }

    /** {@code key=value} lines of a unit file; a key given twice keeps both values. */
    private static Map<String, List<String>> settings(Path unitFile) throws IOException {
        Map<String, List<String>> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(unitFile, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (line.isBlank() || line.startsWith("#") || line.startsWith("[") || eq < 0) {
                continue;
            }
            settings.computeIfAbsent(line.substring(0, eq).strip(), k -> new ArrayList<>())
                    .add(line.substring(eq + 1).strip());
        }
        return settings;
    }

    /**
     * Stand-ins for the system tools the scriptlets call (systemctl, getent, groupadd, useradd), first on the PATH: they
     * log each call and answer as the environment says (SERVICE_ACTIVE, ACCOUNT_EXISTS). Everything else is real.
     */
    private record Tools(Path dir) {
        Tools {
            try {
                Files.createDirectories(dir.resolve("bin"));
                Files.writeString(dir.resolve("calls.log"), "");
                String log = dir.resolve("calls.log").toString();
                stub(dir, "systemctl", """
                        echo "systemctl $*" >> "%s"
                        case "$*" in *is-active*) [ "$SERVICE_ACTIVE" = yes ] ;; esac
                        """.formatted(log));
                stub(dir, "getent", "[ \"$ACCOUNT_EXISTS\" = yes ]\n");
                stub(dir, "groupadd", "echo \"groupadd $*\" >> \"%s\"\n".formatted(log));
                stub(dir, "useradd", "echo \"useradd $*\" >> \"%s\"\n".formatted(log));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        private static void stub(Path dir, String name, String body) throws IOException {
            Path f = dir.resolve("bin").resolve(name);
            Files.writeString(f, "#!/bin/sh\n" + body);
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        /** Runs a scriptlet as rpm does ({@code sh -c BODY} with {@code $1}), the launcher reading the root's files. */
        Commands.Result run(String body, String arg, Map<String, String> env) {
            Map<String, String> all = new LinkedHashMap<>(env);
            all.put("PATH", dir.resolve("bin") + ":" + System.getenv("PATH"));
            all.put(
                    "APPLIANCE_ENV_FILE",
                    root.resolve("etc/sysconfig/appliance").toString());
            all.put("APPLIANCE_DROPIN", dropIn().toString());
            all.putIfAbsent("SERVICE_ACTIVE", "no");
            all.putIfAbsent("ACCOUNT_EXISTS", "no");
            return Commands.run(dir, List.of("sh", "-c", body, "scriptlet", arg), all, 60);
        }

        List<String> calls() throws IOException {
            return Files.readAllLines(dir.resolve("calls.log"), StandardCharsets.UTF_8);
        }
    }
}
