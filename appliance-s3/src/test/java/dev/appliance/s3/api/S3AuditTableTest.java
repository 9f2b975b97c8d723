package dev.appliance.s3.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The audit table names operations by their enum names: a misspelt or renamed one would silently go unaudited. */
class S3AuditTableTest {
    private static final Set<String> OPERATIONS = new HashSet<>(
            Arrays.stream(S3Dispatcher.Operation.values()).map(Enum::name).toList());

    @Test
    void everyAuditedOperation_isAnOperationTheDispatcherRoutes() {
        assertThat(OPERATIONS).containsAll(S3Audit.AUDITED);
        assertThat(OPERATIONS).containsAll(S3Audit.AUDITED_WITH_LOCK_HEADERS);
        assertThat(S3Audit.AUDITED).containsAll(S3Audit.BODY_DETAILED);
    }

    @Test
    void everyOperationThatDeletesOrChangesPolicyOrProtection_isAudited() {
        for (String op : OPERATIONS) {
            boolean changesProtection = op.startsWith("DELETE_") && !op.contains("TAGGING")
                    || op.contains("RETENTION") && op.startsWith("PUT_")
                    || op.contains("LEGAL_HOLD") && op.startsWith("PUT_")
                    || op.contains("POLICY") && op.startsWith("PUT_")
                    || op.contains("PUBLIC_ACCESS") && op.startsWith("PUT_")
                    || op.equals("PUT_BUCKET_VERSIONING")
                    || op.equals("PUT_OBJECT_LOCK_CONFIGURATION")
                    || op.equals("PUT_BUCKET_LIFECYCLE");
            if (changesProtection && !op.equals("DELETE_OBJECTS")) { // DeleteObjects is audited per key
                assertThat(S3Audit.AUDITED).as(op).contains(op);
            }
        }
    }
}
