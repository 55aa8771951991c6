"""A workload as the API takes it (Workload.resolve): a Workload, a spec, or a list of attribute lists, the
cross-tables a user names; anything else is refused by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dprelease import Dataset, Domain, Workload
from dprelease.api import synthesize
from dprelease.errors import InputError, InputTypeError

DOMAIN = Domain(("age", "sex", "region", "income"), (4, 2, 5, 3))


def test_a_list_of_attribute_lists_is_the_workload_of_those_marginals():
    workload = Workload.resolve([["sex", "age"], ("region", "income")], DOMAIN)
    assert workload.marginals == (("age", "sex"), ("region", "income"))  # each in domain order
    assert Workload.resolve("1way", DOMAIN) == Workload.from_spec("1way", DOMAIN)
    assert Workload.resolve(workload, DOMAIN) is workload


@pytest.mark.parametrize("bad, error, message", [
    (42, InputTypeError, "workload must be a Workload, a spec such as '1-3way' or a list of attribute lists, got int"),
    (["age", "sex"], InputTypeError, "got list"),
    ([["age", "city"]], InputError, "workload names unknown attribute 'city'"),
    ([], InputError, "workload must contain at least one marginal"),
])
def test_anything_else_is_refused_by_name(bad, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        Workload.resolve(bad, DOMAIN)


def test_synthesize_takes_the_cross_tables_as_a_list():
    g = np.random.Generator(np.random.PCG64(2))
    data = Dataset.from_records(np.column_stack([g.integers(0, s, 3000) for s in DOMAIN.sizes]), DOMAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, [["age", "sex"], ["region", "income"]], epsilon=1.0, seed=0)
    assert release.workload.marginals == (("age", "sex"), ("region", "income"))
    assert release.parameters["direct_plan"] is True  # two cross-tables over four columns: each measured once
