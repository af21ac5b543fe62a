/*
** test_connectors_s3.c — the filesystem connector's S3 client without a
** server (connectors/filesystem/fs_s3.c): s3:// URIs, the multipart ETag,
** percent-encoding, the XML answers (errors, CreateMultipartUpload,
** ListObjectsV2 pages, ListMultipartUploads pages, malformed ones), and
** the sink's "s3" committable lines as a local sink refuses them (a
** committable of the other storage, malformed lines: XX001). The requests
** themselves are tested against SeaweedFS (tests/s3/s3_sink_test.py).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filesystem/fs_int.h"
#include "sl_connector.h"
#include "sl_test.h"

static void t_uri(void)
{
    char *b = NULL, *p = NULL;
    CHECK(sl__s3_parse_uri("s3://sluice/out/x/", &b, &p) == 0);
    CHECK_STR(b, "sluice");
    CHECK_STR(p, "out/x");
    sl_free(b);
    sl_free(p);
    CHECK(sl__s3_parse_uri("s3a://my-bucket.a", &b, &p) == 0);
    CHECK_STR(b, "my-bucket.a");
    CHECK_STR(p, "");
    sl_free(b);
    sl_free(p);
    CHECK(sl__s3_parse_uri("s3://sluice//a", &b, &p) == 0); /* leading '/'s of the prefix */
    CHECK_STR(p, "a");
    sl_free(b);
    sl_free(p);
    CHECK(sl__s3_parse_uri("s3://Upper/a", &b, &p) == -1);
    CHECK(sl__s3_parse_uri("s3://ab/a", &b, &p) == -1);
    CHECK(sl__s3_parse_uri("s3://sluice/a//b", &b, &p) == -1);
    CHECK(sl__s3_parse_uri("s3://sluice/a/../b", &b, &p) == -1);
    CHECK(sl__s3_parse_uri("http://sluice/a", &b, &p) == -1);
    CHECK(b == NULL && p == NULL);
    CHECK(sl__s3_is_uri("s3://x"));
    CHECK(!sl__s3_is_uri("/tmp/s3://x"));
}

static void t_etag(void)
{
    char hex[33];
    sl__s3_md5_hex("hello", 5, hex);
    CHECK_STR(hex, "5d41402abc4b2a76b9719d911017c592");
    const char *two[] = {"5d41402abc4b2a76b9719d911017c592", "7d793037a0760186574b0282f2f435e7"};
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK(sl__s3_multipart_etag(two, 2, &sb) == 0);
    CHECK_STR(sl_strbuf_cstr(&sb), "065947336a2f2a95ba8899f3675c3be6-2");
    sl_strbuf_reset(&sb);
    CHECK(sl__s3_multipart_etag(two, 1, &sb) == 0); /* a single-part upload is "-1" */
    CHECK_STR(sl_strbuf_cstr(&sb), "62109206880d38a4010a98e11243924a-1");
    const char *bad[] = {"5d41402abc4b2a76b9719d911017c59"};
    sl_strbuf_reset(&sb);
    CHECK(sl__s3_multipart_etag(bad, 1, &sb) == -1);
    const char *bad2[] = {"5d41402abc4b2a76b9719d911017c59x"};
    CHECK(sl__s3_multipart_etag(bad2, 1, &sb) == -1);
    CHECK(sl__s3_multipart_etag(two, 0, &sb) == -1);
    sl_strbuf_free(&sb);
}

static void t_encode(void)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl__s3_uri_encode(&sb, "a/b c=1/~x_y-z.%", true);
    CHECK_STR(sl_strbuf_cstr(&sb), "a/b%20c%3D1/~x_y-z.%25");
    sl_strbuf_reset(&sb);
    sl__s3_uri_encode(&sb, "g/h+\xc3\xa9", false);
    CHECK_STR(sl_strbuf_cstr(&sb), "g%2Fh%2B%C3%A9");
    sl_strbuf_free(&sb);
}

#define XML(s) s, sizeof(s) - 1

static void t_errors(void)
{
    char *code = NULL, *msg = NULL;
    CHECK(sl__s3_parse_error(XML("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                                    "NoSuchUpload</Code><Message>The specified multipart upload "
                                    "does not exist &amp; more</Message><Resource>/b/k</Resource>"
                                    "<RequestId>1</RequestId></Error>"),
                             &code, &msg) == 0);
    CHECK_STR(code, "NoSuchUpload");
    CHECK_STR(msg, "The specified multipart upload does not exist & more");
    sl_free(code);
    sl_free(msg);
    CHECK(sl__s3_parse_error(XML("<Error><Code>AccessDenied</Code></Error>"), &code, &msg) == 0);
    CHECK_STR(code, "AccessDenied");
    CHECK_STR(msg, "");
    sl_free(code);
    sl_free(msg);
    CHECK(sl__s3_parse_error(XML("<Error><Code>x</Code>"), &code, &msg) == -1); /* truncated */
    CHECK(sl__s3_parse_error(XML("<ListBucketResult/>"), &code, &msg) == -1);
    CHECK(sl__s3_parse_error(XML(""), &code, &msg) == -1);
    CHECK(code == NULL && msg == NULL);
}

static void t_initiate(void)
{
    char *u = NULL;
    CHECK(sl__s3_parse_initiate(
              XML("<InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/"
                  "\"><Bucket>b</Bucket><Key>k</Key><UploadId>abc-123</UploadId>"
                  "</InitiateMultipartUploadResult>"),
              &u) == 0);
    CHECK_STR(u, "abc-123");
    sl_free(u);
    CHECK(sl__s3_parse_initiate(XML("<InitiateMultipartUploadResult><UploadId></UploadId>"
                                    "</InitiateMultipartUploadResult>"),
                                &u) == -1);
    CHECK(u == NULL);
}

static void t_list(void)
{
    sl_list *l = sl_list_new();
    bool trunc = false;
    char *next = NULL;
    CHECK(sl__s3_parse_list(
              XML("<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/"
                  "2006-03-01/\"><Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount>"
                  "<IsTruncated>true</IsTruncated><NextContinuationToken>tok/+=</"
                  "NextContinuationToken><Contents><Key>p/a&amp;b</Key><ETag>&quot;0123&quot;"
                  "</ETag><Size>10</Size><Owner><ID>x</ID></Owner></Contents><Contents><Size>0"
                  "</Size><Key>p/c</Key><ETag>\"d-2\"</ETag></Contents></ListBucketResult>"),
              l, &trunc, &next) == 0);
    CHECK(trunc);
    CHECK_STR(next, "tok/+=");
    REQUIRE(l->n == 2);
    sl__s3_obj *o = l->items[0];
    CHECK_STR(o->key, "p/a&b");
    CHECK_INT(o->size, 10);
    CHECK_STR(o->etag, "0123");
    o = l->items[1];
    CHECK_STR(o->key, "p/c");
    CHECK_INT(o->size, 0);
    CHECK_STR(o->etag, "d-2");
    sl_free(next);
    sl_list_free(l, sl__s3_obj_free);
    /* Empty; truncated without a token; a record without its size; not XML. */
    l = sl_list_new();
    CHECK(sl__s3_parse_list(XML("<ListBucketResult><IsTruncated>false</IsTruncated>"
                                "</ListBucketResult>"),
                            l, &trunc, &next) == 0);
    CHECK(!trunc && l->n == 0 && next == NULL);
    CHECK(sl__s3_parse_list(XML("<ListBucketResult><IsTruncated>true</IsTruncated>"
                                "</ListBucketResult>"),
                            l, &trunc, &next) == -1);
    sl_free(next);
    CHECK(sl__s3_parse_list(XML("<ListBucketResult><Contents><Key>a</Key></Contents>"
                                "</ListBucketResult>"),
                            l, &trunc, &next) == -1);
    sl_free(next);
    CHECK(sl__s3_parse_list(XML("<Error><Code>NoSuchBucket</Code></Error>"), l, &trunc, &next) ==
          -1);
    sl_free(next);
    CHECK(sl__s3_parse_list(XML("<ListBucketResult><Contents>"), l, &trunc, &next) == -1);
    sl_free(next);
    CHECK(l->n == 0);
    sl_list_free(l, sl__s3_obj_free);
}

static void t_uploads(void)
{
    sl_list *l = sl_list_new();
    bool trunc = false;
    char *nk = NULL, *nu = NULL;
    CHECK(sl__s3_parse_uploads(
              XML("<ListMultipartUploadsResult><Bucket>b</Bucket><KeyMarker></KeyMarker>"
                  "<NextKeyMarker>p/b</NextKeyMarker><NextUploadIdMarker>u2</NextUploadIdMarker>"
                  "<IsTruncated>true</IsTruncated><Upload><Key>p/a</Key><UploadId>u1</UploadId>"
                  "<Initiator><ID>i</ID></Initiator></Upload><Upload><UploadId>u2</UploadId>"
                  "<Key>p/b</Key></Upload></ListMultipartUploadsResult>"),
              l, &trunc, &nk, &nu) == 0);
    CHECK(trunc);
    CHECK_STR(nk, "p/b");
    CHECK_STR(nu, "u2");
    REQUIRE(l->n == 2);
    CHECK_STR(((sl__s3_obj *)l->items[0])->key, "p/a");
    CHECK_STR(((sl__s3_obj *)l->items[0])->upload, "u1");
    CHECK_STR(((sl__s3_obj *)l->items[1])->key, "p/b");
    CHECK_STR(((sl__s3_obj *)l->items[1])->upload, "u2");
    sl_free(nk);
    sl_free(nu);
    sl_list_free(l, sl__s3_obj_free);
    l = sl_list_new();
    CHECK(sl__s3_parse_uploads(XML("<ListMultipartUploadsResult><IsTruncated>false"
                                   "</IsTruncated></ListMultipartUploadsResult>"),
                               l, &trunc, &nk, &nu) == 0);
    CHECK(!trunc && l->n == 0);
    sl_free(nk);
    sl_free(nu);
    CHECK(sl__s3_parse_uploads(XML("<ListMultipartUploadsResult><Upload><Key>k</Key></Upload>"
                                   "</ListMultipartUploadsResult>"),
                               l, &trunc, &nk, &nu) == -1);
    sl_free(nk);
    sl_free(nu);
    sl_list_free(l, sl__s3_obj_free);
}

/* The "s3" committable lines: a local sink refuses them as the other
** storage's (XX001) when well-formed, as invalid when not. */
static void t_committable_lines(void)
{
    static const char *const cols[] = {"id"};
    sl_type types[1] = {sl_type_make(SL_TYPE_BIGINT)};
    const char *base = getenv("SLUICE_TEST_TMP");
    char *d = sl_sprintf("%s/s3-%d", base ? base : "/tmp", (int)getpid());
    sl_kvlist *o = sl_kvlist_new();
    sl_kvlist_add(o, "connector", "filesystem", -1, -1);
    sl_kvlist_add(o, "path", d, -1, -1);
    sl_kvlist_add(o, "format", "csv", -1, -1);
    sl_sink_args a = {.options = o, .ncols = 1, .names = cols, .types = types,
                      .parallelism = 1, .table = "t", .job = "j"};
    const sl_connector *fc = sl_connector_find("filesystem");
    sl_sink *s = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(fc->create_sink(&a, &s, &err) == 0);
    static const char *const good =
        "s3 out/a%20b/part-1-0-1-0.csv 2~abc 5d41402abc4b2a76b9719d911017c592,"
        "7d793037a0760186574b0282f2f435e7 5242890\n";
    CHECK(s->ops->commit(s, good, strlen(good), &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    CHECK(strstr(err.message, "an S3 upload") != NULL);
    sl_error_reset(&err);
    static const char *const bad[] = {
        "s3 k u 5d41402abc4b2a76b9719d911017c592 0\n",                  /* size 0 */
        "s3 k u 5d41402abc4b2a76b9719d911017c59 5\n",                   /* short ETag */
        "s3 k u 5d41402abc4b2a76b9719d911017c592,7d79 5\n",             /* short second */
        "s3 k u 5d41402abc4b2a76b9719d911017c592, 5\n",                 /* trailing ',' */
        "s3 k u 5D41402ABC4B2A76B9719D911017C592 5\n",                  /* upper-case hex */
        "s3 k 5d41402abc4b2a76b9719d911017c592 5\n",                    /* no upload id */
        "s3 k%00x u 5d41402abc4b2a76b9719d911017c592 5\n",              /* a NUL in the key */
        "s3 k u 5d41402abc4b2a76b9719d911017c592 5",                    /* no line end */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(s->ops->abort(s, bad[i], strlen(bad[i]), &err) == -1);
        CHECK_STR(err.sqlstate, "XX001");
        CHECK(strstr(err.message, "invalid filesystem sink committable") != NULL);
        sl_error_reset(&err);
    }
    s->ops->free(s);
    sl_kvlist_free(o);
    sl_fs_remove_tree(d, &err);
    sl_error_reset(&err);
    sl_free(d);
}

/* Without credentials anywhere: 28000 before any request. */
static void t_no_credentials(void)
{
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    sl_kvlist *o = sl_kvlist_new();
    sl_kvlist_add(o, "s3.endpoint", "http://127.0.0.1:1", -1, -1);
    sl_kvlist_add(o, "s3.access-key", "AK", -1, -1);
    sl_error err = SL_ERROR_INIT;
    sl__s3 *c = sl__s3_open(o, "bucket", &err);
    CHECK(c == NULL);
    CHECK_STR(err.sqlstate, "28000");
    sl_error_reset(&err);
    /* With both, nothing is asked until a request; an endpoint nobody
    ** listens on is 08006 once the retry budget is spent. */
    sl_kvlist_add(o, "s3.secret-key", "very-secret-value", -1, -1);
    c = sl__s3_open(o, "bucket", &err);
    REQUIRE(c != NULL);
    sl__s3_set_budget(c, 0);
    CHECK(sl__s3_check(c, "", false, &err) == -1);
    CHECK_STR(err.sqlstate, "08006");
    CHECK(strstr(err.message, "very-secret-value") == NULL);
    CHECK(err.detail == NULL || strstr(err.detail, "very-secret-value") == NULL);
    sl_error_reset(&err);
    sl__s3_free(c);
    sl_kvlist_free(o);
}

SL_TESTS(t_uri, t_etag, t_encode, t_errors, t_initiate, t_list, t_uploads, t_committable_lines,
         t_no_credentials)
