"""Person-level privacy: bounding each person's contribution to at most k rows.

A table with several rows per person (claims per customer, visits per patient) is protected per *person* only if the
neighbouring tables of the guarantee differ in one person's rows, all of them. dprelease gets there as Tumult,
OpenDP and Google's libraries do: a public privacy-id column names each row's person, every person keeps at most
``rows_per_person`` (k, public) of their rows, chosen uniformly at random, and the mechanism runs under add/remove
neighbours with every sensitivity multiplied by k.

Privacy (the argument the measurer's k relies on; :class:`~dprelease.privacy.measurer.PrivateMeasurer`):
  * which of a person's rows are kept depends on that person's rows and on fresh randomness only (a uniformly random
    order of the whole table, read within each person: each person's kept rows are a uniform subset of theirs of
    size min(k, their rows), independent of every other person's). So for tables x and x' that differ in one
    person's rows, the kept tables can be coupled to differ in that person's kept rows alone: at most k records
    added and at most k removed, i.e. within k add/remove steps of each other when one table has the person and the
    other not (the person-level neighbours, as in MST's, AIM's and Tumult's add/remove-a-person unit).
  * a function whose value moves by at most Delta under one record added or removed moves by at most k Delta over a
    path of k such steps (triangle inequality). Every sensitivity of the add/remove measurer (a marginal's L1 and L2,
    the selection score, the dependence, the record count) is one of those, so charging each step with k Delta makes
    the charge hold for one person added or removed: the same theorem per step (Laplace, Thm 3.6; Gaussian, Bun &
    Steinke Prop. 1.6; exponential mechanism, Thm 3.10), the same composition.
The bound k is a public choice: rows past it are dropped, never seen by the mechanism (a person with more rows is
under-represented; the release says how many rows a person may keep, not how many were dropped, which is private).

The schema draft, whose steps are not all sensitivity-based (its stability histogram spends delta), gets there by group
privacy instead (:func:`record_budget`, :func:`person_charge`): run on the bounded table at (epsilon / k, delta'), every
charge (e_i, d_i) of it is (k e_i, d_i (1 + e^e_i + ... + e^((k-1) e_i)))-DP for tables k add/remove steps apart
(Dwork & Roth Thm 2.2 for pure DP; for delta by induction over the k steps, P[M(x_0) in S] <= e^(k e) P[M(x_k) in S]
+ d sum_{i<k} e^(i e)), and the charges add by basic composition (Thm 3.16).

A blank privacy id is one person (all the blank-id rows together keep at most k rows): a safe reading, since rows with
no id cannot be told apart, at the price of dropping most of them when there are many.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from dprelease.data import Dataset
from dprelease.engines.persons import PersonRows
from dprelease.errors import InputError
from dprelease.privacy.accountant import Charge
from dprelease.privacy.column_reader import PrivateColumnReader
from dprelease.privacy.rng import RandomSource

#: The largest public bound a run takes: past it every sensitivity (k / n) leaves little signal, and a user who
#: means "no bound" should see that there is one.
MAX_ROWS_PER_PERSON = 10_000


def check_rows_per_person(rows_per_person: object, *, name: str = "rows_per_person") -> int:
    """The public bound k, checked: an integer in [1, MAX_ROWS_PER_PERSON]."""
    if isinstance(rows_per_person, bool) or not isinstance(rows_per_person, (int, np.integer)):
        raise InputError(f"{name} must be a whole number of rows >= 1, got {rows_per_person!r:.100}")
    if not 1 <= int(rows_per_person) <= MAX_ROWS_PER_PERSON:
        raise InputError(f"{name} must be between 1 and {MAX_ROWS_PER_PERSON:,}, got {rows_per_person!r:.100}")
    return int(rows_per_person)


def bounded_rows(persons: np.ndarray, *, rows_per_person: int, rng: RandomSource) -> np.ndarray:
    """The rows kept, in table order: for each person, a uniformly random ``rows_per_person`` of theirs (all of them
    where they have no more). Reads the private ids; returns row positions only, for the kernel's table.

    A random order of the whole table, then a stable sort by person: within a person the rows stay in the random
    order, so the first k of each person are a uniform k-subset of theirs, drawn independently of the other persons
    (the module's privacy argument).
    """
    persons = np.asarray(persons, dtype=np.int64)
    if persons.ndim != 1:
        raise ValueError("persons must be one id per row")
    shuffled = rng.permutation(len(persons))
    grouped = shuffled[np.argsort(persons[shuffled], kind="stable")]
    sorted_persons = persons[grouped]
    starts = np.flatnonzero(np.r_[True, sorted_persons[1:] != sorted_persons[:-1]]) if len(persons) else \
        np.zeros(0, dtype=np.int64)
    rank = np.arange(len(persons)) - np.repeat(starts, np.diff(np.r_[starts, len(persons)]))
    return np.sort(grouped[rank < rows_per_person])


def check_privacy_id(privacy_id: object, columns: tuple[str, ...]) -> str:
    """The privacy-id column's name, checked against the schema's columns (public): a name, not a released one."""
    if not isinstance(privacy_id, str) or not privacy_id:
        raise InputError(f"privacy_id must be a column name, got {privacy_id!r:.100}")
    if privacy_id in columns:
        raise InputError(f"privacy_id column {privacy_id!r} is a column of the schema: its values would be released; "
                         "leave it out of the schema (or of columns=/--columns)")
    return privacy_id


def bound(rows: PersonRows, *, rows_per_person: int, rng: RandomSource) -> Dataset:
    """BOUND: the table of ``rows`` with at most ``rows_per_person`` rows of each person, drawn at random
    (:func:`bounded_rows`): the only way from rows with their persons to a table a mechanism may read.

    The rows are first put in a canonical order (by person, then by their codes), so that which rows are kept
    depends on the table's content and the random draws only, not on the order an engine read the rows in: every
    engine keeps the same rows for the same seed.
    """
    records = np.asarray(rows.table.records)
    order = np.lexsort((*records.T[::-1], rows.persons))  # the last key sorts first: persons, then each column
    kept = bounded_rows(rows.persons[order], rows_per_person=check_rows_per_person(rows_per_person), rng=rng)
    return Dataset(rows.table.domain, records[order[kept]], None, len(kept))


# ------------------------------------------------------------------------------------- group privacy (the draft's)
def _exp_above(x: Fraction) -> Fraction:
    """An exact rational >= e^x: the float exponential, raised by 2^-40 (far above its error and float(x)'s, for the
    x <= 1000 a budget allows)."""
    return Fraction(math.exp(float(x))) * (1 + Fraction(1, 2**40))


def group_delta_factor(*, epsilon: Fraction, rows_per_person: int) -> Fraction:
    """An exact upper bound on sum_{i<k} e^(i epsilon): what an (epsilon, delta)-DP step's delta is multiplied by for
    tables k add/remove steps apart."""
    return sum((_exp_above(i * Fraction(epsilon)) for i in range(1, rows_per_person)), Fraction(1))


def _float_at_most(x: Fraction) -> float:
    """The largest float <= x (a budget handed to float code must not round up past its share)."""
    f = float(x)
    return f if Fraction(f) <= x else math.nextafter(f, -math.inf)


def record_budget(*, epsilon: float, delta: float, rows_per_person: int) -> tuple[float, float]:
    """The per-record budget (epsilon_r, delta_r), floats rounded down, whose group-privacy conversion
    (:func:`person_charge`) stays within the person-level (epsilon, delta): epsilon_r <= epsilon / k and
    delta_r <= delta / sum_{i<k} e^(i epsilon_r)."""
    k = check_rows_per_person(rows_per_person)
    epsilon_r = _float_at_most(Fraction(epsilon) / k)
    delta_r = _float_at_most(Fraction(delta) / group_delta_factor(epsilon=Fraction(epsilon_r), rows_per_person=k))
    return epsilon_r, delta_r


def person_charge(*, epsilon: Fraction, delta: Fraction, rows_per_person: int) -> tuple[Fraction, Fraction]:
    """What an (epsilon, delta)-DP step under add/remove of one record is for one person's at most k records: (k
    epsilon, delta sum_{i<k} e^(i epsilon)), exact upper bounds (group privacy; the module's docstring)."""
    k = check_rows_per_person(rows_per_person)
    factor = group_delta_factor(epsilon=Fraction(epsilon), rows_per_person=k) if delta else Fraction(0)
    return k * Fraction(epsilon), Fraction(delta) * factor


def person_ledger(record_ledger: Mapping[str, Any], charges: Sequence[Charge],
                  person: Mapping[str, Any], person_charges: Sequence[Charge] = ()) -> dict[str, Any]:
    """A per-person draft's ledger: ``person_charges`` (already per person: the rows-per-person histogram), then each
    per-record charge converted by group privacy (:func:`person_charge`), their exact sum, the person-level budget,
    and the per-record ledger the converted charges came from."""
    k = person["rows_per_person"]
    converted = [charge.to_json() for charge in person_charges]
    for charge in charges:
        epsilon, delta = person_charge(epsilon=charge.epsilon, delta=charge.delta, rows_per_person=k)
        converted.append(Charge(charge.label, epsilon, delta,
                                f"{charge.rule}, per record; group privacy over {k} records (Dwork & Roth Thm 2.2; "
                                f"delta times sum_(i<{k}) e^(i epsilon))").to_json())
    spent_epsilon = sum((Fraction(c["epsilon_exact"]) for c in converted), Fraction(0))
    spent_delta = sum((Fraction(c["delta_exact"]) for c in converted), Fraction(0))
    return {"accounting": f"per person: the per-record draft's charges, each converted by group privacy over {k} "
                          "records, added by basic composition (Thm 3.16)",
            "person": {key: value for key, value in person.items() if key not in ("epsilon", "delta")},
            "budget": {"epsilon": float(person["epsilon"]), "delta": float(person["delta"])},
            "spent": {"epsilon": float(spent_epsilon), "delta": float(spent_delta),
                      "epsilon_exact": str(spent_epsilon), "delta_exact": str(spent_delta)},
            "charges": converted, "per_record": dict(record_ledger)}


# --------------------------------------------------------------------------- how many rows the persons have
#: The public buckets of a person's number of rows: 1, 2, 3-4, 5-8, ..., 513-1024, then more than 1024.
ROWS_BUCKET_EDGES = (1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025)


def rows_per_person_histogram(persons: np.ndarray, *, reader: PrivateColumnReader, epsilon: Fraction) -> np.ndarray:
    """Noisy numbers of persons whose rows fall in each public bucket (``ROWS_BUCKET_EDGES``), read from the whole
    table (before any bound): what a user needs to choose k.

    Privacy: (epsilon, 0)-DP for one person added or removed (or replaced): each person is one entry of the
    histogram, so one person moves it by 1 (2 replaced), under the reader's calibration to L1 sensitivity 2
    (discrete Laplace, Thm 3.6).
    """
    return reader.histogram(person_buckets(persons), len(ROWS_BUCKET_EDGES), epsilon=epsilon,
                            label="rows per person (persons by their number of rows)")


def person_buckets(persons: np.ndarray) -> np.ndarray:
    """One entry per person: the public bucket of their number of rows (private; the histogram's cells)."""
    _, rows = np.unique(np.asarray(persons, dtype=np.int64), return_counts=True)
    return np.searchsorted(np.asarray(ROWS_BUCKET_EDGES), rows, side="right") - 1


def _bucket_rows() -> np.ndarray:
    """A bucket's persons' rows, each at the bucket's geometric middle (the last, unbounded bucket at its lower edge)."""
    lows = np.asarray(ROWS_BUCKET_EDGES, dtype=np.float64)
    return np.sqrt(lows * np.append(lows[1:] - 1, lows[-1]))


def noisy_count_sd(epsilon: float) -> float:
    """The standard deviation of one cell of :func:`rows_per_person_histogram`: discrete Laplace of scale t = 2 /
    epsilon, variance 2 q / (1 - q)^2 with q = e^(-1/t)."""
    q = math.exp(-float(epsilon) / 2)
    return math.sqrt(2 * q) / (1 - q)


def rows_kept_estimate(noisy_persons: np.ndarray, rows_per_person: int, *, epsilon: float) -> tuple[float, float]:
    """About how many rows a bound of k keeps, and the standard deviation of that estimate (post-processing of the
    noisy histogram): sum over the buckets of their noisy persons times min(rows, k), a bucket's rows at its geometric
    middle. The noisy counts are taken as they are (negative ones too), so the noise adds nothing on average; k = 1
    gives the number of persons. Exact up to the middles for k at a bucket's upper edge (1, 2, 4, ..., 1,024);
    past 1,024 the last bucket's persons count 1,025 rows each, so larger bounds read low.

    No share of the table is estimated: the table's number of rows is private under this unit and unbounded in one
    person (one person may hold any number of rows; the persons past the noise in a bucket of heavy users can hold
    most of them), so a share read from the histogram alone can be off by any amount."""
    weights = np.minimum(_bucket_rows(), float(rows_per_person))
    estimate = float(np.dot(np.asarray(noisy_persons, dtype=np.float64), weights))
    return max(estimate, 0.0), noisy_count_sd(epsilon) * float(np.linalg.norm(weights))
