#include "base/sha256.h"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace hwrec::internal {

namespace {

// OpenSSL 3 looks an implicit algorithm up on every EVP_Digest call; fetching
// it once keeps hashing off the ingest profile. The fetched method is shared
// and thread-safe; a digest context is kept per thread.
const EVP_MD* Sha256Method() {
  static const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> method(
      EVP_MD_fetch(nullptr, "SHA256", nullptr), &EVP_MD_free);
  if (!method) throw std::runtime_error("OpenSSL has no SHA-256 implementation");
  return method.get();
}

EVP_MD_CTX* ThreadContext() {
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(
      EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!context) throw std::runtime_error("OpenSSL could not allocate a digest context");
  return context.get();
}

}  // namespace

Sha256Digest Sha256(std::string_view data) {
  Sha256Digest digest{};
  unsigned int size = 0;
  EVP_MD_CTX* context = ThreadContext();
  if (EVP_DigestInit_ex(context, Sha256Method(), nullptr) != 1 ||
      EVP_DigestUpdate(context, data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(context, digest.data(), &size) != 1 || size != digest.size()) {
    throw std::runtime_error("OpenSSL SHA-256 failed");
  }
  return digest;
}

std::string ToHex(const unsigned char* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(size * 2, '0');
  for (std::size_t i = 0; i < size; ++i) {
    hex[2 * i] = kDigits[data[i] >> 4];
    hex[2 * i + 1] = kDigits[data[i] & 0x0f];
  }
  return hex;
}

std::string Sha256Hex(std::string_view data) {
  const Sha256Digest digest = Sha256(data);
  return ToHex(digest.data(), digest.size());
}

}  // namespace hwrec::internal
