"""The harness's matrix (bench/results/matrix.csv): IO500's phases per mode, Table I's workloads
as each mode's figure over mode 3's, and the chunk-size sweep. Medians over the repeats of the
runs that succeeded."""
import math
import statistics

MODES = [1, 2, 3, 4]
COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red"]


def _medians(rows, scenario):
    """{(workload, figure): {mode: (median, low, high, unit, higher_is_better)}} of the successful runs."""
    vals = {}
    for r in rows:
        if r["scenario"] == scenario and r["ok"] == "1" and r["figure"] and r["figure"] != "wall_seconds":
            vals.setdefault((r["workload"], r["figure"]), {}).setdefault(int(r["mode"]), []).append(
                (r["value"], r["unit"], r["higher_is_better"] == "1"))
    return {k: {m: (statistics.median(x[0] for x in xs), min(x[0] for x in xs), max(x[0] for x in xs), xs[0][1],
                    xs[0][2]) for m, xs in per.items()} for k, per in vals.items()}


def _recorded(rows, scenario):
    r = next(r for r in rows if r["scenario"] == scenario)
    return f"recorded {r['date'][:10]} at {r['commit']}"


def draw_io500(plt, rows, png_path):
    """A panel per IO500 phase and score: each mode's median, the range as whiskers."""
    med = _medians(rows, "io500")
    keys = sorted(med, key=lambda k: (k[1].startswith("score"), k[1]))
    cols = 5
    fig, axes = plt.subplots(math.ceil(len(keys) / cols), cols, figsize=(15, 2.6 * math.ceil(len(keys) / cols)))
    for ax, k in zip(axes.flat, keys):
        per = med[k]
        ms = [m for m in MODES if m in per]
        ax.bar([str(m) for m in ms], [per[m][0] for m in ms], color=[COLORS[m - 1] for m in ms],
               yerr=[[per[m][0] - per[m][1] for m in ms], [per[m][2] - per[m][0] for m in ms]], capsize=3)
        unit = per[ms[0]][3]
        ax.set_title(f"{k[1]} ({unit})", fontsize=9)
        ax.set_xlabel("mode", fontsize=8)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.suptitle(f"IO500 phases per mode, 4 emulated nodes, 1 task each, medians and ranges of 3 repeats "
                 f"({_recorded(rows, 'io500')}; mode 1 failed: ENOENT by design)")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def draw_table1(plt, rows, png_path):
    """One heat map: a row per workload figure, a column per mode, the cell the mode's median
    over mode 3's (inverted for times), the diverging colour on a log scale; blank: failed."""
    med = _medians(rows, "table1")
    keys = sorted(k for k in med if 3 in med[k])
    grid = []
    for k in keys:
        base, row = med[k][3], []
        for m in MODES:
            v = med[k].get(m)
            row.append(None if v is None or v[0] <= 0 else (v[0] / base[0] if v[4] else base[0] / v[0]))
        grid.append(row)
    fig, ax = plt.subplots(figsize=(7.5, 0.26 * len(keys) + 1.6))
    shown = [[math.log2(x) if x else float("nan") for x in row] for row in grid]
    im = ax.imshow(shown, cmap="RdBu", vmin=-3, vmax=3, aspect="auto")
    for i, row in enumerate(grid):
        for j, x in enumerate(row):
            ax.text(j, i, f"{x:.2f}x" if x else "failed", ha="center", va="center", fontsize=6.5)
    ax.set_xticks(range(len(MODES)))
    ax.set_xticklabels([f"mode {m}" for m in MODES])
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"{w}: {f} ({med[(w, f)][3][3]})" for w, f in keys], fontsize=7)
    cb = fig.colorbar(im, ax=ax, shrink=0.4)
    cb.set_label("log2 of the speedup over mode 3")
    ax.set_title(f"Table I workloads: each mode against mode 3 (>1: better), {_recorded(rows, 'table1')}",
                 fontsize=9, pad=22)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def draw_chunk_sweep(plt, rows, png_path):
    """ior-easy write and read in mode 3 against the chunk size."""
    pts = {}
    for r in rows:
        if r["scenario"] == "chunk-sweep" and r["ok"] == "1" and r["unit"] == "MiB/s":
            size = r["value_of_setting"]
            kib = float(size[:-3]) * (1024 if size.endswith("MiB") else 1)
            pts.setdefault(r["figure"], {}).setdefault(kib, []).append(r["value"])
    fig, ax = plt.subplots(figsize=(7, 4))
    for fig_name, per in sorted(pts.items()):
        xs = sorted(per)
        ax.plot(xs, [statistics.median(per[x]) for x in xs], marker="o", label=fig_name.split(".")[0])
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted({x for per in pts.values() for x in per}))
    ax.set_xticklabels([f"{int(x)} KiB" if x < 1024 else f"{int(x / 1024)} MiB" for x in ax.get_xticks()], fontsize=8)
    ax.set_ylabel("MiB/s (median of 3)")
    ax.set_ylim(bottom=0)
    ax.legend()
    ax.set_title(f"ior-easy in mode 3 against the chunk size ({_recorded(rows, 'chunk-sweep')})", fontsize=9)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
