package dev.appliance.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.MovableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random identity changes × drive outages × restarts (fixed seeds), against a plain in-memory model of what was
 * acknowledged: after every restart, and after the missing drives return, the store holds exactly the model (users,
 * keys with their secrets and status, inline and attached policies, groups and members, managed policies). As the
 * engine runs: at most one drive away while running (every change is acknowledged), up to two away at a start (the
 * fewest a four-drive store starts with), drives returning while stopped or while running (then repaired, as the
 * drive check does).
 */
class IdentityStatePropertyTest {
    @TempDir
    Path tmp;

    private final MovableClock clock = new MovableClock();

    /** The model: everything keyed by the lower-cased name, as the store's uniqueness is. */
    private static final class Model {
        final Map<String, MUser> users = new TreeMap<>();
        final Map<String, MGroup> groups = new TreeMap<>();
        final Map<String, String[]> policies = new TreeMap<>(); // name, document
        int counter;
    }

    private static final class MUser {
        String name;
        boolean enabled = true;
        final Map<String, String[]> keys = new TreeMap<>(); // id -> status, secret
        final Set<String> attached = new TreeSet<>();
        final Map<String, String> inline = new TreeMap<>();

        MUser(String name) {
            this.name = name;
        }
    }

    private static final class MGroup {
        final String name;
        final Set<String> members = new TreeSet<>();
        final Set<String> attached = new TreeSet<>();

        MGroup(String name) {
            this.name = name;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void afterEveryRestart_theStateIsTheLastAcknowledged(long seed) throws IOException {
        Random rnd = new Random(seed);
        try (IdentityDrives drives = new IdentityDrives(tmp, 4)) {
            IdentityStore store = drives.open(clock, IdentityDrives.KEY);
            Model m = new Model();
            Set<Integer> awayNow = new TreeSet<>();
            int restarts = 0;
            int changes = 0;
            for (int step = 0; step < 120; step++) {
                int op = rnd.nextInt(12);
                String what = "seed " + seed + " step " + step;
                if (op == 0 && awayNow.isEmpty()) {
                    int d = rnd.nextInt(4);
                    drives.takeAway(d, true);
                    awayNow.add(d);
                } else if (op == 1 && !awayNow.isEmpty()) {
                    int d = awayNow.iterator().next();
                    drives.bringBack(d);
                    awayNow.remove(d);
                    store.repair();
                } else if (op == 2) {
                    store = restart(drives, rnd, awayNow, m, what);
                    restarts++;
                } else if (change(rnd, store, m, step)) {
                    changes++;
                }
            }
            restart(drives, rnd, awayNow, m, "seed " + seed + " last");
            assertThat(restarts).isPositive();
            assertThat(changes).isGreaterThan(50);
        }
    }

    private IdentityStore restart(IdentityDrives drives, Random rnd, Set<Integer> awayNow, Model m, String what)
            throws IOException {
        for (Integer d : new ArrayList<>(awayNow)) {
            if (rnd.nextBoolean()) {
                drives.bringBack(d);
                awayNow.remove(d);
            }
        }
        while (awayNow.size() < 2 && rnd.nextInt(3) == 0) {
            int d = rnd.nextInt(4);
            if (awayNow.add(d)) {
                drives.takeAway(d, true);
            }
        }
        IdentityStore store = drives.open(clock, IdentityDrives.KEY);
        assertThat(view(store))
                .as(what + " (drives away at start: " + awayNow + ")")
                .isEqualTo(view(m));
        while (awayNow.size() > (rnd.nextBoolean() ? 1 : 0)) {
            int d = awayNow.iterator().next();
            drives.bringBack(d);
            awayNow.remove(d);
            store.repair();
        }
        assertThat(view(store)).as(what + " after drives returned").isEqualTo(view(m));
        return store;
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    private static <T> T pick(Random rnd, List<T> from) {
        return from.get(rnd.nextInt(from.size()));
    }

    private static long groupsOf(Model m, String user) {
        return m.groups.values().stream().filter(g -> g.members.contains(user)).count();
    }

    /** One random change that the model says is valid, made on the store and the model; false when none applied. */
    private boolean change(Random rnd, IdentityStore store, Model m, int step) {
        List<MUser> users = new ArrayList<>(m.users.values());
        List<MGroup> groups = new ArrayList<>(m.groups.values());
        List<String> policyNames = m.policies.values().stream().map(p -> p[0]).toList();
        String doc = "{\"step\":" + step + "}";
        switch (rnd.nextInt(14)) {
            case 0 -> {
                // sometimes in a case that differs from a later lookup's
                String name = (rnd.nextBoolean() ? "User" : "user") + (m.counter++);
                store.createUser(name);
                m.users.put(key(name), new MUser(name));
            }
            case 1 -> {
                if (users.isEmpty()) {
                    return false;
                }
                MUser u = pick(rnd, users);
                String newName = "renamed" + (m.counter++);
                store.renameUser(u.name.toUpperCase(Locale.ROOT), newName);
                m.users.remove(key(u.name));
                for (MGroup g : m.groups.values()) {
                    if (g.members.remove(u.name)) {
                        g.members.add(newName);
                    }
                }
                u.name = newName;
                m.users.put(key(newName), u);
            }
            case 2 -> {
                if (users.isEmpty()) {
                    return false;
                }
                MUser u = pick(rnd, users);
                store.setUserEnabled(u.name, !u.enabled);
                u.enabled = !u.enabled;
            }
            case 3, 4 -> {
                List<MUser> withRoom = users.stream()
                        .filter(u -> u.keys.size() < IdentityStore.MAX_ACCESS_KEYS_PER_USER)
                        .toList();
                if (withRoom.isEmpty()) {
                    return false;
                }
                MUser u = pick(rnd, withRoom);
                NewAccessKey k = store.createAccessKey(u.name);
                u.keys.put(k.key().accessKeyId(), new String[] {"Active", k.secretAccessKey()});
            }
            case 5 -> {
                List<MUser> withKeys =
                        users.stream().filter(u -> !u.keys.isEmpty()).toList();
                if (withKeys.isEmpty()) {
                    return false;
                }
                MUser u = pick(rnd, withKeys);
                String id = pick(rnd, new ArrayList<>(u.keys.keySet()));
                if (rnd.nextBoolean()) {
                    store.deleteAccessKey(rnd.nextBoolean() ? u.name : null, id);
                    u.keys.remove(id);
                } else {
                    String[] k = u.keys.get(id);
                    String next = k[0].equals("Active") ? "Inactive" : "Active";
                    store.updateAccessKey(u.name, id, AccessKey.Status.parse(next));
                    k[0] = next;
                }
            }
            case 6 -> {
                if (users.isEmpty()) {
                    return false;
                }
                MUser u = pick(rnd, users);
                String p = "inline" + rnd.nextInt(3);
                if (u.inline.containsKey(p) && rnd.nextBoolean()) {
                    store.deleteUserPolicy(u.name, p);
                    u.inline.remove(p);
                } else {
                    store.putUserPolicy(u.name, p, doc);
                    u.inline.put(p, doc);
                }
            }
            case 7 -> {
                List<MUser> bare = users.stream()
                        .filter(u -> u.keys.isEmpty()
                                && u.attached.isEmpty()
                                && u.inline.isEmpty()
                                && groupsOf(m, u.name) == 0)
                        .toList();
                if (bare.isEmpty()) {
                    return false;
                }
                MUser u = pick(rnd, bare);
                store.deleteUser(u.name);
                m.users.remove(key(u.name));
            }
            case 8 -> {
                String name = "group" + (m.counter++);
                store.createGroup(name);
                m.groups.put(key(name), new MGroup(name));
            }
            case 9 -> {
                if (groups.isEmpty() || users.isEmpty()) {
                    return false;
                }
                MGroup g = pick(rnd, groups);
                MUser u = pick(rnd, users);
                if (g.members.contains(u.name)) {
                    store.removeUserFromGroup(g.name, u.name);
                    g.members.remove(u.name);
                } else if (groupsOf(m, u.name) < IdentityStore.MAX_GROUPS_PER_USER) {
                    store.addUserToGroup(g.name, u.name);
                    g.members.add(u.name);
                } else {
                    return false;
                }
            }
            case 10 -> {
                List<MGroup> empty = groups.stream()
                        .filter(g -> g.members.isEmpty() && g.attached.isEmpty())
                        .toList();
                if (empty.isEmpty()) {
                    return false;
                }
                MGroup g = pick(rnd, empty);
                store.deleteGroup(g.name);
                m.groups.remove(key(g.name));
            }
            case 11 -> {
                String name = "Policy" + (m.counter++);
                store.createPolicy(name, doc);
                m.policies.put(key(name), new String[] {name, doc});
            }
            case 12 -> {
                if (policyNames.isEmpty()) {
                    return false;
                }
                String p = pick(rnd, policyNames);
                String arn = "arn:aws:iam::" + store.accountId() + ":policy/" + p;
                long attached = m.users.values().stream()
                                .filter(u -> u.attached.contains(arn))
                                .count()
                        + m.groups.values().stream()
                                .filter(g -> g.attached.contains(arn))
                                .count();
                if (attached == 0 && rnd.nextBoolean()) {
                    store.deletePolicy(p);
                    m.policies.remove(key(p));
                } else {
                    store.updatePolicy(p, doc);
                    m.policies.get(key(p))[1] = doc;
                }
            }
            default -> {
                if (policyNames.isEmpty() || (users.isEmpty() && groups.isEmpty())) {
                    return false;
                }
                String arn = "arn:aws:iam::" + store.accountId() + ":policy/" + pick(rnd, policyNames);
                boolean toUser = groups.isEmpty() || (!users.isEmpty() && rnd.nextBoolean());
                Set<String> attached = toUser ? pick(rnd, users).attached : pick(rnd, groups).attached;
                String owner = toUser
                        ? m.users.values().stream()
                                .filter(u -> u.attached == attached)
                                .findFirst()
                                .orElseThrow()
                                .name
                        : m.groups.values().stream()
                                .filter(g -> g.attached == attached)
                                .findFirst()
                                .orElseThrow()
                                .name;
                if (attached.contains(arn)) {
                    if (toUser) {
                        store.detachUserPolicy(owner, arn);
                    } else {
                        store.detachGroupPolicy(owner, arn);
                    }
                    attached.remove(arn);
                } else if (attached.size() < IdentityStore.MAX_ATTACHED_POLICIES) {
                    if (toUser) {
                        store.attachUserPolicy(owner, arn);
                    } else {
                        store.attachGroupPolicy(owner, arn);
                    }
                    attached.add(arn);
                } else {
                    return false;
                }
            }
        }
        return true;
    }

    private static String view(Model m) {
        StringBuilder sb = new StringBuilder();
        for (MUser u : m.users.values()) {
            StringBuilder keys = new StringBuilder();
            u.keys.forEach((id, k) -> keys.append(id)
                    .append(':')
                    .append(k[0])
                    .append(':')
                    .append(k[1])
                    .append(' '));
            sb.append(user(u.name, u.enabled, new TreeSet<>(u.attached), new TreeMap<>(u.inline), keys.toString()));
        }
        for (MGroup g : m.groups.values()) {
            sb.append(group(g.name, new TreeSet<>(g.members), new TreeSet<>(g.attached)));
        }
        for (String[] p : m.policies.values()) {
            sb.append("policy ").append(p[0]).append(' ').append(p[1]).append('\n');
        }
        return sb.toString();
    }

    private static String view(IdentityStore s) {
        StringBuilder sb = new StringBuilder();
        for (User u : s.users()) {
            StringBuilder keys = new StringBuilder();
            // by id, as the model keeps them (the store lists them oldest first)
            for (AccessKey k : s.accessKeys(u.name()).stream()
                    .sorted(java.util.Comparator.comparing(AccessKey::accessKeyId))
                    .toList()) {
                Credential c = s.credential(k.accessKeyId()).orElseThrow();
                keys.append(k.accessKeyId())
                        .append(':')
                        .append(k.status())
                        .append(':')
                        .append(c.secretAccessKey())
                        .append(' ');
            }
            sb.append(user(
                    u.name(), u.enabled(), new TreeSet<>(u.attachedPolicies()), u.inlinePolicies(), keys.toString()));
        }
        for (Group g : s.groups()) {
            sb.append(group(g.name(), new TreeSet<>(g.members()), new TreeSet<>(g.attachedPolicies())));
        }
        for (ManagedPolicy p : s.policies()) {
            sb.append("policy ")
                    .append(p.name())
                    .append(' ')
                    .append(p.document())
                    .append('\n');
        }
        return sb.toString();
    }

    private static String user(
            String name, boolean enabled, Set<String> attached, Map<String, String> inline, String keys) {
        return "user " + name + " enabled=" + enabled + " attached=" + attached + " inline=" + inline + " keys=" + keys
                + "\n";
    }

    private static String group(String name, Set<String> members, Set<String> attached) {
        return "group " + name + " members=" + members + " attached=" + attached + "\n";
    }
}
