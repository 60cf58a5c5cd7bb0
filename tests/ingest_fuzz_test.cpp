// Seeded mutation fuzzing of ingest: good observation lines interleaved with
// mutated ones (extreme numbers, times in milliseconds, far-future dates,
// control characters, invalid UTF-8, duplicate keys, truncation, byte flips)
// go through the Ingestor and through `hwrec ingest`. Every good line must be
// stored, every line accounted for, no figure or confidence may be non-finite,
// and the store must pass integrity_check. HWREC_FUZZ_SEED replays a run; the
// seed is printed.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/recommend.h"
#include "hwrec/refresh.h"
#include "store/sqlite_util.h"
#include "test_support.h"

namespace {

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

constexpr int kGoodLines = 1500;
constexpr int kMutatedLines = 3000;

std::uint64_t FuzzSeed() {
  if (const char* text = std::getenv("HWREC_FUZZ_SEED")) return std::strtoull(text, nullptr, 10);
  return std::random_device{}();
}

double NowSeconds() {
  using std::chrono::duration;
  using std::chrono::system_clock;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// The pools a good line may name, with bounds every good value stays within.
struct PoolShape {
  const char* id;
  double gpu_memory_gb;  // 0: no GPU
  double cpu_millicores;
  double memory_bytes;
};

const std::vector<PoolShape>& Pools() {
  static const std::vector<PoolShape> pools = {
      {"sitea-a100-80gb", 80, 12000, 182536110080.0},
      {"sitea-a30-mig", 12, 64000, 549755813888.0},
      {"sitea-arm-cpu", 0, 64000, 137438953472.0},
      {"siteb-a100-40gb-mig", 20, 96000, 1236950581248.0},
      {"siteb-h100-80gb", 80, 208000, 1999307276288.0},
  };
  return pools;
}

const std::vector<std::string>& Images() {
  static const std::vector<std::string> images = {"ghcr.io/acme/train:1", "ghcr.io/acme/infer:2",
                                                  "ghcr.io/acme/etl:3"};
  return images;
}

class LineMaker {
 public:
  explicit LineMaker(std::uint64_t seed) : rng_(seed) {}

  // A record that every rule accepts: a registered pool, values within what
  // its hardware holds, finished within the last 30 days.
  nlohmann::json Good(const std::string& execution_id) {
    const PoolShape& pool = Pools()[Pick(Pools().size())];
    nlohmann::json o = {
        {"execution_id", execution_id},
        {"action_image", Images()[Pick(Images().size())]},
        {"finished_at", std::floor(now_ - Uniform(60, 30 * 86400.0))},
        {"site_id", "site-fuzz"},
        {"node_pool_id", pool.id},
        {"status", Pick(10) == 0 ? "oom" : "success"},
        {"duration_s", std::round(Uniform(1, 7200))},
        {"cpu_millicores_avg", std::round(Uniform(10, pool.cpu_millicores * 0.4))},
        {"cpu_millicores_p95", std::round(Uniform(10, pool.cpu_millicores * 0.6))},
        {"cpu_millicores_max", std::round(Uniform(10, pool.cpu_millicores * 0.8))},
        {"memory_peak_bytes", static_cast<std::int64_t>(Uniform(1e6, pool.memory_bytes * 0.5))},
        {"requested",
         {{"cpu_millicores", 1000}, {"memory_bytes", static_cast<std::int64_t>(1) << 30}}},
    };
    if (pool.gpu_memory_gb > 0) {
      o["gpu_memory_peak_gb"] = std::round(Uniform(0.1, pool.gpu_memory_gb * 0.9) * 100) / 100;
      o["gpu_utilization"] = std::round(Uniform(0, 1) * 100) / 100;
    }
    return o;
  }

  // A mutation of a good record: often invalid, sometimes still valid.
  std::string Mutated(const std::string& execution_id) {
    nlohmann::json o = Good(execution_id);
    switch (Pick(12)) {
      case 0:
        return ReplaceNumber(o, ExtremeNumber());
      case 1:
        return ReplaceNumber(o, ExtremeNumber(), "requested");
      case 2:
        return WithFinishedAt(o, FarTime());
      case 3:
        o[Field()] = BadText();
        return o.dump();
      case 4:
        return InvalidUtf8(o.dump());
      case 5:
        return DuplicateKey(o.dump());
      case 6:
        return o.dump().substr(0, Pick(o.dump().size()));
      case 7:
        return FlipBytes(o.dump());
      case 8:
        o[Pick(2) == 0 ? "memory_peak_gib" : "gpu_compute_fractoin"] = 3;
        return o.dump();
      case 9:
        return Structure();
      case 10:
        o["hardware"] = {{"gpu_model", Pick(2) == 0 ? "A100 80GB" : "T4"},
                         {"gpu_count", static_cast<int>(Pick(20))},
                         {"gpu_total", static_cast<int>(Pick(20))}};
        return o.dump();
      default:
        o["gpu_memory_peak_gb"] = Pick(2) == 0 ? 1e307 : 5000.0;
        return o.dump();
    }
  }

 private:
  std::size_t Pick(std::size_t n) { return n == 0 ? 0 : rng_() % n; }
  double Uniform(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng_);
  }

  std::string Field() {
    static const std::vector<std::string> fields = {"execution_id", "action_image", "site_id",
                                                    "node_pool_id", "status"};
    return fields[Pick(fields.size())];
  }

  std::string ExtremeNumber() {
    static const std::vector<std::string> numbers = {"1e400",
                                                     "-1e400",
                                                     std::string(400, '9'),
                                                     "1e307",
                                                     "-1e307",
                                                     "1.7976931348623157e308",
                                                     "4.9e-324",
                                                     "1e-320",
                                                     "-0",
                                                     "0",
                                                     "NaN",
                                                     "Infinity",
                                                     "-Infinity",
                                                     "1e300",
                                                     "9223372036854775808",
                                                     "-9223372036854775809",
                                                     "1796000000000"};
    return numbers[Pick(numbers.size())];
  }

  std::string FarTime() {
    static const std::vector<std::string> times = {
        "1796000000000",
        "1e300",
        "\"9999-12-31T23:59:59Z\"",
        "\"2026-11-29T16:02:37+25:00\"",
        "-1e300",
        "\"0000-01-01T00:00:00Z\"",
        std::to_string(static_cast<std::int64_t>(NowSeconds()) + 300 * 86400)};
    return times[Pick(times.size())];
  }

  std::string BadText() {
    static const std::vector<std::string> texts = {
        "   ", std::string("a\0b", 3), "\x1b[31mred", "\t", "", std::string(5000, 'x')};
    return texts[Pick(texts.size())];
  }

  // Replaces one numeric field's value, in the text, by `number`.
  std::string ReplaceNumber(const nlohmann::json& o, const std::string& number,
                            const std::string& object = "") {
    nlohmann::json copy = o;
    nlohmann::json& target = object.empty() ? copy : copy[object];
    std::vector<std::string> keys;
    for (auto it = target.begin(); it != target.end(); ++it) {
      if (it->is_number()) keys.push_back(it.key());
    }
    if (keys.empty()) return copy.dump();
    const std::string key = keys[Pick(keys.size())];
    target[key] = "\x01number\x01";
    std::string text = copy.dump();
    const std::string marker = "\"\\u0001number\\u0001\"";
    text.replace(text.find(marker), marker.size(), number);
    return text;
  }

  std::string WithFinishedAt(nlohmann::json o, const std::string& value) {
    o["finished_at"] = "\x01time\x01";
    std::string text = o.dump();
    const std::string marker = "\"\\u0001time\\u0001\"";
    text.replace(text.find(marker), marker.size(), value);
    return text;
  }

  std::string InvalidUtf8(std::string text) {
    const std::size_t at = text.find("ghcr.io");
    if (at != std::string::npos) text.insert(at + 2, Pick(2) == 0 ? "\xff\xfe" : "\xc3");
    return text;
  }

  std::string DuplicateKey(std::string text) {
    text.insert(1, "\"action_image\":\"other:1\",");
    return text;
  }

  std::string FlipBytes(std::string text) {
    const std::size_t flips = 1 + Pick(3);
    for (std::size_t i = 0; i < flips && !text.empty(); ++i) {
      text[Pick(text.size())] = static_cast<char>(Pick(256));
    }
    // A flipped byte may be a line break: keep one record per line.
    for (char& c : text) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return text;
  }

  std::string Structure() {
    static const std::vector<std::string> shapes = {
        "[]",
        "{}",
        "null",
        "\"text\"",
        "42",
        std::string(3000, '[') + std::string(3000, ']'),
        "{\"execution_id\": {\"nested\": [1, 2, {\"x\": 1e400}]}}"};
    return shapes[Pick(shapes.size())];
  }

  std::mt19937_64 rng_;
  double now_ = NowSeconds();
};

struct FuzzInput {
  std::string text;
  std::vector<std::string> good_ids;
  std::int64_t records = 0;  // non-blank lines
};

FuzzInput MakeInput(std::uint64_t seed) {
  LineMaker maker(seed);
  FuzzInput input;
  std::ostringstream out;
  int good = 0;
  int mutated = 0;
  std::mt19937_64 order(seed ^ 0x9e3779b97f4a7c15ULL);
  while (good < kGoodLines || mutated < kMutatedLines) {
    const bool take_good = mutated >= kMutatedLines || (good < kGoodLines && order() % 3 == 0);
    std::string line;
    if (take_good) {
      const std::string id = "good-" + std::to_string(good++);
      line = maker.Good(id).dump();
      input.good_ids.push_back(id);
    } else {
      line = maker.Mutated("mut-" + std::to_string(mutated++));
      for (char& c : line) {
        if (c == '\n' || c == '\r') c = ' ';
      }
    }
    bool blank = true;
    for (char c : line) blank = blank && (c == ' ' || c == '\t');
    if (!blank) ++input.records;
    out << line << '\n';
  }
  input.text = out.str();
  return input;
}

void RegisterExamplePools(const std::string& store_path) {
  const auto imported = RunCli("pools import " + ShellQuote(store_path) + " " +
                               ShellQuote(hwrec::test::SourcePath("examples/pools.jsonl")));
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);
}

std::set<std::string> StoredIds(SQLite::Database& db) {
  std::set<std::string> ids;
  SQLite::Statement query(db, "SELECT execution_id FROM observations");
  while (query.executeStep()) ids.insert(query.getColumn(0).getString());
  return ids;
}

void CheckFinite(double value, const std::string& what) {
  INFO(what << " = " << value);
  CHECK(std::isfinite(value));
}

// Every figure of every workload on every pool is finite, with confidence in [0, 1].
void CheckFiguresFinite(hwrec::Store& store) {
  auto pools = hwrec::ListNodePools(store);
  REQUIRE(pools.ok());
  const auto opened = hwrec::RecommendationQuery::Open(store).value();
  hwrec::RecommendationQuery& query = *opened;
  for (const std::string& image : Images()) {
    for (const hwrec::NodePool& pool : *pools) {
      auto recommendation = query.Recommend(image, hwrec::HardwareKey::Of(pool));
      INFO(image << " on " << pool.node_pool_id << ": " << recommendation.status().ToString());
      REQUIRE(recommendation.ok());
      for (const hwrec::Figure& figure : recommendation->figures) {
        const std::string name = image + " " + std::string(hwrec::ToString(figure.kind));
        if (figure.value) CheckFinite(*figure.value, name + " value");
        if (figure.lower) CheckFinite(*figure.lower, name + " lower");
        if (figure.upper) CheckFinite(*figure.upper, name + " upper");
        CheckFinite(figure.confidence, name + " confidence");
        CHECK(figure.confidence >= 0);
        CHECK(figure.confidence <= 1);
      }
    }
  }
}

// The store passes integrity_check and holds no non-finite number.
void CheckStoreSound(SQLite::Database& db) {
  CHECK(db.execAndGet("PRAGMA integrity_check").getString() == "ok");
  SQLite::Statement tables(db,
                           "SELECT name FROM sqlite_schema WHERE type = 'table' "
                           "AND name NOT LIKE 'sqlite_%'");
  while (tables.executeStep()) {
    const std::string table = tables.getColumn(0).getString();
    SQLite::Statement columns(db, "SELECT name FROM pragma_table_info(?)");
    columns.bind(1, table);
    while (columns.executeStep()) {
      const std::string column = columns.getColumn(0).getString();
      // Names come from the schema itself, quoted as identifiers.
      const std::string sql = "SELECT count(*) FROM \"" + table + "\" WHERE typeof(\"" + column +
                              "\") = 'real' AND (\"" + column + "\" != \"" + column +
                              "\" OR abs(\"" + column + "\") > 1.7976931348623157e308)";
      INFO(table << "." << column);
      CHECK(db.execAndGet(sql).getInt64() == 0);
    }
  }
}

}  // namespace

TEST_CASE("ingest fuzz: mutated lines never cost a good line, a finite figure or the file",
          "[ingest][fuzz]") {
  const std::uint64_t seed = FuzzSeed();
  std::cout << "ingest fuzz seed: " << seed << " (replay with HWREC_FUZZ_SEED=" << seed << ")\n";
  INFO("seed " << seed);
  const FuzzInput input = MakeInput(seed);
  TempDir dir;

  SECTION("through the Ingestor, in small batches") {
    const std::string path = dir.File("fuzz.db");
    REQUIRE(RunCli("init " + ShellQuote(path)).exit_code == 0);
    RegisterExamplePools(path);
    auto store = hwrec::test::OpenStoreOrFail(path);
    hwrec::IngestOptions options;
    options.batch_size = 97;
    const auto ingestor_owner = hwrec::Ingestor::Open(*store, options).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    std::istringstream in(input.text);
    auto summary = ingestor.IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    CHECK(summary->accepted + summary->duplicates + summary->conflicts + summary->rejected ==
          input.records);
    CHECK(summary->rejected > 0);
    SQLite::Database& db = hwrec::internal::StoreAccess::Db(*store);
    const std::set<std::string> stored = StoredIds(db);
    std::int64_t missing = 0;
    for (const std::string& id : input.good_ids) missing += stored.count(id) == 0 ? 1 : 0;
    CHECK(missing == 0);
    CheckFiguresFinite(*store);
    CheckStoreSound(db);
    auto rebuilt = hwrec::RebuildRecommendations(*store);
    INFO(rebuilt.status().ToString());
    REQUIRE(rebuilt.ok());
    CheckFiguresFinite(*store);
    CheckStoreSound(db);
  }

  SECTION("through hwrec ingest") {
    const std::string path = dir.File("fuzz-cli.db");
    const std::string lines = dir.File("fuzz.jsonl");
    hwrec::test::WriteFile(lines, input.text);
    REQUIRE(RunCli("init " + ShellQuote(path)).exit_code == 0);
    RegisterExamplePools(path);
    const auto ingested =
        RunCli("ingest " + ShellQuote(path) + " " + ShellQuote(lines) + " --format json");
    INFO(ingested.err.substr(0, 2000));
    CHECK(ingested.exit_code == 3);  // done, with rejects reported
    const auto report = nlohmann::json::parse(ingested.out, nullptr, false);
    REQUIRE_FALSE(report.is_discarded());
    CHECK(report.at("accepted").get<std::int64_t>() + report.at("duplicates").get<std::int64_t>() +
              report.at("conflicts").get<std::int64_t>() +
              report.at("rejected").get<std::int64_t>() ==
          input.records);
    auto store = hwrec::test::OpenStoreOrFail(path);
    SQLite::Database& db = hwrec::internal::StoreAccess::Db(*store);
    const std::set<std::string> stored = StoredIds(db);
    std::int64_t missing = 0;
    for (const std::string& id : input.good_ids) missing += stored.count(id) == 0 ? 1 : 0;
    CHECK(missing == 0);
    CheckFiguresFinite(*store);
    CheckStoreSound(db);
    const auto table = RunCli("ingest " + ShellQuote(path) + " " + ShellQuote(lines));
    CHECK(table.exit_code == 3);
  }
}
