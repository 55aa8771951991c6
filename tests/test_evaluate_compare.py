"""``dprelease.evaluate.compare``: the command's evaluation from Python, with the same figures for the same inputs.

Checked: the Python call and ``dprelease evaluate --json`` agree exactly on a raw table and on a table of codes; the
figures are the metrics' own (recomputed independently); a person-level release adds the per-person baseline only
where the raw table comes with its persons; a release alone reads both tables by its own schema (or domain), its
workload and its way of writing bins, and a schema other than the release's warns naming the column; every bad
parameter is refused by name before a table is read.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from dprelease import Dataset, Domain, InputError, Workload
from dprelease.cli import main
from dprelease.evaluate import Evaluation, compare, workload_errors
from dprelease.evaluate.baselines import INDEPENDENT, PER_PERSON, UNIFORM
from dprelease.schema import Schema, encode
from dprelease.synthesizer import Synthesizer

SCHEMA = Schema.from_dict({"city": {"type": "categorical", "values": ["Lyon", "Paris", "Nice"], "other": True},
                           "age": {"type": "integer", "bounds": [18, 79], "bins": 6, "clip": True},
                           "member": {"type": "boolean"}})


def people(n: int = 3_000, seed: int = 5) -> pd.DataFrame:
    """City, age and membership, dependent (Paris is younger, members older), a few cities outside the schema."""
    g = np.random.default_rng(seed)
    city = g.choice(["Lyon", "Paris", "Nice", "Brest"], n, p=[0.3, 0.5, 0.17, 0.03])
    age = np.clip(np.round(g.normal(np.where(city == "Paris", 32, 45), 12)), 18, 95).astype(int)
    member = g.random(n) < np.where(age > 50, 0.6, 0.2)
    return pd.DataFrame({"patient": g.integers(0, n // 3, n).astype(str), "city": city, "age": age,
                         "member": np.where(member, "yes", "no")})


def fitted(frame: pd.DataFrame, **options) -> tuple[object, pd.DataFrame]:
    """A seeded Synthesizer fitted on ``frame`` and its decoded rows, as a Python user has them."""
    synth = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=2, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = synth.fit_sample(frame, schema=SCHEMA)
    return synth.release, rows


def test_compare_agrees_with_the_command_exactly_on_a_raw_table(tmp_path, capsys):
    frame = people()
    release, rows = fitted(frame[["city", "age", "member"]])
    data, synthetic, schema, document = (tmp_path / n for n in ("real.csv", "syn.csv", "schema.json", "rel.json"))
    frame.to_csv(data, index=False)
    rows.to_csv(synthetic, index=False)
    schema.write_text(json.dumps(SCHEMA.to_dict()))
    release.save(tmp_path / "codes.csv", document)
    result = compare(frame, rows, schema=SCHEMA, workload="1-2way", release=release, seed=3)
    assert isinstance(result, Evaluation)
    capsys.readouterr()
    assert main(["evaluate", str(data), str(synthetic), "--schema", str(schema), "--workload", "1-2way", "--release",
                 str(document), "--seed", "3", "--json", "--per-marginal", "--quiet"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(json.dumps(result.to_dict(per_marginal=True))) == printed
    # the same from paths, and as text
    from_paths = compare(data, synthetic, schema=schema, workload="1-2way", release=document, seed=3)
    assert from_paths.to_dict() == result.to_dict()
    assert main(["evaluate", str(data), str(synthetic), "--schema", str(schema), "--workload", "1-2way", "--release",
                 str(document), "--seed", "3", "--quiet"]) == 0
    assert capsys.readouterr().out == result.to_text() + "\n"
    # the figures are the metrics' own, and the clipped and other shares the table's
    workload = Workload.from_spec("1-2way", SCHEMA.domain)
    real_codes = Dataset.from_records(encode(frame, SCHEMA), SCHEMA.domain)
    syn_codes = Dataset.from_records(encode(rows, SCHEMA), SCHEMA.domain)
    assert result.avg_l1 == pytest.approx(workload_errors(real_codes, syn_codes, workload)["avg_l1"])
    assert set(result.baselines) == {INDEPENDENT, UNIFORM} and result.baselines[UNIFORM] > result.avg_l1
    values = {v.name: v for v in result.values}
    assert values["city"].other == pytest.approx((frame.city == "Brest").mean())
    assert values["age"].clipped == pytest.approx((frame.age > 79).mean())
    assert "avg_l1=" in repr(result) and str(result).startswith("workload: 6 marginals")
    # the release itself: its rows' codes, its own schema and ledger
    direct = compare(frame, release, seed=3)  # the release's own workload, 1-2way
    codes = compare(frame, Dataset.from_records(release.rows, SCHEMA.domain), schema=SCHEMA, workload="1-2way",
                    release=release, seed=3)
    assert direct.to_dict() == codes.to_dict() and direct.baselines == result.baselines
    assert direct.values is not None and all(v.ks is None for v in direct.values)  # codes: no distances to draw
    assert [list(m) for m in direct.workload.marginals] == [list(m) for m in release.workload.marginals]
    assert len(compare(frame, rows, schema=SCHEMA).errors) == 7  # no release: 1-3way, 3 + 3 + 1 marginals


def test_compare_reads_tables_of_codes_with_a_domain():
    domain = Domain(("a", "b"), (3, 4))
    g = np.random.default_rng(0)
    real = np.stack([g.integers(0, 3, 2_000), g.integers(0, 4, 2_000)], axis=1)
    synthetic = np.stack([g.integers(0, 3, 1_000), g.integers(0, 4, 1_000)], axis=1)
    result = compare(real, synthetic, domain={"a": 3, "b": 4}, workload="1-2way", epsilon=0.5)
    truth = workload_errors(Dataset.from_records(real, domain), Dataset.from_records(synthetic, domain),
                            Workload.from_spec("1-2way", domain))
    assert result.avg_l1 == pytest.approx(truth["avg_l1"]) and result.max_error == pytest.approx(truth["max_error"])
    assert result.values is None and result.epsilon == 0.5 and result.n_synthetic == 1_000
    one = compare(Dataset.from_records(real, domain), synthetic, domain=domain, workload=[["a"]], columns=["a"],
                  epsilon=0.5)
    assert len(one.errors) == 1 and one.workload.domain.attributes == ("a",)
    # DataFrames of codes are read by column name, whatever their order
    frames = compare(pd.DataFrame({"b": real[:, 1], "a": real[:, 0]}), pd.DataFrame(synthetic, columns=["a", "b"]),
                     domain={"a": 3, "b": 4}, workload="1-2way", epsilon=0.5)
    assert frames.to_dict() == result.to_dict()


def test_a_person_level_release_gets_the_per_person_baseline_only_with_its_persons():
    frame = people()
    release, rows = fitted(frame, privacy_id="patient", rows_per_person=2)
    with_persons = compare(frame, rows, schema=SCHEMA, workload="1-2way", release=release)
    assert PER_PERSON in with_persons.baselines and "like for like" in with_persons.unit_note
    assert with_persons.n_real == len(frame)  # the errors are against the whole table, not the bounded one
    codes = Dataset.from_records(encode(frame, SCHEMA), SCHEMA.domain)
    without = compare(codes, rows, schema=SCHEMA, workload="1-2way", release=release)
    assert PER_PERSON not in without.baselines and "give the raw table with schema=" in without.unit_note
    # the other two baselines are the same draws either way
    for name in (INDEPENDENT, UNIFORM):
        assert with_persons.baselines[name] == without.baselines[name]


@pytest.mark.parametrize("options, message", [
    ({"schema": SCHEMA, "domain": {"city": 4}}, "give schema= (raw tables) or domain= (tables of integer codes), "
                                                "not both"),
    ({}, "give schema= (raw tables), domain= (tables of integer codes) or release= (the schema or domain it records)"),
    ({"release": {"privacy_ledger": {}, "parameters": {}}}, "the release records neither a schema nor a domain"),
    ({"schema": SCHEMA, "decode": "bins"}, "decode must be one of"),
    ({"domain": {"a": 2}, "decode": "label"}, "decode needs schema="),
    ({"schema": SCHEMA, "columns": ["town"]}, "columns ['town'] are not in the schema"),
    ({"domain": {"a": 2}, "columns": ["b"]}, "columns ['b'] are not in the domain"),
    ({"domain": {"a": 2}, "columns": ["a", "a"]}, "columns names a column twice"),
    ({"schema": SCHEMA, "epsilon": -1}, "epsilon"),
    ({"schema": SCHEMA, "seed": -2}, "seed"),
    ({"schema": SCHEMA, "workload": [["town"]]}, "town"),
    ({"schema": SCHEMA, "release": {"parameters": {}}}, "release has no 'privacy_ledger'"),
    ({"schema": SCHEMA, "release": {"privacy_ledger": {}}}, "release states no epsilon budget; give epsilon="),
    ({"schema": SCHEMA, "release": 3}, "release must be a Release"),
])
def test_bad_parameters_are_refused_by_name_before_any_table_is_read(options, message, tmp_path):
    missing = tmp_path / "never-read.csv"  # a table that would fail to read: the public checks come first
    with pytest.raises((InputError, TypeError), match=message.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)")):
        compare(missing, missing, **options)


def test_show_values_names_the_real_values_sent_to_other_only_when_asked(tmp_path, capsys):
    """The curator who asks (--show-values, show_values=True) sees which real values the schema sends to other, most
    frequent first with their shares (Brest, 3.5 % of the cities, is not in the schema); without asking, no value of the
    table is quoted anywhere in the output."""
    frame = people()
    release, rows = fitted(frame[["city", "age", "member"]])
    shown = compare(frame, rows, schema=SCHEMA, release=release, show_values=True)
    city = next(v for v in shown.values if v.name == "city")
    assert [value for value, _ in city.other_values] == ["Brest"]
    assert city.other_values[0][1] == pytest.approx((frame.city == "Brest").mean()) == pytest.approx(city.other)
    assert f"'Brest' {city.other:.1%}" in str(shown)
    assert {"value": "Brest", "share": city.other} in next(v for v in shown.to_dict()["values"] if v["column"] == "city")[
        "other_values"]
    hidden = compare(frame, rows, schema=SCHEMA, release=release)
    assert "Brest" not in str(hidden) and "Brest" not in json.dumps(hidden.to_dict())
    assert all(v.other_values == () for v in hidden.values)
    data, synthetic, schema = tmp_path / "real.csv", tmp_path / "syn.csv", tmp_path / "schema.json"
    frame.to_csv(data, index=False)
    rows.to_csv(synthetic, index=False)
    schema.write_text(json.dumps(SCHEMA.to_dict()))
    base = ["evaluate", str(data), str(synthetic), "--schema", str(schema), "--workload", "1-2way", "--quiet"]
    for flags, quoted in (([], False), (["--show-values"], True)):
        capsys.readouterr()
        assert main([*base, *flags]) == 0
        assert ("'Brest'" in capsys.readouterr().out) == quoted
    with pytest.raises(TypeError, match="show_values must be True or False"):
        compare(frame, rows, schema=SCHEMA, show_values="yes")


def test_a_release_alone_reads_both_tables_by_its_own_schema_and_names_a_schema_that_differs(tmp_path, capsys):
    """Without schema= or domain=, compare and ``evaluate --release`` read both tables by the schema the release
    records, over its own workload and, where synth wrote bin labels, by the labels; the figures are those of the same
    call given the schema. A schema= that bins a column otherwise warns naming it (the figures are then schema='s)."""
    frame = people()[["city", "age", "member"]]
    data, schema_file = tmp_path / "real.csv", tmp_path / "schema.json"
    frame.to_csv(data, index=False)
    schema_file.write_text(json.dumps(SCHEMA.to_dict()))
    outputs = {}
    for values in ("uniform", "label"):
        rows, document = tmp_path / f"syn-{values}.csv", tmp_path / f"rel-{values}.json"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(["synth", str(data), "--schema", str(schema_file), "--workload", "1-2way", "--epsilon", "1",
                         "--seed", "4", "--decode", values, "--out", str(rows), "--release", str(document),
                         "--quiet"]) == 0
        outputs[values] = rows, document
        given = compare(data, rows, schema=SCHEMA, workload="1-2way", release=document,
                        decode="label" if values == "label" else None)
        alone = compare(data, rows, release=document)
        assert alone.to_dict() == given.to_dict() and len(alone.errors) == 6  # the release's 1-2way, not 1-3way
        capsys.readouterr()
        assert main(["evaluate", str(data), str(rows), "--release", str(document), "--json", "--quiet"]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(given.to_dict()))
    # labels the release says synth wrote are read as labels; a table of values then names the flag that reads it
    rows, document = outputs["uniform"][0], outputs["label"][1]
    assert main(["evaluate", str(data), str(rows), "--release", str(document), "--quiet"]) == 2
    assert "give --decode uniform" in capsys.readouterr().err
    # a schema binning age otherwise: a warning naming the column, the figures read through it
    coarse = Schema.from_dict({**SCHEMA.to_dict()["columns"],
                               "age": {"type": "integer", "bounds": [18, 79], "bins": 3, "clip": True}})
    rows, document = outputs["uniform"]
    with pytest.warns(UserWarning, match=r"schema= is not the schema the release ran with \(column 'age' has 6 cells "
                                         r"there, 3 here\)"):
        other = compare(data, rows, schema=coarse, release=document)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the release's own schema, given again: no warning
        compare(data, rows, schema=schema_file, release=document)
    assert other.to_dict() == compare(data, rows, schema=coarse, workload="1-2way",
                                      epsilon=other.epsilon).to_dict()
    # some columns compared: the release's marginals over them; none of them: all 1-3-way (1-2-way of two) marginals
    one_way = tmp_path / "one-way.json"
    one_way.write_text(json.dumps({**json.loads(document.read_text()), "workload_answers": [
        {"marginal": ["city"]}, {"marginal": ["age"]}, {"marginal": ["city", "member"]}]}))
    assert [list(m) for m in compare(data, rows, release=one_way, columns=["city", "age"]).workload.marginals] == [
        ["city"], ["age"]]
    assert len(compare(data, rows, release=one_way, columns=["age", "member"]).errors) == 1
    assert len(compare(data, rows, release=document, columns=["city", "age"]).errors) == 3
    assert len(compare(data, rows, schema=SCHEMA, columns=["city", "age"]).errors) == 3
