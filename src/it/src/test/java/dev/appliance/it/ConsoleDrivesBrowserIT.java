package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The console's Drives page in headless Chromium against the packaged appliance with fault injection on: four drives
 * online, then one taken away (the test-only "gone" fault) shows offline with its problem, on the Drives page and
 * on the dashboard, while the set keeps its write quorum. An appliance of its own: the other browser tests count
 * four drives online.
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
                        .withJvmOptions("-Dappliance.faultInjection=true"))
                .start();
        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
    }

    @AfterAll
    static void stop() {
        ConsoleBrowser.closeBoth(chromium, appliance);
    }

    @Test
    void aDriveTakenAway_showsOffline_onTheDrivesPage_andTheDashboard() throws IOException {
        WebDriver browser = chromium.driver;
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
        new WebDriverWait(browser, ConsoleBrowser.WAIT).until(b -> {
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
        // system checks are not there yet, and the page says so instead of showing a result
        browser.findElement(By.cssSelector("#nav a[data-route=checks]")).click();
        assertThat(chromium.visible(By.id("checks-unavailable")).getText()).startsWith("Not available yet");
        assertThat(chromium.scriptErrors()).isEmpty();
    }
}
