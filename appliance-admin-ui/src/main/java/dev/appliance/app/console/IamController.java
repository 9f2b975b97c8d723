package dev.appliance.app.console;

import dev.appliance.core.BucketInfo;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.AccessKey;
import dev.appliance.core.identity.Group;
import dev.appliance.core.identity.IdentityException;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.ManagedPolicy;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.identity.User;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.core.policy.MalformedPolicyException;
import dev.appliance.core.policy.PolicyDocument;
import dev.appliance.core.policy.PolicyKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Users, their access keys and policies, groups, and the customer managed policies, as typed JSON records under {@code
 * /api/v1/admin/iam} (docs/admin-api.md). The same identity state the IAM query API on the S3 port changes; access is
 * decided by {@link AdminAuthorization} ({@code admin:<METHOD> <path>}) and every mutation is audited there. A
 * secret is in exactly one answer: the one creating its key.
 *
 * <p>A policy ARN holds a {@code /}, which a console path may not carry encoded ({@link ConsolePaths}); so attaching
 * takes the ARN in the body and detaching in the {@code policyArn} query parameter.
 */
@RestController
@RequestMapping("/api/v1/admin/iam")
class IamController {
    static final String BUILT_IN_ARN_PREFIX = "arn:aws:iam::aws:policy/";

    private final ApplianceStore store;

    IamController(ApplianceStore store) {
        this.store = store;
    }

    /** A user; {@code groups}: the names of the groups it is a member of. */
    record UserView(
            String name,
            String id,
            String created,
            boolean enabled,
            List<String> attachedPolicies,
            List<String> inlinePolicies,
            List<String> groups) {
        static UserView of(User u, List<Group> groups) {
            return new UserView(
                    u.name(),
                    u.id(),
                    u.created().toString(),
                    u.enabled(),
                    u.attachedPolicies(),
                    List.copyOf(u.inlinePolicies().keySet()),
                    groups.stream().map(Group::name).toList());
        }
    }

    /** A group: its members' names and its policies (managed by ARN, inline by name). */
    record GroupView(
            String name,
            String id,
            String created,
            List<String> members,
            List<String> attachedPolicies,
            List<String> inlinePolicies) {
        static GroupView of(Group g) {
            return new GroupView(
                    g.name(),
                    g.id(),
                    g.created().toString(),
                    g.members(),
                    g.attachedPolicies(),
                    List.copyOf(g.inlinePolicies().keySet()));
        }
    }

    /** A key as listed: never its secret. */
    record KeyView(String accessKeyId, String userName, String status, String created) {
        static KeyView of(AccessKey k) {
            return new KeyView(
                    k.accessKeyId(),
                    k.userName(),
                    k.status().name(),
                    k.created().toString());
        }
    }

    /** A key just created, with its secret, shown this once. */
    record NewKeyView(String accessKeyId, String userName, String status, String created, String secretAccessKey) {
        static NewKeyView of(NewAccessKey n) {
            AccessKey k = n.key();
            return new NewKeyView(
                    k.accessKeyId(),
                    k.userName(),
                    k.status().name(),
                    k.created().toString(),
                    n.secretAccessKey());
        }

        @Override
        public String toString() {
            return "NewKeyView[accessKeyId=" + accessKeyId + ", secretAccessKey=<redacted>]";
        }
    }

    /** {@code kind}: {@code builtin} (attach by {@code arn:aws:iam::aws:policy/<name>}) or {@code customer}. */
    record PolicyView(String name, String arn, String kind, String document) {}

    record NewUser(String name) {}

    record NewGroup(String name) {}

    record Enabled(Boolean enabled) {}

    record KeyStatus(String status) {}

    record Attachment(String policyArn) {}

    record NewPolicy(String name, String document) {}

    /** A customer policy's new document. */
    record PolicyDocumentBody(String document) {}

    record NewVeeamUser(String name, List<String> buckets) {}

    /** The Veeam user, its policy and its key with the secret, shown this once. */
    record VeeamUserView(UserView user, PolicyView policy, NewKeyView key) {}

    private IdentityStore identity() {
        return store.identity();
    }

    /** The user with its groups. */
    private UserView view(User u) {
        return UserView.of(u, identity().groupsForUser(u.name()));
    }

    @AdminOperation(AdminAction.LIST_USERS)
    @GetMapping("/users")
    List<UserView> users() {
        // the groups read once for the whole list, not once per user
        List<Group> groups = identity().groups();
        return identity().users().stream()
                .map(u -> UserView.of(
                        u,
                        groups.stream()
                                .filter(g -> g.members().stream().anyMatch(m -> m.equalsIgnoreCase(u.name())))
                                .toList()))
                .toList();
    }

    @AdminOperation(AdminAction.CREATE_USER)
    @PostMapping("/users")
    @ResponseStatus(HttpStatus.CREATED)
    UserView createUser(@RequestBody NewUser body) {
        return view(identity().createUser(body.name()));
    }

    @AdminOperation(AdminAction.GET_USER)
    @GetMapping("/users/{name}")
    UserView user(@PathVariable("name") String name) {
        return view(identity().user(name));
    }

    @AdminOperation(AdminAction.DELETE_USER)
    @DeleteMapping("/users/{name}")
    ResponseEntity<Void> deleteUser(@PathVariable("name") String name) {
        identity().deleteUser(name);
        return ResponseEntity.noContent().build();
    }

    @AdminOperation(AdminAction.UPDATE_USER)
    @PutMapping("/users/{name}/enabled")
    UserView setEnabled(@PathVariable("name") String name, @RequestBody Enabled body) {
        if (body.enabled() == null) {
            throw new BadField(400, "enabled", "enabled: missing (expected true or false)");
        }
        return view(identity().setUserEnabled(name, body.enabled()));
    }

    @AdminOperation(AdminAction.LIST_ACCESS_KEYS)
    @GetMapping("/users/{name}/keys")
    List<KeyView> keys(@PathVariable("name") String name) {
        return identity().accessKeys(name).stream().map(KeyView::of).toList();
    }

    @AdminOperation(AdminAction.CREATE_ACCESS_KEY)
    @PostMapping("/users/{name}/keys")
    @ResponseStatus(HttpStatus.CREATED)
    NewKeyView createKey(@PathVariable("name") String name) {
        return NewKeyView.of(identity().createAccessKey(name));
    }

    @AdminOperation(AdminAction.UPDATE_ACCESS_KEY)
    @PutMapping("/users/{name}/keys/{accessKeyId}")
    KeyView setKeyStatus(
            @PathVariable("name") String name,
            @PathVariable("accessKeyId") String accessKeyId,
            @RequestBody KeyStatus body) {
        return KeyView.of(identity().updateAccessKey(name, accessKeyId, AccessKey.Status.parse(body.status())));
    }

    @AdminOperation(AdminAction.DELETE_ACCESS_KEY)
    @DeleteMapping("/users/{name}/keys/{accessKeyId}")
    ResponseEntity<Void> deleteKey(@PathVariable("name") String name, @PathVariable("accessKeyId") String accessKeyId) {
        identity().deleteAccessKey(name, accessKeyId);
        return ResponseEntity.noContent().build();
    }

    @AdminOperation(AdminAction.ATTACH_POLICY)
    @PostMapping("/users/{name}/policies")
    UserView attach(@PathVariable("name") String name, @RequestBody Attachment body) {
        checkBuiltIn(body.policyArn());
        return view(identity().attachUserPolicy(name, body.policyArn()));
    }

    @AdminOperation(AdminAction.DETACH_POLICY)
    @DeleteMapping("/users/{name}/policies")
    UserView detach(@PathVariable("name") String name, @RequestParam("policyArn") String policyArn) {
        return view(identity().detachUserPolicy(name, policyArn));
    }

    @AdminOperation(AdminAction.LIST_GROUPS)
    @GetMapping("/groups")
    List<GroupView> groups() {
        return identity().groups().stream().map(GroupView::of).toList();
    }

    @AdminOperation(AdminAction.CREATE_GROUP)
    @PostMapping("/groups")
    @ResponseStatus(HttpStatus.CREATED)
    GroupView createGroup(@RequestBody NewGroup body) {
        return GroupView.of(identity().createGroup(body.name()));
    }

    @AdminOperation(AdminAction.GET_GROUP)
    @GetMapping("/groups/{name}")
    GroupView group(@PathVariable("name") String name) {
        return GroupView.of(identity().group(name));
    }

    /** Refused (DeleteConflict) while the group has members or policies, as IAM. */
    @AdminOperation(AdminAction.DELETE_GROUP)
    @DeleteMapping("/groups/{name}")
    ResponseEntity<Void> deleteGroup(@PathVariable("name") String name) {
        identity().deleteGroup(name);
        return ResponseEntity.noContent().build();
    }

    @AdminOperation(AdminAction.UPDATE_GROUP)
    @PutMapping("/groups/{name}/members/{user}")
    GroupView addMember(@PathVariable("name") String name, @PathVariable("user") String user) {
        return GroupView.of(identity().addUserToGroup(name, user));
    }

    @AdminOperation(AdminAction.UPDATE_GROUP)
    @DeleteMapping("/groups/{name}/members/{user}")
    GroupView removeMember(@PathVariable("name") String name, @PathVariable("user") String user) {
        return GroupView.of(identity().removeUserFromGroup(name, user));
    }

    @AdminOperation(AdminAction.ATTACH_POLICY)
    @PostMapping("/groups/{name}/policies")
    GroupView attachToGroup(@PathVariable("name") String name, @RequestBody Attachment body) {
        checkBuiltIn(body.policyArn());
        return GroupView.of(identity().attachGroupPolicy(name, body.policyArn()));
    }

    @AdminOperation(AdminAction.DETACH_POLICY)
    @DeleteMapping("/groups/{name}/policies")
    GroupView detachFromGroup(@PathVariable("name") String name, @RequestParam("policyArn") String policyArn) {
        return GroupView.of(identity().detachGroupPolicy(name, policyArn));
    }

    @AdminOperation(AdminAction.LIST_POLICIES)
    @GetMapping("/policies")
    List<PolicyView> policies() {
        List<PolicyView> out = new ArrayList<>();
        for (String name : BuiltinPolicies.names()) {
            // the document too, so that the console shows what a built-in grants before it is attached
            out.add(new PolicyView(
                    name,
                    BUILT_IN_ARN_PREFIX + name,
                    "builtin",
                    BuiltinPolicies.get(name).document().json()));
        }
        identity().policies().forEach(p -> out.add(customer(p)));
        return out;
    }

    @AdminOperation(AdminAction.CREATE_POLICY)
    @PostMapping("/policies")
    @ResponseStatus(HttpStatus.CREATED)
    PolicyView createPolicy(@RequestBody NewPolicy body) {
        checkDocument(body.document());
        return customer(identity().createPolicy(body.name(), body.document()));
    }

    /** Replaces a customer policy's document (checked as on create); built-in policies cannot be changed. */
    @AdminOperation(AdminAction.UPDATE_POLICY)
    @PutMapping("/policies/{name}")
    PolicyView updatePolicy(@PathVariable("name") String name, @RequestBody PolicyDocumentBody body) {
        if (BuiltinPolicies.names().contains(name)
                && identity().policies().stream().noneMatch(p -> p.name().equalsIgnoreCase(name))) {
            throw new BadField(400, "name", "name: " + name + " is a built-in policy, which cannot be changed");
        }
        checkDocument(body == null ? null : body.document());
        return customer(identity().updatePolicy(name, body.document()));
    }

    @AdminOperation(AdminAction.DELETE_POLICY)
    @DeleteMapping("/policies/{name}")
    ResponseEntity<Void> deletePolicy(@PathVariable("name") String name) {
        identity().deletePolicy(name);
        return ResponseEntity.noContent().build();
    }

    /**
     * A user for a Veeam repository on existing {@code buckets}: the user, a customer policy {@code veeam-<name>}
     * rendered from the built-in Veeam template, attached, and a key. What can be is checked before the first change;
     * a step that fails later undoes the earlier ones ({@link VeeamUsers}).
     */
    @AdminOperation({
        AdminAction.CREATE_USER,
        AdminAction.CREATE_POLICY,
        AdminAction.ATTACH_POLICY,
        AdminAction.CREATE_ACCESS_KEY
    })
    @PostMapping("/users/veeam")
    @ResponseStatus(HttpStatus.CREATED)
    VeeamUserView createVeeamUser(@RequestBody NewVeeamUser body) {
        if (body.buckets() == null || body.buckets().isEmpty()) {
            throw new BadField(400, "buckets", "buckets: missing (expected the names of existing buckets)");
        }
        Set<String> existing =
                store.listBuckets().stream().map(BucketInfo::name).collect(Collectors.toSet());
        for (String bucket : body.buckets()) {
            if (!existing.contains(bucket)) {
                throw new BadField(404, "buckets", "buckets: " + bucket + " does not exist");
            }
        }
        String document;
        try {
            document =
                    BuiltinPolicies.veeamRepository(body.buckets()).document().json();
        } catch (MalformedPolicyException e) {
            throw new BadField(400, "buckets", "buckets: " + e.getMessage());
        }
        String policyName = VeeamUsers.policyName(body.name());
        if (body.name() != null && identity().findUser(body.name()).isPresent()) {
            throw new IdentityException(
                    IdentityException.Kind.ENTITY_ALREADY_EXISTS, "User with name " + body.name() + " already exists.");
        }
        if (identity().policies().stream().anyMatch(p -> p.name().equalsIgnoreCase(policyName))) {
            throw new IdentityException(
                    IdentityException.Kind.ENTITY_ALREADY_EXISTS, "Policy " + policyName + " already exists.");
        }
        VeeamUsers.Made made = VeeamUsers.create(identity(), body.name(), document);
        return new VeeamUserView(view(made.user()), customer(made.policy()), NewKeyView.of(made.key()));
    }

    static PolicyView customer(ManagedPolicy p) {
        return new PolicyView(p.name(), p.arn(), "customer", p.document());
    }

    private static void checkDocument(String document) {
        if (document == null || document.isBlank()) {
            throw new BadField(400, "document", "document: missing (expected a JSON policy document)");
        }
        try {
            PolicyDocument.parse(document, PolicyKind.MANAGED);
        } catch (IllegalArgumentException e) {
            throw new BadField(400, "document", "document: " + e.getMessage());
        }
    }

    /** A built-in ARN must name a built-in policy: the store only checks its spelling. */
    private static void checkBuiltIn(String arn) {
        if (arn != null && arn.startsWith(BUILT_IN_ARN_PREFIX)) {
            String name = arn.substring(BUILT_IN_ARN_PREFIX.length());
            if (!BuiltinPolicies.names().contains(name)) {
                throw new BadField(
                        404,
                        "policyArn",
                        "policyArn: " + arn + " names no built-in policy (expected one of " + BuiltinPolicies.names()
                                + ")");
            }
        }
    }

    /** The store names the argument it refused first in its message; the API's fields are named as in the body. */
    private static final Map<String, String> FIELDS = Map.of(
            "userName",
            "name",
            "groupName",
            "name",
            "policyName",
            "name",
            "policyArn",
            "policyArn",
            "status",
            "status");

    @ExceptionHandler(IdentityException.class)
    ResponseEntity<Problem> identityError(IdentityException e) {
        int status = e.kind().httpStatus();
        String field = null;
        String message = String.valueOf(e.getMessage());
        int colon = message.indexOf(": ");
        if (status == 400 && colon > 0) {
            field = FIELDS.get(message.substring(0, colon));
        }
        return problem(Problem.of(status, e.kind().code(), field, message));
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<Problem> missingParameter(MissingServletRequestParameterException e) {
        return problem(Problem.of(
                400, "InvalidInput", e.getParameterName(), e.getParameterName() + ": missing query parameter"));
    }

    private static ResponseEntity<Problem> problem(Problem p) {
        return ResponseEntity.status(p.status())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(p);
    }
}
