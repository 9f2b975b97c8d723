package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DefaultRetention;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectLockRetentionMode;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The console's bucket page in headless Chromium against the packaged appliance: each setting changed through its
 * form and read back through the AWS SDK (quota in the bucket list, the default retention as
 * GetObjectLockConfiguration, the policy as GetBucketPolicy, a lifecycle rule as GetBucketLifecycleConfiguration); the
 * appliance's refusals shown under the field at fault (versioning suspended on a lock bucket, a public policy, a
 * lifecycle rule without an action, deleting a bucket that holds a locked version); invalid policy JSON caught with
 * its line before anything is sent; an empty bucket deleted after its name is typed. Explicit waits only. An
 * appliance of its own, so that its buckets do not show in the other browser tests' lists.
 */
class ConsoleBucketBrowserIT {
    private static final String ROOT = "bucket-it-admin";
    private static final String SECRET = "bucket-it-secret-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static ConsoleBrowser chromium;
    private static WebDriver browser;
    private static S3Client s3;

    @BeforeAll
    static void start() throws IOException {
        ConsoleBrowser.assumeInstalled();
        // a lifecycle day of a second, so that a rule of one day matches what a test wrote a few seconds before; a
        // scanner cycle every second, so that versions per key are counted soon after they are written
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET)
                        .withArgs("--lifecycle-day", "1s", "--scanner-interval", "1s"))
                .start();
        s3 = appliance.client();
        for (String plain :
                new String[] {"quota-bucket", "policy-bucket", "rules-bucket", "empty-bucket", "lock-later"}) {
            s3.createBucket(r -> r.bucket(plain));
        }
        for (String locked : new String[] {"lock-settings", "lock-delete"}) {
            s3.createBucket(r -> r.bucket(locked).objectLockEnabledForBucket(true));
        }
        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
        browser = chromium.driver;
        browser.get(appliance.consoleUri() + "/");
        chromium.logIn(ROOT, SECRET);
        chromium.visible(By.id("drives-online"));
    }

    /**
     * No page threw and the Content-Security-Policy refused nothing; the refusals the tests provoke (400 for a rule
     * without an action, 409 for the others) are the console's to show, not errors.
     */
    @AfterEach
    void noScriptErrors() {
        assertThat(chromium.scriptErrors().stream()
                        .filter(m -> !m.matches("(?s).*the server responded with a status of 400.*"))
                        .toList())
                .isEmpty();
    }

    @AfterAll
    static void stop() {
        if (s3 != null) {
            s3.close();
        }
        ConsoleBrowser.closeBoth(chromium, appliance);
    }

    /** Shows the bucket's page, by way of the list so that nothing of an earlier page of the same bucket remains. */
    private static void openBucket(String bucket) {
        browser.get(appliance.consoleUri() + "/#/buckets");
        chromium.visible(By.cssSelector("tr[data-bucket='" + bucket + "']"));
        browser.findElement(By.cssSelector("tr[data-bucket='" + bucket + "'] a"))
                .click();
        chromium.textIs(By.id("bucket-name"), bucket);
    }

    private static void type(String id, String text) {
        WebElement input = chromium.visible(By.id(id));
        input.clear();
        input.sendKeys(text);
    }

    private static String waitForText(By by) {
        return ConsoleBrowser.waitOn(browser).until(b -> {
            String text = b.findElement(by).getText();
            return text.isBlank() ? null : text;
        });
    }

    @Test
    void aQuotaSetOnTheBucketPage_showsInTheBucketList_andUsageRefreshes() throws IOException {
        openBucket("quota-bucket");
        type("quota-gib", "5");
        browser.findElement(By.id("settings-form-save")).click();
        assertThat(waitForText(By.id("settings-form-message"))).startsWith("Saved: quota 5.0 GiB");
        assertThat(browser.findElement(By.cssSelector("#bucket-protection dd[data-key=quota]"))
                        .getText())
                .isEqualTo("5.0 GiB");
        ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
        chromium.screenshot("bucket");

        // usage with its Refresh: the read after the write starts a recount, which a refresh shows within seconds
        s3.putObject(r -> r.bucket("quota-bucket").key("counted"), RequestBody.fromString("counted"));
        By objects = By.cssSelector("#bucket-usage dd[data-key=objects]");
        ConsoleBrowser.retrying(browser, ConsoleBrowser.WAIT)
                .ignoring(StaleElementReferenceException.class)
                .until(b -> {
                    if ("1".equals(b.findElement(objects).getText())) {
                        return true;
                    }
                    b.findElement(By.id("usage-refresh")).click();
                    return false;
                });

        // a threshold that is not a whole number is refused under its field before anything is sent
        type("alert-threshold", "many");
        browser.findElement(By.id("settings-form-save")).click();
        assertThat(waitForText(By.id("alert-threshold-error"))).contains("whole number");

        browser.findElement(By.cssSelector("#nav a[data-route=buckets]")).click();
        chromium.textIs(By.cssSelector("tr[data-bucket='quota-bucket'] td[data-col=quota]"), "5.0 GiB");
    }

    @Test
    void aDefaultRetention_isSetOnALockBucket_andSuspendingItsVersioningIsRefused() throws IOException {
        openBucket("lock-settings");
        new Select(browser.findElement(By.id("retention-mode"))).selectByValue("GOVERNANCE");
        type("retention-period", "30");
        new Select(browser.findElement(By.id("retention-unit"))).selectByValue("days");
        browser.findElement(By.id("retention-form-save")).click();
        assertThat(waitForText(By.id("retention-form-message"))).isEqualTo("Default retention: GOVERNANCE 30 days.");
        DefaultRetention retention = s3.getObjectLockConfiguration(r -> r.bucket("lock-settings"))
                .objectLockConfiguration()
                .rule()
                .defaultRetention();
        assertThat(retention.mode()).isEqualTo(ObjectLockRetentionMode.GOVERNANCE);
        assertThat(retention.days()).isEqualTo(30);
        assertThat(browser.findElement(By.cssSelector("#bucket-protection dd[data-key=retention]"))
                        .getText())
                .isEqualTo("GOVERNANCE 30 days");

        new Select(browser.findElement(By.id("versioning-status"))).selectByValue("Suspended");
        browser.findElement(By.id("versioning-form-save")).click();
        assertThat(waitForText(By.id("versioning-status-error")))
                .contains("cannot be suspended on an Object Lock bucket");
        chromium.screenshot("bucket-versioning-refused");
        assertThat(s3.getBucketVersioning(r -> r.bucket("lock-settings")).status())
                .isEqualTo(BucketVersioningStatus.ENABLED);
    }

    @Test
    void objectLockIsTurnedOnForAnExistingBucket_onceItsVersioningIsEnabled() {
        openBucket("lock-later");
        browser.findElement(By.id("lock-on-form-save")).click();
        assertThat(waitForText(By.id("lock-confirm-error"))).contains("cannot be turned off");
        browser.findElement(By.id("lock-confirm")).click();
        browser.findElement(By.id("lock-on-form-save")).click();
        assertThat(waitForText(By.id("lock-confirm-error"))).contains("needs versioning Enabled");
        assertThat(s3.getBucketVersioning(r -> r.bucket("lock-later")).status()).isNull();

        new Select(browser.findElement(By.id("versioning-status"))).selectByValue("Enabled");
        browser.findElement(By.id("versioning-form-save")).click();
        assertThat(waitForText(By.id("versioning-form-message"))).isEqualTo("Versioning is Enabled.");
        browser.findElement(By.id("lock-on-form-save")).click();
        // the page shows again with the default retention form of a lock bucket
        chromium.visible(By.id("retention-mode"));
        assertThat(browser.findElement(By.cssSelector("#bucket-protection dd[data-key=lock]"))
                        .getText())
                .isEqualTo("on");
        assertThat(s3.getObjectLockConfiguration(r -> r.bucket("lock-later"))
                        .objectLockConfiguration()
                        .objectLockEnabledAsString())
                .isEqualTo("Enabled");
    }

    @Test
    void invalidPolicyJson_isCaughtWithItsLine_thenAValidPolicyIsSaved() throws IOException {
        openBucket("policy-bucket");
        // the comma after the Version is missing: line 3 is where JSON.parse stops
        type("policy-document", "{\n  \"Version\": \"2012-10-17\"\n  \"Statement\": []\n}");
        browser.findElement(By.id("policy-form-save")).click();
        assertThat(waitForText(By.id("policy-document-error")))
                .contains("line 3")
                .endsWith("Nothing was sent.");
        assertThatThrownBy(() -> s3.getBucketPolicy(r -> r.bucket("policy-bucket")))
                .isInstanceOf(S3Exception.class)
                .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(404));

        // a public policy is refused by the public access block, and the page says why
        type(
                "policy-document",
                "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":\"*\","
                        + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::policy-bucket/*\"}]}");
        browser.findElement(By.id("policy-form-save")).click();
        assertThat(waitForText(By.id("policy-document-error"))).contains("PublicPolicyBlocked");

        String policy = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Sid\":\"NoBucketDelete\",\"Effect\":\"Deny\","
                + "\"Principal\":\"*\",\"Action\":\"s3:DeleteBucket\",\"Resource\":\"arn:aws:s3:::policy-bucket\"}]}";
        type("policy-document", policy);
        browser.findElement(By.id("policy-form-save")).click();
        assertThat(waitForText(By.id("policy-form-message"))).isEqualTo("Bucket policy saved.");
        assertThat(browser.findElement(By.id("policy-document-error")).getText())
                .isEmpty();
        assertThat(s3.getBucketPolicy(r -> r.bucket("policy-bucket")).policy())
                .contains("NoBucketDelete")
                .contains("s3:DeleteBucket");
        chromium.screenshot("bucket-policy");
    }

    @Test
    void aLifecycleRuleAddedOnThePage_isReadBackThroughTheSdk() throws IOException {
        openBucket("rules-bucket");
        assertThat(chromium.visible(By.id("lifecycle-none")).getText()).contains("No lifecycle rules");
        browser.findElement(By.id("lifecycle-add")).click();
        fillLastRule("expire-logs", "logs/", "30", "7", "2");
        // a second rule with no action: the appliance's message is shown under that rule, and nothing is saved
        browser.findElement(By.id("lifecycle-add")).click();
        fillLastRule("no-action", "", "", "", "");
        browser.findElement(By.id("lifecycle-form-save")).click();
        By secondError = By.cssSelector("#lifecycle-rules fieldset:nth-of-type(2) .rule-error");
        assertThat(waitForText(secondError)).startsWith("Rule 2: ").contains("action");
        assertThatThrownBy(() -> s3.getBucketLifecycleConfiguration(r -> r.bucket("rules-bucket")))
                .isInstanceOf(S3Exception.class);

        browser.findElement(By.cssSelector("#lifecycle-rules fieldset:nth-of-type(2) button"))
                .click();
        browser.findElement(By.id("lifecycle-form-save")).click();
        assertThat(waitForText(By.id("lifecycle-form-message"))).isEqualTo("Saved 1 rule.");
        chromium.screenshot("bucket-lifecycle");
        LifecycleRule rule = s3.getBucketLifecycleConfiguration(r -> r.bucket("rules-bucket"))
                .rules()
                .getFirst();
        assertThat(rule.id()).isEqualTo("expire-logs");
        assertThat(rule.filter().prefix()).isEqualTo("logs/");
        assertThat(rule.statusAsString()).isEqualTo("Enabled");
        assertThat(rule.expiration().days()).isEqualTo(30);
        assertThat(rule.noncurrentVersionExpiration().noncurrentDays()).isEqualTo(7);
        assertThat(rule.abortIncompleteMultipartUpload().daysAfterInitiation()).isEqualTo(2);
    }

    /**
     * The preview of the editor's unsaved rules on a lock bucket: with a day of one second, a rule of one day (for
     * current and for noncurrent versions) under {@code old/} matches what was written seconds before, so the
     * preview is asked again until the writes are that old (the count it then shows is exact). Nothing is deleted;
     * the legally held version is kept by lock. The versions-per-key card shows the key written 12 times.
     */
    @Test
    void theLifecyclePreview_countsWhatTheEditorsRulesWouldDoToday_andTheBucketShowsVersionsPerKey()
            throws IOException {
        String bucket = "preview-bucket";
        s3.createBucket(r -> r.bucket(bucket).objectLockEnabledForBucket(true));
        s3.putObject(
                r -> r.bucket(bucket).key("old/a").objectLockLegalHoldStatus("ON"), RequestBody.fromString("held"));
        s3.putObject(r -> r.bucket(bucket).key("old/a"), RequestBody.fromString("a-now"));
        s3.putObject(r -> r.bucket(bucket).key("old/b"), RequestBody.fromString("b"));
        s3.putObject(r -> r.bucket(bucket).key("old/d"), RequestBody.fromString("d-first"));
        s3.putObject(r -> r.bucket(bucket).key("old/d"), RequestBody.fromString("d-now"));
        s3.putObject(r -> r.bucket(bucket).key("new/c"), RequestBody.fromString("c"));
        for (int i = 0; i < 12; i++) {
            String body = "many-" + i;
            s3.putObject(r -> r.bucket(bucket).key("many"), RequestBody.fromString(body));
        }
        int versionsBefore =
                s3.listObjectVersions(r -> r.bucket(bucket)).versions().size();

        // versions per key, once a scanner cycle has counted every write (the page is read again until then)
        By manyClass = By.cssSelector("#version-counts-table tr[data-versions='11-100'] td[data-key='keys']");
        By fewClass = By.cssSelector("#version-counts-table tr[data-versions='2-10'] td[data-key='keys']");
        ConsoleBrowser.retrying(browser, ConsoleBrowser.WAIT).until(b -> {
            openBucket(bucket);
            // a cycle may have run between the writes: the figures are read again until they show all of them
            return !b.findElements(manyClass).isEmpty()
                    && b.findElement(manyClass).getText().equals("1")
                    && b.findElement(fewClass).getText().equals("2")
                    && b.findElement(By.id("most-versions")).getText().equals("Most versions: many with 12.");
        });
        assertThat(browser.findElement(
                                By.cssSelector("#version-counts-table tr[data-versions='1-1'] td[data-key='keys']"))
                        .getText())
                .isEqualTo("2");
        assertThat(browser.findElement(By.cssSelector("#version-counts-table caption"))
                        .getText())
                .startsWith("5 keys, as of ");
        ((JavascriptExecutor) browser)
                .executeScript("document.getElementById('version-counts').scrollIntoView({block: 'center'})");
        chromium.screenshot("bucket-version-counts");

        browser.findElement(By.id("lifecycle-add")).click();
        fillLastRule("tidy-old", "old/", "1", "1", "");
        By expired = By.cssSelector("#lifecycle-preview-table tr[data-kind='expiredCurrent'] td[data-key='count']");
        ConsoleBrowser.retrying(browser, ConsoleBrowser.WAIT).until(b -> {
            List<WebElement> shown = b.findElements(expired);
            if (!shown.isEmpty() && shown.getFirst().getText().equals("3")) {
                return true;
            }
            WebElement preview = b.findElement(By.id("lifecycle-preview"));
            if (preview.isEnabled()) {
                preview.click(); // not all of the writes were a day old yet: ask again
            }
            return false;
        });
        assertThat(previewCell("expiredCurrent", "samples"))
                .contains("old/a")
                .contains("old/b")
                .contains("old/d")
                .doesNotContain("new/c")
                .doesNotContain("many");
        assertThat(previewCell("removedNoncurrent", "count")).isEqualTo("1");
        assertThat(previewCell("removedNoncurrent", "samples"))
                .startsWith("old/d (")
                .endsWith("— rule tidy-old");
        assertThat(previewCell("keptByLock", "count")).isEqualTo("1");
        assertThat(previewCell("keptByLock", "samples")).startsWith("old/a (");
        assertThat(previewCell("removedDeleteMarkers", "count")).isEqualTo("0");
        assertThat(previewCell("abortedUploads", "count")).isEqualTo("0");
        assertThat(browser.findElement(By.id("lifecycle-preview-bytes")).getText())
                .isEqualTo("Space freed: 7 B (7 bytes)."); // "d-first"
        assertThat(browser.findElement(By.id("lifecycle-preview-title")).getText())
                .isEqualTo("Today these rules would ...");
        ((JavascriptExecutor) browser)
                .executeScript("document.getElementById('lifecycle-preview-result').scrollIntoView({block: 'center'})");
        chromium.screenshot("bucket-lifecycle-preview");

        // a preview saves nothing and deletes nothing
        assertThatThrownBy(() -> s3.getBucketLifecycleConfiguration(r -> r.bucket(bucket)))
                .isInstanceOf(S3Exception.class);
        assertThat(s3.listObjectVersions(r -> r.bucket(bucket)).versions()).hasSize(versionsBefore);

        // bad rules are refused as Save refuses them, under the rule at fault
        browser.findElement(By.id("lifecycle-add")).click();
        fillLastRule("no-action", "", "", "", "");
        browser.findElement(By.id("lifecycle-preview")).click();
        By secondError = By.cssSelector("#lifecycle-rules fieldset:nth-of-type(2) .rule-error");
        assertThat(waitForText(secondError)).startsWith("Rule 2: ").contains("action");
    }

    /** One cell of the preview's table: {@code count} or {@code samples} of an action. */
    private static String previewCell(String kind, String cell) {
        return browser.findElement(By.cssSelector(
                        "#lifecycle-preview-table tr[data-kind='" + kind + "'] td[data-key='" + cell + "']"))
                .getText();
    }

    private static void fillLastRule(String id, String prefix, String days, String noncurrent, String abort) {
        String last = "#lifecycle-rules fieldset:last-of-type ";
        for (String[] f : new String[][] {
            {"id", id}, {"prefix", prefix}, {"days", days}, {"noncurrent", noncurrent}, {"abort", abort}
        }) {
            if (!f[1].isEmpty()) {
                browser.findElement(By.cssSelector(last + "input[id$='-" + f[0] + "']"))
                        .sendKeys(f[1]);
            }
        }
    }

    @Test
    void deletingABucketWithALockedVersion_isRefusedAndExplained_andAnEmptyBucketIsDeleted() throws IOException {
        s3.putObject(
                r -> r.bucket("lock-delete")
                        .key("kept")
                        .objectLockMode(ObjectLockMode.COMPLIANCE)
                        .objectLockRetainUntilDate(Instant.now().plus(1, ChronoUnit.DAYS)),
                RequestBody.fromString("locked"));
        openBucket("lock-delete");
        WebElement delete = browser.findElement(By.id("delete-form-save"));
        assertThat(delete.isEnabled()).isFalse();
        type("delete-confirm", "lock-delete");
        ConsoleBrowser.waitOn(browser).until(ExpectedConditions.elementToBeClickable(delete));
        delete.click();
        assertThat(waitForText(By.id("delete-confirm-error")))
                .contains("versions under Object Lock")
                .contains("key kept");
        chromium.screenshot("bucket-delete-refused");
        assertThat(s3.headBucket(r -> r.bucket("lock-delete")).sdkHttpResponse().isSuccessful())
                .isTrue();

        openBucket("empty-bucket");
        type("delete-confirm", "empty-bucket");
        browser.findElement(By.id("delete-form-save")).click();
        chromium.visible(By.id("buckets-table"));
        ConsoleBrowser.waitOn(browser).until(b -> b.findElements(By.cssSelector("tr[data-bucket='empty-bucket']"))
                .isEmpty());
        assertThatThrownBy(() -> s3.headBucket(r -> r.bucket("empty-bucket")))
                .isInstanceOf(NoSuchBucketException.class);
    }
}
