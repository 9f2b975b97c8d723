package dev.appliance.core.drive;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes the {@code format.json} reader, which a start runs on whatever each drive holds: arbitrary bytes, and JSON
 * shaped like a format with fuzzed values, are read or refused with an {@link IOException} (which the start turns
 * into "drive offline: format.json unreadable"), never another exception; what is read says it is this format.
 */
class DriveFormatFuzzTest {
    @FuzzTest
    void fromJsonReadsOrRefusesWithIOException(FuzzedDataProvider data) {
        byte[] json;
        if (data.consumeBoolean()) {
            json = data.consumeRemainingAsBytes();
        } else {
            String doc = "{\"format\":\"" + pick(data, DriveFormat.FORMAT) + "\",\"version\":" + data.consumeInt()
                    + ",\"deploymentId\":\"" + data.consumeString(40) + "\",\"this\":\"" + data.consumeString(40)
                    + "\",\"sets\":[[\"" + data.consumeString(40) + "\"]],\"parity\":" + data.consumeInt()
                    + ",\"placement\":\"" + pick(data, DriveFormat.PLACEMENT_SIPHASH) + "\"}";
            json = doc.getBytes(StandardCharsets.UTF_8);
        }
        DriveFormat f;
        try {
            f = DriveFormat.fromJson(json);
        } catch (IOException e) {
            return;
        }
        assertThat(f.format()).isEqualTo(DriveFormat.FORMAT);
        assertThat(f.version()).isEqualTo(DriveFormat.CURRENT_VERSION);
    }

    private static String pick(FuzzedDataProvider data, String valid) {
        return data.consumeBoolean() ? valid : data.consumeString(20).replace("\"", "");
    }
}
