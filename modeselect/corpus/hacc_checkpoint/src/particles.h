// Particle state of one rank, in the structure-of-arrays layout of the HACC restart files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

struct Particles {
  std::vector<float> xx, yy, zz, vx, vy, vz, phi;
  std::vector<int64_t> pid;
  std::vector<uint16_t> mask;

  size_t count() const { return xx.size(); }
};

// Deterministic initial conditions: every value depends on the global particle id only.
Particles MakeParticles(int64_t first_id, size_t n);
float ExpectedValue(int var, int64_t id);
