"""Generated reproductions: each study of the source papers is a config (or a few) run through
the experiment runner plus a ``render`` function that turns the result stores into one section
of ``docs/reproduction.md``, the paper's numbers (``reproduce/papers/*.yaml``, line-cited)
beside ours. ``python -m reproduce --help``; how to add a study: ``reproduce/README.md``.

Not installed with frcli (like ``bench/``): run it from the repository root.
"""
