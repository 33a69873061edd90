#include "tools/config/mode_file.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "fs/base/temp_dir.h"

namespace bb::config {
namespace {

using fs::LayoutMode;

TEST_CASE("the example mode files parse", "[modefile]") {
  for (int mode = 1; mode <= 4; ++mode) {
    auto m = LoadModeFile(std::string(BB_SOURCE_DIR) + "/configs/modes/mode" + std::to_string(mode) + ".yaml");
    INFO("mode " << mode);
    REQUIRE(m.has_value());
    CHECK(static_cast<int>(m->spec.layout.mode) == mode);
    CHECK(m->spec.chunk_size == 512 * 1024);
    CHECK_FALSE(m->reason.empty());
  }
}

TEST_CASE("a mode file round-trips", "[modefile]") {
  ModeFile m;
  m.spec.layout = {LayoutMode::kCentralizedMeta, 0.5};
  m.spec.chunk_size = 1 << 20;
  m.confidence = 0.75;
  m.reason = "shared file: \"N-1\" writes";
  m.selected_by = "rules";
  auto back = ParseModeFile(FormatModeFile(m), "formatted");
  REQUIRE(back.has_value());
  CHECK(back->spec.layout.mode == m.spec.layout.mode);
  CHECK(back->spec.layout.metadata_server_ratio == 0.5);
  CHECK(back->spec.chunk_size == m.spec.chunk_size);
  CHECK(back->confidence == 0.75);
  CHECK(back->reason == m.reason);
  CHECK(back->selected_by == "rules");
}

TEST_CASE("every mode of the table round-trips, the ratio only where the mode uses it", "[modefile]") {
  for (const fs::ModeInfo& info : fs::Modes()) {
    INFO(info.name);
    ModeFile m;
    m.spec.layout = {info.mode, 0.5};
    std::string text = FormatModeFile(m);
    CHECK((text.find("metadata_server_ratio") != std::string::npos) == info.uses_metadata_ratio);
    auto back = ParseModeFile(text, "formatted");
    REQUIRE(back.has_value());
    CHECK(back->spec == m.spec);
    auto with_ratio = ParseModeFile(
        "mode: " + std::to_string(fs::ModeNumber(info.mode)) + "\nmetadata_server_ratio: 0.5\n", "job.yaml");
    CHECK(with_ratio.has_value() == info.uses_metadata_ratio);
  }
}

TEST_CASE("a mode file over the limit is refused naming the limit", "[modefile]") {
  TempDir dir("bb-modefile");
  std::string path = dir.path + "/big.yaml";
  {
    std::ofstream f(path);
    f << "mode: 3\nreason: \"" << std::string(kMaxModeFileBytes, 'x') << "\"\n";
  }
  auto m = LoadModeFile(path);
  REQUIRE_FALSE(m.has_value());
  CHECK(m.error().code() == EFBIG);
  CHECK_THAT(m.error().message(), Catch::Contains("larger than 64 KiB"));
}

TEST_CASE("bad mode files name the line and the field", "[modefile]") {
  struct Row {
    const char* text;
    const char* want;
  };
  const Row rows[] = {
      {"mode: 5\n", "job.yaml:1: field 'mode' must be 1, 2, 3 or 4, got 5"},
      {"mode: two\n", "job.yaml:1: field 'mode' must be 1, 2, 3 or 4, got 'two'"},
      {"chunk_size: 1MiB\n", "field 'mode' is required"},
      {"mode: 3\nchunk_size: 3000\n", "job.yaml:2: field 'chunk_size' must be a power of two"},
      {"mode: 2\nmetadata_server_ratio: 0\n", "job.yaml:2: field 'metadata_server_ratio' must be in (0, 1]"},
      {"mode: 2\nmetadata_server_ratio: 1.5\n", "must be in (0, 1], got 1.5"},
      {"mode: 3\nmetadata_server_ratio: 0.5\n", "job.yaml:2: field 'metadata_server_ratio' applies to mode 2 only"},
      {"mode: 3\nconfidence: 2\n", "job.yaml:2: field 'confidence' must be in [0, 1]"},
      {"mode: 3\nselected_by: oracle\n", "field 'selected_by' must be rules, llm, user or fallback"},
      {"mode: 3\nlayout: striped\n", "job.yaml:2: unknown field 'layout'"},
      {"mode: 3\n  x: : :\n", "job.yaml:2:"},
      {"- mode: 3\n", "job.yaml:1: a mode file must be a mapping"},
      {"mode: 3\nchunk_size: 1MiB\nmode: 1\n", "job.yaml:3: field 'mode' is given twice (first on line 1)"},
  };
  for (const Row& r : rows) {
    INFO(r.text);
    auto m = ParseModeFile(r.text, "job.yaml");
    REQUIRE_FALSE(m.has_value());
    CHECK(m.error().code() == EINVAL);
    CHECK_THAT(m.error().message(), Catch::Contains(r.want));
  }
}

}  // namespace
}  // namespace bb::config
