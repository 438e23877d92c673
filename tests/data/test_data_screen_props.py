"""Properties of the identifier screening (hypothesis): it does not depend on the order of
rows or columns, numbers with fractions and columns with repeats or missing values are never
identifiers, and it never looks at fewer than MIN_ROWS rows."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from frcli.data.dataset import Attribute, Dataset
from frcli.data.screen import MIN_ROWS, identifiers

NAMES = ["id", "x", "sample_id", "row", "dose", "SampleNo", "key"]


@st.composite
def tables(draw):
    n = draw(st.integers(MIN_ROWS - 3, 60))
    feats, cols = [], []
    for j in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["text", "ints", "floats"]))
        name = f"{draw(st.sampled_from(NAMES))}{'' if j == 0 else j}"
        unique = draw(st.booleans())
        codes = np.arange(n) if unique else np.asarray(
            draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n)))
        if kind == "text":
            perm = np.asarray(draw(st.permutations(range(n))))
            feats.append(Attribute(name, "nominal", tuple(f"v{k}" for k in range(n))))
            cols.append(perm[codes].astype(float))
        else:
            step = 1.0 if kind == "ints" else draw(st.sampled_from([0.5, 0.25, 1.5]))
            cols.append(1000.0 + codes * step + (0.0 if kind == "ints" else 0.125))
            feats.append(Attribute(name, "numeric"))
    return Dataset("d", np.column_stack(cols), feats, "unsupervised")


@settings(max_examples=150, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_screening_does_not_depend_on_row_or_column_order(ds, rnd):
    rows = list(range(ds.n_examples))
    cols = list(range(ds.n_features))
    rnd.shuffle(rows)
    rnd.shuffle(cols)
    moved = Dataset("d", ds.X[np.ix_(rows, cols)], [ds.features[j] for j in cols],
                    "unsupervised")
    assert identifiers(moved) == identifiers(ds)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_what_is_never_an_identifier(ds):
    found = identifiers(ds)
    if ds.n_examples < MIN_ROWS:
        assert found == {}
    for j, a in enumerate(ds.features):
        col = ds.X[:, j]
        if np.unique(col).size < ds.n_examples or (not a.is_nominal
                                                   and (col != np.floor(col)).any()):
            assert a.name not in found
    blanked = ds.X.copy()
    blanked[0, :] = np.nan                    # a missing value in every column
    assert identifiers(Dataset("d", blanked, ds.features, "unsupervised")) == {}
