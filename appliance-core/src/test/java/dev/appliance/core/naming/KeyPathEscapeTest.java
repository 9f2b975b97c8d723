package dev.appliance.core.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.listing.DriveWalker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine's last line against path traversal, below the HTTP layer: a key is either refused by {@link
 * ObjectKeys#validate} or maps to a directory inside its bucket's directory, whatever the key (decoded escapes, NUL,
 * backslashes, dot segments, the drive's system directory, look-alike characters). Also: bucket names that would leave
 * the drive root or reach the system directory are refused, and a listing prefix that climbs out walks nothing.
 */
class KeyPathEscapeTest {
    @TempDir
    Path tmp;

    static Stream<String> keys() {
        List<String> keys = new ArrayList<>(List.of(
                "../x",
                "a/../../x",
                "/etc/passwd",
                "/",
                "//",
                "a//b",
                ".",
                "..",
                "./x",
                "a/.",
                "a/..",
                "../",
                "a/../",
                "\0",
                "a\0b",
                "\0/../x",
                "..\\..\\x",
                "C:\\windows",
                ".appliance.sys/format.json",
                "../.appliance.sys/format.json",
                "...",
                ".../x",
                "a..b/..c",
                "\u2024\u2024/x",
                "..\uFF0Fx",
                "%2e%2e%2fx",
                "a__XLDIR__",
                "a__XLDIR__/b",
                "a/",
                "a".repeat(300),
                "abcdefghi/".repeat(103)));
        // every short combination of the characters that matter to a path
        String[] parts = {".", "..", "/", "a", "\0", "\\"};
        for (String p : parts) {
            for (String q : parts) {
                for (String r : parts) {
                    keys.add(p + q + r);
                }
            }
        }
        return keys.stream();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("keys")
    void everyKey_isRefusedOrMapsInsideItsBucket(String key) {
        LocalDrive drive = new LocalDrive(tmp.resolve("drive"));
        Path bucketDir = drive.bucketDir("bucket");
        StorageException refused = catchThrowableOfType(StorageException.class, () -> ObjectKeys.validate(key));
        if (refused != null) {
            assertThat(refused.kind()).isIn(ErrorKind.INVALID_OBJECT_NAME, ErrorKind.KEY_TOO_LONG);
            return;
        }
        Path dir = drive.objectDir("bucket", key);
        assertThat(dir.normalize()).as("normalised").isEqualTo(dir);
        assertThat(dir.normalize().startsWith(bucketDir))
                .as("%s inside %s", dir, bucketDir)
                .isTrue();
        assertThat(dir).isNotEqualTo(bucketDir);
        assertThat(drive.metaFile("bucket", key).normalize().startsWith(bucketDir))
                .isTrue();
        for (Path seg : bucketDir.relativize(dir)) {
            assertThat(seg.toString()).isNotIn(".", "..", "");
        }
    }

    @Test
    void bucketNamesThatLeaveTheDriveRoot_areRefused() {
        for (String name : List.of(
                "..",
                ".",
                "../x",
                "a/b",
                ".appliance.sys",
                "\0abc",
                "abc\0",
                "a\\b",
                "..\\..",
                "A..B",
                "abc/",
                "buckets/../..")) {
            assertThat(BucketNames.isValid(name)).as(name).isFalse();
        }
    }

    @Test
    void listingPrefixThatClimbsOut_walksNothing() throws Exception {
        Path drives = tmp.resolve("drives");
        Path bucketDir = Files.createDirectories(drives.resolve("drive").resolve("bucket"));
        // an object beside the bucket (another bucket's key) that a climbing prefix could reach
        Path other =
                Files.createDirectories(drives.resolve("drive").resolve("other").resolve("secret"));
        Files.writeString(other.resolve(LocalDrive.META_FILE), "not for this bucket");
        Files.writeString(drives.resolve("outside.txt"), "outside");
        for (String prefix : List.of("../", "../other/", "../../", "./../other/", "a/../../other/", "/", "//", "\0/")) {
            DriveWalker w = new DriveWalker(bucketDir, prefix, "", false);
            assertThat(w.hasNext()).as("prefix %s", prefix).isFalse();
            DriveWalker collapsed = new DriveWalker(bucketDir, prefix, "", true);
            assertThat(collapsed.hasNext())
                    .as("prefix %s with a delimiter", prefix)
                    .isFalse();
        }
    }
}
