"""The fit/sample Synthesizer over raw tables, and the bundled raw Adult with its public schema."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dprelease.datasets import (ADULT_RAW_COLUMNS, adult_raw_paths, adult_raw_schema, load_adult_raw,
                                load_adult_raw_codes)
from dprelease.errors import DomainTooLargeError, InputError, InputTypeError
from dprelease.schema import OTHER, Schema, encode
from dprelease.schema.draft import draft_schema
from dprelease.spent import Spent
from dprelease.synthesizer import Synthesizer

SCHEMA = Schema.from_dict({
    "age": {"type": "integer", "bounds": [18, 80], "width": 10, "clip": True},
    "job": {"type": "categorical", "values": ["clerk", "smith", "baker"], "null": True, "other": True},
    "pay": {"type": "numeric", "bounds": [0, 100000], "bins": 5, "clip": True},
    "member": {"type": "boolean"},
})


def frame(n: int = 400, seed: int = 2) -> pd.DataFrame:
    rng = np.random.Generator(np.random.PCG64(seed))
    return pd.DataFrame({"age": rng.integers(18, 81, n), "job": pd.Categorical(rng.choice(["clerk", "smith", None], n)),
                         "pay": rng.uniform(0, 100000, n), "member": rng.random(n) < 0.3, "ignored": 1})


def test_fit_sample_returns_decoded_rows_with_the_schema_columns():
    synth = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=0, rounds=3)
    out = synth.fit_sample(frame(), schema=SCHEMA)
    assert list(out.columns) == list(SCHEMA.names) and len(out) == 400
    assert out["age"].between(18, 80).all() and str(out["job"].dtype) == "category"
    assert out["pay"].between(0, 100000).all() and out["member"].dtype == bool
    assert np.array_equal(encode(out, SCHEMA)[:, 1:], synth.release.rows[:, 1:])  # pay/age bins kept too
    assert synth.release.privacy_ledger["spent"]["epsilon"] == pytest.approx(1.0)
    assert synth.release.schema["columns"]["job"]["values"] == ["clerk", "smith", "baker"]
    assert len(synth.sample(1000)) == 1000 and len(synth.sample(7)) == 7


def test_a_schema_written_as_a_dict_is_the_same_schema():
    """A user writes the schema in Python as the file's JSON form: the dict gives the release the Schema gives, and
    a mistake in it names the field, as the file's would, before anything is spent."""
    raw = {"format": "dprelease-schema/1", "columns": SCHEMA.to_dict()["columns"]}
    by_dict = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=0, rounds=3)
    by_schema = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=0, rounds=3)
    pd.testing.assert_frame_equal(by_dict.fit_sample(frame(), schema=raw), by_schema.fit_sample(frame(), schema=SCHEMA))
    bad = {"format": "dprelease-schema/1", "columns": {**raw["columns"], "age": {"type": "integer"}}}
    synth = Synthesizer("mwem", epsilon=1.0, workload="1way", seed=0)
    with pytest.raises(InputError, match="^schema column 'age'"):
        synth.fit(frame(), schema=bad)
    assert synth.ledgers["fits"] == []
    with pytest.raises(InputTypeError, match="a dict in the schema file's form"):
        synth.fit(frame(), schema=["age"])  # type: ignore[arg-type]


def test_a_schema_of_one_cell_is_refused_before_anything_is_spent():
    """A private draft of a table too small for its epsilon can leave every column only its other bucket: the domain
    is one cell, every release the same table of <other>. The fit is refused, naming the columns, and spends
    nothing; one column with values of its own is enough to run."""
    bare = {name: {"type": "categorical", "values": [], "other": True} for name in ("job", "city")}
    synth = Synthesizer("mwem", epsilon=1.0, workload="1way", seed=0)
    data = pd.DataFrame({"job": ["a", "b"] * 20, "city": ["x"] * 40})
    with pytest.raises(InputError, match=r"every column of the schema has one value only .*\['job', 'city'\]"):
        synth.fit(data, schema=bare)
    assert synth.ledgers["fits"] == []
    with pytest.warns(UserWarning, match=r"column\(s\) \['city'\] have no values"):
        synth.fit(data, schema={**bare, "job": {"type": "categorical", "values": ["a", "b"]}})


def test_a_column_with_no_values_of_its_own_is_warned_of_before_the_run():
    """A private draft on a small table keeps no category its noise hides: such a column has only its other (or
    NULL) bucket, and every synthetic value there is <other>. The run says so, naming the column (public), and a
    schema without such a column says nothing."""
    raw = SCHEMA.to_dict()
    raw["columns"]["job"] = {"type": "categorical", "values": [], "null": True, "other": True}
    synth = Synthesizer("mwem", epsilon=1.0, workload="1way", seed=0)
    with pytest.warns(UserWarning, match=r"column\(s\) \['job'\] have no values in the schema") as caught:
        out = synth.fit_sample(frame(), schema=raw)
    assert set(out["job"].dropna().astype(str)) == {"<other>"}
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")  # a schema whose every column has values: no such warning
        Synthesizer("mwem", epsilon=1.0, workload="1way", seed=0, rounds=2).fit(frame(), schema=SCHEMA)
    assert not [w for w in quiet if "no values" in str(w.message)] and quiet  # the seed's warning was caught
    assert len([w for w in caught if "no values" in str(w.message)]) == 1


def test_fitting_twice_spends_twice_and_says_so(tmp_path):
    path = tmp_path / "schema.json"
    SCHEMA.to_json(path)
    synth = Synthesizer(epsilon=0.5, workload="1way", seed=1, rounds=2)
    synth.fit(frame(), schema=path)
    # the ledger's spend, not the asked delta: a 1-way plan measures with Laplace noise and spends no delta
    with pytest.warns(UserWarning, match="fitted 2 times: this fit spent epsilon=0.5, delta=0 again"):
        synth.fit(frame(seed=3), schema=path)
    assert len(synth.ledgers["fits"]) == 2 and synth.ledgers["schema_drafts"] == []
    assert synth.spent == (2 * Fraction(0.5), 0)


def test_spent_prints_in_decimals_and_keeps_the_exact_fractions():
    synth = Synthesizer(epsilon=0.5, workload="1way", seed=1, rounds=2)
    synth.fit(frame(), schema=SCHEMA)
    assert isinstance(synth.spent, Spent) and synth.spent.epsilon == Fraction(1, 2)
    assert repr(synth.spent) == "Spent(epsilon=0.5, delta=0)"
    total = Spent(Fraction(1), Fraction(1e-9))
    assert total.delta != Fraction(1, 10**9)  # the float 1e-9 exactly, kept
    assert total == (1, Fraction(1e-9)) and repr(total) == "Spent(epsilon=1, delta=1e-09)"


def test_fit_reads_csv_and_refuses_non_private_schemas(tmp_path):
    path = tmp_path / "data.csv"
    frame().to_csv(path, index=False)
    synth = Synthesizer(epsilon=1.0, workload="1way", seed=1, rounds=2)
    assert synth.fit(path, schema=SCHEMA).release.rows.shape == (400, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from dprelease.schema.draft import draft_schema

        open_schema = draft_schema(path, non_private=True)
    with pytest.raises(InputError, match="not differentially private"):
        Synthesizer(epsilon=1.0, workload="1way").fit(path, schema=open_schema)
    with pytest.warns(UserWarning, match="NOT differentially private"):
        allowed = Synthesizer(epsilon=1.0, workload="1way", seed=2, rounds=2, allow_non_public_schema=True).fit(
            path, schema=open_schema)
    record = allowed.release.to_json()
    assert record["fit_for_release"] is False and "NOT PUBLIC" in record["not_fit_for_release_because"]
    assert allowed.release.guarantee.startswith("NOT differentially private")


def test_synthesizer_mistakes():
    with pytest.raises(TypeError):
        Synthesizer("mwem", 1.0)  # type: ignore[misc]  # privacy parameters are keyword-only
    with pytest.raises(TypeError):
        Synthesizer("mwem")  # type: ignore[call-arg]  # epsilon has no default
    with pytest.raises(InputError, match="epsilon must be a finite number > 0"):
        Synthesizer(epsilon=0)
    with pytest.raises(InputTypeError, match="mechanism must be a string"):
        Synthesizer(None, epsilon=1.0)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="mechanism must be one of"):
        Synthesizer("mwme", epsilon=1.0)
    with pytest.raises(InputError, match="values must be one of"):
        Synthesizer(epsilon=1.0, values="median")
    with pytest.raises(InputError, match=r"unknown option\(s\) \['round'\]"):
        Synthesizer(epsilon=1.0, round=3)
    with pytest.raises(InputError, match="rounds must be an integer >= 1"):
        Synthesizer(epsilon=1.0, rounds=0)
    with pytest.raises(InputError, match="base='lp' is for mechanism='boosting' only"):
        Synthesizer(epsilon=1.0, base="lp")
    with pytest.raises(InputError, match="not fitted yet"):
        Synthesizer(epsilon=1.0).sample()
    with pytest.raises(InputError, match="'bogus'"):
        Synthesizer(epsilon=1.0, workload="bogus").fit(frame(), schema=SCHEMA)
    with pytest.raises(InputError, match="cannot encode 1 column"):
        Synthesizer(epsilon=1.0, seed=1).fit(frame().assign(member="maybe"), schema=SCHEMA)


def test_missing_pandas_names_the_extra(monkeypatch):
    import sys

    synth = Synthesizer(epsilon=1.0, workload="1way", seed=1, rounds=2).fit(frame(), schema=SCHEMA)
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if the extra were not installed
    with pytest.raises(InputError, match=r"pip install 'dprelease\[pandas\]'"):
        synth.sample()
    with pytest.raises(InputError, match=r"pip install 'dprelease\[pandas\]'"):
        load_adult_raw("train")
    assert load_adult_raw_codes("test").n == 16_281  # the CSV path needs no pandas


# ------------------------------------------------------------------ raw Adult
@pytest.fixture(scope="module")
def adult_train_codes():
    return load_adult_raw_codes("train")


def test_raw_adult_loads_with_the_documented_shapes():
    train, test = load_adult_raw("train"), load_adult_raw("test")
    assert train.shape == (32_561, 15) and test.shape == (16_281, 15)
    assert list(train.columns) == list(ADULT_RAW_COLUMNS)
    assert set(train["income"]) == {"<=50K", ">50K"} and set(test["income"]) == {"<=50K", ">50K"}
    assert train["age"].dtype == np.int64 and train["workclass"].isna().sum() == 1_836
    assert all(path.exists() for path in adult_raw_paths().values())


@pytest.mark.parametrize("split", ["train", "test"])
def test_every_raw_adult_value_encodes_under_the_bundled_schema(split, adult_train_codes):
    schema = adult_raw_schema()
    codes = adult_train_codes if split == "train" else load_adult_raw_codes("test")
    assert codes.n == {"train": 32_561, "test": 16_281}[split] and codes.domain == schema.domain
    nulls = {c.name: int((codes.records[:, i] == c.null_code).sum()) for i, c in enumerate(schema.columns) if c.null}
    # Public bundled data: the NULL counts are those of UCI's documentation (train: 30,162 complete rows).
    assert nulls == {"train": {"workclass": 1_836, "occupation": 1_843, "native-country": 583},
                     "test": {"workclass": 963, "occupation": 966, "native-country": 274}}[split]
    assert not any(c.other for c in schema.columns)  # no value needed an 'other' bucket
    frame = load_adult_raw(split)
    assert np.array_equal(encode(frame, schema), codes.records)  # DataFrame and CSV paths agree
    assert OTHER not in schema.labels("native-country")


def test_raw_adult_capital_gain_top_code_lands_in_the_closed_last_bin(adult_train_codes):
    schema = adult_raw_schema()
    column = schema.column("capital-gain")
    frame = load_adult_raw("train")
    top = frame["capital-gain"].to_numpy() == 99_999
    axis = schema.names.index("capital-gain")
    assert top.any() and (adult_train_codes.records[top, axis] == column.value_count - 1).all()


def test_the_mechanism_and_its_checks_come_from_the_registry_before_any_data_is_read(tmp_path):
    nowhere = tmp_path / "never-read.csv"
    wide = Schema.from_dict({f"c{i}": 40 for i in range(7)})  # 1.6e11 cells: too many for a histogram
    with pytest.raises(DomainTooLargeError):
        Synthesizer("ic-median", epsilon=1.0, workload="1way").fit(nowhere, schema=wide)
    synth = Synthesizer("independent", epsilon=1.0, workload="1way", seed=0).fit(frame(), schema=SCHEMA)
    assert synth.release.mechanism == "independent" and "independent noisy 1-way" in synth.release.guarantee


def test_a_private_draft_counts_once_however_often_it_is_used():
    data = frame(2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded draft
        schema = draft_schema(data, epsilon=0.5, delta=1e-6, columns=["age", "member"], seed=3)
    synth = Synthesizer(epsilon=0.25, workload="1way", seed=1, rounds=2)
    synth.fit(data, schema=schema)
    assert Fraction(synth.release.privacy_ledger["spent"]["epsilon_exact"]) == schema.draft.spent[0] + Fraction(0.25)
    with pytest.warns(UserWarning, match="fitted 2 times"):
        synth.fit(data, schema=schema)
    draft_epsilon, draft_delta = schema.draft.spent
    assert synth.spent == (draft_epsilon + 2 * Fraction(0.25), draft_delta)
    assert len(synth.ledgers["schema_drafts"]) == 1 and len(synth.ledgers["fits"]) == 2


def test_a_misspelt_required_argument_is_named():
    """Python's "missing argument 'epsilon'" hid the misspelling itself (epsilom=1.0); so did fit's schema."""
    with pytest.raises(InputTypeError, match=r"epsilon is required: give epsilon=\.\.\. \('epsilom' is not an"):
        Synthesizer(epsilom=1.0, workload="1way")
    with pytest.raises(InputTypeError, match=r"^epsilon is required: give epsilon=\.\.\.$"):
        Synthesizer(workload="1way")
    with pytest.raises(InputTypeError, match=r"schema is required: give schema=\.\.\. \('schem' is not an argument"):
        Synthesizer(epsilon=1.0, workload="1way").fit(frame(), schem=SCHEMA)


def test_a_missing_schema_says_how_to_draft_one():
    """A new user's first call, fit_sample(frame) with no schema, met Python's own TypeError; it now names the
    argument and the function that drafts one, before anything is read or spent."""
    synth = Synthesizer(epsilon=1.0, workload="1way")
    for call in (synth.fit, synth.fit_sample):
        with pytest.raises(InputTypeError, match=r"^schema is required: give schema=\.\.\. \(none yet\? "
                                                 r"dprelease\.schema\.draft\.draft_schema\(data, epsilon="):
            call(frame())
    assert synth.spent == (0, 0)


def test_a_zoned_date_time_column_comes_back_in_its_zone():
    """A DataFrame's Berlin times are read in UTC (the schema's bins are UTC) and sampled back in Berlin time, not as
    naive UTC values an hour or two off; a naive column stays naive."""
    times = pd.date_range("2024-03-01", periods=400, freq="7h")
    frame = pd.DataFrame({"at": times.tz_localize("Europe/Berlin"), "local": times})
    bounds = ["2024-02-29T00:00:00", "2024-06-30T23:59:59"]
    schema = {"format": "dprelease-schema/1", "columns": {
        "at": {"type": "datetime", "bounds": bounds, "unit": "hour"},
        "local": {"type": "datetime", "bounds": bounds, "unit": "hour"}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = Synthesizer("independent", epsilon=1000, workload="1way", seed=3).fit_sample(frame, schema=schema)
    assert str(out["at"].dtype.tz) == "Europe/Berlin" and getattr(out["local"].dtype, "tz", None) is None

    def share_in_real_hours(name):
        return out[name].dt.floor("h").isin(set(frame[name].dt.floor("h"))).mean()

    # at this epsilon the 1-way marginals are all but exact: nearly every synthetic time lies in an hour a real one
    # does (the noise leaves a percent or two in the 2,500 empty hours); the real times are 7 hours apart, so times
    # an hour or two off (naive UTC read as Berlin time) would miss them all
    assert share_in_real_hours("at") > 0.9 and share_in_real_hours("local") > 0.9
    # a column that declares an offset (its CSV text is marked) decodes zoned already, and still comes back in Berlin
    schema["columns"]["at"]["offset"] = "Z"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        marked = Synthesizer("independent", epsilon=1000, workload="1way", seed=3).fit_sample(frame, schema=schema)
    assert str(marked["at"].dtype.tz) == "Europe/Berlin" and list(marked["at"]) == list(out["at"])


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Asia/Tokyo", "America/New_York"])
def test_a_zoned_date_column_reads_the_dates_of_its_zone(zone):
    """A DataFrame's local dates with a zone (midnights in Berlin) were read as UTC dates: a zone east of UTC put
    every date on the day before (2021-01-01 fell outside the bounds), and the draft saw 23:00 and drafted a
    datetime. A date column now reads the zone's calendar, as the naive column does; a datetime column still reads
    the UTC instant (its bins are UTC)."""
    days = pd.date_range("2021-01-01", "2021-12-31", freq="D").repeat(3)
    naive, zoned = pd.DataFrame({"day": days}), pd.DataFrame({"day": days.tz_localize(zone)})
    dated = {"format": "dprelease-schema/1",
             "columns": {"day": {"type": "date", "bounds": ["2021-01-01", "2021-12-31"], "unit": "day"}}}
    assert np.array_equal(encode(zoned, dated), encode(naive, dated))
    timed = {"format": "dprelease-schema/1",
             "columns": {"day": {"type": "datetime", "bounds": ["2020-12-31T00:00:00", "2022-01-01T23:59:59"],
                                 "unit": "hour"}}}
    offset_hours = days.tz_localize(zone).tz_convert("UTC").tz_localize(None) - days
    assert np.array_equal(encode(zoned, timed)[:, 0] - encode(naive, timed)[:, 0], offset_hours // pd.Timedelta("1h"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drafted = draft_schema(zoned, non_private=True).column("day")
    assert drafted.kind == "date" and drafted.bounds == epoch_days(("2021-01-01", "2021-12-31"))


def epoch_days(iso_days):
    return tuple(int(np.datetime64(day, "D").astype(np.int64)) for day in iso_days)


def test_a_four_byte_float_column_comes_back_in_its_dtype():
    """A new user's float32 temperatures (and a nullable Float32 column) came back float64: a numeric column held in
    four bytes is given back in its own dtype, NULLs as NaN (float32) or NA (Float32); a float64 column stays float64,
    and a numeric column with an other bucket stays the objects its marker needs."""
    rng = np.random.Generator(np.random.PCG64(5))
    n = 4_000
    temps = np.round(rng.normal(12, 6, n), 1)
    frame = pd.DataFrame({"temp": temps.astype(np.float32), "nullable": pd.array(temps, dtype="Float32"),
                          "double": temps, "wide": temps.astype(np.float32),
                          "nullable64": pd.array(temps, dtype="Float64")})
    frame.loc[::40, "nullable"] = pd.NA
    frame.loc[::40, "nullable64"] = pd.NA
    schema = {"format": "dprelease-schema/1", "columns": {
        name: {"type": "numeric", "bounds": [-20, 40], "bins": 6, "clip": True, "decimals": 1,
               **({"null": True} if name.startswith("nullable") else {}), **({"other": True} if name == "wide" else {})}
        for name in frame.columns}}
    schema["columns"]["wide"]["bounds"] = [0, 40]  # values under 0 go to other
    schema["columns"]["wide"].pop("clip")
    out = Synthesizer("mwem", epsilon=1, workload="1way", seed=2).fit_sample(frame, schema=schema)
    assert out["temp"].dtype == np.float32 and str(out["nullable"].dtype) == "Float32"
    assert str(out["nullable64"].dtype) == "Float64" and out["nullable64"].isna().any()
    assert out["nullable"].isna().any() and out["double"].dtype == np.float64 and out["wide"].dtype == object
    assert out["temp"].between(-20, 40).all()


def test_a_duration_column_is_read_as_seconds_and_comes_back_as_durations(tmp_path):
    """A new user's session lengths (a pandas timedelta column, with blanks) were refused as an unsupported dtype.
    A duration is read as its seconds (the draft says so), and ``sample`` gives it back in its timedelta dtype, NULLs
    as NaT. The same durations as a Parquet INTERVAL give the same rows in the memory and DuckDB engines (seeded)."""
    import duckdb

    rng = np.random.Generator(np.random.PCG64(8))
    n = 5_000
    seconds = np.round(rng.exponential(600, n))
    frame = pd.DataFrame({"session": pd.to_timedelta(seconds, unit="s"), "plan": rng.choice(["a", "b"], n)})
    frame.loc[::25, "session"] = pd.NaT
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema = draft_schema(frame, epsilon=1, delta=1e-9, seed=3)
    notes = [str(w.message) for w in caught if "hold durations" in str(w.message)]
    assert len(notes) == 1 and notes[0].startswith("column(s) ['session'] hold durations, read as seconds")
    drafted = schema.column("session")
    assert drafted.kind == "integer" and drafted.to_json().get("null") is True
    out = Synthesizer("mwem", epsilon=1, workload="1-2way", seed=2).fit_sample(frame, schema=schema)
    assert out["session"].dtype == frame["session"].dtype and out["session"].isna().any()
    low, high = drafted.to_json()["edges"][0], drafted.to_json()["edges"][-1]
    present = out["session"].dropna().dt.total_seconds()
    assert present.between(low, high).all() and present.median() > 60  # seconds, not minutes or microseconds

    path = tmp_path / "sessions.parquet"
    connection = duckdb.connect()
    connection.register("frame", pd.DataFrame({"seconds": np.where(frame["session"].isna(), np.nan, seconds),
                                               "plan": frame["plan"]}))
    connection.execute(f"COPY (SELECT to_seconds(CAST(seconds AS BIGINT)) AS session, plan FROM frame) "
                       f"TO '{path}' (FORMAT parquet)")
    connection.close()
    rows = {engine: Synthesizer("mwem", epsilon=1, workload="1-2way", seed=2, engine=engine).fit(
        str(path), schema=schema).release.rows for engine in ("memory", "duckdb")}
    assert np.array_equal(rows["memory"], rows["duckdb"])


def test_sampled_columns_come_back_in_the_fitted_frames_dtypes():
    """A new user's frame of pandas' own types came back in the schema's kinds: ``str`` and ``string`` text as
    ``category``, an ordered ``category`` unordered and alphabetical, ``bool`` as ``boolean``, microsecond times
    in seconds, ``int32`` as ``int64``. Each comes back in the frame's dtype (so ``pd.concat([real, synthetic])``
    keeps every dtype), NULLs as that dtype's missing value; an ordered categorical keeps its order among the
    schema's categories and no category the schema does not hold (the frame's may have been read off the data), an
    unordered one the schema's order (its dtype's may rank the values by their counts);
    a value that the narrower dtype cannot hold (the other marker, a NULL in ``bool``) keeps the decoded column."""
    rng = np.random.Generator(np.random.PCG64(11))
    n = 3_000
    start = pd.Timestamp("2024-01-01")
    frame = pd.DataFrame({
        "name": rng.choice(["ann", "bo", "cy"], n).astype(object),
        "city": pd.array(rng.choice(["oslo", "rome", None], n), dtype="string"),
        "size": pd.Categorical(rng.choice(["small", "large", "medium"], n), ordered=True,
                               categories=["small", "medium", "large", "huge"]),
        "member": rng.random(n) < 0.3,
        "paid": pd.array(rng.random(n) < 0.8, dtype="boolean"),
        "visits": rng.integers(0, 9, n).astype(np.int32),
        "stock": pd.array(rng.integers(0, 9, n), dtype="Int64"),  # nullable, with no NULL: stays Int64
        "rooms": pd.array(np.where(rng.random(n) < 0.1, None, rng.integers(1, 5, n)), dtype="UInt8"),
        "seen": (start + pd.to_timedelta(rng.integers(0, 86_400 * 200, n), unit="s")).astype("datetime64[us]"),
        "zoned": (start + pd.to_timedelta(rng.integers(0, 86_400 * 200, n), unit="s")).tz_localize("UTC")
        .tz_convert("Europe/Oslo").astype("datetime64[ms, Europe/Oslo]"),  # instants: no DST gap to fall in
        "code": rng.choice(["x", "y", "z"], n),
        "shop": pd.Categorical(rng.choice(["north", "east", "west"], n, p=[0.2, 0.5, 0.3]),
                               categories=["east", "west", "north"]),  # ranked by count: no declared order
    })
    schema = {"format": "dprelease-schema/1", "columns": {
        "name": {"type": "categorical", "values": ["ann", "bo", "cy"]},
        "city": {"type": "categorical", "values": ["oslo", "rome"], "null": True},
        "size": {"type": "categorical", "values": ["large", "medium", "small"]},
        "member": {"type": "boolean"},
        "paid": {"type": "boolean"},
        "visits": {"type": "integer", "bounds": [0, 8]},
        "stock": {"type": "integer", "bounds": [0, 8]},
        "rooms": {"type": "integer", "bounds": [1, 4], "null": True},
        "seen": {"type": "datetime", "bounds": ["2024-01-01", "2024-07-19"], "unit": "week"},
        "zoned": {"type": "datetime", "bounds": ["2023-12-31", "2024-07-19"], "unit": "week"},
        "code": {"type": "categorical", "values": ["x", "y"], "other": True},
        "shop": {"type": "categorical", "values": ["east", "north", "west"]}}}
    out = Synthesizer("mwem", epsilon=1, workload="1way", seed=3).fit_sample(frame, schema=schema)
    others = [name for name in frame.columns if name not in ("size", "shop")]
    assert dict(out[others].dtypes) == dict(frame[others].dtypes)
    assert list(out["size"].cat.categories) == ["small", "medium", "large"] and out["size"].cat.ordered  # no "huge"
    assert list(out["shop"].cat.categories) == ["east", "north", "west"] and not out["shop"].cat.ordered
    assert out["city"].isna().any() and out["rooms"].isna().any() and out["name"].isin(["ann", "bo", "cy"]).all()
    assert set(out["code"]) == {"x", "y", OTHER} and pd.concat([frame, out])[others].dtypes.equals(frame[others].dtypes)

    narrow = pd.DataFrame({"member": frame["member"], "visits": frame["visits"]})
    marked = {"format": "dprelease-schema/1", "columns": {"member": {"type": "boolean", "null": True},
                                                          "visits": {"type": "integer", "bounds": [0, 5],
                                                                     "other": True}}}
    kept = Synthesizer("mwem", epsilon=0.2, workload="1way", seed=4).fit_sample(narrow, schema=marked)
    assert str(kept["member"].dtype) == "boolean" and kept["member"].isna().any()
    assert kept["visits"].dtype == object and OTHER in set(kept["visits"])


def test_a_number_column_held_as_categories_comes_back_as_numbers():
    """A DataFrame's fee that is always 19.99, 29.99 or 49.99 is drafted as those values (categories, so no synthetic
    fee falls between them); sampled back it is numbers, not a categorical of the strings "19.99": Python numbers
    beside the other marker where the column has that bucket (as a number column with one decodes), else the
    frame's own dtype (the nullable Int64 for an integer column with NULLs). A text column comes back as text."""
    rng = np.random.Generator(np.random.PCG64(4))
    n = 20_000
    frame = pd.DataFrame({"fee": rng.choice([19.99, 29.99, 49.99], n, p=[0.55, 0.3, 0.15]),
                          "count": rng.choice([0, 25, 50], n), "zone": rng.choice(["a", "b"], n)})
    frame["visits"] = pd.array(rng.choice([1, 2, 3], n), dtype="Int64")
    frame.loc[::50, "visits"] = pd.NA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(frame[["fee", "count", "zone"]], epsilon=2.0, delta=1e-9, seed=0)
        assert [c.kind for c in schema.columns] == ["categorical"] * 3 and schema.column("fee").other
        out = Synthesizer("mwem", epsilon=1, workload="1-2way", seed=1).fit_sample(frame[["fee", "count", "zone"]],
                                                                                   schema=schema)
        declared = {"format": "dprelease-schema/1", "columns": {
            "visits": {"type": "categorical", "values": [1, 2, 3], "null": True},
            "count": {"type": "categorical", "values": [0, 25, 50]}}}
        typed = Synthesizer("mwem", epsilon=1, workload="1way", seed=1).fit_sample(frame, schema=declared)
    fees = [v for v in out["fee"].dropna() if v != OTHER]
    assert len(fees) > 0.9 * n and {type(v) for v in fees} == {float} and set(fees) <= {19.99, 29.99, 49.99}
    assert {type(v) for v in out["count"].dropna() if v != OTHER} == {int}
    assert out["zone"].dtype == frame["zone"].dtype
    assert str(typed["visits"].dtype) == "Int64" and typed["visits"].isna().any()
    assert set(typed["visits"].dropna()) <= {1, 2, 3} and typed["count"].dtype == frame["count"].dtype
    assert set(typed["count"]) <= {0, 25, 50}
