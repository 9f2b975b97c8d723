package dev.appliance.core.alerts;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.drive.LocalDrive;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The alerts of a deployment in {@code .appliance.sys/alerts.json} on every drive (no database). A save is durable
 * (staged, forced, renamed, directory forced) and succeeds only on a majority of the drives, so a majority read at start
 * always sees the newest state; the copy with the highest revision wins.
 */
final class AlertFile {
    static final String FILE = "alerts.json";
    private static final Logger LOG = Logger.getLogger(AlertFile.class.getName());
    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** What is stored: a revision counter that grows with each save, and the alerts. */
    record Content(long revision, List<Alert> alerts) {
        Content {
            alerts = alerts == null ? List.of() : List.copyOf(alerts);
        }
    }

    private final List<LocalDrive> drives;

    AlertFile(List<LocalDrive> drives) {
        this.drives = List.copyOf(drives);
    }

    /** The newest readable copy, or an empty content when no drive has one. */
    Content load() {
        Content best = new Content(0, List.of());
        for (LocalDrive d : drives) {
            if (!d.isOnline()) {
                continue;
            }
            try {
                byte[] bytes = d.readOrNull(d.sysDir().resolve(FILE));
                if (bytes != null) {
                    Content c = JSON.readValue(bytes, Content.class);
                    if (c.revision() > best.revision()) {
                        best = c;
                    }
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(
                        Level.WARNING,
                        "alerts: unreadable copy on " + d.root() + " ignored (the other drives decide)",
                        e);
            }
        }
        return best;
    }

    /** Writes {@code content} to every online drive; fails unless a majority of all drives has it. */
    void save(Content content) throws IOException {
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(content);
        int written = 0;
        List<String> failures = new ArrayList<>();
        for (LocalDrive d : drives) {
            if (!d.isOnline()) {
                failures.add(d.root() + ": offline");
                continue;
            }
            try {
                d.writeDurably(d.sysDir().resolve(FILE), bytes);
                written++;
            } catch (IOException e) {
                failures.add(d.root() + ": " + e.getMessage());
            }
        }
        int quorum = drives.size() / 2 + 1;
        if (written < quorum) {
            throw new IOException("alerts saved on " + written + " of " + drives.size() + " drives, " + quorum
                    + " needed: " + failures);
        }
    }
}
