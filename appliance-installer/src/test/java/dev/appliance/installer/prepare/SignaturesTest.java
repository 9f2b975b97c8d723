package dev.appliance.installer.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Image files (sparse, 4 MiB) with one format's magic bytes where that format keeps them. */
class SignaturesTest {
    @TempDir
    Path tmp;

    static final long IMAGE = 4L << 20;

    static Path image(Path file, long offset, byte[] bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(Math.max(IMAGE, f.length())); // never shrinks a larger image
            if (bytes.length > 0) {
                f.seek(offset);
                f.write(bytes);
            }
        }
        return file;
    }

    @Test
    void aBlankImage_holdsNothing() throws IOException {
        assertThat(Signatures.find(image(tmp.resolve("blank.img"), 0, new byte[0]), -1))
                .isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "0, XFSB, an XFS filesystem",
        "1080, 53ef, an ext2/3/4 filesystem",
        "65600, _BHRfS_M, a btrfs filesystem",
        "0, 4c554b53babe, a LUKS encrypted volume",
        "512, EFI PART, a GPT partition table",
        "512, LABELONE, an LVM physical volume",
        "4096, fc4e2ba9, an mdraid member (superblock 1.2)",
        "4086, SWAPSPACE2, a swap area",
        "510, 55aa, an MBR partition table or boot sector",
        // 0.90 superblock: the last 64 KiB-aligned 64 KiB of the 4 MiB image
        "4128768, fc4e2ba9, an mdraid member (superblock 0.90 or 1.0)",
    })
    void eachFormat_isFoundByItsMagic(long offset, String magic, String name) throws IOException {
        byte[] bytes = magic.matches("[0-9a-f]+") && magic.length() % 2 == 0 && !magic.equals("XFSB")
                ? HexFormat.of().parseHex(magic)
                : magic.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(Signatures.find(image(tmp.resolve("x.img"), offset, bytes), -1))
                .containsExactly(name);
    }

    @Test
    void aGptDisksProtectiveMbr_isNotNamedTwice() throws IOException {
        Path img = image(tmp.resolve("gpt.img"), 510, new byte[] {0x55, (byte) 0xAA});
        image(img, 512, "EFI PART".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(Signatures.find(img, -1)).containsExactly("a GPT partition table");
    }

    @Test
    void whatMkfsXfsWrote_isFound() throws Exception {
        assumeTrue(PrepareDrivesTest.onPath("mkfs.xfs"), "mkfs.xfs not installed (apt-get install xfsprogs)");
        Path img = PrepareDrivesTest.blankImage(tmp.resolve("xfs.img"));
        Process p = new ProcessBuilder("mkfs.xfs", "-q", "-L", "t1", img.toString())
                .redirectErrorStream(true)
                .start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        assertThat(Signatures.find(img, -1)).isEqualTo(List.of("an XFS filesystem"));
    }
}
