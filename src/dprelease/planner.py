"""Which mechanism does the theory favour? Every mechanism's guaranteed alpha from public parameters.

Given n, |X|, |Q|, epsilon, delta and beta (all public), :func:`plan_mechanisms` computes, for each
mechanism, the smallest max error over Q its theorem guarantees with probability >= 1 - beta, the
number of rounds it runs and its per-step epsilon, exactly as the code would run it. "No
guarantee" means the theorem is vacuous (no alpha <= 1 qualifies). Rows are sorted best first.

Nothing here reads data; it is safe to run before spending any budget.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from dprelease import bounds
from dprelease.errors import DomainTooLargeError
from dprelease.representations.nets import DEFAULT_MAX_DATABASES, check_net, smalldb_size
from dprelease.updates.median import smallest_net
from dprelease.updates.multiplicative_weights import mw_max_updates
from dprelease.updates.perceptron import perceptron_max_updates
from dprelease.validation import check_release_parameters


@dataclass(frozen=True)
class PlanRow:
    """One mechanism's guarantee. ``alpha`` None: no guarantee."""

    mechanism: str
    theorem: str
    alpha: float | None
    rounds: int | None
    epsilon0: float | None
    note: str = ""

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _ic_row(name: str, theorem: str, alpha: float | None, updates, *, epsilon: float, delta: float,
            note: str = "") -> PlanRow:
    if alpha is None:
        return PlanRow(name, theorem, None, None, None, note)
    rounds = bounds.ic_rounds(updates, alpha)
    return PlanRow(name, theorem, alpha, rounds, bounds.ic_epsilon0(epsilon=epsilon, delta=delta, rounds=rounds), note)


def plan_mechanisms(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float = 0.0,
                    beta: float = 0.05, norm_ratio_bound: float = 1.0,
                    max_databases: int = DEFAULT_MAX_DATABASES) -> list[PlanRow]:
    """Every mechanism's guaranteed alpha (max error over Q, w.p. >= 1 - beta), best first.

    ``norm_ratio_bound`` is the perceptron's public bound on ||x||_2 / ||x||_1 (default 1, always true).
    ``max_databases`` is only used to note whether a net would be enumerable under that cap.
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon,
                             delta=delta, beta=beta)
    kw = {"n": n, "universe_size": universe_size, "num_queries": num_queries, "epsilon": epsilon, "beta": beta}
    rows: list[PlanRow] = []

    # SmallDB (Thm 4.5, corrected closed form): one exponential-mechanism draw at the whole epsilon; delta unused.
    # Its net at alpha/2 has floor(ln(2|Q|) / (2 (alpha/2)^2)) + 1 rows (Thm 4.2 corrected: a net for every |Q|).
    alpha = bounds.thm_4_5_smalldb_alpha(**kw)
    if alpha <= 1:
        size = smalldb_size(alpha=alpha / 2, num_queries=num_queries)
        rows.append(PlanRow("smalldb", "Thm 4.5 (Alg. 4 at alpha/2)", alpha, 1, epsilon,
                            f"m={size} rows; " + _enumerable(universe_size, size, max_databases)))
    else:
        rows.append(PlanRow("smalldb", "Thm 4.5 (Alg. 4 at alpha/2)", None, None, None, "pure DP; delta unused"))

    # IC with MW (Thms 4.10 + 5.3-5.5).
    mw = lambda a: mw_max_updates(alpha=a, universe_size=universe_size)  # noqa: E731
    rows.append(_ic_row("ic-mw", "Thms 4.10, 5.3-5.5", bounds.ic_mw_alpha(**kw, delta=delta), mw,
                        epsilon=epsilon, delta=delta))

    # IC with the median mechanism on the smaller valid net (Thms 5.8, 5.9 / Remark 5.2, 5.3-5.5).
    median = bounds.median_updates_for(n=n, universe_size=universe_size, num_queries=num_queries)
    alpha = bounds.ic_median_alpha(**kw, delta=delta)
    note = ""
    if alpha is not None:
        kind, size = smallest_net(n=n, alpha=alpha / 2, num_queries=num_queries, linear=True)
        note = f"{kind} net, m={size} rows; " + _enumerable(universe_size, size, max_databases)
    rows.append(_ic_row("ic-median", "Thms 5.8, 5.9/4.2, 5.3-5.5", alpha, median, epsilon=epsilon, delta=delta,
                        note=note))

    # IC with the perceptron and the public bound r (Thms 5.11 + 5.3-5.5).
    perceptron = lambda a: perceptron_max_updates(  # noqa: E731
        alpha=a, universe_size=universe_size, norm_ratio_bound=norm_ratio_bound)
    rows.append(_ic_row("ic-perceptron", "Thms 5.11, 5.3-5.5",
                        bounds.ic_perceptron_alpha(**kw, delta=delta, norm_ratio_bound=norm_ratio_bound), perceptron,
                        epsilon=epsilon, delta=delta, note=f"||x||_2/||x||_1 <= {norm_ratio_bound:g} (public bound)"))

    # Online MW via NumericSparse (Thms 4.14 / 4.15): answers within 3 alpha.
    if delta == 0:
        alpha, theorem = bounds.online_mw_alpha_pure(**kw), "Thm 4.14 (36, corrected)"
    else:
        alpha, theorem = bounds.online_mw_alpha_approx(**kw, delta=delta), "Thm 4.15"
    if alpha is not None and 3 * alpha <= 1:
        cutoff = bounds.online_mw_cutoff(alpha=alpha, universe_size=universe_size)
        rows.append(PlanRow("online-mw", theorem, 3 * alpha, cutoff, None,
                            "error 3 alpha; rounds = NumericSparse cut-off c"))
    else:
        rows.append(PlanRow("online-mw", theorem, None, None, None, "error 3 alpha"))

    rows.append(PlanRow("mwem", "none in Dwork & Roth", None, None, None, "no theorem in the book to plan from"))
    return sorted(rows, key=lambda r: (r.alpha is None, r.alpha if r.alpha is not None else 0.0, r.mechanism))


def _enumerable(universe_size: int, size: int, cap: int) -> str:
    try:
        count = check_net(universe_size, size, max_databases=cap, max_cells=2**62)
    except DomainTooLargeError:
        return f"not enumerable under max_databases={cap:,}"
    return f"{count:,} databases"


def format_table(rows: list[PlanRow]) -> str:
    """A plain-text table, one mechanism a line."""
    header = ("mechanism", "alpha", "rounds", "epsilon0", "theorem", "note")
    lines = [header]
    for r in rows:
        lines.append((r.mechanism, "no guarantee" if r.alpha is None else f"{r.alpha:.4g}",
                      "-" if r.rounds is None else str(r.rounds),
                      "-" if r.epsilon0 is None else f"{r.epsilon0:.4g}", r.theorem, r.note))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header) - 1)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)) + "  " + line[-1]
                     for line in lines).rstrip()
