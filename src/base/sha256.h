// SHA-256 through OpenSSL's EVP interface, as lowercase hex or raw bytes.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace hwrec::internal {

using Sha256Digest = std::array<unsigned char, 32>;

Sha256Digest Sha256(std::string_view data);
std::string Sha256Hex(std::string_view data);
std::string ToHex(const unsigned char* data, std::size_t size);

}  // namespace hwrec::internal
