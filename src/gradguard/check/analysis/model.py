"""The semantic model of one file: what each name holds, where, and under which grad mode.

Built once per file and asked by every rule (``ctx.model``). It is lazy: a scope is analysed
the first time a rule asks about a node in it, and most functions of a file never are.

How facts are found, deterministically, whatever the order of the questions:

1. The module body is interpreted twice. The first pass treats calls of the file's own
   functions as unknown; its final state is what functions see of the module's globals.
2. Every function has a *summary flow*: its body interpreted with its parameters known
   only from annotations, defaults and names. It gives what the function returns, and the
   argument values and grad mode at each call it makes.
3. The second module pass, and every *query flow* (what rules see), use the summaries of
   the functions they call; a function's query flow also knows its parameters from its
   callers in the file, when every use of the function is a call: the join of the argument
   values at the call sites, and the grad mode in force at all of them, each caller run as
   its own callers run it (a method's callers: ``self.name(...)`` and calls on instances of
   its class in a script's code).

Where paths join, a value is what both paths make it; a tensor on one path and None on the
other is the tensor (the code uses it as one), a number and a 0-dim tensor a 0-dim tensor.

Evidence from the code comes first (constructors, ``nn.Module`` subclasses, torch calls,
``.parameters()``, annotations, what project functions return, attributes only tensors
have); names are the last resort and give ``weak`` values.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

from gradguard.check.analysis import vocabulary as vocab
from gradguard.check.analysis.flow import GradMode, ScopeFlow, State, join_modes, region_mode
from gradguard.check.analysis.grad_mode import RegionKind, classify_grad_mode
from gradguard.check.analysis.imports import (
    ImportMap,
    assigned_names,
    callee_name,
    dotted_name,
    held_name,
    is_main_guard,
    iter_statements,
)
from gradguard.check.analysis.project import (
    ProjectIndex,
    accumulated_parameters,
    class_freezes_itself,
    holds_no_parameters,
    init_switches_to_eval,
    layers_built_for,
    loads_weights,
    returns_only_a_shape,
    sampled_outputs,
    top_function,
)
from gradguard.check.analysis.read_only import Rebindings, statement_blocks
from gradguard.check.analysis.scopes import (
    FUNCTION_TYPES,
    Location,
    Scope,
    ScopeIndex,
    children,
    comprehension_nodes,
    locate,
    own_nodes,
    parameter_defaults,
    parameters,
    target_names,
    walk,
    walk_in_order,
)
from gradguard.check.analysis.values import (
    NONE_VALUE,
    NUMBER,
    OPTIMIZER,
    OTHER,
    RUN_FUNCTION,
    UNKNOWN,
    Grad,
    Kind,
    Role,
    Split,
    Value,
    container,
    dataset,
    join,
    join_all,
    loader,
    module,
    tensor,
)
from gradguard.common.text import occurrences

# Names that say what a value is: weak evidence, used when nothing else is known.
# A verb that makes, loads or hands over a model names a function, not a model
# (`self.prepare_for_model(ids)` of a tokenizer, `build_model(cfg)`).
_MODEL_MAKING_VERB = r"(?:get|build|create|make|load|save|init|initialize|prepare|setup|set|export|register|convert)_"
MODEL_NAME_RE = re.compile(
    r"^(?:(?:model|net|network|encoder|decoder|backbone|generator|discriminator|classifier|teacher|"
    r"student|ema_model|netG|netD|unet|vae|rnn|lstm|gru|cnn|mlp|dqn|ddqn|qnet|[a-z_]*_network|(?!"
    + _MODEL_MAKING_VERB
    + r")[a-z_]*_model|[a-z_]*_net)\d*"
    r"|G|D|model_[a-z0-9_]*)$"
)
LOADER_NAME_RE = re.compile(
    # (after a data set's name: `mnist_testloader`, `cifar10_train_loader`)
    r"^(?:(?:[a-z0-9]+_)*(?P<pre>val|valid|validation|test|testing|eval|evaluation|dev|train|training|trn)_?(?:data_?|set_?)?"
    r"(?:loader|dataloader|dl|iter|iterator|gen|generator|batches)s?"
    r"|(?:data_?)?loader_?(?P<post>val|valid|validation|test|eval|train)|(?:data)?loaders?|dataloaders?)$",
    re.I,
)
# ``optimizer``, ``opt``, ``optD``, ``opt_G``, ``D_optimizer``, ``gen_optim`` (not ``options``).
OPTIMIZER_NAME_RE = re.compile(r"^(?:\w+_)?(?:opt|optim|optimizer|optimiser)(?:_\w+|[A-Z0-9]\w*)?$")
# A parameter named for a model's parameters (`def get_norm(parameters)`, `params`), as
# `clip_grad_norm_` takes them: weak evidence that its items are parameters.
PARAMETERS_NAME_RE = re.compile(r"^(?:model_|net_)?(?:parameters|params)$")
LOSS_NAME_RE = re.compile(r"(^|_)(loss|criterion|crit|loss_fn|lossfn)($|_)|^criterion|loss$", re.I)
_LOSS_NAME_EXCLUDE = ("get_", "log", "print", "plot", "save", "update", "record", "add", "is_", "reset", "set_")


def _constructs(value: Optional[ast.AST], class_name: str) -> bool:
    """Whether a bound value is a new instance of the class ``class_name`` of the file, made
    there and perhaps moved or switched (``Net(n_in, n_out).to(device)``: the module itself)."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in vocab.MODULE_RETURNING_METHODS
    ):
        value = value.func.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == class_name


def _handed_through(value: Optional[ast.AST], name: str) -> bool:
    """Whether a bound value is a call handed ``name`` itself (``self.load_ckp(path, net, opt)``
    rebinding ``net``): the instance passed through a helper, as scripts reload a checkpoint."""
    return isinstance(value, ast.Call) and any(isinstance(arg, ast.Name) and arg.id == name for arg in value.args)


def _callers_mode(sites: Optional[list], external: list) -> Optional[GradMode]:
    """The grad mode a function runs in from its call sites in the file and in the run's other
    files (``external``: whether each turns grad off); None without any. One caller with grad
    on is enough for the body to run with grad on: the rules report what happens then."""
    modes = [site.state.mode for site in sites or ()]
    modes += [GradMode.DISABLED if grad_off else GradMode.ENABLED for grad_off in external]
    mode = None
    for site_mode in modes:
        mode = site_mode if mode is None else join_modes(mode, site_mode)
    return GradMode.ENABLED if GradMode.ENABLED in modes else mode


def _copied_tensor(node: ast.AST) -> bool:
    """``x.clone()``, ``x.detach()``, ``x.detach().clone()``: a copy only a tensor makes."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("clone", "detach")
        and not node.args
        and not node.keywords
    )


def _called_as_torch_does(method: str, node: ast.Call) -> bool:
    """Whether a call of one of ``vocab.TENSOR_RESULT_METHODS`` (or ``topk``) has the arguments
    torch's takes: none for ``contiguous()``/``detach()``, dimensions by number for ``permute(0, 2,
    1)`` (an inductor ``kernel.permute(node, [0, 2, 1])`` is another method), a dimension by number
    and indices for ``index_select(0, idx)``, a count and a dimension for ``topk(k, dim=1)``."""
    if method == "topk":
        # `topk(k)`, `topk(5, dim=1)`, `topk(k, 1, largest=True)`
        return 1 <= len(node.args) <= 2 and all(k.arg in ("k", "dim", "largest", "sorted") for k in node.keywords)
    if node.keywords:
        return False
    if method in ("contiguous", "detach"):
        return not node.args
    if method in ("permute", "unsqueeze", "expand", "narrow"):
        return bool(node.args) and all(type(vocab.constant_of(a, None)) is int for a in node.args)
    if method == "index_select":
        # `step.index_select(0, idx)`: a dimension by number, then the indices
        return len(node.args) == 2 and type(vocab.constant_of(node.args[0], None)) is int
    return False


def _own_weight(value: Value) -> bool:
    """A tensor an instance makes requiring grad (``torch.zeros(n, requires_grad=True)``), or a
    parameter it registers: a weight of a model written by hand."""
    return value.kind is Kind.TENSOR and value.grad is Grad.YES and bool(value.roles & (Role.LEAF | Role.PARAM))


def parameterless_layer(value: Value) -> bool:
    """A torch layer without parameters (an activation, pooling, dropout)."""
    ref = value.ref or ""
    return value.kind is Kind.MODULE and (
        (ref.startswith("torch.nn.") and vocab.last_name(ref) in vocab.PARAMETERLESS_MODULES)
        or ref.startswith(vocab.SIGNAL_TRANSFORMS)  # spectrograms and such: buffers, no parameters
        or value.has(Role.LOSS)  # a loss module on every path (`criterion` set to one of several)
    )


def names_a_loss(name: str) -> bool:
    """Whether a variable's name says it holds a loss (``val_loss``, ``loss``, ``d_loss_real``):
    weak evidence, for a value the code already shows to be a tensor."""
    return bool(LOSS_NAME_RE.search(name))


# A switch between training and evaluation (`net.eval()`, `net.train(False)`), after its receiver.
_MODE_SWITCH_RE = re.compile(r"\.(?:eval|train)\(")


def _numpy_converted(node: ast.AST) -> bool:
    """Whether an argument is written as a conversion to numpy (``x.detach().cpu().numpy()``)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "numpy"
        and not node.args
        and not node.keywords
    )


def _names_loss_function(name: str) -> bool:
    """Whether a call of something unknown named ``name`` computes a loss (``criterion(out, y)``,
    ``compute_loss(...)``). A class's name (``MultiBoxLoss()``, ``FocalLoss(gamma=2)``) makes a
    criterion to call later, not a loss."""
    if name[:1].isupper() and not name.isupper():
        return False
    return bool(LOSS_NAME_RE.search(name)) and not name.lower().startswith(_LOSS_NAME_EXCLUDE)


_ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "zip", "track", "islice", "trange", "progress_bar", "tnrange"})
_TENSOR_ANNOTATIONS = frozenset(
    {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.autograd.Variable", "torch.nn.Parameter"}
)
# Builtin classes an `isinstance` test may narrow a name to (none of them a tensor).
_BUILTIN_CLASSES = frozenset({"dict", "list", "tuple", "set", "frozenset", "str", "bytes", "int", "float", "bool"})
# Attributes and methods that only tensors have: a name used with one holds a tensor.
_TENSOR_EVIDENCE_ATTRIBUTES = frozenset({"grad", "grad_fn", "is_leaf", "requires_grad"})
# Fields a PackedSequence has and a tensor has not: `x.data, x.batch_sizes` reads its fields.
_PACKED_FIELDS = frozenset({"batch_sizes", "sorted_indices", "unsorted_indices"})
# `x.size(0)`, `x.size(dim=1)`, `x.size()[0]`: the size of one dimension, as only a tensor gives
# it (an array's `size` is a number, a replay buffer's `size()` returns one).
_SIZE_OF_A_DIMENSION_RE = re.compile(r"\(\s*(?:-?\d+|dim\s*=[^)]*)\s*\)|\(\s*\)\s*\[")
_TENSOR_EVIDENCE_METHODS = (vocab.INPLACE_VALUE_METHODS - {"apply_", "map_"}) | {
    "detach",
    "detach_",
    "backward",
    "register_hook",
    "retain_grad",
    "numpy",
}


# Fields of torchvision-style data sets that hold the whole split as a tensor.
_DATASET_TENSOR_FIELDS = frozenset(
    {"data", "targets", "test_data", "test_labels", "train_data", "train_labels", "tensors", "x", "y"}
)
# torchvision data sets whose ``data``/``targets`` are tensors; the others hold arrays and lists
# (``CIFAR10().targets`` is a list, ``SVHN().data`` an array).
_TENSOR_FIELD_DATASETS = frozenset({"MNIST", "FashionMNIST", "KMNIST", "EMNIST", "QMNIST"})
_IMPORTED = Value(Kind.OTHER, Grad.NO, ref="<import>")
# `requires_grad` said of something, other than to turn it off (`Variable(t, requires_grad=False)`).
_REQUIRES_GRAD_RE = re.compile(r"requires_grad(?!\s*=\s*False\b)")
# Frames that do not use other functions' summaries: the first module pass (the base of
# every summary) and the summaries themselves (one level of calls is followed, no chains).
# Such a frame notes when it met a call whose summary it did not use (``skipped_summaries``),
# so it evaluates every call; the others skip values nothing keeps (``discard``).
_NO_SUMMARIES = frozenset({"module-first", "summary"})
# A hook registered by name: `layer.register_forward_hook(hook_fn)`, `...(self.save_gradient)`
# (a `with_kwargs=True` registration is left out in `_hooks`).
_HOOK_REGISTRATION_RE = re.compile(r"\.(register_\w*hook)\(\s*(self\.)?(\w+)\s*([,)(])")
# What autograd calls a hook with, by the method that registers it (positional parameters).
_HOOK_TENSORS = container(tensor(Grad.MAYBE))
_HOOK_ARGUMENTS = {
    "register_forward_hook": (module(), _HOOK_TENSORS, tensor(Grad.MAYBE, Role.OUTPUT)),
    "register_forward_pre_hook": (module(), _HOOK_TENSORS),
    "register_full_backward_hook": (module(), _HOOK_TENSORS, _HOOK_TENSORS),
    "register_backward_hook": (module(), _HOOK_TENSORS, _HOOK_TENSORS),
    "register_full_backward_pre_hook": (module(), _HOOK_TENSORS),
    "register_hook": (tensor(Grad.MAYBE),),
}
PACKED = Value(Kind.OTHER, Grad.NO, ref="torch.nn.utils.rnn.PackedSequence")
# How code spells the ways to turn grad off (``no_grad``, ``inference_mode``, ``set_grad_enabled``).
_GRAD_OFF_WORDS = frozenset(vocab.last_name(name) for name in vocab.GRAD_OFF_NAMES)
# Classes whose instances are tensors (an ``isinstance`` test on one narrows a name).
_TENSOR_CLASSES = frozenset(
    {
        "torch.Tensor",
        "torch.autograd.Variable",
        "torch.autograd.variable.Variable",
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
    }
)
_NAMED_OPTIMIZER = Value(Kind.OPTIMIZER, weak=True)
_EVIDENT_TENSOR = tensor(Grad.MAYBE)
_MODULE_MODES = Role.TRAINING | Role.EVALUATING  # a module's train/eval mode, as switched
_FORWARD_INPUT = tensor(Grad.MAYBE, weak=True)
# The most statements (assignments to names, then a return) a function is inlined with at a call.
_INLINED_STATEMENTS = 6
# ... and where its summary's graph came from the arguments: a longer straight-line body
_REFINED_STATEMENTS = 12
# A custom Function's context, and the tensors it hands over: `ctx.saved_tensors`, the
# gradients `backward` is given.
_FUNCTION_CTX = Value(Kind.OTHER, Grad.NO, ref="torch.autograd.function.FunctionCtx")
_FUNCTION_TENSOR = tensor(Grad.MAYBE)
_EVIDENT_MODULE = module()
_EVIDENT_LOSS = tensor(Grad.YES, Role.LOSS)
# `.sum()` / `.mean()` right before: `loss.sum().backward()`, `(loss.mean()).backward()`.
_REDUCED_BACKWARD_RE = re.compile(r"\s*\(\s*\)\s*\)?\s*\.backward\(")
# ``loss.backward()`` with no gradient argument: autograd accepts only one-element outputs
# there, and such a loss is 0-dim unless it was shaped otherwise (weak: it is not seen).
_EVIDENT_SCALAR_LOSS = tensor(Grad.YES, Role.LOSS | Role.SCALAR, weak=True)


# Methods only modules have (among the names user code calls on values).
# A call of something the instance holds, or of a part of it: `self.model(x)`, `self.model.encoder(x)`.
_SELF_PART_CALL_RE = re.compile(r"\bself\.(\w+)((?:\.\w+)*)\s*\(")
_SELF_MODULE_CALL_RE = re.compile(r"\bself\.(\w+)(?:\.forward)?\s*\(")
# `self.<attr>` read in a method's text (its first group the attribute).
_SELF_ATTRIBUTE_RE = re.compile(r"\bself\.(\w+)\b(?!\s*=[^=])")
# A module's call of itself, `self(x)` (a `self.forward(x)` is a model call of the method that makes it,
# judged there); not `vocab.SELF_CALL_RE`, a call of one of the instance's methods.
_ITSELF_CALLED_RE = re.compile(r"(?<![\w.])self\(")
# Methods that give a tensor a shape of their own: of a 0-dim tensor, `x.flatten()`, `x.ravel()`
# and `x.view(-1)` have shape (1,) (measured on torch 2.13), no longer 0-dim.
_SHAPING_METHODS = frozenset({"view", "reshape", "unsqueeze", "expand", "repeat", "flatten", "ravel", "unflatten"})
# A backward pass or a differentiation in a function's text.
_DIFFERENTIATES_RE = re.compile(r"\.backward\(|autograd\.grad\(")
# Module classes whose instances are indexed for their layers.
_INDEXED_MODULES = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList"})
_MODULE_EVIDENCE_METHODS = frozenset(
    {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children", "eval"}
)


def split_of_text(text: str) -> Optional[Split]:
    """``val_loader``, ``"data/test"``, ``testset`` -> EVAL; ``train_data`` -> TRAIN; else None."""
    lowered = text.lower()
    words = re.split(r"[^a-z]+", lowered)
    for word in words:
        if not word:
            continue
        for eval_word in vocab.EVAL_SPLIT_WORDS:
            if word == eval_word or (word.startswith(eval_word) and word[len(eval_word) :] in _SPLIT_SUFFIXES):
                return Split.EVAL
        for train_word in vocab.TRAIN_SPLIT_WORDS:
            if word == train_word or (word.startswith(train_word) and word[len(train_word) :] in _SPLIT_SUFFIXES):
                return Split.TRAIN
    return None


_SPLIT_SUFFIXES = frozenset(
    {"", "set", "sets", "data", "dataset", "loader", "loaders", "dl", "ds", "iter", "split", "img", "imgs", "x", "y"}
)


@dataclass
class FunctionSummary:
    """What a function of the file does, seen from its callers."""

    returns: Value = UNKNOWN
    calls_backward: bool = False
    steps_optimizer: bool = False
    zeroes_grad: bool = False
    switches_to_eval: bool = False
    generator: bool = False

    @property
    def trains(self) -> bool:
        """A training step: it backpropagates or steps an optimizer."""
        return self.calls_backward or self.steps_optimizer


@dataclass
class Binding:
    """One place where a scope binds a name: ``node`` is the statement (or ``for`` loop,
    ``with`` item, comprehension) and ``value`` the expression bound (None when unknown:
    parameters, ``with ... as``, imports)."""

    name: str
    node: ast.AST
    value: Optional[ast.AST]


@dataclass
class ScopeUses:
    """How a scope's own code uses its names (one walk, shared by the rules)."""

    bindings: list = field(default_factory=list)  # Binding, in source order
    parameters: frozenset = frozenset()
    backpropagated: set = field(default_factory=set)  # names whose values reach backward()/autograd.grad
    escaping: set = field(default_factory=set)  # names returned, yielded or stored in an attribute/item
    receivers: set = field(default_factory=set)  # names used with an attribute, an index or a torch call
    calls_eval: bool = False  # some ``x.eval()`` call
    calls: list = field(default_factory=list)  # every Call node
    # (bound name, the names its value reads) per binding with a value, made on first use
    _read_by_binding: Optional[list] = field(default=None, repr=False, compare=False)

    def bindings_of(self, name: str) -> list:
        return [b for b in self.bindings if b.name == name]

    def derived(self, name: str) -> set:
        """``name`` and every name the scope computes from it, directly or through others."""
        pairs = self._read_by_binding
        if pairs is None:
            pairs = self._read_by_binding = [
                (binding.name, frozenset(_names(binding.value)))
                for binding in self.bindings
                if binding.value is not None
            ]
        found = {name}
        changed = True
        while changed:
            changed = False
            for bound, read in pairs:
                if bound not in found and not read.isdisjoint(found):
                    found.add(bound)
                    changed = True
        return found


# What `torch.load(path)` gives: a state dict, a tensor or a whole pickled model, not known until
# the code uses it (called, it is the model: `net = torch.load("net.pt").cuda()`, then `net(x)`).
_LOADED = Value(Kind.UNKNOWN, ref="torch.load")
# torch.hub entry points that hand back no model: a tokenizer, pre- and post-processing
# helpers (`nvidia_ssd_processing_utils`), a model with its helpers (`silero_vad` -> (model, utils)
# is unpacked, which a module is not).
_HUB_HELPER_ENTRY_RE = re.compile(r"token|util|process|transform|vocab|config|silero|feature_extractor", re.I)
# A `torch.distributions` object's methods that compute from the tensors it was built from.
_DISTRIBUTION_GRAPH_METHODS = frozenset({"log_prob", "entropy", "rsample", "cdf", "icdf", "perplexity"})

# A member named `backward` / `grad` of a class (a method, or an attribute set on `self`) shows
# in its text as one of these; the walk in `_hand_made_members` is exact, these only skip it.
_BACKWARD_MEMBER_RE = re.compile(r"def\s+backward\b|self\.backward\b")
_GRAD_MEMBER_RE = re.compile(r"def\s+grad\b|self\.grad\b")


@dataclass
class ClassInfo:
    node: ast.ClassDef
    key: str
    bases: tuple = ()  # qualified names (torch.nn.Module) or keys of the file's classes
    is_module: bool = False
    is_autograd_function: bool = False
    is_dataset: bool = False
    layers: set = field(default_factory=set)  # torch.nn class names constructed in the class
    layers_known: bool = False
    methods: Optional[dict] = None  # name -> FunctionDef, filled on first use
    keeps_only_plain_values: Optional[bool] = None  # `project.holds_no_parameters` of its text, on first use
    freezes_itself: Optional[bool] = None  # `project.class_freezes_itself` of its text, on first use
    unused_layers: Optional[set] = None  # `SemanticModel._unused_layers`, on first use
    parameters: Optional[frozenset] = None  # `SemanticModel._parameter_attributes`, on first use


@dataclass
class CallSite:
    call: ast.Call
    state: State
    frame: "Frame"


class Frame:
    """One analysed body: a scope with its entry facts and, once run, its flow."""

    def __init__(self, scope: Scope, entry_mode: GradMode, kind: str):
        self.scope = scope
        self.node = scope.node
        self.entry_mode = entry_mode
        self.kind = kind  # "module-first", "module", "summary", "query", "class"
        self.flow: Optional[ScopeFlow] = None
        self.entry_env: dict = {}
        self.skipped_summaries = False  # a call's summary was not used (see _NO_SUMMARIES)
        # a summary frame whose flow also answers the function's queries: a question asked of it
        # after its flow is done may use other functions' summaries, as a query frame does
        self.serves_queries = False

    @property
    def body(self) -> list:
        return self.node.body  # type: ignore[attr-defined]


def _is_transformers_model_class(qual: str) -> bool:
    """Whether ``transformers.<Class>.from_pretrained`` loads a model (``AutoModel``,
    ``BertForSequenceClassification``, ``GPT2LMHeadModel``), not a tokenizer, processor or
    configuration (``AutoTokenizer``, ``AutoImageProcessor``, ``AutoConfig``)."""
    cls = qual.rsplit(".", 2)[-2]
    if cls.endswith(_TRANSFORMERS_NON_MODELS):
        return False
    return "Model" in cls or "For" in cls


_TRANSFORMERS_NON_MODELS = (
    "Tokenizer",
    "TokenizerFast",
    "Processor",
    "FeatureExtractor",
    "Config",
    "ImageProcessor",
    "ImageProcessorFast",
    "VideoProcessor",
)


def _only_super_init(stmt: ast.stmt) -> bool:
    """``super().__init__()``, ``super(Net, self).__init__()``, ``pass`` or a docstring."""
    if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
        return True
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "__init__"
        and isinstance(call.func.value, ast.Call)
        and isinstance(call.func.value.func, ast.Name)
        and call.func.value.func.id == "super"
    )


def _portable(value: Value, owner: "SemanticModel") -> Value:
    """A value another file's model found, as this file may hold it: tensors, numbers,
    loaders and containers of them; a module or data set of a class of the run by the class's
    key in the run (``project:model.Net``); anything naming the other file's own definitions
    (a function, an optimizer's modules) unknown."""
    kind = value.kind
    if kind in (Kind.TENSOR, Kind.NUMBER, Kind.NONE, Kind.LOADER) or (
        kind is Kind.OTHER and (value.ref is None or value.ref.startswith("project:"))
    ):
        return value
    if kind is Kind.CONTAINER:
        items = tuple(_portable(item, owner) for item in value.items) if value.items is not None else None
        elem = _portable(value.elem, owner) if value.elem is not None else None
        return value.with_(items=items, elem=elem, ref=None)
    if kind is Kind.MODULE and value.ref is None and value.alternatives:
        ported = [_portable(module(ref), owner).ref for ref in value.alternatives]
        return value.with_(alternatives=tuple(ported) if all(ported) else None)
    if kind in (Kind.MODULE, Kind.DATASET):
        ref = value.ref or ""
        if ref.startswith(("torch.", "project:")) or (kind is Kind.MODULE and not ref):
            return value  # a module of a class the run names, or of none known
        module_key = owner.project.module_of(owner.filename) if owner.project is not None else None
        name = f"{module_key}.{ref}"
        if module_key and owner.project is not None and name in owner.project.classes:
            return value.with_(ref="project:" + name)
    return UNKNOWN


def _every_alternative(value: Value, answer) -> Optional[bool]:
    """What ``answer`` says of a module of each class ``value`` may be an instance of: True or
    False where every class gives it, else None."""
    found = {answer(module(ref)) for ref in value.alternatives or ()}
    return found.pop() if len(found) == 1 else None


class SemanticModel:
    def __init__(
        self,
        tree: ast.Module,
        imports: ImportMap,
        source_text: str,
        module_name: str = "__main__",
        line_starts: Optional[list] = None,
        filename: str = "",
        project: Optional[ProjectIndex] = None,
        cell_starts: tuple = (),
    ):
        self.tree = tree
        self.cell_starts = cell_starts  # a notebook's: the row each cell after the first starts at
        self.imports = imports
        self.module_name = module_name
        self.source_text = source_text
        self.line_starts = line_starts  # offsets where lines begin (the source's own, when given)
        self.filename = filename
        self.project = project  # facts of the other files of the run (analysis.project)
        self._own_nodes: dict = {}
        self.scopes = ScopeIndex(tree, self.own_nodes)
        self._frames: dict = {}  # (id(scope node), kind) -> Frame
        self._made_frames: list = []  # every frame run, kept or not: close() unlinks them all
        self._in_progress: set = set()
        # What is being computed, innermost last, and what was computed while something it
        # needed was still being computed (a cycle cut short): not kept, so that a later
        # question gets the complete answer whatever the order of the questions.
        self._active: list = []
        self._tainted: dict = {}  # key -> the head of the cycle whose stand-in it used
        self._provisional: dict = {}  # head -> [(store, key)] kept until the head finishes
        self._summaries: dict = {}
        self._handed_on_envs: dict = {}  # (id(function), "handed-on") -> its parameters' values from its callers
        self._classes: Optional[dict] = None
        self._own_class_keys: Optional[dict] = None
        self._hand_made: Optional[frozenset] = None  # see `_hand_made_members`
        self._global_assigned: Optional[dict] = None  # see `_global_rebindings`
        self._call_sites: dict = {}  # id(function) -> its call sites, or None when not all known
        # id(function) -> id(Call) of its sites on a receiver that may hold another class
        self._maybe_call_sites: dict = {}
        self._entry_modes: dict = {}  # (id(function), "entry") -> the grad mode its callers run it in
        self._statement_bound: dict = {}  # id(function) -> names its statements bind (body_binds)
        self._definition_spans: Optional[list] = None  # (first, last line) of top-level defs and classes
        self._turns_grad_off: Optional[bool] = None  # whether the text names a way to turn grad off
        self._class_attributes: dict = {}
        self._use_evidence: dict = {}
        self._methods_training: dict = {}  # method name -> method_trains_everywhere
        self._class_method_names: Optional[frozenset] = None  # the methods the file's classes define
        self._plain_forward: Optional[bool] = None  # `_plain_forward_shown`, once known
        self._single_bindings: dict = {}  # (id(scope), name) -> bound in one place only (bound_once)
        self._grad_globals: dict = {}  # id(function) -> reads_grad_globals
        self._holds_grad_globals: Optional[bool] = None  # _module_holds_grad_tensors, once asked
        self._scope_texts: dict = {}
        self._accumulating_methods: Optional[frozenset] = None
        self._imported_instances: dict = {}  # local name -> `imported_instance`
        self._uses: dict = {}
        self._uses_in_progress: set = set()  # functions whose uses are being collected
        self._rebindings: dict = {}  # id(scope) -> Rebindings
        self._attribute_sites: dict = {}
        self._project_differentiating: dict = {}  # qualified name -> whether that function differentiates
        self._project_differentiated: dict = {}  # qualified name -> the parameters it differentiates
        self._own_attribute_sites: dict = {}  # id(function) -> {attr: [(statement, value)]} of its own body
        self._locations: dict = {}
        self._definitions: dict = {}  # str(id(FunctionDef)) -> the node, for FUNCTION values

    def close(self) -> None:
        """Drop every analysis (flows point back at the model): the tree is then freed by
        reference counting, without the cyclic garbage collector."""
        for frame in self._made_frames:
            frame.flow = None
        for name in list(vars(self)):
            value = getattr(self, name)
            if isinstance(value, (dict, set)):
                value.clear()
        self._made_frames = []
        self.scopes._own = None  # a bound method of this model

    # ======================================================================= public queries
    def value(self, node: ast.expr) -> Value:
        """What the expression holds where it is, as far as the code shows."""
        self._module_frame(first=True)  # the base every other flow starts from
        located = self._locate(node)
        if located is None:
            return UNKNOWN
        state, frame, extra = located
        if state is None:
            return UNKNOWN
        if extra:
            state = state.bind(extra)
        return self.evaluate(node, state, frame)

    def grad_mode(self, node: ast.AST) -> GradMode:
        """The grad mode in force where ``node`` runs."""
        self._module_frame(first=True)
        located = self._locate(node)
        if located is None or located[0] is None:
            return GradMode.MAYBE
        return located[0].mode

    def mode_is_assumed(self, node: ast.AST) -> bool:
        """Whether the grad mode at ``node`` rests on the assumption that a function's callers
        run it with grad enabled (no caller seen, no decorator)."""
        located = self._locate(node)
        if located is None:
            return True
        frame = located[1]
        return frame.kind == "query" and getattr(frame, "mode_assumed", False)

    def function_summary(self, fn: ast.AST) -> FunctionSummary:
        found = self._summaries.get(id(fn))
        if found is not None:
            return found
        self._module_frame(first=True)
        if id(fn) in self._in_progress:
            self._cycle_at(id(fn))
            return FunctionSummary()
        self._begin(id(fn))
        head = None
        try:
            summary = self._summarise(fn)
        finally:
            head = self._end(id(fn))
        self._keep(head, self._summaries, id(fn), summary)
        return summary

    def returns_as_called(self, fn: ast.AST) -> Value:
        """What a function returns as this file runs it: its flow with the arguments of its
        call sites (``generate(decoder, "Wh")``: a string built from ``"Wh"``), where the
        summary, which assumes nothing of its parameters, cannot tell."""
        summary = self.function_summary(fn)
        returned = summary.returns
        if summary.generator or isinstance(fn, ast.Lambda):
            return returned
        # a tuple with a part the summary could not tell (`return embedding_tensor, lengths` of
        # another method's result: a summary asks no other summary) is asked as run too
        unknown_part = returned.kind is Kind.CONTAINER and any(
            part.kind is Kind.UNKNOWN for part in returned.items or ()
        )
        if returned.kind is not Kind.UNKNOWN and not unknown_part:
            return returned
        self._module_frame(first=True)
        as_run = self._frame_returns(fn, self._query_frame(fn), generator=False)
        return as_run if as_run.kind is not Kind.UNKNOWN or not unknown_part else returned

    # -- computations in progress -------------------------------------------------------------
    def _begin(self, key) -> None:
        self._in_progress.add(key)
        self._active.append(key)

    def _end(self, key):
        """Finish a computation. Returns None when its result may be kept for good, else the
        outermost computation whose stand-in it used (the head of the cycle): the result
        then holds only until that head finishes (``_keep``)."""
        self._in_progress.discard(key)
        self._active.pop()
        for store, store_key in self._provisional.pop(key, ()):
            store.pop(store_key, None)  # computed against this key's stand-in: now stale
        return self._tainted.pop(key, None)

    def _keep(self, head, store: dict, store_key, value) -> None:
        """Keep a finished computation's result: for good when it used no stand-in (``head``
        None), else until the head of its cycle finishes. Within that head's computation it
        would be computed again from the same stand-ins, so reusing it changes no answer and
        keeps nested cycles from being recomputed over and over."""
        store[store_key] = value
        if head is not None:
            self._provisional.setdefault(head, []).append((store, store_key))

    def _cycle_at(self, key) -> None:
        """``key`` was needed while being computed: what is being computed on top of it
        used a stand-in for it, and is kept only until ``key`` finishes."""
        try:
            index = self._active.index(key)
        except ValueError:
            return
        for above in self._active[index + 1 :]:
            head = self._tainted.get(above)
            if head is None or self._active.index(head) > index:
                self._tainted[above] = key

    def entry_mode(self, fn: ast.AST) -> GradMode:
        """The grad mode a function's body starts in (decorators, then its callers)."""
        frame = self._query_frame(fn)
        return frame.entry_mode if frame is not None else GradMode.ENABLED

    def callers(self, fn: ast.AST) -> Optional[list]:
        """Call sites of a function of this file, or None when it is used other than by
        calling it (passed on, stored, decorated, exported) or defined where that is unknown."""
        return self._callers_of(fn)

    def external_calls(self, fn: ast.AST) -> list:
        """Whether each call of a function of this file from the run's other files runs with
        grad off (read from their text), [] where none is known."""
        return self._external_calls(fn)

    def body_binds(self, fn: ast.AST, name: str) -> bool:
        """Whether a function's statements assign ``name`` (a parameter it rebinds no longer
        holds what its callers hand it), kept per function."""
        bound = self._statement_bound.get(id(fn))
        if bound is None:
            bound = self._statement_bound[id(fn)] = frozenset(assigned_names(fn.body))  # type: ignore[attr-defined]
        return name in bound

    def function_binds(self, fn: ast.AST, name: str) -> bool:
        """Whether a function binds ``name`` itself (a parameter, an assignment, a ``for``
        target), so that inside it the name is not the module's."""
        return self._scope(fn).binds(name)

    def rebinds(self, name: str) -> bool:
        """Whether the file assigns ``name`` anywhere (beyond an import or a definition):
        a cheap check before trusting what an imported or defined name is."""
        found = self.__dict__.get("_assigned")
        if found is None:
            found = self.__dict__["_assigned"] = assigned_names(self.tree.body)
        return name in found

    @functools.cached_property
    def _reads_packed_fields(self) -> bool:
        """Whether the file's text reads a field only a PackedSequence has (``x.batch_sizes``)."""
        return any(f".{field}" in self.source_text for field in _PACKED_FIELDS)

    @functools.cached_property
    def other_framework_models(self) -> bool:
        """Whether the file may hold another framework's models and tensors, which autograd
        never records: it imports JAX, Flax, Haiku, Equinox, Keras or an inference runtime
        (OpenVINO, ONNX Runtime, TensorRT), or TensorFlow without
        torch, or with its training (``tf.GradientTape``, ``keras``; not TensorFlow imported for
        TensorBoard's summaries alone). There a value known by its name alone (``model``,
        ``loss``) is not known to be torch's."""
        tops = set()
        for qualified in self.imports.names.values():
            parts = qualified.split(".")
            tops.add(parts[0])
            tops.add(".".join(parts[:2]))
        if tops & vocab.OTHER_MODEL_FRAMEWORKS:
            return True
        if "tensorflow" not in tops:
            return False
        text = self.source_text
        return not self.imports.imports_torch or "GradientTape" in text or "keras" in text

    def is_import(self, node: ast.AST) -> bool:
        """Whether an expression is an imported name, or an attribute chain on one, whose name
        the file never assigns (``np``, ``torch.nn``, ``init.uniform_``): not ``model`` after
        ``import model`` and ``model = model.Net()``."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return (
            isinstance(root, ast.Name)
            and root.id in self.imports.names
            and not self.rebinds(root.id)
            and self.imported_instance(root.id) is None
        )

    def is_torch_loss(self, func: ast.AST, evident: bool = False) -> bool:
        """Whether a callee is one of torch's losses: a functional loss (``F.nll_loss``) or a
        ``torch.nn`` loss module (``criterion = nn.CrossEntropyLoss().cuda()``), each taking
        tensors as its input and target; ``evident``: not a module known only from its name."""
        qual = self.imports.qualified_name(func) or ""
        if qual.startswith("torch.nn.functional.") and qual.rpartition(".")[2] in vocab.LOSS_FUNCTIONS:
            return True
        callee = self.value(func)  # type: ignore[arg-type]
        ref = callee.ref or ""
        return (
            callee.kind is Kind.MODULE
            and not (evident and callee.weak)
            and ref.startswith("torch.nn.")
            and ref.rpartition(".")[2] in vocab.LOSS_MODULES
        )

    def own_nodes(self, scope_node: ast.AST) -> list:
        """A scope's own nodes (``scopes.own_nodes``): walked once per file and kept."""
        found = self._own_nodes.get(id(scope_node))
        if found is None:
            found = self._own_nodes[id(scope_node)] = list(own_nodes(scope_node))
        return found

    def tensor_on_some_path(self, node: ast.AST) -> bool:
        """Whether a name whose value the flow cannot tell where ``node`` reads it holds a
        tensor after some statement of its scope that binds it, and nothing else the code
        shows after the others: ``h = net.init_hidden(n)`` before the loop, ``out, h =
        net(x, h)`` in it, so ``h.data`` at the loop's head reads a tensor from the second
        step on. For a comprehension's name over such a name (``[each.data for each in
        h]``), what iterating it yields: a tensor's rows or a tuple's tensors."""
        location = self._where(node)
        if location is None:
            return False
        if isinstance(node, ast.Attribute):
            return self._attribute_tensor_on_some_path(node, location)
        name, element = node.id, False
        for comp in reversed(location.comprehensions):
            generator = next(
                (g for g in comp.generators if isinstance(g.target, ast.Name) and g.target.id == name), None
            )
            if generator is not None:
                if not isinstance(generator.iter, ast.Name):
                    return False
                name, element = generator.iter.id, True
                break
        frame = self._frame_for(location.scope)
        if frame is None or frame.flow is None or not frame.scope.binds(name):
            return False
        after = frame.flow.after
        seen = False
        for binding in self.uses(location.scope).bindings_of(name):
            state = after.get(id(binding.node))
            value = state.env.get(name) if state is not None else None
            if element and value is not None and value.kind is Kind.CONTAINER:
                value = value.elem  # what the comprehension's name takes from it
            if value is None or value.kind is Kind.UNKNOWN:
                continue
            if value.kind is not Kind.TENSOR:
                return False
            seen = True
        return seen

    def _attribute_tensor_on_some_path(self, node: ast.Attribute, location) -> bool:
        """``self.C_max`` set to a parameter in ``__init__`` and to ``Variable(torch.
        FloatTensor([...]))`` in ``train``: a tensor where some method assigns one and no
        assignment makes it anything else the code shows."""
        if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            return False
        scope = location.scope
        info = self._method_class(scope) if isinstance(scope, FUNCTION_TYPES) else None
        if info is None:
            return False
        seen = False
        for _method, _statement, value_node, _annotation in self._attribute_assignments(info, node.attr):
            if value_node is None:
                continue
            value = self.value(value_node)
            if value.kind is Kind.TENSOR:
                seen = True
            elif value.kind not in (Kind.UNKNOWN, Kind.NONE):
                return False
        return seen

    def enclosing(self, node: ast.AST) -> list:
        """The statements around a node, innermost first (its own statement included)."""
        location = self._where(node)
        return list(reversed(location.enclosing)) if location is not None else []

    def rebindings(self, scope_node: ast.AST) -> Rebindings:
        """Where a scope's own code assigns names again (which value a use sees), made once."""
        found = self._rebindings.get(id(scope_node))
        if found is None:
            own = self.own_nodes(scope_node)
            found = self._rebindings[id(scope_node)] = Rebindings(own, statement_blocks(scope_node, own))
        return found

    def uses(self, scope_node: ast.AST) -> ScopeUses:
        """Bindings and uses of names in a scope's own code (module, class or function)."""
        found = self._uses.get(id(scope_node))
        if found is None:
            found = self._uses[id(scope_node)] = self._collect_uses(scope_node)
        return found

    def _collect_uses(self, scope_node: ast.AST) -> ScopeUses:
        uses = ScopeUses()
        if isinstance(scope_node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            uses.parameters = frozenset(a.arg for a in parameters(scope_node))
        if isinstance(scope_node, ast.Lambda):
            return uses
        bindings = uses.bindings
        imports = self.imports
        own = self.own_nodes(scope_node)
        for node in own:
            t = type(node)
            if t is ast.Assign:
                for target in node.targets:
                    for name in target_names(target):
                        bindings.append(Binding(name, node, node.value))
                    if not isinstance(target, (ast.Name, ast.Tuple, ast.List)):
                        uses.escaping.update(_names(node.value))  # self.total = total, d[k] = total
            elif t is ast.AnnAssign and node.value is not None:
                for name in target_names(node.target):
                    bindings.append(Binding(name, node, node.value))
            elif t is ast.AugAssign:
                for name in target_names(node.target):
                    bindings.append(Binding(name, node, node.value))
            elif t is ast.NamedExpr:
                bindings.append(Binding(node.target.id, node, node.value))
            elif t is ast.For or t is ast.AsyncFor:
                for name in target_names(node.target):
                    bindings.append(Binding(name, node, node.iter))
            elif t is ast.withitem and node.optional_vars is not None:
                if not hasattr(node, "lineno"):
                    # the parser gives a `with` item no position: the span of its expression and target,
                    # so that a binding's place reads the same for every kind of statement
                    node.lineno, node.col_offset = node.context_expr.lineno, node.context_expr.col_offset
                    node.end_lineno = node.optional_vars.end_lineno
                    node.end_col_offset = node.optional_vars.end_col_offset
                for name in target_names(node.optional_vars):
                    bindings.append(Binding(name, node, None))
            elif t is ast.Call:
                uses.calls.append(node)
                func = node.func
                qual = imports.qualified_name(func)
                name = callee_name(node)
                if isinstance(func, ast.Attribute) and func.attr == "backward":
                    uses.backpropagated.update(_names(func.value))
                    uses.backpropagated.update(_names_in(node.args))
                elif qual in vocab.BACKWARD_FUNCTIONS or "backward" in name.lower():
                    uses.backpropagated.update(_names_in(node.args + [k.value for k in node.keywords]))
                elif qual is None and isinstance(func, ast.Name):
                    # `loss_function(outputs_e, ...)` of a function of the file that calls
                    # `output_e.backward(...)` on that parameter
                    for argument in self.backpropagated_arguments(node):
                        uses.backpropagated.update(_names(argument))
                elif isinstance(func, ast.Attribute) and func.attr == "eval" and not node.args:
                    uses.calls_eval = True
                if qual is not None and qual.startswith("torch."):
                    uses.receivers.update(_names_in(node.args))
            elif t is ast.Return or t is ast.Yield or t is ast.YieldFrom:
                if node.value is not None:
                    uses.escaping.update(_names(node.value))
            elif t is ast.Attribute or t is ast.Subscript:
                if isinstance(node.value, ast.Name):
                    uses.receivers.add(node.value.id)
        # a comprehension runs where it stands: its backward passes are the scope's
        # (`[torch.autograd.grad(out[:, i], x, ...)[0] for i in range(k)]`)
        for inner in comprehension_nodes(own):
            if type(inner) is ast.Call:
                if isinstance(inner.func, ast.Attribute) and inner.func.attr == "backward":
                    uses.calls.append(inner)
                    uses.backpropagated.update(_names(inner.func.value))
                    uses.backpropagated.update(_names_in(inner.args))
                elif imports.qualified_name(inner.func) in vocab.BACKWARD_FUNCTIONS:
                    uses.calls.append(inner)
                    uses.backpropagated.update(_names_in(inner.args + [k.value for k in inner.keywords]))
        return uses

    @functools.cached_property
    def imports_a_backpropagating_tool(self) -> bool:
        """Whether the file imports torchcam, pytorch-grad-cam, Captum, torchattacks or foolbox
        (``vocab.BACKPROPAGATING_TOOL_PACKAGES``)."""
        tops = {package.split(".")[0] for package in vocab.BACKPROPAGATING_TOOL_PACKAGES}
        return self.imports.imports_package(tops)

    @functools.cached_property
    def defines_backpropagating_modules(self) -> bool:
        """Whether a module class of the file runs a backward pass in its ``forward`` (a
        Carlini-Wagner attack written as a module, ``cost.backward(); optimizer.step()``)."""
        return any(info.is_module and self._forward_needs_grad(info) for info in self._class_table().values())

    @functools.cached_property
    def run_defines_backpropagating_modules(self) -> bool:
        """Whether a module class of the file, or of another file of the run, runs a backward
        pass in its ``forward`` (a solver whose ``forward`` backpropagates, steps and returns
        ``loss.item()``): a model known by its name alone may be one of them."""
        if self.defines_backpropagating_modules:
            return True
        return self.project is not None and any(
            fact.module and fact.backpropagates for fact in self.project.classes.values()
        )

    def backpropagating_tool_call(self, call: ast.Call) -> bool:
        """Whether a call runs a gradient-based explainer or attack (``vocab.backpropagating_tool``),
        which backpropagates through its model: the object called (``cam_extractor(class_idx, out)``,
        ``gb_model(input_tensor)``, ``atk(images, labels)``) or one of its methods
        (``ig.attribute(x, target=0)``); or a module of the file whose ``forward`` backpropagates
        (``cw_attack(data, target)`` of ``cw_attack = CWAttack(model)``)."""
        if self.defines_backpropagating_modules and isinstance(call.func, ast.Name):
            called = self.value(call.func)
            if called.kind is Kind.MODULE and not called.weak and self.module_backpropagates(called):
                return True
        if isinstance(call.func, ast.Attribute) and self._imported_backpropagating_class(call.func.attr):
            return True
        if not self.imports_a_backpropagating_tool:
            return False
        func = call.func
        for part in (func, func.value) if isinstance(func, ast.Attribute) else (func,):
            value = self.value(part)
            if value.kind is Kind.OTHER and vocab.backpropagating_tool(value.ref or ""):
                return True
        return False

    def _imported_backpropagating_class(self, attr: str) -> bool:
        """Whether ``self.grad_cam`` is named, in snake case, for a module class this file imports
        from another file of the run whose ``forward`` backpropagates (``from GradCam import
        GradCam``): an instance handed to the constructor, of that class by the name it is kept
        under, whatever the code shows of its value."""
        if self.project is None:
            return False
        qualified = self._imported_classes_by_lower_name.get(attr.replace("_", "").lower())
        if qualified is None:
            return False
        made = self._project_class(qualified)
        return made is not None and made.kind is Kind.MODULE and self.module_backpropagates(made)

    @functools.cached_property
    def _imported_classes_by_lower_name(self) -> dict:
        """``gradcam`` -> ``GradCam.GradCam``: the names the file imports that look like classes,
        lowercased (the first of each), made once."""
        found: dict = {}
        for local, qualified in self.imports.names.items():
            if local[:1].isupper():
                found.setdefault(local.lower(), qualified)
        return found

    def backpropagated_arguments(self, call: ast.Call) -> list:
        """The arguments of a call of one of the file's functions by name that its own code
        backpropagates, or a value computed from them (``loss_function(outputs_e, ...)`` of
        ``def loss_function(output_e, ...): output_e.backward(...)``); every argument of a
        gradient-based explainer's call (``cam_extractor(class_idx, out)``: ``backpropagating_tool_call``)."""
        if self.backpropagating_tool_call(call):
            return [*call.args, *(k.value for k in call.keywords)]
        if not isinstance(call.func, ast.Name):
            return []
        definitions = self.scopes.module.definitions.get(call.func.id) or ()
        if len(definitions) != 1 or not isinstance(definitions[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return []
        fn = definitions[0]
        text = self._scope_text(fn)
        if "backward" not in text and "grad(" not in text:
            return []  # no `backward` nor `autograd.grad(` in it: no need for its uses
        if id(fn) in self._uses_in_progress:
            return []  # a recursive function: what it backpropagates is being found
        self._uses_in_progress.add(id(fn))
        try:
            own = self.uses(fn)
        finally:
            self._uses_in_progress.discard(id(fn))
        names = [p for p in own.parameters if own.derived(p) & own.backpropagated]
        if not names:
            return []
        positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
        found = []
        for parameter in names:
            position = positional.index(parameter) if parameter in positional else None
            argument = vocab.call_argument(call, position, parameter)
            if argument is not None:
                found.append(argument)
        return found

    def definitions(self, name: ast.Name) -> list:
        """The bindings of its scope that the value of ``name`` (a use) may come from, as the
        source order shows them: the last binding before the use's statement and, where the
        use is inside a loop that no binding before it in that loop precedes, the loop's later
        bindings (the previous iteration's value). Branches are not told apart; a name bound
        by a comprehension or a lambda has none."""
        location = self._where(name)
        if location is None or location.lambda_ is not None:
            return []
        for comp in location.comprehensions:
            if any(name.id in target_names(gen.target) for gen in comp.generators):
                return []
        stmt = location.statement
        at = (name.lineno, name.col_offset)
        bindings = [b for b in self.uses(location.scope).bindings_of(name.id) if b.node is not stmt]
        before = [b for b in bindings if _position(b.node) < at]
        found = [max(before, key=lambda b: _position(b.node))] if before else []
        loop = next(
            (s for s in reversed(location.enclosing) if isinstance(s, (ast.For, ast.AsyncFor, ast.While))), None
        )
        if (
            loop is not None
            and not any(_inside(b.node, loop) for b in found)
            and not (found and found[0].node is loop and _in_body(stmt, loop))
        ):
            # (`for imgs, caps in loader:` binds `imgs` afresh at each iteration: a later
            # `imgs = encoder(imgs)` of the body never reaches its start)
            found.extend(b for b in bindings if _position(b.node) > at and _inside(b.node, loop))
        return found

    def forwarded_call(self, call: ast.Call) -> Optional[ast.Call]:
        """When ``call`` runs a function or lambda of the file that hands its ``*args`` or
        ``**kwargs`` straight on to another call (a thin wrapper), that inner call."""
        callee = self.value(call.func)
        fn = self._definitions.get(callee.ref) if callee.kind is Kind.FUNCTION and callee.ref else None
        if fn is None:
            return None
        vararg = fn.args.vararg.arg if fn.args.vararg is not None else None
        kwarg = fn.args.kwarg.arg if fn.args.kwarg is not None else None
        if vararg is None and kwarg is None:
            return None
        results = (
            [fn.body]
            if isinstance(fn, ast.Lambda)
            else [n.value for n in self.own_nodes(fn) if isinstance(n, ast.Return) and n.value is not None]
        )
        for result in results:
            for sub in walk_in_order(result):
                if not isinstance(sub, ast.Call):
                    continue
                if any(
                    isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == vararg
                    for a in sub.args
                ):
                    return sub
                if any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg for k in sub.keywords):
                    return sub
        return None

    def class_info(self, name_or_key: str) -> Optional[ClassInfo]:
        classes = self._class_table()
        return classes.get(name_or_key)

    def is_module_class(self, node: ast.ClassDef) -> bool:
        """Whether a class of this file derives from ``nn.Module`` (directly, through other
        classes of the file, or from a torch layer)."""
        info = self._class_table().get(self._class_key(node))
        return info is not None and info.node is node and info.is_module

    def autograd_function_classes(self) -> frozenset:
        """Names of the file's classes deriving from ``torch.autograd.Function``."""
        return frozenset(info.node.name for info in self._class_table().values() if info.is_autograd_function)

    def class_of(self, value: Value) -> Optional[ClassInfo]:
        return self._class_table().get(value.ref) if value.ref else None

    def module_forward_without_grad(self, value: Value) -> bool:
        """Whether a module class of the file computes every value its ``forward`` returns with
        grad off (``def forward(self, x): with torch.no_grad(): ... return features``): a call of
        it records no graph (GG206 reports such a region when it is a mistake)."""
        if value.kind is not Kind.MODULE or not value.ref:
            return False
        info = self._class_table().get(value.ref)
        forward = self._method_node(info, "forward") if info is not None else None
        if not isinstance(forward, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        returns = [node for node in self.own_nodes(forward) if isinstance(node, ast.Return) and node.value is not None]
        # Its own regions and decorators, not its callers' mode: `model(x)` runs `forward` without
        # showing a call of it, so an explicit `model.forward(x)` under `no_grad` elsewhere says
        # nothing of the module's other calls.
        off = (RegionKind.NO_GRAD, RegionKind.INFERENCE)
        if any(classify_grad_mode(d, self.imports) in off for d in forward.decorator_list):
            return bool(returns)
        return bool(returns) and all(
            any(
                isinstance(statement, (ast.With, ast.AsyncWith))
                and any(classify_grad_mode(item.context_expr, self.imports) in off for item in statement.items)
                for statement in self.enclosing(node)
            )
            for node in returns
        )

    def module_without_parameters(self, value: Value) -> bool:
        """Whether a module value is certainly an instance of a class of the file that holds no
        parameters: it constructs no ``torch.nn`` object but parameterless layers (no ``Linear``,
        no ``nn.Parameter``) and no module class of the file, says nothing of ``requires_grad``,
        derives only from ``nn.Module`` or such classes, and keeps plain tensors (a hand-written
        model updated by hand), parameterless layers only (``MaxPool2d``, ``ReLU``: a demo of a
        layer) or has no ``__init__`` at all (a Gram matrix)."""
        if value.kind is not Kind.MODULE or value.ref is None:
            return False
        if value.ref.startswith("project:") and self.project is not None:
            fact = self.project.classes.get(value.ref[len("project:") :])
            return fact is not None and fact.parameterless  # what that file's text shows
        info = self._class_table().get(value.ref)
        # Evidence, not absence of it: the class keeps tensors of its own (`self.w = torch.zeros(...)`),
        # or has no `__init__` to hold anything (`class GramMatrix(nn.Module)` with `forward` alone).
        return (
            self._keeps_plain_tensors(info)
            or self._holds_nothing(info)
            or bool(info is not None and self._layers(info))
            # `self.gamma = gamma` of `gamma=4` (a focal loss): numbers, flags and strings only
            or bool(info is not None and self._keeps_only_plain_values(info))
            or bool(info is not None and self._builds_audio_transforms(info))
        ) and self._class_without_parameters(info, set())

    def _builds_audio_transforms(self, info: ClassInfo) -> bool:
        """Whether a module class builds torchaudio's transforms (``self.transform =
        MelSpectrogram(...)``): buffers, no parameters; with nothing else that may hold them
        (``_class_without_parameters``), a feature extractor."""
        return any(
            isinstance(sub, ast.Call)
            and (self.imports.qualified_name(sub.func) or "").startswith(vocab.SIGNAL_TRANSFORMS)
            for sub in walk(info.node)
        )

    def _keeps_only_plain_values(self, info: ClassInfo) -> bool:
        """``project.holds_no_parameters`` of a class of the file, read from its text once."""
        if info.keeps_only_plain_values is None:
            info.keeps_only_plain_values = holds_no_parameters(self._scope_text(info.node))
        return info.keeps_only_plain_values

    def _holds_nothing(self, info: Optional[ClassInfo]) -> bool:
        """A class with no ``__init__`` (or one that only calls ``super().__init__()``) whose
        methods call nothing the instance holds (only its own methods): ``class
        GramMatrix(nn.Module)`` with a ``forward`` over its input."""
        if info is None:
            return False
        init = self._method_of(info, "__init__")
        if init is not None and not all(_only_super_init(stmt) for stmt in init.body):  # type: ignore[attr-defined]
            return False
        methods = self._methods(info)
        return all(match.group(1) in methods for match in vocab.SELF_CALL_RE.finditer(self._scope_text(info.node)))

    def method_runs_module(self, value: Value, method: str) -> Optional[bool]:
        """Whether ``method`` of a module class of the file runs the module with the caller's
        grad mode (``def qvals(self, x): return self.both(x)[1]`` calls ``self(...)``,
        ``self.forward(...)`` or a layer the instance holds; one that trains or turns grad off
        inside does not); None where the file does not show the method (one ``nn.Module``
        provides, or of another file's class, unless that file shows it turns grad off)."""
        if value.kind is Kind.MODULE and value.ref is None and value.alternatives:
            return _every_alternative(value, lambda one: self.method_runs_module(one, method))
        if value.kind is Kind.MODULE and (value.ref or "").startswith("project:") and self.project is not None:
            fact = self.project.classes.get(value.ref[len("project:") :])  # type: ignore[index]
            if fact is None:
                return None
            if method in fact.quiet_methods or (method in fact.training_methods and method not in fact.running_methods):
                return False  # it turns grad off, or differentiates (`torch.autograd.grad`)
            if method in fact.running_methods:
                return True
            # a method the class shows that runs none of its layers (`sample_from_prior` drawing from
            # a distribution it holds); one `nn.Module` provides is not known here
            return False if method in fact.methods else None
        info = self._class_table().get(value.ref) if value.kind is Kind.MODULE and value.ref else None
        fn = self._method_of(info, method) if info is not None else None
        if fn is None:
            return None
        if self._decorated_mode(fn) not in (None, GradMode.ENABLED):
            return False  # `@torch.no_grad()` on the method
        if self._differentiates(info, fn, set()):
            return False  # `def dx(self, data): ... torch.autograd.grad(u, x, create_graph=True)`: needs grad
        if returns_only_a_shape(self._scope_text(fn)):
            return False  # `return x.shape[-1]`: a shape probe, its result carries no graph
        methods = {name for held in self._class_chain(info) for name in self._methods(held)}
        return self._runs_module(info, fn, methods, set())

    def _differentiates(self, info: ClassInfo, fn: ast.AST, seen: set) -> bool:
        """Whether a method, or a method of its class it calls (transitively), differentiates
        (``torch.autograd.grad``): a physics-informed network's residual ``eq_1`` calling
        ``self.G_dt(t)``. Under ``no_grad`` it raises. (A ``.backward(z)`` of the class's own, a
        normalizing flow's inverse, is no differentiation.)"""
        seen.add(id(fn))
        text = self._scope_text(fn)
        if vocab.AUTOGRAD_GRAD_RE.search(text):
            return True
        for match in vocab.SELF_CALL_RE.finditer(text):
            other = self._method_of(info, match.group(1))
            if other is not None and id(other) not in seen and self._differentiates(info, other, seen):
                return True
        return False

    @functools.cached_property
    def imports_non_torch_estimators(self) -> bool:
        """Whether the file imports an estimator class of a library not built on torch
        (``from xgboost import XGBClassifier``, ``from sklearn.svm import SVC``;
        ``vocab.NON_TORCH_ESTIMATOR_MODULES``): there a model known by its name alone may be
        one of them, whose ``predict`` records no graph."""
        for qualified in self.imports.names.values():
            module, _, name = qualified.rpartition(".")
            if name[:1].isupper() and module in vocab.NON_TORCH_ESTIMATOR_MODULES:
                return True
        return False

    @functools.cached_property
    def imports_a_differentiating_module(self) -> bool:
        """Whether the file imports a module class of another file of the run that differentiates
        in its own code (``from methods.maml import MAML``, whose forward pass adapts with
        ``torch.autograd.grad``): a model of a class the code does not pin down may be one, whose
        methods need grad."""
        if self.project is None:
            return False
        for qualified in self.imports.names.values():
            fact = self.project.classes.get(self._project_name(qualified))
            if fact is not None and fact.module and fact.differentiates:
                return True
        return False

    def method_runs_somewhere(self, method: str) -> bool:
        """Whether a module class of the file, or of the run, runs the module by ``method``
        (``def analysis(self, x): return [self.lp(x), ...]``): a call of it on a model whose class
        is not known (a function's parameter) most likely runs it too."""
        for info in self._class_table().values():
            if info.is_module and method in self._methods(info):
                if self.method_runs_module(Value(Kind.MODULE, ref=info.key), method):
                    return True
        return self.project is not None and method in self.project.running_method_names()

    def some_module_draws(self, length: int, position: int) -> bool:
        """Whether a module class of the file or of the run returns from its ``forward`` a tuple
        of ``length`` items whose item at ``position`` is drawn from a distribution on some path
        (``actions = dist.sample()``, ``return actions, log_prob``): such an item of a module of
        unknown class may carry no graph."""
        shape = (length, position)
        for info in self._class_table().values():
            forward = self._methods(info).get("forward") if info.is_module else None
            if forward is not None and shape in sampled_outputs(self._scope_text(forward)):
                return True
        return self.project is not None and any(
            fact.module and shape in fact.sampled_outputs for fact in self.project.classes.values()
        )

    def method_runs_everywhere(self, method: str) -> bool:
        """Whether every module class of the file defining ``method`` runs the module by it, and
        no module class of the run runs it without grad, with at least one that runs it (an
        actor-critic's ``def pi(self, x)``): a call of it on a model whose class is not known
        (``global_model.pi(state)`` in a test process) runs the model."""
        found = False
        for info in self._class_table().values():
            if info.is_module and method in self._methods(info):
                if not self.method_runs_module(Value(Kind.MODULE, ref=info.key), method):
                    return False
                found = True
        if self.project is not None:
            for fact in self.project.classes.values():
                if fact.module and method in fact.quiet_methods:
                    return False
                found = found or (fact.module and method in fact.running_methods)
        return found

    def method_runs_nowhere(self, method: str) -> bool:
        """Whether the classes of the file, and of the run's files beside it, that define
        ``method`` run no model by it, and one does at least (a generator's `def
        sample_noise_vector(self, n): return torch.randn(n, self.z_dim)`): a call of it on a
        model whose class is not known (``self.generator.sample_noise_vector(bs)`` of a trainer
        handed the generator) runs none, whatever its name says."""
        found = False
        for info, definition in self._file_classes_defining(method):
            if not isinstance(definition, ast.FunctionDef):
                return False
            runs = (
                self.method_runs_module(Value(Kind.MODULE, ref=info.key), method)
                if info.is_module
                else self._runs_a_held_module(info, definition)
            )
            if runs is not False:
                return False
            found = True
        if self.project is not None:
            for fact in self._run_classes_defining(method):
                if method in (
                    fact.running_methods | fact.held_model_methods | fact.delegating_methods | fact.training_methods
                ):
                    return False
                found = True
        return found

    def _run_classes_defining(self, method: str) -> Iterator:
        """The facts of the run's classes in other files beside this one that define ``method``."""
        own = self.project.module_of(self.filename)  # type: ignore[union-attr]
        for name, fact in self._classes_beside():
            if name.rpartition(".")[0] != own and method in fact.methods:
                yield fact

    def _classes_beside(self) -> Iterator[tuple]:
        """(key, ClassFact) of the run's classes in files sharing this file's folder root, not
        those of another folder's scripts (`lab2/algo.py` beside `lab1/agent.py`)."""
        root = self.project.root_of(self.filename)
        for name, fact in self.project.classes.items():
            path = self.project.path_of(name.rpartition(".")[0])
            if path is None or self.project.root_of(path) == root:
                yield name, fact

    def _classes_beside_or_imported(self) -> Iterator[tuple]:
        """``_classes_beside``, and the run's classes this file imports by name from another
        folder root (a notebook under `examples/` doing `from algorithms.leo import LEO`)."""
        seen = set()
        for name, fact in self._classes_beside():
            seen.add(name)
            yield name, fact
        for qualified in self.imports.names.values():
            name = self._project_name(qualified)
            fact = self.project.classes.get(name) if name not in seen else None
            if fact is not None:
                seen.add(name)
                yield name, fact

    def held_model_method_everywhere(self, method: str) -> bool:
        """Whether every class of the run's files sharing this file's folder root defining
        ``method`` runs a model by it, and at least one is a plain class holding the model (``class DQN: def predict(self, obs): return
        self.model(obs)``, ``ClassFact.held_model_methods``), none running it without grad: a call
        of it on an object whose class is not known (``self.algo.predict(obs)`` of an agent handed
        the algorithm) runs a model."""
        if self.project is None:
            return False
        found = False
        for _name, fact in self._classes_beside():
            if method in fact.held_model_methods:
                found = True
            elif (
                method in fact.methods
                and method not in fact.delegating_methods
                and not (fact.module and method in fact.running_methods)
            ):
                return False  # a class defining it otherwise (or running it without grad)
        return found

    def method_of_plain_classes_only(self, method: str) -> bool:
        """Whether the classes of the file, and of the run's files beside it, that define
        ``method`` are all plain classes whose method runs no module they hold, and one of the
        file's does at least (a numpy hidden Markov model's ``predict``): a call of it on an object
        whose class is not known (``model.predict(words)`` of a parameter named ``model``) runs no
        model."""
        found = False
        for info, definition in self._file_classes_defining(method):
            if info.is_module or not isinstance(definition, ast.FunctionDef):
                return False
            if self._runs_a_held_module(info, definition):
                return False  # `self.model(x)`: it runs a module it holds
            found = True
        if self.project is not None:
            for fact in self._run_classes_defining(method):
                if fact.module or method in (
                    fact.held_model_methods | fact.delegating_methods | fact.quiet_methods | fact.training_methods
                ):
                    return False  # it runs (or trains) a model it holds, with grad or without
        return found  # (the run's plain classes do not count for it: their text is not read here)

    def _plain_forward_shown(self) -> bool:
        """Whether a class of the file, or of the run's files beside it, that is no module and no
        custom Function defines ``forward`` (a numpy layer's ``layer.forward(x)``): else an explicit
        ``x.forward(...)`` call shows ``x`` is a module."""
        shown = self._plain_forward
        if shown is None:
            shown = any(
                not (info.is_module or info.is_autograd_function) for info, _ in self._file_classes_defining("forward")
            ) or (
                self.project is not None
                and any(not fact.module and "forward" in fact.methods for _, fact in self._classes_beside())
            )
            self._plain_forward = shown
        return shown

    def _file_classes_defining(self, method: str) -> Iterator[tuple]:
        """(class info, definition) of each class of the file that defines ``method``."""
        for info in self._class_table().values():
            definition = self._methods(info).get(method)
            if definition is not None:
                yield info, definition

    def plain_method_runs_held_model(self, value: Value, method: str) -> bool:
        """Whether ``method`` of the plain class (no module) ``value`` is an instance of runs a
        model the instance holds with the caller's grad mode (``agent.get_action(state)``: ``return
        self.policy(x)`` of a policy handed to the agent); not one that turns grad off or trains."""
        ref = value.ref or ""
        if value.kind is not Kind.OTHER or not ref:
            return False
        if ref.startswith("project:"):
            fact = self.project.classes.get(ref[len("project:") :]) if self.project is not None else None
            return (
                fact is not None
                and not fact.module
                and method in fact.held_model_methods - fact.quiet_methods - fact.training_methods
            )
        info = self._class_table().get(ref)
        if info is None or info.is_module or info.is_autograd_function:
            return False
        definition = self._method_of(info, method)
        if not isinstance(definition, ast.FunctionDef) or self._decorated_mode(definition) is not None:
            return False
        text = self._scope_text(definition)
        if any(word in text for word in _GRAD_OFF_WORDS) or self.function_summary(definition).trains:
            return False
        # the held model called itself (`self.policy(x)`), not a method of it judged on its own
        # (`self.model.generate(...)` of a module class that shows its `generate`); or weights the
        # instance makes itself, which a method computes with (a model written by hand)
        return self._runs_a_held_module(info, definition, _SELF_MODULE_CALL_RE) or self._computes_with_own_weights(
            info, definition, set()
        )

    def _computes_with_own_weights(self, info: ClassInfo, definition: ast.AST, seen: set) -> bool:
        """Whether a method of a plain class computes with tensors requiring grad that the instance
        makes itself (``self.w = torch.normal(0, 0.01, size=(n, k), requires_grad=True)`` in
        ``__init__``), in its own text or through the class's methods it calls (``predict`` calling
        ``self.fit(X)``, which calls ``self.linreg(X)``, which reads ``self.w``): a model written by
        hand, run with the caller's grad mode. Not one that turns grad off or trains."""
        seen.add(id(definition))
        text = self._scope_text(definition)
        if any(word in text for word in _GRAD_OFF_WORDS) or ".backward(" in text or ".grad" in text:
            return False
        methods = self._methods(info)
        for match in _SELF_PART_CALL_RE.finditer(text):
            other = methods.get(match.group(1))
            if other is not None:
                if id(other) not in seen and self._computes_with_own_weights(info, other, seen):
                    return True
        return any(
            attr not in methods and _own_weight(self._instance_attribute(info, attr))
            for attr in set(_SELF_ATTRIBUTE_RE.findall(text))
        )

    def _runs_a_held_module(self, info: ClassInfo, definition: ast.AST, calls: re.Pattern = _SELF_PART_CALL_RE) -> bool:
        """Whether a method of a plain class calls a module the instance holds (``self.model(x)``;
        ``calls``: how such a call is written, its first group the attribute)."""
        return any(
            self._held_attribute(info, match.group(1)).kind is Kind.MODULE  # type: ignore[arg-type]
            for match in calls.finditer(self._scope_text(definition))
        )

    def method_quiet_in_wrappers(self, method: str) -> bool:
        """Whether the classes of the file and of the run's files beside it that define ``method``
        define no module class's, and at least one plain class of the run runs a model it holds
        by it without grad while none runs one with grad (``LSTMPredictor.predict``: ``self.model.eval()``,
        then the forward pass under ``torch.no_grad()``, numbers handed back): a call of it on an
        object whose class is not known (``model = model_data["model"]``) runs no graph."""
        found = False
        for info, definition in self._file_classes_defining(method):
            if info.is_module or not isinstance(definition, ast.FunctionDef):
                return False
            text = self._scope_text(definition)
            if not any(word in text for word in _GRAD_OFF_WORDS):
                if self._runs_a_held_module(info, definition):
                    return False  # `self.model(x)` with the caller's grad mode
                continue
            held_runs = [
                node
                for node in walk(definition)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "self"
                and self._held_attribute(info, node.func.attr).kind is Kind.MODULE
            ]
            if held_runs and all(self.grad_mode(node).off for node in held_runs):
                found = True  # `PytorchModel.predict_label`: `with torch.no_grad(): output = self.model(image)`
            elif held_runs:
                return False
        if self.project is None:
            return found
        own = self.project.module_of(self.filename)
        for name, fact in self._classes_beside():
            if name.rpartition(".")[0] == own or method not in fact.methods:
                continue
            if fact.module or method in (fact.held_model_methods | fact.delegating_methods | fact.training_methods):
                return False
            found = found or method in fact.quiet_methods
        return found

    def method_shown(self, method: str) -> bool:
        """Whether a class of the file defines ``method``, or a module class of the run runs the
        module by it: code the check reads, where what the method does is judged."""
        return method in self.file_method_names() or (
            self.project is not None and method in self.project.running_method_names()
        )

    def method_trains_everywhere(self, method: str) -> bool:
        """Whether every class of the file, and of the run's files sharing this file's folder root,
        defining ``method`` backpropagates by it (in its body or through the instance's other
        methods), and at least one does: ``solver.train_eval()`` trains the model it holds."""
        known = self._methods_training.get(method)
        if known is None:
            known = self._methods_training[method] = self._method_trains_everywhere(method)
        return known

    def _method_trains_everywhere(self, method: str) -> bool:
        found = False
        for info in self._class_table().values():
            definition = self._methods(info).get(method)
            if definition is not None:
                if not self._method_trains(info, definition):
                    return False
                found = True
        if self.project is not None:
            own = self.project.module_of(self.filename)
            for name, fact in self._classes_beside_or_imported():
                if name.rpartition(".")[0] == own:
                    continue  # this file's class, read above
                if method in fact.methods or method in fact.training_methods:
                    if method not in fact.training_methods:
                        return False
                    found = True
        return found

    def _method_trains(self, info: ClassInfo, definition: ast.AST) -> bool:
        """Whether a method of a class of the file backpropagates or steps, in its own body or
        through another method of its class that it calls (one level)."""
        return self.function_summary(definition).trains or self._trains_through_self(info, definition)

    def _trains_through_self(self, info: ClassInfo, definition: ast.AST) -> bool:
        """Whether a method calls another method of its class that backpropagates (one level)."""
        methods = self._methods(info)
        return any(
            called in methods and self.function_summary(methods[called]).trains
            for called in vocab.SELF_CALL_RE.findall(self._scope_text(definition))
        )

    def method_quiet_everywhere(self, method: str) -> bool:
        """Whether the module classes of the file and of the run that define ``method`` all run it
        without grad (``@torch.inference_mode()`` on ``predict_proba``, a ``no_grad`` block
        inside), and at least one does: a call of it on a model whose class is not known runs
        one of them."""
        found = False
        for mode, says_grad_off in self._module_methods_named(method):
            if (mode is None and not says_grad_off) or mode is GradMode.ENABLED:
                return False
            found = True
        if self.project is not None:
            for name, fact in self.project.classes.items():
                if not fact.module or self.project.module_of(self.filename) == name.rsplit(".", 1)[0]:
                    continue  # not a module class, or one of this file's, read above
                if method in fact.running_methods:
                    return False
                if method in fact.quiet_methods:
                    found = True
        return found

    def method_quiet_somewhere(self, method: str) -> bool:
        """Whether some module class of the file or of the run defines ``method`` to run without
        grad (a GPT's ``generate`` inside ``torch.no_grad()``): a call of it on a model whose
        class is not known may run that one."""
        if any(
            (mode is not None and mode is not GradMode.ENABLED) or says_grad_off
            for mode, says_grad_off in self._module_methods_named(method)
        ):
            return True
        if self.project is not None:
            return any(fact.module and method in fact.quiet_methods for fact in self.project.classes.values())
        return False

    def _module_methods_named(self, method: str) -> list:
        """(the grad mode its decorator sets or None, whether its text names a way to turn grad
        off) for each module class of the file that defines ``method`` in its own body."""
        found = []
        for info in self._class_table().values():
            fn = self._method_of(info, method) if info.is_module else None
            if fn is not None and fn in info.node.body:
                text = self._scope_text(fn)
                found.append((self._decorated_mode(fn), any(word in text for word in _GRAD_OFF_WORDS)))
        return found

    def _runs_module(self, info: ClassInfo, fn: ast.AST, methods: set, seen: set) -> bool:
        seen.add(id(fn))
        if self._decorated_mode(fn) not in (None, GradMode.ENABLED):
            return False  # `@torch.inference_mode()` on a method it calls (`self.denoise_step(x, t)`)
        text = self._scope_text(fn)
        if ".backward(" in text or any(word in text for word in _GRAD_OFF_WORDS):
            return False  # it trains (`model.adapt_few_shot(...)`), or turns grad off inside
        if "self(" in text or "self.forward(" in text:
            return True
        if vocab.parameters_read(text, self._parameter_attributes(info)):
            return True  # `x @ self.weight`: it computes with a parameter the module holds
        for match in vocab.SELF_CALL_RE.finditer(text):
            called = match.group(1)
            if called not in methods and called not in vocab.MODULE_OWN_METHODS:
                return True  # a layer the instance holds
            other = self._method_of(info, called)  # `def qvals(self, x): return self.both(x)[1]`
            if other is not None and id(other) not in seen and self._runs_module(info, other, methods, seen):
                return True
        return False

    def _parameter_attributes(self, info: ClassInfo) -> frozenset:
        """The parameters the class (or a base class of the file) makes in ``__init__``
        (``self.weight = nn.Parameter(...)``), and its properties computed from them (kept)."""
        found = info.parameters
        if found is None:
            methods = [method for held in self._class_chain(info) for method in self._methods(held).values()]
            found = info.parameters = vocab.parameter_attributes(
                [self._scope_text(method) for method in methods if method.name == "__init__"],
                [
                    (method.name, self._scope_text(method))
                    for method in methods
                    if any(isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list)
                ],
            )
        return found

    def run_class_fact(self, value: Value):
        """The run's fact (``analysis.project.ClassFact``) of a module or data set of a class of
        another file of the run, or None."""
        return self._module_class(value)[0] if value.kind is Kind.MODULE else None

    def _module_class(self, value: Value) -> tuple:
        """(the run's fact, None) for a module of a class of another file of the run, (None, the
        file's class) for one of the file's, (None, None) when neither is known."""
        if value.kind is not Kind.MODULE or value.ref is None:
            return None, None
        if value.ref.startswith("project:"):
            fact = self.project.classes.get(value.ref[len("project:") :]) if self.project is not None else None
            return fact, None
        return None, self._class_table().get(value.ref)

    def module_freezes_itself(self, value: Value) -> bool:
        """Whether a module's class (of the file or of another file of the run) freezes in its
        ``__init__`` every part its methods run (``project.class_freezes_itself``): a VGG feature
        extractor for a style or perceptual loss, whose calls on inputs without grad record no graph."""
        fact, info = self._module_class(value)
        if fact is not None:
            return fact.frozen
        if info is None:
            return False
        if info.freezes_itself is None:
            info.freezes_itself = class_freezes_itself(self._scope_text(info.node))
        return info.freezes_itself

    def module_backpropagates(self, value: Value) -> bool:
        """Whether a module's ``forward`` (in a class of the file or of another file of the run)
        runs a backward pass itself (a meta-learner stepping its own optimizer: a call of it is a
        training step, not an evaluation) or asserts its output requires grad (under ``no_grad``
        every call of it fails), or differentiates its output (``vocabulary.forward_needs_grad``)."""
        if value.kind is Kind.MODULE and value.ref is None and value.alternatives:
            # one of several classes: where one of them needs grad, a call may need it
            return any(self.module_backpropagates(module(ref)) for ref in value.alternatives)
        fact, info = self._module_class(value)
        if fact is not None:
            return fact.backpropagates
        return info is not None and self._forward_needs_grad(info)

    def _forward_needs_grad(self, info: ClassInfo) -> bool:
        """``vocabulary.forward_needs_grad`` of a class's ``forward`` with the methods of the class it
        calls (``self.backward_g(x)``), as the run's index reads another file's classes."""
        forward = self._method_of(info, "forward")
        if forward is None:
            return False
        text = self._scope_text(forward)
        methods = self._methods(info)
        called = {name: self._scope_text(methods[name]) for name in vocab.SELF_CALL_RE.findall(text) if name in methods}
        return vocab.forward_needs_grad(vocab.forward_with_its_helpers({**called, "forward": text}))

    def accumulating_methods(self) -> frozenset:
        """Names of the methods of the file's plain classes and of the run's classes that add an
        argument to what the instance keeps (see ``accumulated_arguments``): asked before a
        value, so that other calls cost nothing."""
        if self._accumulating_methods is None:
            names = set()
            if self.project is not None:
                names.update(self.project.accumulating_method_names())
            for info in self._class_table().values():
                if not info.is_module:
                    names.update(
                        name
                        for name, fn in self._methods(info).items()
                        if not name.startswith("_") and accumulated_parameters(self._scope_text(fn))
                    )
            self._accumulating_methods = frozenset(names)
        return self._accumulating_methods

    def accumulated_arguments(self, value: Value, method: str) -> tuple:
        """Positions of the arguments of ``value.method(...)`` that the method adds to what the
        instance keeps (``meter.update(loss, n)`` of ``AverageMeter``, a plain class of the file
        or of another file of the run: ``self.sum += val * n``); () where unknown."""
        if value.kind is not Kind.OTHER or value.ref is None:
            return ()
        if value.ref.startswith("project:"):
            fact = self.project.classes.get(value.ref[len("project:") :]) if self.project is not None else None
            if fact is None:
                return ()
            return tuple(position for name, position in sorted(fact.accumulating) if name == method)
        info = self._class_table().get(value.ref)
        fn = self._method_of(info, method) if info is not None else None
        return accumulated_parameters(self._scope_text(fn)) if fn is not None else ()

    def method_may_train(self, method: str) -> bool:
        """Whether a class of the file defines ``method`` or a class of another file of the run
        backpropagates by it: else ``instance_method_trains(value, method)`` is False whatever
        ``value`` is, and the value need not be worked out."""
        return method in self.file_method_names() or (
            self.project is not None and method in self.project.training_method_names()
        )

    def file_method_names(self) -> frozenset:
        """The names of the methods the file's classes define (made once), also those a function
        of the file is attached as (``setattr(StepByStep, "predict", predict)``, as a notebook
        adds methods cell by cell)."""
        names = self._class_method_names
        if names is None:
            names = self._class_method_names = (
                frozenset(name for info in self._class_table().values() for name in self._methods(info))
                | self._attached_method_names()
            )
        return names

    def _attached_method_names(self) -> frozenset:
        """``predict`` of a module-level ``setattr(StepByStep, "predict", predict)`` whose class
        is one of the file's."""
        if "setattr(" not in self.source_text:
            return frozenset()
        classes = {info.node.name for info in self._class_table().values()}
        found = set()
        for stmt in self.tree.body:
            call = stmt.value if type(stmt) is ast.Expr else None
            if (
                type(call) is ast.Call
                and type(call.func) is ast.Name
                and call.func.id == "setattr"
                and len(call.args) == 3
                and type(call.args[0]) is ast.Name
                and call.args[0].id in classes
                and isinstance(call.args[1], ast.Constant)
                and isinstance(call.args[1].value, str)
            ):
                found.add(call.args[1].value)
        return frozenset(found)

    def instance_method_trains(self, value: Value, method: str) -> bool:
        """Whether ``value.method(...)`` backpropagates: ``value`` an instance of a class of the
        file or of another file of the run whose ``method`` does, in its own body or through the
        instance's other methods (an agent's ``agent.update(...)`` running ``loss.backward()``)."""
        if value.kind not in (Kind.MODULE, Kind.OTHER) or value.ref is None:
            return False
        if value.ref.startswith("project:"):
            fact = self.project.classes.get(value.ref[len("project:") :]) if self.project is not None else None
            return fact is not None and method in fact.training_methods
        info = self._class_table().get(value.ref)
        definition = self._method_of(info, method) if info is not None else None
        return definition is not None and self._method_trains(info, definition)

    def module_loads_weights(self, value: Value) -> bool:
        """Whether a module's class (of the file or of another file of the run) loads weights in
        its own ``__init__`` (``CFA(checkpoint_name=path)`` runs ``self.load_state_dict(...)``):
        a new instance of it is a trained model, not a fresh one."""
        fact, info = self._module_class(value)
        if fact is not None:
            return fact.loads_weights
        init = self._method_of(info, "__init__") if info is not None else None
        return init is not None and loads_weights(self._scope_text(init))

    def builds_parameterless(self, scope_node: ast.AST, name: str) -> bool:
        """Whether every binding of ``name`` in the scope constructs a torch module without
        parameters: an activation, dropout or pooling layer, a norm layer with ``affine=False``
        (``elementwise_affine=False``), or an ``nn.Sequential`` of such layers. Autograd records
        nothing for it unless its input requires grad."""
        bindings = self.uses(scope_node).bindings_of(name)
        return bool(bindings) and all(
            b.value is not None and type(b.node) is ast.Assign and self._parameterless_construction(b.value)
            for b in bindings
        )

    def _parameterless_construction(self, expr: ast.AST) -> bool:
        while (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in vocab.MODULE_RETURNING_METHODS
        ):
            expr = expr.func.value  # `nn.BatchNorm1d(100, affine=False).train()`: the module itself
        if not isinstance(expr, ast.Call):
            return False
        qual = self.imports.qualified_name(expr.func) or ""
        if not qual.startswith("torch.nn."):
            return False
        last = vocab.last_name(qual)
        if last == "Sequential":
            return bool(expr.args) and all(self._parameterless_construction(arg) for arg in expr.args)
        if last in vocab.PARAMETERLESS_MODULES:
            return True
        flag = "elementwise_affine" if last == "LayerNorm" else "affine"
        if last.startswith(("BatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm")):
            keyword = next((k.value for k in expr.keywords if k.arg == flag), None)
            return keyword is not None and vocab.constant_of(keyword, default=None) is False
        return False

    def _keeps_plain_tensors(self, info: Optional[ClassInfo]) -> bool:
        init = self._method_of(info, "__init__") if info is not None else None
        if init is None:
            return False
        for sub in walk(init):
            if (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == "register_buffer"
                and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == "self"
            ):
                return True  # a buffer: a tensor kept, never a parameter
            if isinstance(sub, ast.Assign) and any(
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                for t in sub.targets
            ):
                for call in walk(sub.value):
                    if isinstance(call, ast.Call):
                        qual = self.imports.qualified_name(call.func) or ""
                        if qual.startswith("torch.") and not qual.startswith("torch.nn."):
                            return True
        return False

    def _class_without_parameters(self, info: Optional[ClassInfo], seen: set) -> bool:
        if info is None or info.key in seen:
            return False
        seen.add(info.key)
        classes = self._class_table()
        if (
            _REQUIRES_GRAD_RE.search(self._scope_text(info.node))
            or any(layer not in vocab.PARAMETERLESS_MODULES or layer in classes for layer in self._layers(info))
            or self._builds_library_objects(info)
        ):
            return False  # a layer with parameters, `nn.Parameter`, a module class of the file
        for base in info.bases:
            if base in classes:
                if not self._class_without_parameters(classes[base], seen):
                    return False
            elif base not in vocab.MODULE_BASES:
                return False
        return True

    def _builds_library_objects(self, info: ClassInfo) -> bool:
        """Whether a class of the file constructs an instance of a class it imports from a
        package other than torch (``self.conv = GATv2Conv(...)`` of ``torch_geometric.nn``): a
        layer the vocabulary does not know, which may hold parameters."""
        for sub in walk(info.node):
            if isinstance(sub, ast.Call):
                qual = self.imports.qualified_name(sub.func)
                if (
                    qual is not None
                    and not qual.startswith(
                        ("torch.", "torchvision.transforms.", *vocab.SIGNAL_TRANSFORMS)
                    )  # image and audio transforms hold no parameters
                    and vocab.last_name(qual)[:1].isupper()
                ):
                    return True
        return False

    def module_has_layers(self, value: Value, names: frozenset) -> Optional[bool]:
        """Whether a module value certainly contains one of the torch.nn layers ``names``
        (True), certainly does not (False), or it is not known (None)."""
        if value.kind is Kind.MODULE and value.ref is None and value.alternatives:
            return _every_alternative(value, lambda one: self.module_has_layers(one, names))
        if value.kind is not Kind.MODULE or value.ref is None:
            return None
        ref = value.ref
        if ref.startswith("project:"):
            fact = self.project.classes.get(ref[len("project:") :]) if self.project is not None else None
            if fact is None:
                return None
            own = bool(fact.layers & names) or (None if not fact.layers else False)
            return self._or_handed_parts(own, value, names)
        if ref.startswith("torchvision.models."):
            built = vocab.torchvision_model_layers(vocab.last_name(ref))
            return None if built is None else bool(built & names)
        if ref.startswith("torch.nn."):
            last = vocab.last_name(ref)
            if last in names:
                return True
            if last in vocab.MODULE_CONTAINERS:
                if value.items is None:
                    return None  # built from modules the code does not show
                found = [self.module_has_layers(layer, names) for layer in value.items]
                if any(f is True for f in found):
                    return True
                return None if any(f is None for f in found) else False
            return False
        info = self._class_table().get(ref)
        if info is None:
            return None
        return self._or_handed_parts(self._class_has_layers(info, names, set()), value, names)

    def _or_handed_parts(self, own: Optional[bool], value: Value, names: frozenset) -> Optional[bool]:
        """``own``, or True where a module its constructor was handed holds one of the layers."""
        if own is True or not value.items:
            return own
        if any(self.module_has_layers(part, names) is True for part in value.items):
            return True
        return own

    # ====================================================================== locating nodes
    def _locate(self, node: ast.AST):
        """(state before the node's statement, frame, names bound by enclosing comprehensions)."""
        location = self._where(node)
        if location is None:
            return None
        stmt = location.statement
        frame = self._frame_for(location.scope)
        if frame is None or frame.flow is None:
            return (None, frame, None)
        state = frame.flow.before.get(id(stmt))
        extra: dict = {}
        if state is not None:
            if location.lambda_ is not None:
                for arg in parameters(location.lambda_):
                    extra[arg.arg] = UNKNOWN
                if state.mode is not GradMode.ENABLED or frame.kind != "module":
                    state = state.with_mode(GradMode.MAYBE if not state.mode.off else state.mode)
            for comp in location.comprehensions:
                extra.update(self._comprehension_bindings(comp, state.bind(extra) if extra else state, frame))
            for test in location.guards:
                extra.update(self.narrowed_by(test, state.bind(extra) if extra else state, frame))
        return (state, frame, extra)

    def _where(self, node: ast.AST) -> Optional[Location]:
        """The statement, enclosing statements and scope of a node (by position, cached)."""
        found = self._locations.get(id(node))
        if found is None:
            found = self._locations[id(node)] = locate(self.tree, node)
        return found

    def _comprehension_bindings(self, comp: ast.AST, state: State, frame: Frame) -> dict:
        names: dict = {}
        for gen in comp.generators:  # type: ignore[attr-defined]
            inner = state.bind(names) if names else state
            iterated = self.evaluate(gen.iter, inner, frame)
            element = self.element_of(iterated, gen.iter)
            self._bind_names(gen.target, element, names)
        return names

    def _bind_names(self, target: ast.AST, value: Value, names: dict) -> None:
        if isinstance(target, ast.Name):
            names[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts = self.unpack(value, len(target.elts), None)
            for elt, part in zip(target.elts, parts):
                self._bind_names(elt, part if part is not None else UNKNOWN, names)

    # ============================================================================= frames
    def _frame_for(self, scope_node: ast.AST) -> Optional[Frame]:
        if isinstance(scope_node, ast.Module):
            return self._module_frame()
        if isinstance(scope_node, FUNCTION_TYPES):
            return self._query_frame(scope_node)
        if isinstance(scope_node, ast.ClassDef):
            return self._run_frame(scope_node, "class", GradMode.ENABLED, {})
        if isinstance(scope_node, ast.Lambda):
            return None
        return None

    def _scope(self, node: ast.AST) -> Scope:
        found = self.scopes.get(node)
        if found is not None:
            return found
        location = self._where(node) if not isinstance(node, ast.Lambda) else None
        parent_node = location.scope if location is not None else self.tree
        parent = self._scope(parent_node) if parent_node is not self.tree else self.scopes.module
        return self.scopes.scope(node, parent)

    def _run_frame(self, node: ast.AST, kind: str, mode: GradMode, env: dict, **extra) -> Optional[Frame]:
        key = (id(node), kind)
        frame = self._frames.get(key)
        if frame is not None:
            return frame
        if key in self._in_progress:
            self._cycle_at(key)
            return None
        frame = Frame(self._scope(node), mode, kind)
        self._made_frames.append(frame)
        frame.entry_env = env
        for name, value in extra.items():
            setattr(frame, name, value)
        self._begin(key)
        head = None
        try:
            frame.flow = ScopeFlow(self, frame, State(dict(env), mode))
        finally:
            head = self._end(key)
        self._keep(head, self._frames, key, frame)
        return frame

    def _module_frame(self, first: bool = False) -> Optional[Frame]:
        if first:
            return self._run_frame(self.tree, "module-first", GradMode.ENABLED, {})
        self._module_frame(first=True)
        return self._run_frame(self.tree, "module", GradMode.ENABLED, {})

    def _summary_frame(self, fn: ast.AST) -> Optional[Frame]:
        found = self._frames.get((id(fn), "summary"))
        if found is not None:
            return found
        return self._run_frame(fn, "summary", *self._summary_entry(fn))

    def _summary_entry(self, fn: ast.AST) -> tuple:
        """(grad mode, names' values) a function's summary starts from: what its decorators
        and definition show, without its callers."""
        mode = self._decorated_mode(fn)
        outer_mode = self._definition_mode(fn)
        if mode is None:
            mode = GradMode.ENABLED if outer_mode is GradMode.ENABLED else GradMode.MAYBE
        return mode, self._parameter_env(fn, callers=None)

    def _query_frame(self, fn: ast.AST) -> Optional[Frame]:
        key = (id(fn), "query")
        frame = self._frames.get(key)
        if frame is not None:
            return frame
        setup = (id(fn), "query-setup")
        if setup in self._in_progress:
            self._cycle_at(setup)
            return self._summary_frame(fn)
        self._begin(setup)
        head = None
        try:
            frame = self._compute_query_frame(fn, key)
        finally:
            head = self._end(setup)
        if head is not None and key in self._frames:
            self._keep(head, self._frames, key, self._frames[key])  # built from answers cut short
        return frame

    def _compute_query_frame(self, fn: ast.AST, key: tuple) -> Optional[Frame]:
        summary_mode, summary_env = self._summary_entry(fn)
        sites = self._callers_of(fn)
        decorated = self._decorated_mode(fn)
        mode = decorated
        assumed = False
        external = self._external_calls(fn) if sites is not None else []
        if mode is None and (sites or external):
            mode = _callers_mode(sites, external)
        if mode is None:
            outer = self._definition_mode(fn)
            mode = GradMode.ENABLED if outer is GradMode.ENABLED else GradMode.MAYBE
            assumed = True
        env = self._parameter_env(fn, callers=sites)
        # The summary's flow serves as the query's when both start alike and the summary used
        # every summary it met; when they start otherwise it is not run here at all.
        summary_frame = (
            self._run_frame(fn, "summary", summary_mode, summary_env)
            if mode is summary_mode and env == summary_env
            else None
        )
        if summary_frame is not None and not summary_frame.skipped_summaries:
            if self._frames.get((id(fn), "summary")) is summary_frame:
                self._frames[key] = summary_frame
                summary_frame.serves_queries = True
            summary_frame.mode_assumed = assumed  # type: ignore[attr-defined]
            return summary_frame
        return self._run_frame(fn, "query", mode, env, mode_assumed=assumed)

    def _external_calls(self, fn: ast.AST) -> list:
        """Whether each call of a module-level function, or of a public method of a module-level
        class on an instance another file makes, from the run's other files sits where grad is
        off (read from their text: a ``no_grad`` block or a decorated function)."""
        if self.project is None or not isinstance(fn, FUNCTION_TYPES):
            return []
        location = self._where(fn)
        if location is None:
            return []
        module = self.project.module_of(self.filename)
        if module is None:
            return []
        if location.scope is self.tree:
            return list(self.project.calls.get(f"{module}.{fn.name}", ()))
        owner = location.scope
        if isinstance(owner, ast.ClassDef) and owner in self.tree.body:
            known = self.project.calls.get(f"{module}.{owner.name}.{fn.name}", ())
            return list(known) if known else self._calls_by_method_name(fn)
        return []

    def _decorated_mode(self, fn: ast.AST) -> Optional[GradMode]:
        mode = None
        for deco in getattr(fn, "decorator_list", ()):
            new = region_mode(classify_grad_mode(deco, self.imports))
            if new is not None:
                mode = new
        if mode is None and self._framework_evaluation_hook(fn):
            mode = GradMode.MAYBE  # the framework runs it without grad (or in inference mode)
        return mode

    def _framework_evaluation_hook(self, fn: ast.AST) -> bool:
        """``validation_step``, ``on_validation_end``... of a ``LightningModule``: hooks the
        trainer runs in its evaluation loops, with grad disabled; ``predict_batch`` of a
        Catalyst runner, which ``runner.predict_loader(...)`` runs without grad."""
        name = getattr(fn, "name", "")
        if name in vocab.LIGHTNING_EVALUATION_HOOKS or name.startswith(vocab.LIGHTNING_EVALUATION_HOOK_PREFIXES):
            suffix = "LightningModule"
        elif name in vocab.CATALYST_EVALUATION_HOOKS and any(
            qual.startswith("catalyst") for qual in self.imports.names.values()
        ):
            suffix = "Runner"
        else:
            return False
        return any(base.endswith(suffix) for held in self._class_chain(self._method_class(fn)) for base in held.bases)

    def _class_chain(self, info: Optional[ClassInfo]) -> list:
        """A class of the file and the classes of the file it derives from, first base first."""
        chain: list = []
        classes = self._class_table()
        while info is not None and all(held.key != info.key for held in chain):
            chain.append(info)
            info = next((classes[b] for b in info.bases if b in classes), None)
        return chain

    def _definition_mode(self, fn: ast.AST) -> GradMode:
        """The grad mode where a function is defined (a function defined inside a region may
        run there or later)."""
        location = self._where(fn)
        if location is None:
            return GradMode.ENABLED
        scope = location.scope
        for stmt in reversed(location.enclosing[:-1]):
            if stmt is scope:
                break
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    kind = classify_grad_mode(item.context_expr, self.imports)
                    mode = region_mode(kind)
                    if mode is not None and mode is not GradMode.ENABLED:
                        return GradMode.MAYBE
        if isinstance(scope, FUNCTION_TYPES):
            decorated = self._decorated_mode(scope)
            if decorated is not None and decorated is not GradMode.ENABLED:
                return GradMode.MAYBE
            if self._outer_callers_run_without_grad(scope):
                # `def get_pred(x)` inside a function its callers run under `no_grad` (in another
                # file of the run, too): it runs where that function runs
                return GradMode.MAYBE
            name = getattr(fn, "name", None)
            if name is not None and any(
                type(node) is ast.Return and type(node.value) is ast.Name and node.value.id == name  # type: ignore[attr-defined]
                for node in self.own_nodes(scope)
            ):
                # `def make_val_step_fn(model): def step(x): ...; return step`: the closure runs
                # where the factory's result is called, which may be under `no_grad`.
                return GradMode.MAYBE
        return GradMode.ENABLED

    def _outer_callers_run_without_grad(self, scope: ast.AST) -> bool:
        """Whether the callers of a function holding a nested one (in the file and the run's
        other files) all run it with grad off. Asked for one level of nesting at a time: a
        nested function's question met while answering another's is not asked (the callers'
        flows may hold further nested functions, each asking again)."""
        if self.__dict__.get("_asking_outer_callers"):
            return False
        self.__dict__["_asking_outer_callers"] = True
        try:
            sites = self._callers_of(scope)
            external = self._external_calls(scope) if sites is not None else []
            return bool(sites or external) and _callers_mode(sites, external) not in (None, GradMode.ENABLED)
        finally:
            self.__dict__["_asking_outer_callers"] = False

    # ========================================================================= parameters
    def _parameter_env(self, fn: ast.AST, callers: Optional[list]) -> dict:
        env: dict = {}
        params = parameters(fn)
        args = fn.args  # type: ignore[attr-defined]
        method_class = self._method_class(fn)
        is_static = any(dotted_name(d) == "staticmethod" for d in getattr(fn, "decorator_list", ()))
        positional = list(args.posonlyargs) + list(args.args)
        first = positional[0].arg if positional and method_class is not None and not is_static else None
        from_callers = self._argument_values(fn, callers, first is not None) if callers else {}
        if from_callers and self._self_test_callers_only(fn, callers):  # type: ignore[arg-type]
            from_callers = {}
        if not from_callers and callers is None:
            from_callers = self._hook_arguments(fn, positional[1:] if first is not None else positional)
        is_forward = getattr(fn, "name", "") == "forward" and method_class is not None and method_class.is_module
        function_ctx = None  # the context parameter of a custom Function's `forward` or `backward`
        if is_static and method_class is not None and method_class.is_autograd_function and positional:
            if getattr(fn, "name", "") in ("forward", "backward"):
                function_ctx = positional[0].arg
        saved = self._saved_for_backward(fn, function_ctx) if function_ctx is not None else frozenset()
        required = set(positional[len(positional) - len(args.defaults) :] if args.defaults else ())
        required = [a for a in positional[1:] if a not in required] if is_forward else []
        for arg in params:
            name = arg.arg
            if name == first:
                env[name] = (
                    self._instance_in_callers_mode(method_class, callers)
                    if name != "cls"
                    else Value(Kind.CLASS, ref=method_class.key)
                )
                continue
            value = None
            if function_ctx is not None:
                if name == function_ctx:
                    env[name] = _FUNCTION_CTX
                    continue
                if fn.name == "backward" or name in saved:  # type: ignore[attr-defined]
                    # the gradients of the outputs; an input `ctx.save_for_backward` takes (tensors only)
                    value = _FUNCTION_TENSOR
            if value is None and arg.annotation is not None:
                value = self.annotation_value(arg.annotation)
                if value is not None and value.kind is Kind.MODULE and name[:1].isupper() and not name.isupper():
                    value = Value(Kind.CLASS)  # `Model: torch.nn.Module`, called `Model(envs)`: a class
            caller_value = from_callers.get(name)
            if value is None and caller_value is not None and caller_value.kind is not Kind.UNKNOWN:
                value = caller_value
            elif value is not None and value.kind is Kind.MODULE and caller_value is not None:
                if caller_value.kind is Kind.MODULE:
                    # `target_net: nn.Module`, handed the script's `target_net` after its `.eval()`:
                    # the callers' module, with its class and mode
                    value = caller_value
            if value is None and is_forward and arg in required:
                value = _FORWARD_INPUT  # what a module is called with: tensors, as a rule
            if value is None and self._counted(fn, name):
                value = NUMBER  # `range(total_val_batches)`: a count, whatever its name says
            if value is None:
                value = self._named_value(name, parameter=True)
            if arg is args.vararg:
                value = container(value if value.kind is not Kind.UNKNOWN else None)
            elif arg is args.kwarg:
                value = container(None)
            env[name] = value
        return env

    def _self_test_callers_only(self, fn: ast.AST, callers: list) -> bool:
        """Whether every call of ``fn`` in its file sits in the file's ``__main__`` block while
        other files of the run call it too: that block is the file's self-test (``act(torch.randn(
        3, 96, 96))``), and what it passes says nothing of what the real callers pass."""
        for site in callers:
            where = self._where(site.call)
            if where is None or where.scope is not self.tree or not where.enclosing:
                return False
            if not is_main_guard(where.enclosing[0]):
                return False
        return bool(self._external_calls(fn))

    def _saved_for_backward(self, fn: ast.AST, ctx_name: str) -> frozenset:
        """The parameters of a custom Function's ``forward`` that it hands to
        ``ctx.save_for_backward(...)`` (which takes tensors or None) and never rebinds."""
        saved: set = set()
        for node in self.own_nodes(fn):
            if (
                type(node) is ast.Call
                and isinstance(node.func, ast.Attribute)  # type: ignore[attr-defined]
                and node.func.attr == "save_for_backward"  # type: ignore[attr-defined]
                and isinstance(node.func.value, ast.Name)  # type: ignore[attr-defined]
                and node.func.value.id == ctx_name  # type: ignore[attr-defined]
            ):
                saved.update(arg.id for arg in node.args if isinstance(arg, ast.Name))  # type: ignore[attr-defined]
        return frozenset(name for name in saved if not self.body_binds(fn, name))

    def _instance_in_callers_mode(self, info: ClassInfo, callers: Optional[list]) -> Value:
        """The instance a method of a module class runs on: in eval mode where every call of the
        method the file shows is made on an instance switched to it (``self.eval()``, then
        ``self.predict(ch, hidden)`` in a generation loop), else as built (training mode)."""
        value = self._instance_value(info)
        if not callers or not info.is_module:
            return value
        for site in callers:
            func = site.call.func
            if not isinstance(func, ast.Attribute):
                return value
            receiver = self._argument_value(func.value, site)
            if receiver.kind is not Kind.MODULE or receiver.roles & _MODULE_MODES != Role.EVALUATING:
                return value
        return value.with_(roles=(value.roles & ~_MODULE_MODES) | Role.EVALUATING)

    def _argument_values(self, fn: ast.AST, sites: list, bound_first: bool) -> dict:
        args = fn.args  # type: ignore[attr-defined]
        positional = [a.arg for a in list(args.posonlyargs) + list(args.args)]
        if bound_first:
            positional = positional[1:]
        keyword_names = set(positional) | {a.arg for a in args.kwonlyargs}
        defaults = parameter_defaults(fn)  # type: ignore[arg-type]
        out: dict = {}
        for site in sites:
            call = site.call
            given: dict = {}
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return {}
            for name, arg in zip(positional, call.args):
                given[name] = self._argument_value(arg, site)
            for kw in call.keywords:
                if kw.arg in keyword_names:
                    given[kw.arg] = self._argument_value(kw.value, site)
            for name in keyword_names:
                if name not in given:
                    default = defaults.get(name)
                    value = UNKNOWN if default is None else self._constant_value(default)
                    given[name] = value
            for name, value in given.items():
                out[name] = join(out.get(name), value) if name in out else value
        return out

    def _hook_arguments(self, fn: ast.AST, positional: list) -> dict:
        """What autograd hands a function the file registers as a hook: a module hook gets the
        module, then its inputs and output (``register_forward_hook``) or the gradients of
        both (``register_full_backward_hook``); a tensor hook (``x.register_hook(f)``) the
        gradient. Empty for a function registered as no hook."""
        given = self._hooks().get(id(fn))
        if given is None:
            return {}
        return {arg.arg: value for arg, value in zip(positional, given)}

    def _hooks(self) -> dict:
        """id(function) -> the values its hook is called with, for each function of the file
        that is registered as a hook by name (``register_forward_hook(hook_fn)``) or as a
        method of the registering class (``register_full_backward_hook(self.save_gradient)``).
        Found in the text first (a pattern), then each name resolved to its definition."""
        found = self.__dict__.get("_hook_table")
        if found is not None:
            return found
        found = self.__dict__["_hook_table"] = {}
        text = self.source_text
        if "register_" not in text or "hook(" not in text:
            return found
        for match in _HOOK_REGISTRATION_RE.finditer(text):
            registration, is_method, name = match.group(1), bool(match.group(2)), match.group(3)
            given = _HOOK_ARGUMENTS.get(registration)
            end = match.end()
            if given is None or (text[end - 1] != ")" and "with_kwargs" in text[end : text.find("\n", end)]):
                continue  # `with_kwargs=True`: the hook is handed other arguments
            if text[end - 1] == "(":
                # a hook a function of the file makes: `register_forward_hook(get_activation("fc"))`
                for made in self._hooks_made_by(name, is_method):
                    found[id(made)] = given
            elif is_method:
                for info in self._class_table().values():
                    method = self._method_node(info, name)
                    if isinstance(method, FUNCTION_TYPES):
                        found[id(method)] = given
            else:
                definitions = self.scopes.module.definitions.get(name, ())
                if len(definitions) == 1 and isinstance(definitions[0], FUNCTION_TYPES):
                    found[id(definitions[0])] = given
        return found

    def _hooks_made_by(self, name: str, is_method: bool) -> list:
        """The functions a hook factory of the file returns: ``def get_activation(name): def
        hook(m, inp, out): ...; return hook`` (a function defined in its body and returned)."""
        if is_method:
            factories = [self._method_node(info, name) for info in self._class_table().values()]
        else:
            factories = list(self.scopes.module.definitions.get(name, ()))
        made = []
        for factory in factories:
            if not isinstance(factory, FUNCTION_TYPES):
                continue
            inner = {stmt.name: stmt for stmt in factory.body if isinstance(stmt, FUNCTION_TYPES)}
            for stmt in factory.body:
                if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Name) and stmt.value.id in inner:
                    made.append(inner[stmt.value.id])
        return made

    def _argument_value(self, arg: ast.expr, site: CallSite) -> Value:
        """What a call site hands a function; a parameter of the caller that it hands on
        unchanged is what the caller's own callers give it (``evaluateInput(searcher)`` calling
        ``evaluate(searcher)``, called with ``searcher = GreedySearchDecoder(...)``)."""
        value = self.evaluate(arg, site.state, site.frame)
        classless = value.kind is Kind.MODULE and value.ref is None and not value.weak
        if (
            (value.kind is Kind.UNKNOWN or value.weak or classless)
            and site.frame.kind == "summary"
            and site.frame.skipped_summaries
        ):
            # The caller's summary did not follow the calls it met (`pred_cls, pred_reg, pred_obj =
            # self.Prediction(featmap)`, then `self.MakeRoI(anchor, pred_reg, pred_obj)`; `model,
            # acc = train_model(model, ...)` of a `-> Tuple[nn.Module, float]`): what it hands on is
            # read from a flow of the caller that does, run only when asked.
            fuller = self._argument_in_full_flow(arg, site)
            if (
                fuller is not None
                and fuller.kind is not Kind.UNKNOWN
                and not (fuller.weak and value.kind is not Kind.UNKNOWN)
                and not (classless and (fuller.kind is not Kind.MODULE or fuller.ref is None))
            ):
                value = fuller
        if (
            (value.kind is Kind.UNKNOWN or value.weak)
            and isinstance(arg, ast.Name)
            and site.frame.kind in ("summary", "caller")
        ):
            # (known by its name alone, `decoder`: what the callers hand it says more)
            handed_on = self._handed_on(site.frame.node, arg.id)
            if handed_on is not None and (value.kind is Kind.UNKNOWN or not handed_on.weak):
                switched = value.roles & _MODULE_MODES
                if switched and handed_on.kind is Kind.MODULE:
                    # `model.train(False)` in the caller before it hands the model on: the mode the
                    # caller switched it to, not the one its own callers gave it
                    return handed_on.with_(roles=(handed_on.roles & ~_MODULE_MODES) | switched)
                return handed_on
        return value

    def _argument_in_full_flow(self, arg: ast.expr, site: CallSite) -> Optional[Value]:
        """``arg`` at ``site`` in a flow of the caller that uses the summaries of the calls it
        meets (kept as its "caller" frame), from the same entry as its summary; None where there
        is none."""
        summary = site.frame
        frame = self._run_frame(summary.node, "caller", summary.entry_mode, summary.entry_env)
        location = self._where(site.call)
        statement = location.statement if location is not None else None
        if frame is None or frame.flow is None or statement is None:
            return None
        state = frame.flow.before.get(id(statement))
        return self.evaluate(arg, state, frame) if state is not None else None

    def _handed_on(self, fn: ast.AST, name: str) -> Optional[Value]:
        """The value a function's callers give its parameter ``name``, when the function never
        binds that name itself (None: not known, or bound in its body)."""
        if not isinstance(fn, FUNCTION_TYPES) or name not in {a.arg for a in parameters(fn)}:
            return None
        if self.body_binds(fn, name):
            return None
        value = self._handed_on_env(fn).get(name)
        return value if value is not None and value.kind is not Kind.UNKNOWN else None

    def _handed_on_env(self, fn: ast.AST) -> dict:
        """Every parameter's value as the function's callers give it, once per function: a
        chain of functions handing a parameter on is followed once, not once per name and
        path (empty where the callers are not all known, or inside a cycle of callers)."""
        key = (id(fn), "handed-on")
        found = self._handed_on_envs.get(key)
        if found is not None:
            return found
        if key in self._in_progress:
            self._cycle_at(key)
            return {}
        self._begin(key)
        head = None
        try:
            sites = self._callers_of(fn)
            env = self._parameter_env(fn, callers=sites) if sites else {}
        finally:
            head = self._end(key)
        self._keep(head, self._handed_on_envs, key, env)
        return env

    def _constant_value(self, node: ast.AST) -> Value:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return NONE_VALUE
            if isinstance(node.value, (int, float, bool)):
                return NUMBER
            return OTHER
        return UNKNOWN

    def _named_value(self, name: str, parameter: bool = False) -> Value:
        """What a parameter's name alone suggests (weak evidence). ``params`` says parameters
        only of a function's parameter: a name bound to what the code made (``params =
        torch.load(path)``, a state dict) holds what that is, however little is known of it."""
        if MODEL_NAME_RE.match(name):
            return module(weak=True)
        match = LOADER_NAME_RE.match(name)
        if match:
            if name.lower().endswith("loaders"):
                # `dataloaders[phase]`, `loaders["val"]`: a dict or list of loaders
                return container(loader(split_of_text(name), weak=True))
            return loader(split_of_text(name), weak=True)
        if OPTIMIZER_NAME_RE.match(name):
            return _NAMED_OPTIMIZER
        if parameter and PARAMETERS_NAME_RE.match(name) and "parameters" not in self._hand_made_members():
            return container(tensor(Grad.YES, Role.PARAM | Role.LEAF, weak=True))
        return UNKNOWN

    def annotation_value(self, annotation: ast.AST) -> Optional[Value]:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Subscript):
            head = self.imports.qualified_name(annotation.value) or dotted_name(annotation.value) or ""
            parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
            if head.rsplit(".", 1)[-1] == "Callable" and len(parts) == 2:
                # `make_critic: Callable[[Tuple[int, ...], int], nn.Module]`: what a call of it returns
                returned = self.annotation_value(parts[1])
                return Value(Kind.FUNCTION, elem=returned) if returned is not None else None
            return None
        qual = self.imports.qualified_name(annotation)
        if qual is None:
            name = dotted_name(annotation)
            if name is None:
                return None
            info = self._class_table().get(name)
            if info is not None:
                # An instance made elsewhere: its train/eval mode is not known here.
                found = self._instance_value(info)
                return found.with_(roles=found.roles & ~Role.TRAINING)
            return None
        made = self._project_class(qual)
        if made is not None:
            # `neural_net: DeFINe` of a class another file of the run defines; its mode not known here
            return made.with_(roles=made.roles & ~Role.TRAINING)
        if qual in _TENSOR_ANNOTATIONS:
            return tensor(Grad.YES if qual == "torch.nn.Parameter" else Grad.MAYBE)
        if qual in vocab.MODULE_BASES or (qual.startswith("torch.nn.") and vocab.last_name(qual)[:1].isupper()):
            return module(qual if qual not in vocab.MODULE_BASES else None)
        if qual.startswith(vocab.OPTIMIZER_PREFIX):
            return OPTIMIZER
        if qual in vocab.DATALOADER_NAMES:
            return loader()
        return None

    # ====================================================================== the flow's helpers
    def used_as_module(self, scope_node: ast.AST, name: str) -> bool:
        """Whether a scope's text uses ``name`` as only modules are used (``.parameters()``,
        ``.eval()``, ``.load_state_dict(...)``) and never as a tensor or a loss."""
        return self._evident(scope_node, name) is _EVIDENT_MODULE

    def _evident(self, scope_node: ast.AST, name: str) -> Optional[Value]:
        """What a scope's uses of ``name`` show it to be: used with an attribute only tensors
        have (``p.grad``, ``p.detach()``) it holds a tensor; ``.backward()`` called on it, a
        loss with a graph; ``.parameters()``/``.eval()``, a module. Read from the scope's text
        (lines), not by walking its nodes."""
        key = (id(scope_node), name)
        if key in self._use_evidence:
            return self._use_evidence[key]
        found = None
        if not isinstance(scope_node, ast.Lambda):
            hand_made = self._hand_made_members()
            text = self._scope_text(scope_node)
            size = len(name)
            end = len(text)
            i = text.find(name + ".")
            while i >= 0:
                before = text[i - 1] if i else " "
                if not (before.isalnum() or before in "_.") and not _commented_out(text, i):
                    j = i + size + 1
                    k = j
                    while k < end and (text[k].isalnum() or text[k] == "_"):
                        k += 1
                    attr = text[j:k]
                    rest = text[k : k + 8].lstrip()
                    called = rest.startswith("(")
                    if attr in hand_made:
                        pass  # `v.grad` of the file's own autograd values says nothing of tensors
                    elif attr in _PACKED_FIELDS and not called:
                        found = PACKED  # `x.data, x.batch_sizes`: a PackedSequence's fields
                        break
                    elif called and attr == "backward" and _foreign_backward(text, text.index("(", k)):
                        pass  # `gcam.backward(ids=ids)`: a wrapper's own method, not the tensor's
                    elif called and attr == "backward":
                        # autograd accepts a call without a gradient only on a one-element output
                        if not _implicit_backward(text, text.index("(", k)):
                            found = _EVIDENT_LOSS
                            break
                        found = _EVIDENT_SCALAR_LOSS
                    elif called and attr in ("sum", "mean") and _REDUCED_BACKWARD_RE.match(text, k):
                        found = _EVIDENT_LOSS  # `(loss.sum()).backward()`: its reduction is backpropagated
                        break
                    elif found is _EVIDENT_SCALAR_LOSS:
                        pass  # a loss already: other uses say nothing more
                    elif called and attr in _MODULE_EVIDENCE_METHODS:
                        found = found or _EVIDENT_MODULE
                    elif (
                        called
                        and attr == "forward"
                        and not self._plain_forward_shown()
                        and not _names_loss_function(name.rpartition(".")[2])
                    ):
                        # `self.DQN.forward(state)`: run as modules are (not `loss.forward(a, b)`, a
                        # criterion's: what it computes is a loss)
                        found = found or _EVIDENT_MODULE
                    elif (
                        (called and attr in _TENSOR_EVIDENCE_METHODS)
                        or attr in _TENSOR_EVIDENCE_ATTRIBUTES
                        or (attr == "size" and _SIZE_OF_A_DIMENSION_RE.match(text, k) is not None)
                    ):
                        found = _EVIDENT_TENSOR if found is None or found is _EVIDENT_MODULE else found
                i = text.find(name + ".", i + size + 1)
        self._use_evidence[key] = found
        return found

    def _scope_text(self, scope_node: ast.AST) -> str:
        """The lines of a scope's code (the whole text for the module)."""
        if isinstance(scope_node, ast.Module):
            return self.source_text
        cached = self._scope_texts.get(id(scope_node))
        if cached is None:
            starts = self._line_starts()
            first = scope_node.lineno  # type: ignore[attr-defined]
            last = scope_node.end_lineno  # type: ignore[attr-defined]
            stop = starts[last] if last < len(starts) else len(self.source_text)
            cached = self._scope_texts[id(scope_node)] = self.source_text[starts[first - 1] : stop]
        return cached

    def make_leaf(self, value: Value) -> Value:
        return value.with_(grad=Grad.YES, roles=(value.roles | Role.LEAF) & ~Role.DETACHED)

    def entered_value(self, value: Value) -> Value:
        """``with x as y``: what ``y`` is (autocast, no_grad and files give nothing useful; a
        functional-module context, ``higher.innerloop_ctx(net, opt)``, the copy and its optimizer)."""
        if value.kind is Kind.TENSOR:
            return value
        if value.kind is Kind.OTHER and value.ref in vocab.FUNCTIONAL_MODULE_CONTEXTS and value.items:
            return container(items=value.items)
        return UNKNOWN

    def import_value(self, stmt: ast.stmt, alias: ast.alias) -> Value:
        instance = self.imported_instance(alias.asname or alias.name) if isinstance(stmt, ast.ImportFrom) else None
        if instance is not None:
            # `from Architecture.model import model`: the model another file of the run builds
            # (`from models import mnist_resnet18` of `mnist_resnet18 = models.resnet18()`: torchvision's)
            ref = instance if instance.startswith("torchvision.models.") else "project:" + instance
            return Value(Kind.MODULE, Grad.NO, Role.TRAINING, ref=ref)
        qual = self.imports.names.get(alias.asname or alias.name) if isinstance(stmt, ast.ImportFrom) else None
        if qual is not None and qual.rpartition(".")[2][:1].isupper() and self._project_class(qual) is not None:
            # `from models.hnn import HNN`: a class of the run, as a value too (`{"hnn": HNN}`)
            return Value(Kind.CLASS, Grad.NO, ref=qual)
        return _IMPORTED

    def imported_instance(self, local: str) -> Optional[str]:
        """The class key of a module-level instance another file of the run binds, imported
        here under ``local`` (``ProjectIndex.instances``); None for any other name."""
        if self.project is None or not self.project.instances:
            return None
        known = self._imported_instances
        if local not in known:
            qual = self.imports.names.get(local)
            known[local] = (
                self.project.instances.get(self._project_name(qual)) if qual is not None and "." in qual else None
            )
        return known[local]

    def qualified_name(self, node: ast.AST, state: State) -> Optional[str]:
        """``imports.qualified_name`` where the root name still holds its import here
        (``import model`` then ``model = model.Net()``: ``model(x)`` is no longer the module)."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return None
        bound = state.env.get(root.id)
        if bound is not None and bound is not _IMPORTED and not self._imported_class(bound, root.id):
            return None
        return self.imports.qualified_name(node)

    def _imported_class(self, bound: Value, name: str) -> bool:
        """Whether a name's binding is the run's class its import binds (``import_value``)."""
        return bound.kind is Kind.CLASS and bound.ref is not None and bound.ref == self.imports.names.get(name)

    def definition_value(self, stmt: ast.stmt, frame: Frame) -> Value:
        if isinstance(stmt, ast.ClassDef):
            info = self._class_table().get(self._class_key(stmt))
            return Value(Kind.CLASS, ref=info.key if info else None)
        ref = str(id(stmt))
        self._definitions[ref] = stmt
        return Value(Kind.FUNCTION, ref=ref)

    def unpack(self, value: Value, count: int, value_node: Optional[ast.AST]) -> list:
        """The values of ``a, b = value``."""
        if value.items is not None and len(value.items) == count:
            return list(value.items)
        if value.kind is Kind.TENSOR:
            # ``out, h = model(x, h)``: unpacking a model's result gives tensors. Of a model
            # the code does not show, three or more results may mix outputs with graphs and
            # tensors without (``rois, roi_indices, anchor = ...``): each may carry one.
            part = value.with_(roles=value.roles & (Role.OUTPUT | Role.INFERENCE | Role.DETACHED))
            if count >= 3 and value.weak and value.has(Role.OUTPUT) and part.grad is Grad.YES:
                part = part.with_(grad=Grad.MAYBE)
            return [part] * count
        if value.kind is Kind.CONTAINER and value.elem is not None:
            return [value.elem] * count
        if (
            isinstance(value_node, ast.Call)
            and isinstance(value_node.func, ast.Attribute)
            and value_node.func.attr == "size"
            and not value_node.args
        ) or (isinstance(value_node, ast.Attribute) and value_node.attr == "shape"):
            return [NUMBER] * count  # `B, C, H, W = x.size()`: sizes
        return [None] * count

    def narrowed_by(self, test: ast.AST, state: State, frame: Frame) -> dict:
        """What ``if isinstance(v, torch.Tensor):`` (or ``Variable``, ``nn.Parameter``) shows
        of a name its value does not tell: a tensor in the branch (pyright's narrowing); with
        a builtin class or ``np.ndarray``, something that is not a tensor; with a plain class
        of the file or of the run, an instance of it."""
        if not (
            isinstance(test, ast.Call)
            and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance"
            and len(test.args) == 2
            and isinstance(test.args[0], ast.Name)
        ):
            return {}
        name = test.args[0].id
        current = state.env.get(name)
        if current is not None and current.kind is not Kind.UNKNOWN and not current.weak:
            return {}  # what the code shows wins; a guess from a name does not
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        quals = [self.imports.qualified_name(c) for c in classes]
        if quals and all(q in _TENSOR_CLASSES for q in quals):
            return {name: tensor(Grad.MAYBE)}
        if quals and all(q is not None and q.endswith("rnn.PackedSequence") for q in quals):
            return {name: PACKED}  # `assert isinstance(x_text, rnn_utils.PackedSequence)`: `.data` is its field
        if quals and all(
            q is not None and q.startswith("torch.nn.") and q.count(".") == 2 and q.rsplit(".", 1)[1][:1].isupper()
            for q in quals
        ):
            # `isinstance(lstm_unit, nn.LSTM)`, `isinstance(m, (nn.Conv2d, nn.Linear))`: a torch layer
            return {name: module(quals[0] if len(quals) == 1 else None)}
        if quals and all(
            q == "numpy.ndarray" or (q is None and isinstance(c, ast.Name) and c.id in _BUILTIN_CLASSES)
            for q, c in zip(quals, classes)
        ):
            return {name: OTHER}  # `isinstance(v, dict)`, `isinstance(x, np.ndarray)`: not a tensor there
        if len(classes) == 1:
            # `assert isinstance(container, ModelContainerPT)`: an instance of a plain class of the
            # file or of the run (its methods are read where it is used), not a module
            made = self._project_class(quals[0]) if quals[0] is not None else None
            if made is None:
                callee = self.evaluate(classes[0], state, frame)
                info = self._class_table().get(callee.ref) if callee.kind is Kind.CLASS and callee.ref else None
                made = self._instance_value(info) if info is not None else None
            if made is not None and made.kind is Kind.OTHER:
                return {name: made}
        return {}

    @staticmethod
    def unpacked_part(whole: Value, part: Value, name: str) -> Value:
        """A name unpacked from a loss's result: ``loss_l, loss_c = criterion(out, y)`` binds
        two losses with graphs; ``loss, acc = ...`` one loss and something else."""
        if (
            whole.kind is Kind.TENSOR
            and whole.has(Role.LOSS)
            and part.kind is Kind.TENSOR
            and _names_loss_function(name)
        ):
            return part.with_(roles=part.roles | Role.LOSS)
        return part

    def element_of(self, value: Value, iter_node: Optional[ast.AST]) -> Value:
        """What iterating over ``value`` yields."""
        if value.kind is Kind.LOADER:
            if value.elem is not None:
                return value.elem
            return container(tensor(Grad.NO, weak=value.weak))
        if value.kind is Kind.CONTAINER:
            return value.elem if value.elem is not None else UNKNOWN
        if value.kind is Kind.TENSOR:
            return value.with_(roles=value.roles & (Role.PARAM | Role.INFERENCE | Role.DETACHED))
        if value.kind is Kind.DATASET:
            return container(items=value.items) if value.items is not None else container(tensor(Grad.NO))
        if value.kind is Kind.NUMBER:
            return NUMBER  # `probs.tolist()`: numbers
        if value.kind is Kind.OTHER and value.ref is None:
            return OTHER  # text, an array: what it holds carries no graph either
        return UNKNOWN

    # ========================================================================= evaluation
    def evaluate(self, node: Optional[ast.AST], state: State, frame: Frame) -> Value:
        if node is None:
            return UNKNOWN
        method = _EVALUATORS.get(type(node))
        if method is None:
            return UNKNOWN
        return method(self, node, state, frame)

    def _name(self, node: ast.Name, state: State, frame: Frame) -> Value:
        return self.lookup(node.id, state, frame)

    def lookup(self, name: str, state: State, frame: Frame) -> Value:
        found = state.env.get(name)
        free = found is None
        if free:
            found = self._free_value(name, frame)
        if found is _LOADED and self._called(frame.node if not free else self.tree, name):
            return module()  # `net = torch.load(path)`, then `net(x)`: a whole pickled model
        if found.kind is Kind.UNKNOWN:
            evident = self._evident(frame.node, name)
            if (
                evident is None
                and free
                and frame.node is not self.tree
                and not frame.scope.binds(name)
                and self.scopes.module.binds(name)
            ):
                # A global: what the module's code shows of it (`G_AB.parameters()` handed to
                # the optimizer, `G_AB.cuda()`) holds in every function reading it.
                evident = self._evident(self.tree, name)
            if evident is not None:
                if evident.kind is Kind.TENSOR and not evident.weak and not free and not frame.scope.binds(name):
                    # a comprehension's own name of unknown value: the scope's uses of that name
                    # may be another comprehension's (`[t.detach() for t in a]`, `[t[i] for t in b]`)
                    return evident.with_(weak=True)
                if evident.kind is Kind.TENSOR and not evident.weak and not self.bound_once(frame.node, name):
                    # what the uses show may be of another value the name holds (`y = np.sin(x)`,
                    # then `y = torch.tensor(y)` and `y.numpy()`): no more than a guess
                    return evident.with_(weak=True)
                return evident
            if self._counted(frame.node, name):
                return NUMBER
            return self._named_value(name)
        if (
            found.kind is Kind.TENSOR
            and found.weak
            and self._reads_packed_fields
            and self._evident(frame.node, name) is PACKED
        ):
            return PACKED  # (a parameter taken for a tensor whose `.batch_sizes` the scope reads)
        if found.kind is Kind.TENSOR and found.weak and found.has(Role.OUTPUT):
            # `cls_model = model_cls()` then `cls_model.eval()`: a call of something known by its
            # name alone that made a module, not a forward pass
            if self._evident(frame.node, name) is _EVIDENT_MODULE and self.bound_once(frame.node, name):
                return module(weak=True)
        if found.kind is Kind.TENSOR and not found.has(Role.LOSS) and found.grad is not Grad.NO:
            evident = self._evident(frame.node, name)
            if (evident is _EVIDENT_LOSS or evident is _EVIDENT_SCALAR_LOSS) and self.bound_once(frame.node, name):
                return found.with_(grad=Grad.YES, roles=found.roles | Role.LOSS)
        return found

    def _counted(self, scope_node: ast.AST, name: str) -> bool:
        """Whether a scope's text hands ``name`` to ``range`` (``for i in range(total_val_batches)``):
        an int, whatever its name (``total_val_batches`` divides a sum of losses into a number).
        The names handed to ``range`` are read once per scope."""
        key = (id(scope_node), "range(", "counted")
        counted = self._use_evidence.get(key)
        if counted is None:
            text = self._scope_text(scope_node)
            counted = set()
            at = text.find("range(")
            while at >= 0:
                close = text.find(")", at + 6)
                if close > 0 and (not at or not (text[at - 1].isalnum() or text[at - 1] in "_.")):
                    arguments = text[at + 6 : close]
                    nested = arguments.find("(")
                    if nested >= 0:
                        # `range(len(a))`, `range(0, n(x))`: only the arguments before a call
                        arguments = arguments[:nested].rpartition(",")[0]
                    counted.update(part.strip() for part in arguments.split(",") if part.strip().isidentifier())
                at = text.find("range(", at + 6)
            self._use_evidence[key] = counted
        return name in counted  # type: ignore[operator]

    def _called(self, scope_node: ast.AST, name: str) -> bool:
        """Whether a scope's text calls ``name`` (``net(x)``; not ``def net(``, not ``obj.net(``)."""
        key = (id(scope_node), name, "called")
        found = self._use_evidence.get(key)
        if found is None:
            pattern = rf"(?<![\w.])(?<!def ){re.escape(name)}\s*\("
            found = self._use_evidence[key] = re.search(pattern, self._scope_text(scope_node)) is not None
        return found  # type: ignore[no-any-return]

    def backpropagated_binding(self, scope_node: ast.AST, name: str, statement: ast.AST, value: Value) -> Value:
        """A tensor of unknown grad that a scope binding ``name`` in several places binds at
        ``statement``: a loss with a graph when ``name.backward()`` is called after it and
        before the name is bound again (``y = f(x); y.backward()``; a later ``y = f(x_t)`` is
        not). A name bound once is judged where it is read (``lookup``)."""
        if self.bound_once(scope_node, name):
            return value
        evident = self._evident(scope_node, name)
        if evident is not _EVIDENT_LOSS and evident is not _EVIDENT_SCALAR_LOSS:
            return value
        after = (statement.end_lineno, statement.end_col_offset)  # type: ignore[attr-defined]
        uses = self.uses(scope_node)
        later = [
            (b.node.lineno, b.node.col_offset)
            for b in uses.bindings
            if b.name == name and hasattr(b.node, "lineno") and (b.node.lineno, b.node.col_offset) >= after
        ]
        until = min(later) if later else None
        for call in uses.calls:
            func = call.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "backward"
                and isinstance(func.value, ast.Name)
                and func.value.id == name
                and after < (call.lineno, call.col_offset)
                and (until is None or (call.lineno, call.col_offset) < until)
            ):
                return value.with_(grad=Grad.YES, roles=value.roles | Role.LOSS)
        return value

    def bound_once(self, scope_node: ast.AST, name: str) -> bool:
        """Whether the scope binds ``name`` in one place only: then what its text shows about
        the name (``y.backward()``) is about every value it holds; with several, it may be
        about another one (``y = f(x); y.backward()`` then ``y = f(x_t); y.numpy()``)."""
        key = (id(scope_node), name)
        found = self._single_bindings.get(key)
        if found is None:
            found = self._single_bindings[key] = len(self.uses(scope_node).bindings_of(name)) <= 1
        return found

    def _free_value(self, name: str, frame: Frame) -> Value:
        scope = frame.scope
        if scope.binds(name):
            return UNKNOWN
        # A free name: an enclosing function's state at the definition, or the module's.
        parent = scope.parent
        node = frame.node
        while parent is not None:
            if parent.is_module:
                at_calls = self._global_at_calls(name, node)
                return at_calls if at_calls is not None else self._global_value(name)
            if parent.is_function and parent.binds(name):
                if isinstance(parent.node, ast.Lambda):
                    return UNKNOWN
                location = self._where(node)
                stmt = None
                if location is not None and parent.node in location.enclosing:
                    index = location.enclosing.index(parent.node)
                    if index + 1 < len(location.enclosing):
                        stmt = location.enclosing[index + 1]  # the statement of the outer body holding it
                if stmt is None:
                    return UNKNOWN
                found = self._value_before(self._summary_frame(parent.node), stmt, name)
                if found.kind is Kind.UNKNOWN:
                    # unknown without the enclosing function's callers: what they hand it
                    # (`def evaluate(actor): def policy(s): return actor(s)`, `evaluate(agent.actor)`)
                    found = self._value_before(self._query_frame(parent.node), stmt, name)
                return found
            node = parent.node
            parent = parent.parent
        return UNKNOWN

    @staticmethod
    def _value_before(frame: Optional[Frame], stmt: ast.AST, name: str) -> Value:
        """What ``name`` holds in ``frame``'s flow before ``stmt`` (unknown where not run)."""
        before = frame.flow.before.get(id(stmt)) if frame is not None and frame.flow is not None else None
        return before.env.get(name, UNKNOWN) if before is not None else UNKNOWN

    def _global_value(self, name: str) -> Value:
        frame = self._module_frame(first=True)  # (kept once made: `_run_frame`)
        if frame is None or frame.flow is None or frame.flow.exit is None:
            return self._definition_global(name)
        found = frame.flow.exit.env.get(name)
        if found is not None:
            for value in self._global_rebindings(name):
                found = join(found, value) or UNKNOWN
            return found
        return self._definition_global(name)

    def _global_at_calls(self, name: str, fn: ast.AST) -> Optional[Value]:
        """What a module-level function called only by the module's own code sees of a global
        the module binds more than once, or switches between training and evaluation: the values
        it holds before those calls (a notebook's `def show(): model.conv1(img)` called in its
        cell, before a later cell binds `model` to another network or calls `model.eval()`). None
        where that is not known: the function called elsewhere too, or the global bound once and
        never switched (the module's end then holds what every call sees)."""
        if not isinstance(fn, FUNCTION_TYPES) or self._global_rebindings(name):
            return None
        if self.bound_once(self.tree, name) and not self._mode_switched_in_text(name):
            return None
        sites = self._call_sites_of(fn)
        if not sites or any(scope is not self.tree for _, scope in sites):
            return None
        frame = self._module_frame(first=True)
        if frame is None or frame.flow is None:
            return None
        found: Optional[Value] = None
        for call, _ in sites:
            location = self._where(call)
            state = frame.flow.before.get(id(location.statement)) if location is not None else None
            if state is None:
                return None
            value = state.env.get(name, UNKNOWN)
            found = value if found is None else join(found, value) or UNKNOWN
        return found

    def _mode_switched_in_text(self, name: str) -> bool:
        """Whether the file switches ``name`` between training and evaluation (``net.eval()``,
        ``net.train()``): a global bound once whose mode a later cell changes (the names so
        switched, found in one pass over the text)."""
        switched = self.__dict__.get("_mode_switched_names")
        if switched is None:
            text = self.source_text
            names = set()
            for match in _MODE_SWITCH_RE.finditer(text):
                start = end = match.start()
                while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
                    start -= 1
                if start < end and (start == 0 or text[start - 1] != "."):
                    names.add(text[start:end])
            switched = self.__dict__["_mode_switched_names"] = frozenset(names)
        return name in switched

    def _global_rebindings(self, name: str) -> list:
        """What the module's functions that declare ``global name`` assign to it (``_model =
        SpeakerEncoder(...)`` in ``load_model``, the module binding ``_model = None``): values
        read without the function's locals, unknown otherwise."""
        if self._global_assigned is None:
            # name -> [(function, assigned value)], from one scan of the module's functions
            table: dict = {}
            text = self.source_text
            if "global " in text:
                # Only the functions whose lines hold the word (walking every function's
                # nodes for a `global` statement cost more than the rest of this question).
                starts = self._line_starts()
                rows = sorted({bisect.bisect_right(starts, i) for i in _occurrences(text, "global")})
                for fn in self.tree.body:
                    if not isinstance(fn, FUNCTION_TYPES):
                        continue
                    first = bisect.bisect_left(rows, fn.lineno)
                    if first == len(rows) or rows[first] > fn.end_lineno:  # type: ignore[operator]
                        continue
                    own = self.own_nodes(fn)
                    declared = {n for node in own if type(node) is ast.Global for n in node.names}  # type: ignore[attr-defined]
                    for node in own if declared else ():
                        if type(node) is ast.Assign:
                            for target in node.targets:  # type: ignore[attr-defined]
                                if type(target) is ast.Name and target.id in declared:  # type: ignore[attr-defined]
                                    table.setdefault(target.id, []).append((fn, node.value))  # type: ignore[attr-defined]
            self._global_assigned = table
        return [self._without_locals(fn, value) or UNKNOWN for fn, value in self._global_assigned.get(name, ())]

    def reads_grad_globals(self, fn: ast.AST) -> bool:
        """Whether a module-level function reads a module-level name that holds a tensor with
        a graph or requiring grad (``w`` in ``def net(x): return x @ w``): weights of a model
        written by hand. From the module's own flow; no question about the function's."""
        found = self._grad_globals.get(id(fn))
        if found is None:
            # In a module holding no such tensor at all, no function's names are looked at.
            found = self._grad_globals[id(fn)] = self._module_holds_grad_tensors() and any(
                _grad_tensor(self._global_value(name)) for name in _free_loads(fn, self.scopes.get(fn))
            )
        return found

    def reads_grad_globals_at(self, fn: ast.AST, call: ast.AST) -> bool:
        """``reads_grad_globals`` where a script's own code calls the function: the module-level
        names it reads as they are before that statement (a notebook's numpy ``w = 0.0`` and
        ``def forward(x): return w * x``, called before a later cell makes ``w`` a tensor that
        requires grad). Calls inside functions see the module's names as ``reads_grad_globals``."""
        if not self.reads_grad_globals(fn):
            return False
        location = self._where(call)
        if location is None or location.scope is not self.tree:
            return True
        located = self._locate(call)
        state = located[0] if located is not None else None
        if state is None:
            return True
        names = _free_loads(fn, self.scopes.get(fn))
        return any(_grad_tensor(state.env[name]) for name in names if name in state.env) or any(
            name not in state.env and _grad_tensor(self._global_value(name)) for name in names
        )

    def _module_holds_grad_tensors(self) -> bool:
        """Whether some module-level name ends up holding a tensor with a graph or requiring
        grad (worked out once)."""
        if self._holds_grad_globals is None:
            frame = self._module_frame(first=True)
            if frame is None or frame.flow is None or frame.flow.exit is None:
                self._holds_grad_globals = True  # not known: ask per name
            else:
                self._holds_grad_globals = any(_grad_tensor(v) for v in frame.flow.exit.env.values())
        return self._holds_grad_globals

    def _definition_global(self, name: str) -> Value:
        defs = self.scopes.module.definitions.get(name)
        if defs:
            stmt = defs[-1]
            return self.definition_value(stmt, None)  # type: ignore[arg-type]
        return UNKNOWN

    def _constant(self, node: ast.Constant, state: State, frame: Frame) -> Value:
        return self._constant_value(node)

    def _attribute(self, node: ast.Attribute, state: State, frame: Frame) -> Value:
        if state.switched and type(node.value) is ast.Name and node.value.id == "self":
            switched = state.switched.get(node.attr)
            if switched is not None:
                return switched  # `self.model.eval()` earlier in the scope
        found = self._attribute_value(node, state, frame)
        if found.kind is Kind.UNKNOWN and isinstance(node.value, ast.Name) and node.value.id == "self":
            # ``self.optimizer`` / ``self.netD`` set from a parameter: the name is the evidence.
            if OPTIMIZER_NAME_RE.match(node.attr):
                return _NAMED_OPTIMIZER
            if MODEL_NAME_RE.match(node.attr):
                return module(weak=True)
            # ``self.cost.backward()`` in the method: a loss with a graph (``return self.cost``).
            evident = self._evident(frame.node, "self." + node.attr)
            if evident is _EVIDENT_LOSS or evident is _EVIDENT_SCALAR_LOSS:
                return evident
            if evident is None and frame.node is not self.tree:
                # what the class's other methods do with it (`Adam(self._gen.parameters())` in
                # `__init__`)
                info = self._method_class(frame.node)
                evident = self._evident(info.node, "self." + node.attr) if info is not None else None
            if evident is _EVIDENT_MODULE:
                # `self._gen = generator.cuda()` of a parameter, then `self._gen.eval()`: a module,
                # whatever its name (known from its uses, not from the name)
                return module()
        elif (
            found.kind is Kind.UNKNOWN
            and isinstance(node.value, ast.Name)
            and MODEL_NAME_RE.match(node.attr)
            and self._evident(frame.node, f"{node.value.id}.{node.attr}") is _EVIDENT_MODULE
        ):
            # `sbs_obj.model.eval()`, then `sbs_obj.model(x)`: a trainer's model, used as one
            return module(weak=True)
        return found

    def _attribute_value(self, node: ast.Attribute, state: State, frame: Frame) -> Value:
        attr = node.attr
        qual = self.qualified_name(node, state)
        if qual is not None:
            return self._qualified_value(qual)
        receiver = self.evaluate(node.value, state, frame)
        kind = receiver.kind
        if type(node.value) is ast.Name and node.value.id == "self" and frame.node is not self.tree:
            held = self._set_earlier_in_method(node, state, frame)
            if held is not None:
                return held
        if kind is Kind.DATASET and attr in _DATASET_TENSOR_FIELDS:
            ref = receiver.ref or ""
            info = self._class_table().get(ref) if ref else None
            if info is not None:
                # a data set class of the file: what its methods assign (`self.y = y`, an array
                # handed in), not what torch's data sets hold under that name; of its split
                held = self._instance_attribute(info, attr)
                if held.kind is Kind.UNKNOWN:
                    held = self._last_set_in_init(info, attr)  # `self.x = np.matrix(...)`, then a tensor
                if held.kind is Kind.TENSOR and held.split is None and receiver.split is not None:
                    return held.with_(split=receiver.split)
                return held
            if ref.startswith("torchvision.datasets.") and vocab.last_name(ref) not in _TENSOR_FIELD_DATASETS:
                return OTHER  # `CIFAR10(...).targets`: a list; `.data`: an array
            return tensor(Grad.NO).with_(split=receiver.split)
        if attr == "data":
            if kind is Kind.TENSOR:
                return receiver.with_(
                    grad=Grad.NO, roles=(receiver.roles & (Role.SCALAR | Role.INFERENCE | Role.PARAM)) | Role.DETACHED
                )
            return UNKNOWN
        if attr == "grad":
            return tensor(Grad.NO, weak=kind is not Kind.TENSOR)
        if attr in ("T", "mT", "H", "mH", "real", "imag"):
            return receiver if kind is Kind.TENSOR else UNKNOWN
        if attr in vocab.READ_ATTRIBUTES:
            if attr == "requires_grad":
                return NUMBER
            if attr == "shape" and kind is Kind.UNKNOWN:
                return OTHER  # a tensor's or an array's sizes, whatever holds them: no graph
            return OTHER if kind is Kind.TENSOR else UNKNOWN
        if kind is Kind.MODULE:
            return self._module_attribute(receiver, attr, node, frame)
        if kind is Kind.OPTIMIZER:
            if attr == "param_groups":
                return container(container(container(tensor(Grad.YES, Role.PARAM))))
            return UNKNOWN
        if kind is Kind.TENSOR:
            if attr in ("shape",):
                return OTHER
            if attr == "loss" and receiver.has(Role.OUTPUT):
                # `output = model(**batch); output.loss`: the loss a model computes with its
                # output (Hugging Face's ModelOutput), with the output's graph
                return tensor(receiver.grad, Role.LOSS | Role.SCALAR, weak=True)
            return UNKNOWN
        if receiver is _FUNCTION_CTX and attr in ("saved_tensors", "saved_variables"):
            return container(_FUNCTION_TENSOR)  # what `ctx.save_for_backward(...)` kept
        if (
            kind is Kind.OTHER
            and (receiver.ref or "").startswith(vocab.NON_TORCH_MODEL_PACKAGES + vocab.GRAD_OFF_ESTIMATOR_PACKAGES)
            and attr.endswith("_")
        ):
            # `gs.best_estimator_` of scikit-learn's `GridSearchCV(net, ...)`: an estimator it fitted
            # (a skorch net's, or its own), no torch module
            return Value(Kind.OTHER, Grad.NO, ref=receiver.ref)
        if kind is Kind.OTHER and (receiver.ref or "").startswith("project:") and frame.kind != "module-first":
            # `trainer._gen` of a `Trainer` another file of the run defines: what that file shows
            module_key, _, name = receiver.ref[len("project:") :].rpartition(".")  # type: ignore[index]
            other = self._run_file_model(module_key) if self._summaries_allowed(frame) else None
            info = other._class_table().get(name) if other is not None and other.filename != self.filename else None
            return _portable(other._held_attribute(info, attr), other) if info is not None else UNKNOWN  # type: ignore[union-attr]
        if kind is Kind.OTHER and receiver.ref is not None:
            info = self._class_table().get(receiver.ref)
            if info is not None and frame.kind != "module-first":
                return self._held_attribute(info, attr)
            return UNKNOWN
        if kind is Kind.OTHER:
            # `self.agents[i].qnet_targ` of agents of several classes: the run's classes store
            # only module classes under `qnet_targ`
            return self._stored_module_class(attr) or UNKNOWN
        if kind is Kind.UNKNOWN:
            if attr in ("weight", "bias") or vocab.RNN_PARAMETER_RE.match(attr):
                return tensor(Grad.YES, Role.PARAM, weak=True)
            if attr in ("running_mean", "running_var"):
                return tensor(Grad.NO, weak=True)
            if attr == "module":
                return receiver
            if attr in ("loss",):
                return UNKNOWN
            if MODEL_NAME_RE.match(attr) and isinstance(node.value, ast.Name) and node.value.id == "self":
                return module(weak=True)
            held = self._stored_module_class(attr)
            if held is not None:
                # `self.critic.Q_func` of a critic handed in: the run's classes store only module
                # classes under `Q_func` (`self.Q_func = LL_DQN(...)`)
                return held
        return UNKNOWN

    def stored_layer(self, receiver: Value, attr: str) -> Optional[Value]:
        """``net.feat_extraction`` of a module of no known class (``net = torch.load(path)``),
        where module classes of the run store only torch layers under ``attr`` (``self.feat_extraction
        = nn.Sequential(...)``) and no class of the file or the run defines a method of that name:
        a part of the model, in the model's mode."""
        project = self.project
        if (
            project is None
            or receiver.kind is not Kind.MODULE
            or receiver.ref is not None
            or attr not in project.layer_stores
            or attr in project.other_stores
            or attr in project.submodule_classes
            or attr in self.file_method_names()
            or attr in project.method_names()
        ):
            return None
        return Value(Kind.MODULE, Grad.NO, receiver.roles & _MODULE_MODES, weak=True)

    def stores_only_parameterless_layers(self, attr: str) -> bool:
        """Whether the run's module classes store under ``attr`` only torch layers without
        parameters (``self.act = nn.Softmax(dim=-1)``), nothing else the run's classes construct,
        and no class of the file or the run defines a method of that name: ``model.act(logits)``
        of a model of no known class runs no weights."""
        project = self.project
        if project is None:  # one file alone: what its own classes store
            values = [
                site[2] for info in self._class_table().values() for site in self._attribute_assignments(info, attr)
            ]
            made = [(self.imports.qualified_name(v.func) or "") if isinstance(v, ast.Call) else "" for v in values]
            return (
                bool(made)
                and all(
                    qual.startswith("torch.nn.") and vocab.last_name(qual) in vocab.PARAMETERLESS_MODULES
                    for qual in made
                )
                and attr not in self.file_method_names()
            )
        return (
            attr in project.parameterless_stores
            and attr not in project.weighted_stores
            and attr not in project.other_stores
            and attr not in project.submodule_classes
            and attr not in self.file_method_names()
            and attr not in project.method_names()
        )

    def _stored_module_class(self, attr: str) -> Optional[Value]:
        """A module, where the run's classes store instances of its module classes under ``attr``
        and nothing else they construct (``ProjectIndex.submodule_classes``, ``other_stores``): of
        that class where they store only one."""
        project = self.project
        classes = project.submodule_classes.get(attr, ()) if project is not None else ()
        if not classes or attr in project.other_stores:  # type: ignore[union-attr]
            return None
        ref = "project:" + next(iter(classes)) if len(classes) == 1 else None
        return Value(Kind.MODULE, Grad.NO, ref=ref, weak=True)

    def _qualified_value(self, qual: str) -> Value:
        last = vocab.last_name(qual)
        if qual.startswith("torch.") and last[:1].isupper():
            return Value(Kind.CLASS, ref=qual)
        if qual.startswith("torch.") and qual.count(".") > 1:
            # `loss_func = F.cross_entropy`: a call of the name is a call of torch's function
            return Value(Kind.OTHER, ref=qual)
        if qual.startswith(vocab.TEACHING_PACKAGES) and last in vocab.TEACHING_MODELS | vocab.TEACHING_LOSSES:
            return Value(Kind.OTHER, ref=qual)  # `net, loss = d2l.linreg, d2l.squared_loss`
        if self.run_function(qual) is not None:
            return Value(Kind.OTHER, ref=RUN_FUNCTION + qual)  # `net = utils.linreg`: a function of the run
        if last[:1].isupper() and self._project_class(qual) is not None:
            return Value(Kind.CLASS, ref=qual)  # `MODEL_REGISTRY = {"mlp": MLP, "hnn": HNN}` of the run's classes
        return OTHER

    def project_function(self, qualified: str) -> Optional[tuple]:
        """(that file's tree, the function's node) for a module-level function another file of
        the run defines, by the name this file imports it under (``plotutils.show_next_word``),
        or a static method of one of its classes (``GradientUtils.gradient``); None where there
        is no such function or no run (``ProjectIndex.function_node``, ``static_method_node``)."""
        if self.project is None:
            return None
        key = self.project.function_key(self.filename, qualified)
        return self.project.function_node(key) or self.project.static_method_node(key)

    def project_function_differentiates(self, qualified: str) -> bool:
        """Whether ``qualified`` names a module-level function of another file of the run whose
        body runs a backward pass or differentiates (``loss.backward()``, ``torch.autograd.grad(``,
        comprehensions included): what it is handed may be backpropagated (kept per name)."""
        if self.project is None or qualified.startswith(("torch.", "torchvision.")) or "." not in qualified:
            return False
        found = self._project_differentiating.get(qualified)
        if found is None:
            function = self.project_function(qualified)
            found = self._project_differentiating[qualified] = function is not None and (
                _DIFFERENTIATES_RE.search(ast.unparse(function[1])) is not None
                or _helper_differentiates(function[0], function[1])
            )
        return found

    def project_differentiated_parameters(self, qualified: str) -> dict:
        """{name: position (None for keyword-only)} of the parameters that a module-level function
        of another file of the run differentiates itself: handed to ``torch.autograd.grad`` or the
        root of a ``.backward()`` receiver (``def get_grads(x, out): torch.autograd.grad(out[:, i],
        x, ...)``, comprehensions included); empty where it differentiates nothing it is handed
        (a label that only enters a loss, ``y``), kept per name."""
        found = self._project_differentiated.get(qualified)
        if found is not None:
            return found
        found = {}
        located = self.project_function(qualified) if self.project_function_differentiates(qualified) else None
        if located is not None:
            function = located[1]
            spec = function.args
            positional = [a.arg for a in (*spec.posonlyargs, *spec.args)]
            named = set(positional) | {a.arg for a in spec.kwonlyargs}
            used: set = set()
            for node in walk_in_order(function):
                if type(node) is not ast.Call:
                    continue
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "backward":
                    root = func.value
                    while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                        root = root.func if isinstance(root, ast.Call) else root.value
                    if isinstance(root, ast.Name):
                        used.add(root.id)
                elif dotted_name(func) in ("torch.autograd.grad", "autograd.grad", "grad"):
                    used.update(
                        n.id
                        for a in (*node.args, *(k.value for k in node.keywords))
                        for n in walk_in_order(a)
                        if type(n) is ast.Name
                    )
            found = {name: (positional.index(name) if name in positional else None) for name in used & named}
        self._project_differentiated[qualified] = found
        return found

    def run_function(self, qual: str) -> Optional[str]:
        """The run's key of ``qual`` where it names a function another file of the run defines
        (``utils.linreg`` of ``import utils``: ``ProjectIndex.functions``), else None."""
        if self.project is None or "." not in qual or qual.startswith(("torch.", *vocab.PLAIN_VALUE_LIBRARIES)):
            return None
        key = self.project.function_key(self.filename, qual)
        return key if key in self.project.functions else None

    def _module_attribute(self, receiver: Value, attr: str, node: ast.Attribute, frame: Frame) -> Value:
        if attr == "module":
            return receiver
        if attr == "_parameters":
            # a module's own parameters by name (`for name, p in lstm._parameters.items()`)
            return container(tensor(Grad.YES, Role.PARAM | Role.LEAF))
        found = self._submodule(receiver, attr, frame)
        mode = receiver.roles & (Role.TRAINING | Role.EVALUATING)
        if found.kind is Kind.MODULE and mode:
            # `.eval()` and `.train()` switch every submodule: `model.decoder` after
            # `model.eval()` is in eval mode too.
            return found.with_(roles=(found.roles & ~(Role.TRAINING | Role.EVALUATING)) | mode)
        return found

    def _submodule(self, receiver: Value, attr: str, frame: Frame) -> Value:
        info = self._class_table().get(receiver.ref) if receiver.ref else None
        if info is not None and frame.kind != "module-first":
            value = self._instance_attribute(info, attr)
            if value.kind is not Kind.UNKNOWN:
                return value
            method = self._method_of(info, attr)
            if method is not None:
                # `model.train_model(x, y)`, `trainer.evaluate_model()`: a method of the class, not a
                # submodule, whatever its name (a call of it is judged as a method's)
                return UNKNOWN
            if any(self._evident(held.node, "self." + attr) is _EVIDENT_MODULE for held in self._class_chain(info)):
                # `self.baseline = ptu.build_mlp(...)` (or None), then `Adam(self.baseline.parameters())`
                # in the class: a module, known from its uses
                return module()
            if attr in ("weight", "bias") and any(
                self._attribute_assignments(held, attr) for held in self._class_chain(info)
            ):
                # `self.weight = weight` (a loss's class weights, `[0.25, 0.75]`): what the class
                # stores there, not a layer's own parameter
                return UNKNOWN
        elif (receiver.ref or "").startswith("project:") and self.project is not None:
            fact = self.project.classes.get(receiver.ref[len("project:") :])  # type: ignore[index]
            if fact is not None and (attr in fact.quiet_methods or attr in fact.running_methods):
                return UNKNOWN  # a method of another file's class
            if fact is not None and receiver.kind is Kind.MODULE and attr in fact.submodules:
                # `self.model._encoder` of another file's `Model`: a layer it stores, with its weights
                return Value(Kind.MODULE, Grad.NO, receiver.roles, weak=receiver.weak)
        if attr in ("weight", "bias") or vocab.RNN_PARAMETER_RE.match(attr):
            # `lstm_cell.weight_ih`, `lstm.bias_hh_l0`: a recurrent layer's parameters
            return tensor(Grad.YES, Role.PARAM | Role.LEAF, weak=receiver.weak)
        if attr in ("running_mean", "running_var"):
            return tensor(Grad.NO)
        if receiver.ref and receiver.ref.startswith("torch.nn."):
            return UNKNOWN
        if (receiver.ref or "").startswith("torchvision.models.") and attr in vocab.TORCHVISION_SUBMODULES:
            return module()  # `alexnet.features`: a part of torchvision's model, with its weights
        if receiver.ref is None and self.project is not None:
            classes = self.project.submodule_classes.get(attr, ())
            if len(classes) == 1:
                # `model.crf` of a model of unknown class, where the run's module classes store
                # one class under that name (`self.crf = CRF(num_tags)`)
                return Value(Kind.MODULE, Grad.NO, receiver.roles, ref="project:" + next(iter(classes)), weak=True)
            layer = self.stored_layer(receiver, attr)
            if layer is not None:
                return layer
        if MODEL_NAME_RE.match(attr):
            return module(weak=True)
        return UNKNOWN

    def self_method_runs_model(self, call: ast.Call) -> bool:
        """Whether ``self.<method>(...)`` inside a class of the file runs a method of that class
        that calls a module the instance holds (a trainer's ``def compute_batch(self, batch): ...
        self.model(images)``; a module's own ``def wavenet(self, x): x = self.start_conv(x) ...``,
        called by its ``generate``) and neither backpropagates, steps nor turns grad off: a model
        call made through a helper."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
            return False
        cls = next((s for s in self.enclosing(call) if isinstance(s, ast.ClassDef)), None)
        if cls is None:
            return False
        memo = self._summaries  # the model's per-node answers
        key = (id(cls), func.attr, "self-method-runs-model")
        if key not in memo:
            memo[key] = False
            info = self._class_table().get(self._class_key(cls))
            # a module's own `self.forward(x)` is its call; a plain class's `forward` is a helper like any
            fn = (
                self._method_node(info, func.attr)
                if info is not None and (func.attr != "forward" or not info.is_module)
                else None
            )
            if isinstance(fn, ast.FunctionDef) and not fn.decorator_list:
                text = self._scope_text(fn)
                if not (".backward(" in text or ".step(" in text or any(word in text for word in _GRAD_OFF_WORDS)):
                    # a module class's own call (`out = self(images)` in a `validation_step`) runs it
                    memo[key] = (
                        (info.is_module and _ITSELF_CALLED_RE.search(text) is not None)
                        # a model written by hand: weights the instance makes (`self.fit(X)` reading `self.w`)
                        or (not info.is_module and self._computes_with_own_weights(info, fn, set()))
                    ) or any(
                        # runs it (`self.model(images)`, not `self.model.parameters()` nor a method
                        # of it another class defines), a module the code shows (not a name)
                        not match.group(2)
                        and (held := self._held_attribute(info, match.group(1))).kind is Kind.MODULE  # type: ignore[arg-type]
                        # a module named like one only where the method hands back its output as
                        # it is (`def forward(self, x): out = self.net(x); return out`)
                        and (not held.weak or _hands_back_own_call(fn, match.group(1)))
                        and not parameterless_layer(held)  # `self.flatten(t)` of an `nn.Flatten`: no graph
                        for match in _SELF_PART_CALL_RE.finditer(text)
                    )
        return bool(memo[key])

    def _held_attribute(self, info: ClassInfo, attr: str) -> Value:
        """What an instance of a plain class of the file holds in ``attr``: what its methods
        store there, else a module where the class's code uses it as one (`self.Model = m`, then
        `self.Model.eval()`), or is named like one (set where this file does not show) and is no
        method of the class (a data set's `def generator(self, ...)`)."""
        held = self._instance_attribute(info, attr)
        if held.kind is not Kind.UNKNOWN and not (held.kind is Kind.MODULE and held.weak):
            return held
        forwarded = _property_forwarding(info.node, attr) if attr in self._methods(info) else None
        if forwarded is not None and forwarded not in self._methods(info):
            return self._held_attribute(info, forwarded)  # `@property def model(self): return self._model`
        if self._evident(info.node, "self." + attr) is _EVIDENT_MODULE:
            # used as one (`Adam(self._gen.parameters())`): a module, known from the code
            return held.with_(weak=False) if held.kind is Kind.MODULE else module()
        if held.kind is Kind.UNKNOWN and attr in self._methods(info):
            return held  # `test_set.generator(...)`: a method the class defines, whatever its name
        if held.kind is Kind.MODULE or MODEL_NAME_RE.match(attr):
            return held if held.kind is Kind.MODULE else module(weak=True)
        return held

    def _instance_value(self, info: Optional[ClassInfo]) -> Value:
        if info is None:
            return UNKNOWN
        if info.is_module:
            mode = Role.EVALUATING if init_switches_to_eval(self._methods(info).get("__init__")) else Role.TRAINING
            return Value(Kind.MODULE, Grad.NO, mode, ref=info.key)
        if info.is_dataset:
            return dataset(None, info.key)
        return Value(Kind.OTHER, Grad.NO, ref=info.key)

    def _set_earlier_in_method(self, node: ast.Attribute, state: State, frame: Frame) -> Optional[Value]:
        """What ``self.<attr>`` holds where the method reading it assigned it before, in
        statements of its own body alone (``self.x = df[cols].values``, then ``self.x =
        torch.tensor(self.x)``: an array there, whatever the class assigns elsewhere); None where
        the method does not, or does so inside a branch or a loop."""
        own = self._own_attribute_sites.get(id(frame.node))
        if own is None:
            own = self._own_attribute_sites[id(frame.node)] = _top_level_attribute_sets(frame.node)
        sites = own.get(node.attr)
        if not sites:
            return None
        at = (node.lineno, node.col_offset)
        before = [(stmt, value) for stmt, value in sites if (stmt.end_lineno, stmt.end_col_offset) <= at]
        if not before:
            return None
        info = self._method_class(frame.node)
        if info is None or any(
            method is frame.node and not any(stmt is top for top, _ in sites)
            for method, stmt, _, _ in self._attribute_assignments(info, node.attr)
        ):
            return None  # set in a branch or a loop too: which one reaches the read is the flow's
        _, value = before[-1]
        # (a part of an unpacked call's result, `out, self.h = self.rnn(x, self.h)`: the class's answer)
        return self.evaluate(value, state, frame) if value is not None else None

    def _instance_attribute(self, info: ClassInfo, attr: str) -> Value:
        key = (info.key, attr)
        found = self._class_attributes.get(key)
        if found is not None:
            return found
        if key in self._in_progress:
            self._cycle_at(key)
            return UNKNOWN
        self._begin(key)
        incomplete: list = []
        head = None
        try:
            value = self._compute_instance_attribute(info, attr, set(), incomplete)
        finally:
            head = self._end(key)
        if not incomplete:
            self._keep(head, self._class_attributes, key, value)
        return value

    def _attribute_assignments(self, info: ClassInfo, attr: str) -> list:
        """[(method, statement, value or None, annotation or None)] for the statements of a
        class's methods that assign ``self.<attr>`` (``=`` or an annotation), and the
        class-level annotation of ``attr``. Found by searching the class's text for
        ``self.<attr>``, then reading only those statements."""
        key = (info.key, attr)
        found = self._attribute_sites.get(key)
        if found is not None:
            return found
        sites: list = []
        text = self._scope_text(info.node)
        starts = self._line_starts()
        base = starts[info.node.lineno - 1]
        lines = sorted(
            {bisect.bisect_right(starts, base + i) for i in _occurrences(text, attr) if text.endswith("self.", 0, i)}
        )
        for stmt in info.node.body:
            if isinstance(stmt, FUNCTION_TYPES):
                if not lines or lines[-1] < stmt.lineno or lines[0] > stmt.end_lineno:  # type: ignore[operator]
                    continue
                for sub in iter_statements(stmt.body, lines):
                    if isinstance(sub, ast.Assign):
                        for target in sub.targets:
                            if _is_self_attribute(target, attr):
                                sites.append((stmt, sub, sub.value, None))
                            elif isinstance(target, ast.Tuple):
                                # ``self.G, self.D = G, D``: each element of a tuple of the same length
                                parts = sub.value.elts if isinstance(sub.value, ast.Tuple) else None
                                for index, elt in enumerate(target.elts):
                                    if _is_self_attribute(elt, attr):
                                        part = (
                                            parts[index]
                                            if parts is not None and len(parts) == len(target.elts)
                                            else None
                                        )
                                        sites.append((stmt, sub, part, None))
                    elif isinstance(sub, ast.AnnAssign) and _is_self_attribute(sub.target, attr):
                        sites.append((stmt, sub, None, sub.annotation))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                sites.append((None, stmt, None, stmt.annotation))
        self._attribute_sites[key] = sites
        return sites

    def self_attribute_values(self, node: ast.Attribute) -> Optional[list]:
        """What each statement of the class's methods assigning ``self.<attr>`` gives it, for a
        ``self.<attr>`` read in a method (``self.loss_G_L1 = self.criterionL1(fake, real)`` in
        ``backward_G``, read in ``get_current_errors``); None where one is not a plain value."""
        if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            return None
        location = self._where(node)
        function = location.scope if location is not None else None
        info = self._method_class(function) if function is not None else None
        if info is None:
            return None
        sites = self._attribute_assignments(info, node.attr)
        if not sites or any(value is None for _, _, value, _ in sites):
            return None
        return [self.value(value) for _, _, value, _ in sites]

    def _compute_instance_attribute(self, info: ClassInfo, attr: str, seen: set, incomplete: list) -> Value:
        seen.add(info.key)
        text = self._scope_text(info.node)
        for quote in ('"', "'"):
            if f"register_buffer({quote}{attr}{quote}" in text:
                # `self.register_buffer("step", torch.zeros(1))`: a tensor, whatever else is assigned
                return tensor(Grad.NO)
            if f"register_parameter({quote}{attr}{quote}" in text:
                return tensor(Grad.YES, Role.PARAM | Role.LEAF)
        values: list = []
        for method, stmt, value_node, annotation in self._attribute_assignments(info, attr):
            if annotation is not None:
                annotated = self.annotation_value(annotation)
                if annotated is not None:
                    values.append(annotated)
                elif method is not None:
                    values.append(UNKNOWN)
                continue
            if value_node is None:  # ``self.a, self.b = pair``: the element is not known
                values.append(UNKNOWN)
                continue
            if _moved_itself(value_node, attr):
                continue  # ``self.gan = self.gan.cuda()``: what the other assignments store, moved
            values.append(self._stored_value(method, stmt, value_node, incomplete))
        if not values:
            forwarded = _property_forwarding(info.node, attr)
            if forwarded is not None:
                # `@property def model(self): return self._model`: what the class holds there
                return self._instance_attribute(info, forwarded)
            for base in info.bases:
                base_info = self._class_table().get(base)
                if base_info is not None and base_info.key not in seen:
                    value = self._compute_instance_attribute(base_info, attr, seen, incomplete)
                    if value.kind is not Kind.UNKNOWN:
                        return value
                elif base_info is None and "." in base and self.project is not None:
                    # a base class of another file of the run that stores a module there
                    # (`self.p_net = p_net` of `p_net: nn.Module`, `self.fc = nn.Linear(...)`)
                    fact = self.project.classes.get(self._project_name(base))
                    if fact is not None and attr in fact.submodules:
                        return module()
            return UNKNOWN
        # `self.actors = [None for _ in range(n)]`, then `self.actors[i] = Actor(...)`: a list of
        # placeholders filled by index holds what is stored into it (`values.join`)
        values += [container(item) for item in self._attribute_items(info, attr, incomplete)]
        found = join_all(values) or UNKNOWN
        if found.kind is Kind.MODULE and self._switched_to_eval_in_init(info, attr, text):
            # `self.teacher = teacher; self.teacher.eval()` in `__init__`, never switched back by
            # the class: every method sees it in eval mode (a distillation trainer's teacher)
            found = found.with_(roles=(found.roles & ~Role.TRAINING) | Role.EVALUATING)
        if found.kind is Kind.TENSOR and found.weak and _module_use_pattern(attr).search(text):
            # `self.online_net = net(o_dim, a_dim)` of a class handed in as `net`: named like a
            # model, so its call looked like a forward pass; `self.online_net.parameters()` or
            # `self.online_net(x)` shows a module, which no tensor is
            return module(weak=True)
        return found

    def _switched_to_eval_in_init(self, info: ClassInfo, attr: str, text: str) -> bool:
        """Whether the class's ``__init__`` switches ``self.<attr>`` to eval mode in its own body
        (``self.teacher.eval()``, not under an ``if``) and no code of the class switches it back."""
        if f"self.{attr}.eval()" not in text or f"self.{attr}.train(" in text:
            return False
        init = self._method_of(info, "__init__")
        return init is not None and any(
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Attribute)
            and stmt.value.func.attr == "eval"
            and not stmt.value.args
            and dotted_name(stmt.value.func.value) == f"self.{attr}"
            for stmt in init.body  # type: ignore[attr-defined]
        )

    def _attribute_items(self, info: ClassInfo, attr: str, incomplete: list) -> list:
        """The values the class's methods store into items of ``self.<attr>`` (``self.actors[i] =
        Actor(...)``), each evaluated where it is stored."""
        text = self._scope_text(info.node)
        needle = f"self.{attr}["
        if needle not in text:
            return []
        # Only the statements on the lines where `self.<attr>[` occurs are read (a class's
        # methods may be thousands of lines), each method's in breadth-first order.
        starts = self._line_starts()
        base = starts[info.node.lineno - 1]
        lines = sorted({bisect.bisect_right(starts, base + i) for i in occurrences(text, needle)})
        found = []
        for stmt in info.node.body:
            if not isinstance(stmt, FUNCTION_TYPES) or lines[-1] < stmt.lineno or lines[0] > stmt.end_lineno:  # type: ignore[operator]
                continue
            stores = [
                sub
                for sub in iter_statements(stmt.body, lines)
                if isinstance(sub, ast.Assign)
                and len(sub.targets) == 1
                and isinstance(sub.targets[0], ast.Subscript)
                and _is_self_attribute(sub.targets[0].value, attr)
            ]
            if len(stores) > 1:
                depth = _statement_depths(stmt)
                stores.sort(key=lambda sub: (depth[id(sub)], sub.lineno, sub.col_offset))
            for sub in stores:
                found.append(self._stored_value(stmt, sub, sub.value, incomplete))
        return found

    def _stored_value(self, method: ast.AST, stmt: ast.stmt, value_node: ast.AST, incomplete: list) -> Value:
        """The value a statement of a method stores on the instance: read off the expression
        where it needs no local of the method (``nn.Linear(...)``), else evaluated in the
        method's summary flow before the statement (``incomplete`` records a method whose flow
        could not be had)."""
        light = self._without_locals(method, value_node)
        if light is not None:
            return light  # ``self.fc = nn.Linear(...)``: no need to run the method
        built = self._layer_builder_call(value_node)
        if built is not None:
            return built  # ``self.block = deconv(c, c // 2, 4)`` of a helper returning ``nn.Sequential(*layers)``
        frame = self._summary_frame(method)
        if frame is None:
            incomplete.append(method)
        state = frame.flow.before.get(id(stmt)) if frame and frame.flow else None
        return self.evaluate(value_node, state, frame) if state is not None else UNKNOWN  # type: ignore[arg-type]

    def _layer_builder_call(self, node: ast.AST) -> Optional[Value]:
        """A module, for a call of a module-level function of the file defined once whose every
        ``return`` hands back a torch layer it constructs (``def deconv(...): ... return
        nn.Sequential(*layers)``): what a module's ``__init__`` stores from it, read off the
        helper's text (a summary frame runs no other function's summary)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        definitions = self.scopes.module.definitions.get(node.func.id) or ()
        if len(definitions) != 1 or not isinstance(definitions[0], FUNCTION_TYPES) or self.rebinds(node.func.id):
            return None
        key = (id(definitions[0]), "layer-builder")
        if key not in self._summaries:
            returned = [sub.value for sub in self.own_nodes(definitions[0]) if isinstance(sub, ast.Return)]
            constructors = {
                self.imports.qualified_name(value.func) if isinstance(value, ast.Call) else None for value in returned
            }
            self._summaries[key] = (
                # built in training mode, as a torch layer constructed here
                Value(Kind.MODULE, Grad.NO, Role.TRAINING, ref=constructors.pop() if len(constructors) == 1 else None)
                if returned
                and all(
                    name is not None
                    and name.startswith("torch.nn.")
                    and name.count(".") == 2
                    and vocab.last_name(name)[:1].isupper()
                    for name in constructors
                )
                else None
            )
        return self._summaries[key]  # type: ignore[no-any-return]

    def _last_set_in_init(self, info: ClassInfo, attr: str) -> Value:
        """The value the last statement of ``__init__``'s own body that assigns ``self.<attr>``
        gives it (``self.x = torch.from_numpy(self.x)`` after ``self.x = np.matrix(...)``)."""
        last = None
        for method, stmt, value_node, _ in self._attribute_assignments(info, attr):
            if getattr(method, "name", None) == "__init__" and stmt in method.body and value_node is not None:
                if last is None or stmt.lineno > last[1].lineno:
                    last = (method, stmt, value_node)
        if last is None:
            return UNKNOWN
        key = ("last-set", info.key, attr)
        if key in self._in_progress:
            self._cycle_at(key)
            return UNKNOWN  # `self.x = self.x + noise`: its own earlier value is not known here
        method, stmt, value_node = last
        self._begin(key)
        try:
            frame = self._summary_frame(method)
            state = frame.flow.before.get(id(stmt)) if frame is not None and frame.flow is not None else None
            return self.evaluate(value_node, state, frame) if state is not None and frame is not None else UNKNOWN
        finally:
            self._end(key)

    def _without_locals(self, method: ast.AST, value_node: ast.AST) -> Optional[Value]:
        """The value of an expression that reads no name of ``method`` (no parameter, no local):
        evaluated with the module's globals, without interpreting the method. None otherwise."""
        scope = self._scope(method)
        for node in walk(value_node):
            if isinstance(node, ast.Name) and node.id != "self" and scope.binds(node.id):
                return None
            if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr)):
                return None
        base = self._module_frame(first=True)
        if base is None or base.flow is None or base.flow.exit is None:
            return None
        state = base.flow.exit
        info = self._method_class(method)
        if info is not None:
            state = state.bind({"self": self._instance_value(info)})
        return self.evaluate(value_node, state, base)

    def _subscript(self, node: ast.Subscript, state: State, frame: Frame) -> Value:
        if self.imports.qualified_name(node.value) == "sys.modules":
            self.discard(node.slice, state, frame)
            return OTHER  # a module object (`d2l = sys.modules[__name__]`), whatever its uses look like
        receiver = self.evaluate(node.value, state, frame)
        self.discard(node.slice, state, frame)
        kind = receiver.kind
        key = node.slice
        if kind is Kind.TENSOR:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                if receiver.has(Role.OUTPUT) and not receiver.weak:
                    # `output["out"]` of a model of the file whose forward returns a dict of tensors
                    return tensor(receiver.grad, Role.OUTPUT, weak=True)
                return UNKNOWN
            if receiver.has(Role.SCALAR) and isinstance(key, ast.Constant) and key.value == 0:
                # `loss.data[0]`: torch 0.3's idiom for the loss as a number (`.item()` today;
                # indexing a 0-dim tensor raises, GG105)
                return NUMBER
            roles = receiver.roles & (Role.INFERENCE | Role.DETACHED)
            return tensor(receiver.grad, roles, weak=receiver.weak).with_(split=receiver.split)
        if kind is Kind.CONTAINER:
            if receiver.keyed is not None and isinstance(key, ast.Constant) and isinstance(key.value, str):
                found = next((value for name, value in receiver.keyed if name == key.value), None)
                if found is not None and found.kind is Kind.MODULE:
                    # `nets["tnet"]` of `nets = {"snet": snet, "tnet": tnet}`: that model, in a mode
                    # the flow does not follow (code keeping models in a dict switches them in a
                    # loop over it: `for key in context: context[key].eval()`)
                    return found.with_(roles=found.roles & ~(Role.TRAINING | Role.EVALUATING))
                if found is not None and found.kind is Kind.LOADER and found.split is None:
                    return found.with_(split=split_of_text(key.value))  # `loaders["val"]`
                if found is not None:
                    return found
            if receiver.items is not None and isinstance(key, ast.Constant) and isinstance(key.value, int):
                index = key.value
                if -len(receiver.items) <= index < len(receiver.items):
                    return receiver.items[index]
            if isinstance(key, ast.Slice):
                return receiver
            element = receiver.elem if receiver.elem is not None else UNKNOWN
            if element.kind is Kind.LOADER and isinstance(key, ast.Constant) and isinstance(key.value, str):
                return element.with_(split=split_of_text(key.value))
            if isinstance(key, ast.Constant) and key.value == "params" and element.kind is Kind.CONTAINER:
                return element
            if (
                element.weak
                and element.has(Role.PARAM)
                and isinstance(key, ast.Constant)
                and isinstance(key.value, str)
            ):
                # `params["g"]` of a parameter named `params`: a dict of settings read by key, not
                # the parameters of a model (those come as a list or an iterator)
                return UNKNOWN
            return element
        if kind is Kind.MODULE and (receiver.ref is None or receiver.ref in _INDEXED_MODULES):
            # a layer of an `nn.Sequential` or `nn.ModuleList` (`alexnet.features[0]`)
            if isinstance(key, ast.Slice):
                return receiver.with_(items=None)
            items = receiver.items
            if items is not None and isinstance(key, ast.Constant) and isinstance(key.value, int):
                if receiver.ref == "torch.nn.Sequential" and -len(items) <= key.value < len(items):
                    return items[key.value]  # type: ignore[no-any-return]
                return join_all(items) or module(weak=receiver.weak)
            return module(weak=receiver.weak)
        if kind is Kind.LOADER and isinstance(key, ast.Constant) and isinstance(key.value, str):
            return loader(split_of_text(key.value), weak=receiver.weak)
        if kind is Kind.DATASET and receiver.items is not None and not isinstance(key, ast.Slice):
            return container(items=receiver.items)  # `image, label = train_set[0]`
        if kind is Kind.OTHER and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return NUMBER  # `x.shape[0]`: a size
        if kind is Kind.NUMBER:
            return NUMBER  # `x.data.tolist()[0]`, `x.size()[1]`: an item of plain numbers
        if kind is Kind.UNKNOWN and isinstance(key, ast.Constant) and isinstance(key.value, str):
            base = dotted_name(node.value) or ""
            last = base.rsplit(".", 1)[-1].lower()
            if "loader" in last or last in ("dataloaders", "loaders", "dls", "iterators"):
                return loader(split_of_text(key.value), weak=True)
            if key.value == "params":
                return container(tensor(Grad.YES, Role.PARAM, weak=True))
        if isinstance(node.value, ast.Attribute) and (
            kind is Kind.UNKNOWN or (kind is Kind.OTHER and self.is_import(node.value))
        ):
            # `datasets.dataloaders[phase]`: a dict of loaders, here another module's
            last = node.value.attr.lower()
            if last.endswith("loaders") or last in ("dls", "iterators"):
                split = (
                    split_of_text(key.value) if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
                )
                return loader(split, weak=True)
        return UNKNOWN

    def _binop(self, node: ast.BinOp, state: State, frame: Frame) -> Value:
        return self.evaluate_binop(node.left, node.op, node.right, state, frame)

    def evaluate_binop(self, left_node, op, right_node, state: State, frame: Frame) -> Value:
        left = self.evaluate(left_node, state, frame)
        right = self.evaluate(right_node, state, frame)
        if left.kind is Kind.TENSOR or right.kind is Kind.TENSOR:
            if isinstance(op, (ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
                return tensor(Grad.NO, weak=left.weak and right.weak)
            grad = self._combine_grad((left, right), state.mode)
            roles = Role.NONE
            if left.has(Role.LOSS) or right.has(Role.LOSS):
                roles |= Role.LOSS
            if (left.kind is not Kind.TENSOR or left.has(Role.SCALAR)) and (
                right.kind is not Kind.TENSOR or right.has(Role.SCALAR)
            ):
                roles |= Role.SCALAR
            elif (left.kind is Kind.TENSOR and left.has(Role.UNREDUCED)) or (
                right.kind is Kind.TENSOR and right.has(Role.UNREDUCED)
            ):
                roles |= Role.UNREDUCED  # broadcast with what keeps dimensions: keeps them
            if left.has(Role.INFERENCE) or right.has(Role.INFERENCE) or state.mode is GradMode.INFERENCE:
                roles |= Role.INFERENCE
            weak = (left.kind is not Kind.TENSOR or left.weak) and (right.kind is not Kind.TENSOR or right.weak)
            return tensor(grad, roles, weak=weak).with_(split=left.split or right.split)
        if left.kind is Kind.NUMBER and right.kind is Kind.NUMBER:
            return NUMBER
        if (
            left.kind is Kind.CONTAINER
            and right.kind in (Kind.CONTAINER, Kind.NUMBER, Kind.OTHER)
            and isinstance(op, ast.Add)
        ):
            # A list extended with another's elements, or with numbers or text
            # (`results += scores.tolist()`); an empty list's elements are what is added (as with
            # `append`).
            added = right.elem if right.kind is Kind.CONTAINER else NUMBER if right.kind is Kind.NUMBER else OTHER
            if added is None:
                return container(None)
            return container(added if left.elem is None else (join(left.elem, added) or UNKNOWN))
        if isinstance(op, ast.Mult) and isinstance(left_node, (ast.List, ast.Tuple)) and right.kind in _COUNTS:
            return left.with_(items=None)  # `[None] * n`: the list repeated (not a tensor nor an array: see above)
        if (
            left.kind is Kind.OTHER
            and right.kind in (Kind.OTHER, Kind.NUMBER)
            and left.ref is None
            and right.ref is None
            and isinstance(op, (ast.Add, ast.Mod))
        ):
            return OTHER  # text built up: `predicted += chr(i)`, `"%s: %d" % (name, n)`
        return UNKNOWN

    def _combine_grad(self, values, mode: GradMode) -> Grad:
        """The grad of a result computed from ``values`` under ``mode``."""
        if mode.off:
            return Grad.NO
        values = _with_elements(values)
        grads = [v.grad for v in values if v.kind is Kind.TENSOR]
        unknown_inputs = any(v.kind is Kind.UNKNOWN for v in values)
        if Grad.YES in grads:
            return Grad.YES if mode is GradMode.ENABLED else Grad.MAYBE
        if Grad.MAYBE in grads or unknown_inputs:
            return Grad.MAYBE
        return Grad.NO

    def _unaryop(self, node: ast.UnaryOp, state: State, frame: Frame) -> Value:
        operand = self.evaluate(node.operand, state, frame)
        if isinstance(node.op, ast.Not):
            return NUMBER if operand.kind is not Kind.TENSOR else tensor(Grad.NO)
        if operand.kind is Kind.TENSOR:
            if isinstance(node.op, ast.Invert):
                return tensor(Grad.NO)
            grad = self._combine_grad((operand,), state.mode)
            return tensor(
                grad, operand.roles & (Role.LOSS | Role.SCALAR | Role.UNREDUCED | Role.INFERENCE), weak=operand.weak
            )
        return operand if operand.kind is Kind.NUMBER else UNKNOWN

    def _compare(self, node: ast.Compare, state: State, frame: Frame) -> Value:
        values = [self.evaluate(node.left, state, frame)] + [self.evaluate(c, state, frame) for c in node.comparators]
        if any(v.kind is Kind.TENSOR for v in values) and not any(
            isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops
        ):
            if all(v.kind is Kind.NUMBER or (v.kind is Kind.TENSOR and v.has(Role.SCALAR)) for v in values):
                return tensor(Grad.NO, Role.SCALAR)  # `loss == loss` of a 0-dim loss: 0-dim too
            return tensor(Grad.NO)
        return NUMBER

    def _boolop(self, node: ast.BoolOp, state: State, frame: Frame) -> Value:
        values = [self.evaluate(v, state, frame) for v in node.values]
        return join_all(values) or UNKNOWN

    def _ifexp(self, node: ast.IfExp, state: State, frame: Frame) -> Value:
        self.discard(node.test, state, frame)
        return join(self.evaluate(node.body, state, frame), self.evaluate(node.orelse, state, frame)) or UNKNOWN

    def _tuple(self, node: ast.AST, state: State, frame: Frame) -> Value:
        elts = node.elts  # type: ignore[attr-defined]
        if len(elts) > _LITERAL_LIMIT:
            return container()  # a table of data: what it holds is not followed
        items = tuple(self.evaluate(e, state, frame) for e in elts)
        if isinstance(node, (ast.Tuple, ast.List)):
            # A list literal's positions are known where it is made, as a tuple's are (an empty
            # one is known to be empty: what is appended later is all it holds).
            if items and all(parameterless_layer(v) for v in items):
                # `[nn.Tanh(), nn.ReLU()]`: each element runs without parameters of its own
                return container(items[0], items=items)
            return container(items=items)
        return container(join_all(items)) if items else container()

    def _dict(self, node: ast.Dict, state: State, frame: Frame) -> Value:
        if len(node.values) > _LITERAL_LIMIT:
            return container()
        values = [self.evaluate(v, state, frame) for v in node.values]
        if not values:
            return container()
        held = container(join_all(values))
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
            held = held.with_(keyed=tuple((k.value, v) for k, v in zip(node.keys, values)))  # type: ignore[union-attr]
        if (
            held.elem is not None
            and held.elem.kind is Kind.UNKNOWN
            and any(v.kind is Kind.TENSOR and v.may_carry_graph for v in values)
        ):
            # `{"fake": fake, "styles": styles}`: a tensor with a graph among values of unknown kind
            return held.with_(grad=Grad.MAYBE)
        return held

    def _comprehension(self, node: ast.AST, state: State, frame: Frame) -> Value:
        names = self._comprehension_bindings(node, state, frame)
        inner = state.bind(names)
        if isinstance(node, ast.DictComp):
            self.discard(node.key, inner, frame)
            element = self.evaluate(node.value, inner, frame)
        else:
            element = self.evaluate(node.elt, inner, frame)  # type: ignore[attr-defined]
        return container(element)

    def _named_expr(self, node: ast.NamedExpr, state: State, frame: Frame) -> Value:
        return self.evaluate(node.value, state, frame)

    def _starred(self, node: ast.Starred, state: State, frame: Frame) -> Value:
        self.discard(node.value, state, frame)
        return UNKNOWN

    def _await(self, node: ast.Await, state: State, frame: Frame) -> Value:
        self.discard(node.value, state, frame)
        return UNKNOWN

    def _lambda(self, node: ast.Lambda, state: State, frame: Frame) -> Value:
        ref = str(id(node))
        self._definitions[ref] = node
        return Value(Kind.FUNCTION, ref=ref)

    def _other(self, node: ast.AST, state: State, frame: Frame) -> Value:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.discard(child, state, frame)
        return OTHER if isinstance(node, (ast.JoinedStr,)) else UNKNOWN

    def discard(self, node: ast.AST, state: State, frame: Frame) -> None:
        """An expression whose value nothing keeps (a call statement's result, an ``if`` test,
        a subscript's index...): evaluated only where a call in it is to be noted (a frame that
        uses no summaries, ``_NO_SUMMARIES``); a rule asking about it later has it evaluated
        then, from the state before its statement."""
        if frame.kind in _NO_SUMMARIES and _holds_call(node):
            self.evaluate(node, state, frame)

    # ============================================================================== calls
    def _call(self, node: ast.Call, state: State, frame: Frame) -> Value:
        result = self._call_value(node, state, frame)
        if result.kind is Kind.TENSOR and result.split is None and not result.has(Role.OUTPUT):
            split = self._data_split(node, state, frame)
            if split is not None:
                result = result.with_(split=split)
        return result

    def _data_split(self, node: ast.Call, state: State, frame: Frame) -> Optional[Split]:
        """The split of the data a tensor computation reads (``test_x[:10].cuda()``)."""
        func = node.func
        inputs = list(node.args)
        if isinstance(func, ast.Attribute) and self.imports.qualified_name(func) is None:
            inputs.insert(0, func.value)
        for arg in inputs:
            value = self.evaluate(arg, state, frame)
            if value.kind is Kind.TENSOR and value.split is not None:
                return value.split
        return None

    def _call_value(self, node: ast.Call, state: State, frame: Frame) -> Value:
        func = node.func
        args = _Arguments(self, node.args, state, frame)  # evaluated only where a callee needs them
        qual = self.qualified_name(func, state)
        if qual is not None:
            return self._library_call(qual, node, args, state, frame)
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.JoinedStr) or (
                isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)
            ):
                return OTHER  # a string's method: text, or a list of it (`"".join(chars)`)
            receiver = self.evaluate(func.value, state, frame)
            return self._method_call(receiver, func.attr, node, args, state, frame)
        if isinstance(func, ast.Name):
            callee = self.lookup(func.id, state, frame)
            if callee.kind is Kind.UNKNOWN and not frame.scope.binds(func.id) and func.id in _BUILTIN_CALLS:
                return _BUILTIN_CALLS[func.id](self, node, args, state)
            return self._value_call(callee, func.id, node, args, state, frame)
        callee = self.evaluate(func, state, frame)
        # `criterion[0](out, y)` of a list of criteria: named for its container
        name = func.value.id if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) else None
        return self._value_call(callee, name, node, args, state, frame)

    @staticmethod
    def _with_handed_modules(made: Value, node: ast.Call, args: list) -> Value:
        """An instance of a module class of the file or the run, with the modules its constructor is
        handed (``Head(Backbone())``, ``Seq2Seq(encoder, decoder, 80)``) as its parts: what they hold
        (their dropout, their batch norm) the instance holds (``module_has_layers``)."""
        if made.kind is not Kind.MODULE or not node.args or any(isinstance(a, ast.Starred) for a in node.args):
            return made
        # (only the arguments that may name a module are evaluated: `args` evaluates on demand)
        given = (args[i] for i, a in enumerate(node.args) if isinstance(a, (ast.Name, ast.Call, ast.Attribute)))
        handed = tuple(value for value in given if value.kind is Kind.MODULE and value.ref is not None)
        return made.with_(items=handed) if handed else made

    def _value_call(self, callee: Value, name: Optional[str], node: ast.Call, args: list, state: State, frame) -> Value:
        kind = callee.kind
        if kind is Kind.CLASS:
            if callee.ref is None and callee.alternatives:
                # `MODEL_REGISTRY[name]()`: an instance of one of the classes the registry holds
                made = [
                    self._value_call(Value(Kind.CLASS, ref=ref), name, node, args, state, frame)
                    for ref in callee.alternatives
                ]
                return join_all(made) or UNKNOWN
            info = self._class_table().get(callee.ref) if callee.ref else None
            if info is not None:
                if info.is_dataset or self._split_arguments(node) is not None:
                    if info.is_dataset:
                        return dataset(self._split_arguments(node), info.key)
                return self._with_handed_modules(self._instance_value(info), node, args)
            if callee.ref and callee.ref.startswith("torch."):
                return self._library_call(callee.ref, node, args, state, frame)
            if callee.ref:
                made = self._project_class(callee.ref)  # a class of another file of the run
                if made is not None:
                    if made.kind is Kind.DATASET:
                        return made.with_(split=self._split_arguments(node))
                    return self._with_handed_modules(made, node, args)
            return UNKNOWN
        if kind is Kind.FUNCTION:
            if callee.ref is None and callee.elem is not None:
                return callee.elem  # a parameter annotated `Callable[..., nn.Module]`
            fn = self._function_node(callee)
            if fn is not None and self._summaries_allowed(frame):
                summarised = self.function_summary(fn).returns
                returned = self._returned(summarised, args, state)
                if summarised.kind is Kind.TENSOR and summarised.grad is Grad.MAYBE:
                    returned = self._without_graph_as_called(fn, node, args, state, returned)
                returned = self._passed_back(fn, node, args, returned)
                if returned.kind is Kind.UNKNOWN:
                    return self._inlined(fn, node, args, state) or returned
                if returned.kind is Kind.LOADER and returned.split is None:
                    # `val_loader = get_loader(val_ds, 16)` of a helper wrapping `DataLoader(ds, ...)`
                    returned = returned.with_(split=self._handed_split(node, args))
                return returned
            return UNKNOWN
        if kind is Kind.MODULE:
            return self._module_call(callee, node, args, state, frame)
        if kind is Kind.TENSOR:
            # `print(tagger.requires_grad)`, then `tagger(x)`: a tensor is not called; what the
            # uses made a tensor of is a module
            return self._module_call(module(weak=True), node, args, state, frame)
        if (
            kind is Kind.OTHER
            and (callee.ref or "").startswith(("torch.", *vocab.TEACHING_PACKAGES))
            and callee.ref != vocab.DISTRIBUTION
        ):
            return self._library_call(callee.ref, node, args, state, frame)  # type: ignore[arg-type]
        if kind is Kind.OTHER and (callee.ref or "").startswith(RUN_FUNCTION):
            # `loss = utils.squared_loss`, then `loss(y_hat, y)`: as `utils.squared_loss(y_hat, y)`
            return self._library_call(callee.ref[len(RUN_FUNCTION) :], node, args, state, frame)  # type: ignore[index]
        if kind is Kind.UNKNOWN and name is not None:
            if _names_loss_function(name):
                return self._named_loss(args, state)
        if (
            kind is Kind.OTHER
            and callee.ref is not None
            and (callee.ref in self._class_table() or callee.ref.startswith("project:"))
        ):
            # `psnr_metric(hr, sr)` of a `PSNR()`, a plain class of the file or the run: its `__call__`
            return self._method_call(callee, "__call__", node, args, state, frame)
        return UNKNOWN

    def _passed_back(self, fn: ast.AST, node: ast.Call, args, returned: Value, bound: bool = False) -> Value:
        """What a call returns where the function hands back one of its parameters unchanged
        (``def fit(cls, data): cls.train(data); return cls, acc``; a method called on an instance,
        ``bound``: ``net, opt = self.load_ckp(path, net, opt)``): that argument's value at this
        call, in place of what the summary, which assumes nothing of the parameters, left
        unknown."""
        positions = self._returned_parameters(fn, bound)
        if positions is None:
            return returned

        def argument(index: Optional[int]) -> Optional[Value]:
            if index is None or index >= len(args) or any(isinstance(a, ast.Starred) for a in node.args[: index + 1]):
                return None
            return args[index]

        if isinstance(positions, int):
            value = argument(positions) if returned.kind is Kind.UNKNOWN or returned.weak else None
            return value if value is not None and value.kind is not Kind.UNKNOWN else returned
        if returned.kind is not Kind.CONTAINER or returned.items is None or len(returned.items) != len(positions):
            return returned
        items = list(returned.items)
        for i, index in enumerate(positions):
            # what the summary knows of a parameter by its name alone (`model`) yields to the argument
            if items[i].kind is Kind.UNKNOWN or items[i].weak:
                value = argument(index)
                if value is not None and value.kind is not Kind.UNKNOWN:
                    items[i] = value
            elif items[i].kind is Kind.MODULE and items[i].ref is None:
                # `model: nn.Module` handed back (`return model, acc`): the very module the caller
                # gave, of its class, in the mode the function left it in where it switched one
                value = argument(index)
                if value is not None and value.kind is Kind.MODULE and value.ref is not None:
                    switched = items[i].roles & _MODULE_MODES
                    items[i] = value.with_(roles=(value.roles & ~_MODULE_MODES) | switched) if switched else value
        return returned.with_(items=tuple(items))

    def _returned_parameters(self, fn: ast.AST, bound: bool = False):
        """Where every ``return`` of a plain function (``bound``: of a method of a class of the
        file, called on an instance) hands back a positional parameter its body never rebinds:
        that parameter's index among the call's arguments (``return cls``), or one index or None
        per position of the tuple every ``return`` builds (``return cls, acc``); None otherwise.
        Kept per function."""
        key = (id(fn), "returned-parameters", bound)
        if key in self._summaries:
            return self._summaries[key]
        found = None
        if (
            type(fn) is ast.FunctionDef
            and (self._method_class(fn) is not None) is bound
            and not fn.decorator_list
            and len(fn.args.args) >= bound
        ):
            names = [a.arg for a in fn.args.args][int(bound) :]  # not the instance
            shapes = []
            for sub in self.own_nodes(fn):
                if isinstance(sub, (ast.Yield, ast.YieldFrom)):
                    shapes = []
                    break
                if isinstance(sub, ast.Return):
                    value = sub.value
                    parts = value.elts if isinstance(value, ast.Tuple) else [value]
                    shapes.append(
                        (
                            isinstance(value, ast.Tuple),
                            tuple(
                                names.index(p.id)
                                if isinstance(p, ast.Name) and p.id in names and not self.body_binds(fn, p.id)
                                else None
                                for p in parts
                            ),
                        )
                    )
            if shapes and len(set(shapes)) == 1 and any(i is not None for i in shapes[0][1]):
                is_tuple, indexes = shapes[0]
                found = indexes if is_tuple else indexes[0]
        self._summaries[key] = found
        return found

    def _inlined(
        self, fn: ast.AST, node: ast.Call, args, state: State, limit: int = _INLINED_STATEMENTS
    ) -> Optional[Value]:
        """A function of one ``return`` at one call, after at most a few assignments to plain
        names: its expressions over this call's arguments (``def model(xb): return
        log_softmax(xb @ weights + bias)``; ``def softmax(x): x_exp = x.exp(); return x_exp /
        x_exp.sum(1, keepdim=True)``), where its summary, which assumes nothing of its
        parameters, cannot tell; past a first ``if isinstance(x, (list, tuple)): return ...``
        where this call hands ``x`` a module or a tensor (``_container_guard_passed_over``); the
        parameters the call leaves out take their defaults (``eps=1e-6``). None for anything else (a
        method, keywords, ``*args``, a decorator, a recursive call, another branch or a loop)."""
        if type(fn) is not ast.FunctionDef:
            return None
        body = fn.body[1:] if ast.get_docstring(fn, clean=False) is not None else fn.body
        if not body or len(body) > limit or type(body[-1]) is not ast.Return or body[-1].value is None:
            return None
        steps = body[:-1]
        guards = [stmt for stmt in steps if type(stmt) is ast.If]
        steps = [stmt for stmt in steps if type(stmt) is not ast.If]
        if any(
            type(stmt) is not ast.Assign or len(stmt.targets) != 1 or type(stmt.targets[0]) is not ast.Name  # type: ignore[attr-defined]
            for stmt in steps
        ):
            return None
        spec = fn.args
        if (
            fn.decorator_list
            or spec.vararg
            or spec.kwarg
            or spec.kwonlyargs
            or spec.posonlyargs
            or node.keywords
            or not len(spec.args) - len(spec.defaults) <= len(node.args) <= len(spec.args)
            or any(isinstance(arg, ast.Starred) for arg in node.args)
        ):
            return None
        key = (id(fn), "inline")
        if key in self._in_progress or self._method_class(fn) is not None:
            return None
        frame = Frame(self._scope(fn), state.mode, "inline")  # no flow: straight-line code
        env = {param.arg: args[i] for i, param in enumerate(spec.args[: len(node.args)])}
        defaults = parameter_defaults(fn)
        for param in spec.args[len(node.args) :]:
            env[param.arg] = self._constant_value(defaults[param.arg])  # `eps=1e-6`: its default
        if any(not _container_guard_passed_over(guard, body, env) for guard in guards):
            return None
        self._begin(key)
        try:
            for stmt in steps:
                env[stmt.targets[0].id] = self.evaluate(stmt.value, State(env, state.mode), frame)  # type: ignore[attr-defined]
            value = self.evaluate(body[-1].value, State(env, state.mode), frame)  # type: ignore[attr-defined]
        finally:
            self._end(key)
        return value if value.kind is not Kind.UNKNOWN else None

    def _named_loss(self, args: list, state: State) -> Value:
        """What a call of something unknown named for a loss (``criterion(out, y)``) gives: a
        0-dim loss, carrying a graph where an argument does or grad is on."""
        grad = self._combine_grad(args, state.mode) if args else Grad.MAYBE
        if grad is Grad.MAYBE and state.mode is GradMode.ENABLED:
            grad = Grad.YES
        return tensor(grad, Role.LOSS | Role.SCALAR, weak=True)

    @staticmethod
    def _summaries_allowed(frame: Frame) -> bool:
        """Whether a frame may use other functions' summaries; a summary frame that could not
        is marked, so that it is not reused as the function's query frame."""
        if frame.kind in _NO_SUMMARIES and not frame.serves_queries:
            frame.skipped_summaries = True
            return False
        return True

    @staticmethod
    def _handed_split(node: ast.Call, args: list) -> Optional[Split]:
        """The split of the data a call hands a helper making a loader: a data set's own, else
        what the argument's name says (``val_ds``)."""
        for value in args:
            if value.kind is Kind.DATASET and value.split is not None:
                return value.split
        for argument in (*node.args, *(k.value for k in node.keywords)):
            text = dotted_name(argument) if not isinstance(argument, ast.Starred) else None
            split = split_of_text(text.rsplit(".", 1)[-1]) if text else None
            if split is not None:
                return split
        return None

    def _returned(self, returned: Value, args, state: State) -> Value:
        """A function's summary at one call: a tensor whose graph the summary could not know
        (it came from the parameters) carries one when an argument here does; under `no_grad`
        what the function computes carries none (`with torch.no_grad(): a, logp, v =
        policy.sample(s)`), only what it hands back as it is (a parameter) may."""
        if state.mode.off:
            return _computed_without_grad(returned)
        if returned.kind is Kind.TENSOR and returned.grad is Grad.MAYBE and args:
            if self._combine_grad(list(args), state.mode) is Grad.YES:
                return returned.with_(grad=Grad.YES)
        elif returned.kind is Kind.CONTAINER and returned.items is not None and args:
            # `return loss, torch.cat(parts).detach()`: each position on its own
            if any(item.kind is Kind.TENSOR and item.grad is Grad.MAYBE for item in returned.items):
                if self._combine_grad(list(args), state.mode) is Grad.YES:
                    return returned.with_(
                        items=tuple(
                            item.with_(grad=Grad.YES) if item.kind is Kind.TENSOR and item.grad is Grad.MAYBE else item
                            for item in returned.items
                        )
                    )
        return returned

    def _without_graph_as_called(self, fn: ast.AST, node: ast.Call, args, state: State, returned: Value) -> Value:
        """A summary's tensor given a graph at this call only because an argument carries one,
        where the function's straight-line body over this call's arguments computes it without
        one (``def F1(preds, labels): preds = torch.max(preds, dim=1)[1]; ...; return f1``: a
        score of the predicted indices)."""
        if returned.kind is not Kind.TENSOR or returned.grad is not Grad.YES or state.mode.off:
            return returned
        inlined = self._inlined(fn, node, args, state, limit=_REFINED_STATEMENTS)
        if inlined is not None and inlined.kind is Kind.TENSOR and inlined.grad is Grad.NO:
            return inlined
        return returned

    def _module_call(self, callee: Value, node: ast.Call, args: list, state: State, frame: Frame) -> Value:
        ref = callee.ref or ""
        last = vocab.last_name(ref) if ref else ""
        if (
            not ref
            and callee.weak
            and args
            and all(_numpy_converted(n) for n in node.args)
            and not any(a.kind is Kind.TENSOR for a in args)
        ):
            # `neural_network.forward(x.detach().cpu().numpy(), w.detach().cpu().numpy())`: a
            # torch module takes tensors; what is handed arrays is another library's network
            return UNKNOWN
        if not ref and callee.weak and not callee.has(Role.LOSS) and _names_loss_function(callee_name(node)):
            if not any(a.kind is Kind.MODULE for a in _with_elements(args)):
                # `self.criterion(output, target)` of a criterion known by its name alone, handed
                # tensors (not a model it runs): a loss, with the graph its inputs carry
                callee = callee.with_(roles=callee.roles | Role.LOSS)
        if (ref.startswith("torch.nn.") and last in vocab.LOSS_MODULES) or (not ref and callee.has(Role.LOSS)):
            # a loss module (`criterion` set to one of several on the paths here)
            grad = self._combine_grad(args, state.mode)
            return tensor(grad, Role.LOSS | (Role.UNREDUCED if callee.has(Role.UNREDUCED) else Role.SCALAR))
        if (
            (ref.startswith("torch.nn.") and last in vocab.PARAMETERLESS_MODULES)
            or ref.startswith(vocab.SIGNAL_TRANSFORMS)
            or (
                ref == "torch.nn.Sequential"
                and callee.items
                and all(parameterless_layer(v) or self.module_without_parameters(v) for v in callee.items)
            )
        ):
            # no parameters of its own (`nn.ReLU()`; `nn.Sequential(MelSpectrogram(...), AmplitudeToDB())`)
            grad = self._combine_grad(args, state.mode)
            return tensor(grad, Role.OUTPUT if grad is not Grad.NO else Role.NONE)
        if (
            args
            and not ref.startswith("torch.")
            and self._combine_grad(args, state.mode) is Grad.NO
            and self.module_without_parameters(callee)
        ):
            # a class of the file without parameters (a positional encoding keeping a buffer)
            # over inputs without graph: its output has none either
            return tensor(Grad.NO, Role.NONE)
        if state.mode.off:
            grad = Grad.NO
        elif state.mode is GradMode.MAYBE:
            grad = Grad.MAYBE
        else:
            grad = Grad.YES
        if any(a is PACKED for a in args):
            if ref.startswith("torch.nn.") and last in ("RNN", "GRU", "LSTM"):
                # `output, h_n = rnn(packed)`: the output is packed, the hidden state a tensor
                # (a pair of them for an LSTM)
                hidden = tensor(grad, Role.NONE)
                return container(items=(PACKED, container(items=(hidden, hidden)) if last == "LSTM" else hidden))
            return PACKED  # a module fed a PackedSequence: what it returns is not known apart
        roles = Role.OUTPUT
        if state.mode is GradMode.INFERENCE:
            roles |= Role.INFERENCE
        output = tensor(grad, roles, weak=callee.weak)
        called = self._call_method_returns(callee, frame)
        if called is not None:
            # the class defines `__call__`: a call runs it, not `forward` (a loss class
            # returning `loss, torch.cat(parts).detach()`); a position its summary cannot
            # tell is a module's output, as before
            if called.kind is Kind.CONTAINER and called.items is not None:
                called = called.with_(items=tuple(output if v.kind is Kind.UNKNOWN else v for v in called.items))
            return self._returned(called, args, state)
        returned = self._forward_returns(callee, frame)
        if returned is not None:
            if returned.kind is Kind.TENSOR:
                if returned.grad is Grad.NO and not returned.weak and output.grad is not Grad.NO:
                    # every `return` hands back indices or a detached tensor (`return
                    # torch.argmax(pred, dim=-1)`): no graph, whatever the mode
                    return output.with_(grad=Grad.NO, roles=Role.NONE)
                if returned.grad is Grad.MAYBE and not returned.weak and output.grad is Grad.YES:
                    # one `return` hands back a loss, another indices (`if label is not None:
                    # return loss` ... `return torch.argmax(pred, -1)`): which one, the call decides
                    return output.with_(grad=Grad.MAYBE, roles=roles | (returned.roles & Role.SCALAR))
                return output.with_(roles=roles | (returned.roles & Role.SCALAR))
            if returned.kind is Kind.CONTAINER and returned.items is not None:
                return container(
                    items=tuple(
                        output.with_(roles=roles | (v.roles & Role.SCALAR)) if v.kind is Kind.TENSOR else v
                        for v in returned.items
                    )
                )
            if returned.kind in (Kind.OTHER, Kind.NUMBER, Kind.NONE) or returned is PACKED:
                return returned
        return output

    def _call_method_returns(self, callee: Value, frame: Frame) -> Optional[Value]:
        """What the ``__call__`` that a module class of the file defines itself returns, when
        known: a tensor, or a tuple of values each known apart."""
        owner: Optional[SemanticModel] = self
        key = callee.ref
        if key is not None and key.startswith("project:"):
            # a class of another file of the run: that file's model reads its `__call__`
            module, _, key = key[len("project:") :].rpartition(".")
            owner = self._run_file_model(module)
            if owner is None:
                return None
        info = owner._class_table().get(key) if key else None
        method = owner._method_node(info, "__call__") if info is not None else None
        if method is None or not self._summaries_allowed(frame):
            return None
        returned = _portable(owner.function_summary(method).returns, owner)
        if returned.kind is Kind.TENSOR or (
            returned.kind is Kind.CONTAINER
            and returned.items is not None
            and any(item.kind is not Kind.UNKNOWN for item in returned.items)
        ):
            return returned
        return None

    def _forward_returns(self, callee: Value, frame: Frame) -> Optional[Value]:
        """What the ``forward`` of a module class of the file returns, when known (and the
        frame may use summaries: a frame is marked as skipping one only where one exists)."""
        if (callee.ref or "").startswith("project:"):
            # a module class of another file of the run: what its `forward` returns there
            returned = self._project_method_returns(callee.ref, "forward", [], State({}, GradMode.ENABLED), frame)  # type: ignore[arg-type]
            return None if returned.kind is Kind.UNKNOWN else returned
        info = self._class_table().get(callee.ref) if callee.ref else None
        if info is None:
            return None
        forward = self._method_node(info, "forward")
        if forward is None or not self._summaries_allowed(frame):
            return None
        returned = self.function_summary(forward).returns
        return None if returned.kind is Kind.UNKNOWN else returned

    def _split_arguments(self, call: ast.Call) -> Optional[Split]:
        """The split a data set constructor is given: ``train=False``, ``test=True``,
        ``split="test"``, ``mode="val"``, or a path or name argument that names one."""
        for kw in call.keywords:
            if kw.arg is None:
                continue
            value = vocab.constant_of(kw.value, default=None)
            name = kw.arg.lower()
            if name in ("train", "training", "is_train", "is_training") and isinstance(value, bool):
                return Split.TRAIN if value else Split.EVAL
            if name in _EVAL_FLAGS and value is True:
                return Split.EVAL  # `DogCat(root, test=True)`
            if name in ("split", "mode", "subset", "phase", "stage", "image_set", "set", "fold", "partition"):
                if isinstance(value, str):
                    return split_of_text(value)
            if name in ("root", "path", "data_dir", "root_dir", "folder", "dir", "image_dir", "img_dir"):
                if isinstance(value, str):
                    found = split_of_text(value)
                    if found is not None:
                        return found
        for arg in call.args:
            value = vocab.constant_of(arg, default=None)
            if isinstance(value, str):
                found = split_of_text(value)
                if found is not None:
                    return found
            elif isinstance(arg, ast.Call):
                # os.path.join(root, "val")
                for sub in arg.args:
                    text = vocab.constant_of(sub, default=None)
                    if isinstance(text, str):
                        found = split_of_text(text)
                        if found is not None:
                            return found
        return None

    def imports_tensor_making_dataset(self) -> bool:
        """Whether the file imports a dataset class of another file of the run whose text builds
        its items as tensors (``ClassFact.makes_tensors``)."""
        if self.project is None:
            return False
        for qual in self.imports.names.values():
            fact = self.project.classes.get(self._project_name(qual))
            if fact is not None and fact.dataset and fact.makes_tensors:
                return True
        return False

    def _project_name(self, qual: str) -> str:
        """The project's key of a qualified name: a relative import resolved against this file's
        module, a module several folders of the run hold taken from this file's folder."""
        if self.project is None:
            return qual
        stripped = qual.lstrip(".")
        level = len(qual) - len(stripped)
        module, _, name = stripped.rpartition(".")
        if not level and module not in self.project.shared_names and "." not in module:
            key = qual
        else:
            base = self.project.resolve(self.filename, module, level)
            key = f"{base}.{name}" if base else name
        if key not in self.project.classes:
            # `from base import BaseModel` of a package whose `__init__.py` takes it from
            # `.base_model` (`from .base_model import *`)
            key = self.project.reexports.get(key, key)
        if key not in self.project.classes and not level and module:
            # `from train import Trainer` in a script or notebook beside `train.py` in a package
            sibling = self.project.sibling_module(self.filename, module)
            if sibling is not None and f"{sibling}.{name}" in self.project.classes:
                key = f"{sibling}.{name}"
        return key

    def project_class_evaluates_itself(self, qual: str) -> bool:
        """Whether a qualified name is a module class of another file of the run whose
        ``__init__`` ends in eval mode (``project.ClassFact.evaluates_itself``)."""
        if self.project is None:
            return False
        fact = self.project.classes.get(self._project_name(qual))
        return fact is not None and fact.evaluates_itself

    def _project_class(self, qual: str) -> Optional[Value]:
        """An instance of a class another file of the run defines (``from model import Net``)."""
        if self.project is None:
            return None
        name = self._project_name(qual)
        fact = self.project.classes.get(name)
        if fact is None:
            return None
        if fact.module:
            mode = Role.EVALUATING if fact.evaluates_itself else Role.TRAINING
            return Value(Kind.MODULE, Grad.NO, mode | (Role.LOSS if fact.loss else Role.NONE), ref="project:" + name)
        if fact.dataset:
            return dataset(None, "project:" + name)
        return Value(Kind.OTHER, Grad.NO, ref="project:" + name)

    def _library_call(self, qual: str, node: ast.Call, args: list, state: State, frame: Frame) -> Value:
        made = self._project_class(qual)
        if made is None and vocab.last_name(qual).startswith(("from_", "load")) and "." in qual:
            made = self._project_class(qual.rsplit(".", 1)[0])  # `GPT.from_pretrained(name)`: an instance
        if made is not None:
            if made.kind is Kind.DATASET:
                return made.with_(split=self._split_arguments(node))
            return self._with_handed_modules(made, node, args)
        last = vocab.last_name(qual)
        if qual.startswith("torch."):
            return self._torch_call(qual, last, node, args, state, frame)
        if args and args[0].kind is Kind.MODULE:
            if qual in vocab.FUNCTIONAL_MODULE_COPIES:
                return args[0]  # `higher.monkeypatch(net)`: runs `net`'s layers
            if qual in vocab.FUNCTIONAL_MODULE_CONTEXTS:
                # `higher.innerloop_ctx(net, opt)`: entered as (a copy running `net`, an optimizer)
                return Value(Kind.OTHER, Grad.NO, items=(args[0], OTHER), ref=qual)
        if qual.startswith(vocab.NON_TORCH_MODEL_PACKAGES):
            return Value(Kind.OTHER, Grad.NO, ref=qual)  # `fasttext.load_model(path)`: no torch module
        if qual.startswith(vocab.GRAD_OFF_ESTIMATOR_PACKAGES):
            return Value(Kind.OTHER, Grad.NO, ref=qual)  # skorch's `NeuralNetRegressor(module=Net)`
        if qual.startswith(vocab.INFERENCE_MODEL_PACKAGE) and last in vocab.INFERENCE_MODEL_CLASSES:
            return Value(Kind.OTHER, ref=qual)  # ultralytics' YOLO: runs its own inference mode
        if qual in vocab.GRAD_OFF_MODELS:
            return Value(Kind.OTHER, ref=qual)  # facenet-pytorch's MTCNN: detects under `no_grad`
        if qual in vocab.MOCK_CONSTRUCTORS:
            return Value(Kind.OTHER, Grad.NO, ref=qual)  # a test double: runs no network
        if vocab.backpropagating_tool(qual):
            # `SmoothGradCAMpp(model)`, `torchattacks.PGD(model)`: see `backpropagating_tool_call`
            return Value(Kind.OTHER, Grad.NO, ref=qual)
        if qual.startswith(vocab.TEACHING_PACKAGES):
            if last in vocab.TEACHING_LOSSES:
                return self._named_loss(args, state)
            if last in vocab.TEACHING_MODELS:
                # `d2l.linreg(X, w, b)`: computed from the weights it is handed, with their graph
                return tensor(self._combine_grad(args, state.mode) if args else Grad.MAYBE, Role.OUTPUT)
            if last in vocab.TEACHING_ACCUMULATORS:
                return container(NUMBER)  # `metric = d2l.Accumulator(2)`: `metric[0]` is a float
        if qual in vocab.TENSOR_FUNCTIONS:
            return tensor(self._combine_grad(args, state.mode) if args else Grad.NO)
        if qual.startswith(vocab.SIGNAL_TRANSFORMS) and last[:1].isupper():
            # `torchaudio.transforms.MelSpectrogram(...)`: a module keeping buffers, no parameters
            return Value(Kind.MODULE, Grad.NO, Role.NONE, ref=qual)
        if (
            qual.startswith(("torchvision.datasets.", "torchtext.datasets.", "torchaudio.datasets."))
            and last[:1].isupper()
        ):
            made = dataset(self._split_arguments(node), qual)
            if (
                qual.startswith("torchvision.datasets.")
                and last in vocab.INT_TARGET_DATASETS
                and vocab.call_argument(node, None, "target_transform") is None
            ):
                made = made.with_(items=(tensor(Grad.NO), NUMBER))  # an item: an image, an int label
            return made
        if qual in vocab.MODULE_VIEWS and args and args[0].kind is Kind.MODULE:
            return args[0]  # `create_feature_extractor(model, return_nodes=...)`: runs `model`
        if qual.startswith("torchvision.models.") and (
            (last[:1].islower() and not last.startswith("get_")) or last in vocab.TORCHVISION_MODEL_CLASSES
        ):
            return Value(Kind.MODULE, Grad.NO, Role.TRAINING, ref=qual)  # built in training mode
        if qual in ("timm.create_model",) or (
            qual.startswith("transformers.") and last == "from_pretrained" and _is_transformers_model_class(qual)
        ):
            return module(qual)
        if qual.startswith(vocab.PLAIN_VALUE_LIBRARIES):
            return OTHER
        if last in ("tqdm", "trange", "track", "progress_bar") and args:
            return args[0]
        if qual.startswith(("copy.deepcopy", "copy.copy")) and args:
            return args[0]
        returned = self._project_function_returns(qual, node, args, state, frame)
        return returned if returned is not None else UNKNOWN

    def _project_function_returns(self, qual: str, node: ast.Call, args, state: State, frame: Frame) -> Optional[Value]:
        """What a function another file of the run defines returns (``from utils import
        KL_loss``), from that file's own model: a loss or an output computed there is a tensor
        here. None for anything else."""
        if self.project is None or qual.startswith(vocab.PLAIN_VALUE_LIBRARIES):
            return None
        key = self.project.function_key(self.filename, qual)
        if self.project.function_node(key) is None or not self._summaries_allowed(frame):
            return None
        module, _, name = key.rpartition(".")
        other = self._run_file_model(module)
        # the definition in that model's own tree (the index's parse of the file may be a newer one)
        fn = top_function(other.tree, name) if other is not None and other.filename != self.filename else None
        if fn is None:
            return None
        returned = _portable(other.function_summary(fn).returns, other)  # type: ignore[union-attr]
        if returned.kind is Kind.UNKNOWN:
            # `def squared_loss(y_hat, y): return (y_hat - y) ** 2 / 2`: its one expression over
            # this call's arguments, in that file's model
            inlined = other._inlined(fn, node, args, state)  # type: ignore[union-attr]
            return _portable(inlined, other) if inlined is not None else None  # type: ignore[arg-type]
        as_called = self._returned(returned, args, state)
        if returned.kind is Kind.TENSOR and returned.grad is Grad.MAYBE:
            refined = other._without_graph_as_called(fn, node, args, state, as_called)  # type: ignore[union-attr]
            if refined is not as_called:
                return _portable(refined, other)  # type: ignore[arg-type]
        return as_called

    def _project_method_returns(self, ref: str, method: str, args, state: State, frame: Frame) -> Value:
        """What a method of a plain class another file of the run defines returns
        (``ImdbLoader('train', 64).get_data_loader()``: a loader), from that file's model."""
        if self.project is None or frame.kind == "module-first" or not self._summaries_allowed(frame):
            return UNKNOWN
        module, _, name = ref[len("project:") :].rpartition(".")
        other = self._run_file_model(module)
        if other is None or other.filename == self.filename:
            return UNKNOWN
        info = other._class_table().get(name)
        fn = other._method_node(info, method) if info is not None else None
        if fn is None:
            return UNKNOWN
        return self._returned(_portable(other.function_summary(fn).returns, other), args, state)

    def _run_file_model(self, module: str) -> Optional["SemanticModel"]:
        """The semantic model of the file of the run whose module has this key (kept by the
        project index, ``ProjectIndex.analysis_of``), or None."""
        path = self.project.path_of(module) if self.project is not None else None
        other = self.project.analysis_of(path, self._model_of_file) if path is not None else None  # type: ignore[union-attr]
        return other if isinstance(other, SemanticModel) else None

    def _model_of_file(self, path: str, tree: ast.Module, text: str) -> "SemanticModel":
        return SemanticModel(
            tree,
            ImportMap(tree, text),
            text,
            filename=path,
            project=self.project,
        )

    def _torch_call(self, qual: str, last: str, node: ast.Call, args: list, state: State, frame: Frame) -> Value:
        if qual in ("torch.jit.trace", "torch.jit.script") and args:
            traced = args[0]
            if traced.kind is Kind.MODULE:
                return traced  # a ScriptModule sharing the module's parameters: its calls record a graph
        if qual == "torch.load":
            return _LOADED
        if qual == "torch.hub.load":
            repo = vocab.constant_of(vocab.call_argument(node, 0, "repo_or_dir"), default=None)
            autoshape = vocab.constant_of(vocab.call_argument(node, None, "autoshape"), default=True)
            entry = vocab.constant_of(vocab.call_argument(node, 1, "model"), default=None)
            local_copy = (
                isinstance(repo, str)
                and isinstance(entry, str)
                and entry.startswith(vocab.INFERENCE_HUB_MODELS)
                and any(name in repo.lower() for name in vocab.INFERENCE_HUB_MODELS)
            )
            if (
                isinstance(repo, str)
                and (repo.startswith(vocab.INFERENCE_HUB_REPOSITORIES) or local_copy)
                and autoshape is not False
            ):
                # YOLOv5's AutoShape: its forward runs under inference mode, it returns detections
                return Value(Kind.OTHER, ref=qual)
            if isinstance(entry, str) and not _HUB_HELPER_ENTRY_RE.search(entry):
                # `torch.hub.load("pytorch/vision", "alexnet")`: the entry point builds a model
                # (not a tokenizer's or a pre-processing helper's entry)
                return module()
        if qual in vocab.PARAMETER_NAMES:
            requires = vocab.call_argument(node, 1, "requires_grad")
            off = requires is not None and vocab.constant_of(requires, default=None) is False
            return tensor(Grad.NO if off else Grad.YES, Role.PARAM | Role.LEAF)
        if qual in vocab.VARIABLE_NAMES:
            requires = vocab.call_argument(node, None, "requires_grad")
            if requires is not None and vocab.constant_of(requires, default=None) is True:
                return tensor(Grad.YES, Role.LEAF)
            return tensor(Grad.NO)
        if qual in vocab.DATALOADER_NAMES:
            data_node = vocab.call_argument(node, 0, "dataset")
            data = args[0] if args else (self.evaluate(data_node, state, frame) if data_node is not None else None)
            split = data.split if data is not None and data.kind is Kind.DATASET else None
            if split is None and isinstance(data_node, ast.Call) and (data is None or data.kind is Kind.UNKNOWN):
                # `DataLoader(CIFAR100(".", train=False))` of a class not known: its arguments say
                split = self._split_arguments(data_node)
            if split is None and data_node is not None:
                text = dotted_name(data_node) or ""
                split = split_of_text(text.rsplit(".", 1)[-1]) if text else None
            return loader(split)
        if qual.startswith("torch.utils.data."):
            if last in ("random_split",):
                return container(dataset())
            if last[:1].isupper() and last.endswith(("Dataset", "Subset")) or last in ("Subset", "ConcatDataset"):
                split = args[0].split if args and args[0].kind is Kind.DATASET else None
                if split is None and node.args:
                    # `TensorDataset(val_set["images"], val_set["labels"])`: named for its split
                    root = node.args[0]
                    while isinstance(root, (ast.Subscript, ast.Attribute)):
                        root = root.value
                    if isinstance(root, ast.Name):
                        split = split_of_text(root.id)
                return dataset(split, qual)
            return UNKNOWN
        if qual.startswith(vocab.OPTIMIZER_PREFIX):
            if last[:1].isupper() and last not in vocab.OPTIMIZER_NON_CLASSES and ".lr_scheduler." not in qual:
                params = vocab.call_argument(node, 0, "params")
                updated = self._updated_modules(params, 0) if params is not None else None
                return OPTIMIZER.with_(ref="+".join(updated)) if updated else OPTIMIZER
            if qual.startswith(vocab.LR_SCHEDULER_PREFIX) and last[:1].isupper():
                return Value(Kind.OTHER, Grad.NO, ref=qual)  # `ReduceLROnPlateau(opt)`: not an optimizer
            return UNKNOWN
        if qual.startswith("torch.nn.") and not qual.startswith(vocab.TENSOR_NAMESPACES) and last[:1].isupper():
            if qual.startswith("torch.nn.init.") or qual.startswith("torch.nn.utils."):
                return UNKNOWN
            roles = Role.TRAINING
            if last in vocab.LOSS_MODULES:
                roles |= Role.LOSS
                if not _reduces(node):
                    roles |= Role.UNREDUCED
            layers = self._container_layers(last, node, args)
            return Value(Kind.MODULE, Grad.NO, roles, items=layers, ref="torch.nn." + last)
        layer = vocab.last_name(qual.rsplit(".", 1)[0]) if last == "from_pretrained" else ""
        if qual.startswith("torch.nn.") and layer[:1].isupper():
            # `nn.Embedding.from_pretrained(weights, freeze=False)`: a layer of that class (frozen, as by
            # default, its calls record no graph: not a model to evaluate)
            if vocab.constant_of(vocab.call_argument(node, 1, "freeze"), default=None) is False:
                return Value(Kind.MODULE, Grad.NO, Role.TRAINING, ref="torch.nn." + layer)
            return UNKNOWN
        if qual in vocab.BACKWARD_FUNCTIONS:
            if last == "grad":
                create = vocab.call_argument(node, None, "create_graph")
                grad = Grad.YES if vocab.constant_of(create, default=None) is True else Grad.NO
                return container(tensor(grad))
            return NONE_VALUE
        if last in ("pack_padded_sequence", "pack_sequence", "PackedSequence"):
            return PACKED
        if qual in vocab.TENSOR_FUNCTIONS:
            return tensor(self._combine_grad(args, state.mode) if args else Grad.NO)
        if qual.startswith("torch.utils.checkpoint."):
            return tensor(self._combine_grad(args[1:], state.mode) if len(args) > 1 else Grad.MAYBE)
        if qual.startswith("torch.distributions.") and last[:1].isupper():
            # `Categorical(logits=out)`: its `log_prob`/`entropy`/`rsample` carry `out`'s graph
            values = [*args, *(self.evaluate(k.value, state, frame) for k in node.keywords)]
            return Value(Kind.OTHER, self._combine_grad(values, state.mode), ref=vocab.DISTRIBUTION)
        namespace_ok = qual.startswith(vocab.TENSOR_NAMESPACES) or qual.count(".") == 1
        if not namespace_ok:
            return UNKNOWN
        if last in vocab.TORCH_NON_TENSOR or last.startswith("_"):
            return UNKNOWN
        if last in vocab.GRAPH_KEEPING_SAMPLERS and any(arg.kind is Kind.TENSOR for arg in args):
            # `torch.normal(action_mean, action_std)`: a sample of tensors that may carry a graph
            return tensor(self._combine_grad(args, state.mode))
        if last in vocab.LEGACY_TENSOR_TYPES or last in vocab.FACTORIES:
            requires = vocab.call_argument(node, None, "requires_grad")
            if requires is not None and vocab.constant_of(requires, default=None) is True:
                return tensor(Grad.YES, Role.LEAF | (Role.INFERENCE if state.mode is GradMode.INFERENCE else Role.NONE))
            if last in ("tensor", "as_tensor") and args and args[0].kind is Kind.TENSOR:
                return tensor(Grad.NO, args[0].roles & Role.SCALAR)
            return tensor(Grad.NO, Role.INFERENCE if state.mode is GradMode.INFERENCE else Role.NONE)
        if last[:1].isupper():
            return UNKNOWN
        if last in vocab.LOSS_FUNCTIONS:
            scalar = _reduces(node)
            grad = self._combine_grad(args, state.mode)
            return tensor(grad, Role.LOSS | (Role.SCALAR if scalar else Role.UNREDUCED))
        if last in vocab.GRAD_DROPPING:
            if last in vocab.PYTHON_VALUE_METHODS or last in ("equal", "allclose"):
                return NUMBER
            return tensor(Grad.NO)
        grad = self._combine_grad(args, state.mode) if args else Grad.NO
        roles = Role.INFERENCE if state.mode is GradMode.INFERENCE else Role.NONE
        if (last in vocab.FULL_REDUCTIONS and len(node.args) == 1 and not node.keywords) or (
            last in vocab.SCALAR_PRODUCTS and len(node.args) == 2
        ):
            roles |= Role.SCALAR  # (`torch.dot(a, b)`: a 0-dim tensor)
            if last in ("mean", "sum") and args[0].kind is Kind.TENSOR:
                roles |= args[0].roles & Role.LOSS  # `torch.mean(loss)`: still the loss
        elif last in vocab.FULL_REDUCTIONS and _reduces_over_dimensions(node, 1):
            roles |= Role.UNREDUCED  # `torch.mean(x, 0)`: its shape is `x`'s less one dimension
        elif last in vocab.ELEMENTWISE_UNARY and args and args[0].kind is Kind.TENSOR:
            roles |= args[0].roles & Role.SCALAR
        elif (
            last in vocab.ELEMENTWISE_BINARY
            and len(node.args) == 2
            and len(args) == 2
            and args[0].kind is Kind.TENSOR
            and all(v.kind is Kind.NUMBER or (v.kind is Kind.TENSOR and v.has(Role.SCALAR)) for v in args)
        ):
            roles |= Role.SCALAR | (args[0].roles & Role.LOSS)  # `torch.div(loss, len(loader))`: still 0-dim
        if last in ("max", "min", "sort", "topk", "median", "mode", "kthvalue") and (
            len(node.args) > 1 or node.keywords
        ):
            return container(items=(tensor(grad, roles), tensor(Grad.NO)))
        return tensor(grad, roles)

    def _updated_modules(self, params: ast.AST, depth: int) -> Optional[list]:
        """The dotted names of the modules whose parameters an optimizer is given:
        ``D.parameters()``, ``itertools.chain(G.parameters(), E.parameters())``,
        ``list(G.parameters()) + list(E.parameters())``, ``[{"params": G.parameters()}, ...]``,
        or a name bound to one of those; None when any part is something else."""
        if depth > 4:
            return None
        if isinstance(params, ast.Call):
            func = params.func
            if isinstance(func, ast.Attribute) and func.attr in ("parameters", "named_parameters"):
                name = held_name(func.value)
                return [name] if name else None
            called = self.imports.qualified_name(func) or dotted_name(func) or ""
            if called in ("itertools.chain", "chain", "list", "tuple", "itertools.chain.from_iterable"):
                parts = [self._updated_modules(a, depth + 1) for a in params.args]
                return None if not parts or None in parts else [m for part in parts for m in part]  # type: ignore[union-attr]
            return None
        if isinstance(params, ast.BinOp) and isinstance(params.op, ast.Add):
            left = self._updated_modules(params.left, depth + 1)
            right = self._updated_modules(params.right, depth + 1)
            return left + right if left is not None and right is not None else None
        if isinstance(params, (ast.List, ast.Tuple)) and params.elts:
            parts = []
            for elt in params.elts:
                if isinstance(elt, ast.Dict):
                    keyed = {
                        vocab.constant_of(k, default=None): v for k, v in zip(elt.keys, elt.values) if k is not None
                    }
                    elt = keyed.get("params")
                part = self._updated_modules(elt, depth + 1) if elt is not None else None
                if part is None:
                    return None
                parts.extend(part)
            return parts
        if isinstance(params, ast.Name):
            found = self.definitions(params)
            if len(found) == 1 and found[0].value is not None and isinstance(found[0].node, ast.Assign):
                return self._updated_modules(found[0].value, depth + 1)
        return None

    @staticmethod
    def _container_layers(last: str, node: ast.Call, args: list) -> Optional[tuple]:
        """The modules an ``nn.Sequential(a, b)`` or ``nn.ModuleList([a, b])`` is built from,
        when every one is known (kept in the value's ``items``), else None."""
        if last not in ("Sequential", "ModuleList") or node.keywords:
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        if last == "ModuleList":
            if len(args) != 1 or args[0].kind is not Kind.CONTAINER or args[0].elem is None:
                return None
            layers = args[0].items or (args[0].elem,)
        else:
            layers = tuple(args)
        return layers if layers and all(v.kind is Kind.MODULE for v in layers) else None

    def _method_call(self, receiver: Value, method: str, node: ast.Call, args: list, state: State, frame) -> Value:
        kind = receiver.kind
        if kind is Kind.TENSOR:
            return self._tensor_method(receiver, method, node, args, state)
        if method == "item" and not node.args and kind in (Kind.NUMBER, Kind.OTHER, Kind.UNKNOWN):
            # a tensor's or an array's one element as a Python number, whatever the receiver
            # (`loss = model(images, captions).item()`)
            if kind is not Kind.UNKNOWN or method not in self._hand_made_members():
                return NUMBER
        if (
            kind is Kind.NUMBER
            or (kind is Kind.OTHER and receiver.grad is Grad.NO and receiver.ref is None and not receiver.items)
        ) and method in _NUMERIC_REDUCTIONS:
            # `abs(gt - pred.detach().numpy()).mean()`: an array's or a number's reduction is a number
            return NUMBER
        if receiver is _LOADED and method in vocab.MODULE_RETURNING_METHODS:
            return receiver  # `torch.load(path).cuda()`, `.eval()`: whatever was loaded, moved
        if (
            kind is Kind.UNKNOWN
            and method == "eval"
            and not node.args
            and not node.keywords
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, (ast.Name, ast.Attribute))
            and not self.other_framework_models
        ):
            # `pipe.text_encoder.eval()` of another library's object: only a module switches to
            # eval mode by a method of that name taking nothing (pandas' `eval` takes an
            # expression); not on an object made right there (`getattr(models, name)().eval()`,
            # whose model may never be trained or loaded)
            return Value(Kind.MODULE, Grad.NO, Role.EVALUATING)
        if (
            kind is Kind.UNKNOWN
            and method == "state_dict"
            and not node.args
            and not node.keywords
            and method not in self._hand_made_members()
        ):
            # `self.frontend.state_dict()` of a module a function of the file builds: names to
            # tensors sharing the parameters' storage (an optimizer's holds no tensor one would
            # read `.data` of)
            return container(tensor(Grad.NO, weak=True))
        if kind is Kind.OTHER and receiver.ref == vocab.DISTRIBUTION:
            if method in ("sample", "sample_n", "enumerate_support"):
                return tensor(Grad.NO)  # drawn without a graph (`rsample` keeps one)
            if method in _DISTRIBUTION_GRAPH_METHODS:
                return tensor(receiver.grad if not state.mode.off else Grad.NO)
            return UNKNOWN
        if kind is Kind.MODULE:
            if method in vocab.MODULE_RETURNING_METHODS:
                if method == "eval":
                    return receiver.with_(roles=(receiver.roles & ~Role.TRAINING) | Role.EVALUATING)
                if method == "train":
                    flag = vocab.call_argument(node, 0, "mode")
                    mode = True if flag is None else vocab.constant_of(flag, default=None)
                    switched = Role.TRAINING if mode is True else Role.EVALUATING if mode is False else Role.NONE
                    return receiver.with_(roles=(receiver.roles & ~(Role.EVALUATING | Role.TRAINING)) | switched)
                return receiver
            if method in vocab.PARAMETER_METHODS:
                if receiver.weak and method in self._hand_made_members():
                    return UNKNOWN  # maybe a layer of the file's own autograd values
                param = tensor(Grad.YES, Role.PARAM | Role.LEAF)
                if method == "named_parameters":
                    return container(container(items=(OTHER, param)))
                return container(param)
            if _SOME_PARAMETERS_RE.match(method) and method not in self._hand_made_members():
                # `model.final_parameters()`: a module's own selection of its parameters (by its name)
                return container(tensor(Grad.YES, Role.PARAM | Role.LEAF, weak=True))
            if method in ("buffers",):
                return container(tensor(Grad.NO))
            if method in ("forward", "__call__"):
                return self._module_call(receiver, node, args, state, frame)
            if method in ("children", "modules"):
                return container(module())
            if method in ("state_dict", "zero_grad", "apply", "register_forward_hook", "load_state_dict"):
                if method == "state_dict":
                    # name -> parameter or buffer, detached but sharing its storage
                    return container(tensor(Grad.NO))
                return UNKNOWN
            info = self._class_table().get(receiver.ref) if receiver.ref else None
            if info is not None:
                # its own method or one a base class of the file gives it (`validation_epoch_end`
                # of a notebook's `ImageClassificationBase`)
                fn = self._method_of(info, method)
                if fn is not None:
                    if not self._summaries_allowed(frame):
                        return UNKNOWN
                    returned = self._returned(self.function_summary(fn).returns, args, state)
                    return self._passed_back(fn, node, args, returned, bound=True)
            if (receiver.ref or "").startswith("project:"):
                # `model.reconstruct(x)` of a module class another file of the run defines
                returned = self._project_method_returns(receiver.ref, method, args, state, frame)  # type: ignore[arg-type]
                if returned.kind is Kind.TENSOR and state.mode.off:
                    return returned.with_(grad=Grad.NO)  # run under `no_grad`: no graph
                if returned.kind is not Kind.UNKNOWN:
                    return returned
            # ``self.encoder(x)``: a call of a submodule held in an attribute.
            held = self._module_attribute(receiver, method, node.func, frame)  # type: ignore[arg-type]
            if held.kind is Kind.MODULE:
                return self._module_call(held, node, args, state, frame)
            if (
                held.kind is Kind.UNKNOWN
                and not (receiver.ref or "").startswith("torch.nn.")
                and _names_loss_function(method)
            ):
                # ``self.criterion(out, y)`` handed in unknown, ``capsule.loss(props, label)``
                loss = self._named_loss(args, state)
                if (
                    state.mode is GradMode.ENABLED
                    and not (isinstance(node.func, ast.Attribute) and _is_self(node.func.value))
                    and not self.module_without_parameters(receiver)
                ):
                    # `model.neg_ll_loss(sentence, tags)`: a model's own loss, through its parameters
                    loss = loss.with_(grad=Grad.YES)
                return loss
            return UNKNOWN
        if kind is Kind.OPTIMIZER:
            return NONE_VALUE if method in ("step", "zero_grad") else UNKNOWN
        if kind is Kind.CONTAINER:
            if method in ("items",):
                return container(container(items=(UNKNOWN, receiver.elem or UNKNOWN)))
            if method in ("values", "copy"):
                return container(receiver.elem) if method == "values" else receiver
            if method in ("pop", "get", "popitem", "setdefault"):
                return receiver.elem or UNKNOWN
            return UNKNOWN
        if kind is Kind.CLASS and receiver.ref is not None and method.startswith(("from_", "load")):
            info = self._class_table().get(receiver.ref)
            fn = self._method_of(info, method) if info is not None else None
            if info is not None and (fn is None or any(dotted_name(d) == "classmethod" for d in fn.decorator_list)):
                return self._instance_value(info)  # `GPT.from_pretrained("gpt2")`: an instance of the class
        if (
            kind is Kind.OTHER
            and (
                (receiver.ref or "").startswith(vocab.INFERENCE_MODEL_PACKAGE) or receiver.ref in vocab.GRAD_OFF_MODELS
            )
            and method in vocab.MODULE_RETURNING_METHODS
        ):
            return receiver  # `YOLO("best.pt").to(device)`: the same model object
        if kind is Kind.OTHER and (receiver.ref or "").startswith("project:"):
            return self._project_method_returns(receiver.ref, method, args, state, frame)  # type: ignore[arg-type]
        if kind is Kind.OTHER and receiver.ref is not None:
            info = self._class_table().get(receiver.ref)
            if info is not None and frame.kind != "module-first":
                fn = self._method_of(info, method)
                if fn is not None:
                    if not self._summaries_allowed(frame):
                        return UNKNOWN
                    returned = self._returned(self.function_summary(fn).returns, args, state)
                    return self._passed_back(fn, node, args, returned, bound=True)
                held = self._held_attribute(info, method)
                if held.kind is Kind.MODULE:
                    return self._module_call(held, node, args, state, frame)  # ``self.G(z)`` in a trainer class
                if held.kind is Kind.UNKNOWN and _names_loss_function(method):
                    return self._named_loss(args, state)  # ``self.criterion(x, y)``, handed in unknown
            return UNKNOWN
        if kind is Kind.UNKNOWN and method not in self._hand_made_members():
            if method == "parameters":
                return container(tensor(Grad.YES, Role.PARAM | Role.LEAF, weak=True))
            if method == "named_parameters":
                return container(container(items=(OTHER, tensor(Grad.YES, Role.PARAM | Role.LEAF, weak=True))))
            if _names_loss_function(method):
                return self._named_loss(args, state)
            if (
                method == "forward"
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and _names_loss_function(node.func.value.id)
            ):
                return self._named_loss(args, state)  # `loss.forward(img_f, txt_f, targets)` of a criterion handed in
            if method in vocab.TENSOR_RESULT_METHODS and _called_as_torch_does(method, node):
                # `inp.view(...).permute(0, 2, 1).contiguous()`: only a tensor has the method
                return tensor(Grad.MAYBE, weak=True)
            if method == "topk" and _called_as_torch_does(method, node):
                # `s, idx = s.topk(self.k)`: only a tensor has it; its values and their indices
                return container(items=(tensor(Grad.MAYBE, weak=True), tensor(Grad.NO, weak=True)))
            if method == "requires_grad_" and _copied_tensor(node.func.value):  # type: ignore[attr-defined]
                # `content.clone().requires_grad_(True)`: a copy made a leaf (a module has no `clone`)
                flag = node.args[0] if node.args else vocab.call_argument(node, None, "requires_grad")
                if flag is None or vocab.constant_of(flag, default=None) is True:
                    return self.make_leaf(tensor(Grad.MAYBE))
        return UNKNOWN

    def _tensor_method(self, receiver: Value, method: str, node: ast.Call, args: list, state: State) -> Value:
        result = self._tensor_method_result(receiver, method, node, args, state)
        if (
            state.mode is GradMode.INFERENCE
            and result.kind is Kind.TENSOR
            and not (method in vocab.ALIAS_METHODS and not receiver.has(Role.INFERENCE))
        ):
            # Tensors allocated under inference_mode are inference tensors (views of normal
            # tensors stay normal).
            result = result.with_(roles=result.roles | Role.INFERENCE)
        return result

    def _tensor_method_result(self, receiver: Value, method: str, node: ast.Call, args: list, state: State) -> Value:
        if receiver.weak and method not in vocab.TENSOR_ATTRIBUTE_NAMES:
            # `loss.get_loss()` of a loss wrapper known as a tensor by its name alone: no tensor has
            # the method, so the receiver is something else, and what it gives back is not known
            return UNKNOWN
        if method in ("item", "tolist"):
            return NUMBER
        if method in ("numpy",):
            # an array; of a 0-dim tensor, a 0-dim array (`loss.data.cpu().numpy()`, whose `[0]` raises too)
            return Value(Kind.OTHER, Grad.NO, Role.SCALAR) if receiver.has(Role.SCALAR) else OTHER
        if method in vocab.PYTHON_VALUE_METHODS or method in ("size", "dim"):
            return NUMBER if method != "size" or node.args else OTHER
        if method == "backward":
            return NONE_VALUE
        if method in ("detach", "detach_"):
            return tensor(Grad.NO, (receiver.roles & (Role.SCALAR | Role.INFERENCE)) | Role.DETACHED)
        if method == "requires_grad_":
            flag = node.args[0] if node.args else None
            if flag is None or vocab.constant_of(flag, default=None) is True:
                return self.make_leaf(receiver)
            return receiver.with_(grad=Grad.NO)
        if method in vocab.GRAD_DROPPING or method in vocab.SAMPLING_METHODS:
            return tensor(Grad.NO)  # (`d.sample()` of a policy's output that is a distribution)
        keep = receiver.roles & (Role.INFERENCE | Role.DETACHED | Role.LOSS)
        if vocab.returns_values_and_indices(method, len(node.args) + len(node.keywords)):
            # (values, indices): `_, predictions = outputs.topk(5, dim=1)`, `out.max(1)`; the
            # indices carry no graph
            grad = self._combine_grad([receiver] + args, state.mode)
            return container(items=(tensor(grad, keep & ~Role.LOSS), tensor(Grad.NO)))
        if method in vocab.FULL_REDUCTIONS:
            if not node.args and not node.keywords:
                keep |= Role.SCALAR
            elif _reduces_over_dimensions(node, 0):
                keep |= Role.UNREDUCED  # `x.mean(0)`: `x`'s shape less one dimension
        elif receiver.has(Role.SCALAR) and method not in _SHAPING_METHODS:
            keep |= Role.SCALAR
        if method in ("to", "type") and self._integer_dtype(node):
            return tensor(Grad.NO, keep & ~Role.LOSS)  # `img.to(torch.uint8)`: integers carry no graph
        if method in ("to", "cuda", "cpu", "double", "float", "half", "bfloat16", "type", "type_as"):
            # A leaf moved or cast is a new tensor: no longer a leaf, still requires grad.
            grad = receiver.grad if not state.mode.off or receiver.grad is Grad.NO else Grad.NO
            roles = keep | (receiver.roles & (Role.SCALAR | Role.UNREDUCED))
            if receiver.has(Role.LEAF) and state.mode.off:
                roles |= receiver.roles & (Role.LEAF | Role.PARAM)
            if method in ("to", "type") and receiver.has(Role.LEAF) and not _moves_or_casts(node):
                roles |= receiver.roles & (Role.LEAF | Role.PARAM)
            return tensor(grad, roles, weak=receiver.weak)
        if method.endswith("_") and method in vocab.INPLACE_VALUE_METHODS:
            return receiver
        grad = self._combine_grad([receiver] + args, state.mode)
        return tensor(grad, keep, weak=receiver.weak)

    def _integer_dtype(self, call: ast.Call) -> bool:
        """Whether ``x.to(...)`` / ``x.type(...)`` casts to an integer or boolean dtype."""
        dtype = vocab.call_argument(call, None, "dtype")
        candidates = [dtype] if dtype is not None else list(call.args)
        return any(self.imports.qualified_name(arg) in vocab.INTEGER_DTYPES for arg in candidates)

    # =========================================================================== classes
    def _class_key(self, node: ast.ClassDef) -> str:
        return self._separate_class_keys().get(id(node), node.name)

    def _separate_class_keys(self) -> dict:
        """Keys of their own (``MLP@18``) for a script's classes that a later definition of the
        same name replaces with a class of another kind (a plain `class MLP:` over numpy arrays,
        then `class MLP(nn.Module)` cells later): the instances made before the second one are the
        first one's. A class defined again with bases of the same kind keeps the name as its key
        (a notebook's `MnistModel` given a `validation_step`: the later definition is its instances')."""
        keys = self._own_class_keys
        if keys is None:
            keys = self._own_class_keys = {}
            by_name: dict = {}
            for stmt in self.tree.body:
                if isinstance(stmt, ast.ClassDef):
                    by_name.setdefault(stmt.name, []).append(stmt)
            for name, definitions in by_name.items():
                last = definitions[-1]
                for earlier in definitions[:-1]:
                    if bool(earlier.bases) != bool(last.bases):
                        keys[id(earlier)] = f"{name}@{earlier.lineno}"
        return keys

    def _class_table(self) -> dict:
        if self._classes is not None:
            return self._classes
        classes: dict = {}
        self._classes = classes
        top_level = {id(node) for node in self.tree.body if isinstance(node, ast.ClassDef)}
        for node in _all_classes(self.tree):
            key = self._class_key(node)
            bases = []
            for base in node.bases:
                qual = self.imports.qualified_name(base)
                bases.append(qual if qual is not None else (dotted_name(base) or ""))
            known = classes.get(key)
            if known is None or (
                # a notebook's class defined again in a later cell (`MnistModel` given a
                # `validation_step`): the later definition is the one its instances have
                id(node) in top_level and id(known.node) in top_level and node.lineno > known.node.lineno
            ):
                classes[key] = ClassInfo(node, key, tuple(bases))
        changed = True
        while changed:
            changed = False
            for info in classes.values():
                for base in info.bases:
                    other = classes.get(base)
                    module_base = base in vocab.MODULE_BASES or (
                        base.startswith("torch.nn.")
                        and vocab.last_name(base)[:1].isupper()
                        and vocab.last_name(base) != "Parameter"
                        and not base.startswith("torch.nn.functional.")
                    )
                    module_base = module_base or base.endswith("LightningModule")
                    if not module_base and other is None and self.project is not None and "." in base:
                        fact = self.project.classes.get(self._project_name(base))
                        module_base = fact is not None and fact.module  # `from seq2seq import EncoderDecoder`
                    function_base = base in vocab.AUTOGRAD_FUNCTION_BASES
                    dataset_base = base.startswith("torch.utils.data.") and vocab.last_name(base).endswith("Dataset")
                    if other is not None and other is not info:
                        module_base = module_base or other.is_module
                        function_base = function_base or other.is_autograd_function
                        dataset_base = dataset_base or other.is_dataset
                    if module_base and not info.is_module:
                        info.is_module = changed = True
                    if function_base and not info.is_autograd_function:
                        info.is_autograd_function = changed = True
                    if dataset_base and not info.is_dataset:
                        info.is_dataset = changed = True
        return classes

    def _imported_hand_made_members(self) -> frozenset:
        """The members of the plain classes of the run's modules this file imports that define
        hand-made autograd values (``ProjectIndex.hand_made``)."""
        if self.project is None or not self.project.hand_made:
            return frozenset()
        found: set = set()
        for qualified in set(self.imports.names.values()):
            for candidate in (qualified, qualified.rpartition(".")[0]):
                if candidate:
                    found |= self.project.hand_made.get(self._project_name(candidate), frozenset())
        return frozenset(found)

    def _hand_made_members(self) -> frozenset:
        """Where the file defines its own autograd values (a plain class with a ``backward``
        method that sets ``self.grad``, as in a micrograd ``Value``): the attributes and methods
        of the file's plain classes (``data``, ``grad``, ``backward``, ``parameters``), which
        then say nothing of tensors or modules. Empty in any other file."""
        if self._hand_made is not None:
            return self._hand_made
        # `from micrograd.engine import Value`: another file's values, and the file's own
        imported = self._imported_hand_made_members()
        plain = [
            info
            for info in self._class_table().values()
            if not (info.is_module or info.is_autograd_function or info.is_dataset)
            and all(base in ("", "object") for base in info.bases)
        ]
        if not any(
            _BACKWARD_MEMBER_RE.search(text) and _GRAD_MEMBER_RE.search(text)
            for text in (self._scope_text(info.node) for info in plain)
        ):
            self._hand_made = imported  # no plain class can have both members: nothing to walk
            return self._hand_made
        members: dict = {}
        for info in plain:
            names = set()
            for stmt in info.node.body:
                if isinstance(stmt, FUNCTION_TYPES):
                    names.add(stmt.name)
                    for sub in walk_in_order(stmt):
                        if (
                            type(sub) is ast.Attribute
                            and type(sub.ctx) is ast.Store  # type: ignore[attr-defined]
                            and type(sub.value) is ast.Name  # type: ignore[attr-defined]
                            and sub.value.id == "self"  # type: ignore[attr-defined]
                        ):
                            names.add(sub.attr)  # type: ignore[attr-defined]
            members[info.key] = names
        if any({"backward", "grad"} <= names for names in members.values()):
            self._hand_made = imported.union(*members.values())
        else:
            self._hand_made = imported
        return self._hand_made

    def _layers(self, info: ClassInfo) -> set:
        """The torch.nn classes and module classes of the file a module class constructs."""
        if info.layers_known:
            return info.layers
        info.layers_known = True
        classes = self._class_table()
        for sub in walk(info.node):
            if isinstance(sub, ast.Call):
                qual = self.imports.qualified_name(sub.func)
                if qual is not None and qual.startswith("torch.nn.") and not qual.startswith("torch.nn.functional."):
                    info.layers.add(vocab.last_name(qual))  # a layer class, not `F.relu(x)`
                    if vocab.recurrent_dropout(sub, qual):
                        info.layers.add("Dropout")  # `nn.LSTM(d, h, n, dropout=0.2)`: between its layers
                elif qual is not None and qual.startswith("torchvision.models."):
                    if not vocab.SWITCHES_TO_EVAL_RE.search(self._scope_text(info.node)):
                        # (a backbone the class switches to eval mode itself normalises with its running averages)
                        info.layers.update(vocab.torchvision_backbone_layers(vocab.last_name(qual)))
                elif isinstance(sub.func, ast.Name) and sub.func.id in classes:
                    info.layers.add(sub.func.id)
                elif isinstance(sub.func, ast.Name) and sub.func.id in self._layer_builders:
                    builder = top_function(self.tree, sub.func.id)
                    if builder is not None:
                        # `self.frontend = make_layers(cfg, batch_norm=True)`: the layers it builds
                        info.layers.update(self._built_layers(builder, sub))
        return info.layers

    @functools.cached_property
    def _layer_builders(self) -> frozenset:
        """The names of the file's module-level functions whose text builds a torch layer (``nn.``)."""
        return frozenset(
            node.name
            for node in self.tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "nn." in self._scope_text(node)
        )

    def _built_layers(self, builder: ast.AST, call: ast.Call) -> set:
        """The torch.nn layer classes a module-level function of the file builds for a call
        (``project.layers_built_for``: VGG's ``make_layers(cfg, batch_norm=True)``)."""

        def layer_of(node: ast.Call) -> Optional[str]:
            qual = self.imports.qualified_name(node.func)
            if qual is not None and qual.startswith("torch.nn.") and not qual.startswith("torch.nn.functional."):
                return vocab.last_name(qual)
            return None

        return layers_built_for(builder, call, layer_of)

    def _unused_layers(self, info: ClassInfo) -> set:
        """The torch layer classes a module class builds only into attributes its code never reads
        (``self.dropout = nn.Dropout(0.1)`` whose one use in ``forward`` is commented out): they
        never run, and their mode changes nothing."""
        if info.unused_layers is not None:
            return info.unused_layers
        nodes = list(walk(info.node))
        read = {
            sub.attr
            for sub in nodes
            if isinstance(sub, ast.Attribute)
            and isinstance(sub.ctx, ast.Load)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "self"
        }
        # the calls stored into attributes of `self` nothing reads, by id
        unread = {
            id(sub.value)
            for sub in nodes
            if isinstance(sub, ast.Assign)
            and all(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                and t.attr not in read
                for t in sub.targets
            )
        }
        unused: set = set()
        used: set = set()
        for sub in nodes:
            if not isinstance(sub, ast.Call):
                continue
            qual = self.imports.qualified_name(sub.func)
            if qual is None or not qual.startswith("torch.nn.") or qual.startswith("torch.nn.functional."):
                continue
            (unused if id(sub) in unread else used).add(vocab.last_name(qual))
            if vocab.recurrent_dropout(sub, qual):
                (unused if id(sub) in unread else used).add("Dropout")
        info.unused_layers = unused - used
        return info.unused_layers

    def _class_has_layers(self, info: ClassInfo, names: frozenset, seen: set) -> Optional[bool]:
        if info.key in seen:
            return False
        seen.add(info.key)
        layers = self._layers(info) - self._unused_layers(info)
        if layers & names:
            return True
        classes = self._class_table()
        unknown = False
        for layer in layers:
            other = classes.get(layer)
            if other is not None and other.is_module:
                found = self._class_has_layers(other, names, seen)
                if found:
                    return True
                if found is None:
                    unknown = True
        for base in info.bases:
            other = classes.get(base)
            if other is not None:
                found = self._class_has_layers(other, names, seen)
                if found:
                    return True
                if found is None:
                    unknown = True
            elif not (base in vocab.MODULE_BASES or base.startswith("torch.nn.")):
                unknown = True
            elif base.startswith("torch.nn.") and vocab.last_name(base) in names:
                return True
        return None if unknown else False

    def mode_keeping_calls(self, fn: ast.AST) -> frozenset:
        """What ``self.<name>(...)`` may call in a method ``fn`` of a class of the file with no
        base but ``object`` without switching a module's mode: its methods with no
        ``.train(``/``.eval(`` in their text and no call of another of its methods
        (``self.accuracy(out, y)``), and the attributes its methods assign that are no methods
        (``self.criterion = nn.CrossEntropyLoss()``, a module run). Empty for any other function.
        Kept per class."""
        info = self._method_class(fn)
        if info is None or any(base not in ("object", "builtins.object") for base in info.bases):
            return frozenset()
        key = (info.key, "mode-keeping-calls")
        found = self._summaries.get(key)
        if found is None:
            methods = self._methods(info)
            keeping = set()
            for name, method in methods.items():
                text = self._scope_text(method)
                calls_another = False
                for sub in walk_in_order(method):
                    if isinstance(sub, ast.Call):
                        func = sub.func
                        if isinstance(func, ast.Attribute) and _is_self(func.value) and func.attr in methods:
                            calls_another = True
                    elif (
                        isinstance(sub, ast.Attribute)
                        and isinstance(sub.ctx, ast.Store)
                        and _is_self(sub.value)
                        and sub.attr not in methods
                    ):
                        keeping.add(sub.attr)  # `self.criterion = nn.CrossEntropyLoss()`
                if not (calls_another or "train(" in text or "eval(" in text or "train_mode" in text):
                    keeping.add(name)
            found = self._summaries[key] = frozenset(keeping)
        return found

    def _method_class(self, fn: ast.AST) -> Optional[ClassInfo]:
        location = self._where(fn)
        if location is not None and isinstance(location.scope, ast.ClassDef) and fn in location.scope.body:
            return self._class_table().get(self._class_key(location.scope))
        return None

    def _method_of(self, info: ClassInfo, name: str) -> Optional[ast.AST]:
        """The method ``name`` of the class or of one of its bases in the file, if any."""
        seen: set = set()
        current: Optional[ClassInfo] = info
        while current is not None and current.key not in seen:
            seen.add(current.key)
            found = self._method_node(current, name)
            if found is not None:
                return found
            table = self._class_table()
            current = next((table[b] for b in current.bases if b in table), None)
        return None

    def _method_node(self, info: ClassInfo, name: str) -> Optional[ast.AST]:
        found = self._methods(info).get(name)
        # a property (its getter, setter or deleter) is read, not called: `self.model(x)` calls
        # what the property hands back
        return None if found is not None and is_property(found) else found

    @staticmethod
    def _methods(info: ClassInfo) -> dict:
        """name -> the method the class body defines under it (kept on the class's info)."""
        methods = info.methods
        if methods is None:
            methods = info.methods = {}
            for stmt in info.node.body:
                if isinstance(stmt, FUNCTION_TYPES):
                    methods[stmt.name] = stmt  # the last definition wins, as in Python
        return methods

    # ========================================================================= functions
    def function_node(self, value: Value) -> Optional[ast.AST]:
        """The definition a function value is (of the definitions of one name, the one bound
        where the value was read), or None."""
        return self._function_node(value) if value.kind is Kind.FUNCTION else None

    def _function_node(self, value: Value) -> Optional[ast.AST]:
        if value.ref is None:
            return None
        return self._definitions.get(value.ref)

    def _summarise(self, fn: ast.AST) -> FunctionSummary:
        summary = FunctionSummary()
        if isinstance(fn, ast.Lambda):
            return summary  # what a lambda returns is not followed
        generator = False
        nodes = self.own_nodes(fn)
        # `y, log_det = self.flow.backward(z)`: a value comes back, so it is no autograd backward
        # pass (`Tensor.backward` returns None) but a module's own method (a flow's inverse)
        valued = {id(sub.value) for sub in nodes if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.Return))}
        for sub in nodes:
            if isinstance(sub, (ast.Yield, ast.YieldFrom)):
                generator = True
            elif isinstance(sub, ast.Call):
                func = sub.func
                attr = func.attr if isinstance(func, ast.Attribute) else None
                if (attr == "backward" and id(sub) not in valued) or (
                    # `torch.autograd.grad(energy, x)`, or `grad(...)` imported from it
                    self.imports.may_name(func, vocab.BACKWARD_CALL_NAMES)
                    and self.imports.qualified_name(func) in vocab.BACKWARD_FUNCTIONS
                ):
                    summary.calls_backward = True
                elif attr == "step":
                    summary.steps_optimizer = True
                elif attr == "eval" and not sub.args:
                    summary.switches_to_eval = True
            if _resets_grad(sub):
                summary.zeroes_grad = True
        # `[torch.autograd.grad(out[:, i], x, ...)[0] for i in range(k)]`: a comprehension runs where
        # it stands, so its differentiation is the function's
        summary.calls_backward = summary.calls_backward or any(
            type(inner) is ast.Call
            and self.imports.may_name(inner.func, vocab.BACKWARD_CALL_NAMES)
            and self.imports.qualified_name(inner.func) in vocab.BACKWARD_FUNCTIONS
            for inner in comprehension_nodes(nodes)
        )
        summary.generator = generator
        summary.returns = self._frame_returns(fn, self._summary_frame(fn), generator)
        return summary

    def _frame_returns(self, fn: ast.AST, frame: Optional[Frame], generator: bool) -> Value:
        """What a function's flow in ``frame`` returns (its annotation where the flow cannot tell)."""
        annotated = self.annotation_value(fn.returns) if getattr(fn, "returns", None) is not None else None  # type: ignore[attr-defined]
        if generator:
            return UNKNOWN
        if frame is None or frame.flow is None:
            return annotated or UNKNOWN
        if any((dotted_name(deco) or "").endswith("abstractmethod") for deco in getattr(fn, "decorator_list", ())):
            return annotated or UNKNOWN  # what a subclass's override returns
        values = [value if value is not None else NONE_VALUE for _stmt, value in frame.flow.returns]
        if frame.flow.exit is not None:
            values.append(NONE_VALUE)
        if not values:
            return annotated or UNKNOWN  # it always raises (`raise NotImplementedError`): an override returns
        returned = join_all(values)
        if returned is not None and returned.kind is Kind.UNKNOWN and annotated is not None:
            returned = annotated
        return returned or UNKNOWN

    def zeroes_grad_in(self, node: ast.AST) -> bool:
        """Whether the code of ``node`` (nested functions included: an optimizer's closure)
        resets gradients: ``zero_grad()`` on anything, ``p.grad = None``, ``p.grad.zero_()``,
        ``p.grad.data.zero_()``, ``p.grad *= 0``, ``del p.grad`` (not ``p.grad /= norm`` nor
        ``p.grad.clamp_(-1, 1)``, which keep what it accumulated)."""
        return any(_resets_grad(sub) for sub in walk_in_order(node))

    def grad_resets_in(self, node: ast.AST) -> list:
        """The nodes of ``zeroes_grad_in``'s resets in the code of ``node``, in walk order."""
        return [sub for sub in walk_in_order(node) if _resets_grad(sub)]

    def callee(self, call: ast.Call) -> Optional[ast.AST]:
        """The function or method of this file that ``call`` runs, when the code shows it:
        a function by name, or a method of a class of the file called on an instance of it
        (``self.reset()``, ``trainer.step()``)."""
        func = call.func
        if isinstance(func, ast.Attribute):
            receiver = self.value(func.value)
            if receiver.kind in (Kind.MODULE, Kind.OTHER) and receiver.ref is not None:
                info = self._class_table().get(receiver.ref)
                return self._method_of(info, func.attr) if info is not None else None
            return None
        value = self.value(func)
        if value.kind is Kind.FUNCTION:
            return self._function_node(value)
        return None

    def _callers_of(self, fn: ast.AST) -> Optional[list]:
        raw = self._call_sites_of(fn)
        if raw is None:
            return None
        sites = []
        maybe = self._maybe_call_sites.get(id(fn), frozenset())
        if len(raw) > 1:
            # a function nobody calls never runs: its calls reach nothing (one of two callers an
            # unused `evaluate_input(searcher)` left beside the `single_evaluate` a script runs)
            raw = [site for site in raw if not self._never_called(site[1])] or raw
        for call, caller_scope in raw:
            frame = self._caller_frame(caller_scope)
            if frame is None or frame.flow is None:
                return None
            location = self._where(call)
            stmt = location.statement if location is not None else None
            state = frame.flow.before.get(id(stmt)) if stmt is not None else None
            if state is None:
                continue  # unreachable call
            if id(call) in maybe and state.mode not in (GradMode.DISABLED, GradMode.INFERENCE):
                return None  # a call that may be of another class's method, with grad on: not known
            sites.append(CallSite(call, state, frame))
        return sites

    @functools.cached_property
    def _runs_its_functions(self) -> bool:
        """Whether the file's own top-level code (a script, a notebook, a main block) calls a
        function the file defines: then what it runs is what it calls."""
        defined = {node.name for node in self.tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return any(
            isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in defined
            for statement in self.tree.body
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for sub in ast.walk(statement)
        )

    def _never_called(self, scope: ast.AST) -> bool:
        """Whether a module-level function of a file that runs its own functions (a script) is
        never called: no call of it in the file, nor from another file of the run, not used other
        than by calling it (passed on, stored, decorated), and not a test a runner calls
        (``test_*``) nor a script's entry (``main``)."""
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope not in self.tree.body:
            return False
        if not self._runs_its_functions:
            return False  # a library's module: its functions are called by whoever imports them
        if scope.decorator_list or scope.name.startswith(("test", "main", "_")) or scope.name == "run":
            return False
        if self._call_sites_of(scope) != []:
            return False
        if self._external_calls(scope):
            return False
        if self.project is not None and self.project.module_of(self.filename) in self.project.imported_digests:
            return False  # another file imports from this one: what it calls is not all known here
        return True

    def _call_sites_of(self, fn: ast.AST) -> Optional[list]:
        """[(Call, scope node of the caller)] for a function of the file, or None when its
        callers are not all known: it is used other than by calling it, decorated (other than
        by a grad mode or ``staticmethod``), defined twice, a dunder method, or defined under an
        ``if``, ``try`` or ``with`` (a function defined in another's body is called there).
        Found by searching the text for its name, then reading only those statements. Asked
        again while being found (a receiver's value needing the flow that asks), it answers None
        for then; an answer built on such a stand-in is kept only until the cycle's head is
        finished (``_keep``), not for good."""
        key = id(fn)
        if key in self._call_sites:
            return self._call_sites[key]
        progress = (key, "call-sites")
        if progress in self._in_progress:
            self._cycle_at(progress)
            return None
        self._begin(progress)
        head = None
        sites = None
        try:
            self._maybe_call_sites.pop(key, None)
            sites = self._find_call_sites(fn)
        finally:
            head = self._end(progress)
        self._keep(head, self._call_sites, key, sites)
        return sites

    def _find_call_sites(self, fn: ast.AST) -> Optional[list]:
        key = id(fn)
        location = self._where(fn)
        owner = location.scope if location is not None else None
        if (
            location is not None
            and len(location.enclosing) > 1
            and not isinstance(location.enclosing[-2], (ast.ClassDef, *FUNCTION_TYPES))
            and not (len(location.enclosing) == 2 and is_main_guard(location.enclosing[0]))
        ):
            owner = None  # defined under an if/try/with: not a plain definition (but a script's main guard)
        name = fn.name  # type: ignore[attr-defined]
        is_method = isinstance(owner, ast.ClassDef)
        if name == "__init__" and is_method and self._constructed_only(owner):  # type: ignore[arg-type]
            # `Normalization(mean, std)`: the calls of a module-level class of the file run its
            # `__init__`, with the same arguments after `self`
            name, is_method, owner = owner.name, False, self.tree  # type: ignore[union-attr]
        # a function defined in another's body (`def get_action_argmax(next_states)` of a loss
        # function) is called there only, by its name
        nested = isinstance(owner, FUNCTION_TYPES)
        if not (is_method or nested or isinstance(owner, ast.Module)) or (
            name.startswith("__") and name.endswith("__")
        ):
            return None  # a dunder method runs where Python calls it (a private `__solve` is called by name)
        definitions = self._scope(owner).definitions.get(name, ())
        window = None  # (first line, last line) of the calls that run this definition
        if len(definitions) > 1:
            if not isinstance(owner, ast.Module):
                return None  # defined twice in a class: which one a call runs is not known
            # A script or notebook defining it again (`compute_accuracy` in two cells): a call
            # at module level runs the definition above it.
            later = [d.lineno for d in definitions if d.lineno > fn.lineno]  # type: ignore[attr-defined]
            window = (fn.end_lineno or fn.lineno, min(later) - 1 if later else float("inf"))  # type: ignore[attr-defined]
        for deco in fn.decorator_list:  # type: ignore[attr-defined]
            if self._decorated_mode_of(deco) is None and dotted_name(deco) not in ("staticmethod", "classmethod"):
                return None
        text = self.source_text
        starts = self._line_starts()
        found = _occurrences(text, name)
        own_class = None  # the class's key, for calls on its instances (`model.predict(x)`)
        if is_method:
            info = self._class_table().get(self._class_key(owner))  # type: ignore[arg-type]
            own_class = info.key if info is not None and info.node is owner else None
            found = (
                i for i in found if text.endswith("self.", 0, i) or (own_class is not None and text.endswith(".", 0, i))
            )
        lines = sorted({bisect.bisect_right(starts, i) for i in found})
        if nested:
            lines = [line for line in lines if owner.lineno <= line <= (owner.end_lineno or owner.lineno)]  # type: ignore[union-attr]
        sites: list = []
        maybe: set = set()  # id(Attribute) of calls on a receiver that may hold another class
        if lines:
            for stmt in iter_statements(self.tree.body, lines):
                for node, parent in _header_nodes(stmt, lines):
                    if is_method:
                        hit = isinstance(node, ast.Attribute) and node.attr == name
                        if hit and isinstance(node.value, ast.Name) and node.value.id == "self":
                            hit = not self._own_method_of_another_class(node, owner, name)
                        elif hit:
                            # A call on an instance, in a script's or notebook's code (`model.
                            # get_accuracy(x, y)`); in functions, only on a module-level instance
                            # (other receivers' values would need the functions' flows).
                            receiver_name = node.value.id if isinstance(node.value, ast.Name) else None
                            held = self._held_instance(node.value, own_class) if hit else None
                            if hit and receiver_name is not None and self._names_own_class(node, owner):
                                pass  # `Trainer.accuracy(model, loader)`, `cls.accuracy(...)`: this method
                            elif held is not None:
                                if held == "unknown":
                                    # `self.model.generate(...)`: maybe this class's; a caller only
                                    # where it runs without grad (`_callers_of`), else not all known
                                    maybe.add(id(node))
                                hit = held in ("yes", "unknown")
                            elif receiver_name is not None and not self._in_top_level_definition(node.lineno):
                                where = self._where(node)
                                hit = where is not None and where.scope is self.tree
                                if hit:
                                    receiver = self.value(node.value)  # type: ignore[attr-defined]
                                    if receiver.kind is Kind.UNKNOWN:
                                        return None  # maybe an instance of this class: callers not all known
                                    hit = receiver.kind in (Kind.MODULE, Kind.OTHER) and receiver.ref == own_class
                            else:
                                # In a function, a module-level instance it does not bind again
                                # (`decoder = DecoderRNN()`, then `decoder.predict(x)` in a
                                # `@torch.no_grad()` function): that function calls the method.
                                hit = receiver_name is not None and self._global_instance_call(node, own_class)
                    else:
                        hit = isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
                    if not hit:
                        continue
                    if isinstance(parent, ast.Call) and parent.func is node:
                        calls = [parent]
                    elif (
                        isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "super"
                    ):
                        continue  # `super(Normalization, self).__init__()` in the class's own body
                    else:
                        calls = self._table_calls(stmt, node, parent)
                        if calls is None:
                            return None  # passed on, stored, wrapped: other callers may exist
                    for call in calls:
                        where = self._where(call)
                        if where is None or where.lambda_ is not None or isinstance(where.scope, ast.ClassDef):
                            return None
                        if window is not None:
                            if not isinstance(where.scope, ast.Module):
                                return None  # a function calling it runs whichever definition is current
                            if not window[0] < call.lineno <= window[1]:
                                continue  # a call of another definition of the name
                        if self.shadowed_method(where.scope):
                            continue  # in a method its class body defines again below: it never runs
                        sites.append((call, where.scope))
        if len(sites) > _MAX_CALL_SITES:
            return None  # a helper called from all over: its callers say nothing in particular
        if maybe:
            self._maybe_call_sites[key] = frozenset(
                id(call) for call, _ in sites if isinstance(call, ast.Call) and id(call.func) in maybe
            )
        return sites

    def _constructed_only(self, cls: ast.ClassDef) -> bool:
        """Whether a class is one the file only constructs by its name, so that the calls of its
        name are the calls of its ``__init__``: defined once at module level, undecorated, and no
        class of the file derives from it (whose ``super().__init__(...)`` would run it too)."""
        if cls not in self.tree.body or cls.decorator_list:
            return False
        if len(self.scopes.module.definitions.get(cls.name, ())) != 1:
            return False
        table = self._class_table()
        return not any(info.node is not cls and cls.name in info.bases for info in table.values())

    def _table_calls(self, stmt: ast.stmt, node: ast.AST, parent: ast.AST) -> Optional[list]:
        """The calls that run a function stored in a table bound to a name of a function's scope,
        where every use of that name is such a call (``sampler = dict(tcn=self.sample_tcn,
        lstm=self.sample_rnn)``, then ``sampler[name](x, length)``; also ``{"tcn": ...}``, a list
        or a tuple). None where the table is used otherwise, or bound more than once."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        table = stmt.value
        if isinstance(parent, ast.keyword):
            held = (
                isinstance(table, ast.Call)
                and isinstance(table.func, ast.Name)
                and table.func.id == "dict"
                and not table.args
                and parent in table.keywords
            )
        elif isinstance(parent, ast.Dict):
            held = parent is table and node in parent.values
        else:
            held = isinstance(parent, (ast.List, ast.Tuple)) and parent is table
        where = self._where(stmt)
        if not held or where is None or not isinstance(where.scope, FUNCTION_TYPES):
            return None
        name = stmt.targets[0].id
        calls, loads, stores = [], 0, 0
        for sub in self.own_nodes(where.scope):
            if isinstance(sub, ast.Name) and sub.id == name:
                if isinstance(sub.ctx, ast.Load):
                    loads += 1
                else:
                    stores += 1
            elif (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Subscript)
                and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == name
            ):
                calls.append(sub)
        if stores != 1 or not calls or loads != len(calls) or name in self._scope(where.scope).declared_global:
            return None
        return calls

    def _own_method_of_another_class(self, node: ast.Attribute, owner: ast.ClassDef, name: str) -> bool:
        """Whether ``self.<name>`` sits in a method of another class of the file that defines
        ``name`` itself and that ``owner`` does not derive from: ``self.iterate(x)`` in
        ``Trainer`` calls ``Trainer.iterate`` (or a subclass's), never ``Evaluator.iterate``."""
        where = self._where(node)
        scope = where.scope if where is not None else None
        info = self._method_class(scope) if isinstance(scope, FUNCTION_TYPES) else None
        if info is None or info.node is owner or name not in self._methods(info):
            return False
        own = self._class_table().get(self._class_key(owner))
        seen: set = set()
        pending = [own] if own is not None else []
        while pending:
            current = pending.pop()
            if current.key in seen:
                continue
            seen.add(current.key)
            if current.key == info.key:
                return False  # `owner` derives from that class: it may override the method
            for base in current.bases:
                found = self._class_table().get(base)
                if found is not None:
                    pending.append(found)
        return own is not None and all(
            base in self._class_table() or base.startswith(("torch.", "builtins.")) or base == "object"
            for key in seen
            for base in self._class_table()[key].bases
        )

    def _names_own_class(self, node: ast.Attribute, owner: ast.ClassDef) -> bool:
        """Whether the receiver of ``node`` (``Trainer.accuracy``) is the method's own class: its
        name, which the module binds to that class alone, or ``cls`` in one of its class
        methods."""
        name = node.value.id  # type: ignore[attr-defined]
        if name == "cls":
            where = self._where(node)
            scope = where.scope if where is not None else None
            if not isinstance(scope, FUNCTION_TYPES) or not any(
                dotted_name(deco) == "classmethod" for deco in scope.decorator_list
            ):
                return False
            info = self._method_class(scope)
            return info is not None and info.node is owner
        if name != owner.name or owner not in self.tree.body:
            return False
        definitions = self.scopes.module.definitions.get(name, ())
        if len(definitions) != 1 or self.rebinds(name):
            return False
        where = self._where(node)
        return where is not None and not (
            isinstance(where.scope, FUNCTION_TYPES) and self._scope(where.scope).binds(name)
        )

    def shadowed_method(self, scope: ast.AST) -> bool:
        """Whether ``scope`` is a method that a later definition of the same name in its class
        body replaces (``def predict`` twice in one class): its code never runs."""
        if not isinstance(scope, FUNCTION_TYPES):
            return False
        location = self._where(scope)
        owner = location.scope if location is not None else None
        if not isinstance(owner, ast.ClassDef):
            return False
        return any(
            definition.lineno > scope.lineno  # type: ignore[attr-defined]
            for definition in self._scope(owner).definitions.get(scope.name, ())
        )

    def _held_instance(self, receiver: ast.AST, own_class: Optional[str]) -> Optional[str]:
        """For ``self.<attr>`` in a method (``self.decoder.generate(h)``): "yes" where the
        method's class holds an instance of the class keyed ``own_class`` there, "no" where it
        holds something else, "unknown" where that is not known; None for other receivers."""
        if not (
            isinstance(receiver, ast.Attribute)
            and isinstance(receiver.value, ast.Name)
            and receiver.value.id == "self"
            and own_class is not None
        ):
            return None
        where = self._where(receiver)
        info = self._method_class(where.scope) if where is not None else None
        if info is None:
            return "unknown"
        held = self._instance_attribute(info, receiver.attr)
        if held.kind is Kind.UNKNOWN or (held.weak and held.ref is None):
            return "unknown"  # `self.model = model`: a module known by its name alone may be any class's
        return "yes" if held.ref == own_class else "no"

    def _global_instance_call(self, node: ast.Attribute, own_class: Optional[str]) -> bool:
        """Whether ``name.method`` in a function of the module is a call on an instance of the
        class keyed ``own_class``: the module-level instance ``name`` (the function binds no
        ``name``), or one the function makes itself (``gan = GAN(args)``, then
        ``gan.visualize_results(3)`` in ``main()``: every binding of ``name`` there calls the
        class)."""
        name = node.value.id  # type: ignore[attr-defined]
        if own_class is None:
            return False
        where = self._where(node)
        if where is None or where.lambda_ is not None or not isinstance(where.scope, FUNCTION_TYPES):
            return False
        if self._scope(where.scope).binds(name):
            info = self._class_table().get(own_class)
            bindings = self.uses(where.scope).bindings_of(name)
            return (
                info is not None
                and bool(bindings)
                and len(self.scopes.module.definitions.get(info.node.name, ())) == 1
                and any(_constructs(b.value, info.node.name) for b in bindings)
                # the others hand the instance through a helper (`net, opt, step =
                # self.load_ckp(path, net, opt)`, which loads its weights and returns it)
                and all(_constructs(b.value, info.node.name) or _handed_through(b.value, name) for b in bindings)
            )
        if not self.scopes.module.binds(name):
            return False  # not a name the module binds: no global instance
        receiver = self._global_value(name)
        return receiver.kind in (Kind.MODULE, Kind.OTHER) and receiver.ref == own_class

    def _state_inside(self, stmt: ast.stmt, call: ast.Call, state: State) -> State:
        return state

    def _in_top_level_definition(self, line: int) -> bool:
        """Whether a line lies in a function or class defined at the top of the module."""
        spans = self._definition_spans
        if spans is None:
            spans = self._definition_spans = [
                (stmt.lineno, stmt.end_lineno or stmt.lineno)
                for stmt in self.tree.body
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ]
        index = bisect.bisect_right(spans, (line, float("inf"))) - 1
        return index >= 0 and spans[index][0] <= line <= spans[index][1]

    def _caller_frame(self, scope_node: ast.AST) -> Optional[Frame]:
        """The flow of a function that calls another, in the grad mode its own callers run it
        in (``with torch.no_grad(): model.get_accuracy(x, y)`` runs the ``self.predict(x)``
        inside without grad); its parameters as its summary knows them."""
        if isinstance(scope_node, ast.Module):
            return self._module_frame()
        if not isinstance(scope_node, FUNCTION_TYPES):
            return None
        summary_mode, summary_env = self._summary_entry(scope_node)
        mode = self._entry_mode(scope_node)
        if mode is None or mode is summary_mode:
            return self._summary_frame(scope_node)
        return self._run_frame(scope_node, "caller", mode, summary_env)

    def _entry_mode(self, fn: ast.AST) -> Optional[GradMode]:
        """The grad mode a function's body starts in as its callers run it (None: not known)."""
        key = (id(fn), "entry")
        if key in self._entry_modes:
            return self._entry_modes[key]
        if self._turns_grad_off is None:
            self._turns_grad_off = (
                any(word in self.source_text for word in _GRAD_OFF_WORDS) or self._called_without_grad()
            )
        if not self._turns_grad_off:
            return None  # nothing turns grad off around the file's code: callers run it as the summary assumes
        if key in self._in_progress:
            return None  # a recursive call: the callers outside the cycle decide
        mode = self._decorated_mode(fn)
        if mode is None:
            self._begin(key)
            try:
                sites = self._callers_of(fn)
            finally:
                head = self._end(key)
            external = self._external_calls(fn) if sites is not None else []
            mode = _callers_mode(sites, external)
            if head is not None:
                return mode  # computed against a stand-in: not kept
        self._entry_modes[key] = mode
        return mode

    def _calls_by_method_name(self, fn: ast.AST) -> list:
        """For a public method of a module-level class whose instances the run's files do not
        show: whether each call of a method of that name in the run's files (``self.agent.act(obs)``
        of an agent a config builds, whatever its class) sits where grad is off; [] where any
        does not, so that only a method every such call runs without grad starts without grad."""
        if self.project is None or fn.name.startswith("_"):  # type: ignore[attr-defined]
            return []
        calls = self.project.method_name_calls.get(fn.name, ())  # type: ignore[attr-defined]
        return list(calls) if calls and all(calls) else []

    def _called_without_grad(self) -> bool:
        """Whether another file of the run calls a function or method of this file where grad is
        off (a notebook's ``with torch.no_grad(): preds = net.sample(image)``): a function of the
        file that only such a method calls runs without grad too."""
        if self.project is None:
            return False
        module = self.project.module_of(self.filename)
        if module is None:
            return False
        prefix = module + "."
        if any(any(grad_off) for name, grad_off in self.project.calls.items() if name.startswith(prefix)):
            return True
        methods = {
            stmt.name
            for cls in self.tree.body
            if isinstance(cls, ast.ClassDef)
            for stmt in cls.body
            if isinstance(stmt, FUNCTION_TYPES)
        }
        return any(all(self.project.method_name_calls.get(name, (False,))) for name in methods)

    def _line_starts(self) -> list:
        if self.line_starts is not None:
            return self.line_starts
        text = self.source_text
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.line_starts = starts
        return starts

    def _decorated_mode_of(self, deco: ast.AST) -> Optional[GradMode]:
        return region_mode(classify_grad_mode(deco, self.imports))


_HEADER_FIELDS = {
    ast.If: ("test",),
    ast.While: ("test",),
    ast.For: ("target", "iter"),
    ast.AsyncFor: ("target", "iter"),
    ast.With: ("items",),
    ast.AsyncWith: ("items",),
    ast.FunctionDef: ("decorator_list", "args", "returns"),
    ast.AsyncFunctionDef: ("decorator_list", "args", "returns"),
    ast.ClassDef: ("decorator_list", "bases", "keywords"),
    ast.Try: (),
    ast.Match: ("subject",),
}
if hasattr(ast, "TryStar"):
    _HEADER_FIELDS[ast.TryStar] = ()


def _header_nodes(stmt: ast.stmt, lines: Optional[list] = None):
    """(node, parent) for the expressions a statement itself holds: all of a simple
    statement, the header (test, iterable, items, decorators) of a compound one. With
    ``lines`` (sorted), only the parts that span one of those lines."""
    fields = _HEADER_FIELDS.get(type(stmt))
    if fields is None:
        roots = [(child, stmt) for child in children(stmt)]
    else:
        roots = []
        for name in fields:
            value = getattr(stmt, name, None)
            if isinstance(value, list):
                roots.extend((v, stmt) for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                roots.append((value, stmt))
    stack = roots
    while stack:
        node, parent = stack.pop()
        if lines is not None and getattr(node, "end_lineno", None) is not None:
            k = bisect.bisect_left(lines, node.lineno)  # type: ignore[attr-defined]
            if k == len(lines) or lines[k] > node.end_lineno:  # type: ignore[attr-defined]
                continue  # none of the lines lies in this part
        yield node, parent
        stack.extend((child, node) for child in children(node))


@functools.lru_cache(maxsize=512)
def _module_use_pattern(attr: str) -> "re.Pattern[str]":
    """`self.<attr>(`, `self.<attr>.parameters(`, `.state_dict(`, `.eval(` ...: a call, or a method
    only a module has."""
    return re.compile(
        rf"\bself\.{re.escape(attr)}(?:\.(?:parameters|named_parameters|state_dict|load_state_dict|modules|"
        rf"named_modules|children|eval|train))?\s*\("
    )


# Methods that give a module back itself, and a tensor moved or cast: the same kind of value
# either way (not all of `vocab.MODULE_RETURNING_METHODS`: a tensor's `.type()` is a string).
_MOVING_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train", "eval"})


_PROPERTY_DECORATORS = frozenset({"property", "functools.cached_property", "cached_property"})


def is_property(method: ast.AST) -> bool:
    """Whether a method of a class is a property's getter (``@property``, ``@cached_property``),
    setter or deleter (``@model.setter``)."""
    return any(
        dotted_name(d) in _PROPERTY_DECORATORS
        or (
            isinstance(d, ast.Attribute)
            and d.attr in ("setter", "getter", "deleter")
            and dotted_name(d.value) == method.name
        )  # type: ignore[attr-defined]
        for d in method.decorator_list  # type: ignore[attr-defined]
    )


def _property_forwarding(class_node: ast.ClassDef, attr: str) -> Optional[str]:
    """``other`` where the class's property ``attr`` only hands back another attribute of the
    instance (``@property def model(self): return self._model``, beside its setter), else None."""
    for method in class_node.body:
        if (
            isinstance(method, FUNCTION_TYPES)
            and method.name == attr
            and any(dotted_name(d) in _PROPERTY_DECORATORS for d in method.decorator_list)
        ):
            body = method.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]  # the docstring
            value = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
            if (
                isinstance(value, ast.Attribute)
                and isinstance(value.value, ast.Name)
                and value.value.id == "self"
                and value.attr != attr
            ):
                return value.attr
    return None


def _helper_differentiates(tree: ast.Module, function: ast.AST) -> bool:
    """Whether a function calls, by name, a module-level function of its own file whose body runs a
    backward pass (``run_model`` calling ``train_epoch(m, x, y, opt)`` of the same file)."""
    helpers = {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not function
    }
    if not helpers:
        return False
    called = {
        node.func.id
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers
    }
    return any(_backpropagates(helpers[name]) for name in called)


def _backpropagates(function: ast.AST) -> bool:
    """Whether a function's body calls ``.backward(`` or ``autograd.grad(`` (read from its nodes)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "backward" or (
                node.func.attr == "grad"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "autograd"
            ):
                return True
    return False


def _moved_itself(value_node: ast.AST, attr: str) -> bool:
    """``self.<attr>.cuda()``, ``self.<attr>.to(device).eval()``, ``self.<attr>.view(-1, n)``: the
    attribute's own value moved, cast, switched or reshaped, of the kind it already holds."""
    node = value_node
    moved = False
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and (node.func.attr in _MOVING_METHODS or node.func.attr in _RESHAPING_METHODS)
    ):
        node = node.func.value
        moved = True
    return moved and _is_self_attribute(node, attr)


# Methods that reshape what they are called on and hand back the same kind of value (a tensor's
# view, an array's): `self.gen = self.gen.view(-1, n * c)` keeps what the other assignments store.
_RESHAPING_METHODS = frozenset(
    {"view", "reshape", "permute", "transpose", "contiguous", "squeeze", "unsqueeze", "flatten", "view_as"}
)


def _is_self_attribute(target: ast.AST, attr: str) -> bool:
    return (
        isinstance(target, ast.Attribute)
        and target.attr == attr
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    )


def _arguments_text(text: str, open_paren: int) -> Optional[str]:
    """The text between the parenthesis at ``open_paren`` and its match (None past 400 characters)."""
    depth = 0
    for j in range(open_paren, min(len(text), open_paren + 400)):
        if text[j] in "([{":
            depth += 1
        elif text[j] in ")]}":
            depth -= 1
            if depth == 0:
                return text[open_paren + 1 : j].strip()
    return None


# The keywords ``Tensor.backward`` takes: a ``backward(ids=...)`` call is some other class's method.
_TENSOR_BACKWARD_KEYWORDS = frozenset({"gradient", "retain_graph", "create_graph", "inputs"})


# Reductions numpy arrays and scalars share with tensors: on an array, a number (or an array).
_NUMERIC_REDUCTIONS = frozenset({"mean", "sum", "max", "min", "std", "var", "prod", "median"})


def _foreign_backward(text: str, open_paren: int) -> bool:
    """Whether the ``backward(`` call whose parenthesis is at ``open_paren`` passes a keyword
    ``Tensor.backward`` does not take (``gcam.backward(ids=ids)`` of a Grad-CAM wrapper), or a loss
    as its first argument, where ``Tensor.backward`` takes the output's gradient
    (``accelerator.backward(loss)``, ``fabric.backward(loss)``: the loss is what runs backward)."""
    inner = _arguments_text(text, open_paren)
    if not inner:
        return False
    first = inner.split(",")[0].strip()
    if re.fullmatch(r"[A-Za-z_][\w.]*", first) and names_a_loss(first.rsplit(".", 1)[-1]):
        return True
    return any(
        (match := re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)", part)) is not None
        and match.group(1) not in _TENSOR_BACKWARD_KEYWORDS
        for part in inner.split(",")
    )


def _implicit_backward(text: str, open_paren: int) -> bool:
    """Whether the ``backward(`` call whose parenthesis is at ``open_paren`` passes no gradient:
    no positional argument and no ``gradient=`` (nor ``**kwargs``)."""
    inner = _arguments_text(text, open_paren)
    if inner is None:
        return False
    if not inner:
        return True
    return all(
        re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", part) and not re.match(r"\s*gradient\s*=", part)
        for part in inner.split(",")
        if part.strip()
    )


def _occurrences(text: str, name: str):
    """Offsets where ``name`` occurs as a whole identifier (``str.find``: fast on large files)."""
    size = len(name)
    end = len(text)
    find = text.find
    i = find(name)
    while i >= 0:
        before = text[i - 1] if i else " "
        after = text[i + size] if i + size < end else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            yield i
        i = find(name, i + size)


def _statement_depths(root: ast.AST) -> dict:
    """id(statement) -> its depth under ``root`` in the tree (what orders ``ast.walk``'s
    statements: by depth, then by position)."""
    depths: dict = {}
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, None) or ():
                depths[id(child)] = depth + 1
                stack.append((child, depth + 1))
    return depths


# What a list literal may be repeated by (`[None] * n`, with `n` a parameter).
_COUNTS = frozenset({Kind.NUMBER, Kind.UNKNOWN})

# A function called from more places than this is treated as called from anywhere.
_MAX_CALL_SITES = 8
# Literal lists, tuples and dicts longer than this are tables of data, not followed.
_LITERAL_LIMIT = 32


class _Arguments:
    """A call's positional argument values, each evaluated on first use: most callees
    (anything not torch, not a model, not the file's own) never look at them."""

    __slots__ = ("_model", "_nodes", "_state", "_frame", "_values")

    def __init__(self, model: "SemanticModel", nodes: list, state: State, frame: Frame):
        self._model = model
        self._nodes = nodes
        self._state = state
        self._frame = frame
        self._values: dict = {}

    def __len__(self) -> int:
        return len(self._nodes)

    def __bool__(self) -> bool:
        return bool(self._nodes)

    def _get(self, index: int) -> Value:
        value = self._values.get(index)
        if value is None:
            value = self._values[index] = self._model.evaluate(self._nodes[index], self._state, self._frame)
        return value

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._get(i) for i in range(*index.indices(len(self._nodes)))]
        if index < 0:
            index += len(self._nodes)
        if not 0 <= index < len(self._nodes):
            raise IndexError(index)
        return self._get(index)

    def __iter__(self):
        for i in range(len(self._nodes)):
            yield self._get(i)

    def __radd__(self, other: list) -> list:
        return list(other) + list(self)

    def __add__(self, other: list) -> list:
        return list(self) + list(other)


def _names(node: ast.AST) -> set:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _names_in(nodes) -> set:
    out: set = set()
    for node in nodes:
        out |= _names(node)
    return out


def _moves_or_casts(call: ast.Call) -> bool:
    """Whether ``x.to(...)`` certainly or possibly makes a new tensor (a device or dtype
    argument); ``x.to(x)`` with a tensor argument may too: only ``.to()`` with no argument keeps it."""
    return bool(call.args or call.keywords)


def _top_level_attribute_sets(fn: ast.AST) -> dict:
    """``{attr: [(statement, value)]}`` for the statements of a function's own body (not nested
    in a branch or a loop) assigning ``self.<attr>``; the value is None for a part of an
    unpacked tuple."""
    found: dict = {}
    for stmt in getattr(fn, "body", ()):
        if type(stmt) is not ast.Assign:
            continue
        for target in stmt.targets:
            if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                found.setdefault(target.attr, []).append((stmt, stmt.value))
            elif type(target) is ast.Tuple:
                for elt in target.elts:
                    if type(elt) is ast.Attribute and type(elt.value) is ast.Name and elt.value.id == "self":
                        found.setdefault(elt.attr, []).append((stmt, None))
    return found


# A module's method named for a selection of its parameters (`final_parameters`, `head_parameters`,
# `trainable_parameters`); not one counting, printing or changing them.
_SOME_PARAMETERS_RE = re.compile(
    r"(?!(?:count|num|n|print|reset|init|initialize|log|save|load|set|freeze|unfreeze|update|zero)_)\w+_parameters$"
)


def _is_self(node: ast.AST) -> bool:
    return type(node) is ast.Name and node.id == "self"  # type: ignore[attr-defined]


def _commented_out(text: str, at: int) -> bool:
    """Whether offset ``at`` of ``text`` lies in a comment (``# parameters = filter(lambda p:
    model.requires_grad, ...)``): a ``#`` before it on its line, outside any string."""
    start = text.rfind("\n", 0, at) + 1
    hash_at = text.find("#", start, at)
    while hash_at >= 0:
        prefix = text[start:hash_at]
        if prefix.count('"') % 2 == 0 and prefix.count("'") % 2 == 0:
            return True
        hash_at = text.find("#", hash_at + 1, at)
    return False


def _computed_without_grad(value: Value) -> Value:
    """A function's result, as computed with grad disabled: its tensors carry no graph, but for
    parameters and leaves it hands back as they are; positions of a tuple each on their own."""
    if value.kind is Kind.TENSOR and value.grad is not Grad.NO and not value.roles & (Role.PARAM | Role.LEAF):
        return value.with_(grad=Grad.NO)
    if value.kind is Kind.CONTAINER and value.items is not None:
        return value.with_(items=tuple(_computed_without_grad(item) for item in value.items))
    return value


def _reduces_over_dimensions(call: ast.Call, first: int) -> bool:
    """Whether a reduction call names the dimensions it reduces (``torch.mean(x, 0)`` with
    ``first=1``, ``x.sum(dim=1)`` with ``first=0``): the result keeps the others, and is 0-dim
    only where the input had one dimension."""
    return len(call.args) > first or any(k.arg in ("dim", "axis") for k in call.keywords)


def _reduces(call: ast.Call) -> bool:
    """Whether a loss call or loss module constructor certainly reduces to one number: no
    ``reduction`` or a constant other than ``"none"``, and no ``reduce=False`` (the keyword
    before PyTorch 0.4.1)."""
    reduction = vocab.call_argument(call, None, "reduction")
    if reduction is not None and vocab.constant_of(reduction, default=None) in (None, "none"):
        return False
    reduce = vocab.call_argument(call, None, "reduce")
    return reduce is None or (isinstance(reduce, ast.Constant) and reduce.value in (True, None))


def _with_elements(values) -> list:
    """The values, with the tensors a list or tuple argument holds (``torch.cat((a, b))``)
    in place of the container."""
    out = []
    for value in values:
        if value.kind is Kind.CONTAINER:
            held = value.items if value.items is not None else (value.elem,) if value.elem is not None else ()
            if any(v is not None and v.kind is Kind.TENSOR for v in held):
                out.extend(v for v in held if v is not None)
                continue
            if not held or any(v is not None and v.kind is Kind.UNKNOWN for v in held):
                # `res = []`, appended to in a loop: what it holds is not known
                out.append(UNKNOWN)
                continue
        out.append(value)
    return out


def _position(node: ast.AST) -> tuple:
    if isinstance(node, ast.withitem):
        node = node.context_expr
    return (node.lineno, node.col_offset)  # type: ignore[attr-defined]


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    """Whether ``node`` lies within the lines of ``outer`` (and is not ``outer`` itself)."""
    if node is outer:
        return False
    line = _position(node)[0]
    return outer.lineno <= line <= (outer.end_lineno or outer.lineno)  # type: ignore[attr-defined]


def _in_body(stmt: ast.AST, loop: ast.AST) -> bool:
    """Whether a statement lies in a loop's body (not its ``else`` clause)."""
    body = loop.body  # type: ignore[attr-defined]
    line = _position(stmt)[0]
    return body[0].lineno <= line <= (body[-1].end_lineno or body[-1].lineno)


def _grad_attribute(node: ast.AST) -> bool:
    """``p.grad`` or ``p.grad.data``."""
    if isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "grad"


def _resets_grad(node: ast.AST) -> bool:
    """One node that resets gradients (see ``SemanticModel.zeroes_grad_in``)."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr == "zero_grad":
                return True
            if not _grad_attribute(func.value):
                return False
            if func.attr == "mul_":
                return len(node.args) == 1 and _is_zero(node.args[0])  # `p.grad.data.mul_(0)`
            return func.attr in _GRAD_OVERWRITING_METHODS
        return isinstance(func, ast.Name) and func.id == "zero_grad"
    if isinstance(node, (ast.Assign, ast.Delete)):
        targets = node.targets
        return any(_grad_attribute(t) or (isinstance(t, ast.Subscript) and _grad_attribute(t.value)) for t in targets)
    if isinstance(node, ast.AugAssign):
        return _grad_attribute(node.target) and isinstance(node.op, ast.Mult) and _is_zero(node.value)  # `p.grad *= 0`
    return False


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value == 0


# In-place methods on `p.grad` that overwrite what it accumulated (`p.grad.zero_()`,
# `p.grad.data.fill_(0)`, `p.grad.copy_(g)`; `detach_()` and `requires_grad_(False)` come with
# `zero_()` in `zero_grad`'s own code). Scaling or clipping it (`p.grad /= norm`,
# `p.grad.data.clamp_(-1, 1)`) keeps the sum: not a reset.
_GRAD_OVERWRITING_METHODS = frozenset({"zero_", "fill_", "copy_", "set_", "detach_", "requires_grad_"})


# Built-in containers a guard tests a parameter against (`isinstance(data, (list, tuple))`).
_BUILTIN_CONTAINERS = frozenset({"list", "tuple", "dict", "set"})


def _container_guard_passed_over(guard: ast.If, body: list, env: dict) -> bool:
    """Whether ``guard`` is ``if isinstance(param, (list, tuple)): return ...`` before the other
    statements of ``body`` (no ``else``), for a parameter this call hands a module or a tensor:
    the guard's branch is not taken (``to_device(model, device)`` of a helper that moves a list
    item by item, or else ``data.to(device)``)."""
    test = guard.test
    if not (
        guard is body[0]
        and not guard.orelse
        and type(guard.body[-1]) is ast.Return
        and isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[0], ast.Name)
        and test.args[0].id in env
    ):
        return False
    types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    if not all(isinstance(t, ast.Name) and t.id in _BUILTIN_CONTAINERS for t in types):
        return False
    return env[test.args[0].id].kind in (Kind.MODULE, Kind.TENSOR)


def _all_classes(tree: ast.Module) -> list:
    out = []
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            out.append(node)
            stack.extend(node.body)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for field_name in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field_name, ()) or ():
                    if isinstance(child, ast.ExceptHandler):
                        stack.extend(child.body)
                    else:
                        stack.append(child)
    out.reverse()
    return out


def _builtin_iter(model, node, args, state):
    return args[0] if args else UNKNOWN


def _builtin_enumerate(model, node, args, state):
    if not args:
        return UNKNOWN
    element = model.element_of(args[0], node.args[0] if node.args else None)
    inner = container(container(items=(NUMBER, element)))
    if args[0].kind is Kind.LOADER:
        return args[0].with_(elem=container(items=(NUMBER, element)))
    return inner


def _builtin_zip(model, node, args, state):
    if not args:
        return UNKNOWN
    elements = tuple(model.element_of(a, None) for a in args)
    return container(container(items=elements))


def _builtin_dict(model, node, args, state):
    """``dict(model.named_parameters())``: of (key, value) pairs, a mapping of the values."""
    if len(args) != 1 or node.keywords:
        return UNKNOWN
    pair = model.element_of(args[0], None)
    if pair.kind is Kind.CONTAINER and pair.items is not None and len(pair.items) == 2:
        return container(pair.items[1])
    return UNKNOWN


def _builtin_next(model, node, args, state):
    """``next(iter(testloader))``: a batch of the loader, of its split where it has one."""
    if not args:
        return UNKNOWN
    element = model.element_of(args[0], None)
    if args[0].kind is Kind.LOADER and args[0].split is not None:
        return _of_split(element, args[0].split)
    return element


def _of_split(value: Value, split: Split) -> Value:
    """A batch's tensors marked as data of ``split`` (those not known to be of another)."""
    if value.kind is Kind.TENSOR and value.split is None:
        return value.with_(split=split)
    if value.kind is Kind.CONTAINER:
        items = tuple(_of_split(item, split) for item in value.items) if value.items is not None else None
        elem = _of_split(value.elem, split) if value.elem is not None else None
        return value.with_(items=items, elem=elem)
    return value


def _builtin_number(model, node, args, state):
    return NUMBER


def _builtin_text(model, node, args, state):
    return OTHER  # a str: `chr(i)`, `str(x)`, `format(x, ".2f")`


def _builtin_tensor_or_number(model, node, args, state):
    """``abs(t)`` and ``round(t)`` call the tensor's own method: a tensor, graph kept (of a loss,
    still a loss: ``total_loss += abs(loss)``)."""
    if args and args[0].kind is Kind.TENSOR:
        return args[0].with_(roles=args[0].roles & (Role.LOSS | Role.SCALAR))
    return NUMBER


def _builtin_list(model, node, args, state):
    if not args:
        return container()
    return container(model.element_of(args[0], None))


def _hands_back_own_call(fn: ast.FunctionDef, attr: str) -> bool:
    """Whether a method of at most three statements returns ``self.<attr>(...)``'s result as it is
    (``return self.net(x)``; ``outputs = self.net(inputs); return outputs``): a thin wrapper
    running what the instance holds."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not 1 <= len(body) <= 3 or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return False
    value: ast.expr = body[-1].value
    if isinstance(value, ast.Name):
        name = value.id
        bound = [
            s
            for s in body[:-1]
            if isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and s.targets[0].id == name
        ]
        if len(bound) != 1:
            return False
        value = bound[0].value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == "self"
        and value.func.attr == attr
    )


def _builtin_map(model, node, args, state):
    """``map(torch.LongTensor, batch)``, ``list(map(lambda x: torch.tensor(x), batch))``: tensors
    made afresh from each element, without graph; anything else mapped is not known."""
    if len(node.args) < 2 or node.keywords:
        return UNKNOWN
    made = node.args[0]
    if isinstance(made, ast.Lambda) and len(made.args.args) == 1 and isinstance(made.body, ast.Call):
        made = made.body.func
    qual = model.imports.qualified_name(made) or ""
    last = vocab.last_name(qual)
    if (
        qual.startswith("torch.")
        and qual.count(".") == 1
        and (last in vocab.LEGACY_TENSOR_TYPES or last in vocab.FACTORIES)
    ):
        return container(tensor(Grad.NO))
    return UNKNOWN


def _builtin_sum(model, node, args, state):
    if not args:
        return NUMBER
    element = model.element_of(args[0], None)
    if element.kind is Kind.TENSOR:
        return element
    return UNKNOWN


def _builtin_getattr(model, node, args, state):
    """``getattr(lstm, "weight_ih_l{}".format(l))``: a recurrent layer's parameter, by the name the
    string starts with."""
    if len(node.args) < 2 or not args or args[0].kind not in (Kind.MODULE, Kind.UNKNOWN):
        return UNKNOWN
    name = node.args[1]
    if isinstance(name, ast.Call) and isinstance(name.func, ast.Attribute) and name.func.attr == "format":
        name = name.func.value  # `"weight_ih_l{}".format(l)`
    text = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
    if isinstance(name, ast.JoinedStr) and name.values and isinstance(name.values[0], ast.Constant):
        text = str(name.values[0].value)  # f"weight_ih_l{l}"
    if text is not None and vocab.RNN_PARAMETER_TEMPLATE_RE.match(text):
        # only torch's recurrent layers name their parameters so: known from the name, weakly
        # where nothing shows the receiver is a module
        return tensor(Grad.YES, Role.PARAM | Role.LEAF, weak=args[0].weak or args[0].kind is Kind.UNKNOWN)
    return UNKNOWN


def _builtin_range(model, node, args, state):
    return container(NUMBER)


# Keyword flags of a data set's constructor that, set to True, select an evaluation split.
_EVAL_FLAGS = frozenset(
    {"test", "is_test", "testing", "val", "is_val", "valid", "validation", "is_valid", "eval", "is_eval"}
)

_BUILTIN_CALLS = {
    "dict": _builtin_dict,
    "getattr": _builtin_getattr,
    "iter": _builtin_iter,
    "enumerate": _builtin_enumerate,
    "zip": _builtin_zip,
    "next": _builtin_next,
    "len": _builtin_number,
    "float": _builtin_number,
    "int": _builtin_number,
    "round": _builtin_tensor_or_number,
    "abs": _builtin_tensor_or_number,
    "bool": _builtin_number,
    "ord": _builtin_number,
    "hash": _builtin_number,
    "id": _builtin_number,
    "callable": _builtin_number,
    "hasattr": _builtin_number,
    "issubclass": _builtin_number,
    "chr": _builtin_text,
    "str": _builtin_text,
    "repr": _builtin_text,
    "ascii": _builtin_text,
    "format": _builtin_text,
    "hex": _builtin_text,
    "oct": _builtin_text,
    "bin": _builtin_text,
    "list": _builtin_list,
    "tuple": _builtin_list,
    "sorted": _builtin_list,
    "reversed": _builtin_list,
    "sum": _builtin_sum,
    "map": _builtin_map,
    "range": _builtin_range,
    "isinstance": _builtin_number,
    "tqdm": _builtin_iter,
    "trange": _builtin_range,
}


_EVALUATORS = {
    ast.Name: SemanticModel._name,
    ast.Constant: SemanticModel._constant,
    ast.Attribute: SemanticModel._attribute,
    ast.Subscript: SemanticModel._subscript,
    ast.BinOp: SemanticModel._binop,
    ast.UnaryOp: SemanticModel._unaryop,
    ast.Compare: SemanticModel._compare,
    ast.BoolOp: SemanticModel._boolop,
    ast.IfExp: SemanticModel._ifexp,
    ast.Tuple: SemanticModel._tuple,
    ast.List: SemanticModel._tuple,
    ast.Set: SemanticModel._tuple,
    ast.Dict: SemanticModel._dict,
    ast.ListComp: SemanticModel._comprehension,
    ast.SetComp: SemanticModel._comprehension,
    ast.GeneratorExp: SemanticModel._comprehension,
    ast.DictComp: SemanticModel._comprehension,
    ast.NamedExpr: SemanticModel._named_expr,
    ast.Starred: SemanticModel._starred,
    ast.Await: SemanticModel._await,
    ast.Lambda: SemanticModel._lambda,
    ast.Call: SemanticModel._call,
    ast.JoinedStr: SemanticModel._other,
    ast.FormattedValue: SemanticModel._other,
    ast.Slice: SemanticModel._other,
    ast.Yield: SemanticModel._other,
    ast.YieldFrom: SemanticModel._other,
}


def _grad_tensor(value: Value) -> bool:
    return value.kind is Kind.TENSOR and value.grad is Grad.YES


def _free_loads(fn: ast.AST, scope) -> set:
    """The names a function reads and does not bind itself."""
    return {
        n.id
        for n in walk_in_order(fn)
        if type(n) is ast.Name and type(n.ctx) is ast.Load and (scope is None or not scope.binds(n.id))
    }


def _holds_call(node: ast.AST) -> bool:
    """Whether an expression holds a call (``self.x``, ``a.b.c`` and names are read at once)."""
    while True:
        t = type(node)
        if t is ast.Call:
            return True
        if t is ast.Attribute or t is ast.Starred:
            node = node.value  # type: ignore[attr-defined]
        elif t is ast.Name or t is ast.Constant:
            return False
        else:
            return any(type(sub) is ast.Call for sub in walk(node))
