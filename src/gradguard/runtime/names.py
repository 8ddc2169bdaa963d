"""Names for what a report points at: ``model.encoder.layer.3.attention``, ``model.fc1.weight``.

``ModuleTracker`` installs global ``nn.Module`` forward hooks while a guard wants them: it
knows which module's forward is running (so a saved tensor can name the module that saved
it) and tells listeners about top-level module calls (the calls a user's line makes). Names are
worked out only when a report is written: the module tree is read from the modules alive then,
and the root's name is the variable the user bound it to, when one can be found.
"""

from __future__ import annotations

import gc
import sys
import threading
from typing import Any

import torch
from torch import nn

from . import hooks

_state = threading.local()


def _stack() -> list:
    try:
        return _state.stack
    except AttributeError:
        _state.stack = []
        return _state.stack


class ModuleTracker:
    """Global forward hooks, installed while at least one user holds them."""

    def __init__(self) -> None:
        self._users = 0
        self._handles: list = []
        self._lock = threading.Lock()
        self.listeners: list = []  # objects with top_enter(module, args) / top_exit(module, output, token)
        self.call_listeners: list = []  # objects with on_call(module, args), called for every call

    def acquire(self, listener: Any = None, call_listener: Any = None) -> None:
        with self._lock:
            if listener is not None:
                self.listeners.append(listener)
            if call_listener is not None:
                self.call_listeners.append(call_listener)
            self._users += 1
            if self._users == 1:
                from torch.nn.modules import module as module_mod

                self._handles = [
                    module_mod.register_module_forward_pre_hook(self._pre),
                    module_mod.register_module_forward_hook(self._post, always_call=True),
                ]
                hooks.module_of = current_module

    def release(self, listener: Any = None, call_listener: Any = None) -> None:
        with self._lock:
            if listener is not None and listener in self.listeners:
                self.listeners.remove(listener)
            if call_listener is not None and call_listener in self.call_listeners:
                self.call_listeners.remove(call_listener)
            self._users -= 1
            if self._users == 0:
                for handle in self._handles:
                    handle.remove()
                self._handles = []
                hooks.module_of = no_module

    def _pre(self, module: nn.Module, args: Any) -> None:
        if torch.compiler.is_compiling():
            return
        stack = _stack()
        for listener in self.call_listeners:
            listener.on_call(module, args)
        if not stack and self.listeners:
            tokens = [listener.top_enter(module, args) for listener in self.listeners]
            stack.append((module, tokens))
        else:
            stack.append((module, None))

    def _post(self, module: nn.Module, args: Any, output: Any) -> None:
        if torch.compiler.is_compiling():
            return
        stack = _stack()
        if not stack:
            return
        entry = stack.pop()
        while entry[0] is not module and stack:  # a forward that raised past its own hook
            entry = stack.pop()
        if entry[1] is not None:
            for listener, token in zip(self.listeners, entry[1]):
                listener.top_exit(module, output, token)


TRACKER = ModuleTracker()


def no_module() -> Any:
    return None


def current_module() -> Any:
    stack = getattr(_state, "stack", None)
    return stack[-1][0] if stack else None


# -- naming ----------------------------------------------------------------------------------


def _root_variable_name(root: nn.Module) -> str | None:
    """The name a user's variable gives ``root``: frames on the stack first, then ``__main__``."""
    from . import sites

    frame = sys._getframe(1)
    while frame is not None:
        if sites.kind_of(frame.f_code) == sites.USER:
            for name, value in frame.f_locals.items():
                if value is root and not name.startswith("_") and name != "self":
                    return name
        frame = frame.f_back
    main = sys.modules.get("__main__")
    for name, value in vars(main).items() if main is not None else ():
        if value is root and not name.startswith("_"):
            return name
    return None


class _ModuleIndex:
    """Parent links of every module alive now (built once per report)."""

    def __init__(self) -> None:
        self.parent: dict[int, tuple[nn.Module, str]] = {}
        self.modules: list[nn.Module] = []
        for obj in gc.get_objects():
            if issubclass(type(obj), nn.Module):
                self.modules.append(obj)
        for module in self.modules:
            for name, child in module._modules.items():
                if child is not None and id(child) not in self.parent:
                    self.parent[id(child)] = (module, name)
        self._root_names: dict[int, str] = {}

    def path(self, module: nn.Module) -> str:
        parts = []
        seen = set()
        while id(module) in self.parent and id(module) not in seen:
            seen.add(id(module))
            module, name = self.parent[id(module)]
            parts.append(name)
        root_name = self._root_names.get(id(module))
        if root_name is None:
            root_name = _root_variable_name(module) or type(module).__name__
            self._root_names[id(module)] = root_name
        return ".".join([root_name, *reversed(parts)])

    def parameter_path(self, tensor: torch.Tensor) -> str | None:
        for module in self.modules:
            for name, param in module._parameters.items():
                if param is tensor:
                    return f"{self.path(module)}.{name}"
            for name, buf in module._buffers.items():
                if buf is tensor:
                    return f"{self.path(module)}.{name}"
        return None

    def parameter_sharing_storage(self, tensor: torch.Tensor) -> tuple[str, bool] | None:
        """(name, is_parameter) of a parameter or buffer whose storage ``tensor`` views."""
        try:
            ptr = tensor.untyped_storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return None
        if ptr == 0:
            return None
        for module in self.modules:
            for table, is_param in ((module._parameters, True), (module._buffers, False)):
                for name, value in table.items():
                    if value is None:
                        continue
                    try:
                        if value.untyped_storage().data_ptr() == ptr:
                            return f"{self.path(module)}.{name}", is_param
                    except (RuntimeError, NotImplementedError):
                        continue
        return None


def module_name(module: nn.Module) -> str:
    return _ModuleIndex().path(module)


def parameter_name(tensor: torch.Tensor) -> str | None:
    """``model.fc1.weight`` for a parameter or buffer of a live module, else None."""
    return _ModuleIndex().parameter_path(tensor)


def describe_tensor(record: Any, tensor: torch.Tensor | None = None) -> str:
    """``parameter `model.fc1.weight``` or ``a tensor (inside `model.enc.layer.0`, Linear)``."""
    index = _ModuleIndex()
    candidates = [record.tensor]
    original = getattr(record, "original", None)
    if original is not None:
        alive = original()
        if alive is not None:
            candidates.insert(0, alive)
    if tensor is not None:
        candidates.append(tensor)
    for candidate in candidates:
        if isinstance(candidate, nn.Parameter) or candidate.is_leaf:
            name = index.parameter_path(candidate)
            if name is not None:
                kind = "parameter" if isinstance(candidate, nn.Parameter) else "buffer"
                return f"{kind} `{name}`"
    shared = index.parameter_sharing_storage(candidates[-1])
    if shared is not None:
        return f"a view of {'parameter' if shared[1] else 'buffer'} `{shared[0]}`"
    module = getattr(record, "module", None)
    if module is not None:
        return f"a tensor (saved inside `{index.path(module)}`, {type(module).__name__})"
    return "a tensor"


def output_nodes(output: Any, limit: int = 4) -> list:
    """The grad_fn nodes of (up to ``limit``) tensors in a module's output."""
    nodes: list = []
    stack = [output]
    while stack and len(nodes) < limit:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            node = item.grad_fn
            if node is not None and all(node is not n for n in nodes):
                nodes.append(node)
        elif isinstance(item, (list, tuple)):
            stack.extend(item[:16])
        elif isinstance(item, dict):
            stack.extend(list(item.values())[:16])
    return nodes


hooks.describe = describe_tensor
