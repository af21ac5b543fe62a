/*
** tls.c — the TLS transport through OpenSSL: the server's context (the
** --tls-cert / --tls-key pair, TLS 1.2 and newer), the handshake after an
** SSLRequest answered 'S', the connection's io_read / io_write over the
** SSL object, and the tls-server-end-point channel binding data (RFC 5929)
** that SCRAM-SHA-256-PLUS checks.
**
** Main routines: sl_tls_init, sl_tls_accept, sl_tls_end_point, sl_tls_free,
** sl_tls_done.
*/
#include "server_int.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <string.h>

/* The newest OpenSSL error as text (the queue is cleared). */
static const char *sl__tls_errstr(char *buf, size_t n)
{
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (!e)
        return "no further detail";
    ERR_error_string_n(e, buf, n);
    return buf;
}

int sl_tls_init(sl_server *srv, sl_error *err)
{
    char why[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return sl_error_set(err, "58000", -1, "could not create the TLS context: %s",
                            sl__tls_errstr(why, sizeof why));
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
    if (SSL_CTX_use_certificate_chain_file(ctx, srv->cfg.tls_cert) != 1) {
        sl_error_set(err, "58000", -1, "could not load the certificate file \"%s\": %s",
                     srv->cfg.tls_cert, sl__tls_errstr(why, sizeof why));
        SSL_CTX_free(ctx);
        return -1;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, srv->cfg.tls_key, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1) {
        sl_error_set(err, "58000", -1, "could not load the private key file \"%s\": %s",
                     srv->cfg.tls_key, sl__tls_errstr(why, sizeof why));
        SSL_CTX_free(ctx);
        return -1;
    }
    srv->tls_ctx = ctx;
    return 0;
}

void sl_tls_done(sl_server *srv)
{
    if (srv->tls_ctx)
        SSL_CTX_free(srv->tls_ctx);
    srv->tls_ctx = NULL;
}

static ssize_t sl__tls_read(sl_conn *c, void *buf, size_t n)
{
    size_t got = 0;
    ERR_clear_error();
    if (SSL_read_ex(c->tls, buf, n, &got) == 1)
        return (ssize_t)got;
    int e = SSL_get_error(c->tls, 0);
    return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

static ssize_t sl__tls_write(sl_conn *c, const void *buf, size_t n)
{
    size_t put = 0;
    ERR_clear_error();
    if (SSL_write_ex(c->tls, buf, n, &put) == 1)
        return (ssize_t)put;
    return -1;
}

int sl_tls_accept(sl_conn *c, sl_error *err)
{
    char why[256];
    SSL *ssl = SSL_new(c->srv->tls_ctx);
    if (!ssl || SSL_set_fd(ssl, c->fd) != 1) {
        SSL_free(ssl);
        return sl_error_set(err, "08P01", -1, "could not start TLS: %s",
                            sl__tls_errstr(why, sizeof why));
    }
    ERR_clear_error();
    if (SSL_accept(ssl) != 1) {
        sl_error_set(err, "08P01", -1, "could not accept TLS connection: %s",
                     sl__tls_errstr(why, sizeof why));
        SSL_free(ssl);
        return -1;
    }
    c->tls = ssl;
    c->io_read = sl__tls_read;
    c->io_write = sl__tls_write;
    return 0;
}

int sl_tls_end_point(sl_conn *c, unsigned char *out, unsigned *len)
{
    if (!c->srv->tls_ctx || !c->tls)
        return -1;
    X509 *cert = SSL_get_certificate(c->tls); /* ours: not a new reference */
    if (!cert)
        return -1;
    /* RFC 5929 4.1: the certificate's signature hash; MD5 and SHA-1 become
    ** SHA-256. */
    int algo = NID_undef, pkey = NID_undef;
    if (!OBJ_find_sigid_algs(X509_get_signature_nid(cert), &algo, &pkey))
        return -1;
    const EVP_MD *md = algo == NID_md5 || algo == NID_sha1 ? EVP_sha256()
                                                           : EVP_get_digestbynid(algo);
    if (!md || X509_digest(cert, md, out, len) != 1)
        return -1;
    return 0;
}

void sl_tls_free(sl_conn *c)
{
    if (!c->tls)
        return;
    if (!c->closed)
        SSL_shutdown(c->tls);
    SSL_free(c->tls);
    c->tls = NULL;
}
