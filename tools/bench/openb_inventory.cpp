#include "bench/openb_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hwrec/pool_import.h"

namespace hwrec::bench {

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::int64_t ToInt(const std::string& text, const std::string& where) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::runtime_error(fmt::format("{}: '{}' is not a whole number", where, text));
}

// Rows of `columns` fields, or of `short_columns` (a file without the later columns).
std::vector<std::vector<std::string>> ReadCsv(const std::string& path, std::size_t columns,
                                              const std::string& header_start,
                                              std::size_t short_columns = 0) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", path));
  std::string line;
  if (!std::getline(in, line) || line.rfind(header_start, 0) != 0) {
    throw std::runtime_error(
        fmt::format("{}: expected a header starting with '{}'", path, header_start));
  }
  std::vector<std::vector<std::string>> rows;
  for (std::int64_t number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    auto fields = SplitCsvLine(line);
    if (fields.size() != columns && (short_columns == 0 || fields.size() != short_columns)) {
      throw std::runtime_error(
          fmt::format("{} line {}: {} fields, expected {}", path, number, fields.size(), columns));
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

}  // namespace

std::optional<std::string> CatalogModelOf(const std::string& trace_model) {
  if (trace_model == "A10") return "A10";
  if (trace_model == "T4") return "T4";
  if (trace_model == "P100") return "P100 16GB";
  if (trace_model == "V100M16") return "V100 16GB";
  if (trace_model == "V100M32") return "V100 32GB";
  return std::nullopt;
}

std::vector<OpenbNode> ReadOpenbNodes(const std::string& path) {
  std::vector<OpenbNode> nodes;
  for (const auto& f : ReadCsv(path, 5, "sn,cpu_milli,memory_mib,gpu,model")) {
    OpenbNode node;
    NodePool& pool = node.pool;
    pool.node_pool_id = f[0];
    pool.site_id = "openb";
    pool.name = f[4].empty() ? "CPU only" : f[4];
    const std::string where = path + " node " + f[0];
    pool.hardware.cpu_millicores = ToInt(f[1], where);
    pool.hardware.memory_bytes = ToInt(f[2], where) * kMiB;
    const std::int64_t gpus = ToInt(f[3], where);
    pool.hardware.gpu_count = gpus;
    pool.hardware.gpu_total = gpus;
    if (gpus > 0) {
      pool.hardware.gpu_mode = "full";  // the trace shares whole cards, never MIG
      pool.hardware.gpu_model = CatalogModelOf(f[4]);
      if (pool.hardware.gpu_model) pool.hardware.gpu_brand = "NVIDIA";
    }
    node.trace_model = f[4];
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<OpenbPod> ReadOpenbPods(const std::string& path) {
  std::vector<OpenbPod> pods;
  // openb_pod_list_multigpu50.csv has the first five columns only: no GPU
  // type constraint, created and deleted at 0.
  for (auto f : ReadCsv(path, 11, "name,cpu_milli,memory_mib,num_gpu,gpu_milli", 5)) {
    f.resize(11);
    if (f[8].empty()) f[8] = f[9] = "0";
    OpenbPod pod;
    const std::string where = path + " pod " + f[0];
    pod.name = f[0];
    pod.cpu_milli = ToInt(f[1], where);
    pod.memory_mib = ToInt(f[2], where);
    pod.num_gpu = ToInt(f[3], where);
    pod.gpu_milli = ToInt(f[4], where);
    for (std::size_t start = 0; start < f[5].size();) {
      const std::size_t bar = std::min(f[5].find('|', start), f[5].size());
      pod.gpu_spec.push_back(f[5].substr(start, bar - start));
      start = bar + 1;
    }
    pod.creation_time = static_cast<double>(ToInt(f[8], where));
    pod.deletion_time = static_cast<double>(ToInt(f[9], where));
    pods.push_back(std::move(pod));
  }
  return pods;
}

std::string NodePoolJsonLine(const NodePool& pool) {
  const HardwareProfile& h = pool.hardware;
  std::string line =
      fmt::format(R"({{"site_id": "{}", "node_pool_id": "{}", "name": "{}", "cpu_millicores": {}, )"
                  R"("memory_bytes": {}, "gpu_count": {}, "gpu_total": {})",
                  pool.site_id, pool.node_pool_id, pool.name, h.cpu_millicores.value_or(0),
                  h.memory_bytes.value_or(0), h.gpu_count.value_or(0), h.gpu_total.value_or(0));
  if (h.instance_type) line += fmt::format(R"(, "instance_type": "{}")", *h.instance_type);
  if (h.architecture) line += fmt::format(R"(, "architecture": "{}")", *h.architecture);
  if (h.gpu_mode) line += fmt::format(R"(, "gpu_mode": "{}")", *h.gpu_mode);
  if (h.gpu_brand) line += fmt::format(R"(, "gpu_brand": "{}")", *h.gpu_brand);
  if (h.gpu_model) line += fmt::format(R"(, "gpu_model": "{}")", *h.gpu_model);
  return line + "}";
}

DeclaredResources DeclaredOf(const OpenbPod& pod) {
  DeclaredResources d;
  d.cpu_millicores = pod.cpu_milli;
  d.memory_bytes = pod.memory_mib * kMiB;
  d.gpu_count = pod.num_gpu;
  if (pod.num_gpu == 1 && pod.gpu_milli > 0 && pod.gpu_milli < 1000) {
    d.gpu_compute_fraction = static_cast<double>(pod.gpu_milli) / 1000.0;
  }
  if (pod.gpu_spec.size() == 1) d.gpu_model = CatalogModelOf(pod.gpu_spec[0]);
  return d;
}

std::string DeclaredJson(const DeclaredResources& d) {
  std::string out = fmt::format(R"({{"gpu_count": {}, "cpu_millicores": {}, "memory_bytes": {})",
                                d.gpu_count.value_or(0), d.cpu_millicores.value_or(0),
                                d.memory_bytes.value_or(0));
  if (d.gpu_compute_fraction)
    out += fmt::format(R"(, "gpu_compute_fraction": {})", *d.gpu_compute_fraction);
  if (d.gpu_model) out += fmt::format(R"(, "gpu_model": "{}")", *d.gpu_model);
  return out + "}";
}

void ImportOpenbNodes(Store& store, const std::vector<OpenbNode>& nodes) {
  std::string jsonl;
  for (const OpenbNode& node : nodes) jsonl += NodePoolJsonLine(node.pool) + "\n";
  std::istringstream in(jsonl);
  auto imported = ImportNodePools(store, in);
  if (!imported.ok()) throw std::runtime_error(imported.status().ToString());
  if (!imported->errors.empty()) {
    throw std::runtime_error(fmt::format("pool {}: {} {}", imported->errors[0].node_pool_id,
                                         imported->errors[0].field, imported->errors[0].reason));
  }
}

}  // namespace hwrec::bench
