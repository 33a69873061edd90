// Command lines of every program, the same way: --version, and a usage error (an unknown flag,
// a missing or bad value) exits 2 with what is wrong and the usage line of the command it was
// given to — never CLI11's own exit codes. Header-only; the programs' only shared CLI code.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
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

// Parses; returns -1 to go on, else the exit status: 0 after --help or --version, 2 after a
// usage error (printed as "<prog>: <what>", the usage line, and where help is).
inline int Parse(CLI::App& app, int argc, char** argv, const char* prog) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* at = Deepest(app);
    std::fprintf(stderr, "%s: %s\n%s\nRun with --help for more information.\n", prog, e.what(), UsageLine(*at).c_str());
    return 2;
  }
  return -1;
}

}  // namespace bb::cli
