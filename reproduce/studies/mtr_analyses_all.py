"""The MTR §5.1-5.3 analyses on all 11 shared MTR sets: a draft while its stores accumulate
across sessions (bagging and ET in their STR versions take hours on the five sets with
263-411 features). Once its stores are complete it replaces the six-set section."""
from __future__ import annotations

from reproduce.studies.mtr_analyses import Version, study

STUDY = study(Version("mtr-analyses-all", full=True), order=13, draft=True)
