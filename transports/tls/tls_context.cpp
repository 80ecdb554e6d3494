// The process's OpenSSL contexts (tls_context.h) and the session helpers of tls_session.h.
#include "transports/tls/tls_context.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <mutex>

#include "common/config.h"
#include "common/openssl_init.h"
#include "transports/tls/tls_session.h"

namespace rgpu::transport::tls {

namespace {

const Tunable kTls{"RGPU_TLS", "auto",
                   "TLS on TCP: auto (encrypt unless both ends are on one host), on (always), off (never: plain TCP "
                   "by choice; rgpud then accepts plain TCP from other hosts)"};

constexpr char kCipherSuites[] = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
constexpr char kExporterLabel[] = "EXPORTER-Channel-Binding";  // RFC 9266

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};

Status common_settings(SSL_CTX* ctx) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 || SSL_CTX_set_ciphersuites(ctx, kCipherSuites) != 1)
    return RGPU_ERROR(kInternal, error_text("cannot configure TLS 1.3"));
  // A frame's length says where it ends, so a connection cut short is seen without close_notify.
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Bulk data arrives in large reads: OpenSSL may read ahead of the record it decrypts.
  SSL_CTX_set_read_ahead(ctx, 1);
  return Status::ok();
}

// A P-256 key and a certificate for it, signed by itself, valid for ten years from now. Nobody
// checks it; TLS needs one to run.
Status add_throwaway_identity(SSL_CTX* ctx) {
  std::unique_ptr<EVP_PKEY, KeyFree> key(EVP_EC_gen("P-256"));
  std::unique_ptr<X509, CertFree> cert(X509_new());
  if (!key || !cert) return RGPU_ERROR(kInternal, error_text("cannot make rgpud's TLS key"));
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("rgpud"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509_set_pubkey(cert.get(), key.get());
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) <= 0 || SSL_CTX_use_certificate(ctx, cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx, key.get()) != 1)
    return RGPU_ERROR(kInternal, error_text("cannot make rgpud's TLS certificate"));
  return Status::ok();
}

Result<SSL_CTX*> make_context(bool server) {
  start_openssl();
  SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx) return RGPU_ERROR(kInternal, error_text("cannot create a TLS context"));
  Status st = common_settings(ctx);
  if (st.is_ok() && server) st = add_throwaway_identity(ctx);
  if (!server) SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  if (!st.is_ok()) {
    SSL_CTX_free(ctx);
    return st;
  }
  return ctx;
}

// Made once per process, on first use, and kept to its end.
Result<SSL_CTX*> shared_context(bool server) {
  static std::once_flag once[2];
  static Result<SSL_CTX*> made[2] = {RGPU_ERROR(kInternal, "unset"), RGPU_ERROR(kInternal, "unset")};
  std::call_once(once[server], [&] { made[server] = make_context(server); });
  return made[server];
}

// OpenSSL's socket BIO writes with write(2), which raises SIGPIPE on a closed connection; this one
// is that BIO with send(MSG_NOSIGNAL).
int write_without_sigpipe(BIO* bio, const char* data, int len) {
  BIO_clear_retry_flags(bio);
  const ssize_t n = ::send(static_cast<int>(BIO_get_fd(bio, nullptr)), data, static_cast<size_t>(len), MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) BIO_set_retry_write(bio);
  return static_cast<int>(n);
}

const BIO_METHOD* socket_method() {
  static BIO_METHOD* method = [] {
    const BIO_METHOD* base = BIO_s_socket();
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "rgpu socket");
    if (!m) return m;
    BIO_meth_set_write(m, write_without_sigpipe);
    BIO_meth_set_read(m, BIO_meth_get_read(base));
    BIO_meth_set_puts(m, BIO_meth_get_puts(base));
    BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(base));
    BIO_meth_set_create(m, BIO_meth_get_create(base));
    BIO_meth_set_destroy(m, BIO_meth_get_destroy(base));
    return m;
  }();
  return method;
}

}  // namespace

Result<SslPtr> new_session(bool server, int fd) {
  RGPU_ASSIGN_OR_RETURN(SSL_CTX * ctx, server ? server_context() : client_context());
  SslPtr ssl(SSL_new(ctx));
  BIO* bio = socket_method() ? BIO_new(socket_method()) : nullptr;
  if (!ssl || !bio) {
    BIO_free(bio);
    return RGPU_ERROR(kInternal, error_text("cannot start a TLS session"));
  }
  BIO_set_fd(bio, fd, BIO_NOCLOSE);
  SSL_set_bio(ssl.get(), bio, bio);
  if (server) SSL_set_accept_state(ssl.get());
  else SSL_set_connect_state(ssl.get());
  return ssl;
}

Result<SSL_CTX*> server_context() { return shared_context(true); }
Result<SSL_CTX*> client_context() { return shared_context(false); }

std::string error_text(const std::string& what) {
  std::string text = what;
  const char* sep = ": ";
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    text += sep;
    text += buf;
    sep = "; ";
  }
  return text;
}

Result<Mode> parse_mode(const std::string& text) {
  if (text == "auto") return Mode::kAuto;
  if (text == "on") return Mode::kOn;
  if (text == "off") return Mode::kOff;
  return RGPU_ERROR(kInvalidArgument, "TLS mode '" + text + "' is none of auto, on, off");
}

Mode mode_from_environment() {
  static const Mode mode = [] {
    Result<Mode> m = parse_mode(kTls.get());
    if (m.is_ok()) return *m;
    std::fprintf(stderr, "rgpu: RGPU_TLS=%s is none of auto, on, off; using auto\n", kTls.get().c_str());
    return Mode::kAuto;
  }();
  return mode;
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kOn: return "on";
    case Mode::kOff: return "off";
    default: return "auto";
  }
}

bool plaintext_allowed(Mode mode, bool peer_is_loopback) {
  return mode == Mode::kOff || (mode == Mode::kAuto && peer_is_loopback);
}

void SslFree::operator()(ssl_st* ssl) const { SSL_free(ssl); }

Result<Binding> channel_binding(ssl_st* ssl) {
  Binding b{};
  if (SSL_export_keying_material(ssl, b.data(), b.size(), kExporterLabel, sizeof kExporterLabel - 1, nullptr, 0, 0) != 1)
    return RGPU_ERROR(kInternal, error_text("cannot derive the TLS channel binding"));
  return b;
}

}  // namespace rgpu::transport::tls
