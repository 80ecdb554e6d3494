// The one Catch2 main shared by every test executable.
//
// It refuses to run a binary that has a test whose name holds a ';': ctest (catch_discover_tests)
// splits such a name at the ';', CMake's list separator, into two tests whose filters match no test
// case, and both pass without running anything. Asked for its test names, such a binary lists one
// test under a name of its own instead, which then fails when ctest runs it.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char* argv[]) {
  int misnamed = 0;
  for (const Catch::TestCase& test : Catch::getRegistryHub().getTestCaseRegistry().getAllTests()) {
    const std::string& name = test.getTestCaseInfo().name;
    if (name.find(';') == std::string::npos) continue;
    std::fprintf(stderr, "test name holds a ';', which ctest would split into two tests that run nothing: \"%s\"\n",
                 name.c_str());
    ++misnamed;
  }
  if (misnamed) {
    for (int i = 1; i < argc; ++i)
      if (std::strcmp(argv[i], "--list-test-names-only") == 0) std::printf("test names without a semicolon\n");
    return 2;
  }
  return Catch::Session().run(argc, argv);
}
