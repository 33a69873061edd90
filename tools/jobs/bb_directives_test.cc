// #BB directives and what scontrol says of a job.
#include "tools/jobs/bb_directives.h"

#include <catch2/catch.hpp>

#include "tools/jobs/slurm_info.h"

namespace bb::jobs {
namespace {

const std::map<std::string, std::string> kVars = {
    {"SLURM_JOB_ID", "42"}, {"SLURM_SUBMIT_DIR", "/home/u/run"}, {"HOME", "/home/u"}, {"USER", "u"}};

TEST_CASE("#BB directives: mode, sizes, staging, variables and quoting", "[bb]") {
  const std::string script =
      "#!/bin/bash\n"
      "#SBATCH -N 4\n"
      "#BB mode=2 chunk_size=1MiB capacity=10G metadata_server_ratio=0.5\n"
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
  CHECK(r->capacity == 10ULL << 30);
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

TEST_CASE("scontrol show job -o: the fields the hooks need", "[bb]") {
  const std::string line =
      "JobId=17 JobName=bb UserId=alice(1000) GroupId=users(100) MCS_label=N/A Priority=1 NumNodes=4 "
      "NodeList=node[0-3] WorkDir=/home/alice/run StdOut=/home/alice/run/slurm-17.out Command=/x";
  auto j = ParseSlurmJob(line);
  REQUIRE(j.has_value());
  CHECK(j->id == "17");
  CHECK(j->node_list == "node[0-3]");
  CHECK(j->num_nodes == 4);
  CHECK(j->uid == 1000);
  CHECK(j->gid == 100);
  CHECK(j->user == "alice");
  CHECK(j->work_dir == "/home/alice/run");
  CHECK(j->std_out == "/home/alice/run/slurm-17.out");
  CHECK(ParseSlurmJob("JobId=1 NodeList=(null) NumNodes=1").error().message() ==
        "scontrol show job: no NodeList field");
  CHECK_FALSE(ParseSlurmJob("JobId=1 NodeList=n0 NumNodes=1 UserId=bob GroupId=g(1) WorkDir=/").has_value());
}

}  // namespace
}  // namespace bb::jobs
