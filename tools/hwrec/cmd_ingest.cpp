// `hwrec ingest STORE FILE|-`: ingests JSON lines of observations and reports
// what was stored, recognised as re-sent, in conflict, or rejected (and why).
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "hwrec/ingest.h"

namespace hwrec::cli {

namespace {

constexpr const char* kUsage =
    "hwrec ingest STORE FILE|- [--format table|json] [--strict] [--max-line-bytes N]\n\n"
    "Ingests execution observations, one JSON object per line, from FILE or stdin (-).\n"
    "A re-sent execution is counted once; a re-sent execution with different content is a\n"
    "conflict (the first stays). Bad lines are reported with their field and reason, kept in\n"
    "the store's ingest_rejects table, and never stop the good lines. Unknown fields are\n"
    "warnings (the record is kept) unless --strict; a line over --max-line-bytes (default\n"
    "1048576) is rejected.\n\n"
    "Exit codes: 0 every line stored or recognised, 3 some lines rejected, 1 error, 2 usage";

void PrintJson(const IngestSummary& summary) {
  nlohmann::ordered_json out;
  out["accepted"] = summary.accepted;
  out["duplicates"] = summary.duplicates;
  out["conflicts"] = summary.conflicts;
  out["rejected"] = summary.rejected;
  out["rejects"] = nlohmann::ordered_json::array();
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
  out["conflict_execution_ids"] = summary.conflict_execution_ids;
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
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
  if (summary.unresolved_hardware > 0) {
    std::cout << "\nSome records name a node pool that is not registered: their hardware is "
                 "learned as unknown; register the pools with `hwrec pools import`.\n";
  }
  if (!summary.conflict_execution_ids.empty()) {
    std::cout << "\nConflicting re-sends (the stored record was kept):\n";
    for (const std::string& id : summary.conflict_execution_ids) std::cout << "  " << id << "\n";
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

Result<IngestSummary> IngestInput(Store& store, const std::string& input, IngestOptions options) {
  options.source = input;
  Ingestor ingestor(store, options);
  if (input == "-") return ingestor.IngestJsonLines(std::cin);
  std::ifstream file(input, std::ios::binary);
  if (!file) {
    return Status::NotFound(fmt::format(
        "{}: cannot open the file for reading: check the path, or pass - for stdin", input));
  }
  return ingestor.IngestJsonLines(file);
}

}  // namespace

int RunIngest(const std::vector<std::string>& args) {
  std::string store_path;
  std::string input;
  std::string format_text;
  IngestOptions ingest_options;
  po::options_description options("Options");
  options.add_options()("store", po::value(&store_path)->required(), "the store (positional)")(
      "input", po::value(&input)->required(), "JSON lines file, or - for stdin (positional)");
  options.add_options()("strict", po::bool_switch(&ingest_options.strict),
                        "reject records with unknown fields instead of warning")(
      "max-line-bytes", po::value(&ingest_options.max_line_bytes)->default_value(1048576),
      "reject lines longer than this many bytes");
  AddFormatOption(options, &format_text);
  po::positional_options_description positional;
  positional.add("store", 1).add("input", 1);
  po::variables_map vm;
  if (!ParseArgs(args, kUsage, options, positional, &vm)) return kExitOk;
  const Format format = ParseFormat(format_text);
  if (ingest_options.max_line_bytes == 0) {
    throw UsageError("--max-line-bytes is 0: give the longest line to accept, e.g. 1048576");
  }

  auto store = OpenWritableStore(store_path);
  if (!store) return kExitError;
  auto summary = IngestInput(*store, input, ingest_options);
  if (!summary.ok()) return Fail(summary.status());
  if (format == Format::kJson) {
    PrintJson(*summary);
  } else {
    PrintTable(*summary);
  }
  return summary->rejected > 0 ? kExitPartial : kExitOk;
}

}  // namespace hwrec::cli
