#include "hwrec/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "base/text.h"
#include "hardware/catalog_tables.h"
#include "hardware/gpu_mode.h"
#include "hwrec/remedy.h"
#include "store/database.h"
#include "store/guarded.h"
#include "store/row_values.h"

namespace hwrec {

namespace internal {

std::optional<int> MigComputeSlices(std::string_view mode) {
  constexpr std::string_view kPrefix = "mig-";
  if (mode.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  mode.remove_prefix(kPrefix.size());
  std::size_t digits = 0;
  while (digits < mode.size() && std::isdigit(static_cast<unsigned char>(mode[digits])) != 0) {
    ++digits;
  }
  // "<N>g.<memory>": at least one digit, then "g.", then a non-empty memory part.
  if (digits == 0 || digits > 3 || mode.substr(digits, 2) != "g." || mode.size() <= digits + 2) {
    return std::nullopt;
  }
  const int slices = std::stoi(std::string(mode.substr(0, digits)));
  if (slices <= 0) return std::nullopt;
  return slices;
}

bool IsGpuModeSyntax(std::string_view mode) {
  return mode == "full" || MigComputeSlices(mode).has_value();
}

}  // namespace internal

namespace {

// Lowercase, with spaces and dashes removed: "A100-80GB" and "a100 80gb" agree.
std::string NormalizeModel(std::string_view model) {
  std::string out;
  for (char c : internal::ToLower(model)) {
    if (c != ' ' && c != '-' && c != '_' && c != '\t') out += c;
  }
  return out;
}

// `full` first, then MIG profiles by size.
bool PartitionOrder(const GpuPartition& a, const GpuPartition& b) {
  const bool a_full = a.mode == "full";
  const bool b_full = b.mode == "full";
  if (a_full != b_full) return a_full;
  return std::tie(a.compute_slices, a.memory_gb, a.mode) <
         std::tie(b.compute_slices, b.memory_gb, b.mode);
}

bool HasCatalogTables(store::Connection& db) {
  return db.HasTable("gpu_models") && db.HasTable("gpu_partitions");
}

std::vector<GpuModel> ReadModels(store::Connection& db) { return internal::ReadGpuModels(db); }

}  // namespace

std::vector<GpuModel> internal::ReadGpuModels(store::Connection& db) {
  std::vector<GpuModel> models;
  auto query = db.Prepare(
      "SELECT brand, model, memory_gb, compute_slices FROM gpu_models ORDER BY brand, model");
  while (query->Step()) {
    GpuModel& m = models.emplace_back();
    store::ReadRow(*query, &m.brand, &m.model, &m.memory_gb, &m.compute_slices);
  }
  return models;
}

namespace {

void ReadPartitions(store::Connection& db, std::vector<GpuModel>* models) {
  std::map<std::pair<std::string, std::string>, GpuModel*> by_key;
  for (GpuModel& model : *models) by_key[{model.brand, model.model}] = &model;
  auto query = db.Prepare(
      "SELECT gpu_config_id, brand, model, mode, memory_gb, compute_slices, compute_fraction "
      "FROM gpu_partitions");
  while (query->Step()) {
    GpuPartition p;
    store::ReadRow(*query, &p.gpu_config_id, &p.brand, &p.model, &p.mode, &p.memory_gb,
                   &p.compute_slices, &p.compute_fraction);
    auto it = by_key.find({p.brand, p.model});
    if (it != by_key.end()) it->second->partitions.push_back(std::move(p));
  }
  for (GpuModel& model : *models) {
    std::sort(model.partitions.begin(), model.partitions.end(), PartitionOrder);
  }
}

bool MatchesEveryToken(const GpuPartition& p, const std::vector<std::string>& tokens) {
  return std::all_of(tokens.begin(), tokens.end(), [&](const std::string& token) {
    return internal::ContainsIgnoreCase(p.gpu_config_id, token) ||
           internal::ContainsIgnoreCase(p.brand, token) ||
           internal::ContainsIgnoreCase(p.model, token) ||
           internal::ContainsIgnoreCase(p.mode, token);
  });
}

}  // namespace

std::string GpuConfigId(std::string_view brand, std::string_view model, std::string_view mode) {
  const std::string words = fmt::format("{} {}", internal::Trim(brand), internal::Trim(model));
  std::string slug;
  for (const std::string& token : internal::SplitWhitespace(words)) {
    if (!slug.empty()) slug += '-';
    slug += internal::ToLower(token);
  }
  return slug + "-" + internal::ToLower(internal::Trim(mode));
}

Result<GpuCatalog> GpuCatalog::Load(const Store& store) {
  return internal::Guarded(store, "loading the GPU catalog", [&]() -> Result<GpuCatalog> {
    store::Connection& db = store::ConnectionOf(store);
    if (!HasCatalogTables(db)) {
      return Status::SchemaMismatch(
          fmt::format("{}: the store is at schema {} and has no GPU catalog: run {}", store.path(),
                      store.schema_version(), RemedyText(Remedy::kMigrate, store.path())));
    }
    GpuCatalog catalog;
    catalog.models_ = ReadModels(db);
    ReadPartitions(db, &catalog.models_);
    return catalog;
  });
}

const GpuModel* GpuCatalog::FindModel(std::string_view brand, std::string_view model) const {
  for (const GpuModel& m : models_) {
    if (m.brand == brand && m.model == model) return &m;
  }
  return nullptr;
}

const GpuModel* GpuCatalog::FindModelAnyBrand(std::string_view model) const {
  for (const GpuModel& m : models_) {
    if (m.model == model) return &m;
  }
  return nullptr;
}

void GpuCatalog::FillBrand(HardwareProfile* profile) const {
  if (profile->gpu_brand || !profile->gpu_model) return;
  if (const GpuModel* model = FindModelAnyBrand(*profile->gpu_model)) {
    profile->gpu_brand = model->brand;
  }
}

const GpuPartition* GpuCatalog::FindPartition(std::string_view brand, std::string_view model,
                                              std::string_view mode) const {
  const GpuModel* m = FindModel(brand, model);
  if (m == nullptr) return nullptr;
  for (const GpuPartition& p : m->partitions) {
    if (p.mode == mode) return &p;
  }
  return nullptr;
}

std::vector<GpuPartition> GpuCatalog::Search(std::string_view query) const {
  const std::vector<std::string> tokens = internal::SplitWhitespace(query);
  std::vector<GpuPartition> found;
  for (const GpuModel& m : models_) {
    for (const GpuPartition& p : m.partitions) {
      if (MatchesEveryToken(p, tokens)) found.push_back(p);
    }
  }
  return found;
}

Result<GpuModel> GpuCatalog::ResolveModel(const std::optional<std::string>& brand,
                                          std::string_view model) const {
  const GpuModel* found = brand ? FindModel(*brand, model) : FindModelAnyBrand(model);
  if (found != nullptr) return *found;
  std::string hint;
  for (const std::string& s : ClosestModels(model)) hint += (hint.empty() ? "" : ", ") + s;
  return Status::InvalidArgument(
      fmt::format("GPU model '{}' is not in the catalog{}: {}{} shows every model (or "
                  "use `unknown` for pools whose model is not recorded)",
                  model, brand ? fmt::format(" under {}", *brand) : "",
                  hint.empty() ? "" : fmt::format("did you mean {}? ", hint),
                  RemedyText(Remedy::kCatalogList)));
}

namespace {

// The checks of a named key that need no catalog; false when the key names
// no model (nothing to resolve).
Result<bool> NamesModel(HardwareKey* named) {
  if (named->gpu_model && *named->gpu_model == "unknown") named->gpu_model.reset();
  if (named->cpu_only && (named->gpu_brand || named->gpu_model)) {
    return Status::InvalidArgument(
        "a CPU-only key names no GPU: leave out the GPU brand and model, or ask for a GPU key");
  }
  return named->gpu_model.has_value();
}

}  // namespace

Result<HardwareKey> GpuCatalog::ResolveKey(HardwareKey named, std::string_view model_field) const {
  const Result<bool> names_model = NamesModel(&named);
  if (!names_model.ok()) return names_model.status();
  if (!*names_model) return named;
  auto model = ResolveModel(named.gpu_brand, *named.gpu_model);
  if (!model.ok()) {
    return Status::InvalidArgument(fmt::format("{}: {}", model_field, model.status().message()));
  }
  named.gpu_brand = model->brand;
  named.gpu_model = model->model;
  return named;
}

Result<HardwareKey> ResolveHardwareKey(const Store& store, HardwareKey named,
                                       std::string_view model_field) {
  const Result<bool> names_model = NamesModel(&named);
  if (!names_model.ok()) return names_model.status();
  if (!*names_model) return named;  // no model: the store is not read
  auto catalog = GpuCatalog::Load(store);
  if (!catalog.ok()) return catalog.status();
  return catalog->ResolveKey(std::move(named), model_field);
}

std::vector<std::string> GpuCatalog::ClosestModels(std::string_view model,
                                                   std::size_t limit) const {
  // Score = 2 × edit distance, less a bonus when one normalized spelling holds
  // the other: the full query inside a card ("h100" in "h10080gb") weighs most;
  // a card inside the query ("t4" in "teslat4") less, so that "a100" prefers the
  // A100 cards to the A10. Spellings far from everything are not suggested.
  const std::string wanted = NormalizeModel(model);
  const std::size_t max_distance = std::max<std::size_t>(2, wanted.size() / 2);
  std::vector<std::tuple<long, std::size_t, std::string>> ranked;
  for (std::size_t i = 0; i < models_.size(); ++i) {
    const std::string candidate = NormalizeModel(models_[i].model);
    const std::size_t distance = internal::EditDistance(wanted, candidate);
    std::size_t bonus = 0;
    if (!wanted.empty() && candidate.find(wanted) != std::string::npos) {
      bonus = 2 * wanted.size();
    } else if (!candidate.empty() && wanted.find(candidate) != std::string::npos) {
      bonus = candidate.size() / 2;
    }
    if (bonus == 0 && distance > max_distance) continue;
    ranked.emplace_back(static_cast<long>(2 * distance) - static_cast<long>(bonus), i,
                        models_[i].model);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (const auto& entry : ranked) {
    if (out.size() >= limit) break;
    const std::string& spelling = std::get<2>(entry);
    if (std::find(out.begin(), out.end(), spelling) == out.end()) out.push_back(spelling);
  }
  return out;
}

}  // namespace hwrec
