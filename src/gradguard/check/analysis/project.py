"""What the other files of one ``gradguard check`` run say: the project's facts.

A training script imports its model from ``model.py`` and its evaluation loop from
``utils.py``. The checker never imports code, so it reads the files of the run: which
classes each module defines (and whether they are ``nn.Module`` or ``Dataset`` subclasses,
with dropout or batch-norm layers), which functions, and where other files call those
functions (inside a ``no_grad`` region or not). The facts come from the files' text, read
line by line without parsing, so building them costs a small fraction of checking.

The pipeline builds one ``ProjectIndex`` per run and makes it current while it checks each
file (``using``); the semantic model asks ``current()``. Its ``digest`` is part of every
cache key, so a cached result is reused only while the facts it may depend on are unchanged.
"""

from __future__ import annotations

import ast
import bisect
import functools
import hashlib
import os
import re
import stat
import textwrap
from collections import OrderedDict
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator, Optional

from gradguard.check.analysis import vocabulary as vocab
from gradguard.check.analysis.imports import TORCH_PACKAGES, assigned_names, dotted_name, mentions_torch_import
from gradguard.check.analysis.scopes import parameter_defaults

_CLASS_RE = re.compile(r"^class[ \t]+(\w+)[ \t]*(?:\((.*?)\))?[ \t]*:", re.M | re.S)
_DEF_RE = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.M)
_FROM_RE = re.compile(
    r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([^#\n)]*(?:\n[^#\n)]*)*?)\)?[ \t]*(?:#.*)?$", re.M
)
# A function body loading weights from a file, and one handing a value back.
_LOADS_WEIGHTS_RE = re.compile(r"\.load_state_dict\(|\btorch\.load\(")
_RETURNS_RE = re.compile(r"^[ \t]+return[ \t]+\S", re.M)
_IMPORT_RE = re.compile(r"^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$", re.M)
# A name called in a class's body (`ResBlock(` in `self.down = ResBlock(64, 128)`).
_CALLED_NAME_RE = re.compile(r"(?<![\w.])([A-Z]\w*)\s*\(")
# A class storing what a call returns under an attribute (`self.crf = CRF(...)`, `self.fc =
# nn.Linear(...)`), the callee spelt with its module path.
_STORED_CALL_RE = re.compile(r"\bself\.(\w+)\s*=\s*([\w.]+)\s*\(")
# What builds parameters in a class's body: a loss class holding one is no plain loss.
_PARAMETER_HOLDER_RE = re.compile(
    r"\b(?:Linear|Conv\w*|Embedding\w*|LSTM\w*|GRU\w*|RNN\w*|Parameter|BatchNorm\w*|LayerNorm|GroupNorm|"
    r"InstanceNorm\w*|Bilinear|MultiheadAttention|Transformer\w*)\s*\(|\bmodels\.|vgg|resnet",
    re.I,
)
_LOSS_CLASS_RE = re.compile(r"(?:Loss|Criterion)\d*$")
# A torchvision model built by its builder (`models.resnet50(pretrained=True)`).
_TORCHVISION_BUILDER_RE = re.compile(r"(?<![\w.])(?:torchvision\.)?models\.(\w+)\s*\(")
_LAYER_RE = re.compile(r"\b(Dropout\w*|AlphaDropout|FeatureAlphaDropout|BatchNorm\d?d|SyncBatchNorm)\s*\(")
# A recurrent layer built with dropout between its layers (`nn.LSTM(d, h, n, dropout=0.2)`): a
# dropout that training mode applies.
_RECURRENT_DROPOUT_RE = re.compile(
    r"\b(?:LSTM|GRU|RNN)\s*\((?:[^()]|\([^()]*\))*?\bdropout\s*=\s*(?:0*\.\d*[1-9]|[1-9])"
)
_MODULE_BASES = re.compile(
    r"(?:^|\.)(?:Module|Sequential|ModuleList|ModuleDict|LightningModule)\b|\btorchkeras\.Model\b"
    # a torch layer or loss module made a base (`class RadMSELoss(torch.nn.MSELoss)`)
    r"|(?:^|\.)nn\.(?:modules\.\w+\.)?_?[A-Z]\w*$"
)
_DATASET_BASES = re.compile(r"(?:^|\.)(?:Dataset|IterableDataset)\b")
_GRAD_OFF_RE = re.compile(r"no_grad|inference_mode|set_grad_enabled\(\s*False")
_NESTED_DEF_RE = re.compile(r"\n[ \t]+def[ \t]")


@dataclass(frozen=True)
class ClassFact:
    """A class of the project, as its text shows it."""

    module: bool  # derives from nn.Module (directly or through project classes)
    dataset: bool  # derives from torch.utils.data.Dataset
    layers: frozenset  # dropout and batch-norm layer classes its body constructs
    # its `forward` runs a backward pass (`loss_q.backward()`) or asserts its output requires grad
    backpropagates: bool = False
    # Its methods that turn grad off or backpropagate in their own body: a call of one is no
    # evaluation with grad (`translator.translate_sentence(seq)` runs under `no_grad` inside).
    quiet_methods: frozenset = frozenset()
    # Its other methods that run the module: they call `self(...)`, `self.forward(...)`, a layer
    # the instance holds (`self.actor(x)`), or another such method (`agent.get_action(x)`).
    running_methods: frozenset = frozenset()
    loads_weights: bool = False  # its `__init__` loads a checkpoint (`torch.load`, `load_state_dict`)
    # (method, position) of the arguments its methods add to what the instance keeps
    # (`AverageMeter.update(self, val, n=1)`: `self.sum += val * n`; see `accumulated_parameters`).
    accumulating: frozenset = frozenset()
    # a loss module: named for one (`PCCLoss`, `FocalCriterion`) or whose `forward` returns a
    # whole reduction (`return torch.mean(hinge)`), its body building nothing that holds
    # parameters (no `nn.Linear(`, `nn.Parameter(`, torchvision model)
    loss: bool = False
    # Its public methods, and, for a plain class holding a model (an RL "algorithm" whose body
    # calls `self.model.parameters()`), those that run that model with the caller's grad mode
    # (`def predict(self, obs): return self.model(obs)`; see `held_model_methods`).
    methods: frozenset = frozenset()
    held_model_methods: frozenset = frozenset()
    # Its methods handing the call on to a method of that name of an object it holds
    # (`def predict(self, obs): ... self.algo.predict(obs)`): they run whatever that one runs.
    delegating_methods: frozenset = frozenset()
    # a module class holding no parameters: it builds no layer with weights and its `__init__`
    # keeps numbers, flags and strings only (`self.dropout = dropout` of `dropout: float = 0.0`)
    parameterless: bool = False
    # its text differentiates (`torch.autograd.grad(`, `.backward(`): a meta-learner adapting in
    # its forward pass, a trainer
    differentiates: bool = False
    # Its methods that backpropagate, in their own body or through the instance's other methods
    # (a solver's `train_eval` calling `self.run_epoch(epoch, is_training=True)`).
    training_methods: frozenset = frozenset()
    # Attributes its body stores modules under and nothing else it constructs (`self._encoder =
    # Encoder(...)`, `self.fc = nn.Linear(...)`: `model._encoder(x)` runs a part of the model), or
    # its `__init__` stores a parameter annotated as a module under (`def __init__(self, env,
    # p_net: nn.Module)`, `self.p_net = p_net`: a subclass of another file runs `self.p_net(x)`).
    submodules: frozenset = frozenset()
    # a module class whose `__init__` freezes the parameters of every part its other methods
    # run (`for p in self.features.parameters(): p.requires_grad = False`; see `_freezes_itself`)
    frozen: bool = False
    # (length, position) of the tuples its `forward` returns whose item there is drawn from a
    # distribution (`actions = dist.sample()`, `return actions, log_prob, entropy, value`): no graph
    sampled_outputs: frozenset = frozenset()
    # a module class whose `__init__` ends in eval mode (`self.eval()`: an ensemble of loaded members)
    evaluates_itself: bool = False
    # a dataset class whose text builds its items as tensors (`torch.from_numpy(...)`, a `transform`;
    # `vocabulary.TENSOR_MAKING_RE`): its loader's batches hold tensors, not lists
    makes_tensors: bool = False


# `actions = dist.sample()`, `idx = torch.multinomial(probs, 1)`: a draw, which carries no graph.
_SAMPLED_RE = re.compile(r"^[ \t]*(\w+)[ \t]*=[ \t]*[\w.]+\.(?:sample|multinomial)\(", re.M)
_RETURNED_TUPLE_RE = re.compile(r"^[ \t]*return[ \t]+([\w \t,]+?)[ \t]*(?:#[^\n]*)?$", re.M)


def sampled_outputs(forward: str) -> frozenset:
    """(length, position) of the plain names a ``forward``'s text returns as a tuple that it binds
    to a draw (``actions = dist.sample()``) on some path (``if actions is None:``)."""
    sampled = set(_SAMPLED_RE.findall(forward))
    if not sampled:
        return frozenset()
    found = set()
    for match in _RETURNED_TUPLE_RE.finditer(forward):
        items = [item.strip() for item in match.group(1).split(",")]
        if len(items) > 1:
            found.update((len(items), i) for i, item in enumerate(items) if item in sampled)
    return frozenset(found)


@dataclass
class ProjectIndex:
    """Facts about the modules of one run. Names are ``module.Name`` as imported."""

    # path -> the module's key: its dotted name, or, where folders of the run that are not
    # packages hold modules of the same name (`lab1/model.py`, `lab2/model.py`), the name
    # prefixed with its folder's id (`3f2a9c1e/model`): each script imports its own folder's.
    module_names: dict = field(default_factory=dict)
    plain_names: dict = field(default_factory=dict)  # path -> dotted name, as `import` writes it
    roots: dict = field(default_factory=dict)  # path -> id of the folder its imports start from
    shared_names: frozenset = frozenset()  # dotted names held by more than one such folder
    shared_roots: dict = field(default_factory=dict)  # each shared name -> the ids of the folders holding it
    classes: dict = field(default_factory=dict)  # "module.Class" -> ClassFact
    functions: set = field(default_factory=set)  # "module.function"
    # "module.function" -> a digest of its text: what another file learns from reading the
    # function (`read_only.parameters_only_read`) changes with it, and so does the cache key.
    function_digests: dict = field(default_factory=dict)
    calls: dict = field(default_factory=dict)  # "module.function" -> [grad off at the call: bool]
    # public method name of a class of the run -> [grad off at the call: bool] for every
    # `.name(` call in the run's files, whatever the receiver (`self.agent.act(obs)` of an agent
    # a config builds): a method only ever called with grad off runs with grad off
    method_name_calls: dict = field(default_factory=dict)
    # module -> {name: torch's qualified name} its top-level imports bind (`from torch.autograd
    # import Variable`): what `from module import *` hands on
    torch_names: dict = field(default_factory=dict)
    # module -> digest of its whole text, for each module whose functions another file imports
    imported_digests: dict = field(default_factory=dict)
    # "package.function" -> "package.sub.function": a function a package's `__init__.py` takes
    # from one of its modules (`from .metrics import *`, `from .metrics import accuracy`).
    reexports: dict = field(default_factory=dict)
    # Modules whose names include torch's: they import torch (or a domain library), or take
    # everything from one that does (`from layers import *`).
    torch_modules: set = field(default_factory=set)
    # Files of the run that a module importing torch imports (`from utils import GradCAM`):
    # their code runs on that module's tensors and models, though they import no torch.
    torch_served: set = field(default_factory=set)
    # module -> the members of its plain classes, where one of them is a hand-made autograd
    # value (a micrograd `Value`: `def backward`, `self.grad`): in a file importing the module,
    # `.data`, `.grad`, `.backward()` and `.parameters()` say nothing of tensors.
    hand_made: dict = field(default_factory=dict)
    # "module.name" -> "module.Class": a module-level name bound to a new instance of a module
    # class of that file (`model = ConvNet()` in `Architecture/model.py`), which another file
    # imports (`from Architecture.model import model`) and runs as the model it is.
    instances: dict = field(default_factory=dict)
    # module -> the names of its module-level functions whose text reads values
    # (`vocabulary.VALUE_READ_HINTS`: `def to_numpy(t): return t.detach().cpu().numpy()`)
    reading_functions: dict = field(default_factory=dict)
    # module -> the names of its module-level functions that load weights from a file and hand
    # something back (`def get_checkpoint_resnet(path): ...; net.load_state_dict(...); return net`)
    loading_functions: dict = field(default_factory=dict)
    # module -> {function: (position, name) of the parameter it loads weights into}: module-level
    # functions loading a model they are handed (`def load_model(path, model, opt):
    # model.load_state_dict(torch.load(path)["model"])`)
    argument_loading_functions: dict = field(default_factory=dict)
    # module -> the names of its module-level functions whose text returns a full reduction
    # (`return torch.mean(correct.float())`): a call of one may be a 0-dim tensor
    # (``zero_dim.ZERO_DIM_HINTS``: `checkAcc(model, x, y)[0]` raises IndexError)
    reducing_functions: dict = field(default_factory=dict)
    # module -> {function: its text}: functions whose text sets `requires_grad` in a loop over
    # `.parameters()` (`def frozon(model): for p in model.parameters(): p.requires_grad = False`),
    # read by `steps.frozen_models` where another file calls them
    freezing_functions: dict = field(default_factory=dict)
    # module -> the names of functions and methods (of any file) whose results its text reads as
    # only a tensor can be read (`meta_loss = meta_model.train(...)`, then `meta_loss.item()`)
    tensor_result_functions: dict = field(default_factory=dict)
    # attribute name -> the module classes of the run that classes of the run store under it
    # (`self.crf = CRF(num_tags)`): what `model.crf` holds where `model`'s class is not known
    submodule_classes: dict = field(default_factory=dict)
    # attribute names under which classes of the run also store instances of something else than
    # the run's module classes (`self.actor = MPCPolicy(env)` of a plain class)
    other_stores: set = field(default_factory=set)
    # attribute names under which module classes of the run store a torch layer they build
    # (`self.feat_extraction = nn.Sequential(...)`): what `net.feat_extraction` holds where `net`
    # is a module of no known class (`net = torch.load(path)`)
    layer_stores: set = field(default_factory=set)
    # Of those, the names under which some module class stores a torch layer without parameters
    # (`self.act = nn.Softmax(dim=-1)`), and those under which one stores a layer with some.
    parameterless_stores: set = field(default_factory=set)
    weighted_stores: set = field(default_factory=set)

    def module_of(self, path: str) -> Optional[str]:
        return self.module_names.get(os.path.abspath(path))

    def resolve(self, importer: str, module: str, level: int = 0) -> str:
        """The key of the module a file's ``from <module> import ...`` refers to (relative ones
        too): the module of that name in the importer's own folder where several folders of the
        run hold one."""
        if level:
            own = self.plain_names.get(os.path.abspath(importer), "")
            parts = own.split(".")[:-level] if own else []
            module = ".".join([p for p in parts if p] + ([module] if module else []))
        if module in self.shared_names:
            return f"{self._sharing_root(importer, module)}/{module}"
        if "." in module and module not in self.run_modules():
            return self._namespace_module(importer, module) or module
        if not level and module and module not in self.run_modules():
            # `from utils import *` in a script inside a package, beside `utils.py`
            return self.sibling_module(importer, module) or module
        return module

    def sibling_module(self, importer: str, module: str) -> Optional[str]:
        """The key of the module of the run that ``import <module>`` finds beside a script inside a
        package (``from train import Trainer`` in ``code/notebook.ipynb``, ``code/`` holding an
        ``__init__.py``: the run knows that file as ``code.train``), or None."""
        path = os.path.join(os.path.dirname(os.path.abspath(importer)), *module.split(".")) + ".py"
        return self.module_names.get(path)

    def _sharing_root(self, importer: str, module: str) -> str:
        """The id of the folder whose module of a shared name a file imports: its own root's,
        else the nearest folder above it holding one (``import Function.utils`` in a chapter's
        folder of a repository whose root and one other folder each hold ``Function/utils.py``,
        run from the root as an editor runs it), else its own root's."""
        own = self.root_of(importer)
        holders = self.shared_roots.get(module, ())
        if own in holders:
            return own
        folder = os.path.dirname(os.path.abspath(importer))
        while True:
            if _folder_id(folder) in holders:
                return _folder_id(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                return own
            folder = parent

    def run_modules(self) -> frozenset:
        """The keys of the run's modules (made once)."""
        found = self.__dict__.get("_run_modules")
        if found is None:
            found = self.__dict__["_run_modules"] = frozenset(self.module_names.values())
        return found

    def _namespace_module(self, importer: str, module: str) -> Optional[str]:
        """The key of a module of the run that ``import`` finds under a folder without
        ``__init__.py`` (a namespace package: ``from models.CNN import AlexNet`` with a
        ``models/CNN.py``), beside the importer or in a folder above it within the run (a script
        of ``app/`` run from the repository's root, as ``python -m app.train`` runs it; also where
        every file of the run is in that folder: ``from src.model import net`` of a run holding
        only ``src/``), or None."""
        memo = self.__dict__.setdefault("_namespace_modules", {})
        folder = os.path.dirname(os.path.abspath(importer))
        key = (folder, module)
        if key not in memo:
            memo[key] = None
            top = self._common_folder()
            parts = module.split(".")
            while True:
                path = module_file(importer, module) if folder == key[0] else None
                if path is None:
                    candidate = os.path.join(folder, *parts) + ".py"
                    path = candidate if candidate in self.module_names else None
                if path is not None and os.path.abspath(path) in self.module_names:
                    memo[key] = self.module_names[os.path.abspath(path)]
                    break
                parent = os.path.dirname(folder)
                if folder == top or parent == folder or not folder.startswith(top):
                    break
                folder = parent
            if memo[key] is None and parts[0] == os.path.basename(top):
                # the run's common folder is the package the import names: `src.model` from `src/`
                candidate = os.path.join(os.path.dirname(top), *parts) + ".py"
                memo[key] = self.module_names.get(os.path.abspath(candidate))
        found: Optional[str] = memo[key]
        return found

    def _common_folder(self) -> str:
        """The deepest folder holding every file of the run."""
        found = self.__dict__.get("_common")
        if found is None:
            folders = {os.path.dirname(path) for path in self.module_names}
            found = self.__dict__["_common"] = os.path.commonpath(sorted(folders)) if folders else ""
        return found

    def star_names(self, importer: str, sources: list) -> dict:
        """The names ``from X import *`` binds in ``importer`` (local name -> qualified name, as
        ``from X import Name`` would write it) for each module X of the run among ``sources``
        (``ImportMap.star_sources``): its public classes and functions."""
        out: dict = {}
        for module, level in sources:
            prefix = self.resolve(importer, module, level) + "."
            written = "." * level + module + "."
            for member in (*self.classes, *self.functions):
                short = member[len(prefix) :]
                if member.startswith(prefix) and short and "." not in short and not short.startswith("_"):
                    out.setdefault(short, written + short)
            for local, qualified in self.torch_names.get(prefix[:-1], {}).items():
                out.setdefault(local, qualified)  # what the module imports from torch, handed on
        return out

    def path_of(self, key: str) -> Optional[str]:
        """The file of the run whose module has this key."""
        paths = self.__dict__.get("_paths")
        if paths is None:
            paths = self.__dict__["_paths"] = {name: path for path, name in self.module_names.items()}
        return paths.get(key)

    def function_key(self, importer: str, qualified: str) -> str:
        """The key of ``module.function`` as the file ``importer`` imports it (``resolve``), and
        where the package it names takes it from one of its modules, that module's."""
        module, _, name = qualified.rpartition(".")
        key = f"{self.resolve(importer, module)}.{name}"
        return self.reexports.get(key, key) if key not in self.functions else key

    def spellings(self, importer: str, names: dict, functions: dict) -> frozenset:
        """How a file whose imports bind ``names`` (local -> qualified) calls the run's functions
        ``functions`` lists (module -> names: ``reading_functions``, ``loading_functions``):
        ``to_numpy`` of ``from utils import to_numpy`` (or ``*``), ``ptu.to_numpy`` of ``import
        cs285.infrastructure.pytorch_util as ptu``."""
        return frozenset(self.spelled_functions(importer, names, functions))

    def spelled_functions(self, importer: str, names: dict, functions: dict) -> dict:
        """``spellings``, each with the (module, function) it calls."""
        if not functions:
            return {}
        found = {}
        for local, qualified in names.items():
            if qualified.startswith("torch."):
                continue
            module, _, name = self.function_key(importer, qualified).rpartition(".")
            if name in functions.get(module, ()):
                found[local] = (module, name)  # the function itself
            module = self.resolve(importer, qualified)
            for name in functions.get(module, ()):
                found[f"{local}.{name}"] = (module, name)  # a function of the module
        return found

    def reading_function_names(self) -> frozenset:
        """The names of the functions of the run whose text reads values (made once)."""
        return self._function_names("_reading_function_names", self.reading_functions)

    def reducing_function_names(self) -> frozenset:
        """The names of the functions of the run that return a full reduction (made once)."""
        return self._function_names("_reducing_function_names", self.reducing_functions)

    def reads_result_as_tensor(self, name: str, outside: Optional[str]) -> bool:
        """Whether a file of the run other than module ``outside`` reads what a function or method
        named ``name`` returns as only a tensor can be read."""
        return any(name in names for module, names in self.tensor_result_functions.items() if module != outside)

    def _function_names(self, key: str, functions: dict) -> frozenset:
        """The names a ``module -> names`` field lists, whatever the module, kept under ``key``."""
        names = self.__dict__.get(key)
        if names is None:
            names = self.__dict__[key] = frozenset(name for names in functions.values() for name in names)
        return names

    def method_names(self) -> frozenset:
        """The names of the methods any class of the run defines (made once)."""
        return self._method_names_of_any_class("methods")

    def running_method_names(self) -> frozenset:
        """The names of the methods by which some module class of the run runs it (made once)."""
        return self._method_names_of_any_class("running_methods")

    def training_method_names(self) -> frozenset:
        """The names of the methods by which some class of the run backpropagates (made once)."""
        return self._method_names_of_any_class("training_methods")

    def accumulating_method_names(self) -> frozenset:
        """The names of the methods by which some class of the run adds an argument to what the
        instance keeps (``ClassFact.accumulating``: (method, position) pairs; made once)."""
        return self._method_names_of_any_class("accumulating", method_of=lambda pair: pair[0])

    def _method_names_of_any_class(self, field_name: str, method_of=None) -> frozenset:
        """The union over the run's classes of one of their ``ClassFact`` method sets (``method_of``:
        the method's name in each entry, where entries are not names), kept."""
        key = "_any_" + field_name
        names = self.__dict__.get(key)
        if names is None:
            names = self.__dict__[key] = frozenset(
                entry if method_of is None else method_of(entry)
                for fact in self.classes.values()
                for entry in getattr(fact, field_name)
            )
        return names

    def function_node(self, key: str) -> Optional[tuple]:
        """(the module's tree, the function's node) for ``module.function`` of a file of the run
        defining it once at module level, undecorated; the file is read and parsed once per run
        (None where it cannot be)."""
        module, _, name = key.rpartition(".")
        path = self.path_of(module) if key in self.functions else None
        parsed = self.parsed(path) if path is not None else None
        if parsed is None:
            return None
        tree = parsed[0]
        function = top_function(tree, name)
        return (tree, function) if function is not None else None

    def static_method_node(self, key: str) -> Optional[tuple]:
        """(the module's tree, the method's node) for ``module.Class.method`` of a file of the run:
        a ``@staticmethod`` of a module-level class defined once, called through the class
        (``GradientUtils.gradient(pred, coords)``); None otherwise."""
        module_class, _, method = key.rpartition(".")
        module, _, class_name = module_class.rpartition(".")
        path = self.path_of(module) if module else None
        parsed = self.parsed(path) if path is not None else None
        if parsed is None:
            return None
        classes = [n for n in parsed[0].body if isinstance(n, ast.ClassDef) and n.name == class_name]
        if len(classes) != 1:
            return None
        found = [
            n
            for n in classes[0].body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == method
            and [dotted_name(d) for d in n.decorator_list] == ["staticmethod"]
        ]
        return (parsed[0], found[0]) if len(found) == 1 else None

    def __getstate__(self) -> dict:
        """What a spawned worker receives: the facts, not the memos made from them."""
        return {name: value for name, value in self.__dict__.items() if not name.startswith("_")}

    def parsed(self, path: str) -> Optional[tuple]:
        """(tree, text) of a file of the run (None where it cannot be), read and parsed once
        while it is among the last ``2 * ANALYSES_KEPT`` asked for."""
        trees = self.__dict__.setdefault("_trees", OrderedDict())
        if path in trees:
            trees.move_to_end(path)
            return trees[path]  # type: ignore[no-any-return]
        text = _read(path)
        try:
            found = (ast.parse(text), text) if text is not None else None
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            found = None
        trees[path] = found
        while len(trees) > 2 * ANALYSES_KEPT:
            trees.popitem(last=False)
        return found

    def analysis_of(self, path: str, make) -> object:
        """``make(path, tree, text)`` for a file of the run: the semantic model of a file whose
        functions another file calls. The last ``ANALYSES_KEPT`` are kept (a run over a large
        project does not hold every file's model); one dropped is made again when asked."""
        made = self.__dict__.setdefault("_analyses", OrderedDict())
        if path in made:
            made.move_to_end(path)
            return made[path]
        parsed = self.parsed(path)
        found = made[path] = None if parsed is None else make(path, *parsed)
        while len(made) > ANALYSES_KEPT:
            made.popitem(last=False)
        return found

    def root_of(self, path: str) -> str:
        """The id of the folder a file's imports start from (for a file the index did not read,
        a notebook, found from its path as for the others)."""
        absolute = os.path.abspath(path)
        root = self.roots.get(absolute)
        if root is None:
            root = self.roots[absolute] = _folder_id(_name_and_root(absolute)[1])
        return root

    def constructs_any(self, layers: frozenset) -> bool:
        """Whether some class of the project constructs one of ``layers``, or a module-level
        torchvision model of the run holds one (answered once per set and run: every file of the
        run may ask)."""
        answers = self.__dict__.setdefault("_constructs_any", {})
        found = answers.get(layers)
        if found is None:
            found = answers[layers] = any(fact.layers & layers for fact in self.classes.values()) or any(
                (vocab.torchvision_model_layers(made.rpartition(".")[2]) or frozenset()) & layers
                for made in self.instances.values()
                if made.startswith("torchvision.models.")
            )
        return found

    def gives_torch(self, importer: str, text: str) -> bool:
        """Whether a file that never imports torch itself gets it from a module of the project
        (``from utils import *``, ``utils`` importing torch): its code uses torch all the same.
        A module the run does not hold is read from its file next to the importer
        (``star_imports_give_torch``). A file that a module importing torch imports is torch
        code too: it runs on that module's values."""
        if os.path.abspath(importer) in self.torch_served:
            return True
        run_modules = self.run_modules()
        for written, level in _star_import_sources(text):
            module = self.resolve(importer, written, level)
            if module in self.torch_modules:
                return True
            if module not in run_modules and _file_gives_torch(module_file(importer, written, level), set()):
                return True
        return False

    def digest(self) -> str:
        h = hashlib.sha256()
        h.update(f"torch:{sorted(self.torch_modules)}\n".encode())
        h.update(f"served:{sorted(self.torch_served)}\n".encode())
        for name in sorted(self.classes):
            fact = self.classes[name]
            h.update(
                f"{name}:{fact.module}:{fact.dataset}:{sorted(fact.layers)}:{fact.backpropagates}:"
                f"{sorted(fact.quiet_methods)}:{sorted(fact.running_methods)}:{fact.loads_weights}:"
                f"{sorted(fact.accumulating)}:{sorted(fact.held_model_methods)}:{sorted(fact.delegating_methods)}:"
                f"{fact.parameterless}:{fact.differentiates}:{sorted(fact.training_methods)}:"
                f"{sorted(fact.submodules)}:{fact.frozen}:{sorted(fact.sampled_outputs)}:{fact.evaluates_itself}:"
                f"{fact.makes_tensors}\n".encode()
            )
        for name in sorted(self.instances):
            h.update(f"instance {name}:{self.instances[name]}\n".encode())
        for name in sorted(self.functions):
            h.update(f"def {name}:{self.calls.get(name)}:{self.function_digests.get(name)}\n".encode())
        for name in sorted(set(self.calls) - self.functions):
            h.update(f"method {name}:{self.calls[name]}\n".encode())
        for name in sorted(self.method_name_calls):
            h.update(f"method name {name}:{self.method_name_calls[name]}\n".encode())
        for name in sorted(self.torch_names):
            h.update(f"torch names {name}:{sorted(self.torch_names[name].items())}\n".encode())
        for name in sorted(self.imported_digests):
            h.update(f"imported {name}:{self.imported_digests[name]}\n".encode())
        for name in sorted(self.reexports):
            h.update(f"from {name}:{self.reexports[name]}\n".encode())
        for name in sorted(self.hand_made):
            h.update(f"hand-made {name}:{sorted(self.hand_made[name])}\n".encode())
        for name in sorted(self.submodule_classes):
            h.update(f"stored {name}:{sorted(self.submodule_classes[name])}\n".encode())
        h.update(f"stored otherwise:{sorted(self.other_stores)}\n".encode())
        h.update(f"stored layers:{sorted(self.layer_stores)}\n".encode())
        h.update(f"stored parameterless:{sorted(self.parameterless_stores)}:{sorted(self.weighted_stores)}\n".encode())
        for name in sorted(self.loading_functions):
            h.update(f"loading {name}:{sorted(self.loading_functions[name])}\n".encode())
        for name in sorted(self.reducing_functions):
            h.update(f"reducing {name}:{sorted(self.reducing_functions[name])}\n".encode())
        for name in sorted(self.tensor_result_functions):
            h.update(f"read as tensors {name}:{sorted(self.tensor_result_functions[name])}\n".encode())
        for name in sorted(self.argument_loading_functions):
            h.update(f"loading into {name}:{sorted(self.argument_loading_functions[name].items())}\n".encode())
        return h.hexdigest()[:16]


_CURRENT: ContextVar = ContextVar("gradguard_project", default=None)


def top_function(tree: ast.Module, name: str) -> Optional[ast.AST]:
    """The module's one undecorated top-level definition of function ``name``, or None."""
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    return found[0] if len(found) == 1 and not found[0].decorator_list else None


# How many other files' semantic models a run keeps at once (``ProjectIndex.analysis_of``).
ANALYSES_KEPT = 32


def current() -> Optional[ProjectIndex]:
    """The facts of the run being checked (None outside a run: one file alone)."""
    return _CURRENT.get()


@contextmanager
def using(index: Optional[ProjectIndex]) -> Iterator[None]:
    token = _CURRENT.set(index)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def _folder_id(folder: str) -> str:
    return hashlib.sha256(folder.encode()).hexdigest()[:8]


def module_name(path: str, package_cache: Optional[dict] = None) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` when the folders are packages (``__init__.py``),
    else the file's stem: what ``import`` would call it from the folder above the packages."""
    return _name_and_root(path, package_cache)[0]


def _name_and_root(path: str, package_cache: Optional[dict] = None) -> tuple:
    """(the module name, as ``module_name``; the folder above its packages, where ``import``
    finds it)."""
    cache = package_cache if package_cache is not None else {}
    folder, base = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(base)[0]]
    if parts[0] == "__init__":
        parts = []
    while True:
        is_package = cache.get(folder)
        if is_package is None:
            is_package = cache[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
        if not is_package:
            break
        folder, name = os.path.split(folder)
        parts.insert(0, name)
        if not name:
            break
    return ".".join(p for p in parts if p), folder


def _reexports(index: ProjectIndex, texts: dict, classes=()) -> dict:
    """The functions and classes each package's ``__init__.py`` of the run takes from its own
    modules by a relative import (``from .metrics import *``, ``from .base_model import
    BaseModel``): what ``from package import accuracy`` then names."""
    out: dict = {}
    defined = index.functions | set(classes)
    for package, (path, text) in texts.items():
        if "import" not in text:
            continue
        if os.path.basename(path) != "__init__.py":
            _taken_from_the_run(index, package, path, text, defined, out)
            continue
        for match in _FROM_RE.finditer(text):
            source = match.group(1)
            if source.startswith(package + "."):
                source = source[len(package) :]  # `from pkg.ddim import DDIM` in `pkg/__init__.py`
            if not source.startswith(".") or source.startswith(".."):
                continue  # only the package's own modules
            module = f"{package}.{source[1:]}" if source[1:] else package
            names = [name for name, _ in _clause_names(match.group(2))]
            if names == ["*"]:
                prefix = module + "."
                for function in defined:
                    short = function[len(prefix) :]
                    if function.startswith(prefix) and "." not in short and not short.startswith("_"):
                        out.setdefault(f"{package}.{short}", function)
                continue
            for name, local in _clause_names(match.group(2)):
                if f"{module}.{name}" in defined:
                    out.setdefault(f"{package}.{local}", f"{module}.{name}")
    return out


def _taken_from_the_run(index: ProjectIndex, module: str, path: str, text: str, defined: set, out: dict) -> None:
    """The functions and classes a plain module takes by name from another module of the run
    (`from myunet import BCELoss2d` in `main.py`): what `from main import BCELoss2d` then names,
    where the module defines none of that name itself."""
    for match in _FROM_RE.finditer(text):
        source = match.group(1)
        if not source or source.startswith("."):
            continue
        resolved = index.resolve(path, source)
        for name, local in _clause_names(match.group(2)):
            if name != "*" and f"{resolved}.{name}" in defined and f"{module}.{local}" not in defined:
                out.setdefault(f"{module}.{local}", f"{resolved}.{name}")


def build_index(paths: list, read=None, read_notebook=None) -> ProjectIndex:
    """Read the ``.py`` files of a run (``read(path) -> str`` or None) and collect the facts.
    Modules of the ``torch`` package are left out: torch's names are the vocabulary's. A
    notebook's code (``read_notebook(path) -> str`` or None: its cells as one program) is no
    module, but its calls of the project's functions and methods are callers like any other."""
    index = ProjectIndex()
    texts: dict = {}
    importing_torch: list = []  # (path, text) of each file that imports torch
    imports_torch: dict = {}  # module name -> whether its file (the last one of that name) imports torch
    cache: dict = {}
    found: list = []  # (absolute path, dotted name, root folder, text)
    notebooks: list = []  # (path, program text) of the run's notebooks
    for path in paths:
        if path.endswith(".ipynb") and read_notebook is not None:
            text = read_notebook(path)
            if text is not None:
                notebooks.append((path, text))
            continue
        if not path.endswith(".py"):
            continue
        name, root = _name_and_root(path, cache)
        if not name or name == "torch" or name.startswith("torch."):
            continue
        text = (read or _read)(path)
        if text is not None:
            found.append((path, name, root, text))
    folders: dict = {}
    for _path, name, root, _text in found:
        folders.setdefault(name, set()).add(root)
    index.shared_names = frozenset(name for name, roots in folders.items() if len(roots) > 1)
    index.shared_roots = {name: frozenset(map(_folder_id, folders[name])) for name in index.shared_names}
    for path, name, root, text in found:
        absolute = os.path.abspath(path)
        index.plain_names[absolute] = name
        index.roots[absolute] = _folder_id(root)
        if name in index.shared_names:
            name = index.resolve(path, name)  # the key: prefixed where folders share the name
        index.module_names[absolute] = name
        texts[name] = (path, text)
        imports_torch[name] = mentions_torch_import(text)
        if imports_torch[name]:
            importing_torch.append((path, text))
    _forget_memos(index)  # the run's modules are all known from here on
    bases: dict = {}
    bodies: dict = {}
    grad_off_decorators: dict = {}  # module -> its functions wrapping what they decorate in `no_grad`
    for name, (_path, text) in texts.items():
        for match in _CLASS_RE.finditer(text):
            qualified = f"{name}.{match.group(1)}"
            bases[qualified] = [b.strip() for b in (match.group(2) or "").split(",") if b.strip()]
            bodies[qualified] = _block(text, match.start())
        torch_names = _torch_imports(text)
        if torch_names:
            index.torch_names[name] = torch_names
            read_as_tensors = _tensor_result_functions(text)
            if read_as_tensors:
                index.tensor_result_functions[name] = read_as_tensors
        for match in _DEF_RE.finditer(text):
            index.functions.add(f"{name}.{match.group(1)}")
            body = _block(text, match.start())
            if _GRAD_OFF_RE.search(body) is not None and _NESTED_DEF_RE.search(body) is not None:
                # `def nograd(f): def new_f(*a, **k): with t.no_grad(): return f(*a, **k)`
                grad_off_decorators.setdefault(name, set()).add(match.group(1))
            index.function_digests[f"{name}.{match.group(1)}"] = hashlib.sha256(body.encode()).hexdigest()[:12]
            if any(hint in body for hint in vocab.VALUE_READ_HINTS):
                index.reading_functions.setdefault(name, set()).add(match.group(1))
            if _LOADS_WEIGHTS_RE.search(body) is not None and _RETURNS_RE.search(body) is not None:
                index.loading_functions.setdefault(name, set()).add(match.group(1))
            if ".load_state_dict(" in body:
                loaded = _loaded_parameter(body)
                if loaded is not None:
                    index.argument_loading_functions.setdefault(name, {})[match.group(1)] = loaded
            if "return" in body and vocab.RETURNS_A_REDUCTION_RE.search(body) is not None:
                index.reducing_functions.setdefault(name, set()).add(match.group(1))
            if "requires_grad" in body and ".parameters()" in body:
                index.freezing_functions.setdefault(name, {})[match.group(1)] = body
    index.reexports.update(_reexports(index, texts, bases))
    aliases = _class_aliases(index, texts, bases)
    if aliases:
        index.reexports.update(_reexports(index, texts, aliases))
    # nn.Module / Dataset subclasses, through the project's own classes (by their short name).
    short: dict = {}
    for qualified in bases:
        short.setdefault(qualified.rsplit(".", 1)[1], []).append(qualified)
    module_classes: set = set()
    dataset_classes: set = set()
    changed = True
    while changed:
        changed = False
        for qualified, its_bases in bases.items():
            for base in its_bases:
                last = base.rsplit(".", 1)[-1]
                own = f"{qualified.rsplit('.', 1)[0]}.{base}"
                if "." not in base and own in bases:
                    # `class Neuron(Module)` beside the file's own `class Module:` (a micrograd
                    # clone): that class, not torch's
                    is_module, is_dataset = own in module_classes, own in dataset_classes
                else:
                    is_module = _MODULE_BASES.search(base) is not None or any(
                        q in module_classes for q in short.get(last, ())
                    )
                    is_dataset = _DATASET_BASES.search(base) is not None or any(
                        q in dataset_classes for q in short.get(last, ())
                    )
                if is_module and qualified not in module_classes:
                    module_classes.add(qualified)
                    changed = True
                if is_dataset and qualified not in dataset_classes:
                    dataset_classes.add(qualified)
                    changed = True
    index.hand_made.update(_hand_made_members(bases, bodies, module_classes, dataset_classes))
    public_methods: dict = {}  # "module.Class" -> its methods a file may call on an instance
    module_classes_by_short: dict = {}  # a module class's own name -> the run's module classes of that name
    for qualified in module_classes:
        module_classes_by_short.setdefault(qualified.rsplit(".", 1)[1], set()).add(qualified)
    all_layers = _nested_layers(bodies, module_classes, module_classes_by_short, texts)
    stored_calls = {qualified: _stored_calls(bodies[qualified]) for qualified in bases}
    for qualified in bases:
        layers = all_layers.get(qualified, frozenset())
        methods = _method_texts(bodies[qualified])
        public_methods[qualified] = [name for name in methods if not name.startswith("_")]
        decorators = grad_off_decorators.get(qualified.rpartition(".")[0], ())
        quiet = frozenset(
            name
            for name, text in methods.items()
            if ".backward(" in text
            or _GRAD_OFF_RE.search(text) is not None
            or any(f"@{decorator}\n" in text for decorator in decorators)
        )
        training = _training_methods(methods)
        # a method that differentiates (`G_dt` taking `torch.autograd.grad` of the output) needs grad
        # (not one calling a `.backward(z)` of its own: a normalizing flow's inverse)
        running = (
            _running_methods(
                methods,
                quiet
                | _differentiating_methods(methods)
                | {name for name, text in methods.items() if returns_only_a_shape(text)},
            )
            if qualified in module_classes
            else frozenset()
        )
        index.classes[qualified] = ClassFact(
            qualified in module_classes,
            qualified in dataset_classes,
            layers,
            vocab.forward_needs_grad(vocab.forward_with_its_helpers(methods)),
            _delegating_to_quiet(methods, quiet, running) if qualified in module_classes else quiet,
            running,
            qualified in module_classes and loads_weights(methods.get("__init__", "")),
            frozenset(
                (name, position)
                for name, text in methods.items()
                if not name.startswith("_")
                for position in accumulated_parameters(text)
            ),
            qualified in module_classes
            and (_LOSS_CLASS_RE.search(qualified) is not None or returns_a_scalar_reduction(methods.get("forward", "")))
            and _PARAMETER_HOLDER_RE.search(bodies[qualified]) is None,
            frozenset(public_methods[qualified]),
            frozenset()
            if qualified in module_classes or qualified in dataset_classes
            else held_model_methods(bodies[qualified], methods, quiet),
            frozenset(
                name
                for name, text in methods.items()
                if re.search(r"\bself\.\w+\." + re.escape(name) + r"\s*\(", text) is not None
            ),
            qualified in module_classes
            and all(_MODULE_BASES.search(base) is not None for base in bases[qualified])
            and _holds_no_parameters(bodies[qualified], methods.get("__init__", "")),
            _DIFFERENTIATES_RE.search(bodies[qualified]) is not None,
            training,
            _stored_submodules(stored_calls[qualified], module_classes_by_short)
            | _annotated_module_parameters_stored(methods.get("__init__", "")),
            qualified in module_classes and _freezes_itself(methods),
            sampled_outputs(methods.get("forward", "")) if qualified in module_classes else frozenset(),
            qualified in module_classes and _init_text_switches_to_eval(methods.get("__init__", "")),
            qualified in dataset_classes and vocab.TENSOR_MAKING_RE.search(bodies[qualified]) is not None,
        )
    for name, (path, text) in texts.items():
        imported = dict(_imported_by_name(index, path, text, index.classes))
        index.instances.update(_module_instances(name, text, index.classes, imported))
    for qualified in bases:
        for attr, built in stored_calls[qualified]:
            if "." in built:
                if qualified in module_classes and _TORCH_LAYER_RE.match(built):
                    index.layer_stores.add(attr)  # `self.fc = nn.Linear(...)` of a module class
                    if vocab.last_name(built) in vocab.PARAMETERLESS_MODULES:
                        index.parameterless_stores.add(attr)
                    else:
                        index.weighted_stores.add(attr)
                continue  # not a class of the run
            if built in module_classes_by_short:
                index.submodule_classes.setdefault(attr, set()).update(module_classes_by_short[built])
            else:
                index.other_stores.add(attr)
    # Modules that import torch, then those that take everything from one of them.
    index.torch_modules.update(name for name, imports in imports_torch.items() if imports)
    changed = True
    while changed:
        changed = False
        for name, (path, text) in texts.items():
            if name not in index.torch_modules and index.gives_torch(path, text):
                index.torch_modules.add(name)
                changed = True
    index.torch_served.update(_served_files(index, importing_torch, texts))
    # Calls of the project's functions from the files that import them, and of the public
    # methods of its classes on instances those files make (`gan = GAN(args)`, or through a
    # class method `model = BertForRE.from_pretrained(path)`, then `gan.visualize_results(epoch)`:
    # "module.GAN.visualize_results").
    classes_by_module: dict = {}
    for qualified in index.classes:
        module, _, name = qualified.rpartition(".")
        classes_by_module.setdefault(module, []).append(name)
    for path, text in [*texts.values(), *notebooks]:
        for local, target in _imported_functions(index, path, text):
            module = index.reexports.get(target, target).rpartition(".")[0]
            if module in texts and module not in index.imported_digests:
                # what the function returns may depend on any line of its file
                index.imported_digests[module] = hashlib.sha256(texts[module][1].encode()).hexdigest()[:12]
            for line in _call_lines(text, local):
                index.calls.setdefault(target, []).append(_grad_off_at(text, line))
        for local, qualified in _imported_classes(index, path, text, classes_by_module):
            instances = set(re.findall(r"(?<![\w.])(\w+)\s*=\s*" + re.escape(local) + _MADE_BY, text))
            instances.update(_annotated_names(text, local))
            _method_calls(index, text, instances, [qualified], public_methods)
        if aliases:
            # `def inference(sampler: Sampler)`, of `Sampler = Union[DDPM, DDIM]` in another file
            for local, alias in _imported_by_name(index, path, text, aliases):
                _method_calls(index, text, set(_annotated_names(text, local)), aliases[alias], public_methods)
    wanted = {
        name
        for names in public_methods.values()
        for name in names
        if name not in vocab.NOT_MODEL_METHODS and name not in vocab.MODULE_OWN_METHODS
    }
    for _path, text in [*texts.values(), *notebooks]:
        _method_name_calls(index, text, wanted)
    _forget_memos(index)
    return index


def _method_calls(index: ProjectIndex, text: str, instances: set, classes, public_methods: dict) -> None:
    """Record, for each class, whether each call of its public methods on one of ``instances``
    in a file's text sits where grad is off."""
    for instance in instances:
        for qualified in classes:
            for method in public_methods.get(qualified, ()):
                for line in _call_lines(text, f"{instance}.{method}"):
                    if _bound_to_another_run_class(index, text, instance, line, qualified):
                        continue  # `model = PlainCRF()` in this function, then `model.test(sents)`
                    index.calls.setdefault(f"{qualified}.{method}", []).append(_grad_off_at(text, line))


def _bound_to_another_run_class(index: ProjectIndex, text: str, name: str, line: int, qualified: str) -> bool:
    """Whether every binding of ``name`` in its function before ``line`` (0-based) makes an
    instance of one class of the run other than ``qualified`` (``model = PlainCRF()`` in one
    function of a file whose other function binds ``model = Tagger()``; not ``if ...: gan =
    GAN(args)`` / ``elif ...: gan = ACGAN(args)``)."""
    at = 0
    for _ in range(line):
        at = text.find("\n", at) + 1
    while text[at : at + 1] in (" ", "\t"):
        at += 1  # the call's line, past its indentation
    cls = _class_last_bound(text, name, at)
    return cls is not None and cls != qualified.rpartition(".")[2] and bool(_run_class_keys(index, cls))


def _run_class_keys(index: ProjectIndex, name: str) -> list:
    """The run's keys of the classes named ``name`` (``mods.PlainCRF`` for ``PlainCRF``)."""
    return [key for key in index.classes if key.rpartition(".")[2] == name]


def _class_last_bound(text: str, name: str, at: int) -> Optional[str]:
    """The class whose instance every binding of ``name`` in the text of the function holding
    offset ``at``, before it, makes (``model = CRFModel(...)``); None where one binds anything
    else or another class's instance, or there is none (a parameter, a global)."""
    line_start = text.rfind("\n", 0, at) + 1
    indent = len(text[line_start:at]) - len(text[line_start:at].lstrip())
    start = 0
    for match in _DEF_LINE_RE.finditer(text, 0, line_start):
        if len(match.group(1)) < indent:
            start = match.start()
    scope = text[start:line_start]
    made = set()
    margin = r"[ \t]*" if indent else ""  # at module level, the module's own statements only
    for binding in re.finditer(rf"(?m)^{margin}{re.escape(name)}[ \t]*=(?!=)[ \t]*(.*)$", scope):
        call = re.match(r"(\w+)\(", binding.group(1))
        if call is None:
            return None
        made.add(call.group(1))
    return made.pop() if len(made) == 1 else None


_DEF_LINE_RE = re.compile(r"(?m)^([ \t]*)(?:async[ \t]+)?def[ \t]")


_METHOD_CALL_RE = re.compile(r"\.(\w+)[ \t]*\(")
_NEWLINE_RE = re.compile(r"\n")


def _method_name_calls(index: ProjectIndex, text: str, wanted: set) -> None:
    """Record whether each call of a method named in ``wanted`` (``x.act(obs)``, any receiver)
    in a file's text sits where grad is off; a call on a name the text last bound, before it, to
    an instance of a plain class of the run defining that method (``model = PlainCRF()``, then
    ``model.test(sents)``) is recorded for that class alone (``ProjectIndex.calls``)."""
    newlines: Optional[list] = None
    for match in _METHOD_CALL_RE.finditer(text):
        name = match.group(1)
        if name in wanted:
            if newlines is None:
                newlines = [newline.start() for newline in _NEWLINE_RE.finditer(text)]
            line = bisect.bisect_left(newlines, match.start())
            grad_off = _grad_off_at(text, line)
            owner = _plain_instance_class(index, text, match.start(), name)
            if owner is not None:
                index.calls.setdefault(f"{owner}.{name}", []).append(grad_off)
                continue
            index.method_name_calls.setdefault(name, []).append(grad_off)


_RECEIVER_RE = re.compile(r"(\w+)\s*$")


def _plain_instance_class(index: ProjectIndex, text: str, at: int, method: str) -> Optional[str]:
    """The run's key of the plain class (not a module) defining ``method`` that the receiver of
    the call at ``at`` was last bound to an instance of, in its function before it (``model =
    PlainCRF()``); None where the receiver is not a bare name or nothing so plain shows."""
    receiver = _RECEIVER_RE.search(text, max(0, at - 80), at)
    if receiver is None or receiver.end() != at:
        return None
    cls = _class_last_bound(text, receiver.group(1), at)
    if cls is None:
        return None
    keys = _run_class_keys(index, cls)
    if len(keys) != 1:
        return None
    fact = index.classes[keys[0]]
    return keys[0] if not fact.module and method in fact.methods else None


def _annotated_names(text: str, local: str) -> Iterator[str]:
    """Names a file annotates with a class (``sampler: DDIM``, ``model: Optional[Net] = None``)."""
    pattern = r"(?<![\w.])(\w+)[ \t]*:[ \t]*(?:Optional\[)?" + re.escape(local) + r"(?![\w.(\[])"
    return iter(re.findall(pattern, text))


# A module-level alias of a union of classes (``Sampler = Union[DDPM, DDIM]``).
_CLASS_ALIAS_RE = re.compile(r"^(\w+)[ \t]*=[ \t]*(?:typing\.)?(?:Union|Optional)\[([\w., \t]+)\][ \t]*(?:#.*)?$", re.M)


def _class_aliases(index: ProjectIndex, texts: dict, classes: dict) -> dict:
    """{"module.Alias": ("module.Class", ...)}: the module-level aliases of unions of the run's
    classes, each member defined in the module or imported into it by name (None aside)."""
    out: dict = {}
    for module, (path, text) in texts.items():
        if "Union[" not in text and "Optional[" not in text:
            continue
        matches = _CLASS_ALIAS_RE.findall(text)
        if not matches:
            continue
        imported = dict(_imported_by_name(index, path, text, classes))
        for alias, members in matches:
            names = [m.strip() for m in members.split(",") if m.strip() and m.strip() != "None"]
            resolved = [f"{module}.{name}" if f"{module}.{name}" in classes else imported.get(name) for name in names]
            if resolved and all(resolved):
                out[f"{module}.{alias}"] = tuple(resolved)
    return out


# A method only tensors have, called on a name or on a call's result.
_TENSOR_READING = "|".join(sorted(vocab.TENSOR_READING_METHODS))
_TENSOR_READ_RE = re.compile(r"\b(\w+)\.(?:" + _TENSOR_READING + r")\(")
_CALL_READ_AS_TENSOR_RE = re.compile(r"\b(\w+)\([^()\n]*\)\.(?:" + _TENSOR_READING + r")\(")
# `a, b = obj.method(` / `a = function(`: the names bound and the function called.
_BOUND_CALL_RE = re.compile(r"^[ \t]*([\w \t,()\[\]]+?)[ \t]*=[ \t]*(?:[\w.]+\.)?(\w+)\(", re.M)


def _tensor_result_functions(text: str) -> set:
    """The names of the functions or methods whose results ``text`` reads with a method only
    tensors have: ``loss = learner.train(...)``, later ``loss.item()``; ``evaluate(...).cpu()``."""
    read = set(_TENSOR_READ_RE.findall(text))
    found = set(_CALL_READ_AS_TENSOR_RE.findall(text))
    if read:
        for match in _BOUND_CALL_RE.finditer(text):
            if read.intersection(re.findall(r"\w+", match.group(1))):
                found.add(match.group(2))
    return found


def _forget_memos(index: ProjectIndex) -> None:
    """Drop the memos made while the index was filled (the run's modules, its common folder,
    namespace lookups): they saw only part of it, and each is made again on use."""
    for memo in [name for name in index.__dict__ if name.startswith("_")]:
        del index.__dict__[memo]


def _served_files(index: ProjectIndex, importing_torch: list, texts: dict) -> set:
    """The files of the run that a file importing torch imports (``from utils import f``,
    ``import utils``), found on disk as ``import`` would find them from the importer: only
    modules whose name, or its last part, is that of a module of the run are looked for. A
    package's ``__init__.py`` among them hands on the modules of the package it imports
    (``from .util import *``)."""
    run_files = set(index.module_names)
    names = set(index.plain_names.values())
    names |= {name.rsplit(".", 1)[-1] for name in names}
    served: set = set()
    for path, text in importing_torch:
        written = []
        for module, level, imported in _from_clauses(text):
            written.append((module, level))
            for item, _ in _clause_names(imported):  # `from . import utils`: a module
                if item in names:
                    written.append((f"{module}.{item}" if module else item, level))
        written += [(match.group(1), 0) for match in _IMPORT_RE.finditer(text)]
        for module, level in written:
            if (module or level) and (level or module in names or module.rsplit(".", 1)[-1] in names):
                found = module_file(path, module, level)
                if found is not None:
                    found = os.path.abspath(found)
                    if found in run_files and found != os.path.abspath(path):
                        served.add(found)
    by_path = {os.path.abspath(path): text for path, text in texts.values()}
    todo = [path for path in served if os.path.basename(path) == "__init__.py"]
    while todo:
        init = todo.pop()
        package = os.path.dirname(init)
        for module, level, _imported in _from_clauses(by_path.get(init, "")):
            found = module_file(init, module, level) if (module or level) else None
            if found is None:
                continue
            found = os.path.abspath(found)
            if found in run_files and found not in served and found.startswith(package + os.sep):
                served.add(found)
                if os.path.basename(found) == "__init__.py":
                    todo.append(found)
    return served


def module_file(importer: str, module: str, level: int = 0) -> Optional[str]:
    """The file that ``from <module> import ...`` in ``importer`` reads, when it lies in the
    importer's project on disk: for a relative import, under the importer's package; else next
    to the importer (a script's folder is first on ``sys.path``), then under the folder above
    the importer's top package. None when no such file exists."""
    folder = os.path.dirname(os.path.abspath(importer))
    if level:
        for _ in range(level - 1):
            folder = os.path.dirname(folder)
        roots = [folder]
    else:
        roots = [folder]
        package = module_name(importer).split(".")
        if len(package) > 1:
            top = folder
            for _ in package[:-1]:
                top = os.path.dirname(top)
            roots.append(top)
    parts = module.split(".") if module else []
    for root in roots:
        base = os.path.join(root, *parts)
        for candidate in (
            (base + ".py", os.path.join(base, "__init__.py")) if parts else (os.path.join(base, "__init__.py"),)
        ):
            if os.path.isfile(candidate):
                return candidate
    return None


_PACKAGE_STAR_RE = re.compile(r"^[ \t]*from[ \t]+[A-Za-z_][\w.]*[ \t]+import[ \t]+\*", re.M)
_TORCH_USE_RE = re.compile(r"(?<![\w.])torch\.\w")


def package_star_import_gives_torch(text: str) -> bool:
    """Whether a file that never imports torch takes it from a package's star import and uses
    it: ``from torch_snippets import *`` (or ``from fastai.vision.all import *``), then
    ``torch.tensor(...)``. Such packages re-export torch; the file is torch code."""
    return _PACKAGE_STAR_RE.search(text) is not None and _TORCH_USE_RE.search(text) is not None


def star_imports_give_torch(importer: str, text: str, seen: Optional[set] = None) -> bool:
    """Whether a file that never imports torch itself takes it through ``from X import *``
    from a module file on disk that imports torch, directly or along a chain of star imports:
    what a file checked alone sees of its project (``gradguard check predict.py``, the changed
    files pre-commit passes, an editor's buffer)."""
    seen = set() if seen is None else seen
    return any(
        _file_gives_torch(module_file(importer, written, level), seen) for written, level in _star_import_sources(text)
    )


def _file_gives_torch(path: Optional[str], seen: set) -> bool:
    """Whether a module file imports torch, or takes it through its own star imports."""
    if path is None or path in seen:
        return False
    seen.add(path)
    text = _read(path)
    if text is None:
        return False
    return mentions_torch_import(text) or star_imports_give_torch(path, text, seen)


def _read(path: str) -> Optional[str]:
    """The file's text, or None: unreadable, or not a regular file (a named pipe would block)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


_METHOD_RE = re.compile(r"^([ \t]+)(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.M)


_TORCHVISION_IMPORT_RE = re.compile(r"^[ \t]*from[ \t]+torchvision\.models[ \t]+import[ \t]+\(?([\w \t,]+)\)?", re.M)


def _imported_builders_called(body: str, text: str) -> list:
    """The torchvision model builders a file imports by name (``from torchvision.models import
    resnet18``) that a class body calls (``nn.Sequential(*list(resnet18(weights=None).children())[:-1])``),
    by the name torchvision gives them."""
    if "torchvision.models" not in text:
        return []
    found = []
    for match in _TORCHVISION_IMPORT_RE.finditer(text):
        for part in match.group(1).split(","):
            words = part.split()
            if not words:
                continue
            name, local = words[0], words[-1]  # `resnet18` or `resnet18 as backbone`
            if re.search(r"(?<![\w.])" + re.escape(local) + r"\s*\(", body):
                found.append(name)
    return found


def _nested_layers(bodies: dict, module_classes: set, by_short: dict, texts: dict) -> dict:
    """Each module class of the run -> the dropout and batch norm layers it holds: those its body
    builds, and those of the run's module classes it builds (`self.block = ResBlock(...)`, a
    `ResBlock` with an `nn.Dropout`), through any depth (``by_short``: the module classes by
    their own names; ``texts``: module name -> (path, text), to read which of several classes of
    one name a file imports)."""
    own = {
        q: frozenset(_LAYER_RE.findall(bodies[q]))
        .union(("Dropout",) if _RECURRENT_DROPOUT_RE.search(bodies[q]) else ())
        .union(
            *(
                vocab.torchvision_backbone_layers(name)
                for name in [
                    *_TORCHVISION_BUILDER_RE.findall(bodies[q]),
                    *_imported_builders_called(bodies[q], texts.get(q.rpartition(".")[0], ("", ""))[1]),
                ]
                if not vocab.SWITCHES_TO_EVAL_RE.search(bodies[q])
            )
        )
        for q in module_classes
    }
    for q in module_classes:
        helped = _helper_built_layers(bodies[q], texts.get(q.rpartition(".")[0], ("", ""))[1])
        if helped:
            own[q] = own[q] | helped
    built: dict = {}
    for qualified in module_classes:
        module, _, short = qualified.rpartition(".")
        others = set()
        for name in set(_CALLED_NAME_RE.findall(bodies[qualified])) - {short}:
            candidates = by_short.get(name, set())
            # the class of that name in the same file, else the run's one class of that name,
            # else the one the file imports (`from models.cam import CAM` beside another `CAM`)
            same_file = {c for c in candidates if c.rpartition(".")[0] == module}
            if not same_file and len(candidates) > 1:
                same_file = _imported_candidates(texts.get(module, ("", ""))[1], name, candidates)
            others |= same_file or (candidates if len(candidates) == 1 else set())
        built[qualified] = others
    found = dict(own)
    changed = True
    while changed:
        changed = False
        for qualified, others in built.items():
            grown = found[qualified].union(*(found[o] for o in others)) if others else found[qualified]
            if grown != found[qualified]:
                found[qualified] = grown
                changed = True
    return found


_TOP_DEF_RE = re.compile(r"^def[ \t]+(\w+)[ \t]*\(", re.M)


def _helper_built_layers(body: str, text: str) -> frozenset:
    """The dropout and batch norm layers module-level functions of the class's file build for
    the class's calls of them (VGG's ``self.frontend = make_layers(cfg, batch_norm=True)``),
    leaving out those built only under ``if flag:`` of a parameter the call leaves false. The
    texts are parsed only where a function of the file builds such a layer and the class calls it."""
    builders = {
        match.group(1): match.start()
        for match in _TOP_DEF_RE.finditer(text)
        if _LAYER_RE.search(_block(text, match.start())) is not None
    }
    called = builders.keys() & set(re.findall(r"(?<![\w.])(\w+)\s*\(", body))
    if not called:
        return frozenset()
    try:
        class_tree = ast.parse(textwrap.dedent(body))
    except (SyntaxError, ValueError):
        return frozenset()
    found: set = set()
    for name in called:
        try:
            builder = ast.parse(_block(text, builders[name])).body[0]
        except (SyntaxError, ValueError, IndexError):
            continue
        for call in ast.walk(class_tree):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == name:
                found |= layers_built_for(builder, call, _layer_by_text)
    return frozenset(found)


def layers_built_for(builder: ast.AST, call: ast.Call, layer_of) -> set:
    """The layers a function's body builds for one call of it (``layer_of``: the layer's name for a
    call in the body, or None), leaving out the branches ``if flag:`` of parameters the call leaves
    false (its default ``False``, or given ``False``): VGG's ``make_layers(cfg, batch_norm=True)``."""
    names = [arg.arg for arg in builder.args.args]  # type: ignore[attr-defined]
    defaults = parameter_defaults(builder)
    off = set()
    for position, name in enumerate(names):
        given = vocab.call_argument(call, position, name)
        value = given if given is not None else defaults.get(name)
        if isinstance(value, ast.Constant) and not value.value:
            off.add(name)
    layers: set = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id in off:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Call):
            layer = layer_of(node)
            if layer is not None:
                layers.add(layer)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in builder.body:  # type: ignore[attr-defined]
        visit(statement)
    return layers


def _layer_by_text(call: ast.Call) -> Optional[str]:
    """A dropout or batch-norm layer class a call builds, by its name (``_LAYER_RE``)."""
    callee = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    match = _LAYER_RE.match(f"{callee}(")
    return match.group(1) if match is not None else None


def _imported_candidates(text: str, name: str, candidates: set) -> set:
    """The one of ``candidates`` (classes named ``name`` in several modules of the run) that
    ``text`` imports under that name by its module's name on one line (``from models.cam import
    CAM``), or none."""
    imported_from = {
        module.rpartition(".")[2]
        for module, level, written in _from_clauses(text)
        if not level and "\n" not in written and any(local == name for _, local in _clause_names(written))
    }
    chosen = {c for c in candidates if c.rpartition(".")[0].rpartition(".")[2] in imported_from}
    return chosen if len(chosen) == 1 else set()


def _delegating_to_quiet(methods: dict, quiet: frozenset, running: frozenset) -> frozenset:
    """The quiet methods of a module class, and those that run it only through them
    (``def sample(self, n): return self.denoise(noise)``, with ``@torch.inference_mode()`` on
    ``denoise``): a call of one of those records no graph either."""
    found = set(quiet)
    changed = True
    while changed:
        changed = False
        for name, text in methods.items():
            if name in found or name in running or name.startswith("__"):
                continue
            if set(vocab.SELF_CALL_RE.findall(text)) & found:
                found.add(name)
                changed = True
    return frozenset(found)


def _running_methods(methods: dict, quiet: frozenset) -> frozenset:
    """The methods of a module class that run it (see ``ClassFact.running_methods``)."""
    direct = {
        name: set(vocab.SELF_CALL_RE.findall(text))
        for name, text in methods.items()
        if name not in quiet and name != "__init__" and not name.startswith("__")
    }
    parameters = vocab.parameter_attributes(
        [methods.get("__init__", "")],
        [(name, text) for name, text in methods.items() if text.lstrip().startswith("@property")],
    )
    running = {
        name
        for name, called in direct.items()
        if "self(" in methods[name]
        or "self.forward(" in methods[name]
        or any(c not in methods and c not in vocab.MODULE_OWN_METHODS for c in called)  # a layer it holds
        or _runs_held_layers(methods[name])
        or vocab.parameters_read(methods[name], parameters)  # `x @ self.weight`
    }
    running = _callers_too(running, direct)
    running.discard("forward")
    return frozenset(running)


# `for layer in reversed(self.layers):` (also `self.blocks[::-1]`, `enumerate(self.layers)`): the
# loop variable holds each layer of a container the instance holds.
_HELD_LAYER_LOOP_RE = re.compile(
    r"^[ \t]*for\s+(?:\w+\s*,\s*)?(\w+)\s+in\s+(?:reversed\(|enumerate\()?self\.\w+\b", re.M
)


def _runs_held_layers(text: str) -> bool:
    """Whether a method loops over a container of layers the instance holds and calls each one or
    a method of it (``for layer in reversed(self.layers): x = layer.inverse_flow(x)``)."""
    return any(
        re.search(rf"\b{re.escape(match.group(1))}(?:\.\w+)?\s*\(", text[match.end() :]) is not None
        for match in _HELD_LAYER_LOOP_RE.finditer(text)
    )


_MODULE_ANNOTATED_PARAMETER_RE = re.compile(r"[(,]\s*(\w+)\s*:\s*(?:torch\.)?(?:nn\.)?Module\b")


def _annotated_module_parameters_stored(init_text: str) -> frozenset:
    """The attributes an ``__init__`` stores a parameter annotated as a module under
    (``def __init__(self, env, p_net: nn.Module)``, then ``self.p_net = p_net``)."""
    found = set()
    for name in _MODULE_ANNOTATED_PARAMETER_RE.findall(init_text):
        found.update(re.findall(r"\bself\.(\w+)\s*=\s*" + re.escape(name) + r"\s*$", init_text, re.M))
    return frozenset(found)


def _stored_calls(body: str) -> list:
    """``_STORED_CALL_RE``'s (attribute, callee) pairs of a class's text, a torch layer made from given
    weights and left trainable (``nn.Embedding.from_pretrained(w, freeze=False)``) read as that layer:
    frozen, as by default, its calls record no graph."""
    found = []
    for match in _STORED_CALL_RE.finditer(body):
        attr, callee = match.group(1), match.group(2)
        if callee.endswith(".from_pretrained") and _TORCH_LAYER_RE.match(callee[: -len(".from_pretrained")]):
            depth, end = 1, match.end()
            while end < len(body) and depth:
                depth += {"(": 1, ")": -1}.get(body[end], 0)
                end += 1
            if re.search(r"\bfreeze\s*=\s*False\b", body[match.end() : end]):
                callee = callee[: -len(".from_pretrained")]
        found.append((attr, callee))
    return found


def _stored_submodules(stored_calls: list, module_classes_by_short: dict) -> frozenset:
    """The attributes a class's body (its ``_STORED_CALL_RE`` matches) stores modules under (a
    torch.nn layer or a module class of the run) and nothing else it constructs or calls."""
    modules: set = set()
    others: set = set()
    for attr, callee in stored_calls:
        last = callee.rsplit(".", 1)[-1]
        # `nn.Parameter(...)`, `nn.ParameterList(...)`: tensors, not layers
        layer = callee.startswith(("nn.", "torch.nn.")) and last[:1].isupper() and not last.startswith("Parameter")
        (modules if layer or last in module_classes_by_short else others).add(attr)
    return frozenset(modules - others)


def _training_methods(methods: dict) -> frozenset:
    """The methods of a class that backpropagate or differentiate (``torch.autograd.grad``: a
    meta-learner's inner update; see ``ClassFact.training_methods``)."""
    direct = {name: set(vocab.SELF_CALL_RE.findall(text)) for name, text in methods.items()}
    return frozenset(
        _callers_too({name for name, text in methods.items() if _DIFFERENTIATES_RE.search(text) is not None}, direct)
    )


def _differentiating_methods(methods: dict) -> frozenset:
    """The methods of a class that take ``torch.autograd.grad``, in their own body or through the
    instance's other methods (a physics-informed network's residual)."""
    direct = {name: set(vocab.SELF_CALL_RE.findall(text)) for name, text in methods.items()}
    return frozenset(
        _callers_too({name for name, text in methods.items() if vocab.AUTOGRAD_GRAD_RE.search(text)}, direct)
    )


def _callers_too(found: set, called: dict) -> set:
    """``found`` and every method that calls one of them, directly or through others
    (``called``: each method's names of the instance's methods it calls)."""
    found = set(found)
    changed = True
    while changed:
        changed = False
        for name, calls in called.items():
            if name not in found and calls & found:
                found.add(name)
                changed = True
    return found


# An attribute a plain class's body treats as a module: `self.model.parameters()`, `self.net.eval()`.
_HELD_MODULE_RE = re.compile(
    r"\bself\.(\w+)(?:\.\w+)?\.(?:parameters|named_parameters|eval|train|state_dict|load_state_dict|zero_grad)\("
)
# `self.policy = policy`, `self.policy = policy.to(device)`: a name kept as it is (moved at most)
_STORED_NAME_RE = re.compile(
    r"\bself\.(\w+)[ \t]*=[ \t]*(\w+)(?:\.(?:to|cuda|cpu|float|double)\([^()\n]*\))*[ \t]*(?:#.*)?$", re.M
)
# `policy.parameters()`: a name whose parameters the text reads is a module
_PARAMETERS_OF_RE = re.compile(r"(?<![\w.])(\w+)\.(?:parameters|named_parameters)\(")
# `self.model(x)`, `self.model.forward(x)`, `self.model.act(obs)` (a method named for running it)
_HELD_CALL_RE = re.compile(r"\bself\.(\w+)(?:\.(\w+))?\s*\(")


_PLAIN_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})
_DIFFERENTIATES_RE = re.compile(r"\bautograd\.grad\(|\.backward\(")


def _loaded_parameter(body: str) -> Optional[tuple]:
    """``loaded_parameter`` of a module-level function's text."""
    try:
        tree = ast.parse(textwrap.dedent(body))
    except (SyntaxError, ValueError):
        return None
    function = tree.body[0] if tree.body else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return loaded_parameter(function)


def loaded_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Optional[tuple]:
    """(position, name) of the parameter a function loads weights into (``model.load_state_dict(...)``
    on a parameter it does not rebind), or None."""
    positional = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    rebound = assigned_names(function.body)
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "load_state_dict"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in positional
            and node.func.value.id not in rebound
        ):
            name = node.func.value.id
            return (positional.index(name), name)
    return None


def builds_parameters(body: str) -> bool:
    """Whether a class's text may build something holding parameters of its own (``nn.Linear(``,
    ``nn.Parameter(``, a torchvision model, ``register_...``, ``add_module``)."""
    return _PARAMETER_HOLDER_RE.search(body) is not None or "register_" in body or "add_module" in body


def holds_no_parameters(body: str) -> bool:
    """``_holds_no_parameters`` of a module class's text (its ``__init__`` found in it)."""
    return _holds_no_parameters(body, _method_texts(body).get("__init__", ""))


def _holds_no_parameters(body: str, init: str) -> bool:
    """Whether a module class's text builds nothing holding parameters (no ``nn.Linear(``,
    ``nn.Parameter(``, torchvision model, ``register_...``) and its ``__init__`` keeps only
    constants and parameters given a number, flag or string (``dropout: float = 0.0``): a
    module without parameters, whose calls record no graph of their own."""
    if builds_parameters(body):
        return False
    if not init:
        return True
    lines = init.splitlines()
    while lines and not lines[0].lstrip().startswith(("def ", "async def ", "@")):
        lines.pop(0)  # the line above the `def` that `_method_texts` keeps for a decorator
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
    except (SyntaxError, ValueError):
        return False
    function = next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if function is None:
        return False
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args]
    plain = {
        name
        for name, default in parameter_defaults(function).items()
        if isinstance(vocab.constant_of(default), (int, float, bool, str))
    } | {
        arg.arg
        for arg in (*positional, *spec.kwonlyargs)
        if isinstance(arg.annotation, ast.Name) and arg.annotation.id in _PLAIN_ANNOTATIONS
    }
    for node in ast.walk(function):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            if not (
                isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
            ):
                continue
            value = node.value  # type: ignore[union-attr]
            if isinstance(value, ast.Constant) or (isinstance(value, ast.Name) and value.id in plain):
                continue
            if _image_transform(value):
                continue
            return False
    return True


def _image_transform(value: ast.AST) -> bool:
    """``transforms.Compose([...])``, ``transforms.Normalize(mean, std)``, ``T.Compose(...)``: torchvision's
    image transforms, which hold no parameters (a module wrapping one only preprocesses its input)."""
    if not isinstance(value, ast.Call):
        return False
    name = dotted_name(value.func)
    if name is None:
        return False
    parts = name.split(".")
    return "transforms" in parts[:-1] or (len(parts) > 1 and parts[-1] == "Compose")


_RETURN_RE = re.compile(r"^[ \t]*return\b[ \t]*(.*)$", re.M)
_SIZE_METHODS = frozenset({"size", "numel", "dim", "nelement"})


def _a_size(expr: ast.AST) -> bool:
    """``x.shape[-1]``, ``out.view(1, -1).size(1)``, ``int(x.numel())``: a size read from a value."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute):
        return expr.attr == "shape"
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        return expr.func.attr in _SIZE_METHODS
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "int" and len(expr.args) == 1:
        return _a_size(expr.args[0])
    return False


def _expression(text: str) -> Optional[ast.AST]:
    """The expression a line's text holds after ``return`` or ``=`` (its comment dropped), or None."""
    try:
        return ast.parse(text.split("#", 1)[0].strip(), mode="eval").body
    except SyntaxError:
        return None


def returns_only_a_shape(text: str) -> bool:
    """Whether every ``return`` of a method's text hands back a size read from a tensor
    (``self.batch_max_length = x.shape[-1]; return self.batch_max_length``, ``return
    out.view(1, -1).size(1)``): a shape probe, whose result carries no graph."""
    if "return" not in text or not any(word in text for word in ("shape", "size(", "numel(", "dim(")):
        return False
    returned = _RETURN_RE.findall(text)
    if not returned:
        return False
    for value in returned:
        expr = _expression(value)
        if expr is None:
            return False
        if _a_size(expr):
            continue
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"):
            return False
        stored = re.search(r"^[ \t]*self\." + re.escape(expr.attr) + r"[ \t]*=(?!=)[ \t]*(.+)$", text, re.M)
        if stored is None or not _a_size(_expression(stored.group(1)) or ast.Pass()):
            return False
    return True


_WHOLE_REDUCTIONS = frozenset({"mean", "sum"})
_COMPARISONS_RE = re.compile(r"[=!<>]=|[<>]|\b(?:argmax|argmin|eq|ne|gt|lt|ge|le)\s*\(|\btopk\b")


def _whole_reduction(expr: ast.AST) -> bool:
    """``torch.mean(x)``, ``x.sum()``, ``F.relu(d).mean()``: a tensor reduced to one number
    (no dimension, no keyword)."""
    if not isinstance(expr, ast.Call) or expr.keywords or not isinstance(expr.func, ast.Attribute):
        return False
    if expr.func.attr not in _WHOLE_REDUCTIONS:
        return False
    receiver = expr.func.value
    if isinstance(receiver, ast.Name) and receiver.id == "torch":
        return len(expr.args) == 1
    return not expr.args


def returns_a_scalar_reduction(text: str) -> bool:
    """Whether every ``return`` of a ``forward``'s text hands back a whole reduction of what it
    computed (``loss = torch.mean(torch.clamp(m + d_p - d_n, min=0.0)); return loss``): what a
    loss module without parameters does, whatever its class is called. Not a comparison's mean
    (an accuracy)."""
    if "return" not in text or ("mean" not in text and "sum" not in text):
        return False
    returned = _RETURN_RE.findall(text)
    if not returned:
        return False
    for value in returned:
        expr = _expression(value)
        if isinstance(expr, ast.Name):
            assigned = re.findall(r"^[ \t]*" + re.escape(expr.id) + r"[ \t]*=(?!=)[ \t]*(.+)$", text, re.M)
            if len(assigned) != 1:
                return False
            value = assigned[0]
            expr = _expression(value)
        if expr is None or not _whole_reduction(expr) or _COMPARISONS_RE.search(value) is not None:
            return False
    return True


def held_model_methods(body: str, methods: dict, quiet: frozenset) -> frozenset:
    """The methods of a plain class (no ``nn.Module``) that run a model the instance holds, as
    its text shows: an attribute the body treats as a module (``self.model.parameters()``,
    ``self.model.actor.parameters()``) called, or a method of it named for running it
    (``def predict(self, obs): return self.model(obs)``, ``self.model.act(obs)``), or another such
    method called; not
    one that turns grad off or backpropagates (``quiet``), nor a dunder method."""
    held = set(_HELD_MODULE_RE.findall(body))
    if "parameters(" in body:
        # `self.policy = policy.to(device)` beside `Adam(policy.parameters())`: a model handed in
        with_parameters = set(_PARAMETERS_OF_RE.findall(body))
        held.update(attr for attr, source in _STORED_NAME_RE.findall(body) if source in with_parameters)
    held -= set(methods)
    if not held:
        return frozenset()
    called = {
        name: {
            attr
            for attr, method in _HELD_CALL_RE.findall(text)
            if not method or method == "forward" or vocab.RUNNING_METHOD_RE.match(method)
        }
        for name, text in methods.items()
        if name not in quiet and not name.startswith("__")
    }
    return frozenset(_callers_too({name for name, calls in called.items() if calls & held}, called))


_SELF_STORE_RE = re.compile(r"\bself\.(\w+)\s*(?:=(?!=)|[-+*/]=)")


def _hand_made_members(bases: dict, bodies: dict, module_classes: set, dataset_classes: set) -> dict:
    """module -> the methods and attributes of its plain classes (no base but ``object``), for
    the modules where one such class is a hand-made autograd value (``def backward`` and
    ``self.grad``, as micrograd's ``Value``): the same test the semantic model makes of a file's
    own classes."""
    members: dict = {}
    hand_made: set = set()
    for qualified, its_bases in bases.items():
        if qualified in module_classes or qualified in dataset_classes or any(b != "object" for b in its_bases):
            continue
        module = qualified.rsplit(".", 1)[0]
        body = bodies[qualified]
        names = set(_method_texts(body)) | set(_SELF_STORE_RE.findall(body))
        members.setdefault(module, set()).update(names)
        if {"backward", "grad"} <= names:
            hand_made.add(module)
    return {module: frozenset(members[module]) for module in hand_made}


# How a file makes an instance of a class: the class called, or a class method building one.
_MADE_BY = r"(?:\.(?:from_\w+|load_from_checkpoint))?\s*\("
_INSTANCE_RE = re.compile(r"^[ \t]*(\w+)[ \t]*=[ \t]*(\w+)\(", re.M)


def _module_instances(module: str, text: str, classes: dict, imported: Optional[dict] = None) -> dict:
    """{"module.name": "module.Class"} for the names the module's own code (not a function's or
    a class's) binds to a new instance of one of its module classes, or of one it imports by
    name from another file of the run (``imported``: local name -> "module.Class"; ``from model
    import LstmNet``, then ``Lstm_Net = LstmNet(...)``), also under a top-level ``if``:
    ``model = LinearNet()`` / ``else: model = ConvNet()`` (the first class met)."""
    found: dict = {}
    if "(" not in text:
        return found
    definitions = None  # (start, end) of the module's functions and classes, made when first needed
    for match in _INSTANCE_RE.finditer(text):
        qualified = f"{module}.{match.group(2)}"
        if qualified not in classes and imported:
            qualified = imported.get(match.group(2), qualified)
        fact = classes.get(qualified)
        if fact is None or not fact.module:
            continue
        if definitions is None:
            definitions = [
                (found_at.start(), found_at.start() + len(_block(text, found_at.start())))
                for pattern in (_CLASS_RE, _DEF_RE)
                for found_at in pattern.finditer(text)
            ]
        if not any(start <= match.start() < end for start, end in definitions):
            found.setdefault(f"{module}.{match.group(1)}", qualified)
    if "torchvision" in text:
        # `mnist_resnet18 = models.resnet18()` at the top of a file importing torchvision: a
        # torchvision model (with its batch norm and dropout) that other files import and run
        for match in _TORCHVISION_INSTANCE_RE.finditer(text):
            if vocab.torchvision_model_layers(match.group(2)) is not None:
                found.setdefault(f"{module}.{match.group(1)}", f"torchvision.models.{match.group(2)}")
    return found


# A module-level name bound to a torchvision model made by its builder (`net = models.resnet18()`).
_TORCHVISION_INSTANCE_RE = re.compile(r"^(\w+)[ \t]*=[ \t]*(?:torchvision\.)?models\.(\w+)\(", re.M)


def _method_texts(body: str) -> dict:
    """name -> text of each method in a class's text, with the line above its ``def`` (a
    decorator): the lines from there up to the next line indented no deeper than the ``def``."""
    found: dict = {}
    for match in _METHOD_RE.finditer(body):
        start = body.rfind("\n", 0, max(match.start() - 1, 0)) + 1
        end = _block_end(body, _header_end(body, match.start()), len(match.group(1)))
        found.setdefault(match.group(2), body[start:end])
    return found


def _block(text: str, start: int) -> str:
    """The text of a top-level block (a class) starting at ``start``: up to the next line that
    starts at column 0 with code."""
    return text[start : _block_end(text, _header_end(text, start), 0)]


# What a header's brackets are counted by: brackets, newlines, comments, one-line strings.
_HEADER_TOKEN_RE = re.compile(r"[()\[\]{}\n#]|'[^'\n]*'|\"[^\"\n]*\"")
_HEADER_SPAN = 10_000  # characters: a header's brackets that do not close by then are not followed


def _header_end(text: str, start: int) -> int:
    """The newline that ends the ``def`` or ``class`` header starting at ``start`` (-1 at the end
    of the text): past a signature laid out one parameter per line, whose closing ``) -> T:``
    sits at the ``def``'s own indentation."""
    depth = 0
    search = _HEADER_TOKEN_RE.search
    limit = start + _HEADER_SPAN
    match = search(text, start)
    while match is not None and match.start() < limit:
        token = match.group()
        if token == "\n" and depth <= 0:
            return match.start()
        if token == "#":
            end = text.find("\n", match.start())
            if end < 0 or depth <= 0:
                return end
            match = search(text, end)
            continue
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        match = search(text, match.end())
    return text.find("\n", start)


def _block_end(text: str, header_end: int, indent: int) -> int:
    """Where the block of a header line ending at ``header_end`` (its newline, or -1 at the end
    of the text) ends: at the first later line with code indented no deeper than ``indent``."""
    size = len(text)
    if header_end < 0:
        return size
    i = header_end + 1
    while i < size:
        j = text.find("\n", i)
        j = size if j < 0 else j
        line = text[i:j]
        stripped = line.lstrip()
        if stripped and not stripped.startswith("#") and len(line) - len(stripped) <= indent:
            return i
        i = j + 1
    return size


def _torch_imports(text: str) -> dict:
    """{name: torch's qualified name} for each public name the module's top-level imports bind
    from torch (``from torch.autograd import Variable``, ``import torch.nn as nn``) or from
    torchvision, torchaudio and torchtext by name (``from torchvision.utils import save_image``):
    what ``from module import *`` binds in another file besides the module's own definitions."""
    found: dict = {}
    if "torch" not in text:
        return found
    for match in _FROM_RE.finditer(text):
        module = match.group(1)
        if match.group(0)[:1] != "f" or module.split(".")[0] not in TORCH_PACKAGES:
            continue  # indented (inside a block), or not torch's
        for name, local in _clause_names(match.group(2)):
            if name != "*" and local.isidentifier() and not local.startswith("_"):
                found[local] = f"{module}.{name}"
    for match in _IMPORT_RE.finditer(text):
        module, alias = match.group(1), match.group(2)
        if match.group(0)[:1] != "i" or not (module == "torch" or module.startswith("torch.")):
            continue
        if alias:
            found[alias] = module
        elif module == "torch":
            found["torch"] = "torch"
    return found


def _clause_names(written: str) -> Iterator[tuple[str, str]]:
    """(name, local name) for each item of an import's list as written (``a, b as c``:
    ``("a", "a")``, ``("b", "c")``)."""
    for item in written.split(","):
        parts = item.split()
        if parts:
            yield parts[0], (parts[2] if len(parts) == 3 and parts[1] == "as" else parts[0])


def _from_clauses(text: str) -> Iterator[tuple[str, int, str]]:
    """(the module as written without its leading dots, their number, what is imported, as
    written) for each ``from ... import ...`` of a file."""
    for match in _FROM_RE.finditer(text):
        module = match.group(1)
        stripped = module.lstrip(".")
        yield stripped, len(module) - len(stripped), match.group(2)


def _star_import_sources(text: str) -> Iterator[tuple[str, int]]:
    """(module as written without leading dots, level) of each ``from ... import *``."""
    for module, level, names in _from_clauses(text):
        if names.strip() == "*":
            yield module, level


def _from_imports(index: ProjectIndex, path: str, text: str) -> Iterator[tuple[str, str]]:
    """(the module, resolved, and what is imported from it, as written) for each
    ``from ... import ...`` of a file (``from .model import Net, evaluate``)."""
    for module, level, names in _from_clauses(text):
        yield index.resolve(path, module, level), names


def _imported_by_name(index: ProjectIndex, path: str, text: str, known) -> Iterator[tuple[str, str]]:
    """(local name, "module.name") for the names in ``known`` that a file imports with
    ``from module import name [as local]``, also through a package's ``__init__.py``."""
    for target_module, names in _from_imports(index, path, text):
        for name, local in _clause_names(names):
            qualified = f"{target_module}.{name}"
            if qualified in known:
                yield local, qualified
            elif index.reexports.get(qualified) in known:
                yield local, index.reexports[qualified]  # `from pkg import DDIM` of `pkg/__init__.py`'s


def _imported_functions(index: ProjectIndex, path: str, text: str):
    """(local name, "module.function") for the project functions a file imports."""
    yield from _imported_by_name(index, path, text, index.functions)
    for match in _IMPORT_RE.finditer(text):
        module, alias = match.group(1), match.group(2)
        key = index.resolve(path, module)
        for function in index.functions:
            if function.startswith(key + ".") and "." not in function[len(key) + 1 :]:
                yield f"{alias or module}.{function[len(key) + 1 :]}", function


def _imported_classes(index: ProjectIndex, path: str, text: str, by_module: dict) -> Iterator[tuple[str, str]]:
    """(spelling, "module.Class") for the run's classes a file imports: ``from module import
    Class [as local]``, or the module itself (``import lm``, then ``lm.LM(...)``; ``by_module``:
    module -> the names of its classes)."""
    yield from _imported_by_name(index, path, text, index.classes)
    for match in _IMPORT_RE.finditer(text):
        module, alias = match.group(1), match.group(2)
        key = index.resolve(path, module)
        for name in by_module.get(key, ()):
            yield f"{alias or module}.{name}", f"{key}.{name}"


def _call_lines(text: str, local: str) -> Iterator[int]:
    """0-based line numbers where ``local(`` is called (not defined, not an attribute of something else)."""
    pattern = re.compile(r"(?<![\w.])" + re.escape(local) + r"[ \t]*\(")
    for match in pattern.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start : match.start()].lstrip().startswith(("def ", "async def ")):
            continue
        yield text.count("\n", 0, match.start())


def _grad_off_at(text: str, line_number: int) -> bool:
    """Whether the call on that line runs with grad off, judged by indentation (the text is not
    parsed): in a ``with torch.no_grad()``/``inference_mode()`` block or a function decorated
    so, or in a function whose every call in the same text runs with grad off in turn
    (``def sample(self): ... self.wavenet.sample(...)``, called only under ``with torch.no_grad():``)."""
    return _grad_off_lines(text).at(line_number)


@functools.lru_cache(maxsize=4)
def _grad_off_lines(text: str) -> "_GradOffLines":
    return _GradOffLines(text)


class _GradOffLines:
    """``_grad_off_at`` over one text, split into lines once, with what each function's callers say kept."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self._newlines: Optional[list] = None
        self._functions: dict = {}  # def line -> whether every call of the function runs with grad off

    def at(self, line_number: int, depth: int = 2) -> bool:
        off, function = _grad_off_in_lines(self.lines, line_number)
        if off or function is None or depth == 0:
            return off
        found = self._functions.get(function)
        if found is None:
            self._functions[function] = False  # (a call of itself, through others, says nothing)
            found = self._functions[function] = self._called_without_grad(function, depth)
        return found

    def _called_without_grad(self, function: int, depth: int) -> bool:
        """Whether the text calls the function defined on line ``function`` and every call
        outside its own body runs with grad off: a method by any receiver (``self.sample(...)``,
        ``trainer.sample(...)``), a module-level function by its name; not a nested function."""
        header = self.lines[function]
        indent = len(header) - len(header.lstrip())
        match = re.match(r"\s*(?:async\s+)?def\s+(\w+)", header)
        if match is None:
            return False
        name = match.group(1)
        if indent:
            owner = next(
                (
                    line
                    for line in reversed(self.lines[:function])
                    if line.strip() and len(line) - len(line.lstrip()) < indent
                ),
                "",
            )
            if not owner.lstrip().startswith("class "):
                return False  # a nested function: called as it is handed around
            pattern = re.compile(r"\.\s*" + re.escape(name) + r"[ \t]*\(")
        else:
            pattern = re.compile(r"(?<![\w.])" + re.escape(name) + r"[ \t]*\(")
        end = function + 1
        while end < len(self.lines) and (
            not self.lines[end].strip() or len(self.lines[end]) - len(self.lines[end].lstrip()) > indent
        ):
            end += 1
        if self._newlines is None:
            self._newlines = [newline.start() for newline in _NEWLINE_RE.finditer(self.text)]
        calls = []
        for call in pattern.finditer(self.text):
            line = bisect.bisect_left(self._newlines, call.start())
            if function <= line < end or self.lines[line].lstrip().startswith(("def ", "async def ")):
                continue
            calls.append(line)
        return bool(calls) and all(self.at(line, depth - 1) for line in calls)


def _grad_off_in_lines(lines: list, line_number: int) -> tuple:
    """(whether the line sits in a grad-disabling block or a function decorated so, the line of
    the ``def`` holding it where it sits in a function without such a decorator)."""
    line = lines[line_number]
    threshold = len(line) - len(line.lstrip())
    for i in range(line_number - 1, -1, -1):
        previous = lines[i]
        stripped = previous.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(previous) - len(stripped)
        if indent >= threshold:
            continue
        threshold = indent
        if stripped.startswith(("with ", "async with ")) and _GRAD_OFF_RE.search(stripped):
            return True, None
        if stripped.startswith(("def ", "async def ", "class ")):
            j = i - 1
            while j >= 0 and lines[j].lstrip().startswith("@"):
                if _GRAD_OFF_RE.search(lines[j]):
                    return True, None
                j -= 1
            return False, (i if not stripped.startswith("class ") else None)
        if indent == 0:
            return False, None
    return False, None


# A torch layer's constructor as module classes spell it (`nn.Sequential`, `torch.nn.Conv2d`).
_TORCH_LAYER_RE = re.compile(r"(?:torch\.)?nn\.[A-Z]\w*$")
_INIT_LOADS_RE = re.compile(
    # (not word vectors put into one layer, `nn.Embedding.from_pretrained(vectors)`: the model's
    # other layers are still untrained)
    r"load_state_dict\(|torch\.load\(|(?<!Embedding)(?<!EmbeddingBag)\.from_pretrained\(|\bpretrained\s*=\s*True\b"
    # (not a choice the line makes, `weights = "DEFAULT" if pretrained else None`: not shown)
    r"|\bweights\s*=\s*(?:[\"']|(?:\w+\.)*\w+_Weights\b)(?![^\n]*\bif\b)"
)


_HEADER_RE = re.compile(r"def[ \t]+\w+[ \t]*\(([^)]*)\)")
_SELF_ACCUMULATES_RE = re.compile(r"\bself\.(\w+)(?:\s*\+=|\s*=\s*self\.(\w+)\s*\+|\.append\()([^\n]*)")
_SELF_SET_RE = re.compile(r"\bself\.(\w+)\s*=\s*(\w+)\s*$", re.M)
_DROPS_GRAPH_RE = re.compile(r"\.(?:item|detach|tolist)\(|\.data\b|\b(?:float|int)\(")
# What is added is the result of a call of a plain name, not torch's (`correct(preds, labels)` of a
# helper returning `.item()`): the parameter is handed on, not added.
_HANDED_TO_A_FUNCTION_RE = re.compile(r"^\s*(?!torch\b|sum\b|abs\b|max\b|min\b)[A-Za-z_]\w*\([^()]*\)\s*(?:#.*)?$")


def accumulated_parameters(method_text: str) -> tuple:
    """Positions (after ``self``) of the parameters a method adds to what the instance keeps
    across calls: ``def update(self, val, n=1): self.sum += val * n`` (0), also through an
    attribute set from the parameter (``self.val = val; self.sum += self.val * n``) or appended
    (``self.history.append(val)``). A line that takes a number out of it (``val.item()``,
    ``float(val)``), or a parameter first rebound to such a number (``val = val.item()``), keeps
    no graph, and one that adds what the argument holds (``self.loss += stat.loss``, a
    statistics object) is no accumulation of the argument itself. A meter handed a loss tensor
    keeps every step's graph alive."""
    header = _HEADER_RE.search(method_text)
    if header is None:
        return ()
    params = [part.split(":")[0].split("=")[0].strip() for part in header.group(1).split(",")]
    if not params or params[0] != "self":
        return ()
    body = method_text[header.end() :]
    set_from = {attr: name for attr, name in _SELF_SET_RE.findall(body)}
    found = []
    for position, name in enumerate(params[1:]):
        if not name.isidentifier():
            break  # `*args`, `**kwargs`, `/`, `*`
        if any(
            _DROPS_GRAPH_RE.search(value)
            for value in re.findall(rf"^[ \t]*{re.escape(name)}[ \t]*=(?!=)([^\n]*)$", body, re.M)
        ):
            continue  # `value = value.item()` first: what it adds is a number
        names = [name, *(f"self.{attr}" for attr, source in set_from.items() if source == name)]
        for match in _SELF_ACCUMULATES_RE.finditer(body):
            attr, added_to, added = match.group(1), match.group(2), match.group(3)
            if added_to is not None and added_to != attr:
                continue  # `self.avg = self.sum + ...` is no accumulation of `avg`
            if _HANDED_TO_A_FUNCTION_RE.match(added) is not None:
                continue  # `self.num_correct += correct(preds, labels)`: what a function of the run returns
            if _DROPS_GRAPH_RE.search(added) is None and any(
                re.search(rf"(?<![\w.]){re.escape(n)}\b(?!\s*[.\[(])", added) for n in names
            ):
                found.append(position)
                break
    return tuple(found)


# In a class's `__init__`, at the level of its body: a loop freezing the parameters of the
# instance or of one of its attributes (`for p in self.features.parameters():` then
# `p.requires_grad = False`), or `self.features.requires_grad_(False)`.
_SELF_FREEZE_LOOP_RE = re.compile(
    r"^(?P<indent>[ \t]+)for (?P<var>\w+) in self(?:\.(?P<attr>\w+))?\.parameters\(\)\s*:[ \t]*"
    r"(?:\n(?P=indent)[ \t]+)?(?P=var)\.requires_grad(?:\s*=\s*False|_\(\s*False\s*\))",
    re.M,
)
_SELF_FREEZE_CALL_RE = re.compile(r"^(?P<indent>[ \t]+)self(?:\.(?P<attr>\w+))?\.requires_grad_\(\s*False\s*\)", re.M)
_SELF_ATTRIBUTE_RE = re.compile(r"\bself\.(\w+)\b(\s*\()?")
_SELF_STORE_LINE_RE = re.compile(r"^[ \t]+self\.(\w+)\s*(?::[^=\n]*)?=(?!=)\s*(.*)$", re.M)
_LITERAL_RE = re.compile(r"^(?:-?[\d.]+(?:e-?\d+)?|True|False|None|'[^']*'|\"[^\"]*\"|\[\]|\{\}|\(\))\s*(?:#.*)?$")


def class_freezes_itself(body: str) -> bool:
    """``_freezes_itself`` of a class's text."""
    return _freezes_itself(_method_texts(body))


def _freezes_itself(methods: dict) -> bool:
    """Whether a module class's ``__init__`` (``methods``: name -> text, ``_method_texts``)
    freezes, in its own body (not under an ``if``), the parameters of the whole instance with
    no part added after, or of every attribute its other methods read that is not a literal
    (``self.final_model`` of a VGG feature extractor): a call of an instance on an input
    without grad records no graph."""
    init = methods.get("__init__", "")
    if "requires_grad" not in init:
        return False
    lines = init.split("\n")
    body = next(
        (line for line in lines[1:] if line.strip() and not line.lstrip().startswith(("def ", "#", "@", ")"))), ""
    )
    indent = body[: len(body) - len(body.lstrip())]
    frozen: set = set()
    whole_at = -1
    for match in (*_SELF_FREEZE_LOOP_RE.finditer(init), *_SELF_FREEZE_CALL_RE.finditer(init)):
        if match.group("indent") != indent:
            continue  # under an `if`, or in a loop: not every instance, or not every part
        if match.group("attr") is None:
            whole_at = max(whole_at, match.end())
        else:
            frozen.add(match.group("attr"))
    if whole_at >= 0:
        # a part stored after the freeze (`self.fc = nn.Linear(...)`) trains
        return not any(not _LITERAL_RE.match(m.group(2).strip()) for m in _SELF_STORE_LINE_RE.finditer(init, whole_at))
    if not frozen or "forward" not in methods:
        return False  # nothing frozen, or a `forward` of a base class running parts the text does not show
    stored: dict = {}
    for match in _SELF_STORE_LINE_RE.finditer(init):
        stored.setdefault(match.group(1), []).append(match.group(2).strip())
    for name, text in methods.items():
        if name == "__init__":
            continue
        for match in _SELF_ATTRIBUTE_RE.finditer(text):
            attr = match.group(1)
            if attr in frozen or (match.group(2) and attr in methods):
                continue  # a frozen part, or a method of the class (its own reads are checked too)
            if not stored.get(attr) or not all(_LITERAL_RE.match(value) for value in stored[attr]):
                return False  # a part that may hold parameters, or what the text does not show
    return True


def init_switches_to_eval(init: Optional[ast.AST]) -> bool:
    """Whether a module class's ``__init__`` ends in eval mode: a statement of its own body runs
    ``self.eval()`` (or ``self.train(False)``) and none after it ``self.train()`` (an ensemble of
    loaded members: ``self.a = load_member(path); self.eval()``)."""
    if not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    mode = None
    for stmt in init.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "self"
        ):
            continue
        if call.func.attr == "eval" and not call.args:
            mode = False
        elif call.func.attr == "train":
            flag = call.args[0] if call.args else None
            mode = False if isinstance(flag, ast.Constant) and flag.value is False else True
    return mode is False


def _init_text_switches_to_eval(init_text: str) -> bool:
    """``init_switches_to_eval`` of an ``__init__``'s text (parsed only where it calls ``self.eval()``)."""
    if "self.eval()" not in init_text and "self.train(False)" not in init_text:
        return False
    tree = _expression_module(init_text)
    init = (
        next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "__init__"), None)
        if tree is not None
        else None
    )
    return init_switches_to_eval(init)


def _expression_module(text: str) -> Optional[ast.Module]:
    try:
        return ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None


def loads_weights(init_text: str) -> bool:
    """Whether a class's ``__init__`` (its text) loads weights into the instance:
    ``self.load_state_dict(torch.load(path))``, ``models.vgg19(pretrained=True)``,
    ``resnet50(weights=ResNet50_Weights.DEFAULT)``; not ``pretrained=pretrained``, nor
    ``weights = "DEFAULT" if pretrained else None``, whose value the text does not show."""
    return _INIT_LOADS_RE.search(init_text) is not None
