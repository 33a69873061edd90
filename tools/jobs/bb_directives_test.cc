// #BB directives and what scontrol says of a job.
#include "tools/jobs/bb_directives.h"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "tools/jobs/slurm_info.h"

namespace bb::jobs {
namespace {

const std::map<std::string, std::string> kVars = {
    {"SLURM_JOB_ID", "42"}, {"SLURM_SUBMIT_DIR", "/home/u/run"}, {"HOME", "/home/u"}, {"USER", "u"}};

TEST_CASE("#BB directives: mode, sizes, staging, variables and quoting", "[bb]") {
  const std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N 4\n"
      "#BB mode=2 chunk_size=1MiB metadata_server_ratio=0.5\n"
      "#BB stage_in source=$SLURM_SUBMIT_DIR/input destination=input type=directory\n"
      "#BB stage_in source=\"/data/a file\" destination=${BB_WORKSPACE}/a\n"
      "#BB stage_out source=out destination=/p/out.${SLURM_JOB_ID} type=directory # results\n"
      "srun ./app\n"
      "#BB mode=1\n";  // after the first command: not a directive
  auto r = ParseBbDirectives(script, "job.sh", kVars);
  REQUIRE(r.has_value());
  CHECK(r->wanted);
  CHECK(r->mode == 2);
  CHECK(r->chunk_size == 1 << 20);
  CHECK(r->metadata_server_ratio == 0.5);
  REQUIRE(r->stage_in.size() == 2);
  CHECK(r->stage_in[0].source == "/home/u/run/input");
  CHECK(r->stage_in[0].type == StageType::kDirectory);
  CHECK(r->stage_in[0].line == 4);
  CHECK(r->stage_in[1].source == "/data/a file");
  CHECK(InsidePath(r->stage_in[1].destination, "/mnt/job42") == "/mnt/job42/a");
  REQUIRE(r->stage_out.size() == 1);
  CHECK(r->stage_out[0].destination == "/p/out.42");
  CHECK(InsidePath(r->stage_out[0].source, "/mnt/job42") == "/mnt/job42/out");
  CHECK(OutsidePath("rel/x", "/home/u/run") == "/home/u/run/rel/x");
  CHECK(ModeFileText(*r) == "mode: 2\nchunk_size: 1048576\nmetadata_server_ratio: 0.5\n");
}

TEST_CASE("#BB: no directive asks for nothing, staging alone asks for mode auto", "[bb]") {
  CHECK_FALSE(ParseBbDirectives("#!/bin/sh\n#SBATCH -N 2\necho hi\n", "j", kVars)->wanted);
  auto r = ParseBbDirectives("#BB stage_in source=/a destination=b\n", "j", kVars);
  REQUIRE(r.has_value());
  CHECK(r->wanted);
  CHECK(r->mode == 0);
  CHECK(ModeFileText(*r) == "mode: 3\n");
  CHECK(ParseBbDirectives("#BBX mode=1\n#BB_LUA x\n", "j", kVars)->wanted == false);
}

TEST_CASE("#BB mode=auto takes its evidence and reasoner", "[bb]") {
  struct Row {
    const char* line;
    const char* profile;
    const char* darshan;
    const char* reasoner;
  };
  const Row rows[] = {
      {"#BB mode=auto profile=$SLURM_SUBMIT_DIR/probe.json", "/home/u/run/probe.json", "", ""},
      {"#BB mode=auto darshan=run.darshan.txt reasoner=llm", "", "run.darshan.txt", "llm"},
      {"#BB mode=auto reasoner=auto", "", "", "auto"},
      {"#BB mode=auto", "", "", ""},
  };
  for (const Row& row : rows) {
    INFO(row.line);
    auto r = ParseBbDirectives(std::string("#!/bin/bash\n") + row.line + "\n", "job.sh", kVars);
    REQUIRE(r.has_value());
    CHECK(r->mode == 0);
    CHECK(r->profile == row.profile);
    CHECK(r->darshan == row.darshan);
    CHECK(r->reasoner == row.reasoner);
  }
}

TEST_CASE("#BB errors name the file, line and key", "[bb]") {
  struct Row {
    const char* line;
    const char* want;
  } rows[] = {
      {"#BB mode=5", "job.sh:2: #BB mode: '5' is not auto"},
      {"#BB mode=1 stripe=4", "job.sh:2: #BB unknown key 'stripe'"},
      {"#BB chunk_size=3x", "job.sh:2: #BB chunk_size:"},
      {"#BB metadata_server_ratio=2", "job.sh:2: #BB metadata_server_ratio: '2' is not a number"},
      {"#BB stage_in destination=x", "job.sh:2: #BB source= is missing"},
      {"#BB stage_out source=x", "job.sh:2: #BB destination= is missing"},
      {"#BB stage_in source=a destination=b type=tree", "job.sh:2: #BB 'tree' is not file, directory or list"},
      {"#BB stage_in source=$PATH destination=b", "job.sh:2: #BB '$PATH' is not one of"},
      {"#BB stage_in source=${HOME destination=b", "job.sh:2: #BB unterminated ${"},
      {"#BB stage_in source=a source=b destination=c", "job.sh:2: #BB source: given twice"},
      {"#BB jobdw capacity=1G", "job.sh:2: #BB unknown directive 'jobdw'"},
      {"#BB mode=3 capacity=100G", "job.sh:2: #BB capacity: not supported"},
      {"#BB mode=auto reasoner=gpt", "job.sh:2: #BB reasoner: 'gpt' is not rules, llm or auto"},
      {"#BB mode=2 profile=p.json", "job.sh:2: #BB profile=, darshan= and reasoner= are for mode=auto"},
      {"#BB mode=auto profile=p.json darshan=d.txt", "job.sh:2: #BB profile= and darshan=: give one"},
      {"#BB mode=auto profile=", "job.sh:2: #BB profile: a path is missing"},
      {"#BB stage_in \"source=a", "job.sh:2: #BB "},
      {"#BB", "job.sh:2: #BB an empty directive"},
      {"#BB stage_in source=a destination=in/../../etc",
       "job.sh:2: #BB destination: 'in/../../etc' leaves the workspace"},
      {"#BB stage_out source=.. destination=/p", "job.sh:2: #BB source: '..' leaves the workspace"},
  };
  for (const Row& row : rows) {
    INFO(row.line);
    auto r = ParseBbDirectives(std::string("#!/bin/bash\n") + row.line + "\n", "job.sh", kVars);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == EINVAL);
    CHECK(r.error().message().find(row.want) == 0);
  }
  auto twice = ParseBbDirectives("#BB mode=1\n#BB mode=2\n", "job.sh", kVars);
  CHECK(twice.error().message() == "job.sh:2: #BB mode: a second mode line");
}

TEST_CASE("stage lists: one quoted pair per line", "[bb]") {
  auto l = ParseStageList("# inputs\n/a/x x\n\n'/a/with space' \"in/y z\"\n", "list.txt");
  REQUIRE(l.has_value());
  REQUIRE(l->size() == 2);
  CHECK((*l)[1].first == "/a/with space");
  CHECK((*l)[1].second == "in/y z");
  CHECK(ParseStageList("/a b c\n", "list.txt").error().message().find("list.txt:1:") == 0);
}

// The environment of a Prolog of job 17, owned by alice (1000:100), as slurmd sets it.
const std::map<std::string, std::string> kPrologEnv = {{"SLURM_JOB_ID", "17"},
                                                       {"SLURM_JOB_UID", "1000"},
                                                       {"SLURM_JOB_GID", "100"},
                                                       {"SLURM_JOB_USER", "alice"},
                                                       {"SLURM_JOB_NODELIST", "node[0-3]"}};

Getenv EnvOf(const std::map<std::string, std::string>& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

// What `squeue --json --jobs 17` prints (Slurm 22.05's shape, the fields the hooks read), with
// `name` and `comment` and `work_dir` as the user gave them, and the output pattern sbatch -o had.
std::string JobJson(const std::string& name, const std::string& comment, const std::string& work_dir, int uid = 1000) {
  nlohmann::json job = {{"job_id", 17},
                        {"name", name},
                        {"comment", comment},
                        {"user_id", uid},
                        {"user_name", "alice"},
                        {"group_id", 100},
                        {"nodes", "node[0-3]"},
                        {"current_working_directory", work_dir},
                        {"standard_output", work_dir + "/slurm-%j.out"}};
  return nlohmann::json{{"meta", nlohmann::json::object()}, {"errors", nlohmann::json::array()}, {"jobs", {job}}}.dump(
      2);
}

TEST_CASE("the job's owner and nodes come from the environment Slurm gives its hooks", "[bb]") {
  bool have_gid = false;
  auto j = SlurmJobFromEnv(EnvOf(kPrologEnv), &have_gid);
  REQUIRE(j.has_value());
  CHECK(have_gid);
  CHECK(j->id == "17");
  CHECK(j->uid == 1000);
  CHECK(j->gid == 100);
  CHECK(j->user == "alice");
  CHECK(j->node_list == "node[0-3]");
  for (const char* name : {"SLURM_JOB_ID", "SLURM_JOB_UID", "SLURM_JOB_USER", "SLURM_JOB_NODELIST"}) {
    auto env = kPrologEnv;
    env.erase(name);
    auto missing = SlurmJobFromEnv(EnvOf(env), &have_gid);
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error().message() == std::string("not in a Slurm job: no ") + name);
  }
  for (const char* uid : {"root", "-1", "0x10", "1000 ", "12345678901"}) {
    auto env = kPrologEnv;
    env["SLURM_JOB_UID"] = uid;
    CHECK_FALSE(SlurmJobFromEnv(EnvOf(env), &have_gid).has_value());
  }
  auto env = kPrologEnv;
  env.erase("SLURM_JOB_GID");
  REQUIRE(SlurmJobFromEnv(EnvOf(env), &have_gid).has_value());
  CHECK_FALSE(have_gid);
}

TEST_CASE("the rest comes from scontrol's JSON, checked against the environment", "[bb]") {
  bool have_gid = false;
  auto j = SlurmJobFromEnv(EnvOf(kPrologEnv), &have_gid);
  REQUIRE(j.has_value());
  REQUIRE(AddJobJson(JobJson("bb", "", "/home/alice/run"), false, &*j).ok());
  CHECK(j->work_dir == "/home/alice/run");
  CHECK(j->std_out == "/home/alice/run/slurm-17.out");  // sbatch -o's %j, expanded
  CHECK(j->uid == 1000);

  // Another owner than SLURM_JOB_UID's, another job, an error, or no work dir: refused.
  SlurmJob k = *j;
  CHECK(AddJobJson(JobJson("bb", "", "/w", 0), false, &k).message().find("owner is uid 0, not SLURM_JOB_UID 1000") !=
        std::string::npos);
  CHECK_FALSE(
      AddJobJson(R"({"jobs":[{"job_id":18,"user_id":1000,"current_working_directory":"/w"}]})", false, &k).ok());
  CHECK_FALSE(AddJobJson(R"({"errors":[{"error":"Invalid job id specified"}],"jobs":[]})", false, &k).ok());
  CHECK_FALSE(AddJobJson(R"({"jobs":[{"job_id":17,"user_id":1000}]})", false, &k).ok());
  CHECK_FALSE(AddJobJson("JobId=17 UserId=alice(1000) WorkDir=/w", false, &k).ok());
  // Later Slurm versions write numbers as {"set": true, "number": N}.
  SlurmJob later = *j;
  REQUIRE(AddJobJson(R"({"jobs":[{"job_id":{"set":true,"number":17},"user_id":1000,"group_id":{"set":true,"number":7},
                        "current_working_directory":"/w2","standard_output":"/w2/o"}]})",
                     true, &later)
              .ok());
  CHECK(later.gid == 7);
  CHECK(later.work_dir == "/w2");
}

TEST_CASE("a job named, commented and placed to look like root's stays its owner's", "[bb]") {
  // Every field the old text parser read, with fake values, in every field the user chooses.
  const std::string fake =
      "x UserId=root(0) GroupId=root(0) WorkDir=/etc StdOut=/etc/passwd JobId=1 NodeList=evil NumNodes=1";
  bool have_gid = false;
  auto j = SlurmJobFromEnv(EnvOf(kPrologEnv), &have_gid);
  REQUIRE(j.has_value());
  REQUIRE(AddJobJson(JobJson(fake, fake, "/home/alice/" + fake), false, &*j).ok());
  CHECK(j->uid == 1000);
  CHECK(j->gid == 100);
  CHECK(j->id == "17");
  CHECK(j->node_list == "node[0-3]");
  CHECK(j->work_dir == "/home/alice/" + fake);
  CHECK(j->std_out == "/home/alice/" + fake + "/slurm-17.out");
}

TEST_CASE("a node's address from sinfo --json", "[bb]") {
  const char* nodes = R"({"nodes":[{"name":"node0","address":"198.18.0.1"},{"name":"node1","address":"198.18.0.2"}]})";
  CHECK(NodeAddrFromJson(nodes, "node1").value() == "198.18.0.2");
  CHECK(NodeAddrFromJson(R"({"nodes":[{"name":"node1"}]})", "node1").value() == "node1");
  CHECK_FALSE(NodeAddrFromJson(R"({"nodes":[{"name":"node2","address":"x"}]})", "node1").has_value());
  CHECK_FALSE(NodeAddrFromJson("NodeName=node1 NodeAddr=198.18.0.2", "node1").has_value());
}

TEST_CASE("the output file's pattern is expanded as Slurm does, and an unknown one left out", "[bb]") {
  bool have_gid = false;
  auto j = SlurmJobFromEnv(EnvOf(kPrologEnv), &have_gid);
  REQUIRE(j.has_value());
  const std::vector<std::pair<std::string, std::string>> cases = {{"/o/slurm-%j.out", "/o/slurm-17.out"},
                                                                  {"/o/%x-%J-%u-%N.log", "/o/run-17-alice-node0.log"},
                                                                  {"/o/100%%.txt", "/o/100%.txt"},
                                                                  {"/o/%A_%a.out", ""},
                                                                  {"relative.out", ""},
                                                                  {"/o/end%", ""}};
  for (const auto& [pattern, want] : cases) {
    nlohmann::json job = {{"job_id", 17},
                          {"user_id", 1000},
                          {"name", "run"},
                          {"current_working_directory", "/w"},
                          {"standard_output", pattern}};
    SlurmJob k = *j;
    REQUIRE(AddJobJson(nlohmann::json{{"jobs", {job}}}.dump(), false, &k).ok());
    INFO(pattern);
    CHECK(k.std_out == want);
  }
  CHECK(FirstHost("node[3-5,7]") == "node3");
  CHECK(FirstHost("a1,b2") == "a1");
  CHECK(FirstHost("solo") == "solo");
}

TEST_CASE("a Prolog of Slurm 22.05 names the nodes SLURM_NODELIST", "[bb]") {
  auto env = kPrologEnv;
  env.erase("SLURM_JOB_NODELIST");
  env["SLURM_NODELIST"] = "node[0-1]";
  bool have_gid = false;
  auto j = SlurmJobFromEnv(EnvOf(env), &have_gid);
  REQUIRE(j.has_value());
  CHECK(j->node_list == "node[0-1]");
}

}  // namespace
}  // namespace bb::jobs
