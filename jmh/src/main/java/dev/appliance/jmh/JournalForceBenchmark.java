package dev.appliance.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Prices a lever for the metadata journal (issue 17), not a path the engine takes: one 600-byte record written and
 * forced ({@code fdatasync}), as the journal's group commit does, either appended to a growing file (the journal today:
 * every force also commits the file's new size through the filesystem's own journal) or written over a segment that was
 * filled with zeros and forced beforehand (its size and blocks never change, so the force flushes data only). Scores
 * are microseconds per record, wall time; the filesystem is the one holding {@code dir} (the drives' disk by default).
 *
 * <pre>
 * ./appliance mvn -q -o -pl jmh -am -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar jmh/target/benchmarks.jar JournalForceBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class JournalForceBenchmark {
    /** A segment's size: records wrap around inside it when preallocated. */
    private static final int SEGMENT = 4 << 20;

    @Param({"append", "preallocated"})
    public String segment;

    @Param({"/work"})
    public String dir;

    private Path file;
    private FileChannel channel;
    private final ByteBuffer record = ByteBuffer.allocateDirect(600);
    private long at;

    @Setup(Level.Iteration)
    public void open() throws IOException {
        file = Files.createTempFile(Path.of(dir), "journal-force-", ".bench");
        channel = FileChannel.open(file, StandardOpenOption.WRITE);
        if (segment.equals("preallocated")) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(SEGMENT);
            while (zeros.hasRemaining()) {
                channel.write(zeros, zeros.position());
            }
            channel.force(true);
        }
        at = 0;
    }

    @TearDown(Level.Iteration)
    public void close() throws IOException {
        channel.close();
        Files.delete(file);
    }

    @Benchmark
    public long writeAndForce() throws IOException {
        if (segment.equals("preallocated") && at + record.capacity() > SEGMENT) {
            at = 0;
        }
        record.clear();
        while (record.hasRemaining()) {
            at += channel.write(record, at);
        }
        channel.force(false);
        return at;
    }
}
