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
    VERSIONS_NEAR_CAP(Severity.CRITICAL);

    /** How urgent an alert is. */
    public enum Severity {
        WARNING,
        CRITICAL
    }

    private final Severity severity;

    AlertCode(Severity severity) {
        this.severity = severity;
    }

    public Severity severity() {
        return severity;
    }

    /** The alert id of this code for a bucket: one alert per code and bucket, so repeats update it instead. */
    public String idFor(String bucket) {
        return name() + ":" + bucket;
    }
}
