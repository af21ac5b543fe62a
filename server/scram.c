/*
** scram.c — SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it:
** the stored verifier, and the server's side of the SASL exchange, with
** tls-server-end-point channel binding (SCRAM-SHA-256-PLUS) when the
** connection is TLS. Every primitive is OpenSSL's (PKCS5_PBKDF2_HMAC, HMAC,
** SHA256, RAND_bytes, EVP base64); nothing here is hand-written crypto.
**
**   verifier       SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
**                  (base64), as pg_authid.rolpassword holds it
**   exchange       AuthenticationSASL (mechanisms) <- SASLInitialResponse
**                  (client-first) -> AuthenticationSASLContinue
**                  (server-first) <- SASLResponse (client-final) ->
**                  AuthenticationSASLFinal (server signature) on success
**
** An unknown user runs the same exchange against a mock verifier whose salt
** is derived from the user name and a secret of this process, as
** PostgreSQL's scram_mock_salt: the client cannot tell from the exchange
** whether the user exists, and the exchange fails the same way.
** The password is used as its bytes (no SASLprep: an ASCII password is its
** own SASLprep form; a non-ASCII one must be given in NFKC form).
**
** Main routines: sl_scram_verifier_new, sl_scram_verifier_valid,
** sl_scram_exchange.
*/
#include "server_int.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <string.h>

#define SL__SCRAM_KEY 32          /* SHA-256 output */
#define SL__SCRAM_SALT 16         /* bytes of a new verifier's salt */
#define SL__SCRAM_ITER 4096       /* PostgreSQL's default scram_iterations */
#define SL__SCRAM_NONCE 18        /* random bytes of the server nonce */
#define SL__SCRAM_MAX_MSG 65535   /* PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH */
#define SL__SASL_AUTH 10          /* AuthenticationSASL */
#define SL__SASL_CONTINUE 11      /* AuthenticationSASLContinue */
#define SL__SASL_FINAL 12         /* AuthenticationSASLFinal */

/* A parsed verifier. */
typedef struct sl__scram_keys {
    int iterations;
    unsigned char salt[64];
    size_t salt_len;
    unsigned char stored[SL__SCRAM_KEY]; /* StoredKey = H(ClientKey) */
    unsigned char server[SL__SCRAM_KEY]; /* ServerKey */
} sl__scram_keys;

/* ------------------------------------------------------------------------
** Base64 (OpenSSL's EVP block coding, padded, no line breaks)
*/

static char *sl__b64_encode(const unsigned char *p, size_t n)
{
    char *out = sl_malloc(4 * ((n + 2) / 3) + 1);
    EVP_EncodeBlock((unsigned char *)out, p, (int)n);
    return out;
}

/* Decode s[0..n) into out (room for cap bytes). Returns the length, or -1
** when s is not well-formed base64 or does not fit. */
static int sl__b64_decode(const char *s, size_t n, unsigned char *out, size_t cap)
{
    if (n == 0 || n % 4 != 0 || n / 4 * 3 > cap + 2)
        return n == 0 ? 0 : -1;
    size_t pad = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                  (ch >= '0' && ch <= '9') || ch == '+' || ch == '/';
        if (ch == '=' && i >= n - 2) {
            pad++;
            continue;
        }
        if (!ok || pad)
            return -1;
    }
    unsigned char tmp[n / 4 * 3 + 1];
    int got = EVP_DecodeBlock(tmp, (const unsigned char *)s, (int)n);
    if (got < 0 || (size_t)got < pad || (size_t)got - pad > cap)
        return -1;
    memcpy(out, tmp, (size_t)got - pad);
    return got - (int)pad;
}

/* ------------------------------------------------------------------------
** Verifiers
*/

static void sl__hmac(const unsigned char *key, size_t klen, const void *msg, size_t mlen,
                     unsigned char out[SL__SCRAM_KEY])
{
    unsigned int olen = SL__SCRAM_KEY;
    HMAC(EVP_sha256(), key, (int)klen, msg, mlen, out, &olen);
}

int sl_scram_verifier_new(const char *password, char **out, sl_error *err)
{
    unsigned char salt[SL__SCRAM_SALT], salted[SL__SCRAM_KEY], client[SL__SCRAM_KEY];
    unsigned char stored[SL__SCRAM_KEY], server[SL__SCRAM_KEY];
    if (RAND_bytes(salt, sizeof salt) != 1)
        return sl_error_set(err, "58000", -1, "could not generate a random salt");
    if (PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, sizeof salt, SL__SCRAM_ITER,
                          EVP_sha256(), sizeof salted, salted) != 1)
        return sl_error_set(err, "58000", -1, "could not derive the SCRAM keys");
    sl__hmac(salted, sizeof salted, "Client Key", 10, client);
    SHA256(client, sizeof client, stored);
    sl__hmac(salted, sizeof salted, "Server Key", 10, server);
    char *s = sl__b64_encode(salt, sizeof salt), *st = sl__b64_encode(stored, sizeof stored),
         *sv = sl__b64_encode(server, sizeof server);
    *out = sl_sprintf("SCRAM-SHA-256$%d:%s$%s:%s", SL__SCRAM_ITER, s, st, sv);
    sl_free(s);
    sl_free(st);
    sl_free(sv);
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(client, sizeof client);
    return 0;
}

/* Parse "SCRAM-SHA-256$iter:salt$stored:server". */
static bool sl__verifier_parse(const char *v, sl__scram_keys *k)
{
    static const char prefix[] = "SCRAM-SHA-256$";
    if (strncmp(v, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *p = v + sizeof prefix - 1;
    char *end;
    long it = strtol(p, &end, 10);
    if (end == p || *end != ':' || it < 1 || it > 100000000)
        return false;
    k->iterations = (int)it;
    const char *salt = end + 1, *dollar = strchr(salt, '$');
    if (!dollar)
        return false;
    int n = sl__b64_decode(salt, (size_t)(dollar - salt), k->salt, sizeof k->salt);
    if (n <= 0)
        return false;
    k->salt_len = (size_t)n;
    const char *st = dollar + 1, *colon = strchr(st, ':');
    if (!colon)
        return false;
    if (sl__b64_decode(st, (size_t)(colon - st), k->stored, sizeof k->stored) != SL__SCRAM_KEY)
        return false;
    const char *sv = colon + 1;
    return sl__b64_decode(sv, strlen(sv), k->server, sizeof k->server) == SL__SCRAM_KEY;
}

bool sl_scram_verifier_valid(const char *v)
{
    sl__scram_keys k;
    return sl__verifier_parse(v, &k);
}

/* The mock verifier of an unknown user: salt and keys derived from the name
** and the server's secret, so that repeated attempts see the same salt. */
static void sl__verifier_mock(const sl_server *srv, const char *user, sl__scram_keys *k)
{
    unsigned char h[SL__SCRAM_KEY];
    sl__hmac(srv->mock_secret, sizeof srv->mock_secret, user, strlen(user), h);
    k->iterations = SL__SCRAM_ITER;
    memcpy(k->salt, h, SL__SCRAM_SALT);
    k->salt_len = SL__SCRAM_SALT;
    sl__hmac(h, sizeof h, "Stored Key", 10, k->stored);
    sl__hmac(h, sizeof h, "Server Key", 10, k->server);
}

/* ------------------------------------------------------------------------
** The exchange
*/

static void sl__auth_msg(sl_conn *c, int32_t code, const char *data, size_t n)
{
    size_t start = sl_pgout_begin(&c->out, 'R');
    sl_pgout_int32(&c->out, code);
    sl_pgout_bytes(&c->out, data, n);
    sl_pgout_end(&c->out, start);
}

/* Read the next message, which must be a SASL response ('p'). */
static int sl__read_sasl(sl_conn *c, sl_pgmsg *m, sl_error *err)
{
    if (sl_conn_flush(c) != 0 || sl_conn_read_message(c, m) <= 0)
        return -1; /* gone, or a FATAL was sent */
    if (m->type != 'p')
        return sl_error_set(err, "08P01", -1, "expected SASL response, got message type %d",
                            (int)(unsigned char)m->type);
    if (m->len > SL__SCRAM_MAX_MSG)
        return sl_error_set(err, "08P01", -1, "SASL message too long");
    return 0;
}

/* The value of attribute `name` at *p ("name=value,..."): returns it
** NUL-terminated (the ',' is overwritten) and moves *p past it; NULL when
** the attribute is not there. */
static char *sl__attr(char **p, char name)
{
    char *s = *p;
    if (s[0] != name || s[1] != '=')
        return NULL;
    char *v = s + 2, *comma = strchr(v, ',');
    if (comma) {
        *comma = '\0';
        *p = comma + 1;
    } else {
        *p = v + strlen(v);
    }
    return v;
}

/* A printable nonce (RFC 5802: printable ASCII except ','). */
static bool sl__nonce_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < 0x21 || *s > 0x7E || *s == ',')
            return false;
    return true;
}

int sl_scram_exchange(sl_conn *c, const char *verifier, sl_error *err)
{
    sl__scram_keys k;
    bool real = verifier && sl__verifier_parse(verifier, &k);
    if (!real)
        sl__verifier_mock(c->srv, c->user, &k);
    bool plus = c->tls != NULL; /* channel binding is offered over TLS */

    /* AuthenticationSASL: the mechanisms, each NUL-terminated, then a NUL. */
    sl_strbuf mech = {0};
    if (plus)
        sl_strbuf_append_n(&mech, "SCRAM-SHA-256-PLUS", sizeof "SCRAM-SHA-256-PLUS");
    sl_strbuf_append_n(&mech, "SCRAM-SHA-256", sizeof "SCRAM-SHA-256");
    sl_strbuf_append_char(&mech, '\0');
    sl__auth_msg(c, SL__SASL_AUTH, mech.buf, mech.len);
    sl_strbuf_free(&mech);

    int rc = -1;
    char *first = NULL, *bare = NULL, *server_first = NULL, *final = NULL, *snonce = NULL;
    char *salt64 = NULL, *sig64 = NULL;
    sl_strbuf auth = {0};
    sl_pgmsg m;

    /* SASLInitialResponse: mechanism, length, client-first-message. */
    if (sl__read_sasl(c, &m, err) != 0)
        goto out;
    const char *mname = sl_pgmsg_string(&m);
    int32_t dlen = sl_pgmsg_int32(&m);
    const char *data = dlen >= 0 ? sl_pgmsg_bytes(&m, (size_t)dlen) : NULL;
    if (!sl_pgmsg_done(&m) || !data) {
        sl_error_set(err, "08P01", -1, "malformed SASLInitialResponse message");
        goto out;
    }
    bool chose_plus = strcmp(mname, "SCRAM-SHA-256-PLUS") == 0;
    if (!(chose_plus && plus) && strcmp(mname, "SCRAM-SHA-256") != 0) {
        sl_error_set(err, "08P01", -1,
                     "client selected an invalid SASL authentication mechanism");
        goto out;
    }
    first = sl_strndup(data, (size_t)dlen);
    if (strlen(first) != (size_t)dlen)
        goto malformed;
    /* gs2 header: cbind flag, then the (unsupported) authzid. */
    char *p = first;
    char flag = *p;
    if (flag == 'p') {
        static const char cb[] = "p=tls-server-end-point,";
        if (strncmp(p, cb, sizeof cb - 1) != 0) {
            sl_error_set(err, "08P01", -1, "unsupported SCRAM channel-binding type");
            goto out;
        }
        if (!chose_plus) {
            sl_error_set(err, "08P01", -1, "malformed SCRAM message");
            sl_error_detail(err, "The client selected SCRAM-SHA-256 without channel binding, "
                                 "but the SCRAM message includes channel binding data.");
            goto out;
        }
        p += sizeof cb - 1;
    } else if (flag == 'n' || flag == 'y') {
        if (chose_plus) {
            sl_error_set(err, "08P01", -1,
                         "SCRAM channel binding negotiation error: the client selected "
                         "SCRAM-SHA-256-PLUS without channel binding data");
            goto out;
        }
        if (flag == 'y' && plus) {
            sl_error_set(err, "08P01", -1, "SCRAM channel binding negotiation error");
            goto out;
        }
        if (p[1] != ',')
            goto malformed;
        p += 2;
    } else {
        goto malformed;
    }
    if (*p == 'a') {
        sl_error_set(err, "0A000", -1,
                     "client uses authorization identity, but it is not supported");
        goto out;
    }
    if (*p != ',')
        goto malformed;
    p++;
    size_t gs2_len = (size_t)(p - first);
    bare = sl_strdup(p);
    if (p[0] == 'm') {
        sl_error_set(err, "0A000", -1, "client requires an unsupported SCRAM extension");
        goto out;
    }
    if (!sl__attr(&p, 'n')) /* the user name: PostgreSQL uses the startup packet's */
        goto malformed;
    char *cnonce = sl__attr(&p, 'r');
    if (!cnonce || !sl__nonce_ok(cnonce))
        goto malformed;

    /* server-first-message */
    unsigned char nonce_raw[SL__SCRAM_NONCE];
    if (RAND_bytes(nonce_raw, sizeof nonce_raw) != 1) {
        sl_error_set(err, "58000", -1, "could not generate a random nonce");
        goto out;
    }
    snonce = sl__b64_encode(nonce_raw, sizeof nonce_raw);
    salt64 = sl__b64_encode(k.salt, k.salt_len);
    server_first = sl_sprintf("r=%s%s,s=%s,i=%d", cnonce, snonce, salt64, k.iterations);
    sl__auth_msg(c, SL__SASL_CONTINUE, server_first, strlen(server_first));

    /* client-final-message: c=...,r=...[,ext],p=proof */
    if (sl__read_sasl(c, &m, err) != 0)
        goto out;
    final = sl_strndup(m.data, m.len);
    if (strlen(final) != m.len)
        goto malformed;
    char *proof_at = strstr(final, ",p=");
    if (!proof_at)
        goto malformed;
    while (strstr(proof_at + 1, ",p="))
        proof_at = strstr(proof_at + 1, ",p=");
    sl_strbuf_append(&auth, bare);
    sl_strbuf_append_char(&auth, ',');
    sl_strbuf_append(&auth, server_first);
    sl_strbuf_append_char(&auth, ',');
    sl_strbuf_append_n(&auth, final, (size_t)(proof_at - final));
    *proof_at = '\0';
    p = final;
    char *cbind64 = sl__attr(&p, 'c');
    if (!cbind64)
        goto malformed;
    /* c= is the gs2 header, then the channel binding data for 'p'. */
    unsigned char cbind[512], expect[512];
    size_t elen = gs2_len;
    memcpy(expect, first, gs2_len);
    if (flag == 'p') {
        unsigned hl = 0;
        if (sl_tls_end_point(c, expect + elen, &hl) != 0) {
            sl_error_set(err, "08P01", -1, "could not compute the channel binding data");
            goto out;
        }
        elen += hl;
    }
    int cl = sl__b64_decode(cbind64, strlen(cbind64), cbind, sizeof cbind);
    if (cl < 0)
        goto malformed;
    if ((size_t)cl != elen || CRYPTO_memcmp(cbind, expect, elen) != 0) {
        sl_error_set(err, "08P01", -1,
                     "SCRAM channel binding check failed");
        goto out;
    }
    char *fnonce = sl__attr(&p, 'r');
    if (!fnonce || strncmp(fnonce, cnonce, strlen(cnonce)) != 0 ||
        strcmp(fnonce + strlen(cnonce), snonce) != 0) {
        sl_error_set(err, "08P01", -1, "invalid SCRAM response: nonce does not match");
        goto out;
    }
    unsigned char proof[SL__SCRAM_KEY], sig[SL__SCRAM_KEY], key[SL__SCRAM_KEY];
    unsigned char hkey[SL__SCRAM_KEY];
    const char *proof64 = proof_at + 3;
    if (sl__b64_decode(proof64, strlen(proof64), proof, sizeof proof) != SL__SCRAM_KEY)
        goto malformed;

    /* ClientKey = proof XOR HMAC(StoredKey, AuthMessage); H(ClientKey) must
    ** be StoredKey. */
    sl__hmac(k.stored, sizeof k.stored, auth.buf, auth.len, sig);
    for (int i = 0; i < SL__SCRAM_KEY; i++)
        key[i] = proof[i] ^ sig[i];
    SHA256(key, sizeof key, hkey);
    bool ok = CRYPTO_memcmp(hkey, k.stored, SL__SCRAM_KEY) == 0 && real;
    if (!ok) {
        rc = 0;
        goto out;
    }
    sl__hmac(k.server, sizeof k.server, auth.buf, auth.len, sig);
    sig64 = sl__b64_encode(sig, sizeof sig);
    char *server_final = sl_sprintf("v=%s", sig64);
    sl__auth_msg(c, SL__SASL_FINAL, server_final, strlen(server_final));
    sl_free(server_final);
    rc = 1;
    goto out;
malformed:
    sl_error_set(err, "08P01", -1, "malformed SCRAM message");
out:
    sl_free(first);
    sl_free(bare);
    sl_free(server_first);
    sl_free(final);
    sl_free(snonce);
    sl_free(salt64);
    sl_free(sig64);
    sl_strbuf_free(&auth);
    OPENSSL_cleanse(&k, sizeof k);
    return rc;
}
