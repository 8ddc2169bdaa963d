"""gradguard bench: what each gradient-control choice costs in time and memory.

Measuring (``measure``) and reporting (``report``) are kept apart, as in
``torch.utils.benchmark``: a spec describes a run, measurements carry raw times and
statistics, and renderers only format what was measured. Importing this package does not
import torch; the submodules that measure do.
"""
