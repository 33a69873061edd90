#include "modeselect/static/cmdline/makefile.h"

#include <cstdint>
#include <set>

#include "modeselect/static/text.h"

namespace bb::modeselect {
namespace {

constexpr const char* kSourceExts[] = {".c", ".cc", ".cpp", ".cxx", ".C",   ".f90", ".F90",
                                       ".f", ".F",  ".f95", ".f03", ".f08", ".for", ".f77"};

// Logical lines: comments dropped, backslash continuations joined, with their first line.
std::vector<std::pair<std::string, int>> LogicalLines(std::string_view text) {
  std::vector<std::pair<std::string, int>> out;
  text::LineIndex lines(text);
  std::string cur;
  int first = 0;
  for (int n = 1; n <= lines.Count(); ++n) {
    std::string_view l = lines.Line(n);
    bool recipe = !l.empty() && l[0] == '\t';
    if (!recipe) {
      size_t hash = l.find('#');
      if (hash != std::string_view::npos) l = l.substr(0, hash);
    }
    if (cur.empty()) first = n;
    bool cont = !l.empty() && l.back() == '\\';
    if (cont) l.remove_suffix(1);
    cur.append(l);
    if (cont) {
      cur.push_back(' ');
      continue;
    }
    out.emplace_back(std::move(cur), first);
    cur.clear();
  }
  if (!cur.empty()) out.emplace_back(std::move(cur), first);
  return out;
}

std::string Subst(const std::string& pattern, const std::string& replacement, const std::string& word) {
  size_t pct = pattern.find('%');
  if (pct == std::string::npos) return word == pattern ? replacement : word;
  std::string pre = pattern.substr(0, pct), post = pattern.substr(pct + 1);
  if (word.size() < pre.size() + post.size() || word.compare(0, pre.size(), pre) != 0 ||
      word.compare(word.size() - post.size(), post.size(), post) != 0)
    return word;
  std::string stem = word.substr(pre.size(), word.size() - pre.size() - post.size());
  size_t rp = replacement.find('%');
  return rp == std::string::npos ? replacement : replacement.substr(0, rp) + stem + replacement.substr(rp + 1);
}

class Expander {
 public:
  explicit Expander(const std::map<std::string, std::string>& vars) : vars_(vars) {}

  std::string Run(std::string_view s, int depth = 0) {
    if (depth > 16) return std::string(s);
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '$' || i + 1 >= s.size()) {
        out.push_back(s[i]);
        continue;
      }
      char open = s[i + 1];
      if (open != '(' && open != '{') {
        if (open == '$') out.push_back('$');
        i += 1;  // $@, $<, $^: automatic variables, unknown here
        continue;
      }
      char close = open == '(' ? ')' : '}';
      int nest = 1;
      size_t j = i + 2;
      for (; j < s.size() && nest > 0; ++j) {
        if (s[j] == open) ++nest;
        if (s[j] == close) --nest;
      }
      std::string inner(s.substr(i + 2, (nest == 0 ? j - 1 : j) - i - 2));
      out += Reference(inner, depth);
      i = nest == 0 ? j - 1 : s.size();
    }
    return out;
  }

 private:
  std::string Reference(const std::string& inner, int depth) {
    size_t sp = inner.find(' ');
    std::string fn = inner.substr(0, sp);
    if (sp != std::string::npos && (fn == "patsubst" || fn == "addprefix" || fn == "addsuffix" || fn == "notdir" ||
                                    fn == "strip" || fn == "sort")) {
      std::vector<std::string> a;
      std::string args = inner.substr(sp + 1);
      for (std::string_view p : text::Split(args, ",")) a.push_back(Run(text::Trim(p), depth + 1));
      std::string out;
      for (std::string_view w : text::Split(a.back(), " \t")) {
        std::string word(w), r = word;
        if (fn == "patsubst" && a.size() == 3) r = Subst(a[0], a[1], word);
        if (fn == "addprefix" && a.size() == 2) r = a[0] + word;
        if (fn == "addsuffix" && a.size() == 2) r = word + a[0];
        if (fn == "notdir") r = text::Basename(word);
        out += (out.empty() ? "" : " ") + r;
      }
      return out;
    }
    if (sp != std::string::npos) return "";  // $(shell ...), $(wildcard ...): unknown
    size_t colon = inner.find(':');
    size_t eq = inner.find('=', colon == std::string::npos ? 0 : colon);
    if (colon != std::string::npos && eq != std::string::npos) {  // $(SRC:.c=.o)
      std::string value = Run(Value(inner.substr(0, colon)), depth + 1);
      std::string from = inner.substr(colon + 1, eq - colon - 1), to = inner.substr(eq + 1);
      if (from.find('%') == std::string::npos) {
        from = "%" + from;
        to = "%" + to;
      }
      std::string out;
      for (std::string_view w : text::Split(value, " \t"))
        out += (out.empty() ? "" : " ") + Subst(from, to, std::string(w));
      return out;
    }
    return Run(Value(inner), depth + 1);
  }

  std::string Value(const std::string& name) {
    auto it = vars_.find(name);
    return it == vars_.end() ? "" : it->second;
  }

  const std::map<std::string, std::string>& vars_;
};

bool Assignment(const std::string& l, Makefile* mk, const std::map<std::string, std::string>& overrides) {
  size_t eq = l.find('=');
  size_t colon = l.find(':');
  if (eq == std::string::npos ||
      (colon != std::string::npos && colon < eq && !(colon + 1 == eq || (colon + 2 == eq && l[colon + 1] == ':'))))
    return false;
  size_t op = eq;
  while (op > 0 && (l[op - 1] == ':' || l[op - 1] == '?' || l[op - 1] == '+' || l[op - 1] == '!')) --op;
  std::string name(text::Trim(l.substr(0, op)));
  for (const char* kw : {"override ", "export "}) {
    if (name.rfind(kw, 0) == 0) name = std::string(text::Trim(name.substr(std::string_view(kw).size())));
  }
  if (name.empty() || name.find(' ') != std::string::npos) return false;
  std::string kind = l.substr(op, eq - op);
  std::string value(text::Trim(l.substr(eq + 1)));
  if (overrides.count(name)) return true;
  if (kind == "?" && mk->vars.count(name)) return true;
  if (kind == ":" || kind == "::") value = Expander(mk->vars).Run(value);
  if (kind == "+") value = mk->vars[name] + (mk->vars[name].empty() ? "" : " ") + value;
  mk->vars[name] = value;
  return true;
}

void CollectSources(const Makefile& mk, const std::string& target,
                    const std::function<bool(const std::string&)>& exists, int depth, std::set<std::string>* seen,
                    std::vector<std::string>* out);

void FromPattern(const Makefile& mk, const std::string& file, const std::function<bool(const std::string&)>& exists,
                 std::vector<std::string>* out) {
  for (const MakeRule& r : mk.rules) {
    for (const std::string& t : r.targets) {
      if (t.find('%') == std::string::npos) continue;
      for (const std::string& p : r.prereqs) {
        std::string cand = Subst(t, p, file);
        if (cand == file || cand == p) continue;
        if (IsCompiledSource(cand) && exists(cand)) return out->push_back(cand);
      }
    }
  }
  std::string_view ext = text::Extension(file);
  if (ext == ".o" || ext == ".obj") {
    std::string stem = file.substr(0, file.size() - ext.size());
    for (const char* e : kSourceExts) {
      if (exists(stem + e)) return out->push_back(stem + e);
    }
  }
}

void CollectSources(const Makefile& mk, const std::string& target,
                    const std::function<bool(const std::string&)>& exists, int depth, std::set<std::string>* seen,
                    std::vector<std::string>* out) {
  if (depth > 12 || !seen->insert(target).second) return;
  if (IsCompiledSource(target)) return out->push_back(target);
  bool found = false;
  for (const MakeRule& r : mk.rules) {
    bool match = false;
    for (const std::string& t : r.targets) match |= t == target;
    if (!match) continue;
    found = true;
    for (const std::string& p : r.prereqs) CollectSources(mk, p, exists, depth + 1, seen, out);
    for (const std::string& line : r.recipe) {
      std::map<std::string, std::string> vars = mk.vars;
      std::string l = Expander(vars).Run(line);
      for (std::string_view w : text::Split(l, " \t;")) {
        std::string word(w);
        if (IsCompiledSource(word) && seen->insert(word).second) out->push_back(word);
      }
    }
  }
  if (!found) FromPattern(mk, target, exists, out);
}

}  // namespace

bool IsCompiledSource(std::string_view path) {
  std::string_view ext = text::Extension(path);
  for (const char* e : kSourceExts) {
    if (ext == e) return true;
  }
  return false;
}

Makefile ParseMakefile(std::string_view text, const std::map<std::string, std::string>& overrides) {
  Makefile mk;
  mk.vars = overrides;
  size_t rule = SIZE_MAX;  // the rule whose recipe lines follow
  for (auto& [l, line] : LogicalLines(text)) {
    if (!l.empty() && l[0] == '\t') {
      if (rule < mk.rules.size()) mk.rules[rule].recipe.push_back(l.substr(1));
      continue;
    }
    std::string_view t = text::Trim(l);
    if (t.empty()) continue;
    std::string first(t.substr(0, t.find_first_of(" \t")));
    if (first == "ifeq" || first == "ifneq" || first == "ifdef" || first == "ifndef" || first == "else" ||
        first == "endif" || first == "include" || first == "-include" || first == "define" || first == "endef" ||
        first == "vpath") {
      continue;
    }
    if (Assignment(std::string(t), &mk, overrides)) {
      rule = SIZE_MAX;
      continue;
    }
    size_t colon = t.find(':');
    if (colon == std::string_view::npos) continue;
    Expander ex(mk.vars);
    MakeRule r;
    r.line = line;
    std::string_view rest = t.substr(colon + 1);
    if (!rest.empty() && rest[0] == ':') rest.remove_prefix(1);
    size_t semi = rest.find(';');
    std::string targets = ex.Run(t.substr(0, colon)), prereqs = ex.Run(rest.substr(0, semi));
    for (std::string_view w : text::Split(targets, " \t")) r.targets.emplace_back(w);
    for (std::string_view w : text::Split(prereqs, " \t|")) r.prereqs.emplace_back(w);
    if (semi != std::string_view::npos) r.recipe.emplace_back(rest.substr(semi + 1));
    for (const std::string& tg : r.targets) {
      if (mk.default_target.empty() && tg.find('%') == std::string::npos && tg[0] != '.') mk.default_target = tg;
    }
    mk.rules.push_back(std::move(r));
    rule = mk.rules.size() - 1;
  }
  return mk;
}

std::vector<std::string> MakeTargetSources(const Makefile& mk, const std::string& target,
                                           const std::function<bool(const std::string&)>& exists) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  CollectSources(mk, target.empty() ? mk.default_target : target, exists, 0, &seen, &out);
  return out;
}

}  // namespace bb::modeselect
