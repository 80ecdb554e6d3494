// The fake library's finish hook: records the last status a generated stub returned.
#pragma once

#include "fake_runtime.h"

namespace rgpu::test {

fakeError_t fake_finish(fakeError_t status);

}  // namespace rgpu::test
