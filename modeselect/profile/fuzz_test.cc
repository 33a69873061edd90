// 300 random and mutated inputs through both profile readers and ProfileSignals: no crash, no
// hang, every error EINVAL with a message, every signal from the table with a finite value.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "modeselect/profile/profile.h"
#include "modeselect/profile/signals.h"
#include "modeselect/profile/test_builders.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;

// Pieces that open and close the readers' states, and values at the edges of their types.
const char* const kFragments[] = {"\t",
                                  "\n",
                                  "\r\n",
                                  " ",
                                  "-1",
                                  "-2",
                                  "0",
                                  "nan",
                                  "-nan",
                                  "inf",
                                  "1e308",
                                  "1.5",
                                  "18446744073709551616",
                                  "99999999999999999999999",
                                  "4294967296",
                                  "{",
                                  "}",
                                  "[",
                                  "]",
                                  ",",
                                  ":",
                                  "\"",
                                  "null",
                                  "true",
                                  "\"x\"",
                                  "# darshan log version: 3.41\n",
                                  "# nprocs: 0\n",
                                  "# nprocs: 4\n",
                                  "# POSIX module data\n",
                                  "# MPI-IO module data\n",
                                  "total_POSIX_READS: ",
                                  "POSIX\t-1\t1\tPOSIX_WRITES\t",
                                  "\t/f\t/\text4\n",
                                  "POSIX_F_WRITE_END_TIMESTAMP",
                                  "\"version\": 1",
                                  "\"files\": [",
                                  "\"created_on\": "};

std::string Mutate(std::string s, std::mt19937& rng) {
  std::uniform_int_distribution<int> op(0, 5), count(1, 8), frag(0, std::size(kFragments) - 1), byte(0, 255);
  for (int n = count(rng); n > 0; --n) {
    size_t at = s.empty() ? 0 : std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng);
    size_t len = std::uniform_int_distribution<size_t>(1, 64)(rng);
    switch (op(rng)) {
      case 0:
        if (!s.empty()) s[at] = static_cast<char>(byte(rng));
        break;
      case 1:
        s.erase(at, len);
        break;
      case 2:
        s.insert(at, kFragments[frag(rng)]);
        break;
      case 3:
        s.insert(at, s.substr(at, len));
        break;
      case 4:
        s.resize(at);  // truncated
        break;
      default:
        s.insert(at, 1, static_cast<char>(byte(rng)));
        break;
    }
  }
  return s;
}

// darshan-parser text with the values of a few records' counters replaced by values at the
// edges: the text stays well formed, the numbers do not.
std::string MutateValues(const std::string& text, std::mt19937& rng) {
  static const char* const kValues[] = {
      "-1",       "0",     "1e308", "-1e308",    "nan", "inf", "18446744073709551615", "9223372036854775807",
      "0.000001", "86401", "3",     "4294967295"};
  std::vector<std::string> lines;
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
  }
  std::uniform_int_distribution<size_t> line(0, lines.size() - 1), value(0, std::size(kValues) - 1);
  for (int n = std::uniform_int_distribution<int>(1, 40)(rng); n > 0; --n) {
    std::string& l = lines[line(rng)];
    size_t c1 = l.find('\t'), c2 = l.find('\t', c1 + 1), c3 = l.find('\t', c2 + 1), c4 = l.find('\t', c3 + 1);
    if (l.empty() || l[0] == '#' || c4 == std::string::npos) continue;
    size_t c5 = l.find('\t', c4 + 1);
    l = l.substr(0, c4 + 1) + kValues[value(rng)] + l.substr(c5);
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A random JSON value for a structured mutation of the probe document.
json RandomValue(std::mt19937& rng) {
  switch (std::uniform_int_distribution<int>(0, 8)(rng)) {
    case 0:
      return nullptr;
    case 1:
      return -7;
    case 2:
      return 1.25;
    case 3:
      return "text";
    case 4:
      return json::array({1, 2, 3});
    case 5:
      return json::object();
    case 6:
      return std::numeric_limits<uint64_t>::max();
    case 7:
      return 1e300;
    default:
      return true;
  }
}

// The document with one value somewhere (top, job, totals, a file or a dir) replaced or removed.
std::string MutateJson(json doc, std::mt19937& rng) {
  std::vector<json*> objects = {&doc, &doc["job"], &doc["totals"], &doc["timeline"]};
  for (auto* list : {&doc["files"], &doc["dirs"]}) {
    for (json& e : *list) objects.push_back(&e);
  }
  json* target = objects[std::uniform_int_distribution<size_t>(0, objects.size() - 1)(rng)];
  if (!target->is_object() || target->empty()) return doc.dump();
  auto key = std::next(target->begin(), std::uniform_int_distribution<long>(0, target->size() - 1)(rng)).key();
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
    target->erase(key);
  } else {
    (*target)[key] = RandomValue(rng);
  }
  return doc.dump();
}

// True when `r` holds a profile (its signals checked), false for an error (checked too).
bool CheckOutcome(const Result<Profile>& r) {
  if (!r.has_value()) {
    CHECK(r.error().code() == EINVAL);
    CHECK(r.error().message().starts_with("f: "));
    return false;
  }
  for (const Signal& s : ProfileSignals(*r)) {
    INFO(s.name);
    CHECK(FindSignal(s.name) != nullptr);
    CHECK(std::isfinite(s.value));
    CHECK(!s.why.empty());
  }
  return true;
}

TEST_CASE("300 random and mutated inputs through both readers", "[modeselect][profile]") {
  std::mt19937 rng(20251201);
  const std::string probe = testing::Fixture("probe_ckpt.json");
  const json probe_doc = json::parse(probe);
  const std::string seeds[] = {probe, testing::Fixture("probe_example.json"), testing::Fixture("darshan_n1_base.txt"),
                               testing::Fixture("darshan_nn_total.txt"), testing::Fixture("darshan_nn_base.txt")};
  double slowest_ms = 0;
  int probes = 0, darshans = 0;
  for (int i = 0; i < 300; ++i) {
    std::string text;
    if (i % 3 == 0) {
      text = MutateJson(probe_doc, rng);
    } else if (i % 3 == 2 && i % 2 == 0) {
      text = MutateValues(seeds[2 + static_cast<size_t>(i) % 3], rng);
    } else if (i % 10 == 1) {
      text = Mutate("", rng);  // fragments and bytes alone
    } else {
      text = Mutate(seeds[static_cast<size_t>(i) % std::size(seeds)], rng);
    }
    INFO("case " << i);
    auto start = std::chrono::steady_clock::now();
    probes += CheckOutcome(ParseProbeProfile(text, "f"));
    darshans += CheckOutcome(ParseDarshanText(text, "f"));
    slowest_ms = std::max(slowest_ms,
                          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  CHECK(slowest_ms < 5000);  // no hang: a case takes milliseconds
  WARN(probes << " probe documents and " << darshans << " Darshan logs of 300 parsed; slowest case " << slowest_ms
              << " ms");
  CHECK((probes > 0 && darshans > 0));  // some mutations stay valid: their signals were checked
}

}  // namespace
}  // namespace bb::modeselect
