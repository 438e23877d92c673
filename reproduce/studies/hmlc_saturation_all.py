"""The HMLC saturation study on all 12 shared HMLC sets: a draft while its stores accumulate
across sessions (forests of 250 trees and HMLC-Relief with m = 100 % take hours on the six
larger sets). Once its stores are complete it replaces the six-set section."""
from __future__ import annotations

from reproduce.studies.hmlc_saturation import study

STUDY = study(None, "hmlc-saturation-all", order=32, draft=True)
