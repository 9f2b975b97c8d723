#!/usr/bin/env python3
"""End-to-end benchmark: does one key with ~10,000 versions slow down PUT, HEAD and GET?

Against a running appliance, it fills one key ("hot") of a versioned bucket with versions of an 18 KiB object, then
measures, interleaved so both see the same machine state:
  PUT  of the next version of "hot"       vs  PUT of a fresh key (a key with one version)
  HEAD of the latest version of "hot"     vs  HEAD of a key with one version
  GET  of the latest version of "hot"     vs  GET of a key with one version
and prints medians, p90s and the ratio hot/cold. The per-key version cap is 10,000, so the key is filled to
(versions - samples) and the measured PUTs take it up to `versions`.

With --churn-keys N the measurements run while the background scanner expires versions of other keys: N keys under
"churn/" get --churn-versions versions each and a lifecycle rule keeping one noncurrent version (prefix "churn/", so
"hot" is untouched), and a thread re-uploads them during the measurement (start the server with a short
--scanner-interval, e.g. 1s). With --rate-seconds S, HEAD and GET rates (calls/s, --threads callers) on "hot" and on
the one-version key are measured for S seconds each, also under the churn.

Run (appliance started with ./appliance server, credentials in the environment):
  AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... python3 jmh/e2e/version_explosion.py \
      --endpoint http://127.0.0.1:9000 --versions 10000 --samples 200
"""
import argparse
import concurrent.futures
import os
import statistics
import threading
import time

import boto3
from botocore.config import Config


def client(endpoint):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 0},
                      max_pool_connections=32),
    )


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def summary(name, hot, cold):
    hm, cm = statistics.median(hot), statistics.median(cold)
    hp = statistics.quantiles(hot, n=10)[-1]
    cp = statistics.quantiles(cold, n=10)[-1]
    print(f"{name:5s} hot median {hm:7.2f} ms p90 {hp:7.2f} ms | one-version median {cm:7.2f} ms p90 {cp:7.2f} ms"
          f" | ratio {hm / cm:4.2f}")
    return hm / cm


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--endpoint", default="http://127.0.0.1:9000")
    p.add_argument("--versions", type=int, default=10000)
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--size", type=int, default=18 * 1024)
    p.add_argument("--threads", type=int, default=8, help="parallel PUTs while filling the hot key")
    p.add_argument("--churn-keys", type=int, default=0, help="keys whose versions the scanner expires meanwhile")
    p.add_argument("--churn-versions", type=int, default=200, help="versions of each churn key before measuring")
    p.add_argument("--rate-seconds", type=float, default=0, help="measure HEAD/GET rates for this long each")
    a = p.parse_args()

    s3 = client(a.endpoint)
    bucket = f"version-explosion-{int(time.time())}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    body = os.urandom(a.size)

    fill = a.versions - a.samples
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(a.threads) as pool:
        list(pool.map(lambda i: s3.put_object(Bucket=bucket, Key="hot", Body=body), range(fill)))
    print(f"filled 'hot' with {fill} versions of {a.size} bytes in {time.perf_counter() - start:.1f} s")
    s3.put_object(Bucket=bucket, Key="cold", Body=body)

    churn = None
    stop = threading.Event()
    churn_puts = [0]
    if a.churn_keys:
        small = os.urandom(1024)
        keys = [f"churn/{k}" for k in range(a.churn_keys)]
        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(a.threads) as pool:
            list(pool.map(lambda i: s3.put_object(Bucket=bucket, Key=keys[i % len(keys)], Body=small),
                          range(a.churn_keys * a.churn_versions)))
        print(f"filled {a.churn_keys} churn keys with {a.churn_versions} versions each in"
              f" {time.perf_counter() - start:.1f} s")
        s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [{
            "ID": "churn", "Status": "Enabled", "Filter": {"Prefix": "churn/"},
            "NoncurrentVersionExpiration": {"NewerNoncurrentVersions": 1}}]})

        def churner():
            c = client(a.endpoint)
            i = 0
            while not stop.is_set():
                c.put_object(Bucket=bucket, Key=keys[i % len(keys)], Body=small)
                churn_puts[0] += 1
                i += 1
        churn = threading.Thread(target=churner, daemon=True)
        churn.start()

    put_hot, put_cold, head_hot, head_cold, get_hot, get_cold = [], [], [], [], [], []
    for i in range(a.samples):
        put_hot.append(timed(lambda: s3.put_object(Bucket=bucket, Key="hot", Body=body)))
        put_cold.append(timed(lambda: s3.put_object(Bucket=bucket, Key=f"fresh/{i}", Body=body)))
        head_hot.append(timed(lambda: s3.head_object(Bucket=bucket, Key="hot")))
        head_cold.append(timed(lambda: s3.head_object(Bucket=bucket, Key="cold")))
        get_hot.append(timed(lambda: s3.get_object(Bucket=bucket, Key="hot")["Body"].read()))
        get_cold.append(timed(lambda: s3.get_object(Bucket=bucket, Key="cold")["Body"].read()))

    rates = []
    if a.rate_seconds > 0:
        for name, call in (("HEAD", lambda k: s3.head_object(Bucket=bucket, Key=k)),
                           ("GET", lambda k: s3.get_object(Bucket=bucket, Key=k)["Body"].read())):
            per = {}
            for key in ("hot", "cold"):
                deadline = time.perf_counter() + a.rate_seconds

                def worker():
                    n = 0
                    while time.perf_counter() < deadline:
                        call(key)
                        n += 1
                    return n
                with concurrent.futures.ThreadPoolExecutor(a.threads) as pool:
                    per[key] = sum(pool.map(lambda _: worker(), range(a.threads))) / a.rate_seconds
            print(f"{name:5s} rate hot {per['hot']:8.1f}/s | one-version {per['cold']:8.1f}/s"
                  f" | ratio {per['cold'] / per['hot']:4.2f} ({a.threads} callers, {a.rate_seconds:.0f} s each)")
            rates.append(per["cold"] / per["hot"])

    if churn is not None:
        stop.set()
        churn.join()
        left = 0
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix="churn/"):
            left += len(page.get("Versions", []))
        written = a.churn_keys * a.churn_versions + churn_puts[0]
        print(f"churn: {written} versions written ({churn_puts[0]} during the measurement), {left} left:"
              f" the scanner expired {written - left}")

    versions = 0
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix="hot"):
        versions += len(page.get("Versions", []))
    print(f"'hot' now has {versions} versions; {a.samples} samples per call")
    ratios = [summary("PUT", put_hot, put_cold), summary("HEAD", head_hot, head_cold),
              summary("GET", get_hot, get_cold)]
    print("within 1.5x:", all(r <= 1.5 for r in ratios))


if __name__ == "__main__":
    main()
