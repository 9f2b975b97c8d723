package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;

/** What the resource tests check of every admin answer: the status, and an error's RFC 9457 problem member by member. */
final class ProblemAssertions {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ProblemAssertions() {}

    /** Asserts {@code status}; the body as JSON, or null when empty. */
    static JsonNode ok(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return r.body().isEmpty() ? null : JSON.readTree(r.body());
    }

    /** Asserts an RFC 9457 problem with {@code status} and {@code code}, naming {@code field} (null: none). */
    static JsonNode problem(HttpResponse<String> r, int status, String code, String field) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        JsonNode p = JSON.readTree(r.body());
        assertThat(p.get("status").asInt()).isEqualTo(status);
        assertThat(p.get("code").asText()).as(r.body()).isEqualTo(code);
        assertThat(p.get("title").asText()).isEqualTo(code);
        assertThat(p.get("type").asText()).isEqualTo("urn:appliance:problem:" + code);
        assertThat(p.get("detail").asText()).isNotBlank();
        if (field == null) {
            assertThat(p.has("field")).as(r.body()).isFalse();
        } else {
            assertThat(p.path("field").asText()).as(r.body()).isEqualTo(field);
        }
        return p;
    }
}
