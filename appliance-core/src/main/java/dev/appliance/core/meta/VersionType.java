package dev.appliance.core.meta;

/** Kind of a version entry in {@code xl.meta}; the id is what is stored. */
public enum VersionType {
    OBJECT(1),
    DELETE_MARKER(2);

    private final int id;

    VersionType(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    public static VersionType byId(int id) {
        for (VersionType t : values()) {
            if (t.id == id) {
                return t;
            }
        }
        throw new IllegalArgumentException("version type id: " + id + " (expected 1 or 2)");
    }
}
