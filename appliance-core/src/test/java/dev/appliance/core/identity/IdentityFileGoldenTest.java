package dev.appliance.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the identity file format (docs/formats/identity.md): the committed files under {@code
 * src/test/resources/golden/identity/} must parse, open with the test key to exactly the expected state, and frame back
 * to exactly their bytes. A failure means the format changed: bump the minor (fields added) or major version (and add
 * a migration) rather than regenerating. Secrets are sealed under random nonces, so the file of the current version is
 * written once and only on explicit request, from the repository's {@code appliance-core} directory's parent:
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core test -Dtest=IdentityFileGoldenTest -Dgolden.update=true
 * </pre>
 *
 * <p>Files of earlier versions are never written again (this build writes the current minor): they must keep reading.
 */
class IdentityFileGoldenTest {
    private static final Path FILE = Path.of("src/test/resources/golden/identity/identity-1.0.bin");
    private static final Path FILE_1_1 = Path.of("src/test/resources/golden/identity/identity-1.1.bin");
    private static final String TOKEN_SECRET = "apt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");
    private static final long GENERATION = 1_764_000_000_000L;
    private static final Instant T0 = Instant.ofEpochMilli(1_764_000_000_000L);
    private static final String SECRET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0+/9";
    private static final String DOC = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\"}]}";

    /** One user with a key, an inline and two attached policies, a group with it as member, one managed policy. */
    static IdentityState expected(SecretCipher cipher) {
        String arn = "arn:aws:iam::123456789012:policy/VeeamRepository";
        User u = new User(
                "veeam",
                "AIDAAAAAAAAAAAAAAAAAA",
                "/",
                T0,
                true,
                List.of(arn, "arn:aws:iam::aws:policy/ReadOnly"),
                Map.of("inline", DOC));
        AccessKey key = new AccessKey("AKIAAAAAAAAAAAAAAAAA", "veeam", AccessKey.Status.Active, T0.plusSeconds(1));
        var sealed = cipher.seal(SECRET, SecretCipher.secretBinding(key.accessKeyId(), u.id()));
        Group g = new Group(
                "backup", "AGPAAAAAAAAAAAAAAAAAA", "/", T0.plusSeconds(2), List.of("veeam"), List.of(arn), Map.of());
        ManagedPolicy p =
                new ManagedPolicy("VeeamRepository", "ANPAAAAAAAAAAAAAAAAAA", arn, "/", DOC, T0, T0.plusSeconds(3));
        return new IdentityState(
                        "123456789012",
                        Map.of(
                                "veeam",
                                new IdentityState.UserEntry(
                                        u, List.of(new IdentityState.KeyEntry(key, SECRET, sealed)))),
                        Map.of("backup", g),
                        Map.of("veeamrepository", p))
                .index();
    }

    /** 1.1: the 1.0 state plus one admin token of the user and one of root, and the root credential off for S3. */
    static IdentityState expected11(SecretCipher cipher) {
        IdentityState s = expected(cipher);
        String digest = IdentityState.tokenDigest(TOKEN_SECRET);
        var byUser = new IdentityState.TokenEntry(
                "ATOKAAAAAAAAAAAAAAAA",
                "nightly",
                "AIDAAAAAAAAAAAAAAAAAA",
                List.of("arn:aws:iam::aws:policy/readonly"),
                T0.plusSeconds(4),
                T0.plusSeconds(86_400),
                digest);
        var byRoot = new IdentityState.TokenEntry(
                "ATOKBBBBBBBBBBBBBBBB",
                "deploy",
                IdentityState.ROOT_OWNER_ID,
                List.of("arn:aws:iam::123456789012:policy/VeeamRepository"),
                T0.plusSeconds(5),
                T0.plusSeconds(86_400),
                IdentityState.tokenDigest(TOKEN_SECRET + "x"));
        return new IdentityState(
                        s.account,
                        s.users,
                        s.groups,
                        s.policies,
                        Map.of(byUser.id(), byUser, byRoot.id(), byRoot),
                        false)
                .index();
    }

    @Test
    void theCommitted10File_opensToTheExpectedState_withNoTokensAndRootEnabled_andFramesBackToItsBytes()
            throws Exception {
        SecretCipher cipher = new SecretCipher(IdentityDrives.KEY);
        byte[] golden = Files.readAllBytes(FILE);
        IdentityFile.Copy copy = IdentityFile.decode(golden);
        assertThat(copy.generation()).isEqualTo(GENERATION);
        assertThat(IdentityFile.frame(1, 0, copy.generation(), copy.payload()).bytes())
                .isEqualTo(golden);
        IdentityState state = IdentityFile.toState(copy, cipher);
        assertSame(state, expected(cipher));
        assertThat(state.tokens).isEmpty();
        assertThat(state.rootS3Enabled).isTrue();
        assertThat(new String(golden, java.nio.charset.StandardCharsets.ISO_8859_1))
                .doesNotContain(SECRET);
    }

    @Test
    void theCommitted11File_opensToTheExpectedState_andFramesBackToItsBytes() throws Exception {
        SecretCipher cipher = new SecretCipher(IdentityDrives.KEY);
        if (UPDATE) {
            Files.createDirectories(FILE_1_1.getParent());
            Files.write(
                    FILE_1_1,
                    IdentityFile.encode(expected11(cipher), GENERATION, cipher).bytes());
        }
        byte[] golden = Files.readAllBytes(FILE_1_1);
        IdentityFile.Copy copy = IdentityFile.decode(golden);
        assertThat(copy.generation()).isEqualTo(GENERATION);
        assertThat(IdentityFile.frame(1, 1, copy.generation(), copy.payload()).bytes())
                .isEqualTo(golden);
        IdentityState state = IdentityFile.toState(copy, cipher);
        IdentityState expected = expected11(cipher);
        assertSame(state, expected);
        assertThat(state.tokens).isEqualTo(expected.tokens);
        assertThat(state.rootS3Enabled).isFalse();
        assertThat(state.tokenBySecret(IdentityState.tokenDigest(TOKEN_SECRET)))
                .isEqualTo(new AdminToken(
                        "ATOKAAAAAAAAAAAAAAAA",
                        "nightly",
                        "veeam",
                        List.of("arn:aws:iam::aws:policy/readonly"),
                        T0.plusSeconds(4),
                        T0.plusSeconds(86_400)));
        assertThat(new String(golden, java.nio.charset.StandardCharsets.ISO_8859_1))
                .doesNotContain(SECRET)
                .doesNotContain(TOKEN_SECRET);
    }

    @Test
    void encodeThenDecode_givesTheSameState() throws Exception {
        SecretCipher cipher = new SecretCipher(IdentityDrives.KEY);
        IdentityState state = expected(cipher);
        IdentityFile.Copy copy = IdentityFile.encode(state, 7, cipher);
        assertSame(IdentityFile.toState(IdentityFile.decode(copy.bytes()), cipher), state);
    }

    @Test
    void aHigherMinorVersion_isRead_andAnotherMajorVersionIsRefused() throws Exception {
        SecretCipher cipher = new SecretCipher(IdentityDrives.KEY);
        IdentityFile.Copy copy = IdentityFile.decode(Files.readAllBytes(FILE));
        copy.payload().put("aFieldOfALaterMinor", true);
        byte[] minor = IdentityFile.frame(1, 7, GENERATION, copy.payload()).bytes();
        assertSame(IdentityFile.toState(IdentityFile.decode(minor), cipher), expected(cipher));
        byte[] major = IdentityFile.frame(2, 0, GENERATION, copy.payload()).bytes();
        assertThatThrownBy(() -> IdentityFile.decode(major))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("major version 2");
    }

    @Test
    void damage_isDetected() throws IOException {
        byte[] golden = Files.readAllBytes(FILE);
        for (int at : new int[] {0, 5, 9, 17, 30, golden.length / 2, golden.length - 1}) {
            byte[] bad = golden.clone();
            bad[at] ^= 0x01;
            assertThatThrownBy(() -> IdentityFile.decode(bad)).as("byte " + at).isInstanceOf(IOException.class);
        }
        assertThatThrownBy(() -> IdentityFile.decode(java.util.Arrays.copyOf(golden, golden.length - 1)))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> IdentityFile.decode(new byte[10])).isInstanceOf(IOException.class);
    }

    private static void assertSame(IdentityState actual, IdentityState expected) {
        assertThat(actual.account).isEqualTo(expected.account);
        assertThat(actual.users.keySet()).isEqualTo(expected.users.keySet());
        actual.users.forEach((k, u) -> {
            IdentityState.UserEntry e = expected.users.get(k);
            assertThat(u.user()).isEqualTo(e.user());
            assertThat(u.keys())
                    .extracting(IdentityState.KeyEntry::key)
                    .isEqualTo(
                            e.keys().stream().map(IdentityState.KeyEntry::key).toList());
            assertThat(u.keys()).extracting(IdentityState.KeyEntry::secret).containsExactly(SECRET);
        });
        assertThat(actual.groups).isEqualTo(expected.groups);
        assertThat(actual.policies).isEqualTo(expected.policies);
        assertThat(actual.credential("AKIAAAAAAAAAAAAAAAAA").secretAccessKey()).isEqualTo(SECRET);
    }
}
