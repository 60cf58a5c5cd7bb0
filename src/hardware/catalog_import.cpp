// ImportCatalogCsv: operator additions to the GPU catalog from CSV. Every row is
// checked on its own and against the catalog and the rows before it; the good
// rows are written together in one transaction.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <sstream>
#include <variant>

#include "base/csv.h"
#include "base/text.h"
#include "hardware/gpu_mode.h"
#include "hwrec/catalog.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::CsvReader;
using internal::CsvRecord;

constexpr const char* kColumns[] = {"brand", "model",     "card_memory_gb", "card_compute_slices",
                                    "mode",  "memory_gb", "compute_slices"};
constexpr std::size_t kColumnCount = std::size(kColumns);
constexpr const char* kHeader =
    "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices";

struct CatalogRow {
  std::int64_t line = 0;
  std::string brand;
  std::string model;
  double card_memory_gb = 0;
  int card_compute_slices = 0;
  std::string mode;
  double memory_gb = 0;
  int compute_slices = 0;
};

using RowOrError = std::variant<CatalogRow, CatalogImportError>;

bool SameNumber(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(a));
}

std::optional<CatalogImportError> ParsePositiveDouble(const CsvRecord& r, std::size_t column,
                                                      double* out) {
  const std::string text(internal::Trim(r.fields[column]));
  char* end = nullptr;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value <= 0) {
    return CatalogImportError{r.line, kColumns[column],
                              fmt::format("is '{}': give a number greater than zero", text)};
  }
  *out = value;
  return std::nullopt;
}

std::optional<CatalogImportError> ParsePositiveInt(const CsvRecord& r, std::size_t column,
                                                   int* out) {
  const std::string text(internal::Trim(r.fields[column]));
  char* end = nullptr;
  const long value = text.empty() ? 0 : std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || value <= 0 || value > 1000) {
    return CatalogImportError{r.line, kColumns[column],
                              fmt::format("is '{}': give a whole number from 1 to 1000", text)};
  }
  *out = static_cast<int>(value);
  return std::nullopt;
}

// Reads the fields of one record; checks only what a row says on its own.
RowOrError ParseRow(const CsvRecord& r) {
  if (!r.error.empty()) return CatalogImportError{r.line, "row", r.error};
  if (r.fields.size() != kColumnCount) {
    return CatalogImportError{r.line, "row",
                              fmt::format("has {} fields: give the {} columns {}", r.fields.size(),
                                          kColumnCount, kHeader)};
  }
  CatalogRow row;
  row.line = r.line;
  row.brand = std::string(internal::Trim(r.fields[0]));
  row.model = std::string(internal::Trim(r.fields[1]));
  row.mode = std::string(internal::Trim(r.fields[4]));
  if (row.brand.empty()) return CatalogImportError{r.line, "brand", "is empty: name the maker"};
  if (row.model.empty()) return CatalogImportError{r.line, "model", "is empty: name the card"};
  std::optional<CatalogImportError> error = ParsePositiveDouble(r, 2, &row.card_memory_gb);
  if (!error) error = ParsePositiveInt(r, 3, &row.card_compute_slices);
  if (!error) error = ParsePositiveDouble(r, 5, &row.memory_gb);
  if (!error) error = ParsePositiveInt(r, 6, &row.compute_slices);
  if (error) return *error;
  return row;
}

std::optional<CatalogImportError> CheckPartitionShape(const CatalogRow& row) {
  auto fail = [&](const char* field, std::string reason) {
    return CatalogImportError{row.line, field, std::move(reason)};
  };
  if (row.mode == "full") {
    if (!SameNumber(row.memory_gb, row.card_memory_gb)) {
      return fail("memory_gb", fmt::format("is {} but the full card has {}: a full row offers "
                                           "the whole card's memory",
                                           row.memory_gb, row.card_memory_gb));
    }
    if (row.compute_slices != row.card_compute_slices) {
      return fail("compute_slices", fmt::format("is {} but the card has {}: a full row holds "
                                                "every compute slice",
                                                row.compute_slices, row.card_compute_slices));
    }
    return std::nullopt;
  }
  const std::optional<int> slices = internal::MigComputeSlices(row.mode);
  if (!slices) {
    return fail("mode",
                fmt::format("is '{}': use full or mig-<N>g.<memory>, e.g. mig-1g.10gb", row.mode));
  }
  if (*slices != row.compute_slices) {
    return fail("compute_slices", fmt::format("is {} but mode {} names {} slices: make them agree",
                                              row.compute_slices, row.mode, *slices));
  }
  if (row.compute_slices > row.card_compute_slices) {
    return fail("compute_slices", fmt::format("is {}, more than the card's {}", row.compute_slices,
                                              row.card_compute_slices));
  }
  if (row.memory_gb > row.card_memory_gb + 1e-9) {
    return fail("memory_gb",
                fmt::format("is {}, more than the card's {}", row.memory_gb, row.card_memory_gb));
  }
  return std::nullopt;
}

GpuPartition PartitionOf(const CatalogRow& row) {
  GpuPartition p;
  p.gpu_config_id = GpuConfigId(row.brand, row.model, row.mode);
  p.brand = row.brand;
  p.model = row.model;
  p.mode = row.mode;
  p.memory_gb = row.memory_gb;
  p.compute_slices = row.compute_slices;
  p.compute_fraction =
      static_cast<double>(row.compute_slices) / static_cast<double>(row.card_compute_slices);
  return p;
}

bool SamePartition(const GpuPartition& a, const GpuPartition& b) {
  return SameNumber(a.memory_gb, b.memory_gb) && a.compute_slices == b.compute_slices;
}

// What an import will write: new models and new partitions, checked row by row
// against the catalog and against the rows accepted before.
class ImportPlan {
 public:
  explicit ImportPlan(const GpuCatalog& catalog) : catalog_(catalog) {}

  void Add(const CatalogRow& row, CatalogImportSummary* summary);
  void AddMissingFullPartitions();
  void Write(store::Connection& db) const;
  std::int64_t added() const { return static_cast<std::int64_t>(partitions_.size()); }

 private:
  struct NewModel {
    GpuModel facts;
    std::int64_t line = 0;
  };
  struct NewPartition {
    GpuPartition partition;
    std::int64_t line = 0;
  };

  std::optional<CatalogImportError> CheckCard(const CatalogRow& row) const;
  // false: a new partition; true: identical to one already known; or an error.
  std::variant<bool, CatalogImportError> CheckPartition(const CatalogRow& row,
                                                        const GpuPartition& p) const;

  const GpuCatalog& catalog_;
  std::map<std::pair<std::string, std::string>, NewModel> models_;
  std::map<std::string, NewPartition> partitions_;  // by gpu_config_id
};

std::optional<CatalogImportError> ImportPlan::CheckCard(const CatalogRow& row) const {
  double memory_gb = 0;
  int slices = 0;
  std::string where;
  if (const GpuModel* known = catalog_.FindModel(row.brand, row.model)) {
    memory_gb = known->memory_gb;
    slices = known->compute_slices;
    where = "the catalog";
  } else if (auto it = models_.find({row.brand, row.model}); it != models_.end()) {
    memory_gb = it->second.facts.memory_gb;
    slices = it->second.facts.compute_slices;
    where = fmt::format("line {}", it->second.line);
  } else {
    const std::string slug = GpuConfigId(row.brand, row.model, "");
    for (const GpuModel& m : catalog_.models()) {
      if (GpuConfigId(m.brand, m.model, "") == slug) {
        return CatalogImportError{
            row.line, "model",
            fmt::format("'{} {}' is spelled '{} {}' in the catalog: use that spelling", row.brand,
                        row.model, m.brand, m.model)};
      }
    }
    return std::nullopt;
  }
  if (!SameNumber(memory_gb, row.card_memory_gb)) {
    return CatalogImportError{
        row.line, "card_memory_gb",
        fmt::format("is {} but {} says {} {} has {} GiB: give the same card facts on every row",
                    row.card_memory_gb, where, row.brand, row.model, memory_gb)};
  }
  if (slices != row.card_compute_slices) {
    return CatalogImportError{
        row.line, "card_compute_slices",
        fmt::format("is {} but {} says {} {} has {} compute slices: give the same card facts "
                    "on every row",
                    row.card_compute_slices, where, row.brand, row.model, slices)};
  }
  return std::nullopt;
}

std::variant<bool, CatalogImportError> ImportPlan::CheckPartition(const CatalogRow& row,
                                                                  const GpuPartition& p) const {
  auto describe = [](const GpuPartition& q) {
    return fmt::format("memory_gb {}, compute_slices {}", q.memory_gb, q.compute_slices);
  };
  if (const GpuPartition* known = catalog_.FindPartition(row.brand, row.model, row.mode)) {
    if (SamePartition(*known, p)) return true;
    return CatalogImportError{
        row.line, SameNumber(known->memory_gb, p.memory_gb) ? "compute_slices" : "memory_gb",
        fmt::format("{} {} {} is already in the catalog with {}; this row says {}: an import "
                    "never changes a partition",
                    row.brand, row.model, row.mode, describe(*known), describe(p))};
  }
  if (auto it = partitions_.find(p.gpu_config_id); it != partitions_.end()) {
    const NewPartition& earlier = it->second;
    if (earlier.partition.mode == p.mode && SamePartition(earlier.partition, p)) return true;
    return CatalogImportError{
        row.line, "mode",
        fmt::format("{} conflicts with line {} ({}): keep one of them", p.gpu_config_id,
                    earlier.line, describe(earlier.partition))};
  }
  for (const GpuModel& m : catalog_.models()) {
    for (const GpuPartition& q : m.partitions) {
      if (q.gpu_config_id == p.gpu_config_id) {
        return CatalogImportError{row.line, "mode",
                                  fmt::format("'{}' clashes with the catalog's {} {} {}: use "
                                              "the catalog spelling",
                                              row.mode, q.brand, q.model, q.mode)};
      }
    }
  }
  return false;
}

void ImportPlan::Add(const CatalogRow& row, CatalogImportSummary* summary) {
  std::optional<CatalogImportError> error = CheckPartitionShape(row);
  if (!error) error = CheckCard(row);
  if (error) {
    summary->errors.push_back(std::move(*error));
    return;
  }
  const GpuPartition partition = PartitionOf(row);
  auto known = CheckPartition(row, partition);
  if (auto* e = std::get_if<CatalogImportError>(&known)) {
    summary->errors.push_back(std::move(*e));
    return;
  }
  if (std::get<bool>(known)) {
    ++summary->unchanged;
    return;
  }
  if (catalog_.FindModel(row.brand, row.model) == nullptr) {
    NewModel& model = models_[{row.brand, row.model}];
    if (model.line == 0) {
      model.facts.brand = row.brand;
      model.facts.model = row.model;
      model.facts.memory_gb = row.card_memory_gb;
      model.facts.compute_slices = row.card_compute_slices;
      model.line = row.line;
    }
  }
  partitions_[partition.gpu_config_id] = NewPartition{partition, row.line};
}

void ImportPlan::AddMissingFullPartitions() {
  for (const auto& [key, model] : models_) {
    CatalogRow full;
    full.line = model.line;
    full.brand = model.facts.brand;
    full.model = model.facts.model;
    full.card_memory_gb = full.memory_gb = model.facts.memory_gb;
    full.card_compute_slices = full.compute_slices = model.facts.compute_slices;
    full.mode = "full";
    const GpuPartition partition = PartitionOf(full);
    partitions_.emplace(partition.gpu_config_id, NewPartition{partition, model.line});
  }
}

void ImportPlan::Write(store::Connection& db) const {
  auto insert_model = db.Prepare(
      "INSERT INTO gpu_models (brand, model, memory_gb, compute_slices, source) "
      "VALUES (?, ?, ?, ?, 'import')");
  for (const auto& [key, model] : models_) {
    insert_model->Bind(1, model.facts.brand);
    insert_model->Bind(2, model.facts.model);
    insert_model->Bind(3, model.facts.memory_gb);
    insert_model->Bind(4, model.facts.compute_slices);
    insert_model->Run();
  }
  auto insert_partition = db.Prepare(
      "INSERT INTO gpu_partitions (gpu_config_id, brand, model, mode, memory_gb, compute_slices, "
      "compute_fraction) VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const auto& [id, entry] : partitions_) {
    const GpuPartition& p = entry.partition;
    insert_partition->Bind(1, p.gpu_config_id);
    insert_partition->Bind(2, p.brand);
    insert_partition->Bind(3, p.model);
    insert_partition->Bind(4, p.mode);
    insert_partition->Bind(5, p.memory_gb);
    insert_partition->Bind(6, p.compute_slices);
    insert_partition->Bind(7, p.compute_fraction);
    insert_partition->Run();
  }
}

Status CheckHeader(CsvReader* reader) {
  CsvRecord header;
  if (!reader->Next(&header)) {
    return Status::InvalidArgument(
        fmt::format("the catalog CSV is empty: start it with the header line {}", kHeader));
  }
  std::vector<std::string> expected(std::begin(kColumns), std::end(kColumns));
  if (!header.error.empty() || header.fields != expected) {
    std::string got;
    for (std::size_t i = 0; i < header.fields.size(); ++i) {
      got += (i > 0 ? "," : "") + header.fields[i];
    }
    return Status::InvalidArgument(fmt::format("line 1: the header is '{}': it must be exactly {}",
                                               internal::Trim(got), kHeader));
  }
  return Status::Ok();
}

}  // namespace

Result<CatalogImportSummary> ImportCatalogCsv(Store& store, std::istream& csv) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  std::ostringstream text;
  if (csv.peek() != std::char_traits<char>::eof()) text << csv.rdbuf();
  if (csv.bad()) return Status::IoError("reading the catalog CSV failed");
  CsvReader after_header(text.str());
  if (Status header = CheckHeader(&after_header); !header.ok()) return header;

  return internal::Guarded("importing the GPU catalog", [&]() -> Result<CatalogImportSummary> {
    store::Connection& db = store::ConnectionOf(store);
    // Each attempt reads the rows afresh (a retry starts from the header again).
    return store::RunWrite(db, [&]() -> Result<CatalogImportSummary> {
      store::WriteTransaction tx(db);  // the catalog read is the one the rows are checked against
      auto catalog = GpuCatalog::Load(store);
      if (!catalog.ok()) return catalog.status();
      CatalogImportSummary summary;
      ImportPlan plan(*catalog);
      CsvReader reader = after_header;
      CsvRecord record;
      while (reader.Next(&record)) {
        const bool blank = record.error.empty() && record.fields.size() == 1 &&
                           internal::Trim(record.fields[0]).empty();
        if (blank) continue;
        RowOrError row = ParseRow(record);
        if (auto* error = std::get_if<CatalogImportError>(&row)) {
          summary.errors.push_back(std::move(*error));
        } else {
          plan.Add(std::get<CatalogRow>(row), &summary);
        }
      }
      plan.AddMissingFullPartitions();
      plan.Write(db);
      tx.Commit();
      summary.added = plan.added();
      return summary;
    });
  });
}

}  // namespace hwrec
