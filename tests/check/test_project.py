"""Facts across the files of one run: classes, and where other files call a function."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.check.analysis.imports import ImportMap
from gradguard.check.analysis.project import build_index, loads_weights, module_name, using
from gradguard.check.engine.context import FileContext
from gradguard.check.source import SourceText
from gradguard.cli import main

MODEL = """
    import torch.nn as nn

    class Base(nn.Module):
        pass

    class Net(Base):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(self.fc(x))

    class Plain:
        pass
"""

TRAIN = """
    import torch
    import torchvision
    from model import Net

    digits = Net()
    test_set = torchvision.datasets.MNIST("data", train=False)
    test_loader = torch.utils.data.DataLoader(test_set)
    for x, y in test_loader:
        out = digits(x)
"""


def write(folder, name, code):
    path = folder / name
    path.write_text(textwrap.dedent(code))
    return path


def findings(capsys, *paths):
    main(["check", "--no-cache", "--select", "ALL", *map(str, paths)])
    return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]


def test_module_names_follow_packages(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    assert module_name(str(tmp_path / "pkg" / "sub" / "mod.py")) == "pkg.sub.mod"
    assert module_name(str(tmp_path / "script.py")) == "script"


def test_index_knows_module_subclasses_across_the_file_and_their_layers(tmp_path):
    model = write(tmp_path, "model.py", MODEL)
    index = build_index([str(model)])
    assert index.classes["model.Net"].module and index.classes["model.Base"].module
    assert not index.classes["model.Plain"].module
    assert index.classes["model.Net"].layers == {"Dropout"}


def test_nested_layers_follow_the_import_where_two_classes_share_a_name(tmp_path):
    # `CAM` in cam.py holds dropout, another `CAM` in cams.py does not: the wrapper's file
    # imports the first, so it holds dropout; a file importing neither knows nothing.
    (tmp_path / "models").mkdir()
    cam = write(
        tmp_path / "models",
        "cam.py",
        "import torch.nn as nn\nclass CAM(nn.Module):\n    def __init__(self):\n        self.d = nn.Dropout2d(0.5)\n",
    )
    cams = write(
        tmp_path / "models",
        "cams.py",
        "import torch.nn as nn\nclass CAM(nn.Module):\n    def __init__(self):\n        self.c = nn.Conv2d(1, 1, 1)\n",
    )
    wrapper = (
        "import torch.nn as nn\n{imp}\nclass Generator(nn.Module):\n    def __init__(self):\n        self.cam = CAM()\n"
    )
    one = write(tmp_path / "models", "gen.py", wrapper.format(imp="from models.cam import CAM"))
    other = write(tmp_path / "models", "gen2.py", wrapper.format(imp="from models.cams import CAM"))
    neither = write(tmp_path / "models", "gen3.py", wrapper.format(imp="CAM = None"))
    index = build_index([str(p) for p in (cam, cams, one, other, neither)])
    assert index.classes["gen.Generator"].layers == {"Dropout2d"}
    assert index.classes["gen2.Generator"].layers == frozenset()
    assert index.classes["gen3.Generator"].layers == frozenset()


def test_index_records_whether_other_files_call_a_function_under_no_grad(tmp_path):
    utils = write(tmp_path, "utils.py", "import torch\n\ndef evaluate(model, data):\n    return model(data)\n")
    main_py = write(
        tmp_path,
        "main.py",
        """
        import torch
        from utils import evaluate

        with torch.no_grad():
            evaluate(net, batch)

        @torch.no_grad()
        def report():
            return evaluate(net, batch)

        def train():
            evaluate(net, batch)
        """,
    )
    index = build_index([str(utils), str(main_py)])
    assert sorted(index.calls["utils.evaluate"]) == [False, True, True]


_SAMPLER = """
    import torch
    from utils import evaluate

    class Trainer:
        def run(self):
            with torch.no_grad():
                self.sample(1)

        def sample(self, n):
            for _ in range(n):
                out = evaluate(net, batch)  # <- the call
            return out

    if __name__ == "__main__":
        trainer = Trainer()
        with torch.no_grad():
            trainer.sample(2)
"""


def test_a_call_in_a_method_every_caller_runs_without_grad_runs_without_grad(tmp_path):
    utils = write(tmp_path, "utils.py", "import torch\n\ndef evaluate(model, data):\n    return model(data)\n")
    main_py = write(tmp_path, "main.py", _SAMPLER)
    index = build_index([str(utils), str(main_py)])
    assert index.calls["utils.evaluate"] == [True]


@pytest.mark.parametrize(
    "change",
    [
        (
            "    if __name__",
            "    trainer = Trainer()\n    trainer.sample(3)\n\n    if __name__",
        ),  # one caller with grad on
        (
            "            with torch.no_grad():\n                self.sample(1)",
            "            pass",
        ),  # no caller in the file
    ],
)
def test_twin_a_caller_with_grad_on_or_none_at_all_leaves_it_with_grad_on(tmp_path, change):
    utils = write(tmp_path, "utils.py", "import torch\n\ndef evaluate(model, data):\n    return model(data)\n")
    code = _SAMPLER.replace(*change)
    if "pass" in change[1]:
        code = code.replace("        with torch.no_grad():\n            trainer.sample(2)", "        pass")
    assert code != _SAMPLER
    main_py = write(tmp_path, "main.py", code)
    index = build_index([str(utils), str(main_py)])
    assert index.calls["utils.evaluate"] == [False]


_DERIVATIVES = """
    import torch


    def grads(inputs, outputs):
        columns = [
            torch.autograd.grad(outputs[:, i], inputs, torch.ones_like(outputs[:, i]), create_graph=True)[0]
            for i in range(outputs.shape[1])
        ]
        return torch.cat(columns, dim=1)


    def attack(model, images, y, criterion):
        images = images.clone().requires_grad_(True)
        loss = criterion(model(images), y)
        loss.backward()
        return images.grad.sign()
"""

_SIREN = """
    import torch
    from derivatives import grads, attack


    def fit(model, optimizer, data, times, epochs):
        for epoch in range(epochs):
            loss = (model(data) - data).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model.eval()
            probe = torch.tensor(times, requires_grad=True)
            out = model(probe)
            {use}
"""


def test_an_output_another_file_differentiates_is_used(tmp_path, capsys):
    helpers = write(tmp_path, "derivatives.py", _DERIVATIVES)
    train = write(tmp_path, "train.py", _SIREN.format(use="print(grads(probe, out).norm().item())"))
    assert not any("GG201" in line for line in findings(capsys, helpers, train))


def test_twin_an_output_whose_indices_another_file_only_compares_with_is_only_read(tmp_path, capsys):
    helpers = write(tmp_path, "derivatives.py", _DERIVATIVES)
    use = "_, label = torch.topk(out, 1)\n            print(attack(model, probe, y=label[0], criterion=None).sum().item())"
    train = write(tmp_path, "train.py", _SIREN.format(use=use))
    assert any("train.py:14" in line and "GG201" in line for line in findings(capsys, helpers, train))


def test_a_model_imported_from_another_file_is_a_model(tmp_path, capsys):
    model = write(tmp_path, "model.py", MODEL)
    train = write(tmp_path, "train.py", TRAIN)
    found = findings(capsys, model, train)
    assert any("train.py:10" in line and "GG201" in line for line in found), found
    # Alone, the script cannot know what `Net` is: `digits(x)` is not known to run a model.
    assert not any("GG201" in line for line in findings(capsys, train))


def test_twin_a_plain_class_imported_from_another_file_is_not_a_model(tmp_path, capsys):
    model = write(tmp_path, "model.py", MODEL)
    train = write(tmp_path, "train.py", TRAIN.replace("from model import Net", "from model import Plain as Net"))
    assert not any("GG201" in line for line in findings(capsys, model, train))


PREPROCESS = """
    import torch.nn as nn
    from torchvision import transforms

    class Preprocess(nn.Module):
        def __init__(self):
            super().__init__()
            self.preprocess = transforms.Compose([transforms.Resize((256, 256)), transforms.ToTensor()])

        def forward(self, image):
            return self.preprocess(image)
"""

INFER = """
    import torch
    from preprocess import Preprocess

    model = torch.load("model.pt")
    model.eval()
    transform = Preprocess()
    x = transform(image).unsqueeze(0)
    with torch.no_grad():
        print(model(x).argmax(1))
"""


def test_a_module_of_another_file_holding_only_image_transforms_runs_no_model(tmp_path, capsys):
    preprocess = write(tmp_path, "preprocess.py", PREPROCESS)
    infer = write(tmp_path, "infer.py", INFER)
    assert not any("GG201" in line for line in findings(capsys, preprocess, infer))


def test_twin_a_module_of_another_file_with_a_layer_beside_its_transforms_is_a_model(tmp_path, capsys):
    with_layer = PREPROCESS.replace(
        "transforms.ToTensor()])", "transforms.ToTensor()])\n            self.project = nn.Conv2d(3, 3, 1)"
    ).replace("return self.preprocess(image)", "return self.project(self.preprocess(image))")
    preprocess = write(tmp_path, "preprocess.py", with_layer)
    infer = write(tmp_path, "infer.py", INFER)
    found = findings(capsys, preprocess, infer)
    assert any("infer.py:8" in line and "GG201" in line for line in found), found


BACKBONE_MODEL = """
    import torch.nn as nn
    import torchvision.models as models

    class Detector(nn.Module):
        def __init__(self):
            super().__init__()
            resnet = models.resnet50(pretrained=True)
            self.features = nn.Sequential(*list(resnet.children())[:-3])

        def forward(self, x):
            return self.features(x)
"""

INFER_BACKBONE = """
    import torch
    from detector import Detector

    def infer(images):
        model = Detector()
        with torch.no_grad():
            for image in images:
                print(model(image).mean())
"""


def test_a_class_of_another_file_keeping_a_torchvision_resnet_holds_batch_norm(tmp_path, capsys):
    detector = write(tmp_path, "detector.py", BACKBONE_MODEL)
    infer = write(tmp_path, "infer.py", INFER_BACKBONE)
    found = findings(capsys, detector, infer)
    assert any("infer.py:9" in line and "GG209" in line for line in found), found


def test_twin_a_class_of_another_file_switching_its_backbone_to_eval_is_quiet(tmp_path, capsys):
    switched = BACKBONE_MODEL.replace("models.resnet50(pretrained=True)", "models.resnet50(pretrained=True).eval()")
    detector = write(tmp_path, "detector.py", switched)
    infer = write(tmp_path, "infer.py", INFER_BACKBONE)
    assert not any("GG209" in line for line in findings(capsys, detector, infer))


LOAD_HELPER = """
    import torch

    def load_model(filename, model, optimizer):
        state = torch.load(filename)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])

    def save_model(filename, model, optimizer):
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, filename)
"""

GENERATE = """
    import torch
    import torch.nn as nn
    from PIL import Image
    from utils import load_model, save_model

    if __name__ == "__main__":
        gen = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        opt = torch.optim.Adam(gen.parameters())
        load_model("gen.pth", gen, opt)
        image = gen(torch.randn(1, 8))[0]
        Image.fromarray(image.detach().numpy()).show()
"""


def test_a_helper_of_another_file_loading_the_model_it_is_handed_gives_it_weights(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", LOAD_HELPER)
    generate = write(tmp_path, "generate.py", GENERATE)
    found = findings(capsys, utils, generate)
    assert any("generate.py:11" in line and "GG201" in line for line in found), found


def test_twin_a_helper_of_another_file_saving_the_model_gives_it_no_weights(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", LOAD_HELPER)
    generate = write(tmp_path, "generate.py", GENERATE.replace('load_model("gen.pth"', 'save_model("gen.pth"'))
    assert not any("GG201" in line for line in findings(capsys, utils, generate))


RESNET_INSTANCE = """
    import torchvision.models as models

    mnist_resnet18 = models.resnet18()
"""

RUN_INSTANCE = """
    import torch
    from torch import nn, optim
    from nets import mnist_resnet18

    model = mnist_resnet18.to("cuda")
    opt = optim.Adam(model.parameters())
    for epoch in range(3):
        for x, y in train_loader:
            opt.zero_grad()
            nn.CrossEntropyLoss()(model(x), y).backward()
            opt.step()
        with torch.no_grad():
            for x, y in test_loader:
                print(model(x).argmax(1))
"""


def test_a_torchvision_model_another_file_builds_at_module_level_holds_batch_norm(tmp_path, capsys):
    nets = write(tmp_path, "nets.py", RESNET_INSTANCE)
    run = write(tmp_path, "run.py", RUN_INSTANCE)
    found = findings(capsys, nets, run)
    assert any("run.py:15" in line and "GG209" in line for line in found), found


def test_twin_the_torchvision_model_switched_to_eval_before_the_test_loop_is_quiet(tmp_path, capsys):
    nets = write(tmp_path, "nets.py", RESNET_INSTANCE)
    run = write(
        tmp_path,
        "run.py",
        RUN_INSTANCE.replace("        with torch.no_grad():", "        model.eval()\n        with torch.no_grad():"),
    )
    assert not any("GG209" in line for line in findings(capsys, nets, run))


EVALUATE = """
    import torch

    def evaluate(model, loader):
        model.eval()
        total = 0
        for x, y in loader:
            total += (model(x).argmax(1) == y).sum().item()
        return total
"""


def test_function_called_from_another_file_with_grad_is_flagged(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", EVALUATE)
    main_py = write(tmp_path, "main.py", "import torch\nfrom utils import evaluate\n\nevaluate(net, loader)\n")
    assert any("utils.py" in line and "GG201" in line for line in findings(capsys, utils, main_py))


def test_twin_function_called_from_another_file_under_no_grad_is_not_flagged(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", EVALUATE)
    main_py = write(
        tmp_path,
        "main.py",
        "import torch\nfrom utils import evaluate\n\nwith torch.no_grad():\n    evaluate(net, loader)\n",
    )
    assert not any("GG201" in line for line in findings(capsys, utils, main_py))


def test_cached_result_follows_a_change_in_another_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "[tool.gradguard]\n")
    write(tmp_path, "model.py", MODEL)
    write(tmp_path, "train.py", TRAIN)

    def run():
        main(["check", "--select", "GG201", "model.py", "train.py"])
        return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]

    assert run() and run()  # the second run is served from the cache
    write(tmp_path, "model.py", MODEL.replace("class Net(Base)", "class Net(Plain)"))
    assert run() == []  # train.py did not change, but what `Net` is did


def test_index_skips_what_is_not_a_regular_file(tmp_path):
    import os

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)  # reading it would block for ever
    model = write(tmp_path, "model.py", MODEL)
    index = build_index([str(fifo), str(model)])
    assert "model.Net" in index.classes and index.module_of(str(fifo)) is None


MODELS_FROM_STAR = """
    from layers import *

    def init_biases(conv, na):
        b = conv.bias.view(na, -1)
        b.data[:, 4] += -4.5
"""


def test_a_file_taking_torch_from_a_project_modules_star_import_is_checked(tmp_path, capsys):
    layers = write(tmp_path, "layers.py", "import torch\nimport torch.nn as nn\n")
    models = write(tmp_path, "models.py", MODELS_FROM_STAR)
    assert any("models.py" in line and "GG102" in line for line in findings(capsys, layers, models))


def test_twin_a_file_star_importing_a_module_without_torch_is_skipped(tmp_path, capsys):
    layers = write(tmp_path, "layers.py", "import numpy as np\n")
    models = write(tmp_path, "models.py", MODELS_FROM_STAR)
    assert findings(capsys, layers, models) == []


def test_torch_through_star_imports_follows_a_chain_and_the_cache_follows_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "[tool.gradguard]\n")
    write(tmp_path, "base.py", "import torch\n")
    write(tmp_path, "layers.py", "from base import *\n")
    write(tmp_path, "models.py", MODELS_FROM_STAR)

    def run():
        main(["check", "--select", "GG102", "base.py", "layers.py", "models.py"])
        return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]

    assert run() and run()  # the second run is served from the cache
    write(tmp_path, "base.py", "import numpy\n")
    assert run() == []  # models.py did not change, but where its names come from did


def test_a_file_checked_alone_takes_torch_from_the_star_imported_file_next_to_it(tmp_path, capsys):
    # `gradguard check models.py`, or pre-commit passing only the changed file: layers.py is
    # not in the run, but it is what `from layers import *` reads.
    write(tmp_path, "layers.py", "import torch\nimport torch.nn as nn\n")
    models = write(tmp_path, "models.py", MODELS_FROM_STAR)
    assert any("models.py" in line and "GG102" in line for line in findings(capsys, models))


def test_twin_a_file_checked_alone_star_importing_a_file_without_torch_is_skipped(tmp_path, capsys):
    write(tmp_path, "layers.py", "import numpy as np\n")
    models = write(tmp_path, "models.py", MODELS_FROM_STAR)
    assert findings(capsys, models) == []
    write(tmp_path, "other.py", "import torch\n")  # torch elsewhere in the folder is not enough
    assert findings(capsys, models) == []


def test_twin_a_star_import_of_a_module_not_on_disk_gives_no_torch(tmp_path, capsys):
    models = write(tmp_path, "models.py", MODELS_FROM_STAR)  # `layers` is an installed package, or missing
    assert findings(capsys, models) == []


def test_a_package_module_checked_alone_follows_relative_and_absolute_star_imports(tmp_path, capsys):
    (tmp_path / "pkg" / "nets").mkdir(parents=True)
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/nets/__init__.py", "")
    write(tmp_path, "pkg/base.py", "import torch\n")
    write(tmp_path, "pkg/nets/layers.py", "from ..base import *\n")
    relative = write(tmp_path, "pkg/nets/models.py", MODELS_FROM_STAR.replace("from layers", "from .layers"))
    absolute = write(tmp_path, "pkg/nets/heads.py", MODELS_FROM_STAR.replace("from layers", "from pkg.nets.layers"))
    assert any("models.py" in line and "GG102" in line for line in findings(capsys, relative))
    assert any("heads.py" in line and "GG102" in line for line in findings(capsys, absolute))


def test_module_file_resolves_like_import_from_the_importers_project(tmp_path):
    from gradguard.check.analysis.project import module_file

    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/sub/__init__.py", "")
    importer = str(write(tmp_path, "pkg/sub/mod.py", ""))
    write(tmp_path, "pkg/util.py", "")
    write(tmp_path, "pkg/sub/near.py", "")
    assert module_file(importer, "near") == str(tmp_path / "pkg" / "sub" / "near.py")  # next to it
    assert module_file(importer, "pkg.util") == str(tmp_path / "pkg" / "util.py")  # from the top package's folder
    assert module_file(importer, "util", 2) == str(tmp_path / "pkg" / "util.py")  # from ..util
    assert module_file(importer, "", 1) == str(tmp_path / "pkg" / "sub" / "__init__.py")  # from . import *
    assert module_file(importer, "sub", 2) == str(tmp_path / "pkg" / "sub" / "__init__.py")
    assert module_file(importer, "missing") is None


def test_a_file_checked_alone_is_checked_again_when_its_star_imported_file_changes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "[tool.gradguard]\n")
    write(tmp_path, "layers.py", "import torch\n")
    write(tmp_path, "models.py", MODELS_FROM_STAR)

    def run():
        main(["check", "--select", "GG102", "models.py"])
        return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]

    assert run() and run()  # the second run is served from the cache
    write(tmp_path, "layers.py", "import numpy\n")
    assert run() == []  # models.py did not change, but where its names come from did
    write(tmp_path, "layers.py", "import torch.nn as nn\n")
    assert run()


GRADCAM_UTILS = """
    import numpy as np


    def activations_of(outputs):
        return [a.cpu().data.numpy() for a in outputs]
"""


def test_a_file_without_torch_imported_by_a_torch_file_of_the_run_is_checked(tmp_path, capsys):
    # `from utils import GradCAM` in the script: utils.py runs on the script's tensors.
    utils = write(tmp_path, "utils.py", GRADCAM_UTILS)
    main_py = write(tmp_path, "main.py", "import torch\nfrom utils import activations_of\n")
    assert any("utils.py" in line and "GG101" in line for line in findings(capsys, utils, main_py))


def test_a_module_imported_as_a_name_of_its_package_is_checked(tmp_path, capsys):
    package = tmp_path / "pkg"
    package.mkdir()
    write(package, "__init__.py", "")
    utils = write(package, "utils.py", GRADCAM_UTILS)
    main_py = write(package, "main.py", "import torch\nfrom . import utils\n")
    assert any("utils.py" in line and "GG101" in line for line in findings(capsys, utils, main_py))


def test_a_module_a_package_hands_on_to_a_torch_file_is_checked(tmp_path, capsys):
    # `from utils import save` in the trainer, `utils/__init__.py` doing `from .util import *`
    package = tmp_path / "utils"
    package.mkdir()
    init = write(package, "__init__.py", "from .util import *\n")
    utils = write(package, "util.py", GRADCAM_UTILS)
    main_py = write(tmp_path, "main.py", "import torch\nfrom utils import activations_of\n")
    assert any("util.py" in line and "GG101" in line for line in findings(capsys, init, utils, main_py))


def test_twin_a_module_of_a_package_only_files_without_torch_import_is_skipped(tmp_path, capsys):
    package = tmp_path / "utils"
    package.mkdir()
    init = write(package, "__init__.py", "from .util import *\n")
    utils = write(package, "util.py", GRADCAM_UTILS)
    main_py = write(tmp_path, "main.py", "import numpy\nfrom utils import activations_of\n")
    other = write(tmp_path, "other.py", "import torch\n")
    assert findings(capsys, init, utils, main_py, other) == []


def test_twin_a_file_without_torch_imported_only_by_files_without_torch_is_skipped(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", GRADCAM_UTILS)
    main_py = write(tmp_path, "main.py", "import numpy\nfrom utils import activations_of\n")
    other = write(tmp_path, "other.py", "import torch\n")
    assert findings(capsys, utils, main_py, other) == []


META_TRAIN = """
    import torch
    from meta import Meta

    maml = Meta()
    maml.load_state_dict(torch.load("maml.pt"))
    tmp = filter(lambda x: x.requires_grad, maml.parameters())
    for step, (x_spt, y_spt, x_qry, y_qry) in enumerate(db):
        accs = maml(x_spt, y_spt, x_qry, y_qry)
        if step % 30 == 0:
            print("step:", step, "training acc:", accs)
"""

META = """
    import torch
    from torch import nn, optim

    class Meta(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 2)
            self.meta_optim = optim.Adam(self.net.parameters())

        def forward(self, x_spt, y_spt, x_qry, y_qry):
            loss_q = nn.functional.cross_entropy(self.net(x_qry), y_qry)
            self.meta_optim.zero_grad()
            loss_q.backward()
            self.meta_optim.step()
            return loss_q.item()
"""


def test_a_model_whose_class_in_another_file_trains_in_forward_is_not_evaluated(tmp_path, capsys):
    meta = write(tmp_path, "meta.py", META)
    train = write(tmp_path, "train.py", META_TRAIN)
    assert not any("GG201" in line for line in findings(capsys, meta, train))


def test_twin_a_model_whose_class_in_another_file_only_computes_is_evaluated(tmp_path, capsys):
    plain = META.replace("loss_q.backward()", "pass").replace("self.meta_optim.step()", "pass")
    meta = write(tmp_path, "meta.py", plain)
    train = write(tmp_path, "train.py", META_TRAIN)
    assert any("train.py" in line and "GG201" in line for line in findings(capsys, meta, train))


SUBCLASS_SCRIPT = """
    import torch
    from seq2seq import EncoderDecoder

    class Transformer(EncoderDecoder):
        pass

    model_transf = Transformer()
    model_transf.eval()
    print(model_transf(x).argmax(-1))
"""


def test_a_subclass_of_a_module_class_of_another_file_is_a_model(tmp_path, capsys):
    seq2seq = write(tmp_path, "seq2seq.py", "import torch.nn as nn\n\nclass EncoderDecoder(nn.Module):\n    pass\n")
    script = write(tmp_path, "script.py", SUBCLASS_SCRIPT)
    assert any("script.py" in line and "GG201" in line for line in findings(capsys, seq2seq, script))


def test_twin_a_subclass_of_a_plain_class_of_another_file_is_not_a_model(tmp_path, capsys):
    seq2seq = write(tmp_path, "seq2seq.py", "import torch\n\nclass EncoderDecoder:\n    pass\n")
    script = write(tmp_path, "script.py", SUBCLASS_SCRIPT)
    assert not any("GG201" in line for line in findings(capsys, seq2seq, script))


TRANSLATE = """
    import torch
    from translator import Translator

    translator = Translator(model)
    translator.eval()
    for example in test_loader:
        pred_seq = translator.translate_sentence(example.src)
        print(pred_seq.tolist())
"""

TRANSLATOR = """
    import torch
    import torch.nn as nn

    class Translator(nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def translate_sentence(self, src_seq):
            %s
"""


def test_a_method_of_another_file_s_model_that_turns_grad_off_inside_is_quiet(tmp_path, capsys):
    body = "with torch.no_grad():\n                return self.model(src_seq).argmax(-1)"
    translator = write(tmp_path, "translator.py", TRANSLATOR % body)
    script = write(tmp_path, "translate.py", TRANSLATE)
    assert not any("GG201" in line for line in findings(capsys, translator, script))


def test_twin_a_method_of_another_file_s_model_named_for_running_it_is_evaluated(tmp_path, capsys):
    translator = write(tmp_path, "translator.py", TRANSLATOR % "return self.model(src_seq).argmax(-1)")
    script = write(tmp_path, "translate.py", TRANSLATE)
    assert any("translate.py" in line and "GG201" in line for line in findings(capsys, translator, script))


GAN_CLASS = """
    import torch
    import torch.nn as nn

    class GAN(object):
        def __init__(self, args):
            self.G = nn.Linear(8, 8)

        def train(self):
            for epoch in range(3):
                with torch.no_grad():
                    self.visualize_results(epoch + 1)

        def visualize_results(self, epoch):
            self.G.eval()
            samples = self.G(torch.rand(4, 8))
            print(samples.detach().numpy())
"""


def test_a_method_called_from_another_file_on_an_instance_it_makes_has_that_caller(tmp_path, capsys):
    gan = write(tmp_path, "GAN.py", GAN_CLASS)
    main_py = write(
        tmp_path,
        "main.py",
        "from GAN import GAN\n\ndef main():\n    gan = GAN(args)\n    gan.train()\n    gan.visualize_results(3)\n",
    )
    assert any("GAN.py" in line and "GG201" in line for line in findings(capsys, gan, main_py))


def test_twin_a_method_called_from_another_file_under_no_grad_keeps_its_callers_mode(tmp_path, capsys):
    gan = write(tmp_path, "GAN.py", GAN_CLASS)
    main_py = write(
        tmp_path,
        "main.py",
        "import torch\nfrom GAN import GAN\n\ndef main():\n    gan = GAN(args)\n    gan.train()\n"
        "    with torch.no_grad():\n        gan.visualize_results(3)\n",
    )
    assert not any("GG201" in line for line in findings(capsys, gan, main_py))


def test_a_method_called_under_no_grad_on_an_instance_a_class_method_builds_keeps_its_callers_mode(tmp_path, capsys):
    # `GAN.from_pretrained(path)` builds the instance whose method runs under `no_grad` there
    gan = write(tmp_path, "GAN.py", GAN_CLASS)
    main_py = write(
        tmp_path,
        "main.py",
        "import torch\nfrom GAN import GAN\n\ndef main():\n    gan = GAN.from_pretrained(path)\n"
        "    with torch.no_grad():\n        gan.visualize_results(3)\n",
    )
    assert not any("GG201" in line for line in findings(capsys, gan, main_py))


def test_twin_a_method_called_with_grad_on_an_instance_a_class_method_builds_is_flagged(tmp_path, capsys):
    gan = write(tmp_path, "GAN.py", GAN_CLASS)
    main_py = write(
        tmp_path,
        "main.py",
        "from GAN import GAN\n\ndef main():\n    gan = GAN.from_pretrained(path)\n    gan.visualize_results(3)\n",
    )
    assert any("GAN.py" in line and "GG201" in line for line in findings(capsys, gan, main_py))


def test_a_method_called_under_no_grad_on_an_instance_made_through_its_module_keeps_its_callers_mode(tmp_path, capsys):
    # `import GAN`, then `gan = GAN.GAN(args)`: the class spelt through its module
    gan = write(tmp_path, "GAN.py", GAN_CLASS)
    main_py = write(
        tmp_path,
        "main.py",
        "import torch\nimport GAN\n\ndef main():\n    gan = GAN.GAN(args)\n"
        "    with torch.no_grad():\n        gan.visualize_results(3)\n",
    )
    assert not any("GG201" in line for line in findings(capsys, gan, main_py))


LM_CLASS = """
    import torch
    import torch.nn as nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.out = nn.Linear(8, 8)

        def forward(self, x):
            return torch.log_softmax(self.out(x), dim=-1)

        def sample(self, x):
            log_prob = self.forward(x)
            return torch.multinomial(torch.exp(log_prob), 1)
"""


def test_a_method_only_another_file_calls_under_no_grad_through_its_module_is_quiet(tmp_path, capsys):
    # `import lm`, `model = lm.LM()`, `model.sample(x)` under `no_grad`: its only caller
    lm = write(tmp_path, "lm.py", LM_CLASS)
    main_py = write(
        tmp_path,
        "run_lm.py",
        "import torch\nimport lm\n\nmodel = lm.LM()\nwith torch.no_grad():\n    samp = model.sample(torch.rand(3, 8))\n",
    )
    assert not any("GG201" in line for line in findings(capsys, lm, main_py))


def test_twin_a_method_called_with_grad_on_an_instance_made_through_its_module_is_flagged(tmp_path, capsys):
    gan = write(tmp_path, "GAN.py", GAN_CLASS)
    main_py = write(
        tmp_path, "main.py", "import GAN as g\n\ndef main():\n    gan = g.GAN(args)\n    gan.visualize_results(3)\n"
    )
    assert any("GAN.py" in line and "GG201" in line for line in findings(capsys, gan, main_py))


def test_a_module_level_model_of_an_imported_class_is_a_model_where_another_file_imports_it(tmp_path, capsys):
    # `Lstm_Net = LstmNet(...)` in validation.py, its class from model.py; predict.py imports
    # the instance and runs it for a forecast it only reads
    model_py = write(
        tmp_path,
        "model.py",
        "import torch.nn as nn\n\nclass LstmNet(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(4, 1)\n\n    def forward(self, x):\n        return self.fc(x)\n",
    )
    validation = write(tmp_path, "validation.py", "from model import LstmNet\n\nLstm_Net = LstmNet()\n")
    predict = write(
        tmp_path,
        "predict.py",
        "import torch\nfrom validation import Lstm_Net\n\nLstm_Net.load_state_dict(torch.load('m.pt'))\n\n"
        "def predict_main(x):\n    output = Lstm_Net(x)\n    return output.detach().cpu().numpy()\n",
    )
    assert any("predict.py:7" in line and "GG201" in line for line in findings(capsys, model_py, validation, predict))


def test_twin_a_module_level_instance_of_an_imported_plain_class_is_no_model(tmp_path, capsys):
    model_py = write(
        tmp_path,
        "model.py",
        "class Scaler:\n    def __init__(self):\n        self.k = 2\n\n    def __call__(self, x):\n        return x * self.k\n",
    )
    validation = write(tmp_path, "validation.py", "import torch\nfrom model import Scaler\n\nLstm_Net = Scaler()\n")
    predict = write(
        tmp_path,
        "predict.py",
        "import torch\nfrom validation import Lstm_Net\n\ndef predict_main(x):\n    output = Lstm_Net(x)\n"
        "    return output.detach().cpu().numpy()\n",
    )
    assert not any("GG201" in line for line in findings(capsys, model_py, validation, predict))


def test_cached_result_follows_a_new_call_of_a_method_in_another_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "[tool.gradguard]\n")
    write(tmp_path, "GAN.py", GAN_CLASS)
    write(tmp_path, "main.py", "from GAN import GAN\n\ndef main():\n    gan = GAN(args)\n    gan.train()\n")

    def run():
        main(["check", "--select", "GG201", "GAN.py", "main.py"])
        return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]

    assert run() == [] and run() == []  # the second run is served from the cache
    write(
        tmp_path, "main.py", "from GAN import GAN\n\ndef main():\n    gan = GAN(args)\n    gan.visualize_results(3)\n"
    )
    assert run()  # GAN.py did not change, but a caller of its method did


AGENT = """
    import torch
    import torch.nn as nn

    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.actor = nn.Linear(4, 2)

        def get_action(self, x):
            return self.actor(x)

        def describe(self):
            return "agent"
"""
ENJOY = """
    import torch
    from model import Agent

    agent = Agent()
    agent.load_state_dict(torch.load("agent.pt"))
    agent.eval()
    action = agent.METHOD(obs)
    print(action.argmax(1))
"""


def test_a_method_of_another_file_s_model_that_runs_a_layer_is_evaluated(tmp_path, capsys):
    model = write(tmp_path, "model.py", AGENT)
    enjoy = write(tmp_path, "enjoy.py", ENJOY.replace("METHOD", "get_action"))
    assert any("enjoy.py" in line and "GG201" in line for line in findings(capsys, model, enjoy))


def test_twin_a_method_of_another_file_s_model_that_runs_nothing_is_not(tmp_path, capsys):
    model = write(tmp_path, "model.py", AGENT)
    enjoy = write(tmp_path, "enjoy.py", ENJOY.replace("METHOD", "describe"))
    assert not any("GG201" in line for line in findings(capsys, model, enjoy))


DETECTOR = """
    import torch
    import torch.nn as nn

    class CFA(nn.Module):
        def __init__(self, channels, checkpoint_name=None):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, channels, 3), nn.ReLU())
            if checkpoint_name:
                self.load_state_dict(torch.load(checkpoint_name)["state_dict"])

        def forward(self, x):
            return self.features(x)
"""

DETECT = """
    import torch
    from align import CFA

    detector = CFA(25, "landmark.pth.tar")
    for image in images:
        heatmaps = detector(image.unsqueeze(0))
        print(heatmaps[-1].detach().numpy().argmax())
"""


def test_a_model_whose_class_loads_its_weights_in_init_is_a_trained_model(tmp_path, capsys):
    align = write(tmp_path, "align.py", DETECTOR)
    detect = write(tmp_path, "detect.py", DETECT)
    found = findings(capsys, align, detect)
    assert any("detect.py:7" in line and "GG201" in line for line in found), found


def test_twin_a_model_whose_class_loads_nothing_is_a_smoke_test(tmp_path, capsys):
    align = write(
        tmp_path,
        "align.py",
        DETECTOR.replace(
            'self.load_state_dict(torch.load(checkpoint_name)["state_dict"])', "self.name = checkpoint_name"
        ),
    )
    detect = write(tmp_path, "detect.py", DETECT)
    assert not any("GG201" in line for line in findings(capsys, align, detect))


def test_each_script_folder_imports_its_own_module_of_a_shared_name(tmp_path, capsys):
    # Two folders of scripts (no packages) each hold `model.py`: `from model import Net` in
    # each reads its own folder's, whichever the run lists last.
    for lab, model in (("lab_a", MODEL), ("lab_b", MODEL.replace("class Net(Base)", "class Net(Plain)"))):
        (tmp_path / lab).mkdir()
        write(tmp_path / lab, "model.py", model)
        write(tmp_path / lab, "train.py", TRAIN)
    found = findings(capsys, tmp_path)
    assert any("lab_a" in line and "train.py:10" in line and "GG201" in line for line in found), found
    assert not any("lab_b" in line and "GG201" in line for line in found), found


def test_index_keys_modules_of_a_shared_name_by_folder(tmp_path):
    for lab in ("lab_a", "lab_b"):
        (tmp_path / lab).mkdir()
        write(tmp_path / lab, "model.py", MODEL)
    (tmp_path / "pkg").mkdir()
    write(tmp_path / "pkg", "__init__.py", "")
    write(tmp_path / "pkg", "layers.py", MODEL)
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    index = build_index(paths)
    assert index.shared_names == frozenset({"model"})
    a, b = (str(tmp_path / lab / "model.py") for lab in ("lab_a", "lab_b"))
    assert index.module_of(a) != index.module_of(b)
    assert index.resolve(a, "model") == index.module_of(a)
    assert index.module_of(str(tmp_path / "pkg" / "layers.py")) == "pkg.layers"
    assert f"{index.module_of(a)}.Net" in index.classes and f"{index.module_of(b)}.Net" in index.classes


def test_a_notebook_imports_its_own_folders_module_of_a_shared_name(tmp_path, capsys):
    import json

    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {
        "cells": [{**cell, "source": textwrap.dedent(TRAIN)}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    for lab, model in (("lab_a", MODEL), ("lab_b", MODEL.replace("class Net(Base)", "class Net(Plain)"))):
        (tmp_path / lab).mkdir()
        write(tmp_path / lab, "model.py", model)
        (tmp_path / lab / "train.ipynb").write_text(json.dumps(notebook))
    found = findings(capsys, tmp_path)
    assert any("lab_a" in line and "train.ipynb" in line and "GG201" in line for line in found), found
    assert not any("lab_b" in line and "GG201" in line for line in found), found


SHOW = """
    def show_next_word(scores):
        print(scores.data.topk(3))
"""

SHOW_MAIN = """
    import torch
    import torch.nn as nn
    import plotutils

    net = nn.Linear(784, 10)
    net.load_state_dict(torch.load("net.pt"))
    print("next words:")
    scores = net(image.view(1, 784))
    plotutils.show_next_word(scores)
"""


def test_an_output_handed_to_a_helper_of_another_file_that_only_reads_it(tmp_path, capsys):
    helper = write(tmp_path, "plotutils.py", SHOW)
    main_py = write(tmp_path, "main.py", SHOW_MAIN)
    found = findings(capsys, helper, main_py)
    assert any("main.py:9" in line and "GG201" in line for line in found), found


def test_twin_an_output_handed_to_a_helper_of_another_file_that_backpropagates_it(tmp_path, capsys):
    helper = write(tmp_path, "plotutils.py", SHOW.replace("print(scores.data.topk(3))", "scores.sum().backward()"))
    main_py = write(tmp_path, "main.py", SHOW_MAIN)
    assert not any("GG201" in line for line in findings(capsys, helper, main_py))


def test_a_call_whose_result_is_called_built_a_module(tmp_path, capsys):
    # `one_layer_net` is a class of a notebook cell that does not parse: its call builds the
    # module `net`, it runs none; `net(x)` after loading weights is the evaluation.
    script = write(
        tmp_path,
        "demo.py",
        """
        import torch

        net = one_layer_net(784, 10)
        print(net)
        net.load_state_dict(torch.load("net.pt"))
        scores = net(image.view(1, 784))
        print(scores)
        """,
    )
    found = [line for line in findings(capsys, script) if "GG201" in line]
    assert not any("demo.py:4:" in line for line in found), found


RUNNER = """
    import torch
    import torchvision.transforms as transforms

    def segment(image, model, device):
        image = transforms.ToTensor()(image).to(device).unsqueeze(0)
        outputs = model(image)
        return outputs
"""

RUNNER_MAIN = """
    import torch
    import torchvision
    import utils

    model = torchvision.models.segmentation.fcn_resnet50(pretrained=True)
    model.eval()
    outputs = utils.segment(image, model, "cpu")
    print(outputs["out"].argmax(1).shape, outputs["out"].max().item())
"""


def test_a_helper_of_another_file_running_the_module_it_is_handed_is_a_model_call(tmp_path, capsys):
    helper = write(tmp_path, "utils.py", RUNNER)
    main_py = write(tmp_path, "main.py", RUNNER_MAIN)
    found = findings(capsys, helper, main_py)
    assert any("main.py:8" in line and "GG201" in line and "utils.segment" in line for line in found), found


def test_twin_a_helper_of_another_file_that_turns_grad_off_or_trains_is_not(tmp_path, capsys):
    for body in (
        "with torch.no_grad():\n            outputs = model(image)",
        "outputs = model(image)\n        outputs.sum().backward()",
    ):
        helper = write(tmp_path, "utils.py", RUNNER.replace("outputs = model(image)", body))
        compile(helper.read_text(), "utils.py", "exec")  # the twin parses
        main_py = write(tmp_path, "main.py", RUNNER_MAIN)
        assert not any("GG201" in line for line in findings(capsys, helper, main_py)), body


def test_twin_a_helper_of_another_file_called_under_no_grad_is_not(tmp_path, capsys):
    helper = write(tmp_path, "utils.py", RUNNER)
    main_py = write(
        tmp_path,
        "main.py",
        RUNNER_MAIN.replace(
            '    outputs = utils.segment(image, model, "cpu")\n',
            '    with torch.no_grad():\n        outputs = utils.segment(image, model, "cpu")\n',
        ),
    )
    assert not any("GG201" in line for line in findings(capsys, helper, main_py))


def test_twin_a_helper_of_another_file_handed_a_toy_module_or_named_for_evaluation_is_not(tmp_path, capsys):
    helper = write(tmp_path, "utils.py", RUNNER + "\n\ndef predict_segments(image, model):\n    return model(image)\n")
    toy = RUNNER_MAIN.replace(
        "model = torchvision.models.segmentation.fcn_resnet50(pretrained=True)",
        "class Toy(torch.nn.Module):\n        def forward(self, x):\n            return 2 * x\n\n    model = Toy()",
    )
    named = RUNNER_MAIN.replace('utils.segment(image, model, "cpu")', "utils.predict_segments(image, model)")
    for code in (toy, named):
        main_py = write(tmp_path, "main.py", code)
        compile(main_py.read_text(), "main.py", "exec")
        found = [line for line in findings(capsys, helper, main_py) if "main.py" in line and "GG201" in line]
        assert not found, found


METRICS = """
    import torch

    def accuracy(logits, labels):
        return torch.sum(torch.argmax(logits, dim=1) == labels).item() / len(labels)

    def train_on(logits, labels):
        torch.nn.functional.cross_entropy(logits, labels).backward()
"""

GCN_MAIN = """
    import torch
    import torch.nn as nn
    from utils import accuracy

    model = nn.Linear(16, 7)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(200):
        loss = nn.functional.cross_entropy(model(features)[train_mask], labels[train_mask])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    acc = accuracy(model(features)[test_mask], labels[test_mask])
    print(acc)
"""


def _package_with_metrics(tmp_path, init: str):
    (tmp_path / "utils").mkdir()
    write(tmp_path / "utils", "__init__.py", init)
    return write(tmp_path / "utils", "metrics.py", METRICS)


def test_index_follows_a_packages_reexports_of_its_modules_functions(tmp_path):
    _package_with_metrics(tmp_path, "from .metrics import *\n")
    (tmp_path / "other").mkdir()
    write(tmp_path / "other", "__init__.py", "from .tools import accuracy as acc\nfrom os.path import join\n")
    write(tmp_path / "other", "tools.py", "def accuracy(x):\n    return x\n")
    paths = [str(p) for p in tmp_path.rglob("*.py")]
    index = build_index(paths)
    importer = str(tmp_path / "main.py")
    assert index.function_key(importer, "utils.accuracy") == "utils.metrics.accuracy"
    assert index.function_key(importer, "utils.train_on") == "utils.metrics.train_on"
    assert index.function_key(importer, "other.acc") == "other.tools.accuracy"
    assert index.function_key(importer, "other.join") == "other.join"  # not the package's own module


def test_a_model_output_handed_to_a_helper_a_package_reexports_that_only_reads_it(tmp_path, capsys):
    metrics = _package_with_metrics(tmp_path, "from .metrics import *\n")
    init = tmp_path / "utils" / "__init__.py"
    main_py = write(tmp_path, "main.py", GCN_MAIN)
    found = findings(capsys, init, metrics, main_py)
    assert any("main.py:13:16" in line and "GG201" in line for line in found), found


def test_twin_a_model_output_handed_to_a_reexported_helper_that_backpropagates_it(tmp_path, capsys):
    metrics = _package_with_metrics(tmp_path, "from .metrics import accuracy, train_on\n")
    init = tmp_path / "utils" / "__init__.py"
    main_py = write(tmp_path, "main.py", GCN_MAIN.replace("accuracy", "train_on"))
    assert not any("GG201" in line for line in findings(capsys, init, metrics, main_py))


ENGINE = """
    class Value:
        def __init__(self, data, _children=()):
            self.data = data
            self.grad = 0.0
            self._prev = set(_children)

        def __add__(self, other):
            return Value(self.data + other.data, (self, other))

        def backward(self):
            self.grad = 1.0
"""

LAYERS = """
    from engine import Value

    class Module:
        def parameters(self):
            return []

    class MLP(Module):
        def __init__(self, n):
            self.w = [Value(0.0) for _ in range(n)]

        def parameters(self):
            return self.w
"""


def test_a_plain_base_of_the_file_is_not_torchs_module(tmp_path):
    layers = write(tmp_path, "nn.py", LAYERS)
    index = build_index([str(layers)])
    assert not index.classes["nn.MLP"].module


def test_values_of_another_files_hand_made_autograd_are_no_tensors(tmp_path, capsys):
    engine = write(tmp_path, "engine.py", ENGINE)
    layers = write(tmp_path, "nn.py", LAYERS)
    train = write(
        tmp_path,
        "train.py",
        """
        import torch
        import nn
        from engine import Value

        model = nn.MLP(3)
        for k in range(10):
            total_loss = Value(0.0)
            for p in model.parameters():
                total_loss += p
            total_loss.backward()
            for p in model.parameters():
                p.data -= 0.01 * p.grad
            print(total_loss.data)

        x = torch.ones(2, requires_grad=True)
        print(x.data)
        """,
    )
    found = findings(capsys, engine, layers, train)
    assert [line.split(": ")[1].split()[0] for line in found] == ["GG101"]
    assert "`x.data`" in found[0]
    # checked alone, `p.grad` and `.backward()` are evidence of tensors again
    assert any("GG102" in line for line in findings(capsys, train))


# A MoCoGAN trainer (its discriminator in another file of the run): the generator's step
# gives a loss module the discriminator's output, then the discriminator's step detaches.
MOCOGAN = """
    import torch
    import torch.nn as nn


    class SequenceDiscriminator(nn.Module):
        def __init__(self, n_channels, video_len, dim_z_motion):
            super(SequenceDiscriminator, self).__init__()
            self.dim_z_motion = dim_z_motion
            self.encoder = nn.Conv2d(n_channels, dim_z_motion, 4, 1, 0)
            self.rnn = nn.GRUCell(dim_z_motion, dim_z_motion)
            self.discriminator = nn.Linear(dim_z_motion, 1)

        def z_dynamics(self, gif):
            h_0 = torch.randn(gif.size(1), self.dim_z_motion)
            h_t = []
            for i in range(gif.size(0)):
                e_t = self.encoder(gif[i]).squeeze()
                h_t.append(self.rnn(h_0, e_t))
            return torch.cat(h_t, dim=0)

        def forward(self, gif):
            video = gif.permute(2, 0, 1, 3, 4)
            f1 = gif[:, :, 0]
            im_gif = torch.stack([f1] * gif.size(2), dim=0)
            z_d = self.z_dynamics(video) - self.z_dynamics(im_gif)
            output = self.discriminator(z_d)
            return output, None
"""

MOCOGAN_TRAINER = """
    import torch
    from torch import nn
    import torch.optim as optim
    from torch.autograd import Variable
    from models import mocogan as mocogan


    class Trainer(object):
        def __init__(self, loader):
            self.loader = loader
            self.generator = mocogan.VideoGenerator()
            self.seq_discriminator = mocogan.SequenceDiscriminator(3, 16, 10)
            self.video_discriminator = mocogan.VideoDiscriminator(3)

        def train(self):
            self.gan_criterion = nn.BCEWithLogitsLoss()
            opt_generator = optim.Adam(self.generator.parameters())
            opt_seq_discriminator = optim.Adam(self.seq_discriminator.parameters())
            opt_video_discriminator = optim.Adam(self.video_discriminator.parameters())
            for step in range(100):
                realIm, realGif = next(self.loader)
                self.generator.zero_grad()
                fake = (self.generator.sample_videos(realIm), self.generator.sample_images(realIm))
                fakeGif = fake[0][0]
                output, fake_categ = self.video_discriminator(fakeGif)
                loss_G = self.gan_criterion(output, torch.ones(output.size()))
                output, _ = self.seq_discriminator(fakeGif)
                loss_G += self.gan_criterion(output, torch.ones(output.size()))
                loss_G.backward()
                opt_generator.step()

                self.seq_discriminator.zero_grad()
                D_real = self.seq_discriminator(realGif)[0]
                loss_D_real = self.gan_criterion(D_real, torch.ones(D_real.size()))
                D_fake = self.seq_discriminator(fakeGif.detach())[0]
                loss_D_fake = self.gan_criterion(D_fake, torch.zeros(D_fake.size()))
                loss_D_S = loss_D_real + loss_D_fake
                loss_D_S.backward()
                opt_seq_discriminator.step()

                self.video_discriminator.zero_grad()
                D_real, real_categ = self.video_discriminator(realGif)
                loss_D_real = self.gan_criterion(D_real, torch.ones(D_real.size()))
                D_fake, fake_categ = self.video_discriminator(fakeGif.detach())
                loss_D_fake = self.gan_criterion(D_fake, torch.zeros(D_fake.size()))
                loss_D_V = loss_D_real + loss_D_fake
                loss_D_V.backward()
                opt_video_discriminator.step()
"""


def _mocogan(tmp_path, trainer):
    (tmp_path / "models").mkdir()
    init = write(tmp_path / "models", "__init__.py", "")
    models = write(tmp_path / "models", "mocogan.py", MOCOGAN)
    return init, models, write(tmp_path, "trainer.py", trainer)


# The generator's optimizer built from parameters the file does not show: the step's models are
# not known, so each model of the graph fed another's output is judged.
MOCOGAN_UNKNOWN_STEP = MOCOGAN_TRAINER.replace(
    "optim.Adam(self.generator.parameters())", "optim.Adam(self.generator_parameters)"
)


def test_a_loss_module_given_a_discriminators_output_is_no_discriminator(tmp_path, capsys):
    for trainer in (MOCOGAN_TRAINER, MOCOGAN_UNKNOWN_STEP):
        assert not any("GG207" in line for line in findings(capsys, *_mocogan(tmp_path, trainer)))
        for path in tmp_path.rglob("*.py"):
            path.unlink()
        (tmp_path / "models").rmdir()


def test_a_step_of_the_optimizer_over_the_generator_is_the_generators_step(tmp_path, capsys):
    # `Adam(self.generator.parameters())` steps the generator, which the graph runs through (the
    # discriminators known as modules by their `.parameters()`, their outputs no real data): the
    # generator's step, in which the discriminators' outputs must keep their graph, even where a
    # module with parameters (`nn.Linear`) stands in the loss module's place.
    with_parameters = MOCOGAN_TRAINER.replace("nn.BCEWithLogitsLoss()", "nn.Linear(1, 1)")
    assert not any("GG207" in line for line in findings(capsys, *_mocogan(tmp_path, with_parameters)))


STAR_MODELS = """
    import torch.nn as nn


    class GeneratorCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x)


    class Sampler:
        def __call__(self, x):
            return x
"""

STAR_TRAINER = """
    import torch
    from imageio import imsave

    from models import *


    class Trainer:
        def __init__(self):
            self.G_AB = MODEL()

        def train(self, loader):
            optimizer = torch.optim.Adam(self.G_AB.parameters())
            for step, x in enumerate(loader):
                loss = self.G_AB(x).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.generate(x, step)

        def generate(self, inputs, idx):
            x_AB = self.G_AB(inputs)
            imsave("{}_x_AB.png".format(idx), x_AB.data)
"""


def test_a_star_import_of_a_module_of_the_run_gives_its_classes(tmp_path, capsys):
    # `from models import *`: `GeneratorCNN` is the run's `nn.Module`
    write(tmp_path, "models.py", STAR_MODELS)
    trainer = write(tmp_path, "trainer.py", STAR_TRAINER.replace("MODEL", "GeneratorCNN"))
    found = findings(capsys, tmp_path / "models.py", trainer)
    assert any("trainer.py:22:16: GG201" in line for line in found), found
    assert any("trainer.py:23:43: GG101" in line for line in found), found


def test_twin_a_star_imported_plain_class_is_no_model(tmp_path, capsys):
    write(tmp_path, "models.py", STAR_MODELS)
    trainer = write(tmp_path, "trainer.py", STAR_TRAINER.replace("MODEL", "Sampler"))
    found = findings(capsys, tmp_path / "models.py", trainer)
    assert not any("GG201" in line or "GG101" in line for line in found), found


LOSSES = """
    import torch
    import torch.nn as nn

    criterion = nn.MSELoss()


    def kl_loss(mu, logvar):
        return torch.mean(1 + logvar - mu.pow(2) - logvar.exp()) * -0.5


    def recon_loss(x, y):
        return criterion(x, y)
"""

LOSSES_TRAIN = """
    import torch
    from losses import kl_loss, recon_loss
    import losses


    def train(net, loader, optimizer):
        for x, y in loader:
            out = net(x)
            kl = kl_loss(out[:, 0], out[:, 1])
            rec = losses.recon_loss(out, y)
            optimizer.zero_grad()
            (kl + rec).backward()
            optimizer.step()
            print(kl.data[0], rec.data[0])
"""


def test_a_loss_another_file_returns_is_a_tensor(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "losses.py", LOSSES), write(tmp_path, "train.py", LOSSES_TRAIN))
    assert [line.rsplit("/", 1)[-1].split(" ", 2)[:2] for line in found if "GG105" in line] == [
        ["train.py:15:15:", "GG105"],
        ["train.py:15:27:", "GG105"],
    ], found


def test_twin_a_number_another_file_returns_is_not(tmp_path, capsys):
    numbers = LOSSES.replace("* -0.5", "* -0.5).item()").replace("return torch.mean(", "return (torch.mean(")
    numbers = numbers.replace("return criterion(x, y)", "return float(criterion(x, y))")
    found = findings(capsys, write(tmp_path, "losses.py", numbers), write(tmp_path, "train.py", LOSSES_TRAIN))
    assert not any("GG105" in line or "GG101" in line for line in found), found


UNNAMED_LOSS = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class TripletCosine(nn.Module):
        def __init__(self, margin=1.0):
            super().__init__()
            self.margin = margin

        def forward(self, anchor, positive, negative):
            d_p = 1 - F.cosine_similarity(anchor, positive)
            d_n = 1 - F.cosine_similarity(anchor, negative)
            hinge = torch.clamp(self.margin + d_p - d_n, min=0.0)
            loss = torch.mean(hinge)
            return loss
"""

UNNAMED_LOSS_TRAIN = """
    import torch.nn as nn
    from config import *
    from losses import *


    def train(model, loader, optimizer):
        criterion_c = nn.CrossEntropyLoss()
        if COSINE:
            criterion_t = TripletCosine()
        else:
            criterion_t = nn.TripletMarginLoss()
        for x, y, a, p, n in loader:
            optimizer.zero_grad()
            classification_loss = criterion_c(model(x), y)
            if WEIGHT:
                triplet_loss = criterion_t(model(a), model(p), model(n))
                loss = classification_loss + triplet_loss * WEIGHT
            else:
                loss = classification_loss
            loss.backward()
            optimizer.step()
            print(triplet_loss.data[0])
"""


def test_a_module_of_another_file_whose_forward_returns_a_mean_is_a_loss(tmp_path, capsys):
    found = findings(
        capsys, write(tmp_path, "losses.py", UNNAMED_LOSS), write(tmp_path, "train.py", UNNAMED_LOSS_TRAIN)
    )
    assert [line.rsplit("/", 1)[-1].split(" ", 2)[:2] for line in found if "train.py" in line] == [
        ["train.py:23:15:", "GG105"]
    ], found


def test_twin_a_module_of_another_file_returning_an_accuracy_is_no_loss(tmp_path, capsys):
    accuracy = UNNAMED_LOSS.replace("loss = torch.mean(hinge)", "loss = torch.mean((d_p < d_n).float())")
    found = findings(capsys, write(tmp_path, "losses.py", accuracy), write(tmp_path, "train.py", UNNAMED_LOSS_TRAIN))
    assert not any("train.py" in line and "GG105" in line for line in found), found


SCORES = """
    import torch


    def f1_score(preds, labels):
        preds = torch.max(preds, dim=1)[1]
        correct = (preds == labels).sum()
        precision = correct / preds.sum()
        recall = correct / labels.sum()
        return 2 * precision * recall / (precision + recall)
"""

SCORES_TRAIN = """
    import torch
    from scores import f1_score

    model = torch.nn.Linear(8, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(10)]
    total_f1 = 0.0
    for x, y in loader:
        pred = model(x)
        loss = torch.nn.functional.cross_entropy(pred, y)
        total_f1 += f1_score(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_score_another_file_computes_from_predicted_classes_carries_no_graph(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "scores.py", SCORES), write(tmp_path, "train.py", SCORES_TRAIN))
    assert not any("GG301" in line for line in found), found


def test_twin_the_score_of_probabilities_carries_the_outputs_graph(tmp_path, capsys):
    scores = SCORES.replace("torch.max(preds, dim=1)[1]", "torch.softmax(preds, dim=1)")
    found = findings(capsys, write(tmp_path, "scores.py", scores), write(tmp_path, "train.py", SCORES_TRAIN))
    assert [line.rsplit("/", 1)[-1].split(" ", 2)[:2] for line in found if "GG301" in line] == [
        ["train.py:12:5:", "GG301"]
    ], found


SELF_TRAINING_SOLVER = """
    import torch
    import torch.nn as nn


    class Solver(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(8, 1)
            self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

        def forward(self, x, y):
            self.optimizer.zero_grad()
            loss = nn.functional.mse_loss(self.net(x), y)
            loss.backward()
            self.optimizer.step()
            return loss.item()
"""

SOLVER_TRAINER = """
    import torch


    class Trainer:
        def train(self, model, loader, epochs=10):
            for epoch in range(epochs):
                total_loss = 0
                for x, y in loader:
                    loss = model(x, y)
                    total_loss += loss
                print(epoch, total_loss / len(loader), torch.cuda.is_available())
"""


def test_a_model_known_by_name_in_a_run_whose_modules_train_in_forward_hands_back_no_graph(tmp_path, capsys):
    found = findings(
        capsys, write(tmp_path, "solver.py", SELF_TRAINING_SOLVER), write(tmp_path, "trainer.py", SOLVER_TRAINER)
    )
    assert not any("GG301" in line for line in found), found


def test_twin_a_model_known_by_name_in_a_run_of_plain_modules_is_a_loss(tmp_path, capsys):
    plain = SELF_TRAINING_SOLVER.replace(
        "            loss.backward()\n            self.optimizer.step()\n", ""
    ).replace("return loss.item()", "return loss")
    found = findings(capsys, write(tmp_path, "solver.py", plain), write(tmp_path, "trainer.py", SOLVER_TRAINER))
    assert [line.rsplit("/", 1)[-1].split(" ", 2)[:2] for line in found if "GG301" in line] == [
        ["trainer.py:11:17:", "GG301"]
    ], found


TORCHVISION_ENCODER = """
    from torch import nn
    from torchvision.models import resnet18


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.resnet = nn.Sequential(*list(resnet18(weights=None).children())[:-1])

        def forward(self, x):
            return self.resnet(x).flatten(1)
"""

ENCODER_EVALUATION = """
    import torch
    from enc import Encoder


    def evaluate(head, loader):
        encoder = Encoder()
        encoder.load_state_dict(torch.load("enc.pt"))
        head.eval()
        correct = 0
        with torch.no_grad():
            for x, y in loader:
                correct += (head(encoder(x)).argmax(1) == y).sum().item()
        return correct
"""


def test_a_module_of_another_file_keeping_a_torchvision_backbone_holds_its_batch_norm(tmp_path, capsys):
    found = findings(
        capsys, write(tmp_path, "enc.py", TORCHVISION_ENCODER), write(tmp_path, "main.py", ENCODER_EVALUATION)
    )
    assert [line.rsplit("/", 1)[-1].split(" ", 2)[:2] for line in found] == [["main.py:13:30:", "GG209"]], found


def test_twin_a_module_of_another_file_of_linear_layers_has_no_mode_to_switch(tmp_path, capsys):
    linear = TORCHVISION_ENCODER.replace(
        "nn.Sequential(*list(resnet18(weights=None).children())[:-1])", "nn.Sequential(nn.Linear(8, 8), nn.ReLU())"
    )
    found = findings(capsys, write(tmp_path, "enc.py", linear), write(tmp_path, "main.py", ENCODER_EVALUATION))
    assert not any("GG209" in line for line in found), found


def test_a_module_another_files_function_builds_is_its_class(tmp_path, capsys):
    models = MODEL + "\n\n    def build():\n        net = Net()\n        return net\n"
    train = TRAIN.replace("from model import Net", "from model import build").replace("Net()", "build()")
    found = findings(capsys, write(tmp_path, "model.py", models), write(tmp_path, "train.py", train))
    assert any("train.py:10" in line and "GG201" in line for line in found), found


def test_twin_a_plain_object_another_files_function_builds_is_no_module(tmp_path, capsys):
    models = MODEL + "\n\n    def build():\n        net = Plain()\n        return net\n"
    train = TRAIN.replace("from model import Net", "from model import build").replace("Net()", "build()")
    found = findings(capsys, write(tmp_path, "model.py", models), write(tmp_path, "train.py", train))
    assert not any("GG201" in line for line in found), found


def test_cached_result_follows_module_level_code_of_an_imported_function(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "[tool.gradguard]\n")
    write(tmp_path, "losses.py", LOSSES)
    write(tmp_path, "train.py", LOSSES_TRAIN)

    def run():
        main(["check", "--select", "GG105", "losses.py", "train.py"])
        return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]

    assert len(run()) == 2 and len(run()) == 2  # the second run is served from the cache
    # only a line outside every function changes: `recon_loss` returns a loss per element now
    write(tmp_path, "losses.py", LOSSES.replace("nn.MSELoss()", 'nn.MSELoss(reduction="none")'))
    assert [line.split(" ", 1)[0] for line in run()] == ["train.py:15:15:"]


NAMESPACE_TRAIN = """
    import torch
    import torch.nn as nn

    from models.CNN import AlexNet

    net = AlexNet()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    for inputs, labels in train_loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(net(inputs), labels).backward()
        optimizer.step()
    with torch.no_grad():
        for images, labels in test_loader:
            outputs = net(images)
"""

NAMESPACE_MODEL = """
    import torch.nn as nn


    class AlexNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.bn = nn.BatchNorm1d(2)

        def forward(self, x):
            return self.bn(self.fc(x))
"""


def test_a_module_of_a_folder_without_init_is_found_as_import_finds_it(tmp_path, capsys):
    # `models/` has no `__init__.py`: a namespace package, which `from models.CNN import` reads
    (tmp_path / "models").mkdir()
    model = write(tmp_path / "models", "CNN.py", NAMESPACE_MODEL)
    found = findings(capsys, model, write(tmp_path, "train.py", NAMESPACE_TRAIN))
    assert any("train.py:15:19: GG209" in line for line in found), found


def test_twin_a_module_import_cannot_find_from_the_file_is_not_used(tmp_path, capsys):
    # the same file two folders away: `from models.CNN import AlexNet` in train.py does not read it
    (tmp_path / "lib" / "models").mkdir(parents=True)
    model = write(tmp_path / "lib" / "models", "CNN.py", NAMESPACE_MODEL)
    (tmp_path / "app").mkdir()
    found = findings(capsys, model, write(tmp_path / "app", "train.py", NAMESPACE_TRAIN))
    assert not any("GG209" in line for line in found), found


SRC_MODEL = """
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    net = Net()
"""

SRC_SCRIPT = """
    import torch
    from {package}.model import net

    images = torch.rand(4, 4)
    outputs = net(images)
    _, predicted = torch.max(outputs, 1)
    print(predicted)
"""


def test_an_instance_imported_through_the_run_s_own_folder_is_the_module_it_holds(tmp_path, capsys):
    # every file of the run is under `src/` (no `__init__.py`), and the script imports
    # `src.model`, as it runs from the repository's root
    (tmp_path / "src").mkdir()
    model = write(tmp_path / "src", "model.py", SRC_MODEL)
    script = write(tmp_path / "src", "predict.py", SRC_SCRIPT.format(package="src"))
    found = findings(capsys, model, script)
    assert any("predict.py:6:11: GG201" in line for line in found), found


def test_twin_an_import_naming_another_package_is_not_the_run_s_folder(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    model = write(tmp_path / "src", "model.py", SRC_MODEL)
    script = write(tmp_path / "src", "predict.py", SRC_SCRIPT.format(package="lib"))
    found = findings(capsys, model, script)
    assert not any("GG201" in line for line in found), found


NOISE_GENERATOR = """
    import torch
    import torch.nn as nn


    class Generator(nn.Module):
        def __init__(self, z_dim):
            super().__init__()
            self.z_dim = z_dim
            self.net = nn.Linear(z_dim, 8)

        def forward(self, z):
            return self.net(z)

        def {method}(self, batch_size):
            return {body}
"""

NOISE_TRAINER = """
    class Trainer:
        def __init__(self, generator):
            self.generator = generator

        def step(self, n):
            return self.generator.sample_noise_vector(n)
"""


def _run_model(tmp_path, generator_code):
    """The semantic model of the trainer's file, with the run's index of both files."""
    model = write(tmp_path, "models.py", generator_code)
    trainer = write(tmp_path, "training.py", NOISE_TRAINER)
    index = build_index([str(model), str(trainer)])
    text = trainer.read_text()
    tree = ast.parse(text)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child._gg_parent = node  # type: ignore[attr-defined]
    return index, FileContext(str(trainer), SourceText(text), tree, ImportMap(tree))


def test_a_method_every_class_of_the_run_defines_without_running_a_layer_runs_nowhere(tmp_path):
    # `self.generator.sample_noise_vector(n)` of a trainer handed the generator: the run's one
    # class defining it draws noise, runs no layer
    index, ctx = _run_model(
        tmp_path, NOISE_GENERATOR.format(method="sample_noise_vector", body="torch.randn(batch_size, self.z_dim)")
    )
    with using(index):
        assert ctx.model.method_runs_nowhere("sample_noise_vector")
        assert not ctx.model.method_runs_nowhere("never_defined")


def test_twin_a_method_that_runs_the_module_runs_somewhere(tmp_path):
    index, ctx = _run_model(
        tmp_path, NOISE_GENERATOR.format(method="sample_noise_vector", body="self(torch.randn(batch_size, self.z_dim))")
    )
    with using(index):
        assert not ctx.model.method_runs_nowhere("sample_noise_vector")


SMOKE_ENCODER = """
    import torch.nn as nn


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 8, num_layers=2, dropout=0.5)

        def forward(self, x):
            return self.rnn(x)


    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 8, num_layers=2, dropout=0.5)

        def forward(self, x, state):
            return self.rnn(x, state)
"""

SMOKE_TEST = """
    import torch

    from seq import Decoder, Encoder

    encoder = Encoder()
    encoder.eval()
    outputs, state = encoder(torch.zeros(5, 2, 4))
    decoder = Decoder()
    decoder.eval()
    outputs, state = decoder(torch.zeros(3, 2, 4), state)
    print(outputs.shape)
"""


def test_a_demo_of_another_files_untrained_classes_is_no_evaluation(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "seq.py", SMOKE_ENCODER), write(tmp_path, "seq_test.py", SMOKE_TEST))
    assert not any("GG201" in line for line in found), found


def test_twin_a_class_whose_init_loads_weights_is_evaluated(tmp_path, capsys):
    loading = SMOKE_ENCODER.replace(
        "self.rnn = nn.GRU(4, 8, num_layers=2, dropout=0.5)\n\n        def forward(self, x):",
        'self.rnn = nn.GRU(4, 8, num_layers=2, dropout=0.5)\n            self.load_state_dict(torch.load("enc.pt"))\n\n        def forward(self, x):',
    ).replace("import torch.nn as nn", "import torch\n    import torch.nn as nn")
    assert "torch.load" in loading
    found = findings(capsys, write(tmp_path, "seq.py", loading), write(tmp_path, "seq_test.py", SMOKE_TEST))
    assert any("seq_test.py:8:18: GG201 `encoder(...)`" in line for line in found), found


TRACE_SCRIPT = """
    import torch

    from seq import Encoder


    def convert(model, path):
        model = model.eval()
        traced = torch.jit.trace(model, torch.rand(5, 2, 4))
        output = traced(torch.ones(5, 2, 4))
        traced.save(path)
        print(output)


    if __name__ == "__main__":
        model = Encoder()
        model.load_state_dict(torch.load("enc.pt"))
        convert(model, "traced.pt")
"""


def test_twin_a_trace_of_a_module_handed_in_is_no_demo_of_its_class(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "seq.py", SMOKE_ENCODER), write(tmp_path, "convert.py", TRACE_SCRIPT))
    assert any("convert.py:10:14: GG201" in line for line in found), found


DETAIL_LOSS = """
    import torch
    import torch.nn as nn


    class DetailLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.bce = nn.BCEWithLogitsLoss()

        def __call__(self, predict, label):
            loss = self.bce(predict, label)
            return loss, torch.stack([loss, loss]).detach()
"""

DETAIL_TRAIN = """
    import torch
    import torch.nn as nn

    from losses import DetailLoss

    model = nn.Linear(4, 4)
    criterion = DetailLoss()
    optimizer = torch.optim.Adam(model.parameters())
    for image, label in loader:
        total = torch.zeros(2)
        loss, detail = criterion(model(image), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += detail
        print(total.cpu().numpy())
"""


def test_a_loss_class_of_another_file_returning_detached_parts_gives_no_graph(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "losses.py", DETAIL_LOSS), write(tmp_path, "train.py", DETAIL_TRAIN))
    assert not any("GG302" in line for line in found), found


def test_twin_parts_returned_with_their_graph_require_grad(tmp_path, capsys):
    with_graph = DETAIL_LOSS.replace("torch.stack([loss, loss]).detach()", "torch.stack([loss, loss])")
    found = findings(capsys, write(tmp_path, "losses.py", with_graph), write(tmp_path, "train.py", DETAIL_TRAIN))
    assert any("train.py:17:11: GG302" in line for line in found), found


STAR_TORCH_MODEL = """
    import torch
    from torch.autograd import Variable


    def init_hidden(n):
        return Variable(torch.zeros(1, n, 8))
"""

STAR_TORCH_GENERATE = """
    import torch
    from model import *


    def generate(prime):
        return Variable(torch.zeros(len(prime)).long())
"""


def test_a_star_import_hands_on_what_the_module_imports_from_torch(tmp_path, capsys):
    found = findings(
        capsys, write(tmp_path, "model.py", STAR_TORCH_MODEL), write(tmp_path, "gen.py", STAR_TORCH_GENERATE)
    )
    assert any("gen.py:7:12: GG104" in line for line in found), found


def test_twin_an_import_inside_a_function_is_not_handed_on(tmp_path, capsys):
    inside = STAR_TORCH_MODEL.replace("from torch.autograd import Variable\n", "").replace(
        "def init_hidden(n):\n", "def init_hidden(n):\n        from torch.autograd import Variable\n"
    )
    found = findings(capsys, write(tmp_path, "model.py", inside), write(tmp_path, "gen.py", STAR_TORCH_GENERATE))
    assert not any("gen.py" in line and "GG104" in line for line in found), found


PLAIN_LOADER = """
    import torch
    from torch.utils.data import DataLoader, TensorDataset


    class ImdbLoader:
        def __init__(self, mode, batch_size):
            self.mode = mode
            self.batch_size = batch_size

        def get_data_loader(self):
            return DataLoader(TensorDataset(torch.zeros(8, 3), torch.zeros(8)), batch_size=self.batch_size)
"""

PLAIN_LOADER_TRAIN = """
    import torch

    from data_load import ImdbLoader


    def accuracy(model):
        loader = ImdbLoader("test", 2)
        for inputs, target in loader.get_data_loader():
            predict = model(inputs).max(-1)[-1]
            print(predict.eq(target.data).float().mean())
"""


def test_a_method_of_another_files_plain_class_returns_its_loader(tmp_path, capsys):
    found = findings(
        capsys, write(tmp_path, "data_load.py", PLAIN_LOADER), write(tmp_path, "train.py", PLAIN_LOADER_TRAIN)
    )
    assert any("train.py:11:26: GG101" in line for line in found), found


def test_twin_a_method_returning_no_tensors_gives_no_tensor(tmp_path, capsys):
    words = PLAIN_LOADER.replace(
        "return DataLoader(TensorDataset(torch.zeros(8, 3), torch.zeros(8)), batch_size=self.batch_size)",
        'return [("a good film", "pos"), ("a bad film", "neg")]',
    )
    found = findings(capsys, write(tmp_path, "data_load.py", words), write(tmp_path, "train.py", PLAIN_LOADER_TRAIN))
    assert not any("GG101" in line for line in found), found


def test_models_of_other_files_dropped_past_the_limit_are_made_again(tmp_path, capsys, monkeypatch):
    from gradguard.check.analysis import project

    monkeypatch.setattr(project, "ANALYSES_KEPT", 1)
    write(tmp_path, "kl.py", "import torch\n\ndef kl_loss(mu):\n    return torch.mean(mu.pow(2))\n")
    write(tmp_path, "rec.py", "import torch\n\ndef rec_loss(x):\n    return torch.mean(x.abs())\n")
    train = write(
        tmp_path,
        "train.py",
        "import torch\nfrom kl import kl_loss\nfrom rec import rec_loss\n\n"
        "for x in loader:\n    print(kl_loss(x).data[0], rec_loss(x).data[0], kl_loss(x).data[0])\n",
    )
    found = findings(capsys, tmp_path / "kl.py", tmp_path / "rec.py", train)
    assert len([line for line in found if "GG105" in line]) == 3, found


def test_index_sent_to_a_spawned_worker_leaves_its_memos_behind(tmp_path):
    import pickle

    model = write(tmp_path, "model.py", MODEL)
    index = build_index([str(model), str(write(tmp_path, "train.py", TRAIN))])
    assert index.parsed(str(model)) is not None  # a memo of a parsed file
    back = pickle.loads(pickle.dumps(index))
    assert not [name for name in vars(back) if name.startswith("_")]
    assert back.digest() == index.digest() and back.classes == index.classes


def _notebook(folder, name, *cells):
    import json

    document = {
        "cells": [{"cell_type": "code", "metadata": {}, "source": textwrap.dedent(c), "outputs": []} for c in cells],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = folder / name
    path.write_text(json.dumps(document))
    return path


def test_function_called_from_a_notebook_under_no_grad_is_not_flagged(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", EVALUATE)
    notebook = _notebook(
        tmp_path,
        "demo.ipynb",
        "import torch\nfrom utils import evaluate\n",
        "with torch.no_grad():\n    evaluate(net, loader)\n",
    )
    assert not any("GG201" in line for line in findings(capsys, utils, notebook))


def test_twin_function_called_from_a_notebook_with_grad_is_flagged(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", EVALUATE)
    notebook = _notebook(
        tmp_path, "demo.ipynb", "import torch\nfrom utils import evaluate\n", "evaluate(net, loader)\n"
    )
    assert any("utils.py" in line and "GG201" in line for line in findings(capsys, utils, notebook))


METER = """
    class AverageMeter:
        def __init__(self):
            self.sum, self.count = 0, 0

        def update(self, val, n=1):
            self.val = val
            self.sum += val * n
            self.count += n
"""

METERED_TRAINING = """
    import torch
    from meters import AverageMeter

    losses = AverageMeter()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss, x.size(0))
"""


def test_index_records_the_arguments_a_class_keeps_across_calls(tmp_path):
    meters = write(tmp_path, "meters.py", METER)
    fact = build_index([str(meters)]).classes["meters.AverageMeter"]
    assert fact.accumulating == frozenset({("update", 0), ("update", 1)})


def test_a_loss_handed_to_another_files_meter_is_an_accumulated_graph(tmp_path, capsys):
    meters = write(tmp_path, "meters.py", METER)
    train = write(tmp_path, "train.py", METERED_TRAINING)
    found = [line for line in findings(capsys, meters, train) if "GG301" in line]
    assert len(found) == 1 and "train.py:11:5" in found[0] and "pass `loss.detach()`" in found[0], found


def test_a_meter_that_turns_its_argument_into_a_number_first_keeps_nothing(tmp_path):
    meters = write(
        tmp_path,
        "meters.py",
        METER.replace(
            "self.val = val\n",
            "if isinstance(val, torch.Tensor) and val.dim() == 0:\n                val = val.item()\n            self.val = val\n",
        ),
    )
    fact = build_index([str(meters)]).classes["meters.AverageMeter"]
    assert fact.accumulating == frozenset({("update", 1)})


def test_twin_a_meter_that_keeps_numbers_is_quiet(tmp_path, capsys):
    meters = write(tmp_path, "meters.py", METER.replace("self.sum += val * n", "self.sum += val.item() * n"))
    train = write(tmp_path, "train.py", METERED_TRAINING)
    assert not any("GG301" in line for line in findings(capsys, meters, train))


def test_twin_a_class_adding_what_its_argument_holds_keeps_no_argument(tmp_path):
    # OpenNMT's `Statistics.update(self, stat)`: `self.loss += stat.loss` adds numbers the
    # statistics object holds, not the object.
    stats = write(
        tmp_path,
        "stats.py",
        """
        class Statistics:
            def update(self, stat):
                self.loss += stat.loss
                self.n_words += stat.n_words
        """,
    )
    assert build_index([str(stats)]).classes["stats.Statistics"].accumulating == frozenset()


CAPTIONER = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Linear(8, 8)
            self.decoder = Decoder()

        def forward(self, image, caption):
            return self.decoder(self.encoder(image), caption)

        def sample(self, image):
            return self.decoder.sample(self.encoder(image))


    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(8, 8, batch_first=True)
            self.linear = nn.Linear(8, 10)

        def forward(self, feature, caption):
            out, _ = self.rnn(feature.unsqueeze(1))
            return self.linear(out)

        def sample(self, feature):
            indices = []
            embed, hidden = feature.unsqueeze(1), None
            for t in range(20):
                out, hidden = self.rnn(embed, hidden)
                indices.append(self.linear(out.squeeze(1)).argmax(1))
            return torch.stack(indices, 1).cpu().numpy()
"""

SHOW_CAPTIONS = """
    import torch
    from net import Net

    net = Net()
    net.load_state_dict(torch.load("net.pt"))
    net.eval()
    with torch.no_grad():
        print(net.sample(torch.randn(1, 8)))
"""


def test_a_method_reached_only_from_one_another_file_runs_without_grad_runs_without_grad(tmp_path, capsys):
    # `Decoder.sample` runs only inside `Net.sample`, which the other file runs under no_grad,
    # though nothing in net.py turns grad off.
    net = write(tmp_path, "net.py", CAPTIONER)
    show = write(tmp_path, "show.py", SHOW_CAPTIONS)
    assert not any("GG201" in line for line in findings(capsys, net, show))


def test_twin_the_same_chain_run_with_grad_is_reported_inside(tmp_path, capsys):
    net = write(tmp_path, "net.py", CAPTIONER)
    show = write(tmp_path, "show.py", SHOW_CAPTIONS.replace("with torch.no_grad():", "if True:"))
    found = [line for line in findings(capsys, net, show) if "GG201" in line]
    assert any("net.py:33:27" in line for line in found), found


BUILDS_MODEL = """
    import torch.nn as nn


    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    model = ConvNet()
"""

RUNS_IMPORTED_MODEL = """
    import torch
    from model import model


    def test(test_loader):
        model.eval()
        correct = 0
        for data, target in test_loader:
            output = model(data)
            correct += (output.argmax(1) == target).sum().item()
        print(correct)
"""


def test_index_records_a_module_level_instance_of_a_module_class():
    import os
    import tempfile

    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "model.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(BUILDS_MODEL))
    assert build_index([path]).instances == {"model.model": "model.ConvNet"}


def test_a_model_instance_imported_from_another_file_is_a_model(tmp_path, capsys):
    model = write(tmp_path, "model.py", BUILDS_MODEL)
    run = write(tmp_path, "run.py", RUNS_IMPORTED_MODEL)
    found = [line for line in findings(capsys, model, run) if "GG201" in line]
    assert any("run.py:10:18" in line for line in found), found


def test_twin_an_instance_of_a_plain_class_imported_from_another_file_is_no_model(tmp_path, capsys):
    model = write(tmp_path, "model.py", BUILDS_MODEL.replace("class ConvNet(nn.Module):", "class ConvNet:"))
    run = write(tmp_path, "run.py", RUNS_IMPORTED_MODEL)
    assert not any("GG201" in line for line in findings(capsys, model, run))


D2L_UTILS = """
    import torch


    def linreg(X, w, b):
        return torch.mm(X, w) + b


    def squared_loss(y_hat, y):
        return (y_hat - y.view(y_hat.size())) ** 2 / 2
"""

D2L_CHAPTER = """
    import torch
    import Function.utils as d2l

    features = torch.randn(100, 2)
    labels = torch.randn(100, 1)
    net, loss = d2l.linreg, d2l.squared_loss


    def fit(num_epochs, lr):
        w = torch.randn((2, 1), requires_grad=True)
        b = torch.zeros(1, requires_grad=True)
        train_ls = []
        for _ in range(num_epochs):
            l = loss(net(features, w, b), labels).sum()
            l.backward()
            with torch.no_grad():
                w -= lr * w.grad
                b -= lr * b.grad
            train_ls.append(loss(net(features, w, b), labels).mean().item())
        return train_ls
"""


def _d2l_copies(tmp_path, chapter=D2L_CHAPTER, utils=D2L_UTILS):
    """A repository with a copy of d2l's helpers at its root and in one chapter's folder (both
    `Function/utils.py`), and a chapter in another folder importing the root's."""
    for folder in (tmp_path / "Function", tmp_path / "kaggle" / "Function", tmp_path / "ch3"):
        folder.mkdir(parents=True)
    for package in (tmp_path / "Function", tmp_path / "kaggle" / "Function"):
        write(package, "__init__.py", "")
    write(tmp_path / "Function", "utils.py", utils)
    write(tmp_path / "kaggle" / "Function", "utils.py", "def unrelated():\n    return 1\n")
    return write(tmp_path / "ch3", "linear.py", chapter)


def test_index_resolves_a_shared_name_to_the_nearest_folder_above_that_holds_it(tmp_path):
    chapter = _d2l_copies(tmp_path)
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    index = build_index(paths)
    assert "Function.utils" in index.shared_names
    key = index.function_key(str(chapter), "Function.utils.linreg")
    assert key == f"{index.module_of(str(tmp_path / 'Function' / 'utils.py'))}.linreg"
    assert key in index.functions


def test_a_hand_written_model_of_a_helpers_copy_in_the_run_evaluated_on_trained_weights(tmp_path, capsys):
    # `net = d2l.linreg` of the run's own copy of the book's helpers: `linreg` computes the model
    # from the weights it is handed, which this loop trains; the recorded loss only reads it.
    _d2l_copies(tmp_path)
    found = [line for line in findings(capsys, tmp_path) if "GG201" in line]
    assert [line.split("/")[-1].split(" ")[0] for line in found] == ["linear.py:20:30:"], found


def test_twin_a_helpers_copy_function_that_is_no_hand_written_model_is_quiet(tmp_path, capsys):
    # `linreg` here is two statements, not one expression over its weights: nothing says the call
    # runs a model.
    utils = D2L_UTILS.replace("return torch.mm(X, w) + b", "out = torch.mm(X, w)\n        return out + b")
    _d2l_copies(tmp_path, utils=utils)
    assert not any("GG201" in line for line in findings(capsys, tmp_path))


def test_twin_weights_the_code_does_not_train_are_quiet(tmp_path, capsys):
    chapter = D2L_CHAPTER.replace("requires_grad=True", "requires_grad=False").replace("            l.backward()\n", "")
    _d2l_copies(tmp_path, chapter=chapter)
    assert not any("GG201" in line for line in findings(capsys, tmp_path))


LOSSES_OF_THE_RUN = """
    import torch
    from torch import nn


    class PCCLoss(nn.Module):
        def forward(self, x, y):
            vx, vy = x - x.mean(), y - y.mean()
            return 1 - (vx * vy).sum() / (torch.sqrt((vx**2).sum()) * torch.sqrt((vy**2).sum()))
"""

VALID_FN = """
    import torch
    from torch import nn
    from losses import PCCLoss


    def valid_fn(loader, model, criterion):
        model.eval()
        total = 0.0
        for inputs, labels in loader:
            with torch.no_grad():
                preds = model(inputs)
            loss = criterion(preds.view(-1), labels.view(-1))
            total += loss.item()
        return total


    def run(loader, kind):
        model = nn.Linear(8, 1)
        if kind == "mse":
            criterion = nn.MSELoss()
        elif kind == "pcc":
            criterion = PCCLoss()
        else:
            criterion = nn.BCEWithLogitsLoss()
        return valid_fn(loader, model, criterion)
"""


def test_a_loss_module_on_every_path_is_no_model_evaluated_with_grad(tmp_path, capsys):
    # `criterion` is one of torch's losses or the run's `PCCLoss` (no layers of its own): on
    # outputs made under `no_grad`, it records no graph.
    found = findings(capsys, write(tmp_path, "losses.py", LOSSES_OF_THE_RUN), write(tmp_path, "train.py", VALID_FN))
    assert not any("GG201" in line for line in found), found


def test_twin_a_loss_class_holding_a_layer_is_judged_as_a_model(tmp_path, capsys):
    # a learned loss (`nn.Linear` in its body) holds parameters: its call records a graph
    learned = LOSSES_OF_THE_RUN.replace(
        "class PCCLoss(nn.Module):\n",
        "class PCCLoss(nn.Module):\n        def __init__(self):\n            super().__init__()\n"
        "            self.scale = nn.Linear(1, 1)\n\n",
    )
    found = findings(capsys, write(tmp_path, "losses.py", learned), write(tmp_path, "train.py", VALID_FN))
    assert any("GG201" in line and "criterion(...)" in line for line in found), found


ROI_ROTATE = """
    import numpy as np
    import torch
    import torch.nn as nn


    class ROIRotate(nn.Module):
        def forward(self, feature_map, boxes):
            crops = feature_map[:, :, :8, :8]
            widths = [int(b[2] - b[0]) for b in boxes.tolist()]
            return crops, np.array(widths), torch.arange(len(widths))
"""

FOTS = """
    import torch
    from roi_rotate import ROIRotate


    roirotate = ROIRotate()
    rois, lengths, indices = roirotate(feature_map, boxes)
    lengths = torch.tensor(lengths)
"""


def test_what_another_files_module_returns_is_known_item_by_item(tmp_path, capsys):
    # its `forward` hands back a numpy array second: `torch.tensor(lengths)` converts it (no GG103)
    found = findings(capsys, write(tmp_path, "roi_rotate.py", ROI_ROTATE), write(tmp_path, "fots.py", FOTS))
    assert not any("GG103" in line for line in found), found


def test_twin_a_tensor_another_files_module_returns_is_copied(tmp_path, capsys):
    returns_tensor = ROI_ROTATE.replace("np.array(widths)", "crops.sum(dim=(1, 2, 3))")
    found = findings(capsys, write(tmp_path, "roi_rotate.py", returns_tensor), write(tmp_path, "fots.py", FOTS))
    assert any("GG103" in line and "torch.tensor(lengths)" in line for line in found), found


def _fots(tmp_path, base_body):
    (tmp_path / "base").mkdir()
    write(tmp_path / "base", "__init__.py", "from .base_model import *\n")
    write(tmp_path / "base", "base_model.py", base_body)
    return write(
        tmp_path,
        "model.py",
        """
        import torch
        from base import BaseModel


        class Recognizer(BaseModel):
            def forward(self, x):
                return x


        class FOTS:
            def __init__(self):
                self.recognizer = Recognizer()
                self.recognizer.register_backward_hook(lambda m, gi, go: gi)
        """,
    )


def test_a_base_class_a_package_reexports_by_a_star_import_makes_a_module(tmp_path, capsys):
    found = findings(
        capsys, _fots(tmp_path, "import torch.nn as nn\n\n\nclass BaseModel(nn.Module):\n    pass\n"), tmp_path
    )
    assert any("GG107" in line for line in found), found


def test_twin_a_plain_base_class_a_package_reexports_makes_no_module(tmp_path, capsys):
    found = findings(capsys, _fots(tmp_path, "import torch\n\n\nclass BaseModel:\n    pass\n"), tmp_path)
    assert not any("GG107" in line for line in found), found


TRAINER_OF_THE_RUN = """
    import torch


    class Trainer:
        def __init__(self, g):
            self._gen = g
            self._opt = torch.optim.Adam(self._gen.parameters())
"""

SHOW_SCRIPT = """
    import torch
    from train import Trainer

    trainer = Trainer(g)
    trainer._gen.load_state_dict(torch.load("g.pt"))
    for x, y in test_loader:
        print(trainer._gen(x).argmax(1))
"""


def _package_scripts(tmp_path, trainer):
    (tmp_path / "code").mkdir()
    write(tmp_path / "code", "__init__.py", "")
    write(tmp_path / "code", "train.py", trainer)
    return write(tmp_path / "code", "show.py", SHOW_SCRIPT)


def test_an_attribute_another_files_class_uses_as_a_module_is_one_from_a_sibling_script(tmp_path, capsys):
    # `code/` is a package, yet `show.py` beside `train.py` imports it as `train`, as a script
    # run there does; `Trainer` hands `self._gen.parameters()` to an optimizer: a module
    _package_scripts(tmp_path, TRAINER_OF_THE_RUN)
    found = findings(capsys, tmp_path)
    assert any("show.py:8" in line and "GG201" in line and "trainer._gen(...)" in line for line in found), found


def test_twin_an_attribute_another_files_class_only_stores_is_no_module(tmp_path, capsys):
    _package_scripts(tmp_path, TRAINER_OF_THE_RUN.replace("torch.optim.Adam(self._gen.parameters())", "None"))
    assert not any("GG201" in line for line in findings(capsys, tmp_path))


def test_a_script_inside_a_package_imports_its_sibling_module_by_its_plain_name(tmp_path):
    # `from helpers import *` in `code/show.py`, `code/` a package: a script run there finds
    # `code/helpers.py`, which the run knows as `code.helpers`
    (tmp_path / "code").mkdir()
    write(tmp_path / "code", "__init__.py", "")
    helpers = write(tmp_path / "code", "helpers.py", "def to_labels(scores):\n    return scores.argmax(1).tolist()\n")
    show = write(tmp_path / "code", "show.py", "from helpers import *\n")
    index = build_index([str(helpers), str(show), str(tmp_path / "code" / "__init__.py")])
    assert index.resolve(str(show), "helpers") == "code.helpers"
    assert index.star_names(str(show), [("helpers", 0)]) == {"to_labels": "helpers.to_labels"}
    assert index.function_key(str(show), "helpers.to_labels") == "code.helpers.to_labels"
    # a module of that name nowhere beside the file stays as written
    assert index.resolve(str(tmp_path / "other.py"), "helpers") == "helpers"


CRF_LAYER = """
    import torch
    import torch.nn as nn


    class LinearChainCRF(nn.Module):
        def __init__(self, in_dim, num_tags):
            super().__init__()
            self.linear = nn.Linear(in_dim, num_tags)
            self.transitions = nn.Parameter(torch.randn(num_tags, num_tags))

        def forward(self, x):
            return self.linear(x) + self.transitions[0]

        def viterbi_decode(self, x):
            scores = self.forward(x)
            return scores.argmax(-1).tolist()
"""

BERT_CRF = """
    from transformers import BertPreTrainedModel
    from crf_layer import LinearChainCRF


    class BertCRF(BertPreTrainedModel):
        def __init__(self, config, num_labels):
            super().__init__(config)
            self.crf = LinearChainCRF(config.hidden_size, num_labels)
"""

EVALUATE_CRF = """
    import torch


    def run_eval(model, loader):
        model.eval()
        paths = []
        for batch in loader:
            with torch.no_grad():
                logits = model.bert(batch)[0]
            paths += model.crf.viterbi_decode(logits)
        return paths
"""


def test_a_submodule_the_runs_classes_store_under_a_name_is_that_class(tmp_path, capsys):
    # `model.crf` of a model of unknown class: the run's one class stored as `self.crf` runs its
    # layers in `viterbi_decode`, outside the `no_grad` of the encoder's call
    files = [write(tmp_path, "crf_layer.py", CRF_LAYER), write(tmp_path, "bert_crf.py", BERT_CRF)]
    found = findings(capsys, *files, write(tmp_path, "evaluate.py", EVALUATE_CRF))
    assert any("evaluate.py:11" in line and "GG201" in line for line in found), found


def test_twin_a_name_two_classes_are_stored_under_is_not_known(tmp_path, capsys):
    # another class of the run stores another module class as `self.crf`: which one `model.crf`
    # holds is not known
    layers = CRF_LAYER + "\n\n    class PlainCRF(nn.Module):\n        pass\n"
    other = """
        from transformers import BertPreTrainedModel
        from crf_layer import PlainCRF


        class Other(BertPreTrainedModel):
            def __init__(self, config):
                super().__init__(config)
                self.crf = PlainCRF()
    """
    files = [
        write(tmp_path, "crf_layer.py", layers),
        write(tmp_path, "bert_crf.py", BERT_CRF),
        write(tmp_path, "other.py", other),
    ]
    found = findings(capsys, *files, write(tmp_path, "evaluate.py", EVALUATE_CRF))
    assert not any(line.split(":")[0].endswith("evaluate.py") and "GG201" in line for line in found), found


CRITIC = """
    import torch.nn as nn


    class QNet(nn.Module):
        def __init__(self, obs_dim, n_actions):
            super().__init__()
            self.fc = nn.Linear(obs_dim, n_actions)

        def forward(self, obs):
            return self.fc(obs)


    class DQNCritic:
        def __init__(self, obs_dim, n_actions):
            self.q_net = QNet(obs_dim, n_actions)
"""

ARGMAX_POLICY = """
    import torch


    class ArgMaxPolicy:
        def __init__(self, critic):
            self.critic = critic

        def get_action(self, obs):
            observation = torch.as_tensor(obs)
            return self.critic.q_net(observation).argmax().item()
"""


def test_an_attribute_the_runs_classes_store_only_modules_under_is_a_module(tmp_path, capsys):
    # `self.critic` is handed in; `.q_net` is what the run's classes store only a module class
    # under (`self.q_net = QNet(...)` in another file): the action is picked with grad on
    critic = write(tmp_path, "critic.py", CRITIC)
    found = findings(capsys, critic, write(tmp_path, "policy.py", ARGMAX_POLICY))
    assert any("policy.py:11" in line and "GG201" in line for line in found), found


def test_twin_an_attribute_also_holding_a_plain_class_is_not_known(tmp_path, capsys):
    # another class of the run stores a plain class under the same name (`self.q_net =
    # TabularQ(...)`, numpy): what `.q_net` holds on an unknown receiver is not known
    other = """
        import numpy as np


        class TabularQ:
            def __init__(self, n):
                self.table = np.zeros(n)

            def __call__(self, obs):
                return self.table


        class TabularCritic:
            def __init__(self, n):
                self.q_net = TabularQ(n)
    """
    files = [write(tmp_path, "critic.py", CRITIC), write(tmp_path, "tabular.py", other)]
    found = findings(capsys, *files, write(tmp_path, "policy.py", ARGMAX_POLICY))
    assert not any(line.split(":")[0].endswith("policy.py") and "GG201" in line for line in found), found


PYTORCH_UTIL = """
    import torch


    def from_numpy(x):
        return torch.from_numpy(x).float()


    def to_numpy(t):
        return t.to("cpu").detach().numpy()
"""

POLICY = """
    from torch import nn

    from cs285.infrastructure import pytorch_util as ptu


    class Policy(nn.Module):
        def __init__(self, obs_dim, n_actions):
            super().__init__()
            self.logits_na = nn.Linear(obs_dim, n_actions)

        def get_action(self, obs):
            return ptu.to_numpy(self.logits_na(ptu.from_numpy(obs)))
"""


def _homework(folder, util=PYTORCH_UTIL, agents=False):
    """A course homework: the package `cs285/infrastructure/` with `pytorch_util.py`, a policy
    using it, and (``agents``) a package of its own (`cs285/agents/`) no other homework has."""
    for package in ("infrastructure", "policies", *(("agents",) if agents else ())):
        (folder / "cs285" / package).mkdir(parents=True)
        write(folder / "cs285" / package, "__init__.py", "")
    if agents:
        write(folder / "cs285" / "agents", "agent.py", "from cs285.policies.policy import Policy\n")
    write(folder / "cs285" / "infrastructure", "pytorch_util.py", util)
    return write(folder / "cs285" / "policies", "policy.py", POLICY)


def test_a_models_output_handed_to_a_reading_function_of_another_file_is_only_read(tmp_path, capsys):
    # `ptu.to_numpy` detaches what it is handed: the policy's forward pass records a graph that
    # nothing backpropagates, though the policy's own file shows no reading. Two homeworks of one
    # repository each hold the package: each policy imports its own folder's.
    _homework(tmp_path / "hw1", agents=True)
    _homework(tmp_path / "hw2")
    found = findings(capsys, tmp_path)
    for hw in ("hw1", "hw2"):
        assert any(f"{hw}/cs285/policies/policy.py:13:29: GG201" in line for line in found), found


def test_twin_a_models_output_handed_to_a_function_keeping_its_graph_is_not_only_read(tmp_path, capsys):
    # the helper only moves the tensor (`t.to("cpu")`): its graph goes on to the caller
    keeping = PYTORCH_UTIL.replace('t.to("cpu").detach().numpy()', 't.to("cpu")')
    _homework(tmp_path / "hw1", keeping)
    found = findings(capsys, tmp_path)
    assert not any("GG201" in line for line in found), found


def test_the_index_forgets_what_it_learnt_while_it_was_filled(tmp_path):
    # the common folder of the run, asked while the first homework was read (its own package
    # `cs285.agents`), is that of both homeworks
    _homework(tmp_path / "hw1", agents=True)
    _homework(tmp_path / "hw2")
    index = build_index(sorted(str(path) for path in tmp_path.rglob("*.py")))
    assert index._common_folder() == str(tmp_path)


MYUNET = """
    import torch.nn as nn
    import torch.nn.functional as F


    class BCELoss2d(nn.Module):
        def forward(self, logits, targets):
            return F.binary_cross_entropy_with_logits(logits.view(-1), targets.view(-1))
"""

CLASSIFY = """
    import torch
    from main import BCELoss2d

    bce2d = BCELoss2d()
    for images, masks in loader:
        bce_loss = bce2d(net(images), masks)
        print(bce_loss.data[0])
"""


def test_a_class_a_module_takes_from_another_is_that_class_where_a_third_imports_it(tmp_path, capsys):
    # `main.py` does `from myunet import BCELoss2d`; `from main import BCELoss2d` is that loss
    files = [
        write(tmp_path, "myunet.py", MYUNET),
        write(tmp_path, "main.py", "import torch\nfrom myunet import BCELoss2d\n"),
        write(tmp_path, "classify.py", CLASSIFY),
    ]
    found = findings(capsys, *files)
    assert any("classify.py:8:11: GG105" in line for line in found), found


def test_twin_a_name_the_module_does_not_take_from_the_run_is_not_known(tmp_path, capsys):
    files = [
        write(tmp_path, "myunet.py", MYUNET),
        write(tmp_path, "main.py", "import torch\n"),
        write(tmp_path, "classify.py", CLASSIFY),
    ]
    found = findings(capsys, *files)
    assert not any("classify.py" in line and "GG105" in line for line in found), found


SELECTOR = """
    import torch
    import torchvision


    def get_checkpoint_resnet(load_path, layers=18):
        net = torchvision.models.resnet18(num_classes=10)
        net.load_state_dict(torch.load(load_path)["state_dict"])
        return net


    def get_default_resnet(layers=18):
        return torchvision.models.resnet18(num_classes=10)
"""

VISUALIZE = """
    import torch
    from model import model_selector

    model = model_selector.{function}("x.pth")
    for inputs, labels in loader:
        normal_pred = model(inputs)
        save_prediction(normal_pred)
"""


def test_a_model_a_function_of_the_run_loads_from_a_file_has_trained_weights(tmp_path, capsys):
    # `get_checkpoint_resnet` loads a state dict into the network it hands back: its outputs in a
    # script that never uses gradients are evaluations of trained weights
    (tmp_path / "model").mkdir()
    write(tmp_path / "model", "model_selector.py", SELECTOR)
    write(tmp_path, "visualize.py", VISUALIZE.replace("{function}", "get_checkpoint_resnet"))
    found = findings(capsys, tmp_path)
    assert any("visualize.py:7:19: GG201" in line and "loaded from a file" in line for line in found), found


def test_twin_a_model_a_function_of_the_run_builds_without_loading_is_not_loaded(tmp_path, capsys):
    (tmp_path / "model").mkdir()
    write(tmp_path / "model", "model_selector.py", SELECTOR)
    write(tmp_path, "visualize.py", VISUALIZE.replace("{function}", "get_default_resnet"))
    found = findings(capsys, tmp_path)
    assert not any("visualize.py" in line and "GG201" in line for line in found), found


DIFFUSION = """
    import torch
    import torch.nn as nn


    class Diffusion(nn.Module):
        def __init__(self, net, steps):
            super().__init__()
            self.net = net
            self.steps = steps

        def forward(self, x, t):
            return self.net(x, t)

        @torch.inference_mode()
        def denoise_step(self, x, t):
            return x - self(x, t)

        def denoise(self, x):
            for t in reversed(range(self.steps)):
                x = self.denoise_step(x, t)
            return x

        def sample(self, n):
            return self.denoise(torch.randn(n, 3, 32, 32))
"""

SAMPLE_SCRIPT = """
    import torch
    from ddpm import Diffusion

    model = Diffusion(UNet(), 1000)
    model.load_state_dict(torch.load("ddpm.pt"))
    images = model.sample(16)
    save_image(images, "samples.png")
"""


def test_a_method_of_another_files_model_running_it_only_through_a_quiet_method_is_quiet(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "ddpm.py", DIFFUSION), write(tmp_path, "sample.py", SAMPLE_SCRIPT))
    assert not any("sample.py" in line and "GG201" in line for line in found), found


def test_twin_the_same_method_without_the_decorator_runs_the_model(tmp_path, capsys):
    loud = DIFFUSION.replace("        @torch.inference_mode()\n", "")
    found = findings(capsys, write(tmp_path, "ddpm.py", loud), write(tmp_path, "sample.py", SAMPLE_SCRIPT))
    assert any("sample.py:7" in line and "GG201" in line for line in found), found


NESTED_BLOCKS = """
    import torch.nn as nn


    class BasicBlock(nn.Module):
        def __init__(self, c_in, c_out):
            super().__init__()
            self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
            self.bn = nn.BatchNorm2d(c_out)

        def forward(self, x):
            return self.bn(self.conv(x)).relu()


    class ResNet(nn.Module):
        def __init__(self, num_classes):
            super().__init__()
            self.b1 = BasicBlock(3, 64)
            self.fc = nn.Linear(64, num_classes)

        def forward(self, x):
            return self.fc(self.b1(x).mean((2, 3)))
"""

EVALUATE_RESNET = """
    import torch
    from resnet import ResNet

    model = ResNet(num_classes=10)
    model.load_state_dict(torch.load("ResNet.pth"))
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            correct += (output.argmax(1) == target).sum().item()
"""


def test_layers_of_the_blocks_another_files_model_builds_are_its_layers(tmp_path, capsys):
    # `ResNet` holds no batch norm itself, but builds `BasicBlock`s that do
    found = findings(
        capsys, write(tmp_path, "resnet.py", NESTED_BLOCKS), write(tmp_path, "evaluate.py", EVALUATE_RESNET)
    )
    assert any("evaluate.py:10" in line and "GG209" in line for line in found), found


def test_twin_blocks_without_mode_dependent_layers_give_none(tmp_path, capsys):
    plain = NESTED_BLOCKS.replace("self.bn = nn.BatchNorm2d(c_out)", "self.scale = 1.0").replace(
        "self.bn(self.conv(x))", "self.conv(x)"
    )
    found = findings(capsys, write(tmp_path, "resnet.py", plain), write(tmp_path, "evaluate.py", EVALUATE_RESNET))
    assert not any("GG209" in line for line in found), found


AGENTS = """
    import torch.nn as nn


    class QNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    class DDPGAgent:
        def __init__(self):
            self.qnet = QNet()
            self.qnet_targ = QNet()


    class TD3Agent:
        def __init__(self):
            self.qnet = QNet()
            self.qnet_targ = {qnet_targ}
"""

TRAINER = """
    import torch.nn.functional as F
    from agents import DDPGAgent, TD3Agent


    class Trainer:
        def __init__(self, td3, optimizer):
            self.agents = [TD3Agent() if td3 else DDPGAgent() for _ in range(2)]
            self.optimizer = optimizer

        def train(self, i, s, a, r, s2):
            target_q = self.agents[i].qnet_targ(s2).detach()
            loss = F.mse_loss(self.agents[i].qnet(s), r + 0.99 * target_q)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
"""


def test_an_attribute_of_agents_of_several_classes_is_the_module_every_class_stores_there(tmp_path, capsys):
    write(tmp_path, "agents.py", AGENTS.format(qnet_targ="QNet()"))
    write(tmp_path, "trainer.py", TRAINER)
    found = findings(capsys, tmp_path)
    assert [line for line in found if "trainer.py:12:" in line and "GG201" in line and "qnet_targ" in line]


def test_twin_an_attribute_a_class_stores_something_else_under_is_not_known(tmp_path, capsys):
    write(tmp_path, "agents.py", AGENTS.format(qnet_targ="make_target()"))
    write(tmp_path, "trainer.py", TRAINER)
    assert not [line for line in findings(capsys, tmp_path) if "trainer.py:12:" in line]


HELD_MODEL_ALGO = """
    import copy
    import torch

    class DQN:
        def __init__(self, model, lr):
            self.model = model
            self.target_model = copy.deepcopy(model)
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

        def predict(self, obs):
            return self.model(obs)

        def learn(self, obs, target):
            loss = ((self.model(obs) - target) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
"""

HANDED_ALGO_AGENT = """
    import numpy as np
    import torch

    class Agent:
        def __init__(self, algorithm):
            self.algo = algorithm

        def predict(self, obs):
            q = self.algo.predict(torch.tensor(obs))
            return int(torch.argmax(q).cpu().numpy())
"""


def test_index_knows_the_methods_of_a_plain_class_that_run_the_model_it_holds(tmp_path):
    write(tmp_path, "algo.py", HELD_MODEL_ALGO)
    write(tmp_path, "agent.py", HANDED_ALGO_AGENT)
    index = build_index([str(tmp_path / "algo.py"), str(tmp_path / "agent.py")])
    assert index.classes["algo.DQN"].held_model_methods == frozenset({"predict"})  # `learn` backpropagates
    assert index.classes["agent.Agent"].held_model_methods == frozenset()  # `self.algo` is no module it treats as one
    assert index.classes["agent.Agent"].delegating_methods == frozenset({"predict"})


def test_a_method_every_plain_class_of_the_run_runs_its_model_by_is_a_model_call(tmp_path, capsys):
    write(tmp_path, "algo.py", HELD_MODEL_ALGO)
    agent = write(tmp_path, "agent.py", HANDED_ALGO_AGENT)
    found = findings(capsys, tmp_path)
    assert [line for line in found if line.startswith(f"{agent}:10:")], found
    assert "`self.algo.predict(...)` runs with grad enabled although its output is only read" in "\n".join(found)


def test_twin_a_method_another_class_of_the_run_defines_without_a_model_is_not(tmp_path, capsys):
    write(tmp_path, "algo.py", HELD_MODEL_ALGO)
    write(tmp_path, "agent.py", HANDED_ALGO_AGENT)
    write(tmp_path, "baseline.py", "class Lookup:\n    def predict(self, obs):\n        return self.table[obs]\n")
    assert not [line for line in findings(capsys, tmp_path) if "agent.py" in line]


def test_index_knows_a_plain_class_running_a_method_of_the_model_it_holds(tmp_path):
    # an actor-critic "algorithm": `self.model.actor.parameters()`, `return self.model.act(obs)`
    write(
        tmp_path,
        "algo.py",
        """
        import torch

        class A2C:
            def __init__(self, model):
                self.model = model
                self.optimizer = torch.optim.Adam(self.model.actor.parameters())

            def predict(self, obs):
                return self.model.act(obs)

            def save(self, path):
                self.model.save(path)
        """,
    )
    index = build_index([str(tmp_path / "algo.py")])
    assert index.classes["algo.A2C"].held_model_methods == frozenset({"predict"})  # not `save`


ATTENTION = """
    import torch.nn as nn
    import torch.nn.functional as F

    class DotProductAttention(nn.Module):
        \"\"\"Scaled dot-product attention.\"\"\"
        def __init__(self, dropout: float = 0.0, optimized: bool = True):
            super().__init__()
            self.optimized = optimized
            self.dropout = dropout

        def forward(self, q, k, v):
            return F.dropout(F.softmax(q @ k.transpose(1, 2), -1), self.dropout) @ v

    class AdditiveAttention(nn.Module):
        def __init__(self, hidden, dropout=0.1):
            super().__init__()
            self.W = nn.Linear(hidden, hidden)
            self.dropout = dropout
"""

ATTENTION_DEMO = """
    import torch
    from attn import ATTENTION_CLASS

    queries = torch.normal(0, 1, (2, 1, 2))
    attention = ATTENTION_CLASS(dropout=0.5)
    attention.eval()
    attention(queries, queries, queries)
"""


def test_index_knows_a_module_class_holding_no_parameters(tmp_path):
    write(tmp_path, "attn.py", ATTENTION)
    index = build_index([str(tmp_path / "attn.py")])
    assert index.classes["attn.DotProductAttention"].parameterless
    assert not index.classes["attn.AdditiveAttention"].parameterless  # `nn.Linear`


def test_a_module_of_another_file_holding_no_parameters_records_no_graph(tmp_path, capsys):
    write(tmp_path, "attn.py", ATTENTION)
    write(tmp_path, "demo.py", ATTENTION_DEMO.replace("ATTENTION_CLASS", "DotProductAttention"))
    assert not [line for line in findings(capsys, tmp_path) if "GG201" in line]


def test_twin_a_module_of_another_file_with_a_layer_is_evaluated(tmp_path, capsys):
    # timed: a run for its cost (an untimed call whose output is dropped is a check that it runs)
    write(tmp_path, "attn.py", ATTENTION.replace("self.W = nn.Linear(hidden, hidden)", "self.W = nn.Linear(2, 2)"))
    write(
        tmp_path,
        "demo.py",
        ATTENTION_DEMO.replace("ATTENTION_CLASS", "AdditiveAttention")
        .replace("(dropout=0.5)", "(2)")
        .replace("import torch\n", "import time\n    import torch\n")
        .replace(
            "attention(queries, queries, queries)",
            "start = time.perf_counter()\n    attention(queries, queries, queries)",
        ),
    )
    found = [line for line in findings(capsys, tmp_path) if "GG201" in line]
    assert found and "demo.py:10:" in found[0], found


def test_twin_untimed_the_same_demo_is_a_check_that_it_runs(tmp_path, capsys):
    write(tmp_path, "attn.py", ATTENTION.replace("self.W = nn.Linear(hidden, hidden)", "self.W = nn.Linear(2, 2)"))
    write(
        tmp_path,
        "demo.py",
        ATTENTION_DEMO.replace("ATTENTION_CLASS", "AdditiveAttention").replace("(dropout=0.5)", "(2)"),
    )
    assert not [line for line in findings(capsys, tmp_path) if "GG201" in line]


FEW_SHOT = """
    import torch
    import torch.nn as nn

    class MetaTemplate(nn.Module):
        def __init__(self):
            super().__init__()
            self.feature = nn.Linear(4, 4)

        def correct(self, x):
            return self.set_forward(x).argmax(1)

        def test_loop(self, loader):
            return [self.correct(x) for x, _ in loader]

    class ProtoNet(MetaTemplate):
        def set_forward(self, x):
            return self.feature(x)

    class MAML(MetaTemplate):
        def set_forward(self, x):
            fast = list(self.parameters())
            loss = self.feature(x).sum()
            grad = torch.autograd.grad(loss, fast, create_graph=True)
            return self.feature(x) - grad[0].sum()
"""

FEW_SHOT_TEST = """
    import torch
    from methods import MAML, ProtoNet

    if method == "maml":
        model = MAML()
    else:
        model = ProtoNet()
    model.load_state_dict(torch.load("best_model.tar")["state"])
    model.eval()
    accuracy = model.test_loop(novel_loader)
    print(accuracy)
"""


def test_a_method_of_a_model_that_may_be_a_meta_learner_of_the_run_is_no_evaluation(tmp_path, capsys):
    write(tmp_path, "methods.py", FEW_SHOT)
    write(tmp_path, "test.py", FEW_SHOT_TEST)
    assert not [line for line in findings(capsys, tmp_path) if "test.py" in line and "GG201" in line]


def test_twin_without_a_meta_learner_the_method_call_is_evaluated(tmp_path, capsys):
    write(
        tmp_path,
        "methods.py",
        FEW_SHOT.replace("grad = torch.autograd.grad(loss, fast, create_graph=True)", "grad = fast"),
    )
    write(tmp_path, "test.py", FEW_SHOT_TEST)
    assert [line for line in findings(capsys, tmp_path) if "test.py" in line and "GG201" in line]


INFERENCE = """
    import numpy as np
    import torch
    from model import ANNOTATED


    class Inference:
        def __init__(self, neural_net: ANNOTATED):
            self._neural_net = neural_net

        def _predict(self, image):
            prediction = self._neural_net(image)
            return np.floor(prediction.cpu().detach().numpy() * 255)
"""


def test_a_parameter_annotated_with_a_module_class_of_another_file_holds_a_model(tmp_path, capsys):
    write(tmp_path, "model.py", MODEL)
    write(tmp_path, "inference.py", INFERENCE.replace("ANNOTATED", "Net"))
    found = [line for line in findings(capsys, tmp_path) if "inference.py" in line and "GG201" in line]
    assert found and "inference.py:12:" in found[0], found


def test_twin_a_parameter_annotated_with_a_plain_class_of_another_file_holds_no_model(tmp_path, capsys):
    write(tmp_path, "model.py", MODEL)
    write(tmp_path, "inference.py", INFERENCE.replace("ANNOTATED", "Plain").replace("neural_net", "helper"))
    assert not [line for line in findings(capsys, tmp_path) if "inference.py" in line and "GG201" in line]


SOLVER = """
    import torch


    class Solver:
        def __init__(self, model, loader):
            self.model = model
            self.loader = loader
            self.optimizer = torch.optim.Adam(model.parameters())

        def run_epoch(self, is_training):
            for x, y in self.loader:
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                if is_training:
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()

        def train_eval(self):
            for epoch in range(10):
                self.run_epoch(True)
"""

SOLVER_MAIN = """
    import torch
    from solver import Solver


    def main():
        model = torch.nn.Sequential(torch.nn.Linear(4, 1), torch.nn.Dropout(0.2))
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4), torch.randn(8, 1)))
        solver = Solver(model, loader)
        solver.train_eval()
        model.eval()
        prediction = model(torch.randn(1, 4))
        print(prediction.detach().numpy())
"""


def test_a_function_training_through_a_method_of_another_file_s_class_is_not_told_to_disable_grad(tmp_path, capsys):
    # `solver.train_eval()` backpropagates (through `run_epoch`): `@torch.no_grad()` on `main`
    # would break the training; the prediction after it is reported for itself.
    write(tmp_path, "solver.py", SOLVER)
    write(tmp_path, "main.py", SOLVER_MAIN)
    found = [line for line in findings(capsys, tmp_path) if "main.py" in line and "GG201" in line]
    assert len(found) == 1 and "main.py:12:" in found[0] and "never backpropagated" in found[0], found


def test_twin_a_function_calling_a_method_of_another_file_s_class_that_does_not_train_uses_no_grad(tmp_path, capsys):
    write(tmp_path, "solver.py", SOLVER.replace("loss.backward()", "print(loss.item())"))
    write(tmp_path, "main.py", SOLVER_MAIN)
    found = [line for line in findings(capsys, tmp_path) if "main.py" in line and "GG201" in line]
    assert len(found) == 1 and "nothing in this function uses gradients" in found[0], found


JACOBIAN = """
    import torch


    def calculate_jacobian(images, target, model, criterion):
        images.requires_grad = True
        output = model(images)
        criterion(output, target).backward()
        return images.grad, output
"""

ADVERSARIAL_DEMO = """
    import torch
    from utils import calculate_jacobian


    def show_adversarial_example(net, loader):
        criterion = torch.nn.CrossEntropyLoss()
        net.eval()
        for data, target in loader:
            gradient, output = calculate_jacobian(data, target, net, criterion)
            adversarial = data + 10 * gradient
            adv_output = net(adversarial)
            print(adv_output.argmax(1))
"""


def test_a_function_of_another_file_that_backpropagates_makes_its_caller_use_gradients(tmp_path, capsys):
    # `@torch.no_grad()` on the demo would make `calculate_jacobian` raise: only the call whose
    # output is only read is reported, for itself.
    write(tmp_path, "utils.py", JACOBIAN)
    write(tmp_path, "demo.py", ADVERSARIAL_DEMO)
    found = [line for line in findings(capsys, tmp_path) if "demo.py" in line and "GG201" in line]
    assert len(found) == 1 and "demo.py:12:" in found[0] and "nothing in this function" not in found[0], found


def test_twin_a_function_of_another_file_that_does_not_backpropagate_uses_no_gradients(tmp_path, capsys):
    write(tmp_path, "utils.py", JACOBIAN.replace("criterion(output, target).backward()", "print(output)"))
    write(tmp_path, "demo.py", ADVERSARIAL_DEMO)
    found = [line for line in findings(capsys, tmp_path) if "demo.py" in line and "GG201" in line]
    assert found and all("nothing in this function uses gradients" in line for line in found), found


DDPG_AGENT = """
    import torch
    from torch import nn


    class DDPGAgent:
        def __init__(self):
            self.actor = nn.Linear(4, 2)
            self.critic = nn.Linear(6, 1)
            self.actor_optimizer = torch.optim.Adam(self.actor.parameters())

        def update(self, x, pred_a):
            actor_loss = -self.critic(torch.cat([x, pred_a], 1)).mean()
            self.actor_optimizer.zero_grad()
            actor_loss.backward()
            self.actor_optimizer.step()
"""

MADDPG = """
    import torch
    from ddpg import DDPGAgent


    class MADDPGAgent:
        def __init__(self, n):
            self.agents = [DDPGAgent() for _ in range(n)]

        def update(self, x):
            for agent in self.agents:
                others = [other.actor(x).detach() for other in self.agents if other is not agent]
                pred_a = agent.actor(x)
                agent.update(x, torch.cat([pred_a, *others], 1))
"""


def test_a_method_of_another_file_s_class_that_backpropagates_makes_its_caller_use_gradients(tmp_path, capsys):
    # `agent.update(...)` on an instance of DDPGAgent runs `actor_loss.backward()` through `pred_a`:
    # `@torch.no_grad()` on MADDPGAgent.update would break the training step.
    write(tmp_path, "ddpg.py", DDPG_AGENT)
    write(tmp_path, "maddpg.py", MADDPG)
    found = [line for line in findings(capsys, tmp_path) if "maddpg.py" in line and "GG201" in line]
    # only the other agents' actors, detached at once, are reported, each for itself
    assert len(found) == 1 and "detached at once" in found[0], found


def test_twin_a_method_of_another_file_s_class_that_does_not_backpropagate_uses_no_gradients(tmp_path, capsys):
    write(tmp_path, "ddpg.py", DDPG_AGENT.replace("actor_loss.backward()", "print(actor_loss.item())"))
    write(tmp_path, "maddpg.py", MADDPG)
    found = [line for line in findings(capsys, tmp_path) if "maddpg.py" in line and "GG201" in line]
    assert len(found) == 1 and "nothing in this function uses gradients" in found[0], found


VQ_MODEL = """
    from torch import nn


    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)

        def forward(self, x):
            return self.conv(x)


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self._encoder = Encoder()
            self._decoder = nn.ConvTranspose2d(8, 3, 3)

        def forward(self, x):
            return self._decoder(self._encoder(x))
"""

VQ_PROCESS = """
    import torch
    from model import Model


    class Process:
        def __init__(self, loader):
            self.model = Model()
            self.loader = loader

        def show(self):
            self.model.eval()
            originals, _ = next(iter(self.loader))
            reconstructions = self.model._decoder(self.model._encoder(originals))
            print(reconstructions.cpu().data)
"""


def test_a_layer_another_file_s_module_class_stores_is_a_module(tmp_path, capsys):
    # `self.model._encoder(x)`: a part of the model, with its weights, run with grad after `eval()`
    write(tmp_path, "model.py", VQ_MODEL)
    write(tmp_path, "process.py", VQ_PROCESS)
    found = [line for line in findings(capsys, tmp_path) if "process.py" in line and "GG201" in line]
    assert len(found) == 1 and "process.py:14:" in found[0], found


def test_twin_an_attribute_another_file_s_class_stores_a_function_s_result_under_is_not_known(tmp_path, capsys):
    model = VQ_MODEL.replace("self._encoder = Encoder()", "self._encoder = make_encoder()").replace(
        "self._decoder = nn.ConvTranspose2d(8, 3, 3)", "self._decoder = make_decoder()"
    )
    write(tmp_path, "model.py", model)
    write(tmp_path, "process.py", VQ_PROCESS)
    found = [line for line in findings(capsys, tmp_path) if "process.py" in line and "GG201" in line]
    assert found == [], found


def test_twin_a_parameter_another_file_s_module_class_stores_stays_a_tensor(tmp_path, capsys):
    # `self.weight = nn.Parameter(...)`: a tensor, whose `.data` write GG102 reports
    write(
        tmp_path,
        "layers.py",
        """
        import torch
        from torch import nn


        class Conv2D(nn.Module):
            def __init__(self, kernel_size):
                super().__init__()
                self.weight = nn.Parameter(torch.randn(kernel_size))

            def forward(self, x):
                return x * self.weight
        """,
    )
    write(
        tmp_path,
        "fit.py",
        """
        import torch
        from layers import Conv2D

        conv2d = Conv2D(kernel_size=(1, 2))
        for x, y in data:
            ((conv2d(x) - y) ** 2).sum().backward()
            conv2d.weight.data -= 0.01 * conv2d.weight.grad
        """,
    )
    found = [line for line in findings(capsys, tmp_path) if "fit.py" in line and "GG102" in line]
    assert len(found) == 1, found


META_LEARNER = """
    import torch
    import torch.nn.functional as F
    from torch import nn


    class LatentOptimizer:
        def __init__(self):
            self.encoder = nn.Linear(4, 2)
            self.classifier = nn.Linear(2, 3)

        def encode_task(self, x):
            return self.encoder(x)

        def inner_update(
            self,
            support_x: torch.Tensor,
            support_y: torch.Tensor,
            codes: torch.Tensor,
        ) -> torch.Tensor:
            codes = codes.clone().detach().requires_grad_(True)
            loss = F.cross_entropy(self.classifier(codes * support_x[:, :2]), support_y)
            grad = torch.autograd.grad(loss, codes, create_graph=True)[0]
            return codes - 0.1 * grad
"""

META_EVALUATION = """
    import torch
    from algorithms.leo import LatentOptimizer


    def evaluate(leo, loader):
        leo.eval()
        for x, y in loader:
            codes = leo.encode_task(x)
            adapted = leo.inner_update(x, y, codes)
            print(adapted.sum().item())
"""


def _meta_learning_project(tmp_path, learner):
    (tmp_path / "algorithms").mkdir()
    (tmp_path / "examples").mkdir()
    write(tmp_path / "algorithms", "__init__.py", "")
    write(tmp_path / "algorithms", "leo.py", learner)
    write(tmp_path / "examples", "demo.py", META_EVALUATION)


def test_a_method_of_another_folder_s_class_that_differentiates_makes_its_caller_use_gradients(tmp_path, capsys):
    # `inner_update` (a signature over several lines) runs `torch.autograd.grad`: `@torch.no_grad()`
    # on `evaluate` would make it raise. Only `encode_task`, whose output `inner_update` detaches,
    # is reported, for itself.
    _meta_learning_project(tmp_path, META_LEARNER)
    index = build_index([str(tmp_path / "algorithms" / "leo.py")])
    assert "inner_update" in index.classes["algorithms.leo.LatentOptimizer"].training_methods
    found = [line for line in findings(capsys, tmp_path) if "demo.py" in line and "GG201" in line]
    assert len(found) == 1 and "nothing in this function" not in found[0], found


def test_twin_a_method_of_another_folder_s_class_that_does_not_differentiate_uses_no_gradients(tmp_path, capsys):
    _meta_learning_project(
        tmp_path, META_LEARNER.replace("torch.autograd.grad(loss, codes, create_graph=True)[0]", "loss.detach()")
    )
    found = [line for line in findings(capsys, tmp_path) if "demo.py" in line and "GG201" in line]
    assert len(found) == 1 and "nothing in this function uses gradients" in found[0], found


FREEZE_TOOL = """
    from torch import nn


    def frozon(model: nn.Module):
        for p in model.parameters():
            p.requires_grad = False


    def free(model: nn.Module):
        for p in model.parameters():
            p.requires_grad = True
"""

FROZEN_TEST = """
    import torch
    from Tool import freeze


    def test(net, classifier, test_loader):
        freeze.frozon(net)
        freeze.frozon(classifier)
        for x, y in test_loader:
            pred = classifier(net.encoder(x))
            print((pred.argmax(1) == y).sum().item())
"""


def _freezing_project(tmp_path, train):
    (tmp_path / "Tool").mkdir()
    write(tmp_path / "Tool", "__init__.py", "")
    write(tmp_path / "Tool", "freeze.py", FREEZE_TOOL)
    write(tmp_path, "train.py", train)


def test_a_model_frozen_by_a_helper_of_another_file_records_no_graph(tmp_path, capsys):
    _freezing_project(tmp_path, FROZEN_TEST)
    assert [line for line in findings(capsys, tmp_path) if "GG201" in line] == []


def test_twin_a_model_thawed_by_a_helper_of_another_file_is_evaluated_with_grad(tmp_path, capsys):
    _freezing_project(tmp_path, FROZEN_TEST.replace("freeze.frozon(net)", "freeze.free(net)"))
    found = [line for line in findings(capsys, tmp_path) if "GG201" in line]
    assert len(found) == 1 and "`net.encoder(...)`" in found[0], found


def test_index_reads_a_definition_whose_signature_spans_lines(tmp_path):
    # black's layout: the closing `) -> T:` at the `def`'s own indentation does not end the body
    write(
        tmp_path,
        "ckpt.py",
        """
        import torch


        def load_checkpoint(
            model,
            path: str,
        ) -> torch.nn.Module:
            model.load_state_dict(torch.load(path))
            return model


        class Learner:
            def adapt(
                self,
                loss,
                weights,
            ):
                return torch.autograd.grad(loss, weights)
        """,
    )
    index = build_index([str(tmp_path / "ckpt.py")])
    assert index.loading_functions == {"ckpt": {"load_checkpoint"}}
    assert index.classes["ckpt.Learner"].training_methods == frozenset({"adapt"})


SELF_FREEZING_MODEL = """
    import torch.nn as nn
    import torchvision


    class VGG19(nn.Module):
        def __init__(self):
            super().__init__()
            self.final_model = torchvision.models.vgg19(weights="DEFAULT").features
            for param in self.final_model.parameters():
                param.requires_grad = False

        def forward(self, x):
            return self.final_model(x)
"""

STYLE_FEATURES = """
    import torch
    from model import VGG19


    class StyleTransfer:
        def __init__(self, content):
            self.content = content
            self.model = VGG19().eval()

        def content_features(self):
            return self.model(self.content).mean().item()
"""


def test_a_model_whose_class_of_another_file_freezes_itself_records_no_graph(tmp_path, capsys):
    write(tmp_path, "model.py", SELF_FREEZING_MODEL)
    write(tmp_path, "transfer.py", STYLE_FEATURES)
    assert build_index([str(tmp_path / "model.py")]).classes["model.VGG19"].frozen
    assert [line for line in findings(capsys, tmp_path) if "GG201" in line] == []


def test_twin_a_model_whose_class_freezes_only_a_part_is_evaluated_with_grad(tmp_path, capsys):
    with_head = SELF_FREEZING_MODEL.replace(
        "                param.requires_grad = False\n",
        "                param.requires_grad = False\n            self.head = nn.Linear(512, 10)\n",
    ).replace("return self.final_model(x)", "return self.head(self.final_model(x).mean((2, 3)))")
    write(tmp_path, "model.py", with_head)
    write(tmp_path, "transfer.py", STYLE_FEATURES)
    assert not build_index([str(tmp_path / "model.py")]).classes["model.VGG19"].frozen
    found = [line for line in findings(capsys, tmp_path) if "GG201" in line]
    assert len(found) == 1 and "transfer.py" in found[0], found


QUIET_BASE = """
    import torch
    import torch.nn as nn


    class ModelBase(nn.Module):
        def predict(self, loader):
            self.eval()
            with torch.no_grad():
                return torch.cat([self(x) for x in loader])
"""

PREDICTING = """
    import torch


    def report(model, loader):
        out = model.predict(loader)
        print(out.mean().item())
"""


def test_a_package_and_its_module_of_the_same_name_keep_their_keys_in_any_order(tmp_path):
    (tmp_path / "Base").mkdir()
    init = write(tmp_path / "Base", "__init__.py", "")
    base = write(tmp_path / "Base", "Base.py", QUIET_BASE)
    for order in ([base, init], [init, base]):
        index = build_index([str(path) for path in order])
        assert sorted(index.module_names.values()) == ["Base", "Base.Base"]
        assert index.classes["Base.Base.ModelBase"].quiet_methods == frozenset({"predict"})


def test_a_method_quiet_in_a_module_named_like_its_package_is_quiet_everywhere(tmp_path, capsys):
    (tmp_path / "Base").mkdir()
    write(tmp_path / "Base", "__init__.py", "")
    write(tmp_path / "Base", "Base.py", QUIET_BASE)
    write(tmp_path, "report.py", PREDICTING)
    assert not any("GG201" in line for line in findings(capsys, tmp_path))


def test_twin_a_method_running_with_grad_in_that_module_is_flagged(tmp_path, capsys):
    (tmp_path / "Base").mkdir()
    write(tmp_path / "Base", "__init__.py", "")
    write(tmp_path / "Base", "Base.py", QUIET_BASE.replace("with torch.no_grad():", "if True:"))
    write(tmp_path, "report.py", PREDICTING)
    assert any("report.py:6" in line and "GG201" in line for line in findings(capsys, tmp_path))


WRAPPER = """
    import torch


    class LSTMPredictor:
        def __init__(self, model):
            self.model = model

        def predict(self, x):
            self.model.eval()
            with torch.no_grad():
                out = self.model(torch.as_tensor(x))
            return out.cpu().numpy()
"""

SERVICE = """
    import torch


    class Service:
        def __init__(self, loaded):
            self.loaded = loaded

        def predict(self, x):
            model = self.loaded["model"]
            predictions = model.predict(x)
            return float(predictions[0])
"""


def test_a_method_every_wrapper_of_the_run_runs_without_grad_is_no_evaluation_with_grad(tmp_path, capsys):
    write(tmp_path, "wrappers.py", WRAPPER)
    write(tmp_path, "service.py", SERVICE)
    assert not any("GG201" in line for line in findings(capsys, tmp_path))


def test_twin_a_wrapper_running_its_model_with_grad_leaves_the_call_flagged(tmp_path, capsys):
    write(tmp_path, "wrappers.py", WRAPPER.replace("with torch.no_grad():", "if True:"))
    write(tmp_path, "service.py", SERVICE)
    assert any("service.py:11" in line and "GG201" in line for line in findings(capsys, tmp_path))


PINN = """
    import torch
    import torch.nn as nn


    class PINN(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 1))

        def forward(self, t):
            return self.net(t)

        def u_t(self, t):
            t.requires_grad_()
            u = self.net(t)
            return torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]

        def residual(self, t):
            return self.u_t(t) + self.net(t)
"""

PINN_VALIDATION = """
    import torch
    from pinn import PINN


    def validate(loader):
        model = PINN()
        model.load_state_dict(torch.load("pinn.pt"))
        model.eval()
        total = 0.0
        for t in loader:
            total += (model.residual(t) ** 2).mean().item()
        return total / len(loader)
"""


def test_a_method_of_another_files_module_that_differentiates_is_no_evaluation(tmp_path, capsys):
    write(tmp_path, "pinn.py", PINN)
    write(tmp_path, "validate.py", PINN_VALIDATION)
    assert not any("GG201" in line for line in findings(capsys, tmp_path))


def test_twin_a_method_of_another_files_module_that_only_runs_it_is_flagged(tmp_path, capsys):
    write(tmp_path, "pinn.py", PINN.replace("self.u_t(t) + self.net(t)", "self.net(t) * 2"))
    write(tmp_path, "validate.py", PINN_VALIDATION)
    assert any("validate.py" in line and "GG201" in line for line in findings(capsys, tmp_path))


HAND_WRITTEN_LAYERS = """
    import math
    import torch


    class CrossEntropy:
        def forward(self, prob, y):
            output = 0
            for i in range(prob.size(0)):
                output += -math.log(prob[i, y[i]])
            return output, (prob.argmax(1) == y).sum().item()

        def backward(self, grad_output):
            return grad_output


    class Model:
        def __init__(self, net):
            self.net = net
            self.criterion = CrossEntropy()
"""

HAND_WRITTEN_TRAINING = """
    import torch
    from layers import Model


    def train(net, loader, optimizer):
        model = Model(net)
        total_loss = 0
        for x, y in loader:
            output = model.net.forward(x)
            loss, acc = model.criterion.forward(output, y)
            grad_loss = model.criterion.backward(loss)
            model.net.backward(grad_loss)
            optimizer.step(model.net)
            total_loss += loss
        return total_loss
"""


def test_an_accumulated_value_the_model_does_not_know_for_a_tensor_gets_an_unsafe_fix(tmp_path, capsys):
    write(tmp_path, "layers.py", HAND_WRITTEN_LAYERS)
    write(tmp_path, "train.py", HAND_WRITTEN_TRAINING)
    found = [line for line in findings(capsys, tmp_path) if "GG301" in line]
    assert found and all(not line.endswith("[*]") for line in found), found


def test_twin_an_accumulated_loss_of_a_torch_criterion_keeps_its_safe_fix(tmp_path, capsys):
    write(tmp_path, "layers.py", HAND_WRITTEN_LAYERS)
    write(
        tmp_path,
        "train.py",
        HAND_WRITTEN_TRAINING.replace(
            "model.criterion.forward(output, y)", "torch.nn.functional.cross_entropy(output, y), 0"
        ),
    )
    found = [line for line in findings(capsys, tmp_path) if "GG301" in line]
    assert found and all(line.endswith("[*]") for line in found), found


ACCURACY_HELPER = """
    import torch


    def check_acc(scores, labels):
        predicted = torch.as_tensor(scores).argmax(1)
        return torch.mean((predicted == torch.as_tensor(labels)).float())
"""

ACCURACY_REPORT = """
    import torch
    from helpers import *


    def report(scores, labels):
        print("accuracy:", check_acc(scores, labels)[0])
"""


def test_indexing_a_mean_another_files_function_returns_is_a_zero_dim_index(tmp_path, capsys):
    write(tmp_path, "helpers.py", ACCURACY_HELPER)
    write(tmp_path, "report.py", ACCURACY_REPORT)
    found = [line for line in findings(capsys, tmp_path) if "GG105" in line]
    assert len(found) == 1 and "report.py:7" in found[0], found


def test_twin_indexing_a_list_another_files_function_returns_is_quiet(tmp_path, capsys):
    write(
        tmp_path,
        "helpers.py",
        ACCURACY_HELPER.replace("return torch.mean(", "return [torch.mean(").replace(".float())\n", ".float())]\n"),
    )
    write(tmp_path, "report.py", ACCURACY_REPORT)
    assert not any("GG105" in line for line in findings(capsys, tmp_path))


AGENT_BASE = """
    import torch
    import torch.nn as nn


    class Agent:
        def __init__(self, env, policy: nn.Module, device="cpu"):
            self.env = env
            self.policy = policy
            self.device = device
"""

AGENT_SUBCLASS = """
    import torch
    from agents import Agent


    class GreedyAgent(Agent):
        def act(self, state):
            scores = self.policy(state)
            return scores.argmax().item()
"""


def test_a_module_a_base_class_of_another_file_stores_is_a_module_in_a_subclass(tmp_path, capsys):
    # `self.policy = policy` of `policy: nn.Module` in `Agent.__init__` (agents.py)
    base = write(tmp_path, "agents.py", AGENT_BASE)
    sub = write(tmp_path, "greedy.py", AGENT_SUBCLASS)
    found = findings(capsys, base, sub)
    assert any("greedy.py:8:18: GG201" in line for line in found), found


def test_twin_an_attribute_the_base_class_stores_unannotated_is_not_known(tmp_path, capsys):
    base = write(tmp_path, "agents.py", AGENT_BASE.replace("policy: nn.Module", "policy"))
    sub = write(tmp_path, "greedy.py", AGENT_SUBCLASS)
    found = findings(capsys, base, sub)
    assert not any("GG201" in line for line in found), found


FLOW_MODEL = """
import torch
from torch import nn


class Coupling(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(2, 2)

    def inverse_flow(self, y):
        return y - self.net(y)


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.prior = torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))
        self.layers = nn.ModuleList([Coupling() for _ in range(4)])

    def inverse(self, y):
        x = y
        for layer in reversed(self.layers):
            x = layer.inverse_flow(x)
        return x

    def sample_from_prior(self, n):
        return self.prior.sample((n, 2))
"""

FLOW_SCRIPT = """
import torch
from flow import Flow

flow_model = Flow()
optimizer = torch.optim.Adam(flow_model.parameters())
for x in loader:
    optimizer.zero_grad()
    loss = flow_model.inverse(x).pow(2).mean()
    loss.backward()
    optimizer.step()
flow_model.eval()
z = flow_model.sample_from_prior(64)
samples = flow_model.inverse(z).detach().cpu().numpy()
"""


def test_a_method_looping_over_held_layers_runs_the_model_of_another_file(tmp_path, capsys):
    # `inverse` calls each layer of `self.layers` in a loop: it runs the flow; `sample_from_prior`,
    # which the class shows, runs none of its layers
    model = write(tmp_path, "flow.py", FLOW_MODEL)
    script = write(tmp_path, "train.py", FLOW_SCRIPT)
    found = findings(capsys, model, script)
    assert any("train.py:14:11: GG201" in line for line in found), found
    assert not any("train.py:13:" in line for line in found), found


def test_twin_a_method_the_class_of_another_file_does_not_show_is_judged_by_its_name(tmp_path, capsys):
    # (`predict` is not in the class: an `nn.Module` method or another's; its name says it runs)
    model = write(tmp_path, "flow.py", FLOW_MODEL)
    script = write(tmp_path, "train.py", FLOW_SCRIPT.replace("flow_model.inverse(z)", "flow_model.predict(z)"))
    found = findings(capsys, model, script)
    assert any("train.py:14:11: GG201" in line for line in found), found


SAMPLER_PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/samplers/__init__.py": "from pkg.samplers.ddim import DDIM  # noqa: F401\n"
    "from pkg.samplers.ddpm import DDPM  # noqa: F401\nfrom pkg.samplers.utils import Sampler  # noqa: F401\n",
    "pkg/samplers/ddim.py": "class DDIM:\n    def __init__(self, model):\n        self.model = model\n\n"
    "    def backward_sample(self, x):\n        return x - self.model(x)\n",
    "pkg/samplers/ddpm.py": "class DDPM:\n    def __init__(self, model):\n        self.model = model\n\n"
    "    def backward_sample(self, x):\n        return x - self.model(x)\n",
    "pkg/samplers/utils.py": "from typing import Union\n\nfrom pkg.samplers.ddim import DDIM\n"
    "from pkg.samplers.ddpm import DDPM\n\nSampler = Union[DDPM, DDIM]\n",
}


def _sampler_index(tmp_path, engine: str):
    paths = []
    for name, code in {**SAMPLER_PACKAGE, "pkg/engine.py": engine}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        paths.append(str(path))
    return build_index(paths)


def test_a_method_called_on_a_parameter_annotated_with_a_union_alias_has_that_caller(tmp_path):
    # `def inference(sampler: Sampler)`, `Sampler = Union[DDPM, DDIM]` of another module that the
    # package's `__init__.py` hands on: each class's method has the caller's grad mode
    index = _sampler_index(
        tmp_path,
        "import torch\nfrom pkg.samplers import Sampler\n\ndef inference(sampler: Sampler, x):\n"
        "    with torch.inference_mode():\n        return sampler.backward_sample(x)\n",
    )
    assert index.calls["pkg.samplers.ddim.DDIM.backward_sample"] == [True]
    assert index.calls["pkg.samplers.ddpm.DDPM.backward_sample"] == [True]


def test_a_method_called_on_a_parameter_annotated_with_a_class_a_package_hands_on_has_that_caller(tmp_path):
    # `from pkg.samplers import DDIM` of `pkg/samplers/__init__.py`'s absolute import; the call with grad on
    index = _sampler_index(
        tmp_path,
        "from pkg.samplers import DDIM\n\ndef inference(sampler: DDIM, x):\n    return sampler.backward_sample(x)\n",
    )
    assert index.calls["pkg.samplers.ddim.DDIM.backward_sample"] == [False]
    assert "pkg.samplers.ddpm.DDPM.backward_sample" not in index.calls


def test_twin_a_parameter_annotated_with_something_else_records_no_call(tmp_path):
    index = _sampler_index(
        tmp_path,
        "from pkg.samplers import DDIM\n\ndef inference(sampler: 'Other', x):\n"
        "    model = DDIM\n    return sampler.backward_sample(x)\n",
    )
    assert not any(name.endswith("backward_sample") for name in index.calls)


DETECTOR_PACKAGE = {
    "model/__init__.py": "from model.faster_rcnn import FasterRCNN  # noqa: F401\n",
    "model/faster_rcnn.py": """
import torch as t
import torch.nn as nn


def nograd(f):
    def new_f(*args, **kwargs):
        with t.no_grad():
            return f(*args, **kwargs)
    return new_f


class FasterRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(x)

    @nograd
    def predict(self, imgs):
        return self(imgs).argmax(1)
""",
    "train.py": """
import torch
from model import FasterRCNN


def eval(dataloader, faster_rcnn):
    scores = []
    for imgs in dataloader:
        scores.append(faster_rcnn.predict(imgs))
    return scores


def train(dataloader, test_loader):
    faster_rcnn = FasterRCNN()
    optimizer = torch.optim.SGD(faster_rcnn.parameters(), lr=0.1)
    for imgs in dataloader:
        optimizer.zero_grad()
        faster_rcnn(imgs).sum().backward()
        optimizer.step()
    return eval(test_loader, faster_rcnn)
""",
}


def _write_tree(tmp_path, files: dict) -> list:
    paths = []
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        paths.append(path)
    return paths


def test_a_method_decorated_by_a_grad_off_wrapper_of_its_file_is_quiet_where_another_file_calls_it(tmp_path, capsys):
    # `@nograd`, a decorator of the model's file running the method under `t.no_grad()`; the class
    # imported through the package's `__init__.py`
    paths = _write_tree(tmp_path, DETECTOR_PACKAGE)
    assert not any("GG201" in line for line in findings(capsys, *paths))


def test_twin_the_same_method_without_the_decorator_is_reported_where_another_file_evaluates_it(tmp_path, capsys):
    files = {**DETECTOR_PACKAGE}
    files["model/faster_rcnn.py"] = files["model/faster_rcnn.py"].replace("    @nograd\n", "")
    paths = _write_tree(tmp_path, files)
    assert any("train.py:9" in line and "GG201" in line for line in findings(capsys, *paths))


PENDULUM_MODELS = """
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(2, 2)

    def forward(self, x):
        return self.net(x)


class HNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.H = nn.Linear(2, 1)

    def forward(self, x):
        x = x.detach().requires_grad_(True)
        dH = torch.autograd.grad(self.H(x).sum(), x, create_graph=True)[0]
        return torch.stack([dH[:, 1], -dH[:, 0]], dim=1)
"""

PENDULUM_TRAIN = """
import torch
from models import MLP, HNN

MODEL_REGISTRY = {"mlp": MLP, "hnn": HNN}

model = MODEL_REGISTRY[args.model]()
model.load_state_dict(torch.load("model.pt"))
model.eval()
for x, dx in test_loader:
    print(((model(x) - dx) ** 2).mean().item())
"""


def test_a_model_from_a_registry_holding_a_class_whose_forward_differentiates_is_left_alone(tmp_path, capsys):
    # `no_grad` around the loop would make HNN's `torch.autograd.grad` raise
    models = write(tmp_path, "models.py", PENDULUM_MODELS)
    train = write(tmp_path, "train.py", PENDULUM_TRAIN)
    assert not any("GG201" in line for line in findings(capsys, models, train))


def test_twin_a_model_from_a_registry_of_plain_networks_is_reported(tmp_path, capsys):
    models = write(tmp_path, "models.py", PENDULUM_MODELS)
    train = write(tmp_path, "train.py", PENDULUM_TRAIN.replace('"hnn": HNN', '"other": MLP'))
    assert any("train.py" in line and "GG201" in line for line in findings(capsys, models, train))


HOPFIELD = """
    import torch
    import torch.nn as nn

    class Hopfield(nn.Module):
        def __init__(self, size):
            super().__init__()
            self.weight = nn.Parameter(torch.zeros(size, size))
            nn.init.xavier_uniform_(self.weight)

        @property
        def symmetric(self):
            return torch.triu(self.weight, diagonal=1) + torch.triu(self.weight, diagonal=1).t()

        def step(self, x):
            return torch.sign(x @ self.symmetric)

        def reset(self):
            nn.init.xavier_uniform_(self.weight)
            print(self.weight.shape)

        def forward(self, x):
            return self.step(x)
"""


def test_a_method_computing_with_the_modules_parameters_runs_it(tmp_path):
    # `step` reads a parameter through a property: it runs the module, whose graph it records.
    model = write(tmp_path, "model.py", HOPFIELD)
    running = build_index([str(model)]).classes["model.Hopfield"].running_methods
    assert "step" in running and "symmetric" in running
    # twin: a method that only initialises or inspects the parameter runs nothing
    assert "reset" not in running


def test_a_parameter_computing_method_of_another_files_module_is_an_evaluation(tmp_path, capsys):
    model = write(tmp_path, "model.py", HOPFIELD)
    script = """
        import matplotlib.pyplot as plt
        from model import Hopfield

        net = Hopfield(16)
        net.load_state_dict(torch.load("hopfield.pt"))
        state = image
        for i in range(7):
            state = net.step(state)
            plt.imshow(state.detach())
    """
    run = write(tmp_path, "run.py", "import torch\n" + textwrap.dedent(script))
    assert any(
        "run.py:10" in line and "GG201" in line and "net.step(...)" in line for line in findings(capsys, model, run)
    )
    # twin: the same loop under `no_grad`
    quiet = write(
        tmp_path,
        "quiet.py",
        "import torch\n"
        + textwrap.dedent(script).replace(
            "for i in range(7):\n    state = net.step(state)\n    plt.imshow(state.detach())",
            "with torch.no_grad():\n    for i in range(7):\n        state = net.step(state)\n        plt.imshow(state)",
        ),
    )
    assert "with torch.no_grad()" in quiet.read_text()
    assert not any("GG201" in line for line in findings(capsys, model, quiet))


CONFIG_AGENT = """
    import torch
    import torch.nn as nn

    class Actor(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, obs):
            return self.fc(obs)

    class Agent:
        def __init__(self):
            self.actor = Actor()

        def act(self, obs):
            action = self.actor(torch.as_tensor(obs))
            return action.cpu().numpy()[0]
"""

CONFIG_LOOP = """
    import hydra
    import torch

    agent = hydra.utils.instantiate(cfg.agent)
    for obs in env:
        with torch.no_grad():
            action = agent.act(obs)
"""


def test_a_method_every_call_of_its_name_runs_without_grad_runs_without_grad(tmp_path, capsys):
    # The agent is built by a config: no file shows its class, but every `.act(` of the run
    # sits under `no_grad`, so `act` runs without grad.
    agent = write(tmp_path, "agent.py", CONFIG_AGENT)
    loop = write(tmp_path, "loop.py", CONFIG_LOOP)
    assert build_index([str(agent), str(loop)]).method_name_calls["act"] == [True]
    assert not any("GG201" in line for line in findings(capsys, agent, loop))
    # twin: one call with grad on, and the method is judged as run with grad
    evaluate = write(
        tmp_path, "evaluate.py", "import hydra\nagent = hydra.utils.instantiate(cfg)\nprint(agent.act(obs))\n"
    )
    assert any("agent.py:18" in line and "GG201" in line for line in findings(capsys, agent, loop, evaluate))


def test_cached_result_follows_a_new_call_of_a_method_name_in_another_file(tmp_path, capsys, monkeypatch):
    # agent.py does not change; a call of `act` with grad on added to another file makes its
    # `act` run with grad, so its cached (quiet) result must not be served again.
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "[tool.gradguard]\n")
    write(tmp_path, "agent.py", CONFIG_AGENT)
    write(tmp_path, "loop.py", CONFIG_LOOP)

    def run():
        main(["check", "--select", "GG201", "agent.py", "loop.py"])
        return [line for line in capsys.readouterr().out.splitlines() if ": GG" in line]

    assert run() == [] and run() == []  # the second run is served from the cache
    write(tmp_path, "loop.py", CONFIG_LOOP + "    print(agent.act(obs))\n")
    assert any("agent.py:18" in line for line in run())


@pytest.mark.parametrize(
    "init,loads",
    [
        ('net = models.resnet18(weights="DEFAULT")', True),
        ("net = models.resnet18(weights=ResNet18_Weights.DEFAULT)", True),
        ('weights = "DEFAULT" if pretrained else None', False),
        ('net = models.resnet18(weights="DEFAULT" if pretrained else None)', False),
        ("net = models.resnet18(pretrained=pretrained)", False),
    ],
)
def test_loads_weights_only_where_the_text_shows_it(init, loads):
    # a choice made by a parameter (`pretrained=False` by default) is not shown to load anything
    assert loads_weights(f"def __init__(self, pretrained=False):\n    {init}\n") is loads


SIAMESE_NET = """
    import torch.nn as nn


    class SiamNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.feat_extraction = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())

        def forward(self, z, x):
            return self.feat_extraction(z) * self.feat_extraction(x)
"""
TRACKER = """
    import torch
    from siam import *


    def run_tracker(path, frames):
        net = torch.load(path)
        net.eval()
        boxes = []
        for frame in frames:
            features = net.feat_extraction(frame)
            boxes.append(features.data.numpy().argmax())
        return boxes
"""


def test_a_layer_the_runs_module_classes_store_is_run_by_a_loaded_model(tmp_path, capsys):
    # `net = torch.load(path)` is of no known class; the run's module classes store only a torch
    # layer under `feat_extraction`: a part of the model, in eval mode after `net.eval()`
    found = findings(capsys, write(tmp_path, "siam.py", SIAMESE_NET), write(tmp_path, "track.py", TRACKER))
    assert any("track.py:11:20: GG201" in line for line in found), found


def test_twin_an_attribute_stored_otherwise_is_not_taken_for_a_layer(tmp_path, capsys):
    other = (
        SIAMESE_NET
        + """
    class Cache:
        def __init__(self):
            self.feat_extraction = make_cache()
    """
    )
    found = findings(capsys, write(tmp_path, "siam.py", other), write(tmp_path, "track.py", TRACKER))
    assert not any("GG201" in line for line in found), found


POLICY_NETWORK = """
    from typing import Tuple

    import torch.nn as nn
    from torch import Tensor
    from torch.distributions import Normal


    class ActorCriticPolicy(nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = nn.Linear(4, 2)
            self.v = nn.Linear(4, 1)

        def forward(self, x):
            return Normal(self.mu(x), 1.0), self.v(x)

        def sample(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
            dist, value = self(x)
            action = dist.sample()
            return action, dist.log_prob(action).sum(-1), value
"""
ROLLOUT = """
    import torch
    from policy_network import ActorCriticPolicy


    class Rollout:
        def __init__(self, policy: ActorCriticPolicy):
            self.policy = policy

        def run(self, state):
            self.policy.train(False)
            {region}
                action, log_prob, value = self.policy.sample(torch.as_tensor(state))
            return action, log_prob.cpu().numpy(), value.cpu().numpy()
"""


@pytest.mark.parametrize("region,reported", [("with torch.no_grad():", False), ("if state is not None:", True)])
def test_what_another_files_method_computes_under_no_grad_carries_no_graph(tmp_path, capsys, region, reported):
    found = findings(
        capsys,
        write(tmp_path, "policy_network.py", POLICY_NETWORK),
        write(tmp_path, "rollout.py", ROLLOUT.replace("{region}", region)),
    )
    assert any("rollout.py:14:" in line and "GG302" in line for line in found) is reported, found


ATTACKS = """
    import torch
    import torch.nn as nn


    def IFGSM(model, image, label, iteration, step):
        image.requires_grad = True
        cost = nn.CrossEntropyLoss()
        for i in range(iteration):
            loss = cost(model(image), label)
            grad = torch.autograd.grad(loss, image)[0]
            image = torch.clamp(image + step * torch.sign(grad), 0, 1)
        return image
"""
ATTACK_SCRIPT = """
    import torch
    from torchvision.utils import save_image
    from attacks import IFGSM

    model = torch.load("resnet.pt")
    model.eval()
    adv = IFGSM(model, images, labels, 10, 0.01)
    save_image(adv, "adv.png")
"""


def test_a_function_of_another_file_that_differentiates_is_no_evaluation(tmp_path, capsys):
    # `torch.autograd.grad` inside: under the `no_grad` GG201 would advise, the attack raises
    found = findings(capsys, write(tmp_path, "attacks.py", ATTACKS), write(tmp_path, "attack.py", ATTACK_SCRIPT))
    assert not any("attack.py:8:" in line and "GG201" in line for line in found), found


def test_twin_a_function_of_another_file_that_only_runs_the_model_is_evaluated(tmp_path, capsys):
    plain = ATTACKS.replace("grad = torch.autograd.grad(loss, image)[0]", "grad = loss.detach()")
    found = findings(capsys, write(tmp_path, "attacks.py", plain), write(tmp_path, "attack.py", ATTACK_SCRIPT))
    assert any("attack.py:8:" in line and "GG201" in line for line in found), found


TRAIN_WITH_A_HELPER = """
    import torch
    from torch import nn, optim
    from utils import {name}

    encoder, decoder = nn.Linear(4, 4), nn.Linear(4, 4)
    opt = optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))
    for x in loader:
        loss = (decoder(encoder(x)) - x).abs().mean()
        {name}([encoder, decoder])
        loss.backward()
        opt.step()
"""


def test_a_helper_of_another_file_that_zeroes_the_modules_it_is_handed_is_a_reset(tmp_path, capsys):
    utils = write(tmp_path, "utils.py", "def clean(nets):\n    for net in nets:\n        net.zero_grad()\n")
    train = write(tmp_path, "train.py", TRAIN_WITH_A_HELPER.format(name="clean"))
    assert not any("GG303" in line for line in findings(capsys, utils, train))


def test_twin_a_helper_of_another_file_that_only_clips_is_no_reset(tmp_path, capsys):
    utils = write(
        tmp_path,
        "utils.py",
        "import torch\n\ndef clean(nets):\n    for net in nets:\n        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)\n",
    )
    train = write(tmp_path, "train.py", TRAIN_WITH_A_HELPER.format(name="clean"))
    assert any("train.py" in line and "GG303" in line for line in findings(capsys, utils, train))


TAGGER_MODULES = """
    import torch
    import torch.nn as nn


    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x):
            return self.lin(x)

        def test(self, x):
            logits = self.forward(x)
            return torch.max(logits, dim=1)[1]


    class PlainCRF(object):
        def test(self, sentences):
            return [["O"] * len(s) for s in sentences]
"""

TAGGER_RUN = """
    import torch
    from mods import Tagger, PlainCRF


    def run_nn(x):
        model = Tagger()
        model.load_state_dict(torch.load("w.pth"))
        model.eval()
        with torch.no_grad():
            ids = model.test(x)
        return ids.tolist()


    def run_crf(sents):
        model = {other}
        return model.test(sents)
"""


def test_a_call_on_an_instance_of_another_class_of_the_run_is_not_a_caller_of_the_module_method(tmp_path, capsys):
    mods = write(tmp_path, "mods.py", TAGGER_MODULES)
    run = write(tmp_path, "run.py", TAGGER_RUN.format(other="PlainCRF()"))
    assert not any("GG201" in line for line in findings(capsys, mods, run))


def test_twin_the_same_call_on_an_instance_of_the_module_class_is_a_caller_with_grad(tmp_path, capsys):
    mods = write(tmp_path, "mods.py", TAGGER_MODULES)
    run = write(tmp_path, "run.py", TAGGER_RUN.format(other="Tagger()"))
    assert any("mods.py" in line and "GG201" in line for line in findings(capsys, mods, run))


# A generator trained, then sampled and its samples saved by `save_image` from a star import.
TRAIN_SAVING_SAMPLES = """
    import torch
    from torch import nn
    from dataio import *

    G = nn.Linear(100, 784)
    opt = torch.optim.Adam(G.parameters())
    for i in range(10):
        loss = G(torch.randn(4, 100)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    samples = G(torch.randn(64, 100))
    save_image(samples, "out.png")
"""


def test_a_torchvision_name_handed_on_by_a_star_import_of_the_run_is_torchvisions(tmp_path, capsys):
    dataio = write(tmp_path, "dataio.py", "import torch\nfrom torchvision.utils import save_image\n")
    train = write(
        tmp_path,
        "train.py",
        TRAIN_SAVING_SAMPLES,
    )
    assert any("train.py:14" in line and "GG201" in line for line in findings(capsys, dataio, train))


def test_twin_a_function_of_the_same_name_the_star_imported_module_defines_is_its_own(tmp_path, capsys):
    dataio = write(
        tmp_path, "dataio.py", "import torch\n\ndef save_image(images, path):\n    images.sum().backward()\n"
    )
    train = write(
        tmp_path,
        "train.py",
        TRAIN_SAVING_SAMPLES,
    )
    assert not any("GG201" in line for line in findings(capsys, dataio, train))


def test_a_name_bound_to_one_of_several_classes_of_the_run_calls_each_of_their_methods(tmp_path, capsys):
    mods = write(tmp_path, "mods.py", TAGGER_MODULES)
    run = write(
        tmp_path,
        "run.py",
        """
        import torch
        from mods import Tagger, PlainCRF


        def main(kind, x):
            if kind == "crf":
                model = PlainCRF()
            else:
                model = Tagger()
            return model.test(x)
        """,
    )
    assert any("mods.py" in line and "GG201" in line for line in findings(capsys, mods, run))


GRAD_CAM = """
    import torch.nn as nn


    class GradCam(nn.Module):
        def __init__(self, model, target_layer):
            super().__init__()
            self.model = model.eval()
            self.gradient = None
            target_layer.register_full_backward_hook(self.keep_gradient)

        def keep_gradient(self, module, grad_input, grad_output):
            self.gradient = grad_output[0]

        def forward(self, image, target_class):
            output = self.model(image)
            output[0, target_class].backward(retain_graph=True)
            return self.gradient
"""

DISPLAYER = """
    import torch
    from GradCam import GradCam


    class ImageDisplayer:
        def __init__(self, model, grad_cam):
            self.model = model
            self.grad_cam = grad_cam

        def show(self, image):
            self.model.eval()
            output = self.model(image)
            predicted = torch.argmax(output, dim=1)
            self._heatmap(image, predicted)

        def _heatmap(self, image, predicted):
            heatmap = self.grad_cam(image, int(predicted[0]))
            print(heatmap.shape)
"""


def test_a_helper_running_a_grad_cam_of_another_file_uses_gradients(tmp_path, capsys):
    # `self.grad_cam`, kept under the snake-case name of the imported class whose `forward`
    # backpropagates: the method is not one to wrap whole; the call whose output is only read is
    write(tmp_path, "GradCam.py", GRAD_CAM)
    write(tmp_path, "displayer.py", DISPLAYER)
    found = [line for line in findings(capsys, tmp_path) if "GG201" in line]
    assert len(found) == 1 and "displayer.py:13:" in found[0] and "never backpropagated" in found[0], found


def test_twin_a_grad_cam_that_does_not_backpropagate_leaves_the_method_evaluating(tmp_path, capsys):
    write(tmp_path, "GradCam.py", GRAD_CAM.replace("output[0, target_class].backward(retain_graph=True)", "pass"))
    write(tmp_path, "displayer.py", DISPLAYER)
    found = [line for line in findings(capsys, tmp_path) if "GG201" in line]
    assert found and "nothing in this function uses gradients" in found[0], found


GRAD_CAM_SCRIPT = """
    import torch
    from torchvision import models
    from GradCam import GradCam
    from displayer import ImageDisplayer


    def display_validation(loader):
        model = models.resnet18(weights="DEFAULT")
        model.eval()
        cam = GradCam(model, model.layer4[-1].conv2)
        displayer = ImageDisplayer(model, cam)
        for image, label in loader:
            displayer.show(image)
"""


def test_a_function_building_a_grad_cam_of_the_run_uses_gradients(tmp_path, capsys):
    # `cam = GradCam(...)` handed to an object that runs it: `no_grad` around the function would break it
    write(tmp_path, "GradCam.py", GRAD_CAM)
    write(tmp_path, "displayer.py", DISPLAYER)
    write(tmp_path, "show.py", GRAD_CAM_SCRIPT)
    assert not [line for line in findings(capsys, tmp_path) if "show.py" in line and "GG201" in line]


def test_twin_without_the_grad_cam_the_function_evaluates(tmp_path, capsys):
    write(tmp_path, "GradCam.py", GRAD_CAM)
    write(tmp_path, "displayer.py", DISPLAYER)
    write(
        tmp_path,
        "show.py",
        GRAD_CAM_SCRIPT.replace("        cam = GradCam(model, model.layer4[-1].conv2)\n", "").replace(
            "ImageDisplayer(model, cam)", "ImageDisplayer(model, None)"
        ),
    )
    assert [line for line in findings(capsys, tmp_path) if "show.py" in line and "GG201" in line]


SELF_TESTED_AGENT = """
    import torch
    import torch.nn as nn

    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.actor = nn.Linear(4, 2)

        def act(self, state):
            with torch.no_grad():
                state_tensor = torch.tensor(state, dtype=torch.float32)
                return self.actor(state_tensor).argmax().item()

    if __name__ == "__main__":
        agent = Agent()
        print(agent.act(torch.randn(4)))
"""


def test_a_self_test_in_the_main_block_does_not_say_what_other_files_pass(tmp_path, capsys):
    # The main block hands `act` a tensor; the run's other file hands it a numpy array:
    # `torch.tensor(state)` is no copy of a tensor there, and `.detach().clone()` would raise.
    agent = write(tmp_path, "agent.py", SELF_TESTED_AGENT)
    play = write(
        tmp_path,
        "play.py",
        """
        import numpy as np
        from agent import Agent

        agent = Agent()
        for _ in range(3):
            print(agent.act(np.zeros(4, dtype=np.float32)))
        """,
    )
    assert not [line for line in findings(capsys, agent, play) if "GG103" in line]


def test_twin_a_self_test_alone_speaks_for_the_callers(tmp_path, capsys):
    agent = write(tmp_path, "agent.py", SELF_TESTED_AGENT)
    assert [line for line in findings(capsys, agent) if "GG103" in line]


TOP_K_APP = """
    import torch

    def get_top_k(sequence, tokenizer, model, k=10):
        batch_enc = tokenizer(sequence, return_tensors="pt")
        mask_ix = torch.where(batch_enc["input_ids"] == tokenizer.mask_token_id)[1]
        logits = model(**batch_enc).logits
        return torch.topk(logits[0, mask_ix.item(), :], k)[1]
"""

TOP_K_CHECK = """
    from unittest.mock import Mock

    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer, BertForMaskedLM, BertTokenizerFast

    from app import get_top_k

    def test_top_k(k):
        tokenizer = TOKENIZER
        model = MODEL
        res = get_top_k("Hello [MASK]", tokenizer, model, k)
        assert isinstance(res, torch.Tensor)
        assert res.shape == (k,)
"""


def test_a_mock_model_runs_no_network(tmp_path, capsys):
    # `Mock(spec=BertForMaskedLM)` answers the call with what the test set: no graph is recorded
    app = write(tmp_path, "app.py", TOP_K_APP)
    check = write(
        tmp_path,
        "check_app.py",
        TOP_K_CHECK.replace("TOKENIZER", "Mock(spec=BertTokenizerFast, mask_token_id=103)").replace(
            "MODEL", "Mock(spec=BertForMaskedLM)"
        ),
    )
    assert not [line for line in findings(capsys, app, check) if "check_app.py" in line]


def test_twin_a_real_model_handed_to_the_helper_is_run(tmp_path, capsys):
    app = write(tmp_path, "app.py", TOP_K_APP)
    check = write(
        tmp_path,
        "check_app.py",
        TOP_K_CHECK.replace("TOKENIZER", 'AutoTokenizer.from_pretrained("bert-base-uncased")').replace(
            "MODEL", 'AutoModelForMaskedLM.from_pretrained("bert-base-uncased")'
        ),
    )
    assert [line for line in findings(capsys, app, check) if "check_app.py" in line and "GG201" in line]


GRADIENT_UTILS = """
    import torch

    class GradientUtils:
        @staticmethod
        def gradient(target, coords):
            return torch.autograd.grad(target, coords, torch.ones_like(target), create_graph=True)[0]
"""

SIREN_TRAIN = """
    import torch
    from core import GradientUtils
    from model import Siren

    model = Siren()
    model.load_state_dict(torch.load("siren.pt"))
    model.eval()
    for coords in torch.load("coords.pt"):
        coords.requires_grad = True
        pred = model(coords)
        pred_n = pred.detach().numpy()
        grad_n = GRADIENT(pred, coords).norm(dim=-1).detach().numpy()
"""


def test_a_static_method_of_another_file_differentiating_its_argument_uses_the_gradient(tmp_path, capsys):
    core = write(tmp_path, "core.py", GRADIENT_UTILS)
    train = write(tmp_path, "train.py", SIREN_TRAIN.replace("GRADIENT", "GradientUtils.gradient"))
    assert not [line for line in findings(capsys, core, train) if "GG201" in line]


def test_twin_a_static_method_that_only_reads_its_argument_does_not(tmp_path, capsys):
    core = write(tmp_path, "core.py", GRADIENT_UTILS.replace("torch.autograd.grad(", "torch.gradient_stub("))
    core.write_text(
        textwrap.dedent(
            """
            import torch

            class GradientUtils:
                @staticmethod
                def gradient(target, coords):
                    return target.detach() * 0
            """
        )
    )
    train = write(tmp_path, "train.py", SIREN_TRAIN.replace("GRADIENT", "GradientUtils.gradient"))
    assert [line for line in findings(capsys, core, train) if "train.py" in line and "GG201" in line]


PHASE_TRAINER = """
    def class_trainer(loader, model, loss_fn, optimizer=None):
        if optimizer:
            model.train()
        else:
            model.eval()
        total = 0.0
        for x, y in loader:
            loss = loss_fn(model(x), y)
            if optimizer:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item()
        return total / len(loader)
"""

PHASE_CALLER = """
    import torch
    from trainers import class_trainer

    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.5), torch.nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(3):
        class_trainer(train_loader, model, torch.nn.MSELoss(), optimizer)
    VALIDATION
"""


def test_a_trainer_switching_to_eval_without_its_optimizer_serves_another_files_evaluation(tmp_path, capsys):
    # `if optimizer: model.train() else: model.eval()`: the function's own evaluation phase, which
    # main.py runs with grad on
    trainers = write(tmp_path, "trainers.py", PHASE_TRAINER)
    caller = write(
        tmp_path,
        "main.py",
        PHASE_CALLER.replace("VALIDATION", "print(class_trainer(val_loader, model, torch.nn.MSELoss()))"),
    )
    found = [line for line in findings(capsys, trainers, caller) if "GG201" in line]
    assert len(found) == 1 and "trainers.py:9:" in found[0] and "set_grad_enabled(optimizer is not None)" in found[0]
    assert "evaluation phase (`model.eval()`, line 6)" in found[0]


def test_twin_another_file_evaluating_under_no_grad_keeps_the_trainer_quiet(tmp_path, capsys):
    trainers = write(tmp_path, "trainers.py", PHASE_TRAINER)
    caller = write(
        tmp_path,
        "main.py",
        PHASE_CALLER.replace(
            "VALIDATION",
            "with torch.no_grad():\n        print(class_trainer(val_loader, model, torch.nn.MSELoss()))",
        ),
    )
    assert not [line for line in findings(capsys, trainers, caller) if "GG201" in line]


ENSEMBLE = """
    import torch
    import torch.nn as nn

    def load_member(path):
        member = nn.Linear(8, 5)
        member.load_state_dict(torch.load(path))
        return member

    class Ensemble(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = load_member("a.pt")
            self.b = load_member("b.pt")
            SWITCH

        def forward(self, x):
            return torch.topk(self.a(x) + self.b(x), 3).indices.tolist()
"""

ENSEMBLE_EVALUATION = """
    import torch
    from recommender import Ensemble
    from data import TweetData

    model = Ensemble()
    for batch in TweetData("test", batch_size=32):
        preds = model(batch[0])
        print(len(preds))
"""


def test_an_ensemble_of_another_file_switching_itself_to_eval_is_evaluated(tmp_path, capsys):
    recommender = write(tmp_path, "recommender.py", ENSEMBLE.replace("SWITCH", "self.eval()"))
    script = write(tmp_path, "evaluate.py", ENSEMBLE_EVALUATION)
    found = [line for line in findings(capsys, recommender, script) if "GG201" in line]
    assert len(found) == 1 and "evaluate.py:8:" in found[0] and "in eval mode" in found[0]


def test_twin_an_ensemble_left_in_training_mode_is_not_known_to_evaluate(tmp_path, capsys):
    recommender = write(tmp_path, "recommender.py", ENSEMBLE.replace("SWITCH", "self.train()"))
    script = write(tmp_path, "evaluate.py", ENSEMBLE_EVALUATION)
    assert not [line for line in findings(capsys, recommender, script) if "GG201" in line]


VGG_MODEL = """
    import torch.nn as nn

    def make_layers(cfg, batch_norm=False):
        layers = []
        channels = 3
        for width in cfg:
            conv = nn.Conv2d(channels, width, 3, padding=1)
            if batch_norm:
                layers += [conv, nn.BatchNorm2d(width), nn.ReLU(inplace=True)]
            else:
                layers += [conv, nn.ReLU(inplace=True)]
            channels = width
        return nn.Sequential(*layers)

    class CSRNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.frontend = make_layers([64, 64], FLAG)

        def forward(self, x):
            return self.frontend(x)
"""

VGG_INFERENCE = """
    import torch
    from model import CSRNet

    def infer(image):
        model = CSRNet()
        model.load_state_dict(torch.load("best.pt"))
        with torch.set_grad_enabled(False):
            density = model(image)
        return density.sum().item()
"""


def test_batch_norm_a_helper_of_another_file_builds_for_the_model_counts(tmp_path, capsys):
    model = write(tmp_path, "model.py", VGG_MODEL.replace("FLAG", "batch_norm=True"))
    script = write(tmp_path, "infer.py", VGG_INFERENCE)
    found = [line for line in findings(capsys, model, script) if "GG209" in line]
    assert len(found) == 1 and "infer.py:9:" in found[0] and "batch norm" in found[0]


def test_twin_the_helper_called_without_batch_norm_builds_none(tmp_path, capsys):
    model = write(tmp_path, "model.py", VGG_MODEL.replace("FLAG", "batch_norm=False"))
    script = write(tmp_path, "infer.py", VGG_INFERENCE)
    assert not [line for line in findings(capsys, model, script) if "GG209" in line]


SEQ2SEQ_PARTS = """
    import torch.nn as nn

    class Encoder(nn.Module):
        def __init__(self, dropout=0.5):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout(self.fc(x))

    class Seq2Seq(nn.Module):
        def __init__(self, encoder, max_len):
            super().__init__()
            self.encoder = encoder
            self.max_len = max_len

        def forward(self, x):
            return self.encoder(x)
"""

SEQ2SEQ_EVALUATION = """
    import torch
    from parts import Encoder, Seq2Seq

    model = Seq2Seq(ENCODER, 80)
    model.load_state_dict(torch.load("attention.pt"))

    def predict(model, dataset):
        preds = []
        with torch.no_grad():
            for batch in dataset:
                preds.append(model(batch).argmax(-1))
        return preds

    prediction = predict(model, test_data)
"""


def test_a_model_of_another_file_holds_the_dropout_of_the_encoder_it_is_handed(tmp_path, capsys):
    parts = write(tmp_path, "parts.py", SEQ2SEQ_PARTS)
    script = write(tmp_path, "evaluate.py", SEQ2SEQ_EVALUATION.replace("ENCODER", "Encoder(0.3)"))
    found = [line for line in findings(capsys, parts, script) if "GG209" in line]
    assert len(found) == 1 and "evaluate.py:12:" in found[0] and "dropout" in found[0]


def test_twin_handed_no_module_the_model_holds_no_known_dropout(tmp_path, capsys):
    parts = write(tmp_path, "parts.py", SEQ2SEQ_PARTS)
    script = write(tmp_path, "evaluate.py", SEQ2SEQ_EVALUATION.replace("ENCODER", "None"))
    assert not [line for line in findings(capsys, parts, script) if "GG209" in line]


TRAINING_RUNNER = """
    import torch.nn as nn
    import torch.optim as optim

    class Net(nn.Module):
        def __init__(self, h):
            super().__init__()
            self.fc = nn.Linear(h, 1)

        def forward(self, x):
            return self.fc(x)

    def train_epoch(model, x, y, opt):
        loss = ((model(x) - y) ** 2).mean()
        STEP
        return [loss.item()]

    def run_model(model_class, x, y, epochs, **kwargs):
        m = model_class(**kwargs)
        opt = optim.Adam(m.parameters())
        for epoch in range(epochs):
            print("epoch", epoch)
            train_epoch(m, x, y, opt)
        return 1.0
"""

TRAINING_RUNNER_SCRIPT = """
    import torch
    from model_functions import *

    x, y = torch.randn(8, 4), torch.randn(8, 1)
    outputs = run_model(Net, x, y, epochs=5, h=4)
"""


def test_a_function_of_another_file_training_through_a_helper_is_no_model_call(tmp_path, capsys):
    functions = write(
        tmp_path, "model_functions.py", TRAINING_RUNNER.replace("STEP", "loss.backward()\n        opt.step()")
    )
    script = write(tmp_path, "main.py", TRAINING_RUNNER_SCRIPT)
    assert not [line for line in findings(capsys, functions, script) if "GG201" in line]


def test_twin_the_helper_that_only_computes_leaves_the_runner_a_model_call(tmp_path, capsys):
    functions = write(tmp_path, "model_functions.py", TRAINING_RUNNER.replace("STEP", "pass"))
    script = write(tmp_path, "main.py", TRAINING_RUNNER_SCRIPT)
    assert [line for line in findings(capsys, functions, script) if "main.py" in line and "GG201" in line]


TUPLE_META_LEARNER = """
    import torch


    class MetaLearner:
        def __init__(self, model, loss_function):
            self.model = model
            self.loss_function = loss_function

        def query_loss(self, x, y):
            loss = self.loss_function(self.model(x), y)
            grads = torch.autograd.grad(loss, list(self.model.parameters()))
            return grads, loss

        def validate(self, tasks):
            meta_loss = 0.0
            for x, y in tasks:
                _, task_loss = self.query_loss(x, y)
                meta_loss += task_loss
            return meta_loss
"""

TUPLE_META_MAIN = """
    import torch
    from learner import MetaLearner

    learner = MetaLearner(torch.nn.Linear(4, 2), torch.nn.functional.cross_entropy)
    meta_val_loss = learner.validate([(torch.randn(3, 4), torch.tensor([0, 1, 0]))])
    print(meta_val_loss.item())
"""


def test_a_total_another_file_reads_as_a_tensor_is_detached_not_made_a_number(tmp_path, capsys):
    found = findings(
        capsys, write(tmp_path, "learner.py", TUPLE_META_LEARNER), write(tmp_path, "main.py", TUPLE_META_MAIN)
    )
    assert [line.rsplit("/", 1)[-1] for line in found if "GG301" in line] == [
        "learner.py:19:13: GG301 Accumulating `task_loss` across iterations keeps every iteration's autograd graph "
        "alive; accumulate `task_loss.detach()` [*]"
    ], found


def test_twin_a_total_another_file_prints_is_made_a_number(tmp_path, capsys):
    main = TUPLE_META_MAIN.replace("print(meta_val_loss.item())", "print(meta_val_loss)")
    found = findings(capsys, write(tmp_path, "learner.py", TUPLE_META_LEARNER), write(tmp_path, "main.py", main))
    assert [line.rsplit("/", 1)[-1] for line in found if "GG301" in line] == [
        "learner.py:19:13: GG301 Accumulating `task_loss` across iterations keeps every iteration's autograd graph "
        "alive; accumulate `task_loss.item()` [*]"
    ], found


POINT_DATASET = """
    import numpy as np
    from torch.utils.data import Dataset


    class ModelNet(Dataset):
        def __init__(self, transform=None):
            self.transform = transform

        def __len__(self):
            return 4

        def __getitem__(self, i):
            pc = np.zeros((8, 3), dtype=np.float32)
            if self.transform is not None:
                pc = self.transform(pc)
            return pc, i % 2
"""

POINT_TRAIN = """
    import torch
    from torch.utils.data import DataLoader
    from points import ModelNet

    loader = DataLoader(ModelNet(), batch_size=2)
    for inputs, labels in loader:
        labels = torch.tensor(labels, dtype=torch.long)
"""


def test_a_batch_of_another_file_s_dataset_that_makes_tensors_holds_tensors(tmp_path, capsys):
    found = findings(capsys, write(tmp_path, "points.py", POINT_DATASET), write(tmp_path, "train.py", POINT_TRAIN))
    assert [line.rsplit("/", 1)[-1].split(" ", 2)[:2] for line in found if "GG103" in line] == [
        ["train.py:8:14:", "GG103"]
    ], found


def test_twin_a_batch_of_another_file_s_dataset_of_lists_is_left_alone(tmp_path, capsys):
    lists = (
        POINT_DATASET.replace(
            "            if self.transform is not None:\n                pc = self.transform(pc)\n", ""
        )
        .replace("return pc, i % 2", "return pc.tolist(), [i % 2]")
        .replace("self.transform = transform", "pass")
        .replace("transform=None", "size=8")
    )
    found = findings(capsys, write(tmp_path, "points.py", lists), write(tmp_path, "train.py", POINT_TRAIN))
    assert not any("GG103" in line for line in found), found
