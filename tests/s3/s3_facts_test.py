#!/usr/bin/env python3
"""s3_facts_test.py — what an exactly-once S3 sink (Flink's filesystem
connector on s3://bucket/path: part files written as multipart uploads,
invisible until completed) relies on, checked against the S3 server of
scripts/s3 (SeaweedFS) with boto3 (tests/s3/s3_util.py) and curl (ctest
s3.facts, fixture `s3`). Run with the venv's python (SLUICE_S3_PYTHON).

  a. credentials: a wrong secret is 403 SignatureDoesNotMatch, an unknown
     access key 403 InvalidAccessKeyId, no signature 403 AccessDenied, the
     read-only identity 403 AccessDenied on writes; HeadBucket has no body
     (a bare 403/404); a missing bucket is 404 NoSuchBucket for
     ListObjectsV2, PutObject and CreateMultipartUpload;
  b. a multipart upload of 2 parts (5 MiB + 1000 bytes) is invisible to
     ListObjectsV2, GetObject and HeadObject until CompleteMultipartUpload,
     then visible with exactly its bytes and the ETag MD5(part MD5s)-2; a
     first part of 5 MiB - 1 byte is refused at Complete (400
     EntityTooSmall), the upload left in place;
  c. ListMultipartUploads lists an upload started and not completed (and
     ListParts its parts); AbortMultipartUpload (204) removes it: nothing
     listed, ListParts NoSuchUpload, no object;
  d. Complete again of a completed upload: 200 with the object's ETag, even
     with a wrong part list, while the object is the upload's; 404
     NoSuchUpload once a PUT replaced the object, for an aborted upload and
     for an unknown upload id; HeadObject's size and ETag recognise a
     completed upload. Abort again of an aborted or a completed upload: 204
     (the object stays);
  e. after `scripts/s3 restart --immediate` (SIGKILL), an upload with its
     parts uploaded and not completed is still listed with the same parts
     and completes into exactly its bytes; completed objects are intact; a
     Complete again of an upload completed before the kill is still 200;
  f. UploadPart of one part number twice: Complete naming the second ETag
     gives the second bytes (a retried part wins); SeaweedFS keeps both
     (ListParts lists the part number twice, and Complete naming the first
     ETag gives the first bytes, where AWS would answer InvalidPart); a part
     re-sent with the same bytes has the same ETag; an ETag never uploaded
     is 400 InvalidPart;
  g. SigV4 from plain curl (--aws-sigv4 "aws:amz:us-east-1:s3", as
     libcurl's CURLOPT_AWS_SIGV4 will sign for the C client): PUT, GET,
     ListObjectsV2 and a whole multipart upload; curl 7.88 signs the query
     string as written (sorted by name, values percent-encoded, `uploads=`
     with its `=`, or SignatureDoesNotMatch) and, without an
     x-amz-content-sha256 header, the hash of an empty body; SeaweedFS does
     not check the payload hash but does check Content-MD5 (400 BadDigest);
  h. a PUT with If-None-Match: * of a key that exists is 412
     PreconditionFailed and leaves the object; of four at once of a new key,
     exactly one succeeds (what a checkpoint location's _owner relies on).

Every fact prints what each step saw; the expected values are what
SeaweedFS 4.48 does (docs/DEVELOPMENT.md, "S3 (SeaweedFS)", has the table):
a change of behaviour fails the test, so the table stays true.
"""
import atexit
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3_util as u  # noqa: E402

MiB = 1024 * 1024
failures = []
current = [""]


def step(msg):
    print("   " + msg, flush=True)


def see(what, value):
    print("   %-52s %s" % (what, value), flush=True)


def check(cond, msg):
    if not cond:
        failures.append("%s: %s" % (current[0], msg))
        print("   FAIL: " + msg, flush=True)
    return cond


def expect_error(what, result, status, code):
    """result from u.call(); expects ('error', (status, code, _))."""
    kind, val = result
    if kind == "ok":
        see(what, "succeeded")
        return check(False, "%s: expected %s %s, but it succeeded" % (what, status, code))
    see(what, "%s %s (%s)" % val)
    return check(val[0] == status and val[1] == code,
                 "%s: expected %s %s, got %s %s" % (what, status, code, val[0], val[1]))


def expect_ok(what, result):
    kind, val = result
    if kind == "error":
        see(what, "%s %s (%s)" % val)
        check(False, "%s: expected success, got %s %s" % (what, val[0], val[1]))
        return None
    see(what, "%s" % val.get("ResponseMetadata", {}).get("HTTPStatusCode"))
    return val


def fact(name):
    def wrap(fn):
        def run():
            current[0] = name
            print("== %s" % name, flush=True)
            t0 = time.time()
            try:
                fn()
            except Exception:  # a fact that breaks is a failure; go on with the next
                traceback.print_exc()
                failures.append("%s: %s" % (name, traceback.format_exc().strip().splitlines()[-1]))
            print("   (%.1f s)" % (time.time() - t0), flush=True)
        return run
    return wrap


c = u.client()
B = u.new_bucket("facts")
print("S3 at %s, bucket %s, boto3 %s" % (u.ENDPOINT, B, __import__("boto3").__version__), flush=True)


def parts_of(*bodies):
    return {"Parts": [{"PartNumber": i + 1, "ETag": u.md5_etag(b)} for i, b in enumerate(bodies)]}


def upload_parts(key, bodies):
    """CreateMultipartUpload + UploadPart of each body; returns (upload id, etags)."""
    upload_id = c.create_multipart_upload(Bucket=B, Key=key)["UploadId"]
    etags = [c.upload_part(Bucket=B, Key=key, UploadId=upload_id, PartNumber=i + 1, Body=b)["ETag"]
             for i, b in enumerate(bodies)]
    return upload_id, etags


def complete(key, upload_id, part_list):
    return u.call(c.complete_multipart_upload, Bucket=B, Key=key, UploadId=upload_id,
                  MultipartUpload={"Parts": part_list})


def plist(etags):
    return [{"PartNumber": i + 1, "ETag": e} for i, e in enumerate(etags)]


# ---- a ----------------------------------------------------------------------

@fact("a. credentials and missing buckets")
def fact_a():
    wrong = u.client(secret_key="not-the-secret")
    expect_error("ListObjectsV2, wrong secret", u.call(wrong.list_objects_v2, Bucket=B, MaxKeys=1),
                 403, "SignatureDoesNotMatch")
    expect_error("ListObjectsV2, unknown access key",
                 u.call(u.client("no-such-access-key", "x").list_objects_v2, Bucket=B, MaxKeys=1),
                 403, "InvalidAccessKeyId")
    expect_error("PutObject, wrong secret", u.call(wrong.put_object, Bucket=B, Key="a/x", Body=b"x"),
                 403, "SignatureDoesNotMatch")
    # HEAD responses have no body: only the status comes back.
    expect_error("HeadBucket, wrong secret", u.call(wrong.head_bucket, Bucket=B), 403, "403")
    expect_error("ListObjectsV2 of a missing bucket, wrong secret",
                 u.call(wrong.list_objects_v2, Bucket="no-such-bucket-a", MaxKeys=1),
                 403, "SignatureDoesNotMatch")
    status, body, _ = curl("GET", "/%s?list-type=2" % B, sign=False)
    see("ListObjectsV2 without a signature (curl)", "%s %s" % (status, xml_code(body)))
    check(status == 403 and xml_code(body) == "AccessDenied", "anonymous: %s %s" % (status, body[:200]))

    ro = u.ro_client()
    expect_ok("read-only identity: ListObjectsV2", u.call(ro.list_objects_v2, Bucket=B, MaxKeys=1))
    expect_error("read-only identity: PutObject", u.call(ro.put_object, Bucket=B, Key="a/ro", Body=b"x"),
                 403, "AccessDenied")
    expect_error("read-only identity: CreateMultipartUpload",
                 u.call(ro.create_multipart_upload, Bucket=B, Key="a/ro"), 403, "AccessDenied")
    expect_error("read-only identity: CreateBucket", u.call(ro.create_bucket, Bucket="ro-made-bucket"),
                 403, "AccessDenied")

    nb = "no-such-bucket-a"
    expect_error("ListObjectsV2 of a missing bucket", u.call(c.list_objects_v2, Bucket=nb, MaxKeys=1),
                 404, "NoSuchBucket")
    expect_error("PutObject into a missing bucket", u.call(c.put_object, Bucket=nb, Key="k", Body=b"x"),
                 404, "NoSuchBucket")
    expect_error("CreateMultipartUpload in a missing bucket",
                 u.call(c.create_multipart_upload, Bucket=nb, Key="k"), 404, "NoSuchBucket")
    expect_error("HeadBucket of a missing bucket", u.call(c.head_bucket, Bucket=nb), 404, "404")
    check(not any(b["Name"] == nb for b in c.list_buckets()["Buckets"]),
          "the PUT into a missing bucket created it")


# ---- b ----------------------------------------------------------------------

@fact("b. multipart uploads are invisible until completed; the 5 MiB minimum")
def fact_b():
    key = "b/part-0"
    p1, p2 = os.urandom(5 * MiB), os.urandom(1000)
    upload_id, etags = upload_parts(key, [p1, p2])
    see("UploadPart ETags", etags)
    check(etags == [u.md5_etag(p1), u.md5_etag(p2)], "a part's ETag is not the MD5 of its bytes")
    listed = u.list_keys(B, "b/")
    see("ListObjectsV2 prefix b/ before Complete", listed)
    check(listed == [], "the upload's object is listed before Complete")
    every = [k for k, _, _ in u.list_keys(B)]
    see("ListObjectsV2 of the whole bucket", every)
    check(key not in every and not any(".uploads" in k for k in every),
          "the upload shows in the bucket's listing")
    got = u.call(c.get_object, Bucket=B, Key=key)
    expect_error("GetObject before Complete", got, 404, "NoSuchKey")
    see("HeadObject before Complete", u.head(B, key))
    check(u.head(B, key) is None, "HeadObject finds the object before Complete")

    r = expect_ok("CompleteMultipartUpload", complete(key, upload_id, plist(etags)))
    want_etag = u.multipart_etag([p1, p2])
    see("its ETag / MD5 of the part MD5s", "%s / %s" % (r and r["ETag"], want_etag))
    check(r is not None and r["ETag"] == want_etag, "the completed object's ETag")
    listed = u.list_keys(B, "b/")
    see("ListObjectsV2 prefix b/ after Complete", listed)
    check(listed == [(key, len(p1) + len(p2), want_etag)], "the listing after Complete")
    body = u.read(B, key)
    see("GetObject after Complete", "%s bytes, equal: %s" % (len(body or b""), body == p1 + p2))
    check(body == p1 + p2, "the object's bytes are not the parts'")
    check(u.head(B, key) == (len(p1) + len(p2), want_etag), "HeadObject after Complete")
    see("uploads listed after Complete", u.uploads(B, "b/"))
    check(u.uploads(B, "b/") == [], "a completed upload is still listed")

    # The minimum: every part but the last at least 5 MiB. UploadPart takes
    # the short part; Complete refuses the upload and leaves it in place.
    small = "b/too-small"
    s1 = os.urandom(5 * MiB - 1)
    up2, e2 = upload_parts(small, [s1, b"tail"])
    expect_error("Complete with a first part of 5 MiB - 1 byte", complete(small, up2, plist(e2)),
                 400, "EntityTooSmall")
    see("after EntityTooSmall: upload listed / object", "%s / %s" % (
        u.uploads(B, small) == [(small, up2)], u.head(B, small)))
    check(u.uploads(B, small) == [(small, up2)] and u.head(B, small) is None,
          "after EntityTooSmall the upload should stay and no object appear")
    tiny = "b/tiny"
    up3, e3 = upload_parts(tiny, [b"a" * 100, b"b" * 100])
    expect_error("Complete of 2 parts of 100 bytes", complete(tiny, up3, plist(e3)), 400, "EntityTooSmall")
    for k, up in ((small, up2), (tiny, up3)):
        c.abort_multipart_upload(Bucket=B, Key=k, UploadId=up)


# ---- c ----------------------------------------------------------------------

@fact("c. ListMultipartUploads, AbortMultipartUpload")
def fact_c():
    key = "c/pending"
    body = os.urandom(2000)
    upload_id, etags = upload_parts(key, [body])
    listed = u.uploads(B, "c/")
    see("ListMultipartUploads prefix c/", listed)
    check(listed == [(key, upload_id)], "the started upload is not listed")
    ps = u.parts(B, key, upload_id)
    see("ListParts", ps)
    check(ps == [(1, len(body), u.md5_etag(body))], "ListParts")
    r = expect_ok("AbortMultipartUpload", u.call(c.abort_multipart_upload, Bucket=B, Key=key,
                                                  UploadId=upload_id))
    check(r is not None and r["ResponseMetadata"]["HTTPStatusCode"] == 204, "Abort's status")
    listed = u.uploads(B, "c/")
    see("ListMultipartUploads prefix c/ after Abort", listed)
    check(listed == [], "an aborted upload is still listed")
    expect_error("ListParts after Abort",
                 u.call(c.list_parts, Bucket=B, Key=key, UploadId=upload_id), 404, "NoSuchUpload")
    expect_error("GetObject after Abort", u.call(c.get_object, Bucket=B, Key=key), 404, "NoSuchKey")
    every = u.uploads(B)
    see("ListMultipartUploads of the bucket", every)
    check(all(k != key for k, _ in every), "the aborted upload shows in the bucket's uploads")
    fact_c.aborted = (key, upload_id, etags)


# ---- d ----------------------------------------------------------------------

@fact("d. Complete and Abort again")
def fact_d():
    key = "d/done"
    p1, p2 = os.urandom(5 * MiB), os.urandom(3000)
    upload_id, etags = upload_parts(key, [p1, p2])
    want = u.multipart_etag([p1, p2])
    expect_ok("Complete", complete(key, upload_id, plist(etags)))
    r = expect_ok("Complete again, same parts", complete(key, upload_id, plist(etags)))
    see("  its ETag", r and r["ETag"])
    check(r is not None and r["ETag"] == want, "Complete again: the object's ETag")
    r = expect_ok("Complete again, a wrong part list",
                  complete(key, upload_id, [{"PartNumber": 1, "ETag": '"%s"' % ("0" * 32)}]))
    see("  its ETag", r and r["ETag"])
    check(r is not None and r["ETag"] == want,
          "Complete again with a wrong part list: the object's ETag")
    check(u.read(B, key) == p1 + p2, "the object changed")
    # What the sink's commit checks when Complete fails (or to skip it):
    # the object's size and ETag against the parts it uploaded.
    got = u.head(B, key)
    see("HeadObject: size, ETag / expected", "%s / %s" % (got, (len(p1) + len(p2), want)))
    check(got == (len(p1) + len(p2), want), "HeadObject does not recognise the completed upload")

    expect_error("Complete again under another key",
                 complete(key + "-other", upload_id, plist(etags)), 404, "NoSuchUpload")
    expect_error("Complete of an unknown upload id",
                 complete(key, "0123456789abcdef_0123", plist(etags)), 404, "NoSuchUpload")
    expect_error("Abort of an unknown upload id",
                 u.call(c.abort_multipart_upload, Bucket=B, Key=key, UploadId="0123456789abcdef_0123"),
                 404, "NoSuchUpload")

    ak, aup, aetags = getattr(fact_c, "aborted", (None, None, None))
    if ak:
        expect_error("Complete of an aborted upload (from c)", complete(ak, aup, plist(aetags)),
                     404, "NoSuchUpload")
        r = expect_ok("Abort again of an aborted upload", u.call(
            c.abort_multipart_upload, Bucket=B, Key=ak, UploadId=aup))
        check(r is not None and r["ResponseMetadata"]["HTTPStatusCode"] == 204, "Abort again's status")
    else:
        check(False, "fact c left no aborted upload")
    r = expect_ok("Abort of a completed upload", u.call(
        c.abort_multipart_upload, Bucket=B, Key=key, UploadId=upload_id))
    check(r is not None and r["ResponseMetadata"]["HTTPStatusCode"] == 204, "Abort's status")
    see("  the object afterwards", u.head(B, key))
    check(u.head(B, key) == (len(p1) + len(p2), want) and u.read(B, key) == p1 + p2,
          "Abort of a completed upload changed its object")
    r = expect_ok("Complete again after that Abort", complete(key, upload_id, plist(etags)))
    check(r is not None and r["ETag"] == want, "Complete again after Abort")

    # Once another write replaced the object, the upload is unknown.
    c.put_object(Bucket=B, Key=key, Body=b"replaced")
    expect_error("Complete again after a PUT replaced the object",
                 complete(key, upload_id, plist(etags)), 404, "NoSuchUpload")
    check(u.read(B, key) == b"replaced", "Complete again brought the upload's object back")
    c.delete_object(Bucket=B, Key=key)
    expect_error("Complete again after the object was deleted",
                 complete(key, upload_id, plist(etags)), 404, "NoSuchUpload")


# ---- e ----------------------------------------------------------------------

@fact("e. restart --immediate (SIGKILL)")
def fact_e():
    pend = "e/pending"
    q1, q2 = os.urandom(5 * MiB), os.urandom(4321)
    pup, petags = upload_parts(pend, [q1, q2])
    done = "e/done"
    d1, d2 = os.urandom(5 * MiB), os.urandom(77)
    dup, detags = upload_parts(done, [d1, d2])
    expect_ok("Complete e/done", complete(done, dup, plist(detags)))
    c.put_object(Bucket=B, Key="e/small", Body=b"small object")
    before = u.parts(B, pend, pup)
    see("e/pending's parts before", before)
    other_before = sorted(u.list_keys(B))

    t0 = time.time()
    line = u.restart(immediate=True)
    see("scripts/s3 restart --immediate", "%.1f s: %s" % (time.time() - t0, line))

    listed = u.uploads(B, "e/")
    see("ListMultipartUploads prefix e/", listed)
    check(listed == [(pend, pup)], "the in-progress upload is not listed after the kill")
    after = u.parts(B, pend, pup)
    see("e/pending's parts after", after)
    check(after == before, "the parts changed through the kill")
    r = expect_ok("Complete e/pending", complete(pend, pup, plist(petags)))
    check(r is not None and r["ETag"] == u.multipart_etag([q1, q2]), "e/pending's ETag")
    check(u.read(B, pend) == q1 + q2, "e/pending's bytes")
    check(u.read(B, done) == d1 + d2, "e/done's bytes after the kill")
    check(u.read(B, "e/small") == b"small object", "e/small after the kill")
    now = sorted(k for k in u.list_keys(B) if k[0] != pend)
    see("objects before / after the kill", "%d / %d, equal: %s" % (len(other_before), len(now),
                                                                   now == other_before))
    check(now == other_before, "the objects changed through the kill")
    r = expect_ok("Complete again of e/done (completed before the kill)",
                  complete(done, dup, plist(detags)))
    check(r is not None and r["ETag"] == u.multipart_etag([d1, d2]), "e/done's ETag again")


# ---- f ----------------------------------------------------------------------

@fact("f. the same part number uploaded twice")
def fact_f():
    a, b, t = os.urandom(5 * MiB), os.urandom(5 * MiB + 7), b"tail"

    def twice(key):
        up = c.create_multipart_upload(Bucket=B, Key=key)["UploadId"]
        ea = c.upload_part(Bucket=B, Key=key, UploadId=up, PartNumber=1, Body=a)["ETag"]
        eb = c.upload_part(Bucket=B, Key=key, UploadId=up, PartNumber=1, Body=b)["ETag"]
        et = c.upload_part(Bucket=B, Key=key, UploadId=up, PartNumber=2, Body=t)["ETag"]
        return up, ea, eb, et

    up, ea, eb, et = twice("f/last")
    ps = u.parts(B, "f/last", up)
    see("ListParts after part 1 twice", ps)
    check(sorted(ps) == sorted([(1, len(a), ea), (1, len(b), eb), (2, len(t), et)]),
          "ListParts: SeaweedFS 4.48 lists both uploads of part 1")
    expect_ok("Complete naming the second ETag", complete("f/last", up, [
        {"PartNumber": 1, "ETag": eb}, {"PartNumber": 2, "ETag": et}]))
    got = u.read(B, "f/last")
    see("  the object is", "second bytes" if got == b + t else "first bytes" if got == a + t
        else "%d other bytes" % len(got or b""))
    check(got == b + t, "the second upload of part 1 did not win")

    up, ea, eb, et = twice("f/first")
    r = complete("f/first", up, [{"PartNumber": 1, "ETag": ea}, {"PartNumber": 2, "ETag": et}])
    got = u.read(B, "f/first") if r[0] == "ok" else None
    see("Complete naming the first ETag", "%s, the object: %s" % (
        "200" if r[0] == "ok" else "%s %s" % r[1][:2],
        "first bytes" if got == a + t else "second bytes" if got == b + t else got))
    check(r[0] == "ok" and got == a + t,
          "SeaweedFS 4.48 completes with the part the ETag names (AWS: 400 InvalidPart)")

    key = "f/same"
    upload = c.create_multipart_upload(Bucket=B, Key=key)["UploadId"]
    e1 = c.upload_part(Bucket=B, Key=key, UploadId=upload, PartNumber=1, Body=a)["ETag"]
    e1b = c.upload_part(Bucket=B, Key=key, UploadId=upload, PartNumber=1, Body=a)["ETag"]
    e2 = c.upload_part(Bucket=B, Key=key, UploadId=upload, PartNumber=2, Body=t)["ETag"]
    see("the same bytes twice: ETags", "%s %s" % (e1, e1b))
    check(e1 == e1b, "the same bytes gave another ETag")
    expect_error("Complete naming an ETag never uploaded", complete(key, upload, [
        {"PartNumber": 1, "ETag": '"%s"' % ("0" * 32)}, {"PartNumber": 2, "ETag": e2}]),
        400, "InvalidPart")
    expect_ok("Complete after the same bytes twice", complete(key, upload, plist([e1b, e2])))
    check(u.read(B, key) == a + t, "the object after the same bytes twice")
    expect_error("Complete with parts out of order", order_case(), 400, "InvalidPartOrder")


def order_case():
    up, etags = upload_parts("f/order", [os.urandom(5 * MiB), b"x"])
    return complete("f/order", up, [{"PartNumber": 2, "ETag": etags[1]},
                                   {"PartNumber": 1, "ETag": etags[0]}])


# ---- g ----------------------------------------------------------------------

TMP = tempfile.mkdtemp(prefix="s3facts-")
atexit.register(shutil.rmtree, TMP, True)


def curl(method, path, data_file=None, headers=(), sign=True, secret=None, upload=False):
    """curl against the server: (status, body bytes, response headers dict).
    data_file is sent with -T (upload) or --data-binary."""
    out, hdr = os.path.join(TMP, "body"), os.path.join(TMP, "headers")
    cmd = ["curl", "-sS", "-o", out, "-D", hdr, "-w", "%{http_code}", "-X", method,
           "--max-time", "60"]
    if sign:
        cmd += ["--aws-sigv4", "aws:amz:us-east-1:s3",
                "--user", "%s:%s" % (u.ACCESS_KEY, secret or u.SECRET_KEY)]
    for h in headers:
        cmd += ["-H", h]
    if data_file and upload:
        cmd += ["-T", data_file]
    elif data_file:
        cmd += ["--data-binary", "@" + data_file]
    cmd.append(u.ENDPOINT + path)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=90)
    if p.returncode != 0:
        raise RuntimeError("curl failed: %s" % p.stderr.decode(errors="replace"))
    with open(out, "rb") as f:
        body = f.read()
    with open(hdr, "rb") as f:
        lines = f.read().decode(errors="replace").splitlines()
    hd = {}
    for line in lines:  # the last response's headers (after a 100 Continue)
        if line.startswith("HTTP/"):
            hd = {}
        elif ":" in line:
            k, v = line.split(":", 1)
            hd[k.strip().lower()] = v.strip()
    return int(p.stdout.decode()), body, hd


def xml_code(body):
    m = re.search(rb"<Code>([^<]*)</Code>", body)
    return m.group(1).decode() if m else None


def xml_text(body, tag):
    root = ET.fromstring(body)
    return [e.text for e in root.iter() if e.tag.split("}")[-1] == tag]


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


@fact("g. SigV4 from curl (libcurl's CURLOPT_AWS_SIGV4)")
def fact_g():
    ver = subprocess.run(["curl", "--version"], stdout=subprocess.PIPE).stdout.decode().split()[1]
    see("curl version", ver)
    quirks = ver.startswith("7.88.")  # what is asserted below about curl itself

    small = b"hello from curl\n" * 10
    f = write("small", small)
    status, body, hd = curl("PUT", "/%s/g/small.txt" % B, f, upload=True,
                            headers=["x-amz-content-sha256: " + sha256_hex(small)])
    see("PUT, x-amz-content-sha256 = SHA-256 of the body", "%s ETag %s" % (status, hd.get("etag")))
    check(status == 200 and hd.get("etag") == u.md5_etag(small), "curl PUT")
    status, body, _ = curl("GET", "/%s/g/small.txt" % B, headers=["x-amz-content-sha256: " + sha256_hex(b"")])
    see("GET", "%s, bytes equal: %s" % (status, body == small))
    check(status == 200 and body == small, "curl GET")
    check(u.read(B, "g/small.txt") == small, "boto3 reads other bytes than curl PUT")
    status, body, _ = curl("GET", "/%s?list-type=2&prefix=g%%2F" % B)
    keys = xml_text(body, "Key") if status == 200 else []
    see("ListObjectsV2 ?list-type=2&prefix=g%2F", "%s %s" % (status, keys))
    check(status == 200 and keys == ["g/small.txt"], "curl ListObjectsV2")
    status, body, _ = curl("GET", "/%s/g/small.txt" % B, secret="wrong")
    see("GET with a wrong secret", "%s %s" % (status, xml_code(body)))
    check(status == 403 and xml_code(body) == "SignatureDoesNotMatch", "curl with a wrong secret")

    # A whole multipart upload, as the C client would send it.
    p1, p2 = os.urandom(5 * MiB), os.urandom(999)
    key = "g/multi.bin"
    status, body, _ = curl("POST", "/%s/%s?uploads=" % (B, key),
                           headers=["x-amz-content-sha256: " + sha256_hex(b"")])
    upload_id = xml_text(body, "UploadId")[0] if status == 200 else None
    see("CreateMultipartUpload POST ?uploads=", "%s %s" % (status, upload_id))
    check(status == 200 and upload_id, "curl CreateMultipartUpload")
    if not upload_id:
        return
    etags = []
    for n, part in ((1, p1), (2, p2)):
        status, body, hd = curl("PUT", "/%s/%s?partNumber=%d&uploadId=%s" % (B, key, n, upload_id),
                                write("part%d" % n, part), upload=True,
                                headers=["x-amz-content-sha256: " + sha256_hex(part)])
        see("UploadPart %d PUT ?partNumber=%d&uploadId=..." % (n, n), "%s ETag %s" % (status, hd.get("etag")))
        check(status == 200 and hd.get("etag") == u.md5_etag(part), "curl UploadPart %d" % n)
        etags.append(hd.get("etag"))
    xml = ("<CompleteMultipartUpload>" + "".join(
        "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>" % (i + 1, e)
        for i, e in enumerate(etags)) + "</CompleteMultipartUpload>").encode()
    status, body, _ = curl("POST", "/%s/%s?uploadId=%s" % (B, key, upload_id), write("complete.xml", xml),
                           headers=["x-amz-content-sha256: " + sha256_hex(xml),
                                    "Content-Type: application/xml"])
    got_etag = xml_text(body, "ETag") if status == 200 else body[:200]
    see("CompleteMultipartUpload POST ?uploadId=...", "%s %s" % (status, got_etag))
    check(status == 200 and got_etag == [u.multipart_etag([p1, p2])], "curl Complete")
    check(u.read(B, key) == p1 + p2, "the object curl completed")

    # curl 7.88 signs the query string as written: it must already be in
    # SigV4's canonical form.
    for what, path, want in (
            ("?uploads (no '=')", "/%s/g/q?uploads" % B, 403),
            ("?prefix=g%2F&list-type=2 (not sorted)", "/%s?prefix=g%%2F&list-type=2" % B, 403),
            ("?list-type=2&prefix=g/ ('/' not encoded)", "/%s?list-type=2&prefix=g/" % B, 403)):
        status, body, _ = curl("POST" if "uploads" in path else "GET", path,
                               headers=["x-amz-content-sha256: " + sha256_hex(b"")])
        see(what, "%s %s" % (status, xml_code(body) or ""))
        if quirks:
            check(status == want and xml_code(body) == "SignatureDoesNotMatch",
                  "curl %s: %s %s" % (what, status, xml_code(body)))
        elif status == 200 and "uploads" in path:
            c.abort_multipart_upload(Bucket=B, Key="g/q", UploadId=xml_text(body, "UploadId")[0])

    # The payload hash: without the header curl 7.88 signs the SHA-256 of an
    # empty body and sends none; SeaweedFS takes it (AWS S3 requires the
    # header and checks the hash). SeaweedFS does not check a wrong hash
    # either, but does check Content-MD5.
    data = b"payload hash check\n"
    f = write("ph", data)
    for n, (what, headers, want, code) in enumerate((
            ("PUT without x-amz-content-sha256", [], 200, None),
            ("PUT, x-amz-content-sha256: UNSIGNED-PAYLOAD", ["x-amz-content-sha256: UNSIGNED-PAYLOAD"], 200, None),
            ("PUT, x-amz-content-sha256 of other bytes", ["x-amz-content-sha256: " + sha256_hex(b"other")], 200, None),
            ("PUT, Content-MD5 of the body", ["x-amz-content-sha256: UNSIGNED-PAYLOAD",
                                              "Content-MD5: " + base64.b64encode(hashlib.md5(data).digest()).decode()],
             200, None),
            ("PUT, Content-MD5 of other bytes", ["x-amz-content-sha256: UNSIGNED-PAYLOAD",
                                                 "Content-MD5: " + base64.b64encode(hashlib.md5(b"x").digest()).decode()],
             400, "BadDigest"))):
        k = "g/ph-%d" % n
        status, body, _ = curl("PUT", "/%s/%s" % (B, k), f, upload=True, headers=headers)
        stored = u.read(B, k)
        see(what, "%s %s, stored: %s" % (status, xml_code(body) or "", stored == data if stored else None))
        check(status == want and xml_code(body) == code and (stored == data) == (want == 200),
              "%s: %s %s" % (what, status, xml_code(body)))


@fact("h. a conditional PUT (If-None-Match: *)")
def fact_h():
    key = "h/owner"
    expect_ok("PutObject If-None-Match: * of a new key",
              u.call(c.put_object, Bucket=B, Key=key, Body=b"first", IfNoneMatch="*"))
    expect_error("PutObject If-None-Match: * of an existing key",
                 u.call(c.put_object, Bucket=B, Key=key, Body=b"second", IfNoneMatch="*"),
                 412, "PreconditionFailed")
    check(u.read(B, key) == b"first", "the object after the refused conditional PUT")
    # Two at once: exactly one wins.
    import threading
    res = []
    ts = [threading.Thread(target=lambda i=i: res.append(u.call(
        u.client().put_object, Bucket=B, Key="h/race", Body=b"w%d" % i, IfNoneMatch="*")))
        for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    won = [r for r in res if r[0] == "ok"]
    see("four conditional PUTs at once", "%d won, the others: %s" % (
        len(won), sorted(set(r[1][:2] for r in res if r[0] != "ok"))))
    check(len(won) == 1, "exactly one of four conditional PUTs at once wins")


fact_a()
fact_b()
fact_c()
fact_d()
fact_e()
fact_f()
fact_g()
fact_h()

if failures:
    print("\n%d FAILED:" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("\nall facts hold")
