package dev.appliance.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lifecycle.Lifecycle.Action;
import dev.appliance.core.lifecycle.Lifecycle.Version;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Expiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Filter;
import dev.appliance.core.lifecycle.LifecycleConfiguration.NoncurrentExpiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Rule evaluation as S3 does it: day rounding, current and noncurrent expiry, lone delete markers, uploads. */
class LifecycleTest {
    private static final Lifecycle DAYS = new Lifecycle(Lifecycle.STANDARD_DAY);

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    private static LifecycleConfiguration config(Rule... rules) {
        return new LifecycleConfiguration(List.of(rules));
    }

    private static Rule expireAfter(String id, String prefix, int days) {
        return new Rule(id, true, new Filter(prefix, null, null, null), new Expiration(days, null, false), null, null);
    }

    private static Rule noncurrent(String id, Integer days, Integer newer) {
        return new Rule(id, true, Filter.ALL, null, new NoncurrentExpiration(days, newer), null);
    }

    /** AWS's rounding: start + days, then up to the next midnight UTC (a midnight itself moves a whole day on). */
    @ParameterizedTest(name = "{0} + {1} days -> {2}")
    @CsvSource({
        "2014-01-15T10:30:00Z, 3, 2014-01-19T00:00:00Z",
        "2014-01-15T00:00:00Z, 1, 2014-01-17T00:00:00Z",
        "2014-01-15T23:59:59.999Z, 1, 2014-01-17T00:00:00Z",
        "2014-01-15T00:00:00.001Z, 1, 2014-01-17T00:00:00Z",
        "2014-12-31T12:00:00Z, 1, 2015-01-02T00:00:00Z",
        "2016-02-28T08:00:00Z, 1, 2016-03-01T00:00:00Z",
        "2015-02-28T08:00:00Z, 1, 2015-03-02T00:00:00Z",
        "2020-06-01T18:45:00Z, 30, 2020-07-02T00:00:00Z",
        "2020-06-01T18:45:00Z, 365, 2021-06-02T00:00:00Z",
    })
    void due_roundsUpToTheNextMidnightUtc(String start, int days, String expected) {
        assertThat(DAYS.due(at(start), days)).isEqualTo(at(expected));
    }

    @ParameterizedTest(name = "day {0}: {1} + {2} -> {3}")
    @CsvSource({
        "PT10S, 1970-01-01T00:00:03Z, 1, 1970-01-01T00:00:20Z",
        "PT10S, 1970-01-01T00:00:10Z, 1, 1970-01-01T00:00:30Z",
        "PT10S, 2026-11-21T14:00:07Z, 2, 2026-11-21T14:00:30Z",
        "PT2S, 2026-11-21T14:00:07.500Z, 1, 2026-11-21T14:00:10Z",
        "PT1H, 2026-11-21T14:20:00Z, 1, 2026-11-21T16:00:00Z",
    })
    void due_withAShortDay_roundsToItsMultiples(String day, String start, int days, String expected) {
        assertThat(new Lifecycle(Duration.parse(day)).due(at(start), days)).isEqualTo(at(expected));
    }

    @Test
    void due_farInTheFuture_doesNotOverflow() {
        assertThat(DAYS.due(at("2026-01-01T00:00:00Z"), Integer.MAX_VALUE)).isAfter(at("+5000000-01-01T00:00:00Z"));
        assertThat(new Lifecycle(Duration.ofDays(365_000)).due(at("2026-01-01T00:00:00Z"), Integer.MAX_VALUE))
                .isEqualTo(Instant.MAX);
    }

    @Test
    void currentExpiry_picksTheEarliestMatchingRule() {
        var c = config(
                expireAfter("late", "", 30),
                expireAfter("early", "logs/", 2),
                new Rule(
                        "dated",
                        true,
                        new Filter("logs/", null, null, null),
                        new Expiration(null, at("2030-01-01T00:00:00Z"), false),
                        null,
                        null),
                new Rule("off", false, Filter.ALL, new Expiration(1, null, false), null, null));
        var made = at("2026-03-10T09:00:00Z");
        assertThat(DAYS.currentExpiry(c, "logs/a", made, 10, Map.of()))
                .isEqualTo(new Lifecycle.Expiry(at("2026-03-13T00:00:00Z"), "early"));
        assertThat(DAYS.currentExpiry(c, "data/a", made, 10, Map.of()))
                .isEqualTo(new Lifecycle.Expiry(at("2026-04-10T00:00:00Z"), "late"));
    }

    @Test
    void filters_matchPrefixTagsAndSizeBounds() {
        var f = new Filter("a/", Map.of("class", "tmp", "team", "x"), 100L, 1000L);
        assertThat(f.matches("a/k", 500, Map.of("class", "tmp", "team", "x", "other", "y")))
                .isTrue();
        assertThat(f.matches("b/k", 500, Map.of("class", "tmp", "team", "x"))).isFalse();
        assertThat(f.matches("a/k", 500, Map.of("class", "tmp"))).isFalse();
        assertThat(f.matches("a/k", 100, Map.of("class", "tmp", "team", "x"))).isFalse();
        assertThat(f.matches("a/k", 1000, Map.of("class", "tmp", "team", "x"))).isFalse();
        assertThat(f.matchesDeleteMarker("a/k")).isFalse();
        assertThat(new Filter("a/", null, null, null).matchesDeleteMarker("a/k"))
                .isTrue();
    }

    @Test
    void currentVersion_expiresOnlyOnceDue() {
        var c = config(expireAfter("r", "", 1));
        var made = at("2026-03-10T09:00:00Z");
        Version v = new Version(made, false, 5, Map.of());
        assertThat(DAYS.pass(c, "k", at("2026-03-11T23:59:59Z")).next(v).action())
                .isEqualTo(Action.KEEP);
        var d = DAYS.pass(c, "k", at("2026-03-12T00:00:00Z")).next(v);
        assertThat(d.action()).isEqualTo(Action.EXPIRE_CURRENT);
        assertThat(d.ruleId()).isEqualTo("r");
    }

    @Test
    void noncurrentDays_countFromTheSuccessorsCreation() {
        var c = config(noncurrent("nc", 2, null));
        // v0 current (made day 10), v1 replaced by v0 on day 10, v2 replaced by v1 on day 5
        List<Version> versions = List.of(
                new Version(at("2026-03-10T12:00:00Z"), false, 1, Map.of()),
                new Version(at("2026-03-05T12:00:00Z"), false, 1, Map.of()),
                new Version(at("2026-03-01T12:00:00Z"), false, 1, Map.of()));
        // v1 noncurrent since 03-10 12:00 -> due 03-13 00:00; v2 since 03-05 12:00 -> due 03-08 00:00
        assertThat(actions(c, versions, at("2026-03-12T23:00:00Z")))
                .containsExactly(Action.KEEP, Action.KEEP, Action.REMOVE_NONCURRENT);
        assertThat(actions(c, versions, at("2026-03-13T00:00:00Z")))
                .containsExactly(Action.KEEP, Action.REMOVE_NONCURRENT, Action.REMOVE_NONCURRENT);
        assertThat(actions(c, versions, at("2026-03-07T23:00:00Z")))
                .containsExactly(Action.KEEP, Action.KEEP, Action.KEEP);
    }

    @Test
    void newerNoncurrentVersions_keepsThatManyNewestNoncurrent() {
        var c = config(noncurrent("keep3", 1, 3));
        List<Version> versions = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            versions.add(new Version(at("2026-03-20T00:00:00Z").minus(Duration.ofDays(i)), false, 1, Map.of()));
        }
        assertThat(actions(c, versions, at("2026-04-01T00:00:00Z")))
                .containsExactly(
                        Action.KEEP,
                        Action.KEEP,
                        Action.KEEP,
                        Action.KEEP,
                        Action.REMOVE_NONCURRENT,
                        Action.REMOVE_NONCURRENT,
                        Action.REMOVE_NONCURRENT);
        // both conditions: v4 has three newer noncurrent versions but became noncurrent on 03-17 (due 03-19)
        assertThat(actions(c, versions, at("2026-03-18T12:00:00Z")))
                .containsExactly(
                        Action.KEEP,
                        Action.KEEP,
                        Action.KEEP,
                        Action.KEEP,
                        Action.KEEP,
                        Action.REMOVE_NONCURRENT,
                        Action.REMOVE_NONCURRENT);
    }

    @Test
    void newerNoncurrentVersionsAlone_removesBeyondTheCountAtOnce() {
        var c = config(noncurrent("n", null, 1));
        List<Version> versions = IntStream.range(0, 4)
                .mapToObj(i -> new Version(at("2026-03-20T00:00:00Z").minusSeconds(i), false, 1, Map.of()))
                .toList();
        assertThat(actions(c, versions, at("2026-03-20T00:00:01Z")))
                .containsExactly(Action.KEEP, Action.KEEP, Action.REMOVE_NONCURRENT, Action.REMOVE_NONCURRENT);
    }

    @Test
    void noncurrentDeleteMarkers_areRemovedLikeVersions_butNotByTagFilters() {
        var byPrefix = config(noncurrent("nc", 1, null));
        var byTag = config(new Rule(
                "t",
                true,
                new Filter("", Map.of("a", "b"), null, null),
                null,
                new NoncurrentExpiration(1, null),
                null));
        List<Version> versions = List.of(
                new Version(at("2026-03-10T00:00:00Z"), false, 1, Map.of()),
                new Version(at("2026-03-05T00:00:00Z"), true, 0, Map.of()));
        assertThat(actions(byPrefix, versions, at("2026-04-01T00:00:00Z")))
                .containsExactly(Action.KEEP, Action.REMOVE_NONCURRENT);
        assertThat(actions(byTag, versions, at("2026-04-01T00:00:00Z"))).containsExactly(Action.KEEP, Action.KEEP);
    }

    @Test
    void lonelyMarker_removedByTheFlag_orByDaysOnceDue_onlyWithNothingBehindIt() {
        var flag = config(new Rule("eodm", true, Filter.ALL, new Expiration(null, null, true), null, null));
        var days = config(expireAfter("d", "", 2));
        Version marker = new Version(at("2026-03-10T12:00:00Z"), true, 0, Map.of());

        var p = DAYS.pass(flag, "k", at("2026-03-10T12:00:01Z"));
        assertThat(p.next(marker).action()).isEqualTo(Action.KEEP);
        assertThat(p.lonelyMarker(0)).isEqualTo("eodm");
        assertThat(p.lonelyMarker(1)).isNull();

        var early = DAYS.pass(days, "k", at("2026-03-12T23:00:00Z"));
        early.next(marker);
        assertThat(early.lonelyMarker(0)).isNull();
        var due = DAYS.pass(days, "k", at("2026-03-13T00:00:00Z"));
        due.next(marker);
        assertThat(due.lonelyMarker(0)).isEqualTo("d");

        var object = DAYS.pass(flag, "k", at("2026-04-01T00:00:00Z"));
        object.next(new Version(at("2026-03-10T12:00:00Z"), false, 1, Map.of()));
        assertThat(object.lonelyMarker(0)).isNull();
    }

    @Test
    void uploadAbort_byDaysAfterInitiation_withPrefix() {
        var c = config(new Rule("mpu", true, new Filter("tmp/", null, null, null), null, null, 1));
        assertThat(DAYS.uploadAbort(c, "tmp/a", at("2026-03-10T08:00:00Z")))
                .isEqualTo(new Lifecycle.Expiry(at("2026-03-12T00:00:00Z"), "mpu"));
        assertThat(DAYS.uploadAbort(c, "keep/a", at("2026-03-10T08:00:00Z"))).isNull();
    }

    @Test
    void validation_refusesWhatS3Refuses() {
        assertInvalid(() -> new Expiration(0, null, false), "'Days' for Expiration action must be a positive integer");
        assertInvalid(() -> new Expiration(null, at("2026-03-10T01:00:00Z"), false), "'Date' must be at midnight GMT");
        assertInvalid(() -> new Expiration(1, at("2026-03-10T00:00:00Z"), false), "exactly one");
        assertInvalid(() -> new Expiration(1, null, true), "exactly one");
        assertInvalid(
                () -> new NoncurrentExpiration(0, null),
                "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer");
        assertInvalid(() -> new NoncurrentExpiration(1, 101), "NewerNoncurrentVersions");
        assertInvalid(
                () -> new Rule("x".repeat(256), true, Filter.ALL, new Expiration(1, null, false), null, null),
                "ID length should not exceed allowed limit of 255");
        assertInvalid(
                () -> new Rule("a", true, Filter.ALL, null, null, 0),
                "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer");
        assertInvalid(() -> config(expireAfter("same", "", 1), expireAfter("same", "b", 2)), "Rule ID must be unique");
        assertInvalid(() -> new Filter("", null, 10L, 10L), "ObjectSizeGreaterThan");
        List<Rule> many = IntStream.range(0, 1001)
                .mapToObj(i -> expireAfter("r" + i, "", 1))
                .toList();
        assertInvalid(() -> new LifecycleConfiguration(many), "1000");
        assertThatThrownBy(() -> new Rule("a", true, Filter.ALL, null, null, null))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_REQUEST));
        assertThatThrownBy(() -> new Rule("a", true, new Filter("", Map.of("k", "v"), null, null), null, null, 1))
                .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("AbortIncompleteMultipartUpload cannot be specified with Tags."));
        assertThat(new Rule(null, true, Filter.ALL, new Expiration(1, null, false), null, null).id())
                .isNotEmpty();
    }

    private static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT))
                .hasMessageContaining(message);
    }

    private static List<Action> actions(LifecycleConfiguration c, List<Version> newestFirst, Instant now) {
        var pass = DAYS.pass(c, "k", now);
        return newestFirst.stream().map(v -> pass.next(v).action()).toList();
    }
}
