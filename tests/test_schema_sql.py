"""The schema encoded inside DuckDB, in SQL, gives the in-memory encoder's codes and errors, value for value.

Each table holds the values the two are most likely to disagree on (tests/raw_tables.py): Python's
float grammar (underscores, 'inf', 'nan', overflow), ISO dates and times (leap days, offsets, fractions,
out-of-range fields), whitespace beyond spaces, boolean words in any case, integer categories, and typed
Parquet columns of every kind under every schema kind that reads them.
"""

from __future__ import annotations

import numpy as np
import pytest

from dprelease.engines.duckdb_engine import DuckDBTable
from dprelease.engines.registry import open_table
from dprelease.errors import InputError
from dprelease.schema import Schema, encode, encode_table
from tests.raw_tables import (
    TEXT_COLUMNS,
    by_row,
    text_rows,
    text_schema,
    typed_schema,
    write_text_csv,
    write_typed_parquet,
)

ROWS = len(text_rows())
TYPED_ROWS = 120


@pytest.fixture(scope="module")
def text_csv(tmp_path_factory):
    return write_text_csv(tmp_path_factory.mktemp("raw") / "text.csv")


@pytest.fixture(scope="module")
def typed_parquet(tmp_path_factory):
    return write_typed_parquet(tmp_path_factory.mktemp("typed") / "typed.parquet", TYPED_ROWS)


def engine_codes(source, schema: Schema, **options) -> np.ndarray:
    with DuckDBTable.open(source, schema=schema, **options) as table:
        return by_row(table.to_records())


def engine_error(source, schema: Schema, **options) -> str:
    with pytest.raises(InputError) as exc:
        DuckDBTable.open(source, schema=schema, **options)
    return str(exc.value)


def assert_same_codes(got: np.ndarray, expected: np.ndarray, schema: Schema, rows: list[list[str]]) -> None:
    for i, name in enumerate(schema.names):
        differ = np.flatnonzero(got[:, i] != expected[:, i])
        assert differ.size == 0, (name, [(rows[r][i], int(got[r, i]), int(expected[r, i])) for r in differ[:5]])


@pytest.mark.parametrize("strip", [True, False])
def test_text_values_get_the_in_memory_codes(text_csv, strip):
    schema = text_schema(buckets="both", strip=strip, rows=ROWS)
    assert_same_codes(engine_codes(text_csv, schema), encode(text_csv, schema), schema, text_rows())


def test_clipped_values_get_the_in_memory_codes(tmp_path):
    """Clip: out-of-bounds values to the end bins (the values a clip column cannot place are left out)."""
    schema = text_schema(buckets="clip", rows=ROWS)
    kept = []
    for column, values in zip(schema.columns[1:], [v for _, _, v in TEXT_COLUMNS]):
        one = Schema((column,))
        kept.append([v for v in values if placeable(one, v)])
    length = max(map(len, kept))
    rows = [[str(r)] + [values[r % len(values)] for values in kept] for r in range(length)]
    path = write_text_csv(tmp_path / "clip.csv", rows)
    schema = text_schema(buckets="clip", rows=max(ROWS, length))
    assert_same_codes(engine_codes(path, schema), encode(path, schema), schema, rows)


def placeable(schema: Schema, value: str) -> bool:
    from dprelease.schema.tables import Table, factorize

    table = Table({schema.names[0]: factorize(np.array([value], dtype=object))}, 1, "one value")
    try:
        encode_table(table, schema)
    except InputError:
        return False
    return True


def test_null_tokens_are_matched_after_stripping(text_csv):
    schema = text_schema(buckets="both", null_tokens=["NA", "nan", "-"], rows=ROWS)
    assert np.array_equal(engine_codes(text_csv, schema), encode(text_csv, schema))


def test_long_and_empty_category_lists(text_csv):
    """More than 64 categories take the engine's list lookup; none at all (a draft's text column) only other."""
    many = [f"c{i}" for i in range(100)] + ["F", "M", "1"]
    schema = Schema.from_dict({"row": ROWS, "sex": {"type": "categorical", "values": many, "other": True, "null": True},
                               "member": {"type": "categorical", "values": [], "other": True, "null": True}})
    assert np.array_equal(engine_codes(text_csv, schema), encode(text_csv, schema))


@pytest.mark.parametrize("show_values", [False, True])
def test_every_problem_is_reported_in_the_in_memory_words(text_csv, show_values):
    schema = text_schema(buckets="none", rows=ROWS)
    with pytest.raises(InputError) as exc:
        encode(text_csv, schema, show_values=show_values)
    expected = str(exc.value)
    got = engine_error(text_csv, schema, show_values=show_values)
    if show_values:  # the counts agree; the in-memory encoder quotes values in the order it met them
        strip = __import__("re").compile(r", e\.g\. [^(]*")
        assert strip.sub("", got) == strip.sub("", expected)
        assert "e.g." in got
    else:
        assert got == expected
        assert "\n" not in got and "abc" not in got


def test_typed_parquet_columns_get_the_in_memory_codes(typed_parquet):
    schema = typed_schema(TYPED_ROWS)
    expected = encode(typed_parquet, schema)
    got = engine_codes(typed_parquet, schema)
    for i, name in enumerate(schema.names):
        assert np.array_equal(got[:, i], expected[:, i]), name


def test_typed_problems_are_reported_in_the_in_memory_words(typed_parquet):
    schema = typed_schema(TYPED_ROWS, buckets=False)
    with pytest.raises(InputError) as exc:
        encode(typed_parquet, schema)
    assert engine_error(typed_parquet, schema) == str(exc.value)


def test_a_csv_laid_out_otherwise_is_read_as_the_in_memory_reader_reads_it(tmp_path):
    schema = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y"], "other": True},
                               "b": {"type": "integer", "bounds": [0, 9], "null": True}})
    (tmp_path / "semi.csv").write_text("title line\nb;a;extra\n3;x;q\n;y;r\n7; x ;s\n", encoding="utf-8")
    (tmp_path / "bare.csv").write_text("x|1\nz|2\n", encoding="utf-8")
    for name, options in [("semi.csv", {"skip_rows": 1}), ("bare.csv", {}), ("bare.csv", {"delimiter": "|"})]:
        path = tmp_path / name
        got, expected = engine_codes(path, schema, **options), encode(path, schema, **options)
        assert sorted(map(tuple, got.tolist())) == sorted(map(tuple, expected.tolist())), name
    assert engine_error(tmp_path / "bare.csv", schema, header=True) == encode_error(tmp_path / "bare.csv", schema,
                                                                                    header=True)


def encode_error(path, schema, **options) -> str:
    with pytest.raises(InputError) as exc:
        encode(path, schema, **options)
    return str(exc.value)


def test_globs_of_raw_files_are_encoded_together(tmp_path):
    schema = Schema.from_dict({"a": {"type": "numeric", "bounds": [0, 1], "bins": 4, "other": True}})
    for k in range(3):
        (tmp_path / f"part-{k}.csv").write_text("a\n" + "\n".join(f"{(k * 7 + i) / 20}" for i in range(7)) + "\nx\n")
    table = open_table(str(tmp_path / "part-*.csv"), schema=schema)  # auto: DuckDB for a glob
    expected = np.concatenate([encode(tmp_path / f"part-{k}.csv", schema) for k in range(3)])
    assert table.marginal_counts(["a"]).tolist() == np.bincount(expected[:, 0], minlength=5).tolist()
    table.close()


def test_missing_columns_and_refused_types_are_named(typed_parquet, text_csv):
    schema = Schema.from_dict({"zz": 3, "i_codes": 100, "yy": {"type": "boolean"}})
    assert engine_error(typed_parquet, schema) == encode_error(typed_parquet, schema)
    refused = Schema.from_dict({"d": {"type": "categorical", "values": ["2015-01-01"]}})
    path = typed_parquet.parent / "dates.parquet"
    import duckdb

    duckdb.connect().execute(f"COPY (SELECT DATE '2015-01-01' AS d) TO '{path}' (FORMAT parquet)")
    assert engine_error(path, refused) == (f"data file {str(path)!r}: column 'd' has type DATE, which engine 'duckdb' "
                                           "does not encode as a categorical column (engine 'memory' reads such a "
                                           "column as its text)")
    with pytest.raises(InputError, match="give schema=, not domain="):
        DuckDBTable.open(text_csv, Schema.from_dict({"row": 3}).domain, delimiter=";")


def test_the_synthesizer_reads_through_any_engine_with_the_same_release(text_csv):
    import warnings

    from dprelease.synthesizer import Synthesizer

    schema = text_schema(buckets="both", rows=ROWS).select(["age", "sex", "joined"])
    rows = {}
    for engine in ("memory", "duckdb"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synth = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=5, engine=engine, rounds=3)
            synth.fit(text_csv, schema=schema)
        rows[engine] = synth.release.rows
    assert np.array_equal(rows["memory"], rows["duckdb"])
    with pytest.raises(InputError, match="engine must be 'auto' or one of"):
        Synthesizer("mwem", epsilon=1.0, engine="sqlite")
    with pytest.raises(InputError, match="memory_limit must be a size"):
        Synthesizer("mwem", epsilon=1.0, memory_limit="lots")


def test_too_many_uneven_bins_are_counted_as_bins(tmp_path):
    """The engines' cap counts bins as the schema does (n bins have n - 1 inner edges; the message said n - 1)."""
    from dprelease.engines.schema_sql import MAX_UNEVEN_THRESHOLDS

    bins = MAX_UNEVEN_THRESHOLDS + 2
    edges = [0.0] + [float(k) + 0.5 * (k % 2) / bins for k in range(1, bins)] + [float(bins)]
    schema = Schema.from_dict({"a": {"type": "numeric", "edges": edges}})
    (tmp_path / "a.csv").write_text("a\n1\n2\n")
    with pytest.raises(InputError) as exc:
        DuckDBTable.open(tmp_path / "a.csv", schema=schema).marginal_counts(["a"])
    assert f"has {bins:,} bins; an engine encodes at most {MAX_UNEVEN_THRESHOLDS + 1:,} uneven bins" in str(exc.value)
