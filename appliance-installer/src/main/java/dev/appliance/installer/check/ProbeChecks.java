package dev.appliance.installer.check;

import dev.appliance.installer.probe.DriveProbe;
import dev.appliance.installer.probe.Outliers;
import dev.appliance.installer.probe.ProbeOutcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code drives.probe}: the O_DIRECT probe of every drive, one after the other (probing them at once would measure
 * the controller, not the disks), judged against the drives' medians ({@link Outliers}).
 */
final class ProbeChecks {
    private ProbeChecks() {}

    static Check run(List<DriveFacts> drives) {
        List<ProbeOutcome> outcomes = new ArrayList<>();
        // one unmeasured round first: the first drive would otherwise pay for the JIT compiling the probe's loops
        drives.stream().filter(DriveFacts::exists).findFirst().ifPresent(d -> DriveProbe.probe(d.given()));
        for (DriveFacts d : drives) {
            if (d.exists()) {
                outcomes.add(DriveProbe.probe(d.given()));
            }
        }
        return judge(confirmOutliers(outcomes, DriveProbe::probe));
    }

    /**
     * A drive flagged once is probed again and keeps the better of its two rounds: a moment of other I/O on the
     * machine should not name a healthy drive, a slow one is slow both times.
     */
    static List<ProbeOutcome> confirmOutliers(List<ProbeOutcome> outcomes, Function<Path, ProbeOutcome> probe) {
        List<ProbeOutcome.Measured> measured = new ArrayList<>();
        outcomes.forEach(o -> {
            if (o instanceof ProbeOutcome.Measured m) {
                measured.add(m);
            }
        });
        Map<Path, String> outliers = Outliers.of(measured);
        List<ProbeOutcome> confirmed = new ArrayList<>();
        for (ProbeOutcome o : outcomes) {
            if (o instanceof ProbeOutcome.Measured first
                    && outliers.containsKey(first.drive())
                    && probe.apply(first.drive()) instanceof ProbeOutcome.Measured again) {
                confirmed.add(new ProbeOutcome.Measured(
                        first.drive(),
                        Math.min(first.latencyNanos(), again.latencyNanos()),
                        Math.max(first.writeBytesPerSecond(), again.writeBytesPerSecond()),
                        Math.max(first.readBytesPerSecond(), again.readBytesPerSecond())));
            } else {
                confirmed.add(o);
            }
        }
        return confirmed;
    }

    /** The check for these outcomes: a drive that failed fails, no O_DIRECT or an outlier warns. */
    static Check judge(List<ProbeOutcome> outcomes) {
        List<ProbeOutcome.Measured> measured = new ArrayList<>();
        for (ProbeOutcome o : outcomes) {
            if (o instanceof ProbeOutcome.Measured m) {
                measured.add(m);
            }
        }
        Map<Path, String> outliers = Outliers.of(measured);
        Result worst = Result.PASS;
        List<String> shortfalls = new ArrayList<>();
        for (ProbeOutcome o : outcomes) {
            Result r;
            String detail;
            switch (o) {
                case ProbeOutcome.Failed f -> {
                    r = Result.FAIL;
                    detail = f.why();
                }
                case ProbeOutcome.NoDirectIo n -> {
                    r = Result.WARN;
                    detail = n.why();
                }
                case ProbeOutcome.Measured m -> {
                    String why = outliers.get(m.drive());
                    r = why == null ? Result.PASS : Result.WARN;
                    detail = why == null ? "" : why;
                }
            }
            if (r != Result.PASS) {
                shortfalls.add(o.drive() + ": " + detail);
                worst = r.compareTo(worst) > 0 ? r : worst;
            }
        }
        String medians = "none measured";
        if (!measured.isEmpty()) {
            Outliers.Medians m = Outliers.medians(measured);
            medians = "median of " + measured.size() + " drives: sync latency " + Outliers.millis(m.latencyNanos())
                    + ", writes " + Outliers.rate(m.writeBytesPerSecond()) + ", reads "
                    + Outliers.rate(m.readBytesPerSecond());
            if (measured.size() < Outliers.MIN_DRIVES) {
                medians += " (fewer than " + Outliers.MIN_DRIVES + ": outliers not judged)";
            }
        }
        String measuredText = shortfalls.isEmpty() ? medians : String.join("; ", shortfalls) + " (" + medians + ")";
        return Check.of(
                "drives.probe",
                worst,
                measuredText,
                "every drive within " + Outliers.LATENCY_FACTOR + "x the median sync latency and "
                        + Outliers.THROUGHPUT_FACTOR + "x the median throughput, with O_DIRECT",
                "look at the slow drive (smartctl -a, iostat -x 1 while it works; a disk behind a controller's cache,"
                        + " a different model or a failing disk): one slow drive sets the pace of its erasure set."
                        + " A drive without O_DIRECT is on the wrong filesystem: format it XFS");
    }
}
