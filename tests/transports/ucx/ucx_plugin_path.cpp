// Points the UCX transport at this build's librgpu_transport_ucx.so (the test binary lives in no
// folder it would look in), unless the environment names one (the missing-library test does).
#include <cstdlib>

namespace {
const bool kPluginPathSet = [] { return ::setenv("RGPU_UCX_PLUGIN", RGPU_UCX_PLUGIN_PATH, /*overwrite=*/0) == 0; }();
}  // namespace
