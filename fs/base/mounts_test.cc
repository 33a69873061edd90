#include "fs/base/mounts.h"

#include <catch2/catch.hpp>

namespace bb {
namespace {

TEST_CASE("mountinfo paths: the kernel's octal escapes are decoded", "[base]") {
  CHECK(DecodeMountPath("/tmp/plain") == "/tmp/plain");
  CHECK(DecodeMountPath("/tmp/a\\040b") == "/tmp/a b");
  CHECK(DecodeMountPath("/tmp/t\\011n\\012b\\134s") == "/tmp/t\tn\nb\\s");
  CHECK(DecodeMountPath("/tmp/not\\04") == "/tmp/not\\04");    // too short to be an escape
  CHECK(DecodeMountPath("/tmp/not\\0a9") == "/tmp/not\\0a9");  // not octal
  CHECK(MountedFsType("/") != std::nullopt);
  CHECK(MountedFsType("/no such mount point here") == std::nullopt);
}

}  // namespace
}  // namespace bb
