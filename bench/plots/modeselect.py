"""The mode selector against the oracle: confusion matrices (the oracle's best mode against the
selected one) and per-job speedups over mode 3, from the selector's recorded picks
(bench/results/modeselect_picks.csv) and the oracle's labels (<group>/oracle/labels.json)."""
from modeselect.modeselect_e2e import job_speedups

EVIDENCE = "static + profile"


def _picks(rows, group):
    return [r for r in rows if r["group"] == group and r["evidence"] == EVIDENCE]


def draw_confusion(plt, rows, labels, png_path):
    """LABELS: {group: the oracle's labels document}. A panel per group; a pick the oracle's ties
    allow counts as right, so right can exceed the diagonal."""
    groups = list(labels)
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 4.6), squeeze=False)
    for ax, g in zip(axes[0], groups):
        picks = _picks(rows, g)
        m = [[0] * 4 for _ in range(4)]
        for r in picks:
            m[int(r["oracle"]) - 1][int(r["selected"]) - 1] += 1
        ax.imshow(m, cmap="Blues")
        for i in range(4):
            for j in range(4):
                ax.text(j, i, m[i][j], ha="center", va="center", color="white" if m[i][j] > 4 else "black")
        ax.set_xticks(range(4))
        ax.set_xticklabels([f"mode {k}" for k in range(1, 5)])
        ax.set_yticks(range(4))
        ax.set_yticklabels([f"mode {k}" for k in range(1, 5)])
        ax.set_xlabel("selected")
        ax.set_ylabel("oracle's best")
        right = sum(int(r["right"]) for r in picks)
        when = f", {picks[0]['date']} at {picks[0]['commit']}" if picks else ""
        ax.set_title(f"{g}: {right} of {len(picks)} right (ties count){when}", fontsize=9)
    fig.suptitle(f"Mode selector ({EVIDENCE} evidence) against the oracle's measured labels")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def draw_speedups(plt, rows, labels, png_path):
    """Per job: the selected mode's speedup over mode 3 beside the oracle's best mode's."""
    jobs = []
    for g, doc in labels.items():
        for r in _picks(rows, g):
            entry = doc["jobs"].get(r["job"])
            if entry is None or entry.get("label") is None:
                continue
            s, b, broken = job_speedups(entry, int(r["selected"]))
            jobs.append((f"{r['job']} ({g})", s, b, broken))
    jobs.sort(key=lambda j: j[2])
    fig, ax = plt.subplots(figsize=(10, 0.2 * len(jobs) + 1.5))
    ys = range(len(jobs))
    ax.barh([y + 0.2 for y in ys], [j[2] for j in jobs], height=0.4, color="lightgray", label="oracle's best mode")
    ax.barh([y - 0.2 for y in ys], [j[1] or 0 for j in jobs], height=0.4, color="tab:blue", label="selected mode")
    for y, j in zip(ys, jobs):
        if j[3]:
            ax.text(0.02, y - 0.2, "selected mode breaks the job", va="center", fontsize=6, color="red")
    ax.set_yticks(list(ys))
    ax.set_yticklabels([j[0] for j in jobs], fontsize=6.5)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_xlabel("speedup over mode 3 (the default): mode 3's time / the mode's, or the mode's rate / mode 3's")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"Per job: the selected mode ({EVIDENCE}) and the oracle's best over mode 3", fontsize=10)
    ax.margins(y=0.005)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)
