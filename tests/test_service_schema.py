"""Raw tables behind ``dprelease serve`` and ``dprelease online``: a CSV of text, numbers and blanks read through a
public schema, queries that name values by their labels, releases whose rows are the schema's labels, and a
drafted schema's spend taken off the table's budget before anything is served (issue 12's new-user trials).

The server is the real ``dprelease serve`` process on 127.0.0.1 (tests/service_helpers.py); nothing is mocked.
"""

from __future__ import annotations

import csv
import io
import json
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease.cli import main
from dprelease.domain import Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.mechanisms.online_queries import parse_queries
from dprelease.queries.product import ProductQuery, coded
from dprelease.release import Release
from dprelease.schema import Schema, decode
from dprelease.schema.draft import draft_schema
from tests.service_helpers import TOKENS, ledger_rows, spent, start_server, token_hash

SCHEMA = {"format": "dprelease-schema/1", "columns": {
    "job": {"type": "categorical", "values": ["clerk", "smith", "baker"], "null": True, "other": True},
    "age": {"type": "integer", "bounds": [20, 59], "width": 10, "clip": True},
    "member": {"type": "boolean"}}}
LABELS = {"job": ("clerk", "smith", "baker", "NULL", "<other>"), "age": ("20..29", "30..39", "40..49", "50..59"),
          "member": ("false", "true")}


def raw_rows(n: int = 3000, seed: int = 7) -> list[list[str]]:
    """Jobs with blanks and a stray value, ages as text, members as true/false: a table of what people have."""
    rng = np.random.Generator(np.random.PCG64(seed))
    jobs = rng.choice(["clerk", "smith", "baker", "", "miner"], n, p=[0.5, 0.2, 0.2, 0.07, 0.03])
    ages = rng.integers(18, 65, n)  # some outside the bounds: clipped
    members = np.where(rng.random(n) < np.where(jobs == "clerk", 0.7, 0.2), "true", "false")
    return [[str(j), str(a), str(m)] for j, a, m in zip(jobs, ages, members)]


def write_raw(folder, name: str = "people", schema: dict | Schema = SCHEMA) -> tuple[str, str]:
    data = folder / f"{name}.csv"
    data.write_text("job,age,member\n" + "".join(",".join(r) + "\n" for r in raw_rows()))
    path = folder / f"{name}-schema.json"
    (schema if isinstance(schema, Schema) else Schema.from_dict(schema)).to_json(path)
    return data.name, path.name


def write_service(folder, tables: dict[str, dict]) -> object:
    config = {"ledger": "ledger.sqlite", "analysts": {a: {"token_sha256": token_hash(t)} for a, t in TOKENS.items()},
              "tables": tables}
    path = folder / "config.json"
    path.write_text(json.dumps(config, indent=1))
    return path


# ----------------------------------------------------------------------------------- the shared query parser
def test_labels_become_codes_and_the_rest_is_judged_as_before():
    assert coded({"job": "smith", "age": ["30..39", 3], "member": "true"}, LABELS) == \
        {"job": 1, "age": [1, 3], "member": 1}
    assert coded({"job": [None, "<other>"]}, LABELS) == {"job": [3, 4]}  # JSON null: the NULL bucket
    assert coded({"job": 2, "nope": "x"}, LABELS) == {"job": 2, "nope": "x"}  # codes and unknown attributes pass
    with pytest.raises(InputError, match=r"query value 'miner' for attribute 'job' is not one of its labels "
                                         r"\('clerk', 'smith', 'baker', 'NULL', '<other>'\)"):
        coded({"job": "miner"}, LABELS)
    with pytest.raises(InputError, match="query value null for attribute 'age': the column has no NULL bucket"):
        coded({"age": None}, LABELS)
    domain = Domain(("job", "age", "member"), (5, 4, 2))
    (by_label,), _ = parse_queries({"where": {"job": "baker", "age": "40..49"}}, domain, labels=LABELS)
    (by_code,), _ = parse_queries({"where": {"job": 2, "age": 2}}, domain)
    assert by_label.attributes == by_code.attributes
    assert all(np.array_equal(a, b) for a, b in zip(by_label.weights, by_code.weights))
    with pytest.raises(InputTypeError, match="must be an integer code"):  # without labels a label is still refused
        parse_queries({"where": {"job": "baker"}}, domain)
    schema = Schema.from_dict(SCHEMA)  # from Python: the schema itself gives the labels
    assert schema.domain == domain
    from_python = ProductQuery.conjunction(domain, {"job": "baker", "age": "40..49"}, labels=schema)
    assert all(np.array_equal(a, b) for a, b in zip(from_python.weights, by_code.weights))
    _, extra = parse_queries({"marginal": ["member", "age"]}, domain, labels=LABELS)
    assert extra == {"marginal": ["member", "age"], "shape": [2, 4],
                     "labels": [list(LABELS["member"]), list(LABELS["age"])]}


def test_json_true_and_false_and_a_bins_calendar_name_are_taken_as_its_label():
    assert coded({"member": True}, LABELS) == {"member": 1}
    assert coded({"member": [False, np.bool_(True)]}, LABELS) == {"member": [0, 1]}
    with pytest.raises(InputError, match="query value true for attribute 'job': true and false name a boolean"):
        coded({"job": True}, LABELS)
    schema = Schema.from_dict({
        "when": {"type": "datetime", "bounds": ["2023-01-01T00:00:00", "2024-12-31T23:59:59"], "unit": "month"},
        "day": {"type": "date", "bounds": ["2020-01-01", "2020-01-03"]},  # day bins: their labels are the days
        "year": {"type": "date", "bounds": ["2019-01-01", "2021-12-31"], "unit": "year", "null": True},
        "odd": {"type": "date", "bounds": ["2020-01-10", "2020-03-20"], "unit": "month"}})  # partial first and last
    labels = schema.all_labels()
    assert dict(labels) == schema.all_labels() and labels["day"] == ("2020-01-01", "2020-01-02", "2020-01-03")
    assert labels.aliases["when"]["2023-01"] == 0 and labels.aliases["when"]["2024-12"] == 23
    assert len(labels.aliases["when"]) == 24 + 2 and "day" not in labels.aliases  # a label is never an alias too
    assert labels.aliases["when"]["2023"] == tuple(range(12)) and labels.aliases["when"]["2024"] == tuple(range(12, 24))
    assert labels.aliases["year"] == {"2019": 0, "2020": 1, "2021": 2}
    assert labels.aliases["odd"] == {"2020-02": 1}  # January from the 10th and March to the 20th are not months
    assert labels.codes["when"]["2023-06"] == 5 and labels.codes["day"]["2020-01-02"] == 1  # each lookup made once
    assert coded({"when": ["2023-06", "[2023-07-01T00:00:00, 2023-08-01T00:00:00)"], "year": [None, "2020"]},
                 labels) == {"when": [5, 6], "year": [3, 1]}
    with pytest.raises(InputError, match=r"query value '2023-13' for attribute 'when' is not one of its labels .*"
                                         r"or a bin's calendar name, such as '2023-01'"):
        coded({"when": "2023-13"}, labels)
    domain = schema.domain
    by_name = ProductQuery.conjunction(domain, {"when": "2024-02", "year": "2021"}, labels=schema)
    by_code = ProductQuery.conjunction(domain, {"when": 13, "year": 2})
    assert all(np.array_equal(a, b) for a, b in zip(by_name.weights, by_code.weights))


def test_a_calendar_period_names_the_run_of_whole_bins_it_is():
    """A new user's clinic visits, binned by month, asked {"visit_date": "2023"} and was refused: a year of month
    bins (a month of day bins, a day of hour bins) names its bins, in a list or alone; a period the bounds or the bins
    cut names nothing, and a name of one bin still names that one."""
    schema = Schema.from_dict({
        "visit": {"type": "date", "bounds": ["2023-01-01", "2024-12-31"], "unit": "month", "null": True},
        "day": {"type": "date", "bounds": ["2023-12-25", "2024-02-10"]},  # day bins: January 2024 is whole
        "at": {"type": "datetime", "bounds": ["2024-03-01T00:00:00", "2024-03-02T23:59:59"], "unit": "hour"},
        "quarter": {"type": "date", "bounds": ["2023-04-01", "2024-12-31"], "unit": "month", "width": 3},
        "late": {"type": "date", "bounds": ["2023-03-01", "2023-12-31"], "unit": "month"}})  # 2023 is cut
    labels = schema.all_labels()
    assert coded({"visit": "2023"}, labels) == {"visit": list(range(12))}
    assert coded({"visit": ["2024", None]}, labels) == {"visit": [*range(12, 24), 24]}
    assert coded({"visit": "2024-03"}, labels) == {"visit": 14}  # one bin: its code, as before
    january = labels.codes["day"]["2024-01-01"]
    assert coded({"day": "2024-01"}, labels) == {"day": list(range(january, january + 31))}
    assert coded({"at": "2024-03-02"}, labels) == {"at": list(range(24, 48))}
    assert coded({"quarter": "2024"}, labels) == {"quarter": [3, 4, 5, 6]}  # four whole quarters
    assert "2023" not in labels.codes["quarter"] and "2023-12" not in labels.codes["day"]  # cut by the bounds
    assert "2023" not in labels.codes["late"] and "2023-05" in labels.codes["late"]
    with pytest.raises(InputError, match="query value '2023' for attribute 'late' is not one of its labels"):
        coded({"late": "2023"}, labels)
    by_year = ProductQuery.conjunction(schema.domain, {"visit": "2023", "at": "2024-03-01"}, labels=schema)
    by_codes = ProductQuery.conjunction(schema.domain, {"visit": list(range(12)), "at": list(range(24))})
    assert all(np.array_equal(a, b) for a, b in zip(by_year.weights, by_codes.weights))



def test_a_boolean_is_named_by_any_word_it_reads():
    """A new user's Y/N column: {"remote": "Y"} was refused (its labels are false/true). A boolean column's words,
    as the schema declares them and in any case the encoder reads, name its values too; its labels are unchanged,
    and a word it does not read is refused, with an example of one it does."""
    schema = Schema.from_dict({"remote": {"type": "boolean", "true": ["Y"], "false": ["N"]},
                               "member": {"type": "boolean"}})
    labels = schema.all_labels()
    assert labels["remote"] == labels["member"] == ("false", "true")
    assert coded({"remote": ["Y", "n", "N"], "member": ["yes", "F", "True", False]}, labels) == \
        {"remote": [1, 0, 0], "member": [1, 0, 1, 0]}
    with pytest.raises(InputError, match=r"query value 'maybe' for attribute 'remote' is not one of its labels "
                                         r"\('false', 'true'; or one of the words it reads, such as 'N'\)"):
        coded({"remote": "maybe"}, labels)
    by_word = ProductQuery.conjunction(schema.domain, {"remote": "Y", "member": "no"}, labels=schema)
    by_code = ProductQuery.conjunction(schema.domain, {"remote": 1, "member": 0})
    assert all(np.array_equal(a, b) for a, b in zip(by_word.weights, by_code.weights))


def test_a_number_names_a_value_of_a_number_column_never_a_code():
    """A new user's staff table: {"age": 32} was read as the code 32 (refused: outside 0..10) and {"rating": 4} as the
    code 4, the rating 5, silently. With a schema a number in a number column is a value: taken where its bin holds
    it alone, else refused naming the bin's label (the answer would be the whole bin's), outside the bounds or not
    whole in an integer column refused; a categorical column's integer is still a code."""
    schema = Schema.from_dict({
        "rating": {"type": "integer", "bounds": [1, 5], "null": True},
        "age": {"type": "integer", "bounds": [18, 70], "width": 5, "clip": True},
        "salary": {"type": "numeric", "bounds": [0, 100000], "width": 10000},
        "job": {"type": "categorical", "values": ["clerk", "smith"]},
        "hired": {"type": "date", "bounds": ["2010-01-01", "2019-12-31"], "unit": "year"}})
    labels = schema.all_labels()
    assert coded({"rating": [1, 4.0, np.int64(5)], "job": 1, "hired": "2015"}, labels) == \
        {"rating": [0, 3, 4], "job": 1, "hired": 5}
    by_value = ProductQuery.conjunction(schema.domain, {"rating": 4, "age": "28..32"}, labels=schema)
    by_code = ProductQuery.conjunction(schema.domain, {"rating": 3, "age": 2})
    assert all(np.array_equal(a, b) for a, b in zip(by_value.weights, by_code.weights))
    refusals = {"age": (32, r"query value 32 for attribute 'age' lies in the bin '28..32', which holds other values "
                            r"too: name the bin by its label"),
                "salary": (85000.5, r"lies in the bin '\[80000, 90000\)'"),
                "rating": (4.5, r"query value 4.5 for attribute 'rating' is not a whole number"),
                "hired": (5, r"query value 5 for attribute 'hired': a date column's bins are named by their labels")}
    for attribute, (value, message) in refusals.items():
        with pytest.raises(InputError, match=message):
            coded({attribute: value}, labels)
    # an integer against a numeric column's fractional edge: compared as numbers, not truncated (a new user's cost 0
    # was said to lie in '[0.01, 50)', the bin after its own)
    fees = Schema.from_dict({"fee": {"type": "numeric", "edges": [0, 0.01, 50, 100]}}).all_labels()
    for value in (0, 0.0, np.int64(0)):
        with pytest.raises(InputError, match=r"query value 0(\.0)? for attribute 'fee' lies in the bin '\[0, 0.01\)'"):
            coded({"fee": value}, fees)
    with pytest.raises(InputError, match=r"lies in the bin '\[50, 100\]'"):
        coded({"fee": 50}, fees)
    for value in (0, 6, float("nan")):
        with pytest.raises(InputError, match=r"for attribute 'rating' is outside its bounds \[1, 5\]"):
            coded({"rating": value}, labels)


# ----------------------------------------------------------------------------------------- dprelease serve
STAYS = {"format": "dprelease-schema/1", "ordered": [["admitted", "discharged"]],
         "columns": {"admitted": {"type": "date", "bounds": ["2024-01-01", "2024-12-31"], "unit": "month"},
                     "discharged": {"type": "date", "bounds": ["2024-01-01", "2024-12-31"], "unit": "month"},
                     "days": {"type": "integer", "between": ["admitted", "discharged"], "bounds": [0, 9],
                              "width": 3}}}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-schema")
    data, schema = write_raw(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the draft's notes
        drafted = draft_schema(folder / data, epsilon=0.5, delta=1e-6, seed=3,
                               types={"job": "categorical", "age": "integer", "member": "boolean"})
    data2, schema2 = write_raw(folder, "drafted", drafted)
    rng = np.random.default_rng(2)  # stays: a discharge never before its admission, declared
    admitted = rng.integers(0, 330, 2_000)
    (folder / "stays.csv").write_text("admitted,discharged\n" + "".join(
        f"{np.datetime64('2024-01-01') + int(a)},{np.datetime64('2024-01-01') + int(a + rng.integers(0, 9))}\n"
        for a in admitted))
    Schema.from_dict(STAYS).to_json(folder / "stays-schema.json")
    config = write_service(folder, {
        "people": {"data": data, "schema": schema, "budget": {"epsilon": 4}, "analysts": {"alice": {}}},
        "stays": {"data": "stays.csv", "schema": "stays-schema.json", "budget": {"epsilon": 2},
                  "analysts": {"alice": {}}},
        "drafted": {"data": data2, "schema": schema2, "budget": {"epsilon": 2, "delta": 1e-5},
                    "analysts": {"alice": {"epsilon": 1}}}})
    server = start_server(config, read_log=folder / "reads.log")
    yield server, folder, drafted
    server.stop()


def test_a_raw_table_is_listed_with_its_labels_and_a_draft_is_paid_first(served):
    server, folder, drafted = served
    status, listing = server.client().call("GET", "/v1/tables")
    assert status == 200
    tables = {t["table"]: t for t in listing["tables"]}
    people = tables["people"]
    assert people["domain"] == {"job": 5, "age": 4, "member": 2} and people["n"] == 3000
    assert people["labels"] == {k: list(v) for k, v in LABELS.items()}
    assert people["schema_draft_spent"] == {"epsilon": "0", "delta": "0"}
    draft_epsilon, draft_delta = drafted.draft.spent
    assert draft_epsilon > 0 and draft_delta > 0
    budget = tables["drafted"]["budget"]  # exact: the configured decimals less the draft's exact spend
    assert Fraction(budget["epsilon"]) == 2 - draft_epsilon
    assert Fraction(budget["delta"]) == Fraction("1e-5") - draft_delta
    (registered,) = ledger_rows(folder / "ledger.sqlite", "SELECT epsilon FROM budgets WHERE table_name = 'drafted'")
    assert Fraction(registered[0]) == 2 - draft_epsilon
    status, budget = server.client().call("GET", "/v1/tables/drafted/budget")
    assert status == 200 and Fraction(budget["schema_draft_spent"]["epsilon"]) == draft_epsilon


def test_queries_name_values_by_label_and_a_wrong_label_costs_nothing(served):
    server, folder, _ = served
    client = server.client()
    status, opened = client.call("POST", "/v1/tables/people/sessions",
                                 {"mode": "book", "epsilon": 1, "max_queries": 20})
    assert status == 201, opened
    session = f"/v1/tables/people/sessions/{opened['session']}/queries"
    status, answer = client.call("POST", session, {"where": {"job": ["clerk", None], "member": "true"}})
    assert status == 200 and answer["queries_seen"] == 1
    status, answer = client.call("POST", session, {"marginal": ["member"]})
    assert status == 200 and answer["labels"] == [["false", "true"]] and len(answer["answers"]) == 2
    reads = (folder / "reads.log").read_text() if (folder / "reads.log").exists() else ""
    assert "people\tmarginal" in reads  # the tripwire logs this table's reads: its silence below means something
    was = spent(folder / "ledger.sqlite", "people")
    status, refused = client.call("POST", session, {"where": {"job": "miner"}})
    assert status == 400 and "'miner'" in refused["error"] and "not one of its labels" in refused["error"]
    status, refused = client.call("POST", session, {"where": {"age": 32}})  # a value in a 10-wide bin, not a code
    assert status == 400 and "lies in the bin '30..39'" in refused["error"]
    status, state = client.call("GET", f"/v1/tables/people/sessions/{opened['session']}")
    assert status == 200 and state["queries_seen"] == 3  # the refused lines asked nothing
    assert spent(folder / "ledger.sqlite", "people") == was
    assert ((folder / "reads.log").read_text() if (folder / "reads.log").exists() else "") == reads


def test_a_release_of_a_raw_table_has_the_schemas_labels_and_its_draft_in_the_guarantee(served):
    server, folder, _ = served
    client = server.client()
    status, made = client.call("POST", "/v1/tables/people/releases", {"epsilon": 1, "workload": "1-2way"})
    assert status == 201, made
    status, text = client.call("GET", made["rows_url"])
    assert status == 200
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["job", "age", "member"] and len(rows) == 3001
    nulls = set(Schema.from_dict(SCHEMA).null_tokens)
    for column, values in zip(rows[0], zip(*rows[1:])):
        allowed = set(LABELS[column]) - {"NULL"} | (nulls if "NULL" in LABELS[column] else set())
        if column == "member":  # a boolean decodes to the schema's written words
            allowed = {"true", "false"}
        assert set(values) <= allowed, (column, set(values) - allowed)
    status, document = client.call("GET", made["release_url"])
    assert status == 200 and document["schema"]["columns"]["job"]["values"] == ["clerk", "smith", "baker"]
    # The analyst's copy reads back: answers inline, rows from the label CSV, and dprelease report renders it.
    saved, rows_file = folder / "served-release.json", folder / "served-rows.csv"
    saved.write_text(json.dumps(document))
    rows_file.write_text(text)
    loaded = Release.load(saved, rows=rows_file)
    assert loaded.rows.shape == (3000, 3) and document["synthetic_rows"]["count"] == 3000
    assert decode(loaded.rows, Schema.from_dict(SCHEMA), values="label").csv() == text  # the same rows, as codes
    assert main(["report", str(saved), "--rows", str(rows_file), "--quiet"]) == 0
    # ... and evaluate reads them as labels from the release alone (a new user's served release was read as values
    # and refused: the release did not say its rows were labels)
    assert document["decoded"] == {"values": "label", "format": "csv", "columns": ["job", "age", "member"]}
    assert main(["evaluate", str(folder / "people.csv"), str(rows_file), "--release", str(saved), "--json",
                 "--quiet"]) == 0
    status, made = client.call("POST", "/v1/tables/drafted/releases", {"epsilon": 0.5, "workload": "1way"})
    assert status == 201 and made["guarantee"].startswith("(") and "the schema draft's" in made["guarantee"]


def test_a_served_release_keeps_the_schemas_declared_order(served):
    """A served table whose schema declares ``ordered`` and a stay between its dates: the release's rows (the schema's
    labels) hold no discharge month before its admission month and no stay their months rule out, as synth's do (the
    model's rows out of order or out of agreement drawn again)."""
    from dprelease.schema.between import unfit_rows
    from dprelease.schema.orders import unorderable_rows

    server, folder, _ = served
    status, made = server.client().call("POST", "/v1/tables/stays/releases", {"epsilon": 0.2, "workload": "1-2way"})
    assert status == 201, made
    status, text = server.client().call("GET", made["rows_url"])
    status, document = server.client().call("GET", made["release_url"])
    assert status == 200 and document["ordered"]["chains"] == [["admitted", "discharged"]]
    (folder / "stays-release.json").write_text(json.dumps(document))
    (folder / "stays-rows.csv").write_text(text)
    rows = Release.load(folder / "stays-release.json", rows=folder / "stays-rows.csv").rows
    assert len(rows) == 2_000 and not unorderable_rows(rows, Schema.from_dict(STAYS)).any()
    assert document["ordered"]["rows_redrawn"] > 0  # the model's noise gave some: at eps 0.2 over 144 cells
    assert not unfit_rows(rows, Schema.from_dict(STAYS)).any() and document["between"]["rows_left_unfit"] == 0
    assert document["between"]["columns"] == {"days": ["admitted", "discharged"]}


@pytest.mark.parametrize("case", ["both", "neither", "open-draft", "draft-too-dear", "caps-after-draft",
                                  "encode-error", "person-draft"])
def test_a_raw_table_that_cannot_be_served_stops_the_start_and_writes_nothing(tmp_path, capsys, case):
    data, schema = write_raw(tmp_path)
    entry = {"data": data, "schema": schema, "budget": {"epsilon": 1}, "analysts": {"alice": {}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case == "open-draft":
            Schema.to_json(draft_schema(tmp_path / data, non_private=True), tmp_path / schema)
        if case in ("draft-too-dear", "caps-after-draft"):
            Schema.to_json(draft_schema(tmp_path / data, epsilon=0.6, delta=1e-6, seed=1), tmp_path / schema)
        if case == "person-draft":  # a draft per person (age standing in for an id) beside a service per record
            Schema.to_json(draft_schema(tmp_path / data, epsilon=0.6, delta=1e-6, seed=1, columns=["job", "member"],
                                        privacy_id="age", rows_per_person=2), tmp_path / schema)
    if case == "both":
        entry["domain"] = schema
    if case == "neither":
        del entry["schema"]
    if case == "draft-too-dear":
        entry["budget"] = {"epsilon": 0.5, "delta": 1e-5}
    if case == "caps-after-draft":
        entry.update(budget={"epsilon": 1, "delta": 1e-5}, analysts={"alice": {"epsilon": 0.5}, "bob": {"epsilon": 0.2}})
    if case == "encode-error":
        strict = json.loads(json.dumps(SCHEMA))
        strict["columns"]["job"].pop("null")  # the blanks now have nowhere to go
        Schema.from_dict(strict).to_json(tmp_path / schema)
    config = write_service(tmp_path, {"t": entry})
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main(["serve", str(config), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dprelease: error:") and err.count("\n") == 1, err
    expected = {"both": "give exactly one of domain", "neither": "give exactly one of domain",
                "open-draft": "drafted by reading the data openly", "draft-too-dear": "which leaves nothing",
                "caps-after-draft": "the budget leaves after the schema's draft",
                "encode-error": "column 'job': NULL values (declare null)",
                "person-draft": "drafted per person (privacy id 'age')"}[case]
    assert expected in err and "table 't'" in err, err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # no lock, no ledger


# ---------------------------------------------------------------------------------------- dprelease online
def test_online_reads_a_raw_table_through_its_schema_and_takes_labels(tmp_path, capsys):
    data, schema = write_raw(tmp_path)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": 1, "where": {"job": "clerk"}}\n{"id": 2, "where": {"job": "miner"}}\n'
                       '{"id": 3, "marginal": ["member"]}\n{"id": 4, "where": {"job": 0}}\n'
                       '{"id": 5, "where": {"member": true}}\n')  # JSON true: a boolean column's "true"
    out = tmp_path / "answers.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["online", str(tmp_path / data), "--schema", str(tmp_path / schema), "--epsilon", "1",
                     "--max-queries", "20", "--seed", "1", "--queries", str(queries), "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["query"] == 1 and "value" in records[0]
    assert "not one of its labels" in records[1]["error"]
    assert records[2]["labels"] == [["false", "true"]] and len(records[2]["answers"]) == 2
    assert records[3]["query"] == 4 and records[3]["value"] == records[0]["value"]  # the same query, by code
    assert records[4]["query"] == 5 and "value" in records[4]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drafted = draft_schema(tmp_path / data, epsilon=0.5, delta=1e-6, seed=2)
    drafted.to_json(tmp_path / "drafted.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["online", str(tmp_path / data), "--schema", str(tmp_path / "drafted.json"), "--epsilon", "1",
                     "--max-queries", "5", "--seed", "1", "--queries", str(queries), "--out",
                     str(tmp_path / "b.jsonl"), "--quiet"])
    printed = capsys.readouterr().out
    epsilon, delta = drafted.draft.spent
    assert code == 0 and f"in total epsilon={float(epsilon + 1):g}, delta={float(delta):g}" in printed, printed


def test_online_needs_exactly_one_of_domain_and_schema(tmp_path, capsys):
    data, schema = write_raw(tmp_path)
    for extra in ([], ["--domain", str(tmp_path / schema), "--schema", str(tmp_path / schema)]):
        with pytest.raises(SystemExit) as stop:
            main(["online", str(tmp_path / data), *extra, "--epsilon", "1", "--max-queries", "5", "--out",
                  str(tmp_path / "a.jsonl")])
        assert stop.value.code == 2
    assert not (tmp_path / "a.jsonl").exists()


def test_a_served_column_with_no_values_is_warned_of_at_start(tmp_path):
    """As synth warns of it: a served raw table's column with only its NULL or other bucket, named with its table."""
    bare = json.loads(json.dumps(SCHEMA))
    bare["columns"]["job"]["values"] = []
    data, schema = write_raw(tmp_path, schema=bare)
    config = write_service(tmp_path, {"t": {"data": data, "schema": schema, "budget": {"epsilon": 1},
                                            "analysts": {"alice": {}}}})
    start_server(config).stop()
    log = (tmp_path / "server.log").read_text()
    assert "dprelease: warning: table 't': column(s) ['job'] have no values in the schema" in log, log


def test_a_served_table_of_one_cell_stops_the_start(tmp_path, capsys):
    """As synth refuses it: a raw table whose schema leaves every column only its other bucket would answer every
    query the same whatever the data; the start stops with one line naming the table, before a ledger exists."""
    bare = json.loads(json.dumps(SCHEMA))
    for column in bare["columns"].values():
        column.clear()
        column.update({"type": "categorical", "values": [], "other": True})
    data, schema = write_raw(tmp_path, schema=bare)
    config = write_service(tmp_path, {"t": {"data": data, "schema": schema, "budget": {"epsilon": 1},
                                            "analysts": {"alice": {}}}})
    assert main(["serve", str(config), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dprelease: error: table 't': every column of the schema has one value only"), err
    assert err.count("\n") == 1 and not (tmp_path / "ledger.sqlite").exists()


def test_a_raw_table_restarts_on_its_ledger_and_a_changed_table_is_refused(tmp_path, capsys):
    """The raw table is encoded again at every start, to the same codes: the ledger's fingerprint matches and the
    budget spent survives the restart; a row changed in the raw file is a different table and stops the start."""
    data, schema = write_raw(tmp_path)
    config = write_service(tmp_path, {"t": {"data": data, "schema": schema, "budget": {"epsilon": 3},
                                            "analysts": {"alice": {}}}})
    server = start_server(config)
    try:
        status, _ = server.client().call("POST", "/v1/tables/t/releases", {"epsilon": 1, "workload": "1way"})
        assert status == 201
    finally:
        server.stop()
    server = start_server(config)
    try:
        status, listing = server.client().call("GET", "/v1/tables")
        assert status == 200 and listing["tables"][0]["spent"]["epsilon"] == "1"
    finally:
        server.stop()
    lines = (tmp_path / data).read_text().splitlines()
    lines[1] = "smith,33,true" if lines[1] != "smith,33,true" else "baker,44,false"
    (tmp_path / data).write_text("\n".join(lines) + "\n")
    assert main(["serve", str(config), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'t'" in err, err
