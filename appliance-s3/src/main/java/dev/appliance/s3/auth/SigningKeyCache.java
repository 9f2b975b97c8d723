package dev.appliance.s3.auth;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small LRU of derived signing keys per (secret, date, region, service): the four-HMAC derivation runs once a day per
 * key and service.
 */
final class SigningKeyCache {
    private record Key(String secret, String date, String region, String service) {}

    private final int capacity;
    private final LinkedHashMap<Key, byte[]> map;

    SigningKeyCache(int capacity) {
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, byte[]> eldest) {
                return size() > SigningKeyCache.this.capacity;
            }
        };
    }

    byte[] get(String secret, String date, String region) {
        return get(secret, date, region, "s3");
    }

    byte[] get(String secret, String date, String region, String service) {
        Key k = new Key(secret, date, region, service);
        synchronized (map) {
            byte[] cached = map.get(k);
            if (cached != null) {
                return cached;
            }
        }
        byte[] derived = SigV4.signingKey(secret, date, region, service);
        synchronized (map) {
            map.put(k, derived);
        }
        return derived;
    }

    int size() {
        synchronized (map) {
            return map.size();
        }
    }
}
