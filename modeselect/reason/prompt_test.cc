#include "modeselect/reason/prompt.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

namespace bb::modeselect {
namespace {

using nlohmann::json;

KnowledgeBase SampleKb() {
  KnowledgeBase kb;
  kb.modes = {
      {1,
       "node-local",
       "each node keeps the files it writes",
       {"no network on write"},
       {"a file written on one node cannot be read on another"}},
      {2,
       "centralized metadata",
       "one metadata server, data striped",
       {"fast lookups"},
       {"create storms queue at one server"}},
      {3,
       "distributed hashing",
       "metadata and data hashed over all nodes",
       {"correct for any job"},
       {"every open may cross the network"}},
      {4,
       "hybrid local-write/global-read",
       "writes stay local, reads find them anywhere",
       {"checkpoint then analysis"},
       {"reads of remote files pay a lookup"}},
  };
  kb.patterns = {{"n_n_private",
                  "every rank writes and reads only its own files",
                  {1, 4},
                  "no file is shared, so node-local placement is safe"},
                 {"n_1_shared", "all ranks write one shared file", {3, 2}, "one file must be visible everywhere"}};
  kb.min_confidence = 0.7;
  return kb;
}

Evidence SampleEvidence() {
  Evidence e;
  e.have_static = true;
  e.nodes = 4;
  e.statics.nodes = 4;
  e.statics.ntasks = 64;
  e.statics.files_scanned = {"job.sh", "src/io.c"};
  Launch l;
  l.launcher = "srun";
  l.tasks = 64;
  l.argv = {"./app", "-o", "out"};
  l.file = "job.sh";
  l.line = 12;
  e.statics.launches = {l};
  e.statics.findings = {
      {"file.per_rank", "src/io.c", 42, "snprintf(name, sizeof name, \"out.%d\", rank);", 1},
      {"access.small_writes", "src/io.c", 57, "write(fd, rec, 64);", 64},
      {"access.large_writes", "src/io.c", 80, "write(fd, buf, 8 << 20);", 8 << 20},
  };
  return e;
}

std::string Content(const json& request, int i) { return request["messages"][i]["content"].get<std::string>(); }

TEST_CASE("the decision schema names every key, its type and range", "[modeselect][llm]") {
  const json s = DecisionSchema();
  CHECK(s["type"] == "object");
  CHECK(s["additionalProperties"] == false);
  const std::vector<std::string> keys = {"selected_mode", "confidence", "io_topology", "primary_reason",
                                         "risk_analysis", "evidence",   "scores"};
  CHECK(s["required"].get<std::vector<std::string>>() == keys);
  for (const std::string& k : keys) CHECK(s["properties"].contains(k));
  CHECK(s["properties"].size() == keys.size());
  CHECK(s["properties"]["selected_mode"]["type"] == "integer");
  CHECK(s["properties"]["selected_mode"]["enum"] == json({1, 2, 3, 4}));
  CHECK(s["properties"]["confidence"]["minimum"] == 0);
  CHECK(s["properties"]["confidence"]["maximum"] == 1);
  CHECK(s["properties"]["risk_analysis"]["items"]["type"] == "string");
  const json& item = s["properties"]["evidence"]["items"];
  CHECK(item["required"] == json({"file", "line", "finding"}));
  CHECK(item["additionalProperties"] == false);
  const json& scores = s["properties"]["scores"];
  CHECK(scores["required"] == json({"1", "2", "3", "4"}));
  CHECK(scores["additionalProperties"] == false);
  CHECK(scores["properties"]["4"]["maximum"] == 1);
}

TEST_CASE("the chat request carries the schema in the nested form", "[modeselect][llm]") {
  LlmOptions o;
  o.model = "qwen";
  o.max_tokens = 777;
  const json r = BuildChatRequest(SampleEvidence(), SampleKb(), o);
  CHECK(r["model"] == "qwen");
  CHECK(r["temperature"] == 0);
  CHECK(r["max_tokens"] == 777);
  CHECK(r["stream"] == false);
  const json& rf = r["response_format"];
  CHECK(rf["type"] == "json_schema");
  CHECK_FALSE(rf.contains("schema"));  // the flat form, which llama.cpp ignores
  CHECK(rf["json_schema"]["name"] == "mode_decision");
  CHECK(rf["json_schema"]["strict"] == true);
  CHECK(rf["json_schema"]["schema"] == DecisionSchema());
  REQUIRE(r["messages"].size() == 2);
  CHECK(r["messages"][0]["role"] == "system");
  CHECK(r["messages"][1]["role"] == "user");
}

TEST_CASE("the system message explains the modes, the patterns and the rules", "[modeselect][llm]") {
  const std::string sys = Content(BuildChatRequest(SampleEvidence(), SampleKb(), {}), 0);
  for (const char* s :
       {"Mode 1 - node-local", "each node keeps the files it writes", "no network on write",
        "a file written on one node cannot be read on another", "Mode 4 - hybrid", "n_n_private", "-> modes 1, 4",
        "no file is shared", "n_1_shared", "0.70", "mode 3", "scores", "io_topology", "evidence"}) {
    INFO(s);
    CHECK(sys.find(s) != std::string::npos);
  }
}

TEST_CASE("the user message renders the evidence and what is missing", "[modeselect][llm]") {
  Evidence e = SampleEvidence();
  std::string user = Content(BuildChatRequest(e, SampleKb(), {}), 1);
  for (const char* s :
       {"Nodes the job will run on: 4", "--ntasks 64", "job.sh, src/io.c", "step 0: srun", "tasks 64",
        "./app -o out (job.sh:12)", "src/io.c:42 file.per_rank — snprintf(name, sizeof name, \"out.%d\", rank);",
        "file names are built from the rank", "access.small_writes (1 found, largest 64 bytes)",
        "8388608 bytes (8 MiB)", "no probe-run profile"}) {
    INFO(s);
    CHECK(user.find(s) != std::string::npos);
  }

  e.have_profile = true;
  e.signals = {{"profile.cross_node_read_fraction", 0.75,
                "3 of 4 files read on node 1 came "
                "from node 0"}};
  user = Content(BuildChatRequest(e, SampleKb(), {}), 1);
  CHECK(user.find("profile.cross_node_read_fraction = 0.75 fraction — fraction of read bytes") != std::string::npos);
  CHECK(user.find("3 of 4 files read on node 1 came from node 0") != std::string::npos);
  CHECK(user.find("Missing evidence: none.") != std::string::npos);

  const std::string bare = Content(BuildChatRequest(Evidence{}, SampleKb(), {}), 1);
  CHECK(bare.find("no job script or sources") != std::string::npos);
  CHECK(bare.find("no probe-run profile") != std::string::npos);
  CHECK(bare.find("the node count is unknown") != std::string::npos);
}

TEST_CASE("a large job's prompt stays compact and valid UTF-8", "[modeselect][llm]") {
  KnowledgeBase kb = SampleKb();
  for (ModeKnowledge& m : kb.modes) {
    m.summary.assign(1000, 's');
    m.strengths.assign(10, std::string(300, 'g'));
    m.weaknesses.assign(10, std::string(300, 'c'));
  }
  for (int i = 0; i < 40; ++i) {
    kb.patterns.push_back({"pattern_" + std::to_string(i), std::string(500, 'd'), {1, 2, 3, 4}, std::string(500, 'w')});
  }
  Evidence e = SampleEvidence();
  e.have_profile = true;
  std::string long_snippet;
  for (int i = 0; i < 200; ++i) long_snippet += "é";  // 2-byte characters, cut somewhere
  for (int i = 0; i < 500; ++i) e.statics.files_scanned.push_back("src/f" + std::to_string(i));
  for (const FactInfo& f : Facts()) {
    for (int i = 0; i < 50; ++i) {
      e.statics.findings.push_back({f.name, "src/some/deep/path/file.c", i + 1, long_snippet, 1});
    }
  }
  for (int i = 0; i < 40; ++i) e.statics.launches.push_back(e.statics.launches[0]);
  e.statics.launches[1].argv.assign(300, "--flag");
  for (const SignalInfo& s : Signals()) e.signals.push_back({s.name, 0.5, std::string(400, 'y')});

  const json r = BuildChatRequest(e, kb, {});
  const size_t chars = Content(r, 0).size() + Content(r, 1).size();
  INFO("prompt bytes " << chars);
  CHECK(chars < 25000);  // about 6,000 tokens at 4 bytes a token (each signal of the table adds ~200 bytes)
  const std::string user = Content(r, 1);
  CHECK(user.find("more not quoted") != std::string::npos);
  CHECK(user.find("also found, not quoted") != std::string::npos);
  CHECK(user.find("... and 33 more") != std::string::npos);
  CHECK_NOTHROW(r.dump());  // the strict dump throws on a UTF-8 sequence cut in half
}

TEST_CASE("a typical large job's prompt is a few thousand tokens", "[modeselect][llm]") {
  Evidence e = SampleEvidence();
  e.have_profile = true;
  const auto facts = Facts();
  for (size_t i = 0; i < 20; ++i) {
    for (int j = 0; j < 30; ++j) {
      e.statics.findings.push_back({facts[i].name, "src/solver/io_module.F90", 100 + j,
                                    "call MPI_File_write_at_all(fh, offset, buf, n, "
                                    "MPI_DOUBLE, status, ierr)",
                                    1});
    }
  }
  for (const SignalInfo& s : Signals()) {
    e.signals.push_back({s.name, 0.25, "from 64 processes on 4 nodes over 3 files"});
  }
  const json r = BuildChatRequest(e, SampleKb(), {});
  const size_t chars = Content(r, 0).size() + Content(r, 1).size();
  INFO("prompt bytes " << chars);
  CHECK(chars < 16000);  // about 4,000 tokens
}

}  // namespace
}  // namespace bb::modeselect

namespace bb::modeselect {
namespace {

// Every fact of the table found `per_fact` times, with a long snippet.
StaticEvidence ManyFacts(int per_fact) {
  StaticEvidence s;
  for (const FactInfo& f : Facts()) {
    for (int i = 0; i < per_fact; ++i) {
      s.findings.push_back({f.name, "src/some/deep/path/file.c", i + 1, std::string(90, 'x'), 1});
    }
  }
  return s;
}

TEST_CASE("the findings section never passes its cap, the 'also found' line included", "[modeselect][llm]") {
  const StaticEvidence few = ManyFacts(1), many = ManyFacts(50);
  const size_t whole = FindingsText(few, SIZE_MAX).size();  // every fact quoted
  struct Row {
    const char* what;
    const StaticEvidence* s;
    size_t cap;
    bool whole;  // every fact quoted, no "also found" line
    bool more;   // the line ends with how many more facts were left unnamed
  };
  const Row rows[] = {
      {"just room for all of it", &few, whole, true, false},
      {"2 bytes short of all of it", &few, whole - 2, false, false},
      {"the prompt's cap, many facts", &many, kPromptFindingsBytes, false, false},
      {"2 bytes under the prompt's cap", &many, kPromptFindingsBytes - 2, false, false},
      {"room for the heading and a short list", &many, 200, false, true},
  };
  for (const Row& r : rows) {
    INFO(r.what << ", cap " << r.cap);
    const std::string text = FindingsText(*r.s, r.cap);
    CHECK(text.size() <= r.cap);
    CHECK((text.find("also found, not quoted") == std::string::npos) == r.whole);
    if (r.more) CHECK_THAT(text, Catch::Contains("more facts\n"));
    CHECK(text.back() == '\n');
  }
  CHECK(FindingsText(many, 10).empty());  // not even the heading
  CHECK(FindingsText(StaticEvidence{}, 1000).empty());
}

}  // namespace
}  // namespace bb::modeselect
