// The Walker's I/O handlers: opens (names, modes, sharing), data calls (record sizes, offsets),
// metadata calls, and the string building that puts a rank into a file name.
#include "modeselect/static/scan/scan_internal.h"

namespace bb::modeselect::scan {
namespace {

constexpr double kSmallRecord = 64 * 1024;

std::string LowerLiteral(const Val& v) { return text::Lower(text::Trim(v.key)); }

// Letters of an fopen/open()/h5py mode string.
OpenMode LetterMode(const std::string& m, bool append_means_append) {
  OpenMode o;
  if (m.find('r') != std::string::npos) o.read = true;
  if (m.find('w') != std::string::npos) o.write = o.create = true;
  if (m.find('a') != std::string::npos) {
    o.write = o.create = true;
    o.append = append_means_append;
    o.read = o.read || !append_means_append;
  }
  if (m.find('x') != std::string::npos || m.find("w-") != std::string::npos) o.write = o.create = o.excl = true;
  if (m.find('+') != std::string::npos) o.read = o.write = true;
  return o;
}

OpenMode FlagMode(uint32_t f, bool default_read) {
  OpenMode o;
  o.write = f & kFWrite;
  o.read = (f & kFRead) || (default_read && !o.write);
  o.create = f & kFCreate;
  o.append = f & kFAppend;
  o.excl = (f & kFExcl) && o.create;
  o.direct = f & kFDirect;
  return o;
}

}  // namespace

OpenMode Walker::ModeOf(const Call& c, const OpInfo& op) {
  Val m = EvalArg(c, op.mode_arg, op.mode_kw);
  switch (op.mode) {
    case ModeStyle::kOflags:
      return FlagMode(m.flags, true);
    case ModeStyle::kCreate:
    case ModeStyle::kWrite:
      return OpenMode{false, true, true};
    case ModeStyle::kRead:
      return OpenMode{true};
    case ModeStyle::kFopen:
      return m.key.empty() ? OpenMode{} : LetterMode(m.key, true);
    case ModeStyle::kPyMode:
      return LetterMode(m.key.empty() ? "r" : m.key, true);
    case ModeStyle::kH5py:
    case ModeStyle::kNetcdf4:
      return LetterMode(m.key.empty() ? "r" : m.key, false);
    case ModeStyle::kMemmap:
      return LetterMode(m.key.empty() ? "r+" : m.key, false);
    case ModeStyle::kMpiAmode:
      return FlagMode(m.flags, false);
    case ModeStyle::kH5Create:
    case ModeStyle::kNcCreate: {
      OpenMode o{false, true, true};
      o.excl = m.flags & kFExcl;
      return o;
    }
    case ModeStyle::kH5Open:
    case ModeStyle::kNcOpen:
      return OpenMode{true, (m.flags & kFWrite) != 0};
    case ModeStyle::kIos:
      return IosMode(c, op);
    case ModeStyle::kFortran:
      return FortranMode(c);
    case ModeStyle::kNone:
      break;
  }
  return OpenMode{};
}

// std::ofstream/ifstream/fstream, or stream.open(name, mode): the type, then std::ios flags.
OpenMode Walker::IosMode(const Call& c, const OpInfo& op) {
  std::string type = c.base;
  if (type == "open") {
    auto it = u_.stream_types.find(c.object);
    type = it == u_.stream_types.end() ? "fstream" : it->second;
  }
  OpenMode o;
  o.read = type != "ofstream";
  o.write = o.create = type != "ifstream";
  if (const Arg* a = c.Get(op.mode_arg)) {
    bool in = false, out = false, app = false;
    for (int k = a->span.begin; k < a->span.end; ++k) {
      const std::string& w = u_.tok(k).text;
      in |= w == "in";
      out |= w == "out" || w == "trunc";
      app |= w == "app";
    }
    if (type == "fstream" && (in || out || app)) {
      o.read = in;
      o.write = o.create = out || app;
    }
    o.append = app;
  }
  return o;
}

// Fortran open(..., status=, action=, position=).
OpenMode Walker::FortranMode(const Call& c) {
  const Arg* st = c.Get(-1, "status");
  const Arg* ac = c.Get(-1, "action");
  const Arg* po = c.Get(-1, "position");
  const Arg* am = c.Get(-1, "access");
  std::string status = st ? LowerLiteral(Eval(st->span)) : "";
  std::string action = ac ? LowerLiteral(Eval(ac->span)) : "";
  OpenMode o;
  o.read = action == "read" || action == "readwrite" || (action.empty() && status == "old");
  o.write = action == "write" || action == "readwrite" || (action.empty() && status != "old");
  o.create = o.write && status != "old";
  o.excl = status == "new";
  o.append = (po && LowerLiteral(Eval(po->span)) == "append") || (am && LowerLiteral(Eval(am->span)) == "append");
  return o;
}

void Walker::Open(const Stmt& s, const Call& c, const OpInfo& op, const Context& ctx) {
  Val name;
  if (op.name_arg == kReceiver) {
    name = EvalName(c.object, c.object);
  } else {
    name = EvalArg(c, op.name_arg, op.name_kw);
  }
  OpenMode m = ModeOf(c, op);
  if (*ApiFact(op.api)) Emit(ApiFact(op.api), c.line);
  bool parallel = ParallelOpen(c, op);
  if (name.Ranked()) Emit("file.per_rank", c.line);
  if (m.append) Emit("file.append", c.line);
  if (m.excl) Emit("file.create_excl", c.line);
  if (m.direct) Emit("file.direct", c.line);
  if (parallel) {
    const Arg* ca = op.comm_arg >= 0 ? c.Get(op.comm_arg) : c.Get(-1, "comm");
    bool self = false;
    for (int k = ca ? ca->span.begin : 0; ca && k < ca->span.end; ++k)
      self |= text::IEquals(u_.tok(k).text, "MPI_COMM_SELF") || u_.tok(k).text == "COMM_SELF";
    if (!self && !name.Ranked() && !name.loopvar) Emit("file.shared", c.line);
  } else if (info_.parallel && !ctx.guarded && name.Fixed()) {
    if (m.write)
      Emit("file.shared", c.line);
    else if (m.read)
      Emit("file.read_shared_input", c.line);
  }
  if (m.create && !name.Fixed()) {
    if (ctx.in_loop) {
      Emit("meta.create_storm", c.line, ctx.iters, Merge::kMax);
    } else {
      sum_.pending.push_back({Pend::kCreate});
    }
  }
  Use(name, m.write, m.read && !m.write, c.line);
  if (m.write)
    sum_.timeline.push_back({Phase::kWrite, c.line});
  else if (m.read)
    sum_.timeline.push_back({Phase::kRead, c.line});

  Val h = name;
  h.handle = true;
  h.mode = m;
  h.num.reset();
  BindHandle(s, c, op, h);
}

// Whether an open makes a file every task shares through a parallel library (MPI-IO, HDF5 with
// an MPI-IO driver, parallel NetCDF); emits the parallel-interface facts.
bool Walker::ParallelOpen(const Call& c, const OpInfo& op) {
  bool parallel = op.parallel || op.api == Api::kMpiio || (op.api == Api::kHdf5 && info_.hdf5_parallel);
  if (op.mode == ModeStyle::kH5py) {
    const Arg* d = c.Get(-1, "driver");
    if (d && LowerLiteral(Eval(d->span)) == "mpio") {
      parallel = info_.hdf5_parallel = true;
      Emit("io.hdf5.parallel", c.line);
    }
  }
  if (op.api == Api::kNetcdf) {
    const Arg* p = c.Get(-1, "parallel");
    bool par = op.parallel || c.Get(-1, "comm") || (EvalArg(c, op.mode_arg, op.mode_kw).flags & kFParallel) ||
               (p && p->span.size() == 1 && u_.tok(p->span.begin).Is("True"));
    if (par) {
      parallel = true;
      Emit("io.netcdf.parallel", c.line);
    }
  }
  return parallel;
}

// The handle an open returns goes to the variable that receives it: fd = open(...), FILE *f,
// std::ofstream out(...), MPI_File_open(..., &fh), Fortran open(unit=u / newunit=u).
void Walker::BindHandle(const Stmt& s, const Call& c, const OpInfo& op, const Val& h) {
  results_[c.name_token] = h;
  if (std::string rv = ResultVar(s, c); !rv.empty()) env_[rv] = h;
  if (!c.declares.empty()) env_[c.declares] = h;
  if (c.base == "open" && !c.object.empty() && u_.lang == Lang::kCpp) env_[c.object] = h;
  if (const Arg* out = c.Get(op.out_arg); out && op.out_arg >= 0) {
    for (int k = out->span.begin; k < out->span.end; ++k) {
      if (u_.tok(k).kind == TokKind::kIdent) {
        env_[u_.tok(k).text] = h;
        break;
      }
    }
  }
  if (op.api == Api::kFortran) {
    const Arg* unit = c.Get(0, "unit");
    if (!unit) unit = c.Get(-1, "newunit");
    if (unit) {
      std::string key = "unit:";
      for (int k = unit->span.begin; k < unit->span.end; ++k) key += u_.tok(k).text;
      env_[key] = h;
    }
  }
}

Val Walker::HandleOf(const Call& c, const OpInfo& op) {
  if (op.handle_arg == kReceiver) {
    if (c.object == "()") {
      Val v;
      v.handle = true;
      return v;
    }
    return EvalName(c.object, c.object);
  }
  if (op.api == Api::kFortran) {
    const Arg* unit = c.Get(0, "unit");
    Val v;
    if (!unit) return v;
    std::string key = "unit:";
    for (int k = unit->span.begin; k < unit->span.end; ++k) key += u_.tok(k).text;
    if (auto it = env_.find(key); it != env_.end()) return it->second;
    if (key == "unit:*" || key == "unit:6" || key == "unit:5" || key == "unit:0") return v;
    v.handle = true;  // an external unit opened elsewhere
    return v;
  }
  const Arg* a = c.Get(op.handle_arg);
  return a ? Eval(a->span) : Val{};
}

bool Walker::FortranInternalWrite(const Call& c) {
  const Arg* unit = c.Get(0, "unit");
  if (!unit || unit->span.size() != 1) return false;
  const std::string& var = u_.tok(unit->span.begin).text;
  if (!u_.char_vars.count(var)) return false;
  if (c.base == "write") {
    Val v = Eval(c.tail);
    v.text = true;
    Val fmt = EvalArg(c, 1, "fmt");
    v.key = fmt.key + v.key;
    env_[var] = v;
    MarkBuilt(var);
  }
  return true;
}

void Walker::DataCall(const Call& c, const OpInfo& op, const Context& ctx, bool write) {
  if (op.api == Api::kFortran && FortranInternalWrite(c)) return;
  Val h = HandleOf(c, op);
  bool receiver = op.handle_arg == kReceiver;
  if (const Arg* a = receiver ? nullptr : c.Get(op.handle_arg); a && a->span.size() == 1) {
    const std::string& w = u_.tok(a->span.begin).text;  // the terminal, not a file
    if (w == "stdout" || w == "stderr" || w == "stdin" || w == "STDOUT_FILENO" || w == "STDERR_FILENO" ||
        w == "STDIN_FILENO" || w == "0" || w == "1" || w == "2")
      return;
  }
  if ((receiver || op.api == Api::kFortran) && !h.handle) return;
  if (*ApiFact(op.api)) Emit(ApiFact(op.api), c.line);
  std::optional<double> size;
  int size_param = -1;
  double scale = 1;
  bool text = op.text;
  if (op.api == Api::kFortran) {
    text = c.Get(1, "fmt") != nullptr;
    double bytes = 0;
    bool known = !c.tail.empty();
    for (int k = c.tail.begin; k < c.tail.end && known; ++k) {
      const Token& t = u_.tok(k);
      if (t.kind != TokKind::kIdent) continue;
      auto it = u_.var_bytes.find(t.text);
      known = it != u_.var_bytes.end();
      if (known) bytes += it->second;
    }
    if (!text && known) size = bytes;
  } else if (u_.lang == Lang::kPython && write) {
    text = text || EvalArg(c, 0).text;
  } else if (const Arg* a = c.Get(op.size_arg); a && op.size_arg >= 0) {
    size = Number(u_, a->span);
    size_param = size ? -1 : ParamIndex(a->span);
    const Arg* n = op.count_arg >= 0 ? c.Get(op.count_arg) : nullptr;
    if (n && size) {  // fwrite(buf, size, count, fp): bytes = size * count
      std::optional<double> count = Number(u_, n->span);
      size_param = count ? -1 : ParamIndex(n->span);
      scale = *size;
      size = count ? std::optional<double>(*size * *count) : std::nullopt;
    }
  }
  SizedRecord(c, write, size, size_param, text, ctx, scale);
  if (op.offset_arg >= 0) Offset(c, c.Get(op.offset_arg));
  Use(h, write, !write && h.mode.write, c.line);  // a read through a handle opened to write
  sum_.timeline.push_back({write ? Phase::kWrite : Phase::kRead, c.line});
}

void Walker::MpiDataCall(const Call& c, const MpiData& d, const Context& ctx) {
  Emit(d.collective ? "io.mpiio.collective" : "io.mpiio.independent", c.line);
  bool py = u_.lang == Lang::kPython;
  Val h = py ? EvalName(c.object, c.object) : EvalArg(c, 0);
  std::optional<double> size;
  if (!py && !d.end) {
    const Arg* count = c.Get(d.at ? 3 : 2);
    const Arg* type = c.Get(d.at ? 4 : 3);
    std::optional<double> n = count ? Number(u_, count->span) : std::nullopt;
    double bytes = type && type->span.size() == 1 ? MpiTypeBytes(u_.tok(type->span.begin).text) : 0;
    if (n && bytes > 0) size = *n * bytes;
  }
  if (!d.end) SizedRecord(c, d.write, size, -1, false, ctx);
  if (d.at) Offset(c, c.Get(py ? 0 : 1));
  Use(h, d.write, !d.write && h.mode.write, c.line);
  sum_.timeline.push_back({d.write ? Phase::kWrite : Phase::kRead, c.line});
}

void Walker::SizedRecord(const Call& c, bool write, std::optional<double> size, int size_param, bool text,
                         const Context& ctx, double scale) {
  const char* small = write ? "access.small_writes" : "access.small_reads";
  if (size && *size >= kSmallRecord) {
    if (write) Emit("access.large_writes", c.line, *size, Merge::kMax);
    return;
  }
  if (ctx.in_loop) {
    if (size && *size > 0)
      Emit(small, c.line, *size, Merge::kMin);
    else if (text)
      Emit(small, c.line, 0, Merge::kMin);
    return;
  }
  if ((size && *size > 0) || size_param >= 0 || text) {
    Pending p{write ? Pend::kSmallWrite : Pend::kSmallRead};
    p.size = size.value_or(-1);
    p.size_param = size_param;
    p.scale = scale;
    p.text = text;
    sum_.pending.push_back(p);
  }
}

void Walker::Offset(const Call& c, const Arg* a) {
  if (!a) return;
  Val v = Eval(a->span);
  if (v.random) Emit("access.random", c.line);
  if (v.Ranked() && !(v.other && v.term == "*all*")) Emit("access.strided", c.line);
}

}  // namespace bb::modeselect::scan
