package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a policy is evaluated against: the action ({@code s3:GetObject}), the resource ARN ({@code
 * arn:aws:s3:::bucket/key}; {@code arn:aws:s3:::bucket} for bucket actions, {@code *} for account-level ones such as
 * {@code s3:ListAllMyBuckets}), who asks, when, and the request's condition keys.
 *
 * <p>The request time comes from here, never from a clock read during evaluation. These keys are derived from the
 * fields and need not be put in {@code keys}: {@code aws:username}, {@code aws:userid}, {@code aws:PrincipalArn},
 * {@code aws:PrincipalAccount}, {@code aws:PrincipalType} (absent for anonymous requests), {@code aws:CurrentTime},
 * {@code aws:EpochTime}, {@code aws:SecureTransport} and {@code aws:SourceIp} (absent when null). Everything else
 * ({@code s3:prefix}, {@code s3:max-keys}, {@code s3:x-amz-acl}, {@code s3:object-lock-mode}, {@code
 * s3:ExistingObjectTag/<k>} ...) goes in {@code keys}; key names are case-insensitive (stored lower-cased), a key with
 * several values (a multi-valued key) has several entries, a key absent from the request is absent from the map.
 *
 * @param action the IAM action name, e.g. {@code s3:PutObject} (see {@link S3Action#iamName()})
 * @param resource the resource ARN
 * @param principalArn the caller's ARN ({@code arn:aws:iam::<account>:user/<name>}), null for an anonymous request
 * @param accountId the account the caller and the resources belong to (this appliance has one)
 * @param userName the caller's user name, null for anonymous
 * @param userId the caller's unique id, null for anonymous
 * @param time the request's time
 * @param secureTransport whether the request came over TLS
 * @param sourceIp the client's address (IPv4 or IPv6 literal), or null when unknown
 * @param keys the other condition keys, by lower-cased name
 */
public record RequestContext(
        String action,
        String resource,
        String principalArn,
        String accountId,
        String userName,
        String userId,
        Instant time,
        boolean secureTransport,
        String sourceIp,
        Map<String, List<String>> keys) {

    private static final List<String> TRUE = List.of("true");
    private static final List<String> FALSE = List.of("false");

    public RequestContext {
        requireNonNull(action, "action");
        requireNonNull(resource, "resource");
        requireNonNull(accountId, "accountId");
        requireNonNull(time, "time");
        requireNonNull(keys, "keys");
        if (action.isEmpty()) {
            throw new IllegalArgumentException("action: empty (expected service:Name)");
        }
        if (principalArn == null && (userName != null || userId != null)) {
            throw new IllegalArgumentException(
                    "principalArn: null with userName '" + userName + "' (an anonymous request has no user)");
        }
        boolean lowerCase = true;
        for (Map.Entry<String, List<String>> e : keys.entrySet()) {
            requireNonNull(e.getValue(), () -> "keys: no values for " + e.getKey());
            if (!e.getKey().equals(e.getKey().toLowerCase(Locale.ROOT))) {
                lowerCase = false;
            }
        }
        if (!lowerCase) {
            Map<String, List<String>> folded = new HashMap<>();
            keys.forEach((k, v) -> folded.put(k.toLowerCase(Locale.ROOT), v));
            keys = folded;
        }
        keys = Map.copyOf(keys);
    }

    /** A request by the user {@code userName} of {@code accountId}, with no other keys yet. */
    public static Builder builder(String action, String resource) {
        return new Builder(action, resource);
    }

    /** True when no credentials were presented. */
    public boolean anonymous() {
        return principalArn == null;
    }

    /**
     * The values of condition key {@code key} (lower-case) in this request, or null when the request has no such key.
     * Derived keys are made on demand, so a policy that never asks for the time costs no formatting.
     */
    List<String> values(String key) {
        if (key.startsWith("aws:")) {
            switch (key) {
                case "aws:username" -> {
                    return userName == null ? null : List.of(userName);
                }
                case "aws:userid" -> {
                    return userId == null ? null : List.of(userId);
                }
                case "aws:principalarn" -> {
                    return principalArn == null ? null : List.of(principalArn);
                }
                case "aws:principalaccount" -> {
                    return principalArn == null ? null : List.of(accountId);
                }
                case "aws:principaltype" -> {
                    return principalArn == null ? null : List.of(userName == null ? "Account" : "User");
                }
                case "aws:currenttime" -> {
                    return List.of(time.toString());
                }
                case "aws:epochtime" -> {
                    return List.of(Long.toString(time.getEpochSecond()));
                }
                case "aws:securetransport" -> {
                    return secureTransport ? TRUE : FALSE;
                }
                case "aws:sourceip" -> {
                    return sourceIp == null ? null : List.of(sourceIp);
                }
                default -> {}
            }
        }
        return keys.get(key);
    }

    /** Builds a {@link RequestContext}; unset fields are an anonymous caller over plain HTTP, account 000000000000. */
    public static final class Builder {
        private final String action;
        private final String resource;
        private String principalArn;
        private String accountId = "000000000000";
        private String userName;
        private String userId;
        private Instant time;
        private boolean secureTransport;
        private String sourceIp;
        private final Map<String, List<String>> keys = new HashMap<>();

        private Builder(String action, String resource) {
            this.action = action;
            this.resource = resource;
        }

        /** The caller: a user of {@code accountId} with ARN {@code arn:aws:iam::<accountId>:user/<userName>}. */
        public Builder user(String accountId, String userName, String userId) {
            this.accountId = requireNonNull(accountId, "accountId");
            this.userName = requireNonNull(userName, "userName");
            this.userId = requireNonNull(userId, "userId");
            this.principalArn = "arn:aws:iam::" + accountId + ":user/" + userName;
            return this;
        }

        /** The caller: the account's root credential ({@code arn:aws:iam::<accountId>:root}). */
        public Builder root(String accountId) {
            this.accountId = requireNonNull(accountId, "accountId");
            this.principalArn = "arn:aws:iam::" + accountId + ":root";
            this.userName = null;
            this.userId = accountId;
            return this;
        }

        /** The account an anonymous request is made against. */
        public Builder account(String accountId) {
            this.accountId = requireNonNull(accountId, "accountId");
            return this;
        }

        public Builder time(Instant time) {
            this.time = time;
            return this;
        }

        public Builder secureTransport(boolean secureTransport) {
            this.secureTransport = secureTransport;
            return this;
        }

        public Builder sourceIp(String sourceIp) {
            this.sourceIp = sourceIp;
            return this;
        }

        /** Adds condition key {@code name} (any case) with {@code values}; several values make it multi-valued. */
        public Builder key(String name, String... values) {
            keys.put(name.toLowerCase(Locale.ROOT), List.of(values));
            return this;
        }

        public RequestContext build() {
            return new RequestContext(
                    action, resource, principalArn, accountId, userName, userId, time, secureTransport, sourceIp, keys);
        }
    }
}
