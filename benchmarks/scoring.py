"""One scoring path for every benchmark: the independent scorer shared/bench/score.py when present.

Benchmarks that compare systems must score their rows the same way, so they all use this module
rather than each carrying its own copy. Without shared/ (outside the project's workspace) the
package's own `dprelease.evaluate.workload_errors`, which uses the same definitions, stands in.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCORE_PY = next((p for p in (REPO.parent / "shared" / "bench" / "score.py", Path("/work/shared/bench/score.py"))
                 if p.exists()), REPO.parent / "shared" / "bench" / "score.py")


def load_scorer():
    """(score module or None, a description naming it and its sha256)."""
    if not SCORE_PY.exists():
        return None, "dprelease.evaluate.workload_errors (shared/bench/score.py not found)"
    spec = importlib.util.spec_from_file_location("bench_score", SCORE_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    digest = hashlib.sha256(SCORE_PY.read_bytes()).hexdigest()[:12]
    return module, f"{SCORE_PY} score() (sha256 {digest})"


def score_rows(rows, dataset, marginals, scorer) -> dict:
    """Score synthetic rows (n x d codes, columns in dataset.domain order) on a list of marginals."""
    marginals = [tuple(m) for m in marginals]
    if scorer is not None:
        attrs = list(dataset.domain.attributes)
        real = {a: dataset.records[:, i] for i, a in enumerate(attrs)}
        synth = {a: rows[:, i] for i, a in enumerate(attrs)}
        out = scorer.score(real, synth, dataset.domain.to_dict(), marginals)
    else:
        from dprelease.data import Dataset
        from dprelease.evaluate import workload_errors
        from dprelease.queries.workload import Workload

        out = workload_errors(dataset, Dataset.from_records(rows, dataset.domain), Workload(dataset.domain, marginals))
    keep = ("avg_l1", "max_error", "max_l1", "worst_marginal", "n_marginals")
    return {k: out[k] for k in keep if k in out} | {"n_synth": int(len(rows))}
