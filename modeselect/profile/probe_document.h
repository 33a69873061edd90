// ProbeDocument: a probe run's profile as the probe profile document, version 2 (the format at
// the top of tools/jobs/profile_doc.h): what bbctl writes after a probe run (MergeProfiles), and
// ParseProbeProfile reads back to the same signals.
//
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "modeselect/profile/profile.h"
#include "modeselect/profile/summary.h"

namespace bb::modeselect {

inline constexpr int kProbeDocumentVersion = 2;

// The document of `p` — its job, totals, time line and the files and directories it lists
// (KeepTop: every one of a small run) — with `s`, the summary of every file and directory.
// REQUIRES: p is a probe profile (source kProbe).
nlohmann::json ProbeDocument(const Profile& p, const ProfileSummary& s);

}  // namespace bb::modeselect
