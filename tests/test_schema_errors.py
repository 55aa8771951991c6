"""Bad inputs of the schema, the encoder and ``dprelease schema``: one line naming the column (or the
parameter) and, for the CLI, exit code 2, nothing written, nothing spent, no random draw. And no error
message quotes a private value or counts private rows unless ``show_values=True``."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprelease.cli import main
from dprelease.errors import InputError, InputTypeError
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.schema import Schema, decode, encode
from tests.counting import count_random_draws
from tests.test_bad_inputs import snapshot

# id, schema JSON (as a dict), error type, fragments of the message
SCHEMA_CASES = [
    ("unknown-type", {"a": {"type": "float"}}, InputError, ("'a'", "type must be one of", "'float'")),
    ("no-type", {"a": {"values": ["x"]}}, InputError, ("'a'", "got None")),
    ("bool-size", {"a": True}, InputError, ("'a'", "True")),
    ("zero-codes", {"a": 0}, InputError, ("'a'", "codes must be an integer >= 1", "got 0")),
    ("string-spec", {"a": "x"}, InputError, ("'a'", "'x'")),
    ("unknown-field", {"a": {"type": "integer", "bounds": [0, 1], "bin": 3}}, InputError, ("'a'", "'bin'")),
    ("values-string", {"a": {"type": "categorical", "values": "xy"}}, InputTypeError, ("'a'", "'xy'")),
    ("values-empty", {"a": {"type": "categorical", "values": []}}, InputError, ("'a'", "at least one category")),
    ("values-duplicate", {"a": {"type": "categorical", "values": ["x", "x"]}}, InputError, ("'a'", "'x'", "more than once")),
    ("values-int-and-text", {"a": {"type": "categorical", "values": [1, "1"]}}, InputError, ("'a'", "more than once")),
    ("values-float", {"a": {"type": "categorical", "values": [1.5]}}, InputTypeError, ("'a'", "1.5")),
    ("values-marker", {"a": {"type": "categorical", "values": ["<other>"]}}, InputError, ("'a'", "reserved")),
    ("bounds-reversed", {"a": {"type": "integer", "bounds": [9, 1]}}, InputError, ("'a'", "[9, 1]")),
    ("bounds-float-int", {"a": {"type": "integer", "bounds": [0, 1.5]}}, InputError, ("'a'", "high=1.5")),
    ("bounds-shape", {"a": {"type": "integer", "bounds": [1]}}, InputError, ("'a'", "bounds must be a list", "[1]")),
    ("bounds-nan", {"a": {"type": "numeric", "bounds": [0, float("nan")], "bins": 2}}, InputError, ("'a'", "nan")),
    ("bounds-equal-numeric", {"a": {"type": "numeric", "bounds": [1, 1], "bins": 2}}, InputError, ("'a'", "low must be < high")),
    ("bins-zero", {"a": {"type": "integer", "bounds": [0, 9], "bins": 0}}, InputError, ("'a'", "bins", "got 0")),
    ("decimals-negative", {"a": {"type": "numeric", "bounds": [0, 1], "bins": 2, "decimals": -1}}, InputError,
     ("'a'", "decimals", "-1")),
    ("decimals-float", {"a": {"type": "numeric", "bounds": [0, 1], "bins": 2, "decimals": 2.5}}, InputError,
     ("'a'", "decimals", "2.5")),
    ("decimals-on-an-integer", {"a": {"type": "integer", "bounds": [0, 9], "decimals": 2}}, InputError,
     ("'a'", "unknown field 'decimals'")),
    ("hours-count", {"a": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-01-31T23:59:59"],
                           "time_of_day": [1] * 23}}, InputError, ("'a'", "24 weights")),
    ("hours-negative", {"a": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-01-31T23:59:59"],
                              "time_of_day": [-1] + [1] * 23}}, InputError, ("'a'", ">= 0 with a positive sum")),
    ("hours-on-a-date", {"a": {"type": "date", "bounds": ["2024-01-01", "2024-01-31"], "time_of_day": [1] * 24}},
     InputError, ("'a'", "unknown field 'time_of_day'")),
    ("bins-too-many", {"a": {"type": "integer", "bounds": [0, 3], "bins": 9}}, InputError, ("'a'", "bins=9")),
    ("numeric-no-bins", {"a": {"type": "numeric", "bounds": [0, 1]}}, InputError, ("'a'", "needs bins, width or edges")),
    ("width-and-bins", {"a": {"type": "numeric", "bounds": [0, 1], "bins": 2, "width": 0.5}}, InputError,
     ("'a'", "bins and width")),
    ("width-negative", {"a": {"type": "numeric", "bounds": [0, 1], "width": -1}}, InputError, ("'a'", "width", "-1")),
    ("edges-unsorted", {"a": {"type": "numeric", "edges": [0, 2, 1]}}, InputError, ("'a'", "increase strictly", "2")),
    ("edges-one", {"a": {"type": "integer", "edges": [3]}}, InputError, ("'a'", "at least 2")),
    ("edges-disagree", {"a": {"type": "integer", "bounds": [0, 5], "edges": [1, 5]}}, InputError,
     ("'a'", "low=0 disagrees with the edges, which give 1", "the first and last edges are the bounds")),
    ("edges-past-high", {"a": {"type": "integer", "bounds": [1, 21], "edges": [1, 7, 22]}}, InputError,
     ("'a'", "high=21", "which give 22", "last bin holds its last edge")),
    ("date-edges-disagree", {"a": {"type": "date", "bounds": ["2024-01-01", "2024-12-31"],
                                   "edges": ["2024-01-01", "2024-07-01", "2025-01-01"]}}, InputError,
     ("'a'", "high='2024-12-31'", "which give '2025-01-01'", "the first and last edges are the bounds")),
    ("other-and-clip", {"a": {"type": "integer", "bounds": [0, 9], "other": True, "clip": True}}, InputError,
     ("'a'", "either other or clip")),
    ("null-not-bool", {"a": {"type": "integer", "bounds": [0, 9], "null": "yes"}}, InputTypeError, ("'a'", "'yes'")),
    ("too-many-codes", {"a": {"type": "integer", "bounds": [0, 10**7]}}, InputError, ("'a'", "cap")),
    ("date-bad", {"a": {"type": "date", "bounds": ["2020-13-01", "2021-01-01"]}}, InputError, ("'a'", "'2020-13-01'")),
    ("date-number", {"a": {"type": "date", "bounds": [2020, 2021]}}, InputError, ("'a'", "2020")),
    ("date-unit", {"a": {"type": "date", "bounds": ["2020-01-01", "2021-01-01"], "unit": "hour"}}, InputError,
     ("'a'", "'hour'")),
    ("date-bins", {"a": {"type": "date", "bounds": ["2020-01-01", "2021-01-01"], "bins": 3}}, InputError,
     ("'a'", "'bins'")),
    ("boolean-overlap", {"a": {"type": "boolean", "true": ["y"], "false": ["y"]}}, InputError, ("'a'", "['y']")),
    ("tokens-not-list", {"a": {"type": "boolean", "null_tokens": "NA"}}, InputTypeError, ("'a'", "'NA'")),
    ("category-is-null-token", {"format": "dprelease-schema/1", "null_tokens": ["", "NA"],
                                "columns": {"a": {"type": "categorical", "values": ["EU", "NA"]}}}, InputError,
     ("'a'", "category 'NA' is also a NULL token")),
    ("column-token-is-category", {"a": {"type": "categorical", "values": ["x", "-"], "null_tokens": ["-"]}}, InputError,
     ("'a'", "category '-'")),
    ("boolean-word-is-null-token", {"a": {"type": "boolean", "null_tokens": ["N"]}}, InputError,
     ("'a'", "true/false word 'N'")),
    ("no-columns", {}, InputError, ("at least one column",)),
    ("format-columns", {"format": "dprelease-schema/1", "columns": [1]}, InputError, ("columns must be",)),
    ("format-unknown", {"format": "dprelease-schema/9", "columns": {}}, InputError, ("'dprelease-schema/9'",)),
    ("format-field", {"format": "dprelease-schema/1", "columns": {"a": 2}, "extra": 1}, InputError, ("['extra']",)),
    ("draft-mode", {"format": "dprelease-schema/1", "columns": {"a": 2}, "draft": {"mode": "guess"}}, InputError,
     ("'guess'",)),
    ("draft-ledger", {"format": "dprelease-schema/1", "columns": {"a": 2}, "draft": {"mode": "dp"}}, InputError,
     ("privacy_ledger",)),
]


@pytest.mark.parametrize(("raw", "error", "fragments"), [c[1:] for c in SCHEMA_CASES], ids=[c[0] for c in SCHEMA_CASES])
def test_schema_mistakes_are_one_line_naming_the_column(raw, error, fragments):
    with pytest.raises(error) as info:
        Schema.from_dict(raw)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_schema_file_mistakes(tmp_path):
    (tmp_path / "dup.json").write_text('{"a": 2, "a": 3}')
    (tmp_path / "bad.json").write_text('{"a": ')
    for name, fragment in (("dup.json", "'a' appears more than once"), ("bad.json", "not valid JSON"),
                           ("none.json", "cannot be read")):
        with pytest.raises(InputError, match=re.escape(fragment)):
            Schema.from_json(tmp_path / name)
    # the file's text given for its name: said so, not quoted back whole as a file name that is too long
    text = Schema.from_dict({"a": {"type": "integer", "bounds": [0, 9]}}).dumps() * 50
    with pytest.raises(InputError, match=r"^schema file: got JSON text, not a file name: read text with "
                                         r"Schema.loads\(text\)") as info:
        Schema.from_json(text)
    assert len(str(info.value)) < 200


# --------------------------------------------------------------- encoding
SCHEMA = Schema.from_dict({
    "age": {"type": "integer", "bounds": [17, 90]},
    "job": {"type": "categorical", "values": ["clerk", "smith"]},
    "pay": {"type": "numeric", "bounds": [0, 100], "bins": 4},
    "day": {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "unit": "month"},
    "flag": {"type": "boolean"},
    "code": 3,
    "kept": {"type": "categorical", "values": ["x"], "other": True, "null": True},
})
GOOD_ROW = ["30", "clerk", "50.5", "2020-05-05", "yes", "1", "x"]
# A planted private value per column kind and failure, in 13 rows each.
PLANTED = {"age": ("NULL values", "", "declare null"), "job": ("not in the category list", "SECRETJOB", "other"),
           "pay": ("outside the bounds [0, 100]", "98765.4321", "clip"), "day": ("not ISO 8601 dates", "31/12/2020", "other"),
           "flag": ("not true/false words", "PLANTEDWORD", "other"), "code": ("outside the bounds [0, 2]", "424242", "other")}
BAD_ROWS = 13


def planted_csv(tmp_path: Path) -> Path:
    rows = [GOOD_ROW] * 80
    for i, (column, (_, value, _)) in enumerate(PLANTED.items()):
        position = SCHEMA.names.index(column)
        for r in range(BAD_ROWS):
            row = list(rows[6 * r + i])
            row[position] = value
            rows[6 * r + i] = row
    path = tmp_path / "planted.csv"
    path.write_text(",".join(SCHEMA.names) + "\n" + "\n".join(",".join(r) for r in rows) + "\n")
    return path


def test_every_column_problem_in_one_error_and_no_private_value_or_count(tmp_path):
    path = planted_csv(tmp_path)
    with pytest.raises(InputError) as info:
        encode(path, SCHEMA)
    message = str(info.value)
    assert "\n" not in message and "cannot encode 6 columns" in message
    for column, (kind, value, fix) in PLANTED.items():
        assert f"column {column!r}: values {kind}" in message or f"column {column!r}: {kind}" in message, message
        assert fix in message
        if value:
            assert value not in message
    # no count of private rows (the file's path is the caller's own text: pytest's tmp_path can hold any number)
    assert not re.search(rf"\b{BAD_ROWS}\b", message.replace(str(path), "<path>"))
    assert "kept" not in message  # a column with buckets absorbs its problems
    with pytest.raises(InputError) as shown:
        encode(path, SCHEMA, show_values=True)
    assert "'SECRETJOB'" in str(shown.value) and f"{BAD_ROWS} values" in str(shown.value)


def test_no_private_value_in_any_reader_or_encoder_message(tmp_path):
    secret = "ZQXSECRET"
    cases = {
        "ragged.csv": f"age,job\n30,clerk\n{secret},clerk,extra\n",
        "missing-col.csv": f"age\n{secret}\n",
        "no-header.csv": f"{secret},{secret},{secret}\n",
    }
    schema = SCHEMA.select(["age", "job"])
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(InputError) as info:
            encode(tmp_path / name, schema)
        assert secret not in str(info.value) and "\n" not in str(info.value), str(info.value)
    frame = pd.DataFrame({"age": [secret], "job": [secret]})
    with pytest.raises(InputError) as info:
        encode(frame, schema)
    assert secret not in str(info.value)


ENCODE_CASES = [
    ("missing-column", "age,job\n30,clerk\n", ("column 'pay': missing from the table", "column 'day'")),
    ("header-only", ",".join(SCHEMA.names) + "\n", ("has no rows",)),
    ("empty", "", ("is empty",)),
    ("duplicate-header", "age,age\n1,2\n", ("['age']", "more than once")),
    ("no-header-width", "1,2\n", ("no header row", "2 fields", "7 columns")),
    ("fraction-integer", ",".join(SCHEMA.names) + "\n30.5,clerk,1,2020-01-01,no,0,x\n",
     ("column 'age': values not whole numbers (where the column holds decimals, declare \"type\": \"numeric\" (with "
      "its bounds); else declare other;",)),
    ("inf-numeric", ",".join(SCHEMA.names) + "\n30,clerk,inf,2020-01-01,no,0,x\n", ("column 'pay': values outside",)),
    ("code-fraction", ",".join(SCHEMA.names) + "\n30,clerk,1,2020-01-01,no,1.5,x\n", ("column 'code': values not integer",)),
    ("decimal-comma", ";".join(SCHEMA.names) + "\n30;clerk;1,5;2020-01-01;no;0;x\n",
     ("column 'pay': values not numbers (declare other; where numbers are written 1,234.5 declare \"thousands\": "
      "\",\"; 3,5 or 1.234,5: \"decimal\": \",\"; with signs such as $ or %: \"symbols\": [\"$\", \"%\"]; text that "
      "means blank, such as N/A or -, goes in \"null_tokens\" (with \"null\": true))",)),
]


@pytest.mark.parametrize(("text", "fragments"), [c[1:] for c in ENCODE_CASES], ids=[c[0] for c in ENCODE_CASES])
def test_encoding_failures_name_the_column(tmp_path, text, fragments):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        encode(path, SCHEMA)
    assert "\n" not in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_api_type_mistakes():
    with pytest.raises(InputTypeError, match="schema must be a dprelease Schema, a dict .* got int"):
        encode(pd.DataFrame({"a": [1]}), 2)
    with pytest.raises(InputTypeError, match="DataFrame"):
        encode([[1]], Schema.from_dict({"a": 2}))
    with pytest.raises(InputError, match="shape"):
        decode(np.zeros((2, 3), dtype=int), Schema.from_dict({"a": 2}))
    with pytest.raises(InputError, match="column 'a' must lie in 0..1, got 5"):
        decode(np.array([[5]]), Schema.from_dict({"a": 2}), values="midpoint")
    with pytest.raises(InputTypeError, match="needs rng"):
        decode(np.array([[1]]), Schema.from_dict({"a": {"type": "numeric", "bounds": [0, 1], "bins": 2}}))
    with pytest.raises(InputError, match="delimiter"):
        encode("x.csv", Schema.from_dict({"a": 2}), delimiter=";;")


# ------------------------------------------------------------ dprelease schema
GOOD = "age,job,pay\n30,clerk,1.5\n40,smith,2.5\n50,clerk,\n"


def run_cli(tmp_path, monkeypatch, capsys, argv):
    charges: list[str] = []
    real = PrivacyAccountant.charge
    monkeypatch.setattr(PrivacyAccountant, "charge",
                        lambda self, **kw: charges.append(kw["label"]) or real(self, **kw))
    draws = count_random_draws(monkeypatch)
    before = snapshot(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured, charges, draws, before


CLI_CASES = [
    ("no-mode", [], ("one of the arguments --epsilon --non-private is required",)),
    ("both-modes", ["--epsilon=1", "--non-private"], ("not allowed with",)),
    ("epsilon-zero", ["--epsilon=0"], ("epsilon must be a finite number > 0", "got 0")),
    ("epsilon-text", ["--epsilon=abc"], ("--epsilon must be a number", "'abc'")),
    ("delta-one", ["--epsilon=1", "--delta=1"], ("delta must be a number in [0, 1)",)),
    ("bins-zero", ["--epsilon=1", "--bins=0"], ("bins must be an integer >= 1", "got 0")),
    ("max-categories", ["--non-private", "--max-categories=-2"], ("max_categories", "-2")),
    ("types-syntax", ["--epsilon=1", "--types=age"], ("--types", "'age'")),
    ("types-kind", ["--epsilon=1", "--types=age=float"], ("column 'age'", "'float'")),
    ("types-unknown", ["--epsilon=1", "--types=zzz=integer"], ("['zzz']",)),
    ("columns-unknown", ["--epsilon=1", "--columns=age,zzz"], ("lacks column(s) ['zzz']",)),
    ("columns-twice", ["--epsilon=1", "--columns=age,age"], ("distinct", "age")),
    ("delimiter", ["--epsilon=1", "--delimiter=;;"], ("delimiter must be one character", "';;'")),
    ("skip-rows", ["--epsilon=1", "--skip-rows=-1"], ("skip_rows", "-1")),
    ("seed", ["--epsilon=1", "--seed=-1"], ("seed must be an integer >= 0", "got -1")),
]


@pytest.mark.parametrize(("extra", "fragments"), [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_schema_cli_mistakes(tmp_path, monkeypatch, capsys, extra, fragments):
    data = tmp_path / "data.csv"
    data.write_text(GOOD)
    out = tmp_path / "out" / "schema.json"
    code, captured, charges, draws, before = run_cli(tmp_path, monkeypatch, capsys,
                                                      ["schema", str(data), f"--out={out}", *extra])
    err = captured.err
    assert code == 2, err
    assert err.startswith("dprelease: error:") and err.count("\n") == 1, err
    for fragment in fragments:
        assert fragment in err, err
    assert captured.out == "" and snapshot(tmp_path) == before and not out.exists()
    assert charges == [] and draws == []


@pytest.mark.parametrize("case", ["missing-file", "out-is-input", "out-is-folder", "out-not-json", "header-only",
                                  "ragged"])
def test_schema_cli_file_mistakes(tmp_path, monkeypatch, capsys, case):
    data = tmp_path / "data.csv"
    data.write_text({"header-only": "age,job\n", "ragged": "age,job\n1,2,3\n"}.get(case, GOOD))
    out = {"out-is-input": data, "out-is-folder": tmp_path, "out-not-json": tmp_path / "s.txt"}.get(
        case, tmp_path / "s.json")
    source = tmp_path / "nope.csv" if case == "missing-file" else data
    code, captured, charges, draws, before = run_cli(tmp_path, monkeypatch, capsys,
                                                      ["schema", str(source), f"--out={out}", "--epsilon=1"])
    assert code == 2 and captured.err.count("\n") == 1, captured.err
    assert snapshot(tmp_path) == before and charges == [] and draws == []


def _reading_command(command: str, data: Path, schema: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """The output path and argv of one of the three commands that read a data file: ``schema`` (a draft), ``synth``
    through DuckDB, and ``synth`` in memory."""
    out = tmp_path / "out.json" if command == "schema" else tmp_path / "out.csv"
    argv = {"schema": ["schema", str(data), f"--out={out}", "--epsilon=1"],
            "synth-duckdb": ["synth", str(data), f"--schema={schema}", "--workload=1way", "--epsilon=1", f"--out={out}"],
            "synth-memory": ["synth", str(data), f"--schema={schema}", "--workload=1way", "--epsilon=1", f"--out={out}",
                             "--engine=memory"]}[command]
    return out, argv


@pytest.mark.parametrize("command", ["schema", "synth-duckdb", "synth-memory"])
def test_a_file_not_in_utf8_is_refused_with_how_to_convert_it(tmp_path, monkeypatch, capsys, command):
    """A Windows-1252 export (the usual non-UTF-8 CSV): every reader stops with one line that says the file is not
    UTF-8 and how to convert it, before anything is charged or written."""
    data = tmp_path / "data.csv"
    data.write_bytes(GOOD.replace("clerk", "cl\u00e9rk").encode("cp1252"))
    schema = tmp_path / "schema.json"
    Schema.from_dict({"age": {"type": "integer", "bounds": [0, 99]}, "job": {"type": "categorical", "values": ["a"],
                      "other": True}, "pay": {"type": "numeric", "bounds": [0, 9], "bins": 3, "null": True}}).to_json(schema)
    out, argv = _reading_command(command, data, schema, tmp_path)
    code, captured, charges, draws, before = run_cli(tmp_path, monkeypatch, capsys, argv)
    assert code == 2 and captured.err.count("\n") == 1, captured.err
    assert f"data file {str(data)!r} is not UTF-8 text: convert it to UTF-8 first" in captured.err, captured.err
    assert snapshot(tmp_path) == before and not out.exists() and charges == [] and draws == []


def test_schema_cli_control_cases_succeed(tmp_path, monkeypatch, capsys):
    """The cases above differ from commands that work: the counters see a real run."""
    data = tmp_path / "data.csv"
    data.write_text(GOOD)
    code, captured, charges, draws, _ = run_cli(
        tmp_path, monkeypatch, capsys, ["schema", str(data), f"--out={tmp_path / 's.json'}", "--epsilon=1",
                                        "--delta=1e-6", "--seed=1"])
    assert code == 0, captured.err
    assert charges and draws and (tmp_path / "s.json").exists()
    code, captured, *_ = run_cli(tmp_path, monkeypatch, capsys,
                                 ["schema", str(data), f"--out={tmp_path / 'o.json'}", "--non-private"])
    assert code == 0 and "NOT PUBLIC" in captured.err
    assert Schema.from_json(tmp_path / "o.json").draft.mode == "non-private"


@pytest.mark.parametrize("spec", [{"type": "numeric", "bounds": [0, 1], "bins": 2_000_000},
                                  {"type": "integer", "bounds": [0, 10**7], "bins": 2_000_000},
                                  {"type": "numeric", "bounds": [0, 1], "bins": 10**15},
                                  {"type": "integer", "bounds": [-2**53, 2**53], "bins": 10**15}],
                         ids=["numeric-2e6", "integer-2e6", "numeric-1e15", "integer-1e15"])
def test_too_many_bins_are_refused_before_any_edge_is_made(spec):
    """The count is checked arithmetically: `bins: 100000000` took 36 s and 5.5 GB before it was refused, and
    10**9 over a minute; now any count is refused at once, naming the bins and the cap (public)."""
    import time

    start = time.perf_counter()
    with pytest.raises(InputError, match=rf"'a': bins={spec['bins']} is above the cap of 1,000,000 codes"):
        Schema.from_dict({"a": spec})
    assert time.perf_counter() - start < 0.5


def test_a_frame_whose_category_pandas_read_as_missing_is_told_why():
    """pandas.read_csv turns the text "NA" (North America) into a missing value: the NULL error says so, naming the
    public category, and only for a DataFrame with such a category (a path is read by dprelease, which keeps it)."""
    schema = Schema.from_dict({"continent": {"type": "categorical", "values": ["EU", "NA"]},
                               "device": {"type": "categorical", "values": ["pc", "phone"]}})
    frame = pd.DataFrame({"continent": ["EU", None, "NA"], "device": ["pc", None, "phone"]})
    with pytest.raises(InputError) as info:
        encode(frame, schema)
    continent, device = str(info.value).split("column 'continent': ")[1].split("; column 'device': ")
    assert "pandas.read_csv reads the text 'NA'" in continent and "keep_default_na=False" in continent
    # no category pandas reads as missing: no pandas hint (the message's last part is the blank-rows hint: the
    # frame's second row is blank in both columns)
    assert device.split("; ")[0] == "NULL values (declare null)" and "pandas" not in device


def test_a_csv_category_named_like_a_blank_is_kept(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("continent\nNA\nEU\n")
    schema = Schema.from_dict({"continent": {"type": "categorical", "values": ["EU", "NA"]}})
    assert encode(path, schema)[:, 0].tolist() == [1, 0]


def test_the_files_form_without_its_format_line_is_named():
    """``{"columns": {...}}`` without ``"format"`` (what a Python user writes from the file's shape) was read as
    one column named ``columns`` and refused as "type ... got None". It is now refused naming the missing line;
    a table with a column that is really named ``columns`` still reads, and so does the full form."""
    columns = {"dept": {"type": "categorical", "values": ["a", "b"]}, "age": {"type": "integer", "bounds": [0, 9]}}
    with pytest.raises(InputError, match=r"'columns' object but no \"format\": add \"format\": 'dprelease-schema/1'"):
        Schema.coerce({"columns": columns})
    assert Schema.coerce({"format": "dprelease-schema/1", "columns": columns}).names == ("dept", "age")
    flat = Schema.coerce({"columns": {"type": "categorical", "values": ["x", "y"]}, **columns})
    assert flat.names == ("columns", "dept", "age")


def test_a_spreadsheets_trailing_empty_rows_are_named_as_the_likely_cause_in_both_engines(tmp_path):
    """An export that ends in rows of empty cells (",,") fails with NULL values in every column without a null
    bucket, though the table has no blanks: the one-line error (in memory and in DuckDB alike) says what such rows
    are. One column's NULLs alone get no such hint, and the hint counts no row."""
    from dprelease.engines.registry import open_table

    schema = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y"]},
                               "b": {"type": "integer", "bounds": [0, 9]}})
    path = tmp_path / "export.csv"
    path.write_text("a,b\nx,1\ny,2\n,\n,\n,\n", encoding="utf-8")  # three blank rows
    messages = []
    for engine in ("memory", "duckdb"):
        with pytest.raises(InputError) as info:
            open_table(str(path), schema=schema, engine=engine)
        messages.append(str(info.value))
    for message in messages:
        assert "column 'a': NULL values" in message and "column 'b': NULL values" in message
        assert message.endswith("rows whose every cell is empty (as a spreadsheet export may end with) are records "
                                "of blanks: delete them from the file if they are not records")
        assert not re.search(r"\b3\b", message.replace(str(path), "<path>"))
    (tmp_path / "one.csv").write_text("a,b\nx,1\n,2\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        encode(tmp_path / "one.csv", schema)
    assert "NULL values" in str(info.value) and "every cell is empty" not in str(info.value)


@pytest.mark.parametrize("kind", ["workbook", "gzip", "utf16"])
@pytest.mark.parametrize("command", ["schema", "synth-duckdb", "synth-memory"])
def test_a_workbook_or_a_compressed_file_named_csv_is_named_for_what_it_is(tmp_path, monkeypatch, capsys, command,
                                                                          kind):
    """An Excel workbook given as the data (or a gzip file named .csv, or UTF-16 text) is not UTF-8 text: the
    one-line error says what it is and what to do (save the sheet as CSV, read it with pandas.read_excel; name it
    .csv.gz; iconv from UTF-16), from its first bytes (its format, no value), not "convert it from windows-1252";
    nothing is charged or written."""
    import gzip
    import zipfile

    data = tmp_path / ("people.xlsx" if kind == "workbook" else "people.csv")
    if kind == "workbook":
        with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as book:
            book.writestr("xl/worksheets/sheet1.xml", "".join(f"<row r='{i}'><c>{i * 7919 % 1000}</c></row>"
                                                             for i in range(3000)))
    elif kind == "gzip":
        data.write_bytes(gzip.compress(GOOD.encode("utf-8")))
    else:  # as Excel's "Unicode Text" saves a sheet: a byte-order mark, then UTF-16 (with tabs)
        data.write_text(GOOD.replace(",", "\t"), encoding="utf-16")
    with pytest.raises(UnicodeDecodeError):
        data.read_bytes().decode("utf-8")
    schema = tmp_path / "schema.json"
    Schema.from_dict({"age": {"type": "integer", "bounds": [0, 99]}}).to_json(schema)
    out, argv = _reading_command(command, data, schema, tmp_path)
    code, captured, charges, draws, before = run_cli(tmp_path, monkeypatch, capsys, argv)
    assert code == 2 and captured.err.count("\n") == 1, captured.err
    said = {"workbook": "pandas.read_excel", "gzip": "name it .csv.gz", "utf16": "iconv -f utf-16 -t utf-8"}[kind]
    assert f"data file {str(data)!r} is " in captured.err and said in captured.err and "windows-1252" not in captured.err
    assert snapshot(tmp_path) == before and not out.exists() and charges == [] and draws == []
