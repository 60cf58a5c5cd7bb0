// `hwrec ingest STORE FILE|-`: ingests JSON lines of observations and reports
// what was stored, recognised as re-sent, in conflict, or rejected (and why).
#include <fmt/format.h>
#include <unistd.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/ingest.h"

namespace hwrec::cli {

namespace {

constexpr const char* kIngestUsage =
    "hwrec ingest STORE FILE|- [--format table|json|jsonl] [--batch-size N] [--strict]\n"
    "             [--max-line-bytes N] [--commit-after-idle MS] [--from auto|hwrec|runner]\n\n"
    "Ingests execution observations, one JSON object per line, from FILE or stdin (-).\n"
    "Records are in hwrec's form or the Runner's CompleteExecutionMetric with its metrics\n"
    "(docs/RUNNER.md); --from auto (the default) tells them apart per record.\n"
    "A re-sent execution is counted once; a re-sent execution with different content is a\n"
    "conflict (the first stays). Bad lines are reported with their field and reason, kept in\n"
    "the store's ingest_rejects table, and never stop the good lines. Unknown fields are\n"
    "warnings (the record is kept) unless --strict; a line over --max-line-bytes (default\n"
    "1048576) is rejected.\n\n"
    "Lines are stored in batches, one transaction each, read before it begins; from stdin, what\n"
    "has arrived is committed when the input pauses for --commit-after-idle MS (default 200),\n"
    "so other writers and readers never wait on a slow producer. --format jsonl prints one\n"
    "JSON line per committed batch as it is committed ({\"event\":\"batch_committed\",\n"
    "\"committed_through_line\":N,...}: every line up to N is stored), then the summary as a\n"
    "last line ({\"event\":\"summary\",...}). On a terminal, stderr shows a progress bar.\n\n"
    "Exit codes: 0 every line stored or recognised, 3 some lines rejected, 1 error, 2 usage";

nlohmann::ordered_json Counts(const IngestSummary& summary) {
  return tools::JsonObject("accepted", summary.accepted, "duplicates", summary.duplicates,
                           "conflicts", summary.conflicts, "rejected", summary.rejected,
                           "warning_count", summary.warnings.size(), "profile_id_mismatches",
                           summary.profile_id_mismatches, "unresolved_hardware",
                           summary.unresolved_hardware);
}

nlohmann::ordered_json SummaryJson(const IngestSummary& summary) {
  nlohmann::ordered_json out = tools::JsonObject(
      "accepted", summary.accepted, "duplicates", summary.duplicates, "conflicts",
      summary.conflicts, "rejected", summary.rejected, "rejects", nlohmann::ordered_json::array());
  for (const IngestReject& reject : summary.rejects) {
    nlohmann::ordered_json errors = nlohmann::ordered_json::array();
    for (const FieldError& e : reject.errors) {
      errors.push_back({{"field", e.field}, {"reason", e.reason}});
    }
    out["rejects"].push_back({{"line", reject.line},
                              {"field", reject.field},
                              {"reason", reject.reason},
                              {"errors", std::move(errors)}});
  }
  out["warning_count"] = summary.warnings.size();
  out["warnings"] = nlohmann::ordered_json::array();
  for (const IngestWarning& warning : summary.warnings) {
    out["warnings"].push_back({{"line", warning.line},
                               {"execution_id", warning.execution_id},
                               {"field", warning.field},
                               {"message", warning.message}});
  }
  out["profile_id_mismatches"] = summary.profile_id_mismatches;
  out["unresolved_hardware"] = summary.unresolved_hardware;
  out["retried_batches"] = summary.retried_batches;
  out["conflict_execution_ids"] = summary.conflict_execution_ids;
  return out;
}

std::string Dump(const nlohmann::ordered_json& json, int indent) {
  return tools::DumpJson(json, indent);
}

// One line per committed batch, flushed so that a caller reading the pipe
// knows what is stored even if hwrec is stopped right after.
void PrintBatchLine(const IngestProgress& progress) {
  nlohmann::ordered_json out;
  out["event"] = "batch_committed";
  out["committed_through_line"] = progress.committed_through_line;
  out["batches"] = progress.batches;
  out.update(Counts(*progress.totals));
  std::cout << Dump(out, -1) << std::endl;
}

void PrintSummaryLine(const IngestSummary& summary) {
  nlohmann::ordered_json out;
  out["event"] = "summary";
  out.update(SummaryJson(summary));
  std::cout << Dump(out, -1) << std::endl;
}

void PrintWarnings(const std::vector<IngestWarning>& warnings) {
  if (warnings.empty()) return;
  std::cout << "\nWarnings (the records were kept):\n";
  Table table({"line", "execution_id", "field", "warning"});
  for (const IngestWarning& w : warnings) {
    table.AddRow({std::to_string(w.line), w.execution_id, w.field, w.message});
  }
  table.Print(std::cout);
}

void PrintTable(const IngestSummary& summary) {
  std::cout << fmt::format("accepted               {}\n", summary.accepted)
            << fmt::format("duplicates             {}\n", summary.duplicates)
            << fmt::format("conflicts              {}\n", summary.conflicts)
            << fmt::format("rejected               {}\n", summary.rejected)
            << fmt::format("warnings               {}\n", summary.warnings.size())
            << fmt::format("profile id mismatches  {}\n", summary.profile_id_mismatches)
            << fmt::format("unresolved hardware    {}\n", summary.unresolved_hardware);
  if (summary.retried_batches > 0) {  // writers running at once on PostgreSQL
    std::cout << fmt::format("retried batches        {}\n", summary.retried_batches);
  }
  if (summary.unresolved_hardware > 0) {
    std::cout << "\nSome records name a node pool that is not registered: their hardware is "
                 "learned as unknown; register the pools with `hwrec pools import`.\n";
  }
  if (!summary.conflict_execution_ids.empty()) {
    std::cout << "\nConflicting re-sends (the stored record was kept):\n";
    for (const std::string& id : summary.conflict_execution_ids) {
      std::cout << "  " << TerminalSafe(id) << "\n";
    }
  }
  PrintWarnings(summary.warnings);
  if (summary.rejects.empty()) return;
  std::cout << "\nRejected lines (kept in the store's ingest_rejects table):\n";
  Table table({"line", "execution_id", "field", "reason"});
  for (const IngestReject& reject : summary.rejects) {
    for (std::size_t i = 0; i < std::max<std::size_t>(1, reject.errors.size()); ++i) {
      const bool first = i == 0;
      const std::string& field = reject.errors.empty() ? reject.field : reject.errors[i].field;
      const std::string& reason = reject.errors.empty() ? reject.reason : reject.errors[i].reason;
      table.AddRow({first ? std::to_string(reject.line) : "", first ? reject.execution_id : "",
                    field, reason});
    }
  }
  table.Print(std::cout);
}

// The share of a file read so far, from its position; unknown for stdin.
std::optional<double> ShareRead(std::istream& in, std::int64_t size) {
  if (size <= 0) return std::nullopt;
  const std::streamoff position = in.tellg();
  if (position < 0) return 1.0;  // past the end
  return static_cast<double>(position) / static_cast<double>(size);
}

// Progress on stderr when it is a terminal (`*drawn` set once drawn), then a
// line per batch for jsonl.
void WatchProgress(IngestOptions& options, Format format, std::istream& in, std::int64_t size,
                   bool* drawn) {
  const bool bar = isatty(STDERR_FILENO) != 0;
  const std::string label = "ingesting " + options.source;
  options.on_batch_committed = [=, &in](const IngestProgress& progress) {
    if (bar) {
      *drawn = true;
      const IngestSummary& t = *progress.totals;
      DrawProgressLine(label, ShareRead(in, size),
                       fmt::format("line {}: {} accepted, {} rejected",
                                   progress.committed_through_line, t.accepted, t.rejected),
                       false);
    }
    if (format == Format::kJsonLines) PrintBatchLine(progress);
  };
}

Result<IngestSummary> IngestStream(Store& store, IngestOptions options, Format format,
                                   std::istream& in, std::int64_t size) {
  bool drawn = false;
  WatchProgress(options, format, in, size, &drawn);
  auto ingestor = Ingestor::Open(store, options);
  if (!ingestor.ok()) return ingestor.status();
  // stdin is read through its descriptor, so that a pause in a pipe commits what arrived.
  auto summary = &in == &std::cin ? (*ingestor)->IngestJsonLines(STDIN_FILENO)
                                  : (*ingestor)->IngestJsonLines(in);
  if (drawn) std::cerr << "\n";  // ends the progress line
  return summary;
}

Result<IngestSummary> IngestInput(Store& store, const IngestOptions& options, Format format) {
  if (options.source == "-") return IngestStream(store, options, format, std::cin, 0);
  std::ifstream file(options.source, std::ios::binary | std::ios::ate);
  if (!file) {
    return Status::NotFound(
        fmt::format("{}: cannot open the file for reading: check the path, or pass - for stdin",
                    options.source));
  }
  const std::int64_t size = file.tellg();
  file.seekg(0);
  return IngestStream(store, options, format, file, size);
}

}  // namespace

int RunIngest(const std::vector<std::string>& args) {
  std::string store_path;
  std::string format_text;
  std::string from_text;
  IngestOptions ingest;
  std::int64_t batch_size = static_cast<std::int64_t>(ingest.batch_size);
  // Read signed: a negative count must be refused, not wrapped to a huge one.
  std::int64_t max_line_bytes = static_cast<std::int64_t>(ingest.max_line_bytes);
  CommandLine line(kIngestUsage);
  line.Add()("store", po::value(&store_path)->required(), tools::kStoreArgumentHelp)(
      "input", po::value(&ingest.source)->required(),
      "JSON lines file, or - for stdin (positional)")(
      "format", po::value(&format_text)->default_value("table"),
      "output format: table, json, or jsonl (a line per committed batch, then the summary)")(
      "batch-size", po::value(&batch_size)->default_value(batch_size),
      "records per transaction (at least 1)")(
      "strict", po::bool_switch(&ingest.strict),
      "reject records with unknown fields instead of warning")(
      "max-line-bytes", po::value(&max_line_bytes)->default_value(max_line_bytes),
      "reject lines longer than this many bytes")(
      "commit-after-idle", po::value(&ingest.commit_after_idle_ms)->default_value(200),
      "from stdin, commit what has arrived once input pauses this many milliseconds");
  po::variables_map vm;
  if (!line.From(&from_text).Positional("store").Positional("input").Parse(args, &vm)) {
    return kExitOk;
  }
  const Format format = ParseStreamingFormat(format_text);
  ingest.form = ParseFromOption(from_text);
  if (batch_size < 1)
    throw UsageError(fmt::format("--batch-size must be at least 1, not {}", batch_size));
  ingest.batch_size = static_cast<std::size_t>(batch_size);
  if (max_line_bytes < 1) {
    throw UsageError(fmt::format(
        "--max-line-bytes is {}: give the longest line to accept, e.g. 1048576", max_line_bytes));
  }
  ingest.max_line_bytes = static_cast<std::size_t>(max_line_bytes);
  if (ingest.commit_after_idle_ms < 0) {
    throw UsageError(fmt::format("--commit-after-idle must be 0 or more milliseconds, not {}",
                                 ingest.commit_after_idle_ms));
  }

  auto store = OpenWritableStore(store_path);
  if (!store) return kExitError;
  auto summary = IngestInput(*store, ingest, format);
  if (!summary.ok()) return Fail(summary.status());
  if (format == Format::kJsonLines) {
    PrintSummaryLine(*summary);
  } else if (format == Format::kJson) {
    std::cout << Dump(SummaryJson(*summary), 2) << "\n";
  } else {
    PrintTable(*summary);
  }
  return summary->rejected > 0 ? kExitPartial : kExitOk;
}

}  // namespace hwrec::cli
