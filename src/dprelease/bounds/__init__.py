"""Every theorem's formula, one function per theorem, and the alpha solvers (public arithmetic only).

* :mod:`~dprelease.bounds.query_release`: Sec. 4-5 (SmallDB, MW, online MW, the iterative construction
  with the MW, median and perceptron update rules) and the alpha solver;
* :mod:`~dprelease.bounds.boosting`: Sec. 6 (boosting for queries, Lemma 6.4, Eq. 6.7, the brute-force
  and LP base generators, Thms 6.6-6.8).

Both are re-exported here, so ``from dprelease.bounds import thm_5_4_ic_alpha`` works for every name.
"""

from dprelease.bounds.boosting import *  # noqa: F401,F403
from dprelease.bounds.boosting import __all__ as _boosting
from dprelease.bounds.query_release import *  # noqa: F401,F403
from dprelease.bounds.query_release import __all__ as _query_release

__all__ = sorted(_query_release + _boosting)
