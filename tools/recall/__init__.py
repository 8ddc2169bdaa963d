"""Recall and precision of the checker, measured on labelled real code.

``python -m tools.recall`` runs the checker over the corpus named in ``corpus.toml`` and
compares its findings with the labels under ``labels/<split>/``; see ``__main__.py``.
"""
