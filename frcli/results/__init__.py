"""Results: the experiment runner's SQLite store and the tidy result table read from stores
and CSV files. The experiment runner writes here; ``frcli stats``, ``frcli report`` and the
reproduction scripts read from here, so statistics never depend on how results were made."""
