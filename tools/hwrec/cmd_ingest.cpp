// `hwrec ingest STORE FILE|-`: ingests JSON lines of observations and reports
// what was stored, recognised as re-sent, in conflict, or rejected (and why).
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli.h"
#include "commands.h"
#include "hwrec/ingest.h"

namespace hwrec::cli {

namespace {

constexpr const char* kUsage =
    "hwrec ingest STORE FILE|- [--format table|json|jsonl] [--batch-size N]\n\n"
    "Ingests execution observations, one JSON object per line, from FILE or stdin (-).\n"
    "A re-sent execution is counted once; a re-sent execution with different content is a\n"
    "conflict (the first stays). Bad lines are reported with their field and reason, kept in\n"
    "the store's ingest_rejects table, and never stop the good lines.\n\n"
    "Lines are stored in batches, one transaction each. --format jsonl prints one JSON line\n"
    "per committed batch as it is committed ({\"event\":\"batch_committed\",\n"
    "\"committed_through_line\":N,...}: every line up to N is stored), then the summary as a\n"
    "last line ({\"event\":\"summary\",...}). On a terminal, stderr shows a progress bar.\n\n"
    "Exit codes: 0 every line stored or recognised, 3 some lines rejected, 1 error, 2 usage";

nlohmann::ordered_json Counts(const IngestSummary& summary) {
  nlohmann::ordered_json out;
  out["accepted"] = summary.accepted;
  out["duplicates"] = summary.duplicates;
  out["conflicts"] = summary.conflicts;
  out["rejected"] = summary.rejected;
  out["profile_id_mismatches"] = summary.profile_id_mismatches;
  return out;
}

nlohmann::ordered_json SummaryJson(const IngestSummary& summary) {
  nlohmann::ordered_json out;
  out["accepted"] = summary.accepted;
  out["duplicates"] = summary.duplicates;
  out["conflicts"] = summary.conflicts;
  out["rejected"] = summary.rejected;
  out["rejects"] = nlohmann::ordered_json::array();
  for (const IngestReject& reject : summary.rejects) {
    out["rejects"].push_back(
        {{"line", reject.line}, {"field", reject.field}, {"reason", reject.reason}});
  }
  out["profile_id_mismatches"] = summary.profile_id_mismatches;
  out["conflict_execution_ids"] = summary.conflict_execution_ids;
  return out;
}

std::string Dump(const nlohmann::ordered_json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
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

void PrintTable(const IngestSummary& summary) {
  std::cout << fmt::format("accepted               {}\n", summary.accepted)
            << fmt::format("duplicates             {}\n", summary.duplicates)
            << fmt::format("conflicts              {}\n", summary.conflicts)
            << fmt::format("rejected               {}\n", summary.rejected)
            << fmt::format("profile id mismatches  {}\n", summary.profile_id_mismatches);
  if (!summary.conflict_execution_ids.empty()) {
    std::cout << "\nConflicting re-sends (the stored record was kept):\n";
    for (const std::string& id : summary.conflict_execution_ids) std::cout << "  " << id << "\n";
  }
  if (summary.rejects.empty()) return;
  std::cout << "\nRejected lines (kept in the store's ingest_rejects table):\n";
  Table table({"line", "execution_id", "field", "reason"});
  for (const IngestReject& reject : summary.rejects) {
    table.AddRow({std::to_string(reject.line), reject.execution_id, reject.field, reject.reason});
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
  auto summary = Ingestor(store, options).IngestJsonLines(in);
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
  IngestOptions ingest;
  std::int64_t batch_size = static_cast<std::int64_t>(ingest.batch_size);
  po::options_description options("Options");
  options.add_options()("store", po::value(&store_path)->required(), "the store (positional)")(
      "input", po::value(&ingest.source)->required(),
      "JSON lines file, or - for stdin (positional)")(
      "format", po::value(&format_text)->default_value("table"),
      "output format: table, json, or jsonl (a line per committed batch, then the summary)")(
      "batch-size", po::value(&batch_size)->default_value(batch_size),
      "records per transaction (at least 1)");
  po::positional_options_description positional;
  positional.add("store", 1).add("input", 1);
  po::variables_map vm;
  if (!ParseArgs(args, kUsage, options, positional, &vm)) return kExitOk;
  const Format format = ParseStreamingFormat(format_text);
  if (batch_size < 1)
    throw UsageError(fmt::format("--batch-size must be at least 1, not {}", batch_size));
  ingest.batch_size = static_cast<std::size_t>(batch_size);

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
