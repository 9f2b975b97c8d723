package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
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
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The console's Identity pages in headless Chromium against the packaged appliance (its own, so that the users,
 * groups and tokens it counts are its own): a customer policy typed into the JSON editor is refused in the page with
 * the line of the mistake (nothing is sent), then by the appliance's policy parser, then created; a group gets it,
 * a user made on the Users page joins the group, its key is rotated on the user's page and the new key's secret, read
 * from the page, lists the bucket (the policy allows it) and is refused a write (it does not) until the built-in
 * readwrite is attached on the user's page (and again once it is detached); the old key is deleted, the new one
 * disabled and refused. The attached policy's delete is refused with the reason. An admin token
 * made on the Tokens page is used by java's HttpClient as a bearer, then revoked: 401. Waits are explicit.
 */
class ConsoleIdentityBrowserIT {
    private static final String ROOT = "identity-it-admin";
    private static final String SECRET = "identity-it-secret-" + UUID.randomUUID();
    private static final String BUCKET = "identity-data";

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
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(tmp.resolve("appliance"), ROOT, SECRET))
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

    private static void nav(String route) {
        browser.findElement(By.cssSelector("#nav a[data-route=" + route + "]")).click();
    }

    private static void waitForText(By by, String part) {
        ConsoleBrowser.waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(by, part));
    }

    private static void typePolicy(String document) {
        WebElement editor = chromium.visible(By.id("policyDocument"));
        editor.clear();
        editor.sendKeys(document);
        browser.findElement(By.id("new-policy-create")).click();
    }

    @Test
    void aGroupsPolicyGovernsAUsersKey_madeRotatedAndDisabledInTheConsole_andATokenWorksUntilRevoked()
            throws Exception {
        try (S3Client s3 = appliance.client()) {
            s3.createBucket(r -> r.bucket(BUCKET));
            s3.putObject(r -> r.bucket(BUCKET).key("a.txt"), RequestBody.fromString("a"));
        }
        browser.get(appliance.consoleUri() + "/");
        chromium.logIn(ROOT, SECRET);
        chromium.visible(By.id("drives-online"));

        // a customer policy: a JSON mistake on line 4 is shown with its line, and nothing is sent
        nav("policies");
        chromium.visible(By.cssSelector("#builtin-policies tr[data-policy=readonly] details"));
        chromium.visible(By.id("policyName")).sendKeys("list-identity-data");
        typePolicy("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n"
                + "    {\"Effect\": \"Allow\" \"Action\": \"s3:ListBucket\", \"Resource\": \"arn:aws:s3:::" + BUCKET
                + "\"}\n  ]\n}");
        WebElement documentError = chromium.visible(By.id("policyDocument-error"));
        assertThat(documentError.getText()).startsWith("Line 4, column ").contains("not valid JSON");
        assertThat(browser.findElement(By.id("policyDocument")).getAttribute("aria-invalid"))
                .isEqualTo("true");
        chromium.screenshot("policy-invalid-json");
        assertThat(browser.findElements(By.id("customer-empty"))).hasSize(1);
        // JSON, but no policy: the appliance's parser refuses it, its problem shown under the editor
        typePolicy(
                "{\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Perhaps\", \"Action\": \"s3:ListBucket\","
                        + " \"Resource\": \"arn:aws:s3:::" + BUCKET + "\"}]}");
        waitForText(By.id("policyDocument-error"), "document: ");
        // the browser logs the refused request (400); nothing else went wrong
        assertThat(chromium.scriptErrors()).singleElement().asString().contains("status of 400");
        assertThat(browser.findElements(By.id("customer-empty"))).hasSize(1);
        typePolicy(
                "{\"Version\": \"2012-10-17\", \"Statement\": [{\"Effect\": \"Allow\", \"Action\": \"s3:ListBucket\","
                        + " \"Resource\": \"arn:aws:s3:::" + BUCKET + "\"}]}");
        waitForText(By.id("policies-notice"), "Policy list-identity-data created.");
        chromium.visible(By.cssSelector("#customer-policies tr[data-policy='list-identity-data']"));

        // a group with that policy
        nav("groups");
        chromium.visible(By.id("groupName")).sendKeys("listers");
        browser.findElement(By.id("new-group-create")).click();
        chromium.visible(By.cssSelector("article[data-group=listers]"));
        new Select(browser.findElement(By.id("attach-policy-listers"))).selectByVisibleText("list-identity-data");
        browser.findElement(By.cssSelector("button[data-attach=listers]")).click();
        waitForText(By.cssSelector("article[data-group=listers] [data-col=policies]"), "list-identity-data");

        // a user without a policy of its own (the Users page makes its first key), in the group
        nav("users");
        chromium.visible(By.id("userName")).sendKeys("lister-1");
        new Select(browser.findElement(By.id("userPolicy"))).selectByValue("");
        browser.findElement(By.id("new-user-create")).click();
        String firstKey = chromium.visible(By.id("new-user-access-key")).getText();
        nav("groups");
        new Select(chromium.visible(By.id("add-member-listers"))).selectByValue("lister-1");
        browser.findElement(By.cssSelector("button[data-add-member=listers]")).click();
        chromium.visible(By.cssSelector("article[data-group=listers] li[data-member=lister-1]"));
        chromium.screenshot("groups");

        // the user's page: in the group; its key rotated, the new secret read from the page
        browser.findElement(By.cssSelector("article[data-group=listers] li[data-member=lister-1] a"))
                .click();
        chromium.textIs(By.id("user-name"), "lister-1");
        assertThat(browser.findElement(By.id("user-groups")).getText()).startsWith("listers");
        browser.findElement(By.cssSelector("button[data-rotate='" + firstKey + "']"))
                .click();
        String key = chromium.visible(By.id("new-key-access-key")).getText();
        String secret = browser.findElement(By.id("new-key-secret-key")).getText();
        assertThat(key).isNotEqualTo(firstKey);
        assertThat(browser.findElement(By.id("rotate-next")).getText()).contains(firstKey);
        chromium.screenshot("user-key-rotated");

        // the group's policy allows listing the bucket, and nothing allows a write
        try (S3Client s3 = appliance.client(key, secret, b -> {})) {
            assertThat(s3.listObjectsV2(r -> r.bucket(BUCKET)).contents())
                    .extracting(S3Object::key)
                    .containsExactly("a.txt");
            assertThatThrownBy(() -> s3.putObject(r -> r.bucket(BUCKET).key("b.txt"), RequestBody.fromString("b")))
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));

            // the rotation's second step deletes the old key
            browser.findElement(By.id("rotate-delete-old")).click();
            browser.findElement(By.id("rotate-delete-old-yes")).click();
            waitForText(By.id("user-notice"), "the old key " + firstKey + " is deleted");
            assertThat(browser.findElements(By.cssSelector("tr[data-key]"))).hasSize(1);
            // the built-in readwrite attached on the user's page allows the write; detached, it is refused again;
            // then the key is disabled and refused
            new Select(browser.findElement(By.id("attach-policy"))).selectByVisibleText("readwrite");
            browser.findElement(By.id("attach-submit")).click();
            By readwrite = By.cssSelector("#user-policies li[data-policy='arn:aws:iam::aws:policy/readwrite']");
            chromium.visible(readwrite);
            s3.putObject(r -> r.bucket(BUCKET).key("b.txt"), RequestBody.fromString("b"));
            browser.findElement(By.cssSelector("button[data-detach='arn:aws:iam::aws:policy/readwrite']"))
                    .click();
            chromium.textIs(By.id("user-policies"), "None attached directly.");
            assertThatThrownBy(() -> s3.putObject(r -> r.bucket(BUCKET).key("c.txt"), RequestBody.fromString("c")))
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));

            browser.findElement(By.cssSelector("button[data-toggle='" + key + "']"))
                    .click();
            chromium.textIs(By.cssSelector("tr[data-key='" + key + "'] td[data-col=status]"), "Inactive");
            assertThatThrownBy(() -> s3.listObjectsV2(r -> r.bucket(BUCKET)))
                    .isInstanceOfSatisfying(
                            S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(403));
        }
        chromium.screenshot("user");

        // the policy is attached to the group: its delete is refused, with the reason
        nav("policies");
        chromium.visible(By.id("delete-policy-list-identity-data")).click();
        browser.findElement(By.id("delete-policy-list-identity-data-yes")).click();
        waitForText(By.id("policies-message"), "still attached");
        chromium.visible(By.cssSelector("#customer-policies tr[data-policy='list-identity-data']"));

        // an admin token, scoped to the auditor policy, used as a bearer by a script until revoked
        nav("tokens");
        chromium.visible(By.id("tokenName")).sendKeys("it-script");
        browser.findElement(By.id("scope-auditor")).click();
        WebElement days = browser.findElement(By.id("tokenDays"));
        days.clear();
        days.sendKeys("7");
        browser.findElement(By.id("new-token-create")).click();
        String token = chromium.visible(By.id("new-token-secret")).getText();
        assertThat(token).startsWith("apt_");
        assertThat(browser.findElement(By.id("new-token-curl")).getText()).contains("Authorization: Bearer " + token);
        WebElement row = browser.findElement(By.cssSelector("tr[data-token=it-script]"));
        assertThat(row.findElement(By.cssSelector("td[data-col=scope]")).getText())
                .isEqualTo("auditor");
        assertThat(row.findElement(By.cssSelector("td[data-col=owner]")).getText())
                .isEqualTo("root");
        assertThat(row.findElement(By.cssSelector("td[data-col=expired]")).getText())
                .isEqualTo("no");
        chromium.screenshot("tokens");

        HttpClient http = HttpClient.newHttpClient();
        HttpRequest listUsers = HttpRequest.newBuilder(URI.create(appliance.consoleUri() + "/api/v1/admin/iam/users"))
                .header("Authorization", "Bearer " + token)
                .build();
        HttpResponse<String> users = http.send(listUsers, HttpResponse.BodyHandlers.ofString());
        assertThat(users.statusCode()).isEqualTo(200);
        assertThat(users.body()).contains("\"lister-1\"");

        String id = row.getAttribute("data-token-id");
        browser.findElement(By.id("revoke-" + id)).click();
        browser.findElement(By.id("revoke-" + id + "-yes")).click();
        waitForText(By.id("tokens-notice"), "Token it-script revoked.");
        assertThat(browser.findElements(By.cssSelector("tr[data-token=it-script]")))
                .isEmpty();
        assertThat(http.send(listUsers, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(401);
    }
}
