package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The RPM on the distribution family it is for: built as {@link RpmPackageIT} builds it, installed with {@code dnf} in
 * a Rocky Linux 9 container (its dependencies from the distribution, the scriptlets run for real by rpm), then the
 * service account, the installed {@code appliance-installer check} and the installed appliance (run as the service
 * user on drives in the container, answering the AWS SDK from the host) are checked, the service stops on SIGTERM,
 * and an erase leaves the drives. systemd does not run in the container: the unit itself is checked by {@code
 * systemd-analyze verify} in RpmPackageIT.
 *
 * <p>Needs Docker: without it JUnit reports the class skipped ({@code disabledWithoutDocker}). Slow (the image, the
 * dependencies from the network), so never in the default suite: {@code -Prpm-rocky} runs it (docs/testing.md).
 */
@Testcontainers(disabledWithoutDocker = true)
class RockyLinuxRpmContainer {
    private static final String PASSWORD = "rocky-rpm-secret-1";

    @TempDir
    static Path tmp;

    @Container
    static final GenericContainer<?> ROCKY = new GenericContainer<>(DockerImageName.parse("rockylinux:9"))
            .withCommand("sleep", "infinity")
            .withExposedPorts(9000);

    private static ExecResult sh(String script) throws Exception {
        return ROCKY.execInContainer("bash", "-c", script);
    }

    private static ExecResult ok(String script) throws Exception {
        ExecResult r = sh(script);
        assertThat(r.getExitCode())
                .as("%s%n%s%s", script, r.getStdout(), r.getStderr())
                .isZero();
        return r;
    }

    @Test
    void dnfInstall_createsTheServiceUser_theInstalledCommandsRun_theApplianceServesS3_andEraseKeepsTheDrives()
            throws Exception {
        assumeTrue(RpmPackageIT.onPath("rpmbuild"), "rpmbuild is not installed (Debian: apt-get install rpm)");
        Path rpm = RpmPackageIT.buildRpm(tmp, Map.of());
        ROCKY.copyFileToContainer(MountableFile.forHostPath(rpm), "/tmp/appliance.rpm");
        // util-linux for runuser below (the image's minimal set may lack it); the package brings its own dependencies
        ok("dnf install -y /tmp/appliance.rpm util-linux");

        // %pre made the account: system user, no login shell, home in the state directory
        assertThat(ok("getent passwd appliance").getStdout()).contains(":/var/lib/appliance:/sbin/nologin");
        assertThat(ok("stat -c '%U %a' /var/lib/appliance").getStdout().strip()).isEqualTo("appliance 700");

        ExecResult check = sh("appliance-installer check --json");
        assertThat(check.getExitCode()).as(check.getStderr()).isBetween(0, 2);
        assertThat(new ObjectMapper().readTree(check.getStdout()).path("checks").size())
                .isGreaterThan(5);

        // the service's command line, as the service user, on drives the admin made for it
        ok("mkdir -p /srv/disk1 /srv/disk2 /srv/disk3 /srv/disk4 && chown appliance: /srv/disk*");
        ok("nohup runuser -u appliance -- env APPLIANCE_CONFIG_DIR=/var/lib/appliance APPLIANCE_ROOT_USER=rocky-admin"
                + " APPLIANCE_ROOT_PASSWORD=" + PASSWORD + " /usr/bin/appliance server --address :9000"
                + " --console-address :9001 --allow-root-drives '/srv/disk{1...4}' >/tmp/appliance.log 2>&1 &"
                + " echo $! > /tmp/appliance.pid");
        ok("for i in $(seq 180); do grep -q '^S3 API:' /tmp/appliance.log && exit 0; sleep 1; done;"
                + " cat /tmp/appliance.log; exit 1");
        URI endpoint = URI.create("http://" + ROCKY.getHost() + ":" + ROCKY.getMappedPort(9000));
        try (S3Client s3 = S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.of(ApplianceProcess.REGION))
                .forcePathStyle(true)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("rocky-admin", PASSWORD)))
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMinutes(1)))
                .build()) {
            s3.createBucket(b -> b.bucket("backups"));
            s3.putObject(b -> b.bucket("backups").key("block"), RequestBody.fromString("on rocky"));
            assertThat(s3.getObjectAsBytes(b -> b.bucket("backups").key("block"))
                            .asUtf8String())
                    .isEqualTo("on rocky");
        }
        // SIGTERM: the graceful stop ends the process (the runuser wrapper passes the signal on)
        ok("kill -TERM $(cat /tmp/appliance.pid); for i in $(seq 120); do kill -0 $(cat /tmp/appliance.pid)"
                + " 2>/dev/null || exit 0; sleep 1; done; exit 1");

        ok("dnf remove -y appliance");
        ok("test -f /srv/disk1/.appliance.sys/format.json && test -d /var/lib/appliance");
        assertThat(sh("test -e /usr/bin/appliance").getExitCode()).isNotZero();
    }
}
