package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.testing.TestStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console's static files load for an anonymous browser (it must show the login page), under the console's
 * Content-Security-Policy, and hold no data; nothing else became public with them: the API, other paths and other
 * methods on the console's paths still need credentials.
 */
class ConsoleStaticFilesTest {
    private static final String SECRET = "root-secret-for-the-static-files-test";
    private static final String CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
            + " frame-ancestors 'none'; form-action 'self'";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 7);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.makeBucket("secret-bucket-name");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static HttpResponse<String> anonymous(String method, String path) throws Exception {
        return app.http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.console.port() + path))
                        .timeout(Duration.ofSeconds(30))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void page_andAssets_loadAnonymously_underTheCsp() throws Exception {
        for (String path : new String[] {"/", "/index.html"}) {
            HttpResponse<String> page = anonymous("GET", path);
            assertThat(page.statusCode()).as(path).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Security-Policy"))
                    .as(path)
                    .hasValue(CSP);
            assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
            assertThat(page.body()).contains("/console/app.js").contains("/console/console.css");
            // the CSP allows no inline script: the page loads its code from files only
            assertThat(page.body())
                    .doesNotContainPattern("<script(?![^>]*\\bsrc=)")
                    .doesNotContain(" onclick=");
            assertThat(page.body()).doesNotContain("secret-bucket-name");
        }
        for (String asset : new String[] {"/console/app.js", "/console/api.js", "/console/pages/login.js"}) {
            HttpResponse<String> js = anonymous("GET", asset);
            assertThat(js.statusCode()).as(asset).isEqualTo(200);
            assertThat(js.headers().firstValue("Content-Type").orElseThrow())
                    .as(asset)
                    .startsWith("text/javascript");
            assertThat(js.headers().firstValue("Content-Security-Policy"))
                    .as(asset)
                    .hasValue(CSP);
            assertThat(js.headers().firstValue("X-Content-Type-Options"))
                    .as(asset)
                    .hasValue("nosniff");
        }
        HttpResponse<String> css = anonymous("GET", "/console/console.css");
        assertThat(css.statusCode()).isEqualTo(200);
        assertThat(css.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/css");
        assertThat(anonymous("HEAD", "/console/app.js").statusCode()).isEqualTo(200);
        assertThat(anonymous("GET", "/console/no-such-file.js").statusCode()).isEqualTo(404);
    }

    @Test
    void nothingElse_becamePublic() throws Exception {
        for (String path : new String[] {
            "/api/v1/admin/buckets", "/api/v1/admin/status", "/api/v1/session", "/v3/api-docs",
                    "/swagger-ui/index.html",
            "/actuator/info", "/index.htm", "/consolex/app.js", "/Console/app.js", "/webjars/x.js"
        }) {
            assertThat(anonymous("GET", path).statusCode()).as(path).isEqualTo(401);
        }
        // only reading: any other method on the console's own paths needs credentials
        for (String method : new String[] {"POST", "PUT", "PATCH", "DELETE"}) {
            for (String path : new String[] {"/", "/index.html", "/console/app.js"}) {
                assertThat(anonymous(method, path).statusCode())
                        .as(method + " " + path)
                        .isEqualTo(401);
            }
        }
        // a path that reads differently once normalised is refused before anything decides on it
        assertThat(anonymous("GET", "/console/../api/v1/admin/buckets").statusCode())
                .isEqualTo(400);
        assertThat(anonymous("GET", "/console/%2e%2e/api/v1/admin/buckets").statusCode())
                .isEqualTo(400);
    }
}
