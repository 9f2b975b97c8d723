package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;

/**
 * The console as an auditor sees it, in a real headless Chromium against the packaged appliance: every page of the nav
 * (and a bucket's and a user's page) renders without an error, shows no control the auditor cannot use (no Veeam
 * wizard in the nav, no create, edit or delete; the bucket's lifecycle rules and policy shown read only) and no secret
 * (not the root's, a user's, a token's or the auditor's own); and a change sent straight from the page with the
 * session and its CSRF token is refused 403 {@code AccessDenied} by the appliance, which changes nothing (without the
 * token, {@code InvalidCsrfToken}). An admin sees the controls and edits a customer policy in place, a JSON mistake
 * shown with its line and nothing sent. At 1280×800 and on a tablet (768×1024) the main pages fit the width, every
 * field has a label and every button a name, and the first Tab lands on "Skip to content", which moves focus to the
 * page. Screenshots go to {@code target/console-screenshots/}.
 */
class ConsoleAuditorBrowserIT {
    private static final String ROOT = "auditor-it-admin";
    private static final String SECRET = "auditor-it-secret-" + UUID.randomUUID();
    private static final String BUCKET = "audited";
    private static final String POLICY = "team-read";
    private static final String POLICY_DOCUMENT = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
            + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::" + BUCKET + "/*\"}]}";
    /** The buttons that change nothing, which an auditor keeps. */
    private static final List<String> READ_BUTTONS = List.of("Refresh", "Filter");

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static AdminApi admin;
    private static ConsoleBrowser chromium;
    private static WebDriver browser;
    private static String auditorKey;
    private static String auditorSecret;
    private static String userSecret;
    private static String tokenId;
    private static String tokenSecret;

    @BeforeAll
    static void start() throws IOException {
        ConsoleBrowser.assumeInstalled();
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET))
                .start();
        admin = new AdminApi(appliance, tmp);
        // what the pages show: a versioned bucket with a lifecycle rule and a policy, a customer policy, a group, a
        // user with a key, an admin token, and the auditor
        ok(admin.call("POST", "/api/v1/admin/buckets", "{\"name\":\"" + BUCKET + "\",\"versioning\":\"Enabled\"}"));
        try (S3Client s3 = appliance.client()) {
            s3.putBucketLifecycleConfiguration(r -> r.bucket(BUCKET)
                    .lifecycleConfiguration(c -> c.rules(rule -> rule.id("expire-logs")
                            .status(ExpirationStatus.ENABLED)
                            .filter(f -> f.prefix("logs/"))
                            .expiration(e -> e.days(30)))));
        }
        ok(admin.call(
                "PUT",
                "/api/v1/admin/buckets/" + BUCKET + "/policy",
                json(
                        "document",
                        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Sid\":\"NoBucketDelete\","
                                + "\"Effect\":\"Deny\",\"Principal\":\"*\",\"Action\":\"s3:DeleteBucket\","
                                + "\"Resource\":\"arn:aws:s3:::" + BUCKET + "\"}]}")));
        ok(admin.call(
                "POST",
                "/api/v1/admin/iam/policies",
                "{\"name\":\"" + POLICY + "\",\"document\":" + quoted(POLICY_DOCUMENT) + "}"));
        ok(admin.call("POST", "/api/v1/admin/iam/groups", "{\"name\":\"readers\"}"));
        ok(admin.call("POST", "/api/v1/admin/iam/users", "{\"name\":\"other-user\"}"));
        ok(admin.call("PUT", "/api/v1/admin/iam/groups/readers/members/other-user", null));
        userSecret = ok(admin.call("POST", "/api/v1/admin/iam/users/other-user/keys", null))
                .get("secretAccessKey")
                .asText();
        JsonNode token = ok(admin.call(
                "POST",
                "/api/v1/admin/tokens",
                "{\"name\":\"nightly\",\"policyArns\":[\"arn:aws:iam::aws:policy/auditor\"],\"expiresInDays\":30}"));
        tokenId = token.get("id").asText();
        tokenSecret = token.get("secret").asText();
        ok(admin.call("POST", "/api/v1/admin/iam/users", "{\"name\":\"auditor-one\"}"));
        ok(admin.call(
                "POST",
                "/api/v1/admin/iam/users/auditor-one/policies",
                "{\"policyArn\":\"arn:aws:iam::aws:policy/auditor\"}"));
        JsonNode key = ok(admin.call("POST", "/api/v1/admin/iam/users/auditor-one/keys", null));
        auditorKey = key.get("accessKeyId").asText();
        auditorSecret = key.get("secretAccessKey").asText();

        chromium = ConsoleBrowser.open(tmp.resolve("chromium-profile"));
        browser = chromium.driver;
        browser.manage().timeouts().scriptTimeout(ConsoleBrowser.WAIT);
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

    /** Each test starts logged out at 1280×800, on a freshly loaded console page. */
    @BeforeEach
    void freshBrowser() {
        chromium.scriptErrors();
        browser.manage().window().setSize(new Dimension(1280, 800));
        browser.manage().deleteAllCookies();
        browser.get(appliance.consoleUri() + "/");
        chromium.visible(By.id("login-form"));
    }

    @Test
    void anAuditorSeesEveryPage_withoutAControlItCannotUseOrASecret_andIsRefusedAChangeSentFromThePage()
            throws IOException {
        chromium.logIn(auditorKey, auditorSecret);
        chromium.visible(By.id("drives-online"));
        shown(List.of());
        assertThat(browser.findElement(By.id("who")).getText()).isEqualTo("Signed in as auditor-one");
        assertThat(browser.findElement(By.cssSelector("#nav a[data-route=veeam]"))
                        .isDisplayed())
                .isFalse();

        // every page in the nav, as it is (a page added later is visited too), then a bucket's and a user's page
        List<String> routes = new ArrayList<>();
        for (WebElement link : browser.findElements(By.cssSelector("#nav a"))) {
            if (link.isDisplayed()) {
                routes.add(link.getAttribute("data-route"));
            }
        }
        assertThat(routes).contains("dashboard", "buckets", "users", "groups", "policies", "tokens", "settings");
        for (String route : routes) {
            if (!route.equals("dashboard")) {
                List<WebElement> before = browser.findElements(By.cssSelector("main h1"));
                browser.findElement(By.cssSelector("#nav a[data-route=" + route + "]"))
                        .click();
                shown(before);
            }
            readOnlyAndNoSecret(route);
        }
        go("#/buckets/" + BUCKET);
        textIs(By.id("bucket-name"), BUCKET);
        readOnlyAndNoSecret("bucket");
        // the lifecycle rules and the bucket policy are there to read, not to change
        WebElement ruleId = browser.findElement(By.cssSelector("#lifecycle-form input[id$='-id']"));
        assertThat(ruleId.getAttribute("value")).isEqualTo("expire-logs");
        assertThat(ruleId.isEnabled()).isFalse();
        WebElement policy = browser.findElement(By.id("policy-document"));
        assertThat(policy.getAttribute("value")).contains("NoBucketDelete");
        assertThat(policy.getAttribute("readonly")).isNotNull();
        assertThat(browser.findElements(By.id("delete-form"))).isEmpty();
        go("#/users/other-user");
        textIs(By.id("user-name"), "other-user");
        readOnlyAndNoSecret("user");
        assertThat(browser.findElement(By.id("keys-table")).getText()).doesNotContain(userSecret);
        // the creation pages, reached by their address: no form
        go("#/new-bucket");
        readOnlyAndNoSecret("new-bucket");
        assertThat(browser.findElements(By.id("new-bucket-form"))).isEmpty();
        go("#/veeam");
        readOnlyAndNoSecret("veeam");
        assertThat(browser.findElements(By.id("veeam-form"))).isEmpty();

        // the session reads; without its CSRF token a change is refused before it is authorized...
        assertThat(fromPage("GET", "/api/v1/admin/buckets", null, false)).startsWith("200 ");
        assertThat(fromPage("POST", "/api/v1/admin/buckets", "{\"name\":\"auditor-made\"}", false))
                .startsWith("403 ")
                .contains("InvalidCsrfToken");
        // ...and with it, each change the pages could send is refused by the appliance's policies
        String[][] changes = {
            {"POST", "/api/v1/admin/buckets", "{\"name\":\"auditor-made\"}"},
            {"PUT", "/api/v1/admin/buckets/" + BUCKET + "/versioning", "{\"status\":\"Suspended\"}"},
            {"PUT", "/api/v1/admin/buckets/" + BUCKET + "/lifecycle", "{\"rules\":[]}"},
            {"DELETE", "/api/v1/admin/buckets/" + BUCKET + "/policy", null},
            {"DELETE", "/api/v1/admin/buckets/" + BUCKET, null},
            {"POST", "/api/v1/admin/iam/users", "{\"name\":\"auditor-made\"}"},
            {"POST", "/api/v1/admin/iam/users/other-user/keys", null},
            {"PUT", "/api/v1/admin/iam/users/other-user/enabled", "{\"enabled\":false}"},
            {"POST", "/api/v1/admin/iam/users/auditor-one/policies", "{\"policyArn\":\"arn:aws:iam::aws:policy/admin\"}"
            },
            {"POST", "/api/v1/admin/iam/groups", "{\"name\":\"auditor-made\"}"},
            {"PUT", "/api/v1/admin/iam/policies/" + POLICY, "{\"document\":" + quoted(POLICY_DOCUMENT) + "}"},
            {"DELETE", "/api/v1/admin/iam/policies/" + POLICY, null},
            {"POST", "/api/v1/admin/tokens", "{\"name\":\"mine\",\"policyArns\":[\"arn:aws:iam::aws:policy/admin\"]}"},
            {"DELETE", "/api/v1/admin/tokens/" + tokenId, null},
            {"POST", "/api/v1/admin/alerts/any/ack", null},
        };
        for (String[] change : changes) {
            assertThat(fromPage(change[0], change[1], change[2], true))
                    .as(change[0] + " " + change[1])
                    .startsWith("403 ")
                    .contains("AccessDenied");
        }
        // nothing changed
        assertThat(admin.call("GET", "/api/v1/admin/buckets", null).body()).doesNotContain("auditor-made");
        assertThat(ok(admin.call("GET", "/api/v1/admin/buckets/" + BUCKET + "/versioning", null))
                        .get("status")
                        .asText())
                .isEqualTo("Enabled");
        assertThat(ok(admin.call("GET", "/api/v1/admin/buckets/" + BUCKET + "/policy", null))
                        .get("document")
                        .asText())
                .contains("NoBucketDelete");
        assertThat(admin.call("GET", "/api/v1/admin/iam/users", null).body()).doesNotContain("auditor-made");
        assertThat(ok(admin.call("GET", "/api/v1/admin/iam/users/other-user/keys", null)))
                .hasSize(1);
        assertThat(admin.call("GET", "/api/v1/admin/tokens", null).body()).contains(tokenId);
        assertThat(policyDocument()).isEqualTo(POLICY_DOCUMENT);
    }

    @Test
    void anAdminSeesTheControls_andEditsACustomerPolicyInPlace_aMistakeShownWithItsLine() throws IOException {
        chromium.logIn(ROOT, SECRET);
        chromium.visible(By.id("drives-online"));
        assertThat(browser.findElement(By.cssSelector("#nav a[data-route=veeam]"))
                        .isDisplayed())
                .isTrue();
        go("#/buckets");
        chromium.visible(By.id("buckets-new"));
        chromium.visible(By.id("buckets-veeam"));
        go("#/buckets/" + BUCKET);
        chromium.visible(By.id("versioning-form-save"));
        chromium.visible(By.id("lifecycle-form-save"));
        chromium.visible(By.id("delete-form"));
        assertThat(browser.findElements(By.cssSelector("form[data-read-only]"))).isEmpty();

        go("#/policies");
        chromium.visible(By.id("new-policy-form"));
        // built-in policies have no controls; a customer policy has Edit and Delete
        assertThat(browser.findElements(By.cssSelector("#builtin-policies button")))
                .isEmpty();
        browser.findElement(By.id("edit-policy-" + POLICY + "-open")).click();
        WebElement editor = chromium.visible(By.id("edit-policy-" + POLICY));
        assertThat(editor.getAttribute("value")).contains("\"s3:GetObject\"");
        String edited = "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n"
                + "    {\"Effect\": \"Allow\", \"Action\": [\"s3:GetObject\", \"s3:ListBucket\"]"
                + " \"Resource\": \"*\"}\n  ]\n}";
        editor.clear();
        editor.sendKeys(edited);
        browser.findElement(By.id("edit-policy-" + POLICY + "-save")).click();
        WebElement error = chromium.visible(By.id("edit-policy-" + POLICY + "-error"));
        assertThat(error.getText()).startsWith("Line 4, column ").contains("not valid JSON");
        assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("edit-policy-" + POLICY);
        chromium.screenshot("policy-edit-invalid-json");
        assertThat(policyDocument()).isEqualTo(POLICY_DOCUMENT);

        // valid JSON the appliance's policy parser refuses: its message in the same place, nothing changed
        String fixed = edited.replace("] \"Resource\"", "], \"Resource\"");
        editor.clear();
        editor.sendKeys(fixed.replace("\"Allow\",", "\"Perhaps\","));
        browser.findElement(By.id("edit-policy-" + POLICY + "-save")).click();
        ConsoleBrowser.waitOn(browser)
                .until(ExpectedConditions.textToBePresentInElementLocated(
                        By.id("edit-policy-" + POLICY + "-error"), "expected \"Allow\" or \"Deny\""));
        assertThat(policyDocument()).isEqualTo(POLICY_DOCUMENT);
        // the refusal the page shows is the one failed request the browser logged
        assertThat(chromium.scriptErrors())
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("/api/v1/admin/iam/policies/" + POLICY, "status of 400");

        editor.clear();
        editor.sendKeys(fixed);
        browser.findElement(By.id("edit-policy-" + POLICY + "-save")).click();
        chromium.textIs(By.id("policies-notice"), "Policy " + POLICY + " saved.");
        assertThat(policyDocument()).isEqualTo(fixed);
        browser.findElement(By.cssSelector("details[data-document='" + POLICY + "'] summary"))
                .click();
        assertThat(browser.findElement(By.cssSelector("details[data-document='" + POLICY + "'] pre"))
                        .getText())
                .contains("s3:ListBucket");
        chromium.screenshot("policy-edited");
    }

    @Test
    void atALaptopsAndATabletsSize_thePagesFit_fieldsAreLabelled_andTheFirstTabSkipsToContent() throws IOException {
        chromium.logIn(ROOT, SECRET);
        chromium.visible(By.id("drives-online"));
        String[] pages = {
            "#/dashboard",
            "#/buckets",
            "#/buckets/" + BUCKET,
            "#/new-bucket",
            "#/veeam",
            "#/drives",
            "#/alerts",
            "#/users",
            "#/users/other-user",
            "#/groups",
            "#/policies",
            "#/tokens",
            "#/audit",
            "#/checks",
            "#/settings",
        };
        for (Dimension size : List.of(new Dimension(1280, 800), new Dimension(768, 1024))) {
            browser.manage().window().setSize(size);
            String prefix = size.getWidth() < 1000 ? "tablet-" : "laptop-";
            for (String page : pages) {
                go(page);
                String where = page + " at " + size.getWidth() + "x" + size.getHeight();
                JavascriptExecutor js = (JavascriptExecutor) browser;
                assertThat((Boolean) js.executeScript(
                                "const d = document.documentElement;" + " return d.scrollWidth <= d.clientWidth;"))
                        .as(where + ": the page is wider than the window")
                        .isTrue();
                assertThat(unlabelled()).as(where + ": fields without a label").isEmpty();
                assertThat(nameless()).as(where + ": buttons without a name").isEmpty();
                if (page.equals("#/dashboard")) {
                    chromium.screenshot(prefix + "dashboard");
                }
            }
            go("#/buckets");
            chromium.screenshot(prefix + "buckets");

            // a fresh load: the first Tab lands on "Skip to content", the next on the nav; the skip link moves focus
            // to the page's content and keeps the page
            browser.navigate().refresh();
            shown(List.of());
            Actions keys = new Actions(browser);
            keys.sendKeys(Keys.TAB).perform();
            WebElement first = browser.switchTo().activeElement();
            assertThat(first.getAttribute("class")).isEqualTo("skip-link");
            assertThat(first.isDisplayed()).isTrue();
            keys.sendKeys(Keys.TAB).perform();
            assertThat(browser.switchTo().activeElement().getAttribute("data-route"))
                    .isEqualTo("dashboard");
            keys.keyDown(Keys.SHIFT).sendKeys(Keys.TAB).keyUp(Keys.SHIFT).perform();
            keys.sendKeys(Keys.ENTER).perform();
            assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("main");
            assertThat((String) ((JavascriptExecutor) browser).executeScript("return location.hash"))
                    .isEqualTo("#/buckets");
        }
    }

    /**
     * The page in main shows no error, no control the auditor cannot use (only buttons that change nothing, no form
     * but the audit filter and read-only ones) and none of the secrets; its screenshot.
     */
    private static void readOnlyAndNoSecret(String page) throws IOException {
        WebElement main = browser.findElement(By.id("main"));
        assertThat(main.findElements(By.cssSelector(".message.error")).stream()
                        .map(WebElement::getText)
                        .filter(t -> !t.isBlank())
                        .toList())
                .as(page + ": errors shown")
                .isEmpty();
        assertThat(main.getText()).as(page).doesNotContain("Your policies do not allow");
        @SuppressWarnings("unchecked")
        List<String> controls = (List<String>) ((JavascriptExecutor) browser).executeScript("""
                        const main = document.getElementById('main');
                        const found = [];
                        for (const b of main.querySelectorAll('button, input[type=submit], input[type=button]')) {
                          if (!arguments[0].includes(b.textContent.trim())) found.push('button ' + (b.id || b.textContent.trim()));
                        }
                        for (const f of main.querySelectorAll('form')) {
                          if (f.id !== 'audit-filter' && f.dataset.readOnly !== 'true') found.push('form ' + f.id);
                        }
                        for (const c of main.querySelectorAll('form[data-read-only] :is(input, select, textarea)')) {
                          if (!c.disabled && !c.readOnly) found.push('editable ' + c.id);
                        }
                        for (const e of main.querySelectorAll('[data-needs]')) found.push('data-needs ' + (e.id || e.tagName));
                        for (const e of document.querySelectorAll('#shell-header [data-needs]')) {
                          if (!e.hidden) found.push('nav ' + e.textContent.trim());
                        }
                        return found;
                        """, READ_BUTTONS);
        assertThat(controls).as(page + ": controls the auditor cannot use").isEmpty();
        String everything = (String) ((JavascriptExecutor) browser)
                .executeScript("return document.documentElement.outerHTML + [...document.querySelectorAll("
                        + "'input, textarea, select')].map(e => e.value).join('\\n');");
        for (String secret : List.of(SECRET, auditorSecret, userSecret, tokenSecret)) {
            assertThat(everything).as(page + " shows a secret").doesNotContain(secret);
        }
        chromium.screenshot("auditor-" + page);
    }

    /** Sends a request from the page with its session, the CSRF token echoed when {@code withToken}: "status body". */
    private static String fromPage(String method, String path, String body, boolean withToken) {
        return (String) ((JavascriptExecutor) browser).executeAsyncScript("""
                        const [method, path, body, withToken, done] = arguments;
                        (async () => {
                          const headers = {'Content-Type': 'application/json'};
                          if (withToken) {
                            const pair = document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN='));
                            headers['X-XSRF-TOKEN'] = pair ? decodeURIComponent(pair.slice('XSRF-TOKEN='.length))
                              : (await (await fetch('/api/v1/session/csrf', {credentials: 'same-origin'})).json()).token;
                          }
                          const answer = await fetch(path, {method, headers, credentials: 'same-origin',
                            body: body === null ? undefined : body});
                          return answer.status + ' ' + await answer.text();
                        })().then(done, e => done('failed ' + e));
                        """, method, path, body, withToken);
    }

    /** The ids of inputs, selects and textareas in main with no label, aria-label or aria-labelledby. */
    @SuppressWarnings("unchecked")
    private static List<String> unlabelled() {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("""
                        return [...document.querySelectorAll('main :is(input, select, textarea)')]
                          .filter(e => e.type !== 'hidden' && e.labels.length === 0
                            && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
                          .map(e => e.id || e.name || e.outerHTML);
                        """);
    }

    /** The buttons on the page with no text, aria-label or aria-labelledby. */
    @SuppressWarnings("unchecked")
    private static List<String> nameless() {
        return (List<String>) ((JavascriptExecutor) browser).executeScript("""
                        return [...document.querySelectorAll('button')]
                          .filter(b => !b.textContent.trim() && !b.getAttribute('aria-label')
                            && !b.getAttribute('aria-labelledby'))
                          .map(b => b.id || b.outerHTML);
                        """);
    }

    /** Goes to {@code hash} in the console and waits for its page (already there: waits for it to be shown). */
    private static void go(String hash) {
        JavascriptExecutor js = (JavascriptExecutor) browser;
        List<WebElement> before = hash.equals(js.executeScript("return location.hash;"))
                ? List.of()
                : browser.findElements(By.cssSelector("main h1"));
        js.executeScript("location.hash = arguments[0];", hash);
        shown(before);
    }

    /** Waits until the page that was showing {@code before} (its h1) is replaced by a page that is done loading. */
    private static void shown(List<WebElement> before) {
        ConsoleBrowser.waitOn(browser).until(b -> {
            if (!before.isEmpty()
                    && !ExpectedConditions.stalenessOf(before.get(0)).apply(b)) {
                return false;
            }
            List<WebElement> h1 = b.findElements(By.cssSelector("main h1"));
            return !h1.isEmpty() && !b.findElement(By.id("main")).getText().contains("Loading");
        });
    }

    private static void textIs(By by, String text) {
        chromium.textIs(by, text);
    }

    private static String policyDocument() {
        for (JsonNode p : ok(admin.call("GET", "/api/v1/admin/iam/policies", null))) {
            if (p.get("name").asText().equals(POLICY)) {
                return p.get("document").asText();
            }
        }
        throw new AssertionError("no policy " + POLICY);
    }

    private static JsonNode ok(AdminApi.Answer answer) {
        assertThat(answer.status()).as(answer.body()).isBetween(200, 204);
        return answer.body().isEmpty() ? null : answer.json();
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private static String json(String name, String value) {
        return "{\"" + name + "\":" + quoted(value) + "}";
    }
}
