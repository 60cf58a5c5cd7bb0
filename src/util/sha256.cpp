#include "util/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace hwrec::internal {

Sha256Digest Sha256(std::string_view data) {
  Sha256Digest digest{};
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size()) {
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
