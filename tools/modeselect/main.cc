// bb-modeselect: a job's layout mode, chosen before the job runs
// (docs/architecture.md#mode-selection).
//
//   bb-modeselect --job JOB.sh [--sources DIR]... [--profile P.json | --darshan F.txt] [--nodes N]
//                 [--reasoner rules|llm] [--kb DIR] [--out MODE.yaml] [--json] [--explain] [--evidence]
//   bb-modeselect eval --corpus DIR [--labels FILE] [--reasoner rules|llm] [--kb DIR] [--json] [--report F.md]
//
// The evidence: the job script and the sources it runs (static extraction; --sources defaults
// to the script's folder) and, when given, one probe run's profile (bbctl job run --profile) or
// a darshan-parser text file. The knowledge base: configs/modeselect (or --kb, or
// BB_MODESELECT_KB). The decision is printed (readable, or one JSON object with --json) and
// with --out written as the job's mode file. Any failure of the reasoner, and a confidence
// below the knowledge base's threshold, give mode 3 with selected_by fallback and the reason. A
// missing or unreadable input is an error naming it (exit 2), never a silent mode 3.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "fs/base/clock.h"
#include "modeselect/eval.h"
#include "modeselect/reason/llm.h"
#include "modeselect/reason/rules.h"
#include "modeselect/select.h"
#include "tools/cli/cli.h"
#include "tools/config/knowledge.h"
#include "tools/config/mode_file.h"
#include "tools/modeselect/inputs.h"

namespace {

using namespace bb;
using namespace bb::modeselect;

int Fail(const Status& s, int code = 2) {
  std::fprintf(stderr, "bb-modeselect: %s\n", s.message().c_str());
  return code;
}

struct Options {
  std::string job, profile, darshan, reasoner = "rules", kb, out, corpus, labels, report;
  std::vector<std::string> sources;
  uint32_t nodes = 0;
  bool json = false, explain = false, evidence = false;
  LlmOptions llm;
  double llm_timeout_s = 60;
  double min_accuracy = 0;  // eval: exit 1 below it (static + profile)
};

// The reasoner the options name; the LLM's HTTP client lives in `http`.
Result<std::unique_ptr<Reasoner>> MakeReasoner(const Options& o, std::unique_ptr<HttpClient>* http,
                                               const Clock* clock) {
  if (o.reasoner == "rules") return std::unique_ptr<Reasoner>(std::make_unique<RulesReasoner>());
  if (o.reasoner != "llm") return Status(EINVAL, "--reasoner must be rules or llm, got '" + o.reasoner + "'");
  LlmOptions flags = o.llm;
  flags.deadline = std::chrono::milliseconds(static_cast<int64_t>(o.llm_timeout_s * 1000));
  BB_ASSIGN_OR_RETURN(LlmOptions llm, LlmOptionsFromEnv(flags));
  *http = NewCurlHttpClient();
  return std::unique_ptr<Reasoner>(std::make_unique<LlmReasoner>(llm, http->get(), clock));
}

// Every finding and signal the reasoners are given, for tuning a knowledge base.
int PrintEvidence(const Evidence& e, bool json) {
  if (json) {
    nlohmann::json facts = nlohmann::json::array(), signals = nlohmann::json::object();
    for (const Finding& f : e.statics.findings) {
      facts.push_back({{"fact", f.fact}, {"file", f.file}, {"line", f.line}, {"value", f.value}});
    }
    for (const Signal& s : e.signals) signals[s.name] = s.value;
    std::cout << nlohmann::json{{"facts", facts}, {"signals", signals}}.dump(1) << "\n";
    return 0;
  }
  for (const Finding& f : e.statics.findings) {
    std::printf("%-28s %s:%d %g  %s\n", f.fact.c_str(), f.file.c_str(), f.line, f.value, f.snippet.c_str());
  }
  for (const Signal& s : e.signals) std::printf("%-36s %-10g %s\n", s.name.c_str(), s.value, s.why.c_str());
  return 0;
}

int Select(const Options& o) {
  SystemClock clock;
  int64_t start = clock.MonotonicNs();
  auto kb = config::LoadKnowledgeBase(selector::KnowledgeBaseDir(o.kb));
  if (!kb) return Fail(kb.error());
  auto statics = selector::ReadStatic(o.job, o.sources);
  if (!statics) return Fail(statics.error());
  auto signals = selector::ReadProfileSignals(o.profile, o.darshan);
  if (!signals) return Fail(signals.error());
  std::unique_ptr<HttpClient> http;
  auto reasoner = MakeReasoner(o, &http, &clock);
  if (!reasoner) return Fail(reasoner.error());
  Evidence e = MakeEvidence(std::move(*statics), std::move(*signals), o.nodes);
  if (o.evidence) return PrintEvidence(e, o.json);
  Decision d = Decide(e, *kb, **reasoner, clock, start);
  if (!o.out.empty()) {
    config::ModeFile m;
    m.spec.layout.mode = static_cast<fs::LayoutMode>(d.mode);
    m.confidence = d.confidence;
    m.reason = d.primary_reason;
    m.selected_by = d.selected_by;
    std::ofstream f(o.out);
    f << config::FormatModeFile(m);
    if (!f.flush()) return Fail(Status(EIO, "cannot write the mode file " + o.out));
  }
  if (o.json) {
    std::cout << DecisionJson(d).dump() << "\n";
  } else {
    std::cout << RenderDecision(d, o.explain);
  }
  return 0;
}

int Eval(const Options& o) {
  SystemClock clock;
  auto kb = config::LoadKnowledgeBase(selector::KnowledgeBaseDir(o.kb));
  if (!kb) return Fail(kb.error());
  auto cases = selector::ReadCorpus(o.corpus, o.labels, clock);
  if (!cases) return Fail(cases.error());
  std::unique_ptr<HttpClient> http;
  auto reasoner = MakeReasoner(o, &http, &clock);
  if (!reasoner) return Fail(reasoner.error());
  std::vector<EvalRun> runs = Evaluate(*cases, *kb, **reasoner, clock);
  std::string md = EvalMarkdown(runs);
  if (!o.report.empty()) std::ofstream(o.report) << md;
  if (o.json) {
    std::cout << EvalJson(runs).dump(1) << "\n";
  } else {
    std::cout << md;
  }
  if (!runs.empty() && runs.front().accuracy < o.min_accuracy) {
    std::fprintf(stderr, "bb-modeselect: accuracy %.1f %% is below the --min-accuracy %.1f %%\n",
                 100 * runs.front().accuracy, 100 * o.min_accuracy);
    return 1;
  }
  return 0;
}

void AddShared(CLI::App* app, Options* o) {
  app->add_option("--reasoner", o->reasoner, "rules (default, offline) or llm");
  app->add_option("--kb", o->kb, "the knowledge base's folder (default: configs/modeselect)");
  app->add_option("--llm-url", o->llm.base_url,
                  "OpenAI-compatible base URL (or OPENAI_BASE_URL), e.g. http://127.0.0.1:8080/v1");
  app->add_option("--llm-model", o->llm.model, "the model (or BB_LLM_MODEL / OPENAI_MODEL)");
  app->add_option("--llm-key", o->llm.api_key, "API key (or OPENAI_API_KEY)");
  app->add_option("--llm-timeout", o->llm_timeout_s, "seconds for the LLM's answer, retries included (default 60)");
  app->add_flag("--json", o->json, "print JSON");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-modeselect: choose a job's burst buffer layout mode"};
  Options o;
  bool list_facts = false, list_signals = false;
  app.add_option("--job", o.job, "the job's Slurm batch script");
  app.add_option("--sources", o.sources, "a folder of the job's sources (repeatable; default: the script's folder)");
  auto* profile = app.add_option("--profile", o.profile, "a probe run's profile (bbctl job run --profile)");
  app.add_option("--darshan", o.darshan, "darshan-parser text output (--base or --total)")->excludes(profile);
  app.add_option("--nodes", o.nodes, "nodes the job will run on");
  app.add_option("--out", o.out, "write the mode file here");
  app.add_flag("--explain", o.explain, "also print scores, rules, evidence and risks");
  app.add_flag("--evidence", o.evidence, "print every finding and signal the reasoner would get, and exit");
  app.add_flag("--list-facts", list_facts, "print the facts conditions may name, and exit");
  app.add_flag("--list-signals", list_signals, "print the signals conditions may name, and exit");
  AddShared(&app, &o);
  auto* eval = app.add_subcommand("eval", "accuracy on a labelled corpus");
  eval->add_option("--corpus", o.corpus, "folder of job folders (each with job.sh)")->required();
  eval->add_option("--labels", o.labels, "the oracle's labels (default: CORPUS/oracle/labels.json)");
  eval->add_option("--report", o.report, "also write the Markdown report here");
  eval->add_option("--min-accuracy", o.min_accuracy, "exit 1 when the accuracy with all evidence is below this (0-1)");
  AddShared(eval, &o);
  bb::cli::AddVersion(app);
  if (int rc = bb::cli::Parse(app, argc, argv, "bb-modeselect"); rc >= 0) return rc;
  if (list_facts || list_signals) {
    if (list_facts) {
      for (const FactInfo& f : Facts()) std::printf("%-28s %s\n", f.name, f.description);
    }
    if (list_signals) {
      for (const SignalInfo& s : Signals()) std::printf("%-36s %s (%s)\n", s.name, s.description, s.unit);
    }
    return 0;
  }
  if (*eval) return Eval(o);
  if (o.job.empty()) return Fail(Status(EINVAL, "--job JOB.sh is required (or the eval subcommand)"));
  return Select(o);
}
