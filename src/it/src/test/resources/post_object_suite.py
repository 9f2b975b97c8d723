"""Browser-style uploads (POST Object) against a real appliance, with policies signed by boto3.

Run by PostObjectIT. Environment: S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION.
boto3's generate_presigned_post builds and signs the policy (SigV4); the form is posted with `requests` when it is
installed, else with a multipart body built here and sent with urllib.

Prints "OK <check>" per passed check, "FAIL <check>: <why>" per failed one, and last a line "SUMMARY <json>";
exits 0 only when every check passed.
"""

import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
import xml.etree.ElementTree as ET

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

try:
    import requests  # noqa: F401

    HAVE_REQUESTS = True
except ImportError:
    HAVE_REQUESTS = False

ENDPOINT = os.environ["S3_ENDPOINT"]
RUN = uuid.uuid4().hex[:8]
BUCKET = "post-" + RUN

s3 = boto3.client(
    "s3",
    endpoint_url=ENDPOINT,
    config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", retries={"max_attempts": 1}),
)

from suite_checks import check, expect, failed, passed  # noqa: E402 - shared runner, copied beside


class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body


def post_form(url, fields, filename, data):
    """POSTs fields and then the file, as a browser form does; never follows redirects."""
    if HAVE_REQUESTS:
        r = requests.post(url, data=fields, files={"file": (filename, data)}, allow_redirects=False, timeout=60)
        return Answer(r.status_code, dict(r.headers), r.content)
    boundary = "----py" + uuid.uuid4().hex
    parts = []
    for k, v in fields.items():
        parts.append(
            ("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n" % (boundary, k, v)).encode("utf-8")
        )
    parts.append(
        (
            "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n" % (boundary, filename)
        ).encode("utf-8")
    )
    parts.append(data)
    parts.append(("\r\n--%s--\r\n" % boundary).encode("utf-8"))
    req = urllib.request.Request(url, data=b"".join(parts), method="POST")
    req.add_header("Content-Type", "multipart/form-data; boundary=" + boundary)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(req, timeout=60) as resp:
            return Answer(resp.status, dict(resp.headers), resp.read())
    except urllib.error.HTTPError as e:
        return Answer(e.code, dict(e.headers), e.read())


def error_code(answer):
    try:
        return ET.fromstring(answer.body).findtext("Code")
    except ET.ParseError:
        return None


def error_message(answer):
    try:
        return ET.fromstring(answer.body).findtext("Message")
    except ET.ParseError:
        return None


def missing(key):
    try:
        s3.head_object(Bucket=BUCKET, Key=key)
        return False
    except ClientError as e:
        return e.response["Error"]["Code"] in ("404", "NoSuchKey")


s3.create_bucket(Bucket=BUCKET)


@check("presigned_post_201_with_fields")
def _():
    data = b"hello from a browser form " * 10
    post = s3.generate_presigned_post(
        Bucket=BUCKET,
        Key="uploads/${filename}",
        Fields={"Content-Type": "text/plain", "x-amz-meta-owner": "alice", "success_action_status": "201"},
        Conditions=[
            {"Content-Type": "text/plain"},
            {"x-amz-meta-owner": "alice"},
            {"success_action_status": "201"},
            ["content-length-range", 1, 1048576],
        ],
        ExpiresIn=600,
    )
    expect("x-amz-signature" in post["fields"], "boto3 signed with SigV4: %s" % sorted(post["fields"]))
    a = post_form(post["url"], post["fields"], "greeting.txt", data)
    expect(a.status == 201, "status %s %s" % (a.status, a.body[:300]))
    doc = ET.fromstring(a.body)
    expect(doc.tag == "PostResponse", "root %s" % doc.tag)
    expect(doc.findtext("Bucket") == BUCKET, "Bucket %s" % doc.findtext("Bucket"))
    expect(doc.findtext("Key") == "uploads/greeting.txt", "Key %s" % doc.findtext("Key"))
    md5 = hashlib.md5(data).hexdigest()
    expect(doc.findtext("ETag") == '"%s"' % md5, "ETag %s" % doc.findtext("ETag"))
    expect(doc.findtext("Location").endswith("/%s/uploads/greeting.txt" % BUCKET), doc.findtext("Location"))
    got = s3.get_object(Bucket=BUCKET, Key="uploads/greeting.txt")
    expect(got["Body"].read() == data, "content differs")
    expect(got["ContentType"] == "text/plain", "content type %s" % got["ContentType"])
    expect(got["Metadata"].get("owner") == "alice", "metadata %s" % got["Metadata"])


@check("presigned_post_large_streamed_204")
def _():
    data = os.urandom(3 * 1024 * 1024 + 5)
    post = s3.generate_presigned_post(
        Bucket=BUCKET, Key="big.bin", Conditions=[["content-length-range", 0, 10 * 1024 * 1024]], ExpiresIn=600
    )
    a = post_form(post["url"], post["fields"], "big.bin", data)
    expect(a.status == 204, "status %s %s" % (a.status, a.body[:300]))
    expect(a.headers.get("etag") == '"%s"' % hashlib.md5(data).hexdigest(), "etag %s" % a.headers.get("etag"))
    got = s3.get_object(Bucket=BUCKET, Key="big.bin")["Body"].read()
    expect(got == data, "content differs (%d bytes back)" % len(got))


@check("content_length_range_refused")
def _():
    post = s3.generate_presigned_post(
        Bucket=BUCKET, Key="too-big", Conditions=[["content-length-range", 1, 10]], ExpiresIn=600
    )
    a = post_form(post["url"], post["fields"], "f", b"x" * 100)
    expect(a.status == 400 and error_code(a) == "EntityTooLarge", "%s %s" % (a.status, a.body[:300]))
    expect(missing("too-big"), "refused upload was stored")


@check("tampered_signature_refused")
def _():
    post = s3.generate_presigned_post(Bucket=BUCKET, Key="tampered", ExpiresIn=600)
    fields = dict(post["fields"])
    sig = fields["x-amz-signature"]
    fields["x-amz-signature"] = ("0" if sig[0] != "0" else "1") + sig[1:]
    a = post_form(post["url"], fields, "f", b"data")
    expect(a.status == 403 and error_code(a) == "SignatureDoesNotMatch", "%s %s" % (a.status, a.body[:300]))
    expect(missing("tampered"), "stored")


@check("extra_field_refused")
def _():
    post = s3.generate_presigned_post(Bucket=BUCKET, Key="extra", ExpiresIn=600)
    fields = dict(post["fields"])
    fields["x-amz-meta-sneaky"] = "1"
    a = post_form(post["url"], fields, "f", b"data")
    expect(a.status == 403 and error_code(a) == "AccessDenied", "%s %s" % (a.status, a.body[:300]))
    expect("Extra input fields: x-amz-meta-sneaky" in (error_message(a) or ""), error_message(a))
    expect(missing("extra"), "stored")


@check("expired_policy_refused")
def _():
    post = s3.generate_presigned_post(Bucket=BUCKET, Key="expired", ExpiresIn=1)
    time.sleep(2.1)
    a = post_form(post["url"], post["fields"], "f", b"data")
    expect(a.status == 403 and error_code(a) == "AccessDenied", "%s %s" % (a.status, a.body[:300]))
    expect(error_message(a) == "Invalid according to Policy: Policy expired.", error_message(a))
    expect(missing("expired"), "stored")


@check("redirect_303")
def _():
    target = "https://app.example.com/uploaded"
    post = s3.generate_presigned_post(
        Bucket=BUCKET,
        Key="redirected",
        Fields={"success_action_redirect": target},
        Conditions=[{"success_action_redirect": target}],
        ExpiresIn=600,
    )
    a = post_form(post["url"], post["fields"], "f", b"redirect me")
    expect(a.status == 303, "status %s %s" % (a.status, a.body[:300]))
    loc = a.headers.get("location", "")
    md5 = hashlib.md5(b"redirect me").hexdigest()
    expected = "%s?bucket=%s&key=redirected&etag=%%22%s%%22" % (target, BUCKET, md5)
    expect(loc == expected, "Location %s, expected %s" % (loc, expected))
    expect(not missing("redirected"), "not stored")


@check("cleanup")
def _():
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for o in page.get("Contents", []):
            s3.delete_object(Bucket=BUCKET, Key=o["Key"])
    s3.delete_bucket(Bucket=BUCKET)


print(
    "SUMMARY "
    + json.dumps({"passed": passed, "failed": failed, "requests": HAVE_REQUESTS, "boto3": boto3.__version__}),
    flush=True,
)
sys.exit(1 if failed else 0)
