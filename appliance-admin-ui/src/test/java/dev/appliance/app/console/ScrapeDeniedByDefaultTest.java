package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.auth.Authorizer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a configured metrics token, {@code /actuator/prometheus} answers nobody: no token, any token, or SigV4. */
class ScrapeDeniedByDefaultTest {
    @TempDir
    Path tmp;

    @Test
    void scrape_withoutConfiguredToken_isForbiddenToEveryone() throws Exception {
        try (var app = ConsoleTestAppliance.start(
                ConsoleTestAppliance.openStore(tmp, "photos", "a.txt"),
                "secret-key-1234",
                Authorizer.allowAll(),
                c -> {})) {
            for (String authorization : new String[] {null, "Bearer ", "Bearer anything", "Bearer null"}) {
                HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + app.console.port() + "/actuator/prometheus"));
                if (authorization != null) {
                    b.header("Authorization", authorization);
                }
                HttpResponse<String> r = app.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as("with %s", authorization).isEqualTo(403);
                assertThat(r.body()).doesNotContain("appliance_").doesNotContain("jvm_");
            }
            // an admin's signature does not open it either: the scrape has its own credential
            for (String method : new String[] {"GET", "HEAD"}) {
                HttpResponse<String> signed = app.signed(method, "/actuator/prometheus", null);
                assertThat(signed.statusCode()).as(method).isEqualTo(403);
                assertThat(signed.body()).doesNotContain("jvm_");
            }
        }
    }
}
