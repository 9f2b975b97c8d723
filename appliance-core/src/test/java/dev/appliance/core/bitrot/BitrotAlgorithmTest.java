package dev.appliance.core.bitrot;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The check on a buffer where it lies (a shard just read into direct memory) agrees with the check on an array. */
class BitrotAlgorithmTest {
    private final BitrotAlgorithm crc = BitrotAlgorithm.CRC32C_PAIR;

    @Test
    void verifyOnADirectBuffer_agreesWithTheArrayCheck_forEveryLengthAndAnyFlippedByte() {
        Random random = new Random(17);
        for (int len : new int[] {0, 1, 2, 3, 7, 64, 4095, 65_536, 524_288}) {
            byte[] data = new byte[len];
            random.nextBytes(data);
            byte[] sum = new byte[crc.checksumLength()];
            crc.checksum(data, 0, len, sum, 0);

            // the shard at an offset inside a larger buffer, as a read leaves it after its checksum
            ByteBuffer direct = ByteBuffer.allocateDirect(len + 11);
            direct.position(11).put(data).position(11);
            assertThat(crc.verify(direct, sum, 0)).as("intact, %d bytes", len).isTrue();
            assertThat(direct.position()).as("position left as it was").isEqualTo(11);
            assertThat(direct.remaining()).isEqualTo(len);

            if (len > 0) {
                int at = random.nextInt(len);
                direct.put(11 + at, (byte) (data[at] ^ 0x01));
                data[at] ^= 0x01;
                assertThat(crc.verify(direct, sum, 0))
                        .as("flipped byte %d of %d", at, len)
                        .isFalse();
                assertThat(crc.verify(data, 0, len, sum, 0)).isFalse();
            }
        }
    }

    @Test
    void verifyOnABuffer_refusesAChecksumThatDiffersInEitherHalf() {
        byte[] data = new byte[1000];
        new Random(3).nextBytes(data);
        byte[] sum = new byte[crc.checksumLength()];
        crc.checksum(data, 0, data.length, sum, 0);
        for (int i = 0; i < sum.length; i++) {
            byte[] wrong = sum.clone();
            wrong[i] ^= (byte) 0x80;
            assertThat(crc.verify(ByteBuffer.wrap(data), wrong, 0))
                    .as("checksum byte %d", i)
                    .isFalse();
        }
        assertThat(crc.verify(ByteBuffer.wrap(data), sum, 0)).isTrue();
    }
}
