// The promises of the recommendation engine (DESIGN §3, §6): figures learned
// per hardware key, fallbacks with provenance, decay, OOM bumps, and a
// materialised table that answers like a fresh query (transferred figures
// are read, never materialised).
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>

#include <fstream>
#include <map>

#include "base/time.h"
#include "hwrec/check.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/recommend.h"
#include "hwrec/refresh.h"
#include "store/database.h"
#include "test_support.h"

using hwrec::FigureKind;
using hwrec::HardwareKey;
using hwrec::Observation;
using hwrec::Provenance;

namespace {

constexpr double kNow = 1795968000;  // 2026-11-29
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

hwrec::NodePool Pool(const std::string& id, const std::string& instance_type,
                     std::optional<std::string> model, std::optional<std::string> mode,
                     std::int64_t memory_bytes = 512LL << 30) {
  hwrec::NodePool pool;
  pool.node_pool_id = id;
  pool.site_id = "site-a";
  pool.name = id;
  pool.hardware.instance_type = instance_type;
  pool.hardware.architecture = "x86_64";
  pool.hardware.cpu_millicores = 64000;
  pool.hardware.memory_bytes = memory_bytes;
  pool.hardware.gpu_count = model || mode ? 4 : 0;
  pool.hardware.gpu_total = model || mode ? 4 : 0;
  if (model) pool.hardware.gpu_brand = "NVIDIA";
  pool.hardware.gpu_model = model;
  pool.hardware.gpu_mode = mode;
  return pool;
}

Observation Exec(const std::string& id, const std::string& image, const std::string& pool,
                 double finished_at) {
  Observation o;
  o.execution_id = id;
  o.action_image = image;
  o.finished_at = finished_at;
  o.node_pool_id = pool;
  return o;
}

struct Fixture {
  Fixture() : store(hwrec::test::OpenStoreOrFail(location)) {
    for (const auto& pool :
         {Pool("a100-mig", "a2-ultragpu-1g", "A100 80GB", "mig-3g.40gb"),
          Pool("a30-mig", "on-prem-a30", "A30", "mig-2g.12gb"),
          Pool("h100", "a3-highgpu-1g", "H100 80GB", "full"),
          Pool("cpu-a", "n2-standard-32", std::nullopt, std::nullopt, 128LL << 30),
          Pool("cpu-b", "c3-standard-44", std::nullopt, std::nullopt, 176LL << 30),
          Pool("gpu-unknown", "on-prem-gpu", std::nullopt, "mig-3g.20gb")}) {
      auto p = pool;
      if (p.node_pool_id == "gpu-unknown") p.hardware.gpu_brand = "NVIDIA";
      const hwrec::Status s = hwrec::RegisterNodePool(*store, p);
      INFO(s.ToString());
      REQUIRE(s.ok());
    }
  }

  void Ingest(const std::vector<Observation>& batch) {
    const auto ingestor_owner = hwrec::Ingestor::Open(*store).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    auto summary = ingestor.Ingest(batch);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    for (const auto& r : summary->rejects) UNSCOPED_INFO(r.field << ": " << r.reason);
    REQUIRE(summary->rejected == 0);
  }

  hwrec::Recommendation Recommend(const std::string& image, const HardwareKey& key,
                                  double as_of = kNow) {
    const auto opened = hwrec::RecommendationQuery::Open(*store).value();
    hwrec::RecommendationQuery& query = *opened;
    auto r = query.Recommend(image, key, as_of);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    return *r;
  }

  hwrec::Recommendation RecommendForPool(const std::string& image, const std::string& pool,
                                         double as_of = kNow) {
    return Recommend(image, KeyOf(pool), as_of);
  }

  HardwareKey KeyOf(const std::string& pool) {
    auto found = hwrec::FindNodePool(*store, pool);
    REQUIRE(found.ok());
    REQUIRE(found->has_value());
    return HardwareKey::Of(**found);
  }

  // Recommend with Explain::kYes.
  hwrec::Recommendation Explained(const std::string& image, const HardwareKey& key) {
    const auto opened = hwrec::RecommendationQuery::Open(*store).value();
    auto r = opened->Recommend(image, key, kNow, hwrec::Explain::kYes);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    return *r;
  }

  hwrec::store::Connection& db() { return hwrec::store::ConnectionOf(*store); }

  hwrec::test::TempDir dir;
  std::string location = hwrec::test::NewStoreLocation(dir, "rec.db");
  std::unique_ptr<hwrec::Store> store;
};

}  // namespace

TEST_CASE("recommend: compute share is learned per card model, an A30 slice read as 2/4",
          "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 20; ++i) {
    auto a100 = Exec("a100-" + std::to_string(i), "train:1", "a100-mig", kNow - i * 60);
    a100.gpu_utilization = 1.0;
    auto a30 = Exec("a30-" + std::to_string(i), "train:1", "a30-mig", kNow - i * 60);
    a30.gpu_utilization = 1.0;  // no stamped fraction: derived from the catalog
    batch.push_back(a100);
    batch.push_back(a30);
  }
  f.Ingest(batch);
  const auto a100 = f.RecommendForPool("train:1", "a100-mig");
  const auto a30 = f.RecommendForPool("train:1", "a30-mig");
  const auto& a100_share = a100.figure(FigureKind::kGpuComputeFraction);
  const auto& a30_share = a30.figure(FigureKind::kGpuComputeFraction);
  CHECK(a100_share.provenance == Provenance::kExact);
  CHECK(a30_share.provenance == Provenance::kExact);
  CHECK(a100_share.samples == 20);
  // 3/7 = 0.43 and 2/4 = 0.5, each +15 % and rounded up to a 0.05 step.
  CHECK(*a100_share.value == Approx(0.5));
  CHECK(*a30_share.value == Approx(0.6));  // 2/7 would have given 0.35
}

TEST_CASE("recommend: GPU memory travels to another card model, compute share does not",
          "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 10; ++i) {
    auto o = Exec("e" + std::to_string(i), "infer:2", "a100-mig", kNow - i * 600);
    o.gpu_memory_peak_gb = 30.0 + i;
    o.gpu_compute_fraction = 3.0 / 7;
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto h100 = f.RecommendForPool("infer:2", "h100");
  const auto& memory = h100.figure(FigureKind::kGpuMemoryGb);
  CHECK(memory.provenance == Provenance::kWorkloadAnyHardware);
  CHECK(*memory.value == Approx(39.0 * 1.1).margin(0.01));
  CHECK(memory.confidence <
        f.RecommendForPool("infer:2", "a100-mig").figure(FigureKind::kGpuMemoryGb).confidence);
  const auto& share = h100.figure(FigureKind::kGpuComputeFraction);
  CHECK(share.provenance == Provenance::kNone);
  CHECK_FALSE(share.value.has_value());
}

TEST_CASE(
    "recommend: CPU and memory learned on one instance type are not offered for another unless "
    "fallback.cpu_memory_any_hardware allows it",
    "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 10; ++i) {
    auto o = Exec("c" + std::to_string(i), "etl:3", "cpu-a", kNow - i * 600);
    o.cpu_millicores_p95 = 4000;
    o.cpu_millicores_max = 6000;
    o.memory_peak_bytes = static_cast<std::int64_t>(8 * kGiB);
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto same = f.RecommendForPool("etl:3", "cpu-a");
  CHECK(same.figure(FigureKind::kCpuRequestMillicores).provenance == Provenance::kExact);
  CHECK(*same.figure(FigureKind::kCpuRequestMillicores).value == Approx(4600).margin(1));
  CHECK(*same.figure(FigureKind::kCpuLimitMillicores).value == Approx(7800).margin(1));
  CHECK(same.figure(FigureKind::kGpuMemoryGb).provenance == Provenance::kNone);

  const auto other = f.RecommendForPool("etl:3", "cpu-b");
  for (FigureKind kind : {FigureKind::kCpuRequestMillicores, FigureKind::kCpuLimitMillicores,
                          FigureKind::kMemoryBytes}) {
    CHECK(other.figure(kind).provenance == Provenance::kNone);
    CHECK_FALSE(other.figure(kind).value.has_value());
  }

  REQUIRE(hwrec::SetConfig(*f.store, "fallback.cpu_memory_any_hardware", "true").ok());
  const auto opted_in = f.RecommendForPool("etl:3", "cpu-b");
  CHECK(opted_in.figure(FigureKind::kCpuRequestMillicores).provenance ==
        Provenance::kWorkloadAnyHardware);
  CHECK(opted_in.figure(FigureKind::kMemoryBytes).provenance == Provenance::kWorkloadAnyHardware);
  CHECK_FALSE(hwrec::SetConfig(*f.store, "fallback.cpu_memory_any_hardware", "yes").ok());
}

TEST_CASE("recommend: decay makes old peaks weigh less", "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 20; ++i) {
    auto old_run = Exec("old" + std::to_string(i), "job:4", "cpu-a", kNow - 14 * 86400.0);
    old_run.memory_peak_bytes = static_cast<std::int64_t>(40 * kGiB);
    auto new_run = Exec("new" + std::to_string(i), "job:4", "cpu-a", kNow - i * 60);
    new_run.memory_peak_bytes = static_cast<std::int64_t>(4 * kGiB);
    batch.push_back(old_run);
    batch.push_back(new_run);
  }
  f.Ingest(batch);
  const auto recommendation = f.RecommendForPool("job:4", "cpu-a");
  const auto& memory = recommendation.figure(FigureKind::kMemoryBytes);
  // Undecayed, p98 of these peaks would be 40 GiB; decayed it is the recent 4 GiB.
  CHECK(*memory.value < 5 * kGiB);
  CHECK(*memory.value >= 4 * kGiB * 1.15);
  CHECK(memory.samples == 40);
}

TEST_CASE("recommend: an OOM raises memory, capped by the hardware, and never compounds",
          "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 5; ++i) {
    auto o = Exec("ok" + std::to_string(i), "oom:5", "cpu-a", kNow - 3600 - i * 60);
    o.memory_peak_bytes = static_cast<std::int64_t>(10 * kGiB);
    batch.push_back(o);
  }
  f.Ingest(batch);
  const double before =
      *f.RecommendForPool("oom:5", "cpu-a").figure(FigureKind::kMemoryBytes).value;

  auto oom = Exec("oom-1", "oom:5", "cpu-a", kNow - 60);
  oom.status = hwrec::ExecutionStatus::kOom;
  oom.requested.memory_bytes = static_cast<std::int64_t>(12 * kGiB);
  oom.memory_peak_bytes = static_cast<std::int64_t>(12 * kGiB);
  f.Ingest({oom});
  const double after = *f.RecommendForPool("oom:5", "cpu-a").figure(FigureKind::kMemoryBytes).value;
  CHECK(after > before);
  CHECK(after == Approx(12 * kGiB * 1.2 * 1.15).epsilon(0.06));

  auto again = oom;
  again.execution_id = "oom-2";
  again.finished_at = kNow - 30;
  f.Ingest({again});
  const double twice = *f.RecommendForPool("oom:5", "cpu-a").figure(FigureKind::kMemoryBytes).value;
  CHECK(twice == Approx(after).epsilon(0.001));  // 12 GiB x 1.2, not x 1.44

  // cpu-a holds 128 GiB: a bump past it is capped there.
  auto huge = Exec("oom-3", "oom:5b", "cpu-a", kNow);
  huge.status = hwrec::ExecutionStatus::kOom;
  huge.requested.memory_bytes = static_cast<std::int64_t>(120 * kGiB);
  f.Ingest({huge});
  const double capped =
      *f.RecommendForPool("oom:5b", "cpu-a").figure(FigureKind::kMemoryBytes).value;
  CHECK(capped <= 128 * kGiB * 1.15 + 1);
  CHECK(capped >= 120 * kGiB * 1.15);
}

TEST_CASE("recommend: a new oom_bump_factor re-bumps the OOMs already stored",
          "[recommend][engine]") {
  Fixture f;
  auto oom = Exec("oom-1", "oom:6", "cpu-a", kNow - 60);
  oom.status = hwrec::ExecutionStatus::kOom;
  oom.requested.memory_bytes = static_cast<std::int64_t>(12 * kGiB);
  oom.memory_peak_bytes = static_cast<std::int64_t>(12 * kGiB);
  f.Ingest({oom});
  const auto memory = [&] {
    return *f.RecommendForPool("oom:6", "cpu-a").figure(FigureKind::kMemoryBytes).value;
  };
  CHECK(memory() == Approx(12 * kGiB * 1.2 * 1.15).epsilon(0.06));
  REQUIRE(hwrec::SetConfig(*f.store, "oom_bump_factor", "1.5").ok());
  CHECK(memory() == Approx(12 * kGiB * 1.5 * 1.15).epsilon(0.06));
  // The stored aggregates are what the observations give under the new factor.
  const auto report = hwrec::CheckStore(f.location);
  REQUIRE(report.ok());
  for (const auto& check : report->checks) {
    INFO(check.name << ": " << (check.problems.empty() ? "" : check.problems.front()));
    CHECK(check.state != hwrec::CheckState::kProblem);
  }
  CHECK(report->sound());
}

TEST_CASE("recommend: a refresh keeps a GPU of unrecorded brand and model a GPU key",
          "[recommend][engine]") {
  Fixture f;
  REQUIRE(hwrec::RegisterNodePool(*f.store, Pool("gpu-anon", "on-prem-anon", std::nullopt, "full"))
              .ok());
  auto o = Exec("anon-1", "anon:1", "gpu-anon", kNow - 60);
  o.gpu_memory_peak_gb = 10;
  f.Ingest({o});
  // Every materialised row of the key: cpu_only, and whether it has a GPU memory figure.
  const auto rows = [&] {
    std::vector<std::pair<int, bool>> out;
    auto q = f.db().Prepare(
        "SELECT r.cpu_only, r.gpu_memory_gb IS NOT NULL FROM recommendations r "
        "JOIN workloads w ON w.id = r.workload_id "
        "WHERE w.image = 'anon:1' AND r.instance_type = 'on-prem-anon' ORDER BY r.cpu_only");
    while (q->Step()) out.emplace_back(q->Int(0), q->Int(1) != 0);
    return out;
  };
  const std::vector<std::pair<int, bool>> ingested = {{0, true}};
  CHECK(rows() == ingested);
  REQUIRE(hwrec::RefreshRecommendations(*f.store).ok());
  CHECK(rows() == ingested);
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.margin", "0.2").ok());
  CHECK(rows() == ingested);
}

TEST_CASE("recommend: a whole-number setting is read as it was validated (1e1, 0x3)",
          "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 10; ++i) {
    auto o = Exec("w" + std::to_string(i), "whole:1", "cpu-a", kNow - 3600 + i * 60);
    o.cpu_millicores_max = 1000.0 * (10 - i);  // the oldest is the largest
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto limit = [&] {
    return *f.RecommendForPool("whole:1", "cpu-a").figure(FigureKind::kCpuLimitMillicores).value;
  };
  REQUIRE(hwrec::SetConfig(*f.store, "cpu_limit.margin", "0").ok());
  REQUIRE(hwrec::SetConfig(*f.store, "max_range_samples", "1e1").ok());  // all ten
  CHECK(limit() == Approx(10000));
  REQUIRE(hwrec::SetConfig(*f.store, "max_range_samples", "0x3").ok());  // the last three
  CHECK(limit() == Approx(3000));
}

TEST_CASE("recommend: an unknown-model pool reads the unknown population, never a guess",
          "[recommend][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 10; ++i) {
    auto known = Exec("k" + std::to_string(i), "mixed:6", "a100-mig", kNow - i * 60);
    known.gpu_utilization = 1.0;
    auto unknown = Exec("u" + std::to_string(i), "mixed:6", "gpu-unknown", kNow - i * 60);
    unknown.gpu_utilization = 0.5;
    batch.push_back(known);
    batch.push_back(unknown);
  }
  f.Ingest(batch);
  const auto r = f.RecommendForPool("mixed:6", "gpu-unknown");
  const auto& share = r.figure(FigureKind::kGpuComputeFraction);
  CHECK(share.provenance == Provenance::kExact);
  CHECK(share.samples == 10);
  // mig-3g.* on an unknown card is assumed 3/7; half of it was busy.
  CHECK(*share.value == Approx(0.25));
}

// Thirty executions of two workloads on three pools, numbered from `first`.
std::vector<Observation> MaterialBatch(int first) {
  std::vector<Observation> batch;
  for (int i = first; i < first + 30; ++i) {
    const char* pools[] = {"a100-mig", "a30-mig", "cpu-a"};
    auto o =
        Exec("m" + std::to_string(i), i % 2 == 0 ? "mat:7" : "mat:8", pools[i % 3], kNow - i * 300);
    o.cpu_millicores_p95 = 1000 + 37 * i;
    o.memory_peak_bytes = static_cast<std::int64_t>((2 + i % 5) * kGiB);
    if (i % 3 != 2) o.gpu_memory_peak_gb = 5.0 + i % 4;
    batch.push_back(o);
  }
  return batch;
}

// Each materialised figure equals what a query at its row's as_of answers,
// but for a transferred one: it is computed when read, never materialised
// (the row holds what the figure falls back to). Returns the figures compared.
int CheckMaterialisedEqualsFresh(Fixture& f) {
  auto rows = f.db().Prepare(
      "SELECT workload, gpu_brand, gpu_model, instance_type, figure, value, "
      "provenance, samples, confidence, cpu_only FROM v_recommendations");
  // The row's own as_of, as the view shows it only as text.
  auto as_of = f.db().Prepare(
      "SELECT r.as_of FROM recommendations r JOIN workloads w ON w.id = r.workload_id "
      "WHERE w.image = ? AND r.gpu_brand = ? AND r.gpu_model = ? AND r.instance_type = ? "
      "AND r.cpu_only = ?");
  int checked = 0;
  while (rows->Step()) {
    HardwareKey key;
    key.gpu_brand = rows->OptionalText(1);
    key.gpu_model = rows->OptionalText(2);
    key.instance_type = rows->OptionalText(3);
    key.cpu_only = rows->Int(9) != 0;
    const std::string figure = rows->String(4);
    const std::string workload = rows->String(0);
    as_of->Reset();
    as_of->Bind(1, workload);
    as_of->Bind(2, key.gpu_brand.value_or(""));
    as_of->Bind(3, key.gpu_model.value_or(""));
    as_of->Bind(4, key.instance_type.value_or(""));
    as_of->Bind(5, rows->Int64(9));
    REQUIRE(as_of->Step());
    const auto fresh = f.Recommend(workload, key, as_of->Double(0));
    for (const auto& fig : fresh.figures) {
      if (std::string(hwrec::ToString(fig.kind)) != figure) continue;
      if (fig.provenance == Provenance::kTransferred) continue;
      INFO(workload << " " << figure);
      CHECK(std::string(hwrec::ToString(fig.provenance)) == rows->String(6));
      CHECK(fig.samples == rows->Int64(7));
      if (fig.value) {
        CHECK(*fig.value == Approx(rows->Double(5)));
      } else {
        CHECK(rows->IsNull(5));
      }
      ++checked;
    }
  }
  return checked;
}

TEST_CASE("recommend: the materialised table equals a fresh query", "[recommend][engine]") {
  Fixture f;
  f.Ingest(MaterialBatch(0));
  auto refreshed = hwrec::RefreshRecommendations(*f.store);
  REQUIRE(refreshed.ok());
  CHECK(*refreshed >= 6);
  CHECK(CheckMaterialisedEqualsFresh(f) >= 30);
}

TEST_CASE("recommend: the figures ingest materialises equal a fresh query", "[recommend][engine]") {
  // Ingest makes them from the aggregate states it has just written, kept by
  // one Ingestor between calls, one record or a batch at a time.
  Fixture f;
  auto ingestor = hwrec::Ingestor::Open(*f.store);
  REQUIRE(ingestor.ok());
  for (const Observation& o : MaterialBatch(0)) REQUIRE((*ingestor)->Ingest({o}).ok());
  REQUIRE((*ingestor)->Ingest(MaterialBatch(30)).ok());
  CHECK(CheckMaterialisedEqualsFresh(f) >= 30);
}

TEST_CASE("recommend: settings are validated and change the figures", "[recommend][engine]") {
  Fixture f;
  CHECK_FALSE(hwrec::SetConfig(*f.store, "memory.statistic", "p97").ok());
  CHECK_FALSE(hwrec::SetConfig(*f.store, "half_life_hours", "-1").ok());
  const auto unknown = hwrec::SetConfig(*f.store, "no_such_key", "1");
  CHECK_THAT(unknown.message(), Catch::Contains("hwrec config list"));

  std::vector<Observation> batch;
  for (int i = 0; i < 10; ++i) {
    auto o = Exec("s" + std::to_string(i), "set:9", "cpu-a", kNow - i * 60);
    o.cpu_millicores_p95 = 1000.0 * (i + 1);
    batch.push_back(o);
  }
  f.Ingest(batch);
  REQUIRE(hwrec::SetConfig(*f.store, "cpu_request.statistic", "max").ok());
  REQUIRE(hwrec::SetConfig(*f.store, "cpu_request.margin", "0").ok());
  const auto r = f.RecommendForPool("set:9", "cpu-a");
  CHECK(*r.figure(FigureKind::kCpuRequestMillicores).value == Approx(10000));
  auto entry = hwrec::GetConfig(*f.store, "cpu_request.statistic");
  REQUIRE(entry.ok());
  CHECK(entry->value == "max");
  CHECK(entry->default_value == "p95");
}

TEST_CASE("recommend: a query kept open reads history and settings as they are at each call",
          "[recommend][engine]") {
  Fixture f;
  const auto key = [&] {
    auto found = hwrec::FindNodePool(*f.store, "cpu-a");
    REQUIRE(found.ok());
    REQUIRE(found->has_value());
    return HardwareKey::Of(**found);
  }();
  const auto opened = hwrec::RecommendationQuery::Open(*f.store).value();
  hwrec::RecommendationQuery& kept = *opened;
  auto read = [&] {
    auto r = kept.Recommend("kept:1", key, kNow);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    return r->figure(FigureKind::kCpuRequestMillicores);
  };
  const auto cpu_runs = [&](const std::string& prefix, double cpu) {
    std::vector<Observation> batch;
    for (int i = 0; i < 5; ++i) {
      auto o = Exec(prefix + std::to_string(i), "kept:1", "cpu-a", kNow - i * 60);
      o.cpu_millicores_p95 = cpu;
      o.cpu_millicores_max = cpu;
      batch.push_back(o);
    }
    f.Ingest(batch);
  };

  CHECK(read().provenance == Provenance::kNone);  // the workload is not known yet
  cpu_runs("k", 1000);
  const auto first = read();
  CHECK(first.provenance == Provenance::kExact);
  CHECK(first.samples == 5);
  CHECK(*first.value == Approx(1150));  // p95 with the default 15 % margin

  cpu_runs("m", 2000);
  const auto second = read();
  CHECK(second.samples == 10);
  CHECK(*second.value == Approx(2300));

  REQUIRE(hwrec::SetConfig(*f.store, "cpu_request.margin", "0").ok());
  const auto third = read();
  CHECK(third.margin == 0);
  CHECK(*third.value == Approx(2000));
  CHECK(*third.value ==
        Approx(*f.Recommend("kept:1", key).figure(FigureKind::kCpuRequestMillicores).value));

  // Another connection (another process, say) commits a change: seen too.
  {
    auto other = hwrec::test::OpenStoreOrFail(f.location);
    REQUIRE(hwrec::SetConfig(*other, "cpu_request.margin", "0.5").ok());
  }
  const auto fourth = read();
  CHECK(fourth.margin == Approx(0.5));
  CHECK(*fourth.value == Approx(3000));
  // Unchanged since: the same figures from the settings already read.
  CHECK(*read().value == Approx(3000));

  // Another connection records more history, of this workload and of one the
  // query was asked about before it had any: both seen at the next call.
  auto unknown = kept.Recommend("kept:2", key, kNow);
  REQUIRE(unknown.ok());
  CHECK(unknown->figure(FigureKind::kCpuRequestMillicores).provenance == Provenance::kNone);
  {
    auto other = hwrec::test::OpenStoreOrFail(f.location);
    std::vector<Observation> batch;
    for (int i = 0; i < 5; ++i) {
      for (const char* image : {"kept:1", "kept:2"}) {
        auto o = Exec(std::string("o") + image + std::to_string(i), image, "cpu-a", kNow - i * 60);
        o.cpu_millicores_p95 = 4000;
        o.cpu_millicores_max = 4000;
        batch.push_back(o);
      }
    }
    auto ingestor = hwrec::Ingestor::Open(*other).value();
    REQUIRE(ingestor->Ingest(batch).ok());
  }
  const auto fifth = read();
  CHECK(fifth.samples == 15);
  CHECK(*fifth.value == Approx(6000));
  auto known = kept.Recommend("kept:2", key, kNow);
  REQUIRE(known.ok());
  CHECK(known->figure(FigureKind::kCpuRequestMillicores).provenance == Provenance::kExact);
}

namespace {

// One GenAI pod's GPU memory series: (timestamp, bytes).
using Series = std::vector<std::pair<double, double>>;

// Reads the largest pod series of the public GenAI trace through `tar`; empty
// when the shared data folder is absent.
std::vector<Series> LargestGenAiSeries(std::size_t count) {
  const std::string archive =
      hwrec::test::SharedDataPath("alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.tar.gz");
  if (!std::ifstream(archive).good()) return {};
  FILE* pipe = popen(("tar -xzOf " + hwrec::test::ShellQuote(archive)).c_str(), "r");
  if (pipe == nullptr) return {};
  std::map<std::string, Series> by_pod;
  char buffer[512];
  bool header = true;
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    if (header) {
      header = false;
      continue;
    }
    double t = 0;
    double v = 0;
    char pod[128] = {0};
    if (std::sscanf(buffer, "%lf,%lf,%127s", &t, &v, pod) == 3 && v > 0) {
      by_pod[pod].emplace_back(t, v);
    }
  }
  pclose(pipe);
  std::vector<Series> all;
  for (auto& [pod, series] : by_pod) all.push_back(std::move(series));
  std::sort(all.begin(), all.end(),
            [](const Series& a, const Series& b) { return a.size() > b.size(); });
  if (all.size() > count) all.resize(count);
  return all;
}

double ExactDecayedPercentile(const Series& series, double q, double half_life_s) {
  const double last = series.back().first;
  std::vector<std::pair<double, double>> weighted;  // (value, weight)
  double total = 0;
  for (const auto& [t, v] : series) {
    const double w = std::exp2((t - last) / half_life_s);
    weighted.emplace_back(v, w);
    total += w;
  }
  std::sort(weighted.begin(), weighted.end());
  double cumulative = 0;
  for (const auto& [v, w] : weighted) {
    cumulative += w;
    if (cumulative >= q * total) return v;
  }
  return weighted.back().first;
}

}  // namespace

TEST_CASE("recommend: percentiles on a real GenAI series stay within 5 % of exact",
          "[recommend][real-data][engine]") {
  const auto pods = LargestGenAiSeries(3);
  if (pods.empty()) {
    WARN("skipped: ../shared/data/alibaba-genai-v2026 is absent");
    return;
  }
  Fixture f;
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.statistic", "p95").ok());
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.margin", "0").ok());
  // Each pod series is one workload; the hardware key (the H100 pool) is
  // assigned by this test: the trace has no GPU model column.
  for (std::size_t p = 0; p < pods.size(); ++p) {
    Series series = pods[p];
    std::sort(series.begin(), series.end());
    std::vector<Observation> batch;
    for (std::size_t i = 0; i < series.size(); ++i) {
      auto o = Exec(fmt::format("genai-{}-{}", p, i), fmt::format("genai:{}", p), "h100",
                    series[i].first);
      o.gpu_memory_peak_gb = series[i].second / 1e9;
      batch.push_back(o);
    }
    f.Ingest(batch);
    const auto r = f.RecommendForPool(fmt::format("genai:{}", p), "h100", series.back().first);
    const auto& memory = r.figure(FigureKind::kGpuMemoryGb);
    const double exact = ExactDecayedPercentile(series, 0.95, 12 * 3600.0) / 1e9;
    INFO("pod " << p << ": " << series.size() << " samples, exact p95 " << exact << " GB, ours "
                << *memory.value);
    CHECK(memory.samples == static_cast<std::int64_t>(series.size()));
    CHECK(*memory.value >= exact * 0.95);
    CHECK(*memory.value <= exact * 1.05 + 0.01);
  }
}

TEST_CASE("recommend: an aggregate's sample count and last run add up over ingests",
          "[recommend][engine]") {
  Fixture f;
  for (const std::string prefix : {"first-", "second-"}) {
    std::vector<Observation> batch;
    for (int i = 0; i < 5; ++i) {
      auto o = Exec(prefix + std::to_string(i), "counted:1", "cpu-a",
                    kNow - (prefix == "first-" ? 3600 : 0) - i * 60);
      o.cpu_millicores_p95 = 1000;
      batch.push_back(o);
    }
    f.Ingest(batch);
  }
  auto q = f.db().Prepare(
      "SELECT a.scope, a.samples, a.last_finished_at FROM aggregates a JOIN "
      "workloads w ON w.id = a.workload_id WHERE w.image = 'counted:1'");
  int keys = 0;
  while (q->Step()) {
    ++keys;
    INFO(q->String(0));
    CHECK(q->Int64(1) == 10);
    CHECK(q->Double(2) == kNow);
  }
  CHECK(keys == 4);  // exact, gpu_model, instance_type, any
}

namespace {

// Six executions of `image` on cpu-a, ten minutes apart, the last at `newest`.
std::vector<Observation> SixRuns(const std::string& image, double newest) {
  std::vector<Observation> batch;
  for (int i = 0; i < 6; ++i) {
    auto o = Exec(image + "-" + std::to_string(i), image, "cpu-a", newest - i * 600);
    o.cpu_millicores_p95 = 1000 + 100 * i;
    o.cpu_millicores_max = 2000 + 100 * i;
    o.memory_peak_bytes = static_cast<std::int64_t>((4 + i) * kGiB);
    batch.push_back(o);
  }
  return batch;
}

}  // namespace

TEST_CASE("recommend: six executions a week ago and six an hour ago give the same confidence",
          "[recommend][confidence][engine]") {
  Fixture f;
  f.Ingest(SixRuns("week-old:1", kNow - 7 * 86400.0));
  f.Ingest(SixRuns("hour-old:1", kNow - 3600));
  const auto week_old = f.RecommendForPool("week-old:1", "cpu-a");
  const auto hour_old = f.RecommendForPool("hour-old:1", "cpu-a");
  const auto year_later = f.RecommendForPool("week-old:1", "cpu-a", kNow + 365 * 86400.0);
  for (std::size_t k = 0; k < 3; ++k) {  // CPU request, CPU limit, memory
    INFO(hwrec::ToString(week_old.figures[k].kind));
    CHECK(week_old.figures[k].provenance == Provenance::kExact);
    CHECK(week_old.figures[k].confidence == Approx(hour_old.figures[k].confidence));
    CHECK(year_later.figures[k].confidence == Approx(hour_old.figures[k].confidence));
    // Six runs within an hour weigh almost alike: about six executions of evidence.
    CHECK(hour_old.figures[k].confidence > 5.5 / 10.5);
    CHECK(hour_old.figures[k].confidence <= 6.0 / 11.0 + 1e-12);
  }
}

TEST_CASE("recommend: one execution never reads above 1/(1+5) confidence, however recent",
          "[recommend][confidence][engine]") {
  Fixture f;
  auto single = SixRuns("single:1", kNow);
  single.resize(1);
  f.Ingest(single);
  const double years = 10 * 365.25 * 86400;
  for (double as_of :
       {kNow, kNow - 30 * 86400.0, kNow + 30 * 86400.0, kNow - years, kNow + years}) {
    const auto r = f.RecommendForPool("single:1", "cpu-a", as_of);
    const auto& cpu = r.figure(FigureKind::kCpuRequestMillicores);
    INFO("as of " << hwrec::internal::FormatRfc3339(as_of));
    CHECK(cpu.provenance == Provenance::kExact);
    CHECK(std::isfinite(cpu.confidence));
    CHECK(cpu.confidence == Approx(1.0 / 6.0));
    CHECK(cpu.confidence <= 1.0 / 6.0 + 1e-12);
  }
}

TEST_CASE("recommend: decay weighs samples against each other, so old evidence counts less",
          "[recommend][confidence][engine]") {
  Fixture f;
  // Five runs a week before one recent run: the recent one dominates, so the
  // evidence is about one execution, not six.
  auto batch = SixRuns("mixed-age:1", kNow - 7 * 86400.0);
  batch[0].finished_at = kNow;
  f.Ingest(batch);
  const auto recommendation = f.RecommendForPool("mixed-age:1", "cpu-a");
  const auto& cpu = recommendation.figure(FigureKind::kCpuRequestMillicores);
  CHECK(cpu.samples == 6);
  CHECK(cpu.confidence == Approx(1.0 / 6.0).epsilon(1e-3));
}

TEST_CASE("recommend: a huge GPU memory peak never fails a later batch or a rebuild",
          "[recommend][extreme][engine]") {
  Fixture f;
  auto near_zero = Exec("tiny", "huge:1", "a100-mig", kNow - 7200);
  near_zero.gpu_memory_peak_gb = 1e-300;
  auto huge = Exec("huge", "huge:1", "a100-mig", kNow - 3600);
  huge.gpu_memory_peak_gb = 1e307;  // validation may reject it: the store must cope either way
  auto huge_oom = Exec("huge-oom", "huge:1", "h100", kNow - 1800);
  huge_oom.status = hwrec::ExecutionStatus::kGpuOom;
  huge_oom.gpu_memory_peak_gb = 1e307;
  huge_oom.requested.gpu_memory_gb = 1e307;
  {
    const auto ingestor_owner = hwrec::Ingestor::Open(*f.store).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    auto first = ingestor.Ingest({near_zero, huge, huge_oom});
    INFO(first.status().ToString());
    REQUIRE(first.ok());
    CHECK(first->accepted >= 1);
  }
  auto later = Exec("later", "huge:1", "a100-mig", kNow - 60);
  later.gpu_memory_peak_gb = 20;
  f.Ingest({later});
  auto rebuilt = hwrec::RebuildRecommendations(*f.store);
  INFO(rebuilt.status().ToString());
  REQUIRE(rebuilt.ok());
  for (const char* pool : {"a100-mig", "h100", "a30-mig"}) {
    for (const auto& figure : f.RecommendForPool("huge:1", pool).figures) {
      INFO(pool << " " << hwrec::ToString(figure.kind));
      CHECK(std::isfinite(figure.confidence));
      for (const auto& v : {figure.value, figure.lower, figure.upper}) {
        if (v) CHECK(std::isfinite(*v));
      }
    }
  }
}

TEST_CASE("recommend: each figure reports the time of its newest sample, in the view too",
          "[recommend][confidence][engine]") {
  Fixture f;
  auto batch = SixRuns("seen:1", kNow - 3600);
  batch[2].memory_peak_bytes.reset();  // memory's newest sample is then the run before it
  batch[0].memory_peak_bytes.reset();
  batch[1].finished_at = kNow - 100 * 86400.0;  // an old run arriving late does not move it
  f.Ingest(batch);
  const auto r = f.RecommendForPool("seen:1", "cpu-a");
  REQUIRE(r.figure(FigureKind::kCpuRequestMillicores).last_seen.has_value());
  CHECK(*r.figure(FigureKind::kCpuRequestMillicores).last_seen == kNow - 3600);
  CHECK(*r.figure(FigureKind::kMemoryBytes).last_seen == kNow - 3600 - 3 * 600);
  CHECK_FALSE(r.figure(FigureKind::kGpuMemoryGb).last_seen.has_value());

  auto rows = f.db().Prepare(
      "SELECT figure, last_seen FROM v_recommendations WHERE workload = "
      "'seen:1' AND instance_type = 'n2-standard-32' AND gpu_model IS NULL");
  std::map<std::string, std::string> seen;
  while (rows->Step()) seen[rows->String(0)] = rows->OptionalText(1).value_or("null");
  CHECK(seen["cpu_request_millicores"] == hwrec::internal::FormatRfc3339(kNow - 3600));
  CHECK(seen["memory_bytes"] == hwrec::internal::FormatRfc3339(kNow - 3600 - 3 * 600));
  CHECK(seen["gpu_memory_gb"] == "null");
}

TEST_CASE("recommend: a stored state with a non-finite number is reported corrupt and rebuilt",
          "[recommend][extreme][engine]") {
  Fixture f;
  f.Ingest(SixRuns("corrupt:1", kNow - 3600));
  {
    auto read = f.db().Prepare(
        "SELECT a.state FROM aggregates a JOIN workloads w ON w.id = "
        "a.workload_id WHERE w.image = 'corrupt:1' AND a.scope = 'exact'");
    REQUIRE(read->Step());
    std::string blob(read->Blob(0));
    read->Reset();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(&blob[1], &nan, sizeof nan);  // the first metric's unit, after its version byte
    auto write = f.db().Prepare(
        "UPDATE aggregates SET state = ? WHERE scope = 'exact' AND "
        "workload_id = (SELECT id FROM workloads WHERE image = 'corrupt:1')");
    write->BindBlob(1, blob);
    REQUIRE(write->Run() == 1);
  }
  auto found = hwrec::FindNodePool(*f.store, "cpu-a");
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  {
    const auto opened = hwrec::RecommendationQuery::Open(*f.store).value();
    hwrec::RecommendationQuery& query = *opened;
    const auto broken = query.Recommend("corrupt:1", HardwareKey::Of(**found), kNow);
    REQUIRE_FALSE(broken.ok());
    CHECK_THAT(broken.status().message(), Catch::Contains("hwrec refresh --rebuild"));
  }
  auto rebuilt = hwrec::RebuildRecommendations(*f.store);
  INFO(rebuilt.status().ToString());
  REQUIRE(rebuilt.ok());
  const auto recommendation = f.RecommendForPool("corrupt:1", "cpu-a");
  const auto& cpu = recommendation.figure(FigureKind::kCpuRequestMillicores);
  CHECK(cpu.provenance == Provenance::kExact);
  CHECK(std::isfinite(cpu.confidence));
}

namespace {

// The reason of `kind` in `r`, which must have one.
const hwrec::FigureReason& Why(const hwrec::Recommendation& r, FigureKind kind) {
  const auto& reason = r.figure(kind).reason;
  REQUIRE(reason.has_value());
  return *reason;
}

Observation GpuRun(const std::string& id, const std::string& image, const std::string& pool,
                   double finished_at, double peak_gb) {
  auto o = Exec(id, image, pool, finished_at);
  o.gpu_memory_peak_gb = peak_gb;
  return o;
}

}  // namespace

TEST_CASE("recommend --explain: max of last 10 names the execution that set it, then the next",
          "[recommend][explain][engine]") {
  Fixture f;
  std::vector<Observation> batch = {GpuRun("e-0", "explain:1", "h100", kNow - 20 * 600, 31.2)};
  for (int i = 1; i < 10; ++i) {
    batch.push_back(GpuRun("e-" + std::to_string(i), "explain:1", "h100", kNow - (20 - i) * 600,
                           i == 4 ? 29.5 : 20.0 + i * 0.1));
  }
  f.Ingest(batch);
  const auto first = f.Explained("explain:1", f.KeyOf("h100"));
  const auto& gpu = first.figure(FigureKind::kGpuMemoryGb);
  const auto& why = Why(first, FigureKind::kGpuMemoryGb);
  CHECK(why.source == hwrec::FigureReason::Source::kMaxOfRecent);
  CHECK(why.statistic == "max of last 10");
  CHECK(why.execution_id == "e-0");
  CHECK(why.finished_at == kNow - 20 * 600);
  CHECK(why.status == "success");
  CHECK_FALSE(why.oom_factor.has_value());
  CHECK(why.statistic_value == 31.2);
  CHECK(why.margin == Approx(0.10));
  CHECK(why.with_margin == Approx(34.32));
  CHECK(why.value == *gpu.value);
  CHECK(why.value == Approx(34.32));  // 34.32 is on the 0.01 step already
  CHECK(
      why.text ==
      "max of last 10 = 31.2 GiB, set by execution e-0 (2026-11-29T12:40:00Z); +10 % = 34.32 GiB; "
      "rounded up to 0.01 GiB: 34.32 GiB");

  // An eleventh execution pushes e-0 out of the last 10: the next largest sets the max.
  f.Ingest({GpuRun("e-10", "explain:1", "h100", kNow - 600, 21.0)});
  const auto second = f.Explained("explain:1", f.KeyOf("h100"));
  CHECK(Why(second, FigureKind::kGpuMemoryGb).execution_id == "e-4");
  CHECK(Why(second, FigureKind::kGpuMemoryGb).statistic_value == 29.5);
  CHECK(*second.figure(FigureKind::kGpuMemoryGb).value == Approx(32.45));

  // Without Explain::kYes no figure carries a reason.
  for (const auto& figure : f.RecommendForPool("explain:1", "h100").figures) {
    CHECK_FALSE(figure.reason.has_value());
  }
}

TEST_CASE("recommend --explain: a max set by an OOM shows the bump it got",
          "[recommend][explain][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 5; ++i) {
    batch.push_back(GpuRun("ok-" + std::to_string(i), "explain:oom", "h100", kNow - 3600 + i, 12));
  }
  auto oom = GpuRun("e-9", "explain:oom", "h100", kNow - 60, 15.0);
  oom.status = hwrec::ExecutionStatus::kGpuOom;
  oom.requested.gpu_memory_gb = 16;
  batch.push_back(oom);
  f.Ingest(batch);
  const auto r = f.Explained("explain:oom", f.KeyOf("h100"));
  const auto& why = Why(r, FigureKind::kGpuMemoryGb);
  CHECK(why.execution_id == "e-9");
  CHECK(why.status == "gpu_oom");
  REQUIRE(why.oom_factor.has_value());
  CHECK(*why.oom_factor == Approx(1.2));
  CHECK(why.oom_applied_to == "requested");
  CHECK(*why.oom_base == 16);
  CHECK(why.statistic_value == Approx(19.2));
  CHECK_THAT(why.text, Catch::Contains("set by OOM execution e-9 (") &&
                           Catch::Contains("requested 16 GiB × 1.2 = 19.2 GiB; +10 % = 21.12 GiB"));
  CHECK(why.value == *r.figure(FigureKind::kGpuMemoryGb).value);
}

TEST_CASE("recommend --explain: a percentile names its bucket and the share of history below it",
          "[recommend][explain][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  std::vector<std::pair<double, double>> peaks;  // (finished_at, bytes)
  for (int i = 0; i < 60; ++i) {
    auto o = Exec("m-" + std::to_string(i), "explain:p98", "cpu-a", kNow - i * 900);
    const double bytes = (1.0 + 0.013 * i + (i % 7) * 0.05) * kGiB;
    o.memory_peak_bytes = static_cast<std::int64_t>(bytes);
    peaks.emplace_back(o.finished_at, static_cast<double>(*o.memory_peak_bytes));
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto r = f.Explained("explain:p98", f.KeyOf("cpu-a"));
  const auto& why = Why(r, FigureKind::kMemoryBytes);
  CHECK(why.source == hwrec::FigureReason::Source::kPercentile);
  CHECK(why.statistic == "p98");
  REQUIRE(why.bucket_lower.has_value());
  REQUIRE(why.bucket_upper.has_value());
  CHECK(*why.bucket_lower < why.statistic_value);
  CHECK(why.statistic_value <= *why.bucket_upper);
  CHECK(*why.bucket_upper / *why.bucket_lower <= 1.05 + 1e-9);
  // The decayed share, computed here from the executions: weights halve every 12 h.
  double below_upper = 0, below_lower = 0, total = 0;
  for (const auto& [time, bytes] : peaks) {
    const double w = std::exp2((time - kNow) / (12 * 3600.0));
    total += w;
    if (bytes <= *why.bucket_upper) below_upper += w;
    if (bytes <= *why.bucket_lower) below_lower += w;
  }
  CHECK(*why.share_at_or_below == Approx(below_upper / total).epsilon(1e-6));
  CHECK(*why.share_at_or_below >= 0.98);
  CHECK(below_lower / total < 0.98);  // the bucket beneath does not hold the 98th percentile
  CHECK_THAT(why.text, Catch::Contains("holds the 98th percentile") &&
                           Catch::Contains("% of the decayed history at or below it; +15 % = "));
}

TEST_CASE("recommend --explain: the statistic, margin and rounding of every figure add up to it",
          "[recommend][explain][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 12; ++i) {
    auto o = Exec("all-" + std::to_string(i), "explain:all", "a100-mig", kNow - i * 600);
    o.cpu_millicores_p95 = 1234.5 + 17 * i;
    o.cpu_millicores_max = 2001.3 + 13 * i;
    o.memory_peak_bytes = static_cast<std::int64_t>((3.3 + 0.1 * i) * kGiB);
    o.gpu_memory_peak_gb = 21.017 + 0.3 * i;
    o.gpu_utilization = 0.61;
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto r = f.Explained("explain:all", f.KeyOf("a100-mig"));
  for (const auto& figure : r.figures) {
    INFO(hwrec::ToString(figure.kind));
    REQUIRE(figure.value.has_value());
    const auto& why = Why(r, figure.kind);
    CHECK(why.value == *figure.value);
    CHECK(why.margin == figure.margin);
    CHECK(why.with_margin == Approx(why.statistic_value * (1 + why.margin)));
    const double step = figure.kind == FigureKind::kGpuMemoryGb          ? 0.01
                        : figure.kind == FigureKind::kGpuComputeFraction ? 0.05
                                                                         : 1.0;
    CHECK(why.value >= why.with_margin - 1e-9);
    CHECK(why.value - why.with_margin < step);
    CHECK_THAT(why.text, Catch::Contains("rounded up to"));
  }
  CHECK(Why(r, FigureKind::kGpuComputeFraction).rounding == "up to the 0.05 step");
  CHECK(Why(r, FigureKind::kCpuLimitMillicores).execution_id == "all-9");
}

TEST_CASE("recommend --explain: a figure learned on the GPU model explains that model's history",
          "[recommend][explain][engine]") {
  Fixture f;
  // Any hardware: the A100's 40 GB is the largest; on H100s it is 25 GB.
  f.Ingest({GpuRun("a100-big", "explain:model", "a100-mig", kNow - 1200, 40.0),
            GpuRun("h100-top", "explain:model", "h100", kNow - 900, 25.0),
            GpuRun("h100-low", "explain:model", "h100", kNow - 600, 20.0)});
  HardwareKey other_instance = f.KeyOf("h100");
  other_instance.instance_type = "a3-megagpu-8g";
  const auto r = f.Explained("explain:model", other_instance);
  const auto& gpu = r.figure(FigureKind::kGpuMemoryGb);
  CHECK(gpu.provenance == Provenance::kGpuModel);
  CHECK(Why(r, FigureKind::kGpuMemoryGb).execution_id == "h100-top");
  CHECK(Why(r, FigureKind::kGpuMemoryGb).statistic_value == 25.0);
  HardwareKey l4 = other_instance;
  l4.gpu_model = "L4";
  const auto any = f.Explained("explain:model", l4);
  CHECK(any.figure(FigureKind::kGpuMemoryGb).provenance == Provenance::kWorkloadAnyHardware);
  CHECK(Why(any, FigureKind::kGpuMemoryGb).execution_id == "a100-big");
}

namespace {

// An aggregates row's state as hwrec wrote it at schema 11 (format 2): each
// figure's metric with version byte 2 and its recent values without
// observation ids, and no metric of shares held (schema 13).
std::string AsFormatTwo(std::string_view state) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t m = 0; m < hwrec::kFigureCount; ++m) {
    REQUIRE(at < state.size());
    REQUIRE(state[at] == 3);
    out.push_back(2);
    ++at;
    std::uint32_t buckets = 0;
    std::memcpy(&buckets, state.data() + at + 20, sizeof buckets);  // after unit, time, first
    // unit, reference time, first, count of buckets, weights, Σw, Σwx, Σw², count, max
    const std::size_t body = 8 + 8 + 4 + 4 + 8 * std::size_t{buckets} + 8 * 3 + 8 + 8;
    out.append(state.substr(at, body + 4));
    at += body;
    std::uint32_t ring = 0;
    std::memcpy(&ring, state.data() + at, sizeof ring);
    at += 4;
    for (std::uint32_t i = 0; i < ring; ++i, at += 24) out.append(state.substr(at, 16));
  }
  REQUIRE(at <= state.size());  // the shares held, if any, follow: left out
  return out;
}

// Rewrites every aggregate of `f`'s store in format 2.
void AggregatesAsFormatTwo(Fixture& f) {
  auto rows = f.db().Prepare(
      "SELECT workload_id, scope, gpu_brand, gpu_model, instance_type, state FROM aggregates");
  struct Row {
    std::int64_t workload_id;
    std::string scope, brand, model, instance_type, state;
  };
  std::vector<Row> all;
  while (rows->Step()) {
    all.push_back({rows->Int64(0), std::string(rows->Text(1)), std::string(rows->Text(2)),
                   std::string(rows->Text(3)), std::string(rows->Text(4)),
                   AsFormatTwo(rows->Blob(5))});
  }
  rows->Reset();
  REQUIRE(all.size() == 4);
  auto write = f.db().Prepare(
      "UPDATE aggregates SET state = ? WHERE workload_id = ? AND scope = ? AND gpu_brand = ? AND "
      "gpu_model = ? AND instance_type = ?");
  for (const Row& row : all) {
    write->Reset();
    write->BindBlob(1, row.state);
    write->Bind(2, row.workload_id);
    write->BindText(3, row.scope);
    write->BindText(4, row.brand);
    write->BindText(5, row.model);
    write->BindText(6, row.instance_type);
    REQUIRE(write->Run() == 1);
  }
}

// Takes schema 13 out of `f`'s store: its change counters and the held
// share flag of the materialised recommendations.
void WithoutChangeCounters(Fixture& f) {
  f.db().Execute("ALTER TABLE recommendations DROP COLUMN gpu_compute_fraction_held");
  if (hwrec::test::TestingPostgresql()) {
    f.db().Execute("DROP FUNCTION hwrec_count_change() CASCADE; DROP TABLE store_changes");
  } else {
    for (const char* table : {"node_pools", "gpu_models", "gpu_partitions", "config"}) {
      for (const char* change : {"inserted", "updated", "deleted"}) {
        f.db().Execute(fmt::format("DROP TRIGGER {}_{}", table, change));
      }
    }
    f.db().Execute("DROP TABLE store_changes");
  }
  f.db().Execute("DELETE FROM schema_migrations WHERE version = 13");
}

// Takes schema 14 out of `f`'s store: the GPUs held, and the aggregates' width.
void WithoutGpusHeld(Fixture& f) {
  f.db().Execute("ALTER TABLE observations DROP COLUMN gpu_count_held");
  f.db().Execute("DELETE FROM aggregates WHERE width > 0");
  if (hwrec::test::TestingPostgresql()) {
    f.db().Execute(
        "ALTER TABLE aggregates DROP CONSTRAINT aggregates_pkey; "
        "ALTER TABLE aggregates DROP COLUMN width; ALTER TABLE aggregates ADD PRIMARY KEY "
        "(workload_id, scope, gpu_brand, gpu_model, instance_type)");
  } else {
    f.db().Execute(
        "CREATE TABLE aggregates13 (workload_id INTEGER NOT NULL REFERENCES workloads (id), "
        "scope TEXT NOT NULL, gpu_brand TEXT NOT NULL, gpu_model TEXT NOT NULL, "
        "instance_type TEXT NOT NULL, samples INTEGER NOT NULL, last_finished_at REAL NOT NULL, "
        "state BLOB NOT NULL, PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, "
        "instance_type)) WITHOUT ROWID");
    f.db().Execute(
        "INSERT INTO aggregates13 SELECT workload_id, scope, gpu_brand, gpu_model, "
        "instance_type, samples, last_finished_at, state FROM aggregates");
    f.db().Execute("DROP TABLE aggregates");
    f.db().Execute("ALTER TABLE aggregates13 RENAME TO aggregates");
  }
  f.db().Execute("DELETE FROM schema_migrations WHERE version = 14");
}

// Makes `f`'s store the one schema 11 wrote: aggregates in format 2, version 11.
void AsSchemaEleven(Fixture* fixture) {
  Fixture& f = *fixture;
  WithoutGpusHeld(f);
  AggregatesAsFormatTwo(f);
  WithoutChangeCounters(f);
  f.db().Execute("DELETE FROM schema_migrations WHERE version = 12");
  if (!hwrec::test::TestingPostgresql()) f.db().Execute("PRAGMA user_version = 11");
}

}  // namespace

TEST_CASE(
    "migrations: after `hwrec migrate` a store at schema 11 explains which execution set a "
    "max",
    "[recommend][explain][migrations][engine]") {
  Fixture f;
  f.Ingest({GpuRun("old-1", "explain:old", "h100", kNow - 1800, 18.0),
            GpuRun("old-2", "explain:old", "h100", kNow - 1200, 27.5),
            GpuRun("old-3", "explain:old", "h100", kNow - 600, 22.0)});
  AsSchemaEleven(&f);
  f.store.reset();
  f.store = hwrec::test::OpenStoreOrFail(f.location);
  REQUIRE(f.store->schema_version() == 11);
  {
    const auto opened = hwrec::RecommendationQuery::Open(*f.store).value();
    const auto refused = opened->Recommend("explain:old", f.KeyOf("h100"), kNow);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.status().message(), Catch::Contains("hwrec migrate"));
  }

  auto applied = f.store->Migrate();
  INFO(applied.status().ToString());
  REQUIRE(applied.ok());
  CHECK(f.store->schema_version() == hwrec::Store::LatestSchemaVersion());
  // Schema 13 rebuilt the aggregates: format 3, each recent value with its id.
  auto format = f.db().Prepare("SELECT state FROM aggregates WHERE scope = 'exact'");
  REQUIRE(format->Step());
  CHECK(format->Blob(0)[0] == 3);
  format->Reset();
  CHECK(Why(f.Explained("explain:old", f.KeyOf("h100")), FigureKind::kGpuMemoryGb).execution_id ==
        "old-2");

  // Format 2 states still read: the execution is found by its finish time.
  AggregatesAsFormatTwo(f);
  REQUIRE(format->Step());
  CHECK(format->Blob(0)[0] == 2);
  format->Reset();
  const auto r = f.Explained("explain:old", f.KeyOf("h100"));
  const auto& why = Why(r, FigureKind::kGpuMemoryGb);
  CHECK(why.execution_id == "old-2");
  CHECK(why.finished_at == kNow - 1200);
  CHECK(why.statistic_value == 27.5);
  HardwareKey other_instance = f.KeyOf("h100");
  other_instance.instance_type = "a3-megagpu-8g";  // the gpu_model aggregate, by finish time too
  CHECK(Why(f.Explained("explain:old", other_instance), FigureKind::kGpuMemoryGb).execution_id ==
        "old-2");

  // The next ingest writes format 3, with ids.
  f.Ingest({GpuRun("new-1", "explain:old", "h100", kNow - 300, 30.0)});
  REQUIRE(format->Step());
  CHECK(format->Blob(0)[0] == 3);
  format->Reset();
  CHECK(Why(f.Explained("explain:old", f.KeyOf("h100")), FigureKind::kGpuMemoryGb).execution_id ==
        "new-1");
}

TEST_CASE("migrations: a failed migration to schema 12 changes nothing", "[explain][migrations]") {
  Fixture f;
  if (hwrec::test::TestingPostgresql()) return;  // the trigger below is SQLite's
  f.Ingest({GpuRun("old-1", "explain:fail", "h100", kNow - 600, 18.0)});
  AsSchemaEleven(&f);
  f.db().Execute(
      "CREATE TRIGGER refuse_12 BEFORE INSERT ON schema_migrations WHEN NEW.version = 12 "
      "BEGIN SELECT RAISE(ABORT, 'refused for the test'); END");
  auto states = [&] {
    std::string all;
    auto rows = f.db().Prepare("SELECT state FROM aggregates ORDER BY scope");
    while (rows->Step()) all += std::string(rows->Blob(0));
    return all;
  };
  const std::string before = states();
  f.store.reset();
  f.store = hwrec::test::OpenStoreOrFail(f.location);
  auto applied = f.store->Migrate();
  REQUIRE_FALSE(applied.ok());
  CHECK_THAT(applied.status().message(), Catch::Contains("changed nothing"));
  CHECK(f.store->schema_version() == 11);
  CHECK(states() == before);
  CHECK(f.db().QueryInt64("SELECT count(*) FROM schema_migrations WHERE version = 12") == 0);
}

TEST_CASE(
    "recommend: a record without GPU utilisation never moves the measured compute share; "
    "alone, the share held is the figure and says so",
    "[recommend][explain][engine]") {
  Fixture f;
  std::vector<Observation> measured;
  for (int i = 0; i < 6; ++i) {
    Observation o = GpuRun(fmt::format("used-{}", i), "share:used", "h100", kNow - 7200 + i, 20);
    o.gpu_utilization = 0.5;  // half of the whole card it held
    measured.push_back(o);
  }
  f.Ingest(measured);
  const auto before =
      f.RecommendForPool("share:used", "h100").figure(FigureKind::kGpuComputeFraction);
  REQUIRE(before.value.has_value());
  CHECK(*before.value == Approx(0.6));  // 0.5 + 15 %, on the 0.05 ladder
  CHECK_FALSE(before.held_share);

  // The newest record, weighed most, tells only that it held the whole card.
  f.Ingest({GpuRun("held-0", "share:used", "h100", kNow - 60, 20)});
  const auto after =
      f.RecommendForPool("share:used", "h100").figure(FigureKind::kGpuComputeFraction);
  CHECK(after.value == before.value);
  CHECK(after.samples == before.samples);
  CHECK_FALSE(after.held_share);

  // A workload no record of which reported utilisation: the share held, said so.
  f.Ingest({GpuRun("held-1", "share:held", "a100-mig", kNow - 600, 20),
            GpuRun("held-2", "share:held", "a100-mig", kNow - 300, 20)});
  const auto held = f.Explained("share:held", f.KeyOf("a100-mig"));
  const auto& share = held.figure(FigureKind::kGpuComputeFraction);
  REQUIRE(share.value.has_value());
  CHECK(*share.value == Approx(0.5));  // 3/7 of an A100 + 15 %, on the ladder
  CHECK(share.held_share);
  CHECK(share.provenance == Provenance::kExact);
  CHECK_THAT(Why(held, FigureKind::kGpuComputeFraction).text,
             Catch::Contains("of the shares held, as no execution reported its GPU utilisation"));
  // The materialised table says so too.
  CHECK(f.db().QueryInt64("SELECT r.gpu_compute_fraction_held FROM recommendations r JOIN "
                          "workloads w ON w.id = r.workload_id WHERE w.image = 'share:held' AND "
                          "r.gpu_model = 'A100 80GB'") == 1);
  CHECK(f.db().QueryInt64("SELECT r.gpu_compute_fraction_held FROM recommendations r JOIN "
                          "workloads w ON w.id = r.workload_id WHERE w.image = 'share:used' AND "
                          "r.gpu_model = 'H100 80GB'") == 0);
  const auto report = hwrec::CheckStore(f.location);
  REQUIRE(report.ok());
  CHECK(report->sound());
}

TEST_CASE("recommend: a workload seen only on A100 gets a transferred H100 share when allowed",
          "[recommend][transfer][engine]") {
  Fixture f;
  // Five workloads seen on both cards use half the share on an H100 that
  // they use of an A100 (3g.40gb slice), and a fifth more GPU memory.
  std::vector<Observation> batch;
  for (int w = 0; w < 5; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    const double a100_use = 0.5 + 0.1 * w;  // of the slice: 3/7 of a card held
    const double a100_share = 3.0 / 7 * a100_use;
    for (int i = 0; i < 5; ++i) {
      auto on_a100 = Exec(fmt::format("{}-a100-{}", image, i), image, "a100-mig", kNow - i * 60);
      on_a100.gpu_utilization = a100_use;
      on_a100.gpu_memory_peak_gb = 10 + 2 * w;
      on_a100.cpu_millicores_p95 = 2000 + 500 * w;
      auto on_h100 = Exec(fmt::format("{}-h100-{}", image, i), image, "h100", kNow - i * 60);
      on_h100.gpu_utilization = a100_share * 0.5 * (1 + 0.02 * (w - 2));  // of a whole card
      on_h100.gpu_memory_peak_gb = (10 + 2 * w) * 1.2;
      on_h100.cpu_millicores_p95 = (2000 + 500 * w) * 0.8;
      batch.push_back(on_a100);
      batch.push_back(on_h100);
    }
  }
  for (int i = 0; i < 5; ++i) {
    auto o = Exec(fmt::format("new-a100-{}", i), "new:1", "a100-mig", kNow - i * 60);
    o.gpu_utilization = 0.9;
    o.gpu_memory_peak_gb = 20;
    o.cpu_millicores_p95 = 3000;
    o.gpu_count_held = 1;  // so that it has history at width 1, on the A100 only
    batch.push_back(o);
  }
  f.Ingest(batch);
  const HardwareKey h100 = f.KeyOf("h100");
  const double a100_share = 3.0 / 7 * 0.9;

  // With transfer off a share is never carried to another card: none; GPU
  // memory is the other card's, as is.
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_compute.transfer", "false").ok());
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.transfer", "false").ok());
  auto before = f.Recommend("new:1", h100);
  CHECK(before.figure(FigureKind::kGpuComputeFraction).provenance == Provenance::kNone);
  CHECK(before.figure(FigureKind::kGpuMemoryGb).provenance == Provenance::kWorkloadAnyHardware);
  CHECK_FALSE(before.figure(FigureKind::kGpuComputeFraction).transfer.has_value());

  // On, as by default for GPU figures.
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_compute.transfer", "true").ok());
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.transfer", "true").ok());
  const auto r = f.Recommend("new:1", h100);
  const hwrec::Figure& share = r.figure(FigureKind::kGpuComputeFraction);
  REQUIRE(share.provenance == Provenance::kTransferred);
  REQUIRE(share.transfer.has_value());
  const hwrec::FigureTransfer& t = *share.transfer;
  CHECK(t.source.gpu_model == "A100 80GB");
  CHECK(t.source.gpu_brand == "NVIDIA");
  CHECK(t.workloads == 5);
  CHECK(t.neighbours == 0);  // seen on one card only: the median of every pair
  CHECK(t.factor == Approx(0.5).epsilon(0.08));
  // Right within the factor's spread (and the histogram's 5 % buckets).
  CHECK(std::fabs(std::log(t.estimate / (a100_share * 0.5))) <= t.spread + 0.05);
  // Published with the margin and more for the spread, so that it errs high.
  REQUIRE(share.value.has_value());
  CHECK(*share.value >= t.estimate * 1.15);
  CHECK(share.margin > 0.15);
  CHECK(share.confidence > 0);
  CHECK(share.confidence < 0.5);

  const hwrec::Figure& memory = r.figure(FigureKind::kGpuMemoryGb);
  REQUIRE(memory.provenance == Provenance::kTransferred);
  CHECK(memory.transfer->estimate == Approx(24).epsilon(0.06));
  // Asked at a width (as placement asks), transfer still comes before the
  // history of another card at that width.
  const auto at_width = hwrec::RecommendationQuery::Open(*f.store)
                            .value()
                            ->Recommend("new:1", h100, kNow, hwrec::Explain::kNo, 1)
                            .value();
  CHECK(at_width.figure(FigureKind::kGpuMemoryGb).provenance == Provenance::kTransferred);

  // CPU stays with its instance type unless its setting allows transfer.
  CHECK(r.figure(FigureKind::kCpuRequestMillicores).provenance == Provenance::kNone);
  REQUIRE(hwrec::SetConfig(*f.store, "cpu_request.transfer", "true").ok());
  const auto cpu = f.Recommend("new:1", h100).figure(FigureKind::kCpuRequestMillicores);
  REQUIRE(cpu.provenance == Provenance::kTransferred);
  CHECK(cpu.transfer->source.instance_type == "a2-ultragpu-1g");
  CHECK(cpu.transfer->estimate == Approx(2400).epsilon(0.06));
  const auto cpu_why =
      f.Explained("new:1", h100).figure(FigureKind::kCpuRequestMillicores).reason.value();
  INFO(cpu_why.text);
  CHECK(cpu_why.text.find("on a3-highgpu-1g: ") != std::string::npos);  // the instance type
  CHECK(cpu_why.text.find("learned on a2-ultragpu-1g") != std::string::npos);

  // --explain says where it came from and what is behind the factor.
  const auto explained = f.Explained("new:1", h100).figure(FigureKind::kGpuComputeFraction);
  REQUIRE(explained.reason.has_value());
  CHECK(explained.reason->source == hwrec::FigureReason::Source::kTransferred);
  INFO(explained.reason->text);
  CHECK(explained.reason->text.find("on NVIDIA H100 80GB: ") != std::string::npos);
  CHECK(explained.reason->text.find("learned on NVIDIA A100 80GB × 0.") != std::string::npos);
  CHECK(explained.reason->text.find("the median ratio of 5 workloads seen on both") !=
        std::string::npos);

  // A workload with history on the card keeps its own figure.
  CHECK(f.Recommend("job-1:1", h100).figure(FigureKind::kGpuComputeFraction).provenance ==
        Provenance::kExact);
}

TEST_CASE("recommend: without enough workloads seen on both cards nothing is transferred",
          "[recommend][transfer][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int w = 0; w < 2; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    auto on_a100 = Exec(image + "-a100", image, "a100-mig", kNow);
    on_a100.gpu_utilization = 0.8;
    auto on_h100 = Exec(image + "-h100", image, "h100", kNow);
    on_h100.gpu_utilization = 0.2;
    batch.push_back(on_a100);
    batch.push_back(on_h100);
  }
  auto o = Exec("new-a100", "new:1", "a100-mig", kNow);
  o.gpu_utilization = 0.9;
  batch.push_back(o);
  f.Ingest(batch);
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_compute.transfer", "true").ok());
  const auto share = f.Recommend("new:1", f.KeyOf("h100")).figure(FigureKind::kGpuComputeFraction);
  CHECK(share.provenance == Provenance::kNone);
  CHECK_FALSE(share.value.has_value());
  // Two workloads are enough when the store says so.
  REQUIRE(hwrec::SetConfig(*f.store, "transfer.min_workloads", "2").ok());
  CHECK(f.Recommend("new:1", f.KeyOf("h100")).figure(FigureKind::kGpuComputeFraction).provenance ==
        Provenance::kTransferred);
}

TEST_CASE("recommend: a share transferred to more than one whole card is not given",
          "[recommend][transfer][engine]") {
  Fixture f;
  // On the A30 slice (2/4 of a card) every workload uses three times the
  // share of an H100 it uses on the H100.
  std::vector<Observation> batch;
  for (int w = 0; w < 4; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    const double h100_share = 0.1 * (1 + 0.1 * w);
    auto on_h100 = Exec(image + "-h100", image, "h100", kNow);
    on_h100.gpu_utilization = h100_share;
    auto on_a30 = Exec(image + "-a30", image, "a30-mig", kNow);
    on_a30.gpu_utilization = 3 * h100_share / 0.5;  // of the slice
    batch.push_back(on_h100);
    batch.push_back(on_a30);
  }
  auto busy = Exec("busy-h100", "busy:1", "h100", kNow);
  busy.gpu_utilization = 0.5;  // x3: 1.5 cards of an A30
  batch.push_back(busy);
  auto light = Exec("light-h100", "light:1", "h100", kNow);
  light.gpu_utilization = 0.2;  // x3: 0.6 of an A30
  batch.push_back(light);
  f.Ingest(batch);
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_compute.transfer", "true").ok());
  const HardwareKey a30 = f.KeyOf("a30-mig");
  CHECK(f.Recommend("light:1", a30).figure(FigureKind::kGpuComputeFraction).provenance ==
        Provenance::kTransferred);
  const auto busy_share = f.Recommend("busy:1", a30).figure(FigureKind::kGpuComputeFraction);
  CHECK(busy_share.provenance == Provenance::kNone);  // not 1.0, which would be under its need
  CHECK_FALSE(busy_share.value.has_value());
}

TEST_CASE("recommend: a query kept open transfers from the history as it is at each call",
          "[recommend][transfer][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int w = 0; w < 4; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    auto on_a100 = Exec(image + "-a100", image, "a100-mig", kNow - 600);
    on_a100.gpu_utilization = 0.5 + 0.1 * w;
    auto on_h100 = Exec(image + "-h100", image, "h100", kNow - 600);
    on_h100.gpu_utilization = 3.0 / 7 * (0.5 + 0.1 * w) * 0.5;
    batch.push_back(on_a100);
    batch.push_back(on_h100);
  }
  auto first = Exec("new-1", "new:1", "a100-mig", kNow - 600);
  first.gpu_utilization = 0.4;
  batch.push_back(first);
  f.Ingest(batch);
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_compute.transfer", "true").ok());
  // A kept query reads the factors again at the first call after a change.
  REQUIRE(hwrec::SetConfig(*f.store, "transfer.refresh_seconds", "0").ok());
  const HardwareKey h100 = f.KeyOf("h100");
  const auto kept = hwrec::RecommendationQuery::Open(*f.store).value();
  const auto estimate = [&](hwrec::RecommendationQuery& query) {
    const auto r = query.Recommend("new:1", h100, kNow).value();
    const auto& share = r.figure(FigureKind::kGpuComputeFraction);
    REQUIRE(share.transfer.has_value());
    return share.transfer->estimate;
  };
  for (int i = 0; i < 3; ++i) estimate(*kept);  // the steady state of a kept query
  // The workload now uses twice as much of an A100.
  std::vector<Observation> heavier;
  for (int i = 0; i < 10; ++i) {
    auto o = Exec(fmt::format("new-heavy-{}", i), "new:1", "a100-mig", kNow - i);
    o.gpu_utilization = 0.8;
    heavier.push_back(o);
  }
  f.Ingest(heavier);
  const double fresh = estimate(*hwrec::RecommendationQuery::Open(*f.store).value());
  CHECK(estimate(*kept) == fresh);
  CHECK(fresh > 1.5 * 3.0 / 7 * 0.4 * 0.5);

  // By default it keeps them for transfer.refresh_seconds after a change: a
  // busy store is not scanned at every call. A fresh query reads them at once.
  REQUIRE(hwrec::SetConfig(*f.store, "transfer.refresh_seconds", "3600").ok());
  const double held = estimate(*kept);  // read again: the settings changed
  std::vector<Observation> busier;      // the whole slice now
  for (int i = 0; i < 20; ++i) {
    auto o = Exec(fmt::format("new-busy-{}", i), "new:1", "a100-mig", kNow - i + 0.5);
    o.gpu_utilization = 1.0;
    busier.push_back(o);
  }
  f.Ingest(busier);
  CHECK(estimate(*kept) == held);
  const double now = estimate(*hwrec::RecommendationQuery::Open(*f.store).value());
  CHECK(now > held);

  // Once that old, they are read again, though nothing changed since: the
  // lag is bounded by the interval, not by the next change.
  REQUIRE(hwrec::SetConfig(*f.store, "transfer.refresh_seconds", "1").ok());
  CHECK(estimate(*kept) == now);    // read again: the settings changed
  std::vector<Observation> slower;  // the others now need twice the share on an H100
  for (int w = 0; w < 4; ++w) {
    for (int i = 0; i < 3; ++i) {
      const std::string image = fmt::format("job-{}:1", w);
      auto o = Exec(fmt::format("{}-h100-slow-{}", image, i), image, "h100", kNow - 0.25 - i);
      o.gpu_utilization = 3.0 / 7 * (0.5 + 0.1 * w);
      slower.push_back(o);
    }
  }
  f.Ingest(slower);
  const double later = estimate(*hwrec::RecommendationQuery::Open(*f.store).value());
  CHECK(later > now * 1.5);
  CHECK(estimate(*kept) == now);  // within the second: kept, though the store changed
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CHECK(estimate(*kept) == later);  // past it, with no change since: read again
}

TEST_CASE("recommend: GPU memory transferred at a width comes from the source card's width",
          "[recommend][transfer][engine]") {
  Fixture f;
  // Four workloads seen on both cards need a fifth more GPU memory on the
  // H100. new:1 ran on the A100 holding one GPU (20 GiB) and two (30 GiB
  // per GPU): its figure of every width is the larger.
  std::vector<Observation> batch;
  for (int w = 0; w < 4; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    for (int i = 0; i < 3; ++i) {
      auto a = Exec(fmt::format("{}-a100-{}", image, i), image, "a100-mig", kNow - i * 60);
      a.gpu_memory_peak_gb = 10 + 3 * w;
      auto h = Exec(fmt::format("{}-h100-{}", image, i), image, "h100", kNow - i * 60);
      h.gpu_memory_peak_gb = (10 + 3 * w) * 1.2;
      batch.push_back(a);
      batch.push_back(h);
    }
  }
  for (int i = 0; i < 3; ++i) {
    for (int held : {1, 2}) {
      auto o = Exec(fmt::format("new-{}-{}", held, i), "new:1", "a100-mig", kNow - i * 60);
      o.gpu_memory_peak_gb = held == 1 ? 20 : 30;
      o.gpu_count_held = held;
      batch.push_back(o);
    }
  }
  f.Ingest(batch);
  const HardwareKey h100 = f.KeyOf("h100");
  const auto query = hwrec::RecommendationQuery::Open(*f.store).value();
  const auto at = [&](std::optional<std::int64_t> width) {
    return query->Recommend("new:1", h100, kNow, hwrec::Explain::kYes, width)
        .value()
        .figure(FigureKind::kGpuMemoryGb);
  };
  const hwrec::Figure every = at(std::nullopt);
  REQUIRE(every.provenance == Provenance::kTransferred);
  CHECK(every.transfer->estimate == Approx(36).epsilon(0.06));  // 30 x 1.2
  const hwrec::Figure one = at(1);
  REQUIRE(one.provenance == Provenance::kTransferred);
  CHECK(one.transfer->source_value == Approx(20));
  CHECK(one.transfer->estimate == Approx(24).epsilon(0.06));  // 20 x 1.2, not 36
  CHECK(one.learned_width == 1);
  CHECK(one.transfer->factor == every.transfer->factor);
  REQUIRE(one.reason.has_value());
  CHECK_THAT(one.reason->text,
             Catch::StartsWith("per GPU, of the executions that held 1 GPU(s) on NVIDIA A100"));
  const hwrec::Figure two = at(2);
  CHECK(two.transfer->estimate == Approx(36).epsilon(0.06));
  CHECK(two.learned_width == 2);
  // Four GPUs: none held them; the nearest width it ran at on the A100, said so.
  const hwrec::Figure four = at(4);
  CHECK(four.learned_width == 2);
  CHECK_THAT(four.reason->text, Catch::Contains("the nearest width it ran at there"));
}
