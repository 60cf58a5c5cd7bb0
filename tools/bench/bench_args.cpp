// The option handling every hwrec-bench subcommand shares.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>

#include "bench/bench_commands.h"

namespace hwrec::bench {

bool ParseBenchArgs(const std::vector<std::string>& args, const po::options_description& options,
                    const char* usage, po::variables_map* vm,
                    const po::positional_options_description* positional) {
  po::command_line_parser parser(args);
  parser.options(options);
  if (positional != nullptr) parser.positional(*positional);
  po::store(parser.run(), *vm);
  if (vm->count("help") != 0) {
    std::cout << "Usage: " << usage << "\n\n" << options << "\n";
    return false;
  }
  po::notify(*vm);
  return true;
}

bool IsJsonFormat(const std::string& format) {
  if (format != "table" && format != "json") {
    throw UsageError(fmt::format("--format must be table or json, not '{}'", format));
  }
  return format == "json";
}

}  // namespace hwrec::bench
