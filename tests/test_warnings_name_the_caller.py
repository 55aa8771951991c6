"""Every warning dprelease gives is shown at the user's own line, however deep the library's path to it.

Before, each call site guessed a fixed ``stacklevel``, so a seeded ``Synthesizer.fit_sample`` showed its warning at
dprelease/api.py (inside ``synthesize_table``), where a user reading the log cannot tell which of their calls it was.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from dprelease.api import synthesize
from dprelease.errors import SeededRunWarning, WeakPrivacyWarning, warn_user
from dprelease.privacy.rng import make_rng
from dprelease.synthesizer import Synthesizer

HERE = str(Path(__file__).resolve())


def caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return seen


def test_a_seeded_fit_and_a_weak_epsilon_name_the_line_that_asked(tiny_dataset):
    frame = pytest.importorskip("pandas").DataFrame(tiny_dataset.records, columns=list(tiny_dataset.domain.attributes))
    schema = dict(zip(tiny_dataset.domain.attributes, tiny_dataset.domain.sizes))
    seen = caught(lambda: Synthesizer("mwem", epsilon=20.0, workload="1way", seed=0, rounds=1).fit_sample(
        frame, schema=schema))
    kinds = {w.category for w in seen}
    assert {SeededRunWarning, WeakPrivacyWarning} <= kinds
    assert all(str(Path(w.filename).resolve()) == HERE for w in seen), [(w.category, w.filename) for w in seen]
    seen = caught(lambda: synthesize(tiny_dataset, "1way", mechanism="mwem", epsilon=1.0, rounds=1, seed=0))
    assert [w.category for w in seen] == [SeededRunWarning] and str(Path(seen[0].filename).resolve()) == HERE


def user_wrapper() -> int:
    warn_user("shown at the wrapper's line", UserWarning)
    return user_wrapper.__code__.co_firstlineno + 1


def test_the_helper_stops_at_the_first_frame_outside_the_package():
    line = []
    seen = caught(lambda: line.append(user_wrapper()))
    assert str(Path(seen[0].filename).resolve()) == HERE and seen[0].lineno == line[0]
    seen = caught(lambda: make_rng(0))  # one frame inside the package
    assert str(Path(seen[0].filename).resolve()) == HERE and seen[0].category is SeededRunWarning
