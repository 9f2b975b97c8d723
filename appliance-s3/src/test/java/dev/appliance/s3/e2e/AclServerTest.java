package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.s3.testing.S3TestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketCannedACL;
import software.amazon.awssdk.services.s3.model.Grant;
import software.amazon.awssdk.services.s3.model.Grantee;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.Type;

/**
 * ACLs are disabled as on a new AWS bucket (Object Ownership "bucket owner enforced"): reads show the owner's
 * FULL_CONTROL; owner-only ACLs are accepted; anything granting more is refused and changes nothing.
 */
class AclServerTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("acls").acl(BucketCannedACL.PRIVATE));
        SERVER.s3().putObject(b -> b.bucket("acls").key("obj"), RequestBody.fromString("x"));
    }

    private static void assertNotSupported(Runnable call) {
        S3Exception e = catchThrowableOfType(S3Exception.class, call::run);
        assertThat(e).isNotNull();
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessControlListNotSupported");
    }

    @Test
    void reads_showTheOwnersFullControl() {
        var bucketAcl = SERVER.s3().getBucketAcl(b -> b.bucket("acls"));
        assertThat(bucketAcl.owner().id()).hasSize(64);
        assertThat(bucketAcl.grants()).singleElement().satisfies(g -> {
            assertThat(g.permission()).isEqualTo(Permission.FULL_CONTROL);
            assertThat(g.grantee().type()).isEqualTo(Type.CANONICAL_USER);
            assertThat(g.grantee().id()).isEqualTo(bucketAcl.owner().id());
        });
        var objectAcl = SERVER.s3().getObjectAcl(b -> b.bucket("acls").key("obj"));
        assertThat(objectAcl.grants())
                .singleElement()
                .extracting(Grant::permission)
                .isEqualTo(Permission.FULL_CONTROL);
        assertThat(catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                                .getObjectAcl(b -> b.bucket("acls").key("missing")))
                        .awsErrorDetails()
                        .errorCode())
                .isEqualTo("NoSuchKey");
        assertThat(catchThrowableOfType(
                                S3Exception.class, () -> SERVER.s3().getBucketAcl(b -> b.bucket("no-such-bucket")))
                        .awsErrorDetails()
                        .errorCode())
                .isEqualTo("NoSuchBucket");
    }

    @Test
    void ownerOnlyAcls_areAccepted() {
        SERVER.s3().putBucketAcl(b -> b.bucket("acls").acl(BucketCannedACL.PRIVATE));
        SERVER.s3().putObjectAcl(b -> b.bucket("acls").key("obj").acl(ObjectCannedACL.BUCKET_OWNER_FULL_CONTROL));
        SERVER.s3()
                .putObject(
                        b -> b.bucket("acls").key("private").acl(ObjectCannedACL.PRIVATE), RequestBody.fromString("p"));
        String owner = SERVER.s3().getBucketAcl(b -> b.bucket("acls")).owner().id();
        SERVER.s3().putObjectAcl(b -> b.bucket("acls").key("obj").accessControlPolicy(p -> p.owner(o -> o.id(owner))
                .grants(Grant.builder()
                        .grantee(Grantee.builder()
                                .type(Type.CANONICAL_USER)
                                .id(owner)
                                .build())
                        .permission(Permission.FULL_CONTROL)
                        .build())));
        assertThat(SERVER.s3()
                        .getObjectAsBytes(b -> b.bucket("acls").key("private"))
                        .asUtf8String())
                .isEqualTo("p");
    }

    @Test
    void publicAcls_areRefusedAndCreateNothing() {
        assertNotSupported(() -> SERVER.s3()
                .putObject(
                        b -> b.bucket("acls").key("public").acl(ObjectCannedACL.PUBLIC_READ),
                        RequestBody.fromString("x")));
        assertThat(catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                                .headObject(b -> b.bucket("acls").key("public")))
                        .statusCode())
                .isEqualTo(404);
        assertNotSupported(
                () -> SERVER.s3().createBucket(b -> b.bucket("public-bucket").acl(BucketCannedACL.PUBLIC_READ)));
        assertThat(SERVER.s3().listBuckets().buckets()).noneMatch(b -> b.name().equals("public-bucket"));
        assertNotSupported(
                () -> SERVER.s3().putBucketAcl(b -> b.bucket("acls").acl(BucketCannedACL.PUBLIC_READ_WRITE)));
        assertNotSupported(
                () -> SERVER.s3().putObjectAcl(b -> b.bucket("acls").key("obj").grantRead("uri=\"x\"")));
        assertNotSupported(() -> SERVER.s3().putObjectAcl(b -> b.bucket("acls")
                .key("obj")
                .accessControlPolicy(p -> p.grants(Grant.builder()
                        .grantee(Grantee.builder()
                                .type(Type.GROUP)
                                .uri("http://acs.amazonaws.com/groups/global/AllUsers")
                                .build())
                        .permission(Permission.READ)
                        .build()))));
        assertNotSupported(() -> SERVER.s3()
                .createMultipartUpload(b -> b.bucket("acls").key("mp").acl(ObjectCannedACL.AUTHENTICATED_READ)));
    }
}
