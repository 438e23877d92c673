"""The Mars Express Power Challenge's telemetry as data (thesis Ch. 8, spec-relational-mex §B).

* ``layout``: the challenge's folders, file names and columns (``docs/mex.md`` says where they
  come from).
* ``read``: the raw files → typed arrays, every malformed row reported with its file and line.
* ``simulate``: a synthetic mission written in exactly that layout, with planted drivers.
* ``build``: the features of paper 8a/8b for any Δt, streamed by time block into ARFF or
  parquet; ``read_built`` loads such a file back with its interval times.
"""
from __future__ import annotations
