"""The sign convention of every eigenvector ``kpca`` returns.

An eigenvector is defined up to its sign; ``kpca`` fixes it so that each
vector's largest-magnitude entry is positive (the first such entry on ties),
which makes the results of every solver deterministic and comparable.
"""

from __future__ import annotations

import numpy as np

__all__ = ["column_signs"]


def column_signs(vectors):
    """The sign (``±1``) per column of ``vectors`` that makes its largest-magnitude entry
    positive; ``+1`` for a zero column.

    Parameters
    ----------
    vectors : ndarray, shape (n, k)

    Returns
    -------
    ndarray, shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from kpca._signs import column_signs
    >>> column_signs(np.array([[0.1, 0.0], [-0.9, 0.0], [0.2, 0.0]]))
    array([-1.,  1.])
    """
    idx = np.argmax(np.abs(vectors), axis=0)
    signs = np.sign(vectors[idx, np.arange(vectors.shape[1])])
    signs[signs == 0] = 1.0
    return signs
