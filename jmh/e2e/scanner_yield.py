#!/usr/bin/env python3
"""End-to-end load run: does the background scanner, running flat out, slow client PUTs and GETs down?

Against a running appliance: `--fill N` writes N small objects into bucket "scan-fill" (work for the scanner: every
cycle walks and reads them all); `--seconds S` then runs S seconds of client load on bucket "load" (--threads callers,
each PUTting an object of --size bytes and GETting it back, byte-checked) and prints PUT+GET operations per second.

Run it against the same drives twice or more, alternating servers started
  with the scanner held back:  --scanner-interval 1h --scanner-rate 1
  and flat out:                 --scanner-interval 1ms --scanner-rate 0
(the numbers and commands of a run: docs/benchmarks.md, "Scanner yield").
"""
import argparse
import concurrent.futures
import os
import threading
import time

import json
import urllib.request

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 0},
                      max_pool_connections=64),
    )


def ensure_bucket(s3, name):
    try:
        s3.create_bucket(Bucket=name)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass


def fill(s3, count, threads):
    ensure_bucket(s3, "scan-fill")
    body = b"x" * 1024

    def put(i):
        s3.put_object(Bucket="scan-fill", Key=f"d{i % 100}/o{i}", Body=body)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(put, range(count)))


def load(s3, seconds, threads, size):
    ensure_bucket(s3, "load")
    body = os.urandom(size)
    deadline = time.monotonic() + seconds
    counts = [0] * threads
    failures = []

    def worker(t):
        i = 0
        while time.monotonic() < deadline:
            key = f"w{t}/k{i % 50}"
            s3.put_object(Bucket="load", Key=key, Body=body)
            got = s3.get_object(Bucket="load", Key=key)["Body"].read()
            if got != body:
                failures.append(key)
            counts[t] += 2
            i += 1

    start = time.monotonic()
    workers = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.monotonic() - start
    if failures:
        raise SystemExit(f"{len(failures)} GETs returned other bytes than were PUT, e.g. {failures[0]}")
    return sum(counts) / elapsed


def scanner_cycles(console):
    """The background scanner's completed cycles, from the signed admin endpoint (None when it cannot be read)."""
    url = console.rstrip("/") + "/api/v1/admin/scanner"
    request = AWSRequest(method="GET", url=url, headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD"})
    SigV4Auth(boto3.Session().get_credentials(), "s3", "us-east-1").add_auth(request)
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=dict(request.headers))) as r:
            last = json.load(r).get("lastCycle")
            return last["cycle"] if last else 0
    except OSError:
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--endpoint", default="http://127.0.0.1:9000")
    p.add_argument("--fill", type=int, default=0, help="small objects to write into scan-fill first")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--size", type=int, default=256 * 1024)
    p.add_argument("--label", default="run")
    p.add_argument("--console", default="http://127.0.0.1:9001", help="console address, to count scanner cycles")
    a = p.parse_args()
    s3 = client(a.endpoint)
    if a.fill:
        started = time.monotonic()
        fill(s3, a.fill, a.threads)
        print(f"filled scan-fill with {a.fill} objects in {time.monotonic() - started:.1f} s")
    if a.seconds > 0:
        before = scanner_cycles(a.console)
        rate = load(s3, a.seconds, a.threads, a.size)
        after = scanner_cycles(a.console)
        cycles = "unknown" if before is None or after is None else str(after - before)
        print(f"{a.label}: {rate:.1f} PUT+GET ops/s ({a.threads} callers, {a.size} B objects, {a.seconds:.0f} s;"
              f" scanner cycles completed meanwhile: {cycles})")


if __name__ == "__main__":
    main()
