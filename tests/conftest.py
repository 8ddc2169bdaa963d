"""Shared test configuration: Hypothesis profiles for the property tests.

``ci`` (the default) runs a few hundred generated programs in well under a minute;
``GRADGUARD_HYPOTHESIS_PROFILE=long`` runs thousands, for a deeper search before a release.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, database=None, suppress_health_check=_SLOW_OK
)
settings.register_profile("long", max_examples=3000, deadline=None, suppress_health_check=_SLOW_OK)
settings.load_profile(os.environ.get("GRADGUARD_HYPOTHESIS_PROFILE", "ci"))
