package dev.appliance.installer.prepare;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a device already holds, found by the magic numbers of the on-disk formats at their fixed offsets, read here
 * rather than asked of {@code blkid} (not on every minimal install, and its cache can be stale). Anything found means
 * the device is not blank: formatting it needs {@code --force}.
 */
public final class Signatures {
    private Signatures() {}

    /** One format: its magic bytes at an offset from the start (or, when negative, from a computed end position). */
    private record Magic(String name, long offset, byte[] bytes) {}

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] le32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }

    /** mdraid's superblock magic, little-endian on disk. */
    private static final int MD_MAGIC = 0xa92b4efc;

    private static final List<Magic> AT_START = List.of(
            new Magic("an XFS filesystem", 0, ascii("XFSB")),
            new Magic("an ext2/3/4 filesystem", 1080, new byte[] {0x53, (byte) 0xEF}),
            new Magic("a btrfs filesystem", 65600, ascii("_BHRfS_M")),
            new Magic("a LUKS encrypted volume", 0, new byte[] {'L', 'U', 'K', 'S', (byte) 0xBA, (byte) 0xBE}),
            new Magic("a GPT partition table", 512, ascii("EFI PART")),
            new Magic("a GPT partition table", 4096, ascii("EFI PART")),
            new Magic("an LVM physical volume", 512, ascii("LABELONE")),
            new Magic("an LVM physical volume", 0, ascii("LABELONE")),
            new Magic("an LVM physical volume", 1024, ascii("LABELONE")),
            new Magic("an LVM physical volume", 1536, ascii("LABELONE")),
            new Magic("an mdraid member (superblock 1.1)", 0, le32(MD_MAGIC)),
            new Magic("an mdraid member (superblock 1.2)", 4096, le32(MD_MAGIC)),
            new Magic("a swap area", 4086, ascii("SWAPSPACE2")),
            new Magic("a swap area", 65526, ascii("SWAPSPACE2")),
            new Magic("an NTFS filesystem", 3, ascii("NTFS    ")),
            // last: a FAT boot sector and an NTFS one end in 0x55AA too, and are named above
            new Magic("an MBR partition table or boot sector", 510, new byte[] {0x55, (byte) 0xAA}));

    /**
     * Everything found on the device (or image file), in the order above; empty for a blank one.
     *
     * @param sizeHint the device's size from sysfs, used when the channel reports none
     */
    public static List<String> find(Path device, long sizeHint) throws IOException {
        List<String> found = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(device, StandardOpenOption.READ)) {
            long size = ch.size() > 0 ? ch.size() : sizeHint;
            for (Magic m : AT_START) {
                if (matches(ch, m.offset(), m.bytes()) && !found.contains(m.name())) {
                    found.add(m.name());
                }
            }
            // superblocks 0.90 and 1.0 sit at the end: 0.90 in the last 64 KiB-aligned 64 KiB, 1.0 8 KiB from the end
            if (size > 0) {
                long v090 = (size & ~0xFFFFL) - 0x10000;
                long v10 = ((size - 0x2000) & ~0xFFFL);
                if ((v090 >= 0 && matches(ch, v090, le32(MD_MAGIC)))
                        || (v10 >= 0 && matches(ch, v10, le32(MD_MAGIC)))) {
                    found.add("an mdraid member (superblock 0.90 or 1.0)");
                }
            }
        }
        if (found.size() > 1 && found.getLast().startsWith("an MBR")) {
            found.removeLast(); // the 0x55AA of a boot sector that was already named
        }
        return found;
    }

    private static boolean matches(FileChannel ch, long offset, byte[] magic) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(magic.length);
        long at = offset;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return Arrays.equals(buf.array(), magic);
    }
}
