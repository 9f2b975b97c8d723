package dev.appliance.core.listing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept directory listings agree with fresh reads, and a change to the directory is never missed. */
class DirectoryNamesTest {
    @TempDir
    Path tmp;

    private Path bigDir(int n) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("big"));
        for (int i = 0; i < n; i++) {
            Files.createDirectory(dir.resolve(String.format("blk%05d", i)));
        }
        return dir;
    }

    @Test
    void keptListing_agreesWithAFreshRead_andSeesEveryLaterChange() throws Exception {
        Path dir = bigDir(1500);
        // the directory was last changed two seconds before it is read: quiet, so its listing is kept
        Files.setLastModifiedTime(dir, FileTime.from(Instant.now().minusSeconds(2)));
        Clock now = Clock.systemUTC();
        String[] first = DirectoryNames.sorted(dir, now);
        assertThat(first).containsExactly(DirectoryNames.readSorted(dir));
        assertThat(DirectoryNames.sorted(dir, now)).isSameAs(first); // served from the kept listing

        Files.createDirectory(dir.resolve("blk99999"));
        String[] after = DirectoryNames.sorted(dir, now);
        assertThat(after).hasSize(1501).contains("blk99999");
        assertThat(after).containsExactly(DirectoryNames.readSorted(dir));

        Files.delete(dir.resolve("blk00007"));
        assertThat(DirectoryNames.sorted(dir, now)).doesNotContain("blk00007").hasSize(1500);
    }

    @Test
    void aDirectoryChangedJustBeforeTheRead_isNotKept() throws Exception {
        Path dir = bigDir(1200);
        Instant changed = Files.getLastModifiedTime(dir).toInstant();
        // read "at" the change: a change in the same clock tick could carry the same stamp, so nothing is kept
        Clock justAfter = Clock.fixed(changed.plusMillis(5), ZoneOffset.UTC);
        String[] first = DirectoryNames.sorted(dir, justAfter);
        String[] second = DirectoryNames.sorted(dir, justAfter);
        assertThat(second).isNotSameAs(first).containsExactly(first);
    }

    @Test
    void lowerBound_findsTheRangeOfAPrefix() {
        String[] names = {"a", "blk1", "blk10", "blk2", "c"};
        int i = DirectoryNames.lowerBound(names, "blk1");
        List<String> range = new ArrayList<>();
        for (; i < names.length && names[i].startsWith("blk1"); i++) {
            range.add(names[i]);
        }
        assertThat(range).containsExactly("blk1", "blk10");
        assertThat(DirectoryNames.lowerBound(names, "")).isZero();
        assertThat(DirectoryNames.lowerBound(names, "zzz")).isEqualTo(names.length);
    }

    @Test
    void missingDirectory_isEmpty() throws Exception {
        assertThat(DirectoryNames.sorted(tmp.resolve("nope"), Clock.systemUTC()))
                .isEmpty();
    }
}
