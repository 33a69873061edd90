"""Pure arithmetic of the benchmark reports: medians and ranges of repeats, ties between modes,
speedups, the IO500 scores and the best configuration of a sweep. No I/O; every input is an
argument."""
import math


def median(values):
    """The median of a non-empty list of numbers (the mean of the middle two for an even count)."""
    v = sorted(values)
    if not v:
        raise ValueError("median of no values")
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2.0


def spread(values):
    """{"median", "min", "max", "n"} of a non-empty list."""
    return {"median": median(values), "min": min(values), "max": max(values), "n": len(values)}


def geomean(values):
    """Geometric mean of positive numbers; 0 when any is 0 or the list is empty (as IO500 scores
    a run with a failed phase)."""
    if not values or any(v <= 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def overlaps(a, b):
    """True when the closed ranges a = (lo, hi) and b = (lo, hi) share a point."""
    return a[0] <= b[1] and b[0] <= a[1]


def best_and_ties(figures, higher_is_better):
    """figures: {key: [values of the repeats]} for the candidates still in the running.
    Returns (best key, sorted list of the other keys whose [min, max] overlaps the best one's),
    or (None, []) without candidates. The best has the best median; equal medians go to the
    smaller key, so the answer does not depend on dict order."""
    cands = {k: v for k, v in figures.items() if v}
    if not cands:
        return None, []
    sign = -1 if higher_is_better else 1
    best = min(cands, key=lambda k: (sign * median(cands[k]), k))
    lo_hi = (min(cands[best]), max(cands[best]))
    ties = sorted(k for k in cands if k != best and overlaps(lo_hi, (min(cands[k]), max(cands[k]))))
    return best, ties


def speedup(best_median, base_median, higher_is_better):
    """How many times better the best is than the base (>1 = better); None without a base."""
    if base_median is None or best_median is None or base_median <= 0 or best_median <= 0:
        return None
    return best_median / base_median if higher_is_better else base_median / best_median


# The IO500 phases, the unit each is scored in, and which score it enters.
IO500_BW_PHASES = ("ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read")
IO500_MD_PHASES = ("mdtest-easy-write", "mdtest-easy-stat", "mdtest-easy-delete", "mdtest-hard-write",
                   "mdtest-hard-stat", "mdtest-hard-read", "mdtest-hard-delete", "find")


def io500_scores(phases):
    """phases: {phase name: value}, IOR phases in GiB/s, mdtest phases and find in kIOPS.
    Returns {"bw_gib_s", "md_kiops", "total", "missing": [phase names]}: bandwidth = geometric
    mean of the IOR phases, metadata = geometric mean of the mdtest phases and find, total =
    sqrt(bw * md). A missing or zero phase makes its score 0, as in IO500."""
    missing = [p for p in IO500_BW_PHASES + IO500_MD_PHASES if not phases.get(p)]
    bw = geomean([phases.get(p, 0) for p in IO500_BW_PHASES])
    md = geomean([phases.get(p, 0) for p in IO500_MD_PHASES])
    return {"bw_gib_s": bw, "md_kiops": md, "total": math.sqrt(bw * md), "missing": missing}


def paired_ratios(pairs):
    """pairs: [(a, b), ...] measured together; returns [b / a] for the pairs with a > 0."""
    return [b / a for a, b in pairs if a and a > 0]


def best_setting(figures, higher_is_better):
    """A sweep's answer. figures: {setting value: [repeats]}. Returns {"best", "spread" of the
    best, "ties": settings whose ranges overlap it} or None without figures."""
    best, ties = best_and_ties(figures, higher_is_better)
    if best is None:
        return None
    return {"best": best, "spread": spread(figures[best]), "ties": ties}
