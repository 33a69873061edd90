// bb-modeselect: a job's layout mode, chosen before the job runs
// (docs/architecture.md#mode-selection).
//
//   bb-modeselect --job JOB.sh [--sources DIR]... [--profile P.json | --darshan F.txt] [--nodes N]
//                 [--reasoner rules|llm|auto] [--kb DIR] [--out MODE.yaml] [--json] [--explain] [--evidence]
//   bb-modeselect eval --corpus DIR [--labels FILE] [--heldout DIR] [--reasoner rules|llm|auto] [--kb DIR] [--json]
//                      [--report F.md] [--min-accuracy X] [--max-mean-regret X] [--heldout-min-accuracy X]
//   bb-modeselect calibrate --corpus DIR [--labels FILE] [--kb DIR] [--out FILE] [--check]
//
// The evidence: the job script and the sources it runs (static extraction; --sources defaults
// to the script's folder) and, when given, one probe run's profile (bbctl job run --profile) or
// a darshan-parser text file. The knowledge base: configs/modeselect (or --kb, or
// BB_MODESELECT_KB). The decision is printed (readable, or one JSON object with --json) and
// with --out written as the job's mode file. The rules decide by the decision rule
// (modeselect/policy.h): the lowest expected slowdown, mode 3 when the evidence conflicts. Any
// failure of the reasoner, and an LLM's confidence below the knowledge base's floor, give mode 3
// with selected_by fallback, the reason, and the reasoner's own pick. A missing or unreadable
// input is an error naming it (exit 2), never a silent mode 3.
//
// eval decides every corpus job with a calibration made without its label (leave-one-out), and
// the held-out jobs (--heldout) with the knowledge base's calibration, which never saw them.
// calibrate writes the knowledge base's calibration.yaml from the corpus (modeselect/calibrate.h);
// with --check it writes nothing and exits 1 when the file differs from what it would write.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "fs/base/clock.h"
#include "modeselect/calibrate.h"
#include "modeselect/calibration.h"
#include "modeselect/eval.h"
#include "modeselect/reason/auto.h"
#include "modeselect/reason/llm.h"
#include "modeselect/reason/rules.h"
#include "modeselect/select.h"
#include "tools/cli/cli.h"
#include "tools/config/calibration_file.h"
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
  std::string job, profile, darshan, reasoner = "rules", kb, out, corpus, labels, report, heldout;
  std::vector<std::string> sources;
  uint32_t nodes = 0;
  bool json = false, explain = false, evidence = false;
  LlmOptions llm;
  double llm_timeout_s = 60;
  double min_accuracy = 0;          // eval: exit 1 below it (corpus, static + profile)
  double max_mean_regret = 1e9;     // eval: exit 1 above it (corpus, static + profile)
  double heldout_min_accuracy = 0;  // eval: exit 1 below it (held-out, static + profile)
  bool check = false;               // calibrate: compare, write nothing
};

// The reasoner the options name; the LLM's HTTP client lives in `http`, and for auto the LLM
// reasoner in `llm`.
Result<std::unique_ptr<Reasoner>> MakeReasoner(const Options& o, std::unique_ptr<HttpClient>* http,
                                               std::unique_ptr<LlmReasoner>* llm, const Clock* clock) {
  if (o.reasoner == "rules") return std::unique_ptr<Reasoner>(std::make_unique<RulesReasoner>());
  if (o.reasoner != "llm" && o.reasoner != "auto") {
    return Status(EINVAL, "--reasoner must be rules, llm or auto, got '" + o.reasoner + "'");
  }
  LlmOptions flags = o.llm;
  flags.deadline = std::chrono::milliseconds(static_cast<int64_t>(o.llm_timeout_s * 1000));
  BB_ASSIGN_OR_RETURN(LlmOptions options, LlmOptionsFromEnv(flags));
  *http = NewCurlHttpClient();
  if (o.reasoner == "llm") return std::unique_ptr<Reasoner>(std::make_unique<LlmReasoner>(options, http->get(), clock));
  *llm = std::make_unique<LlmReasoner>(options, http->get(), clock);
  return std::unique_ptr<Reasoner>(std::make_unique<AutoReasoner>(llm->get()));
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
  auto kb_dir = selector::FindKnowledgeBase(o.kb);
  if (!kb_dir) return Fail(kb_dir.error());
  auto kb = config::LoadKnowledgeBase(*kb_dir);
  if (!kb) return Fail(kb.error());
  auto statics = selector::ReadStatic(o.job, o.sources);
  if (!statics) return Fail(statics.error());
  auto signals = selector::ReadProfileSignals(o.profile, o.darshan);
  if (!signals) return Fail(signals.error());
  std::unique_ptr<HttpClient> http;
  std::unique_ptr<LlmReasoner> llm;
  auto reasoner = MakeReasoner(o, &http, &llm, &clock);
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

// Exit 1 with a message when `value` is on the wrong side of `limit`.
bool Below(const char* what, double value, double limit, bool below_fails) {
  if (below_fails ? value >= limit : value <= limit) return false;
  std::fprintf(stderr, "bb-modeselect: %s %.1f %% is %s the limit %.1f %%\n", what, 100 * value,
               below_fails ? "below" : "above", 100 * limit);
  return true;
}

int Eval(const Options& o) {
  SystemClock clock;
  auto kb_dir = selector::FindKnowledgeBase(o.kb);
  if (!kb_dir) return Fail(kb_dir.error());
  auto kb = config::LoadKnowledgeBase(*kb_dir);
  if (!kb) return Fail(kb.error());
  auto cases = selector::ReadCorpus(o.corpus, o.labels, clock);
  if (!cases) return Fail(cases.error());
  std::vector<EvalCase> heldout;
  if (!o.heldout.empty()) {
    auto h = selector::ReadCorpus(o.heldout, "", clock);
    if (!h) return Fail(h.error());
    heldout = std::move(*h);
  }
  std::unique_ptr<HttpClient> http;
  std::unique_ptr<LlmReasoner> llm;
  auto reasoner = MakeReasoner(o, &http, &llm, &clock);
  if (!reasoner) return Fail(reasoner.error());
  // Each corpus job decided with a calibration that did not see its label.
  const auto groups_of = CaseGroups(*cases, *kb);
  std::vector<Calibration> loo;
  for (size_t i = 0; i < cases->size(); ++i)
    loo.push_back(LeaveOneOut(*cases, groups_of, static_cast<int>(i), kb->calibration));
  std::vector<EvalRun> runs = Evaluate(*cases, *kb, **reasoner, clock, kb->calibration.empty() ? nullptr : &loo);
  std::vector<EvalRun> held;
  if (!heldout.empty()) held = Evaluate(heldout, *kb, **reasoner, clock);
  std::string md = heldout.empty() ? EvalMarkdown(runs)
                                   : EvalMarkdown(runs, "Corpus (" + o.corpus + ", leave-one-out calibration)") + "\n" +
                                         EvalMarkdown(held, "Held out (" + o.heldout + ", the corpus's calibration)");
  if (!o.report.empty()) std::ofstream(o.report) << md;
  if (o.json) {
    nlohmann::json j = EvalJson(runs);
    if (!heldout.empty()) j = {{"corpus", j}, {"heldout", EvalJson(held)}};
    std::cout << j.dump(1) << "\n";
  } else {
    std::cout << md;
  }
  bool fails = false;
  if (!runs.empty()) {
    fails |= Below("accuracy", runs.front().accuracy, o.min_accuracy, true);
    fails |= Below("mean regret", runs.front().mean_regret, o.max_mean_regret, false);
  }
  if (!held.empty()) fails |= Below("held-out accuracy", held.front().accuracy, o.heldout_min_accuracy, true);
  return fails ? 1 : 0;
}

int Calibrate(const Options& o) {
  SystemClock clock;
  auto found = selector::FindKnowledgeBase(o.kb);
  if (!found) return Fail(found.error());
  const std::string dir = *found;
  auto kb = config::LoadKnowledgeBase(dir);
  if (!kb) return Fail(kb.error());
  auto cases = selector::ReadCorpus(o.corpus, o.labels, clock);
  if (!cases) return Fail(cases.error());
  auto source = selector::CorpusSource(o.corpus, o.labels, cases->size());
  if (!source) return Fail(source.error());
  const Calibration c = modeselect::Calibrate(*cases, *kb, *source);
  const std::string out = o.out.empty() ? dir + "/calibration.yaml" : o.out;
  if (o.check) {
    if (SameCalibration(c, kb->calibration)) return 0;
    std::fprintf(stderr, "bb-modeselect: %s differs from what calibrate makes of %s: run bb-modeselect calibrate\n",
                 out.c_str(), o.corpus.c_str());
    return 1;
  }
  std::ofstream f(out);
  f << config::FormatCalibration(
      c,
      "# What the corpus measured, for the decision rule (README.md). Generated by `bb-modeselect calibrate`\n"
      "# from the oracle's labels and this knowledge base; regenerate it when either changes.\n");
  if (!f.flush()) return Fail(Status(EIO, "cannot write " + out));
  std::printf("%s: %zu groups, %zu confidence steps, from %s\n", out.c_str(), c.groups.size(), c.confidence.size(),
              source->c_str());
  return 0;
}

void AddShared(CLI::App* app, Options* o) {
  app->add_option("--reasoner", o->reasoner,
                  "rules (default, offline), llm, or auto (the rules; the LLM only when they abstain or conflict)");
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
  eval->add_option("--heldout", o.heldout, "a held-out folder of labelled jobs, reported apart (corpus calibration)");
  eval->add_option("--max-mean-regret", o.max_mean_regret,
                   "exit 1 when the corpus's mean regret with all evidence is above this (0.05 = 5 %)");
  eval->add_option("--heldout-min-accuracy", o.heldout_min_accuracy,
                   "exit 1 when the held-out accuracy with all evidence is below this (0-1)");
  AddShared(eval, &o);
  auto* calibrate = app.add_subcommand("calibrate", "write the knowledge base's calibration.yaml from a corpus");
  calibrate->add_option("--corpus", o.corpus, "folder of job folders (each with job.sh)")->required();
  calibrate->add_option("--labels", o.labels, "the oracle's labels (default: CORPUS/oracle/labels.json)");
  calibrate->add_option("--out", o.out, "where to write it (default: the knowledge base's calibration.yaml)");
  calibrate->add_flag("--check", o.check, "write nothing; exit 1 when the knowledge base's file differs");
  AddShared(calibrate, &o);
  bb::cli::Setup(app);
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
  if (*calibrate) return Calibrate(o);
  if (o.job.empty()) return Fail(Status(EINVAL, "--job JOB.sh is required (or the eval subcommand)"));
  return Select(o);
}
