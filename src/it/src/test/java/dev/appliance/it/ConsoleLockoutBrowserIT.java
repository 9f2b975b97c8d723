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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The console's login page after repeated wrong secrets, in headless Chromium against the packaged appliance: five
 * failures lock the key and the address out, and the page then says so with the time the lockout ends, even for the
 * right secret. An appliance of its own: the lockout would also keep other tests out from this address.
 */
class ConsoleLockoutBrowserIT {
    private static final String ROOT = "lockout-it-admin";
    private static final String SECRET = "lockout-it-secret-" + UUID.randomUUID();

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static ConsoleBrowser chromium;

    @BeforeAll
    static void start() throws IOException {
        ConsoleBrowser.assumeInstalled();
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET))
                .start();
        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
    }

    @AfterAll
    static void stop() {
        ConsoleBrowser.closeBoth(chromium, appliance);
    }

    @Test
    void fiveWrongSecrets_lockTheLoginOut_andThePageSaysUntilWhen() throws IOException {
        chromium.driver.get(appliance.consoleUri() + "/");
        By message = By.id("login-message");
        for (int attempt = 1; attempt <= 5; attempt++) {
            chromium.logIn(ROOT, "wrong-secret-" + attempt);
            // the form clears its message when it sends, so this waits for this attempt's answer
            ConsoleBrowser.waitOn(chromium.driver)
                    .until(ExpectedConditions.textToBe(message, "The access key or the secret key is wrong."));
        }
        chromium.logIn(ROOT, SECRET);
        ConsoleBrowser.waitOn(chromium.driver)
                .until(ExpectedConditions.textToBePresentInElementLocated(message, "locked out until"));
        WebElement shown = chromium.driver.findElement(message);
        assertThat(shown.getText())
                .matches(
                        "(?s)Too many failed logins: this access key and this address are locked out until"
                                + " .*\\d{1,2}:\\d{2}:\\d{2}.* \\(in about 15 min\\)\\. Even the right secret is refused until then\\.");
        assertThat(chromium.driver.findElement(By.id("shell-header")).isDisplayed())
                .isFalse();
        chromium.screenshot("login-locked-out");
    }
}
