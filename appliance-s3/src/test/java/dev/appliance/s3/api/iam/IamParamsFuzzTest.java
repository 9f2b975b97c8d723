package dev.appliance.s3.api.iam;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Map;

/**
 * Fuzzes the IAM form parser and the paging marker, both read from untrusted request bodies: any text yields
 * parameters or an IAM error (InvalidInput, ValidationError), never another exception.
 */
class IamParamsFuzzTest {
    @FuzzTest
    void formParsesOrIsRefusedAsIamError(FuzzedDataProvider data) {
        String form = data.consumeString(500);
        String marker = data.consumeRemainingAsString();
        try {
            IamParams p = IamParams.of(Map.of(), form);
            p.optional("Action");
            p.maxItems();
            p.requireRootPath("Path");
            p.bool("OnlyAttached", false);
        } catch (IamError e) {
            assertThat(e.code()).isIn("InvalidInput", "ValidationError");
            assertThat(e.status()).isEqualTo(400);
        }
        try {
            Page<String> page = Page.of(java.util.List.of("a", "b", "c"), s -> s, marker, 2);
            assertThat(page.items()).hasSizeLessThanOrEqualTo(2);
        } catch (IamError e) {
            assertThat(e.code()).isEqualTo("InvalidInput");
        }
    }
}
