package dev.appliance.core.drive;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.util.List;
import java.util.UUID;

/**
 * The content of {@code .appliance.sys/format.json} on every drive: which deployment the drive belongs to, which slot
 * it fills, and the whole topology, so a drive put in the wrong place or taken from another deployment is recognised.
 *
 * <pre>{@code
 * { "version": 1, "format": "appliance-erasure", "deploymentId": "<uuid>", "thisDrive": "<uuid>",
 *   "sets": [["<uuid>", ...], ...], "placement": "SIPHASH24-KEY-MOD-SETS+ROTATE", "parity": 2 }
 * }</pre>
 */
public record DriveFormat(
        @JsonProperty("version") int version,
        @JsonProperty("format") String format,
        @JsonProperty("deploymentId") UUID deploymentId,
        @JsonProperty("thisDrive") UUID thisDrive,
        @JsonProperty("sets") List<List<UUID>> sets,
        @JsonProperty("placement") String placement,
        @JsonProperty("parity") int parity) {

    public static final int CURRENT_VERSION = 1;
    public static final String FORMAT = "appliance-erasure";
    /** Set by SipHash-2-4 of the key (keyed by the deployment id) mod set count; shard order a rotation of it. */
    public static final String PLACEMENT_SIPHASH = "SIPHASH24-KEY-MOD-SETS+ROTATE";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public DriveFormat {
        requireNonNull(format, "format");
        requireNonNull(deploymentId, "deploymentId");
        requireNonNull(thisDrive, "thisDrive");
        requireNonNull(placement, "placement");
        sets = sets.stream().map(List::copyOf).toList();
    }

    /** Where this drive sits according to its own format, or null when its id is missing from the sets. */
    public int[] positionOfThisDrive() {
        for (int s = 0; s < sets.size(); s++) {
            int i = sets.get(s).indexOf(thisDrive);
            if (i >= 0) {
                return new int[] {s, i};
            }
        }
        return null;
    }

    public DriveFormat forDrive(UUID driveId) {
        return new DriveFormat(version, format, deploymentId, driveId, sets, placement, parity);
    }

    /** Same deployment and topology, whichever drive it describes. */
    public boolean sameDeployment(DriveFormat other) {
        return deploymentId.equals(other.deploymentId)
                && sets.equals(other.sets)
                && placement.equals(other.placement)
                && parity == other.parity;
    }

    public byte[] toJson() {
        try {
            return JSON.writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException("format.json: cannot serialise", e);
        }
    }

    public static DriveFormat fromJson(byte[] json) throws IOException {
        DriveFormat f = JSON.readValue(json, DriveFormat.class);
        if (!FORMAT.equals(f.format())) {
            throw new IOException("format is '" + f.format() + "' (expected '" + FORMAT + "')");
        }
        if (f.version() != CURRENT_VERSION) {
            throw new IOException("format version " + f.version() + " (this release reads " + CURRENT_VERSION + ")");
        }
        return f;
    }
}
