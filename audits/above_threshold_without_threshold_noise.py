"""Long audit: AboveThreshold, and the variant without threshold noise (too slow for `make test`).

Without noise on the threshold, each comparison leaks on its own, so the privacy loss grows with
the number of below-threshold answers (Lyu, Su, Li 2017). The audit asks the same query k times on
neighbouring tables (one record moves the query by 1/n) and looks at "at least j BOTs before the
TOP". The shipped code must pass; the variant (monkeypatched into the real code path) must fail.
False-alarm rate per audit: 1e-6 (tests/audit.py).

    .venv/bin/python audits/above_threshold_without_threshold_noise.py [--samples 200000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dprelease.data import Dataset  # noqa: E402
from dprelease.domain import Domain  # noqa: E402
from dprelease.privacy import sparse_vector as sv  # noqa: E402
from dprelease.privacy.accountant import PrivacyAccountant  # noqa: E402
from dprelease.privacy.rng import SeededRandom  # noqa: E402
from dprelease.queries import ProductQuery  # noqa: E402
from tests.audit import violations  # noqa: E402

EPSILON, K = 1.0, 10
DOMAIN = Domain(("a",), (2,))
X = Dataset.from_records([[1]] * 4 + [[0]] * 6, DOMAIN)        # f = 0.4
X_PRIME = Dataset.from_records([[1]] * 5 + [[0]] * 5, DOMAIN)  # f = 0.5
QUERY = ProductQuery.conjunction(DOMAIN, {"a": 1})
THRESHOLD = 0.45


def bots_before_top(dataset: Dataset, samples: int, seed: int) -> np.ndarray:
    acc, rng = PrivacyAccountant(epsilon=samples * EPSILON), SeededRandom(seed)
    out = np.empty(samples, dtype=np.int64)
    for i in range(samples):
        at = sv.AboveThreshold(dataset, threshold=THRESHOLD, epsilon=EPSILON, accountant=acc, rng=rng)
        j = 0
        while j < K and not at.ask(QUERY):
            j += 1
        out[i] = j
    return out


def audit(samples: int) -> list[str]:
    events = [(f">= {j} BOTs before TOP", lambda o, j=j: o >= j) for j in range(2, K + 1)]
    return violations(bots_before_top(X, samples, 1), bots_before_top(X_PRIME, samples, 2), events,
                      epsilon=EPSILON, alpha=1e-6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--out", type=Path, default=Path("audits/results/above_threshold_without_threshold_noise.json"))
    args = parser.parse_args()
    start = time.perf_counter()
    shipped = audit(args.samples)
    real_draw = sv._SparseVector._draw_threshold

    def no_threshold_noise(self):  # the planted variant: the reservation is used, no noise is drawn
        real_draw(self)
        return self.threshold

    sv._SparseVector._draw_threshold = no_threshold_noise
    try:
        planted = audit(args.samples)
    finally:
        sv._SparseVector._draw_threshold = real_draw
    result = {"samples_per_table": args.samples, "queries": K, "epsilon": EPSILON, "false_alarm_rate": 1e-6,
              "shipped_violations": shipped, "planted_violations": planted,
              "seconds": round(time.perf_counter() - start, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    if shipped or not planted:
        sys.exit(1)


if __name__ == "__main__":
    main()
