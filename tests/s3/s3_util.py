"""s3_util.py — the independent reader of the S3 tests: boto3 (never Sluice)
against the server of scripts/s3 (SeaweedFS). Run with the venv's python
(SLUICE_S3_PYTHON, .cache/s3/venv/bin/python), where scripts/s3 fetch put
the pinned boto3; imported by the test scripts beside it.

The server, from the environment ctest gives every test of the `s3` fixture
(tests/s3/tests.cmake, SL_S3_ENV):
  SLUICE_S3_ENDPOINT                          http://127.0.0.1:PORT
  SLUICE_S3_ACCESS_KEY, SLUICE_S3_SECRET_KEY  the identity `sluice` (admin)
  SLUICE_S3_RO_ACCESS_KEY, SLUICE_S3_RO_SECRET_KEY  `sluice_ro` (read, list)
  SLUICE_S3_PORT, SLUICE_S3_RUN_DIR           where scripts/s3 runs it
  SLUICE_S3_SCRIPT                            scripts/s3 (restart --immediate)
Run by hand, the defaults match `scripts/s3 start` (port 8333).

Every client signs with SigV4 for region us-east-1 and addresses buckets
path-style (http://host:port/bucket/key: no DNS names per bucket), makes one
attempt per call (a failure shows as it is, no retries hide it) and sends no
flexible checksums (CRC32 trailers boto3 would add on its own: the requests
stay plain, as the sink's will be).

- client(access_key, secret_key) -> a boto3 S3 client (default: `sluice`);
  ro_client() for `sluice_ro`.
- error_of(exc) -> (http status, S3 error code, message) of a ClientError;
  call(fn, ...) -> ('ok', result) or ('error', (status, code, message)).
- new_bucket(prefix) -> the name of a bucket created for one test run.
- list_keys(bucket, prefix) -> [(key, size, etag)] of ListObjectsV2, all pages.
- read(bucket, key) -> the object's bytes, None when NoSuchKey.
- head(bucket, key) -> (size, etag) of HeadObject, None when it is 404.
- uploads(bucket, prefix) -> [(key, upload id)] of ListMultipartUploads, all pages.
- parts(bucket, key, upload_id) -> [(part number, size, etag)] of ListParts.
- multipart_etag(part_bodies) -> the ETag S3 gives the object a multipart
  upload of those parts completes into: MD5 of the parts' MD5s, '-', count.
- restart(immediate=True): scripts/s3 restart [--immediate] of the server
  (its data is kept); returns scripts/s3's line.
- kill_loop(argv, env, kills, rnd, ...) -> (kills, runs, ended, failure):
  the SIGKILL loop of the tests: runs of a sluice command killed after the
  test pause points of the runtime (SLUICE_TEST_PAUSE: after a pre-commit,
  after the seal) or at a random moment, in turn.
"""
import hashlib
import os
import signal
import subprocess
import time

import boto3
import botocore.exceptions
from botocore.config import Config

HERE = os.path.dirname(os.path.abspath(__file__))
ENDPOINT = os.environ.get("SLUICE_S3_ENDPOINT", "http://127.0.0.1:8333")
ACCESS_KEY = os.environ.get("SLUICE_S3_ACCESS_KEY", "sluice-access")
SECRET_KEY = os.environ.get("SLUICE_S3_SECRET_KEY", "sluice-secret")
RO_ACCESS_KEY = os.environ.get("SLUICE_S3_RO_ACCESS_KEY", "sluice-ro-access")
RO_SECRET_KEY = os.environ.get("SLUICE_S3_RO_SECRET_KEY", "sluice-ro-secret")
REGION = "us-east-1"
ClientError = botocore.exceptions.ClientError


def client(access_key=ACCESS_KEY, secret_key=SECRET_KEY):
    return boto3.session.Session().client(
        "s3", endpoint_url=ENDPOINT, region_name=REGION,
        aws_access_key_id=access_key, aws_secret_access_key=secret_key,
        config=Config(signature_version="s3v4",
                      s3={"addressing_style": "path"},
                      retries={"max_attempts": 1, "mode": "standard"},
                      connect_timeout=5, read_timeout=60,
                      request_checksum_calculation="when_required",
                      response_checksum_validation="when_required"))


def ro_client():
    return client(RO_ACCESS_KEY, RO_SECRET_KEY)


def error_of(exc):
    r = exc.response
    return (r.get("ResponseMetadata", {}).get("HTTPStatusCode"),
            r.get("Error", {}).get("Code"), r.get("Error", {}).get("Message"))


def call(fn, *args, **kw):
    try:
        return ("ok", fn(*args, **kw))
    except ClientError as e:
        return ("error", error_of(e))


_default = None


def _c():
    global _default
    if _default is None:
        _default = client()
    return _default


def new_bucket(prefix="t"):
    name = "%s-%d-%d" % (prefix, os.getpid(), int(time.time() * 1000) % 10**9)
    _c().create_bucket(Bucket=name)
    return name


def list_keys(bucket, prefix=""):
    out, token = [], None
    while True:
        kw = {"Bucket": bucket, "Prefix": prefix}
        if token:
            kw["ContinuationToken"] = token
        r = _c().list_objects_v2(**kw)
        out += [(o["Key"], o["Size"], o["ETag"]) for o in r.get("Contents", [])]
        if not r.get("IsTruncated"):
            return out
        token = r["NextContinuationToken"]


def read(bucket, key):
    try:
        return _c().get_object(Bucket=bucket, Key=key)["Body"].read()
    except ClientError as e:
        if error_of(e)[1] == "NoSuchKey":
            return None
        raise


def head(bucket, key):
    try:
        r = _c().head_object(Bucket=bucket, Key=key)
        return (r["ContentLength"], r["ETag"])
    except ClientError as e:
        if error_of(e)[0] == 404:
            return None
        raise


def uploads(bucket, prefix=""):
    out, kw = [], {"Bucket": bucket, "Prefix": prefix}
    while True:
        r = _c().list_multipart_uploads(**kw)
        out += [(u["Key"], u["UploadId"]) for u in r.get("Uploads", [])]
        if not r.get("IsTruncated"):
            return out
        kw["KeyMarker"], kw["UploadIdMarker"] = r["NextKeyMarker"], r["NextUploadIdMarker"]


def parts(bucket, key, upload_id):
    out, kw = [], {"Bucket": bucket, "Key": key, "UploadId": upload_id}
    while True:
        r = _c().list_parts(**kw)
        out += [(p["PartNumber"], p["Size"], p["ETag"]) for p in r.get("Parts", [])]
        if not r.get("IsTruncated"):
            return out
        kw["PartNumberMarker"] = r["NextPartNumberMarker"]


def md5_etag(body):
    return '"%s"' % hashlib.md5(body).hexdigest()


def multipart_etag(part_bodies):
    digests = b"".join(hashlib.md5(b).digest() for b in part_bodies)
    return '"%s-%d"' % (hashlib.md5(digests).hexdigest(), len(part_bodies))


def restart(immediate=True):
    env = dict(os.environ)
    env["S3_PORT"] = os.environ.get("SLUICE_S3_PORT", "8333")
    if os.environ.get("SLUICE_S3_RUN_DIR"):
        env["S3_RUN_DIR"] = os.environ["SLUICE_S3_RUN_DIR"]
    script = os.environ.get("SLUICE_S3_SCRIPT", os.path.join(HERE, "..", "..", "scripts", "s3"))
    cmd = [script, "restart"] + (["--immediate"] if immediate else [])
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    out = p.stdout.decode(errors="replace").strip()
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, out))
    return out


def kill_loop(argv, env, kills, rnd, errf, pauses=("pre-commit", "seal", None), limit=70,
              nth=lambda rnd: 1, wait=(0.3, 1.2), on_kill=None):
    """Runs argv `kills` times (at most `limit` seconds), each SIGKILLed: for a
    pause step, once the runtime says it paused there for the nth time
    (SLUICE_TEST_PAUSE=<step>:1500); for None, after a random wait in
    `wait`. on_kill(kills) runs after each kill. Returns (kills, runs,
    ended, failure): ended = a run ended by itself with 0 (the input ran
    out), failure = the stderr of a run that failed by itself, else None."""
    done = runs = 0
    t0 = time.monotonic()
    while done < kills and time.monotonic() - t0 < limit:
        step = pauses[done % len(pauses)]
        e = dict(env)
        if step:
            e["SLUICE_TEST_PAUSE"] = "%s:1500" % step
        with open(errf, "w") as ef:
            p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=ef, env=e)
        runs += 1
        if step:
            want = nth(rnd)
            end = time.monotonic() + 30
            while time.monotonic() < end and p.poll() is None:
                with open(errf, errors="replace") as ef:
                    if ef.read().count("sluice-test: paused after " + step) >= want:
                        break
                time.sleep(0.02)
        else:
            try:
                p.wait(timeout=rnd.uniform(*wait))
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is not None:
            with open(errf, errors="replace") as ef:
                text = ef.read()
            if p.returncode == 0:
                return done, runs, True, None
            return done, runs, False, "run %d failed by itself (%r): %s" % (
                runs, p.returncode, text[-2000:])
        p.send_signal(signal.SIGKILL)
        p.wait()
        done += 1
        if on_kill:
            on_kill(done)
    return done, runs, False, None
