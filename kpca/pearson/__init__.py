"""Pearson system of distributions: type selection and sampling from four moments.

The MDD criterion of Varon, Alzate & Suykens (2015, §IV, footnote 3) draws
noise distances from "the Pearson system" with the mean, standard deviation,
skewness and kurtosis of the observed distance distribution, using MATLAB's
``pearsrnd``.  This package reproduces ``pearsrnd``:

* :mod:`kpca.pearson.system` — the type of a (skewness, kurtosis) pair, exactly as
  ``pearsrnd`` classifies it (Johnson, Kotz & Balakrishnan 1994, §4.1):
  :func:`pearson_parameters`, :func:`pearson_type`, :func:`in_pearson_region`;
* :mod:`kpca.pearson.draws` — random draws, optionally truncated: :func:`pearsrnd`;
* :mod:`kpca.pearson.sorted_draws` — a sorted sample in ``O(n)``, the order statistics
  mapped through the tabulated exact quantile function: :class:`SortedPearsonSampler`,
  :func:`pearsrnd_sorted` (what MDD uses).

Examples
--------
>>> from kpca.pearson import pearson_type, pearsrnd_sorted
>>> pearson_type(0.5, 4.5)
4
>>> x = pearsrnd_sorted(1.0, 0.2, 0.5, 2.5, 1000, random_state=0, truncate=(0.0, 2.0))
>>> bool((x[1:] >= x[:-1]).all())
True
"""

from kpca.pearson.draws import pearsrnd
from kpca.pearson.sorted_draws import SortedPearsonSampler, pearsrnd_sorted
from kpca.pearson.system import (
    TYPE_NAMES,
    PearsonParameters,
    in_pearson_region,
    pearson_parameters,
    pearson_type,
)

__all__ = [
    "TYPE_NAMES",
    "PearsonParameters",
    "SortedPearsonSampler",
    "in_pearson_region",
    "pearson_parameters",
    "pearson_type",
    "pearsrnd",
    "pearsrnd_sorted",
]
