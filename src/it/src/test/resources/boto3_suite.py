"""boto3 against a real appliance: objects, listings, versioning, DeleteObjects, errors.

Run by Boto3IT. Environment: S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION.
boto3 keeps its default checksum behaviour (request_checksum_calculation=when_supported), so it sends CRC32
checksums; the requests on the wire are recorded to show which.

Prints "OK <check>" per passed check, "FAIL <check>: <why>" per failed one, and last a line
"SUMMARY <json>"; exits 0 only when every check passed.
"""

import base64
import hashlib
import io
import json
import os
import sys
import uuid
import zlib

import boto3
import boto3.s3.transfer
import botocore
from botocore.config import Config
from botocore.exceptions import ClientError

ENDPOINT = os.environ["S3_ENDPOINT"]
RUN = uuid.uuid4().hex[:8]

s3 = boto3.client(
    "s3",
    endpoint_url=ENDPOINT,
    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
)

# What went on the wire, per operation: checksum headers and trailers.
wire = {}


def _record(request, event_name, **_):
    op = event_name.rsplit(".", 1)[-1]
    h = {k.lower(): (v.decode("latin-1") if isinstance(v, bytes) else v) for k, v in request.headers.items()}
    entry = wire.setdefault(op, [])
    entry.append(
        {
            "checksum_headers": sorted(k for k in h if k.startswith("x-amz-checksum-")),
            "trailer": h.get("x-amz-trailer"),
            "content_sha256": h.get("x-amz-content-sha256"),
            "content_md5": "content-md5" in h,
        }
    )


s3.meta.events.register("before-send.s3.*", _record)

from suite_checks import check, expect, failed, passed  # noqa: E402 - shared runner, copied beside


def error_code(fn):
    try:
        fn()
    except ClientError as e:
        return e.response["Error"]["Code"]
    raise AssertionError("no error")


def bucket(name):
    b = "boto3-%s-%s" % (name, RUN)
    s3.create_bucket(Bucket=b)
    return b


def empty_and_delete(b):
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=b):
        ids = [{"Key": v["Key"], "VersionId": v["VersionId"]} for v in page.get("Versions", [])]
        ids += [{"Key": m["Key"], "VersionId": m["VersionId"]} for m in page.get("DeleteMarkers", [])]
        if ids:
            s3.delete_objects(Bucket=b, Delete={"Objects": ids, "Quiet": True})
    s3.delete_bucket(Bucket=b)


objects = bucket("objects")


@check("put_get_head_delete")
def _():
    for size in (0, 1, 100 * 1024, 1024 * 1024 + 7):
        data = os.urandom(size)
        key = "obj/size-%d" % size
        put = s3.put_object(Bucket=objects, Key=key, Body=data, ContentType="application/x-test",
                            Metadata={"color": "blue"})
        expect(put["ETag"] == '"%s"' % hashlib.md5(data).hexdigest(), "ETag is the MD5")
        got = s3.get_object(Bucket=objects, Key=key)
        expect(got["Body"].read() == data, "body round trip for %d bytes" % size)
        expect(got["ContentType"] == "application/x-test", "content type")
        expect(got["Metadata"] == {"color": "blue"}, "user metadata")
        head = s3.head_object(Bucket=objects, Key=key)
        expect(head["ContentLength"] == size, "content length")
        ranged = s3.get_object(Bucket=objects, Key=key, Range="bytes=0-0")["Body"].read() if size else b""
        expect(ranged == data[:1], "range")
        s3.delete_object(Bucket=objects, Key=key)
        expect(error_code(lambda: s3.get_object(Bucket=objects, Key=key)) == "NoSuchKey", "deleted")


@check("upload_download_fileobj")
def _():
    data = os.urandom(2 * 1024 * 1024 + 3)
    s3.upload_fileobj(io.BytesIO(data), objects, "transfer/file.bin")
    out = io.BytesIO()
    s3.download_fileobj(objects, "transfer/file.bin", out)
    expect(out.getvalue() == data, "transfer manager round trip")


@check("put_sends_crc32")
def _():
    s3.put_object(Bucket=objects, Key="crc/probe", Body=b"checksummed")
    sent = wire["PutObject"][-1]
    expect(sent["checksum_headers"] == ["x-amz-checksum-crc32"] or sent["trailer"] == "x-amz-checksum-crc32",
           "boto3 sent a CRC32 header or trailer: %r" % sent)


LIST_KEYS = sorted(
    ["list/%02d" % i for i in range(20)]
    + ["list/dir a/x", "list/dir a/y", "list/plus+sign", "list/percent%20", "list/ünï €", "list/amp&lt<>"],
    key=lambda k: k.encode("utf-8"),
)


@check("list_objects_v2_paginator")
def _():
    for k in LIST_KEYS:
        s3.put_object(Bucket=objects, Key=k, Body=k.encode("utf-8"))
    keys = []
    pages = 0
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=objects, Prefix="list/",
                                                             PaginationConfig={"PageSize": 7}):
        pages += 1
        expect(page["KeyCount"] == len(page.get("Contents", [])), "KeyCount")
        keys += [o["Key"] for o in page.get("Contents", [])]
        expect(all(o["StorageClass"] == "STANDARD" for o in page.get("Contents", [])), "storage class")
    expect(keys == LIST_KEYS, "every key once, in order: %r" % keys)
    expect(pages == 4, "26 keys in pages of 7: %d pages" % pages)
    top = s3.list_objects_v2(Bucket=objects, Prefix="list/", Delimiter="/")
    expect([p["Prefix"] for p in top.get("CommonPrefixes", [])] == ["list/dir a/"], "common prefixes")
    expect(top["KeyCount"] == len(LIST_KEYS) - 2 + 1, "KeyCount counts the common prefix")
    v1 = [o["Key"] for page in s3.get_paginator("list_objects").paginate(
        Bucket=objects, Prefix="list/", PaginationConfig={"PageSize": 5}) for o in page.get("Contents", [])]
    expect(v1 == LIST_KEYS, "ListObjects v1 paging")


@check("delete_objects")
def _():
    keys = ["del/%d" % i for i in range(10)] + ["del/odd & <key> é"]
    for k in keys:
        s3.put_object(Bucket=objects, Key=k, Body=b"x")
    r = s3.delete_objects(Bucket=objects, Delete={"Objects": [{"Key": k} for k in keys + ["del/never-was"]]})
    expect(sorted(d["Key"] for d in r["Deleted"]) == sorted(keys + ["del/never-was"]), "all deleted: %r" % r)
    expect("Errors" not in r or r["Errors"] == [], "no errors")
    sent = wire["DeleteObjects"][-1]
    expect(sent["checksum_headers"] or sent["content_md5"], "integrity header sent: %r" % sent)
    left = s3.list_objects_v2(Bucket=objects, Prefix="del/")
    expect(left["KeyCount"] == 0, "nothing left")

    s3.put_object(Bucket=objects, Key="del/q", Body=b"x")
    quiet = s3.delete_objects(Bucket=objects, Delete={"Objects": [{"Key": "del/q"}, {"Key": "del//bad"}],
                                                      "Quiet": True})
    expect("Deleted" not in quiet or quiet["Deleted"] == [], "quiet: no Deleted")
    expect([(e["Key"], e["Code"]) for e in quiet["Errors"]] == [("del//bad", "InvalidObjectName")],
           "per-key error: %r" % quiet.get("Errors"))


versioned = bucket("versions")


@check("versioning_and_list_object_versions")
def _():
    s3.put_bucket_versioning(Bucket=versioned, VersioningConfiguration={"Status": "Enabled"})
    expect(s3.get_bucket_versioning(Bucket=versioned)["Status"] == "Enabled", "enabled")
    v1 = s3.put_object(Bucket=versioned, Key="doc", Body=b"one")["VersionId"]
    v2 = s3.put_object(Bucket=versioned, Key="doc", Body=b"two")["VersionId"]
    expect(v1 and v2 and v1 != v2, "distinct version ids")
    expect(s3.get_object(Bucket=versioned, Key="doc", VersionId=v1)["Body"].read() == b"one", "get by version")
    marker = s3.delete_object(Bucket=versioned, Key="doc")
    expect(marker["DeleteMarker"] is True, "delete marker")
    expect(error_code(lambda: s3.get_object(Bucket=versioned, Key="doc")) == "NoSuchKey", "hidden by marker")
    lv = s3.list_object_versions(Bucket=versioned)
    expect([v["VersionId"] for v in lv["Versions"]] == [v2, v1], "versions newest first")
    expect([m["VersionId"] for m in lv["DeleteMarkers"]] == [marker["VersionId"]], "one marker")
    expect(lv["DeleteMarkers"][0]["IsLatest"] and not any(v["IsLatest"] for v in lv["Versions"]), "IsLatest")
    seen = []
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=versioned,
                                                                 PaginationConfig={"PageSize": 1}):
        seen += [v["VersionId"] for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
    expect(sorted(seen) == sorted([v1, v2, marker["VersionId"]]), "version paging: %r" % seen)

    r = s3.delete_objects(Bucket=versioned, Delete={"Objects": [
        {"Key": "doc", "VersionId": marker["VersionId"]}, {"Key": "doc", "VersionId": v1}]})
    by_version = {d["VersionId"]: d for d in r["Deleted"]}
    expect(by_version[marker["VersionId"]].get("DeleteMarker") is True, "marker removed by version id")
    expect(by_version[marker["VersionId"]].get("DeleteMarkerVersionId") == marker["VersionId"], "marker id echoed")
    expect(v1 in by_version, "version removed")
    expect(s3.get_object(Bucket=versioned, Key="doc")["Body"].read() == b"two", "v2 is current again")
    r2 = s3.delete_objects(Bucket=versioned, Delete={"Objects": [{"Key": "doc"}]})
    expect(r2["Deleted"][0].get("DeleteMarker") is True and r2["Deleted"][0].get("DeleteMarkerVersionId"),
           "delete_objects without version id adds a marker: %r" % r2)


def _crc32_b64(data):
    return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()


def _crc64nvme_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x9A6C9329AC4BC9B5 if crc & 1 else crc >> 1
        table.append(crc)
    return table


def _crc64nvme_b64(data):
    table = _crc64nvme_table()
    crc = (1 << 64) - 1
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return base64.b64encode((crc ^ ((1 << 64) - 1)).to_bytes(8, "big")).decode()


@check("multipart_transfer_checksum")
def _():
    # s3transfer's multipart upload with boto3's default checksum behaviour; the object's checksum, whichever
    # algorithm and type the client chose, must be the one S3 defines for those parts.
    mib = 1024 * 1024
    data = os.urandom(11 * mib + 5)
    cfg = boto3.s3.transfer.TransferConfig(multipart_threshold=5 * mib, multipart_chunksize=5 * mib)
    s3.upload_fileobj(io.BytesIO(data), objects, "mp/transfer", Config=cfg)
    head = s3.head_object(Bucket=objects, Key="mp/transfer", ChecksumMode="ENABLED")
    expect(head["ETag"].endswith('-3"'), "three parts: " + head["ETag"])
    parts = [data[i : i + 5 * mib] for i in range(0, len(data), 5 * mib)]
    kind = head.get("ChecksumType")
    if "ChecksumCRC32" in head and kind == "COMPOSITE":
        raw = b"".join(zlib.crc32(p).to_bytes(4, "big") for p in parts)
        expected = _crc32_b64(raw) + "-3"
        got = head["ChecksumCRC32"]
    elif "ChecksumCRC32" in head:
        expected, got = _crc32_b64(data), head["ChecksumCRC32"]
    else:
        expected, got = _crc64nvme_b64(data), head.get("ChecksumCRC64NVME")
    expect(got == expected, "object checksum %s (%s) != %s; head %r" % (got, kind, expected, head))
    out = io.BytesIO()
    s3.download_fileobj(objects, "mp/transfer", out)
    expect(out.getvalue() == data, "multipart object round-trips")


@check("multipart_sha256_composite")
def _():
    mib = 1024 * 1024
    p1, p2 = os.urandom(5 * mib), b"tail"
    created = s3.create_multipart_upload(Bucket=objects, Key="mp/sha", ChecksumAlgorithm="SHA256")
    expect(created.get("ChecksumAlgorithm") == "SHA256", "algorithm echoed: %r" % created)
    uid = created["UploadId"]
    parts = []
    for n, body in ((1, p1), (2, p2)):
        r = s3.upload_part(
            Bucket=objects, Key="mp/sha", UploadId=uid, PartNumber=n, Body=body, ChecksumAlgorithm="SHA256"
        )
        digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
        expect(r.get("ChecksumSHA256") == digest, "part checksum echoed")
        parts.append({"PartNumber": n, "ETag": r["ETag"], "ChecksumSHA256": digest})
    listed = s3.list_parts(Bucket=objects, Key="mp/sha", UploadId=uid)
    expect(listed.get("ChecksumAlgorithm") == "SHA256", "ListParts algorithm")
    expect([p["ChecksumSHA256"] for p in listed["Parts"]] == [p["ChecksumSHA256"] for p in parts], "ListParts")
    done = s3.complete_multipart_upload(
        Bucket=objects, Key="mp/sha", UploadId=uid, MultipartUpload={"Parts": parts}
    )
    composite = hashlib.sha256(hashlib.sha256(p1).digest() + hashlib.sha256(p2).digest()).digest()
    expected = base64.b64encode(composite).decode() + "-2"
    expect(done.get("ChecksumSHA256") == expected, "complete: %r" % done)
    head = s3.head_object(Bucket=objects, Key="mp/sha", ChecksumMode="ENABLED")
    expect(head.get("ChecksumSHA256") == expected and head.get("ChecksumType") == "COMPOSITE", "head: %r" % head)


@check("list_multipart_uploads_delimiter")
def _():
    ids = {}
    for key in ("up/a/1", "up/a/2", "up/b", "up/c d"):
        ids[key] = s3.create_multipart_upload(Bucket=objects, Key=key)["UploadId"]
    seen = []
    pages = s3.get_paginator("list_multipart_uploads").paginate(
        Bucket=objects, Prefix="up/", Delimiter="/", PaginationConfig={"PageSize": 1}
    )
    for page in pages:
        seen += [u["Key"] for u in page.get("Uploads", [])]
        seen += [p["Prefix"] for p in page.get("CommonPrefixes", [])]
    expect(seen == ["up/a/", "up/b", "up/c d"], "paged uploads: %r" % seen)
    for key, uid in ids.items():
        s3.abort_multipart_upload(Bucket=objects, Key=key, UploadId=uid)
    left = s3.list_multipart_uploads(Bucket=objects, Prefix="up/")
    expect(not left.get("Uploads"), "aborted uploads are gone")


@check("errors_by_code")
def _():
    missing = "boto3-missing-" + RUN
    expect(error_code(lambda: s3.list_objects_v2(Bucket=missing)) == "NoSuchBucket", "NoSuchBucket")
    expect(error_code(lambda: s3.get_object(Bucket=missing, Key="k")) == "NoSuchBucket", "NoSuchBucket on get")
    expect(error_code(lambda: s3.get_object(Bucket=objects, Key="no/such/key")) == "NoSuchKey", "NoSuchKey")
    expect(error_code(lambda: s3.head_object(Bucket=objects, Key="no/such/key")) == "404", "HEAD 404")
    expect(error_code(lambda: s3.delete_bucket(Bucket=objects)) == "BucketNotEmpty", "BucketNotEmpty")
    expect(error_code(lambda: s3.create_bucket(Bucket=objects)) == "BucketAlreadyOwnedByYou", "already owned")


@check("cleanup")
def _():
    empty_and_delete(objects)
    empty_and_delete(versioned)
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    expect(objects not in names and versioned not in names, "buckets gone")


print("SUMMARY " + json.dumps({
    "boto3": boto3.__version__,
    "botocore": botocore.__version__,
    "passed": passed,
    "failed": failed,
    "put_object_wire": wire.get("PutObject", [])[-1:],
    "delete_objects_wire": wire.get("DeleteObjects", [])[-1:],
    "create_multipart_upload_wire": wire.get("CreateMultipartUpload", [])[:1],
    "complete_multipart_upload_wire": wire.get("CompleteMultipartUpload", [])[:1],
}), flush=True)
sys.exit(1 if failed else 0)
