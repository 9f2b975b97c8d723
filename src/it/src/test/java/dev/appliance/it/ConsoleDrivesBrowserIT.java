package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The console's Drives page in headless Chromium against the packaged appliance with fault injection on: four drives
 * online, then one taken away (the test-only "gone" fault) shows offline with its problem, on the Drives page and
 * on the dashboard, while the set keeps its write quorum. Then the drive is replaced by an empty one: it shows
 * {@code healing} with a progress bar, rate and ETA (the new drive is slowed by injected latency, so the fill lasts
 * until the test lifts it rather than for however long the machine takes), then {@code online} with the fill's figures.
 * The System checks page fails the drive's runtime check while it is gone and passes it once it is filled.
 * Last, a prefix heal started from the page's form repairs metadata deleted on another drive and shows its figures. An
 * appliance of its own: the other browser tests count four drives online.
 */
class ConsoleDrivesBrowserIT {
    private static final String ROOT = "drives-it-admin";
    private static final String SECRET = "drives-it-secret-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static ConsoleBrowser chromium;

    @BeforeAll
    static void start() throws IOException {
        ConsoleBrowser.assumeInstalled();
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET)
                        // the drive check (10 s by default) formats the replacement into its slot and brings the
                        // drive back: the test waits for it
                        .withJvmOptions("-Dappliance.faultInjection=true", "-Dappliance.drives.check-interval=1s"))
                .start();
        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
    }

    @AfterAll
    static void stop() {
        ConsoleBrowser.closeBoth(chromium, appliance);
    }

    /** Objects under each of the two prefixes of the bucket the fill and the prefix heal work on. */
    private static final int PER_PREFIX = 120;

    private static String key(String prefix, int i) {
        return prefix + String.format("obj-%03d", i);
    }

    /**
     * One heal of the Heals section read in one script call (the page repaints itself every 2 s while a heal runs, so
     * elements found one by one may be replaced in between): state, progress bar label and value, figures, rate line.
     */
    private record Heal(String state, String bar, String value, String figures, String rate, String text) {}

    private static Heal heal(WebDriver browser, String id) {
        @SuppressWarnings("unchecked")
        Map<String, Object> h = (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript(
                        "const li = document.querySelector(`#heal-list li[data-heal='${arguments[0]}']`);"
                                + "if (!li) return null;"
                                + "const bar = li.querySelector('progress');"
                                + "return {state: li.dataset.state, bar: bar.getAttribute('aria-label'),"
                                + " value: bar.getAttribute('value'),"
                                + " figures: li.querySelector('[data-col=heal-figures]').textContent,"
                                + " rate: li.querySelector('[data-col=heal-rate]').textContent, text: li.textContent};",
                        id);
        return h == null
                ? null
                : new Heal(
                        (String) h.get("state"),
                        (String) h.get("bar"),
                        (String) h.get("value"),
                        (String) h.get("figures"),
                        (String) h.get("rate"),
                        (String) h.get("text"));
    }

    /** Waits (the page refreshing itself) until heal {@code id} is in {@code state}, and returns it then. */
    private static Heal awaitHeal(WebDriver browser, String id, String state, Duration wait) {
        return ConsoleBrowser.waitOn(browser, wait).until(b -> {
            Heal h = heal(b, id);
            return h != null && h.state().equals(state) ? h : null;
        });
    }

    /** Waits until {@code condition} holds, clicking the page's Refresh button between looks, at most {@code wait}. */
    private static void refreshUntil(WebDriver browser, Duration wait, Function<WebDriver, Boolean> condition) {
        ConsoleBrowser.retrying(browser, wait)
                .ignoring(StaleElementReferenceException.class)
                .until(b -> {
                    if (condition.apply(b)) {
                        return true;
                    }
                    b.findElement(By.id("drives-refresh")).click();
                    return false;
                });
    }

    /** Clicks the System checks page's Run now and waits until the page shows the run's result. */
    private static void runChecks(WebDriver browser) {
        String before = browser.findElement(By.id("checks-time")).getAttribute("datetime");
        browser.findElement(By.id("checks-run")).click();
        ConsoleBrowser.waitOn(browser)
                .ignoring(StaleElementReferenceException.class)
                .until(b -> !b.findElements(By.id("checks-time")).isEmpty()
                        && !before.equals(b.findElement(By.id("checks-time")).getAttribute("datetime")));
    }

    private static String checkResult(WebDriver browser, String id) {
        return browser.findElement(By.cssSelector("tr[data-check='" + id + "']"))
                .getAttribute("data-result");
    }

    private static String checkCell(WebDriver browser, String id, String column) {
        return browser.findElement(By.cssSelector("tr[data-check='" + id + "'] [data-col=" + column + "]"))
                .getText();
    }

    @Test
    void aDriveTakenAway_showsOffline_thenReplaced_healsWithProgress_andAPrefixHealFromTheForm() throws Exception {
        WebDriver browser = chromium.driver;
        // small objects for the replaced drive to be filled with, under two prefixes
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(r -> r.bucket("fill"));
            for (String prefix : new String[] {"vm1/", "vm2/"}) {
                for (int i = 0; i < PER_PREFIX; i++) {
                    String k = key(prefix, i);
                    s3.putObject(r -> r.bucket("fill").key(k), RequestBody.fromString("object " + k));
                }
            }
        }
        browser.get(appliance.consoleUri() + "/");
        chromium.logIn(ROOT, SECRET);
        chromium.textIs(By.id("drives-online"), "4");
        browser.findElement(By.cssSelector("#nav a[data-route=drives]")).click();
        chromium.visible(By.id("drives-table"));
        for (String drive : new String[] {"1/1", "1/2", "1/3", "1/4"}) {
            assertThat(browser.findElement(By.cssSelector("tr[data-drive='" + drive + "'] td[data-col=state]"))
                            .getText())
                    .as(drive)
                    .isEqualTo("online");
        }
        assertThat(browser.findElement(By.cssSelector("#sets li[data-set='1']")).getText())
                .contains("4 of 4 drives in service")
                .contains("writes need 3 (held)");
        chromium.screenshot("drives");

        // the fourth drive goes away; the writes that follow find it gone
        new AdminApi(appliance, tmp).inject(3, "{\"gone\":true}");
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(r -> r.bucket("after-loss"));
            s3.putObject(r -> r.bucket("after-loss").key("k"), RequestBody.fromString("written on three drives"));
        }
        By fourth = By.cssSelector("tr[data-drive='1/4'] td[data-col=state]");
        ConsoleBrowser.retrying(browser, ConsoleBrowser.WAIT).until(b -> {
            if (!b.findElement(fourth).getText().startsWith("online")) {
                return true;
            }
            b.findElement(By.id("drives-refresh")).click();
            return false;
        });
        assertThat(browser.findElement(fourth).getText()).matches("(?s)(offline|faulty)\\n.+");
        assertThat(browser.findElement(By.cssSelector("#sets li[data-set='1']")).getText())
                .contains("3 of 4 drives in service")
                .contains("writes need 3 (held)");
        chromium.screenshot("drives-one-offline");
        browser.findElement(By.cssSelector("#nav a[data-route=dashboard]")).click();
        chromium.textIs(By.id("drives-offline"), "1");
        assertThat(browser.findElement(By.id("drives-online")).getText()).isEqualTo("3");
        // the System checks page: Run now checks the drives again, and the fourth drive's runtime check fails
        browser.findElement(By.cssSelector("#nav a[data-route=checks]")).click();
        chromium.visible(By.id("checks-report"));
        runChecks(browser);
        assertThat(checkResult(browser, "drive.set1.slot4")).isEqualTo("fail");
        assertThat(checkCell(browser, "drive.set1.slot4", "measured"))
                .contains(appliance.drives().get(3).toString());
        assertThat(checkCell(browser, "drive.set1.slot4", "remediation")).contains("docs/healing.md");
        assertThat(checkResult(browser, "drive.set1.slot1")).isEqualTo("pass");
        assertThat(checkResult(browser, "quorum.set1")).isEqualTo("pass");
        assertThat(checkCell(browser, "drives.count", "measured")).isEqualTo("4 drives: 1 set of 4");
        assertThat(browser.findElement(By.id("checks-result")).getText()).isEqualTo("fail");
        chromium.screenshot("checks");

        // The drive is replaced by an empty one: the old directory moved away while the drive is still gone, an empty
        // one in its place, and the "gone" fault swapped for latency, so the fill lasts until the test lifts it.
        AdminApi admin = new AdminApi(appliance, tmp);
        Path drive = appliance.drives().get(3);
        Files.move(drive, drive.resolveSibling(drive.getFileName() + "-removed"));
        Files.createDirectory(drive);
        admin.inject(3, "{\"latencyMillis\":200}");
        browser.findElement(By.cssSelector("#nav a[data-route=drives]")).click();
        chromium.visible(By.id("drives-table"));
        // the drive check (every second here) formats it into its slot and the fill starts
        refreshUntil(browser, Duration.ofSeconds(90), b -> b.findElement(fourth)
                .getText()
                .startsWith("healing"));
        awaitHeal(browser, "drive-1/4", "healing", ConsoleBrowser.WAIT);
        // the slowed fill advances a few keys at a time: wait for the first ones, still healing
        Heal healing = ConsoleBrowser.waitOn(browser, Duration.ofSeconds(60)).until(b -> {
            Heal h = heal(b, "drive-1/4");
            return h != null && h.state().equals("healing") && !h.figures().startsWith("0 objects") ? h : null;
        });
        assertThat(healing.bar()).startsWith("Progress of Fill of drive 1/4");
        assertThat(healing.figures()).matches("[0-9,]+ objects scanned( of about 241)?: [0-9,]+ healed, 0 failed; .+");
        assertThat(healing.rate()).matches("[0-9.,]+ objects/s, .+/s, ETA .+");
        String rowBar = ConsoleBrowser.waitOn(browser)
                .ignoring(StaleElementReferenceException.class)
                .until(b -> b.findElement(By.cssSelector("tr[data-drive='1/4'] td[data-col=fill] progress"))
                        .getAttribute("aria-label"));
        assertThat(rowBar).isEqualTo("Fill of drive 1/4");
        chromium.screenshot("drives-healing");

        // latency lifted: the fill runs to its end, and the page (refreshing itself while a heal runs) shows it done
        admin.clearFaults();
        Heal filled = awaitHeal(browser, "drive-1/4", "done", Duration.ofSeconds(180));
        refreshUntil(browser, ConsoleBrowser.WAIT, b -> b.findElement(fourth)
                .getText()
                .equals("online"));
        Matcher m = Pattern.compile("([0-9,]+) objects scanned.*: ([0-9,]+) healed, 0 failed; .+ written")
                .matcher(filled.figures());
        assertThat(m.matches()).as(filled.figures()).isTrue();
        long scanned = Long.parseLong(m.group(1).replace(",", ""));
        long healed = Long.parseLong(m.group(2).replace(",", ""));
        // every key of both buckets walked; most healed by the fill (the heal queue may have put one there first)
        assertThat(scanned).isEqualTo(2L * PER_PREFIX + 1);
        assertThat(healed).isBetween((long) PER_PREFIX, scanned);
        assertThat(filled.rate())
                .matches("[0-9.,]+ objects/s, .+/s; finished .+")
                .doesNotStartWith("0.0 objects/s");
        assertThat(filled.value()).isEqualTo("1");
        // back in service: its check passes again (twice run: the first may still count the fill's slow calls)
        browser.findElement(By.cssSelector("#nav a[data-route=checks]")).click();
        chromium.visible(By.id("checks-report"));
        runChecks(browser);
        runChecks(browser);
        assertThat(checkResult(browser, "drive.set1.slot4")).isEqualTo("pass");
        browser.findElement(By.cssSelector("#nav a[data-route=drives]")).click();
        chromium.visible(By.id("heal-bucket"));

        // A prefix heal from the form: metadata of five keys under vm1/ deleted on the first drive comes back.
        List<Path> metas = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Path meta = appliance
                    .drives()
                    .get(0)
                    .resolve("fill")
                    .resolve(key("vm1/", i * 7))
                    .resolve("xl.meta");
            Files.delete(meta);
            metas.add(meta);
        }
        browser.findElement(By.id("heal-bucket")).sendKeys("fill");
        browser.findElement(By.id("heal-prefix")).sendKeys("vm1/");
        browser.findElement(By.id("bucket-heal-start")).click();
        assertThat(chromium.visible(By.id("bucket-heal-message")).getText()).startsWith("Heal 1 of fill/vm1/");
        Heal prefixHeal = awaitHeal(browser, "bucket-1", "done", Duration.ofSeconds(60));
        assertThat(prefixHeal.text()).contains("Heal of prefix fill/vm1/");
        assertThat(prefixHeal.figures()).startsWith(PER_PREFIX + " objects scanned: 5 healed, 0 failed; ");
        assertThat(prefixHeal.rate()).contains("objects/s").contains("finished");
        assertThat(prefixHeal.value()).isEqualTo("1");
        assertThat(metas).allSatisfy(p -> assertThat(p).exists());
        chromium.screenshot("drives-healed");

        assertThat(chromium.scriptErrors()).isEmpty();

        // a bucket that does not exist: the form says so under the bucket field
        WebElement bucketInput = browser.findElement(By.id("heal-bucket"));
        bucketInput.clear();
        bucketInput.sendKeys("no-such-bucket");
        browser.findElement(By.id("bucket-heal-start")).click();
        chromium.textIs(By.id("heal-bucket-error"), "bucket: no-such-bucket does not exist");
        // the browser logs the refused request; nothing else went wrong
        assertThat(chromium.scriptErrors())
                .singleElement()
                .asString()
                .contains("/api/v1/admin/heal/buckets")
                .contains("status of 404");
    }
}
