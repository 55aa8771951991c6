"""A CSV without a header row has a private record in its first line: no message quotes it.

A header cell is public only where it is a declared column name (the domain's or the schema's); every
reader and engine quotes those and only counts the others, in the same words. A drafted schema publishes
its column names, so the draft refuses a first line that looks like a record.
"""

from __future__ import annotations

import pytest

from dprelease import Dataset, Domain
from dprelease.cli import main
from dprelease.engines.registry import open_table
from dprelease.errors import InputError
from dprelease.schema.draft import draft_schema
from dprelease.schema.tables import header_text, looks_like_record, read_csv

DOMAIN_JSON = '{"a": 2, "b": 3, "c": 990000}'
DOMAIN = Domain(("a", "b", "c"), (2, 3, 990000))
SECRET = "987654"
#: Codes without a header row: the first line is a record holding a secret value.
BARE = f"1,2,{SECRET}\n0,1,5\n1,0,7\n"
#: The same, with a value repeated in its first line (read as a header, it names a column twice).
BARE_REPEAT = f"1,{SECRET},{SECRET}\n0,1,5\n"
ENGINES = ["memory", "duckdb"]


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def open_error(path: str, engine: str) -> str:
    with pytest.raises(InputError) as exc:
        table = open_table(path, DOMAIN, engine=engine)
        getattr(table, "close", lambda: None)()
    message = str(exc.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text", [BARE, BARE_REPEAT], ids=["missing-columns", "repeated-cell"])
def test_synth_never_quotes_the_first_line_of_a_file_without_a_header(tmp_path, capsys, engine, text):
    data, domain = write(tmp_path, "bare.csv", text), write(tmp_path, "domain.json", DOMAIN_JSON)
    out = tmp_path / "out.csv"
    argv = ["synth", data, f"--domain={domain}", "--workload=1way", "--epsilon=1", f"--out={out}",
            f"--engine={engine}"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert SECRET not in err
    assert "does the file have a header row?" in err
    assert not out.exists()


@pytest.mark.parametrize(("text", "expected"), [
    (BARE, "lacks column(s) ['a', 'b', 'c'] of the domain; its header has 3 cells, none of them a declared column "
           "(not quoted, as they may be a record: does the file have a header row?)"),
    (BARE_REPEAT, ": a name that is not a declared column appears more than once in the header (not quoted, as it "
                  "may be a record's value: does the file have a header row?)"),
    (f"a,{SECRET},b\n0,1,2\n", "lacks column(s) ['c'] of the domain; it has ['a', 'b'] and 1 other column not "
                               "declared (not quoted)"),
    (f"a,b,c,b,{SECRET},{SECRET}\n0,1,2,1,3,3\n", ": column(s) ['b'] appear more than once in the header, and "
                                                  "so does a name that is not a declared column (not quoted)"),
], ids=["no-header", "no-header-repeated-cell", "one-undeclared", "declared-and-undeclared-repeats"])
def test_header_messages_quote_declared_names_only_in_both_engines(tmp_path, text, expected):
    path = write(tmp_path, "data.csv", text)
    messages = {engine: open_error(path, engine) for engine in ENGINES}
    separator = "" if expected.startswith(":") else " "
    assert messages["memory"] == messages["duckdb"] == f"data file {path!r}{separator}{expected}"


def test_report_and_the_dataset_loader_do_not_quote_the_first_line(tmp_path):
    path = write(tmp_path, "bare.csv", BARE)
    with pytest.raises(InputError) as exc:
        Dataset.from_csv(path, DOMAIN)
    assert SECRET not in str(exc.value)


def test_the_raw_reader_does_not_quote_an_undeclared_repeated_cell(tmp_path):
    path = write(tmp_path, "raw.csv", f"age,{SECRET},{SECRET}\n30,1,1\n")
    with pytest.raises(InputError) as exc:
        read_csv(path, ["age"])
    assert SECRET not in str(exc.value) and "not a declared column" in str(exc.value)


def test_header_text_quotes_declared_names_only():
    assert header_text(["a", "b"], ("a", "b", "c")) == "it has ['a', 'b']"
    assert SECRET not in header_text([SECRET, "x"], ("a",))
    assert header_text(["a", SECRET], ("a",)) == "it has ['a'] and 1 other column not declared (not quoted)"


@pytest.mark.parametrize(("cells", "record"), [
    (["age", "workclass", "education-num", "income>50K"], False),
    (["39", "State-gov", "77516"], True),
    (["name", "2021-03-04"], True),
    (["x", "-1.5e3"], True),
    (["q1", "", "2nd"], False),
])
def test_a_first_line_with_a_number_or_a_date_looks_like_a_record(cells, record):
    assert looks_like_record(cells) is record


# ----------------------------------------------------------------------- the schema draft
RAW_BARE = f"39,State-gov,{SECRET},Bachelors\n" + "50,Self-emp,83311,Bachelors\n" * 40


def test_schema_refuses_a_file_without_a_header_and_quotes_nothing(tmp_path, capsys):
    data = write(tmp_path, "raw.csv", RAW_BARE)
    out = tmp_path / "sch.json"
    assert main(["schema", data, f"--out={out}", "--epsilon=0.5", "--delta=1e-9"]) == 2
    captured = capsys.readouterr()
    assert SECRET not in captured.err + captured.out and "State-gov" not in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert "looks like a record, not column names" in captured.err and "header row" in captured.err
    assert not out.exists()


def test_draft_refuses_before_spending_and_for_data_frames_too(tmp_path):
    data = write(tmp_path, "raw.csv", RAW_BARE)
    with pytest.raises(InputError, match="looks like a record") as exc:
        draft_schema(data, epsilon=1.0, seed=1)
    assert SECRET not in str(exc.value)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"39": ["1", "2"] * 20, "State-gov": ["x", "y"] * 20})
    with pytest.raises(InputError, match="looks like a record"):
        draft_schema(frame, non_private=True)


def test_schema_drafts_a_file_with_a_header_row(tmp_path, capsys):
    data = write(tmp_path, "raw.csv", "age,workclass,fnlwgt,education\n" + RAW_BARE.split("\n", 1)[1])
    out = tmp_path / "sch.json"
    assert main(["schema", data, f"--out={out}", "--non-private"]) == 0, capsys.readouterr().err
    assert out.exists()
