"""Reading a tensor through `.data`.

## What it does
Flags reads of `t.data` where `t` is known to be a tensor: a parameter from `parameters()`,
`named_parameters()` or an optimizer's `param_groups`, an entry of a module's `state_dict()`, a `.weight`, `.bias` or `.grad`, a name
bound to a torch call, a model output or a loss (on one path at least, and nothing else on the
others: a hidden state `h = net.init_hidden(n)` before a loop and `out, h = net(x, h)` in it,
`tuple([each.data for each in h])`; inside `if isinstance(v, torch.Tensor):`, also through
`Variable` or `nn.Parameter`, or the first branch of `v.data[0] if isinstance(v, Variable) else v`; an attribute `self.x` that a method of the class sets to a
tensor and none to anything else the code shows), the result of a method only tensors have
(`x.cpu().data`, `x.detach().data`) or a reduction over dimensions given by number
(`taylor.mean(dim=(0, 2, 3)).data`; xarray's `ds.mean(dim="time").data` is not one), a call of
something named for a loss (`criterion(out, y)`, `self.criterion(out, y)` handed in unknown), a
name the scope hands to a torch function that takes only tensors (`F.log_softmax(pred, dim=1)`,
`torch.mean(source, 0)`) or to a torch loss as its target (`criterion(outputs, targets)` of an
`nn.BCELoss()`), or runs a model on (`out = self.D(x_real)`; not a recurrent layer,
which takes a `PackedSequence` too), the result of a method only tensors have, called as torch's is
(`inp.view(n, -1).permute(0, 2, 1).contiguous()`), a batch of a loader from a dict named for loaders
(`for x, y in dataloaders[phase]`), what autograd hands a function the file registers as a hook
(`def keep(module, inputs, output): features.append(output.data)` with
`layer.register_forward_hook(keep)`, or made by a function of the file that returns it,
`layer.register_forward_hook(save_activation("fc"))`; also backward hooks and
`tensor.register_hook`), what a custom `autograd.Function` handles (the inputs its `forward`
hands to `ctx.save_for_backward`, `ctx.saved_tensors`, the gradients its `backward` is given); or
where the method right after `.data` exists only on tensors (`x.data.cpu()`, `x.data.numpy()`,
`x.data.clone()`, `x.data.view(-1, 1)`, `x.data.eq(pad)`, `x.data.to(dev)`, `x.data.requires_grad_()` bound to a
name, a new leaf on the same storage: an array's `.data` is a memoryview;
`.to` not in a file importing a graph library, whose data sets hold a graph there; also
after an index, `x.data[:, 0].clone()`), a tensor method takes it as a tensor (`ys.type_as(src.data)`),
a torch function that takes only tensors is handed it (`torch.max(logprob.data, 1)`; also
torchvision's `save_image(fake.data, path)` and `make_grid`), or
`Variable(...)` wraps it (`Variable(h.data)`, the old way of cutting a hidden state from its
history). Writes through `.data`
are GG102. Attributes that merely happen to be called `data` (`dataset.data`, `args.data`,
`batch["image"].data`, `self.data` on your own classes, `torch.utils.data`, and any `.data` indexed by
a string, `ds.data["images"]`, a mapping's item) are not flagged
(unless the scope hands that name's `.data` to a torch function that takes only tensors:
`label_batch = batch["L"]`, then `torch.unique(label_batch.data)`)
(a parameter named like a record is a tensor where its function divides, subtracts or
multiplies it and a method only tensors have follows its `.data`: `batch.data.new(mean)` beside
`batch / 255.0`; `item` or `items` alone is a record, `test_items` of a recommender is not), nor a
`.data` of a value not known to be a tensor in a file that packs sequences (a `PackedSequence`'s
field), nor of one whose `batch_sizes` the code reads too (`x, sizes = x.data, x.batch_sizes`,
`PackedSequence(fn(packed.data), packed.batch_sizes)`: a PackedSequence has no `.detach()`), unless it is an item of a dict the scope fills with tensors torch computes
(`outputs[key] = F.log_softmax(out, dim=1)`, then `outputs[key].data.topk(k)`), nor the `.data` of an
ultralytics result's field (`results[0].probs.data.cpu()`, `r.boxes.data`, in a file importing ultralytics: a
wrapper's own field), nor are the values of a hand-made autograd class (a micrograd `Value`, with `backward` and `grad`
members) of the file or of a file of the run it imports, where `.grad` and `.backward()` say
nothing of tensors. Nor is the `.data` a tensor's own new `.data` is made from
(`param.data = param.data.half()`, `w.data = w.data[mask == 1]`, `img.data = torch.clamp(img.data, 0, 1)`):
the value goes back into the tensor itself, which GG102 judges. (Arithmetic on the read, a hand-written step
`w.data = w.data - lr * w.grad`, is still reported beside GG102's write: `w.detach()` there
reads the same values; so is a read handed to a function or method of the file that only computes
with it, `u.data = l2normalize(u.data)` of `def l2normalize(v, eps): return v / (v.norm() + eps)`,
as a read with a safe fix.) Nor a `.data` (or a view of it) that becomes another tensor's
`.data` (`a.weight.data = b.weight.data`, `q.data = p.data.view(-1)`): the storage is shared on
purpose, and the assigned tensor keeps its own version counter, so `.detach()` there would
change nothing (GG102 leaves `a.data = b.data` too).

A module's own `nn.Parameter` read through `.data` in its `forward`, computed with as it is
(`torch.matmul(X, self.weight.data)`) and never read there without `.data`, gets its own
message: the parameter is cut out of the graph and never trained, which `.detach()` would not
change either; the fix (unsafe: training changes) reads the parameter itself. An input of `forward`, or a
tensor the module keeps that is no parameter, read through `.data` where the value goes on
(`s_prev = s_prev.data[active]`, then computed with) is cut from the graph there: whether that
is meant the code does not say, and `.detach()` would not change it, so the message asks which
and offers no fix; so is a value computed from the input of a function a module class of the file
runs as a layer through `functools.partial` (`torch.cat([out.data, zero_pads], 1)` in a 3D ResNet's
`downsample_basic_block`). `x.detach().cpu().data` is reported with the fix that drops `.data`. `len(loss.data)` of a loss the code shows to be 0-dim (a torch criterion's, reduced) raises
TypeError with `.data` or `.detach()` alike: its message advises `loss.item()`, with no fix.

## Why is this bad?
`t.data` returns a tensor that shares `t`'s memory but has a fresh version counter and no
connection to autograd. If the result (or `t`) is later changed in place while a graph still
needs the old values, autograd cannot notice and the backward pass silently computes wrong
gradients. `t.detach()` shares memory *and* the version counter, so the same mistake raises
"one of the variables needed for gradient computation has been modified by an inplace
operation" instead. For reading values the two are otherwise the same.

## Example
```python
import torch

def accuracy(model, x, y):
    out = model(x)
    _, pred = torch.max(out.data, 1)
    return (pred == y).float().mean().item()
```

## Use instead
```python
import torch

def accuracy(model, x, y):
    out = model(x)
    _, pred = torch.max(out.detach(), 1)
    return (pred == y).float().mean().item()
```

## Fix safety
The fix replaces `.data` by `.detach()` (`x.data.detach()` becomes `x.detach()`). It is safe where the value is only read: consumed
by a method or attribute that copies or reduces it (`.clone()`, `.item()`, `.sum()`,
`.shape`), passed to a tensor method, to a reading torch function (`torch.max`,
`torch.cat`, `torch.gather` and the other functions that copy what they select) or to a function of the file that only computes with it, indexed by a list or a
mask (`w.data[:, columns]`, a copy), written into a tensor's rows (`rows[i] = w.data`), compared,
used in arithmetic (also added into a number or a tensor: `train_loss += loss.data`) or printed. It is unsafe where the value escapes
(bound to a name, returned, stored, passed to an unknown function): if that value is later
changed in place while a graph needs it, the fixed code raises a RuntimeError where the
original silently produced wrong gradients. No fix is offered for `loss.data[0]` on a 0-dim
tensor: `loss.detach()[0]` would still raise IndexError. There the message advises
`loss.item()`, and where GG105 (which rewrites it to `loss.item()`) is selected too, the site is
reported by GG105 alone. The message advises `.item()` too, without a fix, for `x.data[0]` of a loss
whose shape the code does not show (`style_loss, content_loss = criterion(...)`, then
`style_loss.data[0]`; also of a tensor named for a loss, `real_loss_d.data[0]`): torch's losses are 0-dim; and for `t[i][j].data[0]` of a tensor indexed twice (a matrix's
element, read the PyTorch 0.3 way), 0-dim since PyTorch 0.4.
"""

from __future__ import annotations

import ast

from gradguard.check.analysis.data_attr import classify, data_name_span, receiver_text
from gradguard.check.analysis.model import names_a_loss
from gradguard.check.analysis.scopes import parameters
from gradguard.check.analysis.values import Kind, Role
from gradguard.check.analysis.zero_dim import zero_dim_index_above
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.common.text import short

# Methods whose result, on a tensor without a graph, has none either (arguments are sizes,
# devices or dtypes): `x.detach().cpu()` needs no `.data`.
_KEEPING_DETACHED = frozenset(
    """cpu cuda to float double half bfloat16 contiguous clone squeeze unsqueeze view reshape permute
    transpose flatten t""".split()
)


def _already_detached(node: ast.Attribute) -> bool:
    """``x.detach().data``, ``x.detach().cpu().data``: the receiver of `.data` is a `.detach()`
    already, or a move, copy or reshape of one."""
    receiver = node.value
    while (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr in _KEEPING_DETACHED
    ):
        receiver = receiver.func.value
    return (
        isinstance(receiver, ast.Call)
        and isinstance(receiver.func, ast.Attribute)
        and receiver.func.attr == "detach"
        and not receiver.args
        and not receiver.keywords
    )


def _indexed_at_zero(ctx, data: ast.Attribute) -> bool:
    """Whether a ``.data`` is indexed at once by ``[0]`` (``x.data[0]``)."""
    parent = ctx.parent(data)
    return (
        isinstance(parent, ast.Subscript)
        and parent.value is data
        and isinstance(parent.slice, ast.Constant)
        and parent.slice.value == 0
    )


def _loss_indexed_at_zero(ctx, data: ast.Attribute) -> bool:
    """Whether ``x.data[0]`` indexes a loss (``Role.LOSS``: a criterion's output, a sum of them)."""
    if not _indexed_at_zero(ctx, data):
        return False
    value = ctx.model.value(data.value)
    # (or a tensor named for a loss, `real_loss_d.data[0]` of a tuple one of whose branches calls a
    # loss class: `.item()` reads a 0-dim or a one-element loss alike)
    return value.kind is Kind.TENSOR and (
        value.has(Role.LOSS)
        or (isinstance(data.value, ast.Name) and names_a_loss(data.value.id) and not value.has(Role.UNREDUCED))
    )


def _element_indexed_at_zero(ctx, data: ast.Attribute) -> bool:
    """Whether ``x.data[0]`` indexes an element a tensor was indexed twice for (``t[i][j].data[0]``,
    ``t[i, j].data[0]``): the 0.3-era read of a matrix's element, 0-dim since 0.4."""
    if not _indexed_at_zero(ctx, data):
        return False
    element = data.value
    indexes: list = []
    while isinstance(element, ast.Subscript) and len(indexes) < 2:
        index = element.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(not isinstance(part, (ast.Name, ast.Constant, ast.BinOp)) for part in parts):
            return False  # a slice, a list or a mask keeps dimensions
        indexes.extend(parts)
        element = element.value
    if len(indexes) != 2 or isinstance(element, ast.Subscript):
        return False
    base = ctx.model.value(element)
    return base.kind is Kind.TENSOR and not base.weak


def _detached_at_once(ctx, node: ast.Attribute) -> bool:
    """``x.data.detach()``: the `.data` is detached right away."""
    parent = ctx.parent(node)
    call = ctx.parent(parent) if isinstance(parent, ast.Attribute) else None
    return (
        isinstance(parent, ast.Attribute)
        and parent.attr == "detach"
        and isinstance(call, ast.Call)
        and call.func is parent
        and not call.args
        and not call.keywords
    )


class TensorDataRead(Rule):
    code = "GG101"
    name = "tensor-data-read"
    summary = "reading `t.data` bypasses autograd's version counter: use `t.detach()`"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    superseded_by = ("GG105",)  # `loss.data[0]`: one finding, GG105's `.item()`
    triggers = (".data",)
    function_triggers = (".data",)

    valid = (
        # An ultralytics prediction's `probs` wraps the tensor in an object of its own: its `.data`
        # is that object's field (which has `.cpu()` and no `.detach()`).
        Valid(
            """
            import numpy as np
            from ultralytics import YOLO

            def evaluate(model, paths, threshold=0.5):
                preds = []
                for p in paths:
                    results = model.predict(p, verbose=False)
                    probs = results[0].probs.data.cpu().numpy()
                    preds.append((probs > threshold).astype(int))
                return np.array(preds)

            print(evaluate(YOLO("yolov8n-cls.pt"), ["car.jpg"]))
            """
        ),
        # An item of a list the function is handed, indexed again: nothing shows what it holds.
        Valid(
            """
            import torch


            def first_tokens(steps):
                tokens = []
                for j in range(len(steps)):
                    for i in range(steps[j].size(0)):
                        tokens.append(int(steps[j][i].data[0]))
                return tokens, torch.tensor(tokens)
            """
        ),
        # Arrays made from each element by `map`: `.data` is the array's buffer.
        Valid(
            """
            import numpy as np
            import torch


            def label_bytes(loader):
                labels = []
                for data in loader:
                    data = list(map(lambda x: np.asarray(x), data))
                    labels.append(bytes(data[-1].data))
                return labels, torch.tensor(len(labels))
            """
        ),
        # What a network handed numpy arrays returns (a Qiskit network's `forward`, wrapped for torch): a sparse array's
        # `data` field, not a tensor's.
        Valid(
            """
            import torch


            def forward(neural_network, input_data, weights):
                result = neural_network.forward(input_data.detach().cpu().numpy(), weights.detach().cpu().numpy())
                result = result.asformat("coo")
                return torch.sparse_coo_tensor(result.coords, result.data)
            """
        ),
        # A weight normalised back into its own `.data`, the copy `F.normalize` makes detached before it is written
        # (a TransE's entity embeddings).
        Valid(
            """
            import torch.nn.functional as F
            from torch import nn


            class TransE(nn.Module):
                def __init__(self, entities, dim):
                    super().__init__()
                    self.entity = nn.Embedding(entities, dim)

                def normalize(self):
                    self.entity.weight.data = F.normalize(self.entity.weight.data).detach()
            """
        ),
        # A data set's `data` indexed by a string key is a mapping (a course framework's dict of tensors), not a
        # tensor's `.data`: no tensor is indexed by a string.
        Valid(
            """
            import numpy as np
            import torch


            def sample_images(mnist, examples):
                indices = np.random.choice(len(mnist.train), size=examples, replace=False)
                return mnist.train.data["images"][indices].to(torch.float32) / 255
            """
        ),
        # The same field only iterated: nothing shows a tensor (a record's `.data` may be anything).
        Valid(
            """
            import torch


            def class_names(supervised_loader):
                names = set()
                for batch in supervised_loader:
                    label_batch = batch["L"]
                    names.update(label_batch.data)
                return names
            """
        ),
        # The same in a helper method `forward` hands its input to.
        Valid(
            """
            import torch
            import torch.nn as nn


            class FrameEncoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(16, 8)

                def forward(self, frames):
                    return self.lstm(self.each(torch.relu, frames))[0]

                def each(self, fn, packed):
                    return nn.utils.rnn.PackedSequence(fn(packed.data), packed.batch_sizes)
            """
        ),
        # A PackedSequence's field: the code reads its `batch_sizes` too.
        Valid(
            """
            import torch.nn as nn


            class SequenceWise(nn.Module):
                def __init__(self, module):
                    super().__init__()
                    self.module = module

                def forward(self, x):
                    try:
                        x, batch_sizes = x.data, x.batch_sizes
                        return nn.utils.rnn.PackedSequence(self.module(x), batch_sizes)
                    except AttributeError:
                        t, n = x.size(0), x.size(1)
                        return self.module(x.view(t * n, -1)).view(t, n, -1)
            """
        ),
        # A packed sequence's `.data` is its field of values, not an alias of a tensor.
        Valid(
            """
            import torch
            from torch.nn.utils.rnn import pack_padded_sequence


            def encode(rnn, src, lengths):
                src_seq = pack_padded_sequence(src, lengths, batch_first=True)
                out, hidden = rnn(src_seq)
                mask = torch.ones(len(lengths)).type_as(src_seq.data)
                return out, hidden, mask
            """
        ),
        # A graph library's data set keeps its graph in `.data`, which has a `to` of its own.
        Valid(
            """
            import torch
            from torch_geometric.datasets import Planetoid

            dataset = Planetoid(root="data", name="Cora")
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            data = dataset.data.to(device)
            """
        ),
        # The same labels handed to a function of unknown kind only: nothing shows a tensor.
        Valid(
            """
            import torch
            import torch.nn as nn

            criterion = nn.BCELoss()


            def accuracy(model, batches, log):
                correct = 0
                for data in batches:
                    inputs, targets = data[0], data[1].to(torch.float32)
                    outputs = torch.sigmoid(model(inputs)).squeeze(1)
                    log(outputs, targets)
                    correct += ((outputs > 0.5) == targets.data).sum().item()
                return correct
            """
        ),
        # A value named `items` alone may be a record, whose `.data` is its own field.
        Valid(
            """
            import torch


            def item_ids(model, users, records):
                items = records.cuda()
                scores = model(users.cuda(), items)
                return items.data.view(-1).tolist()
            """
        ),
        # In a file that packs sequences, an item of a dict filled with a recurrent layer's output
        # may be a `PackedSequence`, whose `.data` is a field.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch.nn.utils.rnn import pack_padded_sequence


            def beam_step(rnn, inputs, lengths):
                outputs = {}
                for key in inputs:
                    outputs[key] = rnn(pack_padded_sequence(inputs[key], lengths[key]))[0]
                    top = outputs[key].data.cpu()
                return top
            """
        ),
        # numpy's `max` takes arrays, whose `.data` is a memoryview; a record's `data` field indexed
        # and cloned may be a tensor held by a record, not `Tensor.data`.
        Valid(
            """
            import numpy as np

            def pick(scores, batch):
                return np.max(scores.data, 1), batch.data[:, 0].clone()
            """
        ),
        # An input of a custom Function that it does not save for backward may be anything.
        Valid(
            """
            import torch

            class Scaled(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, table):
                    ctx.save_for_backward(x)
                    return x * table.data["scale"]
            """
        ),
        # Pretrained weights shared into another model's parameters (`a.data = b.data`): the
        # storage is shared on purpose, and the parameter keeps its own version counter.
        Valid(
            """
            import torch.nn as nn

            class NeuMF(nn.Module):
                def load_pretrain_weights(self, mlp_model, gmf_model):
                    self.embedding_user_mlp.weight.data = mlp_model.embedding_user.weight.data
                    self.embedding_user_mf.weight.data = gmf_model.embedding_user.weight.data
            """
        ),
        # The same through a view: `q` keeps its own version counter, whatever `p.data.view(-1)`
        # carries.
        Valid(
            """
            import torch
            def share(model, other):
                for p, q in zip(model.parameters(), other.parameters()):
                    q.data = p.data.view(-1)
            """
        ),
        # An adversarial image clipped back into itself: the read goes into its own new `.data`.
        Valid(
            """
            import torch

            def fgsm_step(img_var, eta):
                img_var.data += eta * img_var.grad.sign()
                img_var.data = torch.clamp(img_var.data, min=0, max=1)
                return img_var
            """
        ),
        # A batch whose code shows no arithmetic may be a `PackedSequence`, whose `.data` is a field;
        # one rebound before it is divided may have been one.
        Valid(
            """
            def zeros_like_batch(batch):
                return batch.data.new(batch.data.size(0)).zero_()


            def scale(batch):
                batch = batch.data
                return batch.data.new(3) / 2
            """
        ),
        # The tensor's own `.data` swapped for a converted or pruned copy of itself (GG102's
        # `p.data = fn(p.data)`): nothing escapes to share its memory.
        Valid(
            """
            import torch


            def compress(model, amount=0.3):
                for name, param in model.named_parameters():
                    param.data = param.data.half()
                for module in model.modules():
                    if isinstance(module, torch.nn.Conv2d):
                        keep = module.weight.abs().sum((1, 2, 3)) > amount
                        module.weight.data = module.weight.data[keep]
            """
        ),
        # A weight normalised back into its own storage by a method of its `.data` (GG102's).
        Valid(
            """
            import torch


            def normalise(layer):
                norm = layer.weight.norm(p=2, dim=1, keepdim=True)
                layer.weight.data = layer.weight.data.div(norm + 1e-5)
            """
        ),
        # A scipy sparse matrix's `.data` is the array of its stored values (`adj.row`, `adj.col`).
        Valid(
            """
            import numpy as np
            import torch


            def to_sparse_tensor(adj):
                indices = torch.from_numpy(np.vstack((adj.row, adj.col))).long()
                values = torch.from_numpy(adj.data)
                adj = torch.sparse_coo_tensor(indices, values, adj.shape)
                return adj.cuda()
            """
        ),
        # numpy joins arrays, whose `.data` is a memory buffer.
        Valid(
            """
            import numpy as np
            import torch


            def save_sample(E1, G2, X1):
                _, Z1 = E1(X1)
                fake_X2 = G2(Z1)
                return np.concatenate((Z1, fake_X2.data), 0)
            """,
        ),
        # Only methods arrays have too follow `.data` (a sparse matrix's values): nothing says tensor.
        Valid(
            """
            def values(matrix):
                return matrix.data.squeeze().tolist()
            """,
        ),
        # A numpy image's `.data` is its memoryview.
        Valid(
            """
            import cv2
            import torch

            image = cv2.imread("in.jpg")
            view = image.data
            print(bytes(view[:4]))
            """,
        ),
        # The same hook reading its input through `.detach()`.
        Valid(
            """
            import torch

            hessians = {}


            def accumulate_input(name):
                def tmp(_, inp, out):
                    inp = inp[0].detach()
                    hessians[name] = hessians.get(name, 0) + inp.t() @ inp
                return tmp


            model = torch.nn.Linear(16, 4)
            model.register_forward_hook(accumulate_input("fc"))
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            class Graph(nn.Module):
                def __init__(self, data):
                    super().__init__()
                    self.data = data

            graph = Graph(edges)
            payload = graph.cuda().data
            """,
        ),
        Valid(
            """
            import torch
            from torch.utils.data import DataLoader
            import torch.utils.data
            ds = torch.utils.data.TensorDataset(x)
            """,
        ),
        Valid(
            """
            import torch
            def f(dataset, args, response, batch):
                a = dataset.data.cpu()
                b = args.data
                c = response.data
                d = batch['image'].data
                return a, b, c, d
            """,
        ),
        Valid(
            """
            import torch
            import numpy as np
            arr = np.zeros(3)
            buf = arr.data
            """,
        ),
        Valid(
            """
            import torch
            from torchvision import datasets
            trainset = datasets.MNIST('.', download=True)
            mnist = trainset
            imgs = trainset.data.numpy(), mnist.data.clone()
            """,
        ),
        Valid(
            """
            import torch
            import numpy as np
            class Edge:
                def __init__(self):
                    self.weight = np.ones(3)
                def raw(self):
                    return self.weight.data
            """,
        ),
        Valid(
            """
            import torch
            class Holder:
                def __init__(self, data):
                    self.data = data
                def get(self):
                    return self.data.clone()
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self, w):
                    super().__init__()
                    self.w = nn.Parameter(w.weight.data)
            """,
        ),
        Valid(  # a write: GG102
            """
            import torch
            for p in model.parameters():
                p.data.mul_(0.5)
            """,
        ),
        Valid(
            """
            import torch
            from torch.nn.utils.rnn import pack_padded_sequence
            def f(model, x, n):
                out, h = model(pack_padded_sequence(x, n))
                return out.data.sum()
            """,
        ),
        Valid(
            """
            import torch
            for p in model.parameters():
                print(p.detach().norm())
            """,
        ),
        # A method numpy arrays have too after `.data` of a value nothing shows to be a tensor.
        Valid(
            """
            def report(y):
                return y.data.tolist()
            """
        ),
        # numpy's product takes arrays (whose `.data` is a memoryview) as well as tensors: nothing
        # shows `u` or `w` is a tensor
        Valid(
            """
            import numpy as np

            def power_step(holder):
                u = getattr(holder, "u")
                w = getattr(holder, "w")
                height = w.data.shape[0]
                return np.dot(w.data.reshape(height, -1), u.data)
            """
        ),
    )
    invalid = (
        # `.data[0]` of a value the code shows is a tensor of unknown shape, named for a loss: `.item()`
        # reads its one value whether it is 0-dim or has one element; no fix.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class L1Loss(nn.Module):
                def forward(self, a, b):
                    return (a - b).abs().mean()


            class Trainer:
                def __init__(self):
                    self.criterion = L1Loss()

                def disc_loss(self, out, x, l_type):
                    if l_type == 1:
                        real = torch.mean(torch.abs(out - x))
                    else:
                        real = self.criterion(out, x)
                    return real, real * 2

                def step(self, out, x):
                    real_loss, fake_loss = self.disc_loss(out, x, 1)
                    (real_loss + fake_loss).backward()
                    print(real_loss.data[0])
            """,
            line=24,
            column=15,
            message="`real_loss.data` reads the tensor without autograd's version counter, and `real_loss.data[0]` "
            "reads a loss's one value, which raises IndexError where the loss is 0-dim (as torch's losses are, with "
            "`.data` or `.detach()`): use `real_loss.item()`",
        ),
        # The same value not named for a loss: a plain read.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class L1Loss(nn.Module):
                def forward(self, a, b):
                    return (a - b).abs().mean()


            class Trainer:
                def __init__(self):
                    self.criterion = L1Loss()

                def disc_loss(self, out, x, l_type):
                    if l_type == 1:
                        real = torch.mean(torch.abs(out - x))
                    else:
                        real = self.criterion(out, x)
                    return real, real * 2

                def step(self, out, x):
                    real_out, fake_out = self.disc_loss(out, x, 1)
                    (real_out + fake_out).backward()
                    print(real_out.data[0])
            """,
            line=24,
            column=15,
            message="`real_out.data` reads the tensor without autograd's version counter; `real_out.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import torch
            import torch.nn as nn


            class L1Loss(nn.Module):
                def forward(self, a, b):
                    return (a - b).abs().mean()


            class Trainer:
                def __init__(self):
                    self.criterion = L1Loss()

                def disc_loss(self, out, x, l_type):
                    if l_type == 1:
                        real = torch.mean(torch.abs(out - x))
                    else:
                        real = self.criterion(out, x)
                    return real, real * 2

                def step(self, out, x):
                    real_out, fake_out = self.disc_loss(out, x, 1)
                    (real_out + fake_out).backward()
                    print(real_out.detach()[0])
            """,
        ),
        # An element of a matrix read the PyTorch 0.3 way: 0-dim since 0.4, so `.detach()[0]` would raise IndexError too.
        Invalid(
            """
            import torch


            def matches(steps, targets):
                seq = torch.cat(steps, 1)
                hits = 0
                for i in range(seq.size(0)):
                    for j in range(seq.size(1)):
                        hits += int(seq[i][j].data[0] == targets[i][j])
                return hits
            """,
            line=9,
            column=25,
            message="`seq[i][j].data` reads the tensor without autograd's version counter, and `seq[i][j].data[0]` reads an element's one value, which raises IndexError where the element is 0-dim (of a matrix, since PyTorch 0.4, with `.data` or `.detach()`): use `seq[i][j].item()`",
        ),
        # Tensors made from each element by `map`, read by index.
        Invalid(
            """
            import torch


            def evaluate(model, loader):
                labels = []
                for data in loader:
                    data = list(map(lambda x: torch.LongTensor(x), data))
                    out = model(*data[:-1])
                    labels.extend(data[-1].data.cpu().numpy().tolist())
                return labels
            """,
            line=9,
            column=23,
            message="`data[-1].data` reads the tensor without autograd's version counter; `data[-1].detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch


            def evaluate(model, loader):
                labels = []
                for data in loader:
                    data = list(map(lambda x: torch.LongTensor(x), data))
                    out = model(*data[:-1])
                    labels.extend(data[-1].detach().cpu().numpy().tolist())
                return labels
            """,
        ),
        # What `torch.linalg`'s functions take is a tensor (a parameter of unknown origin, `model_parameters`).
        Invalid(
            """
            import torch


            def get_weight_norm(model_parameters):
                norm = 0
                for p in model_parameters:
                    norm += torch.linalg.norm(p.data)
                return norm
            """,
            line=7,
            column=35,
            message="`p.data` reads the tensor without autograd's version counter; `p.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch


            def get_weight_norm(model_parameters):
                norm = 0
                for p in model_parameters:
                    norm += torch.linalg.norm(p.detach())
                return norm
            """,
        ),
        # The same function that no module runs as a layer: a read, whose `.detach()` reads the same values.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def downsample_basic_block(x, planes, stride):
                out = F.avg_pool3d(x, kernel_size=1, stride=stride)
                zero_pads = torch.zeros(out.size(0), planes - out.size(1), *out.shape[2:], device=out.device)
                return torch.cat([out.data, zero_pads], dim=1)
            """,
            line=8,
            column=23,
            message="`out.data` reads the tensor without autograd's version counter; `out.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            import torch.nn.functional as F


            def downsample_basic_block(x, planes, stride):
                out = F.avg_pool3d(x, kernel_size=1, stride=stride)
                zero_pads = torch.zeros(out.size(0), planes - out.size(1), *out.shape[2:], device=out.device)
                return torch.cat([out.detach(), zero_pads], dim=1)
            """,
        ),
        # A function a module runs as a layer (`partial(downsample_basic_block, ...)`, a 3D ResNet's shortcut):
        # the read cuts the shortcut out of the graph; which is meant is asked, no fix.
        Invalid(
            """
            from functools import partial

            import torch
            import torch.nn.functional as F
            from torch import nn


            def downsample_basic_block(x, planes, stride):
                out = F.avg_pool3d(x, kernel_size=1, stride=stride)
                zero_pads = torch.zeros(out.size(0), planes - out.size(1), *out.shape[2:], device=out.device)
                return torch.cat([out.data, zero_pads], dim=1)


            class Block(nn.Module):
                def __init__(self, planes, stride):
                    super().__init__()
                    self.conv = nn.Conv3d(planes // 2, planes, 3, stride, 1)
                    self.downsample = partial(downsample_basic_block, planes=planes, stride=stride)

                def forward(self, x):
                    return F.relu(self.conv(x) + self.downsample(x))
            """,
            line=11,
            column=23,
            message="`out.data` in `downsample_basic_block`, which a module runs as one of its layers, takes `out` out of the graph: what computed it gets no gradient through this use (`.detach()` would do the same); use `out` where gradients should reach it, `out.detach()` where the cut is meant",
        ),
        # A copy to the CPU of a detached tensor is detached: `.data` is dropped, not turned into a second `.detach()`.
        Invalid(
            """
            import torch


            def act(policy, state):
                action = policy(state)
                return action.detach().cpu().data.numpy()
            """,
            line=6,
            column=12,
            message="`action.detach().cpu().data` reads the tensor without autograd's version counter; `action.detach().cpu()` is already detached: use `action.detach().cpu()`",
            fixed="""
            import torch


            def act(policy, state):
                action = policy(state)
                return action.detach().cpu().numpy()
            """,
        ),
        # `len()` of a criterion's 0-dim loss raises TypeError through `.data` or `.detach()` alike: the advice is
        # its value, with no `.detach()` fix.
        Invalid(
            """
            import torch.nn.functional as F


            def step(model, optimizer, x, y):
                loss = F.smooth_l1_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if len(loss.data) > 0:
                    return loss.item()
                return loss
            """,
            line=9,
            column=12,
            message="`loss.data` reads the tensor without autograd's version counter, and `len(loss.data)` raises TypeError where `loss` is 0-dim (as torch's losses are, with `.data` or `.detach()`): its one value is `loss.item()`",
        ),
        # An input of `forward` read through `.data` on its way into the output: cut from the graph, meant or not;
        # `.detach()` would not change that, so the message asks which.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Attention(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.query = nn.Linear(dim, dim)

                def forward(self, s_prev, memory, active):
                    s_prev = s_prev.data[active]
                    scores = torch.bmm(memory[active], self.query(s_prev).unsqueeze(2))
                    return scores.softmax(dim=1)
            """,
            line=11,
            column=18,
            message="`s_prev.data` in `forward` takes `s_prev` out of the graph: what computed it gets no gradient through this use (`.detach()` would do the same); use `s_prev` where gradients should reach it, `s_prev.detach()` where the cut is meant",
        ),
        # Indices handed to `torch.gather`, which copies the values it selects into a new tensor: a read.
        Invalid(
            """
            import torch


            def hardest_positive_indices(dist_ap, ind):
                dist_ap, relative_p_inds = torch.max(dist_ap, 1, keepdim=True)
                p_inds = torch.gather(ind, 1, relative_p_inds.data)
                return dist_ap, p_inds.squeeze(1)
            """,
            line=6,
            column=35,
            message="`relative_p_inds.data` reads the tensor without autograd's version counter; `relative_p_inds.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch


            def hardest_positive_indices(dist_ap, ind):
                dist_ap, relative_p_inds = torch.max(dist_ap, 1, keepdim=True)
                p_inds = torch.gather(ind, 1, relative_p_inds.detach())
                return dist_ap, p_inds.squeeze(1)
            """,
        ),
        # A running loss that starts as `0`: the sum is a new tensor, then one added into in place; nothing escapes.
        Invalid(
            """
            import torch
            from torch import nn

            model = nn.Linear(3, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_loss = 0
            for x, y in [(torch.randn(4, 3), torch.randn(4, 1))]:
                loss = nn.functional.mse_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                train_loss += loss.data
            print(train_loss)
            """,
            line=12,
            column=19,
            message="`loss.data` reads the tensor without autograd's version counter; `loss.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            from torch import nn

            model = nn.Linear(3, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            train_loss = 0
            for x, y in [(torch.randn(4, 3), torch.randn(4, 1))]:
                loss = nn.functional.mse_loss(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                train_loss += loss.detach()
            print(train_loss)
            """,
        ),
        # A batch's field named like a record, handed to a torch function that takes only tensors
        # (`torch.unique`): a tensor, whatever its name says.
        Invalid(
            """
            import torch


            def class_weights(supervised_loader, n_classes):
                counts = torch.zeros(n_classes)
                for batch in supervised_loader:
                    label_batch = batch["L"]
                    labels = torch.unique(label_batch.data)
                    counts[labels] += 1
                return counts
            """,
            line=8,
            column=31,
            message="`label_batch.data` reads the tensor without autograd's version counter; `label_batch.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch


            def class_weights(supervised_loader, n_classes):
                counts = torch.zeros(n_classes)
                for batch in supervised_loader:
                    label_batch = batch["L"]
                    labels = torch.unique(label_batch.detach())
                    counts[labels] += 1
                return counts
            """,
        ),
        # The same handed to a quantiser the code does not show: it may keep the alias.
        Invalid(
            """
            import torch
            from torch import nn


            class QConv2d(nn.Module):
                def __init__(self, conv, qw):
                    super().__init__()
                    self.conv_module = conv
                    self.qw = qw

                def freeze(self):
                    self.conv_module.weight.data = self.qw.quantize_tensor(self.conv_module.weight.data)
            """,
            line=12,
            column=64,
            message="`self.conv_module.weight.data` escapes here: it shares memory with `self.conv_module.weight` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
        ),
        # A weight quantised by a method of a class of the file that hands it on to a function computing
        # with it: a read (a safe fix).
        Invalid(
            """
            import torch
            from torch import nn


            def quantize_tensor(x, scale, zero_point):
                q_x = zero_point + x / scale
                q_x.clamp_(-128, 127).round_()
                return q_x


            class QParam:
                def __init__(self, scale, zero_point):
                    self.scale = scale
                    self.zero_point = zero_point

                def quantize_tensor(self, tensor):
                    return quantize_tensor(tensor, self.scale, self.zero_point)


            class QConv2d(nn.Module):
                def __init__(self, conv):
                    super().__init__()
                    self.conv_module = conv
                    self.qw = QParam(0.1, 0)

                def freeze(self):
                    self.conv_module.weight.data = self.qw.quantize_tensor(self.conv_module.weight.data)
            """,
            line=27,
            column=64,
            message="`self.conv_module.weight.data` reads the tensor without autograd's version counter; `self.conv_module.weight.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            from torch import nn


            def quantize_tensor(x, scale, zero_point):
                q_x = zero_point + x / scale
                q_x.clamp_(-128, 127).round_()
                return q_x


            class QParam:
                def __init__(self, scale, zero_point):
                    self.scale = scale
                    self.zero_point = zero_point

                def quantize_tensor(self, tensor):
                    return quantize_tensor(tensor, self.scale, self.zero_point)


            class QConv2d(nn.Module):
                def __init__(self, conv):
                    super().__init__()
                    self.conv_module = conv
                    self.qw = QParam(0.1, 0)

                def freeze(self):
                    self.conv_module.weight.data = self.qw.quantize_tensor(self.conv_module.weight.detach())
            """,
        ),
        # A spectral norm's vector normalised back into its own storage by a function of the file that
        # computes a new tensor from it: a read, as arithmetic on it is (a safe fix).
        Invalid(
            """
            import torch
            from torch import nn


            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)


            class SpectralNorm(nn.Module):
                def __init__(self, module):
                    super().__init__()
                    self.module = module
                    w = module.weight
                    u = nn.Parameter(w.new_empty(w.shape[0]).normal_(0, 1), requires_grad=False)
                    u.data = l2normalize(u.data)
                    self.u = u
            """,
            line=15,
            column=30,
            message="`u.data` reads the tensor without autograd's version counter; `u.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            from torch import nn


            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)


            class SpectralNorm(nn.Module):
                def __init__(self, module):
                    super().__init__()
                    self.module = module
                    w = module.weight
                    u = nn.Parameter(w.new_empty(w.shape[0]).normal_(0, 1), requires_grad=False)
                    u.data = l2normalize(u.detach())
                    self.u = u
            """,
        ),
        # The same function dividing its argument in place and handing it back: the alias escapes.
        Invalid(
            """
            import torch


            def l2normalize(v, eps=1e-12):
                return v.div_(v.norm() + eps)


            def power_step(weight, u):
                v = l2normalize(torch.mv(weight.t(), u))
                return l2normalize(torch.mv(weight, v)), l2normalize(weight.grad.data)
            """,
            line=10,
            column=58,
            message="`weight.grad.data` escapes here: it shares memory with `weight.grad` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
        ),
        # Handed to a function of the file that only computes with it: a new tensor comes back (a safe fix).
        Invalid(
            """
            import torch


            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)


            def power_step(weight, u):
                v = l2normalize(torch.mv(weight.t(), u))
                return l2normalize(torch.mv(weight, v)), l2normalize(weight.grad.data)
            """,
            line=10,
            column=58,
            message="`weight.grad.data` reads the tensor without autograd's version counter; `weight.grad.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch


            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)


            def power_step(weight, u):
                v = l2normalize(torch.mv(weight.t(), u))
                return l2normalize(torch.mv(weight, v)), l2normalize(weight.grad.detach())
            """,
        ),
        # The same columns taken by a slice: a view of the weight's storage, kept under a name.
        Invalid(
            """
            import torch
            from torch import nn


            class Split(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = nn.Linear(16, 10)

                def columns(self, rows, width):
                    weight = self.linear.weight.data[:, :width]
                    return weight
            """,
            line=11,
            column=18,
            message="`self.linear.weight.data` escapes here: it shares memory with `self.linear.weight` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
        ),
        # Columns picked by a list of indices: advanced indexing copies them, nothing escapes (a safe fix).
        Invalid(
            """
            import torch
            from torch import nn


            class Split(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = nn.Linear(16, 10)

                def columns(self, rows, width):
                    first = [i * width for i in range(rows)]
                    weight = self.linear.weight.data[:, first]
                    return weight
            """,
            line=12,
            column=18,
            message="`self.linear.weight.data` reads the tensor without autograd's version counter; `self.linear.weight.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            from torch import nn


            class Split(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = nn.Linear(16, 10)

                def columns(self, rows, width):
                    first = [i * width for i in range(rows)]
                    weight = self.linear.weight.detach()[:, first]
                    return weight
            """,
        ),
        # Stored in a list: the alias itself is kept.
        Invalid(
            """
            import torch


            def attentions(decoder, x, hidden, steps):
                rows = [None] * steps
                for i in range(steps):
                    out, hidden, weights = decoder(x, hidden)
                    rows[i] = weights.data
                return rows
            """,
            line=8,
            column=19,
            message="`weights.data` escapes here: it shares memory with `weights` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
        ),
        # Written into a row of a tensor: the values are copied, nothing escapes (a safe fix).
        Invalid(
            """
            import torch


            def attentions(decoder, x, hidden, steps):
                rows = torch.zeros(steps, x.size(1))
                for i in range(steps):
                    out, hidden, weights = decoder(x, hidden)
                    rows[i] = weights.data
                return rows
            """,
            line=8,
            column=19,
            message="`weights.data` reads the tensor without autograd's version counter; `weights.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch


            def attentions(decoder, x, hidden, steps):
                rows = torch.zeros(steps, x.size(1))
                for i in range(steps):
                    out, hidden, weights = decoder(x, hidden)
                    rows[i] = weights.detach()
                return rows
            """,
        ),
        # `src_seq`, a tensor of token ids in a file that packs no sequence, read through `.data` by
        # `type_as`, which takes only tensors.
        Invalid(
            """
            import torch


            def greedy_decode(model, src_seq, src_mask, max_len, start_symbol):
                memory = model.encode(src_seq, src_mask)
                ys = torch.ones(1, 1).fill_(start_symbol).type_as(src_seq.data)
                for _ in range(max_len - 1):
                    out = model.decode(memory, src_mask, ys)
                    next_word = out[:, -1].argmax(dim=1).item()
                    ys = torch.cat([ys, torch.ones(1, 1).type_as(src_seq).fill_(next_word)], dim=1)
                return ys
            """,
            line=6,
            column=55,
            message="`src_seq.data` reads the tensor without autograd's version counter; `src_seq.detach()` reads "
            "the same values and keeps in-place checks",
            fixed="""
            import torch


            def greedy_decode(model, src_seq, src_mask, max_len, start_symbol):
                memory = model.encode(src_seq, src_mask)
                ys = torch.ones(1, 1).fill_(start_symbol).type_as(src_seq.detach())
                for _ in range(max_len - 1):
                    out = model.decode(memory, src_mask, ys)
                    next_word = out[:, -1].argmax(dim=1).item()
                    ys = torch.cat([ys, torch.ones(1, 1).type_as(src_seq).fill_(next_word)], dim=1)
                return ys
            """,
        ),
        # `.to(dev)` after `.data`: an array's `.data` (a memoryview) has no `to`, so the labels
        # taken out of a dict are a tensor.
        Invalid(
            """
            import torch


            def count_correct(preds_class, dat, dev):
                y_test = dat["test_data"]["y_test"]
                return torch.sum(preds_class == y_test.data.to(dev)).item()
            """,
            line=6,
            column=37,
            message="`y_test.data` reads the tensor without autograd's version counter; `y_test.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import torch


            def count_correct(preds_class, dat, dev):
                y_test = dat["test_data"]["y_test"]
                return torch.sum(preds_class == y_test.detach().to(dev)).item()
            """,
        ),
        # Labels of a batch of unknown type handed to a torch loss as its target: a tensor.
        Invalid(
            """
            import torch
            import torch.nn as nn

            criterion = nn.BCELoss()


            def accuracy(model, batches):
                correct = 0
                for data in batches:
                    inputs, targets = data[0], data[1].to(torch.float32)
                    outputs = torch.sigmoid(model(inputs)).squeeze(1)
                    loss = criterion(outputs, targets)
                    correct += ((outputs > 0.5) == targets.data).sum().item()
                return correct
            """,
            line=13,
            column=40,
            message="`targets.data` reads the tensor without autograd's version counter; `targets.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import torch
            import torch.nn as nn

            criterion = nn.BCELoss()


            def accuracy(model, batches):
                correct = 0
                for data in batches:
                    inputs, targets = data[0], data[1].to(torch.float32)
                    outputs = torch.sigmoid(model(inputs)).squeeze(1)
                    loss = criterion(outputs, targets)
                    correct += ((outputs > 0.5) == targets.detach()).sum().item()
                return correct
            """,
        ),
        # A recommender's item ids, moved to the GPU and given to the model: a tensor, whatever
        # its name ends with.
        Invalid(
            """
            import torch


            def item_ids(model, users, items):
                test_items = items.cuda()
                scores = model(users.cuda(), test_items)
                return test_items.data.view(-1).tolist()
            """,
            line=7,
            column=12,
            message="`test_items.data` reads the tensor without autograd's version counter; `test_items.detach()` reads "
            "the same values and keeps in-place checks",
            fixed="""
            import torch


            def item_ids(model, users, items):
                test_items = items.cuda()
                scores = model(users.cuda(), test_items)
                return test_items.detach().view(-1).tolist()
            """,
        ),
        # A beam search's scores kept in a dict the loop fills with `F.log_softmax(...)`: tensors
        # torch computes, in a file whose encoder packs sequences.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch.nn.utils.rnn import pack_padded_sequence


            def encode(rnn, x, lengths):
                return rnn(pack_padded_sequence(x, lengths))


            def beam_step(decoder, inputs, hidden, width):
                outputs = {}
                for key in inputs:
                    out, hidden[key] = decoder(inputs[key], hidden[key])
                    outputs[key] = F.log_softmax(out, dim=1)
                    top = outputs[key].data.topk(width)
                return top
            """,
            line=15,
            column=15,
            message="`outputs[key].data` reads the tensor without autograd's version counter; `outputs[key].detach()` "
            "reads the same values and keeps in-place checks",
            fixed="""
            import torch
            import torch.nn.functional as F
            from torch.nn.utils.rnn import pack_padded_sequence


            def encode(rnn, x, lengths):
                return rnn(pack_padded_sequence(x, lengths))


            def beam_step(decoder, inputs, hidden, width):
                outputs = {}
                for key in inputs:
                    out, hidden[key] = decoder(inputs[key], hidden[key])
                    outputs[key] = F.log_softmax(out, dim=1)
                    top = outputs[key].detach().topk(width)
                return top
            """,
        ),
        # A criterion's loss indexed after `.data`, its shape not shown: `.detach()[0]` would
        # keep the IndexError of a 0-dim loss; `.item()` reads the one value either way.
        Invalid(
            """
            import torch

            def fit_epoch(model, loader, criterion, optimizer, meter):
                for data, target in loader:
                    style_loss, content_loss = criterion(model(data), data, target)
                    meter.update(style_loss.data[0])
                    loss = style_loss + content_loss
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
            line=6,
            column=22,
            message="`style_loss.data` reads the tensor without autograd's version counter, and `style_loss.data[0]` "
            "reads a loss's one value, which raises IndexError where the loss is 0-dim (as torch's losses are, with "
            "`.data` or `.detach()`): use `style_loss.item()`",
        ),
        # The same index of a model's output: its first row, which `.detach()` reads as well.
        Invalid(
            """
            import torch

            def first_images(model, loader, images):
                for data, _ in loader:
                    out = model(data)
                    images.append(out.data[0])
            """,
            line=6,
            column=23,
            message="`out.data` escapes here: it shares memory with `out` but not its version counter, so an in-place "
            "change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; "
            "use `.detach()`",
        ),
        # `.data` of a tensor already detached: the fix drops it.
        Invalid(
            """
            def show(mask):
                return mask.detach().data.cpu().numpy()
            """,
            line=2,
            column=12,
            message="`mask.detach().data` reads the tensor without autograd's version counter; `mask.detach()` is "
            "already detached: use `mask.detach()`",
            fixed="""
            def show(mask):
                return mask.detach().cpu().numpy()
            """,
        ),
        # A parameter named like a record whose code divides it is a tensor: a record, loader or
        # `PackedSequence` has no arithmetic, and an array's `.data` has no `new`.
        Invalid(
            """
            def normalize_batch(batch, mean, std):
                mean = batch.data.new(mean).view(1, -1, 1, 1)
                return (batch / 255.0 - mean) / std
            """,
            line=2,
            column=12,
            message="`batch.data` reads the tensor without autograd's version counter; `batch.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            def normalize_batch(batch, mean, std):
                mean = batch.detach().new(mean).view(1, -1, 1, 1)
                return (batch / 255.0 - mean) / std
            """,
        ),
        # A comparison by method name after `.data`: only tensors have `eq`.
        Invalid(
            """
            def pad_mask(state, padding_idx):
                src_words = state.src[:, :, 0].transpose(0, 1)
                return src_words.data.eq(padding_idx).unsqueeze(1)
            """,
            line=3,
            column=12,
            message="`src_words.data` reads the tensor without autograd's version counter; `src_words.detach()` reads "
            "the same values and keeps in-place checks",
            fixed="""
            def pad_mask(state, padding_idx):
                src_words = state.src[:, :, 0].transpose(0, 1)
                return src_words.detach().eq(padding_idx).unsqueeze(1)
            """,
        ),
        # What a function named for a model's parameters iterates are parameters (weak evidence:
        # its callers hand it `model.parameters()`, as to `clip_grad_norm_`).
        Invalid(
            """
            import torch
            @torch.no_grad()
            def get_parameter_norm(parameters, norm_type=2):
                total_norm = 0
                for p in parameters:
                    total_norm += (p.data**norm_type).sum()
                return total_norm ** (1.0 / norm_type)
            """,
            line=6,
            column=24,
            message="`p.data` reads the tensor without autograd's version counter; `p.detach()` reads the same "
            "values and keeps in-place checks",
            fixed="""
            import torch
            @torch.no_grad()
            def get_parameter_norm(parameters, norm_type=2):
                total_norm = 0
                for p in parameters:
                    total_norm += (p.detach()**norm_type).sum()
                return total_norm ** (1.0 / norm_type)
            """,
        ),
        # What `torch.cat` joins is a tensor, whatever the code shows of the names; the join copies.
        Invalid(
            """
            import torch


            def save_sample(E1, G2, X1):
                _, Z1 = E1(X1)
                fake_X2 = G2(Z1)
                return torch.cat((Z1, fake_X2.data), 0)
            """,
            line=7,
            column=27,
            message="`fake_X2.data` reads the tensor without autograd's version counter; `fake_X2.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import torch


            def save_sample(E1, G2, X1):
                _, Z1 = E1(X1)
                fake_X2 = G2(Z1)
                return torch.cat((Z1, fake_X2.detach()), 0)
            """,
        ),
        # A model's state_dict holds its parameters, detached but sharing their storage.
        Invalid(
            """
            from torch import nn

            model = nn.Linear(1, 1)
            print(model.state_dict()["weight"].data)
            """,
            line=4,
            column=7,
            message='`model.state_dict()["weight"].data` reads the tensor without autograd\'s version counter; '
            '`model.state_dict()["weight"].detach()` reads the same values and keeps in-place checks',
            fixed="""
            from torch import nn

            model = nn.Linear(1, 1)
            print(model.state_dict()["weight"].detach())
            """,
        ),
        # A batch of another module's dict of loaders (`datasets.dataloaders[phase]`).
        Invalid(
            """
            import torch

            import datasets


            def accuracy(model, phase):
                corrects = 0
                for inputs, labels in datasets.dataloaders[phase]:
                    preds = model(inputs).argmax(1)
                    corrects += torch.sum(preds == labels.data).item()
                return corrects
            """,
            line=10,
            column=40,
            message="`labels.data` reads the tensor without autograd's version counter; `labels.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import torch

            import datasets


            def accuracy(model, phase):
                corrects = 0
                for inputs, labels in datasets.dataloaders[phase]:
                    preds = model(inputs).argmax(1)
                    corrects += torch.sum(preds == labels.detach()).item()
                return corrects
            """,
        ),
        # A method only tensors have further down the chain: `.squeeze()` is an array's too,
        # `.float()` is not.
        Invalid(
            """
            import numpy as np


            def tensor2single(img):
                return np.float32(img.data.squeeze().float().cpu().numpy())
            """,
            line=5,
            column=23,
            message="`img.data` reads the tensor without autograd's version counter; `img.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import numpy as np


            def tensor2single(img):
                return np.float32(img.detach().squeeze().float().cpu().numpy())
            """,
        ),
        # An image named `image`, a transform's tensor: a method only tensors have follows `.data`.
        Invalid(
            """
            import cv2
            import torch
            from torchvision import transforms

            to_tensor = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5], [0.5])])
            image = cv2.imread("in.jpg")
            image = to_tensor(image)
            print(image.data.cpu().numpy().shape)
            """,
            line=8,
            column=7,
            message="`image.data` reads the tensor without autograd's version counter; `image.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            import cv2
            import torch
            from torchvision import transforms

            to_tensor = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5], [0.5])])
            image = cv2.imread("in.jpg")
            image = to_tensor(image)
            print(image.detach().cpu().numpy().shape)
            """,
        ),
        # A module's own parameter read through `.data` in `forward`: it gets no gradient.
        Invalid(
            """
            import torch
            from torch import nn


            class MyLinear(nn.Module):
                def __init__(self, in_units, units):
                    super().__init__()
                    self.weight = nn.Parameter(torch.randn(in_units, units))
                    self.bias = nn.Parameter(torch.randn(units))

                def forward(self, X):
                    return torch.relu(torch.matmul(X, self.weight.data) + self.bias)
            """,
            line=12,
            column=43,
            message="`self.weight.data` in `forward` takes the module's own parameter out of the graph: `self.weight` "
            "gets no gradient and is never trained (`.detach()` would do the same); use `self.weight`",
            fixed="""
            import torch
            from torch import nn


            class MyLinear(nn.Module):
                def __init__(self, in_units, units):
                    super().__init__()
                    self.weight = nn.Parameter(torch.randn(in_units, units))
                    self.bias = nn.Parameter(torch.randn(units))

                def forward(self, X):
                    return torch.relu(torch.matmul(X, self.weight) + self.bias)
            """,
            unsafe=True,
        ),
        # A parameter read as a mask for indexes (through numpy): `.detach()` is the advice.
        Invalid(
            """
            import numpy as np
            import torch
            from torch import nn


            class ChannelSelection(nn.Module):
                def __init__(self, num_channels):
                    super().__init__()
                    self.indexes = nn.Parameter(torch.ones(num_channels))

                def forward(self, x):
                    selected = np.squeeze(np.argwhere(self.indexes.data.cpu().numpy()))
                    return x[:, selected]
            """,
            line=12,
            column=43,
            message="`self.indexes.data` reads the tensor without autograd's version counter; `self.indexes.detach()` "
            "reads the same values and keeps in-place checks",
        ),
        # A hook a function of the file makes (`register_forward_hook(accumulate_input("fc"))`):
        # autograd hands it the module's inputs.
        Invalid(
            """
            import torch

            hessians = {}


            def accumulate_input(name):
                def tmp(_, inp, out):
                    inp = inp[0].data
                    hessians[name] = hessians.get(name, 0) + inp.t() @ inp
                return tmp


            model = torch.nn.Linear(16, 4)
            model.register_forward_hook(accumulate_input("fc"))
            """,
            line=8,
            column=15,
            message="`inp[0].data` escapes here: it shares memory with `inp[0]` but not its version counter, so an "
            "in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong "
            "gradients; use `.detach()`",
            fixed="""
            import torch

            hessians = {}


            def accumulate_input(name):
                def tmp(_, inp, out):
                    inp = inp[0].detach()
                    hessians[name] = hessians.get(name, 0) + inp.t() @ inp
                return tmp


            model = torch.nn.Linear(16, 4)
            model.register_forward_hook(accumulate_input("fc"))
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch

            def show(model, x):
                out = model(x)
                print(out.data.detach())
            """,
            line=5,
            column=11,
            message="`out.data` reads the tensor without autograd's version counter; `out.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch

            def show(model, x):
                out = model(x)
                print(out.detach())
            """,
        ),
        Invalid(
            """
            import torch.nn as nn

            model = nn.Linear(4, 2)

            def select_action(state):
                return model(
                    state.float()).data.max(1)[1]
            """,
            line=6,
            column=12,
            message="`model(state.float()).data` reads the tensor without autograd's version counter; `model(state.float()).detach()` reads the same values and keeps in-place checks",
        ),
        Invalid(
            """
            import torch
            from torchvision.utils import save_image

            def save(recon, path):
                save_image(recon.cpu().data, path)
            """,
            line=5,
            column=16,
            message="`recon.cpu().data` escapes here: it shares memory with `recon.cpu()` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
        ),
        Invalid(
            """
            import torch
            for p in model.parameters():
                print(p.data.norm())
            """,
            line=3,
            column=11,
            message="`p.data` reads the tensor without autograd's version counter; `p.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            for p in model.parameters():
                print(p.detach().norm())
            """,
        ),
        Invalid(
            """
            import torch
            def f(model, x):
                out = model(x)
                return out.data.cpu().numpy()
            """,
            line=4,
            column=12,
            message="`out.data` reads the tensor without autograd's version counter; `out.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            def f(model, x):
                out = model(x)
                return out.detach().cpu().numpy()
            """,
        ),
        Invalid(
            """
            import torch
            def f(model, x):
                out = model(x)
                y = out.data
                return y
            """,
            line=4,
            column=9,
            message="`out.data` escapes here: it shares memory with `out` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
            fixed="""
            import torch
            def f(model, x):
                out = model(x)
                y = out.data
                return y
            """,
        ),
        Invalid(
            """
            import torch
            def f(model, x):
                out = model(x)
                y = out.data
                return y
            """,
            line=4,
            column=9,
            message="`out.data` escapes here: it shares memory with `out` but not its version counter, so an in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong gradients; use `.detach()`",
            fixed="""
            import torch
            def f(model, x):
                out = model(x)
                y = out.detach()
                return y
            """,
            unsafe=True,
        ),
        Invalid(  # metadata read through `.data` does not escape: a safe fix
            """
            import torch
            def specs(model):
                return {n: p.data.placements for n, p in model.named_parameters()}
            """,
            line=3,
            column=16,
            message="`p.data` reads the tensor without autograd's version counter; `p.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            def specs(model):
                return {n: p.detach().placements for n, p in model.named_parameters()}
            """,
        ),
        Invalid(
            """
            import torch
            def snapshot(layer):
                return layer.weight.data.clone()
            """,
            line=3,
            column=12,
            message="`layer.weight.data` reads the tensor without autograd's version counter; `layer.weight.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            def snapshot(layer):
                return layer.weight.detach().clone()
            """,
        ),
        Invalid(
            """
            import torch
            def f(loss):
                loss.backward()
                return loss.data.item() > 0
            """,
            line=4,
            column=12,
            message="`loss.data` reads the tensor without autograd's version counter; `loss.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            def f(loss):
                loss.backward()
                return loss.detach().item() > 0
            """,
        ),
        # A 0-dim loss indexed after `.data`: `.detach()[0]` would keep the IndexError, so no fix
        # here; with GG105 selected too, the site is GG105's alone (it rewrites it to `.item()`).
        Invalid(
            """
            import torch.nn as nn
            criterion = nn.MSELoss()
            def f(model, x, y):
                loss = criterion(model(x), y)
                return loss.data[0], loss.data.numpy()[0]
            """,
            line=5,
            column=12,
            message="`loss.data` reads the tensor without autograd's version counter, and `loss.data[0]` indexes a "
            "0-dim tensor: use `loss.item()`",
            also=(
                Finding(
                    5,
                    26,
                    "`loss.data` reads the tensor without autograd's version counter, and `loss.data.numpy()[0]` "
                    "indexes a 0-dim tensor: use `loss.item()`",
                ),
            ),
            fixed="""
            import torch.nn as nn
            criterion = nn.MSELoss()
            def f(model, x, y):
                loss = criterion(model(x), y)
                return loss.data[0], loss.data.numpy()[0]
            """,
        ),
        # A slice of the parameter read through `.data` is cut out of the graph all the same.
        Invalid(
            """
            import torch
            from torch import nn


            class BERTEncoder(nn.Module):
                def __init__(self, vocab_size, num_hiddens, max_len=1000):
                    super().__init__()
                    self.token_embedding = nn.Embedding(vocab_size, num_hiddens)
                    self.pos_embedding = nn.Parameter(torch.randn(1, max_len, num_hiddens))

                def forward(self, tokens):
                    X = self.token_embedding(tokens)
                    return X + self.pos_embedding.data[:, : X.shape[1], :]
            """,
            line=13,
            column=20,
            message="`self.pos_embedding.data` in `forward` takes the module's own parameter out of the graph: "
            "`self.pos_embedding` gets no gradient and is never trained (`.detach()` would do the same); use "
            "`self.pos_embedding`",
        ),
        # `.norm()` after `.data`, and what `copy_` copies from: only tensors have or take them.
        Invalid(
            """
            import torch

            def do_some_doubling(x):
                y = x * 2
                while y.data.norm() < 1000:
                    y = y * 2
                return y
            """,
            line=5,
            column=11,
            message="`y.data` reads the tensor without autograd's version counter; `y.detach()` reads the same "
            "values and keeps in-place checks",
        ),
        Invalid(
            """
            import torch

            def get_inits(X, gen_img):
                gen_img.weight.data.copy_(X.data)
                return gen_img
            """,
            line=4,
            column=31,
            message="`X.data` reads the tensor without autograd's version counter; `X.detach()` reads the same "
            "values and keeps in-place checks",
        ),
        # What a torch function that takes only tensors is handed first is a tensor's `.data`.
        Invalid(
            """
            import torch

            def pick(logprob):
                return torch.max(logprob.data, 1)
            """,
            line=4,
            column=22,
            message="`logprob.data` reads the tensor without autograd's version counter; `logprob.detach()` reads "
            "the same values and keeps in-place checks",
            fixed="""
            import torch

            def pick(logprob):
                return torch.max(logprob.detach(), 1)
            """,
        ),
        # torchvision's `save_image` takes a tensor (or a list of them): what it is handed first
        # with a `.data` is a tensor's.
        Invalid(
            """
            import torchvision.utils as vutils

            def save_fakes(fake, epoch):
                vutils.save_image(fake.data, "fake_%03d.png" % epoch, normalize=True)
            """,
            line=4,
            column=23,
            message="`fake.data` escapes here: it shares memory with `fake` but not its version counter, so an "
            "in-place change to it while a backward graph still needs the old values goes unnoticed and gives wrong "
            "gradients; use `.detach()`",
        ),
        # A method only tensors have after an index of `.data`: a slice of an array's `.data` is a
        # memoryview, which has none.
        Invalid(
            """
            def first_labels(rois):
                return rois.data[:, 0].clone()
            """,
            line=2,
            column=12,
            message="`rois.data` reads the tensor without autograd's version counter; `rois.detach()` reads the "
            "same values and keeps in-place checks",
            fixed="""
            def first_labels(rois):
                return rois.detach()[:, 0].clone()
            """,
        ),
        # A custom Function's inputs it saves for backward, and `ctx.saved_tensors`, are tensors
        # whatever their names (a kernel handed `Q.data`).
        Invalid(
            """
            import torch

            class CausalProduct(torch.autograd.Function):
                @staticmethod
                def forward(ctx, Q, K):
                    ctx.save_for_backward(Q, K)
                    return kernel(Q.data, K)

                @staticmethod
                def backward(ctx, grad_out):
                    Q, K = ctx.saved_tensors
                    return kernel_backward(Q, K, grad_out), None
            """,
            line=7,
            column=23,
            message="`Q.data` escapes here: it shares memory with `Q` but not its version counter, so an in-place "
            "change to it while a backward graph still needs the old values goes unnoticed and gives wrong "
            "gradients; use `.detach()`",
        ),
        Invalid(
            """
            import torch

            class CausalProduct(torch.autograd.Function):
                @staticmethod
                def forward(ctx, Q, K):
                    ctx.save_for_backward(Q, K)
                    return kernel(Q, K)

                @staticmethod
                def backward(ctx, grad_out):
                    Q, K = ctx.saved_tensors
                    return kernel_backward(Q, K.data, grad_out), None
            """,
            line=12,
            column=35,
            message="`K.data` escapes here: it shares memory with `K` but not its version counter, so an in-place "
            "change to it while a backward graph still needs the old values goes unnoticed and gives wrong "
            "gradients; use `.detach()`",
        ),
        Invalid(
            # a loss kept on `self`, its name ending like a sequence's (`...Seq`): named a loss first
            """
            import torch
            from torch import nn

            class Trainer:
                def __init__(self, net):
                    self.net = net
                    self.l1 = nn.L1Loss()
                    self.logs = {"l1": 0.0}

                def update(self, x):
                    self.loss_l1_poseSeq = self.l1(self.net(x), x)
                    self.loss_l1_poseSeq.backward()
                    self.logs["l1"] += self.loss_l1_poseSeq.data
            """,
            line=13,
            column=28,
            message="`self.loss_l1_poseSeq.data` reads the tensor without autograd's version counter; "
            "`self.loss_l1_poseSeq.detach()` reads the same values and keeps in-place checks",
            fixed="""
            import torch
            from torch import nn

            class Trainer:
                def __init__(self, net):
                    self.net = net
                    self.l1 = nn.L1Loss()
                    self.logs = {"l1": 0.0}

                def update(self, x):
                    self.loss_l1_poseSeq = self.l1(self.net(x), x)
                    self.loss_l1_poseSeq.backward()
                    self.logs["l1"] += self.loss_l1_poseSeq.detach()
            """,
        ),
        Invalid(
            # a gradient penalty's input made a leaf on the same storage
            """
            import torch
            from torch import Tensor

            def gradient_penalty(critic, images: Tensor) -> Tensor:
                interpolated = images.data.requires_grad_()
                scores = critic(interpolated)
                grads = torch.autograd.grad(scores.sum(), interpolated, create_graph=True)[0]
                return ((grads.norm(2, dim=1) - 1) ** 2).mean()
            """,
            line=5,
            column=20,
            message="`images.data` reads the tensor without autograd's version counter; `images.detach()` reads "
            "the same values and keeps in-place checks",
            fixed="""
            import torch
            from torch import Tensor

            def gradient_penalty(critic, images: Tensor) -> Tensor:
                interpolated = images.detach().requires_grad_()
                scores = critic(interpolated)
                grads = torch.autograd.grad(scores.sum(), interpolated, create_graph=True)[0]
                return ((grads.norm(2, dim=1) - 1) ** 2).mean()
            """,
        ),
        Invalid(
            # a beam search's list of zeros, filled by index with slices of the decoder's state
            """
            import torch

            def best_states(decoder, x, n, keep):
                top_h = [0] * n
                out, (h, c) = decoder(x)
                for b in range(n):
                    top_h[b] = h[:, b : b + 1, :]
                for b in range(n):
                    top_h[b] = top_h[b].data.index_select(1, keep)
                return torch.cat(top_h, 1)
            """,
            line=9,
            column=20,
            message="`top_h[b].data` reads the tensor without autograd's version counter; `top_h[b].detach()` reads "
            "the same values and keeps in-place checks",
            fixed="""
            import torch

            def best_states(decoder, x, n, keep):
                top_h = [0] * n
                out, (h, c) = decoder(x)
                for b in range(n):
                    top_h[b] = h[:, b : b + 1, :]
                for b in range(n):
                    top_h[b] = top_h[b].detach().index_select(1, keep)
                return torch.cat(top_h, 1)
            """,
        ),
        Invalid(
            # a spectral norm's power iteration: `torch.mv` takes only tensors, in either place (not
            # `w.data.shape[0]`: nothing shows `w` is a tensor)
            """
            import torch

            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)

            def update_u(module, name):
                u = getattr(module, name + "_u")
                w = getattr(module, name + "_bar")
                height = w.data.shape[0]
                return l2normalize(torch.mv(w.view(height, -1), u.data))
            """,
            line=10,
            column=53,
            message="`u.data` reads the tensor without autograd's version counter; `u.detach()` reads the same values "
            "and keeps in-place checks",
            fixed="""
            import torch

            def l2normalize(v, eps=1e-12):
                return v / (v.norm() + eps)

            def update_u(module, name):
                u = getattr(module, name + "_u")
                w = getattr(module, name + "_bar")
                height = w.data.shape[0]
                return l2normalize(torch.mv(w.view(height, -1), u.detach()))
            """,
        ),
    )

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if node.attr != "data" or not isinstance(node.ctx, ast.Load):
            return
        access = classify(ctx, node)
        if access is None or access.kind != "read":
            return
        recv = receiver_text(ctx, node)
        start, end = data_name_span(ctx, node)
        edit = (Edit(start, end, "detach()"),)
        if (_detached_at_once(ctx, node) or _already_detached(node)) and ctx.source.text[start - 1 : start] == ".":
            # `x.data.detach()` and `x.detach().data` are `x.detach()`, not `x.detach().detach()`
            edit = (Edit(start - 1, end, ""),)
        zero_dim = zero_dim_index_above(ctx, node)
        if zero_dim is not None:
            # `loss.detach()[0]` would still raise IndexError: `.item()` is the fix, and where
            # GG105 reports the index it is that site's one finding.
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter, and "
                f"`{short(ctx.text(zero_dim.subscript), 60)}` indexes a 0-dim tensor: use `{recv}.item()`"
            )
            ctx.report(self.code, node, message, None, superseded_by=(self.superseded_by[0], zero_dim.subscript))
            return
        if _sized_while_zero_dim(ctx, node):
            # `len(loss.data)` of a 0-dim loss raises TypeError, and so would `len(loss.detach())`
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter, and `len({recv}.data)` "
                f"raises TypeError where `{recv}` is 0-dim (as torch's losses are, with `.data` or `.detach()`): "
                f"its one value is `{recv}.item()`"
            )
            ctx.report(self.code, node, message, None)
            return
        if _loss_indexed_at_zero(ctx, node):
            # `style_loss.data[0]` of a criterion's loss whose shape the code does not show: the
            # 0.3-era read of its value; on a 0-dim loss `.detach()[0]` would raise as `.data[0]` does
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter, and `{recv}.data[0]` reads a "
                f"loss's one value, which raises IndexError where the loss is 0-dim (as torch's losses are, with "
                f"`.data` or `.detach()`): use `{recv}.item()`"
            )
            ctx.report(self.code, node, message, None)
            return
        if _element_indexed_at_zero(ctx, node):
            # `t[i][j].data[0]` of a matrix: `.detach()[0]` would raise IndexError as `.data[0]` does
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter, and `{recv}.data[0]` reads an "
                f"element's one value, which raises IndexError where the element is 0-dim (of a matrix, since "
                f"PyTorch 0.4, with `.data` or `.detach()`): use `{recv}.item()`"
            )
            ctx.report(self.code, node, message, None)
            return
        if _own_parameter_in_forward(ctx, node):
            # neither `.data` nor `.detach()`: the parameter itself belongs in the graph
            drop = (Edit(start - 1, end, ""),) if ctx.source.text[start - 1 : start] == "." else None
            message = (
                f"`{recv}.data` in `forward` takes the module's own parameter out of the graph: `{recv}` gets no "
                f"gradient and is never trained (`.detach()` would do the same); use `{recv}`"
            )
            fix = Fix(Applicability.UNSAFE, f"Use `{recv}`", drop) if drop is not None else None
            ctx.report(self.code, node, message, fix)
            return
        if _already_detached(node) and edit[0].content == "":
            # `msk.detach().data`: `.data` of a detached tensor only drops the version counter
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter; `{recv}` is already "
                f"detached: use `{recv}`"
            )
            applicability = Applicability.SAFE if access.safe else Applicability.UNSAFE
            ctx.report(self.code, node, message, Fix(applicability, f"Use `{recv}`", edit))
            return
        if _input_in_layer_function(ctx, node):
            message = (
                f"`{recv}.data` in `{ctx.function.name}`, which a module runs as one of its layers, takes `{recv}` "
                f"out of the graph: what computed it gets no gradient through this use (`.detach()` would do the "
                f"same); use `{recv}` where gradients should reach it, `{recv}.detach()` where the cut is meant"
            )
            ctx.report(self.code, node, message, None)
            return
        if access.safe:
            fix = Fix(Applicability.SAFE, f"Use `{recv}.detach()`", edit)
            message = (
                f"`{recv}.data` reads the tensor without autograd's version counter; "
                f"`{recv}.detach()` reads the same values and keeps in-place checks"
            )
        elif _input_or_state_in_forward(ctx, node):
            # what `.detach()` changes is not the question here: whether the graph should be cut
            fix = None
            message = (
                f"`{recv}.data` in `forward` takes `{recv}` out of the graph: what computed it gets no gradient "
                f"through this use (`.detach()` would do the same); use `{recv}` where gradients should reach it, "
                f"`{recv}.detach()` where the cut is meant"
            )
        else:
            fix = Fix(
                Applicability.UNSAFE,
                f"Use `{recv}.detach()` (the value escapes: an in-place change to it while a graph still needs "
                "the old values then raises instead of silently corrupting gradients)",
                edit,
            )
            message = (
                f"`{recv}.data` escapes here: it shares memory with `{recv}` but not its version counter, "
                "so an in-place change to it while a backward graph still needs the old values goes unnoticed and "
                "gives wrong gradients; use `.detach()`"
            )
        ctx.report(self.code, node, message, fix)


def _sized_while_zero_dim(ctx, node: ast.Attribute) -> bool:
    """``len(loss.data)`` of a value the model knows to be 0-dim (a loss a torch criterion
    reduced): ``len()`` of a 0-dim tensor raises, through ``.data`` or ``.detach()`` alike."""
    parent = ctx.parent(node)
    if not (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id == "len"
        and parent.args == [node]
        and ctx.imports.qualified_name(parent.func) is None
    ):
        return False
    value = ctx.model.value(node.value)
    return value.kind is Kind.TENSOR and value.has(Role.SCALAR) and not value.weak


def _read_into(ctx, node: ast.Attribute) -> tuple:
    """(the `.data` read, or the item of it indexed: ``x.data[mask]``; what it stands in)."""
    operand: ast.AST = node
    parent = ctx.parent(node)
    while isinstance(parent, ast.Subscript) and parent.value is operand:
        operand, parent = parent, ctx.parent(parent)
    return operand, parent


def _computed_with(ctx, operand: ast.AST, parent: ast.AST) -> bool:
    """Whether ``operand`` is computed with where it stands: an operand of arithmetic, or a
    positional argument of a torch function."""
    return isinstance(parent, ast.BinOp) or (
        isinstance(parent, ast.Call)
        and operand in parent.args
        and (ctx.imports.qualified_name(parent.func) or "").startswith("torch.")
    )


def _input_or_state_in_forward(ctx, node: ast.Attribute) -> bool:
    """``s_prev = s_prev.data[mask]`` or ``self.a_prev.data[mask] * w`` in a module's ``forward``,
    of one of its inputs or of a tensor the module keeps that is no parameter, bound to a name or
    computed with by arithmetic or a torch function: the value it goes on into is cut from the
    graph there, whether meant or not. (Not one handed to another function, which may take it to
    numpy: `tensor2np(in0.data)`.)"""
    function = ctx.function
    receiver = node.value
    operand, parent = _read_into(ctx, node)
    if not (
        (
            isinstance(parent, ast.Assign)
            and parent.value is operand
            and all(isinstance(t, ast.Name) for t in parent.targets)
        )
        or _computed_with(ctx, operand, parent)
    ):
        return False
    if not (
        isinstance(function, ast.FunctionDef)
        and function.name == "forward"
        and ctx.method_class is not None
        and function.args.args[:1]
        and function.args.args[0].arg == "self"  # a module's, not an autograd Function's `forward(ctx, ...)`
    ):
        return False
    if isinstance(receiver, ast.Name):
        return receiver.id in {a.arg for a in parameters(function)} - {"self"}
    return (
        isinstance(receiver, ast.Attribute)
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == "self"
        and ctx.model.value(receiver).kind in (Kind.TENSOR, Kind.UNKNOWN)
        and not ctx.model.value(receiver).has(Role.PARAM)
    )


def _input_in_layer_function(ctx, node: ast.Attribute) -> bool:
    """``torch.cat([out.data, pads], 1)`` in a function a module runs as a layer (see
    ``_layer_function``), ``out`` computed from the function's input: what the layer hands on is
    cut from the graph there, whether meant or not."""
    function = ctx.function
    receiver = node.value
    if not (isinstance(function, ast.FunctionDef) and isinstance(receiver, ast.Name)):
        return False
    operand, parent = _read_into(ctx, node)
    if isinstance(parent, (ast.List, ast.Tuple)):
        operand, parent = parent, ctx.parent(parent)
    if not _computed_with(ctx, operand, parent):
        return False
    if not _layer_function(ctx, function):
        return False
    uses = ctx.model.uses(function)
    return any(receiver.id in uses.derived(argument.arg) for argument in parameters(function))


def _layer_function(ctx, function: ast.FunctionDef) -> bool:
    """Whether a module-level function of the file is handed to ``functools.partial`` inside a
    module class (``downsample = partial(downsample_basic_block, planes=..., stride=...)`` of a
    3D ResNet): the module runs it as one of its layers."""
    if function not in ctx.tree.body:
        return False
    for cls in ctx.tree.body:
        if not (isinstance(cls, ast.ClassDef) and ctx.model.is_module_class(cls)):
            continue
        for call in ast.walk(cls):
            if (
                isinstance(call, ast.Call)
                and call.args
                and isinstance(call.args[0], ast.Name)
                and call.args[0].id == function.name
                and ctx.imports.qualified_name(call.func) == "functools.partial"
            ):
                return True
    return False


def _own_parameter_in_forward(ctx, node: ast.Attribute) -> bool:
    """``torch.matmul(X, self.weight.data)`` in a module's ``forward``, ``self.weight`` one of
    its ``nn.Parameter``s computed with as it is (an operand or an argument), and never read
    in ``forward`` without ``.data``: read through ``.data``, it is cut out of the graph."""
    function = ctx.function
    receiver = node.value
    if not (
        isinstance(function, ast.FunctionDef)
        and function.name == "forward"
        and ctx.method_class is not None
        and isinstance(receiver, ast.Attribute)
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == "self"
    ):
        return False
    operand: ast.AST = node
    parent = ctx.parent(node)
    while isinstance(parent, ast.Subscript) and parent.value is operand:
        operand, parent = parent, ctx.parent(parent)  # `self.pos_embedding.data[:, :n, :]`: a slice of it
    if not (isinstance(parent, ast.BinOp) or (isinstance(parent, ast.Call) and operand in parent.args)):
        return False  # computed with as it is (not `self.mask.data.cpu().numpy()`, a mask read for indexes)
    if not ctx.model.value(receiver).has(Role.PARAM):
        return False
    # every use of the parameter in `forward` is through `.data` (not `scale = self.w.data.norm()`
    # beside `x @ self.w`)
    name = receiver.attr
    for sub in ctx.model.own_nodes(function):
        if (
            isinstance(sub, ast.Attribute)
            and sub.attr == name
            and isinstance(sub.value, ast.Name)
            and sub.value.id == "self"
            and not (isinstance(ctx.parent(sub), ast.Attribute) and ctx.parent(sub).attr == "data")
        ):
            return False
    return True
