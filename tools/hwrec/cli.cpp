#include "cli.h"

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/terminal_text.h"
#include "hwrec/time_text.h"

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

CommandLine::CommandLine(std::string usage)
    : usage_(std::move(usage)),
      options_(std::make_unique<po::options_description>("Options")),
      positional_(std::make_unique<po::positional_options_description>()) {}

CommandLine::~CommandLine() = default;

po::options_description_easy_init CommandLine::Add() { return options_->add_options(); }

CommandLine& CommandLine::Store(std::string* path, const char* help) {
  tools::AddStoreArgument(*options_, *positional_, path, help);
  return *this;
}

CommandLine& CommandLine::Positional(const char* name) {
  positional_->add(name, 1);
  return *this;
}

CommandLine& CommandLine::Format(std::string* text) {
  AddFormatOption(*options_, text);
  return *this;
}

CommandLine& CommandLine::ReadOnly(bool* strict) {
  AddReadOnlyOption(*options_, strict);
  return *this;
}

CommandLine& CommandLine::From(std::string* text) {
  AddFromOption(*options_, text);
  return *this;
}

CommandLine& CommandLine::Epilog(std::string text) {
  epilog_ = std::move(text);
  return *this;
}

bool CommandLine::Parse(const std::vector<std::string>& args, po::variables_map* vm) const {
  if (ParseArgs(args, usage_, *options_, *positional_, vm)) return true;
  std::cout << epilog_;  // after the help ParseArgs printed
  return false;
}

std::string RequiredStore(const po::variables_map& vm) {
  if (vm.count("store") == 0) throw UsageError(kStoreRequired);
  return vm["store"].as<std::string>();
}

std::optional<StoreAndFormat> ParseStoreAndFormat(const std::vector<std::string>& args,
                                                  const char* usage, const char* store_help,
                                                  const char* missing, bool format_first) {
  StoreAndFormat parsed;
  std::string format_text;
  po::variables_map vm;
  if (!CommandLine(usage).Store(&parsed.store, store_help).Format(&format_text).Parse(args, &vm)) {
    return std::nullopt;
  }
  if (format_first) parsed.format = ParseFormat(format_text);
  if (vm.count("store") == 0 || (format_first && parsed.store.empty())) throw UsageError(missing);
  if (!format_first) parsed.format = ParseFormat(format_text);
  return parsed;
}

int Fail(const Status& status) {
  std::cerr << "hwrec: " << TerminalSafe(tools::WithoutSecrets(status.message())) << "\n";
  return kExitError;
}

std::unique_ptr<Store> OpenStore(const std::string& path, const StoreOptions& options) {
  auto store = tools::OpenStoreArgument(path, options);
  if (!store.ok()) {
    Fail(store.status());
    return nullptr;
  }
  return std::move(store).value();
}

std::unique_ptr<Store> OpenScratchStore() {
  auto store = Store::Open(":memory:", tools::CreatingStoreOptions());
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

std::optional<double> ReadAsOf(const po::variables_map& vm) {
  if (vm.count("as-of") == 0) return std::nullopt;
  const std::string text = vm["as-of"].as<std::string>();
  if (auto rfc = ParseTime(text)) return rfc;
  char* end = nullptr;
  const double epoch = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(epoch)) return epoch;
  throw UsageError(fmt::format(
      "--as-of is '{}': give an RFC 3339 time (2026-11-29T12:00:00Z) or epoch seconds", text));
}

}  // namespace hwrec::cli
