#include "fs/core/path.h"

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
  CHECK(JoinPath(std::string(4090, 'x'), "abcdefgh").error().code() == ENAMETOOLONG);
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
