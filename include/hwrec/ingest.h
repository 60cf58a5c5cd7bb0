// Ingestor: writes observations into a store, validated and deduplicated.
// Each batch is written in transactions of at most IngestOptions::batch_size
// records; a bad record is kept in the rejects table with its reason and never
// stops the good ones beside it. An Ingestor uses its Store's connection: one
// thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/observation.h"
#include "hwrec/record_error.h"
#include "hwrec/runner.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;
struct IngestProgress;

struct HWREC_EXPORT IngestOptions {
  std::string source = "api";  // recorded with rejects: a file name, "-", "api"
  // Records per transaction. A batch's lines are read before its transaction
  // begins; a batch also ends once its lines hold 64 MiB.
  std::size_t batch_size = 10000;
  // A descriptor's input that pauses this long, with records read, has them
  // committed without waiting for the batch to fill (IngestJsonLines(int)).
  int commit_after_idle_ms = 200;
  // A JSON line longer than this is rejected (field `json`) without being read
  // whole into memory.
  std::size_t max_line_bytes = 1048576;
  bool strict = false;  // unknown fields reject their record instead of a warning
  // The shape of JSON records: hwrec's (DESIGN §5), the Runner's
  // CompleteExecutionMetric (docs/RUNNER.md), or told apart per record.
  RecordForm form = RecordForm::kAuto;
  // Called after each batch's commit, on the ingesting thread: what it reports
  // is stored even if the process stops right after.
  std::function<void(const IngestProgress&)> on_batch_committed;
};

// A refused record: its RecordError is the first problem (`line` is the
// 1-based line of JSON lines or the position in the batch; `field` e.g.
// "gpu_compute_fraction", "json" for a malformed line).
struct HWREC_EXPORT IngestReject : RecordError {
  std::string execution_id;  // empty when the record had none readable
  // Every problem found, the first included: those of the record's own checks
  // (types, required fields, ranges), or, for a record that passes them, of
  // its hardware, its finished_at against the clock and its peaks.
  std::vector<RecordError> errors;
};

// A record kept with a remark, e.g. an unknown field (ignored) and the closest
// known name.
struct HWREC_EXPORT IngestWarning {
  std::int64_t line = 0;
  std::string execution_id;
  std::string field;
  std::string message;
};

struct HWREC_EXPORT IngestSummary {
  std::int64_t accepted = 0;               // new observations stored
  std::int64_t duplicates = 0;             // identical re-sends, counted once
  std::int64_t conflicts = 0;              // same execution_id, different content: first kept
  std::int64_t rejected = 0;               // invalid records, kept in ingest_rejects
  std::int64_t profile_id_mismatches = 0;  // sent hardware_profile_id ≠ recomputed
  // Accepted with a node_pool_id no registered pool has: only the hardware the
  // record sent is known, the rest is learned as the unknown population.
  std::int64_t unresolved_hardware = 0;
  // Batches hwrec ran again, whole: the store cancelled them (writers running
  // at once on PostgreSQL that met in a deadlock or a serialization failure),
  // or the connection to PostgreSQL was lost (a restart, a failover to a
  // standby) and hwrec re-sent the batch once the server answered again. A
  // batch whose commit went through before the connection was lost finds
  // its records stored when re-sent: they count as duplicates, not accepted.
  std::int64_t retried_batches = 0;
  std::vector<IngestReject> rejects;
  std::vector<IngestWarning> warnings;  // records kept with a remark
  std::vector<std::string> conflict_execution_ids;

  IngestSummary& operator+=(const IngestSummary& other);
};

// What is stored once a batch is committed.
struct HWREC_EXPORT IngestProgress {
  std::int64_t committed_through_line = 0;  // the batch's last line (or position), 1-based
  std::int64_t batches = 0;                 // batches committed so far, this one included
  const IngestSummary* totals = nullptr;    // running counts; valid during the call only
};

class HWREC_EXPORT Ingestor {
 public:
  // An ingestor into `store`, which must outlive it. It keeps the store's GPU
  // catalog and settings between its calls and reads them again when any
  // writer (another process too) changed them; it keeps the aggregate states
  // its last transactions wrote (at most 4,096 keys, ~3 KiB each) and reads
  // them again when anything else wrote to the store since (on SQLite; on
  // PostgreSQL it reads them each time). Reuse one for many calls. The store must be
  // writable and at the latest schema (Store::CheckWritable): an Ingest call
  // checks unless the store is as this Ingestor's last call left it, so Open
  // itself never fails today; a Result so that every store-bound object is
  // opened the same way.
  static Result<std::unique_ptr<Ingestor>> Open(Store& store, IngestOptions options = {});
  Ingestor(const Ingestor&) = delete;
  Ingestor& operator=(const Ingestor&) = delete;
  ~Ingestor();

  // Each Ingest call returns kInvalidArgument when the options are unusable
  // (batch_size or max_line_bytes 0, commit_after_idle_ms negative), kReadOnly
  // or kSchemaMismatch when the store cannot be written (Store::CheckWritable),
  // kIoError when a batch could not be stored (the batches before it are) or
  // the input could not be read. Invalid records are not errors: they are
  // counted and kept in the summary's rejects.

  // Ingests observations built in C++; reject lines are 1-based positions.
  Result<IngestSummary> Ingest(const std::vector<Observation>& observations);
  // Ingests JSON lines from `in` (blank lines skipped). Each batch is read
  // whole before its transaction, so no lock is held while `in` blocks.
  Result<IngestSummary> IngestJsonLines(std::istream& in);
  // Ingests JSON lines from `fd` (not closed; e.g. a pipe on stdin) until its
  // end, committing what has arrived whenever it pauses for
  // commit_after_idle_ms, so that other writers and readers are never held up
  // by a producer that is slow or idle.
  Result<IngestSummary> IngestJsonLines(int fd);

 private:
  Ingestor(Store& store, IngestOptions options);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hwrec
