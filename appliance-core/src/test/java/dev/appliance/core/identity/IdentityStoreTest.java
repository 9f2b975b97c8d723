package dev.appliance.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The identity state on four real drives: CRUD, IAM's limits and errors, case-insensitive uniqueness, and the quorum
 * rules (writes refused without a write quorum and nothing changed, deletes that a returning drive cannot undo,
 * damaged and missing copies repaired, everything there after a restart).
 */
class IdentityStoreTest {
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

    private static void assertRefused(ThrowingCallable call, IdentityException.Kind kind, String... mentions) {
        assertThatThrownBy(call).isInstanceOfSatisfying(IdentityException.class, e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.getMessage()).contains(mentions);
        });
    }

    private List<byte[]> identityFiles() throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Path f = drives.identityFile(i);
            out.add(Files.exists(f) ? Files.readAllBytes(f) : null);
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------------ users

    @Test
    void users_createGetRenameDisableDelete_andNamesAreUniqueRegardlessOfCase() throws IOException {
        User alice = store.createUser("Alice");
        assertThat(alice.id()).startsWith("AIDA").hasSize(21);
        assertThat(alice.path()).isEqualTo("/");
        assertThat(alice.enabled()).isTrue();
        assertThat(alice.created()).isNotNull();
        assertThat(store.user("alice")).isEqualTo(alice);
        assertRefused(() -> store.createUser("ALICE"), IdentityException.Kind.ENTITY_ALREADY_EXISTS, "ALICE");
        store.createUser("bob");
        assertThat(store.users()).extracting(User::name).containsExactly("Alice", "bob");

        User renamed = store.renameUser("alice", "carol");
        assertThat(renamed.id()).isEqualTo(alice.id());
        assertRefused(() -> store.user("Alice"), IdentityException.Kind.NO_SUCH_ENTITY, "Alice");
        assertRefused(() -> store.renameUser("carol", "BOB"), IdentityException.Kind.ENTITY_ALREADY_EXISTS, "BOB");
        assertThat(store.renameUser("carol", "Carol").name()).isEqualTo("Carol"); // a case change of its own name
        assertThat(store.setUserEnabled("carol", false).enabled()).isFalse();

        restart();
        assertThat(store.user("CAROL").enabled()).isFalse();
        assertThat(store.user("carol").id()).isEqualTo(alice.id());
        store.deleteUser("carol");
        assertRefused(() -> store.deleteUser("carol"), IdentityException.Kind.NO_SUCH_ENTITY, "carol");
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("bob");
    }

    @Test
    void userNames_followIamRules() {
        assertThat(store.createUser("a+b=c,d.e@f_g-h").name()).isEqualTo("a+b=c,d.e@f_g-h");
        assertThat(store.createUser("x".repeat(64)).name()).hasSize(64);
        assertRefused(() -> store.createUser("x".repeat(65)), IdentityException.Kind.VALIDATION_ERROR, "x".repeat(65));
        assertRefused(() -> store.createUser("a/b"), IdentityException.Kind.VALIDATION_ERROR, "a/b");
        assertRefused(() -> store.createUser("a b"), IdentityException.Kind.VALIDATION_ERROR, "a b");
        assertRefused(() -> store.createUser("é"), IdentityException.Kind.VALIDATION_ERROR, "é");
        assertRefused(() -> store.createUser(""), IdentityException.Kind.VALIDATION_ERROR, "userName");
        assertRefused(() -> store.createUser(null), IdentityException.Kind.VALIDATION_ERROR, "userName");
    }

    @Test
    void deleteUser_thatStillHoldsKeysPoliciesOrGroups_isADeleteConflict() {
        store.createUser("u");
        NewAccessKey key = store.createAccessKey("u");
        store.putUserPolicy("u", "inline", DOC);
        ManagedPolicy p = store.createPolicy("p", DOC);
        store.attachUserPolicy("u", p.arn());
        store.createGroup("g");
        store.addUserToGroup("g", "u");
        assertRefused(
                () -> store.deleteUser("u"),
                IdentityException.Kind.DELETE_CONFLICT,
                "access key",
                "attached",
                "inline",
                "group");
        store.deleteAccessKey("u", key.key().accessKeyId());
        store.deleteUserPolicy("u", "inline");
        store.detachUserPolicy("u", p.arn());
        store.removeUserFromGroup("g", "u");
        store.deleteUser("u");
        assertThat(store.users()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------------ access keys

    @Test
    void accessKeys_createListDeactivateDelete_withIamLimitAndLookupById() throws IOException {
        store.createUser("veeam");
        NewAccessKey first = store.createAccessKey("veeam");
        NewAccessKey second = store.createAccessKey("VEEAM");
        for (NewAccessKey k : List.of(first, second)) {
            assertThat(k.key().accessKeyId()).startsWith("AKIA").hasSize(20).matches("[A-Z2-7]+");
            assertThat(k.secretAccessKey()).hasSize(40);
            assertThat(k.key().status()).isEqualTo(AccessKey.Status.Active);
            assertThat(k.key().userName()).isEqualTo("veeam");
        }
        assertThat(first.key().accessKeyId()).isNotEqualTo(second.key().accessKeyId());
        assertThat(first.toString()).doesNotContain(first.secretAccessKey());
        assertRefused(
                () -> store.createAccessKey("veeam"),
                IdentityException.Kind.LIMIT_EXCEEDED,
                "AccessKeysPerUser",
                String.valueOf(IdentityStore.MAX_ACCESS_KEYS_PER_USER));
        assertThat(store.accessKeys("veeam")).containsExactly(first.key(), second.key());

        Credential c = store.credential(first.key().accessKeyId()).orElseThrow();
        assertThat(c.secretAccessKey()).isEqualTo(first.secretAccessKey());
        assertThat(c.userName()).isEqualTo("veeam");
        assertThat(c.active()).isTrue();
        assertThat(c.toString()).doesNotContain(first.secretAccessKey());

        // rotation: the old key deactivated (kept, refused), then deleted
        store.updateAccessKey(null, first.key().accessKeyId(), AccessKey.Status.Inactive);
        assertThat(store.credential(first.key().accessKeyId()).orElseThrow().active())
                .isFalse();
        assertThat(store.credential(second.key().accessKeyId()).orElseThrow().active())
                .isTrue();
        restart();
        assertThat(store.accessKeys("veeam").getFirst().status()).isEqualTo(AccessKey.Status.Inactive);
        assertThat(store.credential(second.key().accessKeyId()).orElseThrow().secretAccessKey())
                .isEqualTo(second.secretAccessKey());
        store.deleteAccessKey("veeam", first.key().accessKeyId());
        assertThat(store.credential(first.key().accessKeyId())).isEmpty();
        assertRefused(
                () -> store.deleteAccessKey("veeam", first.key().accessKeyId()),
                IdentityException.Kind.NO_SUCH_ENTITY,
                first.key().accessKeyId());

        // a disabled user's keys do not authenticate
        store.setUserEnabled("veeam", false);
        assertThat(store.credential(second.key().accessKeyId()).orElseThrow().active())
                .isFalse();
        // a key of another user is not found under this one
        store.createUser("other");
        assertRefused(
                () -> store.updateAccessKey("other", second.key().accessKeyId(), AccessKey.Status.Inactive),
                IdentityException.Kind.NO_SUCH_ENTITY,
                second.key().accessKeyId(),
                "other");
        assertRefused(() -> AccessKey.Status.parse("active"), IdentityException.Kind.VALIDATION_ERROR, "active");
        assertRefused(() -> store.createAccessKey("nobody"), IdentityException.Kind.NO_SUCH_ENTITY, "nobody");
        assertThat(store.credential("AKIANOTAKEY000000000")).isEmpty();
    }

    @Test
    void renamedUser_keepsItsKeysAndGroups() {
        store.createUser("old");
        NewAccessKey k = store.createAccessKey("old");
        store.createGroup("g");
        store.addUserToGroup("g", "old");
        store.renameUser("old", "new");
        assertThat(store.credential(k.key().accessKeyId()).orElseThrow().userName())
                .isEqualTo("new");
        assertThat(store.accessKeys("new")).extracting(AccessKey::userName).containsExactly("new");
        assertThat(store.group("g").members()).containsExactly("new");
        assertThat(store.groupsForUser("NEW")).extracting(Group::name).containsExactly("g");
    }

    // ----------------------------------------------------------------------------------------- groups, policies

    @Test
    void groups_membersPoliciesAndDeleteRules() throws IOException {
        Group g = store.createGroup("Admins");
        assertThat(g.id()).startsWith("AGPA").hasSize(21);
        assertRefused(() -> store.createGroup("admins"), IdentityException.Kind.ENTITY_ALREADY_EXISTS, "admins");
        store.createUser("u1");
        store.createUser("u2");
        store.addUserToGroup("admins", "u1");
        store.addUserToGroup("ADMINS", "U2");
        store.addUserToGroup("admins", "u1"); // already a member: no change, as IAM
        assertRefused(() -> store.addUserToGroup("admins", "ghost"), IdentityException.Kind.NO_SUCH_ENTITY, "ghost");
        assertRefused(() -> store.addUserToGroup("nogroup", "u1"), IdentityException.Kind.NO_SUCH_ENTITY, "nogroup");
        store.putGroupPolicy("admins", "all", DOC);
        store.attachGroupPolicy("admins", "arn:aws:iam::aws:policy/AdministratorAccess");
        restart();
        Group back = store.group("admins");
        assertThat(back.members()).containsExactly("u1", "u2");
        assertThat(store.groupPolicy("admins", "all")).isEqualTo(DOC);
        assertThat(back.attachedPolicies()).containsExactly("arn:aws:iam::aws:policy/AdministratorAccess");
        assertRefused(() -> store.deleteGroup("admins"), IdentityException.Kind.DELETE_CONFLICT, "Admins", "member");
        store.removeUserFromGroup("admins", "u1");
        assertRefused(
                () -> store.removeUserFromGroup("admins", "u1"), IdentityException.Kind.NO_SUCH_ENTITY, "u1", "Admins");
        store.removeUserFromGroup("admins", "u2");
        store.deleteGroupPolicy("admins", "all");
        store.detachGroupPolicy("admins", "arn:aws:iam::aws:policy/AdministratorAccess");
        store.deleteGroup("admins");
        assertThat(store.groups()).isEmpty();
    }

    @Test
    void groupsPerUser_isLimited() {
        store.createUser("u");
        for (int i = 0; i < IdentityStore.MAX_GROUPS_PER_USER; i++) {
            store.createGroup("g" + i);
            store.addUserToGroup("g" + i, "u");
        }
        store.createGroup("one-more");
        assertRefused(
                () -> store.addUserToGroup("one-more", "u"), IdentityException.Kind.LIMIT_EXCEEDED, "GroupsPerUser");
    }

    @Test
    void managedPolicies_arnAttachDetachUpdateAndDeleteConflict() throws IOException {
        ManagedPolicy p = store.createPolicy("VeeamRepo", DOC);
        assertThat(p.arn()).isEqualTo("arn:aws:iam::" + store.accountId() + ":policy/VeeamRepo");
        assertThat(store.accountId()).matches("[0-9]{12}");
        assertThat(p.id()).startsWith("ANPA").hasSize(21);
        assertRefused(
                () -> store.createPolicy("veeamrepo", DOC), IdentityException.Kind.ENTITY_ALREADY_EXISTS, "veeamrepo");
        assertRefused(
                () -> store.createPolicy("empty", " "), IdentityException.Kind.VALIDATION_ERROR, "policyDocument");
        assertRefused(
                () -> store.createPolicy("big", "x".repeat(IdentityStore.MAX_POLICY_DOCUMENT_CHARS + 1)),
                IdentityException.Kind.LIMIT_EXCEEDED,
                String.valueOf(IdentityStore.MAX_POLICY_DOCUMENT_CHARS + 1));
        store.createUser("u");
        store.createGroup("g");
        store.attachUserPolicy("u", p.arn());
        store.attachUserPolicy("u", p.arn()); // already attached: no change, as IAM
        store.attachGroupPolicy("g", p.arn());
        assertThat(store.user("u").attachedPolicies()).containsExactly(p.arn());
        assertThat(store.attachmentCount(p.arn())).isEqualTo(2);
        String missing = "arn:aws:iam::" + store.accountId() + ":policy/Missing";
        assertRefused(() -> store.attachUserPolicy("u", missing), IdentityException.Kind.NO_SUCH_ENTITY, missing);
        assertRefused(
                () -> store.attachUserPolicy("u", "arn:aws:iam::999999999999:policy/VeeamRepo"),
                IdentityException.Kind.INVALID_INPUT,
                "999999999999");
        assertRefused(() -> store.detachUserPolicy("u", missing), IdentityException.Kind.NO_SUCH_ENTITY, missing);
        assertRefused(() -> store.deletePolicy("VeeamRepo"), IdentityException.Kind.DELETE_CONFLICT, "VeeamRepo", "2");

        clock.forwardDays(1);
        String newDoc = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Deny\"}]}";
        ManagedPolicy updated = store.updatePolicy("veeamrepo", newDoc);
        assertThat(updated.updated()).isAfter(updated.created());
        restart();
        assertThat(store.policyByArn(p.arn()).document()).isEqualTo(newDoc);
        assertThat(store.policy("VEEAMREPO").created()).isEqualTo(p.created());
        store.detachUserPolicy("u", p.arn());
        store.detachGroupPolicy("g", p.arn());
        store.deletePolicy("VeeamRepo");
        assertRefused(() -> store.policy("VeeamRepo"), IdentityException.Kind.NO_SUCH_ENTITY, "VeeamRepo");
    }

    @Test
    void attachedPoliciesPerUser_areLimited() {
        store.createUser("u");
        for (int i = 0; i < IdentityStore.MAX_ATTACHED_POLICIES; i++) {
            store.attachUserPolicy("u", "arn:aws:iam::aws:policy/P" + i);
        }
        assertRefused(
                () -> store.attachUserPolicy("u", "arn:aws:iam::aws:policy/Extra"),
                IdentityException.Kind.LIMIT_EXCEEDED,
                "PoliciesPerUserOrGroup");
        assertRefused(
                () -> store.attachUserPolicy("u", "not-an-arn"), IdentityException.Kind.INVALID_INPUT, "not-an-arn");
    }

    @Test
    void inlinePolicies_putReplaceGetDelete() {
        store.createUser("u");
        store.putUserPolicy("u", "p", DOC);
        store.putUserPolicy("u", "p", "{\"v\":2}");
        assertThat(store.userPolicy("u", "p")).isEqualTo("{\"v\":2}");
        assertRefused(() -> store.userPolicy("u", "P"), IdentityException.Kind.NO_SUCH_ENTITY, "P");
        assertRefused(() -> store.deleteUserPolicy("u", "nope"), IdentityException.Kind.NO_SUCH_ENTITY, "nope");
        store.deleteUserPolicy("u", "p");
        assertThat(store.user("u").inlinePolicies()).isEmpty();
    }

    @Test
    void lookups_withoutALock_neverSeeAHalfMadeChange() throws Exception {
        IdentityStore identity = store;
        identity.createUser("steady");
        NewAccessKey steady = identity.createAccessKey("steady");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                while (!stop.get()) {
                    Credential c =
                            identity.credential(steady.key().accessKeyId()).orElseThrow();
                    assertThat(c.secretAccessKey()).isEqualTo(steady.secretAccessKey());
                    assertThat(c.active()).isTrue();
                    // a user that exists has all of its keys indexed: user and keys are published together
                    for (User u : identity.users()) {
                        for (AccessKey k : safeKeys(identity, u)) {
                            assertThat(k.userName()).isEqualTo(u.name());
                        }
                    }
                    reads.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        for (int i = 0; i < 25; i++) {
            identity.createUser("churn" + i);
            NewAccessKey k = identity.createAccessKey("churn" + i);
            identity.updateAccessKey(null, k.key().accessKeyId(), AccessKey.Status.Inactive);
            identity.deleteAccessKey(null, k.key().accessKeyId());
            identity.deleteUser("churn" + i);
        }
        stop.set(true);
        reader.join();
        assertThat(failure.get()).isNull();
        assertThat(reads.get()).isPositive();
    }

    /** The user's keys, or none when it was deleted between two lookups (each lookup is its own snapshot). */
    private static List<AccessKey> safeKeys(IdentityStore identity, User u) {
        try {
            return identity.accessKeys(u.name());
        } catch (IdentityException gone) {
            return List.of();
        }
    }

    // --------------------------------------------------------------------------------------------------- quorum

    @Test
    void withoutAWriteQuorumInService_aChangeIsRefused_andNothingIsWritten() throws IOException {
        store.createUser("kept");
        List<byte[]> before = identityFiles();
        drives.takeAway(0, true);
        drives.takeAway(3, true);
        assertThatThrownBy(() -> store.createUser("lost"))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.WRITE_QUORUM));
        assertThatThrownBy(() -> store.createAccessKey("kept")).isInstanceOf(StorageException.class);
        assertThat(store.users()).extracting(User::name).containsExactly("kept");
        assertThat(store.accessKeys("kept")).isEmpty();
        List<byte[]> after = identityFiles();
        assertThat(after.get(1)).isEqualTo(before.get(1));
        assertThat(after.get(2)).isEqualTo(before.get(2));
        drives.bringBack(0);
        drives.bringBack(3);
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("kept");
    }

    @Test
    void aChangeThatReachesOnlyAMinority_isRefused_andOvertakenOnceTheDrivesReturn() throws IOException {
        store.createUser("kept");
        // gone but not noticed yet: the write is tried everywhere and lands on two drives of four
        drives.takeAway(0, false);
        drives.takeAway(1, false);
        assertThatThrownBy(() -> store.createUser("failed"))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.WRITE_QUORUM));
        assertThat(store.findUser("failed")).isEmpty();
        drives.bringBack(0);
        drives.bringBack(1);
        assertThat(store.repair()).isEqualTo(4); // the failed write overtaken by the served state everywhere
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("kept");
        store.createUser("next");
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("kept", "next");
    }

    @Test
    void aUserDeletedWhileADriveWasAway_doesNotComeBackWithIt() throws IOException {
        store.createUser("doomed");
        NewAccessKey key = store.createAccessKey("doomed");
        store.createUser("stays");
        byte[] stale = Files.readAllBytes(drives.identityFile(2));
        drives.takeAway(2, true);
        store.deleteAccessKey("doomed", key.key().accessKeyId());
        store.deleteUser("doomed");
        // back while stopped: the stale copy loses at load and is rewritten
        drives.bringBack(2);
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("stays");
        assertThat(store.credential(key.key().accessKeyId())).isEmpty();
        assertThat(Files.readAllBytes(drives.identityFile(2)))
                .isNotEqualTo(stale)
                .isEqualTo(Files.readAllBytes(drives.identityFile(0)));

        // back while running: repaired when it returns; a restart from only it and one other still agrees
        store.createUser("doomed2");
        drives.takeAway(1, true);
        store.deleteUser("doomed2");
        drives.bringBack(1);
        assertThat(store.repair()).isEqualTo(1);
        drives.takeAway(0, false);
        drives.takeAway(3, false);
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("stays");
    }

    @Test
    void damagedAndMissingCopies_areIgnoredAndRepaired() throws IOException {
        store.createUser("u");
        NewAccessKey k = store.createAccessKey("u");
        byte[] good = Files.readAllBytes(drives.identityFile(0));
        byte[] damaged = good.clone();
        damaged[damaged.length / 2] ^= 0x5A;
        Files.write(drives.identityFile(1), damaged);
        Files.delete(drives.identityFile(2));
        Files.write(drives.identityFile(3), new byte[] {1, 2, 3});
        restart(); // load ignores the damaged ones, repair rewrites three copies
        assertThat(store.credential(k.key().accessKeyId()).orElseThrow().secretAccessKey())
                .isEqualTo(k.secretAccessKey());
        for (int i = 1; i < 4; i++) {
            assertThat(Files.readAllBytes(drives.identityFile(i)))
                    .as("drive " + i)
                    .isEqualTo(good);
        }
        Files.write(drives.identityFile(1), damaged);
        assertThat(store.repair()).isEqualTo(1);
        assertThat(Files.readAllBytes(drives.identityFile(1))).isEqualTo(good);
        assertThat(store.repair()).isZero();
    }

    @Test
    void aNewerGenerationOnTheDrives_winsOverAnOlderOneHeldByMore() throws IOException {
        store.createUser("one");
        byte[] older = Files.readAllBytes(drives.identityFile(0));
        store.createUser("two");
        byte[] newer = Files.readAllBytes(drives.identityFile(0));
        assertThat(IdentityFile.decode(newer).generation())
                .isGreaterThan(IdentityFile.decode(older).generation());
        // an acknowledged write is on a majority (3 of 4); a read quorum (2) always includes one of them
        Files.write(drives.identityFile(0), older);
        Files.write(drives.identityFile(1), older);
        drives.takeAway(2, false);
        restart();
        assertThat(store.users()).extracting(User::name).containsExactly("one", "two");
    }

    // -------------------------------------------------------------------------------------------------- secrets

    @Test
    void secrets_appearInPlainTextInNoFileOnAnyDrive() throws IOException {
        List<String> secrets = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (String u : List.of("a", "b", "c")) {
            store.createUser(u);
            for (int i = 0; i < 2; i++) {
                NewAccessKey k = store.createAccessKey(u);
                secrets.add(k.secretAccessKey());
                ids.add(k.key().accessKeyId());
            }
        }
        store.renameUser("a", "aa"); // rewrites the document again
        restart();
        List<Path> files = drives.allFiles();
        int filesWithIds = 0;
        for (Path f : files) {
            String content = new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1);
            for (String s : secrets) {
                assertThat(content).as(f.toString()).doesNotContain(s);
                // nor a secret's first half (a partial leak, e.g. a split or escaped copy)
                assertThat(content).as(f.toString()).doesNotContain(s.substring(0, 20));
            }
            if (content.contains(ids.getFirst())) {
                filesWithIds++;
            }
        }
        assertThat(filesWithIds).as("the grep sees the identity files").isEqualTo(4);
        for (int i = 0; i < secrets.size(); i++) {
            assertThat(store.credential(ids.get(i)).orElseThrow().secretAccessKey())
                    .isEqualTo(secrets.get(i));
        }
    }

    @Test
    void theWrongKey_isAClearError_andChangesNothingOnTheDrives() throws IOException {
        store.createUser("u");
        NewAccessKey k = store.createAccessKey("u");
        List<byte[]> before = identityFiles();
        store = drives.open(clock, IdentityDrives.OTHER_KEY);
        assertThat(store.unavailableReason()).get().asString().contains("identity key");
        assertRefused(
                () -> store.users(),
                IdentityException.Kind.SERVICE_FAILURE,
                "does not open with the given identity key");
        assertRefused(() -> store.createUser("x"), IdentityException.Kind.SERVICE_FAILURE, "identity key");
        assertThat(store.credential(k.key().accessKeyId())).isEmpty();
        assertThat(store.repair()).isZero();
        assertRefused(
                () -> store.unlock(IdentityDrives.OTHER_KEY), IdentityException.Kind.SERVICE_FAILURE, "identity key");
        assertThat(identityFiles()).usingRecursiveComparison().isEqualTo(before);
        store.unlock(IdentityDrives.KEY); // the right key later (the application's path)
        assertThat(store.credential(k.key().accessKeyId()).orElseThrow().secretAccessKey())
                .isEqualTo(k.secretAccessKey());
    }

    @Test
    void aSecretMovedOntoAnotherKeysRecord_doesNotOpen() throws IOException {
        store.createUser("u");
        store.createAccessKey("u");
        store.createAccessKey("u");
        // swap the two sealed secrets inside a well-formed file (a valid checksum): the bound key id refuses it
        IdentityFile.Copy copy = IdentityFile.decode(Files.readAllBytes(drives.identityFile(0)));
        var keys = (com.fasterxml.jackson.databind.node.ArrayNode)
                copy.payload().get("users").get(0).get("accessKeys");
        var a = (com.fasterxml.jackson.databind.node.ObjectNode) keys.get(0);
        var b = (com.fasterxml.jackson.databind.node.ObjectNode) keys.get(1);
        var sealedA = a.get("sealed");
        var nonceA = a.get("nonce");
        a.set("sealed", b.get("sealed"));
        a.set("nonce", b.get("nonce"));
        b.set("sealed", sealedA);
        b.set("nonce", nonceA);
        byte[] forged =
                IdentityFile.frame(copy.generation() + 1, copy.payload()).bytes();
        for (int i = 0; i < 4; i++) {
            Files.write(drives.identityFile(i), forged);
        }
        store = drives.open(clock, IdentityDrives.KEY);
        assertRefused(() -> store.users(), IdentityException.Kind.SERVICE_FAILURE, "access key");
    }

    @Test
    void rekey_reencryptsEverySecret_andOnlyTheNewKeyOpensTheState() throws IOException {
        store.createUser("u");
        NewAccessKey k = store.createAccessKey("u");
        store.rekey(IdentityDrives.OTHER_KEY);
        store = drives.open(clock, IdentityDrives.KEY);
        assertThat(store.unavailableReason()).isPresent();
        store = drives.open(clock, IdentityDrives.OTHER_KEY);
        assertThat(store.credential(k.key().accessKeyId()).orElseThrow().secretAccessKey())
                .isEqualTo(k.secretAccessKey());
    }

    @Test
    void withoutAKey_theStoreIsUnavailable_untilUnlocked() throws IOException {
        store.createUser("u");
        store = drives.open(clock, null);
        assertRefused(() -> store.users(), IdentityException.Kind.SERVICE_FAILURE, "no identity key");
        assertThat(store.repair()).isZero();
        store.unlock(IdentityDrives.KEY);
        store.unlock(IdentityDrives.KEY); // the same key again: nothing to do
        assertRefused(
                () -> store.unlock(IdentityDrives.OTHER_KEY), IdentityException.Kind.INVALID_INPUT, "another key");
        assertThat(store.users()).extracting(User::name).containsExactly("u");
        assertThatThrownBy(() -> store.unlock(new byte[16])).isInstanceOf(IllegalArgumentException.class);
    }
}
