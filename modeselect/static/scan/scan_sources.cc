// ScanSources: discovery, emission and propagation over every function of a job.
#include <functional>

#include "modeselect/static/lang/sources.h"
#include "modeselect/static/scan/scan_internal.h"

namespace bb::modeselect {
namespace scan {
namespace {

constexpr int kMaxDepth = 6;

void WalkAll(JobState& job) {
  job.summaries.clear();
  for (int u = 0; u < static_cast<int>(job.units.size()); ++u) {
    for (int f = 0; f < static_cast<int>(job.units[u].functions.size()); ++f) {
      job.summaries[{u, f}] = Walker(job, u, f).Run();
    }
  }
}

// Parameters that receive a rank, another rank, the task count or a constant from a caller.
bool SeedParams(JobState& job) {
  bool changed = false;
  for (const auto& [ref, sum] : job.summaries) {
    for (const CallSite& cs : sum.calls) {
      auto it = job.functions.find(cs.callee);
      if (it == job.functions.end()) continue;
      for (FnRef def : it->second) {
        std::vector<Val>& seeds = job.param_seeds[{def.unit, def.fn}];
        size_t n = std::min(cs.args.size(), job.fn(def).params.size());
        if (seeds.size() < n) seeds.resize(n);
        for (size_t i = 0; i < n; ++i) {
          const Val& a = cs.args[i];
          Val& s = seeds[i];
          bool before = s.rank || s.other || s.size || s.random || s.loopvar;
          Val add;
          add.rank = a.rank;
          add.other = a.other;
          add.size = a.size;
          add.random = a.random;
          add.loopvar = a.loopvar;
          add.term = a.term;
          s.Merge(add);
          bool after = s.rank || s.other || s.size || s.random || s.loopvar;
          if (a.num && !s.num && !s.handle) s.num = a.num;
          changed |= before != after;
        }
      }
    }
  }
  return changed;
}

// The loop-sensitive events of `def` and of the helpers it calls outside its own loops, with
// sizes resolved through the arguments of the call that reaches them.
void CollectPending(const JobState& job, FnRef def, const std::vector<Val>& args, int depth, bool mkdirs_only,
                    std::vector<Pending>* out) {
  if (depth > kMaxDepth) return;
  auto sit = job.summaries.find({def.unit, def.fn});
  if (sit == job.summaries.end()) return;
  for (Pending p : sit->second.pending) {
    if (mkdirs_only != (p.kind == Pend::kMkdir)) continue;
    if (p.size < 0 && p.size_param >= 0 && static_cast<size_t>(p.size_param) < args.size() &&
        args[static_cast<size_t>(p.size_param)].num)
      p.size = *args[static_cast<size_t>(p.size_param)].num * p.scale;
    out->push_back(p);
  }
  for (const CallSite& cs : sit->second.calls) {
    if (cs.in_loop && !mkdirs_only) continue;  // emitted at that loop
    std::vector<Val> inner = cs.args;
    for (size_t i = 0; i < inner.size() && i < cs.arg_param.size(); ++i) {
      int k = cs.arg_param[i];
      if (!inner[i].num && k >= 0 && static_cast<size_t>(k) < args.size()) inner[i] = args[static_cast<size_t>(k)];
    }
    auto it = job.functions.find(cs.callee);
    if (it == job.functions.end()) continue;
    size_t before = out->size();
    for (FnRef d : it->second) CollectPending(job, d, inner, depth + 1, mkdirs_only, out);
    for (size_t i = before; i < out->size(); ++i) {
      (*out)[i].guarded = (*out)[i].guarded || cs.guarded;
      (*out)[i].depth += cs.depth;
    }
  }
}

void EmitAtCall(JobState& job, int unit, const CallSite& cs, const Pending& p) {
  switch (p.kind) {
    case Pend::kCreate:
      return job.Emit(unit, "meta.create_storm", cs.line, cs.iters, Merge::kMax);
    case Pend::kStat:
      return job.Emit(unit, "meta.stat_storm", cs.line, cs.iters, Merge::kMax);
    case Pend::kUnlink:
      return job.Emit(unit, "meta.unlink_storm", cs.line, cs.iters, Merge::kMax);
    case Pend::kSmallWrite:
    case Pend::kSmallRead: {
      const char* fact = p.kind == Pend::kSmallWrite ? "access.small_writes" : "access.small_reads";
      if (p.size > 0 && p.size < 64 * 1024)
        job.Emit(unit, fact, cs.line, p.size, Merge::kMin);
      else if (p.size < 0 && p.text)
        job.Emit(unit, fact, cs.line, 0, Merge::kMin);
      return;
    }
    case Pend::kMkdir:
      if (cs.depth + p.depth >= 2) job.Emit(unit, "meta.deep_tree", cs.line, 1, Merge::kMax);
      return job.Emit(unit, p.guarded || cs.guarded ? "meta.mkdir_one_rank" : "meta.mkdir_every_rank", cs.line, 1,
                      Merge::kSum);
  }
}

void Propagate(JobState& job) {
  for (const auto& [ref, sum] : job.summaries) {
    for (const CallSite& cs : sum.calls) {
      auto it = job.functions.find(cs.callee);
      if (it == job.functions.end()) continue;
      for (FnRef def : it->second) {
        std::vector<Pending> events;
        if (cs.in_loop) CollectPending(job, def, cs.args, 0, false, &events);
        if (!sum.has_callers) CollectPending(job, def, cs.args, 0, true, &events);
        for (const Pending& p : events) EmitAtCall(job, ref.first, cs, p);
      }
    }
  }
}

struct ReadWrite {
  bool write = false, read = false;
};

ReadWrite Phases(const JobState& job, FnRef def, int depth, std::map<std::pair<int, int>, ReadWrite>* memo) {
  auto key = std::make_pair(def.unit, def.fn);
  if (auto it = memo->find(key); it != memo->end()) return it->second;
  (*memo)[key] = {};  // cycles see nothing
  ReadWrite rw;
  auto sit = job.summaries.find(key);
  if (sit == job.summaries.end() || depth > kMaxDepth) return rw;
  for (const PhaseItem& p : sit->second.timeline) {
    rw.write |= p.kind == Phase::kWrite;
    rw.read |= p.kind == Phase::kRead;
    if (p.kind != Phase::kCall) continue;
    auto it = job.functions.find(sit->second.calls[static_cast<size_t>(p.call)].callee);
    if (it == job.functions.end()) continue;
    for (FnRef d : it->second) {
      ReadWrite c = Phases(job, d, depth + 1, memo);
      rw.write |= c.write;
      rw.read |= c.read;
    }
  }
  (*memo)[key] = rw;
  return rw;
}

// A barrier after some writes and before some reads (directly or through calls).
void Barriers(JobState& job) {
  std::map<std::pair<int, int>, ReadWrite> memo;
  for (const auto& [ref, sum] : job.summaries) {
    bool wrote = false;
    int barrier = 0;
    for (const PhaseItem& p : sum.timeline) {
      ReadWrite rw;
      if (p.kind == Phase::kCall) {
        auto it = job.functions.find(sum.calls[static_cast<size_t>(p.call)].callee);
        for (FnRef d : it == job.functions.end() ? std::vector<FnRef>{} : it->second) {
          ReadWrite c = Phases(job, d, 1, &memo);
          rw.write |= c.write;
          rw.read |= c.read;
        }
      }
      bool reads = p.kind == Phase::kRead || rw.read;
      if (barrier && reads) {
        job.Emit(ref.first, "sync.barrier_between_phases", barrier, 1, Merge::kMax);
        barrier = 0;
      }
      if (p.kind == Phase::kWrite || rw.write) wrote = true;
      if (p.kind == Phase::kBarrier && wrote) barrier = p.line;
    }
  }
}

// Files written and read back; files read under another task's rank.
void Names(JobState& job) {
  std::map<std::string, std::set<std::string>> writes;  // key -> rank terms it is written with
  for (const NameUse& n : job.names) {
    if (n.write) writes[n.key].insert(n.ranked ? n.term : "");
  }
  for (const NameUse& n : job.names) {
    if (!n.read) continue;
    auto w = writes.find(n.key);
    if (w != writes.end()) job.Emit(n.unit, "file.write_then_read", n.line, 1, Merge::kMax);
    bool other = n.term == "*all*";
    if (!other && w != writes.end() && (n.ranked || n.loopvar)) {
      bool ranked_writes = false;
      for (const std::string& t : w->second) ranked_writes |= !t.empty();
      other = ranked_writes && !w->second.count(n.ranked ? n.term : "");
    } else if (!other && w == writes.end()) {
      other = n.other;
    }
    if (other) job.Emit(n.unit, "file.read_other_rank", n.line, 1, Merge::kMax);
  }
}

}  // namespace
}  // namespace scan

std::vector<Finding> ScanSources(std::span<const SourceFile> files) {
  using namespace scan;
  FindingSet out;
  JobState job;
  job.out = &out;
  for (const SourceFile& f : files) {
    job.units.push_back(BuildUnit(f.path, f.lang, f.text));
    job.info.emplace_back();
    job.info.back().lines = text::LineIndex(f.text);
  }
  for (int u = 0; u < static_cast<int>(job.units.size()); ++u) {
    for (int f = 0; f < static_cast<int>(job.units[u].functions.size()); ++f) {
      const std::string& name = job.units[u].functions[f].name;
      if (!name.empty()) job.functions[name].push_back({u, f});
    }
  }
  // Discovery: rank and size names, then parameters that receive them, and the path builders
  // (which a call can only use once they are known), to a fixed point.
  for (int round = 0; round < 4; ++round) {
    size_t names = job.builders.size();
    for (const UnitInfo& i : job.info) names += i.rank_names.size() + i.size_names.size();
    WalkAll(job);
    bool changed = SeedParams(job);
    size_t after = job.builders.size();
    for (const UnitInfo& i : job.info) after += i.rank_names.size() + i.size_names.size();
    if (!changed && after == names && round > 0) break;
  }
  job.emit = true;
  WalkAll(job);
  Propagate(job);
  Barriers(job);
  Names(job);
  return std::move(out).Take();
}

}  // namespace bb::modeselect
