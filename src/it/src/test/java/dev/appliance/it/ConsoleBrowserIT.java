package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;

/**
 * The web console in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}) against the
 * packaged appliance: log in as root, see the four drives online on the dashboard, make a Veeam bucket with the wizard,
 * use the key it shows from the AWS SDK to write an object under COMPLIANCE retention, see the bucket with its object
 * in the list, browse down to the object, see its version's retention, be refused its delete with the reason (the
 * version still there for the SDK) and upload a small file; create a bucket of one's own, the appliance's refusal of a
 * taken name shown under the name field; make an auditor on the Users page, who then reads the dashboard and settings
 * and is offered no wizard or New bucket ({@link ConsoleAuditorBrowserIT} walks every page as an auditor); a version
 * alert shown with its
 * remedy and acknowledged; a wrong secret shows the error; a session that ends sends the browser back to the login page; logout.
 * Waits are explicit (WebDriverWait on what the page shows), never sleeps. Screenshots of the pages go to
 * {@code target/console-screenshots/}. Skipped, with a message, where no Chromium is installed ({@link ConsoleBrowser}).
 */
class ConsoleBrowserIT {
    private static final String ROOT = "browser-it-admin";
    private static final String SECRET = "browser-it-secret-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static ConsoleBrowser chromium;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws IOException {
        ConsoleBrowser.assumeInstalled();
        // a scanner cycle a second: usage and alerts show within seconds of the writes
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET)
                        .withArgs("--scanner-interval", "1s"))
                .start();
        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
        browser = chromium.driver;
    }

    /** No page threw, and the Content-Security-Policy refused nothing the console loads. */
    @AfterEach
    void noScriptErrors() {
        assertThat(chromium.scriptErrors()).isEmpty();
    }

    @AfterAll
    static void stop() {
        ConsoleBrowser.closeBoth(chromium, appliance);
    }

    /** Each test starts logged out, on a freshly loaded console page (which finds no session and shows the login). */
    @BeforeEach
    void freshBrowser() {
        chromium.scriptErrors(); // what an earlier test logged is that test's
        browser.manage().deleteAllCookies();
        browser.get(appliance.consoleUri() + "/");
        visible(By.id("login-form"));
    }

    private static WebElement visible(By by) {
        return chromium.visible(by);
    }

    private static void textIs(By by, String text) {
        chromium.textIs(by, text);
    }

    private static void screenshot(String name) throws IOException {
        chromium.screenshot(name);
    }

    private static void logIn(String key, String secret) {
        chromium.logIn(key, secret);
    }

    @Test
    void rootCreatesAVeeamBucket_writesALockedObjectWithItsKey_andSeesItListed() throws IOException {
        screenshot("login");
        assertThat(browser.findElement(By.id("first-start")).getText()).contains("./appliance server");
        logIn(ROOT, SECRET);

        // the dashboard: four drives online, from the admin API
        textIs(By.id("drives-online"), "4");
        assertThat(browser.findElement(By.id("drives-offline")).getText()).isEqualTo("0");
        assertThat(browser.findElement(By.id("clock-state")).getText()).isIn("healthy", "attention");
        assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("Signed in as root");
        screenshot("dashboard");

        // the Veeam wizard, reached from the nav bar; a name breaking the rules is marked before anything is sent
        browser.findElement(By.cssSelector("#nav a[data-route=veeam]")).click();
        WebElement name = visible(By.id("name"));
        name.sendKeys("Veeam_Repo");
        assertThat(browser.findElements(By.cssSelector("#name-rules li.broken")))
                .isNotEmpty();
        browser.findElement(By.id("veeam-create")).click();
        assertThat(visible(By.id("name-error")).getText()).contains("rule");
        name.clear();
        name.sendKeys("veeam-browser");
        // a bucket named veeam-... is suggested as the user's name as it is, and the policy's prefix does not double
        assertThat(browser.findElement(By.id("userName")).getAttribute("value")).isEqualTo("veeam-browser");
        browser.findElement(By.id("quotaTiB")).sendKeys("2");
        browser.findElement(By.id("veeam-create")).click();

        String key = visible(By.id("veeam-access-key")).getText();
        String secret = browser.findElement(By.id("veeam-secret-key")).getText();
        assertThat(browser.findElement(By.id("veeam-bucket")).getText()).isEqualTo("veeam-browser");
        assertThat(browser.findElement(By.id("veeam-once")).getText()).contains("shown only now");
        assertThat(browser.findElement(By.id("main")).getText())
                .contains("User veeam-browser with policy veeam-browser:")
                .doesNotContain("veeam-veeam");
        assertThat(key).isNotBlank().isNotEqualTo(ROOT);
        assertThat(secret).hasSizeGreaterThanOrEqualTo(20);
        screenshot("veeam-created");

        // the key it showed writes an object under COMPLIANCE retention
        String lockedVersion;
        try (S3Client s3 = appliance.client(key, secret, b -> {})) {
            lockedVersion = s3.putObject(
                            r -> r.bucket("veeam-browser")
                                    .key("Veeam/Backup/blocks/0001")
                                    .objectLockMode(ObjectLockMode.COMPLIANCE)
                                    .objectLockRetainUntilDate(Instant.now().plus(1, ChronoUnit.DAYS)),
                            RequestBody.fromString("block"))
                    .versionId();
            assertThat(s3.getObjectRetention(r -> r.bucket("veeam-browser").key("Veeam/Backup/blocks/0001"))
                            .retention()
                            .mode())
                    .isEqualTo(ObjectLockRetentionMode.COMPLIANCE);
        }

        // the bucket list: the read after the write starts a recount, which a refresh shows within seconds
        browser.findElement(By.id("veeam-done")).click();
        By objects = By.cssSelector("tr[data-bucket='veeam-browser'] td[data-col=objects]");
        visible(objects);
        ConsoleBrowser.retrying(browser, ConsoleBrowser.WAIT).until(b -> {
            if ("1".equals(b.findElement(objects).getText())) {
                return true;
            }
            b.findElement(By.id("buckets-refresh")).click();
            return false;
        });
        WebElement row = browser.findElement(By.cssSelector("tr[data-bucket='veeam-browser']"));
        assertThat(row.findElement(By.cssSelector("td[data-col=versioning]")).getText())
                .isEqualTo("Enabled");
        assertThat(row.findElement(By.cssSelector("td[data-col=lock]")).getText())
                .isEqualTo("on");
        assertThat(row.findElement(By.cssSelector("td[data-col=quota]")).getText())
                .isEqualTo("2.0 TiB");
        screenshot("buckets");

        // the bucket's page
        row.findElement(By.linkText("veeam-browser")).click();
        textIs(By.id("bucket-name"), "veeam-browser");
        assertThat(browser.findElement(By.id("bucket-protection")).getText()).contains("Object Lock\non");
        screenshot("bucket");

        // the object browser, from the bucket's page: down the folders to the object and its version under retention
        browser.findElement(By.id("bucket-browse")).click();
        textIs(By.id("objects-bucket"), "veeam-browser");
        visible(By.cssSelector("tr[data-prefix='Veeam/'] a")).click();
        visible(By.cssSelector("tr[data-prefix='Veeam/Backup/'] a")).click();
        visible(By.cssSelector("tr[data-prefix='Veeam/Backup/blocks/'] a")).click();
        visible(By.cssSelector("tr[data-key='Veeam/Backup/blocks/0001'] a")).click();
        By lockedRow = By.cssSelector("#versions-table tr[data-version-id='" + lockedVersion + "']");
        WebElement version = visible(lockedRow);
        assertThat(version.findElement(By.cssSelector("td[data-col=retention]")).getText())
                .startsWith("COMPLIANCE until ");
        assertThat(version.findElement(By.cssSelector("td[data-col=legal-hold]"))
                        .getText())
                .isEqualTo("off");
        assertThat(browser.findElement(By.id("objects-breadcrumb")).getText())
                .contains("veeam-browser")
                .contains("blocks/");
        screenshot("objects-versions");

        // deleting the locked version is refused, and the page says why
        version.findElement(By.cssSelector("[data-action=delete]")).click();
        visible(By.cssSelector(
                        "#versions-table tr[data-version-id='" + lockedVersion + "'] [data-action=confirm-delete]"))
                .click();
        ConsoleBrowser.waitOn(browser)
                .until(ExpectedConditions.textToBePresentInElementLocated(
                        By.id("objects-message"), "compliance retention until"));
        WebElement refusal = browser.findElement(By.id("objects-message"));
        assertThat(refusal.getText())
                .contains("protected by Object Lock")
                .contains("no one, the root user included, can delete it before then");
        assertThat(refusal.getAttribute("data-code")).isEqualTo("ObjectLocked");
        assertThat(refusal.getAttribute("role")).isEqualTo("alert");
        screenshot("objects-delete-refused");

        // a small file uploaded in the browser lands in the folder shown
        Path notes = tmp.resolve("notes.txt");
        Files.writeString(notes, "uploaded from the browser");
        browser.findElement(By.id("objects-file")).sendKeys(notes.toString());
        browser.findElement(By.id("objects-upload")).click();
        ConsoleBrowser.waitOn(browser)
                .until(ExpectedConditions.textToBePresentInElementLocated(
                        By.id("objects-message"), "Uploaded Veeam/Backup/blocks/notes.txt"));
        visible(By.cssSelector("tr[data-key='Veeam/Backup/blocks/notes.txt']"));
        screenshot("objects-uploaded");

        // the SDK, with the wizard's key: the locked version is still there, and the upload reads back
        try (S3Client s3 = appliance.client(key, secret, b -> {})) {
            assertThat(s3.headObject(r -> r.bucket("veeam-browser")
                                    .key("Veeam/Backup/blocks/0001")
                                    .versionId(lockedVersion))
                            .contentLength())
                    .isEqualTo(5L);
            assertThat(s3.getObjectAsBytes(r -> r.bucket("veeam-browser").key("Veeam/Backup/blocks/notes.txt"))
                            .asUtf8String())
                    .isEqualTo("uploaded from the browser");
        }

        // a bucket of one's own: a name that is taken is refused by the appliance, shown under the field it names
        browser.findElement(By.cssSelector("#nav a[data-route=buckets]")).click();
        visible(By.id("buckets-new")).click();
        WebElement newName = visible(By.id("name"));
        newName.sendKeys("veeam-browser");
        browser.findElement(By.id("new-bucket-create")).click();
        WebElement nameError = visible(By.id("name-error"));
        assertThat(nameError.getText()).isEqualTo("A bucket named \"veeam-browser\" already exists.");
        assertThat(newName.getAttribute("aria-invalid")).isEqualTo("true");
        screenshot("new-bucket-refused");
        newName.clear();
        newName.sendKeys("logs-browser");
        browser.findElement(By.id("objectLock")).click();
        assertThat(browser.findElement(By.id("versioning")).isSelected()).isTrue();
        browser.findElement(By.id("new-bucket-create")).click();
        textIs(By.id("bucket-name"), "logs-browser");
        assertThat(browser.findElement(By.id("bucket-protection")).getText())
                .contains("Versioning\nEnabled")
                .contains("Object Lock\non")
                .contains("Quota\nnone");

        // the audit log has root's creations and the refusal, filtered by principal and action
        browser.findElement(By.cssSelector("#nav a[data-route=audit]")).click();
        WebElement action = visible(By.id("audit-action"));
        action.sendKeys("admin:POST /api/v1/admin/buckets");
        // root's own: other tests' users call the API too, whichever runs first
        browser.findElement(By.id("audit-principal")).sendKeys(ROOT);
        browser.findElement(By.id("audit-apply")).click();
        ConsoleBrowser.waitOn(browser)
                .until(ExpectedConditions.textToBePresentInElementLocated(By.id("audit-count"), "3 event(s)"));
        assertThat(browser.findElements(By.cssSelector("#audit-table td[data-col=status]")).stream()
                        .map(WebElement::getText)
                        .toList())
                .containsExactly("201", "409", "201");
        assertThat(browser.findElements(By.cssSelector("#audit-table td[data-col=action]")).stream()
                        .map(WebElement::getText)
                        .distinct()
                        .toList())
                .containsExactly("admin:POST /api/v1/admin/buckets");
        screenshot("audit");

        // logout returns to the login page, and the session is gone
        browser.findElement(By.id("logout")).click();
        visible(By.id("login-form"));
        assertThat(visible(By.id("login-notice")).getText()).contains("logged out");
        browser.get(appliance.consoleUri() + "/#/buckets");
        visible(By.id("login-form"));
        assertThat(browser.findElement(By.id("shell-header")).isDisplayed()).isFalse();
    }

    @Test
    void anAuditorMadeInTheConsole_readsTheDashboard_andIsOfferedNoBucketWizard() throws IOException {
        logIn(ROOT, SECRET);
        textIs(By.id("drives-online"), "4");
        browser.findElement(By.cssSelector("#nav a[data-route=users]")).click();
        visible(By.id("userName")).sendKeys("auditor-browser");
        new Select(browser.findElement(By.id("userPolicy"))).selectByValue("auditor");
        browser.findElement(By.id("new-user-create")).click();
        String key = visible(By.id("new-user-access-key")).getText();
        String secret = browser.findElement(By.id("new-user-secret-key")).getText();
        assertThat(browser.findElement(By.cssSelector("tr[data-user='auditor-browser'] td[data-col=policies]"))
                        .getText())
                .isEqualTo("auditor");
        screenshot("users");
        browser.findElement(By.id("logout")).click();

        logIn(key, secret);
        textIs(By.id("drives-online"), "4");
        assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("Signed in as auditor-browser");
        // the console shows an auditor no control it cannot use: no Veeam wizard in the nav
        assertThat(browser.findElement(By.cssSelector("#nav a[data-route=veeam]"))
                        .isDisplayed())
                .isFalse();
        // the auditor reads the settings: the scanner interval this appliance was started with
        browser.findElement(By.cssSelector("#nav a[data-route=settings]")).click();
        textIs(By.cssSelector("tr[data-option='appliance.scanner.interval'] td[data-col=value]"), "1s");
        screenshot("settings");
        browser.findElement(By.cssSelector("#nav a[data-route=buckets]")).click();
        visible(By.cssSelector("h1"));
        ConsoleBrowser.waitOn(browser).until(ExpectedConditions.textToBe(By.cssSelector("main h1"), "Buckets"));
        assertThat(browser.findElements(By.id("buckets-new"))).isEmpty();
        screenshot("auditor-buckets");
    }

    @Test
    void aVersionAlert_isShownWithItsRemedy_andAcknowledged() throws IOException {
        // a versioned bucket whose alert threshold is 2 versions per key, and a key with 4
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(r -> r.bucket("churn"));
            s3.putBucketVersioning(r -> r.bucket("churn").versioningConfiguration(v -> v.status("Enabled")));
            Commands.Result set = Commands.run(
                    tmp,
                    List.of(
                            "curl",
                            "-sS",
                            "-o",
                            "/dev/null",
                            "-w",
                            "%{http_code}",
                            "-X",
                            "PUT",
                            appliance.consoleUri() + "/api/v1/admin/buckets/churn/settings",
                            "--aws-sigv4",
                            "aws:amz:us-east-1:s3",
                            "--user",
                            ROOT + ":" + SECRET,
                            "-H",
                            "Content-Type: application/json",
                            "--data-binary",
                            "{\"versionAlertThreshold\":2}"),
                    Map.of(),
                    30);
            assertThat(set.stdout()).isEqualTo("200");
            for (int i = 0; i < 4; i++) {
                s3.putObject(r -> r.bucket("churn").key("report.pdf"), RequestBody.fromString("edition " + i));
            }
        }
        logIn(ROOT, SECRET);
        textIs(By.id("drives-online"), "4");
        // no admin user exists in this appliance: root is asked to make one
        assertThat(visible(By.id("root-nudge")).getText()).contains("Create an admin user");
        browser.findElement(By.cssSelector("#nav a[data-route=alerts]")).click();
        By alert = By.cssSelector("article[data-bucket='churn']");
        visible(By.id("alerts-refresh"));
        ConsoleBrowser.retrying(browser, ConsoleBrowser.WAIT).until(b -> {
            if (!b.findElements(alert).isEmpty()) {
                return true;
            }
            b.findElement(By.id("alerts-refresh")).click();
            return false;
        });
        WebElement card = browser.findElement(alert);
        assertThat(card.findElement(By.cssSelector("[data-col=remedy]")).getText())
                .isNotBlank();
        assertThat(card.findElement(By.cssSelector("[data-col=cause]")).getText())
                .contains("churn");
        assertThat(card.findElement(By.cssSelector("[data-col=state]")).getText())
                .isEqualTo("active");
        // the projection names the worst key with its count, and when the hard cap would be reached
        assertThat(card.findElement(By.cssSelector("[data-col=projection] tr[data-key='report.pdf']"))
                        .getText())
                .startsWith("report.pdf 4");
        assertThat(card.findElement(By.cssSelector("[data-col=projection]")).getText())
                .contains("Worst key reaches the cap");
        screenshot("alerts");
        card.findElement(By.cssSelector("button[data-ack]")).click();
        ConsoleBrowser.waitOn(browser)
                .until(ExpectedConditions.textToBePresentInElementLocated(
                        By.cssSelector("article[data-bucket='churn'] [data-col=state]"), "acknowledged"));
        assertThat(browser.findElements(By.cssSelector("article[data-bucket='churn'] button[data-ack]")))
                .isEmpty();
    }

    @Test
    void wrongSecret_showsTheError_andStaysOnTheLogin() throws IOException {
        logIn(ROOT, "not-the-secret");
        WebElement message = visible(By.id("login-message"));
        ConsoleBrowser.waitOn(browser).until(ExpectedConditions.textToBePresentInElement(message, "wrong"));
        assertThat(message.getText()).isEqualTo("The access key or the secret key is wrong.");
        assertThat(browser.findElement(By.id("secretKey")).getAttribute("value"))
                .isEmpty();
        assertThat(browser.findElement(By.id("shell-header")).isDisplayed()).isFalse();
        screenshot("login-refused");
        // the right secret still works after one failure
        logIn(ROOT, SECRET);
        textIs(By.id("drives-online"), "4");
    }

    @Test
    void anEndedSession_sendsTheBrowserBackToTheLogin() {
        logIn(ROOT, SECRET);
        textIs(By.id("drives-online"), "4");
        // the session ends on the appliance's side (as after 30 idle minutes): the cookie no longer opens it
        browser.manage().deleteCookieNamed("APPLIANCE_SESSION");
        browser.findElement(By.id("dashboard-refresh")).click();
        assertThat(visible(By.id("login-notice")).getText()).contains("session ended");
        assertThat(browser.getCurrentUrl()).endsWith("#/login?expired");
    }
}
