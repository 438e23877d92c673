"""One module per study, each defining ``STUDY = Study(...)`` (see reproduce/README.md);
modules starting with ``_`` are shared helpers, not studies."""
