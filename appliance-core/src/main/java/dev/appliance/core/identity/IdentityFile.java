package dev.appliance.core.identity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;

/**
 * The identity file ({@code .appliance.sys/identity/identity.bin}, docs/formats/identity.md): a fixed header (magic,
 * major and minor version, generation, payload length), the state as UTF-8 JSON with every secret sealed, and a
 * SHA-256 of everything before it. All integers big-endian.
 *
 * <pre>
 *  0      4  magic "APID"
 *  4      2  major version (1: readers refuse any other)
 *  6      2  minor version (1: readers accept higher minors and ignore fields they do not know)
 *  8      8  generation
 * 16      4  payload length n
 * 20      n  payload: JSON (users, groups, policies, sealed secrets, key check, admin tokens' digests, root switch)
 * 20+n   32  SHA-256 of bytes 0 .. 20+n
 * </pre>
 */
final class IdentityFile {
    static final int MAGIC = 0x41504944; // "APID"
    static final int MAJOR = 1;
    /** 1: admin tokens and the root credential's S3 switch (1.0 documents read as no tokens, root enabled). */
    static final int MINOR = 1;

    static final int HEADER_BYTES = 20;
    static final int DIGEST_BYTES = 32;
    /** Refuses absurd payload lengths before allocating (a damaged header). */
    static final int MAX_PAYLOAD_BYTES = 256 << 20;
    /** The value sealed as the key check: opening it proves the key is the one the file was written with. */
    static final String KEY_CHECK = "appliance identity key check";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One copy of the file: its generation, the hex of its SHA-256 trailer, its bytes and its parsed payload. */
    record Copy(long generation, String digest, byte[] bytes, ObjectNode payload) {
        boolean sameAs(Copy other) {
            return other != null && generation == other.generation && digest.equals(other.digest);
        }
    }

    /** The file's content does not open with the given key. */
    static final class WrongKeyException extends Exception {
        private static final long serialVersionUID = 1L;

        WrongKeyException(String message) {
            super(message);
        }
    }

    private IdentityFile() {}

    static Copy encode(IdentityState state, long generation, SecretCipher cipher) {
        ObjectNode root = JSON.createObjectNode();
        root.put("account", state.account);
        root.set("keyCheck", sealed(cipher.seal(KEY_CHECK, KEY_CHECK)));
        ArrayNode users = root.putArray("users");
        for (IdentityState.UserEntry e : state.users.values()) {
            User u = e.user();
            ObjectNode n = users.addObject();
            n.put("name", u.name());
            n.put("id", u.id());
            n.put("path", u.path());
            n.put("created", u.created().toEpochMilli());
            n.put("enabled", u.enabled());
            strings(n.putArray("attachedPolicies"), u.attachedPolicies());
            documents(n.putObject("inlinePolicies"), u.inlinePolicies());
            ArrayNode keys = n.putArray("accessKeys");
            for (IdentityState.KeyEntry k : e.keys()) {
                ObjectNode kn = keys.addObject();
                kn.put("id", k.key().accessKeyId());
                kn.put("status", k.key().status().name());
                kn.put("created", k.key().created().toEpochMilli());
                kn.setAll(sealed(k.sealed()));
            }
        }
        ArrayNode groups = root.putArray("groups");
        for (Group g : state.groups.values()) {
            ObjectNode n = groups.addObject();
            n.put("name", g.name());
            n.put("id", g.id());
            n.put("path", g.path());
            n.put("created", g.created().toEpochMilli());
            strings(n.putArray("members"), g.members());
            strings(n.putArray("attachedPolicies"), g.attachedPolicies());
            documents(n.putObject("inlinePolicies"), g.inlinePolicies());
        }
        ArrayNode policies = root.putArray("policies");
        for (ManagedPolicy p : state.policies.values()) {
            ObjectNode n = policies.addObject();
            n.put("name", p.name());
            n.put("id", p.id());
            n.put("path", p.path());
            n.put("created", p.created().toEpochMilli());
            n.put("updated", p.updated().toEpochMilli());
            n.put("document", p.document());
        }
        ArrayNode tokens = root.putArray("adminTokens");
        for (IdentityState.TokenEntry t : state.tokens.values()) {
            ObjectNode n = tokens.addObject();
            n.put("id", t.id());
            n.put("name", t.name());
            n.put("ownerId", t.ownerId());
            strings(n.putArray("policyArns"), t.policyArns());
            n.put("created", t.created().toEpochMilli());
            n.put("expires", t.expires().toEpochMilli());
            n.put("secretSha256", t.secretSha256());
        }
        root.put("rootS3Enabled", state.rootS3Enabled);
        return frame(generation, root);
    }

    /** Wraps a payload in header and trailer (also used by tests to write files of other versions). */
    static Copy frame(long generation, ObjectNode payload) {
        return frame(MAJOR, MINOR, generation, payload);
    }

    static Copy frame(int major, int minor, long generation, ObjectNode payload) {
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(payload);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        ByteBuffer buf = ByteBuffer.allocate(HEADER_BYTES + json.length + DIGEST_BYTES);
        buf.putInt(MAGIC)
                .putShort((short) major)
                .putShort((short) minor)
                .putLong(generation)
                .putInt(json.length);
        buf.put(json);
        byte[] digest = sha256(buf.array(), HEADER_BYTES + json.length);
        buf.put(digest);
        return new Copy(generation, HexFormat.of().formatHex(digest), buf.array(), payload);
    }

    /** Parses and verifies one copy; throws on damage (bad magic, unknown major version, length, checksum, JSON). */
    static Copy decode(byte[] bytes) throws IOException {
        if (bytes.length < HEADER_BYTES + DIGEST_BYTES) {
            throw new IOException("identity file: " + bytes.length + " bytes (at least " + (HEADER_BYTES + DIGEST_BYTES)
                    + " expected)");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int magic = buf.getInt();
        if (magic != MAGIC) {
            throw new IOException("identity file: magic " + Integer.toHexString(magic) + " (expected 41504944)");
        }
        int major = Short.toUnsignedInt(buf.getShort());
        buf.getShort(); // minor: higher minors only add fields, which are ignored
        if (major != MAJOR) {
            throw new IOException("identity file: major version " + major + " (this build reads " + MAJOR + ")");
        }
        long generation = buf.getLong();
        int length = buf.getInt();
        if (length < 0 || length > MAX_PAYLOAD_BYTES || HEADER_BYTES + length + DIGEST_BYTES != bytes.length) {
            throw new IOException("identity file: payload length " + length + " does not match the file's "
                    + bytes.length + " bytes");
        }
        byte[] digest = sha256(bytes, HEADER_BYTES + length);
        if (!MessageDigest.isEqual(digest, java.util.Arrays.copyOfRange(bytes, HEADER_BYTES + length, bytes.length))) {
            throw new IOException("identity file: checksum mismatch");
        }
        JsonNode tree = JSON.readTree(new String(bytes, HEADER_BYTES, length, StandardCharsets.UTF_8));
        if (!(tree instanceof ObjectNode payload) || !payload.hasNonNull("account")) {
            throw new IOException("identity file: payload is not an identity state");
        }
        return new Copy(generation, HexFormat.of().formatHex(digest), bytes, payload);
    }

    /** The state a copy holds, its secrets opened with {@code cipher}. */
    static IdentityState toState(Copy copy, SecretCipher cipher) throws WrongKeyException, IOException {
        ObjectNode p = copy.payload();
        try {
            cipher.open(unsealed(p.get("keyCheck")), KEY_CHECK);
        } catch (AEADBadTagException e) {
            throw new WrongKeyException("the identity state (generation " + copy.generation()
                    + ") does not open with the given identity key: it was written with another key (a changed root"
                    + " credential needs the identity state re-encrypted first, see"
                    + " docs/decisions/identity-secrets-at-rest.md)");
        }
        Map<String, IdentityState.UserEntry> users = new LinkedHashMap<>();
        for (JsonNode n : array(p, "users")) {
            User u = new User(
                    text(n, "name"),
                    text(n, "id"),
                    text(n, "path"),
                    Instant.ofEpochMilli(n.path("created").asLong()),
                    n.path("enabled").asBoolean(true),
                    strings(n.get("attachedPolicies")),
                    documents(n.get("inlinePolicies")));
            List<IdentityState.KeyEntry> keys = new ArrayList<>();
            for (JsonNode k : array(n, "accessKeys")) {
                String id = text(k, "id");
                SecretCipher.Sealed sealed = unsealed(k);
                String secret;
                try {
                    secret = cipher.open(sealed, SecretCipher.secretBinding(id, u.id()));
                } catch (AEADBadTagException e) {
                    throw new WrongKeyException("the secret of access key " + id + " (user " + u.name()
                            + ") does not open with the identity key (altered, or moved from another record)");
                }
                keys.add(new IdentityState.KeyEntry(
                        new AccessKey(
                                id,
                                u.name(),
                                AccessKey.Status.parse(text(k, "status")),
                                Instant.ofEpochMilli(k.path("created").asLong())),
                        secret,
                        sealed));
            }
            users.put(IdentityState.key(u.name()), new IdentityState.UserEntry(u, keys));
        }
        Map<String, Group> groups = new LinkedHashMap<>();
        for (JsonNode n : array(p, "groups")) {
            Group g = new Group(
                    text(n, "name"),
                    text(n, "id"),
                    text(n, "path"),
                    Instant.ofEpochMilli(n.path("created").asLong()),
                    strings(n.get("members")),
                    strings(n.get("attachedPolicies")),
                    documents(n.get("inlinePolicies")));
            groups.put(IdentityState.key(g.name()), g);
        }
        String account = text(p, "account");
        Map<String, ManagedPolicy> policies = new LinkedHashMap<>();
        for (JsonNode n : array(p, "policies")) {
            String name = text(n, "name");
            policies.put(
                    IdentityState.key(name),
                    new ManagedPolicy(
                            name,
                            text(n, "id"),
                            "arn:aws:iam::" + account + ":policy/" + name,
                            text(n, "path"),
                            text(n, "document"),
                            Instant.ofEpochMilli(n.path("created").asLong()),
                            Instant.ofEpochMilli(n.path("updated").asLong())));
        }
        Map<String, IdentityState.TokenEntry> tokens = new LinkedHashMap<>();
        for (JsonNode n : array(p, "adminTokens")) { // absent before 1.1: no tokens
            String secretSha256 = text(n, "secretSha256");
            if (!secretSha256.matches("[0-9a-f]{64}")) {
                throw new IOException(
                        "identity file: admin token " + text(n, "id") + ": secretSha256 is not a SHA-256");
            }
            IdentityState.TokenEntry t = new IdentityState.TokenEntry(
                    text(n, "id"),
                    text(n, "name"),
                    text(n, "ownerId"),
                    strings(n.get("policyArns")),
                    Instant.ofEpochMilli(n.path("created").asLong()),
                    Instant.ofEpochMilli(n.path("expires").asLong()),
                    secretSha256);
            tokens.put(t.id(), t);
        }
        boolean rootS3Enabled = p.path("rootS3Enabled").asBoolean(true); // absent before 1.1: enabled
        return new IdentityState(account, users, groups, policies, tokens, rootS3Enabled).index();
    }

    private static ObjectNode sealed(SecretCipher.Sealed s) {
        ObjectNode n = JSON.createObjectNode();
        n.put("nonce", Base64.getEncoder().encodeToString(s.nonce()));
        n.put("sealed", Base64.getEncoder().encodeToString(s.ciphertext()));
        return n;
    }

    private static SecretCipher.Sealed unsealed(JsonNode n) throws IOException {
        byte[] nonce = Base64.getDecoder().decode(text(n, "nonce"));
        if (nonce.length != SecretCipher.NONCE_BYTES) {
            throw new IOException("identity file: nonce of " + nonce.length + " bytes (expected 12)");
        }
        return new SecretCipher.Sealed(nonce, Base64.getDecoder().decode(text(n, "sealed")));
    }

    private static String text(JsonNode n, String field) throws IOException {
        JsonNode v = n == null ? null : n.get(field);
        if (v == null || !v.isTextual()) {
            throw new IOException("identity file: field " + field + " missing");
        }
        return v.asText();
    }

    private static Iterable<JsonNode> array(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || !v.isArray() ? List.of() : v;
    }

    private static void strings(ArrayNode into, List<String> values) {
        values.forEach(into::add);
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n != null) {
            n.forEach(v -> out.add(v.asText()));
        }
        return out;
    }

    private static void documents(ObjectNode into, Map<String, String> docs) {
        docs.forEach(into::put);
    }

    private static Map<String, String> documents(JsonNode n) {
        Map<String, String> out = new LinkedHashMap<>();
        if (n != null) {
            n.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
        }
        return out;
    }

    private static byte[] sha256(byte[] bytes, int length) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(bytes, 0, length);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
