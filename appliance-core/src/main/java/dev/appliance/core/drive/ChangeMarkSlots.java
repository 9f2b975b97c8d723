package dev.appliance.core.drive;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A drive's change marks as the slots of one memory-mapped file, each reused once its change is done. Setting a mark is
 * a copy into the page cache and clearing it one store: a file per mark cost an inode created in the shared staging
 * directory, its write, and an unlink, for every write of every key. Like those files the slots are never forced: a
 * process crash keeps them in the page cache, which is what the marks are for ({@link LocalDrive#markChange}).
 *
 * <p>Slot layout: payload length (0 when free), CRC32C of the payload, payload ({@code bucket \n key}, UTF-8), all
 * big-endian. A slot lies within one page, so a crash tears at most the slot being written, and a torn slot fails its
 * checksum: it names no key, and nothing of its change has touched the drive yet, since the mark comes first.
 */
final class ChangeMarkSlots implements AutoCloseable {
    static final String FILE_PREFIX = "change-marks";
    /** Two slots per 4 KiB page. */
    static final int SLOT_BYTES = 2048;
    /** Changes under way at once on one drive that get a slot; more (or a longer key) get a file each. */
    static final int SLOTS = 512;

    private static final int HEADER_BYTES = 8;
    static final int MAX_PAYLOAD = SLOT_BYTES - HEADER_BYTES;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);

    private final Arena arena;
    private final MemorySegment slots;
    /** Free slots below {@link #handedOut}, reused last-freed first so that few pages are ever touched. */
    private final int[] free = new int[SLOTS];

    private int freeCount;
    private int handedOut;

    private ChangeMarkSlots(Arena arena, MemorySegment slots) {
        this.arena = arena;
        this.slots = slots;
    }

    /** Creates the slot file (it must not exist) and maps it; its pages are allocated as slots are first used. */
    static ChangeMarkSlots create(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(
                file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Arena arena = Arena.ofShared();
            try {
                return new ChangeMarkSlots(
                        arena, ch.map(FileChannel.MapMode.READ_WRITE, 0, (long) SLOTS * SLOT_BYTES, arena));
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        }
    }

    /**
     * Writes {@code payload} into a free slot: the slot, or -1 when the payload is too long, every slot is taken, or the
     * file was closed (the caller then marks with a file of its own).
     */
    int set(byte[] payload) {
        if (payload.length > MAX_PAYLOAD) {
            return -1;
        }
        int slot;
        synchronized (this) {
            if (freeCount > 0) {
                slot = free[--freeCount];
            } else if (handedOut < SLOTS) {
                slot = handedOut++;
            } else {
                return -1;
            }
        }
        long at = (long) slot * SLOT_BYTES;
        CRC32C crc = new CRC32C();
        crc.update(payload);
        try {
            MemorySegment.copy(payload, 0, slots, ValueLayout.JAVA_BYTE, at + HEADER_BYTES, payload.length);
            slots.set(INT, at + 4, (int) crc.getValue());
            slots.set(INT, at, payload.length);
        } catch (IllegalStateException closed) {
            return -1; // the slot goes with the closed file
        }
        return slot;
    }

    /** Frees a slot {@link #set} returned; the caller clears each slot once (a second clear could free a reused slot). */
    void clear(int slot) {
        try {
            slots.set(INT, (long) slot * SLOT_BYTES, 0);
        } catch (IllegalStateException closed) {
            return; // the file was replaced at a start: its marks were read then
        }
        synchronized (this) {
            free[freeCount++] = slot;
        }
    }

    /** Unmaps the file; marks set in it stay in the file, and later {@link #set} and {@link #clear} calls do nothing. */
    @Override
    public void close() {
        arena.close();
    }

    /** The payloads of the set slots of a slot file, skipping torn ones. */
    static List<byte[]> read(Path file) throws IOException {
        ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
        List<byte[]> out = new ArrayList<>();
        for (int at = 0; at + HEADER_BYTES <= all.limit(); at += SLOT_BYTES) {
            int length = all.getInt(at);
            if (length <= 0 || length > MAX_PAYLOAD || at + HEADER_BYTES + length > all.limit()) {
                continue;
            }
            byte[] payload = new byte[length];
            all.get(at + HEADER_BYTES, payload);
            CRC32C crc = new CRC32C();
            crc.update(payload);
            if ((int) crc.getValue() == all.getInt(at + 4)) {
                out.add(payload);
            }
        }
        return out;
    }
}
