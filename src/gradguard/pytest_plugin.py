"""Deprecated location of the pytest plugin, kept for one release: the ``pytest11`` entry point
loads ``gradguard.runtime.pytest_plugin``. ``-p gradguard.pytest_plugin`` still works: this
name is an alias of that module, so its hooks are registered once."""

import sys

from gradguard.runtime import pytest_plugin as _plugin

sys.modules[__name__] = _plugin
