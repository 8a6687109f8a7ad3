"""Intervals: Wilson's for a proportion, and the normal approximation for a mean of several.

>>> [round(x, 2) for x in wilson_interval(45, 100)]
[35.61, 54.76]
>>> wilson_interval(0, 10)[0], wilson_interval(10, 10)[1]
(0.0, 100.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

WILSON_Z = 1.959963984540054  # two-sided 95 %


def wilson_interval(correct: int, total: int, z: float = WILSON_Z) -> tuple[float, float]:
    """95 % Wilson score interval for ``correct / total``, in percent."""
    low, high = wilson_bounds(correct, total, z)
    return (100 * low, 100 * high)


def wilson_bounds(correct: int, total: int, z: float = WILSON_Z) -> tuple[float, float]:
    """95 % Wilson score interval for ``correct / total``, as proportions (0 to 1)."""
    if total <= 0:
        return (0.0, 1.0)
    p = correct / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    # The bounds are exactly 0 and 1 at p = 0 and p = 1; rounding would leave 5.6e-15 or
    # 99.99999999999999, which then show up as such in tables.
    low = 0.0 if correct <= 0 else max(0.0, centre - half)
    high = 1.0 if correct >= total else min(1.0, centre + half)
    return (low, high)


def mean_interval(counts: Sequence[tuple[int, int]], z: float = WILSON_Z) -> tuple[float, float]:
    """95 % normal-approximation interval of the plain mean of independent proportions
    ``correct / total`` (each total > 0), in percent, clipped to 0-100:
    ``mean ± z * sqrt(sum(p_i * (1 - p_i) / n_i)) / k``."""
    ps = [correct / total for correct, total in counts]
    mean = sum(ps) / len(ps)
    half = z * math.sqrt(sum(p * (1 - p) / n for p, (_, n) in zip(ps, counts, strict=True)))
    half /= len(ps)
    return (100 * max(0.0, mean - half), 100 * min(1.0, mean + half))
