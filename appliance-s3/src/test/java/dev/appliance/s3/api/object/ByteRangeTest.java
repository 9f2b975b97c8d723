package dev.appliance.s3.api.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import org.junit.jupiter.api.Test;

class ByteRangeTest {
    @Test
    void parse_theThreeForms() {
        assertThat(ByteRange.parse("bytes=0-9", 100)).isEqualTo(new ByteRange(0, 10));
        assertThat(ByteRange.parse("bytes=90-", 100)).isEqualTo(new ByteRange(90, 10));
        assertThat(ByteRange.parse("bytes=-10", 100)).isEqualTo(new ByteRange(90, 10));
        assertThat(ByteRange.parse("bytes=95-200", 100)).isEqualTo(new ByteRange(95, 5));
        assertThat(ByteRange.parse("bytes=-200", 100)).isEqualTo(new ByteRange(0, 100));
        assertThat(new ByteRange(90, 10).contentRange(100)).isEqualTo("bytes 90-99/100");
    }

    @Test
    void parse_malformedOrMultiple_isIgnored() {
        assertThat(ByteRange.parse(null, 100)).isNull();
        assertThat(ByteRange.parse("bytes=5-1", 100)).isNull();
        assertThat(ByteRange.parse("bytes=a-b", 100)).isNull();
        assertThat(ByteRange.parse("items=0-1", 100)).isNull();
        assertThat(ByteRange.parse("bytes=0-1,5-6", 100)).isNull();
    }

    @Test
    void parse_unsatisfiable_isInvalidRangeWithContentRange() {
        for (String h : new String[] {"bytes=100-", "bytes=100-200", "bytes=-0"}) {
            assertThatThrownBy(() -> ByteRange.parse(h, 100))
                    .isInstanceOf(S3Exception.class)
                    .satisfies(e -> {
                        S3Exception s3 = (S3Exception) e;
                        assertThat(s3.code()).isEqualTo(S3ErrorCode.InvalidRange);
                        assertThat(s3.headers()).containsEntry("Content-Range", "bytes */100");
                    });
        }
        assertThatThrownBy(() -> ByteRange.parse("bytes=0-", 0)).isInstanceOf(S3Exception.class);
    }
}
