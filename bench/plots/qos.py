"""The QoS policies on a real mount: per-job admitted rate over time (bench/qos/qos.sh's
qos_rates.csv), one panel per policy."""
ALGOS = ["static", "priority", "proportional", "psfa"]
JOBS = ["A", "B", "C", "D"]
OFFERED = {"A": 2500, "B": 1500, "C": 500, "D": 150}
MAX_R = 4000


def draw_rates(plt, rates, png_path):
    """RATES: {policy: [(t, job, rate)]}."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True, sharey=True)
    for ax, a in zip(axes.flat, ALGOS):
        for j in JOBS:
            pts = [(t, r) for t, jj, r in rates.get(a, []) if jj == j]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=f"job {j} (offers {OFFERED[j]} calls/s)")
        tot = {}
        for t, j, r in rates.get(a, []):
            tot[round(t)] = tot.get(round(t), 0) + r
        ks = sorted(tot)
        ax.plot(ks, [tot[k] for k in ks], color="black", linewidth=0.8, linestyle=":", label="total")
        ax.axhline(MAX_R, color="red", linewidth=0.8, label="Max_R")
        ax.set_title(a)
        ax.set_ylabel("metadata ops/s")
    for ax in axes[1]:
        ax.set_xlabel("seconds")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Per-job admitted metadata rate under each policy (4 jobs joining 10 s apart)")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def draw(plt, rows, png_path):
    rates = {}
    for r in rows:
        rates.setdefault(r["policy"], []).append((r["t"], r["job"], r["rate"]))
    draw_rates(plt, rates, png_path)
