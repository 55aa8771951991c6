"""The tuning suite's tables (benchmarks/suite_tables.py): declared shapes, deterministic generators.

The suite's figures are comparable across runs only if its tables never change silently, so the
generators are checked for determinism and for the structure their docstrings declare. Only the cheap
tables are loaded here (the whole set takes about 15 s; bench_suite.py records every table's shape and
fingerprint in its JSON).
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from tests.benchmark_modules import BENCHMARKS, load_benchmark


@pytest.fixture(scope="module")
def st():
    return load_benchmark("suite_tables")


def dependence(data, a: str, b: str) -> float:
    """L1 distance between the 2-way marginal (a, b) and the product of its 1-way marginals (0: independent)."""
    joint = data.marginal((a, b)).reshape(data.domain.size_of(a), data.domain.size_of(b))
    return float(np.abs(joint - np.outer(joint.sum(axis=1), joint.sum(axis=0))).sum())


SMALL = ["tiny-codes", "tiny-codes-5k", "chain5", "survey-500", "survey-5k", "latent4", "latent8", "pair10", "mixed4",
         "six3", "indep6", "latent5x6"]


@pytest.mark.parametrize("name", ["spread", "taxi", "bn-1k", "clinic", "loans", "orders", "meters", "households",
                                  "admissions", "sessions", "sensors", "likert",
                                  "customers", "genotypes-100", *SMALL])
def test_table_has_its_declared_shape(st, name):
    dataset, workload, description = st.load(name)
    declared = st.TABLES[name]
    assert (dataset.n, len(dataset.domain)) == (declared.n, declared.columns)
    assert workload == declared.workload and description == declared.description


def test_spread_is_the_issues_shape(st):
    dataset, _, _ = st.load("spread")
    assert dataset.n == 5_000 and len(dataset.domain) == 8
    assert math.prod(dataset.domain.sizes) == 1_814_400


def test_every_table_is_declared_with_a_workload_and_shape(st):
    from dprelease.queries.workload import _SPEC

    for table in st.TABLES.values():
        assert _SPEC.match(table.workload) and table.description and table.n > 0 and table.columns > 0


def test_bayes_net_is_sparse_and_deterministic(st):
    net = st.bayes_net()
    assert len(net.sizes) == 32 and sorted(set(net.sizes)) == [2, 50]
    assert net.sizes.count(50) == 10
    assert all(len(p) <= 2 and all(q < i for q in p) for i, p in enumerate(net.parents))
    for size, parents, cpt in zip(net.sizes, net.parents, net.cpts):
        assert cpt.shape == (math.prod(net.sizes[p] for p in parents), size)
        np.testing.assert_allclose(cpt.sum(axis=1), 1.0)
    again = st.bayes_net()
    assert all(np.array_equal(a, b) for a, b in zip(net.cpts, again.cpts)) and net.parents == again.parents
    first, second = st.bn(2_000), st.bn(2_000)
    assert np.array_equal(first.records, second.records)
    assert not np.array_equal(first.records[:1_000], st.bn(1_000).records)  # each n has its own stream


def test_clinic_follows_its_declared_network(st):
    # Deterministic, the declared sizes, and the data carry the network's edges: a child depends on its
    # parent (clinic on region) far more than on a node it has no path to (region and sex).
    first, second = st.clinic(n=3_000), st.clinic(n=3_000)
    assert np.array_equal(first.records, second.records)
    assert first.domain.sizes == tuple(size for _, size, _ in st.CLINIC_NODES)
    data = st.clinic()
    assert dependence(data, "region", "clinic") > 5 * dependence(data, "region", "sex")


def test_loans_sits_where_mwems_auto_leaves_the_histogram(st):
    """Deterministic, between MWEM's histogram limit and the histogram cap, and carrying its edges (returned
    on days out) far above two roots with no path between them (month and member type)."""
    from dprelease.domain import DEFAULT_MAX_CELLS
    from dprelease.representations import MWEM_HISTOGRAM_CELLS

    data = st.loans()
    assert np.array_equal(data.records, st.loans().records)
    assert MWEM_HISTOGRAM_CELLS < data.domain.size < DEFAULT_MAX_CELLS
    assert dependence(data, "days_out", "returned") > 5 * dependence(data, "month", "member_type")


CLINIC_DIGEST = "7f36d82959124f08"  # sha256 of clinic()'s records as int64, at commit 3931cd5


def test_clinic_is_unchanged_by_the_shared_network_builder(st):
    # The suite's clinic rows before the loans table shared its builder (a digest of the records).
    import hashlib
    assert hashlib.sha256(st.clinic().records.astype(np.int64).tobytes()).hexdigest()[:16] == CLINIC_DIGEST


def test_wide_is_deterministic_with_sizes_from_2_to_200(st):
    first, second = st.wide(n=2_000), st.wide(n=2_000)
    assert np.array_equal(first.records, second.records)
    assert len(first.domain) == 32 and min(first.domain.sizes) == 2 and max(first.domain.sizes) == 200


def test_draw_categorical_follows_each_rows_distribution(st):
    # 3 configurations of a 4-value child; 60,000 draws: each frequency within 5 standard errors.
    table = np.array([[0.7, 0.1, 0.1, 0.1], [0.0, 0.0, 0.5, 0.5], [0.25, 0.25, 0.25, 0.25]])
    config = np.repeat(np.arange(3), 20_000)
    draws = st.draw_categorical(st.generator(7), table, config)
    for c in range(3):
        freq = np.bincount(draws[config == c], minlength=4) / 20_000
        assert np.all(np.abs(freq - table[c]) <= 5 * np.sqrt(table[c] * (1 - table[c]) / 20_000) + 1e-12)


def test_bayes_net_edges_carry_strong_dependence(st):
    # The generated dependence must matter: on a typical edge (parent, child) the joint is far from the
    # product of its margins (median L1 0.36 on this network; an independent model misses all of it).
    dataset, net = st.bn(20_000), st.bayes_net()
    names = dataset.domain.attributes
    gaps = []
    for child, parents in enumerate(net.parents):
        for parent in parents:
            gaps.append(dependence(dataset, names[parent], names[child]))
    assert len(gaps) >= 32 and np.median(gaps) > 0.25


def test_suite_plans_lists_the_plan_a_run_makes(st, tmp_path, monkeypatch):
    """benchmarks/suite_plans.py prints each default plan from public quantities; a real run must agree with it."""
    import json
    import warnings

    from dprelease.api import synthesize

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setitem(sys.modules, "suite_tables", st)
    plans = load_benchmark("suite_plans")
    assert plans.main(["--tables", "small91", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "suite_plans.json").read_text())["plans"]
    assert len(rows) == 6 and "| small91 | 1,300 | 1 | pure | laplace |" in (tmp_path / "suite_plans.md").read_text()
    dataset, workload, _ = st.load("small91")
    for row in rows:
        if row["epsilon"] != 1.0:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release = synthesize(dataset, workload, epsilon=1.0, delta=1e-9 if row["path"] == "default" else 0.0,
                                 seed=0)
        ran = release.parameters
        assert (ran["noise"], ran["rounds"], ran["round_selection_share"]) == \
            (row["noise"], row["rounds"], row["selection_share"])
    pure = next(r for r in rows if r["epsilon"] == 1.0 and r["path"] == "pure")
    assert pure["selection_share"] == 0.5 and pure["selection_loss"] > 0.5  # capped: still short of the target


def test_held_out_tables_are_encoded_by_their_schemas_and_carry_their_structure(st):
    """orders, meters and households are raw text through a schema: deterministic, the schema's domain, blanks in the NULL
    code at about the generated rate, unlisted countries in ``other``, and the generated dependences present."""
    from dprelease.schema import Schema

    orders = st.orders()
    assert np.array_equal(orders.records, st.orders().records)
    assert orders.domain == Schema.from_dict(st.ORDERS_SCHEMA).domain
    column = {name: orders.records[:, i] for i, name in enumerate(orders.domain.attributes)}
    age_null, other = orders.domain.size_of("age") - 1, orders.domain.size_of("country") - 1
    assert 0.06 < np.mean(column["age"] == age_null) < 0.10  # 8 % blank
    assert 0.15 < np.mean(column["country"] == other) < 0.25  # 40 of 60 countries unlisted
    assert dependence(orders, "channel", "payment") > 5 * dependence(orders, "quantity", "payment")
    meters = st.meters()
    assert meters.domain == Schema.from_dict(st.METERS_SCHEMA).domain and meters.n == 60_000
    assert dependence(meters, "region", "postcode") > 5 * dependence(meters, "region", "household")
    households = st.households()
    assert np.array_equal(households.records, st.households().records)
    assert households.domain == Schema.from_dict(st.HOUSEHOLDS_SCHEMA).domain and households.n == 600
    income = households.records[:, households.domain.axis("income")]
    assert 0.04 < np.mean(income == households.domain.size_of("income") - 1) < 0.11  # 7 % blank
    assert dependence(households, "cars", "bike") > 5 * dependence(households, "heating", "bike")


def test_the_claims_table_is_reproducible_raw_text_with_its_one_dependence(st):
    """claims (held out, session 32): the same codes every time, the schema's domain, age blanks near 4 %, the fraud
    flag near 3 %, and fraud far more dependent with amount than with kind (which it does not touch)."""
    from dprelease.schema import Schema

    claims = st.claims()
    assert np.array_equal(claims.records, st.claims().records)
    assert claims.domain == Schema.from_dict(st.CLAIMS_SCHEMA).domain and claims.n == 4_000
    age = claims.records[:, claims.domain.axis("age")]
    assert 0.025 < np.mean(age == claims.domain.size_of("age") - 1) < 0.055
    assert 0.02 < np.mean(claims.records[:, claims.domain.axis("fraud")] == 1) < 0.04
    assert dependence(claims, "fraud", "amount") > 3 * dependence(claims, "fraud", "kind")


def test_the_admissions_and_sessions_tables_are_reproducible_with_their_dependences(st):
    """admissions and sessions (held out, session 33): the same codes every time, the schemas' domains, insurance
    blanks near 10 %, and the functional dependences (the ward fixes the specialty, the country its continent: each
    conditional has one value); revenue is above 0 only where the session converted."""
    from dprelease.schema import Schema

    admissions = st.admissions()
    assert np.array_equal(admissions.records, st.admissions().records)
    assert admissions.domain == Schema.from_dict(st.ADMISSIONS_SCHEMA).domain and admissions.n == 800
    insurance = admissions.records[:, admissions.domain.axis("insurance")]
    assert 0.07 < np.mean(insurance == admissions.domain.size_of("insurance") - 2) < 0.13  # null, then other
    sessions = st.sessions()
    assert sessions.domain == Schema.from_dict(st.SESSIONS_SCHEMA).domain and sessions.n == 60_000
    for data, key, fixed in ((admissions, "ward", "specialty"), (sessions, "country", "continent")):
        joint = data.marginal((key, fixed)).reshape(data.domain.size_of(key), -1)
        assert ((joint > 0).sum(axis=1) <= 1).all()  # one value of the second column per value of the first
    revenue = sessions.records[:, sessions.domain.axis("revenue")]
    converted = sessions.records[:, sessions.domain.axis("converted")] == 1
    assert (revenue[~converted] == 0).all() and np.mean(revenue[converted] > 0) > 0.99


def test_the_sensors_table_is_reproducible_with_its_strong_pairs(st):
    """sensors (held out, session 33): the same codes every time, neighbours in the chain far more dependent than the
    chain's ends, and the sixth reading tied to the first (a noisy |x|) though uncorrelated with it."""
    sensors = st.sensors()
    assert np.array_equal(sensors.records, st.sensors().records) and sensors.domain.sizes == (16,) * 6
    assert dependence(sensors, "s0", "s1") > 2 * dependence(sensors, "s0", "s4")
    assert dependence(sensors, "s0", "s5") > 0.5
    assert abs(np.corrcoef(sensors.records[:, 0], sensors.records[:, 5])[0, 1]) < 0.05


def test_the_likert_and_customers_tables_are_reproducible_with_their_structure(st):
    """likert and customers (held out, session 39): the same codes every time, the schemas' domains, blanks near the
    generated rates, items on one latent factor far more dependent than items on two, the newsletter flag only for
    retail customers, and the postcodes' long tail (most of the 2,000 hold few rows, a few hold many)."""
    from dprelease.schema import Schema

    likert = st.likert()
    assert np.array_equal(likert.records, st.likert().records)
    assert likert.domain == Schema.from_dict(st.LIKERT_SCHEMA).domain and likert.n == 3_000
    item = likert.records[:, likert.domain.axis("q01")]
    assert 0.035 < np.mean(item == likert.domain.size_of("q01") - 1) < 0.065  # 5 % blank
    assert dependence(likert, "q01", "q04") > 3 * dependence(likert, "q01", "q02")  # same factor against another
    customers = st.customers()
    assert np.array_equal(customers.records, st.customers().records)
    assert customers.domain == Schema.from_dict(st.CUSTOMERS_SCHEMA).domain and customers.n == 50_000
    rating = customers.records[:, customers.domain.axis("rating")]
    assert 0.37 < np.mean(rating == customers.domain.size_of("rating") - 1) < 0.43  # 40 % blank
    segment = customers.records[:, customers.domain.axis("segment")]
    newsletter = customers.records[:, customers.domain.axis("newsletter")]
    assert not newsletter[segment != 0].any() and 0.25 < newsletter[segment == 0].mean() < 0.35
    counts = np.sort(np.bincount(customers.records[:, customers.domain.axis("postcode")], minlength=2_000))
    assert counts[:1_000].sum() < 0.05 * customers.n and counts[-100:].sum() > 0.3 * customers.n



def test_the_genotype_tables_are_reproducible_with_linkage_inside_blocks_only(st):
    """genotypes-100 and -200 (held out, session 40): the same codes every time, 0/1/2 calls, neighbours inside a
    block strongly correlated, markers in different blocks not (every block is drawn alone)."""
    table = st.TABLES["genotypes-100"].build()
    assert np.array_equal(table.records, st.TABLES["genotypes-100"].build().records)
    assert table.n == 10_000 and table.domain.sizes == (3,) * 100 and set(np.unique(table.records)) == {0, 1, 2}
    r = np.corrcoef(table.records.T.astype(float))
    inside = [r[j, j + 1] for j in range(99) if (j + 1) % st.GENOTYPE_BLOCK]
    across = [r[j, j + 1] for j in range(99) if not (j + 1) % st.GENOTYPE_BLOCK]
    assert min(inside) > 0.6 and max(abs(c) for c in across) < 0.06
    wider = st.TABLES["genotypes-200"].build()
    assert wider.n == 10_000 and len(wider.domain) == 200


def test_the_second_held_out_set_is_reproducible_with_its_structure(st):
    """derived, pilot, postcodes, flags, constants (held out, session 48): the same codes every time, and the
    structure each was drawn for: copies that are one-to-one relabellings of their originals, a 150-row table, postcodes
    nested in districts with a long tail, rare flags that co-occur, and columns with one value in a wider domain."""
    for name in ("derived", "pilot", "postcodes", "flags", "constants"):
        table = st.TABLES[name]
        built = table.build()
        assert np.array_equal(built.records, table.build().records)
        assert (built.n, len(built.domain)) == (table.n, table.columns)
    derived = st.derived()
    for base in "abcd":
        original = derived.records[:, derived.domain.axis(f"{base}0")]
        for copy in (1, 2):
            codes = derived.records[:, derived.domain.axis(f"{base}{copy}")]
            pairs = set(zip(original.tolist(), codes.tolist()))
            assert len(pairs) == len(np.unique(original)) == len(np.unique(codes))  # one-to-one
        assert not np.array_equal(original, derived.records[:, derived.domain.axis(f"{base}1")])  # relabelled
    postcodes = st.postcodes()
    code, district = (postcodes.records[:, postcodes.domain.axis(a)] for a in ("postcode", "district"))
    assert np.array_equal(district, code // st.POSTCODES_PER_DISTRICT)
    counts = np.sort(np.bincount(code, minlength=st.POSTCODES))
    assert counts[:1_500].sum() < 0.1 * postcodes.n and counts[-30:].sum() > 0.3 * postcodes.n
    flags = st.flags()
    rate = (flags.records > 0).mean(axis=0)
    assert (rate > 0.02).all() and (rate < 0.04).all()  # 0.95 x 1 % + 0.05 x 40 %
    first, second = flags.records[:, 0] > 0, flags.records[:, 1] > 0
    assert second[first].mean() > 5 * second.mean()  # they co-occur (in the hidden group)
    constants = st.constants()
    for name, size, value in st.CONSTANT_COLUMNS:
        assert constants.domain.size_of(name) == size
        assert (constants.records[:, constants.domain.axis(name)] == value).all()


def test_the_fourth_held_out_set_has_its_blanks_words_and_hidden_conditions(st):
    """employees: salary blanks (6 %) in its NULL bucket, Y/N and True/False read, 20 yearly hire bins; intake: 30
    symptoms, two on one hidden condition tied, one off every condition nearly independent of them."""
    staff = st.employees()
    assert (staff.n, staff.domain.sizes) == (2_500, (9, 20, 9, 2, 4, 11, 6, 2))
    blank = staff.records[:, staff.domain.axis("salary")] == staff.domain.size_of("salary") - 1
    assert 0.04 < blank.mean() < 0.08
    assert 0.25 < staff.records[:, staff.domain.axis("remote")].mean() < 0.5  # Y read as true
    form = st.intake()
    assert (form.n, len(form.domain), form.domain.size_of("s00")) == (1_500, 34, 3)

    def dependence(a: str, b: str) -> float:
        joint = form.marginal((a, b))
        return float(np.abs(joint - np.outer(joint.sum(1), joint.sum(0))).sum())

    assert dependence("s00", "s03") > 0.1 > 0.03 > dependence("s20", "s23")


def test_the_held_out_tables_are_outside_the_suite_the_defaults_are_chosen_on(st):
    held_out = {"orders", "meters", "households", "claims", "admissions", "sessions", "sensors", "likert", "customers",
                "genotypes-100", "genotypes-200", "derived", "pilot", "postcodes", "flags", "constants",
                "geo", "sparse40", "tiny300", "many-values", "employees", "intake"}
    assert {name for name, table in st.TABLES.items() if table.held_out} == held_out
    assert set(st.SMALL_DOMAINS) == {name for name, table in st.TABLES.items() if table.small_domain}
    assert len(st.SMALL_DOMAINS) == 13 and not held_out & set(st.SMALL_DOMAINS)
    assert set(st.SUITE) == set(st.TABLES) - held_out - set(st.SMALL_DOMAINS)


def test_cross_table_workloads_take_the_columns_in_order(st, monkeypatch):
    """bench_suite.py --workload's cross-table specs (the cross-tables page): adjacent pairs, disjoint pairs and
    triples over the columns in order; any other spec is the library's."""
    from dprelease import Domain, Workload

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setitem(sys.modules, "suite_tables", st)
    bench = load_benchmark("bench_suite")
    domain = Domain(tuple("abcdefg"), (2, 3, 2, 4, 2, 5, 2))
    assert bench.workload_for("adjacent-pairs", domain).marginals == tuple(zip("abcdef", "bcdefg"))
    assert bench.workload_for("disjoint-pairs", domain).marginals == (("a", "b"), ("c", "d"), ("e", "f"))
    assert bench.workload_for("disjoint-triples", domain).marginals == (("a", "b", "c"), ("d", "e", "f"))
    assert bench.workload_for("1-2way", domain) == Workload.from_spec("1-2way", domain)


def test_peer_files_round_trip_in_the_domains_column_order(st, monkeypatch, tmp_path):
    """What run_peer.py reads (write_peer_files) and what its rows are read back as (read_peer_rows), in the domain's
    column order whatever order the peer wrote them in."""
    import json

    import numpy as np

    from dprelease import Dataset, Domain

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setitem(sys.modules, "suite_tables", st)
    bench = load_benchmark("bench_suite")
    domain = Domain(("a", "b", "c"), (2, 3, 4))
    data = Dataset.from_records(np.array([[0, 2, 3], [1, 0, 1]]), domain)
    csv, domain_json = tmp_path / "data" / "t.csv", tmp_path / "data" / "t-domain.json"
    bench.write_peer_files(data, csv, domain_json)
    assert csv.read_text() == "a,b,c\n0,2,3\n1,0,1\n"
    assert Domain.from_dict(json.loads(domain_json.read_text())) == domain
    rows = tmp_path / "rows.csv"
    rows.write_text("c,a,b\n3,0,2\n1,1,0\n")  # a peer may write its columns in another order
    assert bench.read_peer_rows(rows, domain).tolist() == [[0, 2, 3], [1, 0, 1]]
