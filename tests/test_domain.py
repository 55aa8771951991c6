"""Domain: construction, arithmetic, the memory cap, and malformed domain files."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprelease import Domain, DomainTooLargeError, DPReleaseError, InputError
from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.errors import InputTypeError


# ------------------------------------------------------------------ construction
def test_construction_keeps_order_and_sizes(tiny_domain):
    assert tiny_domain.attributes == ("a", "b", "c")
    assert tiny_domain.sizes == (2, 3, 4)
    assert tiny_domain.shape == (2, 3, 4)
    assert tiny_domain.size == 24
    assert len(tiny_domain) == 3
    assert "b" in tiny_domain and "z" not in tiny_domain


def test_lists_are_frozen_into_tuples():
    d = Domain(["x", "y"], [5, 7])
    assert d.attributes == ("x", "y") and d.sizes == (5, 7)
    assert d == Domain(("x", "y"), (5, 7))
    assert hash(d) == hash(Domain(("x", "y"), (5, 7)))
    with pytest.raises(AttributeError):
        d.sizes = (1, 1)  # type: ignore[misc]


def test_size_is_exact_beyond_int64():
    d = Domain(tuple(f"x{i}" for i in range(30)), (100,) * 30)
    assert d.size == 100**30
    assert isinstance(d.size, int)


@pytest.mark.parametrize(
    ("attributes", "sizes", "error", "fragment"),
    [
        ((), (), InputError, "at least one attribute"),
        (("a", "b"), (2,), InputError, "2 attributes but 1 sizes"),
        (("a", "a"), (2, 3), InputError, "'a' appears more than once"),
        (("a", ""), (2, 3), InputTypeError, "''"),
        (("a", 3), (2, 3), InputTypeError, "3"),
        (("a", "b"), (2, 0), InputError, "'b' must be an integer >= 1, got 0"),
        (("a", "b"), (2, -4), InputError, "'b' must be an integer >= 1, got -4"),
        (("a", "b"), (2, True), InputError, "'b' must be an integer >= 1, got True"),
        (("a", "b"), (2, 2.0), InputError, "'b' must be an integer >= 1, got 2.0"),
    ],
    ids=["empty", "length-mismatch", "duplicate", "empty-name", "non-str-name", "zero", "negative", "bool", "float"],
)
def test_constructor_rejects(attributes, sizes, error, fragment):
    with pytest.raises(error) as info:
        Domain(attributes, sizes)
    assert fragment in str(info.value)
    assert isinstance(info.value, DPReleaseError)


# ---------------------------------------------------------------------- builders
def test_from_dict_keeps_mapping_order():
    d = Domain.from_dict({"z": 4, "a": 2})
    assert d.attributes == ("z", "a") and d.sizes == (4, 2)
    assert Domain.from_dict(d.to_dict()) == d


def test_from_dict_rejects_non_mapping():
    with pytest.raises(InputTypeError, match="mapping.*got list"):
        Domain.from_dict([("a", 2)])  # type: ignore[arg-type]


def test_from_json_round_trip(write_file, tiny_domain):
    path = write_file("domain.json", '{"a": 2, "b": 3, "c": 4}')
    assert Domain.from_json(path) == tiny_domain
    assert Domain.from_json(str(path)) == tiny_domain


@pytest.mark.parametrize(
    ("text", "error", "fragments"),
    [
        ("{not json", InputError, ["is not valid JSON", "line 1"]),
        ("", InputError, ["is not valid JSON"]),
        ("[2, 3]", InputError, ["must hold a JSON object", "got list"]),
        ('"a"', InputError, ["must hold a JSON object", "got str"]),
        ("{}", InputError, ["at least one attribute"]),
        ('{"a": 2, "b": 1.5}', InputError, ["'b'", "1.5"]),
        ('{"a": 2, "b": "3"}', InputError, ["'b'", "'3'"]),
        ('{"a": 2, "b": null}', InputError, ["'b'", "None"]),
        ('{"a": 2, "b": true}', InputError, ["'b'", "True"]),
        ('{"a": 2, "b": 0}', InputError, ["'b'", "got 0"]),
        ('{"a": -3, "b": 2}', InputError, ["'a'", "got -3"]),
        ('{"a": 2, "b": 3, "a": 4}', InputError, ["'a'", "more than once"]),
        ('{"a": 2, "b": [3]}', InputError, ["'b'", "[3]"]),
    ],
    ids=["not-json", "empty-file", "list", "string", "empty-object", "float-size", "string-size", "null-size",
         "bool-size", "zero-size", "negative-size", "duplicate-key", "list-size"],
)
def test_from_json_rejects_malformed_files(write_file, text, error, fragments):
    path = write_file("domain.json", text)
    with pytest.raises(error) as info:
        Domain.from_json(path)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message


def test_from_json_missing_file_names_the_path(tmp_path):
    path = tmp_path / "nope.json"
    with pytest.raises(InputError, match="cannot be read") as info:
        Domain.from_json(path)
    assert "nope.json" in str(info.value)


def test_from_json_duplicate_key_message_names_the_file(write_file):
    path = write_file("dup.json", '{"age": 2, "age": 3}')
    with pytest.raises(InputError) as info:
        Domain.from_json(path)
    assert "dup.json" in str(info.value) and "'age'" in str(info.value)


# -------------------------------------------------------------------- arithmetic
def test_axis_and_size_of(tiny_domain):
    assert [tiny_domain.axis(a) for a in "abc"] == [0, 1, 2]
    assert tiny_domain.axes(["c", "a"]) == (2, 0)
    assert tiny_domain.size_of("c") == 4


def test_unknown_attribute_is_named(tiny_domain):
    with pytest.raises(InputError) as info:
        tiny_domain.axis("zz")
    assert "'zz'" in str(info.value) and "['a', 'b', 'c']" in str(info.value)
    with pytest.raises(InputError, match="'zz'"):
        tiny_domain.project(["a", "zz"])


def test_project_keeps_given_order(tiny_domain):
    p = tiny_domain.project(["c", "a"])
    assert p.attributes == ("c", "a") and p.sizes == (4, 2) and p.size == 8


def test_canonical_sorts_into_domain_order(tiny_domain):
    assert tiny_domain.canonical(["c", "a"]) == ("a", "c")
    assert tiny_domain.canonical(("b",)) == ("b",)
    assert tiny_domain.canonical([]) == ()
    with pytest.raises(InputError, match="twice"):
        tiny_domain.canonical(["a", "a"])
    with pytest.raises(InputError, match="'q'"):
        tiny_domain.canonical(["a", "q"])


@settings(derandomize=True, max_examples=50)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=6), st.data())
def test_project_and_canonical_properties(sizes, data):
    names = tuple(f"v{i}" for i in range(len(sizes)))
    d = Domain(names, tuple(sizes))
    chosen = data.draw(st.permutations(names))[: data.draw(st.integers(1, len(names)))]
    p = d.project(chosen)
    assert p.size == math.prod(d.size_of(a) for a in chosen)
    canonical = d.canonical(chosen)
    assert sorted(canonical) == sorted(chosen)
    assert list(d.axes(canonical)) == sorted(d.axes(chosen))


# ------------------------------------------------------------------- memory cap
def test_check_fits_passes_at_the_cap(tiny_domain):
    tiny_domain.check_fits(24)
    tiny_domain.check_fits(DEFAULT_MAX_CELLS)


def test_check_fits_message_names_cap_and_max_cells(tiny_domain):
    with pytest.raises(DomainTooLargeError) as info:
        tiny_domain.check_fits(23, what="a test histogram")
    message = str(info.value)
    assert "max_cells=23" in message
    assert "24 cells" in message
    assert "a test histogram" in message
    assert isinstance(info.value, InputError)  # the CLI maps it to exit code 2


def test_check_fits_huge_domain_default_cap():
    d = Domain(tuple(f"x{i}" for i in range(14)), (100,) * 14)
    with pytest.raises(DomainTooLargeError) as info:
        d.check_fits(DEFAULT_MAX_CELLS)
    assert f"max_cells={DEFAULT_MAX_CELLS:,}" in str(info.value)
    assert "1e+28" in str(info.value)
