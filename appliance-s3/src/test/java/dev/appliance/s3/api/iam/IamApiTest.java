package dev.appliance.s3.api.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.s3.testing.S3TestServer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.AccessKeyMetadata;
import software.amazon.awssdk.services.iam.model.AttachedPolicy;
import software.amazon.awssdk.services.iam.model.CreateAccessKeyResponse;
import software.amazon.awssdk.services.iam.model.DeleteConflictException;
import software.amazon.awssdk.services.iam.model.EntityAlreadyExistsException;
import software.amazon.awssdk.services.iam.model.GetGroupResponse;
import software.amazon.awssdk.services.iam.model.Group;
import software.amazon.awssdk.services.iam.model.IamException;
import software.amazon.awssdk.services.iam.model.LimitExceededException;
import software.amazon.awssdk.services.iam.model.ListUsersResponse;
import software.amazon.awssdk.services.iam.model.MalformedPolicyDocumentException;
import software.amazon.awssdk.services.iam.model.NoSuchEntityException;
import software.amazon.awssdk.services.iam.model.Policy;
import software.amazon.awssdk.services.iam.model.PolicyScopeType;
import software.amazon.awssdk.services.iam.model.StatusType;
import software.amazon.awssdk.services.iam.model.User;

/** The IAM query API through the AWS SDK's IAM client against a real server and store. */
class IamApiTest {
    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    static final String POLICY = """
            {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}""";

    static IamClient iam;
    static IdentityStore identity;

    @BeforeAll
    static void client() {
        identity = ((StoreAdmin) SERVER.store()).identity();
        identity.unlock(new byte[32]); // the store was opened without the key the application derives
        iam = IamClient.builder()
                .endpointOverride(SERVER.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY)))
                .httpClient(ApacheHttpClient.create())
                .build();
    }

    @AfterAll
    static void close() {
        iam.close();
    }

    @Test
    void users_createGetListRenameDelete() {
        User created = iam.createUser(b -> b.userName("alice")).user();
        assertThat(created.userName()).isEqualTo("alice");
        assertThat(created.userId()).startsWith("AIDA");
        assertThat(created.arn()).isEqualTo("arn:aws:iam::" + identity.accountId() + ":user/alice");
        assertThat(created.path()).isEqualTo("/");
        assertThat(created.createDate()).isNotNull();

        assertThat(iam.getUser(b -> b.userName("ALICE")).user().userId()).isEqualTo(created.userId());
        assertThat(iam.listUsers().users()).extracting(User::userName).contains("alice");

        iam.updateUser(b -> b.userName("alice").newUserName("alice2"));
        assertThat(iam.getUser(b -> b.userName("alice2")).user().userId()).isEqualTo(created.userId());
        assertThatThrownBy(() -> iam.getUser(b -> b.userName("alice")))
                .isInstanceOfSatisfying(NoSuchEntityException.class, e -> assertThat(e.statusCode())
                        .isEqualTo(404));

        iam.deleteUser(b -> b.userName("alice2"));
        assertThat(identity.findUser("alice2")).isEmpty();
        assertThatThrownBy(() -> iam.deleteUser(b -> b.userName("alice2"))).isInstanceOf(NoSuchEntityException.class);
    }

    @Test
    void createUser_twice_isEntityAlreadyExists() {
        iam.createUser(b -> b.userName("bob"));
        assertThatThrownBy(() -> iam.createUser(b -> b.userName("BOB")))
                .isInstanceOfSatisfying(EntityAlreadyExistsException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(409);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("EntityAlreadyExists");
                });
        iam.deleteUser(b -> b.userName("bob"));
    }

    @Test
    void createUser_withoutName_isValidationErrorNamingIt() {
        assertThatThrownBy(() -> iam.createUser(b -> {})).isInstanceOfSatisfying(IamException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationError");
            assertThat(e.awsErrorDetails().errorMessage()).contains("userName");
        });
    }

    @Test
    void listUsers_pagesWithMarker() {
        for (String n : List.of("page-a", "page-b", "page-c")) {
            iam.createUser(b -> b.userName(n));
        }
        List<String> seen = new ArrayList<>();
        String marker = null;
        int pages = 0;
        do {
            String m = marker;
            ListUsersResponse page = iam.listUsers(b -> b.maxItems(2).marker(m));
            assertThat(page.users()).hasSizeLessThanOrEqualTo(2);
            page.users().forEach(u -> seen.add(u.userName()));
            marker = page.isTruncated() ? page.marker() : null;
            pages++;
        } while (marker != null);
        assertThat(pages).isGreaterThanOrEqualTo(2);
        assertThat(seen).containsSubsequence("page-a", "page-b", "page-c").doesNotHaveDuplicates();
        for (String n : List.of("page-a", "page-b", "page-c")) {
            iam.deleteUser(b -> b.userName(n));
        }
    }

    @Test
    void accessKeys_createListDisableDelete_andLimits() {
        iam.createUser(b -> b.userName("keys"));
        CreateAccessKeyResponse first = iam.createAccessKey(b -> b.userName("keys"));
        assertThat(first.accessKey().userName()).isEqualTo("keys");
        assertThat(first.accessKey().status()).isEqualTo(StatusType.ACTIVE);
        assertThat(first.accessKey().secretAccessKey()).hasSizeGreaterThanOrEqualTo(40);
        String id = first.accessKey().accessKeyId();
        assertThat(identity.credential(id).orElseThrow().secretAccessKey())
                .isEqualTo(first.accessKey().secretAccessKey());
        iam.createAccessKey(b -> b.userName("keys"));

        assertThatThrownBy(() -> iam.createAccessKey(b -> b.userName("keys")))
                .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.statusCode())
                        .isEqualTo(409));
        assertThatThrownBy(() -> iam.deleteUser(b -> b.userName("keys")))
                .isInstanceOfSatisfying(DeleteConflictException.class, e -> assertThat(e.statusCode())
                        .isEqualTo(409));

        List<AccessKeyMetadata> keys =
                iam.listAccessKeys(b -> b.userName("keys")).accessKeyMetadata();
        assertThat(keys).hasSize(2).extracting(AccessKeyMetadata::userName).containsOnly("keys");

        iam.updateAccessKey(b -> b.userName("keys").accessKeyId(id).status(StatusType.INACTIVE));
        assertThat(iam.listAccessKeys(b -> b.userName("keys")).accessKeyMetadata())
                .filteredOn(k -> k.accessKeyId().equals(id))
                .extracting(AccessKeyMetadata::status)
                .containsExactly(StatusType.INACTIVE);
        assertThat(identity.credential(id).orElseThrow().active()).isFalse();

        for (AccessKeyMetadata k : keys) {
            iam.deleteAccessKey(b -> b.userName("keys").accessKeyId(k.accessKeyId()));
        }
        assertThatThrownBy(() -> iam.deleteAccessKey(b -> b.userName("keys").accessKeyId(id)))
                .isInstanceOf(NoSuchEntityException.class);
        iam.deleteUser(b -> b.userName("keys"));
    }

    @Test
    void createAccessKey_forMissingUser_isNoSuchEntity() {
        assertThatThrownBy(() -> iam.createAccessKey(b -> b.userName("nobody")))
                .isInstanceOf(NoSuchEntityException.class);
    }

    @Test
    void userInlinePolicies_putGetListDelete() {
        iam.createUser(b -> b.userName("inline"));
        iam.putUserPolicy(b -> b.userName("inline").policyName("reader").policyDocument(POLICY));
        var got = iam.getUserPolicy(b -> b.userName("inline").policyName("reader"));
        assertThat(got.userName()).isEqualTo("inline");
        assertThat(got.policyName()).isEqualTo("reader");
        // IAM answers the document percent-encoded; the SDK leaves it so
        assertThat(URLDecoder.decode(got.policyDocument(), StandardCharsets.UTF_8))
                .isEqualTo(POLICY);
        assertThat(iam.listUserPolicies(b -> b.userName("inline")).policyNames())
                .containsExactly("reader");
        assertThatThrownBy(() -> iam.deleteUser(b -> b.userName("inline"))).isInstanceOf(DeleteConflictException.class);

        iam.deleteUserPolicy(b -> b.userName("inline").policyName("reader"));
        assertThat(iam.listUserPolicies(b -> b.userName("inline")).policyNames())
                .isEmpty();
        assertThatThrownBy(() -> iam.getUserPolicy(b -> b.userName("inline").policyName("reader")))
                .isInstanceOf(NoSuchEntityException.class);
        iam.deleteUser(b -> b.userName("inline"));
    }

    @Test
    void putUserPolicy_malformed_isMalformedPolicyDocument_andStoresNothing() {
        iam.createUser(b -> b.userName("malformed"));
        String bad = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Perhaps\",\"Action\":\"s3:*\","
                + "\"Resource\":\"*\"}]}";
        assertThatThrownBy(() -> iam.putUserPolicy(
                        b -> b.userName("malformed").policyName("p").policyDocument(bad)))
                .isInstanceOfSatisfying(MalformedPolicyDocumentException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorMessage()).contains("Effect");
                });
        assertThatThrownBy(() -> iam.createPolicy(b -> b.policyName("bad").policyDocument("not json")))
                .isInstanceOf(MalformedPolicyDocumentException.class);
        assertThat(identity.user("malformed").inlinePolicies()).isEmpty();
        iam.deleteUser(b -> b.userName("malformed"));
    }

    @Test
    void managedPolicies_createGetListAttachDetachDelete() {
        iam.createUser(b -> b.userName("managed"));
        Policy p = iam.createPolicy(b -> b.policyName("reader").policyDocument(POLICY))
                .policy();
        assertThat(p.arn()).isEqualTo("arn:aws:iam::" + identity.accountId() + ":policy/reader");
        assertThat(p.defaultVersionId()).isEqualTo("v1");
        assertThat(iam.getPolicy(b -> b.policyArn(p.arn())).policy().policyId()).isEqualTo(p.policyId());
        String doc = iam.getPolicyVersion(b -> b.policyArn(p.arn()).versionId("v1"))
                .policyVersion()
                .document();
        assertThat(URLDecoder.decode(doc, StandardCharsets.UTF_8)).isEqualTo(POLICY);
        assertThatThrownBy(() -> iam.createPolicy(b -> b.policyName("READER").policyDocument(POLICY)))
                .isInstanceOf(EntityAlreadyExistsException.class);

        String builtin = "arn:aws:iam::aws:policy/" + BuiltinPolicies.READ_ONLY;
        iam.attachUserPolicy(b -> b.userName("managed").policyArn(p.arn()));
        iam.attachUserPolicy(b -> b.userName("managed").policyArn(builtin));
        assertThat(iam.listAttachedUserPolicies(b -> b.userName("managed")).attachedPolicies())
                .extracting(AttachedPolicy::policyArn, AttachedPolicy::policyName)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(p.arn(), "reader"),
                        org.assertj.core.groups.Tuple.tuple(builtin, BuiltinPolicies.READ_ONLY));
        assertThatThrownBy(() ->
                        iam.attachUserPolicy(b -> b.userName("managed").policyArn("arn:aws:iam::aws:policy/Nope")))
                .isInstanceOf(NoSuchEntityException.class);

        assertThat(iam.listPolicies(b -> b.scope(PolicyScopeType.LOCAL)).policies())
                .extracting(Policy::arn)
                .containsExactly(p.arn());
        assertThat(iam.listPolicies(b -> b.scope(PolicyScopeType.AWS)).policies())
                .extracting(Policy::policyName)
                .containsExactlyInAnyOrderElementsOf(BuiltinPolicies.names());
        assertThat(iam.listPolicies(b -> b.scope(PolicyScopeType.ALL).onlyAttached(true))
                        .policies())
                .extracting(Policy::arn)
                .containsExactlyInAnyOrder(p.arn(), builtin);
        assertThat(iam.getPolicy(b -> b.policyArn(builtin)).policy().attachmentCount())
                .isEqualTo(1);

        assertThatThrownBy(() -> iam.deletePolicy(b -> b.policyArn(p.arn())))
                .isInstanceOf(DeleteConflictException.class);
        iam.detachUserPolicy(b -> b.userName("managed").policyArn(p.arn()));
        iam.detachUserPolicy(b -> b.userName("managed").policyArn(builtin));
        assertThat(iam.listAttachedUserPolicies(b -> b.userName("managed")).attachedPolicies())
                .isEmpty();
        iam.deletePolicy(b -> b.policyArn(p.arn()));
        assertThatThrownBy(() -> iam.getPolicy(b -> b.policyArn(p.arn()))).isInstanceOf(NoSuchEntityException.class);
        iam.deleteUser(b -> b.userName("managed"));
    }

    @Test
    void groups_membersAndPolicies() {
        iam.createUser(b -> b.userName("member"));
        Group g = iam.createGroup(b -> b.groupName("ops")).group();
        assertThat(g.arn()).isEqualTo("arn:aws:iam::" + identity.accountId() + ":group/ops");
        assertThatThrownBy(() -> iam.createGroup(b -> b.groupName("ops")))
                .isInstanceOf(EntityAlreadyExistsException.class);
        iam.addUserToGroup(b -> b.groupName("ops").userName("member"));

        GetGroupResponse got = iam.getGroup(b -> b.groupName("ops"));
        assertThat(got.group().groupId()).isEqualTo(g.groupId());
        assertThat(got.users()).extracting(User::userName).containsExactly("member");
        assertThat(iam.listGroups().groups()).extracting(Group::groupName).contains("ops");
        assertThat(iam.listGroupsForUser(b -> b.userName("member")).groups())
                .extracting(Group::groupName)
                .containsExactly("ops");

        iam.putGroupPolicy(b -> b.groupName("ops").policyName("inline").policyDocument(POLICY));
        assertThat(URLDecoder.decode(
                        iam.getGroupPolicy(b -> b.groupName("ops").policyName("inline"))
                                .policyDocument(),
                        StandardCharsets.UTF_8))
                .isEqualTo(POLICY);
        assertThat(iam.listGroupPolicies(b -> b.groupName("ops")).policyNames()).containsExactly("inline");
        String builtin = "arn:aws:iam::aws:policy/" + BuiltinPolicies.READ_WRITE;
        iam.attachGroupPolicy(b -> b.groupName("ops").policyArn(builtin));
        assertThat(iam.listAttachedGroupPolicies(b -> b.groupName("ops")).attachedPolicies())
                .extracting(AttachedPolicy::policyArn)
                .containsExactly(builtin);

        assertThatThrownBy(() -> iam.deleteGroup(b -> b.groupName("ops"))).isInstanceOf(DeleteConflictException.class);
        iam.detachGroupPolicy(b -> b.groupName("ops").policyArn(builtin));
        iam.deleteGroupPolicy(b -> b.groupName("ops").policyName("inline"));
        iam.removeUserFromGroup(b -> b.groupName("ops").userName("member"));
        assertThat(iam.getGroup(b -> b.groupName("ops")).users()).isEmpty();
        iam.deleteGroup(b -> b.groupName("ops"));
        assertThatThrownBy(() -> iam.getGroup(b -> b.groupName("ops"))).isInstanceOf(NoSuchEntityException.class);
        iam.deleteUser(b -> b.userName("member"));
    }

    @Test
    void unknownAction_isInvalidAction() throws Exception {
        IamRaw.Answer a = IamRaw.send(SERVER.port(), "iam", "POST", "/", "Action=FlyToTheMoon&Version=2010-05-08");
        assertThat(a.status()).isEqualTo(400);
        assertThat(a.body())
                .contains("<ErrorResponse xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\">")
                .contains("<Type>Sender</Type>")
                .contains("<Code>InvalidAction</Code>")
                .contains("FlyToTheMoon");
    }

    @Test
    void getWithQueryParameters_isServedAsPost() throws Exception {
        iam.createUser(b -> b.userName("by-get"));
        IamRaw.Answer a = IamRaw.get(SERVER.port(), "Action=GetUser&UserName=by-get&Version=2010-05-08");
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.body())
                .contains("<GetUserResponse xmlns=\"https://iam.amazonaws.com/doc/2010-05-08/\"><GetUserResult><User>")
                .contains("<UserName>by-get</UserName>")
                .contains("<ResponseMetadata><RequestId>");
        iam.deleteUser(b -> b.userName("by-get"));
    }

    @Test
    void otherMethods_areMethodNotAllowed() throws Exception {
        IamRaw.Answer a = IamRaw.send(SERVER.port(), "iam", "PUT", "/", "Action=ListUsers");
        assertThat(a.status()).isEqualTo(405);
        assertThat(a.body()).contains("<Code>MethodNotAllowed</Code>");
    }

    @Test
    void s3SignedRequest_toTheIamForm_isRefused() throws Exception {
        IamRaw.Answer a = IamRaw.send(SERVER.port(), "s3", "POST", "/", "Action=CreateUser&UserName=sneaky");
        assertThat(a.status()).isGreaterThanOrEqualTo(400);
        assertThat(a.body()).doesNotContain("CreateUserResponse");
        assertThat(identity.findUser("sneaky")).isEmpty();
    }

    @Test
    void iamSignedRequest_toAnS3Path_isRefused() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("iam-path"));
        IamRaw.Answer a = IamRaw.send(SERVER.port(), "iam", "GET", "/iam-path", "");
        assertThat(a.status()).isEqualTo(403);
        assertThat(a.body()).contains("<Code>AccessDenied</Code>").doesNotContain("ListBucketResult");
        IamRaw.Answer post =
                IamRaw.send(SERVER.port(), "iam", "POST", "/iam-path", "Action=CreateUser&UserName=sneaky");
        assertThat(post.status()).isEqualTo(403);
        assertThat(identity.findUser("sneaky")).isEmpty();
    }
}
