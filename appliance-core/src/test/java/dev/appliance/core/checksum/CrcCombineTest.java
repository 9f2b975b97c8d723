package dev.appliance.core.checksum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CrcCombineTest {

    @ParameterizedTest
    @EnumSource(
            value = ChecksumAlgorithm.class,
            names = {"CRC32", "CRC32C", "CRC64NVME"})
    void combine_equalsCrcOfConcatenation_forRandomSplits(ChecksumAlgorithm a) {
        Random random = new Random(42);
        for (int round = 0; round < 300; round++) {
            int partCount = 1 + random.nextInt(6);
            List<byte[]> parts = new ArrayList<>();
            for (int p = 0; p < partCount; p++) {
                int size =
                        switch (random.nextInt(5)) {
                            case 0 -> 0;
                            case 1 -> 1;
                            case 2 -> random.nextInt(16);
                            default -> random.nextInt(70_000);
                        };
                byte[] b = new byte[size];
                random.nextBytes(b);
                parts.add(b);
            }
            ByteArrayOutputStream whole = new ByteArrayOutputStream();
            List<byte[]> values = new ArrayList<>();
            List<Long> sizes = new ArrayList<>();
            for (byte[] p : parts) {
                whole.writeBytes(p);
                values.add(a.of(p));
                sizes.add((long) p.length);
            }
            String expected = a.base64Of(whole.toByteArray());
            assertThat(a.multipartValue(ChecksumType.FULL_OBJECT, values, sizes))
                    .as("%s over parts of %s bytes", a, sizes)
                    .isEqualTo(expected);
        }
    }

    @Test
    void combine_withZeroLengthSecond_isTheFirst() {
        byte[] first = ChecksumAlgorithm.CRC32C.of("abc".getBytes(StandardCharsets.US_ASCII));
        byte[] empty = ChecksumAlgorithm.CRC32C.of(new byte[0]);
        assertThat(ChecksumAlgorithm.CRC32C.combine(first, empty, 0)).isEqualTo(first);
    }

    @Test
    void combine_ofLongRunsOfZeros_matchesDirectComputation() {
        // lengths with high bits set exercise many powers of x^(2^k)
        byte[] zeros = new byte[(1 << 20) + 13];
        for (ChecksumAlgorithm a : List.of(ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC64NVME)) {
            byte[] head = a.of("head".getBytes(StandardCharsets.US_ASCII));
            byte[] concatenated = new byte[4 + zeros.length];
            System.arraycopy("head".getBytes(StandardCharsets.US_ASCII), 0, concatenated, 0, 4);
            assertThat(a.combine(head, a.of(zeros), zeros.length)).isEqualTo(a.of(concatenated));
        }
    }

    @Test
    void combine_matchesJdkCrc32() {
        byte[] a = "The quick brown fox ".getBytes(StandardCharsets.US_ASCII);
        byte[] b = "jumps over the lazy dog".getBytes(StandardCharsets.US_ASCII);
        CRC32 whole = new CRC32();
        whole.update(a);
        whole.update(b);
        byte[] combined =
                ChecksumAlgorithm.CRC32.combine(ChecksumAlgorithm.CRC32.of(a), ChecksumAlgorithm.CRC32.of(b), b.length);
        assertThat(Integer.toUnsignedLong(java.nio.ByteBuffer.wrap(combined).getInt()))
                .isEqualTo(whole.getValue());
    }

    @Test
    void combine_ofDigests_isRefused() {
        assertThatThrownBy(() -> ChecksumAlgorithm.SHA256.combine(new byte[32], new byte[32], 1))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void composite_isChecksumOfConcatenatedPartValuesWithPartCount() {
        byte[] p1 = "part one".getBytes(StandardCharsets.US_ASCII);
        byte[] p2 = "part two".getBytes(StandardCharsets.US_ASCII);
        for (ChecksumAlgorithm a : List.of(ChecksumAlgorithm.CRC32, ChecksumAlgorithm.SHA1, ChecksumAlgorithm.SHA256)) {
            byte[] v1 = a.of(p1);
            byte[] v2 = a.of(p2);
            byte[] concat = new byte[v1.length + v2.length];
            System.arraycopy(v1, 0, concat, 0, v1.length);
            System.arraycopy(v2, 0, concat, v1.length, v2.length);
            assertThat(a.multipartValue(ChecksumType.COMPOSITE, List.of(v1, v2), List.of(8L, 8L)))
                    .isEqualTo(Base64.getEncoder().encodeToString(a.of(concat)) + "-2");
        }
    }

    @Test
    void typeRules_followS3() {
        assertThat(ChecksumAlgorithm.CRC64NVME.defaultType()).isEqualTo(ChecksumType.FULL_OBJECT);
        assertThat(ChecksumAlgorithm.CRC64NVME.supports(ChecksumType.COMPOSITE)).isFalse();
        assertThat(ChecksumAlgorithm.CRC32.defaultType()).isEqualTo(ChecksumType.COMPOSITE);
        assertThat(ChecksumAlgorithm.CRC32C.supports(ChecksumType.FULL_OBJECT)).isTrue();
        assertThat(ChecksumAlgorithm.SHA1.supports(ChecksumType.FULL_OBJECT)).isFalse();
        assertThat(ChecksumAlgorithm.SHA256.defaultType()).isEqualTo(ChecksumType.COMPOSITE);
        assertThatThrownBy(() -> ChecksumAlgorithm.SHA256.multipartValue(
                        ChecksumType.FULL_OBJECT, List.of(new byte[32]), List.of(1L)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void crc64nvme_slicingBy16_agreesWithBytewiseReference() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            byte[] b = new byte[random.nextInt(300)];
            random.nextBytes(b);
            int off = b.length == 0 ? 0 : random.nextInt(b.length);
            int len = b.length - off == 0 ? 0 : random.nextInt(b.length - off + 1);
            Crc64Nvme fast = new Crc64Nvme();
            fast.update(b, off, len);
            assertThat(fast.getValue()).isEqualTo(~Crc64Nvme.updateBytewise(-1L, b, off, len));
        }
        Crc64Nvme check = new Crc64Nvme();
        byte[] nine = "123456789".getBytes(StandardCharsets.US_ASCII);
        check.update(nine, 0, nine.length);
        assertThat(check.getValue()).isEqualTo(0xae8b14860a799888L);
    }
}
