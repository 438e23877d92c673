"""The headless browser the HTML report tests render with, and a reader of its screenshots."""
from __future__ import annotations

import shutil

import numpy as np

from tests.conftest import missing


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    missing("chromium", "the report is rendered in a real browser (Debian: apt-get install "
            "chromium; .ci/run installs it)")


def _frames(im: np.ndarray, rgb: tuple[int, int, int], min_run: int = 150):
    """(top, bottom, left, right) of every rectangle outlined in ``rgb``."""
    mask = (np.abs(im.astype(int) - np.array(rgb)).max(axis=2) <= 2)
    edge_rows = []
    for y in range(mask.shape[0]):
        row = mask[y]
        if row.sum() < min_run:
            continue
        # the longest run of the colour in this row
        d = np.diff(np.concatenate([[0], row.astype(int), [0]]))
        starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
        if (ends - starts).max() >= min_run:
            edge_rows.append(y)
    groups: list[list[int]] = []
    for y in edge_rows:
        if groups and y == groups[-1][-1] + 1:
            groups[-1].append(y)
        else:
            groups.append([y])
    frames = []
    for top, bottom in zip(groups[0::2], groups[1::2]):
        cols = np.flatnonzero(mask[top[0]])
        frames.append((top[-1] + 1, bottom[0] - 1, int(cols.min()) + 3, int(cols.max()) - 3))
    return frames, len(groups)
