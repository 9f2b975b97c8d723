package dev.appliance.core.policy;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The appliance's own administrative actions ({@code admin:*}), authorized like S3 actions by the admin API, the
 * console and the IAM API. Resource: {@code *} unless the caller narrows it.
 *
 * <p>{@link #revealsSecret()} marks the actions whose response carries a secret (a new access key's secret, a bearer
 * token, configuration with its secret values): the built-in auditor policy denies them explicitly, so a future
 * {@code Get}/{@code List} action that reveals a secret stays out of an auditor's reach once it is marked here.
 */
public enum AdminAction {
    LIST_USERS("ListUsers", true, false),
    GET_USER("GetUser", true, false),
    CREATE_USER("CreateUser", false, false),
    UPDATE_USER("UpdateUser", false, false),
    DELETE_USER("DeleteUser", false, false),
    LIST_ACCESS_KEYS("ListAccessKeys", true, false),
    CREATE_ACCESS_KEY("CreateAccessKey", false, true),
    UPDATE_ACCESS_KEY("UpdateAccessKey", false, false),
    DELETE_ACCESS_KEY("DeleteAccessKey", false, false),
    LIST_GROUPS("ListGroups", true, false),
    GET_GROUP("GetGroup", true, false),
    CREATE_GROUP("CreateGroup", false, false),
    UPDATE_GROUP("UpdateGroup", false, false),
    DELETE_GROUP("DeleteGroup", false, false),
    LIST_POLICIES("ListPolicies", true, false),
    GET_POLICY("GetPolicy", true, false),
    CREATE_POLICY("CreatePolicy", false, false),
    UPDATE_POLICY("UpdatePolicy", false, false),
    DELETE_POLICY("DeletePolicy", false, false),
    ATTACH_POLICY("AttachPolicy", false, false),
    DETACH_POLICY("DetachPolicy", false, false),
    LIST_TOKENS("ListTokens", true, false),
    CREATE_TOKEN("CreateToken", false, true),
    REVOKE_TOKEN("RevokeToken", false, false),
    GET_CONFIG("GetConfig", true, false),
    GET_CONFIG_SECRETS("GetConfigSecrets", true, true),
    PUT_CONFIG("PutConfig", false, false),
    LIST_BUCKETS("ListBuckets", true, false),
    GET_BUCKET("GetBucket", true, false),
    CREATE_BUCKET("CreateBucket", false, false),
    UPDATE_BUCKET("UpdateBucket", false, false),
    DELETE_BUCKET("DeleteBucket", false, false),
    LIST_DRIVES("ListDrives", true, false),
    GET_DRIVE("GetDrive", true, false),
    GET_HEAL_STATUS("GetHealStatus", true, false),
    START_HEAL("StartHeal", false, false),
    GET_SCANNER_STATUS("GetScannerStatus", true, false),
    UPDATE_SCANNER("UpdateScanner", false, false),
    LIST_ALERTS("ListAlerts", true, false),
    ACKNOWLEDGE_ALERT("AcknowledgeAlert", false, false),
    GET_AUDIT_LOG("GetAuditLog", true, false),
    GET_METRICS("GetMetrics", true, false),
    GET_SERVER_INFO("GetServerInfo", true, false),
    /** The health checks' last results: hardware and OS facts (CPU, drives, kernel settings), no secret. */
    GET_HEALTH_CHECKS("GetHealthChecks", true, false),
    /** Runs the health checks now (drive I/O, alerts raised or cleared). */
    RUN_HEALTH_CHECKS("RunHealthChecks", false, false),
    /** Whether the S3 access log is on, and its counts. */
    GET_LOGGING("GetLogging", true, false),
    /** Switches the S3 access log on or off. */
    UPDATE_LOGGING("UpdateLogging", false, false),
    /** A lifecycle dry run: reads the bucket's versions, changes nothing (an auditor may preview). */
    PREVIEW_LIFECYCLE("GetLifecyclePreview", true, false);

    private static final Map<String, AdminAction> BY_NAME = new HashMap<>();

    static {
        for (AdminAction a : values()) {
            BY_NAME.put(a.iamName.toLowerCase(Locale.ROOT), a);
        }
    }

    private final String iamName;
    private final boolean read;
    private final boolean revealsSecret;

    AdminAction(String name, boolean read, boolean revealsSecret) {
        this.iamName = "admin:" + name;
        this.read = read;
        this.revealsSecret = revealsSecret;
    }

    /** The action's name in policies and in {@link RequestContext#action()}, e.g. {@code admin:ListUsers}. */
    public String iamName() {
        return iamName;
    }

    /** True when the action changes nothing. */
    public boolean read() {
        return read;
    }

    /** True when the response carries a secret (see the class comment). */
    public boolean revealsSecret() {
        return revealsSecret;
    }

    /** The action named {@code iamName} (case-insensitive, with the {@code admin:} prefix), or null. */
    public static AdminAction named(String iamName) {
        return BY_NAME.get(iamName.toLowerCase(Locale.ROOT));
    }
}
