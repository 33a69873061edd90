// The Walker's metadata handlers (stat, unlink, mkdir, directory scans, renames) and the
// string building that puts a rank into a file name; file-name uses for the job-wide checks.
#include "modeselect/static/scan/scan_internal.h"

namespace bb::modeselect::scan {

int Walker::ParamIndex(Span s) const {
  if (s.size() != 1) return -1;
  for (size_t i = 0; i < f_.params.size(); ++i) {
    if (f_.params[i] == u_.tok(s.begin).text) return static_cast<int>(i);
  }
  return -1;
}

void Walker::Meta(const Call& c, const OpInfo& op, const Context& ctx) {
  Op kind = op.op;
  if (kind == Op::kShell) {
    std::string cmd;
    for (const Arg& a : c.args) {
      for (int k = a.span.begin; k < a.span.end && cmd.empty(); ++k) {
        if (u_.tok(k).kind == TokKind::kString) cmd = std::string(text::Trim(u_.tok(k).text));
      }
    }
    if (cmd.rfind("mkdir", 0) != 0) return;
    kind = Op::kMkdir;
  }
  switch (kind) {
    case Op::kStat:
    case Op::kUnlink: {
      if (ctx.in_loop) {
        Emit(kind == Op::kStat ? "meta.stat_storm" : "meta.unlink_storm", c.line, ctx.iters, Merge::kMax);
      } else {
        sum_.pending.push_back({kind == Op::kStat ? Pend::kStat : Pend::kUnlink});
      }
      return;
    }
    case Op::kMkdir: {
      if (ctx.depth >= 2) Emit("meta.deep_tree", c.line);
      if (sum_.has_callers) {
        Pending p{Pend::kMkdir};
        p.guarded = ctx.guarded;
        p.depth = ctx.depth;
        sum_.pending.push_back(p);
        return;
      }
      return Emit(ctx.guarded ? "meta.mkdir_one_rank" : "meta.mkdir_every_rank", c.line);
    }
    case Op::kDirWalk:
      Emit("meta.deep_tree", c.line);
      [[fallthrough]];
    case Op::kDirScan:
      return Emit("meta.dir_scan", c.line);
    case Op::kRename:
      return Emit("meta.rename", c.line);
    default:
      return;
  }
}

void Walker::Format(const Call& c, const OpInfo& op) {
  const Arg* out = c.Get(op.out_arg);
  if (!out || c.args.empty()) return;
  std::string var;
  bool member = false;  // s->path, cfg.name: part of a record, not the variable itself
  for (int k = out->span.begin; k < out->span.end && !member; ++k) {
    if (u_.tok(k).kind == TokKind::kIdent && var.empty()) var = u_.tok(k).text;
    bool field = k + 1 < out->span.end && u_.tok(k + 1).kind == TokKind::kIdent && u_.tok(k + 1).text != "data";
    member = !var.empty() && (u_.tok(k).Is(".") || u_.tok(k).Is("->")) && field;
  }
  const Arg* first = c.Get(op.mode_arg);
  if (var.empty() || !first) return;
  Val v = Eval({first->span.begin, c.args.back().span.end});
  v.text = true;
  v.num.reset();
  if (c.base == "strcat" || c.base == "strncat") {
    env_[var].Merge(v);
  } else {
    env_[var] = v;
  }
  if (!member) MarkBuilt(var);
}

void Walker::Use(const Val& name, bool write, bool read, int line) {
  if (!job_.emit || quiet_ || name.key.empty() || (!write && !read)) return;
  NameUse n;
  n.key = name.key;
  n.term = name.term;
  n.write = write;
  n.read = read;
  n.ranked = name.Ranked();
  n.other = name.other;
  n.loopvar = name.loopvar;
  n.unit = unit_;
  n.line = line;
  job_.names.push_back(std::move(n));
}

}  // namespace bb::modeselect::scan
