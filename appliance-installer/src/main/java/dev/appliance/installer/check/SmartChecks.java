package dev.appliance.installer.check;

import dev.appliance.installer.check.DriveChecks.Verdict;
import dev.appliance.installer.smart.SmartHealth;
import dev.appliance.installer.smart.SmartReading;
import dev.appliance.installer.smart.SmartSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * SMART health of the disks under the data drives, one report per disk (drives sharing a disk share it). A single
 * report cannot tell whether a count is growing, so the thresholds are absolute: any reallocated, pending or
 * uncorrectable sector or media error warns (each predicts failure well above the base rate), and counts past the fail
 * thresholds mean the surface is going now. Without {@code smartctl} the whole family is one warning.
 */
final class SmartChecks {
    private SmartChecks() {}

    /** ATA attribute 5 (or a SCSI grown defect list) at or above this fails. */
    static final long REALLOCATED_FAIL = 100;

    /** ATA attributes 197 and 198 at or above this fail: sectors the drive could not read back. */
    static final long UNREADABLE_FAIL = 10;

    /** NVMe media errors at or above this fail. */
    static final long MEDIA_ERRORS_FAIL = 10;

    /** Wear ({@code percentage_used}) at or above these warns, and fails. */
    static final long WEAR_WARN = 80;

    static final long WEAR_FAIL = 95;

    /**
     * NVMe critical-warning bits that fail: spare capacity below its threshold (0x01), reliability degraded (0x04),
     * media read-only (0x08). The others (temperature 0x02, volatile backup 0x10, persistent memory 0x20) warn.
     */
    static final long CRITICAL_FAIL_BITS = 0x01 | 0x04 | 0x08;

    private static final String INSTALL = "install smartmontools (dnf install smartmontools; on Debian apt-get install"
            + " smartmontools) and run the check again: without SMART a failing disk shows only when it fails";

    /** One disk with the drives on it and what reading it gave. */
    record Disk(String device, List<String> drives, SmartReading reading) {
        String label() {
            return device + " (" + String.join(", ", drives) + ")";
        }
    }

    static List<Check> run(List<DriveFacts> drives, SmartSource source) {
        Map<String, List<String>> byDisk = new LinkedHashMap<>();
        List<String> noDisk = new ArrayList<>();
        for (DriveFacts d : drives) {
            if (!d.exists()) {
                continue;
            }
            if (d.device().isEmpty()) {
                noDisk.add(d.given().toString());
            } else if (!d.device().get().layer().isEmpty()) {
                noDisk.add(d.given() + " (on " + d.device().get().layer() + ")");
            } else {
                byDisk.computeIfAbsent("/dev/" + d.device().get().disk(), k -> new ArrayList<>())
                        .add(d.given().toString());
            }
        }
        List<Disk> disks = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : byDisk.entrySet()) {
            SmartReading r = source.read(e.getKey());
            if (r instanceof SmartReading.NotInstalled n) {
                return List.of(Check.of(
                        "smart",
                        Result.WARN,
                        "smartctl not found (looked in " + n.looked() + ")",
                        "smartctl (smartmontools 7 or later) to read each disk's health",
                        INSTALL));
            }
            disks.add(new Disk(e.getKey(), e.getValue(), r));
        }
        List<Check> checks = new ArrayList<>();
        checks.add(readable(disks, noDisk));
        List<Disk> read = disks.stream()
                .filter(d -> d.reading() instanceof SmartReading.Read)
                .toList();
        checks.add(judge(
                "smart.health",
                read,
                h -> h.passed()
                        .map(p -> p ? ok() : new Verdict(Result.FAIL, "FAILED (the drive's own verdict)"))
                        .orElse(ok()),
                "overall health passed",
                "the drive's own SMART verdict: passed",
                "replace the disk: it reports that it is failing (smartctl -a DEVICE shows why); the appliance"
                        + " heals its data onto the replacement"));
        checks.add(judge(
                "smart.sectors",
                read,
                SmartChecks::sectors,
                "no reallocated, pending or uncorrectable sectors",
                "0 reallocated, pending and offline-uncorrectable sectors (fail at " + REALLOCATED_FAIL
                        + " reallocated or " + UNREADABLE_FAIL + " pending or uncorrectable)",
                "plan to replace the disk: sectors it had to move or cannot read predict its failure; watch whether"
                        + " the counts grow (smartctl -A DEVICE) and replace it now if they do"));
        checks.add(judge(
                "smart.error-log",
                read,
                h -> count(h.errorLogCount(), Long.MAX_VALUE, "errors in the drive's error log"),
                "no errors logged",
                "an empty ATA error log",
                "read the errors (smartctl -l error DEVICE): interface CRC errors point at the cable or backplane,"
                        + " read errors at the disk"));
        checks.add(judge(
                "smart.nvme",
                read,
                SmartChecks::nvme,
                "no media errors or critical warnings",
                "0 media errors and no critical warning (fail at " + MEDIA_ERRORS_FAIL
                        + " media errors, or spare capacity, reliability or read-only warnings)",
                "replace the NVMe drive: it lost data it could not recover, or warns that its spare capacity or"
                        + " reliability is spent (smartctl -a DEVICE)"));
        checks.add(judge(
                "smart.wear",
                read,
                SmartChecks::wear,
                "wear below " + WEAR_WARN + "%",
                "below " + WEAR_WARN + "% of rated endurance used (fail at " + WEAR_FAIL + "%)",
                "order a replacement: the SSD is near the end of its rated writes and may turn read-only"));
        return checks;
    }

    private static Verdict ok() {
        return new Verdict(Result.PASS, "");
    }

    private static Check readable(List<Disk> disks, List<String> noDisk) {
        List<String> shortfalls = new ArrayList<>();
        for (String d : noDisk) {
            shortfalls.add(d + ": no plain disk under it, SMART not read");
        }
        for (Disk d : disks) {
            if (d.reading() instanceof SmartReading.Unreadable u) {
                shortfalls.add(d.label() + ": " + u.why());
            }
        }
        return Check.of(
                "smart",
                shortfalls.isEmpty() ? Result.PASS : Result.WARN,
                shortfalls.isEmpty()
                        ? "SMART read from " + disks.size() + (disks.size() == 1 ? " disk" : " disks")
                        : String.join("; ", shortfalls),
                "SMART data from every data drive's disk",
                "enable SMART on the disk (smartctl -s on DEVICE), or behind a RAID controller give smartctl its"
                        + " -d option by hand (the appliance wants plain disks: see drives.raid)");
    }

    /** The worst verdict over the disks that answered; the measured value names the disks that fell short. */
    private static Check judge(
            String id,
            List<Disk> disks,
            Function<SmartHealth, Verdict> rule,
            String allPass,
            String expected,
            String remediation) {
        return DriveChecks.worstOf(
                id,
                disks,
                Disk::label,
                d -> rule.apply(((SmartReading.Read) d.reading()).health()),
                allPass + " (" + disks.size() + (disks.size() == 1 ? " disk)" : " disks)"),
                expected,
                remediation);
    }

    static Verdict sectors(SmartHealth h) {
        List<Verdict> found = List.of(
                count(h.reallocated(), REALLOCATED_FAIL, "reallocated"),
                count(h.pending(), UNREADABLE_FAIL, "pending"),
                count(h.offlineUncorrectable(), UNREADABLE_FAIL, "offline uncorrectable"));
        return combine(found);
    }

    static Verdict nvme(SmartHealth h) {
        List<Verdict> found = new ArrayList<>();
        found.add(count(h.mediaErrors(), MEDIA_ERRORS_FAIL, "media errors"));
        if (h.criticalWarning().isPresent() && h.criticalWarning().getAsLong() != 0) {
            long bits = h.criticalWarning().getAsLong();
            found.add(new Verdict(
                    (bits & CRITICAL_FAIL_BITS) != 0 ? Result.FAIL : Result.WARN,
                    "critical warning 0x" + Long.toHexString(bits) + " (" + criticalBits(bits) + ")"));
        }
        return combine(found);
    }

    static Verdict wear(SmartHealth h) {
        if (h.percentageUsed().isEmpty()) {
            return ok();
        }
        long used = h.percentageUsed().getAsLong();
        Result r = used >= WEAR_FAIL ? Result.FAIL : used >= WEAR_WARN ? Result.WARN : Result.PASS;
        return new Verdict(r, used + "% of rated endurance used");
    }

    private static Verdict count(OptionalLong value, long failAt, String what) {
        if (value.isEmpty() || value.getAsLong() <= 0) {
            return ok();
        }
        long n = value.getAsLong();
        return new Verdict(n >= failAt ? Result.FAIL : Result.WARN, n + " " + what);
    }

    private static Verdict combine(List<Verdict> verdicts) {
        Result worst = Result.PASS;
        List<String> details = new ArrayList<>();
        for (Verdict v : verdicts) {
            if (v.result() != Result.PASS) {
                details.add(v.detail());
                if (v.result().compareTo(worst) > 0) {
                    worst = v.result();
                }
            }
        }
        return new Verdict(worst, String.join(", ", details));
    }

    private static String criticalBits(long bits) {
        List<String> names = new ArrayList<>();
        String[] meaning = {
            "spare below threshold",
            "temperature",
            "reliability degraded",
            "read-only",
            "volatile memory backup failed",
            "persistent memory unreliable"
        };
        for (int i = 0; i < meaning.length; i++) {
            if ((bits & (1L << i)) != 0) {
                names.add(meaning[i]);
            }
        }
        return names.isEmpty() ? "unknown bits" : String.join(", ", names);
    }
}
