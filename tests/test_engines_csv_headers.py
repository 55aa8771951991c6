"""CSV headers the in-memory reader takes are read by DuckDB too, column for column, and a CSV DuckDB cannot parse
is one line naming the file and the problem, without a value. Odd files (tests/odd_csv.py) read alike in both.

The in-memory reader's rules (dprelease/schema/tables.py, data.py): the header is the first non-empty row, its
cells stripped; any names are allowed as long as none appears twice (an empty name included: an unnamed column,
or the empty last cell of an Excel export whose every line ends in a delimiter); columns outside the schema or
domain are ignored; empty lines are no rows. Each case here runs both engines on the same file and compares.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from dprelease import Domain
from dprelease.cli import main
from dprelease.engines.duckdb_engine import DuckDBTable
from dprelease.engines.registry import open_table
from dprelease.errors import InputError
from dprelease.schema import Schema, decode, encode
from tests import odd_csv

SCHEMA = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y"], "other": True, "null": True},
                           "b": {"type": "integer", "bounds": [0, 9], "null": True}})
PLAIN = "a,b\nx,1\ny,2\nz,3\n,4\n"

#: (a CSV holding PLAIN's table, laid out as the in-memory reader accepts it)
LAYOUTS = {
    "an empty column name": "a,,b\nx,p,1\ny,q,2\nz,r,3\n,s,4\n",
    "a delimiter ending every line": "a,b,\nx,1,\ny,2,\nz,3,\n,4,\n",
    "a delimiter ending every CRLF line": "a,b,\r\nx,1,\r\ny,2,\r\nz,3,\r\n,4,\r\n",
    "a quoted empty name and spaces": ' a ,"", b \nx,p,1\ny,q,2\nz,r,3\n,s,4\n',
    "names differing only in case": "a,b,A,B\nx,1,p,q\ny,2,p,q\nz,3,p,q\n,4,p,q\n",
    "a name the encoding uses": "__dp0_v,a,b,c0\np,x,1,q\np,y,2,q\np,z,3,q\np,,4,q\n",
    "empty lines before the header": "\n\na,b\nx,1\ny,2\nz,3\n,4\n",
    "empty CRLF lines before the header": "\r\n\r\na,b\r\nx,1\r\ny,2\r\nz,3\r\n,4\r\n",
}


def memory_rows(path: Path, schema: Schema = SCHEMA) -> list[tuple[int, ...]]:
    return sorted(map(tuple, encode(path, schema).tolist()))


def duckdb_rows(path: Path, schema: Schema = SCHEMA) -> list[tuple[int, ...]]:
    with DuckDBTable.open(str(path), schema=schema) as table:
        return sorted(map(tuple, table.to_records().tolist()))


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message and message
    return message


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_duckdb_reads_every_header_the_in_memory_reader_reads(tmp_path, layout):
    plain, path = tmp_path / "plain.csv", tmp_path / "t.csv"
    plain.write_text(PLAIN, encoding="utf-8")
    path.write_bytes(LAYOUTS[layout].encode("utf-8"))
    expected = memory_rows(plain)
    assert memory_rows(path) == expected
    assert duckdb_rows(path) == expected


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_empty_lines_are_no_rows_in_a_one_column_file(tmp_path, newline):
    schema = SCHEMA.select(["a"])
    path = tmp_path / "one.csv"
    path.write_bytes(newline.join(["a", "x", "", "y", '""', "", "z", "", ""]).encode("utf-8"))
    expected = memory_rows(path, schema)
    assert len(expected) == 4  # x, y, the quoted empty cell, z
    assert duckdb_rows(path, schema) == expected


def test_one_empty_name_is_a_column_and_two_are_a_name_twice_in_both_engines(tmp_path):
    once, twice = tmp_path / "once.csv", tmp_path / "twice.csv"
    once.write_text("a,,b\nx,p,1\n", encoding="utf-8")
    twice.write_text("a,,b,\nx,p,1,\n", encoding="utf-8")
    assert duckdb_rows(once) == memory_rows(once) == [(0, 1)]
    with pytest.raises(InputError) as memory:
        encode(twice, SCHEMA)
    with pytest.raises(InputError) as duckdb:
        DuckDBTable.open(str(twice), schema=SCHEMA)
    # '' is no schema column, so it is not quoted (a file without a header row has a record there).
    assert one_line(duckdb) == str(memory.value) == (f"data file {str(twice)!r}: a name that is not a declared column "
                                                     "appears more than once in the header (not quoted, as it may be "
                                                     "a record's value: does the file have a header row?)")


@pytest.mark.parametrize("text", ["a,,b\n0,p,1\n1,q,2\n", "a,b,\n0,1,\n1,2,\n", "b,A,a,c0\n1,p,0,7\n2,q,1,7\n"])
def test_coded_files_with_such_headers_count_the_same_in_both_engines(tmp_path, text):
    domain = Domain(("a", "b"), (2, 3))
    path = tmp_path / "codes.csv"
    path.write_text(text, encoding="utf-8")
    counts = {}
    for engine in ("memory", "duckdb"):
        table = open_table(str(path), domain, engine=engine)
        counts[engine] = table.marginal_counts(["a", "b"]).tolist()
        getattr(table, "close", lambda: None)()
    assert counts["duckdb"] == counts["memory"] == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


def test_synth_writes_the_same_bytes_from_an_excel_export_in_both_engines_and_from_the_plain_file(tmp_path):
    rng = np.random.Generator(np.random.PCG64(3))
    lines = [(["x", "y", "z", ""][int(rng.integers(0, 4))], str(int(rng.integers(0, 10)))) for _ in range(200)]
    (tmp_path / "plain.csv").write_text("a,b\n" + "".join(f"{a},{b}\n" for a, b in lines), encoding="utf-8")
    (tmp_path / "excel.csv").write_text("a,b,\r\n" + "".join(f"{a},{b},\r\n" for a, b in lines), encoding="utf-8")
    SCHEMA.to_json(tmp_path / "schema.json")
    outputs = {}
    for data, engine in [("plain", "duckdb"), ("excel", "duckdb"), ("excel", "memory")]:
        out = tmp_path / f"{data}-{engine}.csv"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["synth", str(tmp_path / f"{data}.csv"), "--schema", str(tmp_path / "schema.json"),
                         "--workload", "1-2way", "--epsilon", "1", "--rounds", "3", "--seed", "0", "--engine", engine,
                         "--out", str(out), "--quiet"])
        assert code == 0, (data, engine)
        outputs[(data, engine)] = out.read_bytes()
    # the same records; the export's CRLF line ending is kept (its header row's: public)
    assert outputs[("excel", "duckdb")] == outputs[("excel", "memory")]
    assert outputs[("excel", "duckdb")].count(b"\r\n") == 201
    assert outputs[("excel", "duckdb")].replace(b"\r\n", b"\n") == outputs[("plain", "duckdb")]



@pytest.mark.parametrize("first, names, expected", [
    ("a;b;c", ["a", "b"], ";"), ("a,b", ["a", "b"], ","), ("a\tb", ["b"], "\t"), ("a | b", ["a", "b"], "|"),
    ('"x;y",b', ["x;y", "b"], ","), ("a;b", ["a", "c"], None),  # a header naming other columns: no header row
    ("a", ["a"], None),  # one column: every delimiter splits it so, and none is told
    ("", ["a"], None),
])
def test_the_output_delimiter_is_read_from_the_header_row_alone(tmp_path, first, names, expected):
    """Synthetic rows are written with the delimiter that splits the input's header row into the schema's columns.
    The header is public; the records are not, and records full of other delimiters do not move it."""
    from dprelease.schema.tables import header_style

    def delimiter(*args, **kwargs):
        style = header_style(*args, **kwargs)
        return None if style is None else style.delimiter

    records = ['"1,2;3|4",5;6\t7|8'] * 50
    (tmp_path / "t.csv").write_text("\n".join(["", first, *records]) + "\n", encoding="utf-8")
    assert delimiter(tmp_path / "t.csv", names) == expected
    (tmp_path / "skip.csv").write_text("\n".join(["title;of,the|report", first, *records]) + "\n", encoding="utf-8")
    assert delimiter(tmp_path / "skip.csv", names, skip_rows=1) == expected
    assert delimiter(tmp_path / "none.csv", names) is None  # unreadable: the caller writes commas


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("mark", [False, True])
def test_the_output_line_ending_and_byte_order_mark_are_the_header_rows(tmp_path, newline, mark):
    """A new user's sensor table saved by Excel as "CSV UTF-8" (a byte-order mark, CRLF, cities such as São Paulo)
    came back with LF and no mark, which Excel opens as the local code page (SÃ£o Paulo). The header row's ending
    and the file's mark are kept, for a plain and a gzipped file, and the synthetic lines are records of the
    schema's values (a file whose lines end both ways is refused by the reader, so the header's ending is the
    file's)."""
    import gzip

    from dprelease.schema.tables import CsvStyle, header_style

    records = [f"{'São Paulo' if i % 3 else 'Zürich'};{i % 5}" for i in range(60)]
    text = ("\ufeff" if mark else "") + "city;n" + newline + newline.join(records) + newline
    (tmp_path / "t.csv").write_bytes(text.encode("utf-8"))
    with gzip.open(tmp_path / "t.csv.gz", "wb") as handle:
        handle.write(text.encode("utf-8"))
    for name in ("t.csv", "t.csv.gz"):
        assert header_style(tmp_path / name, ["city", "n"]) == CsvStyle(";", newline, mark), name
    Schema.from_dict({"format": "dprelease-schema/1", "columns": {
        "city": {"type": "categorical", "values": ["São Paulo", "Zürich"]},
        "n": {"type": "integer", "bounds": [0, 4]}}}).to_json(tmp_path / "schema.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["synth", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "schema.json"), "--workload",
                     "1-2way", "--epsilon", "1", "--seed", "0", "--out", str(tmp_path / "s.csv"), "--quiet",
                     "--release", str(tmp_path / "r.json")]) == 0
    decoded = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["decoded"]
    assert {k: decoded.get(k) for k in ("delimiter", "line_ending", "byte_order_mark")} == {
        "delimiter": ";", "line_ending": "CRLF" if newline == "\r\n" else None, "byte_order_mark": mark or None}
    written = (tmp_path / "s.csv").read_bytes()
    assert written.startswith(b"\xef\xbb\xbfcity;n") == mark and written.startswith(b"city;n") != mark
    lines = written.decode("utf-8-sig").split(newline)
    assert len(lines) == 62 and lines[-1] == "" and all("\r" not in line and "\n" not in line for line in lines)
    assert set(lines[1:-1]) <= {f"{city};{n}" for city in ("São Paulo", "Zürich") for n in range(5)}
    with pytest.raises(InputError, match="newline must be"):
        CsvStyle(newline="\r")


@pytest.mark.parametrize(("text", "said"), odd_csv.LOOSE_HEADERS)
def test_a_header_written_in_another_case_is_said_to_be_so_in_both_engines(tmp_path, text, said):
    """A new user's header `AGE,Region` for a schema's `age`, `region`: the first row named no column exactly, so it
    was read as a record, and the error said every column's values were not numbers or not in the category list.
    Now the one line says the names differ in case; a header that names some columns exactly says which of the
    others it has in another case. Neither quotes the file's own cells (only the schema's names)."""
    path = odd_csv.write(tmp_path, "loose.csv", text)
    assert {engine: odd_csv.read(path, engine, "raw") for engine in ("memory", "duckdb")} == \
        dict.fromkeys(("memory", "duckdb"), f"data file {path!r}{said}")


def test_a_headerless_record_spelling_one_column_name_still_reads_as_a_record(tmp_path):
    """Half the names, but only one of two: a record (`A,1`) may hold a value spelled like a column."""
    from dprelease.schema.tables import check_loosely_named

    check_loosely_named(["A", "1"], ["a", "b"], "t")  # no error
    with pytest.raises(InputError, match="names 1 of the schema's 1 columns"):
        check_loosely_named(["Hours Per Week"], ["hours-per-week"], "t")


def test_a_date_column_reads_the_date_as_written_and_a_datetime_column_the_instant(tmp_path):
    """2024-02-01T00:30+01:00 is February 1 where it was written and January 31 in UTC. A date column took the UTC
    date, so an offset east of UTC put local midnights on the day before; it now takes the date as written (the
    time and offset dropped, as a zoned DataFrame's date is its zone's), and a datetime column the UTC instant, in
    both engines (tests/raw_tables.py's offsets check that they agree)."""
    written = ["2024-02-01T00:30:00+01:00", "2023-12-31T23:00:00-02:00", "2024-01-31T23:59:59Z", "2020-01-05+01:00",
               "2024-01-15 06:00+05:30"]
    (tmp_path / "t.csv").write_text("day,at\n" + "".join(f"{w},{w}\n" for w in written), encoding="utf-8")
    schema = Schema.from_dict({"day": {"type": "date", "bounds": ["2020-01-01", "2024-12-31"], "unit": "day"},
                               "at": {"type": "datetime", "bounds": ["2020-01-01T00:00:00", "2024-12-31T23:59:59"],
                                      "unit": "hour"}})
    days = [int((np.datetime64(w[:10]) - np.datetime64("2020-01-01")).astype(int)) for w in written]
    utc = ["2024-01-31T23:30", "2024-01-01T01:00", "2024-01-31T23:59", "2020-01-04T23:00", "2024-01-15T00:30"]
    hours = [int((np.datetime64(u) - np.datetime64("2020-01-01T00:00")).astype("timedelta64[h]").astype(int))
             for u in utc]
    expected = np.column_stack([days, hours])
    assert np.array_equal(encode(tmp_path / "t.csv", schema), expected)
    table = open_table(str(tmp_path / "t.csv"), schema=schema, engine="duckdb")
    try:
        assert table.marginal_counts(["day", "at"]).sum() == len(written)
        assert all(table.marginal_counts(["day", "at"])[d, h] == 1 for d, h in expected)
    finally:
        table.close()

UNTERMINATED = [  # (the file's text, with SECRET inside the broken quote)
    'a,b\nx,1\n"SECRET,2\ny,3\n',
    'a,b\nx,1\ny,"SECRET\nx,3\n',
    'a,b\nx,1\n"SECRET"tail,2\n',
]


@pytest.mark.parametrize("text", UNTERMINATED)
def test_an_unterminated_quote_is_one_line_naming_the_file_and_the_problem(tmp_path, text):
    path = tmp_path / "quotes.csv"
    path.write_text(text, encoding="utf-8")
    coded = tmp_path / "codes.csv"
    coded.write_text(text.replace("x", "0").replace("y", "1"), encoding="utf-8")
    for engine in ("memory", "duckdb"):
        for file, options in [(path, {"schema": SCHEMA}), (coded, {"domain": Domain(("a", "b"), (2, 4))})]:
            with pytest.raises(InputError) as exc:
                open_table(str(file), engine=engine, **options)
            assert one_line(exc) == (f"data file {str(file)!r} cannot be read as CSV (a quoted field is never closed, "
                                     "or text follows its closing quote)"), engine
            assert "SECRET" not in str(exc.value)


def test_a_file_without_a_header_is_not_said_to_have_one(tmp_path):
    path = tmp_path / "bare.csv"
    path.write_text('x,1\n"SECRET,2\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        DuckDBTable.open(str(path), schema=SCHEMA, header=False)
    assert one_line(exc) == (f"data file {str(path)!r} cannot be read as CSV (a quoted field is never closed, or "
                             "text follows its closing quote)")


def test_csv_parts_with_other_headers_say_so(tmp_path):
    """Parts whose headers differ were refused as '(delimiter or header)', which did not say which."""
    from dprelease.schema import Schema

    schema = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y"]}, "b": {"type": "boolean"}})
    (tmp_path / "part-0.csv").write_text("a,b\nx,true\n")
    (tmp_path / "part-1.csv").write_text("b,a\ntrue,y\n")
    with pytest.raises(InputError, match=r"\(their headers name other columns or the same in another order: CSV "
                                         r"parts share one header\)$"):
        open_table(str(tmp_path / "part-*.csv"), schema=schema).marginal_counts(["a"])
    (tmp_path / "part-1.csv").write_text("a;b\ny;true\n")
    with pytest.raises(InputError, match=r"\(its delimiter differs\)$"):
        open_table(str(tmp_path / "part-*.csv"), schema=schema).marginal_counts(["a"])


@pytest.mark.parametrize(("name", "text", "problem"), odd_csv.CASES, ids=[case[0] for case in odd_csv.CASES])
@pytest.mark.parametrize("mode", ["coded", "raw"])
def test_odd_files_read_alike_or_are_refused_in_the_same_words(tmp_path, name, text, problem, mode):
    """Found in a trial: a line ending in a delimiter (DuckDB read it, memory refused it), ``"1"x`` (memory read
    ``1x``, DuckDB refused it), LF and CRLF in one file (DuckDB: '(InvalidInputException)'), empty lines in a file
    of codes (memory refused them, DuckDB skipped them)."""
    path = odd_csv.write(tmp_path, "odd.csv", text)
    plain = odd_csv.read(odd_csv.write(tmp_path, "plain.csv", odd_csv.PLAIN), "memory", mode)
    expected = plain if problem is None else f"data file {path!r} cannot be read as CSV ({problem})"
    for engine in ("memory", "duckdb"):
        assert odd_csv.read(path, engine, mode) == expected, engine
    assert "SECRET" not in expected


def test_a_quote_inside_an_unquoted_field_is_a_character_of_it_in_both_engines(tmp_path):
    text, expected = odd_csv.STRAY_QUOTE
    path = odd_csv.write(tmp_path, "stray.csv", text)
    assert odd_csv.read(path, "memory", "raw") == odd_csv.read(path, "duckdb", "raw") == expected


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_empty_lines_are_no_rows_in_a_one_column_file_of_codes(tmp_path, newline):
    path = odd_csv.write(tmp_path, "one.csv", newline.join(["", "a", "0", "", "1", "1", "", ""]))
    domain = Domain(("a",), (2,))
    for engine in ("memory", "duckdb"):
        assert open_table(path, domain, engine=engine).marginal_counts(["a"]).tolist() == [1.0, 2.0], engine
    quoted = odd_csv.write(tmp_path, "quoted.csv", 'a\n0\n""\n')  # a quoted empty cell is a row: an empty code
    for engine in ("memory", "duckdb"):
        with pytest.raises(InputError, match="empty or missing cells"):
            open_table(quoted, domain, engine=engine)


@pytest.mark.parametrize("columns", [["b"], ["b", "a"], ["a", "b"]])
def test_some_columns_of_a_file_without_a_header_are_found_by_their_place(tmp_path, columns):
    """A file without a header row holds one field per column of the whole schema (raw Adult's adult.data is one):
    a schema of some of its columns (--columns) reads them by their place in the whole schema, in every engine, to
    the codes the whole file gives; before, the reader counted the selected columns and refused the file."""
    whole = odd_csv.HEADERLESS_SCHEMA
    path = tmp_path / "bare.csv"
    path.write_text(odd_csv.HEADERLESS)
    expected = encode(path, whole)[:, [whole.names.index(c) for c in columns]]
    some = whole.select(columns)
    assert some.file_names == whole.names and some.layout == whole.names and whole.layout is None
    assert np.array_equal(encode(path, some), expected)
    assert np.array_equal(open_table(str(path), schema=some, engine="memory").records, expected)
    with DuckDBTable.open(str(path), schema=some) as table:
        assert np.array_equal(table.to_records(), expected)
    with pytest.raises(InputError, match="its rows have 3 fields where the schema has 4 columns"):
        encode(path, Schema(whole.columns, layout=("a", "skip", "b", "more")))  # the whole schema's count decides


def test_numbers_written_with_thousands_separators_and_signs_encode_alike_in_memory_and_duckdb(tmp_path):
    """A US export ($1,234.50, 12%) and a French column (1 234,5 and a euro sign): with "thousands" and "symbols" the
    in-memory reader and DuckDB's SQL read them to the same codes; the decoded rows write their numbers with the
    declared thousands separator (a decimal comma kept), which encode again to the released codes. Bad options are
    refused, naming the column."""
    schema = odd_csv.SIGNS_SCHEMA
    path = tmp_path / "us.csv"
    path.write_text(odd_csv.SIGNS, encoding="utf-8")
    codes = encode(path, schema)
    # 1,234.50 in [1000, 10000); 12 % in 10..19; 1 234,5 in bin 124 of 10 from -10; "$ 7" in [0, 100); NULL last
    assert codes.tolist() == [[2, 1, 124], [0, 0, 1], [3, 5, 2], [1, 0, 0], [0, 9, 201]]
    with DuckDBTable.open(str(path), schema=schema) as table:
        assert np.array_equal(table.to_records(), codes)
    text = decode(codes, schema, values="midpoint").csv()
    assert "$" not in text and "%" not in text and text.splitlines()[1] == '"5,500",14,1 235'  # whole: no ",0"
    drawn = decode(codes, schema, rng=np.random.Generator(np.random.PCG64(0))).csv()
    assert re.search(r'"-?\d+,\d+"', drawn)  # a drawn decimal keeps the column's comma
    for name, written in (("back.csv", text), ("drawn.csv", drawn)):
        (tmp_path / name).write_text(written, encoding="utf-8")
        assert np.array_equal(encode(tmp_path / name, schema), codes)
    assert Schema.from_dict(schema.to_dict()).to_dict() == schema.to_dict()  # the options survive the JSON
    swiss = Schema.from_dict({"v": {"type": "numeric", "edges": [0, 10, 100, 1000, 10000, 100000], "thousands": "'",
                                    "symbols": ["CHF"]}})  # an apostrophe: a quote in SQL, escaped there
    (tmp_path / "ch.csv").write_text("v\n1'234.5\n12'000\n7\nCHF 99\n", encoding="utf-8")
    assert encode(tmp_path / "ch.csv", swiss).ravel().tolist() == [3, 4, 0, 1]
    with DuckDBTable.open(str(tmp_path / "ch.csv"), schema=swiss) as table:
        assert table.to_records().ravel().tolist() == [3, 4, 0, 1]
    plain = Schema.from_dict({"price": {"type": "numeric", "edges": [0, 100, 1000, 10000, 100000]}})
    with pytest.raises(InputError, match='declare "thousands": ","'):  # the hint names the option that reads it
        encode(tmp_path / "us.csv", plain)
    for spec, message in [({"thousands": ";"}, "thousands must be one of"),
                          ({"thousands": ".", "decimal": "."}, "thousands and decimal must differ"),
                          ({"symbols": "$"}, "symbols must be a list of strings"),
                          ({"symbols": ["-"]}, "each symbol must be a non-blank string without digits")]:
        with pytest.raises(InputError, match=message):
            Schema.from_dict({"p": {"type": "numeric", "bounds": [0, 1], "bins": 2, **spec}})
    with pytest.raises(InputError, match="unknown field 'symbols' for a date column"):
        Schema.from_dict({"d": {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "symbols": ["$"]}})


def test_numbers_written_with_a_decimal_comma_encode_alike_in_memory_and_duckdb(tmp_path):
    """A European export: a semicolon file whose numbers write their decimals with a comma and group thousands with a
    dot (or a space, no-break or not: 1 234,5). With "decimal": "," the in-memory reader and DuckDB's SQL read
    1.234,5 and 1 234,5 as 1234.5, to the same codes; the decoded rows write their numbers back with a comma, and
    encode again to the released codes."""
    schema = odd_csv.DECIMAL_SCHEMA
    path = tmp_path / "eu.csv"
    path.write_text(odd_csv.DECIMAL, encoding="utf-8")
    codes = encode(path, schema)
    # bins of 10 from -10; NULL last; 1 234,5 and 2 000 grouped by no-break spaces, 1 999,0 and 1 234 by spaces
    assert codes.tolist() == [[1, 0], [2, 1], [124, 0], [0, 4], [201, 0], [124, 2], [200, 1]]
    with DuckDBTable.open(str(path), schema=schema) as table:
        assert np.array_equal(table.to_records(), codes)
    decoded = decode(codes, schema, values="midpoint")
    text = decoded.csv()
    assert text.splitlines()[1:4] == ["5,499", "15,1499", "1235,499"]  # 3,5 sits in [0, 10): its midpoint, whole
    drawn = decode(codes, schema, rng=np.random.Generator(np.random.PCG64(0))).csv()
    assert re.search(r'"-?\d+,\d+"', drawn)  # a drawn decimal is written with a comma
    for name, written in (("back.csv", text), ("drawn.csv", drawn)):
        (tmp_path / name).write_text(written)
        assert np.array_equal(encode(tmp_path / name, schema), codes)
    assert schema.to_dict()["columns"]["price"]["decimal"] == ","
    with pytest.raises(InputError, match="decimal must be"):
        Schema.from_dict({"p": {"type": "numeric", "bounds": [0, 1], "bins": 2, "decimal": ";"}})
    with pytest.raises(InputError, match="unknown field 'decimal' for a date column"):
        Schema.from_dict({"d": {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "decimal": ","}})


def _dates_expected(schema: Schema) -> list[list[int]]:
    """tests/odd_csv.py's DATES_BINS as codes of ``schema`` (its NULL and other codes)."""
    columns = schema.columns
    return [[{"other": c.other_code, "null": c.null_code}.get(b, b) for c, b in zip(columns, row)]
            for row in odd_csv.DATES_BINS]


def test_dates_written_in_a_declared_format_encode_alike_in_memory_and_duckdb(tmp_path):
    """Spreadsheets and portals write dates as 10/3/2019, 05.01.2020 13:45 or Jan 05, 2020 12:00:00 AM. A date or
    datetime column's ``format`` (strptime directives) reads them: in memory by a regular expression and the ISO
    checks, in DuckDB by the same expression in SQL, to the same codes; what is not a date of the format (Feb 30, a
    12-hour clock at 0, ISO text) goes to other. The decoded rows write their dates back in the format and encode
    again to the released codes. On 10,500 fuzzed values, most of them wrong in some field, the two engines agree
    value for value, and some of every format parse."""
    schema = odd_csv.DATES_SCHEMA
    path = tmp_path / "dates.csv"
    path.write_text(odd_csv.DATES, encoding="utf-8")
    codes = encode(path, schema)
    assert codes.tolist() == _dates_expected(schema)
    with DuckDBTable.open(str(path), schema=schema) as table:
        assert np.array_equal(table.to_records(), codes)
    decoded = decode(codes, schema, values="midpoint")
    text = decoded.csv()
    assert "07/02/2019" in text.splitlines()[1] and "Jan 05, 2020 12:29:59 PM" in text  # the midpoints, as written
    (tmp_path / "back.csv").write_text(text, encoding="utf-8")
    assert np.array_equal(encode(tmp_path / "back.csv", schema), codes)
    assert Schema.from_dict(schema.to_dict()["columns"]).column("logged").format == "%b %d, %Y %I:%M:%S %p"
    fuzzed, fuzzed_schema = odd_csv.fuzzed_dates_table(tmp_path)
    memory = encode(fuzzed, fuzzed_schema)
    with DuckDBTable.open(str(fuzzed), schema=fuzzed_schema) as table:
        assert np.array_equal(table.to_records(), memory)
    for i, column in enumerate(fuzzed_schema.columns):
        assert 0 < (memory[:, i] != column.other_code).sum() < len(memory), column.format


@pytest.mark.parametrize(("text_format", "problem"), [
    ("%m/%d", "must name the year"), ("%Y-%j", "uses %j"), ("%Y-%m-%d %z", "uses %z"), ("%Y-%m-%d %", "a lone %"),
    ("%Y/%m/%d %I:%M", r"%I \(12-hour clock\) with %p"), ("%Y %m %d %y", "names a field twice"), ("", "non-empty")])
def test_a_bad_date_format_is_refused_naming_the_column(text_format, problem):
    with pytest.raises(InputError, match=rf"column 'd'.*{problem}"):
        Schema.from_dict({"d": {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "format": text_format}})
    with pytest.raises(InputError, match="unknown field 'format' for a numeric column"):
        Schema.from_dict({"n": {"type": "numeric", "bounds": [0, 1], "bins": 2, "format": "%Y"}})


def test_gzipped_csv_files_read_alike_in_memory_and_duckdb(tmp_path):
    """A CSV compressed as ``.csv.gz`` (how Spark writes compressed part files, and how large exports travel) reads in
    memory as DuckDB reads it: the same codes, for a raw table and for a table of codes (DuckDB: a folder of parts
    too). A damaged or mislabelled one is one line naming the file, quoting none of its bytes, in both engines."""
    import gzip

    schema = odd_csv.DATES_SCHEMA
    (tmp_path / "dates.csv").write_text(odd_csv.DATES, encoding="utf-8")
    with gzip.open(tmp_path / "dates.csv.gz", "wt", encoding="utf-8", newline="") as handle:
        handle.write(odd_csv.DATES)
    expected = open_table(str(tmp_path / "dates.csv"), schema=schema, engine="memory").marginal_counts(schema.names)
    for engine in ("memory", "duckdb"):
        counts = open_table(str(tmp_path / "dates.csv.gz"), schema=schema, engine=engine).marginal_counts(schema.names)
        assert np.array_equal(counts, expected), engine
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, lines in enumerate((["a,b", "0,1", "1,2"], ["a,b", "1,0", "1,1"])):
        with gzip.open(parts / f"part-{i:05d}.csv.gz", "wt", encoding="utf-8", newline="") as handle:
            handle.write("\n".join(lines) + "\n")
    domain = Domain(("a", "b"), (2, 3))
    counts = open_table(str(parts), domain, engine="duckdb").marginal_counts(["a", "b"])  # memory reads one file
    assert counts.tolist() == [[0, 1, 0], [1, 1, 1]]
    one_part = open_table(str(parts / "part-00001.csv.gz"), domain, engine="memory")
    assert one_part.marginal_counts(["a"]).tolist() == [0, 2]
    whole = (tmp_path / "dates.csv.gz").read_bytes()
    (tmp_path / "cut.csv.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "plain.csv.gz").write_text(odd_csv.DATES, encoding="utf-8")
    for name in ("cut.csv.gz", "plain.csv.gz"):
        for engine in ("memory", "duckdb"):
            with pytest.raises(InputError) as info:
                open_table(str(tmp_path / name), schema=schema, engine=engine)
            message = str(info.value)
            assert f"data file '{tmp_path / name}' cannot be read" in message and "\n" not in message
            assert "visit" not in message and "b'" not in message, message


def test_dates_written_back_in_their_format_read_back_for_every_date_a_schema_holds():
    """The decoder writes a formatted date field by field (not by strftime, whose month names follow the locale and
    whose years below 1000 come out short): 12 AM and PM, the year 999 and the year 0, English month names, and a
    literal %, each read back to the same second (with %y, to the same date in its 1969-2068 window)."""
    from dprelease.schema.parse import format_times, parse_formatted_times

    stamps = np.array(["2019-10-03T00:30:00", "0999-01-05T13:05:09", "2020-01-05T12:00:00", "0000-03-01T23:59:59"],
                      dtype="datetime64[s]")
    seconds = stamps.astype(np.int64)
    for text_format, first in [("%m/%d/%Y %I:%M:%S %p", "10/03/2019 12:30:00 AM"),
                               ("%B %d, %Y %H:%M:%S.%f", "October 03, 2019 00:30:00.000000"),
                               ("100%% %d.%m.%Y %H:%M:%S", "100% 03.10.2019 00:30:00")]:
        written = format_times(stamps, text_format)
        assert written[0] == first
        values, ok = parse_formatted_times(written, text_format, "s")
        assert ok.all() and values.tolist() == seconds.tolist(), text_format
    written = format_times(stamps, "%d-%b-%y")
    assert written.tolist() == ["03-Oct-19", "05-Jan-99", "05-Jan-20", "01-Mar-00"]
    days, ok = parse_formatted_times(written, "%d-%b-%y", "D")
    expected = np.array(["2019-10-03", "1999-01-05", "2020-01-05", "2000-03-01"], dtype="datetime64[D]")
    assert ok.all() and days.tolist() == expected.astype(np.int64).tolist()
