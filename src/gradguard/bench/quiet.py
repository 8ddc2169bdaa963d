"""Keep what torch prints on import (and the profiler prints on start) off the user's terminal.

Some torch builds write lines to stderr while importing: ``torch.utils.cpp_extension``
(pulled in by ``torch.utils.benchmark``) logs "No CUDA runtime is found, using
CUDA_HOME=..." on a machine with a CUDA toolkit and no usable GPU, and the profiler backend
prints start/stop lines from C++. None of it concerns the user of ``gradguard bench``, and it
would land in front of its one-line messages. Standard library only.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
import warnings
from collections.abc import Iterator

#: What the measuring code needs from torch, imported once with stderr held.
TORCH_MODULES = ("torch", "torch.utils.benchmark", "torch.profiler", "torch.autograd.graph")


@contextlib.contextmanager
def stderr_held() -> Iterator[None]:
    """Send file descriptor 2, ``sys.stderr`` and Python warnings nowhere for the block.

    Both levels are needed: C++ code writes to descriptor 2, Python's logging and
    ``print(file=sys.stderr)`` go through the ``sys.stderr`` object.
    """
    saved_stderr = sys.stderr
    with contextlib.suppress(OSError, ValueError):
        saved_stderr.flush()
    with contextlib.ExitStack() as stack:
        try:
            saved_fd: int | None = os.dup(2)
        except OSError:
            saved_fd = None
        if saved_fd is not None:
            sink = stack.enter_context(open(os.devnull, "wb"))
            os.dup2(sink.fileno(), 2)
            stack.callback(_restore_fd, saved_fd)
        sys.stderr = io.StringIO()
        stack.callback(setattr, sys, "stderr", saved_stderr)
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        yield


def _restore_fd(saved_fd: int) -> None:
    os.dup2(saved_fd, 2)
    os.close(saved_fd)


def import_torch() -> None:
    """Import torch and the parts gradguard bench uses, with stderr held.

    An ``ImportError`` still propagates: the caller turns it into its one-line message.
    """
    if all(name in sys.modules for name in TORCH_MODULES):
        return
    with stderr_held():
        for name in TORCH_MODULES:
            importlib.import_module(name)
