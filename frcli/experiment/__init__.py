"""The experiment runner: YAML config (``config``) → tasks with derived seeds (``plan``) → local
pool or dask (``executor``) → SQLite result store (``store``)."""
