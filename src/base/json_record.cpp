// ParseJsonRecord: one JSON text as an object, with errors that name the
// field (declared in base/json_fields.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

#include "base/json_fields.h"
#include "base/json_values.h"
#include "base/text.h"

namespace hwrec::internal {

namespace {

// Replaces bare NaN/Infinity/-Infinity tokens outside strings by marker strings.
std::optional<std::string> QuoteNonFiniteTokens(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  bool replaced = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    auto token_at = [&](std::string_view token) { return text.substr(i, token.size()) == token; };
    if (token_at("NaN")) {
      out += kNanToken;
      i += 2;
      replaced = true;
    } else if (token_at("-Infinity")) {
      out += kInfToken;
      i += 8;
      replaced = true;
    } else if (token_at("Infinity")) {
      out += kInfToken;
      i += 7;
      replaced = true;
    } else {
      out += c;
    }
  }
  if (!replaced) return std::nullopt;
  return out;
}

// The key path of the value being parsed ("hardware.gpu_count", "a[2]"), fed
// by parser events; it also notes the first key repeated within one object.
class KeyPath {
 public:
  void Reset() {
    frames_.clear();
    duplicate_.reset();
  }
  void Open(bool object) { frames_.push_back(Frame{object, {}, 0, false, {}}); }
  void Close() {
    if (!frames_.empty()) frames_.pop_back();
    Completed();
  }
  void Key(const std::string& key) {
    if (frames_.empty()) return;
    Frame& top = frames_.back();
    top.key = key;
    top.has_key = true;
    if (!top.keys.insert(key).second && !duplicate_) duplicate_ = Path();
  }
  // A value ended in the innermost object or array.
  void Completed() {
    if (frames_.empty()) return;
    Frame& top = frames_.back();
    if (top.object) {
      top.has_key = false;
    } else {
      ++top.index;
    }
  }
  // True when the parser is between a key and its value's end, or in an array.
  bool InValue() const {
    return !frames_.empty() && (!frames_.back().object || frames_.back().has_key);
  }
  std::string Path() const {
    std::string out;
    for (const Frame& frame : frames_) {
      if (!frame.object) {
        out += fmt::format("[{}]", frame.index);
      } else if (frame.has_key) {
        out += (out.empty() ? "" : ".") + frame.key;
      }
    }
    return out;
  }
  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool object;
    std::string key;
    std::size_t index;
    bool has_key;
    std::unordered_set<std::string> keys;  // a set: a line may hold many keys
  };
  std::vector<Frame> frames_;
  std::optional<std::string> duplicate_;
};

// Parses with a callback that keeps `path` current, for duplicate keys.
nlohmann::json ParseTracked(std::string_view text, KeyPath* path) {
  path->Reset();
  using Event = nlohmann::json::parse_event_t;
  auto track = [path](int /*depth*/, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        path->Open(event == Event::object_start);
        break;
      case Event::key:
        path->Key(parsed.get_ref<const std::string&>());
        break;
      case Event::object_end:
      case Event::array_end:
        path->Close();
        break;
      case Event::value:
        path->Completed();
        break;
    }
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), track, false);
}

// SAX handler that only follows the key path, to say where a parse failed.
class FailureLocator : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(true); }
  bool key(string_t& key) override {
    path.Key(key);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(false); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    failed = true;
    byte = position;
    token = last_token;
    id = ex.id;
    message = ex.what();
    return false;
  }

  KeyPath path;
  bool failed = false;
  std::size_t byte = 0;
  std::string token;
  int id = 0;
  std::string message;

 private:
  bool Value() {
    path.Completed();
    return true;
  }
  bool Open(bool object) {
    path.Open(object);
    return true;
  }
  bool Close() {
    path.Close();
    return true;
  }
};

constexpr int kNumberOverflow = 406;  // nlohmann's out_of_range.406

// The lexer's words after "invalid string: ", up to "; last read".
std::optional<std::string> StringProblem(const std::string& message) {
  constexpr std::string_view kMark = "invalid string: ";
  const std::size_t start = message.find(kMark);
  if (start == std::string::npos) return std::nullopt;
  const std::size_t from = start + kMark.size();
  return message.substr(from, message.find("; last read", from) - from);
}

// Names the field at fault in a text that failed to parse, and the fix.
RecordError Diagnose(std::string_view text) {
  FailureLocator locator;
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &locator);
  } catch (const std::exception& e) {
    return RecordError{"json", fmt::format("malformed JSON ({}): fix the line so that it is one "
                                           "JSON object",
                                           e.what())};
  }
  if (!locator.failed) {
    return RecordError{"json", "malformed JSON: fix the line so that it is one JSON object"};
  }
  const bool in_value = locator.path.InValue();
  const std::string path = locator.path.Path();
  const std::string field = path.empty() ? "json" : path;
  if (locator.id == kNumberOverflow) {
    const std::string shown =
        locator.token.size() > 24 ? locator.token.substr(0, 20) + "..." : locator.token;
    return RecordError{field, fmt::format("is {}, beyond the range of a number (about ±1.8e308): "
                                          "send a finite number in the field's unit",
                                          shown)};
  }
  if (auto problem = StringProblem(locator.message)) {
    return RecordError{field, fmt::format("{} ({}): send UTF-8 text with control characters "
                                          "escaped",
                                          in_value ? "is not valid JSON text"
                                                   : "has a key that is not valid JSON text",
                                          *problem)};
  }
  return RecordError{"json",
                     fmt::format("malformed JSON at byte {}: fix the line so that it is one "
                                 "JSON object",
                                 locator.byte)};
}

}  // namespace

bool IsMarker(const nlohmann::json& value, std::string_view marker) {
  return value.is_string() && value.get_ref<const std::string&>() == marker;
}

std::string Describe(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::number_float:
      return "a fractional number";
    default:
      return "a number";
  }
}

std::variant<nlohmann::json, RecordError> ParseJsonRecord(std::string_view text) {
  KeyPath path;
  auto parsed = ParseTracked(text, &path);
  std::optional<std::string> quoted;
  if (parsed.is_discarded()) {
    quoted = QuoteNonFiniteTokens(text);
    if (quoted) parsed = ParseTracked(*quoted, &path);
  }
  if (parsed.is_discarded()) return Diagnose(quoted ? std::string_view(*quoted) : text);
  if (!parsed.is_object()) {
    return RecordError{"json", fmt::format("expected a JSON object, got {}", Describe(parsed))};
  }
  if (path.duplicate()) {
    return RecordError{*path.duplicate(),
                       "appears more than once: send each field once (hwrec does not pick one)"};
  }
  return parsed;
}

}  // namespace hwrec::internal
