#include "fs/base/mounts.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

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

TEST_CASE("a mount's device is the one stat reports for its root", "[base]") {
  auto proc = FindMount("/proc");
  REQUIRE(proc.has_value());
  CHECK(proc->fstype == "proc");
  struct stat st {};
  REQUIRE(::stat("/proc", &st) == 0);
  CHECK(proc->major == major(st.st_dev));
  CHECK(proc->minor == minor(st.st_dev));
}

}  // namespace
}  // namespace bb
