package dev.appliance.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin bearer tokens and the root credential's S3 switch on four real drives: create, list, resolve, expiry by the
 * store's clock, revoke, the limits and errors, persistence across restarts, a revocation a returning drive cannot
 * undo, and the rule that root is turned off for S3 only while another admin can sign in.
 */
class AdminTokensTest {
    private static final String ADMIN = "arn:aws:iam::aws:policy/admin";
    private static final String READ_ONLY = "arn:aws:iam::aws:policy/readonly";
    private static final String DOC = "{\"Version\":\"2012-10-17\",\"Statement\":[]}";

    @TempDir
    Path tmp;

    private final MovableClock clock = new MovableClock();
    private IdentityDrives drives;
    private IdentityStore store;

    @BeforeEach
    void format() throws IOException {
        drives = new IdentityDrives(tmp, 4);
        store = drives.open(clock, IdentityDrives.KEY);
    }

    @AfterEach
    void close() {
        drives.close();
    }

    private void restart() throws IOException {
        store = drives.open(clock, IdentityDrives.KEY);
    }

    private Instant inDays(int days) {
        return clock.instant().plus(Duration.ofDays(days));
    }

    private static void assertRefused(ThrowingCallable call, IdentityException.Kind kind, String... mentions) {
        assertThatThrownBy(call).isInstanceOfSatisfying(IdentityException.class, e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.getMessage()).contains(mentions);
        });
    }

    // ------------------------------------------------------------------------------------------------------ tokens

    @Test
    void tokens_createListResolveRevoke_andPersistAcrossRestart() throws IOException {
        store.createUser("ops");
        ManagedPolicy custom = store.createPolicy("Backups", DOC);
        NewAdminToken byUser = store.createAdminToken("OPS", "nightly", List.of(READ_ONLY, custom.arn()), inDays(30));
        NewAdminToken byRoot = store.createAdminToken("root", "deploy", List.of(ADMIN), inDays(1));

        assertThat(byUser.secret()).startsWith("apt_").hasSize(47).matches("apt_[A-Za-z0-9_-]{43}");
        assertThat(byUser.secret()).isNotEqualTo(byRoot.secret());
        assertThat(byUser.toString()).doesNotContain(byUser.secret());
        AdminToken t = byUser.token();
        assertThat(t.id()).startsWith("ATOK").hasSize(20);
        assertThat(t.owner()).isEqualTo("ops");
        assertThat(t.name()).isEqualTo("nightly");
        assertThat(t.policyArns()).containsExactly(READ_ONLY, custom.arn());
        assertThat(t.expiresAt()).isAfter(t.createdAt());
        assertThat(byRoot.token().owner()).isEqualTo(AdminToken.ROOT_OWNER);

        assertThat(store.adminTokens()).containsExactly(t, byRoot.token());
        assertThat(store.resolveAdminToken(byUser.secret())).contains(t);
        assertThat(store.resolveAdminToken(byRoot.secret())).contains(byRoot.token());

        restart();
        assertThat(store.adminTokens()).containsExactly(t, byRoot.token());
        assertThat(store.resolveAdminToken(byUser.secret())).contains(t);

        store.revokeAdminToken(t.id());
        assertThat(store.resolveAdminToken(byUser.secret())).isEmpty();
        assertThat(store.adminTokens()).containsExactly(byRoot.token());
        assertRefused(() -> store.revokeAdminToken(t.id()), IdentityException.Kind.NO_SUCH_ENTITY, t.id());
        restart();
        assertThat(store.resolveAdminToken(byUser.secret())).isEmpty();
        assertThat(store.resolveAdminToken(byRoot.secret())).contains(byRoot.token());
    }

    @Test
    void aToken_resolvesUntilItExpires_byTheStoresClock_andExpiredOnesAreDroppedAtTheNextCreate() throws IOException {
        NewAdminToken day = store.createAdminToken("root", "day", List.of(READ_ONLY), inDays(1));
        NewAdminToken week = store.createAdminToken("root", "week", List.of(READ_ONLY), inDays(7));
        clock.offset = clock.offset.plus(Duration.ofHours(23));
        assertThat(store.resolveAdminToken(day.secret())).contains(day.token());
        clock.forwardDays(1);
        assertThat(store.resolveAdminToken(day.secret())).isEmpty();
        assertThat(store.resolveAdminToken(week.secret())).contains(week.token());
        assertThat(store.adminTokens()).contains(day.token()); // listed (as expired) until the next create

        // the name of an expired token is free again
        NewAdminToken again = store.createAdminToken("root", "day", List.of(READ_ONLY), inDays(1));
        assertThat(store.adminTokens()).containsExactly(again.token(), week.token());
        assertThat(store.resolveAdminToken(day.secret())).isEmpty();
        assertThat(store.resolveAdminToken(again.secret())).contains(again.token());

        clock.forwardDays(7);
        restart();
        assertThat(store.resolveAdminToken(week.secret())).isEmpty();
    }

    @Test
    void aWrongOrMalformedSecret_resolvesToEmpty_withoutAnError() {
        NewAdminToken t = store.createAdminToken("root", "t", List.of(READ_ONLY), inDays(1));
        String secret = t.secret();
        char last = secret.charAt(secret.length() - 1);
        String oneCharOff = secret.substring(0, secret.length() - 1) + (last == 'A' ? 'B' : 'A');
        for (String presented : new String[] {
            null,
            "",
            "apt_",
            oneCharOff,
            secret + "A",
            secret.substring(0, secret.length() - 1),
            secret.toUpperCase(java.util.Locale.ROOT),
            "xpt_" + secret.substring(4),
            "Bearer " + secret,
            "apt_" + "\u00e9".repeat(43),
            "\u0000".repeat(47)
        }) {
            assertThat(store.resolveAdminToken(presented))
                    .as(String.valueOf(presented))
                    .isEmpty();
        }
        assertThat(store.resolveAdminToken(secret)).contains(t.token());
    }

    @Test
    void aTamperedSecret_resolvesToNothing_whicheverCharacterIsChanged() {
        NewAdminToken t = store.createAdminToken("root", "t", List.of(ADMIN), inDays(1));
        String secret = t.secret();
        for (int i = 0; i < secret.length(); i++) {
            char c = secret.charAt(i);
            // another character of the same alphabet, and one bit flipped
            for (char other : new char[] {c == 'A' ? 'B' : 'A', (char) (c ^ 1)}) {
                String tampered = secret.substring(0, i) + other + secret.substring(i + 1);
                assertThat(store.resolveAdminToken(tampered)).as(tampered).isEmpty();
            }
        }
        assertThat(store.resolveAdminToken(secret)).contains(t.token());
    }

    @Test
    void createAdminToken_refusesBadInput_namingTheValue() {
        store.createUser("ops");
        assertRefused(
                () -> store.createAdminToken("ghost", "t", List.of(READ_ONLY), inDays(1)),
                IdentityException.Kind.NO_SUCH_ENTITY,
                "ghost");
        Instant past = clock.instant().minusSeconds(1);
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of(READ_ONLY), past),
                IdentityException.Kind.INVALID_INPUT,
                "expiresAt",
                past.toString());
        Instant tooLate = inDays(366);
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of(READ_ONLY), tooLate),
                IdentityException.Kind.INVALID_INPUT,
                "expiresAt",
                tooLate.toString(),
                "365");
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of(READ_ONLY), null),
                IdentityException.Kind.INVALID_INPUT,
                "expiresAt");
        String unknownCustomer = "arn:aws:iam::" + store.accountId() + ":policy/Nope";
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of(READ_ONLY, unknownCustomer), inDays(1)),
                IdentityException.Kind.NO_SUCH_ENTITY,
                unknownCustomer);
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of("arn:aws:iam::aws:policy/superuser"), inDays(1)),
                IdentityException.Kind.NO_SUCH_ENTITY,
                "arn:aws:iam::aws:policy/superuser");
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of("admin"), inDays(1)),
                IdentityException.Kind.INVALID_INPUT,
                "policyArns",
                "admin");
        assertRefused(
                () -> store.createAdminToken("ops", "t", List.of(), inDays(1)),
                IdentityException.Kind.VALIDATION_ERROR,
                "policyArns");
        assertRefused(
                () -> store.createAdminToken("ops", "a b", List.of(READ_ONLY), inDays(1)),
                IdentityException.Kind.VALIDATION_ERROR,
                "name",
                "a b");
        assertThat(store.adminTokens()).isEmpty();

        store.createAdminToken("ops", "nightly", List.of(READ_ONLY), inDays(1));
        assertRefused(
                () -> store.createAdminToken("ops", "NIGHTLY", List.of(READ_ONLY), inDays(1)),
                IdentityException.Kind.ENTITY_ALREADY_EXISTS,
                "NIGHTLY",
                "ops");
        // another owner may use the same name
        store.createAdminToken("root", "nightly", List.of(READ_ONLY), inDays(1));
    }

    @Test
    void tokensPerOwner_areLimited_expiredOnesNotCounted() {
        for (int i = 0; i < IdentityStore.MAX_ADMIN_TOKENS_PER_OWNER - 1; i++) {
            store.createAdminToken("root", "t" + i, List.of(READ_ONLY), inDays(30));
        }
        store.createAdminToken("root", "short", List.of(READ_ONLY), inDays(1));
        assertRefused(
                () -> store.createAdminToken("root", "one-more", List.of(READ_ONLY), inDays(30)),
                IdentityException.Kind.LIMIT_EXCEEDED,
                "20",
                "root");
        clock.forwardDays(2);
        store.createAdminToken("root", "one-more", List.of(READ_ONLY), inDays(30));
        assertThat(store.adminTokens()).hasSize(IdentityStore.MAX_ADMIN_TOKENS_PER_OWNER);
    }

    @Test
    void aUsersTokens_followARename_stopWhileDisabled_andGoWithTheUser() throws IOException {
        store.createUser("ops");
        NewAdminToken t = store.createAdminToken("ops", "t", List.of(READ_ONLY), inDays(1));
        NewAdminToken root = store.createAdminToken("root", "t", List.of(READ_ONLY), inDays(1));

        store.renameUser("ops", "operations");
        assertThat(store.resolveAdminToken(t.secret()).orElseThrow().owner()).isEqualTo("operations");

        store.setUserEnabled("operations", false);
        assertThat(store.resolveAdminToken(t.secret())).isEmpty();
        store.setUserEnabled("operations", true);
        assertThat(store.resolveAdminToken(t.secret())).isPresent();

        store.deleteUser("operations"); // tokens do not hold a delete up: they go with the user
        assertThat(store.resolveAdminToken(t.secret())).isEmpty();
        assertThat(store.adminTokens()).containsExactly(root.token());
        // a new user of the same name does not inherit them
        store.createUser("operations");
        restart();
        assertThat(store.resolveAdminToken(t.secret())).isEmpty();
        assertThat(store.adminTokens()).containsExactly(root.token());
    }

    @Test
    void aPolicyThatIsATokensScope_isNotDeleted_untilTheTokenIsRevoked() {
        ManagedPolicy p = store.createPolicy("Scripts", DOC);
        NewAdminToken t = store.createAdminToken("root", "t", List.of(p.arn()), inDays(1));
        assertRefused(
                () -> store.deletePolicy("Scripts"), IdentityException.Kind.DELETE_CONFLICT, "Scripts", "admin token");
        store.revokeAdminToken(t.token().id());
        store.deletePolicy("Scripts");
        assertThat(store.policies()).isEmpty();
    }

    @Test
    void aRevocationWhileADriveWasAway_doesNotComeBackWithIt() throws IOException {
        NewAdminToken doomed = store.createAdminToken("root", "doomed", List.of(READ_ONLY), inDays(1));
        NewAdminToken stays = store.createAdminToken("root", "stays", List.of(READ_ONLY), inDays(1));
        byte[] stale = Files.readAllBytes(drives.identityFile(1));

        drives.takeAway(1, true);
        store.revokeAdminToken(doomed.token().id());
        drives.bringBack(1);
        assertThat(store.repair()).isEqualTo(1);
        assertThat(Files.readAllBytes(drives.identityFile(1)))
                .isNotEqualTo(stale)
                .isEqualTo(Files.readAllBytes(drives.identityFile(0)));

        // a restart that reads only the returned drive and one other still sees the revocation
        drives.takeAway(0, false);
        drives.takeAway(3, false);
        restart();
        assertThat(store.resolveAdminToken(doomed.secret())).isEmpty();
        assertThat(store.resolveAdminToken(stays.secret())).contains(stays.token());
        assertThat(store.adminTokens()).containsExactly(stays.token());
    }

    @Test
    void tokenSecrets_appearInNoFileOnAnyDrive_onlyTheirDigests() throws IOException {
        NewAdminToken t = store.createAdminToken("root", "t", List.of(READ_ONLY), inDays(1));
        int withDigest = 0;
        for (Path f : drives.allFiles()) {
            String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            assertThat(content).as(f.toString()).doesNotContain(t.secret().substring(4, 24));
            if (content.contains(IdentityState.tokenDigest(t.secret()))) {
                withDigest++;
            }
        }
        assertThat(withDigest).as("the grep sees the identity files").isEqualTo(4);
    }

    // ------------------------------------------------------------------------------------------ root credential

    @Test
    void rootS3_isDisabledOnlyWhileAnotherEnabledAdminWithAnActiveKeyExists() throws IOException {
        assertThat(store.rootS3Enabled()).isTrue();
        assertRefused(() -> store.setRootS3Enabled(false), IdentityException.Kind.DELETE_CONFLICT, ADMIN);

        // an admin without a key, a user with a key but no admin policy, an inactive key, a disabled user: not enough
        store.createUser("keyless");
        store.attachUserPolicy("keyless", ADMIN);
        store.createUser("reader");
        store.createAccessKey("reader");
        store.attachUserPolicy("reader", READ_ONLY);
        store.createUser("admin");
        store.attachUserPolicy("admin", ADMIN);
        NewAccessKey key = store.createAccessKey("admin");
        store.updateAccessKey("admin", key.key().accessKeyId(), AccessKey.Status.Inactive);
        assertRefused(() -> store.setRootS3Enabled(false), IdentityException.Kind.DELETE_CONFLICT, ADMIN);
        store.updateAccessKey("admin", key.key().accessKeyId(), AccessKey.Status.Active);
        store.setUserEnabled("admin", false);
        assertRefused(() -> store.setRootS3Enabled(false), IdentityException.Kind.DELETE_CONFLICT, ADMIN);
        assertThat(store.rootS3Enabled()).isTrue();

        store.setUserEnabled("admin", true);
        store.setRootS3Enabled(false);
        assertThat(store.rootS3Enabled()).isFalse();
        restart();
        assertThat(store.rootS3Enabled()).isFalse();

        store.setRootS3Enabled(true); // always allowed
        assertThat(store.rootS3Enabled()).isTrue();
        restart();
        assertThat(store.rootS3Enabled()).isTrue();
    }

    @Test
    void rootS3_mayBeDisabled_whenTheAdminPolicyComesThroughAGroup() {
        store.createUser("ops");
        store.createAccessKey("ops");
        store.createGroup("admins");
        store.attachGroupPolicy("admins", "arn:aws:iam::aws:policy/Admin");
        assertRefused(() -> store.setRootS3Enabled(false), IdentityException.Kind.DELETE_CONFLICT, ADMIN);
        store.addUserToGroup("admins", "ops");
        store.setRootS3Enabled(false);
        assertThat(store.rootS3Enabled()).isFalse();
    }
}
