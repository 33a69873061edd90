// The daemon's configuration file (`bbd --config FILE`, YAML) and command-line flags, read into
// fs::DaemonConfig through one table of fields, DaemonFields(): a field's name, what it means,
// its default, whether it has a flag, and how it is read. The flags of bbd (`--field-name` for
// `field_name`), the overrides, the errors and the table in docs/install.md all come from it; a
// new field is one row.
//
// Every field is optional in the file; flags override the file. An unknown field, a wrong type
// or a value out of range is an error naming the file (or "command line"), the line and the
// field; nothing is silently defaulted.
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fs/base/status.h"
#include "fs/daemon/config.h"

namespace bb::config {

struct DaemonField {
  const char* name;          // "chunk_size"; the flag is --chunk-size
  const char* meaning;       // the text of docs/install.md's table, and the flag's help
  const char* default_text;  // as docs/install.md shows it
  bool flag;                 // settable on bbd's command line
  // Reads `node` into the field of `cfg`; `source` and `name` go into errors.
  Status (*read)(const std::string& source, const std::string& name, const YAML::Node& node, fs::DaemonConfig* cfg);
};

std::span<const DaemonField> DaemonFields();
// "--chunk-size" for "chunk_size".
std::string FlagOf(const std::string& field);

// Parses YAML text; `source` names it in errors ("bbd.yaml:4: ..."). EINVAL with the message
// when the text is not a valid configuration.
Result<fs::DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source);
// Reads and parses a file; ENOENT/EACCES when it cannot be read.
Result<fs::DaemonConfig> LoadDaemonConfig(const std::string& path);
// Applies command-line values (field name -> text) over `cfg`, each read by its row as from the
// file; `source` names them in errors. EINVAL for an unknown field or a bad value.
Status ApplyOverrides(fs::DaemonConfig* cfg, const std::vector<std::pair<std::string, std::string>>& values,
                      const std::string& source);

// The table of fields in docs/install.md (Markdown, header included), from DaemonFields().
std::string DaemonFieldsMarkdown();

}  // namespace bb::config
