"""The Markdown report and PNG charts of a results folder: per scenario, each figure of each
workload per mode (or per sweep value) as median [min-max] of the repeats, the best mode with
its ties and its speedup over mode 3, sweeps' best settings, paired on/off ratios of a profile
sweep, and the machine and the exact commands. Charts: a bar per mode (median), error bars =
range of the repeats, each repeat a dot, the median a black tick."""
import glob
import json
import os
import platform
import subprocess

from . import results, scenario, stats

BASE_MODE = 3


def load_runs(out_dir):
    runs = []
    for path in sorted(glob.glob(os.path.join(out_dir, "runs", "*.json"))):
        with open(path) as f:
            runs.append(json.load(f))
    return runs


def column_of(run):
    """The column a run belongs to: its mode, or (sweep value, mode) in a sweep."""
    if run.get("sweep"):
        return (str(run["sweep"]["value"]), run["mode"])
    return run["mode"]


def column_key(col):
    """Columns in order: modes by number; sweep values by size or number where they are one."""
    if not isinstance(col, tuple):
        return ("", 0, col)
    try:
        return ("", scenario.parse_size(col[0]), col[1])
    except ValueError:
        try:
            return ("", float(col[0]), col[1])
        except ValueError:
            return (col[0], 0, col[1])


def column_label(col):
    if not isinstance(col, tuple):
        return f"mode {col}"
    value = {"True": "profile on", "False": "profile off"}.get(col[0], col[0])
    return f"{value} m{col[1]}"


def table_data(runs, out_dir=None):
    """{workload: {"keys": {key: {"unit", "higher", "values": {column: [v]}}}, "failed": {column: [why]},
    "columns": [columns]}} in first-seen order of the workloads and keys."""
    data = {}
    for r in runs:
        w = data.setdefault(r["workload"], {"keys": {}, "failed": {}, "columns": set(), "repeats": {}, "broken": {}})
        if r.get("probe"):
            w["broken"].update({int(m): why for m, why in (r.get("disqualifies") or {}).items()})
            continue
        col = column_of(r)
        w["columns"].add(col)
        if not r.get("ok"):
            cause = r.get("cause")
            if cause is None and out_dir:
                cause = results.failure_cause(os.path.join(out_dir, "raw", r["id"]))
            short = "timed out" if r.get("timed_out") else (f"exit {r.get('exit_status')}" if r.get("exit_status") else "no figures")
            w["failed"].setdefault(col, []).append({"short": short, "cause": cause or r.get("error", "")})
            continue
        for f in r["figures"]:
            unit = results.metric_unit(f["unit"]) if f["unit"] == f["key"] else f["unit"]  # runs recorded before units
            k = w["keys"].setdefault(f["key"], {"unit": unit, "higher": f["higher_is_better"], "values": {}})
            k["values"].setdefault(col, []).append(f["value"])
            w["repeats"].setdefault((f["key"], col), {})[r["repeat"]] = f["value"]
    for w in data.values():
        w["columns"] = sorted(w["columns"], key=column_key)
        if len(w["keys"]) > 1:  # the wall time is a figure of its own only where nothing else is
            w["keys"].pop("wall_seconds", None)
    return data


def fmt(v):
    if v is None:
        return "—"
    a = abs(v)
    return f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 0.1 else f"{v:.3g}"


def cell(values, failures):
    if values:
        s = stats.spread(values)
        return f"{fmt(s['median'])} [{fmt(s['min'])}–{fmt(s['max'])}]"
    if failures:
        return f"failed ({failures[0]['short']})"
    return "—"


def mode_of(col):
    return col[1] if isinstance(col, tuple) else col


def best_row(k, cols, broken=None):
    """Best column, its ties and speedup over mode 3; modes that break the workload's semantics
    (the probe's profile) are no candidates."""
    figs = {c: k["values"][c] for c in cols if c in k["values"] and mode_of(c) not in (broken or {})}
    best, ties = stats.best_and_ties(figs, k["higher"])
    base = stats.median(k["values"][BASE_MODE]) if BASE_MODE in k["values"] else None
    sp = stats.speedup(stats.median(figs[best]), base, k["higher"]) if best is not None else None
    return best, ties, sp


def scenario_table(data, sweep=False):
    """One row per workload and figure; a column per mode (or sweep value and mode). Without a
    sweep, the best mode, its ties and its speedup over mode 3 close the row (a sweep's best
    settings have a table of their own)."""
    cols = sorted({c for w in data.values() for c in w["columns"]}, key=column_key)
    sweep = sweep or len(cols) == 1  # one mode: nothing to compare
    tail = "" if sweep else " best | ties | best / mode 3 |"
    lines = ["| workload | figure | unit | " + " | ".join(column_label(c) for c in cols) + " |" + tail,
             "|---|---|---|" + "---|" * len(cols) + ("---|---|---|" if not sweep else "")]
    for wname, w in data.items():
        for key, k in w["keys"].items():
            best, ties, sp = best_row(k, cols, w["broken"])
            cells = [cell(k["values"].get(c), w["failed"].get(c)) + (" ✗" if mode_of(c) in w["broken"] and c in k["values"] else "")
                     for c in cols]
            row = f"| {wname} | {key} | {k['unit']} | " + " | ".join(cells) + " |"
            if not sweep:
                row += (f" {column_label(best) if best is not None else '—'} | "
                        f"{', '.join(column_label(t) for t in ties) or '—'} | {f'{sp:.2f}x' if sp else '—'} |")
            lines.append(row)
    return lines


def sweep_section(data, setting):
    lines = [f"Best `{setting}` per figure (median; ties: settings whose [min, max] overlaps the best's):", "",
             "| workload | figure | best | median [min–max] | ties |", "|---|---|---|---|---|"]
    for wname, w in data.items():
        for key, k in w["keys"].items():
            r = stats.best_setting(k["values"], k["higher"])
            if r:
                s = r["spread"]
                lines.append(f"| {wname} | {key} | {column_label(r['best'])} | {fmt(s['median'])} {k['unit']} "
                             f"[{fmt(s['min'])}–{fmt(s['max'])}] | {', '.join(column_label(t) for t in r['ties']) or '—'} |")
    return lines


def profile_section(data):
    """Paired cost of --profile: each repeat's on and off runs were made one after the other."""
    lines = ["Cost of `--profile` (each repeat ran both, one after the other, in alternating order): "
             "cost = how much slower with the profile, per pair; target at most 2 %.", "",
             "| workload | figure | mode | off median [min–max] | on median [min–max] | paired cost median [min–max] | on/off per pair |",
             "|---|---|---|---|---|---|---|"]
    for wname, w in data.items():
        for key, k in w["keys"].items():
            modes = sorted({c[1] for c in k["values"]})
            for m in modes:
                off, on = w["repeats"].get((key, ("False", m)), {}), w["repeats"].get((key, ("True", m)), {})
                pairs = [(off[r], on[r]) for r in sorted(set(off) & set(on))]
                if not pairs:
                    continue
                ratios = stats.paired_ratios(pairs)
                costs = [(1 - x) if k["higher"] else (x - 1) for x in ratios]
                c = stats.spread([100 * x for x in costs])
                so, sn = stats.spread([p[0] for p in pairs]), stats.spread([p[1] for p in pairs])
                lines.append(f"| {wname} | {key} | {m} | {fmt(so['median'])} [{fmt(so['min'])}–{fmt(so['max'])}] | "
                             f"{fmt(sn['median'])} [{fmt(sn['min'])}–{fmt(sn['max'])}] | "
                             f"{c['median']:+.1f} % [{c['min']:+.1f}–{c['max']:+.1f}] | {' '.join(f'{x:.3f}' for x in ratios)} |")
    return lines


def chart(data, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [(wname, key, k, w) for wname, w in data.items() for key, k in w["keys"].items()]
    if not panels:
        return False
    ncols = min(4, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.1 * nrows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, (wname, key, k, w) in zip(axes.flat, panels):
        cols = w["columns"]
        xs = list(range(len(cols)))
        for x, c in zip(xs, cols):
            v = k["values"].get(c)
            if not v:
                ax.text(x, 0, "failed" if c in w["failed"] else "—", ha="center", va="bottom", fontsize=7, color="red")
                continue
            s = stats.spread(v)
            ax.bar(x, s["median"], color="C%d" % ((c[1] if isinstance(c, tuple) else c) - 1), alpha=0.8)
            ax.errorbar(x, s["median"], yerr=[[s["median"] - s["min"]], [s["max"] - s["median"]]], color="black",
                        capsize=4, lw=1)
            ax.plot([x - 0.3, x + 0.3], [s["median"]] * 2, color="black", lw=2)
            ax.plot([x] * len(v), v, "o", color="black", ms=2.5)
        ax.set_xticks(xs)
        ax.set_xticklabels([column_label(c) for c in cols], fontsize=7, rotation=30 if len(cols) > 4 else 0)
        ax.set_title(f"{wname}: {key}", fontsize=8)
        ax.set_ylabel(k["unit"], fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
    fig.suptitle(title + " (bars: median; error bars: range of the repeats; dots: each repeat)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return True


def machine():
    def sh(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"
    mem = "?"
    try:
        mem = f"{int(open('/proc/meminfo').readline().split()[1]) // 1024 // 1024} GiB"
    except (OSError, ValueError, IndexError):
        pass
    model = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    return f"{os.cpu_count()} cores ({model}), {mem} of memory, kernel {platform.release()}, {sh('sh', '-c', '. /etc/os-release; echo $PRETTY_NAME')}"


def write(out_dir, scenarios, invocations):
    """Writes <out>/report.md and <out>/<scenario>.png; returns the report's path."""
    runs = load_runs(out_dir)
    lines = ["# Benchmark report", "", f"Machine: {machine()}.", "", "Commands (every invocation that made runs here):", ""]
    for inv in invocations:
        lines.append(f"- `{inv['command']}` ({inv['when']}; IOR_BIN={inv.get('ior_bin') or 'unset'}; "
                     f"{inv['made']} runs made, {inv['resumed']} already there, {inv['skipped']} skipped"
                     f"{', interrupted' if inv.get('interrupted') else ''})")
    for s in scenarios:
        sruns = [r for r in runs if r["scenario"] == s["name"]]
        lines += ["", f"## {s['name']}", "", s.get("description", "").strip(), "",
                  f"Scenario file `{os.path.relpath(s['path'])}`: {s['nodes']} nodes x {s['tasks_per_node']} tasks, "
                  f"links {s['link_rate']}, modes {s['modes']}, chunk {s['chunk_size']}, mode 2 metadata_server_ratio "
                  f"{s['metadata_server_ratio']}, {s['repeats']} repeats, timeout {s['timeout']} s"
                  + (f", sweep of `{s['sweep']['setting']}` over {s['sweep']['values']}" if s.get("sweep") else "") + ".", ""]
        if not sruns:
            lines.append("No runs yet.")
            continue
        data = table_data(sruns, out_dir)
        lines += ["Each cell: median [min–max] of the repeats. ✗: the mode ran but breaks the workload's semantics "
                  "(the probe run's profile shows files or directories shared across nodes, which mode 1 keeps apart); "
                  "it is no candidate for best.", ""] + scenario_table(data, bool(s.get("sweep")))
        broken = [(n, w["broken"][1]) for n, w in data.items() if 1 in w["broken"]]
        if broken:
            lines += ["", "Mode 1 ruled out by the probe profile: " + "; ".join(f"**{n}** ({why.split(': ', 1)[-1]})" for n, why in broken) + "."]
        fails = [(n, col, f[0]) for n, w in data.items() for col, f in w["failed"].items()]
        if fails:
            lines += ["", "Failed runs (the first line that says why):", ""]
            lines += [f"- {n}, {column_label(col)}: {f['short']}, {len(data[n]['failed'][col])} of the repeats"
                      f"{': ' + f['cause'].replace('|', '/') if f['cause'] else ''}" for n, col, f in fails]
        notes = [(w["name"], w.get("paper", "")) for w in s["workloads"] if w.get("paper")]
        if notes:
            lines += ["", "Workloads: " + "; ".join(f"**{n}** {p}" for n, p in notes) + "."]
        if s.get("sweep"):
            lines += [""] + (profile_section(data) if s["sweep"]["setting"] == "profile" else sweep_section(data, s["sweep"]["setting"]))
        png = f"{s['name']}.png"
        if chart(data, s["name"], os.path.join(out_dir, png)):
            lines += ["", f"![{s['name']}]({png})"]
    path = os.path.join(out_dir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path
