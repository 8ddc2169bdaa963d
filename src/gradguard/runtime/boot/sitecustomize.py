"""Guards a Python process started with ``GRADGUARD_RUN=1`` and this folder on ``PYTHONPATH``.

``gradguard run`` puts both in the environment of the programs it runs, so that child Python
processes (torchrun's and accelerate's workers, spawned DataLoader workers) are guarded too;
``GRADGUARD_RUN=1 PYTHONPATH=$(gradguard-boot-dir) torchrun ...`` does the same by hand. Nothing
is imported until the program imports torch. Any other ``sitecustomize`` on the path still runs.
"""

import os
import sys


def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    me = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        import importlib

        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if me is not None:
            sys.modules["sitecustomize"] = me


if os.environ.get("GRADGUARD_RUN") == "1":
    try:
        from gradguard.runtime.autorun import install_on_torch_import

        install_on_torch_import()
    except Exception as exc:  # noqa: BLE001 - never break the program being guarded
        sys.stderr.write(f"gradguard: GRADGUARD_RUN=1 ignored: {exc}\n")
_chain()
