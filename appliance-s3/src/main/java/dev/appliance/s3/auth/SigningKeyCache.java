package dev.appliance.s3.auth;

import java.util.LinkedHashMap;
import java.util.Map;

/** A small LRU of derived signing keys per (secret, date, region): the four-HMAC derivation runs once a day per key. */
final class SigningKeyCache {
    private record Key(String secret, String date, String region) {}

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
        Key k = new Key(secret, date, region);
        synchronized (map) {
            byte[] cached = map.get(k);
            if (cached != null) {
                return cached;
            }
        }
        byte[] derived = SigV4.signingKey(secret, date, region, "s3");
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
