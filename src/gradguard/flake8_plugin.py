"""Deprecated location of the flake8 plugin, kept for one release: use
``gradguard.check.integrations.flake8`` (the ``flake8.extension`` entry point already does)."""

from gradguard.check.integrations.flake8 import Plugin

__all__ = ["Plugin"]
