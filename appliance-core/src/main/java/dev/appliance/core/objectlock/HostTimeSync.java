package dev.appliance.core.objectlock;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Whether the host's clock is disciplined by NTP (chrony, ntpd, systemd-timesyncd), as the kernel reports it: a
 * read-only {@code adjtimex(2)} answers {@code TIME_ERROR} while the clock is unsynchronized. Works without privileges
 * and inside containers; {@link State#UNKNOWN} off Linux or without native access.
 */
public final class HostTimeSync {
    /** What the kernel says about the system clock. */
    public enum State {
        SYNCHRONIZED,
        UNSYNCHRONIZED,
        UNKNOWN
    }

    private static final int TIME_ERROR = 5;
    /** Larger than {@code struct timex} on every Linux ABI (208 bytes on 64-bit); zeroed, so modes = 0: read only. */
    private static final long TIMEX_BYTES = 512;

    private static final MethodHandle ADJTIMEX;

    static {
        MethodHandle h = null;
        try {
            if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
                Linker linker = Linker.nativeLinker();
                h = linker.downcallHandle(
                        linker.defaultLookup().find("adjtimex").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            }
        } catch (Throwable e) { // no native access or no symbol: the state is unknown
            h = null;
        }
        ADJTIMEX = h;
    }

    private HostTimeSync() {}

    public static State state() {
        if (ADJTIMEX == null) {
            return State.UNKNOWN;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timex = arena.allocate(TIMEX_BYTES, 8);
            int r = (int) ADJTIMEX.invokeExact(timex);
            if (r < 0) {
                return State.UNKNOWN;
            }
            return r == TIME_ERROR ? State.UNSYNCHRONIZED : State.SYNCHRONIZED;
        } catch (Throwable e) {
            return State.UNKNOWN;
        }
    }
}
