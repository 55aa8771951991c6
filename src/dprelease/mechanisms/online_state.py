"""The state file of an online MW session: save atomically, load with every check.

Layout (JSON)::

    {"format": "dprelease-online-mw-state", "version": 1 or 2, "sha256": "<hex>", "body": {...}}

Version 1 holds an explicit histogram; version 2 (written only for a factored hypothesis, so a
histogram session's file is unchanged and older dprelease versions still read it) adds
``model.representation = "factored"``; version 3 is a warm-started session (``plan.mode = "warm"``,
either representation, and the public ``synopsis`` summary). All three load.

``sha256`` is the SHA-256 of the body written canonically (sorted keys, no spaces), so
a truncated or edited file is refused with a clear :class:`~dprelease.errors.InputError`
instead of silently resuming a different session. The body holds

* ``plan``: the public parameters (epsilon, delta, beta, alpha, |Q|, c, T, n, |X|);
* ``ledger``: the budget and every charge, as exact fractions;
* ``sparse_vector``: NumericSparse's counters and its **noisy threshold (secret)**;
* ``model``: the public hypothesis x^t: for a histogram, its float64 log-probabilities
  (little-endian, base64); for a factored model, ``max_model_cells`` and each potential as its
  clique (attribute names, domain order) and its float64 values (little-endian, base64, C order);
* ``queries_seen``, ``from_hypothesis``;
* ``rng``: ``{"kind": "secure"}`` or, for a seeded session, the PCG64 generator's exact state;
* ``data_sha256``: a fingerprint of the table, so a session resumes only on the data it started on.

The file is therefore the curator's **private** file, like the data itself: the noisy
threshold, the fingerprint and a seeded generator's state must never be published.

Loading never charges or resets the budget: the ledger is rebuilt from the charges
recorded at the start of the session (the whole plan), and the session continues with
the rest of that plan. A session must also never be resumed from an *older* copy of its
file: replaying the sparse vector from an earlier state would answer the same stream
twice with fresh noise. The CLI saves the state before it writes each answer, so a crash
may lose an answer but never replays one.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import numbers
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path

import numpy as np

from dprelease import __version__
from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.errors import DPReleaseError, InputError, InputTypeError, SeededRunWarning, warn_user
from dprelease.files import write_atomic
from dprelease.mechanisms.online_plan import (
    SPARSE_LABEL,
    WARM_CHARGE_LABEL,
    WARM_CHARGE_RULE,
    OnlineMWPlan,
    WarmPlan,
    plan_from_json,
    rederive_plan,
    sparse_budget,
)
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import RandomSource, SecureRandom, SeededRandom
from dprelease.privacy.sparse_vector import (
    NumericSparse,
    accountant_from_state,
    accountant_state,
    dataset_fingerprint,
)
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel

FORMAT = "dprelease-online-mw-state"
VERSION = 1  # an explicit histogram
FACTORED_VERSION = 2  # a factored model (``model.representation``)
WARM_VERSION = 3  # a warm-started session (``plan.mode = "warm"``), either representation
VERSIONS = (VERSION, FACTORED_VERSION, WARM_VERSION)


def canonical(body: dict[str, object]) -> str:
    """The body as hashed: sorted keys, no spaces (floats and big ints round-trip exactly)."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)


def session_body(session, *, with_model: bool = True) -> dict[str, object]:
    """The whole state of ``session`` (an OnlinePrivateMW) as JSON-ready data: PRIVATE (see the module doc).

    ``with_model=False`` leaves out the hypothesis (it changes only at an update), for a store that keeps
    it apart (:mod:`dprelease.service.sessions`); :func:`encode_model` encodes it.
    """
    if session._fingerprint is None:
        session._fingerprint = dataset_fingerprint(session._dataset)
    body = {
        "dprelease_version": __version__,
        "plan": session.plan.to_json(),
        "domain": session._dataset.domain.to_dict(),
        "data_sha256": session._fingerprint,
        "ledger": accountant_state(session.accountant),
        "sparse_vector": session._sparse.state(),
        "queries_seen": session.queries_seen,
        "from_hypothesis": session.from_hypothesis,
        "rng": rng_state(session._rng),
    }
    if session.mode == "warm":
        body["synopsis"] = session.synopsis
    if with_model:
        if session._encoded is None or session._encoded[0] is not session.model:
            session._encoded = (session.model, encode_model(session.model))
        body["model"] = session._encoded[1]
    return body


#: The parts of a session's state that change as it answers (the hypothesis aside): see :func:`session_dynamic`.
DYNAMIC_KEYS = ("sparse_vector", "queries_seen", "from_hypothesis")


def session_dynamic(session) -> dict[str, object]:
    """The parts of :func:`session_body` that change with each answer (PRIVATE: the noisy threshold)."""
    return {"sparse_vector": session._sparse.state(), "queries_seen": session.queries_seen,
            "from_hypothesis": session.from_hypothesis}


def format_version(body: dict[str, object]) -> int:
    """The file version a body is written with: 1 (book, histogram), 2 (book, factored), 3 (warm)."""
    if isinstance(body.get("plan"), dict) and body["plan"].get("mode") == "warm":
        return WARM_VERSION
    return FACTORED_VERSION if model_representation(body) == "factored" else VERSION


def save_session(session, path: Path) -> None:
    """Write ``session`` (an OnlinePrivateMW) to ``path``: temporary file, fsync, rename."""
    body = session_body(session)
    text = canonical(body)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    try:
        version = format_version(body)
        write_atomic(path, f'{{"format":"{FORMAT}","version":{version},"sha256":"{digest}","body":{text}}}\n')
    except OSError as exc:
        raise InputError(f"state file {str(path)!r} cannot be written: {exc.strerror or exc}") from None


def load_session(cls, path: Path, dataset: Dataset, *, max_cells: int = DEFAULT_MAX_CELLS,
                 expected: Mapping[str, object] | None = None):
    """Read, verify and rebuild a session saved by :func:`save_session` (see the module doc); ``expected``: the
    parameters it must have kept (:func:`check_resumed`), checked before the data is read."""
    where = f"state file {str(path)!r}"
    body = read_body(path)
    check_resumed(body, expected or {}, where=where)
    return session_from_body(cls, body, dataset, max_cells=max_cells, where=where)


def session_from_body(cls, body: dict[str, object], dataset: Dataset, *, max_cells: int = DEFAULT_MAX_CELLS,
                      where: str = "session state"):
    """Rebuild a session from :func:`session_body`'s data with every check; nothing is charged or reset."""
    try:
        factored = model_representation(body) == "factored"
        plan = plan_from_json(body["plan"])
        if body["domain"] != dataset.domain.to_dict() or plan.n != dataset.n or \
                plan.universe_size != dataset.domain.size:
            raise InputError(f"{where} was made for another domain or table size "
                             f"(n={plan.n}, domain {body['domain']})")
        if not factored:
            dataset.domain.check_fits(max_cells)
        if body["data_sha256"] != dataset_fingerprint(dataset):
            raise InputError(f"{where} was made on another table (its data fingerprint differs); "
                             "a session resumes only on the data it started on")
        check_plan(plan, body["plan"])
        accountant = accountant_from_state(body["ledger"])
        if accountant.epsilon != exact(plan.epsilon) or accountant.delta != exact(plan.delta):
            raise InputError(f"{where}: the ledger's budget disagrees with the plan")
        rng = rng_from_state(body["rng"])
        sparse = NumericSparse.restore(dataset, body["sparse_vector"], accountant=accountant, rng=rng)
        check_sparse_and_ledger(plan, sparse, body["ledger"])
        if plan.mode == "warm":
            check_synopsis(plan, body["synopsis"])
        model = _decode_factored(body["model"], dataset) if factored else _decode_model(body["model"], dataset,
                                                                                        max_cells)
        seen, hyp = body["queries_seen"], body["from_hypothesis"]
        check_counters(plan, sparse, seen, hyp)
    except DPReleaseError as exc:
        message = str(exc)
        raise InputError(message if message.startswith(where) else f"{where}: {message}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{where} is invalid: {type(exc).__name__}: {exc}") from None
    session = cls.__new__(cls)
    session._start(dataset, plan, accountant, sparse, rng, model, queries_seen=seen, from_hypothesis=hyp,
                   synopsis=body.get("synopsis") if plan.mode == "warm" else None)
    return session


#: The parameters a caller may expect a resumed session to have kept (the keywords of OnlinePrivateMW), and
#: which of them are numbers.
RESUMED = ("mode", "representation", "warm_workload", "epsilon", "delta", "beta", "alpha", "accuracy", "warm_share",
           "max_queries", "seed")
_NUMBERS = ("epsilon", "delta", "beta", "alpha", "accuracy", "warm_share", "max_queries")


def check_resumed(body: dict[str, object], expected: Mapping[str, object], *, where: str,
                  spell: Callable[[str], str] = str) -> str:
    """A session keeps its parameters: each one given in ``expected`` (None, or representation ``"auto"``: any)
    must equal the saved one exactly, else :class:`InputError` naming it as ``spell(name)`` (the CLI: its flag).

    Reads only the verified body's public plan, representation and randomness, so it can run before the data
    is read. Returns the saved representation.
    """
    unknown = sorted(set(expected) - set(RESUMED))
    if unknown:
        raise TypeError(f"unexpected parameter(s) {unknown}; a resumed session is checked on {list(RESUMED)}")
    try:
        plan = plan_from_json(body["plan"])
        rng = body["rng"]
        representation = model_representation(body)
    except (KeyError, TypeError, AttributeError, DPReleaseError):
        raise InputError(f"{where} is invalid: it lacks its plan") from None
    seed = rng.get("seed") if isinstance(rng, dict) and rng.get("kind") == "seeded" else None
    saved = {"mode": plan.mode, "representation": representation, "seed": seed,
             **{name: getattr(plan, name, None) for name in _NUMBERS + ("warm_workload",)}}
    for name in RESUMED:
        value = expected.get(name)
        if value is None or (name == "representation" and value == "auto"):
            continue
        if name in _NUMBERS and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise InputTypeError(f"{spell(name)} must be a number, got {value!r}")
        if value == saved[name]:
            continue
        if name == "seed":
            was = f"randomness ({'secure' if seed is None else f'seed {seed}'})"
        elif saved[name] is None:
            was = f"{plan.mode}-mode plan, which has no {name}"
        else:
            was = _shown(saved[name])
        raise InputError(f"{spell(name)} {_shown(value)} differs from the resumed session's {was} ({where}); "
                         "a session keeps its parameters")
    return representation


def _shown(value: object) -> str:
    """A number as short as it reads back exactly (2, 0.5, 1e-06), anything else as text."""
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return str(value)


# ------------------------------------------------------------ consistency (what a checksum cannot give)
# The checksum catches accidental damage only: anyone who edits the body can recompute it. These checks
# refuse a body whose parts disagree, above all one that claims less spend than its own plan and counts
# imply. A forger who rewrites every part consistently (a plan re-derived from other parameters, its
# ledger and counters) is caught only where the caller's parameters differ (the CLI compares them); a
# keyed MAC would need a secret kept apart from the file (docs/online.md).

def check_plan(plan: OnlineMWPlan | WarmPlan, record: dict[str, object]) -> None:
    """The stored plan must be exactly what its public inputs derive: c, T, alpha and |Q| are not free."""
    derived = rederive_plan(plan).to_json()
    differs = sorted(k for k in set(record) | set(derived) if record.get(k) != derived.get(k))
    if differs:
        cutoff = f" (stored cut-off {record.get('cutoff')}, derived {derived.get('cutoff')})" if "cutoff" in differs \
            else ""
        raise InputError(f"the plan is not the one its parameters derive (epsilon={plan.epsilon:g}, "
                         f"delta={plan.delta:g}, n={plan.n}): {', '.join(differs)} "
                         f"{'differs' if len(differs) == 1 else 'differ'}{cutoff}")


def expected_ledger(plan: OnlineMWPlan | WarmPlan, sparse: NumericSparse) -> dict[str, object]:
    """The ledger a session with this plan records when it starts (the synopsis's share, NumericSparse's plan)."""
    accountant = PrivacyAccountant(epsilon=plan.epsilon, delta=plan.delta)
    if plan.mode == "warm":
        accountant.charge(epsilon=plan.epsilon_offline, delta=plan.delta_offline, label=WARM_CHARGE_LABEL,
                          rule=WARM_CHARGE_RULE)
    for name, eps, slack in sparse._blocks():  # c runs and c answers, charged in full (Thm 3.27)
        accountant.reserve(epsilon_each=eps, count=sparse.cutoff, label=name, delta_slack=slack)
    return accountant_state(accountant)


def check_sparse_and_ledger(plan: OnlineMWPlan | WarmPlan, sparse: NumericSparse, ledger: dict[str, object]) -> None:
    """NumericSparse runs exactly the plan, and the ledger holds exactly the plan's charges, never less."""
    epsilon, delta = sparse_budget(plan)
    if (sparse.cutoff, sparse.threshold, sparse.epsilon, sparse.delta, sparse.sensitivity, sparse.label) != \
            (plan.cutoff, plan.threshold, epsilon, delta, Fraction(1, plan.n), SPARSE_LABEL):
        raise InputError(f"the sparse vector disagrees with the plan (cut-off {sparse.cutoff} vs {plan.cutoff}, "
                         f"epsilon {sparse.epsilon} vs {epsilon}, delta {sparse.delta} vs {delta})")
    if ledger != expected_ledger(plan, sparse):
        raise InputError("the privacy ledger is not the one its plan charges (every charge is recorded in full "
                         "when the session starts; a state claiming less spend is refused)")


def check_synopsis(plan: WarmPlan, synopsis: object) -> None:
    """Warm mode: the public synopsis summary was bought with exactly the plan's offline share."""
    if not isinstance(synopsis, dict) or synopsis.get("epsilon") != str(plan.epsilon_offline) or \
            synopsis.get("delta") != str(plan.delta_offline) or \
            not 0 <= Fraction(synopsis["epsilon_spent"]) <= plan.epsilon_offline or \
            not isinstance(synopsis.get("measured_marginals"), list):
        raise InputError("the synopsis summary disagrees with the plan's offline share")


def check_counters(plan: OnlineMWPlan | WarmPlan, sparse: NumericSparse, seen: object, hyp: object) -> None:
    """The counters must agree with each other (see :meth:`OnlinePrivateMW.ask` and ``forfeit``).

    * queries seen = answered from the hypothesis + updates (a measurement or a forfeit ends one run each);
    * each hypothesis answer asked NumericSparse exactly 2 questions, each update at most 2 (a forfeit 0), so
      2 * from_hypothesis <= asked <= 2 * queries seen;
    * at most |Q| queries; the reservations' use follows from the updates (checked by ``restore``).
    """
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (seen, hyp)) or \
            seen != hyp + sparse.count or seen > plan.max_queries or not 2 * hyp <= sparse.asked <= 2 * seen:
        raise InputError(f"its counters disagree (queries seen {seen!r}, from the hypothesis {hyp!r}, "
                         f"updates {sparse.count}, sparse-vector questions asked {sparse.asked})")


def read_body(path: Path) -> dict[str, object]:
    """The verified body of a state file: format, version and checksum checked."""
    where = f"state file {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{where} is damaged: it is not UTF-8 text") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where} is damaged or truncated: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InputError(f"{where} is not a dprelease online MW state file")
    version = record.get("version")
    if version not in VERSIONS or isinstance(version, bool):
        raise InputError(f"{where} has format version {version!r}; this dprelease reads versions "
                         f"{', '.join(map(str, VERSIONS))}")
    body = record.get("body")
    if not isinstance(body, dict) or not isinstance(record.get("sha256"), str):
        raise InputError(f"{where} is damaged: it lacks its body or checksum")
    try:
        digest = hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()
    except ValueError:
        digest = None
    if digest != record["sha256"]:
        raise InputError(f"{where} is damaged: its checksum does not match its contents; refusing to resume "
                         "(starting afresh would spend the budget again)")
    model = body.get("model")
    stored = model.get("representation", "histogram") if isinstance(model, dict) else None
    plan = body.get("plan")
    warm = isinstance(plan, dict) and plan.get("mode") == "warm"
    if warm != (version == WARM_VERSION):
        raise InputError(f"{where} is invalid: format version {version} does not hold a "
                         f"{'warm' if warm else 'book'}-mode session")
    if version != WARM_VERSION and stored != ("factored" if version == FACTORED_VERSION else "histogram"):
        raise InputError(f"{where} is invalid: format version {version} does not hold a model of representation "
                         f"{stored!r}")
    return body


def model_representation(body: dict[str, object]) -> str:
    """``"histogram"`` or ``"factored"``: what a verified body's hypothesis is (version 1 files: histogram)."""
    return body["model"].get("representation", "histogram")


def encode_model(model: HistogramModel | FactoredModel) -> dict[str, object]:
    """The hypothesis as JSON: float64 arrays little-endian, base64, C order."""
    if isinstance(model, HistogramModel):
        data = np.ascontiguousarray(model.log_probs, dtype="<f8").tobytes()
        return {"encoding": "base64 float64 little-endian log-probabilities, C order",
                "shape": list(model.log_probs.shape), "log_probs": base64.b64encode(data).decode("ascii")}
    return {"representation": "factored", "max_model_cells": model.max_model_cells,
            "encoding": "base64 float64 little-endian potentials, C order, axes in the clique's order",
            "potentials": [{"clique": list(clique), "theta": _b64(theta)}
                           for clique, theta in model.potentials.items()]}


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype="<f8").tobytes()).decode("ascii")


def rng_state(rng: RandomSource) -> dict[str, object]:
    if isinstance(rng, SeededRandom):
        return {"kind": "seeded", **rng.state()}
    if isinstance(rng, SecureRandom):
        return {"kind": "secure"}
    raise InputError(f"cannot save a session whose random source is {type(rng).__name__}; "
                     "use SecureRandom (the default) or a seed")


def rng_from_state(state: object) -> RandomSource:
    kind = state.get("kind") if isinstance(state, dict) else None
    if kind == "secure":
        return SecureRandom()  # a secure session resumes with fresh secure randomness
    if kind == "seeded":
        rng = SeededRandom.from_state({k: v for k, v in state.items() if k != "kind"})
        warn_user(f"resuming a seeded session (seed={rng.seed}): its noise is predictable, "
                  "it is not fit for a real release", SeededRunWarning)
        return rng
    raise InputError(f"the random source in the state is invalid: {state!r:.100}")


def _decode_model(record: dict[str, object], dataset: Dataset, max_cells: int) -> HistogramModel:
    shape = tuple(record["shape"])
    if shape != dataset.domain.shape:
        raise InputError(f"model shape {list(shape)} does not match the domain {list(dataset.domain.shape)}")
    raw = base64.b64decode(record["log_probs"].encode("ascii"), validate=True)
    if len(raw) != 8 * math.prod(shape):
        raise InputError(f"model holds {len(raw) // 8} values, the domain has {math.prod(shape)} cells")
    log_probs = np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(shape)
    if not np.all(np.isfinite(log_probs)) or abs(float(np.logaddexp.reduce(log_probs.reshape(-1)))) > 1e-6:
        raise InputError("model is not a probability distribution (log-probabilities must be finite and sum to 1)")
    dataset.domain.check_fits(max_cells)
    return HistogramModel(dataset.domain, log_probs)


def _decode_factored(record: dict[str, object], dataset: Dataset) -> FactoredModel:
    """A factored hypothesis; the constructor re-checks the cliques, the shapes and the model-size cap."""
    domain = dataset.domain
    cap = record["max_model_cells"]
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        raise InputError(f"model's max_model_cells must be an integer >= 1, got {cap!r}")
    potentials = {}
    for entry in record["potentials"]:
        clique = tuple(entry["clique"])
        if not all(isinstance(a, str) for a in clique) or domain.canonical(clique) != clique or clique in potentials:
            raise InputError(f"model potential on {list(clique)} is not a new clique of the domain in domain order")
        shape = tuple(domain.size_of(a) for a in clique)
        raw = base64.b64decode(entry["theta"].encode("ascii"), validate=True)
        if len(raw) != 8 * math.prod(shape):
            raise InputError(f"model potential on {list(clique)} holds {len(raw) // 8} values, its clique has "
                             f"{math.prod(shape)} cells")
        theta = np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(shape)
        if not np.all(np.isfinite(theta)):
            raise InputError(f"model potential on {list(clique)} holds a non-finite value")
        potentials[clique] = theta
    return FactoredModel(domain, potentials, cap)
