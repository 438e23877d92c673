"""The Relief family: ``common`` (kernels, feature kinds, column metadata, target distances,
the iterations rule, imputation), ``relief`` (every Relief variant, the whole grid in one
pass), ``ann`` (its approximate neighbour search), ``tune`` (SSL-Relief tuned by internal
CV), ``reliefe`` (ReliefE), ``multisurf`` (MultiSURF and MultiSURF*) and ``thirdparty``
(umap-learn and pynndescent, imported on first use). See docs/design/relief.md.

Nothing is imported here: ``from frcli.engines.relief.relief import relief`` names the
module it needs, so a ranker's parameter checks never load a kernel.
"""
