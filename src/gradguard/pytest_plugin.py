"""pytest plugin for gradguard's runtime guards (registered through ``pytest11``).

It must not import torch at import time: it is loaded in every pytest run of an
environment where gradguard is installed.
"""
