// A PostgreSQL location's secrets are never printed: not by `status`, not in
// any error, not in libpq's own words, whether the password sits in the URI's
// user info (with an unescaped '/', '?' or '@'), in ?sslpassword=, behind a
// percent-encoded key, under a capitalised scheme, or in libpq's key=value
// form. One rule decides the engine; one redactor serves the CLI and the bench.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "hwrec/store.h"
#include "hwrec/store_location.h"
#include "test_support.h"

namespace hwrec::store_secrets_test {

namespace {

using hwrec::test::RunCli;
using hwrec::test::RunShell;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

// Every secret of the forms below holds this; none may be printed.
constexpr const char* kMarker = "Zq9S3cret";

struct Form {
  const char* what;
  std::string location;
};

// The forms an outside trial printed, each naming a server that refuses
// connections (port 1 of loopback), so that libpq reports on it.
std::vector<Form> UnreachableForms() {
  return {
      {"a password and ?sslpassword=",
       "postgresql://u:Zq9S3cret-a@127.0.0.1:1/db?sslpassword=Zq9S3cret-b"},
      {"a percent-encoded password key", "postgresql://u@127.0.0.1:1/db?pass%77ord=Zq9S3cret-c"},
      {"a raw '/' in the password", "postgresql://u:Sl/ash-Zq9S3cret-d@127.0.0.1:1/db"},
      {"a raw '?' in the password", "postgresql://u:Qu?est-Zq9S3cret-e@127.0.0.1:1/db"},
      {"a raw '@' in the password", "postgresql://u:p@Sign-Zq9S3cret-f@127.0.0.1:1/db"},
      {"a percent-encoded password", "postgresql://u:%5Aq9S3cret-g@127.0.0.1:1/db"},
      {"the scheme in capitals", "POSTGRESQL://u:Zq9S3cret-h@127.0.0.1:1/db"},
      {"postgres:// in mixed case", "Postgres://u:Zq9S3cret-i@127.0.0.1:1/db"},
      {"key=value", "host=127.0.0.1 port=1 dbname=db user=u password=Zq9S3cret-j"},
      {"key=value, quoted with an escape",
       "host=127.0.0.1 port=1 password='a b\\'Zq9S3cret-k' dbname=db"},
      {"key=value with sslpassword", "hostaddr=127.0.0.1 port=1 sslpassword=Zq9S3cret-l"},
      {"an '@' in the query password", "postgresql://127.0.0.1:1/db?password=se@Zq9S3cret-m"},
      {"an '@' in a later query value",
       "postgresql://u@127.0.0.1:1/db?password=Zq9S3cret-n&application_name=a@b"},
      {"IPv6 and an '@' before the password",
       "postgresql://[::1]:1/db?application_name=a@b&password=Zq9S3cret-o"},
      {"an '&' in the query password", "postgresql://127.0.0.1:1/db?password=abcd&Zq9S3cret-p"},
      {"key=value with a misspelt key", "host=127.0.0.1 password=Zq9S3cret-q sslmod=require"},
      {"key=value with an unterminated quote", "host=127.0.0.1 port=1 password='Zq9S3cret-r"},
      {"a URI in dbname", "host=127.0.0.1 port=1 dbname=postgresql://u:Zq9S3cret-s@h/db"},
      {"key=value in dbname", "host=127.0.0.1 port=1 dbname='host=h password=Zq9S3cret-t'"},
  };
}

bool Leaks(const std::string& text) { return text.find(kMarker) != std::string::npos; }

}  // namespace

TEST_CASE("store location: one rule tells PostgreSQL from a file path", "[secrets]") {
  for (const Form& form : UnreachableForms()) {
    INFO(form.what);
    CHECK(IsPostgresqlLocation(form.location));
  }
  CHECK(IsPostgresqlLocation("service=hwrec"));
  CHECK(IsPostgresqlLocation("dbname=hwrec"));
  CHECK(IsPostgresqlLocation("postgres://db1/hwrec"));
  for (const char* path : {"/var/lib/hwrec/store.db", "store.db", "/tmp/a=b.db", "user=me",
                           "postgresql.db", "postgresql:/x", "./host=x", "host = "}) {
    INFO(path);
    CHECK_FALSE(IsPostgresqlLocation(path));
    CHECK(PrintableLocation(path) == path);
    CHECK(RedactedMessage(std::string("cannot open ") + path, path) ==
          std::string("cannot open ") + path);
  }
}

TEST_CASE("store location: the printed form hides every secret and keeps the server", "[secrets]") {
  for (const Form& form : UnreachableForms()) {
    INFO(form.what);
    const std::string shown = PrintableLocation(form.location);
    CHECK_FALSE(Leaks(shown));
    CHECK_THAT(shown, (Catch::Contains("127.0.0.1") || Catch::Contains("[::1]")) &&
                          Catch::Contains("***"));
    const std::string message = "cannot connect to PostgreSQL at " + form.location + ": " +
                                "no such host \"" + form.location + "\"";
    CHECK_FALSE(Leaks(RedactedMessage(message, form.location)));
  }
  CHECK(PrintableLocation("postgresql://u:pw@db1:5432/hwrec?sslmode=require") ==
        "postgresql://u:***@db1:5432/hwrec?sslmode=require");
  CHECK(PrintableLocation("host=db1 dbname=hwrec password='x y'") ==
        "host=db1 dbname=hwrec password=***");
  // A query value's '@' is not the end of user info: the server stays readable.
  CHECK(PrintableLocation("postgresql://u:pw@db1:5432/hwrec?application_name=a@b") ==
        "postgresql://u:***@db1:5432/hwrec?application_name=a@b");
  CHECK(PrintableLocation("postgresql://db1/hwrec?password=p@ss&sslmode=require") ==
        "postgresql://db1/hwrec?password=***&sslmode=require");
  CHECK(PrintableLocation("postgresql://db1/hwrec?password=ab&cd&sslmode=require") ==
        "postgresql://db1/hwrec?password=***&sslmode=require");
  // libpq's words quote pieces of a password it split at '@' or '/', and
  // decode what was percent-encoded: each piece is masked too.
  const std::string at = "postgresql://u:p@Sign-Zq9S3cret-f@127.0.0.1:1/db";
  CHECK(RedactedMessage("could not translate host name \"Sign-Zq9S3cret-f@127.0.0.1\"", at) ==
        "could not translate host name \"***@127.0.0.1\"");
  const std::string slash = "postgresql://u:Sl/ash-Zq9S3cret-d@127.0.0.1:1/db";
  CHECK(RedactedMessage("invalid integer value \"Sl\" for connection option \"port\"", slash) ==
        "invalid integer value \"***\" for connection option \"port\"");
  const std::string encoded = "postgresql://u:%5Aq9S3cret-g@127.0.0.1:1/db";
  CHECK_FALSE(Leaks(RedactedMessage("password Zq9S3cret-g was refused", encoded)));
}

TEST_CASE("store location: the CLI prints no secret of any form, in any error", "[secrets][cli]") {
  TempDir dir;
  const std::string file = ShellQuote(dir.File("x.db"));
  REQUIRE(RunCli("init " + file).exit_code == 0);
  for (const Form& form : UnreachableForms()) {
    const std::string location = ShellQuote(form.location);
    for (const std::string& args :
         {"status " + location, "init " + location, "recommend " + location + " --image x",
          "copy " + file + " " + location, "status --store=" + location, location + " status"}) {
      INFO(form.what << ": hwrec " << args);
      const auto r = RunCli(args);
      CHECK(r.exit_code != 0);
      CHECK_FALSE(Leaks(r.out));
      CHECK_FALSE(Leaks(r.err));
    }
  }
  // Each is taken for PostgreSQL, never for a file path: no file is made
  // where the CLI ran.
  for (const Form& form : UnreachableForms()) CHECK_FALSE(std::filesystem::exists(form.location));
}

TEST_CASE("store location: hwrec-bench prints no secret of any form", "[secrets][bench]") {
  for (const Form& form : UnreachableForms()) {
    for (const std::string& args :
         {"engines --records 10 --postgresql " + ShellQuote(form.location),
          "concurrent-ingest --writers 1 --records 10 --postgresql " + ShellQuote(form.location)}) {
      INFO(form.what << ": hwrec-bench " << args);
      const auto r = RunShell(ShellQuote(hwrec::test::BenchPath()) + " " + args);
      CHECK(r.exit_code != 0);
      CHECK_FALSE(Leaks(r.out));
      CHECK_FALSE(Leaks(r.err));
    }
  }
}

TEST_CASE("store location: each form opens a PostgreSQL store and is printed without its secret",
          "[secrets][engine][cli]") {
  if (!hwrec::test::TestingPostgresql()) return;  // the PostgreSQL run covers it
  TempDir dir;
  // postgresql://hwrec@127.0.0.1:PORT/hwrec?options=-csearch_path%3D<schema>
  const std::string uri = hwrec::test::NewStoreLocation(dir, "secrets");
  const std::size_t user_begin = uri.find("://") + 3;
  const std::size_t at = uri.find('@');
  const std::size_t colon = uri.find(':', at);
  const std::size_t slash = uri.find('/', at);
  const std::size_t query = uri.find('?', slash);
  const std::string user = uri.substr(user_begin, at - user_begin);
  const std::string host = uri.substr(at + 1, colon - at - 1);
  const std::string port = uri.substr(colon + 1, slash - colon - 1);
  const std::string db = uri.substr(slash + 1, query - slash - 1);
  const std::string schema = uri.substr(uri.find("%3D") + 3);
  const std::string rest = uri.substr(at);  // @host:port/db?options=...
  // The test server trusts loopback: a password is sent and ignored.
  const std::vector<Form> forms = {
      {"user info and sslpassword",
       "postgresql://" + user + ":Zq9S3cret-a" + rest + "&sslpassword=Zq9S3cret-b"},
      {"a percent-encoded key", uri + "&pass%77ord=Zq9S3cret-c"},
      {"capitals", "POSTGRESQL://" + user + ":Zq9S3cret-h" + rest},
      {"key=value", "host=" + host + " port=" + port + " user=" + user + " dbname=" + db +
                        " password=Zq9S3cret-j options='-csearch_path=" + schema + "'"},
  };
  REQUIRE(RunCli("init " + ShellQuote(uri)).exit_code == 0);
  for (const Form& form : forms) {
    INFO(form.what << ": " << form.location);
    for (const std::string& args : {"status " + ShellQuote(form.location),
                                    "status " + ShellQuote(form.location) + " --format json",
                                    "pools list " + ShellQuote(form.location)}) {
      const auto r = RunCli(args);
      CHECK(r.exit_code == 0);
      CHECK_FALSE(Leaks(r.out));
      CHECK_FALSE(Leaks(r.err));
    }
    auto store = Store::Open(form.location);
    REQUIRE(store.ok());
    const auto status = (*store)->GetStatus();
    REQUIRE(status.ok());
    CHECK(status->engine == "postgresql");
    CHECK_FALSE(Leaks(status->path));
    CHECK_FALSE(Leaks((*store)->path()));
  }
}

}  // namespace hwrec::store_secrets_test
