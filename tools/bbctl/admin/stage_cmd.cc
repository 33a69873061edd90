#include "tools/bbctl/admin/stage_cmd.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "fs/base/units.h"

namespace bb::ctl {
namespace {

void PrintProgress(const stage::Progress& p) {
  double rate = p.seconds > 0 ? static_cast<double>(p.bytes_done) / p.seconds : 0;
  double left = rate > 0 ? static_cast<double>(p.bytes_total - std::min(p.bytes_done, p.bytes_total)) / rate : 0;
  std::fprintf(stderr, "bbctl stage: %llu/%llu files, %s of %s, %s/s, %.0f s left\n",
               static_cast<unsigned long long>(p.files_done), static_cast<unsigned long long>(p.files_total),
               FormatByteSize(static_cast<double>(p.bytes_done)).c_str(),
               FormatByteSize(static_cast<double>(p.bytes_total)).c_str(), FormatByteSize(rate).c_str(), left);
}

void AddOne(CLI::App* c, StageArgs* a) {
  c->add_option("SRC", a->options.src, "file or directory to copy")->required();
  c->add_option("DST", a->options.dst, "where it goes (a directory's contents go into DST)")->required();
  c->add_option("--threads", a->options.threads, "copying threads (default 8)")->check(CLI::Range(1, 256));
  c->add_option("--piece-size", a->piece_size, "files larger than this are copied in pieces of it (default 64MiB)");
  c->add_option("--manifest", a->options.manifest, "the manifest (default DST.bbstage.json)");
  c->add_flag("--json", a->json, "print the outcome as one JSON line");
  c->add_flag("--quiet", a->quiet, "no progress lines");
}

}  // namespace

void AddStageCommands(CLI::App& app, StageArgs* args) {
  auto* st = app.add_subcommand("stage", "copy data into or out of the burst buffer, verified and resumable");
  st->require_subcommand(1);
  args->in = st->add_subcommand("in", "stage SRC (outside) into DST (in the burst buffer)");
  args->out = st->add_subcommand("out", "stage SRC (in the burst buffer) out to DST");
  AddOne(args->in, args);
  AddOne(args->out, args);
}

bool StageChosen(const StageArgs& args) { return (args.in && *args.in) || (args.out && *args.out); }

int RunStage(StageArgs& a) {
  auto piece = ParseByteSize(a.piece_size);
  if (!piece || *piece == 0) {
    std::fprintf(stderr, "bbctl stage: --piece-size %s: not a size above 0 (e.g. 64MiB)\n", a.piece_size.c_str());
    return 2;
  }
  a.options.piece_bytes = *piece;
  auto r = stage::Stage(a.options, a.quiet ? nullptr : std::function<void(const stage::Progress&)>(PrintProgress));
  if (!r) {
    std::fprintf(stderr, "bbctl stage: %s\n", r.error().message().c_str());
    return 2;
  }
  for (const std::string& f : r->failures) std::fprintf(stderr, "bbctl stage: not staged: %s\n", f.c_str());
  const auto& p = r->progress;
  std::fprintf(stderr,
               "bbctl stage: %s: %llu files (%s) in %.1f s: %llu copied, %llu already there and verified, %zu failed; "
               "manifest %s\n",
               r->failures.empty() ? "done" : "FAILED", static_cast<unsigned long long>(p.files_total),
               FormatByteSize(static_cast<double>(p.bytes_total)).c_str(), p.seconds,
               static_cast<unsigned long long>(r->files_copied),
               static_cast<unsigned long long>(r->files_verified_already), r->failures.size(), r->manifest.c_str());
  if (a.json) {
    nlohmann::json j = {{"ok", r->failures.empty()},       {"files", p.files_total},
                        {"bytes", p.bytes_total},          {"files_copied", r->files_copied},
                        {"bytes_copied", r->bytes_copied}, {"files_verified_already", r->files_verified_already},
                        {"failures", r->failures},         {"seconds", p.seconds},
                        {"manifest", r->manifest}};
    std::printf("%s\n", j.dump().c_str());
  }
  return r->failures.empty() ? 0 : 1;
}

}  // namespace bb::ctl
