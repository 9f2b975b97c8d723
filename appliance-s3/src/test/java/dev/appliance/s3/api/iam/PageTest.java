package dev.appliance.s3.api.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PageTest {
    @Test
    void pages_coverEveryItemOnceInOrder() {
        List<String> all = List.of("e", "a", "d", "b", "c");
        List<String> seen = new ArrayList<>();
        String marker = null;
        do {
            Page<String> p = Page.of(all, s -> s, marker, 2);
            seen.addAll(p.items());
            marker = p.nextMarker();
        } while (marker != null);
        assertThat(seen).containsExactly("a", "b", "c", "d", "e");
    }

    @Test
    void exactlyFullLastPage_isNotTruncated() {
        Page<String> p = Page.of(List.of("a", "b"), s -> s, null, 2);
        assertThat(p.items()).containsExactly("a", "b");
        assertThat(p.truncated()).isFalse();
    }

    @Test
    void itemDeletedBetweenPages_doesNotShiftTheRest() {
        Page<String> first = Page.of(List.of("a", "b", "c", "d"), s -> s, null, 2);
        assertThat(first.items()).containsExactly("a", "b");
        // "b", the marker's item, is deleted before the next page is asked for
        Page<String> second = Page.of(List.of("a", "c", "d"), s -> s, first.nextMarker(), 2);
        assertThat(second.items()).containsExactly("c", "d");
        assertThat(second.truncated()).isFalse();
    }

    @Test
    void foreignMarker_isInvalidInput() {
        assertThatThrownBy(() -> Page.of(List.of("a"), s -> s, "not base64!", 2))
                .isInstanceOfSatisfying(
                        IamError.class, e -> assertThat(e.code()).isEqualTo("InvalidInput"));
    }
}
