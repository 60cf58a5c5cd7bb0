// The parts of a read in one statement (store/combined_read.h) that give a
// RecommendationReader's Read with a memo all it asks of the store: the
// workload's id and its aggregate rows, the scopes of one hardware key or
// every row of the workload, kept as ReadAggregates keeps them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/hardware_key.h"
#include "recommend/recommendation_reader.h"
#include "store/database.h"

namespace hwrec::internal {

class CombinedAggregates {
 public:
  enum class Rows {
    kScopesOfOneKey,  // one key's rows at width 0: Read without a width
    kEveryRow,        // the workload's rows: Read of any keys at any width
  };
  // The arms, in the statement's order; an aggregates arm comes first, so
  // they may open a statement (they name every column's type).
  static std::vector<std::string_view> Arms(Rows rows);
  // Binds the arms' parameters from `index` on (`hardware` for
  // kScopesOfOneKey); returns the next index.
  static int Bind(store::Statement& statement, int index, Rows rows, const std::string& image,
                  const HardwareKey* hardware);

  // `keys`: those Read will be asked for (they outlive this).
  explicit CombinedAggregates(std::vector<const HardwareKey*> keys) : keys_(std::move(keys)) {}
  // A row of the statement: those of other parts are left.
  void Take(const store::Statement& row);
  // After the last row: the workload's id (0: no history) and the memo for
  // Read, in which every row Read of `keys` wants is present or absent.
  std::int64_t workload_id() const { return key_.workload_id; }
  AggregateMemo TakeMemo() { return std::move(wanted_); }

 private:
  std::vector<const HardwareKey*> keys_;
  bool started_ = false;  // a row of the workload was taken
  AggregateKey key_;      // its workload_id set by the first row; the rest scratch
  AggregateMemo wanted_;
};

}  // namespace hwrec::internal
