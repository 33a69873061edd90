#include "fs/core/placement/path.h"

#include <catch2/catch.hpp>

namespace bb::fs {
namespace {

TEST_CASE("names are validated", "[core]") {
  CHECK(ValidateName("a").ok());
  CHECK(ValidateName(std::string(255, 'x')).ok());
  CHECK(ValidateName(std::string(256, 'x')).code() == ENAMETOOLONG);
  CHECK(ValidateName("").code() == EINVAL);
  CHECK(ValidateName(".").code() == EINVAL);
  CHECK(ValidateName("..").code() == EINVAL);
  CHECK(ValidateName("a/b").code() == EINVAL);
}

TEST_CASE("paths join, split and compare", "[core]") {
  CHECK(*JoinPath("/", "a") == "/a");
  CHECK(*JoinPath("/a", "b") == "/a/b");
  // Below a workspace root with the longest name, a path of PATH_MAX bytes (as the job names it,
  // relative to that root) still joins; one byte more does not.
  const std::string workspace = "/" + std::string(kNameMax, 'w');
  const std::string deep = workspace + "/" + std::string(kPosixPathMax - 1 - 8, 'x');
  REQUIRE(JoinPath(deep, "abcdefg").has_value());
  CHECK(JoinPath(deep, "abcdefg")->size() == kPathMax);
  CHECK(JoinPath(deep, "abcdefgh").error().code() == ENAMETOOLONG);
  CHECK(PathDepth("/") == 0);
  CHECK(PathDepth("/a/b") == 2);
  CHECK(ParentPath("/a/b") == "/a");
  CHECK(ParentPath("/a") == "/");
  CHECK(BaseName("/a/b") == "b");
  CHECK(IsSameOrBelow("/a/b", "/a"));
  CHECK(IsSameOrBelow("/a", "/a"));
  CHECK_FALSE(IsSameOrBelow("/ab", "/a"));
  CHECK(IsSameOrBelow("/x", "/"));
}

}  // namespace
}  // namespace bb::fs
