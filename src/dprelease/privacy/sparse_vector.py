"""The sparse vector technique (Dwork & Roth Sec. 3.6): AboveThreshold, Sparse, NumericSparse.

A stream of adaptively chosen queries of sensitivity Delta is compared, one at a time,
with a public threshold T. Only the queries found *above* the threshold cost privacy,
and the mechanism halts after c of them; every "below" answer is free. Each class
reads the true answers through the private :class:`~dprelease.data.Dataset` and
returns only noisy outputs.

The noise scales are the book's, multiplied by the sensitivity Delta (1/n for a
normalized linear query; the book states them for Delta = 1)::

    AboveThreshold (Alg. 1)  T_hat = T + Lap(2 D / eps)         query noise Lap(4 D / eps)
    Sparse (Alg. 2)          sigma = 2 c D / eps                 (delta = 0)
                             sigma = sqrt(32 c ln(1/delta)) D / eps     (delta > 0)
                             T_hat = T + Lap(sigma), refreshed after every TOP; query noise Lap(2 sigma)
    NumericSparse (Alg. 3)   eps1 = 8 eps / 9,  eps2 = 2 eps / 9                       (delta = 0)
                             eps1 = sqrt(512) eps / (sqrt(512) + 1),  eps2 = 2 eps / (sqrt(512) + 1)
                             sigma(e) = 2 c D / e  or  sqrt(32 c ln(2/delta)) D / e
                             T_hat = T + Lap(sigma(eps1)), refreshed after every TOP;
                             query noise Lap(2 sigma(eps1)); a TOP answer is f(x) + Lap(sigma(eps2))

(The book prints eps2 = 2/(sqrt(512)+1) without the factor eps: a typo, docs/theorems.md.
The factor eps is what its proof of Thm 3.27 uses, and what is implemented.)

Accounting: the whole plan is charged when the mechanism is built, before the first
query: c AboveThreshold runs (and, for NumericSparse, c Laplace answers), each a
:class:`~dprelease.privacy.accountant.Reservation` that refuses any step beyond it.
How many queries are asked or when the stream stops is data-dependent, so nothing is
refunded; the ledger is right whenever the stream stops. With delta > 0 the
reservation composes the runs by Thm 3.20 evaluated exactly (or basic composition,
if smaller), so the ledger may show less than the (eps, delta) the book's Cor. 3.21
style sizing promises, never more.

The noisy threshold is secret state. It is exposed only through :meth:`state`, for
the curator's private state file; it must never be published with the answers.

Why not the variants of Lyu, Su and Li (PVLDB 10(6), 2017):
    Lyu, Su and Li list SVT variants from the literature that are *not* differentially
    private although they look like the book's algorithm, and propose a private
    variant of their own. None is implemented here:

    * releasing the comparison's own noisy value f(x) + nu for a TOP answer (their
      Alg. 3, after Roth's 2011 lecture notes). NumericSparse draws a fresh
      Laplace(sigma(eps2)) for each numeric answer and pays for it;
    * query noise that does not grow with the cut-off c (their Alg. 4, Lee & Clifton
      2014; about (1 + 6c)/4 * eps, not eps);
    * no query noise at all, or no per-query noise scaled to c with the threshold
      never refreshed (their Algs. 5 and 6, Stoddard et al. 2014, Chen et al. 2015):
      not eps-DP for any finite eps. tests/test_sparse_vector.py plants the first of
      these (no query noise) and shows that the privacy audit catches it;
    * their own private Alg. 1 (a different split of eps between threshold and
      queries, threshold not refreshed). It is private, but it is not the book's
      algorithm: Thm 3.28's accuracy and so Thms 4.14/4.15 are proved for the book's
      scales and refreshes, and those are what the online mechanism promises.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.engines.base import PrivateTable
from dprelease.errors import BudgetExhaustedError, InputError, InputTypeError
from dprelease.privacy.accountant import PrivacyAccountant, Reservation, block_charge
from dprelease.privacy.noise import exact, laplace, laplace_scale, snapped_laplace
from dprelease.privacy.rng import RandomSource
from dprelease.queries.dense import DenseQuery
from dprelease.queries.product import ProductQuery
from dprelease.queries.workload import query_sensitivity
from dprelease.validation import check_delta, check_positive, check_positive_int

#: Cached true marginals are dropped once they hold more cells than this.
TRUTH_CACHE_CELLS = 16_000_000
_SQRT512 = math.sqrt(512)


class ShiftedQuery:
    """g(x) = sign * (f(x) - offset): a query f minus a public number, possibly negated.

    Algorithm 6 asks NumericSparse about f'_{2i-1} = f_i - f_i(x^t) and f'_{2i} = f_i(x^t) - f_i;
    with f_i(x^t) public, g has f's sensitivity.
    """

    __slots__ = ("query", "offset", "sign")

    def __init__(self, query: object, offset: float = 0.0, sign: int = 1) -> None:
        if sign not in (1, -1) or isinstance(sign, bool):
            raise InputError(f"sign must be 1 or -1, got {sign!r}")
        if not math.isfinite(offset):
            raise InputError(f"offset must be a finite number, got {offset!r}")
        self.query, self.offset, self.sign = query, float(offset), int(sign)


class _TrueAnswers:
    """The private data's only reader here: true answers through cached true marginals."""

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        self.domain = dataset.domain
        self._marginals: dict[tuple[str, ...], np.ndarray] = {}
        self._cells = 0
        self._last: tuple[object, float] | None = None

    def marginal(self, attributes: tuple[str, ...]) -> np.ndarray:
        attributes = tuple(attributes)
        cached = self._marginals.get(attributes)
        if cached is None:
            cached = self._dataset.marginal(attributes)
            if self._cells + cached.size > TRUTH_CACHE_CELLS:
                self._marginals.clear()
                self._cells = 0
            self._marginals[attributes] = cached
            self._cells += cached.size
        return cached

    def answer(self, query: object) -> float:
        if self._last is not None and self._last[0] is query:  # Alg. 6 asks about each f twice
            return self._last[1]
        if isinstance(query, (ProductQuery, DenseQuery)):
            value = float(query.evaluate(self))  # both read marginals only
        else:
            value = float(query.evaluate(self._dataset))
        self._last = (query, value)
        return value


class _SparseVector:
    """Shared machinery: c AboveThreshold runs against one threshold T, refreshed after each TOP."""

    mechanism = "sparse-vector"
    numeric = False

    def __init__(self, dataset: Dataset, *, threshold: float, cutoff: int, epsilon: float | Fraction,
                 delta: float | Fraction = 0, accountant: PrivacyAccountant, rng: RandomSource,
                 sensitivity: Fraction | None = None, label: str | None = None) -> None:
        self._configure(dataset, threshold=threshold, cutoff=cutoff, epsilon=epsilon, delta=delta, rng=rng,
                        sensitivity=sensitivity, label=label)
        # The whole plan, charged before the first query (and before the first noise draw).
        self._reservations = [
            accountant.reserve(epsilon_each=eps, count=self.cutoff, label=name, delta_slack=slack)
            for name, eps, slack in self._blocks()
        ]
        self.count = 0
        self.asked = 0
        self._noisy_threshold = self._draw_threshold()

    # ------------------------------------------------------------- parameters
    def _configure(self, dataset: Dataset, *, threshold: float, cutoff: int, epsilon: float | Fraction,
                   delta: float | Fraction, rng: RandomSource, sensitivity: Fraction | None,
                   label: str | None) -> None:
        if not isinstance(dataset, PrivateTable):
            raise InputTypeError(f"dataset must be a dprelease.Dataset or another PrivateTable, "
                                 f"got {type(dataset).__name__}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
            raise InputError(f"threshold must be a finite number, got {threshold!r}")
        self.cutoff = check_positive_int(cutoff, "cutoff")
        self.epsilon = exact(epsilon) if isinstance(epsilon, Fraction) else exact(check_positive(epsilon, "epsilon"))
        if self.epsilon <= 0:
            raise InputError(f"epsilon must be a finite number > 0, got {epsilon}")
        self.delta = exact(delta) if isinstance(delta, Fraction) else exact(check_delta(delta))
        if not 0 <= self.delta < 1:
            raise InputError(f"delta must be a number in [0, 1), got {delta}")
        self.sensitivity = Fraction(1, dataset.n) if sensitivity is None else exact(sensitivity)
        if self.sensitivity <= 0:
            raise InputError(f"sensitivity must be > 0, got {sensitivity}")
        self.threshold = float(threshold)
        self.label = label or self.mechanism
        self.n = dataset.n
        self.domain = dataset.domain
        self._truth = _TrueAnswers(dataset)
        self._rng = rng
        eps_run, eps_numeric = self._step_epsilons()
        self.epsilon_run, self.epsilon_numeric = eps_run, eps_numeric
        d = self.sensitivity
        self.threshold_scale = laplace_scale(sensitivity=2 * d, epsilon=eps_run)  # 2 D / eps'
        self.query_scale = laplace_scale(sensitivity=4 * d, epsilon=eps_run)  # 4 D / eps' (= 2 sigma)
        self.numeric_scale = (laplace_scale(sensitivity=d, epsilon=eps_numeric)
                              if eps_numeric is not None else None)

    def _step_epsilons(self) -> tuple[Fraction, Fraction | None]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _blocks(self) -> list[tuple[str, Fraction, float | None]]:
        """(label, epsilon per step, advanced-composition slack or None) of each block of c steps."""
        slack = float(self.delta) if self.delta > 0 else None
        return [(f"{self.label}: {self.cutoff} AboveThreshold run(s)", self.epsilon_run, slack)]

    # ----------------------------------------------------------------- noise
    def _draw_threshold(self) -> float:
        self._reservations[0].use(epsilon=self.epsilon_run, label=f"{self.label}: threshold {self.count + 1}")
        return self.threshold + float(laplace(self.threshold_scale, 1, self._rng)[0])

    def _query_noise(self) -> float:
        return float(laplace(self.query_scale, 1, self._rng)[0])

    def _numeric_answer(self, value: float) -> float:
        """value + Laplace(D / eps2), released float-safe on a grid (privacy/noise.py: snapped_laplace).

        The threshold and comparison noises stay continuous: they never leave the kernel (only
        the comparison's one bit does), so Mironov's attack on released floats does not apply.
        """
        self._reservations[1].use(epsilon=self.epsilon_numeric, label=f"{self.label}: answer {self.count}")
        return float(snapped_laplace(value, sensitivity=self.sensitivity, epsilon=self.epsilon_numeric,
                                     rng=self._rng))

    # --------------------------------------------------------------- queries
    @property
    def halted(self) -> bool:
        return self.count >= self.cutoff

    @property
    def remaining(self) -> int:
        """How many more above-threshold answers the cut-off allows."""
        return self.cutoff - self.count

    def _true_value(self, query: object) -> float:
        shifted = query if isinstance(query, ShiftedQuery) else ShiftedQuery(query)
        base = shifted.query
        if getattr(base, "domain", None) != self.domain:
            raise InputError(f"query {getattr(base, 'name', '')!r} is not over the dataset's domain")
        sens = query_sensitivity(base, self.n)
        if sens > self.sensitivity:
            raise InputError(f"query sensitivity {float(sens):.3g} exceeds the {float(self.sensitivity):.3g} "
                             f"this {self.mechanism} was calibrated for")
        return shifted.sign * (self._truth.answer(base) - shifted.offset)

    def _compare(self, query: object) -> tuple[bool, float]:
        if self.halted:
            raise BudgetExhaustedError(
                f"{self.mechanism} has given its {self.cutoff} above-threshold answer(s) (its cut-off) and halted; "
                "it refuses every further query")
        value = self._true_value(query)  # checks the query before any noise is drawn
        self.asked += 1
        above = value + self._query_noise() >= self._noisy_threshold
        return above, value

    def _after_top(self) -> None:
        self.count += 1
        if not self.halted:  # a fresh AboveThreshold run (Alg. 2/3: T_hat_count = T + Lap(sigma))
            self._noisy_threshold = self._draw_threshold()

    def end_run(self) -> None:
        """End the current AboveThreshold run as if its last comparison had been TOP, releasing nothing.

        For a curator who cannot tell whether a comparison's outcome left the process (a crash between
        the comparison and the durable record of its answer): one of the c runs is used up (with
        NumericSparse, its numeric slot too, unreleased) and a fresh threshold is drawn, so the lost
        comparison is paid for whatever it was. Privacy: each run is one AboveThreshold instance
        whatever its length; ending one early is a choice made from public information, so the
        guarantee (Thms 3.23-3.27) and the ledger are unchanged. Raises BudgetExhaustedError when halted.
        """
        if self.halted:
            raise BudgetExhaustedError(f"{self.mechanism} has used its {self.cutoff} run(s); no run is left to end")
        if self.numeric:
            self._reservations[1].use(epsilon=self.epsilon_numeric, label=f"{self.label}: run {self.count + 1} "
                                                                          "ended, nothing released")
        self._after_top()

    # ----------------------------------------------------------------- state
    def state(self) -> dict[str, object]:
        """Everything needed to resume, JSON-ready. SECRET: holds the noisy threshold; never publish it."""
        return {
            "mechanism": self.mechanism, "label": self.label, "threshold": self.threshold, "cutoff": self.cutoff,
            "epsilon": str(self.epsilon), "delta": str(self.delta), "sensitivity": str(self.sensitivity),
            "noisy_threshold": self._noisy_threshold, "count": self.count, "asked": self.asked,
            "charges": [r.charge.label for r in self._reservations],
            "reservations_used": [r.used for r in self._reservations],
        }

    @classmethod
    def restore(cls, dataset: Dataset, state: dict[str, object], *, accountant: PrivacyAccountant,
                rng: RandomSource):
        """Resume from :meth:`state` without charging: the plan's charges must already be in ``accountant``."""
        try:
            if state["mechanism"] != cls.mechanism:
                raise InputError(f"state is for {state['mechanism']!r}, not {cls.mechanism!r}")
            self = cls.__new__(cls)
            self._configure(dataset, threshold=state["threshold"], cutoff=state["cutoff"],
                            epsilon=Fraction(state["epsilon"]), delta=Fraction(state["delta"]), rng=rng,
                            sensitivity=Fraction(state["sensitivity"]), label=state["label"])
            reservations = []
            for (name, eps, _), charged, used in zip(self._blocks(), state["charges"], state["reservations_used"],
                                                     strict=True):
                matches = [c for c in accountant.ledger if c.label == charged]
                if charged != name or len(matches) != 1:
                    raise InputError(f"the ledger does not hold exactly one charge {name!r}")
                reservations.append(Reservation(eps, self.cutoff, matches[0], check_positive_int(used, "used", minimum=0)))
            self._reservations = reservations
            self.count = check_positive_int(state["count"], "count", minimum=0)
            self.asked = check_positive_int(state["asked"], "asked", minimum=0)
            noisy = state["noisy_threshold"]
            if isinstance(noisy, bool) or not isinstance(noisy, (int, float)) or not math.isfinite(noisy):
                raise InputError(f"noisy threshold must be a finite number, got {noisy!r}")
            self._noisy_threshold = float(noisy)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            if isinstance(exc, InputError):
                raise InputError(f"sparse vector state is invalid: {exc}") from None
            raise InputError(f"sparse vector state is invalid: {type(exc).__name__}: {exc}") from None
        if self.count > self.cutoff or reservations[0].used != min(self.count + 1, self.cutoff) or (
                self.numeric and reservations[1].used != self.count):
            raise InputError("sparse vector state is invalid: its counters disagree")
        return self


class AboveThreshold(_SparseVector):
    """Algorithm 1: report whether each query is above a noisy threshold; halt at the first TOP.

    ``ask(query)`` returns True (TOP) or False (BOT); after the first TOP every further
    query raises :class:`~dprelease.errors.BudgetExhaustedError`.

    Privacy:
        (epsilon, 0)-DP for any adaptively chosen stream of queries of sensitivity at most
        ``sensitivity`` (default 1/n: normalized linear queries under the same-size
        one-record-differs unit), however many are asked (Thm 3.23). Noise:
        T_hat = T + Lap(2 D / eps), each query + Lap(4 D / eps). Charged in full when built.
    """

    mechanism = "AboveThreshold"

    def __init__(self, dataset: Dataset, *, threshold: float, epsilon: float | Fraction,
                 accountant: PrivacyAccountant, rng: RandomSource, sensitivity: Fraction | None = None,
                 label: str | None = None) -> None:
        super().__init__(dataset, threshold=threshold, cutoff=1, epsilon=epsilon, delta=0, accountant=accountant,
                         rng=rng, sensitivity=sensitivity, label=label)

    def _step_epsilons(self) -> tuple[Fraction, None]:
        return self.epsilon, None

    def ask(self, query: object) -> bool:
        above, _ = self._compare(query)
        if above:
            self._after_top()
        return above


def step_epsilons(*, epsilon: Fraction, delta: Fraction, cutoff: int,
                  numeric: bool) -> tuple[Fraction, Fraction | None, bool]:
    """(epsilon of each AboveThreshold run, of each numeric answer or None, whether the delta > 0 sizing is used).

    delta = 0 (basic composition, Thms 3.25 / 3.27): runs at eps / c (Sparse) or 8 eps / (9 c) with
    answers at eps / (9 c) (NumericSparse, sigma(eps2) = 2 c D / eps2, eps2 = 2 eps / 9); they cost
    exactly eps. delta > 0: the book's sizing (see the classes) for Thm 3.20 with slack delta (Sparse)
    or delta / 2 per block (NumericSparse). That sizing pays for sqrt(c) composition with a factor
    sqrt(8 ln(1/delta)) (about 13 at delta = 1e-9), so it gives the runs a larger epsilon than eps / c
    only past c of about 8 ln(1/delta) (Sparse) or ln(2/delta) (sqrt(512) + 1)^2 / 81 (NumericSparse):
    c > 150 or so; below, asking for a delta made every answer noisier (a warm session with c = 3 needed
    an accuracy 3.3x coarser with delta = 1e-9 than without). And it assumes a small eps: for a large one
    its blocks cost more than (eps, delta) even by the better of basic and advanced composition. So it is
    used where it fits the budget and its runs' epsilon is larger than the delta = 0 sizing's (Thm 3.28's
    bound, :func:`dprelease.bounds.numeric_sparse_alpha`, is 8 D (ln k + ln(4c / beta)) / (the runs'
    epsilon) under either sizing, so the larger epsilon is the better bound); otherwise the delta = 0
    sizing, which always costs exactly eps, is used and delta goes unspent ((eps, 0)-DP is
    (eps, delta)-DP). Public: depends on (eps, delta, c) only; numeric_sparse_alpha makes the same choice.
    """
    c = cutoff
    if numeric:
        basic = (epsilon * Fraction(8, 9) / c, epsilon / (9 * c))
    else:
        basic = (epsilon / c, None)
    if delta == 0:
        return (*basic, False)
    eps = float(epsilon)
    if numeric:
        root = math.sqrt(32 * c * math.log(2 / float(delta)))  # sigma(e) = root * D / e
        eps1 = _SQRT512 / (_SQRT512 + 1) * eps
        eps2 = 2 / (_SQRT512 + 1) * eps
        advanced = (Fraction(2 * eps1 / root), Fraction(eps2 / root))  # threshold 2 D / eps_run = sigma(eps1)
        slack = float(delta) / 2
    else:
        advanced = (Fraction(eps / math.sqrt(8 * c * math.log(1 / float(delta)))), None)
        slack = float(delta)
    total_eps, total_delta = Fraction(0), Fraction(0)
    for each in advanced:
        if each is not None:
            e, d, _ = block_charge(epsilon_each=each, count=c, delta_slack=slack)
            total_eps, total_delta = total_eps + e, total_delta + d
    if total_eps <= epsilon and total_delta <= delta and advanced[0] > basic[0]:
        return (*advanced, True)
    return (*basic, False)


class Sparse(_SparseVector):
    """Algorithm 2: at most c TOP answers, the threshold refreshed after each.

    Privacy:
        (epsilon, delta)-DP for adaptively chosen queries of sensitivity at most D (Thm 3.25):
        c runs of AboveThreshold at eps' = eps / c (delta = 0, basic composition) or
        eps' = eps / sqrt(8 c ln(1/delta)) (delta > 0, Thm 3.20 with slack delta). So
        sigma = 2 D / eps' = 2 c D / eps resp. sqrt(32 c ln(1/delta)) D / eps, the book's.
        The accountant charges c steps of eps' up front (Thm 3.20 evaluated exactly, or basic
        composition when smaller).
    """

    mechanism = "Sparse"

    def _step_epsilons(self) -> tuple[Fraction, None]:
        run, _, _ = step_epsilons(epsilon=self.epsilon, delta=self.delta, cutoff=self.cutoff, numeric=False)
        return run, None

    def ask(self, query: object) -> bool:
        above, _ = self._compare(query)
        if above:
            self._after_top()
        return above


class NumericSparse(_SparseVector):
    """Algorithm 3: like Sparse, and every TOP answer comes with a fresh noisy value f(x) + Lap(sigma(eps2)).

    ``ask(query)`` returns None (BOT) or the noisy value (TOP).

    Privacy:
        (epsilon, delta)-DP for adaptively chosen queries of sensitivity at most D (Thm 3.27):
        Sparse at eps1 composed with c Laplace answers.

        * delta = 0: eps1 = 8 eps / 9 (c runs at eps1 / c) and the answers' scale
          sigma(eps2) = 2 c D / eps2 = 9 c D / eps, i.e. eps / (9 c) each: eps1 + eps / 9 = eps exactly.
        * delta > 0: eps1 = sqrt(512) eps / (sqrt(512) + 1), eps2 = 2 eps / (sqrt(512) + 1) (the book's
          typo, eps2 printed without eps, corrected), sigma(e) = sqrt(32 c ln(2/delta)) D / e. The c runs
          (eps1 / sqrt(8 c ln(2/delta)) each) and the c answers (eps2 / sqrt(32 c ln(2/delta)) each) are
          two blocks, each composed by Thm 3.20 with slack delta / 2.

        Charged in full when built, before the first query.
    """

    mechanism = "NumericSparse"
    numeric = True

    def _step_epsilons(self) -> tuple[Fraction, Fraction]:
        run, answer, _ = step_epsilons(epsilon=self.epsilon, delta=self.delta, cutoff=self.cutoff, numeric=True)
        return run, answer

    def _blocks(self) -> list[tuple[str, Fraction, float | None]]:
        slack = float(self.delta) / 2 if self.delta > 0 else None
        return [(f"{self.label}: {self.cutoff} AboveThreshold run(s)", self.epsilon_run, slack),
                (f"{self.label}: {self.cutoff} numeric answer(s)", self.epsilon_numeric, slack)]

    def ask(self, query: object) -> float | None:
        above, value = self._compare(query)
        if not above:
            return None
        answer = self._numeric_answer(value)  # fresh noise: never the comparison's nu (see module doc)
        self._after_top()
        return answer


# ------------------------------------------------------------------ persistence helpers
def accountant_state(accountant: PrivacyAccountant) -> dict[str, object]:
    """The budget and every charge, with exact values, JSON-ready."""
    return {"epsilon": str(accountant.epsilon), "delta": str(accountant.delta),
            "charges": [{"label": c.label, "epsilon": str(c.epsilon), "delta": str(c.delta), "rule": c.rule}
                        for c in accountant.ledger]}


def accountant_from_state(state: dict[str, object]) -> PrivacyAccountant:
    """Rebuild a ledger saved by :func:`accountant_state`: the same charges, nothing spent anew or reset."""
    try:
        accountant = PrivacyAccountant(epsilon=Fraction(state["epsilon"]), delta=Fraction(state["delta"]))
        for c in state["charges"]:
            accountant.charge(epsilon=Fraction(c["epsilon"]), delta=Fraction(c["delta"]), label=str(c["label"]),
                              rule=str(c["rule"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise InputError(f"privacy ledger in the state is invalid: {type(exc).__name__}: {exc}") from None
    return accountant


def dataset_fingerprint(dataset: Dataset) -> str:
    """The table's fingerprint (:meth:`dprelease.engines.base.PrivateTable.fingerprint`); private."""
    return dataset.fingerprint()
