package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
 * The dashboard's S3 traffic card in headless Chromium against the packaged appliance, sampling its traffic every
 * second ({@code -Dappliance.metrics.sample-interval=1s}): while objects are written through the AWS SDK, the
 * request-rate graph gains points (five, for a screenshot worth looking at) and its latest figures show requests and bytes coming in, each graph named for
 * screen readers; the Capacity card says why it has no days-to-full figure yet. An appliance of its own: the traffic
 * of the other browser tests would be in its graphs.
 */
class ConsoleDashboardBrowserIT {
    private static final String ROOT = "dashboard-it-admin";
    private static final String SECRET = "dashboard-it-secret-" + UUID.randomUUID();
    private static final String BUCKET = "traffic";

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
                        .withJvmOptions("-Dappliance.metrics.sample-interval=1s"))
                .start();
        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
    }

    @AfterAll
    static void stop() {
        ConsoleBrowser.closeBoth(chromium, appliance);
    }

    @Test
    void writesThroughTheSdk_showOnTheTrafficGraphs_andTheForecastSaysWhyItWaits() throws IOException {
        WebDriver browser = chromium.driver;
        browser.get(appliance.consoleUri() + "/");
        chromium.logIn(ROOT, SECRET);
        chromium.visible(By.id("traffic"));

        byte[] object = new byte[256 * 1024];
        AtomicInteger written = new AtomicInteger();
        // what the page said when it showed traffic: it moves on once a second, to zero once the writes stop
        AtomicReference<String> requests = new AtomicReference<>();
        AtomicReference<String> throughput = new AtomicReference<>();
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(r -> r.bucket(BUCKET));
            // every poll writes one more object, so that the interval the page shows last has traffic in it; the
            // page fetches the history once a second while it is shown
            ConsoleBrowser.retrying(browser, Duration.ofSeconds(60))
                    .ignoring(StaleElementReferenceException.class)
                    .until(b -> {
                        int n = written.incrementAndGet();
                        s3.putObject(r -> r.bucket(BUCKET).key("object-" + n), RequestBody.fromBytes(object));
                        List<WebElement> latest = b.findElements(By.id("traffic-requests-latest"));
                        List<WebElement> in = b.findElements(By.id("traffic-throughput-latest"));
                        List<WebElement> graph = b.findElements(By.id("traffic-requests-svg"));
                        if (latest.isEmpty() || in.isEmpty() || graph.isEmpty()) {
                            return false;
                        }
                        requests.set(latest.getFirst().getText());
                        throughput.set(in.getFirst().getText());
                        return Integer.parseInt(graph.getFirst().getDomAttribute("data-points")) >= 5
                                && Double.parseDouble(latest.getFirst().getDomAttribute("data-value")) > 0
                                && Double.parseDouble(in.getFirst().getDomAttribute("data-in")) > 0;
                    });
        }
        // the page redraws the graphs once a second: every read finds its element again if it was replaced
        By svg = By.id("traffic-requests-svg");
        assertThat(chromium.read(svg, e -> e.getDomAttribute("role"))).isEqualTo("img");
        assertThat(chromium.read(svg, e -> e.getDomAttribute("aria-labelledby")))
                .isEqualTo("traffic-requests-title traffic-requests-desc");
        assertThat(chromium.read(By.id("traffic-requests-title"), e -> e.getDomProperty("textContent")))
                .isEqualTo("S3 requests per second");
        assertThat(chromium.read(By.id("traffic-requests-desc"), e -> e.getDomProperty("textContent")))
                .startsWith("Latest ")
                .contains(" requests/s");
        // the line of all requests has a vertex per point
        String line = chromium.read(
                By.cssSelector("#traffic-requests-svg polyline[data-series=requestsPerSecond]"),
                e -> e.getDomAttribute("points"));
        assertThat(line.split(" ")).hasSizeGreaterThanOrEqualTo(5);
        assertThat(requests.get()).matches("Latest [0-9.]+ requests/s \\(.*").doesNotStartWith("Latest 0 requests/s");
        assertThat(throughput.get()).startsWith("Latest in ").doesNotStartWith("Latest in 0 B/s");
        for (String id : List.of("traffic-throughput-svg", "traffic-latency-svg")) {
            assertThat(chromium.read(By.id(id), e -> e.getDomAttribute("aria-labelledby")))
                    .as(id)
                    .isNotBlank();
        }
        assertThat(chromium.read(By.id("traffic-latency-latest"), WebElement::getText))
                .matches("Latest mean .*|No request answered in the latest interval\\.");
        // capacity is measured every 5 minutes by default and a forecast needs an hour of it: not known yet, and why
        chromium.visible(By.id("capacity-forecast"));
        assertThat(chromium.read(By.id("capacity-forecast"), WebElement::getText))
                .startsWith("Days to full: not known yet. Not enough history yet: usage has been measured over");
        ((JavascriptExecutor) browser)
                .executeScript("document.getElementById('traffic').scrollIntoView({block: 'end'})");
        chromium.screenshot("dashboard-traffic");
        assertThat(chromium.scriptErrors()).isEmpty();
    }
}
