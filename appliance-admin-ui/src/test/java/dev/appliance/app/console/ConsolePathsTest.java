package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The one accepted spelling of a console path, rule by rule; the whole server is in ConsolePathSpellingTest. */
class ConsolePathsTest {

    @Test
    void plainPaths_andHarmlessEscapes_areAccepted_andDecoded() throws Exception {
        assertThat(ConsolePaths.canonical("/")).isEqualTo("/");
        assertThat(ConsolePaths.canonical("/api/v1/status")).isEqualTo("/api/v1/status");
        assertThat(ConsolePaths.canonical("/api/v1/admin/buckets/my.backups-2/settings"))
                .isEqualTo("/api/v1/admin/buckets/my.backups-2/settings");
        // the CLI encodes an alert id's colon; either spelling is the same id, and the decoded one is authorised
        assertThat(ConsolePaths.canonical("/api/v1/admin/alerts/VERSIONS_PER_KEY_HIGH%3Amy.backups/ack"))
                .isEqualTo("/api/v1/admin/alerts/VERSIONS_PER_KEY_HIGH:my.backups/ack");
        assertThat(ConsolePaths.canonical("/a/x%3ay")).isEqualTo("/a/x:y");
        assertThat(ConsolePaths.canonical("/a/CODE:b")).isEqualTo("/a/CODE:b");
    }

    @Test
    void everyAmbiguousSpelling_isRefused_withTheReason() {
        refused("", "start with '/'");
        refused("api/v1/status", "start with '/'");
        refused("/api/v1/admin;x=y/alerts", "path parameters");
        refused("/api/v1/status;", "path parameters");
        refused("/api/v1\\admin/alerts", "backslashes");
        refused("/api/v1/%61dmin/alerts", "'%61'");
        refused("/api/v1%2Fadmin/alerts", "'%2F'");
        refused("/api/v1%5cadmin/alerts", "'%5c'");
        refused("/api/v1/%2E%2E/admin", "'%2E'");
        refused("/api/v1/%3B/admin", "'%3B'");
        refused("/api/v1/%2561dmin", "'%25'");
        refused("/api/v1/%00", "'%00'");
        refused("/api/v1/%zz", "malformed percent escape");
        refused("/api/v1/%3", "malformed percent escape");
        refused("/api/v1/%", "malformed percent escape");
        refused("//api/v1/status", "empty path segment");
        refused("/api//v1/status", "empty path segment");
        refused("/api/v1/status/", "empty path segment");
        refused("/api/./v1/status", "'.' and '..' segments");
        refused("/api/v1/x/../status", "'.' and '..' segments");
        refused("/api/v1/status.", "segments ending in '.'");
        refused("/api/v1/status/.", "'.' and '..' segments");
        refused("/api/v1/sta tus", "space");
        refused("/api/v1/st\u00e4tus", "non-ASCII");
        refused("/api/v1/status\t", "control");
    }

    private static void refused(String raw, String reason) {
        assertThatThrownBy(() -> ConsolePaths.canonical(raw))
                .as(raw)
                .isInstanceOf(ConsolePaths.Ambiguous.class)
                .hasMessageContaining(reason);
    }
}
