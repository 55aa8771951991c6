"""Boosting for queries (Dwork & Roth Sec. 6.1) and its base synopsis generators (Sec. 6.2, Thms 6.6-6.8).

* :mod:`~dprelease.boosting.base`: the :class:`BaseSynopsisGenerator` role (Def. 6.1), shared helpers;
* :mod:`~dprelease.boosting.bruteforce`: Thm 6.6, any low-sensitivity queries (tiny X and n only);
* :mod:`~dprelease.boosting.lp`: Thms 6.7/6.8, the LP synthesizer for linear queries;
* :mod:`~dprelease.boosting.mechanism`: Figure 6.1 and Thm 6.1;
* :mod:`dprelease.bounds.boosting`: the theorems' numbers.

The private steps are two kernel methods, ``PrivateMeasurer.laplace_queries`` and
``PrivateMeasurer.boosting_draws``; see docs/boosting.md.
"""

from dprelease.boosting.base import BasePlan, BaseSynopsisGenerator, Synopsis
from dprelease.boosting.bruteforce import BruteForceGenerator
from dprelease.boosting.lp import LPSynthesizer
from dprelease.boosting.mechanism import BASES, BoostingForQueries, BoostingResult

__all__ = ["BASES", "BasePlan", "BaseSynopsisGenerator", "BoostingForQueries", "BoostingResult",
           "BruteForceGenerator", "LPSynthesizer", "Synopsis"]
