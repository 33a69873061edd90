// Word expansion as bash does it, for what a static reader can know: parameters (with the
// ${x:-d} family), $((arithmetic)), a few command substitutions ($(seq ...), $(dirname ...)),
// field splitting of unquoted results and brace expansion. What cannot be known stays as text:
// an unset $NAME becomes "${NAME}", an opaque $(cmd) stays "$(cmd)".
#include <algorithm>
#include <cctype>
#include <cmath>

#include "modeselect/static/job/job_interp.h"
#include "modeselect/static/lang/model.h"
#include "modeselect/static/shell/shell_lex.h"

namespace bb::modeselect {
namespace {

constexpr size_t kMaxFields = 4096;

// Variables the batch shell cannot know before the job runs, even with a default given.
bool IsRuntime(std::string_view name) {
  return name == "BB_MOUNT" || name == "DW_JOB_STRIPED" || name == "DW_JOB_PRIVATE";
}

// Shell glob match of `s` against `pat` (* and ?).
bool Glob(std::string_view pat, std::string_view s) {
  if (pat.empty()) return s.empty();
  if (pat[0] == '*') {
    for (size_t i = 0; i <= s.size(); ++i) {
      if (Glob(pat.substr(1), s.substr(i))) return true;
    }
    return false;
  }
  return !s.empty() && (pat[0] == '?' || pat[0] == s[0]) && Glob(pat.substr(1), s.substr(1));
}

std::string Strip(const std::string& v, const std::string& op, const std::string& pat) {
  bool prefix = op[0] == '#', longest = op.size() == 2;
  std::string best = v;
  if (v.size() > 4096 || std::count(pat.begin(), pat.end(), '*') > 3) return v;  // bounded work
  for (size_t n = 0; n <= v.size(); ++n) {
    size_t len = longest ? v.size() - n : n;
    std::string_view part = prefix ? std::string_view(v).substr(0, len) : std::string_view(v).substr(v.size() - len);
    if (Glob(pat, part)) return prefix ? v.substr(len) : v.substr(0, v.size() - len);
  }
  return best;
}

// {0..3} and {a,b}: the first brace group of `s`, recursively.
void Braces(const std::string& s, std::vector<std::string>* out, int depth) {
  size_t open = std::string::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{' && (i == 0 || s[i - 1] != '$')) {
      open = i;
      break;
    }
  }
  size_t close = open == std::string::npos ? open : s.find('}', open);
  if (close == std::string::npos || depth > 4 || out->size() >= kMaxFields) {
    out->push_back(s);
    return;
  }
  std::string inner = s.substr(open + 1, close - open - 1);
  std::string pre = s.substr(0, open), post = s.substr(close + 1);
  std::vector<std::string> items;
  size_t dots = inner.find("..");
  std::optional<long long> a, b;
  if (dots != std::string::npos) {
    a = text::ParseInt(inner.substr(0, dots));
    b = text::ParseInt(inner.substr(dots + 2));
  }
  if (a && b && std::llabs(*b - *a) < static_cast<long long>(kMaxFields)) {
    for (long long v = *a;; v += *a <= *b ? 1 : -1) {
      items.push_back(std::to_string(v));
      if (v == *b) break;
    }
  } else if (inner.find(',') != std::string::npos) {
    for (std::string_view p : text::Split(inner, ",")) items.emplace_back(p);
  } else {
    out->push_back(s);
    return;
  }
  for (const std::string& it : items) Braces(pre + it + post, out, depth + 1);
}

}  // namespace

void JobInterpreter::SetVar(const std::string& name, const std::string& value) {
  vars_[name] = value;
  if (IsRuntime(name) && !value.empty() && value.find("${") == std::string::npos) bb_prefixes_.insert(value);
}

std::string JobInterpreter::Param(const WordPart& p) {
  const std::string& name = p.text;
  std::string marker = "${" + name + "}";
  std::optional<std::string> value;
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
    size_t n = static_cast<size_t>(name[0] - '0');
    if (n == 0)
      value = Top().src->path;
    else if (n <= Top().positional.size())
      value = Top().positional[n - 1];
  } else if (name == "@" || name == "*") {
    std::string all;
    for (const std::string& a : Top().positional) all += (all.empty() ? "" : " ") + a;
    value = all;
  } else if (name == "#") {
    value = std::to_string(Top().positional.size());
  } else if (auto it = vars_.find(name); it != vars_.end()) {
    value = it->second;
  }
  const std::string& op = p.op;
  if (op.empty() || op == ":?" || op == "?") return value.value_or(marker);
  if (op == "len") return value ? std::to_string(value->size()) : marker;
  if (op == ":-" || op == "-" || op == ":=" || op == "=") {
    if (value && (op.size() == 1 || !value->empty())) return *value;
    if (IsRuntime(name)) return marker;
    std::string d = ExpandText(p.arg);
    if (op.back() == '=') SetVar(name, d);
    return d;
  }
  if (op == ":+" || op == "+") return value && (op.size() == 1 || !value->empty()) ? ExpandText(p.arg) : "";
  if (!value) return marker;
  if (op == "#" || op == "##" || op == "%" || op == "%%") return Strip(*value, op, ExpandText(p.arg));
  if (op == "/" || op == "//") {
    size_t slash = p.arg.find('/');
    std::string from = ExpandText(p.arg.substr(0, slash));
    std::string to = slash == std::string::npos ? "" : ExpandText(p.arg.substr(slash + 1));
    std::string v = *value;
    for (size_t at = from.empty() ? std::string::npos : v.find(from); at != std::string::npos;
         at = v.find(from, at + to.size())) {
      v.replace(at, from.size(), to);
      if (op == "/") break;
    }
    return v;
  }
  return marker;
}

std::optional<long long> JobInterpreter::Arith(std::string inner) {
  // ${x} and $x become their values; names are looked up when evaluated.
  std::string e;
  for (size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] != '$') {
      e.push_back(inner[i]);
      continue;
    }
    size_t b = i + 1 + (i + 1 < inner.size() && inner[i + 1] == '{');
    size_t j = b;
    while (j < inner.size() && text::IsIdentChar(inner[j])) ++j;
    auto it = vars_.find(inner.substr(b, j - b));
    e += it != vars_.end() ? it->second : inner.substr(b, j - b);
    i = j < inner.size() && inner[j] == '}' ? j : j - 1;
  }
  scan::Unit u;
  u.lang = Lang::kC;
  u.toks = TokenizeC(e);
  scan::NameValue lookup = [this](std::string_view n) -> std::optional<double> {
    auto it = vars_.find(std::string(n));
    if (it == vars_.end()) return std::nullopt;
    std::optional<long long> v = text::ParseInt(it->second);
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  std::optional<double> v = scan::ConstEval(u, {0, u.ntoks()}, lookup);
  if (!v || std::fabs(*v) > 9e15) return std::nullopt;
  return static_cast<long long>(*v);
}

// What cannot be evaluated keeps its text, without blanks, with the variables the shell knows
// put in (`(rank+1) % SLURM_NTASKS` with rank=${SLURM_PROCID} and 8 tasks:
// `(${SLURM_PROCID}+1)%8`), so that a task variable behind another name is still seen
// (rank_paths.h) and the text stays one word.
std::string JobInterpreter::ArithText(const std::string& inner) {
  std::string out;
  for (size_t i = 0; i < inner.size();) {
    size_t b = i + (inner[i] == '$');
    b += b < inner.size() && b > i && inner[b] == '{';
    bool name = b < inner.size() && text::IsIdentChar(inner[b]) && !std::isdigit(static_cast<unsigned char>(inner[b]));
    if (!name) {
      if (!std::isspace(static_cast<unsigned char>(inner[i]))) out.push_back(inner[i]);
      ++i;
      continue;
    }
    size_t j = b;
    while (j < inner.size() && text::IsIdentChar(inner[j])) ++j;
    std::string n = inner.substr(b, j - b);
    auto it = vars_.find(n);
    bool simple = it != vars_.end() && (text::ParseInt(it->second) || it->second == "${" + n + "}" ||
                                        (it->second.starts_with("${") && it->second.ends_with("}")));
    out += it == vars_.end() ? n : simple ? it->second : "(" + it->second + ")";
    i = j < inner.size() && inner[j] == '}' && b > i + 1 ? j + 1 : j;
  }
  return out;
}

std::string JobInterpreter::CommandSubst(const std::string& inner) {
  std::vector<std::string> argv;
  for (const ShellToken& t : LexShell(inner)) {
    if (t.kind != ShellToken::kWord) break;
    for (std::string& f : Expand(t.word)) argv.push_back(std::move(f));
  }
  std::string opaque = "$(" + std::string(text::Trim(inner)) + ")";
  if (argv.empty()) return opaque;
  const std::string& cmd = argv[0];
  if (auto fn = functions_.find(cmd); fn != functions_.end()) {  // x=$(run_step ...): it runs
    CallFunction(fn->second, std::vector<std::string>(argv.begin() + 1, argv.end()));
    return opaque;
  }
  if (cmd == "seq" && argv.size() >= 2 && argv.size() <= 4) {
    std::vector<long long> n;
    for (size_t i = 1; i < argv.size(); ++i) {
      std::optional<long long> v = text::ParseInt(argv[i]);
      if (!v) return opaque;
      n.push_back(*v);
    }
    long long first = n.size() >= 2 ? n[0] : 1, step = n.size() == 3 ? n[1] : 1, last = n.back();
    if (step == 0 || (last - first) / step > static_cast<long long>(kMaxFields)) return opaque;
    std::string out;
    for (long long v = first; step > 0 ? v <= last : v >= last; v += step) out += std::to_string(v) + " ";
    return out;
  }
  if (cmd == "dirname" && argv.size() == 2) return text::Dirname(argv[1]);
  if (cmd == "basename" && argv.size() >= 2) {
    std::string b = text::Basename(argv[1]);
    if (argv.size() == 3 && b.size() > argv[2].size() && b.ends_with(argv[2])) b.resize(b.size() - argv[2].size());
    return b;
  }
  if (cmd == "pwd") return cwd_;
  if (cmd == "echo") {
    std::string out;
    for (size_t i = 1; i < argv.size(); ++i) out += (i > 1 ? " " : "") + argv[i];
    return out;
  }
  return opaque;
}

std::vector<std::string> JobInterpreter::Expand(const Word& w, bool split) {
  std::vector<std::string> fields;
  std::string cur;
  bool have = false;
  for (const WordPart& p : w.parts) {
    std::string v;
    bool opaque = false;  // arithmetic or a command the task's shell will evaluate: one word
    switch (p.kind) {
      case WordPart::kLiteral:
        v = p.text;
        break;
      case WordPart::kParam:
        v = Param(p);
        break;
      case WordPart::kCommand:
        v = CommandSubst(p.text);
        opaque = v.starts_with("$(");
        break;
      case WordPart::kArith: {
        std::optional<long long> n = Arith(p.text);
        v = n ? std::to_string(*n) : "$((" + ArithText(p.text) + "))";
        opaque = !n;
        break;
      }
    }
    if (p.quoted || p.kind == WordPart::kLiteral || !split || opaque) {
      cur += v;
      have = have || p.quoted || !v.empty();
      continue;
    }
    for (char c : v) {
      if (c == ' ' || c == '\t' || c == '\n') {
        if (have || !cur.empty()) fields.push_back(std::move(cur));
        cur.clear();
        have = false;
      } else {
        cur.push_back(c);
        have = true;
      }
    }
  }
  if (have || !cur.empty()) fields.push_back(std::move(cur));
  bool braces = false;
  for (const WordPart& p : w.parts)
    braces |= p.kind == WordPart::kLiteral && !p.quoted && p.text.find('{') != std::string::npos;
  if (!braces || !split) return fields;
  std::vector<std::string> out;
  for (const std::string& f : fields) Braces(f, &out, 0);
  return out;
}

std::string JobInterpreter::ExpandJoined(const Word& w) {
  std::string out;
  for (const std::string& f : Expand(w, false)) out += f;
  return out;
}

std::string JobInterpreter::ExpandText(std::string_view raw) {
  std::string out;
  for (const ShellToken& t : LexShell(raw)) {
    if (t.kind != ShellToken::kWord) continue;
    if (!out.empty()) out += ' ';
    out += ExpandJoined(t.word);
  }
  return out;
}

// The body of an unquoted here-document expands like a double-quoted string.
std::string JobInterpreter::HereDoc(const Redirect& r) {
  if (r.body_quoted) return r.body;
  std::string quoted = "\"";
  for (char c : r.body) {
    if (c == '"') quoted += '\\';
    quoted += c;
  }
  quoted += '"';
  for (const ShellToken& t : LexShell(quoted)) {
    if (t.kind == ShellToken::kWord) return ExpandJoined(t.word);
  }
  return r.body;
}

}  // namespace bb::modeselect
