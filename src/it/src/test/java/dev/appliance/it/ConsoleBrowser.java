package dev.appliance.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.logging.Level;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium at 1280×800, driven through the system {@code chromedriver} named explicitly, so Selenium
 * Manager never looks for (or downloads) a driver or a browser. {@link #open} skips the calling test class, with a
 * message, where either is not installed ({@code apt-get install chromium chromium-driver}; {@code .ci/run} does).
 */
final class ConsoleBrowser implements AutoCloseable {
    private static final Path CHROMIUM = Path.of(System.getProperty("console.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER =
            Path.of(System.getProperty("console.chromedriver", "/usr/bin/chromedriver"));
    /** Screenshots of the pages, for a look at what the run saw (docs/console/ holds a few for the tour). */
    static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    static final Duration WAIT = Duration.ofSeconds(20);

    /**
     * How often a wait looks again. Selenium's default, 500 ms, left each wait for a page's answer idle for a quarter of
     * a second on average after the page was ready, over the several hundred waits of the console's tests.
     */
    static final Duration POLL = Duration.ofMillis(100);

    /** A wait of up to {@code timeout} on {@code driver}, looking every {@link #POLL}. */
    static WebDriverWait waitOn(WebDriver driver, Duration timeout) {
        return new WebDriverWait(driver, timeout, POLL);
    }

    /** {@link #waitOn(WebDriver, Duration)} for {@link #WAIT}. */
    static WebDriverWait waitOn(WebDriver driver) {
        return waitOn(driver, WAIT);
    }

    /**
     * How often a wait that acts between its looks (clicks Refresh, reloads the page, writes an object) does so: the
     * pace those waits had before {@link #POLL}, so that a refresh has time to answer before the next one.
     */
    static final Duration ACT_EVERY = Duration.ofMillis(500);

    /** A wait of up to {@code timeout} whose condition acts before it looks again, every {@link #ACT_EVERY}. */
    static WebDriverWait retrying(WebDriver driver, Duration timeout) {
        return new WebDriverWait(driver, timeout, ACT_EVERY);
    }

    final WebDriver driver;
    private final ChromeDriverService service;

    private ConsoleBrowser(WebDriver driver, ChromeDriverService service) {
        this.driver = driver;
        this.service = service;
    }

    /** Skips the test class when Chromium is missing; call before starting anything expensive. */
    static void assumeInstalled() {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        String why = "no Chromium here (" + CHROMIUM + ", " + CHROMEDRIVER
                + "): install Debian's chromium and chromium-driver to run the console's browser tests";
        if (!installed) {
            // a class skipped in @BeforeAll shows in failsafe's report as no tests run, without the reason
            System.err.println("[it] skipped: " + why);
        }
        Assumptions.assumeTrue(installed, why);
    }

    /** A fresh browser with its profile under {@code profile}. */
    static ConsoleBrowser open(Path profile) throws IOException {
        assumeInstalled();
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--no-first-run",
                "--window-size=1280,800",
                "--user-data-dir=" + Files.createDirectories(profile));
        // the browser's console log, to find script errors and Content-Security-Policy refusals
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        Files.createDirectories(SCREENSHOTS);
        return new ConsoleBrowser(new ChromeDriver(service, options), service);
    }

    WebElement visible(By by) {
        return waitOn(driver).until(ExpectedConditions.visibilityOfElementLocated(by));
    }

    /**
     * {@code what} (not null) of the element {@code by}, found again if the page re-rendered it meanwhile: the dashboard
     * redraws itself every second, so an element found a moment ago may be gone.
     */
    String read(By by, Function<WebElement, String> what) {
        return waitOn(driver).ignoring(StaleElementReferenceException.class).until(d -> what.apply(d.findElement(by)));
    }

    void textIs(By by, String text) {
        waitOn(driver).until(ExpectedConditions.textToBe(by, text));
    }

    void screenshot(String name) throws IOException {
        Path shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Fills the login form and submits it; what follows is the caller's to wait for. */
    void logIn(String key, String secret) {
        WebElement keyInput = visible(By.id("accessKey"));
        keyInput.clear();
        keyInput.sendKeys(key);
        WebElement secretInput = driver.findElement(By.id("secretKey"));
        secretInput.clear();
        secretInput.sendKeys(secret);
        driver.findElement(By.id("login-submit")).click();
    }

    /**
     * What the pages logged as errors since the last call, leaving out the failed requests the console expects and
     * handles (a 401 before the login or after a session ended, a 403 refusal, a 409 conflict): script errors and
     * CSP refusals remain.
     */
    List<String> scriptErrors() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::getMessage)
                .filter(m ->
                        !m.matches("(?s).*Failed to load resource: the server responded with a status of 40[139].*"))
                .toList();
    }

    @Override
    public void close() {
        driver.quit();
        service.stop();
    }

    /** Closes {@code chromium}, then stops {@code appliance}; either may be null (a start that failed or skipped). */
    static void closeBoth(ConsoleBrowser chromium, ApplianceProcess appliance) {
        try {
            if (chromium != null) {
                chromium.close();
            }
        } finally {
            if (appliance != null) {
                appliance.stop();
            }
        }
    }
}
