package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writing new keys looks for files that are not there yet on every drive (the key's {@code xl.meta}, its archive) and
 * removes nothing it already renamed away. The JDK answers a missing file with two exceptions, each walking the
 * thread's stack: 22 per PUT before these looks went exception-free (docs/benchmarks.md, "The JIT compiler's share of a
 * timed write run, and exceptions per PUT"). JFR's exception events show whether any are thrown beneath the engine's
 * write path.
 */
class NewKeyWriteExceptionsTest {
    private static final int[] SIZES = {4096, 300_000, 1 << 20};

    @TempDir
    Path tmp;

    @Test
    void writingNewKeys_throwsNoExceptionForFilesNotThereYet() throws Exception {
        try (ErasureObjectStore store = TestEngine.open(TestStore.on(tmp));
                Recording recording = new Recording()) {
            store.makeBucket("veeam", true);
            put(store, "warm-up", 1 << 20); // classes loaded and the store's own first files made before recording
            recording.enable("jdk.JavaExceptionThrow").withStackTrace();
            recording.start();
            for (int i = 0; i < 6; i++) {
                put(store, "Veeam/blocks/" + i + ".blk", SIZES[i % SIZES.length]);
            }
            recording.stop();
            Path file = tmp.resolve("exceptions.jfr");
            recording.dump(file);
            List<String> thrown = new ArrayList<>();
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                String type = e.getClass("thrownClass").getName();
                // file-system errors only: the JDK also throws and catches linkage errors of its own the first time
                // a method handle shape is used
                boolean fileError = type.startsWith("java.nio.file.") || type.equals("sun.nio.fs.UnixException");
                if (fileError
                        && e.getStackTrace() != null
                        && fromTheWritePath(e.getStackTrace().getFrames())) {
                    thrown.add(type + " at " + frames(e.getStackTrace().getFrames()));
                }
            }
            assertThat(thrown).isEmpty();
            // the objects are all there
            for (int i = 0; i < 6; i++) {
                assertThat(store.headObject("veeam", "Veeam/blocks/" + i + ".blk", null)
                                .size())
                        .isEqualTo(SIZES[i % SIZES.length]);
            }
        }
    }

    private static void put(ErasureObjectStore store, String key, int size) throws java.io.IOException {
        byte[] b = new byte[size];
        new Random(key.hashCode()).nextBytes(b);
        store.putObject("veeam", key, new PutRequest(b.length, null, Map.of(), null), new ByteArrayInputStream(b));
    }

    private static boolean fromTheWritePath(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (type.startsWith("dev.appliance.core.erasure.") || type.startsWith("dev.appliance.core.drive.")) {
                return true;
            }
        }
        return false;
    }

    private static String frames(List<RecordedFrame> frames) {
        StringBuilder s = new StringBuilder();
        for (RecordedFrame f : frames.subList(0, Math.min(frames.size(), 12))) {
            s.append("\n  ")
                    .append(f.getMethod().getType().getName())
                    .append('.')
                    .append(f.getMethod().getName());
        }
        return s.toString();
    }
}
