#include "bench/place_fixture.h"

#include <fmt/format.h>

#include <sstream>

#include "bench/bench_util.h"
#include "bench/openb_inventory.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"

namespace hwrec::bench {
namespace {

void ImportPools(Store& store, const std::string& jsonl) {
  std::istringstream in(jsonl);
  auto summary = ImportNodePools(store, in);
  if (!summary.ok()) throw std::runtime_error(summary.status().ToString());
  if (!summary->errors.empty()) {
    const PoolImportError& e = summary->errors.front();
    throw std::runtime_error(
        fmt::format("pool line {} ({}): {} {}", e.line, e.node_pool_id, e.field, e.reason));
  }
}

}  // namespace

std::unique_ptr<Store> OpenBenchStore(const std::string& path) {
  auto store = Store::Open(path, BenchStoreOptions());
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  return std::move(*store);
}

std::vector<PlacementCandidate> ImportPlacePools(Store& store,
                                                 const fixtures::ObservationGenerator& gen) {
  std::vector<PlacementCandidate> candidates;
  std::string jsonl;
  for (const fixtures::BenchPool& p : gen.pools()) jsonl += NodePoolJsonLine(p.pool) + "\n";
  for (std::size_t i = 0; i < kPlacePools; ++i) {
    NodePool pool = gen.pools()[i % gen.pools().size()].pool;
    pool.node_pool_id = fmt::format("bench-pool-{:04}", i);
    pool.name = "";
    jsonl += NodePoolJsonLine(pool) + "\n";
    const HardwareProfile& h = pool.hardware;
    const auto quarter = static_cast<std::int64_t>(i % 4 + 1);
    candidates.push_back(
        {pool.node_pool_id, static_cast<std::int64_t>(i * 7) % (h.gpu_total.value_or(0) + 1),
         h.cpu_millicores.value_or(0) * quarter / 4, h.memory_bytes.value_or(0) * quarter / 4});
  }
  ImportPools(store, jsonl);
  return candidates;
}

ExecutionToPlace PlaceExecution(const fixtures::ObservationGenerator& gen) {
  ExecutionToPlace execution;
  for (std::size_t i = 0; i < gen.images().size() && execution.workload.empty(); ++i) {
    if (gen.image_profiles()[i].uses_gpu) execution.workload = gen.images()[i];
  }
  execution.declared.gpu_count = 1;
  return execution;
}

PlaceFixture SetUpPlaceFixture(Store& store, const fixtures::ObservationGenerator& gen) {
  PlaceFixture fixture;
  fixture.candidates = ImportPlacePools(store, gen);
  const auto ingestor_owner = Ingestor::Open(store).value();
  Ingestor& ingestor = *ingestor_owner;
  std::vector<Observation> batch;
  for (std::int64_t first = 0; first < kPlaceHistory; first += 5000) {
    gen.Fill(first, 5000, &batch);
    Require(ingestor.Ingest(batch));
  }
  fixture.execution = PlaceExecution(gen);
  return fixture;
}

}  // namespace hwrec::bench
