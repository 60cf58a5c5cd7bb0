// docs/PLACEMENT.md cannot drift from the code: every ```console block in it is
// re-run (commands after "$ ", in a scratch directory, with the files its
// ```json file=NAME blocks define) and its output compared with the text.
// Set HWREC_UPDATE_DOCS=1 to write the actual outputs into PLACEMENT.md instead.
#include <catch2/catch.hpp>

#include "test_support.h"

TEST_CASE("placement: every PLACEMENT.md example matches what the CLI prints",
          "[placement][docs]") {
  hwrec::test::CheckCliDocExamples("docs/PLACEMENT.md", 6);
}
