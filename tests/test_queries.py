"""Queries: product-form and dense linear queries, marginal workloads, query lists."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprelease import Dataset, DenseQuery, Domain, InputError, ProductQuery, QueryList, Workload
from dprelease.errors import InputTypeError
from dprelease.representations import HistogramModel


def random_model(domain: Domain, seed: int) -> HistogramModel:
    rng = np.random.Generator(np.random.PCG64(seed))
    return HistogramModel.from_log_weights(domain, rng.normal(0.0, 2.0, size=domain.shape))


def brute_force_product(records: np.ndarray, domain: Domain, weights: dict[str, np.ndarray]) -> float:
    """(1/n) sum over records of prod_a w_a[r_a], by a plain loop."""
    total = 0.0
    for row in records:
        value = 1.0
        for attribute, w in weights.items():
            value *= float(w[int(row[domain.axis(attribute)])])
        total += value
    return total / len(records)


# ------------------------------------------------------------------ ProductQuery
def test_conjunction_counts_matching_rows(tiny_dataset, tiny_records_array):
    q = ProductQuery.conjunction(tiny_dataset.domain, {"c": [0, 3], "a": 1}, name="q")
    assert q.attributes == ("a", "c")  # canonical (domain) order
    r = tiny_records_array
    expected = np.mean((r[:, 0] == 1) & np.isin(r[:, 2], [0, 3]))
    assert q.evaluate(tiny_dataset) == pytest.approx(expected, abs=1e-12)
    assert 0 < expected < 1  # the test can tell a wrong count from a right one
    assert q.support_size == 2
    assert q.describe() == {"a": [0.0, 1.0], "c": [1.0, 0.0, 0.0, 1.0]}


def test_conjunction_accepts_numpy_integers(tiny_domain):
    q = ProductQuery.conjunction(tiny_domain, {"b": np.int64(2)})
    np.testing.assert_array_equal(q.weights[0], [0, 0, 1])


def test_empty_conjunction_is_the_constant_one(tiny_dataset):
    q = ProductQuery.conjunction(tiny_dataset.domain, {})
    assert q.evaluate(tiny_dataset) == 1.0
    np.testing.assert_array_equal(np.broadcast_to(q.factor(), (2, 3, 4)), np.ones((2, 3, 4)))


def test_weights_are_read_only(tiny_domain):
    q = ProductQuery.from_weights(tiny_domain, {"a": [0.25, 1.0]})
    with pytest.raises(ValueError):
        q.weights[0][0] = 0.5


@pytest.mark.parametrize(
    ("where", "error", "fragments"),
    [
        ({"a": 2}, InputError, ["value 2", "'a'", "outside 0..1"]),
        ({"b": -1}, InputError, ["value -1", "'b'", "outside 0..2"]),
        ({"c": [0, 4]}, InputError, ["value 4", "'c'", "outside 0..3"]),
        ({"a": True}, InputTypeError, ["'a'", "True"]),
        ({"b": 1.0}, InputTypeError, ["'b'", "1.0"]),
        ({"b": "1"}, InputTypeError, ["'b'", "'1'"]),
        ({"zz": 0}, InputError, ["'zz'", "unknown attribute"]),
        ({"c": []}, InputError, ["'c'", "empty"]),
    ],
    ids=["too-large", "negative", "too-large-in-list", "bool", "float", "string", "unknown-attribute", "empty-list"],
)
def test_conjunction_rejects(tiny_domain, where, error, fragments):
    with pytest.raises(error) as info:
        ProductQuery.conjunction(tiny_domain, where)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_conjunction_rejects_non_mapping(tiny_domain):
    with pytest.raises(InputTypeError, match="mapping.*got list"):
        ProductQuery.conjunction(tiny_domain, [("a", 0)])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("weights", "error", "fragments"),
    [
        ({"a": [0.5, 1.5]}, InputError, ["'a'", "[0, 1]", "1.5"]),
        ({"a": [-0.1, 0.5]}, InputError, ["'a'", "[0, 1]", "-0.1"]),
        ({"a": [0.5, float("nan")]}, InputError, ["'a'", "nan"]),
        ({"a": [0.5, float("inf")]}, InputError, ["'a'", "inf"]),
        ({"b": [0.5, 0.5]}, InputError, ["'b'", "3 numbers", "[0.5, 0.5]"]),
        ({"b": [[0.5, 0.5, 0.5]]}, InputError, ["'b'", "3 numbers"]),
        ({"a": ["x", 0.5]}, InputTypeError, ["'a'", "must be numbers", "'x'"]),
        ({"a": [None, object()]}, InputTypeError, ["'a'", "must be numbers"]),
        ({"zz": [1.0]}, InputError, ["'zz'", "unknown attribute"]),
    ],
    ids=["above-one", "negative", "nan", "inf", "wrong-length", "two-dimensional", "string", "object",
         "unknown-attribute"],
)
def test_from_weights_rejects(tiny_domain, weights, error, fragments):
    with pytest.raises(error) as info:
        ProductQuery.from_weights(tiny_domain, weights)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_from_weights_rejects_non_mapping(tiny_domain):
    with pytest.raises(InputTypeError, match="mapping.*got tuple"):
        ProductQuery.from_weights(tiny_domain, (("a", [1.0, 1.0]),))  # type: ignore[arg-type]


def test_factor_broadcasts_to_the_domain(tiny_domain):
    q = ProductQuery.from_weights(tiny_domain, {"c": [0.1, 0.2, 0.3, 0.4], "a": [1.0, 0.5]})
    full = np.broadcast_to(q.factor(), tiny_domain.shape)
    for a, b, c in itertools.product(range(2), range(3), range(4)):
        assert full[a, b, c] == pytest.approx([1.0, 0.5][a] * [0.1, 0.2, 0.3, 0.4][c])


def test_evaluate_on_histogram_model_is_inner_product(tiny_domain):
    model = random_model(tiny_domain, seed=7)
    q = ProductQuery.from_weights(tiny_domain, {"b": [0.2, 1.0, 0.0], "c": [1.0, 0.3, 0.6, 0.0]})
    expected = float(np.sum(model.probabilities * q.factor()))
    assert q.evaluate(model) == pytest.approx(expected, rel=1e-12)
    assert model.answer(q) == q.evaluate(model)


@st.composite
def product_case(draw):
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    domain = Domain(tuple(f"x{i}" for i in range(len(sizes))), tuple(sizes))
    chosen = draw(st.permutations(domain.attributes))[: draw(st.integers(0, len(domain)))]
    unit = st.floats(0.0, 1.0, allow_nan=False)
    weights = {a: np.array(draw(st.lists(unit, min_size=domain.size_of(a), max_size=domain.size_of(a))))
               for a in chosen}
    n = draw(st.integers(1, 30))
    records = np.array(draw(st.lists(st.tuples(*[st.integers(0, s - 1) for s in sizes]), min_size=n, max_size=n)))
    return domain, weights, records.reshape(n, len(sizes)), draw(st.integers(0, 2**32 - 1))


@settings(derandomize=True, max_examples=50, deadline=None)
@given(product_case())
def test_product_query_matches_brute_force(case):
    domain, weights, records, seed = case
    q = ProductQuery.from_weights(domain, weights)
    data = Dataset.from_records(records, domain)
    assert q.evaluate(data) == pytest.approx(brute_force_product(records, domain, weights), abs=1e-12)
    model = random_model(domain, seed)
    assert q.evaluate(model) == pytest.approx(float(np.sum(model.probabilities * q.factor())), abs=1e-12)
    # A histogram-backed dataset answers exactly as the rows do.
    assert q.evaluate(Dataset.from_histogram(data.histogram(), domain)) == pytest.approx(q.evaluate(data), abs=1e-12)


# -------------------------------------------------------------------- DenseQuery
def test_dense_query_matches_product_query(tiny_dataset):
    product = ProductQuery.from_weights(tiny_dataset.domain, {"a": [0.0, 1.0], "c": [0.5, 0.5, 1.0, 0.25]})
    dense = DenseQuery(tiny_dataset.domain, np.broadcast_to(product.factor(), (2, 3, 4)).reshape(-1), name="d")
    assert dense.vector.shape == (2, 3, 4)
    assert dense.evaluate(tiny_dataset) == pytest.approx(product.evaluate(tiny_dataset), abs=1e-12)
    model = random_model(tiny_dataset.domain, seed=3)
    assert dense.evaluate(model) == pytest.approx(float(np.sum(model.probabilities * dense.factor())), abs=1e-12)
    with pytest.raises(ValueError):
        dense.vector[0, 0, 0] = 1.0


def test_dense_query_arbitrary_vector_brute_force(tiny_dataset, tiny_records_array):
    rng = np.random.Generator(np.random.PCG64(11))
    vector = rng.random((2, 3, 4))
    dense = DenseQuery(tiny_dataset.domain, vector)
    expected = np.mean([vector[tuple(row)] for row in tiny_records_array])
    assert dense.evaluate(tiny_dataset) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("vector", "fragment"),
    [(np.ones(23), "24 entries, got 23"), (np.full(24, 1.5), "[0, 1]"), (np.r_[np.ones(23), np.nan], "[0, 1]"),
     (np.r_[np.ones(23), -0.5], "-0.5")],
    ids=["wrong-size", "above-one", "nan", "negative"],
)
def test_dense_query_rejects(tiny_domain, vector, fragment):
    with pytest.raises(InputError) as info:
        DenseQuery(tiny_domain, vector)
    assert fragment in str(info.value)


# ---------------------------------------------------------------------- Workload
@pytest.mark.parametrize(
    ("spec", "marginals", "num_queries"),
    [
        ("3way", [("a", "b", "c")], 24),
        ("1way", [("a",), ("b",), ("c",)], 9),
        (" 2way ", [("a", "b"), ("a", "c"), ("b", "c")], 26),
        ("1-3way", [("a",), ("b",), ("c",), ("a", "b"), ("a", "c"), ("b", "c"), ("a", "b", "c")], 59),
        ("2-3way", [("a", "b"), ("a", "c"), ("b", "c"), ("a", "b", "c")], 50),
        ("3-way", [("a", "b", "c")], 24),  # as English writes them
        ("2-3-Way", [("a", "b"), ("a", "c"), ("b", "c"), ("a", "b", "c")], 50),
    ],
)
def test_from_spec_kway(tiny_domain, spec, marginals, num_queries):
    w = Workload.from_spec(spec, tiny_domain)
    assert list(w.marginals) == marginals
    assert w.num_queries == num_queries
    assert w.num_queries == sum(int(np.prod([tiny_domain.size_of(a) for a in m])) for m in w.marginals)


def test_from_spec_json_file(write_file, tiny_domain):
    path = write_file("w.json", [["c", "a"], ["b"], ["a", "c"]])
    w = Workload.from_spec(str(path), tiny_domain)
    assert w.marginals == (("a", "c"), ("b",))  # canonicalised, duplicate removed
    assert w.num_queries == 8 + 3
    assert w.attributes == ("a", "b", "c")
    assert w.to_json() == [["a", "c"], ["b"]]


def test_duplicates_removed_and_order_canonical(tiny_domain):
    w = Workload(tiny_domain, (("c", "b"), ("b", "c"), ("a",), ("c", "b"), ("a",)))
    assert w.marginals == (("b", "c"), ("a",))
    assert w.num_queries == 12 + 2
    assert Workload(tiny_domain, (("c",),)).attributes == ("c",)


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("0way", ["'0way'", "k must be >= 1"]),
        ("9way", ["9-way", "at least 9 columns, got 3"]),
        ("4way", ["4-way", "at least 4 columns, got 3"]),
        ("3-2way", ["3-2"]),
        ("0-2way", ["0-2"]),
        ("threeway", ["'threeway'", "neither", "1-3way: every marginal of 1 to 3 columns"]),
        ("1-3", ["'1-3'", "neither"]),
        ("no-such-file.json", ["'no-such-file.json'", "neither"]),
    ],
)
def test_from_spec_rejects_bad_specs(tiny_domain, spec, fragments):
    with pytest.raises(InputError) as info:
        Workload.from_spec(spec, tiny_domain)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('[["a", "zz"]]', ["'zz'", "unknown attribute", "['a', 'b', 'c']"]),
        ('[["a", "b"', ["not valid JSON"]),
        ('{"a": ["b"]}', ["must hold a JSON list of lists"]),
        ('["a", "b"]', ["must hold a JSON list of lists"]),
        ('[["a", 1]]', ["must hold a JSON list of lists"]),
        ("[]", ["at least one marginal"]),
        ("[[]]", ["at least one attribute"]),
        ('[["a", "a"]]', ["twice"]),
    ],
    ids=["unknown-attribute", "malformed", "object", "flat-list", "non-string", "empty", "empty-marginal",
         "repeated-attribute"],
)
@pytest.mark.parametrize("inline", [False, True], ids=["file", "inline"])
def test_from_spec_rejects_bad_json_files(write_file, tiny_domain, text, fragments, inline):
    """The same checks whether the list is in a file or written inline (a shell user's '[["a", "b"]]')."""
    if inline and not text.lstrip().startswith("["):
        fragments = ["neither", "a JSON list of attribute lists"]  # inline JSON is a list: anything else is a path
    spec = text if inline else str(write_file("w.json", text))
    with pytest.raises(InputError) as info:
        Workload.from_spec(spec, tiny_domain)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_from_spec_takes_a_json_list_inline_as_from_a_file(write_file, tiny_domain):
    text = '[["a", "b"], ["c"]]'
    inline = Workload.from_spec(text, tiny_domain)
    filed = Workload.from_spec(str(write_file("w.json", text)), tiny_domain)
    assert inline.marginals == filed.marginals == (("a", "b"), ("c",))


def test_from_spec_rejects_non_string(tiny_domain):
    with pytest.raises(InputTypeError, match="string, got int"):
        Workload.from_spec(3, tiny_domain)  # type: ignore[arg-type]


def test_workload_rejects_string_marginal(tiny_domain):
    with pytest.raises(InputTypeError, match="'ab'"):
        Workload(tiny_domain, ("ab",))


@pytest.mark.parametrize("spec", ["1-3way", "2way", "3way"])
def test_answers_match_query_by_query(tiny_dataset, spec):
    w = Workload.from_spec(spec, tiny_dataset.domain)
    model = random_model(tiny_dataset.domain, seed=5)
    for source in (tiny_dataset, model):
        answers = w.answers(source)
        assert answers.shape == (w.num_queries,)
        for i in range(w.num_queries):
            assert answers[i] == pytest.approx(w.query(i).evaluate(source), abs=1e-12)
        # every marginal's cells sum to 1
        offsets = np.cumsum([0] + [w.cells(m) for m in w.marginals])
        for lo, hi in zip(offsets[:-1], offsets[1:]):
            assert answers[lo:hi].sum() == pytest.approx(1.0, abs=1e-12)


def test_query_names_its_cell_and_rejects_bad_index(tiny_domain):
    w = Workload.from_spec("1-2way", tiny_domain)
    # 2 + 3 + 4 one-way cells, then the (a, b) marginal: cell 9 is a=0, b=0; cell 14 is a=1, b=2.
    assert json.loads(w.query(14).name) == {"a": 1, "b": 2}
    assert w.query(0).attributes == ("a",)
    with pytest.raises(IndexError, match="35"):
        w.query(35)
    with pytest.raises(IndexError):
        w.query(-1)


def test_marginal_answers_match_dataset(tiny_dataset):
    w = Workload.from_spec("2way", tiny_dataset.domain)
    for m, a in zip(w.marginals, w.marginal_answers(tiny_dataset)):
        np.testing.assert_allclose(a, tiny_dataset.marginal(m))


# --------------------------------------------------------------------- QueryList
def test_query_list(tiny_dataset):
    d = tiny_dataset.domain
    queries = (ProductQuery.conjunction(d, {"a": 0}), DenseQuery(d, np.full(24, 0.5)))
    ql = QueryList(d, queries)
    assert ql.num_queries == 2
    np.testing.assert_allclose(ql.answers(tiny_dataset), [q.evaluate(tiny_dataset) for q in queries])
    assert ql.answers(tiny_dataset)[1] == pytest.approx(0.5)
    assert ql.query(1) is queries[1]


def test_query_list_rejects_empty_and_foreign_domain(tiny_domain):
    with pytest.raises(InputError, match="at least one query"):
        QueryList(tiny_domain, ())
    other = Domain(("a", "b"), (2, 3))
    with pytest.raises(InputError, match="'foreign'"):
        QueryList(tiny_domain, (ProductQuery.conjunction(other, {"a": 0}, name="foreign"),))


# ---------------------------------------------------------------- known bugs
@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda d: ProductQuery.from_weights(d, {"a": [0.5, 1.5]}),
         "weights for attribute 'a' must lie in [0, 1], got 1.5"),
        (lambda d: ProductQuery.from_weights(d, {"a": [0.5, float("nan")]}),
         "weights for attribute 'a' must lie in [0, 1], got nan"),
        (lambda d: DenseQuery(d, np.full(24, 2.0)), "query vector entries must lie in [0, 1], got 2.0"),
        (lambda d: ProductQuery.conjunction(d, {"a": np.int64(5)}), "query value 5 for attribute 'a' is outside 0..1"),
    ],
    ids=["weights-above-one", "weights-nan", "dense", "numpy-int-value"],
)
def test_messages_quote_plain_numbers(tiny_domain, build, expected):
    with pytest.raises(InputError) as info:
        build(tiny_domain)
    assert str(info.value) == expected
