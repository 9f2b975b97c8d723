package dev.appliance.s3.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The owner shown in listings: a stable id derived from the access key (64 hex, like S3's canonical ids). */
public record Owner(String id, String displayName) {
    public static Owner of(String accessKey) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest(("owner:" + accessKey).getBytes(StandardCharsets.UTF_8));
            return new Owner(HexFormat.of().formatHex(h), accessKey);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
