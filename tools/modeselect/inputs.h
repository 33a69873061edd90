// bb-modeselect's inputs: the files it reads into the selector's evidence — the job and its
// sources (static extraction), a probe profile or darshan-parser text (signals), the knowledge
// base's folder, and a labelled corpus for the evaluation. Every missing or unreadable input is
// an error that names it.
//
// Thread-safety: one thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fs/base/clock.h"
#include "fs/base/status.h"
#include "modeselect/eval.h"
#include "modeselect/evidence.h"

namespace bb::selector {

// The knowledge base's folder: `flag`, else $BB_MODESELECT_KB, else the first of
// KnowledgeBaseSearchPath() that holds a rules.yaml: /etc/bbfs/modeselect (a site's own),
// <prefix>/share/bbfs/modeselect (beside the installed program: ../share from its bin/), the
// source tree the program was built in (a build that is not installed).
// "" when no folder of the search path holds one.
std::string KnowledgeBaseDir(const std::string& flag);
// The same, or ENOENT naming every folder it looked in.
Result<std::string> FindKnowledgeBase(const std::string& flag);
std::vector<std::string> KnowledgeBaseSearchPath();

// The static evidence of `job` (sources: folders to scan, default its own). ENOENT naming a
// missing job script or source folder.
Result<modeselect::StaticEvidence> ReadStatic(const std::string& job, const std::vector<std::string>& sources);

// The signals of a probe profile or a darshan-parser file (at most one given; none: nullopt).
Result<std::optional<std::vector<modeselect::Signal>>> ReadProfileSignals(const std::string& profile,
                                                                          const std::string& darshan);

// The cases of a corpus: every folder of `corpus` with a job.sh, labelled by `labels` (default
// <corpus>/oracle/labels.json: the oracle's output, bench/modeselect/oracle.py), with its probe profile
// <labels' folder>/<job>.profile.json when there is one. EINVAL naming a label that is not a
// mode; ENOENT naming a missing file; a job without a label is left out (and named on stderr).
Result<std::vector<modeselect::EvalCase>> ReadCorpus(const std::string& corpus, const std::string& labels,
                                                     const Clock& clock);

// What a calibration from `corpus` says it was measured on: "<n> jobs of <corpus, relative to
// the source tree when inside it>, labels of <the labels' generated time>".
Result<std::string> CorpusSource(const std::string& corpus, const std::string& labels, size_t n);

}  // namespace bb::selector
