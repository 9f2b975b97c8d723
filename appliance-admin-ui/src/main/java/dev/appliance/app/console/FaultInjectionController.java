package dev.appliance.app.console;

import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.DriveFaults;
import dev.appliance.core.drive.LocalDrive;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Test-only fault injection into drives (docs/testing.md): {@code GET /api/v1/admin/test/faults},
 * {@code PUT /api/v1/admin/test/faults/{drive}} with {@code {"readErrors": bool, "writeErrors": bool, "diskFull": bool,
 * "gone": bool, "latencyMillis": n, "commitStallMillis": n}} (absent fields: false / 0), {@code DELETE /api/v1/admin/test/faults/{drive}} and
 * {@code DELETE /api/v1/admin/test/faults}. {@code drive} is the drive's 0-based position in the order the drives
 * were given (as in the {@code drives} list of {@code GET /api/v1/status}).
 *
 * <p>Answers {@code 404} unless the process was started with {@code -Dappliance.faultInjection=true}: a production
 * appliance never lets a request break its drives. Like every admin request, these are SigV4-signed.
 */
@RestController
class FaultInjectionController {
    private final ApplianceStore store;
    private final boolean on;

    FaultInjectionController(ApplianceStore store, ApplianceProperties properties) {
        this.store = store;
        this.on = properties.testing().faultInjection();
    }

    /** The PUT body; absent fields inject nothing. */
    record FaultsBody(
            Boolean readErrors,
            Boolean writeErrors,
            Boolean diskFull,
            Boolean gone,
            Long latencyMillis,
            Long commitStallMillis) {
        DriveFaults toFaults() {
            return new DriveFaults(
                    Boolean.TRUE.equals(readErrors),
                    Boolean.TRUE.equals(writeErrors),
                    Boolean.TRUE.equals(diskFull),
                    Boolean.TRUE.equals(gone),
                    latencyMillis == null ? 0 : latencyMillis,
                    commitStallMillis == null ? 0 : commitStallMillis);
        }
    }

    /** Thrown when fault injection is off: answered as if the endpoint did not exist. */
    static final class Off extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Off() {
            super(
                    "fault injection is off (start the appliance with -Dappliance.faultInjection=true, or"
                            + " APPLIANCE_TESTING_FAULT_INJECTION=true, to test with it)",
                    null,
                    false,
                    false);
        }
    }

    private void requireOn() {
        if (!on) {
            throw new Off();
        }
    }

    /** A drive's injected faults (all false and 0: none). */
    record FaultsView(
            int drive,
            String path,
            boolean readErrors,
            boolean writeErrors,
            boolean diskFull,
            boolean gone,
            long latencyMillis,
            long commitStallMillis) {}

    @GetMapping("/api/v1/admin/test/faults")
    List<FaultsView> list() {
        requireOn();
        List<FaultsView> out = new ArrayList<>();
        for (int i = 0; i < store.drives().size(); i++) {
            out.add(view(i));
        }
        return out;
    }

    @PutMapping("/api/v1/admin/test/faults/{drive}")
    FaultsView put(@PathVariable("drive") String drive, @RequestBody FaultsBody body) {
        requireOn();
        int index = index(drive);
        store.drives().get(index).injectFaults(body.toFaults());
        return view(index);
    }

    @DeleteMapping("/api/v1/admin/test/faults/{drive}")
    FaultsView clear(@PathVariable("drive") String drive) {
        requireOn();
        int index = index(drive);
        store.drives().get(index).injectFaults(null);
        return view(index);
    }

    @DeleteMapping("/api/v1/admin/test/faults")
    List<FaultsView> clearAll() {
        requireOn();
        store.drives().forEach(d -> d.injectFaults(null));
        return list();
    }

    private int index(String drive) {
        int n = store.drives().size();
        try {
            int i = Integer.parseInt(drive);
            if (i >= 0 && i < n) {
                return i;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException("drive: '" + drive + "' (expected 0.." + (n - 1) + ")");
    }

    private FaultsView view(int index) {
        LocalDrive d = store.drives().get(index);
        DriveFaults f = d.faults();
        return new FaultsView(
                index,
                d.root().toString(),
                f != null && f.readErrors(),
                f != null && f.writeErrors(),
                f != null && f.diskFull(),
                f != null && f.gone(),
                f == null ? 0 : f.latencyMillis(),
                f == null ? 0 : f.commitStallMillis());
    }

    @org.springframework.web.bind.annotation.ExceptionHandler(Off.class)
    ResponseEntity<Problem> off(Off e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new Problem("NotFound", e.getMessage()));
    }

    @org.springframework.web.bind.annotation.ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Problem> badValue(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(new Problem("InvalidArgument", e.getMessage()));
    }

    @org.springframework.web.bind.annotation.ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<Problem> badBody(HttpMessageNotReadableException e) {
        if (!on) {
            return off(new Off()); // the endpoint does not exist, whatever the body
        }
        return ResponseEntity.badRequest().body(Problem.unreadableBody("InvalidArgument", e));
    }
}
