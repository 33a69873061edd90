#include "particles.h"

float ExpectedValue(int var, int64_t id) {
  // A cheap hash of (variable, id) mapped to [0, 256): positions, velocities, potential.
  uint64_t h = static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(var) * 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return static_cast<float>(h % 65536) / 256.0f;
}

Particles MakeParticles(int64_t first_id, size_t n) {
  Particles p;
  std::vector<float>* floats[] = {&p.xx, &p.yy, &p.zz, &p.vx, &p.vy, &p.vz, &p.phi};
  for (int v = 0; v < 7; ++v) {
    floats[v]->resize(n);
    for (size_t i = 0; i < n; ++i) (*floats[v])[i] = ExpectedValue(v, first_id + static_cast<int64_t>(i));
  }
  p.pid.resize(n);
  p.mask.resize(n);
  for (size_t i = 0; i < n; ++i) {
    p.pid[i] = first_id + static_cast<int64_t>(i);
    p.mask[i] = static_cast<uint16_t>((first_id + i) & 0xffff);
  }
  return p;
}
