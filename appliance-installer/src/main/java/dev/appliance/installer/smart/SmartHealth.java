package dev.appliance.installer.smart;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The parts of one {@code smartctl --json -H -A -l error} report the rules judge. A field the disk did not report is
 * empty (an NVMe drive has no ATA attribute table, a SATA disk no media-error count).
 *
 * @param model {@code model_name}, or empty
 * @param protocol {@code device.protocol}: {@code ATA}, {@code NVMe}, {@code SCSI}, or empty
 * @param passed {@code smart_status.passed}: the drive's own overall verdict
 * @param reallocated ATA attribute 5 (Reallocated_Sector_Ct) raw value, or a SCSI disk's grown defect list
 * @param pending ATA attribute 197 (Current_Pending_Sector) raw value
 * @param offlineUncorrectable ATA attribute 198 (Offline_Uncorrectable) raw value
 * @param errorLogCount {@code ata_smart_error_log.summary.count}: errors the drive logged over its life
 * @param mediaErrors NVMe {@code media_errors}: unrecovered data integrity errors
 * @param percentageUsed NVMe {@code percentage_used} (or a SAS SSD's endurance indicator): wear, 100 = rated life
 * @param criticalWarning NVMe {@code critical_warning} bit field
 */
public record SmartHealth(
        String model,
        String protocol,
        Optional<Boolean> passed,
        OptionalLong reallocated,
        OptionalLong pending,
        OptionalLong offlineUncorrectable,
        OptionalLong errorLogCount,
        OptionalLong mediaErrors,
        OptionalLong percentageUsed,
        OptionalLong criticalWarning) {
    public SmartHealth {
        requireNonNull(model, "model");
        requireNonNull(protocol, "protocol");
        requireNonNull(passed, "passed");
        requireNonNull(reallocated, "reallocated");
        requireNonNull(pending, "pending");
        requireNonNull(offlineUncorrectable, "offlineUncorrectable");
        requireNonNull(errorLogCount, "errorLogCount");
        requireNonNull(mediaErrors, "mediaErrors");
        requireNonNull(percentageUsed, "percentageUsed");
        requireNonNull(criticalWarning, "criticalWarning");
    }

    /** ATA attribute ids, as every vendor numbers them. */
    static final int REALLOCATED_SECTOR_CT = 5;

    static final int CURRENT_PENDING_SECTOR = 197;
    static final int OFFLINE_UNCORRECTABLE = 198;

    /** smartctl's exit status bits 0 and 1: the command line was refused, or the device could not be opened. */
    private static final int COULD_NOT_RUN = 0b11;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Parses smartctl's JSON output. smartctl exits non-zero for a failing disk too (its status is a bit field), so
     * the JSON decides: it is unreadable only when smartctl says it could not open the device or reports nothing
     * the rules judge.
     */
    public static SmartReading parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return new SmartReading.Unreadable("smartctl printed no JSON (smartmontools 7 or later is needed)");
        }
        if (root == null || !root.isObject()) {
            return new SmartReading.Unreadable("smartctl printed no JSON (smartmontools 7 or later is needed)");
        }
        int exit = root.path("smartctl").path("exit_status").asInt(0);
        JsonNode status = root.path("smart_status").path("passed");
        Optional<Boolean> passed = status.isBoolean() ? Optional.of(status.booleanValue()) : Optional.empty();
        JsonNode nvme = root.path("nvme_smart_health_information_log");
        JsonNode table = root.path("ata_smart_attributes").path("table");
        if ((exit & COULD_NOT_RUN) != 0 || (passed.isEmpty() && nvme.isMissingNode() && table.isMissingNode())) {
            return new SmartReading.Unreadable(messages(root, exit));
        }
        OptionalLong percentageUsed = number(nvme.path("percentage_used"));
        if (percentageUsed.isEmpty()) {
            percentageUsed = number(root.path("scsi_percentage_used_endurance_indicator"));
        }
        OptionalLong reallocated = attribute(table, REALLOCATED_SECTOR_CT);
        if (reallocated.isEmpty()) {
            reallocated = number(root.path("scsi_grown_defect_list"));
        }
        return new SmartReading.Read(new SmartHealth(
                root.path("model_name").asText(""),
                root.path("device").path("protocol").asText(""),
                passed,
                reallocated,
                attribute(table, CURRENT_PENDING_SECTOR),
                attribute(table, OFFLINE_UNCORRECTABLE),
                number(root.path("ata_smart_error_log").path("summary").path("count")),
                number(nvme.path("media_errors")),
                percentageUsed,
                number(nvme.path("critical_warning"))));
    }

    private static OptionalLong attribute(JsonNode table, int id) {
        for (JsonNode a : table) {
            if (a.path("id").asInt(-1) == id) {
                return number(a.path("raw").path("value"));
            }
        }
        return OptionalLong.empty();
    }

    private static OptionalLong number(JsonNode n) {
        return n.isIntegralNumber() ? OptionalLong.of(n.longValue()) : OptionalLong.empty();
    }

    private static String messages(JsonNode root, int exit) {
        List<String> said = new ArrayList<>();
        for (JsonNode m : root.path("smartctl").path("messages")) {
            String s = m.path("string").asText("").strip();
            if (!s.isEmpty()) {
                said.add(s);
            }
        }
        String why = said.isEmpty() ? "no SMART data reported" : String.join("; ", said);
        return why + " (smartctl exit status " + exit + ")";
    }
}
