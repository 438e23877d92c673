"""Renderers of the semi-supervised studies (filled in below)."""


def render_pds(view, sets):
    return "## P-DS\n\n(pending)"


def render_pml(stores, stc, reg, mlc):
    return "## P-ML\n\n(pending)"
