"""A least-privilege Veeam user created with boto3's IAM client, then used with boto3's S3 client.

Run by VeeamLeastPrivilegeIT. Environment: S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (the root
credential), AWS_DEFAULT_REGION, VEEAM_POLICY_FILE (the Veeam repository policy rendered for REPO_BUCKET),
REPO_BUCKET, OTHER_BUCKET and OTHER_KEY (an object the user must not read). Prints "OK <check>" per passed check,
"FAIL <check>: <why>" per failed one, and last "SUMMARY <json>"; exits 0 only when every check passed.
"""

import datetime
import json
import os
import sys
import uuid

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from suite_checks import check, expect, failed, passed

ENDPOINT = os.environ["S3_ENDPOINT"]
REPO = os.environ["REPO_BUCKET"]
OTHER = os.environ["OTHER_BUCKET"]
OTHER_KEY = os.environ["OTHER_KEY"]
RUN = uuid.uuid4().hex[:8]
USER = "veeam-boto3-" + RUN
NO_RETRIES = Config(retries={"max_attempts": 1}, s3={"addressing_style": "path"})

iam = boto3.client("iam", endpoint_url=ENDPOINT, config=NO_RETRIES)
root_s3 = boto3.client("s3", endpoint_url=ENDPOINT, config=NO_RETRIES)
state = {}


@check("create_user_with_veeam_policy")
def _():
    iam.create_user(UserName=USER)
    with open(os.environ["VEEAM_POLICY_FILE"], encoding="utf-8") as f:
        document = f.read()
    arn = iam.create_policy(PolicyName="veeam-repo-" + RUN, PolicyDocument=document)["Policy"]["Arn"]
    iam.attach_user_policy(UserName=USER, PolicyArn=arn)
    attached = iam.list_attached_user_policies(UserName=USER)["AttachedPolicies"]
    expect([p["PolicyArn"] for p in attached] == [arn], "attached %r" % attached)
    key = iam.create_access_key(UserName=USER)["AccessKey"]
    state["s3"] = boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        aws_access_key_id=key["AccessKeyId"],
        aws_secret_access_key=key["SecretAccessKey"],
        config=NO_RETRIES,
    )


@check("put_and_get_in_repository")
def _():
    s3 = state["s3"]
    body = os.urandom(256 * 1024)
    key = "Veeam/Backup/boto3/CloudStg/Data/{%s}/0.blk" % RUN
    until = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(days=7)
    put = s3.put_object(
        Bucket=REPO, Key=key, Body=body, ObjectLockMode="COMPLIANCE", ObjectLockRetainUntilDate=until
    )
    expect(put.get("VersionId"), "a version id: %r" % put)
    got = s3.get_object(Bucket=REPO, Key=key)
    expect(got["Body"].read() == body, "the bytes read back")
    expect(got["ObjectLockMode"] == "COMPLIANCE", "lock mode %r" % got.get("ObjectLockMode"))


@check("get_in_other_bucket_denied")
def _():
    s3 = state["s3"]
    try:
        s3.get_object(Bucket=OTHER, Key=OTHER_KEY)
    except ClientError as e:
        code = e.response["Error"]["Code"]
        status = e.response["ResponseMetadata"]["HTTPStatusCode"]
        expect((code, status) == ("AccessDenied", 403), "refused with %s %s" % (status, code))
        return
    raise AssertionError("GetObject in %s was allowed" % OTHER)


@check("nothing_written_to_other")
def _():
    s3 = state["s3"]
    try:
        s3.put_object(Bucket=OTHER, Key="boto3-" + RUN, Body=b"x")
        raise AssertionError("PutObject in %s was allowed" % OTHER)
    except ClientError as e:
        expect(e.response["Error"]["Code"] == "AccessDenied", "refused: %r" % e.response["Error"])
    keys = [o["Key"] for o in root_s3.list_objects_v2(Bucket=OTHER).get("Contents", [])]
    expect(keys == [OTHER_KEY], "the other bucket unchanged: %r" % keys)


print("SUMMARY " + json.dumps({"passed": passed, "failed": failed}), flush=True)
sys.exit(1 if failed else 0)
