// Application-level checkpointing: each rank keeps its own checkpoint directory with the
// last few states, writes a new one every few steps and restarts from its newest one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct State {
  int64_t step = 0;
  std::vector<double> field;
};

class CheckpointDir {
 public:
  CheckpointDir(const std::string& root, int rank, int keep);
  // Writes state as ckpt_<step>.bin (through a temporary name) and drops the oldest beyond `keep`.
  void Save(const State& s);
  // The newest complete checkpoint, if any.
  std::optional<State> LoadLatest() const;

 private:
  std::string dir_;
  int keep_;
};
