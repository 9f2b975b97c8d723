package dev.appliance.core.alerts;

/** Stable alert codes; each has a runbook entry in docs/alerts.md under its name. */
public enum AlertCode {
    /** Keys of a bucket hold more versions than the bucket's alert threshold (default 1,000). */
    VERSIONS_PER_KEY_HIGH(Severity.WARNING),
    /**
     * A bucket gains versions of unchanged content (consecutive versions with equal ETags) fast enough that its keys
     * will pass the threshold within one lifecycle day under the rules in force.
     */
    VERSIONS_IDENTICAL_REUPLOADS(Severity.WARNING),
    /** Keys are at 90% or more of the hard cap of versions per key: writes to them will soon be refused. */
    VERSIONS_NEAR_CAP(Severity.CRITICAL),
    /**
     * A drive is out of service (offline: missing, unmounted, not its slot's; faulty: I/O errors or a stall): its set
     * has one parity shard less until it is back or replaced. Raised by the appliance's health checks.
     */
    DRIVE_OUT_OF_SERVICE(Severity.CRITICAL, false),
    /** A health check (preflight rule or runtime state) failed: not fit to hold backups until fixed. */
    HEALTH_CHECK_FAILED(Severity.CRITICAL, false),
    /** A health check warns: works, but slower, less robust or harder to operate than it should be. */
    HEALTH_CHECK_WARNING(Severity.WARNING, false);

    /** How urgent an alert is. */
    public enum Severity {
        WARNING,
        CRITICAL
    }

    private final Severity severity;
    private final boolean perBucket;

    AlertCode(Severity severity) {
        this(severity, true);
    }

    AlertCode(Severity severity, boolean perBucket) {
        this.severity = severity;
        this.perBucket = perBucket;
    }

    public Severity severity() {
        return severity;
    }

    /**
     * True for the version-explosion codes (one alert per bucket, decided by {@link VersionAlerts#evaluate}); false
     * for the health codes (one alert per health check, decided by {@link VersionAlerts#reportHealth}).
     */
    public boolean perBucket() {
        return perBucket;
    }

    /**
     * The alert id of this code for a bucket (or, for a health code, a check id): one alert per code and subject, so
     * repeats update it instead.
     */
    public String idFor(String bucket) {
        return name() + ":" + bucket;
    }
}
