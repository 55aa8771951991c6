"""The tuning suite's markdown page (results/suite.md), built from suite.json alone.

Kept apart from bench_suite.py so ``bench_suite.py --render-only`` and a reader of the page share one
definition of every check. Every comparison uses medians over seeds of avg L1 on the table's main workload.
"""

from __future__ import annotations

import statistics

from scipy.stats import mannwhitneyu

import peer_guarantee  # the peers' names at dprelease's guarantee
from provenance import commit_label, provenance_line

#: Columns of the compact per-table matrix, in order.
COLUMNS = ("dprelease", "dprelease [sample]", "dprelease [model]", "dprelease-pure", "dprelease-pure [sample]",
           "dprelease-pure [model]", "independent", "uniform", "mst", "aim", "mst-matched", "aim-matched",
           "dprelease-rounds", "dprelease-addremove", "dprelease-addremove [sample]", "dprelease-addremove [model]")
#: The peers at the nominal eps (their own unit: add or remove a record), and at dprelease's guarantee under its unit
#: (replace a record; benchmarks/peer_guarantee.py). Each set gets its own check.
NOMINAL_PEERS = ("mst", "aim")
MATCHED_PEERS = tuple(p + peer_guarantee.MATCHED for p in NOMINAL_PEERS)
DEFAULTS = ("dprelease", "dprelease-pure")  # the default (delta = 1e-9) and the pure-DP path (delta = 0)
#: The default's settings under add/remove (n private), the peers' own unit: checked against the peers at the nominal
#: eps only, like for like (the matched peers are for the book's unit).
ADD_REMOVE = "dprelease-addremove"
PURE_VS_DELTA_LIMIT = 1.5      # issue 12, item 6
ROWS_VS_MODEL_LIMIT = 1.2      # issue 12, "must show": the spread-out case


def fmt(stat: dict | None, digits: int = 3) -> str:
    if stat is None:
        return "–"
    f = (lambda v: f"{v:.{digits}f}")
    return f(stat["median"]) if stat["min"] == stat["max"] else f"{f(stat['median'])} [{f(stat['min'])}–{f(stat['max'])}]"


def fmt_seconds(stat: dict | None) -> str:
    if stat is None:
        return "–"
    m = stat["median"]
    return fmt(stat, 2 if m < 10 else 1 if m < 100 else 0)


def median_of(by: dict, table: str, system: str, eps: float, workload: str = "main") -> float | None:
    s = by.get((table, system, workload, eps))
    return s["avg_l1"]["median"] if s and s.get("avg_l1") else None


def run_scores(doc: dict) -> dict[tuple[str, str, float], list[float]]:
    """Each (table, system, eps)'s per-run avg L1 on the main workload, from the runs that finished."""
    scores: dict[tuple[str, str, float], list[float]] = {}
    for r in doc["runs"]:
        if r.get("status") == "ok" and "main" in (r.get("scores") or {}):
            scores.setdefault((r["table"], r["system"], r["epsilon"]), []).append(r["scores"]["main"]["avg_l1"])
    return scores


def seed_test(ours: list[float], theirs: list[float]) -> str:
    """Whether the runs separate two systems, beside a verdict by medians: Mann-Whitney U, two-sided.

    A small p says the seeds tell the two apart; a large one, that the medians' order is within the seeds'
    spread. With 3 runs a side no order reaches p < 0.05 (the exact test's least p is 0.1)."""
    if min(len(ours), len(theirs)) < 2:
        return "too few runs for a test"
    p = mannwhitneyu(ours, theirs, alternative="two-sided").pvalue
    return f"runs {len(ours)} vs {len(theirs)}, Mann-Whitney two-sided p = {p:.2g}"


def verdict(ok: bool, text: str) -> str:
    return f"{'yes' if ok else '**NO**'} ({text})"


def checks(doc: dict) -> tuple[list[str], list[str]]:
    """The issue's checks per table and eps as table lines, and a list of every failure."""
    by = {(s["table"], s["system"], s["workload"], s["epsilon"]): s for s in doc["summary"]}
    per_run = run_scores(doc)
    tables = [t for t in doc["config"]["tables"] if any(k[0] == t for k in by)]
    tables += sorted({k[0] for k in by} - set(tables))
    eps_list = sorted({k[3] for k in by})
    matched = matched_ran(doc)
    peer_sets = [(NOMINAL_PEERS, "")] + ([(MATCHED_PEERS, " at dprelease's guarantee")] if matched else [])
    lines = ["| table | eps | system | <= independent | <= uniform | <= best peer that ran | "
             + ("<= best peer at the same guarantee | " if matched else "")
             + "rows <= i.i.d. sample | rows / model | pure / delta <= 1.5 |",
             "|---|---|---|---|---|---|---|---|---|" + ("---|" if matched else "")]
    failures = []
    for table in tables:
        for eps in eps_list:
            indep = median_of(by, table, "independent", eps)
            uniform = median_of(by, table, "uniform", eps)
            pure, delta = median_of(by, table, "dprelease-pure", eps), median_of(by, table, "dprelease", eps)
            for system in (*DEFAULTS, ADD_REMOVE):
                ours = median_of(by, table, system, eps)
                if ours is None:
                    continue
                sample = median_of(by, table, f"{system} [sample]", eps)
                model = median_of(by, table, f"{system} [model]", eps)
                cells = []
                where = f"{table}, eps = {eps:g}, {system}"
                # uniform rows: not one of the checks, but a release worse than no data at all is a loss
                for baseline, value, name in (("independent", indep, "independent baseline"),
                                              ("uniform", uniform, "uniform rows")):
                    cells.append(baseline_check(per_run, table, system, eps, ours, baseline, value, name, failures))
                for peer_set, how in peer_sets:
                    if system == ADD_REMOVE and peer_set is MATCHED_PEERS:
                        cells.append("– (the peers' unit: nominal eps)")
                        continue
                    cells.append(peer_check(by, per_run, table, system, eps, ours, peer_set, how, failures))
                if sample is None:
                    cells.append("–")
                else:
                    methods = "/".join(by[(table, system, "main", eps)]["rows_methods"])
                    cells.append(verdict(ours <= sample, f"{methods} {ours:.3f} vs sample {sample:.3f}"))
                    if ours > sample:
                        failures.append(f"{where}: rows ({methods}) avg L1 {ours:.4f} > i.i.d. sample from the same "
                                        f"model {sample:.4f} ({ours / sample:.2f}x)")
                if model is None:
                    cells.append("–")
                else:
                    cells.append(f"{ours / model:.2f}x ({model:.3f})" if model > 0 else "–")
                    if table == "spread" and ours > ROWS_VS_MODEL_LIMIT * model:
                        failures.append(f"{where}: rows avg L1 {ours:.4f} > {ROWS_VS_MODEL_LIMIT} x the model's "
                                        f"{model:.4f} ({ours / model:.2f}x; the issue's spread-out case)")
                if system == "dprelease-pure" and pure is not None and delta is not None and delta > 0:
                    ratio = pure / delta
                    cells.append(verdict(ratio <= PURE_VS_DELTA_LIMIT, f"{ratio:.2f}x"))
                    if ratio > PURE_VS_DELTA_LIMIT:
                        failures.append(f"{table}, eps = {eps:g}: pure-DP path {pure:.4f} is {ratio:.2f}x the "
                                        f"delta = 1e-9 path's {delta:.4f} (limit {PURE_VS_DELTA_LIMIT}x)")
                else:
                    cells.append("")
                lines.append(f"| {table} | {eps:g} | {system} | " + " | ".join(cells) + " |")
    return lines, failures


def baseline_check(per_run: dict, table: str, system: str, eps: float, ours: float, baseline: str,
                   value: float | None, name: str, failures: list[str]) -> str:
    """The verdict against a baseline's median ``value`` (its cell); a loss is added to ``failures``."""
    if value is None:
        return "–"
    if ours > value:
        test = seed_test(per_run.get((table, system, eps), []), per_run.get((table, baseline, eps), []))
        failures.append(f"{table}, eps = {eps:g}, {system}: avg L1 {ours:.4f} > {name} {value:.4f} "
                        f"({ours / value:.2f}x; {test})")
    return verdict(ours <= value, f"{ours:.3f} vs {value:.3f}")


def peer_check(by: dict, per_run: dict, table: str, system: str, eps: float, ours: float, peer_set: tuple[str, ...],
               how: str, failures: list[str]) -> str:
    """The verdict against the best of ``peer_set`` that ran (its cell); a loss is added to ``failures``."""
    peers = {p: median_of(by, table, p, eps) for p in peer_set}
    peers = {p: v for p, v in peers.items() if v is not None}
    if not peers:
        return "–"
    peer, value = min(peers.items(), key=lambda kv: kv[1])
    name = peer_guarantee.program(peer).upper()
    if ours > value:
        test = seed_test(per_run.get((table, system, eps), []), per_run.get((table, peer, eps), []))
        failures.append(f"{table}, eps = {eps:g}, {system}: avg L1 {ours:.4f} > {name} {value:.4f}{how} "
                        f"({ours / value:.2f}x; {test})")
    return verdict(ours <= value, f"{ours:.3f} vs {name} {value:.3f}")


UNITS_NOTE = (
    "**Privacy units.** dprelease's neighbouring tables have the same public n and differ in one record (replace one); "
    "smartnoise-synth's MST and AIM calibrate to tables that differ by one added or removed record. Under replace one "
    "a marginal's L2 sensitivity is sqrt 2, not 1, and a selection score's sensitivity 2, not 1, so at the same "
    "nominal eps a peer promises less than dprelease: its measurements spend 2x and its selections 4x the rho it "
    "counts (MST 8/3 of it in all, AIM 2.19). `mst`, `aim` are the peers at the nominal eps (what their user gets "
    "for the same number); `mst-matched`, `aim-matched` are the same peers at the eps whose rho, times that factor, "
    "is dprelease's (benchmarks/peer_guarantee.py): like for like. Both checks are shown. `dprelease-addremove`, where "
    "it ran, is the default under the peers' unit (`privacy_unit=\"add-remove\"`: n private, a noisy count first), "
    "checked against the peers at the nominal eps, like for like.")


def matched_ran(doc: dict) -> bool:
    return any(r["system"] in MATCHED_PEERS for r in doc["runs"])


def table_section(doc: dict, table: str) -> list[str]:
    summ = [s for s in doc["summary"] if s["table"] == table]
    info = doc.get("tables", {}).get(table, {})
    by = {(s["system"], s["workload"], s["epsilon"]): s for s in summ}
    eps_list = sorted({s["epsilon"] for s in summ})
    present = [c for c in COLUMNS if any(s["system"] == c for s in summ)]
    present += sorted({s["system"] for s in summ} - set(present))
    L = [f"### {table}", "", f"{info.get('description', '')}. Workload `{info.get('workload', '?')}`"
         + (f"; rows also scored on {', '.join(f'`{w}`' for w in info.get('extra_workloads', []))}"
            if info.get("extra_workloads") else "") + ".", ""]
    L.append("Median avg L1 over seeds (main workload):")
    L.append("")
    L.append("| eps | " + " | ".join(present) + " |")
    L.append("|---|" + "---|" * len(present))
    for eps in eps_list:
        L.append(f"| {eps:g} | " + " | ".join(
            f"{by[(c, 'main', eps)]['avg_l1']['median']:.3f}" if (c, "main", eps) in by else "–" for c in present) + " |")
    L.append("")
    workloads = ["main"] + [w for w in info.get("extra_workloads", [])]
    for workload in workloads:
        rows = [s for s in summ if s["workload"] == workload]
        if not rows:
            continue
        title = "main workload" if workload == "main" else f"workload `{workload}` (same rows)"
        L.append(f"Details, {title}: median [min–max] over runs.")
        L.append("")
        L.append("| eps | system | rows | avg L1 | max error | seconds | peak MB | runs |")
        L.append("|---|---|---|---|---|---|---|---|")
        for eps in eps_list:
            for c in present:
                s = by.get((c, workload, eps))
                if s is None:
                    continue
                cached = " (cached)" if s.get("cached") == [True] else (" (partly cached)" if True in s.get("cached", []) else "")
                L.append(f"| {eps:g} | {c}{cached} | {'/'.join(s['rows_methods'])} | {fmt(s['avg_l1'])} | "
                         f"{fmt(s['max_error'])} | {fmt_seconds(s['seconds'])} | {fmt(s['peak_rss_mb'], 0)} | {s['ok']} |")
        L.append("")
    bad = [r for r in doc["runs"] if r["table"] == table and r.get("status") != "ok"]
    if bad:
        L.append("Runs without a result: " + "; ".join(
            f"{r['system']} eps = {float(r['epsilon']):g} seed {r['seed']}: {r.get('status')}"
            + (f" ({str(r.get('error')).strip().splitlines()[-1][:160]})" if r.get("error") else "") for r in bad) + ".")
        L.append("")
    measured = sorted({r["measured_at"][:16] for r in doc["runs"]
                       if r["table"] == table and r.get("cached") and r.get("measured_at")})
    if measured:
        L.append(f"Peer figures marked (cached) come from results/suite-peers.json, measured {measured[0]}"
                 + (f" to {measured[-1]}" if len(measured) > 1 else "") + ".")
        L.append("")
    return L


#: The suite page's heading; a page of other tables (the held-out ones) names itself with ``--title``.
DEFAULT_TITLE = "Tuning suite (issue 12): dprelease's defaults beside the baselines and the peers"


def render(doc: dict) -> str:
    matched = matched_ran(doc)  # the matched peers' check, note and config line appear together
    info, code, config = doc["machine"], doc["code"], doc["config"]
    L = [f"# {doc.get('title') or DEFAULT_TITLE}", ""]
    L.append(provenance_line("bench_suite.py", info, code, doc.get("total_seconds", 0.0)))
    if doc.get("total_seconds_before"):
        L[-1] += (f" Resumed: {doc['total_seconds_before'] / 60:.1f} min more in the earlier invocations whose runs "
                  "it kept.")
    if code.get("src_snapshot"):
        L[-1] += f" src/ snapshot tree sha256 `{code['src_snapshot']['tree_sha256']}`."
    loads = [x for r in doc["runs"] for x in (r.get("loadavg1_before_after") or [])]
    if loads:
        L.append(f"1-minute load average around the runs: median {statistics.median(loads):.2f}, max {max(loads):.2f}, "
                 f"on {info['cpu_count']} CPUs shared with other work: **seconds are noisy** (accuracy is not).")
    L.append("")
    check = doc.get("scorer_check")
    scorer = "Rows scored with `dprelease.evaluate.workload_errors`"
    if check and check.get("status") in ("agree", "DISAGREE"):
        scorer += (f"; cross-checked on adult7 against shared/bench/score.py (sha256 {check['score_py_sha256']}): "
                   f"{check['status']}, largest difference {check['max_abs_difference']:.1e}")
    L.append(scorer + ". avg L1 = mean over the workload's marginals of the L1 distance between fraction vectors; "
             "max error = the largest error in any cell.")
    L.append("")
    aim = "aim" in config["systems"]
    peers_run = " and ".join(name for peer, name in (("mst", "MST"), ("aim", "AIM")) if peer in config["systems"])
    L.append(f"Config: eps {', '.join(f'{e:g}' for e in config['eps'])}; seeds 0..{config['seeds'] - 1}; "
             + (f"AIM seeds 0..{config['aim_seeds'] - 1} under {config['aim_time_limit']:g} s, max model size "
                f"{config['aim_max_model_size']:g} MB, rounds {config['aim_rounds'] or 'smartnoise default (16 x columns)'}; "
                if aim else "AIM not run; ")
             + f"delta = {config['delta']:g} for dprelease (its default)"
             + (f", {peers_run}" if peers_run else "") + ". Peers: "
             + (", ".join(f"{k} {v}" for k, v in doc["peer_versions"].items()) if doc.get("peer_versions") else "not available")
             + ".")
    cut = [f"{t}: seeds 0..{n - 1}" for t, n in config.get("table_seeds", {}).items() if n != config["seeds"]]
    cut += [f"{t}: eps {', '.join(f'{e:g}' for e in es)}" for t, es in config.get("table_eps", {}).items()
            if list(es) != list(config["eps"])]
    mst_seeds = {}  # per table, from the runs themselves (invocations merged into one page may differ)
    for r in doc["runs"]:
        if r["system"] == "mst" and r.get("status") == "ok":
            mst_seeds.setdefault(r["table"], set()).add(int(r["seed"]))
    fewer = {t: len(s) for t, s in mst_seeds.items() if len(s) < config["table_seeds"].get(t, config["seeds"])}
    if fewer:
        cut.append("MST seeds: " + ", ".join(f"{t} {n}" for t, n in fewer.items()))
    matched_seeds: dict[tuple[str, str], set[int]] = {}  # (peer, table): the seeds that ran at dprelease's guarantee
    for r in doc["runs"]:
        if r["system"] in MATCHED_PEERS and r.get("status") == "ok":
            matched_seeds.setdefault((r["system"], r["table"]), set()).add(int(r["seed"]))
    matched_runs: dict[tuple[str, int], list[str]] = {}  # (peer, seeds): the tables
    for (peer, table), seeds in matched_seeds.items():
        matched_runs.setdefault((peer, len(seeds)), []).append(table)

    if cut:
        L[-1] += " Cut to fit the run's time: " + "; ".join(cut) + "."
    if matched_runs:
        L[-1] += (" Peers at dprelease's guarantee: " + "; ".join(
            f"{peer_guarantee.program(p).upper()} {n} seeds on {', '.join(tables)}"
            for (p, n), tables in sorted(matched_runs.items())) + ".")
    L.append("")
    L.append("Systems: `dprelease` = `synthesize` with every default (MWEM, delta = 1e-9); `dprelease-pure` = the "
             "same with delta = 0 (pure DP); `[sample]` = i.i.d. rows from the same model; `[model]` = the released answers "
             "themselves (no rows); `independent` = noisy 1-way marginals (IndependentMarginals) and their "
             "product, rows sampled; `uniform` = uniform rows; `mst`, `aim` = smartnoise-synth, rows sampled"
             + ("; `mst-matched`, `aim-matched` = the same peers run at the epsilon that gives them dprelease's "
                "guarantee under dprelease's privacy unit (below)" if matched else "")
             + ("; `dprelease-addremove` = the default with `privacy_unit=\"add-remove\"` (n private: a noisy count "
                "first, every marginal at sensitivity 1/count), the peers' unit" if any(
                 r["system"] == ADD_REMOVE for r in doc["runs"]) else "") + ". "
             "The rows column says which row method ran (`auto`'s pick for the defaults). Seconds = fit + rows "
             "in the run's own process; peak MB = that process's ru_maxrss (it includes the loaded table).")
    L.append("")
    L.append("## Tables")
    L.append("")
    L.append("| table | n | columns | cells | workload | shape | fingerprint |")
    L.append("|---|---|---|---|---|---|---|")
    for name in config["tables"]:
        t = doc.get("tables", {}).get(name)
        if t:
            L.append(f"| {name} | {t['n']:,} | {t['columns']} | {t['cells']:.3g} | `{t['workload']}` | "
                     f"{t['description']} | `{t['fingerprint']}` |")
    L.append("")
    lines, failures = checks(doc)
    L.append("## The issue's checks (medians over seeds, main workload)")
    L.append("")
    if matched:
        L.append(UNITS_NOTE)
        L.append("")
    L.append("Default <= the independent baseline; <= uniform rows (no data: not one of the issue's checks, listed "
             "because a release worse than none is a loss); <= the best peer that ran (MST, AIM)"
             + ("; <= the best of them at dprelease's guarantee (`-matched`)" if matched else "")
             + "; the released rows "
             "(`auto`) <= i.i.d. rows from the same model; rows / model answers (the spread table must be <= "
             f"{ROWS_VS_MODEL_LIMIT}x); the pure-DP path within {PURE_VS_DELTA_LIMIT}x of the default (delta = 1e-9).")
    L.append("")
    L += lines
    L.append("")
    L.append(f"### Where the defaults lose ({len(failures)})")
    L.append("")
    L.append("Verdicts compare medians. Beside a loss to a baseline or a peer, a Mann-Whitney U test over the two "
             "systems' runs (two-sided) says whether the seeds tell them apart: a large p means the medians' order "
             "is within the runs' spread. With 3 runs a side no p falls below 0.1.")
    L.append("")
    L += [f"- {f}" for f in failures] or ["- nowhere in this run"]
    L.append("")
    L.append("## Per table")
    L.append("")
    for name in config["tables"]:
        if any(s["table"] == name for s in doc["summary"]):
            L += table_section(doc, name)
    if doc.get("notes"):
        L.append("## Notes")
        L.append("")
        L += [f"- {n}" for n in doc["notes"]]
        L.append("")
    L.append(f"Commit of the benchmarked library: `{commit_label(code)}`.")
    return "\n".join(L) + "\n"
