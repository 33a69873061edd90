// The placement hash: a fixed function with a fixed seed, identical on every build and host.
//
// Placement must not depend on the standard library (std::hash is implementation-defined), so
// every node computes the same owner for a path or a chunk. The function is 64-bit FNV-1a over
// the bytes, seeded by folding kPlacementSeed in first, followed by the SplitMix64 finalizer to
// spread the low bits that the modulo reduction uses. Changing it moves every placed object.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace bb {

inline constexpr uint64_t kPlacementSeed = 0x6262667348617368ULL;  // "bbfsHash"

constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr uint64_t PlacementHash(std::string_view bytes, uint64_t seed = kPlacementSeed) {
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return Mix64(h);
}

// Hash of (file id, chunk index), used to place chunks.
constexpr uint64_t ChunkHash(uint64_t file_id, uint64_t chunk_index) {
  return Mix64(Mix64(file_id ^ kPlacementSeed) ^ chunk_index);
}

}  // namespace bb
