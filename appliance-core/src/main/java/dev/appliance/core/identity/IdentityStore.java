package dev.appliance.core.identity;

import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Users, access keys, groups and customer managed policies, kept with no database: one versioned document of the
 * whole state on every drive ({@code .appliance.sys/identity/identity.bin}, docs/formats/identity.md), resolved by
 * quorum as bucket records are (docs/decisions/identity-secrets-at-rest.md).
 *
 * <p><b>Writes.</b> Mutations are serialized store-wide (an admin path, not a hot one): each works on a copy of the
 * state, writes the whole document with a generation above every one seen (at least the wall-clock milliseconds) to
 * every drive in service, fsynced, and is acknowledged, and only then published, once on a majority of all drives;
 * otherwise it fails with {@link StorageException} {@code WRITE_QUORUM} and the state served stays the old one. With
 * fewer drives in service than a majority nothing is written at all.
 *
 * <p><b>Reads.</b> Lookups (by access key id, by user name, listings) read the published state, which is never
 * changed again: no lock, a consistent snapshot.
 *
 * <p><b>Load and repair.</b> Every drive is read; damaged copies (checksum, header, JSON) are dropped; the highest
 * generation wins, ties going to the content most drives hold. A read quorum meets every majority, so the last
 * acknowledged state is always among the copies read. A deleted user, key, group or policy is absent from every newer
 * document, so a drive that was away during the delete holds an older generation, loses, and is overwritten by {@link
 * #repair}: the whole-state document is its own tombstone. Repair rewrites missing, damaged and stale copies, and
 * overtakes a newer failed write (one that reached less than a majority) with the served state at a higher generation.
 *
 * <p><b>Secrets.</b> Access-key secrets are sealed with AES-256-GCM under the identity key given by the caller (a
 * fresh 96-bit nonce per secret, the key id and user id bound as associated data); a key check in the document tells a
 * wrong key apart from damage. Without a key, or with the wrong one, the store is unavailable: every call but
 * {@link #credential} (which then finds nothing) fails with {@link IdentityException.Kind#SERVICE_FAILURE}, and
 * nothing on the drives is touched.
 *
 * <p><b>Admin tokens.</b> Bearer tokens for scripts ({@link #createAdminToken}) are part of the same document, so a
 * revocation is acknowledged on a majority and a drive that missed it loses to the newer generation like any delete.
 * Only the SHA-256 of a token's secret is kept; {@link #resolveAdminToken} hashes what is presented and looks the
 * digest up in the published state (no lock), then checks the expiry against this store's clock.
 *
 * <p><b>Root credential on S3.</b> {@link #rootS3Enabled} is a switch in the same document. Turning it off needs
 * another enabled admin user with an active key, so S3 keeps an administrator; the console keeps accepting the root
 * credential whatever the switch says (the recovery path).
 */
public final class IdentityStore {
    private static final Logger LOG = Logger.getLogger(IdentityStore.class.getName());

    /** IAM's limit of access keys per user. */
    public static final int MAX_ACCESS_KEYS_PER_USER = 2;
    /** IAM's default limit of managed policies attached to one user or group. */
    public static final int MAX_ATTACHED_POLICIES = 10;
    /** IAM's limit of groups one user is a member of. */
    public static final int MAX_GROUPS_PER_USER = 10;
    /** IAM's size limit of a managed policy document (applied here to inline documents too, each on its own). */
    public static final int MAX_POLICY_DOCUMENT_CHARS = 6_144;
    /** Admin tokens one owner (a user, or root) may hold at a time, expired ones not counted. */
    public static final int MAX_ADMIN_TOKENS_PER_OWNER = 20;
    /** The longest an admin token may live: scripts get a new one at least yearly. */
    public static final Duration MAX_ADMIN_TOKEN_LIFETIME = Duration.ofDays(365);

    static final String DIR = "identity";
    static final String FILE = "identity.bin";
    /** Stands for a copy that was there but damaged: counts as an answer, never as a vote. */
    private static final IdentityFile.Copy DAMAGED = new IdentityFile.Copy(-1, "damaged", new byte[0], null);

    private final List<LocalDrive> drives;
    private final DriveCalls calls;
    private final Clock clock;
    private final ReentrantLock writes = new ReentrantLock();
    private final Set<String> reservedKeyIds = ConcurrentHashMap.newKeySet();

    /** The published state; null while unavailable (no key, wrong key). */
    private volatile IdentityState state;
    /** Why the store is unavailable, or null. */
    private volatile String unavailable;

    // Guarded by writes:
    private SecretCipher cipher;
    private byte[] keyBytes;
    /** The copy on the drives that holds the served state (null: none anywhere yet). */
    private IdentityFile.Copy served;
    /** The highest generation seen or tried: the next write goes above it. */
    private long highest;
    /** Whether the load read a read quorum of drives (else writes and repair wait: they could undo what it missed). */
    private boolean settled;

    private IdentityStore(List<LocalDrive> drives, DriveCalls calls, Clock clock) {
        this.drives = List.copyOf(drives);
        this.calls = calls;
        this.clock = clock;
    }

    /**
     * Reads the identity state from {@code drives} (every drive of the deployment) and opens its secrets with {@code
     * key} (32 bytes; null: not known yet, see {@link #unlock}). A wrong key does not fail the open: the store is then
     * unavailable with a message saying so. The owner calls {@link #repair} after opening, when a drive returns and
     * periodically.
     */
    public static IdentityStore open(List<LocalDrive> drives, DriveCalls calls, Clock clock, byte[] key) {
        IdentityStore store = new IdentityStore(drives, calls, clock);
        store.writes.lock();
        try {
            store.load();
            if (key == null) {
                store.unavailable = "no identity key was given when the store was opened (StoreConfig.identityKey)";
            } else {
                store.openWith(key);
            }
        } catch (IdentityException e) {
            LOG.warning("identity state unavailable: " + e.getMessage());
        } finally {
            store.writes.unlock();
        }
        return store;
    }

    /**
     * Opens the secrets with {@code key} when it was not known at {@link #open} (the application derives it from the
     * root credential, which it reads from the drives after opening them); no-op with the key already in use. Fails
     * with {@code SERVICE_FAILURE} when the state on the drives was written with another key.
     */
    public void unlock(byte[] key) {
        new SecretCipher(key); // a key of the wrong size is refused whatever the state
        writes.lock();
        try {
            if (cipher != null && unavailable == null) {
                if (Arrays.equals(key, keyBytes)) {
                    return;
                }
                throw new IdentityException(
                        IdentityException.Kind.INVALID_INPUT,
                        "identity key: the store is already open with another key (use rekey to change it)");
            }
            openWith(key);
        } finally {
            writes.unlock();
        }
        repair();
    }

    private void openWith(byte[] key) {
        SecretCipher c = new SecretCipher(key);
        try {
            IdentityState s = served == null ? IdentityState.empty() : IdentityFile.toState(served, c);
            cipher = c;
            keyBytes = key.clone();
            state = s;
            unavailable = null;
        } catch (IdentityFile.WrongKeyException e) {
            unavailable = e.getMessage();
            throw new IdentityException(IdentityException.Kind.SERVICE_FAILURE, e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            unavailable = "the identity state (generation " + served.generation() + ") cannot be read: " + e;
            throw new IdentityException(IdentityException.Kind.SERVICE_FAILURE, unavailable, e);
        }
    }

    /**
     * Re-encrypts every secret under {@code newKey} and writes the state (root-credential rotation,
     * docs/decisions/identity-secrets-at-rest.md); from then on only {@code newKey} opens it.
     */
    public void rekey(byte[] newKey) {
        SecretCipher next = new SecretCipher(newKey);
        writes.lock();
        try {
            available();
            IdentityState s = state.copy();
            s.reseal(next);
            persist(s, next);
            cipher = next;
            keyBytes = newKey.clone();
        } finally {
            writes.unlock();
        }
    }

    /** Why the store cannot be used (no key, wrong key), or empty when it can. */
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(unavailable);
    }

    /**
     * An access key id that must never be issued to a user (the root credential's), so that a key id names one
     * principal only.
     */
    public void reserveAccessKeyId(String accessKeyId) {
        reservedKeyIds.add(accessKeyId);
    }

    /** Whether {@code accessKeyId} was reserved by {@link #reserveAccessKeyId}: the root credential's key. */
    public boolean isReservedAccessKeyId(String accessKeyId) {
        return accessKeyId != null && reservedKeyIds.contains(accessKeyId);
    }

    /** The 12-digit account id in the ARNs of customer managed policies. */
    public String accountId() {
        return available().account;
    }

    // ------------------------------------------------------------------------------------------------------ users

    public User createUser(String name) {
        return mutate((s, c) -> s.createUser(name, now()));
    }

    /** The user named {@code name} (any case); NoSuchEntity if none. */
    public User user(String name) {
        return available().userEntry(name).user();
    }

    public Optional<User> findUser(String name) {
        IdentityState s = available();
        var e = name == null ? null : s.users.get(IdentityState.key(name));
        return e == null ? Optional.empty() : Optional.of(e.user());
    }

    /** Every user, ordered by name regardless of case. */
    public List<User> users() {
        return available().users.values().stream()
                .map(IdentityState.UserEntry::user)
                .toList();
    }

    /** UpdateUser with a new name: keys and group memberships follow the user. */
    public User renameUser(String name, String newName) {
        return mutate((s, c) -> s.renameUser(name, newName));
    }

    /** A disabled user keeps everything but none of its keys authenticates. */
    public User setUserEnabled(String name, boolean enabled) {
        return mutate((s, c) -> s.setUserEnabled(name, enabled));
    }

    /** Deletes a user that has no keys, policies or group memberships left (else DeleteConflict, as IAM). */
    public void deleteUser(String name) {
        mutate((s, c) -> {
            s.deleteUser(name);
            return null;
        });
    }

    /**
     * Attaches a managed policy by ARN: {@code arn:aws:iam::<account>:policy/<name>} for a customer policy of this
     * store (NoSuchEntity if it does not exist), {@code arn:aws:iam::aws:policy/<name>} for a built-in policy of the
     * policy engine. Attaching an attached policy changes nothing.
     */
    public User attachUserPolicy(String userName, String policyArn) {
        return mutate((s, c) -> s.attachUserPolicy(userName, policyArn));
    }

    public User detachUserPolicy(String userName, String policyArn) {
        return mutate((s, c) -> s.detachUserPolicy(userName, policyArn));
    }

    /** Adds or replaces the inline policy {@code policyName} (case-sensitive, as IAM) of a user. */
    public User putUserPolicy(String userName, String policyName, String document) {
        return mutate((s, c) -> s.putUserPolicy(userName, policyName, document));
    }

    /** The document of a user's inline policy; NoSuchEntity if none. */
    public String userPolicy(String userName, String policyName) {
        String doc = user(userName).inlinePolicies().get(policyName);
        if (doc == null) {
            throw new IdentityException(
                    IdentityException.Kind.NO_SUCH_ENTITY,
                    "The user policy with name " + policyName + " cannot be found.");
        }
        return doc;
    }

    public User deleteUserPolicy(String userName, String policyName) {
        return mutate((s, c) -> s.deleteUserPolicy(userName, policyName));
    }

    /** The groups {@code userName} is a member of. */
    public List<Group> groupsForUser(String userName) {
        IdentityState s = available();
        User u = s.userEntry(userName).user();
        return s.groups.values().stream()
                .filter(g -> g.members().stream().anyMatch(m -> m.equalsIgnoreCase(u.name())))
                .toList();
    }

    // ------------------------------------------------------------------------------------------------ access keys

    /**
     * A new Active key of {@code userName}; its secret is in the answer only (LimitExceeded beyond {@link
     * #MAX_ACCESS_KEYS_PER_USER}). Rotation: create a new key, switch clients, deactivate, then delete the old one.
     */
    public NewAccessKey createAccessKey(String userName) {
        return mutate((s, c) -> s.createAccessKey(userName, now(), c, reservedKeyIds));
    }

    /** A user's keys, oldest first, without secrets. */
    public List<AccessKey> accessKeys(String userName) {
        return available().userEntry(userName).keys().stream()
                .map(IdentityState.KeyEntry::key)
                .toList();
    }

    /** Sets a key Active or Inactive; {@code userName} may be null (the key's owner is found by its id). */
    public AccessKey updateAccessKey(String userName, String accessKeyId, AccessKey.Status status) {
        java.util.Objects.requireNonNull(status, "status");
        return mutate((s, c) -> s.setAccessKeyStatus(userName, accessKeyId, status));
    }

    /** Deletes a key; {@code userName} may be null (the key's owner is found by its id). */
    public void deleteAccessKey(String userName, String accessKeyId) {
        mutate((s, c) -> {
            s.deleteAccessKey(userName, accessKeyId);
            return null;
        });
    }

    /**
     * The key {@code accessKeyId} with its secret, for request authentication: one lock-free hash lookup. Empty when
     * no user has it, and while the store is unavailable (so requests signed with user keys are refused).
     */
    public Optional<Credential> credential(String accessKeyId) {
        IdentityState s = state;
        return s == null ? Optional.empty() : Optional.ofNullable(s.credential(accessKeyId));
    }

    /** The published state as it is now (null while unavailable): a new object after every change. */
    IdentityState snapshot() {
        return state;
    }

    // ----------------------------------------------------------------------------------------------- admin tokens

    /**
     * A new admin bearer token of {@code owner} (an IAM user's name, or {@code root} for the root credential) named
     * {@code name} (unique among the owner's tokens regardless of case), scoped to {@code policyArns} (each an existing
     * customer managed policy of this account or a built-in policy), expiring at {@code expiresAt} (after now, at most
     * {@link #MAX_ADMIN_TOKEN_LIFETIME} ahead). The secret is in the answer only.
     *
     * @throws IdentityException NO_SUCH_ENTITY for an unknown owner or policy, ENTITY_ALREADY_EXISTS for a name the
     *     owner already uses, LIMIT_EXCEEDED beyond {@link #MAX_ADMIN_TOKENS_PER_OWNER}, INVALID_INPUT or
     *     VALIDATION_ERROR for an expiry or a value out of range
     */
    public NewAdminToken createAdminToken(String owner, String name, List<String> policyArns, Instant expiresAt) {
        return mutate((s, c) -> s.createAdminToken(owner, name, policyArns, expiresAt, now()));
    }

    /** Every admin token (never a secret), expired ones until the next create drops them; ordered by owner, name. */
    public List<AdminToken> adminTokens() {
        return available().adminTokens();
    }

    /** Revokes (deletes) the token {@code id}; NoSuchEntity if there is none. */
    public void revokeAdminToken(String id) {
        mutate((s, c) -> {
            s.revokeAdminToken(id);
            return null;
        });
    }

    /**
     * The token whose secret is {@code presented}, when it exists, has not expired by this store's clock and its owner
     * is root or an enabled user; empty otherwise, also for null or malformed input and while the store is unavailable.
     * One hash and one lock-free lookup in the published state; never throws.
     */
    public Optional<AdminToken> resolveAdminToken(String presented) {
        IdentityState s = state;
        if (s == null
                || presented == null
                || presented.length() != IdentityState.TOKEN_LENGTH
                || !presented.startsWith(IdentityState.TOKEN_PREFIX)) {
            return Optional.empty();
        }
        AdminToken t = s.tokenBySecret(IdentityState.tokenDigest(presented));
        return t == null || t.expiredAt(clock.instant()) ? Optional.empty() : Optional.of(t);
    }

    // ---------------------------------------------------------------------------------------------- root credential

    /**
     * Whether the root credential authenticates on the S3 endpoint (default true). Lock-free, for every request; true
     * while the store is unavailable, since no IAM user can sign in then and root is the only way in.
     */
    public boolean rootS3Enabled() {
        IdentityState s = state;
        return s == null || s.rootS3Enabled;
    }

    /**
     * Whether an enabled user with an active access key has the built-in admin policy (directly or through a group):
     * the way in that lets root be turned off for S3, and that the console nudges a first-time operator to create.
     */
    public boolean adminUserCanSignIn() {
        IdentityState s = state;
        return s != null && s.anotherAdminCanSignIn();
    }

    /**
     * Turns the root credential on or off for S3 (the console always accepts it). Turning it off is refused with
     * DELETE_CONFLICT unless another enabled user with an active access key has the built-in admin policy ({@code
     * arn:aws:iam::aws:policy/admin}) attached, directly or through a group; turning it on is always allowed.
     */
    public void setRootS3Enabled(boolean enabled) {
        mutate((s, c) -> {
            s.setRootS3Enabled(enabled);
            return null;
        });
    }

    // ----------------------------------------------------------------------------------------------------- groups

    public Group createGroup(String name) {
        return mutate((s, c) -> s.createGroup(name, now()));
    }

    public Group group(String name) {
        return available().group(name);
    }

    public List<Group> groups() {
        return List.copyOf(available().groups.values());
    }

    /** Deletes a group with no members and no policies (else DeleteConflict, as IAM). */
    public void deleteGroup(String name) {
        mutate((s, c) -> {
            s.deleteGroup(name);
            return null;
        });
    }

    public Group addUserToGroup(String groupName, String userName) {
        return mutate((s, c) -> s.addUserToGroup(groupName, userName));
    }

    public Group removeUserFromGroup(String groupName, String userName) {
        return mutate((s, c) -> s.removeUserFromGroup(groupName, userName));
    }

    /** As {@link #attachUserPolicy}, for a group. */
    public Group attachGroupPolicy(String groupName, String policyArn) {
        return mutate((s, c) -> s.attachGroupPolicy(groupName, policyArn));
    }

    public Group detachGroupPolicy(String groupName, String policyArn) {
        return mutate((s, c) -> s.detachGroupPolicy(groupName, policyArn));
    }

    public Group putGroupPolicy(String groupName, String policyName, String document) {
        return mutate((s, c) -> s.putGroupPolicy(groupName, policyName, document));
    }

    public String groupPolicy(String groupName, String policyName) {
        String doc = group(groupName).inlinePolicies().get(policyName);
        if (doc == null) {
            throw new IdentityException(
                    IdentityException.Kind.NO_SUCH_ENTITY,
                    "The group policy with name " + policyName + " cannot be found.");
        }
        return doc;
    }

    public Group deleteGroupPolicy(String groupName, String policyName) {
        return mutate((s, c) -> s.deleteGroupPolicy(groupName, policyName));
    }

    // --------------------------------------------------------------------------------------------------- policies

    /** A customer managed policy; {@code document} is kept as given (the policy engine validates it first). */
    public ManagedPolicy createPolicy(String name, String document) {
        return mutate((s, c) -> s.createPolicy(name, document, now()));
    }

    /** The customer managed policy named {@code name} (any case); NoSuchEntity if none. */
    public ManagedPolicy policy(String name) {
        return available().policy(name);
    }

    /** The customer managed policy of this account with {@code arn}; NoSuchEntity if none. */
    public ManagedPolicy policyByArn(String arn) {
        IdentityState s = available();
        String prefix = "arn:aws:iam::" + s.account + ":policy/";
        if (arn == null || !arn.startsWith(prefix)) {
            throw new IdentityException(
                    IdentityException.Kind.NO_SUCH_ENTITY, "Policy " + arn + " does not exist or is not attachable.");
        }
        return s.policy(arn.substring(prefix.length()));
    }

    public List<ManagedPolicy> policies() {
        return List.copyOf(available().policies.values());
    }

    /** Replaces the document (only the default version is kept). */
    public ManagedPolicy updatePolicy(String name, String document) {
        return mutate((s, c) -> s.updatePolicyDocument(name, document, now()));
    }

    /** How many users and groups have the managed policy {@code arn} attached (customer or built-in). */
    public int attachmentCount(String arn) {
        return available().attachmentCount(arn);
    }

    /** Deletes a policy attached to no user or group (else DeleteConflict, as IAM). */
    public void deletePolicy(String name) {
        mutate((s, c) -> {
            s.deletePolicy(name);
            return null;
        });
    }

    // --------------------------------------------------------------------------------------------------- quorum

    private Instant now() {
        return Instant.ofEpochMilli(clock.millis());
    }

    private IdentityState available() {
        IdentityState s = state;
        String why = unavailable;
        if (s == null || why != null) {
            throw new IdentityException(IdentityException.Kind.SERVICE_FAILURE, "identity state unavailable: " + why);
        }
        return s;
    }

    private interface Change<T> {
        T apply(IdentityState draft, SecretCipher cipher);
    }

    private <T> T mutate(Change<T> change) {
        writes.lock();
        try {
            IdentityState draft = available().copy();
            T result = change.apply(draft, cipher);
            persist(draft, cipher);
            return result;
        } finally {
            writes.unlock();
        }
    }

    private int writeQuorum() {
        return drives.size() / 2 + 1;
    }

    private int readQuorum() {
        return drives.size() - writeQuorum() + 1;
    }

    /** Writes {@code next} everywhere and publishes it once on a majority; the caller holds {@link #writes}. */
    private void persist(IdentityState next, SecretCipher c) {
        if (!settled) {
            settle();
            if (!settled) {
                throw new StorageException(
                        ErrorKind.READ_QUORUM,
                        "identity change: the identity state could not be read from " + readQuorum() + " of "
                                + drives.size() + " drives, so a change could undo one it did not see");
            }
        }
        long inService = drives.stream().filter(LocalDrive::isOnline).count();
        if (inService < writeQuorum()) {
            throw new StorageException(
                    ErrorKind.WRITE_QUORUM,
                    "identity change: " + inService + " of " + drives.size() + " drives in service, " + writeQuorum()
                            + " needed; nothing written");
        }
        IdentityFile.Copy copy = IdentityFile.encode(next, nextGeneration(), c);
        var outcomes = calls.onAll(drives, (pos, d) -> write(d, copy));
        DriveCalls.requireQuorum(outcomes, writeQuorum(), "identity change (generation " + copy.generation() + ")");
        served = copy;
        state = next.index();
    }

    private long nextGeneration() {
        long next = Math.max(highest + 1, clock.millis());
        highest = next;
        return next;
    }

    private static Path file(LocalDrive d) {
        return d.sysDir().resolve(DIR).resolve(FILE);
    }

    private static Void write(LocalDrive d, IdentityFile.Copy copy) throws IOException {
        d.writeDurably(file(d), copy.bytes());
        return null;
    }

    /** The copy on one drive: null when it has none, {@link #DAMAGED} when it does not verify. */
    private static IdentityFile.Copy read(LocalDrive d) throws IOException {
        d.requirePresent(); // an unmounted disk has no file either: that is no answer
        byte[] bytes = d.readOrNull(file(d));
        if (bytes == null) {
            return null;
        }
        try {
            return IdentityFile.decode(bytes);
        } catch (IOException | RuntimeException e) {
            LOG.warning("identity state " + file(d) + " is damaged, ignored (repaired from the other drives): " + e);
            return DAMAGED;
        }
    }

    /** Reads every drive and picks the winning copy; the caller holds {@link #writes}. */
    private void load() {
        List<DriveCalls.Outcome<IdentityFile.Copy>> read = calls.onAll(drives, (pos, d) -> read(d));
        int answered = 0;
        List<IdentityFile.Copy> copies = new ArrayList<>();
        for (var o : read) {
            if (o.ok()) {
                answered++;
                if (o.value() != null && o.value() != DAMAGED) {
                    copies.add(o.value());
                    highest = Math.max(highest, o.value().generation());
                }
            }
        }
        settled = answered >= readQuorum();
        if (!settled) {
            LOG.warning("identity state read from " + answered + " of " + drives.size() + " drives (" + readQuorum()
                    + " needed to be sure to see every acknowledged change): changes and repair wait until it is");
        }
        served = resolve(copies);
    }

    /** Loads again once a read quorum answers (no change was made meanwhile: they wait for it). */
    private void settle() {
        load();
        if (settled && cipher != null) {
            try {
                IdentityState s = served == null ? state : IdentityFile.toState(served, cipher);
                state = s;
            } catch (IdentityFile.WrongKeyException | IOException e) {
                unavailable = e.getMessage();
                state = null;
            }
        }
    }

    /**
     * The winning copy: the highest generation, then the content most drives hold, then the greatest digest (any
     * fixed order will do: equal generations with different content are failed writes).
     */
    private static IdentityFile.Copy resolve(List<IdentityFile.Copy> copies) {
        long top =
                copies.stream().mapToLong(IdentityFile.Copy::generation).max().orElse(-1);
        Map<String, Integer> votes = new HashMap<>();
        Map<String, IdentityFile.Copy> byDigest = new HashMap<>();
        for (IdentityFile.Copy c : copies) {
            if (c.generation() == top) {
                votes.merge(c.digest(), 1, Integer::sum);
                byDigest.putIfAbsent(c.digest(), c);
            }
        }
        String best = null;
        for (var v : votes.entrySet()) {
            if (best == null
                    || v.getValue() > votes.get(best)
                    || (v.getValue().equals(votes.get(best)) && v.getKey().compareTo(best) > 0)) {
                best = v.getKey();
            }
        }
        return best == null ? null : byDigest.get(best);
    }

    /**
     * Rewrites missing, damaged and stale copies on every drive in service, and overtakes a newer failed write with the
     * served state; returns how many copies were written. Never throws (failures are logged and left for the next
     * call): run after open, when a drive returns or is replaced, and after each scanner cycle.
     */
    public int repair() {
        writes.lock();
        try {
            if (cipher == null || unavailable != null) {
                return 0; // nothing trustworthy to write: the drives keep what they hold
            }
            if (!settled) {
                settle();
                if (!settled || unavailable != null) {
                    return 0;
                }
            }
            List<DriveCalls.Outcome<IdentityFile.Copy>> read = calls.onAll(drives, (pos, d) -> read(d));
            long newest = -1;
            for (var o : read) {
                if (o.ok() && o.value() != null) {
                    newest = Math.max(newest, o.value().generation());
                }
            }
            highest = Math.max(highest, newest);
            if (served == null && newest < 0) {
                return 0; // no state anywhere yet
            }
            if (served == null || newest > served.generation()) {
                served = IdentityFile.encode(state, nextGeneration(), cipher);
            }
            IdentityFile.Copy write = served;
            boolean[] stale = new boolean[drives.size()];
            int count = 0;
            for (int i = 0; i < drives.size(); i++) {
                var o = read.get(i);
                if (o.ok() && !write.sameAs(o.value())) {
                    stale[i] = true;
                    count++;
                }
            }
            if (count == 0) {
                return 0;
            }
            var outcomes = calls.on(drives, stale, (pos, d) -> write(d, write));
            int done = 0;
            for (int i = 0; i < drives.size(); i++) {
                if (stale[i]) {
                    if (outcomes.get(i).ok()) {
                        done++;
                    } else {
                        LOG.warning("identity state on " + drives.get(i).root() + ": repair failed: "
                                + outcomes.get(i).error());
                    }
                }
            }
            if (done > 0) {
                LOG.info("identity state (generation " + write.generation() + ") rewritten on " + done
                        + " drive(s) that held a missing, damaged or stale copy");
            }
            return done;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "identity state repair failed; tried again later", e);
            return 0;
        } finally {
            writes.unlock();
        }
    }
}
