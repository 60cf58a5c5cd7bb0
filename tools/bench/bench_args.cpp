// The option handling every hwrec-bench subcommand shares.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>

#include "bench/bench_commands.h"

namespace hwrec::bench {

namespace po = boost::program_options;

bool ParseBenchArgs(const std::vector<std::string>& args, const po::options_description& options,
                    const char* usage, po::variables_map* vm) {
  po::store(po::command_line_parser(args).options(options).run(), *vm);
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
