"""gradguard bench: what each gradient-control choice costs in time and memory.

Cut as ``torch.utils.benchmark`` is: ``spec`` says what to measure, ``measure`` holds the
timer protocol and the memory counters, ``results`` is the torch-free data they produce
(with its statistics and JSON form), ``report`` renders it. ``modes`` names the modes (one
enum), ``calls`` applies them to torch calls, ``models`` builds models and their inputs,
``run`` ties a spec to results, ``cli`` is the command line. Importing this package, the
spec, the results, the modes, the reports or the command line does not import torch.
"""
