#include "tools/jobs/stage_limit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fs/base/units.h"

namespace bb::jobs {

double PrologEpilogTimeoutFrom(const std::string& show_config) {
  std::istringstream in(show_config);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("PrologEpilogTimeout", 0) != 0) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) return 0;
    double v = std::strtod(line.c_str() + eq + 1, nullptr);  // "= 300" or "= 300 sec"
    return v > 0 && v < 65534 ? v : 0;
  }
  return 0;
}

double StageMargin(double limit_s) { return std::min(10.0, limit_s / 4); }

double StageTimeLeft(double limit_s, double spent_s) {
  if (limit_s <= 0) return 86400;
  return std::max(0.0, limit_s - StageMargin(limit_s) - spent_s);
}

std::string StageInRefusal(uint64_t bytes, uint64_t rate, double left_s, double limit_s) {
  if (limit_s <= 0 || rate == 0) return "";
  const double needs = static_cast<double>(bytes) / static_cast<double>(rate);
  if (needs <= left_s) return "";
  char text[512];
  std::snprintf(text, sizeof text,
                "stage_in of %s needs about %.0f s at %s/s (BB_STAGE_RATE), more than the %.0f s the Prolog has "
                "left of its %.0f s limit (PrologEpilogTimeout); nothing was staged, so that Slurm need not kill the "
                "Prolog and drain the node: stage it in from the job script (bbctl stage in) or ask for a longer "
                "limit",
                FormatByteSize(static_cast<double>(bytes)).c_str(), std::ceil(needs),
                FormatByteSize(static_cast<double>(rate)).c_str(), std::floor(left_s), limit_s);
  return text;
}

}  // namespace bb::jobs
