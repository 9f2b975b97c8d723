package dev.appliance.app.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Locks console logins out after repeated failures, per access key and per source address, so that a secret cannot
 * be guessed through the login form: {@link #MAX_FAILURES} failures within {@link #WINDOW} lock that key (and that
 * address) for {@link #LOCKOUT}, whatever is tried then, right or wrong. A success clears the key's count. Kept in
 * memory (a restart forgets it) and bounded: the oldest entries go first when it is full.
 */
final class LoginThrottle {
    static final int MAX_FAILURES = 5;
    static final Duration WINDOW = Duration.ofMinutes(15);
    static final Duration LOCKOUT = Duration.ofMinutes(15);
    private static final int MAX_ENTRIES = 10_000;

    private final Clock clock;
    private final Map<String, Failures> failures = new LinkedHashMap<>();

    private static final class Failures {
        Instant first;
        int count;
        Instant lockedUntil;
    }

    LoginThrottle(Clock clock) {
        this.clock = clock;
    }

    Instant now() {
        return clock.instant();
    }

    /** When the lockout of {@code accessKey} or {@code source} ends, if either is locked now. */
    synchronized Optional<Instant> lockedUntil(String accessKey, String source) {
        Instant now = clock.instant();
        Instant a = locked(key(accessKey), now);
        Instant b = locked(address(source), now);
        if (a == null) {
            return Optional.ofNullable(b);
        }
        return Optional.of(b == null || a.isAfter(b) ? a : b);
    }

    synchronized void failed(String accessKey, String source) {
        Instant now = clock.instant();
        count(key(accessKey), now);
        count(address(source), now);
    }

    synchronized void succeeded(String accessKey) {
        failures.remove(key(accessKey));
    }

    private Instant locked(String id, Instant now) {
        Failures f = failures.get(id);
        return f != null && f.lockedUntil != null && now.isBefore(f.lockedUntil) ? f.lockedUntil : null;
    }

    private void count(String id, Instant now) {
        Failures f = failures.remove(id); // re-inserted: the map's order is by last failure
        if (f == null || now.isAfter(f.first.plus(WINDOW)) || (f.lockedUntil != null && !now.isBefore(f.lockedUntil))) {
            f = new Failures();
            f.first = now;
        }
        f.count++;
        if (f.count >= MAX_FAILURES) {
            f.lockedUntil = now.plus(LOCKOUT);
        }
        failures.put(id, f);
        for (Iterator<String> it = failures.keySet().iterator(); failures.size() > MAX_ENTRIES; ) {
            it.next();
            it.remove();
        }
    }

    private static String key(String accessKey) {
        return "key:" + accessKey;
    }

    private static String address(String source) {
        return "from:" + source;
    }
}
