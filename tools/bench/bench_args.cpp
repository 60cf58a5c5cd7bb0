// The option handling every hwrec-bench subcommand shares.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>

#include "bench/bench_commands.h"

namespace hwrec::bench {

bool ParseBenchArgs(const std::vector<std::string>& args, const po::options_description& options,
                    const char* usage, po::variables_map* vm,
                    const po::positional_options_description* positional) {
  po::options_description with_help(options);
  with_help.add_options()("help,h", "show this help");
  po::command_line_parser parser(args);
  parser.options(with_help);
  if (positional != nullptr) parser.positional(*positional);
  po::store(parser.run(), *vm);
  if (vm->count("help") != 0) {
    std::cout << "Usage: " << usage << "\n\n" << with_help << "\n";
    return false;
  }
  po::notify(*vm);
  return true;
}

void AddFormatOption(po::options_description& options, std::string* format) {
  options.add_options()("format", po::value(format)->default_value("table"),
                        "output format: table or json");
}

void AddGpusHeldOption(po::options_description& options, bool* gpus_held) {
  options.add_options()("gpus-held", po::bool_switch(gpus_held),
                        "the ingested GPU records say they held one GPU (gpu_count_held): each "
                        "also feeds its width's aggregates");
}

bool IsJsonFormat(const std::string& format) {
  if (format != "table" && format != "json") {
    throw UsageError(fmt::format("--format must be table or json, not '{}'", format));
  }
  return format == "json";
}

}  // namespace hwrec::bench
