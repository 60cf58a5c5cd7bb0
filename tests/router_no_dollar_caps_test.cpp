// No dollar caps anywhere in the router (DESIGN §8): GCP credits are not what
// limits a dispatch, wall-clock is, and RunPod is held back by its place at the
// end of the ladder, not by a budget. This test reads the router's code, its
// migrations, its binding, its Python stubs, the Python examples and the
// examples of docs/ROUTER.md, and the
// configuration a fresh store holds, and fails on any identifier or
// configuration key that speaks of money.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "hwrec/router_config.h"
#include "router/router_internal.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;

// Words that would make a setting, column or identifier a money limit.
const std::set<std::string> kMoneyWords = {
    "budget",   "budgets", "dollar",  "dollars", "usd",     "usds", "cents",   "spend",
    "spending", "spent",   "price",   "prices",  "pricing", "cost", "costs",   "money",
    "credit",   "credits", "billing", "invoice", "fee",     "fees", "payment", "wallet"};

// The words of one identifier: split at '_', '-', '.', lower-to-upper case
// changes and the end of an upper-case run, lower-cased ("maxCostUsd" -> max,
// cost, usd; "maxUSDPerDay" -> max, usd, per, day).
std::vector<std::string> WordsOf(const std::string& identifier) {
  const auto upper = [&](std::size_t i) {
    return i < identifier.size() && std::isupper(static_cast<unsigned char>(identifier[i]));
  };
  const auto lower = [&](std::size_t i) {
    return i < identifier.size() && std::islower(static_cast<unsigned char>(identifier[i]));
  };
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < identifier.size(); ++i) {
    const char c = identifier[i];
    // An upper-case run ends before an upper-case letter that starts a word
    // ("USDPer"), but keeps a plural 's' ("maxUSDs", "GPUs").
    const bool plural = identifier[i + 1 < identifier.size() ? i + 1 : i] == 's' && !lower(i + 2);
    const bool boundary =
        i > 0 && upper(i) && (lower(i - 1) || (upper(i - 1) && lower(i + 1) && !plural));
    if (!std::isalnum(static_cast<unsigned char>(c)) || boundary) {
      if (!word.empty()) words.push_back(word);
      word.clear();
      if (!std::isalnum(static_cast<unsigned char>(c))) continue;
    }
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// The identifiers and keys of `text` that name money, as "identifier" each.
std::vector<std::string> MoneyNames(const std::string& text) {
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_.-]*");
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kIdentifier);
       it != std::sregex_iterator(); ++it) {
    for (const std::string& word : WordsOf(it->str())) {
      if (kMoneyWords.count(word) != 0) found.push_back(it->str());
    }
  }
  return found;
}

// Code without its comments: from `marker` (`//` in C++, `--` in SQL, `#` in
// Python) to the end of the line, outside string literals, which are kept
// (configuration keys live in them). Knows C++ raw strings and Python's
// triple-quoted ones; a newline ends any other string.
std::string WithoutComments(const std::string& text, const std::string& marker) {
  std::string out;
  std::size_t i = 0;
  const auto at = [&](std::size_t pos, const std::string& token) {
    return text.compare(pos, token.size(), token) == 0;
  };
  // Copies the literal that starts at `i`, opened by `open_length` characters
  // and ended by `close` (escapes honoured unless `raw`); a newline ends it
  // unless `multiline`.
  const auto copy_literal = [&](std::size_t open_length, const std::string& close, bool raw,
                                bool multiline) {
    out += text.substr(i, open_length);
    i += open_length;
    while (i < text.size()) {
      if (!raw && text[i] == '\\' && i + 1 < text.size()) {
        out += text.substr(i, 2);
        i += 2;
      } else if (at(i, close)) {
        out += close;
        i += close.size();
        return;
      } else if (text[i] == '\n' && !multiline) {
        return;
      } else {
        out += text[i++];
      }
    }
  };
  while (i < text.size()) {
    if (at(i, marker)) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (marker == "#" && (at(i, "\"\"\"") || at(i, "'''"))) {
      copy_literal(3, text.substr(i, 3), false, true);
    } else if (marker == "//" && at(i, "R\"")) {
      const std::size_t paren = text.find('(', i);
      if (paren == std::string::npos) break;
      const std::string delimiter = text.substr(i + 2, paren - i - 2);
      copy_literal(paren + 1 - i, ")" + delimiter + "\"", true, true);
    } else if (text[i] == '"' || text[i] == '\'') {
      copy_literal(1, std::string(1, text[i]), false, false);
    } else {
      out += text[i++];
    }
  }
  return out;
}

// What a Markdown document defines rather than says: its fenced blocks
// (configuration files, commands and their output) and its `identifier` spans.
std::string DefinedIn(const std::string& markdown) {
  std::string out;
  bool fenced = false;
  std::size_t start = 0;
  static const std::regex kCodeSpan("`([A-Za-z0-9_.-]+)`");
  while (start < markdown.size()) {
    std::size_t end = markdown.find('\n', start);
    if (end == std::string::npos) end = markdown.size();
    const std::string line = markdown.substr(start, end - start);
    start = end + 1;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      out += line + "\n";
      continue;
    }
    for (auto it = std::sregex_iterator(line.begin(), line.end(), kCodeSpan);
         it != std::sregex_iterator(); ++it) {
      out += (*it)[1].str() + "\n";
    }
  }
  return out;
}

// Every file of the router: public headers, sources, the CLI command, the
// Python binding and the migrations that create or seed router tables.
std::vector<std::pair<std::string, std::string>> RouterSources() {
  const fs::path root = hwrec::test::SourcePath("");
  std::vector<std::pair<std::string, std::string>> files;  // path, comment marker
  for (const char* header : {"include/hwrec/router.h", "include/hwrec/router_config.h",
                             "include/hwrec/ladder.h", "include/hwrec/ladder_walk.h",
                             "include/hwrec/simulated_capacity.h", "tools/hwrec/cmd_route.cpp",
                             "tools/hwrec/route_outcomes.h", "tools/hwrec/route_outcomes.cpp",
                             "python/src/store_route.cpp", "python/src/values_route.cpp"}) {
    files.emplace_back(header, "//");
  }
  // The Python surface a dispatcher codes against, and the examples it copies.
  files.emplace_back("python/hwrec/__init__.pyi", "#");
  files.emplace_back("python/hwrec/__init__.py", "#");
  for (const char* dir : {"examples", "examples/tests"}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      if (entry.path().extension() == ".py") {
        files.emplace_back(fs::relative(entry.path(), root).string(), "#");
      }
    }
  }
  for (const auto& entry : fs::directory_iterator(root / "src/router")) {
    files.emplace_back(fs::relative(entry.path(), root).string(), "//");
  }
  for (const char* dir : {"migrations", "migrations/postgresql"}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      if (entry.path().extension() != ".sql") continue;
      const std::string relative = fs::relative(entry.path(), root).string();
      if (hwrec::test::ReadFile(entry.path().string()).find("router_") != std::string::npos) {
        files.emplace_back(relative, "--");
      }
    }
  }
  return files;
}

void CollectKeys(const nlohmann::json& value, std::string* keys) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      *keys += key + "\n";
      CollectKeys(child, keys);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) CollectKeys(child, keys);
  }
}

}  // namespace

TEST_CASE("router: the money-word scan finds a cap however it is spelt", "[router]") {
  CHECK(MoneyNames("int max_cost_usd = 5;") ==
        std::vector<std::string>{"max_cost_usd", "max_cost_usd"});
  CHECK(MoneyNames("double dailyBudget;") == std::vector<std::string>{"dailyBudget"});
  CHECK(MoneyNames(R"({"runpod_spend_cap": 100})") == std::vector<std::string>{"runpod_spend_cap"});
  CHECK(MoneyNames("PricePerHour").size() == 1);
  // Words that merely contain one are not money: suspend, used, capacity.
  CHECK(MoneyNames("suspend(used); gcp_daily_attempt_cap; capacity_miss; accusd").empty());
  CHECK(MoneyNames("USDCap") == std::vector<std::string>{"USDCap"});
  CHECK(MoneyNames("maxUSDPerDay") == std::vector<std::string>{"maxUSDPerDay"});
  CHECK(MoneyNames("GCPCreditLimit").size() == 1);
  CHECK(MoneyNames("maxUSDs") == std::vector<std::string>{"maxUSDs"});
  CHECK(WordsOf("freeGPUs") == std::vector<std::string>{"free", "gpus"});
  CHECK(WithoutComments("int a; // costs real dollars\n", "//") == "int a; \n");
  // A comment marker inside a string is no comment.
  CHECK(WithoutComments("url = \"http://x\"; spend_cap = 1; // note\n", "//") ==
        "url = \"http://x\"; spend_cap = 1; \n");
  CHECK(WithoutComments("s = R\"(a // b)\"; cost = 2;\n", "//") ==
        "s = R\"(a // b)\"; cost = 2;\n");
  CHECK(WithoutComments("k = '--x'; fee -- why\n", "--") == "k = '--x'; fee \n");
  CHECK(WithoutComments("d = \"\"\"a # b\n\"\"\" # note\nbudget = 1\n", "#") ==
        "d = \"\"\"a # b\n\"\"\" \nbudget = 1\n");
  CHECK(DefinedIn("It costs money.\n```json\n{\"cost_cap\": 1}\n```\nsee `budget_usd`\n") ==
        "{\"cost_cap\": 1}\nbudget_usd\n");
}

TEST_CASE("router: no dollar or budget cap in its code, migrations, binding or documented settings",
          "[router]") {
  const auto sources = RouterSources();
  REQUIRE(sources.size() >= 20);
  for (const auto& [relative, marker] : sources) {
    INFO(relative);
    const std::string code =
        WithoutComments(hwrec::test::ReadFile(hwrec::test::SourcePath(relative)), marker);
    CHECK(MoneyNames(code) == std::vector<std::string>{});
  }
  INFO("docs/ROUTER.md");
  CHECK(MoneyNames(DefinedIn(hwrec::test::ReadFile(hwrec::test::SourcePath("docs/ROUTER.md")))) ==
        std::vector<std::string>{});
}

TEST_CASE("router: no dollar or budget cap among the settings and keys a store holds", "[router]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("router.db"));
  auto config = hwrec::LoadRouterConfig(*store);
  REQUIRE(config.ok());
  std::string keys;
  CollectKeys(nlohmann::json::parse(hwrec::RouterConfigToJson(*config)), &keys);
  for (const auto& setting : hwrec::internal::SettingInfos())
    keys += std::string(setting.key) + "\n";
  REQUIRE(keys.find("gcp_daily_attempt_cap") != std::string::npos);
  CHECK(MoneyNames(keys) == std::vector<std::string>{});
}
