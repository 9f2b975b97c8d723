"""S3 Object Lock with boto3 against a real appliance: lock buckets, default retention, lock headers on writes and
reads, retention and legal hold by version, refused and allowed deletes, multipart, copy, expiry.

Run by ObjectLockClientsIT. Environment: S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION.
The calls are made as a user would make them: boto3 adds whatever integrity header it adds by default (its checksum
behaviour is left at the default), and the headers it sent are recorded from the wire and reported.
Error answers are checked by code and HTTP status, as AWS gives them (docs/object-lock.md, veeam.md section 3.3).

Prints "OK <check>" per passed check, "FAIL <check>: <why>" per failed one, and last a line "SUMMARY <json>";
exits 0 only when every check passed.
"""

import base64
import hashlib
import io
import json
import os
import re
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone

import boto3
import boto3.s3.transfer
import botocore
from botocore.config import Config
from botocore.exceptions import ClientError

ENDPOINT = os.environ["S3_ENDPOINT"]
RUN = uuid.uuid4().hex[:8]
MIB = 1024 * 1024


def client(**config):
    return boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}, **config),
    )


s3 = client()

# The integrity headers boto3 sent, per operation (S3 requires one on the lock calls), and the retain-until dates
# as they went on the wire (botocore writes a header date in whole seconds, a body date with microseconds).
wire = {}
sent_dates = []


def _record(request, event_name, **_):
    op = event_name.rsplit(".", 1)[-1]
    h = {k.lower(): v for k, v in request.headers.items()}
    wire.setdefault(op, []).append(sorted(k for k in h if k.startswith("x-amz-checksum-") or k == "content-md5"
                                          or k == "x-amz-trailer"))
    date = h.get("x-amz-object-lock-retain-until-date")
    body = request.body if isinstance(request.body, bytes) else b""
    found = re.search(rb"<RetainUntilDate>([^<]+)</RetainUntilDate>", body)
    if date is not None or found:
        text = date.decode() if isinstance(date, bytes) else date if date is not None else found.group(1).decode()
        sent_dates.append(datetime.fromisoformat(text.replace("Z", "+00:00")))


s3.meta.events.register("before-send.s3.*", _record)

from suite_checks import check, expect, failed, passed  # noqa: E402 - shared runner, copied beside


def error(fn):
    """(code, HTTP status) of the error fn's call answers; fails when it succeeds."""
    try:
        fn()
    except ClientError as e:
        return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
    raise AssertionError("the call succeeded, an error was expected")


def expect_error(fn, code, status, why):
    got = error(fn)
    expect(got == (code, status), "%s: expected %s %d, got %r" % (why, code, status, got))


def now():
    return datetime.now(timezone.utc)


def kept():
    """The retain-until date of the last request as the appliance keeps it: in milliseconds, rounded up (a retention
    never ends early)."""
    t = sent_dates[-1]
    ms = t.replace(microsecond=(t.microsecond // 1000) * 1000)
    return ms if ms == t else ms + timedelta(milliseconds=1)


def lock_bucket(name):
    b = "lock-%s-%s" % (name, RUN)
    s3.create_bucket(Bucket=b, ObjectLockEnabledForBucket=True)
    return b


def plain_bucket(name):
    b = "plain-%s-%s" % (name, RUN)
    s3.create_bucket(Bucket=b)
    return b


def put_locked(b, key, mode, until, body=b"locked", **extra):
    return s3.put_object(Bucket=b, Key=key, Body=body, ObjectLockMode=mode, ObjectLockRetainUntilDate=until,
                         **extra)["VersionId"]


def retention(b, key, version):
    r = s3.get_object_retention(Bucket=b, Key=key, VersionId=version)["Retention"]
    return r["Mode"], r["RetainUntilDate"]


def version_of(b, key, version):
    """The ListObjectVersions entry of one version (its LastModified has milliseconds, HEAD's only seconds)."""
    for v in s3.list_object_versions(Bucket=b, Prefix=key).get("Versions", []):
        if v["Key"] == key and v["VersionId"] == version:
            return v
    raise AssertionError("version %s of %s not listed" % (version, key))


def exists(b, key, version):
    try:
        s3.head_object(Bucket=b, Key=key, VersionId=version)
        return True
    except ClientError as e:
        if e.response["ResponseMetadata"]["HTTPStatusCode"] == 404:
            return False
        raise


# Short retentions are written first and checked for expiry last, so the run does not wait for them.
SHORT = 8
short_bucket = lock_bucket("short")
short_versions = {}


@check("short_retention_locked_while_active")
def _():
    until = now() + timedelta(seconds=SHORT)
    for mode in ("GOVERNANCE", "COMPLIANCE"):
        v = put_locked(short_bucket, "short/" + mode, mode, until)
        short_versions[mode] = (v, until)
        expect_error(lambda: s3.delete_object(Bucket=short_bucket, Key="short/" + mode, VersionId=v),
                     "AccessDenied", 403, "delete of a version under %s retention" % mode)


@check("create_bucket_with_object_lock")
def _():
    b = lock_bucket("create")
    expect(s3.get_bucket_versioning(Bucket=b).get("Status") == "Enabled", "a lock bucket is versioned")
    config = s3.get_object_lock_configuration(Bucket=b)["ObjectLockConfiguration"]
    expect(config == {"ObjectLockEnabled": "Enabled"}, "lock enabled, no default retention: %r" % config)
    expect_error(lambda: s3.put_bucket_versioning(Bucket=b, VersioningConfiguration={"Status": "Suspended"}),
                 "InvalidBucketState", 409, "versioning of a lock bucket cannot be suspended")
    expect(s3.get_bucket_versioning(Bucket=b).get("Status") == "Enabled", "still versioned")

    # ObjectLockEnabledForBucket=False sends the header as "false": a plain bucket
    off = "plain-off-%s" % RUN
    s3.create_bucket(Bucket=off, ObjectLockEnabledForBucket=False)
    expect_error(lambda: s3.get_object_lock_configuration(Bucket=off),
                 "ObjectLockConfigurationNotFoundError", 404, "lock configuration of a plain bucket")
    expect(s3.get_bucket_versioning(Bucket=off).get("Status") is None, "a plain bucket is not versioned")


@check("object_lock_configuration")
def _():
    b = lock_bucket("config")
    rules = [
        {"Mode": "GOVERNANCE", "Days": 3},
        {"Mode": "COMPLIANCE", "Years": 2},
        {"Mode": "COMPLIANCE", "Days": 1},
    ]
    for rule in rules:
        s3.put_object_lock_configuration(Bucket=b, ObjectLockConfiguration={
            "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": rule}})
        got = s3.get_object_lock_configuration(Bucket=b)["ObjectLockConfiguration"]
        expect(got == {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": rule}},
               "configuration read back as written: %r != %r" % (got, rule))
    expect_error(lambda: s3.put_object_lock_configuration(Bucket=b, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1, "Years": 1}}}),
        "MalformedXML", 400, "Days and Years together")

    plain = plain_bucket("config")
    expect_error(lambda: s3.get_object_lock_configuration(Bucket=plain),
                 "ObjectLockConfigurationNotFoundError", 404, "lock configuration of a plain bucket")
    enable = {"ObjectLockEnabled": "Enabled"}
    expect_error(lambda: s3.put_object_lock_configuration(Bucket=plain, ObjectLockConfiguration=enable),
                 "InvalidBucketState", 409, "enabling lock on an unversioned bucket")
    s3.put_bucket_versioning(Bucket=plain, VersioningConfiguration={"Status": "Suspended"})
    expect_error(lambda: s3.put_object_lock_configuration(Bucket=plain, ObjectLockConfiguration=enable),
                 "InvalidBucketState", 409, "enabling lock on a bucket with versioning suspended")
    # with versioning enabled, lock can be turned on later (AWS since 2023), and then never off
    s3.put_bucket_versioning(Bucket=plain, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object_lock_configuration(Bucket=plain, ObjectLockConfiguration=enable)
    expect(s3.get_object_lock_configuration(Bucket=plain)["ObjectLockConfiguration"] == enable, "enabled later")
    expect_error(lambda: s3.put_bucket_versioning(Bucket=plain, VersioningConfiguration={"Status": "Suspended"}),
                 "InvalidBucketState", 409, "versioning suspension once lock is on")
    expect(all(w for w in wire.get("PutObjectLockConfiguration", [])),
           "boto3 sent an integrity header with every PutObjectLockConfiguration: %r"
           % wire.get("PutObjectLockConfiguration"))


locked = lock_bucket("objects")


@check("put_object_lock_headers_on_head_and_get")
def _():
    until = now() + timedelta(days=30)  # with microseconds, as a user's datetime has them
    body = os.urandom(100 * 1024)
    put = s3.put_object(Bucket=locked, Key="a/locked", Body=body, ObjectLockMode="COMPLIANCE",
                        ObjectLockRetainUntilDate=until, ObjectLockLegalHoldStatus="ON")
    expect(put["ETag"] == '"%s"' % hashlib.md5(body).hexdigest(), "ETag is the MD5")
    expect(wire["PutObject"][-1], "boto3 sent an integrity header with the lock PUT")
    v = put["VersionId"]
    kept_until = kept()
    expect(abs((kept_until - until).total_seconds()) < 1, "the date sent is the one given: %s" % kept_until)
    head = s3.head_object(Bucket=locked, Key="a/locked")
    expect(head["VersionId"] == v, "HEAD of the current version")
    expect((head.get("ObjectLockMode"), head.get("ObjectLockRetainUntilDate"), head.get("ObjectLockLegalHoldStatus"))
           == ("COMPLIANCE", kept_until, "ON"), "HEAD lock fields: %r (sent %s)" % (head, until))
    got = s3.get_object(Bucket=locked, Key="a/locked", VersionId=v)
    expect(got["Body"].read() == body, "GET by version returns the body")
    expect((got.get("ObjectLockMode"), got.get("ObjectLockRetainUntilDate"), got.get("ObjectLockLegalHoldStatus"))
           == ("COMPLIANCE", kept_until, "ON"), "GET lock fields: %r" % got)
    expect(retention(locked, "a/locked", v) == ("COMPLIANCE", kept_until), "GetObjectRetention")
    expect(s3.get_object_legal_hold(Bucket=locked, Key="a/locked", VersionId=v)["LegalHold"] == {"Status": "ON"},
           "GetObjectLegalHold")
    # GOVERNANCE without legal hold: no legal-hold field, and none to read
    gv = put_locked(locked, "a/governed", "GOVERNANCE", now() + timedelta(days=2))
    head = s3.head_object(Bucket=locked, Key="a/governed", VersionId=gv)
    expect(head.get("ObjectLockMode") == "GOVERNANCE" and "ObjectLockLegalHoldStatus" not in head, "%r" % head)
    expect_error(lambda: s3.get_object_legal_hold(Bucket=locked, Key="a/governed", VersionId=gv),
                 "NoSuchObjectLockConfiguration", 404, "legal hold never set")
    # a plain version of a lock bucket (no default retention) has no retention to read
    pv = s3.put_object(Bucket=locked, Key="a/plain", Body=b"plain")["VersionId"]
    expect("ObjectLockMode" not in s3.head_object(Bucket=locked, Key="a/plain"), "no lock fields")
    expect_error(lambda: s3.get_object_retention(Bucket=locked, Key="a/plain", VersionId=pv),
                 "NoSuchObjectLockConfiguration", 404, "retention never set")


@check("lock_headers_refused")
def _():
    plain = plain_bucket("headers")
    future = now() + timedelta(days=1)
    expect_error(lambda: put_locked(plain, "k", "COMPLIANCE", future), "InvalidRequest", 400,
                 "lock headers on a bucket without lock")
    s3.put_object(Bucket=plain, Key="k", Body=b"x")
    expect_error(lambda: s3.put_object_retention(Bucket=plain, Key="k", Retention={
        "Mode": "GOVERNANCE", "RetainUntilDate": future}), "InvalidRequest", 400, "retention on a bucket without lock")
    expect_error(lambda: s3.put_object_legal_hold(Bucket=plain, Key="k", LegalHold={"Status": "ON"}),
                 "InvalidRequest", 400, "legal hold on a bucket without lock")
    expect_error(lambda: put_locked(locked, "past", "GOVERNANCE", now() - timedelta(minutes=1)), "InvalidArgument",
                 400, "retain-until date in the past")
    expect_error(lambda: s3.put_object(Bucket=locked, Key="mode-only", Body=b"x", ObjectLockMode="GOVERNANCE"),
                 "InvalidArgument", 400, "mode without date")
    s3.put_object(Bucket=locked, Key="xml", Body=b"x")
    expect_error(lambda: s3.put_object_retention(Bucket=locked, Key="xml", Retention={
        "Mode": "FOREVER", "RetainUntilDate": future}), "MalformedXML", 400, "unknown retention mode")
    expect_error(lambda: s3.put_object_legal_hold(Bucket=locked, Key="xml", LegalHold={"Status": "MAYBE"}),
                 "MalformedXML", 400, "unknown legal hold status")
    # A client that sends checksums only when an operation requires them sends none with PutObject: S3 refuses the
    # lock PUT (it needs Content-MD5 or a checksum); with a Content-MD5 given by the caller it is taken.
    bare = client(request_checksum_calculation="when_required")
    expect_error(lambda: bare.put_object(Bucket=locked, Key="bare", Body=b"x", ObjectLockMode="GOVERNANCE",
                                         ObjectLockRetainUntilDate=future), "InvalidRequest", 400,
                 "lock PUT without Content-MD5 or checksum")
    md5 = base64.b64encode(hashlib.md5(b"x").digest()).decode()
    v = bare.put_object(Bucket=locked, Key="bare", Body=b"x", ContentMD5=md5, ObjectLockMode="GOVERNANCE",
                        ObjectLockRetainUntilDate=future)["VersionId"]
    expect(retention(locked, "bare", v)[0] == "GOVERNANCE", "lock PUT with Content-MD5")
    # the same client's retention and legal-hold calls carry a checksum (S3 marks them as requiring one)
    bare.put_object_legal_hold(Bucket=locked, Key="bare", VersionId=v, LegalHold={"Status": "OFF"})
    bare.put_object_retention(Bucket=locked, Key="bare", VersionId=v, Retention={
        "Mode": "GOVERNANCE", "RetainUntilDate": future + timedelta(days=1)})


@check("compliance_retention_by_version")
def _():
    first = now().replace(microsecond=0) + timedelta(days=10)
    v = put_locked(locked, "c/doc", "COMPLIANCE", first)
    newer = put_locked(locked, "c/doc", "COMPLIANCE", first)  # a PUT to a locked key makes a new version
    expect(newer != v, "new version of a locked key")
    later = first + timedelta(days=5, microseconds=123456)
    s3.put_object_retention(Bucket=locked, Key="c/doc", VersionId=v,
                            Retention={"Mode": "COMPLIANCE", "RetainUntilDate": later})
    later_kept = kept()
    expect(later_kept - later < timedelta(milliseconds=1), "the date sent is the one given: %s" % later_kept)
    expect(retention(locked, "c/doc", v) == ("COMPLIANCE", later_kept), "extended")
    expect(retention(locked, "c/doc", newer) == ("COMPLIANCE", first), "the other version is untouched")
    s3.put_object_retention(Bucket=locked, Key="c/doc", VersionId=v,
                            Retention={"Mode": "COMPLIANCE", "RetainUntilDate": later})
    expect(retention(locked, "c/doc", v) == ("COMPLIANCE", later_kept), "same date again is allowed")
    for args, why in [
        ({"Retention": {"Mode": "COMPLIANCE", "RetainUntilDate": first}}, "shortened"),
        ({"Retention": {"Mode": "COMPLIANCE", "RetainUntilDate": first}, "BypassGovernanceRetention": True},
         "shortened with bypass"),
        ({"Retention": {"Mode": "GOVERNANCE", "RetainUntilDate": later + timedelta(days=1)}}, "mode changed"),
        ({"Retention": {}, "BypassGovernanceRetention": True}, "removed with bypass"),
    ]:
        expect_error(lambda: s3.put_object_retention(Bucket=locked, Key="c/doc", VersionId=v, **args),
                     "AccessDenied", 403, "COMPLIANCE " + why)
    expect(retention(locked, "c/doc", v) == ("COMPLIANCE", later_kept), "unchanged by the refused calls")
    expect(all(w for w in wire["PutObjectRetention"]), "integrity header on every PutObjectRetention")


@check("governance_retention_and_bypass")
def _():
    until = now().replace(microsecond=0) + timedelta(days=10)
    v = put_locked(locked, "g/doc", "GOVERNANCE", until)
    shorter = until - timedelta(days=5)
    expect_error(lambda: s3.put_object_retention(Bucket=locked, Key="g/doc", VersionId=v, Retention={
        "Mode": "GOVERNANCE", "RetainUntilDate": shorter}), "AccessDenied", 403, "GOVERNANCE shortened w/o bypass")
    expect_error(lambda: s3.delete_object(Bucket=locked, Key="g/doc", VersionId=v), "AccessDenied", 403,
                 "GOVERNANCE delete w/o bypass")
    s3.put_object_retention(Bucket=locked, Key="g/doc", VersionId=v, BypassGovernanceRetention=True,
                            Retention={"Mode": "GOVERNANCE", "RetainUntilDate": shorter})
    expect(retention(locked, "g/doc", v) == ("GOVERNANCE", shorter), "shortened with bypass")
    s3.put_object_retention(Bucket=locked, Key="g/doc", VersionId=v,
                            Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until})
    expect(retention(locked, "g/doc", v) == ("GOVERNANCE", until), "extended without bypass")
    # an empty Retention removes a GOVERNANCE retention, with bypass only
    expect_error(lambda: s3.put_object_retention(Bucket=locked, Key="g/doc", VersionId=v, Retention={}),
                 "AccessDenied", 403, "GOVERNANCE removed w/o bypass")
    s3.put_object_retention(Bucket=locked, Key="g/doc", VersionId=v, Retention={}, BypassGovernanceRetention=True)
    expect_error(lambda: s3.get_object_retention(Bucket=locked, Key="g/doc", VersionId=v),
                 "NoSuchObjectLockConfiguration", 404, "retention removed")
    # without a version id, the current version's retention is set
    s3.put_object_retention(Bucket=locked, Key="g/doc", Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until})
    expect(retention(locked, "g/doc", v) == ("GOVERNANCE", until), "current version's retention set")
    s3.delete_object(Bucket=locked, Key="g/doc", VersionId=v, BypassGovernanceRetention=True)
    expect(not exists(locked, "g/doc", v), "deleted with bypass")


@check("legal_hold_by_version")
def _():
    v = s3.put_object(Bucket=locked, Key="h/doc", Body=b"held")["VersionId"]
    s3.put_object_legal_hold(Bucket=locked, Key="h/doc", VersionId=v, LegalHold={"Status": "ON"})
    expect(s3.get_object_legal_hold(Bucket=locked, Key="h/doc", VersionId=v)["LegalHold"]["Status"] == "ON", "ON")
    expect(s3.head_object(Bucket=locked, Key="h/doc", VersionId=v).get("ObjectLockLegalHoldStatus") == "ON", "HEAD")
    expect_error(lambda: s3.delete_object(Bucket=locked, Key="h/doc", VersionId=v, BypassGovernanceRetention=True),
                 "AccessDenied", 403, "delete under legal hold, even with bypass")
    s3.put_object_legal_hold(Bucket=locked, Key="h/doc", VersionId=v, LegalHold={"Status": "OFF"})
    expect(s3.get_object_legal_hold(Bucket=locked, Key="h/doc", VersionId=v)["LegalHold"]["Status"] == "OFF", "OFF")
    s3.delete_object(Bucket=locked, Key="h/doc", VersionId=v)
    expect(not exists(locked, "h/doc", v), "deleted once the hold is off")
    expect(all(w for w in wire["PutObjectLegalHold"]), "integrity header on every PutObjectLegalHold")


@check("delete_locked_version_and_delete_marker")
def _():
    v = put_locked(locked, "d/doc", "COMPLIANCE", now() + timedelta(days=3), body=b"kept")
    expect_error(lambda: s3.delete_object(Bucket=locked, Key="d/doc", VersionId=v), "AccessDenied", 403,
                 "delete of a COMPLIANCE version")
    expect_error(lambda: s3.delete_object(Bucket=locked, Key="d/doc", VersionId=v, BypassGovernanceRetention=True),
                 "AccessDenied", 403, "delete of a COMPLIANCE version with bypass")
    marker = s3.delete_object(Bucket=locked, Key="d/doc")
    expect(marker.get("DeleteMarker") is True and marker.get("VersionId"), "a delete marker: %r" % marker)
    expect(error(lambda: s3.get_object(Bucket=locked, Key="d/doc")) == ("NoSuchKey", 404), "hidden by the marker")
    expect(s3.get_object(Bucket=locked, Key="d/doc", VersionId=v)["Body"].read() == b"kept", "locked version kept")
    mv = marker["VersionId"]
    expect_error(lambda: s3.put_object_retention(Bucket=locked, Key="d/doc", VersionId=mv, Retention={
        "Mode": "COMPLIANCE", "RetainUntilDate": now() + timedelta(days=1)}), "MethodNotAllowed", 405,
        "retention of a delete marker")
    expect_error(lambda: s3.get_object_legal_hold(Bucket=locked, Key="d/doc", VersionId=mv), "MethodNotAllowed", 405,
                 "legal hold of a delete marker")
    expect_error(lambda: s3.get_object(Bucket=locked, Key="d/doc", VersionId=mv), "MethodNotAllowed", 405,
                 "GET of a delete marker by version id")
    gone = s3.delete_object(Bucket=locked, Key="d/doc", VersionId=mv)
    expect(gone.get("DeleteMarker") is True and gone.get("VersionId") == mv, "a marker deleted by id: %r" % gone)
    expect(s3.get_object(Bucket=locked, Key="d/doc")["Body"].read() == b"kept", "current again")


@check("delete_objects_with_version_ids")
def _():
    until = now() + timedelta(days=3)
    ids = {
        "b/compliance": put_locked(locked, "b/compliance", "COMPLIANCE", until),
        "b/governance": put_locked(locked, "b/governance", "GOVERNANCE", until),
        "b/held": s3.put_object(Bucket=locked, Key="b/held", Body=b"x", ObjectLockLegalHoldStatus="ON")["VersionId"],
        "b/free-1": s3.put_object(Bucket=locked, Key="b/free-1", Body=b"x")["VersionId"],
        "b/free-2": s3.put_object(Bucket=locked, Key="b/free-2", Body=b"x")["VersionId"],
    }
    r = s3.delete_objects(Bucket=locked, Delete={"Objects": [{"Key": k, "VersionId": v} for k, v in ids.items()]})
    errors = {e["Key"]: (e["Code"], e.get("VersionId")) for e in r.get("Errors", [])}
    expect(errors == {k: ("AccessDenied", ids[k]) for k in ("b/compliance", "b/governance", "b/held")},
           "per-key AccessDenied for the locked versions: %r" % r)
    deleted = {d["Key"]: d.get("VersionId") for d in r.get("Deleted", [])}
    expect(deleted == {"b/free-1": ids["b/free-1"], "b/free-2": ids["b/free-2"]}, "the others deleted: %r" % r)
    expect(not exists(locked, "b/free-1", ids["b/free-1"]) and exists(locked, "b/compliance", ids["b/compliance"]),
           "deleted and kept as reported")
    expect(wire["DeleteObjects"][-1], "integrity header sent with DeleteObjects")
    # quiet mode lists only the errors
    r = s3.delete_objects(Bucket=locked, Delete={"Quiet": True, "Objects": [
        {"Key": "b/compliance", "VersionId": ids["b/compliance"]}]})
    expect(not r.get("Deleted") and [(e["Key"], e["Code"]) for e in r.get("Errors", [])]
           == [("b/compliance", "AccessDenied")], "quiet: %r" % r)
    # with bypass, the GOVERNANCE version goes; COMPLIANCE and legal hold stay
    r = s3.delete_objects(Bucket=locked, BypassGovernanceRetention=True, Delete={"Objects": [
        {"Key": k, "VersionId": ids[k]} for k in ("b/compliance", "b/governance", "b/held")]})
    expect(sorted(e["Key"] for e in r.get("Errors", [])) == ["b/compliance", "b/held"], "still locked: %r" % r)
    expect([d["Key"] for d in r.get("Deleted", [])] == ["b/governance"], "bypassed: %r" % r)
    # without version ids, every key gets a delete marker, locked or not
    r = s3.delete_objects(Bucket=locked, Delete={"Objects": [{"Key": "b/compliance"}, {"Key": "b/held"}]})
    expect(not r.get("Errors") and all(d.get("DeleteMarker") for d in r["Deleted"]), "markers: %r" % r)


@check("default_retention_applied")
def _():
    b = lock_bucket("default")
    s3.put_object_lock_configuration(Bucket=b, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 2}}})
    v = s3.put_object(Bucket=b, Key="plain", Body=b"default")["VersionId"]
    expect(wire["PutObject"][-1], "boto3 sent an integrity header (S3 wants one for PUTs into such a bucket)")
    mode, until = retention(b, "plain", v)
    created = version_of(b, "plain", v)["LastModified"]
    # S3 adds the period to the version's creation time
    expect(mode == "GOVERNANCE" and created + timedelta(days=2) <= until <= created + timedelta(days=2, seconds=2),
           "default retention: %s %s for a version created %s" % (mode, until, created))
    expect_error(lambda: s3.delete_object(Bucket=b, Key="plain", VersionId=v), "AccessDenied", 403,
                 "delete under default retention")
    # a copy and a multipart upload without lock headers get it too, counted from their own creation
    cv = s3.copy_object(Bucket=b, Key="copied", CopySource={"Bucket": b, "Key": "plain"})["VersionId"]
    uid = s3.create_multipart_upload(Bucket=b, Key="multipart")["UploadId"]
    etag = s3.upload_part(Bucket=b, Key="multipart", UploadId=uid, PartNumber=1, Body=b"one part")["ETag"]
    mv = s3.complete_multipart_upload(Bucket=b, Key="multipart", UploadId=uid,
                                      MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})["VersionId"]
    for key, version in (("copied", cv), ("multipart", mv)):
        mode, until = retention(b, key, version)
        created = version_of(b, key, version)["LastModified"]
        expect(mode == "GOVERNANCE"
               and created + timedelta(days=2) <= until <= created + timedelta(days=2, seconds=2),
               "default retention of %s: %s %s for a version created %s" % (key, mode, until, created))
    # explicit headers win over the default; a legal hold alone does not replace it
    explicit = now().replace(microsecond=0) + timedelta(days=9)
    ev = put_locked(b, "explicit", "COMPLIANCE", explicit)
    expect(retention(b, "explicit", ev) == ("COMPLIANCE", explicit), "explicit retention kept")
    hv = s3.put_object(Bucket=b, Key="held", Body=b"x", ObjectLockLegalHoldStatus="ON")["VersionId"]
    head = s3.head_object(Bucket=b, Key="held", VersionId=hv)
    expect(head.get("ObjectLockMode") == "GOVERNANCE" and head.get("ObjectLockLegalHoldStatus") == "ON",
           "default retention plus the hold: %r" % head)
    # Years: whole calendar years from creation
    s3.put_object_lock_configuration(Bucket=b, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "COMPLIANCE", "Years": 1}}})
    yv = s3.put_object(Bucket=b, Key="yearly", Body=b"y")["VersionId"]
    mode, until = retention(b, "yearly", yv)
    created = version_of(b, "yearly", yv)["LastModified"]
    try:
        year_later = created.replace(year=created.year + 1)
    except ValueError:  # 29 February
        year_later = created.replace(year=created.year + 1, day=28)
    expect(mode == "COMPLIANCE" and year_later <= until <= year_later + timedelta(days=1, seconds=2),
           "one year from %s: %s %s" % (created, mode, until))


@check("multipart_upload_with_lock_headers")
def _():
    until = now().replace(microsecond=0) + timedelta(days=4)
    created = s3.create_multipart_upload(Bucket=locked, Key="m/big", ObjectLockMode="COMPLIANCE",
                                         ObjectLockRetainUntilDate=until, ObjectLockLegalHoldStatus="ON")
    uid = created["UploadId"]
    p1, p2 = os.urandom(5 * MIB), os.urandom(3 * MIB + 11)
    parts = []
    for n, body in ((1, p1), (2, p2)):
        r = s3.upload_part(Bucket=locked, Key="m/big", UploadId=uid, PartNumber=n, Body=body)
        parts.append({"PartNumber": n, "ETag": r["ETag"]})
    done = s3.complete_multipart_upload(Bucket=locked, Key="m/big", UploadId=uid, MultipartUpload={"Parts": parts})
    v = done["VersionId"]
    head = s3.head_object(Bucket=locked, Key="m/big", VersionId=v)
    expect(head["ETag"].endswith('-2"') and head["ContentLength"] == len(p1) + len(p2), "two parts: %r" % head)
    expect((head.get("ObjectLockMode"), head.get("ObjectLockRetainUntilDate"), head.get("ObjectLockLegalHoldStatus"))
           == ("COMPLIANCE", until, "ON"), "lock state from CreateMultipartUpload: %r" % head)
    expect(s3.get_object(Bucket=locked, Key="m/big", VersionId=v)["Body"].read() == p1 + p2, "content")
    expect_error(lambda: s3.delete_object(Bucket=locked, Key="m/big", VersionId=v), "AccessDenied", 403,
                 "delete of the completed locked upload")
    # s3transfer (upload_fileobj) with lock arguments: the multipart path a user takes for a large file
    data = os.urandom(9 * MIB + 3)
    cfg = boto3.s3.transfer.TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=5 * MIB)
    s3.upload_fileobj(io.BytesIO(data), locked, "m/transfer", Config=cfg, ExtraArgs={
        "ObjectLockMode": "GOVERNANCE", "ObjectLockRetainUntilDate": until})
    head = s3.head_object(Bucket=locked, Key="m/transfer")
    expect(head["ETag"].endswith('-2"'), "s3transfer used two parts: %r" % head["ETag"])
    expect((head.get("ObjectLockMode"), head.get("ObjectLockRetainUntilDate")) == ("GOVERNANCE", until), "%r" % head)
    # a lock header on a bucket without lock is refused at create
    plain = plain_bucket("multipart")
    expect_error(lambda: s3.create_multipart_upload(Bucket=plain, Key="k", ObjectLockLegalHoldStatus="ON"),
                 "InvalidRequest", 400, "CreateMultipartUpload with lock headers on a bucket without lock")


@check("copy_object_with_lock_headers")
def _():
    src_until = now().replace(microsecond=0) + timedelta(days=6)
    src = put_locked(locked, "cp/source", "COMPLIANCE", src_until, body=b"copied bytes", ObjectLockLegalHoldStatus="ON")
    until = now().replace(microsecond=0) + timedelta(days=8)
    copy = s3.copy_object(Bucket=locked, Key="cp/locked-copy",
                          CopySource={"Bucket": locked, "Key": "cp/source", "VersionId": src},
                          ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=until, ObjectLockLegalHoldStatus="OFF")
    expect(copy.get("CopySourceVersionId") == src, "copy source version: %r" % copy)
    cv = copy["VersionId"]
    head = s3.head_object(Bucket=locked, Key="cp/locked-copy", VersionId=cv)
    expect((head.get("ObjectLockMode"), head.get("ObjectLockRetainUntilDate"), head.get("ObjectLockLegalHoldStatus"))
           == ("GOVERNANCE", until, "OFF"), "the copy's lock state is the request's: %r" % head)
    expect(s3.get_object(Bucket=locked, Key="cp/locked-copy")["Body"].read() == b"copied bytes", "content copied")
    expect_error(lambda: s3.delete_object(Bucket=locked, Key="cp/locked-copy", VersionId=cv), "AccessDenied", 403,
                 "delete of the locked copy")
    # without lock headers the copy inherits nothing (this bucket has no default retention)
    plain_copy = s3.copy_object(Bucket=locked, Key="cp/plain-copy", CopySource={"Bucket": locked, "Key": "cp/source"})
    head = s3.head_object(Bucket=locked, Key="cp/plain-copy", VersionId=plain_copy["VersionId"])
    expect("ObjectLockMode" not in head and "ObjectLockLegalHoldStatus" not in head, "nothing inherited: %r" % head)
    s3.delete_object(Bucket=locked, Key="cp/plain-copy", VersionId=plain_copy["VersionId"])
    expect(retention(locked, "cp/source", src) == ("COMPLIANCE", src_until), "the source is unchanged")


@check("expired_retention_deletable")
def _():
    last = max(until for _, until in short_versions.values())
    wait = (last - now()).total_seconds() + 0.5
    if wait > 0:
        time.sleep(wait)
    for mode, (v, _) in sorted(short_versions.items()):
        key = "short/" + mode
        expect(retention(short_bucket, key, v)[0] == mode, "the expired retention is still reported")
        r = s3.delete_object(Bucket=short_bucket, Key=key, VersionId=v)
        expect(r.get("VersionId") == v, "deleted: %r" % r)
        expect(not exists(short_bucket, key, v), "%s version gone after its retention expired" % mode)


print("SUMMARY " + json.dumps({
    "boto3": boto3.__version__,
    "botocore": botocore.__version__,
    "passed": passed,
    "failed": failed,
    "integrity_headers": {op: sent[-1] for op, sent in wire.items() if op in (
        "PutObject", "PutObjectRetention", "PutObjectLegalHold", "PutObjectLockConfiguration", "DeleteObjects")},
}), flush=True)
sys.exit(1 if failed else 0)
