"""IO500-style phases per mode beside libfuse's passthrough_ll, and metadata scaling with node
count, from bench/results/phases.csv (bench/phases/md_scaling.py appends to it)."""
from . import read

MODES = ["mode 1", "mode 2", "mode 3", "mode 4"]
COLORS = {"mode 1": "tab:blue", "mode 2": "tab:orange", "mode 3": "tab:green", "mode 4": "tab:red"}


def _every_mode(rows):
    return {"passthrough_ll", *MODES} <= {r["variant"] for r in rows}


def draw_phases(plt, rows, png_path):
    """One bar per mode and phase: the mode's figure / passthrough_ll's (log scale), each bar
    labelled with the figure and its unit; the newest recording that has every mode."""
    rec = read.newest([r for r in rows if r["part"] == "phases"], _every_mode)
    if not rec:
        raise read.CsvError("phases.csv: no recording with passthrough_ll and modes 1-4")
    fig_rows = [r for r in rec if not r["phase"].endswith(" CPU")]
    phases = list(dict.fromkeys(r["phase"] for r in fig_rows))
    by = {(r["variant"], r["phase"]): r for r in fig_rows}
    fig, ax = plt.subplots(figsize=(11, 0.9 * len(phases) + 1.5))
    h = 0.8 / len(MODES)
    for i, p in enumerate(phases):
        base = by.get(("passthrough_ll", p))
        for k, m in enumerate(MODES):
            r = by.get((m, p))
            if not r or not base:
                continue
            ratio = r["median"] / base["median"]
            y = i + (k - (len(MODES) - 1) / 2) * h
            ax.barh(y, ratio, height=h, color=COLORS[m], label=m if i == 0 else None)
            ax.text(ratio * 1.03, y, f"{r['median']:,.0f} ({ratio:.2f}x)", va="center", fontsize=6.5)
    ax.set_yticks(range(len(phases)))
    ax.set_yticklabels([f"{p} ({by[('passthrough_ll', p)]['unit']})\npassthrough_ll "
                        f"{by[('passthrough_ll', p)]['median']:,.0f}" if ("passthrough_ll", p) in by else p
                        for p in phases], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ratios = [by[(m, p)]["median"] / by[("passthrough_ll", p)]["median"] for p in phases for m in MODES
              if (m, p) in by and ("passthrough_ll", p) in by]
    ax.set_xlim(min(ratios) / 1.5, max(ratios) * 4)  # room for the labels
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel("figure / passthrough_ll's (log scale; right of the line: faster than passthrough_ll)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"IO500-style phases, 4 emulated nodes, 2 ranks each, medians "
                 f"(recorded {rec[0]['date']} at {rec[0]['commit']})")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def draw_scaling(plt, rows, png_path):
    """mdtest-easy creates/s and CPU per create against node count, a line per variant, the
    range over rounds as error bars; the newest scaling recording."""
    rec = read.newest([r for r in rows if r["part"] == "scaling"])
    if not rec:
        raise read.CsvError("phases.csv: no scaling recording")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, phase, label in ((axes[0], "mdtest-easy create", "creates/s (all nodes)"),
                             (axes[1], "mdtest-easy create CPU", "daemon CPU µs per create")):
        for v in dict.fromkeys(r["variant"] for r in rec):
            pts = sorted((float(r["nodes"]), r["median"], r["low"], r["high"]) for r in rec
                         if r["variant"] == v and r["phase"] == phase)
            if not pts:
                continue
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=v)
        ax.set_xlabel("nodes")
        ax.set_xticks([2, 4, 8])
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"mdtest-easy create in mode 3, 2 ranks per node (recorded {rec[0]['date']} at {rec[0]['commit']})")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
