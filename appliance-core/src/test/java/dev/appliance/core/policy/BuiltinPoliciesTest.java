package dev.appliance.core.policy;

import static dev.appliance.core.policy.PolicyTestSupport.alice;
import static dev.appliance.core.policy.PolicyTestSupport.decide;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.error.StorageException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The shipped policies are valid and grant exactly what they say, checked against every action in the tables: the
 * Veeam repository policy grants the Veeam call pattern and nothing beyond it.
 */
class BuiltinPoliciesTest {
    private static final String BUCKET = "veeam-repo";
    private static final String OTHER = "other-bucket";

    /** The permission set veeam.md §1.1 lists for immutable repositories (Veeam KB3151), verbatim. */
    private static final Set<String> VEEAM_MD = Set.of(
            "s3:ListBucket",
            "s3:GetBucketLocation",
            "s3:GetObject",
            "s3:PutObject",
            "s3:DeleteObject",
            "s3:ListAllMyBuckets",
            "s3:GetBucketVersioning",
            "s3:GetBucketObjectLockConfiguration",
            "s3:ListBucketVersions",
            "s3:GetObjectVersion",
            "s3:GetObjectRetention",
            "s3:GetObjectLegalHold",
            "s3:PutObjectRetention",
            "s3:PutObjectLegalHold",
            "s3:DeleteObjectVersion");

    @Test
    void builtins_parseAsManagedPolicies_withoutWarnings() {
        assertThat(BuiltinPolicies.names()).containsExactly("readonly", "readwrite", "writeonly", "admin", "auditor");
        for (String name : BuiltinPolicies.names()) {
            NamedPolicy p = BuiltinPolicies.get(name);
            assertThat(p.name()).isEqualTo(name);
            assertThat(p.document().kind()).isEqualTo(PolicyKind.MANAGED);
            assertThat(p.document().version()).isEqualTo(PolicyDocument.VERSION_2012);
            assertThat(p.document().warnings()).as(name).isEmpty();
        }
        assertThat(BuiltinPolicies.veeamRepository(List.of(BUCKET)).document().warnings())
                .isEmpty();
        assertThat(BuiltinPolicies.veeamRepositoryMultiBucket(List.of(BUCKET))
                        .document()
                        .warnings())
                .isEmpty();
        assertThatThrownBy(() -> BuiltinPolicies.get("superuser")).hasMessageContaining("'superuser'");
    }

    private static Set<String> allowedS3(NamedPolicy p, String bucket) {
        Set<String> allowed = new TreeSet<>();
        for (S3Action a : S3Action.values()) {
            RequestContext c = alice(a.iamName(), a.resourceArn(bucket, "Veeam/Backup/repo/Clients/c/x.blk"))
                    .build();
            if (decide(List.of(p), null, c).allowed()) {
                allowed.add(a.iamName());
            }
        }
        return allowed;
    }

    private static Set<String> allowedAdmin(NamedPolicy p) {
        Set<String> allowed = new TreeSet<>();
        for (AdminAction a : AdminAction.values()) {
            if (decide(List.of(p), null, alice(a.iamName(), "*").build()).allowed()) {
                allowed.add(a.iamName());
            }
        }
        return allowed;
    }

    private static Set<String> s3(EnumSet<S3Action.AccessLevel> levels) {
        return Arrays.stream(S3Action.values())
                .filter(a -> levels.contains(a.accessLevel()))
                .map(S3Action::iamName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void readonly_allowsExactlyTheReadAndListActions() {
        NamedPolicy p = BuiltinPolicies.get(BuiltinPolicies.READ_ONLY);
        assertThat(allowedS3(p, BUCKET))
                .isEqualTo(s3(EnumSet.of(S3Action.AccessLevel.READ, S3Action.AccessLevel.LIST)));
        assertThat(allowedAdmin(p)).isEmpty();
    }

    @Test
    void writeonly_allowsUploadsOnly() {
        NamedPolicy p = BuiltinPolicies.get(BuiltinPolicies.WRITE_ONLY);
        assertThat(allowedS3(p, BUCKET)).containsExactly("s3:AbortMultipartUpload", "s3:PutObject");
        assertThat(allowedAdmin(p)).isEmpty();
    }

    @Test
    void readwrite_allowsAllOfS3_andNoAdministration() {
        NamedPolicy p = BuiltinPolicies.get(BuiltinPolicies.READ_WRITE);
        assertThat(allowedS3(p, BUCKET)).isEqualTo(s3(EnumSet.allOf(S3Action.AccessLevel.class)));
        assertThat(allowedAdmin(p)).isEmpty();
    }

    @Test
    void admin_allowsEverything() {
        NamedPolicy p = BuiltinPolicies.get(BuiltinPolicies.ADMIN);
        assertThat(allowedS3(p, BUCKET)).hasSize(S3Action.values().length);
        assertThat(allowedAdmin(p)).hasSize(AdminAction.values().length);
    }

    @Test
    void auditor_readsEverything_butNoSecret() {
        NamedPolicy p = BuiltinPolicies.get(BuiltinPolicies.AUDITOR);
        assertThat(allowedS3(p, BUCKET))
                .isEqualTo(s3(EnumSet.of(S3Action.AccessLevel.READ, S3Action.AccessLevel.LIST)));
        Set<String> readsWithoutSecrets = Arrays.stream(AdminAction.values())
                .filter(a -> a.read() && !a.revealsSecret())
                .map(AdminAction::iamName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(allowedAdmin(p)).isEqualTo(readsWithoutSecrets);
        // every secret-revealing action is denied explicitly, not merely left out
        for (AdminAction a : AdminAction.values()) {
            if (a.revealsSecret()) {
                assertThat(decide(List.of(p), null, alice(a.iamName(), "*").build())
                                .outcome())
                        .as(a.iamName())
                        .isEqualTo(Decision.Outcome.EXPLICIT_DENY);
            }
        }
    }

    @Test
    void veeam_grantsExactlyTheVeeamMdPermissionSet_onTheNamedBucketOnly() {
        NamedPolicy veeam = BuiltinPolicies.veeamRepository(List.of(BUCKET));
        assertThat(allowedS3(veeam, BUCKET)).isEqualTo(new TreeSet<>(VEEAM_MD));
        // in another bucket only the account-level listing remains
        assertThat(allowedS3(veeam, OTHER)).containsExactly("s3:ListAllMyBuckets");
        assertThat(allowedAdmin(veeam)).isEmpty();
    }

    @Test
    void veeam_callPattern_succeeds_andNothingBeyondIt() {
        NamedPolicy veeam = BuiltinPolicies.veeamRepository(List.of(BUCKET, "veeam-repo-2"));
        String key = "Veeam/Backup/repo/Clients/{c}/b/CloudStg/Data/1.blk";
        String object = "arn:aws:s3:::" + BUCKET + "/" + key;
        String bucket = "arn:aws:s3:::" + BUCKET;
        // veeam.md §1: bucket picker, capability probe, folder browse, SOSAPI, data path, retention, versions, deletes
        List<RequestContext> pattern = List.of(
                alice("s3:ListAllMyBuckets", "*").build(),
                alice("s3:ListBucket", bucket).build(), // HeadBucket
                alice("s3:GetBucketLocation", bucket).build(),
                alice("s3:GetBucketVersioning", bucket).build(),
                alice("s3:GetBucketObjectLockConfiguration", bucket).build(),
                alice("s3:ListBucket", bucket)
                        .key("s3:prefix", "Veeam/")
                        .key("s3:delimiter", "/")
                        .build(),
                alice("s3:PutObject", "arn:aws:s3:::" + BUCKET + "/Veeam/").build(),
                alice("s3:GetObject", bucket + "/.system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/system.xml")
                        .build(),
                alice("s3:PutObject", object)
                        .key("s3:object-lock-mode", "COMPLIANCE")
                        .build(),
                alice("s3:GetObject", object).build(),
                alice("s3:GetObjectVersion", object).build(),
                alice("s3:PutObjectRetention", object).build(),
                alice("s3:GetObjectRetention", object).build(),
                alice("s3:GetObjectLegalHold", object).build(),
                alice("s3:PutObjectLegalHold", object).build(),
                alice("s3:ListBucketVersions", bucket).build(),
                alice("s3:DeleteObjectVersion", object).build(),
                alice("s3:DeleteObject", object).build(),
                alice("s3:GetObject", "arn:aws:s3:::veeam-repo-2/" + key).build());
        for (RequestContext c : pattern) {
            assertThat(decide(List.of(veeam), null, c).allowed())
                    .as(c.action() + " " + c.resource())
                    .isTrue();
        }
        List<RequestContext> beyond = new ArrayList<>(List.of(
                alice("s3:PutBucketPolicy", bucket).build(),
                alice("s3:DeleteBucketPolicy", bucket).build(),
                alice("s3:DeleteBucket", bucket).build(),
                alice("s3:CreateBucket", "arn:aws:s3:::new-bucket").build(),
                alice("s3:PutBucketVersioning", bucket).build(),
                alice("s3:PutBucketObjectLockConfiguration", bucket).build(),
                alice("s3:PutLifecycleConfiguration", bucket).build(),
                alice("s3:BypassGovernanceRetention", object).build(),
                alice("s3:PutObjectAcl", object).build(),
                alice("s3:GetObject", "arn:aws:s3:::" + OTHER + "/" + key).build(),
                alice("s3:PutObject", "arn:aws:s3:::" + OTHER + "/" + key).build(),
                alice("s3:ListBucket", "arn:aws:s3:::" + OTHER).build(),
                alice("admin:CreateUser", "*").build()));
        for (RequestContext c : beyond) {
            assertThat(decide(List.of(veeam), null, c).outcome())
                    .as(c.action() + " " + c.resource())
                    .isEqualTo(Decision.Outcome.IMPLICIT_DENY);
        }
    }

    @Test
    void veeamMultiBucket_addsCreateAndDeleteOfVeeamsOwnBuckets() {
        NamedPolicy multi = BuiltinPolicies.veeamRepositoryMultiBucket(List.of(BUCKET));
        String child = "0123456789abcdef0123456789abcdef";
        Set<String> onChild = allowedS3(multi, child);
        Set<String> expected = new TreeSet<>(VEEAM_MD);
        expected.addAll(List.of(
                "s3:CreateBucket", "s3:DeleteBucket", "s3:PutBucketVersioning", "s3:PutBucketObjectLockConfiguration"));
        assertThat(onChild).isEqualTo(expected);
        // the named bucket: the data path, but Veeam may not delete or reconfigure it
        assertThat(allowedS3(multi, BUCKET)).isEqualTo(new TreeSet<>(VEEAM_MD));
        // names that are not Veeam's 32-character children: listing only
        assertThat(allowedS3(multi, child.substring(1))).containsExactly("s3:ListAllMyBuckets");
        assertThat(allowedS3(multi, child + "0")).containsExactly("s3:ListAllMyBuckets");
    }

    @Test
    void veeamRender_oneResourcePerBucket_andRefusesBadNames() {
        NamedPolicy two = BuiltinPolicies.veeamRepository(List.of("repo-a", "repo-b"));
        assertThat(two.document().json())
                .contains(
                        "\"arn:aws:s3:::repo-a\"",
                        "\"arn:aws:s3:::repo-b\"",
                        "\"arn:aws:s3:::repo-a/*\"",
                        "\"arn:aws:s3:::repo-b/*\"")
                .doesNotContain("{bucket}");
        assertThatThrownBy(() -> BuiltinPolicies.veeamRepository(List.of())).hasMessageContaining("none");
        assertThatThrownBy(() -> BuiltinPolicies.veeamRepository(List.of("Bad_Bucket")))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("Bad_Bucket");
    }
}
