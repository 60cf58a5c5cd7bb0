// How a STORE names a PostgreSQL server, and how hwrec hides its secrets.
//
// libpq decides what a connection string means: PQconninfoParse reads both its
// forms (a postgresql:// URI and key=value pairs), decodes percent-encoding and
// quoting, and marks the options whose values are secret (dispchar "*":
// password, sslpassword, and any it adds later). hwrec asks it, and then finds
// where each secret is written in the text, so that what it prints shows the
// server and never a secret, however the secret was spelt.
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "store/pg_connection.h"

namespace hwrec::store {

namespace {

constexpr std::string_view kMask = "***";

struct OptionsDeleter {
  void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};
using Options = std::unique_ptr<PQconninfoOption, OptionsDeleter>;

// libpq's reading of `conninfo`, or null when it is not a connection string.
Options Parse(const std::string& conninfo) {
  char* error = nullptr;
  Options options(PQconninfoParse(conninfo.c_str(), &error));
  if (error != nullptr) PQfreemem(error);
  return options;
}

// The options libpq treats as secret, by name.
const std::set<std::string, std::less<>>& SecretKeys() {
  static const auto* keys = [] {
    auto* out = new std::set<std::string, std::less<>>();
    const Options all = Parse("");  // every option libpq knows, none set
    for (const PQconninfoOption* o = all.get(); o != nullptr && o->keyword != nullptr; ++o) {
      if (o->dispchar != nullptr &&
          std::string_view(o->dispchar).find('*') != std::string_view::npos) {
        out->insert(o->keyword);
      }
    }
    out->insert("password");  // whatever this libpq says
    return out;
  }();
  return *keys;
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

// The length of the URI scheme ("postgresql://", "postgres://", any case), or 0.
std::size_t SchemeLength(std::string_view location) {
  for (std::string_view scheme :
       {std::string_view("postgresql://"), std::string_view("postgres://")}) {
    if (StartsWithNoCase(location, scheme)) return scheme.size();
  }
  return 0;
}

// A key=value string naming a server, as libpq reads it.
bool IsKeywordForm(std::string_view location) {
  if (location.find('=') == std::string_view::npos) return false;
  const Options options = Parse(std::string(location));
  for (const PQconninfoOption* o = options.get(); o != nullptr && o->keyword != nullptr; ++o) {
    const std::string_view key = o->keyword;
    if (o->val != nullptr && o->val[0] != '\0' &&
        (key == "host" || key == "hostaddr" || key == "dbname" || key == "service")) {
      return true;
    }
  }
  return false;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded, as libpq decodes a URI's parts.
std::string PercentDecoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct Span {
  std::size_t begin;
  std::size_t end;
};

// Where a URI's user info ends: at the first '@' before any '/', as libpq
// reads it, or, when a password was written with an unescaped '/' or '@', at
// the last '@' with no '=' before it (an '@' after a '=' is a query value's).
// npos when it has none.
std::size_t UserInfoEnd(std::string_view uri, std::size_t scheme) {
  std::size_t end = std::string_view::npos;
  const std::size_t first = uri.find_first_of("@/", scheme);
  if (first != std::string_view::npos && uri[first] == '@') end = first;
  const std::size_t equals = uri.find('=', scheme);
  const std::size_t last = uri.substr(0, equals).rfind('@');
  if (last != std::string_view::npos && last >= scheme &&
      (end == std::string_view::npos || last > end)) {
    end = last;
  }
  return end;
}

// Where a URI writes its secrets: the password of its user info (see
// UserInfoEnd: hwrec would rather hide too much than print part of one), and
// the value of every query parameter whose key, decoded, libpq keeps secret,
// wherever a '?' or '&' starts one (a raw '?' in a password moves libpq's
// query start). A value runs to the next parameter that has a '=': an '&' in
// a password leaves its tail as a parameter libpq quotes in its error.
std::vector<Span> UriSecrets(std::string_view uri, std::size_t scheme) {
  std::vector<Span> spans;
  const std::size_t user_end = UserInfoEnd(uri, scheme);
  if (user_end != std::string_view::npos) {
    const std::size_t colon = uri.find(':', scheme);
    if (colon != std::string_view::npos && colon < user_end) {
      spans.push_back({colon + 1, user_end});
    }
  }
  for (std::size_t start = uri.find_first_of("?&", scheme); start != std::string_view::npos;
       start = uri.find_first_of("?&", start + 1)) {
    const std::size_t key = start + 1;
    const std::size_t equals = uri.find('=', key);
    const std::size_t next = uri.find_first_of("?&", key);
    if (equals == std::string_view::npos || (next != std::string_view::npos && next < equals)) {
      continue;
    }
    if (SecretKeys().count(PercentDecoded(uri.substr(key, equals - key))) == 0) continue;
    std::size_t stop = uri.find('&', equals);
    while (stop != std::string_view::npos) {
      const std::size_t following = uri.find('&', stop + 1);
      const std::string_view param =
          uri.substr(stop + 1, following == std::string_view::npos ? std::string_view::npos
                                                                   : following - stop - 1);
      if (param.find('=') != std::string_view::npos) break;
      stop = following;
    }
    spans.push_back({equals + 1, stop == std::string_view::npos ? uri.size() : stop});
  }
  return spans;
}

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::vector<Span> SecretsOf(std::string_view location);

// Where a key=value string writes its secrets, read as libpq reads it: values
// quoted with ' (and \ escapes) or bare up to the next space.
std::vector<Span> KeywordSecrets(std::string_view text) {
  std::vector<Span> spans;
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < text.size() && IsSpace(text[i])) ++i;
  };
  while (true) {
    skip_space();
    if (i >= text.size()) break;
    const std::size_t key_begin = i;
    while (i < text.size() && text[i] != '=' && !IsSpace(text[i])) ++i;
    const std::string_view key = text.substr(key_begin, i - key_begin);
    skip_space();
    if (i >= text.size() || text[i] != '=') break;
    ++i;
    skip_space();
    const std::size_t value_begin = i;
    if (i < text.size() && text[i] == '\'') {
      for (++i; i < text.size() && text[i] != '\''; ++i) {
        if (text[i] == '\\') ++i;
      }
      i = std::min(i + 1, text.size());
    } else {
      for (; i < text.size() && !IsSpace(text[i]); ++i) {
        if (text[i] == '\\') ++i;
      }
      i = std::min(i, text.size());
    }
    if (SecretKeys().count(key) != 0) {
      spans.push_back({value_begin, i});
    } else if (key == "dbname") {  // libpq reads a connection string there as one
      const bool quoted = text[value_begin] == '\'';
      const std::size_t inner = value_begin + (quoted ? 1 : 0);
      const std::size_t inner_end = quoted && i > inner && text[i - 1] == '\'' ? i - 1 : i;
      for (const Span& nested : SecretsOf(text.substr(inner, inner_end - inner))) {
        spans.push_back({inner + nested.begin, inner + nested.end});
      }
    }
  }
  return spans;
}

// The spans of `location`'s secrets, in order, overlapping ones joined.
std::vector<Span> SecretsOf(std::string_view location) {
  const std::size_t scheme = SchemeLength(location);
  std::vector<Span> spans = scheme != 0 ? UriSecrets(location, scheme) : KeywordSecrets(location);
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  std::vector<Span> merged;
  for (const Span& span : spans) {
    if (!merged.empty() && span.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, span.end);
    } else {
      merged.push_back(span);
    }
  }
  return merged;
}

bool IsWordByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// `text` with every `secret` masked; a short one only where it stands alone,
// so that a two-letter password does not blank every word that holds it.
void Mask(std::string& text, const std::string& secret) {
  if (secret.empty() || secret == kMask) return;
  const bool alone_only = secret.size() < 4;
  for (std::size_t at = text.find(secret); at != std::string::npos;) {
    const bool alone = (at == 0 || !IsWordByte(text[at - 1])) &&
                       (at + secret.size() >= text.size() || !IsWordByte(text[at + secret.size()]));
    if (alone_only && !alone) {
      at = text.find(secret, at + 1);
      continue;
    }
    text.replace(at, secret.size(), kMask);
    at = text.find(secret, at + kMask.size());
  }
}

// The values of the secret options as libpq decodes them.
std::vector<std::string> DecodedSecrets(std::string_view location) {
  std::vector<std::string> out;
  if (const Options options = Parse(LibpqConninfo(location))) {
    for (const PQconninfoOption* o = options.get(); o->keyword != nullptr; ++o) {
      if (o->val != nullptr && SecretKeys().count(o->keyword) != 0) out.emplace_back(o->val);
    }
  }
  return out;
}

}  // namespace

bool IsPostgresqlUri(std::string_view location) {
  if (SchemeLength(location) != 0 || IsKeywordForm(location)) return true;
  // key=value setting a secret that libpq cannot read (a misspelt key, an
  // unterminated quote): taken for a file path, its password would be printed
  // as one; as PostgreSQL's, libpq says what is wrong and the secret is masked.
  return location.find('=') != std::string_view::npos && !KeywordSecrets(location).empty();
}

std::string LibpqConninfo(std::string_view location) {
  std::string out(location);
  const std::size_t scheme = SchemeLength(location);
  for (std::size_t i = 0; i < scheme; ++i) {
    out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[i])));
  }
  return out;
}

namespace {

// `location` with its secret spans masked and the values libpq decodes as
// secrets masked wherever else they are written.
std::string Masked(std::string_view location, const std::vector<Span>& spans,
                   const std::vector<std::string>& decoded) {
  std::string out(location);
  for (auto span = spans.rbegin(); span != spans.rend(); ++span) {
    out.replace(span->begin, span->end - span->begin, kMask);
  }
  for (const std::string& secret : decoded) Mask(out, secret);
  return out;
}

}  // namespace

std::string RedactedUri(std::string_view uri) {
  return Masked(uri, SecretsOf(uri), DecodedSecrets(uri));
}

std::string RedactedText(std::string_view text, std::string_view location) {
  std::string out(text);
  if (!IsPostgresqlUri(location)) return out;
  // The location is read once: its secrets as written and as libpq decodes them.
  const std::vector<Span> spans = SecretsOf(location);
  std::vector<std::string> decoded = DecodedSecrets(location);
  // The location as written becomes the form hwrec prints.
  const std::string shown = Masked(location, spans, decoded);
  for (std::size_t at = out.find(location); !location.empty() && at != std::string::npos;
       at = out.find(location, at + shown.size())) {
    out.replace(at, location.size(), shown);
  }
  // Then every secret, as written, as libpq decoded it, and in the pieces
  // libpq quotes when it splits an unescaped secret at / ? @ : & = #.
  std::vector<std::string> secrets = std::move(decoded);
  for (const Span& span : spans) {
    const std::string written(location.substr(span.begin, span.end - span.begin));
    secrets.push_back(written);
    secrets.push_back(PercentDecoded(written));
    std::size_t piece = 0;
    for (std::size_t i = 0; i <= written.size(); ++i) {
      if (i == written.size() ||
          std::string_view("/?@:&=#").find(written[i]) != std::string_view::npos) {
        if (i - piece >= 2) {
          secrets.push_back(written.substr(piece, i - piece));
          secrets.push_back(PercentDecoded(written.substr(piece, i - piece)));
        }
        piece = i + 1;
      }
    }
  }
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& secret : secrets) Mask(out, secret);
  return out;
}

}  // namespace hwrec::store
