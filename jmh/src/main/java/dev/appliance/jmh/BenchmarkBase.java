package dev.appliance.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Defaults shared by the appliance benchmarks: throughput mode, one forked JVM with the Vector API module, short
 * warm-up and measurement (the build machine is shared). Command-line options ({@code -f -wi -i -w -r}) override them.
 *
 * <p>Subclasses that move {@code N} bytes per invocation declare {@code @OperationsPerInvocation(N)}; with the output
 * unit of nanoseconds, JMH's "ops/ns" score is then bytes per nanosecond, which is exactly GB/s (10^9 bytes/s).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public abstract class BenchmarkBase {
    /** One erasure block: the unit the storage engine encodes at a time. */
    public static final int MIB = 1 << 20;
}
