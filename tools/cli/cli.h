// Command lines of every program, the same way: --version, and a usage error (an unknown flag,
// a missing or bad value) exits 2 with what is wrong and the usage line of the command it was
// given to — never CLI11's own exit codes. Header-only; the programs' only shared CLI code.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

#ifndef BB_VERSION
#define BB_VERSION "unknown"
#endif

namespace bb::cli {

inline void AddVersion(CLI::App& app) { app.set_version_flag("--version", std::string(BB_VERSION)); }

// The deepest subcommand that was given (the app itself when none was).
inline const CLI::App* Deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : at->get_subcommands()) {
      at = sub;
      deeper = true;
      break;
    }
  }
  return at;
}

// The "Usage: ..." line of `app`'s help, with the whole command ("bbctl job start") in front.
inline std::string UsageLine(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " ") + path;
  std::istringstream help(app.help("", CLI::AppFormatMode::Normal));
  for (std::string line; std::getline(help, line);) {
    if (line.rfind("Usage: ", 0) != 0) continue;
    size_t name_end = line.find(' ', 7);
    return "Usage: " + path + (name_end == std::string::npos ? "" : line.substr(name_end));
  }
  return "";
}

// Help that reads like a Unix tool's: each description wrapped to fit 100 columns beside its
// option, its default shown when it has one.
class HelpFormatter : public CLI::Formatter {
 public:
  static constexpr size_t kWidth = 100;
  HelpFormatter() { column_width(30); }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string text = opt->get_description();
    if (!opt->get_default_str().empty() && text.find("default") == std::string::npos) {
      text += " (default: " + opt->get_default_str() + ")";
    }
    return Wrap(text, kWidth - get_column_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             Wrap(sub->get_description(), kWidth - get_column_width()), get_column_width());
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    std::string d = CLI::Formatter::make_description(app);
    return d.empty() ? "" : Wrap(d, kWidth) + "\n";
  }
  // `text` broken at blanks into lines of at most `width` characters (a longer word alone).
  static std::string Wrap(const std::string& text, size_t width) {
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
      if (!line.empty() && Columns(line) + 1 + Columns(w) > width) {
        out += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + w;
    }
    return out + line;
  }
  // Columns a UTF-8 string takes (its code points).
  static size_t Columns(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  }
};

// Every program's command line gets --version and the help format above, on every subcommand.
inline void SetFormatter(CLI::App& app, const std::shared_ptr<HelpFormatter>& f) {
  app.formatter(f);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) SetFormatter(*sub, f);
}
// Call once every subcommand is added.
inline void Setup(CLI::App& app) {
  AddVersion(app);
  SetFormatter(app, std::make_shared<HelpFormatter>());
}

// The word given where a command was required, if it names none (else "").
inline std::string UnknownCommand(const CLI::App& at) {
  if (at.get_subcommands().size() > 0) return "";
  for (const std::string& arg : at.remaining()) {
    if (!arg.empty() && arg[0] != '-') return arg;
  }
  return "";
}

// Parses; returns -1 to go on, else the exit status: 0 after --help or --version, 2 after a
// usage error (printed as "<prog>: <what>", the usage line, and where help is). A word where a
// command belongs is named, with the commands there are.
inline int Parse(CLI::App& app, int argc, char** argv, const char* prog) {
  app.name(prog);  // the program's name in its usage line, not the path it was started by
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* at = Deepest(app);
    std::string what = e.what();
    if (std::string word = UnknownCommand(*at); !word.empty()) {
      std::string known;
      for (const CLI::App* sub : const_cast<CLI::App*>(at)->get_subcommands([](CLI::App*) { return true; })) {
        known += (known.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known.empty()) what = "unknown command '" + word + "' (commands: " + known + ")";
    }
    std::fprintf(stderr, "%s: %s\n%s\nRun with --help for more information.\n", prog, what.c_str(),
                 UsageLine(*at).c_str());
    return 2;
  }
  return -1;
}

}  // namespace bb::cli
