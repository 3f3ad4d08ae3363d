"""Settings for every test: a fixed Hypothesis profile, so CI runs the same examples on every machine.

`ci` (the default) is derandomized and keeps no example database: a run cannot fail by chance, nor fail
for good because an earlier run saved a failing example in `.hypothesis/`. `HYPOTHESIS_PROFILE=explore`
searches with fresh random examples (and more of them) on a developer's machine."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False, database=None, deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
