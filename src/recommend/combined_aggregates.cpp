#include "recommend/combined_aggregates.h"

#include "store/combined_read.h"

namespace hwrec::internal {

namespace {

namespace combined = store::combined;

// The columns every aggregates arm gives, typed: they may open a statement.
#define HWREC_AGGREGATE_COLUMNS                                                        \
  "SELECT 2, scope, gpu_brand, gpu_model, instance_type, width, workload_id, "         \
  "CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS DOUBLE PRECISION), state " \
  "FROM aggregates "
#define HWREC_OF_WORKLOAD "WHERE workload_id = (SELECT id FROM workloads WHERE image = ?) "

static_assert(combined::kAggregates == 2 && combined::kWorkload == 1);

// One arm per scope of one key (parameters: image, brand, model, instance
// type; image, brand, model; image, instance type; image), each one seek.
constexpr std::string_view kScopeArms = HWREC_AGGREGATE_COLUMNS HWREC_OF_WORKLOAD
    "AND scope = 'exact' AND gpu_brand = ? AND gpu_model = ? AND instance_type = ? AND width = 0 "
    "UNION ALL " HWREC_AGGREGATE_COLUMNS HWREC_OF_WORKLOAD
    "AND scope = 'gpu_model' AND gpu_brand = ? AND gpu_model = ? AND instance_type = '' "
    "AND width = 0 "
    "UNION ALL " HWREC_AGGREGATE_COLUMNS HWREC_OF_WORKLOAD
    "AND scope = 'instance_type' AND gpu_brand = '' AND gpu_model = '' AND instance_type = ? "
    "AND width = 0 "
    "UNION ALL " HWREC_AGGREGATE_COLUMNS HWREC_OF_WORKLOAD
    "AND scope = 'any' AND gpu_brand = '' AND gpu_model = '' AND instance_type = '' "
    "AND width = 0";
constexpr std::string_view kEveryRowArm = HWREC_AGGREGATE_COLUMNS HWREC_OF_WORKLOAD;
constexpr std::string_view kWorkloadArm =
    "SELECT 1, NULL, NULL, NULL, NULL, id, NULL, NULL, NULL, NULL, NULL FROM workloads WHERE "
    "image = ?";

#undef HWREC_AGGREGATE_COLUMNS
#undef HWREC_OF_WORKLOAD

constexpr AggregateColumns kColumns{combined::kText0,     combined::kText0 + 1,
                                    combined::kText0 + 2, combined::kText0 + 3,
                                    combined::kInt0,      combined::kBlob};

}  // namespace

std::vector<std::string_view> CombinedAggregates::Arms(Rows rows) {
  return {rows == Rows::kScopesOfOneKey ? kScopeArms : kEveryRowArm, kWorkloadArm};
}

int CombinedAggregates::Bind(store::Statement& statement, int index, Rows rows,
                             const std::string& image, const HardwareKey* hardware) {
  if (rows == Rows::kScopesOfOneKey) {
    // Views of the key's own strings ("" for none): bound without a copy.
    const auto text = [](const std::optional<std::string>& field) {
      return field ? std::string_view(*field) : std::string_view("");
    };
    const std::string_view brand = text(hardware->gpu_brand);
    const std::string_view model = text(hardware->gpu_model);
    const std::string_view instance_type = text(hardware->instance_type);
    for (const std::string_view value :
         {std::string_view(image), brand, model, instance_type, std::string_view(image), brand,
          model, std::string_view(image), instance_type}) {
      statement.BindTextView(index++, value);
    }
  }
  statement.BindTextView(index++, image);  // the last aggregates arm's
  statement.BindTextView(index++, image);  // the workload's
  return index;
}

void CombinedAggregates::Take(const store::Statement& row) {
  const std::int64_t part = row.Int64(combined::kPart);
  if (part != combined::kWorkload && part != combined::kAggregates) return;
  if (!started_) {  // the workload's row or one of its aggregates, whichever comes first
    key_.workload_id =
        row.Int64(part == combined::kWorkload ? combined::kInt0 : combined::kInt0 + 1);
    wanted_ = WantedAggregates(key_.workload_id, keys_, {});
    started_ = true;
  }
  if (part == combined::kAggregates) KeepAggregateRow(row, kColumns, &key_, &wanted_, {});
}

}  // namespace hwrec::internal
