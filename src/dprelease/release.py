"""What a run publishes: synthetic rows, workload answers, the privacy ledger, the transcript.

Everything in a :class:`Release` is differentially private output (or public
parameters); it is safe to publish as a whole. Saving is atomic: each file is
written to a temporary name, flushed to disk and renamed, so an interrupted run
never leaves a half-written release.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dprelease import __version__
from dprelease.domain import Domain
from dprelease.files import write_atomic
from dprelease.queries.workload import Workload

PRIVACY_UNIT = (
    "neighbouring tables have the same public number of rows n and differ in one record "
    "(Dwork & Roth's setting): a counting query has sensitivity 1/n, a whole marginal L1 sensitivity 2/n"
)


@dataclass
class Release:
    """A differentially private release and everything needed to interpret it."""

    mechanism: str
    domain: Domain
    workload: Workload
    guarantee: str
    parameters: dict[str, object]
    privacy_ledger: dict[str, object]
    transcript: list[dict[str, object]]
    answers: list[np.ndarray]
    rows: np.ndarray
    rows_method: str
    seeded: bool
    extra: dict[str, object] = field(default_factory=dict)

    # ------------------------------------------------------------------ queries
    def marginal(self, attributes: tuple[str, ...]) -> np.ndarray:
        """The released answer to one workload marginal (fractions), from the model."""
        canonical = self.domain.canonical(attributes)
        try:
            return self.answers[self.workload.marginals.index(canonical)]
        except ValueError:
            raise KeyError(f"marginal {list(attributes)} is not in the released workload") from None

    # ------------------------------------------------------------------- saving
    def to_json(self) -> dict[str, object]:
        return {
            "dprelease_version": __version__,
            "mechanism": self.mechanism,
            "guarantee": self.guarantee,
            "privacy_unit": PRIVACY_UNIT,
            "fit_for_release": not self.seeded,
            "randomness": "seeded generator (reproducible; NOT fit for a real release)" if self.seeded
            else "operating-system CSPRNG",
            "domain": self.domain.to_dict(),
            "parameters": self.parameters,
            "privacy_ledger": self.privacy_ledger,
            "transcript": self.transcript,
            "synthetic_rows": {"count": int(len(self.rows)), "method": self.rows_method},
            "workload_answers": [
                {"marginal": list(m), "shape": list(a.shape), "fractions": [float(v) for v in a.reshape(-1)]}
                for m, a in zip(self.workload.marginals, self.answers)
            ],
            **self.extra,
        }

    def rows_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.domain.attributes)
        writer.writerows(self.rows.tolist())
        return buffer.getvalue()

    def save(self, rows_path: str | Path, json_path: str | Path | None = None) -> None:
        """Write the synthetic rows (CSV) and, optionally, the full release (JSON), atomically."""
        write_atomic(Path(rows_path), self.rows_csv())
        if json_path is not None:
            write_atomic(Path(json_path), json.dumps(self.to_json(), indent=1) + "\n")
