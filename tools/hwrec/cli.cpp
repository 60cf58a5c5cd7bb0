#include "cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "terminal_text.h"

namespace hwrec::cli {

void AddFormatOption(po::options_description& options, std::string* format_text) {
  options.add_options()("format", po::value<std::string>(format_text)->default_value("table"),
                        "output format: table or json");
}

Format ParseFormat(const std::string& text) {
  if (text == "table") return Format::kTable;
  if (text == "json") return Format::kJson;
  throw UsageError(fmt::format("--format must be table or json, not '{}'", text));
}

Format ParseStreamingFormat(const std::string& text) {
  if (text == "jsonl") return Format::kJsonLines;
  if (text == "table" || text == "json") return ParseFormat(text);
  throw UsageError(fmt::format("--format must be table, json or jsonl, not '{}'", text));
}

void AddFromOption(po::options_description& options, std::string* from_text) {
  options.add_options()("from", po::value<std::string>(from_text)->default_value("auto"),
                        "the records' shape: hwrec, runner (the Runner's own records, "
                        "docs/RUNNER.md), or auto (told apart per record)");
}

RecordForm ParseFromOption(const std::string& text) {
  if (auto form = ParseRecordForm(text)) return *form;
  throw UsageError(fmt::format("--from must be auto, hwrec or runner, not '{}'", text));
}

void DrawProgressLine(const std::string& label, std::optional<double> share,
                      const std::string& detail, bool last) {
  constexpr std::size_t kWidth = 30;
  std::string line = "\r" + label;
  if (share) {
    const double clamped = std::clamp(*share, 0.0, 1.0);
    const auto filled = static_cast<std::size_t>(clamped * static_cast<double>(kWidth));
    line += fmt::format(" [{}{}] {:3.0f}%", std::string(filled, '#'),
                        std::string(kWidth - filled, '.'), clamped * 100);
  }
  line += " " + detail;
  std::cerr << line << (last ? "\n" : "") << std::flush;
}

bool ParseArgs(const std::vector<std::string>& args, const std::string& usage,
               const po::options_description& options,
               const po::positional_options_description& positional, po::variables_map* vm) {
  po::options_description all = options;
  all.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), *vm);
  if (vm->count("help") != 0) {
    std::cout << "Usage: " << usage << "\n\n" << all << "\n";
    return false;
  }
  po::notify(*vm);
  return true;
}

int Fail(const Status& status) {
  std::cerr << "hwrec: " << TerminalSafe(status.message()) << "\n";
  return kExitError;
}

std::unique_ptr<Store> OpenStore(const std::string& path, const StoreOptions& options) {
  if (path == ":memory:") {
    Fail(Status::InvalidArgument(
        ":memory: is not a place for a store: what hwrec wrote there would be lost when the "
        "command ends: give a file path, created with `hwrec init PATH`"));
    return nullptr;
  }
  auto store = Store::Open(path, options);
  if (!store.ok()) {
    Fail(store.status());
    return nullptr;
  }
  return std::move(store).value();
}

std::unique_ptr<Store> OpenScratchStore() {
  StoreOptions options;
  options.create_if_missing = true;
  auto store = Store::Open(":memory:", options);
  if (!store.ok()) {
    Fail(store.status());
    return nullptr;
  }
  return std::move(store).value();
}

void AddReadOnlyOption(po::options_description& options, bool* strict) {
  options.add_options()("read-only", po::bool_switch(strict),
                        "never write to the store, not even to repair its journal (for "
                        "read-only media and other users' stores)");
}

StoreOptions ReadingStoreOptions(bool strict) {
  StoreOptions options;
  options.read_only = true;
  options.no_repair = strict;
  return options;
}

std::unique_ptr<Store> OpenWritableStore(const std::string& path) {
  StoreOptions options;
  options.create_if_missing = false;
  auto store = OpenStore(path, options);
  if (!store) return nullptr;
  if (Status writable = store->CheckWritable(); !writable.ok()) {
    Fail(writable);
    return nullptr;
  }
  return store;
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {
  for (std::string& header : headers_) header = TerminalSafe(header);
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  for (std::string& cell : cells) cell = TerminalSafe(cell);
  rows_.push_back(std::move(cells));
}

void Table::Print(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = DisplayWidth(headers_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      line += cells[c];
      if (c + 1 < cells.size()) line.append(widths[c] - DisplayWidth(cells[c]), ' ');
    }
    out << line << "\n";
  };
  print_row(headers_);
  std::vector<std::string> rule;
  for (std::size_t w : widths) rule.emplace_back(w, '-');
  print_row(rule);
  for (const auto& row : rows_) print_row(row);
}

std::string ReadInput(const std::string& path) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the file for reading", path));
  buffer << in.rdbuf();
  return buffer.str();
}

std::string HumanBytes(std::int64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace hwrec::cli
