// Writes the backtest report of a hand-built result with N (workload,
// hardware key) pairs to a file, for tests/report_browser_test.py:
//   hwrec_report_sample OUT.html N
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "backtest_sample.h"
#include "hwrec/backtest_report.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: hwrec_report_sample OUT.html N\n";
    return 2;
  }
  const auto keys = static_cast<std::size_t>(std::strtoul(argv[2], nullptr, 10));
  hwrec::BacktestReportOptions options;
  options.store = "hand-built sample";
  options.generated_at = 1764576000;
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << hwrec::RenderBacktestReport(hwrec::test::SampleResult(hwrec::test::SampleKeys(keys)),
                                     options);
  out.close();
  if (!out) {
    std::cerr << "hwrec_report_sample: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
