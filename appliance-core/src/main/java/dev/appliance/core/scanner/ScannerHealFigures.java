package dev.appliance.core.scanner;

import java.time.Duration;
import java.time.Instant;

/** What the scanner's heal checks found since start, and how they are set. */
public record ScannerHealFigures(
        long keysChecked,
        long keysDeepChecked,
        long keysRepaired,
        long keysFailed,
        int sampleCycles,
        Duration deepScanInterval,
        Instant lastDeepScanStarted,
        Instant lastDeepScanFinished) {}
