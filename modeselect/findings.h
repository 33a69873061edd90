// Findings: what the static extractors (modeselect/static/) learn about a job, each with the
// evidence behind it (file, line, snippet), in one vocabulary of facts that the knowledge base's
// rules and the LLM prompt refer to by name.
//
// The vocabulary is the table kFacts (facts.cc): a fact's name, what it means, and whether its
// `value` carries a number (a count, a size in bytes). An extractor reports only names from
// the table (FactKnown), and a knowledge base that names an unknown fact is refused when it is
// loaded, so a typo in either place is an error and never a rule that silently never fires.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bb::modeselect {

struct FactInfo {
  const char* name;         // "file.per_rank"
  const char* description;  // one sentence, used in explanations and the LLM prompt
  const char* value_unit;   // "" when the value is only a strength of 1, else "bytes", "count", ...
};

// Every fact an extractor may report, in one table.
std::span<const FactInfo> Facts();
// The table row of `name`, or nullptr.
const FactInfo* FindFact(std::string_view name);
inline bool FactKnown(std::string_view name) { return FindFact(name) != nullptr; }

struct Finding {
  std::string fact;     // a name from Facts()
  std::string file;     // the file it was found in, as given to the extractor
  int line = 0;         // 1-based; 0 when the finding is about the whole file
  std::string snippet;  // the source line, trimmed, at most 160 bytes
  double value = 1;     // the number the fact carries (FactInfo::value_unit), else 1
};

// One parallel launch in the job script: an srun/mpirun/mpiexec line (or a plain command run
// once), with what Slurm would make of it.
struct Launch {
  std::string launcher;           // "srun", "mpirun", "mpiexec" or "" (run once by the batch shell)
  int nodes = 0;                  // 0 = not given (the allocation's)
  int tasks = 0;                  // 0 = not given
  int tasks_per_node = 0;         // 0 = not given
  std::string distribution;       // "block", "cyclic" or "" (Slurm's default, block)
  std::string chdir;              // the tasks' working directory (srun -D, mpirun -wdir), "" = the script's
  std::vector<std::string> argv;  // the program and its arguments, variables expanded where known
  std::string file;               // the script the line is in
  int line = 0;
  int step = 0;  // 0, 1, ... in the order the batch shell runs them
};

// Everything static analysis found about one job.
struct StaticEvidence {
  int nodes = 0;            // #SBATCH -N/--nodes (0 = not given)
  int ntasks = 0;           // #SBATCH -n/--ntasks
  int ntasks_per_node = 0;  // #SBATCH --ntasks-per-node
  std::vector<Launch> launches;
  std::vector<std::string> files_scanned;  // scripts and sources read, in order
  std::vector<Finding> findings;

  // The findings of `fact`, in the order they were found.
  std::vector<const Finding*> Of(std::string_view fact) const;
  bool Has(std::string_view fact) const { return !Of(fact).empty(); }
};

}  // namespace bb::modeselect
