// Private to modeselect/profile/: the parts of ProfileSignals (signals.h) — the volume, request
// and time signals (signals.cc) and the sharing signals of files and directories (sharing.cc),
// the latter summed from the profile's summary (summary.h) — and the few words they share for
// their `why` sentences.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "modeselect/evidence.h"
#include "modeselect/profile/profile.h"
#include "modeselect/profile/summary.h"

namespace bb::modeselect::profile_signals {

// `v` for a sentence: an integer as one, else up to 3 decimals ("0.75", "1.333").
std::string Num(double v);
// " (75%)", the share `part` is of `whole`.
std::string Percent(double part, double whole);

// Up to three examples of something counted, and how many there were. Add takes a function
// that makes the example's text, called only for the first three (the rest cost a count).
struct Examples {
  size_t count = 0;
  std::vector<std::string> first;
  template <typename MakeText>
  void Add(MakeText make) {
    if (first.size() < 3) first.push_back(make());
    ++count;
  }
  // ": a, b, c and 4 more", or "" when empty.
  std::string Text() const;
};

void Emit(std::vector<Signal>* out, const char* name, double value, std::string why);

// files_written ... processes and nodes: who wrote and read which file. `s`: p's summary.
void AddFileSignals(const Profile& p, const ProfileSummary& s, std::vector<Signal>* out);
// creates, readdirs, shared_dir_meta_share, shared_dir_creator_nodes, cross_node_dirs.
void AddDirSignals(const Profile& p, const ProfileSummary& s, std::vector<Signal>* out);

}  // namespace bb::modeselect::profile_signals
