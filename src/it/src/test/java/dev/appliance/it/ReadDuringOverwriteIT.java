package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A slow GET of a multipart object on a real process, while a second client overwrites or deletes it and the
 * appliance's trash purge runs: the reader receives exactly the bytes of the version it started on.
 */
class ReadDuringOverwriteIT {
    private static final int MIB = 1024 * 1024;
    /** Larger than what socket and channel buffers take ahead of a client that stops reading. */
    private static final int FIRST_PART = 32 * MIB;

    private static final int SECOND_PART = 6 * MIB;

    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;
    private static AdminApi admin;
    private static S3Client reader;
    private static S3Client writer;
    private static byte[] original;

    @BeforeAll
    static void start() {
        // reads racing overwrites on the data path as shipped (the vectorised codec, MD5 lanes; ApplianceLaunch.Jit)
        appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                tmp.resolve("appliance"), "read-it-admin", "read-it-secret-" + UUID.randomUUID())
                        .withJit(ApplianceLaunch.Jit.PRODUCTION))
                .start();
        admin = new AdminApi(appliance, tmp);
        reader = appliance.client();
        writer = appliance.client();
        original = new byte[FIRST_PART + SECOND_PART];
        System.arraycopy(TestData.bytes(1, FIRST_PART), 0, original, 0, FIRST_PART);
        System.arraycopy(TestData.bytes(2, SECOND_PART), 0, original, FIRST_PART, SECOND_PART);
    }

    @AfterAll
    static void stop() {
        if (appliance != null) {
            appliance.stop();
        }
    }

    /** Uploads {@link #original} in two parts; returns the version id. */
    private static String putMultipart(String bucket, String key) {
        String id = writer.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        int[][] ranges = {{0, FIRST_PART}, {FIRST_PART, SECOND_PART}};
        for (int i = 0; i < ranges.length; i++) {
            int number = i + 1;
            var up = writer.uploadPart(
                    b -> b.bucket(bucket).key(key).uploadId(id).partNumber(number),
                    RequestBody.fromBytes(
                            java.util.Arrays.copyOfRange(original, ranges[i][0], ranges[i][0] + ranges[i][1])));
            parts.add(CompletedPart.builder()
                    .partNumber(number)
                    .eTag(up.eTag())
                    .checksumCRC32(up.checksumCRC32())
                    .build());
        }
        return writer.completeMultipartUpload(b -> b.bucket(bucket)
                        .key(key)
                        .uploadId(id)
                        .multipartUpload(
                                CompletedMultipartUpload.builder().parts(parts).build()))
                .versionId();
    }

    /**
     * Waits until the appliance purged trash on every drive after this call: a probe file put into each drive's trash
     * is gone once a purge round ran there.
     */
    private static void awaitTrashPurge() throws Exception {
        List<Path> probes = new ArrayList<>();
        for (Path drive : appliance.drives()) {
            probes.add(Files.createFile(
                    drive.resolve(".appliance.sys").resolve("trash").resolve("it-purge-probe-" + UUID.randomUUID())));
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (probes.stream().anyMatch(Files::exists)) {
            assertThat(System.nanoTime()).as("a trash purge within 60 s").isLessThan(deadline);
            Thread.sleep(100); // polls for the appliance's own purge (every 5 s); moves no time
        }
    }

    /** Waits until trash is empty on every drive: nothing stays pinned once the read finished. */
    private static void awaitTrashEmpty() throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (trashEntries() > 0) {
            assertThat(System.nanoTime())
                    .as("trash purged within 60 s of the read")
                    .isLessThan(deadline);
            Thread.sleep(100); // polls for the appliance's own purge (every 5 s); moves no time
        }
    }

    private static long trashEntries() throws IOException {
        long n = 0;
        for (Path drive : appliance.drives()) {
            try (var s = Files.list(drive.resolve(".appliance.sys").resolve("trash"))) {
                n += s.count();
            }
        }
        return n;
    }

    private static long healsSeen() {
        JsonNode heal = admin.status().get("heal");
        return heal.get("pending").asLong()
                + heal.get("healed").asLong()
                + heal.get("failed").asLong();
    }

    /** Takes the first MiB, runs {@code meanwhile} on the other client, waits for a trash purge, takes the rest. */
    private static byte[] slowGet(InputStream body, Runnable meanwhile) throws Exception {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        got.write(body.readNBytes(MIB));
        meanwhile.run();
        awaitTrashPurge();
        body.transferTo(got);
        return got.toByteArray();
    }

    @Test
    void wholeGet_whileAnotherClientOverwritesTheKey_returnsTheOriginalBytes() throws Exception {
        writer.createBucket(b -> b.bucket("unversioned"));
        putMultipart("unversioned", "chain.vbk");
        long heals = healsSeen();
        byte[] replacement = TestData.bytes(3, 2 * MIB);

        byte[] got;
        try (InputStream body = reader.getObject(b -> b.bucket("unversioned").key("chain.vbk"))) {
            got = slowGet(
                    body,
                    () -> writer.putObject(
                            b -> b.bucket("unversioned").key("chain.vbk"), RequestBody.fromBytes(replacement)));
        }

        assertThat(got.length).isEqualTo(original.length);
        assertThat(TestData.md5Hex(got)).isEqualTo(TestData.md5Hex(original));
        assertThat(reader.getObjectAsBytes(b -> b.bucket("unversioned").key("chain.vbk"))
                        .asByteArray())
                .isEqualTo(replacement);
        assertThat(healsSeen()).as("heal reports").isEqualTo(heals);
        awaitTrashEmpty();
    }

    @Test
    void rangedGet_whileAnotherClientDeletesTheVersion_returnsTheOriginalRange() throws Exception {
        writer.createBucket(b -> b.bucket("versioned"));
        writer.putBucketVersioning(
                b -> b.bucket("versioned").versioningConfiguration(c -> c.status(BucketVersioningStatus.ENABLED)));
        String versionId = putMultipart("versioned", "chain.vib");
        long heals = healsSeen();
        int from = MIB + 17; // far enough from the second part that the server is still in the first
        int to = original.length - 3; // inclusive

        byte[] got;
        try (InputStream body = reader.getObject(
                b -> b.bucket("versioned").key("chain.vib").versionId(versionId).range("bytes=" + from + "-" + to))) {
            got = slowGet(
                    body,
                    () -> writer.deleteObject(
                            b -> b.bucket("versioned").key("chain.vib").versionId(versionId)));
        }

        assertThat(got.length).isEqualTo(to + 1 - from);
        assertThat(TestData.md5Hex(got))
                .isEqualTo(TestData.md5Hex(java.util.Arrays.copyOfRange(original, from, to + 1)));
        assertThat(writer.listObjectVersions(b -> b.bucket("versioned")).versions())
                .as("the version is deleted")
                .isEmpty();
        assertThat(healsSeen()).as("heal reports").isEqualTo(heals);
        awaitTrashEmpty();
    }
}
