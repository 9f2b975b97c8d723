package dev.appliance.core.identity;

import static dev.appliance.core.identity.IdentityException.Kind.DELETE_CONFLICT;
import static dev.appliance.core.identity.IdentityException.Kind.ENTITY_ALREADY_EXISTS;
import static dev.appliance.core.identity.IdentityException.Kind.INVALID_INPUT;
import static dev.appliance.core.identity.IdentityException.Kind.LIMIT_EXCEEDED;
import static dev.appliance.core.identity.IdentityException.Kind.NO_SUCH_ENTITY;
import static dev.appliance.core.identity.IdentityException.Kind.VALIDATION_ERROR;

import dev.appliance.core.policy.BuiltinPolicies;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The whole identity state. A published state is never changed again: a mutation works on a {@link #copy()} and is
 * published (by {@link IdentityStore}) only once it is on a write quorum, so readers use whatever state they got
 * without a lock. Names are unique regardless of case, as in IAM: the maps are keyed by the lower-cased name.
 */
final class IdentityState {
    private static final Pattern NAME = Pattern.compile("[\\w+=,.@-]+");
    private static final String ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    private static final String SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    private static final SecureRandom RANDOM = new SecureRandom();
    static final String PATH = "/";

    /** One access key with its secret in plain text (memory only) and sealed (as written to the drives). */
    record KeyEntry(AccessKey key, String secret, SecretCipher.Sealed sealed) {}

    /**
     * An admin bearer token as stored: its owner by id (a user's {@code AIDA...} id, so that it follows a rename and
     * goes with a delete, or {@link #ROOT_OWNER_ID}) and the SHA-256 (hex) of its secret, never the secret.
     */
    record TokenEntry(
            String id,
            String name,
            String ownerId,
            List<String> policyArns,
            Instant created,
            Instant expires,
            String secretSha256) {
        TokenEntry {
            policyArns = List.copyOf(policyArns);
        }
    }

    /** The owner id of the root credential's tokens (user ids start with AIDA, so it names no user). */
    static final String ROOT_OWNER_ID = "root";

    static final String TOKEN_PREFIX = "apt_";
    private static final int TOKEN_SECRET_BYTES = 32;
    /** {@code apt_} and 32 bytes in unpadded base64url. */
    static final int TOKEN_LENGTH = TOKEN_PREFIX.length() + 43;

    private static final String BUILT_IN_ARN = "arn:aws:iam::aws:policy/";

    /** A user and its access keys, oldest first. */
    record UserEntry(User user, List<KeyEntry> keys) {
        UserEntry {
            keys = List.copyOf(keys);
        }
    }

    final String account;
    final TreeMap<String, UserEntry> users;
    final TreeMap<String, Group> groups;
    final TreeMap<String, ManagedPolicy> policies;
    /** Admin bearer tokens by token id. */
    final TreeMap<String, TokenEntry> tokens;
    /** Whether the root credential authenticates on the S3 endpoint (the console always takes it). */
    boolean rootS3Enabled;
    /** Every access key by id: built by {@link #index()} before the state is published. */
    private Map<String, Credential> credentials = Map.of();
    /**
     * The tokens that may resolve (owner root or an enabled user) by the SHA-256 hex of their secret, with their owner's
     * current name: built by {@link #index()}.
     */
    private Map<String, AdminToken> tokensBySecret = Map.of();

    IdentityState(
            String account,
            Map<String, UserEntry> users,
            Map<String, Group> groups,
            Map<String, ManagedPolicy> policies) {
        this(account, users, groups, policies, Map.of(), true);
    }

    IdentityState(
            String account,
            Map<String, UserEntry> users,
            Map<String, Group> groups,
            Map<String, ManagedPolicy> policies,
            Map<String, TokenEntry> tokens,
            boolean rootS3Enabled) {
        this.account = account;
        this.users = new TreeMap<>(users);
        this.groups = new TreeMap<>(groups);
        this.policies = new TreeMap<>(policies);
        this.tokens = new TreeMap<>(tokens);
        this.rootS3Enabled = rootS3Enabled;
    }

    static IdentityState empty() {
        StringBuilder account = new StringBuilder(12);
        for (int i = 0; i < 12; i++) {
            account.append((char) ('0' + RANDOM.nextInt(10)));
        }
        return new IdentityState(account.toString(), Map.of(), Map.of(), Map.of()).index();
    }

    IdentityState copy() {
        return new IdentityState(account, users, groups, policies, tokens, rootS3Enabled);
    }

    /** Builds the access key index; called once, before publishing. */
    IdentityState index() {
        Map<String, Credential> byId = new HashMap<>();
        for (UserEntry u : users.values()) {
            for (KeyEntry k : u.keys()) {
                byId.put(
                        k.key().accessKeyId(),
                        new Credential(
                                k.key().accessKeyId(),
                                k.secret(),
                                u.user().name(),
                                u.user().id(),
                                u.user().enabled() && k.key().status() == AccessKey.Status.Active));
            }
        }
        credentials = Collections.unmodifiableMap(byId);
        Map<String, AdminToken> bySecret = new HashMap<>();
        Map<String, User> usersById = usersById();
        for (TokenEntry t : tokens.values()) {
            if (t.ownerId().equals(ROOT_OWNER_ID)) {
                bySecret.put(t.secretSha256(), adminToken(t, AdminToken.ROOT_OWNER));
            } else {
                User owner = usersById.get(t.ownerId());
                if (owner != null && owner.enabled()) { // a disabled user's tokens resolve no more than its keys
                    bySecret.put(t.secretSha256(), adminToken(t, owner.name()));
                }
            }
        }
        tokensBySecret = Collections.unmodifiableMap(bySecret);
        return this;
    }

    Credential credential(String accessKeyId) {
        return accessKeyId == null ? null : credentials.get(accessKeyId);
    }

    // ------------------------------------------------------------------------------------------------- validation

    static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    static void checkName(String what, String name, int max) {
        if (name == null
                || name.isEmpty()
                || name.length() > max
                || !NAME.matcher(name).matches()) {
            throw new IdentityException(
                    VALIDATION_ERROR,
                    what + ": " + name + " (expected 1 to " + max + " characters of letters, digits and +=,.@_-)");
        }
    }

    /**
     * {@code root} (any case) names the root credential wherever the console and tokens name a caller or an owner
     * ({@link AdminToken#ROOT_OWNER}), so no IAM user may take it: a user called so would act as root there.
     */
    static void checkNotRoot(String what, String name) {
        if (name.equalsIgnoreCase(AdminToken.ROOT_OWNER)) {
            throw new IdentityException(
                    VALIDATION_ERROR, what + ": " + name + " (reserved for the root credential; choose another name)");
        }
    }

    static void checkDocument(String what, String document) {
        if (document == null || document.isBlank()) {
            throw new IdentityException(VALIDATION_ERROR, what + ": empty (expected a JSON policy document)");
        }
        if (document.length() > IdentityStore.MAX_POLICY_DOCUMENT_CHARS) {
            throw new IdentityException(
                    LIMIT_EXCEEDED,
                    what + ": " + document.length() + " characters (at most " + IdentityStore.MAX_POLICY_DOCUMENT_CHARS
                            + ")");
        }
    }

    static String randomId(String prefix, int length) {
        StringBuilder sb = new StringBuilder(prefix);
        while (sb.length() < length) {
            sb.append(ID_ALPHABET.charAt(RANDOM.nextInt(ID_ALPHABET.length())));
        }
        return sb.toString();
    }

    static String randomSecret() {
        StringBuilder sb = new StringBuilder(40);
        for (int i = 0; i < 40; i++) {
            sb.append(SECRET_ALPHABET.charAt(RANDOM.nextInt(SECRET_ALPHABET.length())));
        }
        return sb.toString();
    }

    String policyArn(String policyName) {
        return "arn:aws:iam::" + account + ":policy/" + policyName;
    }

    // ------------------------------------------------------------------------------------------------------ users

    UserEntry userEntry(String name) {
        UserEntry u = name == null ? null : users.get(key(name));
        if (u == null) {
            throw IdentityException.noSuch("user", name);
        }
        return u;
    }

    User createUser(String name, Instant now) {
        checkName("userName", name, 64);
        checkNotRoot("userName", name);
        if (users.containsKey(key(name))) {
            throw new IdentityException(ENTITY_ALREADY_EXISTS, "User with name " + name + " already exists.");
        }
        User u = new User(name, randomId("AIDA", 21), PATH, now, true, List.of(), Map.of());
        users.put(key(name), new UserEntry(u, List.of()));
        return u;
    }

    private User putUser(UserEntry old, User changed, List<KeyEntry> keys) {
        users.put(key(old.user().name()), new UserEntry(changed, keys));
        return changed;
    }

    User renameUser(String name, String newName) {
        UserEntry e = userEntry(name);
        checkName("newUserName", newName, 64);
        checkNotRoot("newUserName", newName);
        User u = e.user();
        if (!key(newName).equals(key(u.name())) && users.containsKey(key(newName))) {
            throw new IdentityException(ENTITY_ALREADY_EXISTS, "User with name " + newName + " already exists.");
        }
        users.remove(key(u.name()));
        User renamed =
                new User(newName, u.id(), u.path(), u.created(), u.enabled(), u.attachedPolicies(), u.inlinePolicies());
        List<KeyEntry> keys = new ArrayList<>();
        for (KeyEntry k : e.keys()) {
            AccessKey a = k.key();
            keys.add(new KeyEntry(
                    new AccessKey(a.accessKeyId(), newName, a.status(), a.created()), k.secret(), k.sealed()));
        }
        users.put(key(newName), new UserEntry(renamed, keys));
        for (var g : List.copyOf(groups.values())) {
            if (containsIgnoringCase(g.members(), u.name())) {
                List<String> members = new ArrayList<>(g.members());
                members.replaceAll(m -> m.equalsIgnoreCase(u.name()) ? newName : m);
                groups.put(key(g.name()), withMembers(g, members));
            }
        }
        return renamed;
    }

    User setUserEnabled(String name, boolean enabled) {
        UserEntry e = userEntry(name);
        User u = e.user();
        return putUser(
                e,
                new User(u.name(), u.id(), u.path(), u.created(), enabled, u.attachedPolicies(), u.inlinePolicies()),
                e.keys());
    }

    /** As IAM: a user with keys, policies or group memberships is not deleted (DeleteConflict). */
    void deleteUser(String name) {
        UserEntry e = userEntry(name);
        User u = e.user();
        List<String> held = new ArrayList<>();
        if (!e.keys().isEmpty()) {
            held.add(e.keys().size() + " access key(s)");
        }
        if (!u.attachedPolicies().isEmpty()) {
            held.add(u.attachedPolicies().size() + " attached policy(ies)");
        }
        if (!u.inlinePolicies().isEmpty()) {
            held.add(u.inlinePolicies().size() + " inline policy(ies)");
        }
        long memberships = groups.values().stream()
                .filter(g -> containsIgnoringCase(g.members(), u.name()))
                .count();
        if (memberships > 0) {
            held.add(memberships + " group membership(s)");
        }
        if (!held.isEmpty()) {
            throw new IdentityException(
                    DELETE_CONFLICT,
                    "Cannot delete user " + u.name() + ": it must first lose its " + String.join(", ", held) + ".");
        }
        users.remove(key(u.name()));
        tokens.values().removeIf(t -> t.ownerId().equals(u.id())); // a deleted user's tokens are revoked with it
    }

    User attachUserPolicy(String name, String policyArn) {
        UserEntry e = userEntry(name);
        User u = e.user();
        List<String> attached = attach("user " + u.name(), u.attachedPolicies(), policyArn);
        return putUser(
                e,
                new User(u.name(), u.id(), u.path(), u.created(), u.enabled(), attached, u.inlinePolicies()),
                e.keys());
    }

    User detachUserPolicy(String name, String policyArn) {
        UserEntry e = userEntry(name);
        User u = e.user();
        List<String> attached = detach("user " + u.name(), u.attachedPolicies(), policyArn);
        return putUser(
                e,
                new User(u.name(), u.id(), u.path(), u.created(), u.enabled(), attached, u.inlinePolicies()),
                e.keys());
    }

    User putUserPolicy(String name, String policyName, String document) {
        UserEntry e = userEntry(name);
        User u = e.user();
        Map<String, String> inline = putInline(u.inlinePolicies(), policyName, document);
        return putUser(
                e,
                new User(u.name(), u.id(), u.path(), u.created(), u.enabled(), u.attachedPolicies(), inline),
                e.keys());
    }

    User deleteUserPolicy(String name, String policyName) {
        UserEntry e = userEntry(name);
        User u = e.user();
        Map<String, String> inline = deleteInline("user " + u.name(), u.inlinePolicies(), policyName);
        return putUser(
                e,
                new User(u.name(), u.id(), u.path(), u.created(), u.enabled(), u.attachedPolicies(), inline),
                e.keys());
    }

    // ------------------------------------------------------------------------------------------------ access keys

    NewAccessKey createAccessKey(String userName, Instant now, SecretCipher cipher, Set<String> reserved) {
        UserEntry e = userEntry(userName);
        if (e.keys().size() >= IdentityStore.MAX_ACCESS_KEYS_PER_USER) {
            throw new IdentityException(
                    LIMIT_EXCEEDED,
                    "Cannot exceed quota for AccessKeysPerUser: " + IdentityStore.MAX_ACCESS_KEYS_PER_USER + " (user "
                            + e.user().name() + ")");
        }
        String id;
        do {
            id = randomId("AKIA", 20);
        } while (reserved.contains(id) || keyExists(id));
        String secret = randomSecret();
        AccessKey key = new AccessKey(id, e.user().name(), AccessKey.Status.Active, now);
        SecretCipher.Sealed sealed =
                cipher.seal(secret, SecretCipher.secretBinding(id, e.user().id()));
        List<KeyEntry> keys = new ArrayList<>(e.keys());
        keys.add(new KeyEntry(key, secret, sealed));
        putUser(e, e.user(), keys);
        return new NewAccessKey(key, secret);
    }

    private boolean keyExists(String id) {
        return users.values().stream()
                .flatMap(u -> u.keys().stream())
                .anyMatch(k -> k.key().accessKeyId().equals(id));
    }

    /** The user holding {@code accessKeyId} (checked against {@code userName} when given). */
    UserEntry keyOwner(String userName, String accessKeyId) {
        if (userName != null) {
            UserEntry e = userEntry(userName);
            for (KeyEntry k : e.keys()) {
                if (k.key().accessKeyId().equals(accessKeyId)) {
                    return e;
                }
            }
        } else {
            for (UserEntry e : users.values()) {
                for (KeyEntry k : e.keys()) {
                    if (k.key().accessKeyId().equals(accessKeyId)) {
                        return e;
                    }
                }
            }
        }
        throw new IdentityException(
                NO_SUCH_ENTITY,
                "The Access Key with id " + accessKeyId + " cannot be found"
                        + (userName == null ? "." : " for user " + userName + "."));
    }

    AccessKey setAccessKeyStatus(String userName, String accessKeyId, AccessKey.Status status) {
        UserEntry e = keyOwner(userName, accessKeyId);
        List<KeyEntry> keys = new ArrayList<>();
        AccessKey changed = null;
        for (KeyEntry k : e.keys()) {
            if (k.key().accessKeyId().equals(accessKeyId)) {
                AccessKey a = k.key();
                changed = new AccessKey(a.accessKeyId(), a.userName(), status, a.created());
                keys.add(new KeyEntry(changed, k.secret(), k.sealed()));
            } else {
                keys.add(k);
            }
        }
        putUser(e, e.user(), keys);
        return changed;
    }

    void deleteAccessKey(String userName, String accessKeyId) {
        UserEntry e = keyOwner(userName, accessKeyId);
        List<KeyEntry> keys = new ArrayList<>(e.keys());
        keys.removeIf(k -> k.key().accessKeyId().equals(accessKeyId));
        putUser(e, e.user(), keys);
    }

    /** Every secret sealed again under {@code cipher} (a new identity key). */
    void reseal(SecretCipher cipher) {
        for (var entry : List.copyOf(users.entrySet())) {
            UserEntry e = entry.getValue();
            List<KeyEntry> keys = new ArrayList<>();
            for (KeyEntry k : e.keys()) {
                keys.add(new KeyEntry(
                        k.key(),
                        k.secret(),
                        cipher.seal(
                                k.secret(),
                                SecretCipher.secretBinding(
                                        k.key().accessKeyId(), e.user().id()))));
            }
            users.put(entry.getKey(), new UserEntry(e.user(), keys));
        }
    }

    // ----------------------------------------------------------------------------------------------- admin tokens

    /** The token whose secret has this SHA-256 (hex), when its owner may use it; expiry is the caller's check. */
    AdminToken tokenBySecret(String secretSha256) {
        return tokensBySecret.get(secretSha256);
    }

    /** Every user by id, for finding tokens' owners: one pass over the users, not one per token. */
    private Map<String, User> usersById() {
        Map<String, User> byId = new HashMap<>();
        for (UserEntry u : users.values()) {
            byId.put(u.user().id(), u.user());
        }
        return byId;
    }

    private static AdminToken adminToken(TokenEntry t, String ownerName) {
        return new AdminToken(t.id(), t.name(), ownerName, t.policyArns(), t.created(), t.expires());
    }

    /** Every token (expired ones too, until the next create drops them), ordered by owner and name. */
    List<AdminToken> adminTokens() {
        List<AdminToken> out = new ArrayList<>();
        Map<String, User> usersById = usersById();
        for (TokenEntry t : tokens.values()) {
            if (t.ownerId().equals(ROOT_OWNER_ID)) {
                out.add(adminToken(t, AdminToken.ROOT_OWNER));
            } else if (usersById.containsKey(t.ownerId())) { // a deleted user's tokens went with it
                out.add(adminToken(t, usersById.get(t.ownerId()).name()));
            }
        }
        out.sort(Comparator.comparing((AdminToken a) -> key(a.owner())).thenComparing(a -> key(a.name())));
        return out;
    }

    /**
     * A new token of {@code owner} (a user's name, any case, or {@code root}: the root credential, also when a user of
     * that name exists) scoped to {@code policyArns}, which must all exist, expiring after {@code now} and at most
     * {@link IdentityStore#MAX_ADMIN_TOKEN_LIFETIME} later. Expired tokens of every owner are dropped first, so they
     * count neither against the per-owner limit nor against a name.
     */
    NewAdminToken createAdminToken(String owner, String name, List<String> policyArns, Instant expires, Instant now) {
        String ownerId;
        String ownerName;
        if (owner != null && owner.equalsIgnoreCase(AdminToken.ROOT_OWNER)) {
            ownerId = ROOT_OWNER_ID;
            ownerName = AdminToken.ROOT_OWNER;
        } else {
            User u = userEntry(owner).user();
            ownerId = u.id();
            ownerName = u.name();
        }
        if (expires == null) {
            throw new IdentityException(
                    INVALID_INPUT,
                    "expiresAt: null (expected a time within " + IdentityStore.MAX_ADMIN_TOKEN_LIFETIME.toDays()
                            + " days from now)");
        }
        if (!expires.isAfter(now)) {
            throw new IdentityException(INVALID_INPUT, "expiresAt: " + expires + " (expected after now, " + now + ")");
        }
        if (expires.isAfter(now.plus(IdentityStore.MAX_ADMIN_TOKEN_LIFETIME))) {
            throw new IdentityException(
                    INVALID_INPUT,
                    "expiresAt: " + expires + " (expected at most " + IdentityStore.MAX_ADMIN_TOKEN_LIFETIME.toDays()
                            + " days from now, " + now.plus(IdentityStore.MAX_ADMIN_TOKEN_LIFETIME) + ")");
        }
        Instant expiry = expires.truncatedTo(ChronoUnit.MILLIS); // as the document keeps it: listed is what resolves
        String secret = newTokenSecret();
        String id;
        do {
            id = randomId("ATOK", 20);
        } while (tokens.containsKey(id));
        // validates the name and the ARNs' shape before they are looked up
        AdminToken token =
                new AdminToken(id, name, ownerName, policyArns == null ? List.of() : policyArns, now, expiry);
        for (String arn : token.policyArns()) {
            checkTokenPolicy(arn);
        }
        tokens.values().removeIf(t -> !now.isBefore(t.expires()));
        List<TokenEntry> owned = tokens.values().stream()
                .filter(t -> t.ownerId().equals(ownerId))
                .toList();
        if (owned.stream().anyMatch(t -> t.name().equalsIgnoreCase(name))) {
            throw new IdentityException(
                    ENTITY_ALREADY_EXISTS, "A token named " + name + " of " + ownerName + " already exists.");
        }
        if (owned.size() >= IdentityStore.MAX_ADMIN_TOKENS_PER_OWNER) {
            throw new IdentityException(
                    LIMIT_EXCEEDED,
                    "Cannot exceed quota for AdminTokensPerOwner: " + IdentityStore.MAX_ADMIN_TOKENS_PER_OWNER
                            + " (owner " + ownerName + ")");
        }
        tokens.put(id, new TokenEntry(id, token.name(), ownerId, token.policyArns(), now, expiry, tokenDigest(secret)));
        return new NewAdminToken(token, secret);
    }

    void revokeAdminToken(String id) {
        if (id == null || tokens.remove(id) == null) {
            throw new IdentityException(NO_SUCH_ENTITY, "The admin token with id " + id + " cannot be found.");
        }
    }

    /** A token's scope names an existing policy: a customer policy of this account or a fixed built-in one. */
    private void checkTokenPolicy(String arn) {
        if (arn.startsWith(BUILT_IN_ARN)) {
            String builtIn = arn.substring(BUILT_IN_ARN.length()).toLowerCase(Locale.ROOT);
            if (!BuiltinPolicies.names().contains(builtIn)) {
                throw new IdentityException(
                        NO_SUCH_ENTITY,
                        "policyArns: " + arn + " (no such built-in policy; expected one of " + BuiltinPolicies.names()
                                + ")");
            }
            return;
        }
        checkAttachable(arn);
    }

    static String newTokenSecret() {
        byte[] bytes = new byte[TOKEN_SECRET_BYTES];
        RANDOM.nextBytes(bytes);
        return TOKEN_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The SHA-256 (hex) of a token secret: what the state keeps and indexes. */
    static String tokenDigest(String secret) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------------------------------------- root credential

    /**
     * Disabling the root credential on S3 needs another way in: an enabled user with an active key and the built-in
     * admin policy attached to it or to one of its groups. Re-enabling is always allowed.
     */
    void setRootS3Enabled(boolean enabled) {
        if (!enabled && !rootS3Enabled) {
            return;
        }
        if (!enabled && !anotherAdminCanSignIn()) {
            throw new IdentityException(
                    DELETE_CONFLICT,
                    "Cannot disable the root credential for S3: no enabled user with an active access key has "
                            + BUILT_IN_ARN + BuiltinPolicies.ADMIN
                            + " attached (directly or through a group); create one first.");
        }
        rootS3Enabled = enabled;
    }

    boolean anotherAdminCanSignIn() {
        for (UserEntry e : users.values()) {
            User u = e.user();
            if (!u.enabled() || e.keys().stream().noneMatch(k -> k.key().status() == AccessKey.Status.Active)) {
                continue;
            }
            if (namesAdmin(u.attachedPolicies())) {
                return true;
            }
            for (Group g : groups.values()) {
                if (containsIgnoringCase(g.members(), u.name()) && namesAdmin(g.attachedPolicies())) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean namesAdmin(List<String> arns) {
        for (String arn : arns) {
            if (arn.startsWith(BUILT_IN_ARN)
                    && arn.substring(BUILT_IN_ARN.length()).equalsIgnoreCase(BuiltinPolicies.ADMIN)) {
                return true;
            }
        }
        return false;
    }

    // ----------------------------------------------------------------------------------------------------- groups

    Group group(String name) {
        Group g = name == null ? null : groups.get(key(name));
        if (g == null) {
            throw IdentityException.noSuch("group", name);
        }
        return g;
    }

    Group createGroup(String name, Instant now) {
        checkName("groupName", name, 128);
        if (groups.containsKey(key(name))) {
            throw new IdentityException(ENTITY_ALREADY_EXISTS, "Group with name " + name + " already exists.");
        }
        Group g = new Group(name, randomId("AGPA", 21), PATH, now, List.of(), List.of(), Map.of());
        groups.put(key(name), g);
        return g;
    }

    /** As IAM: a group with members or policies is not deleted (DeleteConflict). */
    void deleteGroup(String name) {
        Group g = group(name);
        if (!g.members().isEmpty()
                || !g.attachedPolicies().isEmpty()
                || !g.inlinePolicies().isEmpty()) {
            throw new IdentityException(
                    DELETE_CONFLICT,
                    "Cannot delete group " + g.name() + ": it must first lose its "
                            + g.members().size()
                            + " member(s), " + g.attachedPolicies().size() + " attached and "
                            + g.inlinePolicies().size() + " inline policy(ies).");
        }
        groups.remove(key(g.name()));
    }

    Group addUserToGroup(String groupName, String userName) {
        Group g = group(groupName);
        User u = userEntry(userName).user();
        if (containsIgnoringCase(g.members(), u.name())) {
            return g; // IAM answers success when the user is already a member
        }
        long memberships = groups.values().stream()
                .filter(x -> containsIgnoringCase(x.members(), u.name()))
                .count();
        if (memberships >= IdentityStore.MAX_GROUPS_PER_USER) {
            throw new IdentityException(
                    LIMIT_EXCEEDED,
                    "Cannot exceed quota for GroupsPerUser: " + IdentityStore.MAX_GROUPS_PER_USER + " (user " + u.name()
                            + ")");
        }
        List<String> members = new ArrayList<>(g.members());
        members.add(u.name());
        Group changed = withMembers(g, members);
        groups.put(key(g.name()), changed);
        return changed;
    }

    Group removeUserFromGroup(String groupName, String userName) {
        Group g = group(groupName);
        User u = userEntry(userName).user();
        if (!containsIgnoringCase(g.members(), u.name())) {
            throw new IdentityException(
                    NO_SUCH_ENTITY, "User " + u.name() + " is not a member of group " + g.name() + ".");
        }
        List<String> members = new ArrayList<>(g.members());
        members.removeIf(m -> m.equalsIgnoreCase(u.name()));
        Group changed = withMembers(g, members);
        groups.put(key(g.name()), changed);
        return changed;
    }

    Group attachGroupPolicy(String name, String policyArn) {
        Group g = group(name);
        List<String> attached = attach("group " + g.name(), g.attachedPolicies(), policyArn);
        Group changed = new Group(g.name(), g.id(), g.path(), g.created(), g.members(), attached, g.inlinePolicies());
        groups.put(key(g.name()), changed);
        return changed;
    }

    Group detachGroupPolicy(String name, String policyArn) {
        Group g = group(name);
        List<String> attached = detach("group " + g.name(), g.attachedPolicies(), policyArn);
        Group changed = new Group(g.name(), g.id(), g.path(), g.created(), g.members(), attached, g.inlinePolicies());
        groups.put(key(g.name()), changed);
        return changed;
    }

    Group putGroupPolicy(String name, String policyName, String document) {
        Group g = group(name);
        Map<String, String> inline = putInline(g.inlinePolicies(), policyName, document);
        Group changed = new Group(g.name(), g.id(), g.path(), g.created(), g.members(), g.attachedPolicies(), inline);
        groups.put(key(g.name()), changed);
        return changed;
    }

    Group deleteGroupPolicy(String name, String policyName) {
        Group g = group(name);
        Map<String, String> inline = deleteInline("group " + g.name(), g.inlinePolicies(), policyName);
        Group changed = new Group(g.name(), g.id(), g.path(), g.created(), g.members(), g.attachedPolicies(), inline);
        groups.put(key(g.name()), changed);
        return changed;
    }

    private static Group withMembers(Group g, List<String> members) {
        return new Group(g.name(), g.id(), g.path(), g.created(), members, g.attachedPolicies(), g.inlinePolicies());
    }

    // --------------------------------------------------------------------------------------------------- policies

    ManagedPolicy policy(String name) {
        ManagedPolicy p = name == null ? null : policies.get(key(name));
        if (p == null) {
            throw IdentityException.noSuch("policy", name);
        }
        return p;
    }

    ManagedPolicy createPolicy(String name, String document, Instant now) {
        checkName("policyName", name, 128);
        checkDocument("policyDocument", document);
        if (policies.containsKey(key(name))) {
            throw new IdentityException(
                    ENTITY_ALREADY_EXISTS,
                    "A policy called " + name + " already exists. Duplicate names are not allowed.");
        }
        ManagedPolicy p = new ManagedPolicy(name, randomId("ANPA", 21), policyArn(name), PATH, document, now, now);
        policies.put(key(name), p);
        return p;
    }

    ManagedPolicy updatePolicyDocument(String name, String document, Instant now) {
        ManagedPolicy p = policy(name);
        checkDocument("policyDocument", document);
        ManagedPolicy changed = new ManagedPolicy(p.name(), p.id(), p.arn(), p.path(), document, p.created(), now);
        policies.put(key(p.name()), changed);
        return changed;
    }

    /** As IAM: a policy still attached to a user or group is not deleted (DeleteConflict). */
    void deletePolicy(String name) {
        ManagedPolicy p = policy(name);
        int count = attachmentCount(p.arn());
        if (count > 0) {
            throw new IdentityException(
                    DELETE_CONFLICT,
                    "Cannot delete policy " + p.name() + ": it is attached to " + count
                            + " user(s) or group(s); detach it first.");
        }
        long scoped = tokens.values().stream()
                .filter(t -> t.policyArns().contains(p.arn()))
                .count();
        if (scoped > 0) {
            throw new IdentityException(
                    DELETE_CONFLICT,
                    "Cannot delete policy " + p.name() + ": it is the scope of " + scoped
                            + " admin token(s); revoke them first.");
        }
        policies.remove(key(p.name()));
    }

    int attachmentCount(String arn) {
        int n = 0;
        for (UserEntry u : users.values()) {
            if (u.user().attachedPolicies().contains(arn)) {
                n++;
            }
        }
        for (Group g : groups.values()) {
            if (g.attachedPolicies().contains(arn)) {
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    /**
     * Attaches a managed policy by ARN: a customer policy of this account must exist; an AWS-managed ARN ({@code
     * arn:aws:iam::aws:policy/...}) names a built-in policy, resolved by the policy engine.
     */
    private List<String> attach(String to, List<String> attached, String policyArn) {
        checkAttachable(policyArn);
        if (attached.contains(policyArn)) {
            return attached; // IAM answers success when already attached
        }
        if (attached.size() >= IdentityStore.MAX_ATTACHED_POLICIES) {
            throw new IdentityException(
                    LIMIT_EXCEEDED,
                    "Cannot exceed quota for PoliciesPerUserOrGroup: " + IdentityStore.MAX_ATTACHED_POLICIES + " (" + to
                            + ")");
        }
        List<String> out = new ArrayList<>(attached);
        out.add(policyArn);
        return out;
    }

    private void checkAttachable(String arn) {
        String customer = "arn:aws:iam::" + account + ":policy/";
        String builtIn = "arn:aws:iam::aws:policy/";
        if (arn != null && arn.startsWith(customer)) {
            String name = arn.substring(customer.length());
            if (!policies.containsKey(key(name))
                    || !policies.get(key(name)).arn().equals(arn)) {
                throw new IdentityException(NO_SUCH_ENTITY, "Policy " + arn + " does not exist or is not attachable.");
            }
            return;
        }
        if (arn != null && arn.startsWith(builtIn)) {
            checkName("policyArn", arn.substring(builtIn.length()), 128);
            return;
        }
        throw new IdentityException(
                INVALID_INPUT, "policyArn: " + arn + " (expected " + customer + "<name> or " + builtIn + "<name>)");
    }

    private static List<String> detach(String from, List<String> attached, String policyArn) {
        if (!attached.contains(policyArn)) {
            throw new IdentityException(
                    NO_SUCH_ENTITY, "Policy " + policyArn + " was not found attached to " + from + ".");
        }
        List<String> out = new ArrayList<>(attached);
        out.remove(policyArn);
        return out;
    }

    private static Map<String, String> putInline(Map<String, String> inline, String policyName, String document) {
        checkName("policyName", policyName, 128);
        checkDocument("policyDocument", document);
        Map<String, String> out = new TreeMap<>(inline);
        // Inline policy names are case-sensitive in IAM: the same name replaces the document.
        out.put(policyName, document);
        return out;
    }

    private static Map<String, String> deleteInline(String from, Map<String, String> inline, String policyName) {
        if (policyName == null || !inline.containsKey(policyName)) {
            throw new IdentityException(
                    NO_SUCH_ENTITY, "The inline policy " + policyName + " of " + from + " cannot be found.");
        }
        Map<String, String> out = new TreeMap<>(inline);
        out.remove(policyName);
        return out;
    }

    private static boolean containsIgnoringCase(List<String> names, String name) {
        for (String n : names) {
            if (n.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
