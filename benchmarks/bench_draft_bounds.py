#!/usr/bin/env python
"""How faithfully a privately drafted schema decodes number columns: generated columns, drafted, encoded, decoded.

    .venv/bin/python benchmarks/bench_draft_bounds.py [--rows 500,2000,20000,100000] [--eps 0.5,1,5] [--seeds 3]
        [--tables mixed,years,dates,counts,staff,activity,codes,zeros,sentinels,modes]
        [--out benchmarks/results/draft_bounds]

Ten tables of eight generated columns (seven in `sentinels`, six in `modes`), written as text: `mixed` (birth years
1940-2005, years 2019-2021, latitudes 41.65-42.05, normal scores (650, 50) and temperatures (21.5, 1.5), ages 18-90, log-normal
amounts, gamma hours), `years` (session 61: normal birth years around 1975 in 1930-2005, policy years 2019-2023, integers
1000-1999, normal prices (250, 30), normal ages around 45, BMI, longitudes, log-normal incomes), `dates`
(session 63: hire dates over 2005-2025, sign-ups, normal birth dates, visits written 03/31/2022, date-times over
2023, archive dates 1890-1960, the last 90 days of 2025, founding years skewed recent; dates are compared as days),
`counts` (session 70: whole numbers that run through 1900-2099 on their way elsewhere, durations in seconds,
rents, birth weights in grams, daily steps, amounts in cents, integers 500-4,999, beside years built and birth
years with 10 % written 0) and `staff` (session 77: births, hire years thinning toward 2024, leaving years blank for
those still employed, retirement years and loan maturities in the future, tenures, hours, salaries) and `activity`
(session 78: last visits mostly in the last weeks of 2024, sign-ups growing 30 % a year, last orders as date-times,
renewals, birth dates, visits, plans, spend) and `codes` (session 79: US ZIP codes and German postcodes, 8-9 % of
them written with a leading zero, seven 3-digit postcodes, store numbers, phone extensions all written 0xxx, ages,
visits, amounts) and `zeros`
(session 81: amounts that are mostly 0, see :func:`zeros_table`) and `sentinels` (session 81: values written for
"missing" beyond the data, see :func:`sentinels_table`) and `modes` (session 81: a value held by many rows inside a
spread, see :func:`modes_table`); each is
drafted by ``draft_schema`` (epsilon, delta 1e-9, seeded), encoded by the draft and decoded with values drawn
evenly inside each bin: the model is perfect, so what is measured is the schema's bounds and bins alone. Per
column: the 1-D Wasserstein distance of the decoded values to the real ones, in the real column's standard
deviations, the share of real rows outside the drafted bounds (clipped), and how far the bounds reach past the real
values' range, as a share of it (spare: a perfect model leaves those bins empty, a noisy one decodes rows there). A
column whose bounds the draft left undecided, that it drafted as text, or whose blanks or decimals it did not see (the
table would not encode) has no figure (its cell says so). Medians (distance) and maxima (clipped share, spare span)
over the seeds.

Outputs: OUT/draft_bounds.json (every run, the machine, the commit) and OUT/draft_bounds.md (tables).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

COLUMNS = ("birth_year", "year", "lat", "score", "temp_c", "age", "amount", "hours")
YEARS_COLUMNS = ("birth_n", "policy_year", "fill", "price", "age_n", "bmi", "lon", "income")


def table(seed: int, n: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame({"birth_year": rng.integers(1940, 2006, n), "year": rng.integers(2019, 2022, n),
                         "lat": (41.65 + rng.random(n) * 0.4).round(6),
                         "score": rng.normal(650, 50, n).round().astype(int), "temp_c": rng.normal(21.5, 1.5, n).round(1),
                         "age": rng.integers(18, 91, n), "amount": rng.lognormal(4, 1.5, n).round(2),
                         "hours": rng.gamma(2, 3, n).round(1)}).astype(str)


def years_table(seed: int, n: int):
    """Years as an insurer's table has them (session 61), beside columns of other shapes."""
    import pandas as pd

    rng = np.random.default_rng(seed + 100)
    return pd.DataFrame({"birth_n": np.clip(np.round(rng.normal(1975, 14, n)), 1930, 2005).astype(int),
                         "policy_year": rng.integers(2019, 2024, n), "fill": rng.integers(1000, 2000, n),
                         "price": rng.normal(250, 30, n).round(2),
                         "age_n": np.clip(rng.normal(45, 12, n), 18, 95).round().astype(int),
                         "bmi": rng.normal(27, 4, n).round(1), "lon": (-87.9 + rng.random(n) * 0.4).round(6),
                         "income": rng.lognormal(10.5, 0.6, n).round(0).astype(int)}).astype(str)


DATES_COLUMNS = ("hired", "signup", "birth_date", "visit_mdy", "event_ts", "archived", "recent", "founded")


def dates_table(seed: int, n: int):
    """Dates as the text a table writes them (session 63): hire dates spread evenly over 2005-2025 (a new user's HR
    roster drafted 2007..2075), sign-ups over 2022-2024, normal birth dates around 1975, visits written 03/31/2022,
    date-times over 2023, archive dates 1890-1960, the last 90 days of 2025, and founding years skewed recent."""
    import pandas as pd

    rng = np.random.default_rng(seed + 200)
    day = lambda start, days: np.datetime64(start, "D") + rng.integers(0, days, n)  # noqa: E731
    iso = lambda d: np.datetime_as_string(d, unit="D")  # noqa: E731
    births = np.datetime64("1975-07-01", "D") + np.clip(rng.normal(0, 14 * 365.25, n), -45 * 365, 30 * 365).astype(int)
    visits = pd.to_datetime(day("2018-01-01", 7 * 365)).strftime("%m/%d/%Y")
    seconds = np.datetime64("2023-01-01T00:00:00", "s") + rng.integers(0, 365 * 86400, n)
    return pd.DataFrame({"hired": iso(day("2005-01-01", 21 * 365)), "signup": iso(day("2022-03-01", 1000)),
                         "birth_date": iso(births), "visit_mdy": visits,
                         "event_ts": np.datetime_as_string(seconds, unit="s"),
                         "archived": iso(day("1890-01-01", 70 * 365)), "recent": iso(day("2025-10-03", 90)),
                         "founded": np.clip(2025 - np.round(rng.exponential(25, n)), 1850, 2025).astype(int)}
                        ).astype(str)


COUNTS_COLUMNS = ("duration_s", "rent", "weight_g", "steps", "cents", "built", "birth_0", "fill_wide")


def counts_table(seed: int, n: int):
    """Whole numbers that run through 1900-2099 on their way elsewhere (session 70: a new user's ride durations in
    seconds were clipped at 1899), beside year columns: log-normal durations (median 900 s), rents 800-3,500 dollars,
    birth weights in grams (3,300, 500), daily steps (8,000, 3,000), log-normal amounts in cents, years built
    1900-2023, birth years around 1975 with 10 % written 0 for unknown, and integers 500-4,999."""
    import pandas as pd

    rng = np.random.default_rng(seed + 300)
    return pd.DataFrame({"duration_s": np.round(rng.lognormal(6.8, 0.7, n)).astype(int),
                         "rent": rng.integers(800, 3501, n),
                         "weight_g": np.clip(np.round(rng.normal(3300, 500, n)), 500, 6000).astype(int),
                         "steps": np.clip(np.round(rng.normal(8000, 3000, n)), 0, 40000).astype(int),
                         "cents": np.round(rng.lognormal(7.5, 1.2, n)).astype(int),
                         "built": np.clip(2023 - np.round(rng.exponential(40, n)), 1900, 2023).astype(int),
                         "birth_0": np.where(rng.random(n) < 0.1, 0,
                                             np.clip(np.round(rng.normal(1975, 14, n)), 1930, 2005)).astype(int),
                         "fill_wide": rng.integers(500, 5000, n)}).astype(str)


STAFF_COLUMNS = ("born", "hired", "left", "retires", "matures", "tenure", "hours", "salary")


def staff_table(seed: int, n: int):
    """Years as a personnel file has them (session 77: a new user's hire years 1988-2024 drafted up to 2054 at a small
    budget): births around 1972, hires from 1988 thinning toward 2024, leaving years blank for those still employed,
    retirement years (births + 65: real years in the future), loan maturities 2025-2055, tenures, weekly hours and
    log-normal salaries."""
    import pandas as pd

    rng = np.random.default_rng(seed + 400)
    born = np.clip(np.round(rng.normal(1972, 12, n)), 1930, 2006).astype(int)
    hired = 1988 + np.floor(37 * rng.random(n) ** 1.2).astype(int)
    stay = np.floor(rng.exponential(9, n)).astype(int)
    left = hired + stay
    still = left > 2024
    return pd.DataFrame({"born": born, "hired": hired, "left": np.where(still, "", left.astype(str)),
                         "retires": born + 65, "matures": rng.integers(2025, 2056, n),
                         "tenure": np.where(still, 2024 - hired, stay),
                         "hours": np.clip(np.round(rng.normal(38, 6, n)), 5, 70).astype(int),
                         "salary": np.round(rng.lognormal(10.8, 0.4, n), -2).astype(int)}).astype(str)


ACTIVITY_COLUMNS = ("last_seen", "signed_up", "last_order", "renews", "born_on", "visits", "plan", "spend")


def activity_table(seed: int, n: int):
    """Dates as a member register has them (session 78: a new user's last check-ins, two thirds of them in the last 20
    days of a nine-year span, were binned by quarter): last visits mostly in the last weeks of 2024, sign-ups growing
    30 % a year over 2015-2024, last orders as date-times (half in December 2024), renewals in the next year,
    birth dates around 1985 (spread: the control), visits, plans and log-normal spend."""
    import pandas as pd

    rng = np.random.default_rng(seed + 500)
    end = np.datetime64("2024-12-31", "D")
    recent = rng.random(n) < 0.65
    last_seen = np.where(recent, end - rng.integers(0, 20, n), end - rng.integers(20, 9 * 365, n))
    years = np.floor(np.log1p(rng.random(n) * (1.3 ** 10 - 1)) / np.log(1.3)).astype(int)  # 30 % more each year
    signed_up = np.datetime64("2015-01-01", "D") + years * 365 + rng.integers(0, 365, n)
    ordered = np.where(rng.random(n) < 0.5, np.datetime64("2024-12-01T00:00:00", "s") + rng.integers(0, 31 * 86400, n),
                       np.datetime64("2020-01-01T00:00:00", "s") + rng.integers(0, 5 * 365 * 86400, n))
    born = np.datetime64("1985-06-01", "D") + np.clip(rng.normal(0, 12 * 365, n), -40 * 365, 20 * 365).astype(int)
    return pd.DataFrame({"last_seen": np.datetime_as_string(last_seen), "signed_up": np.datetime_as_string(signed_up),
                         "last_order": np.datetime_as_string(ordered, unit="s"),
                         "renews": np.datetime_as_string(end + 1 + rng.integers(0, 365, n)),
                         "born_on": np.datetime_as_string(born), "visits": rng.poisson(12, n),
                         "plan": rng.choice(["basic", "plus", "premium"], n),
                         "spend": np.round(rng.lognormal(4, 1, n), 2)}).astype(str)


CODES_COLUMNS = ("zip", "plz", "zip3", "store", "extension", "age", "visits", "amount")


def codes_table(seed: int, n: int):
    """Codes written to a fixed width beside plain numbers (session 79: a postcode column, 9 % of whose codes start
    with 0, was drafted as integers that clipped those codes and wrote every value without its zeros): US ZIP codes
    (8 % in 01001-09999, 3,000 codes), German postcodes (9 % in 01067-09999, 400 codes), seven 3-digit postcodes (a
    quarter 021 or 007), store numbers 1-250 (plain: the control), 4-digit phone extensions all written with a
    leading zero (codes alone: text), ages, visits and amounts."""
    import pandas as pd

    rng = np.random.default_rng(seed + 600)
    east = rng.random(n) < 0.08
    zips = np.where(east, rng.choice(rng.integers(1001, 10_000, 300), n),
                    rng.choice(rng.integers(10_000, 99_951, 2_700), n))
    region = rng.choice(10, n, p=[0.09, 0.12, 0.11, 0.10, 0.12, 0.11, 0.10, 0.09, 0.08, 0.08])
    plz = np.stack([rng.integers(1067 if r == 0 else r * 10_000, (r + 1) * 10_000, 40) for r in range(10)])
    return pd.DataFrame({"zip": [f"{z:05d}" for z in zips],
                         "plz": [f"{p:05d}" for p in plz[region, rng.integers(0, 40, n)]],
                         "zip3": rng.choice(["021", "100", "606", "941", "007", "331", "770"], n,
                                            p=[.2, .2, .15, .15, .05, .15, .1]),
                         "store": rng.integers(1, 251, n).astype(str),
                         "extension": [f"{e:04d}" for e in rng.integers(100, 1000, n)],
                         "age": np.clip(rng.normal(45, 15, n), 18, 90).round().astype(int).astype(str),
                         "visits": rng.poisson(6, n).astype(str),
                         "amount": np.round(rng.lognormal(4, 1, n), 2).astype(str)})


ZEROS_COLUMNS = ("gain", "loss", "fee", "rain_mm", "overtime", "tip", "refund", "lat0")


def zeros_table(seed: int, n: int):
    """Amounts that are mostly 0 (session 81: a library's late fees, $0.00 on 81 % of rows and $0.25-$9.75 on the
    rest, and Adult's capital gains, 92 % 0 and the rest 114-99,999, were drafted as the one value 0 on most seeds,
    the walk from 0's cell stopping at the empty cells next to it): capital gains (92 % 0, the rest log-normal
    around 5,000, a top code 99,999 on 6 % of them), capital losses (95 % 0, the rest 1,000-2,999), late fees in
    quarters ($0.25-$9.75 on 19 %), rainfall in mm (60 % 0, the rest gamma), overtime hours (70 % 0, the rest 1-20),
    tips (30 % 0, the rest 1-30 dollars), refunds written negative (85 % 0, the rest -5 to -500) and latitudes with 0
    for missing on 8 % (the rest 40.5-40.9: 0 apart, the control)."""
    import pandas as pd

    rng = np.random.default_rng(seed + 700)

    def some(share: float, values: np.ndarray) -> np.ndarray:
        return np.where(rng.random(n) < share, values, 0)

    gains = np.where(rng.random(n) < 0.06, 99_999, np.clip(np.round(rng.lognormal(8.5, 0.8, n)), 114, 99_998))
    return pd.DataFrame({"gain": some(0.08, gains).astype(int),
                         "loss": some(0.05, rng.integers(1_000, 3_000, n)),
                         "fee": [f"{v:.2f}" for v in some(0.19, rng.integers(1, 40, n) * 0.25)],
                         "rain_mm": some(0.4, np.round(rng.gamma(0.8, 6, n), 1) + 0.1).round(1),
                         "overtime": some(0.3, rng.integers(1, 21, n)),
                         "tip": some(0.7, rng.integers(1, 31, n)),
                         "refund": some(0.15, -np.round(rng.lognormal(3.5, 1, n).clip(5, 500), 2)).round(2),
                         "lat0": some(0.92, np.round(40.5 + 0.4 * rng.random(n), 6))}).astype(str)


SENTINELS_COLUMNS = ("hours", "income", "age", "lat", "score", "kids", "weight")


def sentinels_table(seed: int, n: int):
    """Values written for "missing" beyond the data, as surveys write them (session 81: a quantile edge, or an equal
    bin, fell in the empty gap between them and the data, and both were decoded evenly over it): weekly hours 1-80
    with 999 on 5 %, incomes with 9,999,999 on 3 %, ages 18-89 with 0 on 4 %, latitudes 40.5-40.9 with 0.0 on 8 %,
    a 1-5 score with -1 on 6 %, children 0-6 with 99 on 2 %, and weights 45-120 kg with -9 on 3 %."""
    import pandas as pd

    rng = np.random.default_rng(seed + 800)

    def written(share: float, sentinel: float, values: np.ndarray) -> np.ndarray:
        return np.where(rng.random(n) < share, sentinel, values)

    return pd.DataFrame({"hours": written(0.05, 999, np.clip(np.round(rng.normal(40, 10, n)), 1, 80)).astype(int),
                         "income": written(0.03, 9_999_999, np.round(rng.lognormal(10.5, 0.7, n))).astype(int),
                         "age": written(0.04, 0, rng.integers(18, 90, n)),
                         "lat": [f"{v:.4f}" for v in written(0.08, 0.0, 40.5 + 0.4 * rng.random(n))],
                         "score": written(0.06, -1, rng.integers(1, 6, n)),
                         "kids": written(0.02, 99, rng.poisson(1.2, n).clip(0, 6)),
                         "weight": [f"{v:.1f}" for v in written(0.03, -9, np.clip(rng.normal(78, 15, n), 45, 120))],
                         "plan": rng.choice(["basic", "plus", "premium"], n)}).astype(str)


MODES_COLUMNS = ("hours", "price", "quantity", "minutes", "visits", "score")


def modes_table(seed: int, n: int):
    """A value held by many rows inside a spread (session 81: Adult's weekly hours, 40 on 47 % of the rows, fell
    inside an equal bin [38, 44) and were decoded evenly over 38..43): weekly hours (40 on 47 %), prices ($9.99 on
    30 %, the rest $0.99-$99.99), quantities (2 on 35 %, the rest 1-40), call minutes (15 on 25 %, the rest
    gamma), and two smooth modes for control, Poisson visits (mean 12) and normal scores."""
    import pandas as pd

    rng = np.random.default_rng(seed + 900)

    def mode(share: float, value: float, rest: np.ndarray) -> np.ndarray:
        return np.where(rng.random(n) < share, value, rest)

    return pd.DataFrame({"hours": mode(0.47, 40, np.clip(np.round(rng.normal(40, 12, n)), 1, 99)).astype(int),
                         "price": [f"{v:.2f}" for v in mode(0.3, 9.99, np.round(rng.uniform(0.99, 99.99, n), 2))],
                         "quantity": mode(0.35, 2, rng.integers(1, 41, n)),
                         "minutes": mode(0.25, 15, np.clip(np.round(rng.gamma(2, 10, n)), 1, 240)).astype(int),
                         "visits": rng.poisson(12, n),
                         "score": np.round(rng.normal(650, 50, n)).astype(int),
                         "plan": rng.choice(["basic", "plus", "premium"], n)}).astype(str)


TABLES = {"mixed": (COLUMNS, table), "years": (YEARS_COLUMNS, years_table), "dates": (DATES_COLUMNS, dates_table),
          "counts": (COUNTS_COLUMNS, counts_table), "staff": (STAFF_COLUMNS, staff_table),
          "activity": (ACTIVITY_COLUMNS, activity_table), "codes": (CODES_COLUMNS, codes_table),
          "zeros": (ZEROS_COLUMNS, zeros_table), "sentinels": (SENTINELS_COLUMNS, sentinels_table),
          "modes": (MODES_COLUMNS, modes_table)}


def _as_numbers(values, kind: str) -> np.ndarray:
    """A column's values as numbers: days since 1970 for dates and date-times (fractional), else the numbers."""
    import pandas as pd

    if kind in ("date", "datetime"):
        stamps = pd.to_datetime(pd.Series(values), errors="coerce", format="mixed", utc=True)
        return ((stamps - pd.Timestamp("1970-01-01", tz="UTC")) / pd.Timedelta(days=1)).to_numpy(dtype=float)
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)


def one(n: int, eps: float, seed: int, table_name: str = "mixed") -> dict:
    """Draft, encode, decode one table; per column its distance and clipped share (None: bounds undecided)."""
    from scipy.stats import ks_2samp, wasserstein_distance

    from dprelease.schema import Schema, encode
    from dprelease.schema.decode import decode
    from dprelease.schema.draft import draft_schema

    columns, make = TABLES[table_name]
    frame = make(seed, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(frame, epsilon=eps, delta=1e-9, seed=seed)
    decided = []
    for column in schema.columns:
        try:
            column.size  # noqa: B018 -- undecided bounds refuse here
            if (frame[column.name] == "").any() and not column.to_json().get("null"):
                continue  # blanks the draft did not see (too few for its noise): the table would not encode
            if column.kind == "integer" and (_as_numbers(frame[column.name], "integer") % 1 > 0).any():
                continue  # decimals it did not see (refunds written 0.0 on 85 % of 500 rows): nor would this
            decided.append(column)
        except Exception:  # noqa: BLE001 -- an undecided column: no figure
            pass
    if not decided:  # every column's bounds undecided (a small table at a small epsilon): no figures
        return {name: None for name in columns}
    sub = Schema(tuple(decided), schema.null_tokens)
    names = [c.name for c in decided]
    decoded = decode(encode(frame[names], sub), sub, values="uniform",
                     rng=np.random.default_rng(seed)).to_dataframe()
    out = {}
    for name in columns:
        if name not in names:
            out[name] = None
            continue
        spec = sub.column(name).to_json()
        real = _as_numbers(frame[name], spec["type"])
        real = real[~np.isnan(real)]  # blanks (a leaving year for those still employed) are not numbers to compare
        synthetic = _as_numbers(decoded[name], spec["type"])
        if np.isnan(synthetic).mean() > 0.5 + np.mean(frame[name] == ""):  # drafted as text (no categories stood out)
            out[name] = None
            continue
        edges = spec.get("edges") or spec.get("bounds") or [float(v) for v in spec.get("values", [])]
        if spec["type"] in ("date", "datetime") and edges:
            edges = list(_as_numbers(edges, spec["type"]))
            edges[-1] += 1  # the high bound's whole day
        low, high = (float(edges[0]), float(edges[-1])) if edges else (np.nan, np.nan)
        drawn = synthetic[~np.isnan(synthetic)]
        out[name] = {"distance_sd": float(wasserstein_distance(real, drawn) / real.std()),
                     "ks": float(ks_2samp(real, drawn).statistic),
                     "clipped": float(np.mean((real < low) | (real > high))) if edges else 0.0,
                     "spare": _spare(real, low, high) if edges else 0.0,
                     "kind": spec["type"], "bounds": [low, high],
                     "charges": [label for label, *_ in schema.draft.charges() if label.startswith(f"{name}: ")]}
    return out


def _spare(real: np.ndarray, low: float, high: float) -> float:
    """How far the drafted bounds reach past the real values' range, as a share of that range: rows a noisy model
    puts there are values the data never held (hire years in 2054). A perfect model leaves those bins empty, so the
    distance does not see them."""
    span = max(float(real.max() - real.min()), 1.0)
    return (max(0.0, float(real.min()) - low) + max(0.0, high - float(real.max()))) / span


def render(results: dict, meta: dict) -> str:
    lines = ["# Drafted number and date columns, decoded (sessions 60-63, 70, 77-79, 81)", "",
             f"Written by `benchmarks/bench_draft_bounds.py` at commit `{meta['commit']}` on {meta['when']}; "
             f"{meta['seeds']} seeds; {meta['seconds']:.0f} s.", "",
             "A perfect model over the drafted bins: what is measured is the schema alone. Distance: the 1-D "
             "Wasserstein distance of decoded values to the real ones, in the real column's standard deviations "
             "(median over seeds); KS: the Kolmogorov-Smirnov distance (the largest gap between the two cumulative "
             "shares, free of scale: a skewed column's bins show here; median over seeds); clipped: the largest share "
             "of real rows outside the drafted bounds; spare: the largest reach of the bounds past the real values' "
             "range, as a share of it (a noisy model decodes rows there); `-`: bounds undecided, or the column drafted "
             "as text, on some seed.", ""]
    for table_name, by_case in results.items():
        columns = TABLES[table_name][0]
        lines += _render_table(table_name, columns, by_case)
    return "\n".join(lines)


def _render_table(table_name: str, columns: tuple, results: dict) -> list[str]:
    lines = []
    for what, key, reduce in (("Distance (standard deviations)", "distance_sd", np.median),
                              ("KS distance (median over seeds)", "ks", np.median),
                              ("Clipped share (max over seeds)", "clipped", np.max),
                              ("Spare span (max over seeds)", "spare", np.max)):
        lines += [f"## `{table_name}`: {what}", "", "| rows | eps | " + " | ".join(columns) + " | mean |",
                  "|---|---|" + "---|" * (len(columns) + 1)]
        for case, runs in results.items():
            n, eps = case.split("@")
            cells = []
            for name in columns:
                values = [r[name].get(key) for r in runs if r[name] is not None]
                complete = len(values) == len(runs) and all(v is not None for v in values)
                cells.append(f"{reduce(values):.3f}" if complete else "-")
            numbers = [float(c) for c in cells if c != "-"]
            mean = f"{np.mean(numbers):.3f}" if numbers else "-"
            lines.append(f"| {int(n):,} | {eps} | " + " | ".join(cells) + f" | {mean} |")
        lines.append("")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="500,2000,20000,100000")
    parser.add_argument("--eps", default="0.5,1,5")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tables", default="mixed,years,dates,counts,staff,activity,codes,zeros,sentinels,modes")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "draft_bounds"))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = {}
    for table_name in args.tables.split(","):
        if table_name not in TABLES:
            parser.error(f"--tables: {table_name!r} is not one of {sorted(TABLES)}")
        results[table_name] = {}
        for n in (int(v) for v in args.rows.split(",")):
            for eps in (float(v) for v in args.eps.split(",")):
                results[table_name][f"{n}@{eps:g}"] = [one(n, eps, seed, table_name) for seed in range(args.seeds)]
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    meta = {"commit": commit, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seeds": args.seeds,
            "seconds": time.perf_counter() - start, "python": platform.python_version(),
            "numpy": np.__version__}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "draft_bounds.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    (out / "draft_bounds.md").write_text(render(results, meta) + "\n")
    print(render(results, meta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
