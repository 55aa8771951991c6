"""Dataset: loaders, marginals, and the load-time checks of bad tables."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprelease import Dataset, Domain, DomainTooLargeError, InputError
from dprelease.errors import InputTypeError


class FakeFrame:
    """The smallest DataFrame stand-in: ``.columns`` and column indexing (pandas is not installed)."""

    def __init__(self, columns: dict[str, object]) -> None:
        self._columns = dict(columns)
        self.columns = list(self._columns)

    def __getitem__(self, name: str) -> object:
        return self._columns[name]


def brute_force_marginal(records: np.ndarray, domain: Domain, attributes: tuple[str, ...]) -> np.ndarray:
    """The marginal counted by looping over records: the reference for marginal_counts."""
    axes = [domain.axis(a) for a in attributes]
    out = np.zeros(tuple(domain.size_of(a) for a in attributes))
    for row in records:
        out[tuple(int(row[i]) for i in axes)] += 1
    return out


# ----------------------------------------------------------------------- loaders
def test_from_csv_reads_codes(tiny_files, tiny_domain, tiny_records_array):
    data = Dataset.from_csv(tiny_files["data"], tiny_domain)
    assert data.n == len(tiny_records_array)
    assert data.records.dtype == np.int64
    np.testing.assert_array_equal(data.records, tiny_records_array)
    assert data.domain == tiny_domain


def test_from_csv_column_selection_ignores_extra_columns_and_reorders(write_csv, tiny_domain):
    path = write_csv("t.csv", ["extra", "c", "a", "b"], [[99, 3, 1, 0], [-7, 0, 0, 2]])
    data = Dataset.from_csv(path, tiny_domain)
    np.testing.assert_array_equal(data.records, [[1, 0, 3], [0, 2, 0]])
    picked = Dataset.from_csv(path, tiny_domain, columns=["c", "a"])
    assert picked.domain == Domain(("c", "a"), (4, 2))
    np.testing.assert_array_equal(picked.records, [[3, 1], [0, 0]])


def test_from_csv_accepts_whole_floats_spaces_and_crlf(write_file, tiny_domain):
    path = write_file("t.csv", "a, b ,c\r\n1.0, 2 ,3\r\n0,0.0,0\r\n")
    data = Dataset.from_csv(path, tiny_domain)
    np.testing.assert_array_equal(data.records, [[1, 2, 3], [0, 0, 0]])


def test_repeated_cells_are_read_once_each_with_the_same_codes_and_errors(write_file, tiny_domain):
    """A column of codes is parsed per distinct cell (a 2,000,000-row table read in half the time): the forms of a
    code ("1", " 1 ", "1.0") still give it, and a bad cell among repeated good ones is still named by its kind."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, [2, 3, 4], size=(600, 3))
    forms = {0: ["0", " 0", "0.0"], 1: ["1", "1.0 ", " 1"], 2: ["2", "2.00"], 3: ["3"]}
    lines = ["a,b,c"] + [",".join(forms[v][i % len(forms[v])] for v in row) for i, row in enumerate(codes)]
    data = Dataset.from_csv(write_file("t.csv", "\n".join(lines) + "\n"), tiny_domain)
    np.testing.assert_array_equal(data.records, codes)
    for bad, fragment in (("x", "not a number"), ("1.5", "not an integer code"), ("", "empty or missing"),
                          ("NA", "empty or missing"), ("9", "outside the codes 0..2")):
        broken = lines[:300] + [f"1,{bad},3"] + lines[300:]
        with pytest.raises(InputError, match=fragment):
            Dataset.from_csv(write_file("bad.csv", "\n".join(broken) + "\n"), tiny_domain)


def test_from_records(tiny_domain):
    data = Dataset.from_records([[0, 0, 0], [1, 2, 3], [1, 2, 3]], tiny_domain)
    assert data.n == 3
    assert data.marginal_counts(["a", "c"])[1, 3] == 2.0


@pytest.mark.parametrize("shape", [(6,), (2, 2), (2, 4), (0, 3, 1)], ids=["1d", "too-few-cols", "too-many-cols", "3d"])
def test_from_records_wrong_shape(tiny_domain, shape):
    with pytest.raises(InputError) as info:
        Dataset.from_records(np.zeros(shape, dtype=int), tiny_domain)
    assert "(n, 3)" in str(info.value) and str(shape) in str(info.value)


def test_from_records_no_rows(tiny_domain):
    with pytest.raises(InputError, match="no rows"):
        Dataset.from_records(np.zeros((0, 3), dtype=int), tiny_domain)


def test_from_histogram(tiny_domain, tiny_dataset):
    counts = tiny_dataset.histogram()
    flat = Dataset.from_histogram(counts.reshape(-1).astype(np.int64), tiny_domain)
    shaped = Dataset.from_histogram(counts, tiny_domain)
    for data in (flat, shaped):
        assert data.n == tiny_dataset.n
        assert data.records is None
        np.testing.assert_array_equal(data.histogram(), counts)


@pytest.mark.parametrize(
    ("counts", "error", "fragment"),
    [
        (np.ones(23), InputError, "must have 24 cells"),
        (np.full(24, 0.5), InputError, "(24 cells)"),
        (np.r_[np.ones(23), np.nan], InputError, "got nan (1 cells)"),
        (np.r_[np.ones(22), -1, -2], InputError, ">= 0, got -2 (2 cells)"),
        (np.zeros(24, dtype=int), InputError, "n = 0"),
        (np.array(["1"] * 24), InputTypeError, "numeric"),
        (np.ones(24, dtype=bool), InputTypeError, "numeric"),
        (np.ones(24, dtype=complex), InputTypeError, "numeric"),
    ],
    ids=["wrong-size", "fraction", "nan", "negative", "empty", "strings", "bools", "complex"],
)
def test_from_histogram_rejects(tiny_domain, counts, error, fragment):
    with pytest.raises(error) as info:
        Dataset.from_histogram(counts, tiny_domain)
    assert fragment in str(info.value)


def test_from_histogram_respects_max_cells(tiny_domain):
    with pytest.raises(DomainTooLargeError, match="max_cells=10"):
        Dataset.from_histogram(np.ones(24), tiny_domain, max_cells=10)


def test_from_dataframe(tiny_domain, tiny_records_array):
    frame = FakeFrame({
        "c": tiny_records_array[:, 2].astype(float),  # a float column of whole numbers
        "junk": ["x"] * len(tiny_records_array),
        "a": list(tiny_records_array[:, 0]),
        "b": [str(v) for v in tiny_records_array[:, 1]],
    })
    data = Dataset.from_dataframe(frame, tiny_domain)
    np.testing.assert_array_equal(data.records, tiny_records_array)
    picked = Dataset.from_dataframe(frame, tiny_domain, columns=["b"])
    np.testing.assert_array_equal(picked.records[:, 0], tiny_records_array[:, 1])


@pytest.mark.parametrize(
    ("column", "error", "fragments"),
    [
        ([0.0, np.nan, 1.0, np.nan], InputError, ["'b'", "missing (NaN)"]),
        ([0, 1, None, 2], InputError, ["'b'", "empty or missing"]),
        ([True, False, True, True], InputError, ["'b'", "booleans"]),
        ([0, 1, 7, 9], InputError, ["'b'", "outside the codes 0..2"]),
        ([0.5, 1.0, 1.0, 1.0], InputError, ["'b'", "not an integer code"]),
    ],
    ids=["nan", "none", "bool", "out-of-range", "fraction"],
)
def test_from_dataframe_bad_column(tiny_domain, column, error, fragments):
    frame = FakeFrame({"a": [0, 1, 0, 1], "b": column, "c": [0, 1, 2, 3]})
    with pytest.raises(error) as info:
        Dataset.from_dataframe(frame, tiny_domain)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    assert "data frame" in str(info.value)


def test_from_dataframe_missing_column_and_wrong_type(tiny_domain):
    with pytest.raises(InputError, match=r"lacks column\(s\) \['c'\]"):
        Dataset.from_dataframe(FakeFrame({"a": [0], "b": [0]}), tiny_domain)
    with pytest.raises(InputTypeError, match="DataFrame, got list"):
        Dataset.from_dataframe([[0, 0, 0]], tiny_domain)


# ------------------------------------------------------------------------ access
def test_select_keeps_rows(tiny_dataset, tiny_records_array):
    picked = tiny_dataset.select(["c", "a"])
    assert picked.n == tiny_dataset.n
    assert picked.domain.attributes == ("c", "a")
    np.testing.assert_array_equal(picked.records, tiny_records_array[:, [2, 0]])


def test_select_on_histogram_dataset(tiny_dataset):
    hist = Dataset.from_histogram(tiny_dataset.histogram(), tiny_dataset.domain)
    picked = hist.select(["c", "a"])
    assert picked.n == tiny_dataset.n
    np.testing.assert_array_equal(picked.histogram(), tiny_dataset.marginal_counts(["c", "a"]))


@pytest.mark.parametrize(
    ("columns", "error", "fragment"),
    [("ab", InputTypeError, "the string 'ab'"), ([], InputError, "at least one"),
     (["a", "a"], InputError, "['a'] more than once"), (["a", "zz"], InputError, "['zz']")],
    ids=["string", "empty", "duplicate", "unknown"],
)
def test_select_rejects(tiny_dataset, columns, error, fragment):
    with pytest.raises(error) as info:
        tiny_dataset.select(columns)
    assert fragment in str(info.value)


@pytest.mark.parametrize("attributes", [("a",), ("c", "a"), ("b", "c"), ("c", "b", "a"), ("a", "b", "c")])
def test_marginal_counts_match_brute_force(tiny_dataset, tiny_records_array, attributes):
    expected = brute_force_marginal(tiny_records_array, tiny_dataset.domain, attributes)
    np.testing.assert_array_equal(tiny_dataset.marginal_counts(attributes), expected)
    np.testing.assert_allclose(tiny_dataset.marginal(attributes), expected / tiny_dataset.n)
    hist = Dataset.from_histogram(tiny_dataset.histogram(), tiny_dataset.domain)
    np.testing.assert_array_equal(hist.marginal_counts(attributes), expected)


def test_empty_marginal_is_n(tiny_dataset):
    assert float(tiny_dataset.marginal_counts(())) == tiny_dataset.n
    hist = Dataset.from_histogram(tiny_dataset.histogram(), tiny_dataset.domain)
    assert float(hist.marginal_counts(())) == tiny_dataset.n


def test_histogram_shape_and_cap(tiny_dataset):
    assert tiny_dataset.histogram().shape == (2, 3, 4)
    assert tiny_dataset.histogram().sum() == tiny_dataset.n
    with pytest.raises(DomainTooLargeError, match="max_cells=5"):
        tiny_dataset.histogram(max_cells=5)


def test_to_records_from_histogram_is_a_permutation_of_the_rows(tiny_dataset, tiny_records_array):
    hist = Dataset.from_histogram(tiny_dataset.histogram(), tiny_dataset.domain)
    expanded = hist.to_records()
    assert expanded.shape == tiny_records_array.shape and expanded.dtype == np.int64
    key = lambda rows: sorted(map(tuple, rows.tolist()))  # noqa: E731
    assert key(expanded) == key(tiny_records_array)
    assert tiny_dataset.to_records() is tiny_dataset.records


# ----------------------------------------------------------------- properties
@st.composite
def domain_and_records(draw):
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    domain = Domain(tuple(f"x{i}" for i in range(len(sizes))), tuple(sizes))
    n = draw(st.integers(1, 40))
    rows = draw(st.lists(st.tuples(*[st.integers(0, s - 1) for s in sizes]), min_size=n, max_size=n))
    return domain, np.array(rows, dtype=np.int64).reshape(n, len(sizes))


@settings(derandomize=True, max_examples=50, deadline=None)
@given(domain_and_records(), st.data())
def test_records_and_histogram_give_the_same_marginals(pair, data):
    domain, records = pair
    from_rows = Dataset.from_records(records, domain)
    from_counts = Dataset.from_histogram(from_rows.histogram(), domain)
    assert from_counts.n == from_rows.n == len(records)
    attributes = data.draw(st.permutations(domain.attributes))[: data.draw(st.integers(1, len(domain)))]
    by_rows = from_rows.marginal_counts(attributes)
    np.testing.assert_array_equal(by_rows, from_counts.marginal_counts(attributes))
    np.testing.assert_array_equal(by_rows, brute_force_marginal(records, domain, tuple(attributes)))
    assert by_rows.sum() == len(records)
    assert from_rows.marginal(attributes).sum() == pytest.approx(1.0, abs=1e-12)


@settings(derandomize=True, max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_million_row_histograms_without_rows(sizes, seed):
    domain = Domain(tuple(f"x{i}" for i in range(len(sizes))), tuple(sizes))
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = rng.integers(500_000, 2_000_000, size=domain.size, dtype=np.int64)
    data = Dataset.from_histogram(counts, domain)
    assert data.records is None
    assert data.n == int(counts.sum()) >= 500_000
    cube = counts.reshape(domain.shape)
    for k in range(1, len(domain) + 1):
        for attributes in itertools.combinations(domain.attributes, k):
            marginal = data.marginal_counts(attributes)
            assert marginal.sum() == data.n  # exact: totals stay far below 2**53
            other = tuple(i for i in range(len(domain)) if domain.attributes[i] not in attributes)
            np.testing.assert_array_equal(marginal, cube.sum(axis=other))


# ----------------------------------------------------------------- bad tables
BAD_TABLES = [
    # id, CSV text (None: no file), columns, expected message fragments
    ("missing-column", "a,b\n0,0\n", None, ["lacks column(s) ['c']", "['a', 'b']"]),
    ("unknown-columns", "a,b,c\n0,0,0\n", ["a", "zz"], ["['zz']", "not in the domain"]),
    ("duplicate-header", "a,b,c,a\n0,0,0,1\n", None, ["['a']", "more than once"]),
    ("fraction", "a,b,c\n0,0,0\n1,1.5,0\n", None, ["column 'b'", "not an integer code"]),
    ("text", "a,b,c\n0,abc,0\n1,1,0\n0,xyz,0\n", None, ["column 'b'", "not a number"]),
    ("empty-cell", "a,b,c\n0,,0\n1,1,\n", None, ["column 'b'", "empty or missing"]),
    ("nan-cell", "a,b,c\n0,1,NaN\n1,1,nan\n1,1,1\n", None, ["column 'c'", "empty or missing"]),
    ("inf-cell", "a,b,c\n0,1,inf\n", None, ["column 'c'", "not a number"]),
    ("negative", "a,b,c\n0,1,2\n-1,1,2\n", None, ["column 'a'", "outside the codes 0..1"]),
    ("too-large", "a,b,c\n0,3,2\n1,3,2\n0,0,0\n", None, ["column 'b'", "outside the codes 0..2"]),
    ("header-only", "a,b,c\n", None, ["has no rows"]),
    ("empty-file", "", None, ["is empty"]),
    ("ragged", "a,b,c\n0,0,0\n1,1\n0,0,0,0\n", None, ["cannot be read as CSV (a line has more or fewer fields than the header)"]),
    ("not-utf8", b"a,b,c\n\xff\xfe,0,0\n", None, ["is not UTF-8 text", "iconv"]),
    ("no-file", None, None, ["cannot be read", "t.csv"]),
]


@pytest.mark.parametrize(("text", "columns", "fragments"), [case[1:] for case in BAD_TABLES],
                         ids=[case[0] for case in BAD_TABLES])
def test_from_csv_rejects_bad_tables(tmp_path, tiny_domain, text, columns, fragments):
    path = tmp_path / "t.csv"
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        Dataset.from_csv(path, tiny_domain, columns=columns)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    if text is not None and columns is None:
        assert "t.csv" in message  # names the file


def test_from_csv_columns_must_be_a_list(tiny_files, tiny_domain):
    with pytest.raises(InputTypeError, match="the string 'a,b'"):
        Dataset.from_csv(tiny_files["data"], tiny_domain, columns="a,b")


# ---------------------------------------------------------------- known bugs
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_huge_code_is_refused_not_wrapped_and_not_quoted(write_file, tiny_domain):
    path = write_file("big.csv", "a,b,c\n0,0,0\n99999999999999999999,1,1\n")
    with pytest.raises(InputError) as info:
        Dataset.from_csv(path, tiny_domain)
    assert "outside the codes 0..1" in str(info.value) and "9999" not in str(info.value)


def test_huge_uint64_code_is_refused_not_wrapped_and_not_quoted(tiny_domain):
    records = np.array([[2**63 + 5, 0, 0]], dtype=np.uint64)
    with pytest.raises(InputError, match=r"outside the codes 0\.\.1") as info:
        Dataset.from_records(records, tiny_domain)
    assert "922337" not in str(info.value)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda d: Dataset.from_histogram(np.full(24, 0.5), d), "counts must be whole numbers, got 0.5 (24 cells)"),
        (lambda d: Dataset.from_histogram(np.r_[np.ones(23), np.nan], d), "counts must be whole numbers, got nan (1 cells)"),
        (lambda d: Dataset.from_records(np.array([[0, 1.5, 0]]), d),
         "records, column 'b': a value is not an integer code (values are private: not shown)"),
        (lambda d: Dataset.from_records([["0", "2.5", "0"]], d),
         "records, column 'b': a value is not an integer code (values are private: not shown)"),
    ],
    ids=["histogram-fraction", "histogram-nan", "float-records", "text-records"],
)
def test_messages_quote_plain_numbers(tiny_domain, build, expected):
    with pytest.raises(InputError) as info:
        build(tiny_domain)
    assert str(info.value) == expected


def test_from_csv_accepts_utf8_bom(tmp_path, tiny_domain):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfa,b,c\n1,2,3\n")
    data = Dataset.from_csv(path, tiny_domain)
    np.testing.assert_array_equal(data.records, [[1, 2, 3]])


def test_the_constructor_counts_the_rows_it_is_not_told(tiny_domain, tiny_records_array):
    """``Dataset(domain, records)`` (the dataclass's own constructor, a natural first call) had n = 0, and MWEM then
    failed on a division by zero in its plan; it now counts the rows, as the loaders do, from records or counts."""
    from dprelease.api import synthesize
    from dprelease.queries.workload import Workload

    direct = Dataset(tiny_domain, tiny_records_array)
    loaded = Dataset.from_records(tiny_records_array, tiny_domain)
    assert direct.n == loaded.n == len(tiny_records_array)
    assert Dataset(tiny_domain, None, loaded.histogram()).n == loaded.n
    assert Dataset(tiny_domain, tiny_records_array, None, 7).n == 7  # a count it is told is trusted, as before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(direct, Workload.from_spec("1-2way", tiny_domain), epsilon=1.0, seed=0)
    assert len(release.rows) == loaded.n
