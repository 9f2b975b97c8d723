"""boto3's IAM client against a real appliance's IAM API (served on the S3 address for requests signed for iam).

Run by IamApiIT. Environment: S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (the root credential),
AWS_DEFAULT_REGION. Prints "OK <check>" per passed check, "FAIL <check>: <why>" per failed one, and last a line
"SUMMARY <json>"; exits 0 only when every check passed.
"""

import json
import os
import sys
import uuid

import boto3
import botocore
from botocore.config import Config
from botocore.exceptions import ClientError

from suite_checks import check, expect, failed, passed

ENDPOINT = os.environ["S3_ENDPOINT"]
RUN = uuid.uuid4().hex[:8]
USER = "veeam-" + RUN
GROUP = "backup-" + RUN

iam = boto3.client("iam", endpoint_url=ENDPOINT, config=Config(retries={"max_attempts": 1}))

VEEAM_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {"Sid": "VeeamListBuckets", "Effect": "Allow", "Action": ["s3:ListAllMyBuckets"], "Resource": "*"},
        {
            "Sid": "VeeamRepositoryBuckets",
            "Effect": "Allow",
            "Action": ["s3:ListBucket", "s3:GetBucketLocation", "s3:GetBucketVersioning",
                       "s3:GetBucketObjectLockConfiguration", "s3:ListBucketVersions"],
            "Resource": ["arn:aws:s3:::veeam-backups"],
        },
        {
            "Sid": "VeeamRepositoryObjects",
            "Effect": "Allow",
            "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:GetObjectVersion",
                       "s3:DeleteObjectVersion", "s3:GetObjectRetention", "s3:PutObjectRetention",
                       "s3:GetObjectLegalHold", "s3:PutObjectLegalHold"],
            "Resource": ["arn:aws:s3:::veeam-backups/*"],
        },
    ],
}
state = {}


def error_code(fn):
    try:
        fn()
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    raise AssertionError("expected an error")


@check("create_user")
def _():
    user = iam.create_user(UserName=USER)["User"]
    expect(user["UserName"] == USER, "name %r" % user)
    expect(user["Arn"].endswith(":user/" + USER), "arn %r" % user["Arn"])
    expect(iam.get_user(UserName=USER)["User"]["UserId"] == user["UserId"], "same id")


@check("create_access_key")
def _():
    key = iam.create_access_key(UserName=USER)["AccessKey"]
    expect(key["Status"] == "Active" and len(key["SecretAccessKey"]) >= 40, "key %r" % key["AccessKeyId"])
    state["key"] = key["AccessKeyId"]


@check("put_and_get_user_policy")
def _():
    iam.put_user_policy(UserName=USER, PolicyName="veeam-repository", PolicyDocument=json.dumps(VEEAM_POLICY))
    # botocore decodes IAM's percent-encoded document into a dict
    doc = iam.get_user_policy(UserName=USER, PolicyName="veeam-repository")["PolicyDocument"]
    expect(doc == VEEAM_POLICY, "document round-trips: %r" % doc)
    expect(iam.list_user_policies(UserName=USER)["PolicyNames"] == ["veeam-repository"], "listed")


@check("attach_builtin_policy")
def _():
    arn = "arn:aws:iam::aws:policy/readonly"
    iam.attach_user_policy(UserName=USER, PolicyArn=arn)
    attached = iam.list_attached_user_policies(UserName=USER)["AttachedPolicies"]
    expect([p["PolicyArn"] for p in attached] == [arn], "attached %r" % attached)
    aws = [p["PolicyName"] for p in iam.list_policies(Scope="AWS")["Policies"]]
    expect("readonly" in aws and "readwrite" in aws, "built-ins listed as AWS managed: %r" % aws)
    iam.detach_user_policy(UserName=USER, PolicyArn=arn)


@check("list_users_paginator")
def _():
    extra = ["page-%s-%d" % (RUN, i) for i in range(3)]
    for name in extra:
        iam.create_user(UserName=name)
    pages = list(iam.get_paginator("list_users").paginate(PaginationConfig={"PageSize": 2}))
    names = [u["UserName"] for p in pages for u in p["Users"]]
    expect(len(pages) >= 2, "several pages: %d" % len(pages))
    expect(USER in names and all(n in names for n in extra), "every user listed: %r" % names)
    expect(len(names) == len(set(names)), "no duplicates")
    for name in extra:
        iam.delete_user(UserName=name)


@check("list_access_keys")
def _():
    keys = iam.list_access_keys(UserName=USER)["AccessKeyMetadata"]
    expect([k["AccessKeyId"] for k in keys] == [state["key"]], "keys %r" % keys)
    iam.update_access_key(UserName=USER, AccessKeyId=state["key"], Status="Inactive")
    keys = iam.list_access_keys(UserName=USER)["AccessKeyMetadata"]
    expect(keys[0]["Status"] == "Inactive", "deactivated")


@check("groups")
def _():
    iam.create_group(GroupName=GROUP)
    iam.add_user_to_group(GroupName=GROUP, UserName=USER)
    got = iam.get_group(GroupName=GROUP)
    expect([u["UserName"] for u in got["Users"]] == [USER], "members %r" % got["Users"])
    expect([g["GroupName"] for g in iam.list_groups_for_user(UserName=USER)["Groups"]] == [GROUP], "user's groups")
    iam.put_group_policy(GroupName=GROUP, PolicyName="inline", PolicyDocument=json.dumps(VEEAM_POLICY))
    expect(iam.get_group_policy(GroupName=GROUP, PolicyName="inline")["PolicyDocument"] == VEEAM_POLICY, "doc")
    iam.delete_group_policy(GroupName=GROUP, PolicyName="inline")
    iam.remove_user_from_group(GroupName=GROUP, UserName=USER)
    iam.delete_group(GroupName=GROUP)


@check("errors_by_code")
def _():
    expect(error_code(lambda: iam.create_user(UserName=USER)) == ("EntityAlreadyExists", 409), "exists")
    expect(error_code(lambda: iam.get_user(UserName="nobody-" + RUN)) == ("NoSuchEntity", 404), "missing")
    iam.create_access_key(UserName=USER)
    expect(error_code(lambda: iam.create_access_key(UserName=USER)) == ("LimitExceeded", 409), "third key")
    expect(error_code(lambda: iam.delete_user(UserName=USER)) == ("DeleteConflict", 409), "user with keys")
    bad = lambda: iam.put_user_policy(UserName=USER, PolicyName="bad", PolicyDocument='{"Statement": 3}')
    expect(error_code(bad) == ("MalformedPolicyDocument", 400), "malformed")


@check("cleanup")
def _():
    for k in iam.list_access_keys(UserName=USER)["AccessKeyMetadata"]:
        iam.delete_access_key(UserName=USER, AccessKeyId=k["AccessKeyId"])
    iam.delete_user_policy(UserName=USER, PolicyName="veeam-repository")
    iam.delete_user(UserName=USER)
    expect(USER not in [u["UserName"] for u in iam.list_users()["Users"]], "user gone")


print("SUMMARY " + json.dumps({
    "boto3": boto3.__version__,
    "botocore": botocore.__version__,
    "passed": passed,
    "failed": failed,
}), flush=True)
sys.exit(1 if failed else 0)
