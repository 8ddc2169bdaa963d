"""analysis.read_only: calls whose result is bound to names and then only read."""

from __future__ import annotations

import ast
import textwrap

import pytest

from gradguard.check.analysis.imports import ImportMap
from gradguard.check.analysis.read_only import read_only_calls, viewed_calls


def only_read(code: str) -> list:
    """The source of the calls of the module's own code whose result is only read."""
    tree = ast.parse(textwrap.dedent(code))
    found = read_only_calls(tree, ImportMap(tree).qualified_name)
    return sorted(ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) in found)


@pytest.mark.parametrize(
    "code",
    [
        "out = net(x)\nprint(out.data.numpy())",
        "out = net(x)\nacc = (out.argmax(1) == y).float().mean()",
        "out = net(x)\nprint(out)",
        "out = net(x)\nv = out[0].item()",
        "import torch\nout = net(x)\npred = torch.argmax(out, 1)",
        "out = net(x)\nprint(f'{out}')",
        "out = net(x)\nout",  # a notebook cell's last expression: displayed
        "out = net(x)\nprint(classes[out[0]])",  # an index: its graph goes nowhere
        "classes = ('a', 'b')\nout = net(x)\nprint(classes[out[0]])",  # into a container the scope binds
        "import torch\nclasses = ('a', 'b')\nout = net(x)\n_, pred = torch.max(out, 1)\nprint(classes[pred[0]])",
        "out = net(x)\nprint(' '.join('%5s' % classes[out[j]] for j in range(4)))",  # in a comprehension
        "out = net(x)\nax.matshow(out, cmap='viridis')",  # drawn
        "out = net(x)\nwriter.add_image('sample', out, 3)",  # logged
        "out = net(x)\nmask[out] = 1",  # an index of a store, too
        "import torchvision.utils as vutils\nout = net(x)\nvutils.save_image(out, 'out.png')",  # saved
        # read on the way into another value: that value holds no graph, wherever it goes
        "out = net(x)\npred = np.argmax(softmax(out).data.cpu().numpy(), axis=1)\ncm = confusion_matrix(y, pred)",
        "out = net(x)\na = Categorical(out).sample().item()\nbuffer.put((s, a))",
        "out = net(x)\nlosses[epoch] = crit(out, y).item()",  # stored into a slot, read on the way
        "out = net(x)\ntotal += crit(out, y).item()",
        "logits = model(input_ids).logits\nprobs = softmax(logits[0, -1]).cpu().detach()\nkeep(probs)",  # a field
        "out = net(x)\nvals = [o.item() for o in out]",  # iterated by a comprehension reading each item
        "from torch_snippets import show\nout = net(x)\nshow(out[0], ax=ax, title='prediction')",  # drawn
        "from torch_snippets import *\nout = net(x)\nshow(out[0])",  # drawn, the name from a star import
        "dev = (net(x) - y).abs_()\nprint(dev.reshape(-1).tolist())",  # in place on a value computed from it
        "out = net(x)\nout.transpose_(0, 1)\nwriter.add_image('fmap', out, 3)",  # reshaped in place, then logged
        "out = net(x)\nif done:\n    out[:] = 0\nact(out.detach().numpy())",  # masked by a write, then read
        "out = net(x)\nout += 1\nprint(out.data)",  # changed in place under its name, then read
        "out = net(x)\nax.imshow((base + out[0]).clamp(0, 1))",  # drawn, computed with another tensor
        "import torch\nout = net(x)\npred = torch.max(out, 1)[1]\nkeep.append(pred)",  # its indices, function form
        # turned into an image
        "from torchvision import transforms\nout = net(x)\nimg = transforms.ToPILImage()(out.squeeze(0))\nimg.save(p)",
        "from torchvision.transforms.functional import to_pil_image\nout = net(x)\nto_pil_image(out[0]).save(p)",
        # asked its truth: `bool()` reads the value
        "out = net(x)\nif out[0] and ok:\n    keep(1)",
        "out = net(x)\nif ok and out[0]:\n    keep(1)",
        "out = net(x)\nwhile not out.all():\n    break",
        "out = net(x)\nflag = 1 if out[0] else 0\nkeep(flag)",
        # formatted into text through a template a name holds
        "template = 'prob: {p}'\nout = net(x)\nlabels.append(template.format(p=out[0]))",
    ],
)
def test_reads(code):
    assert only_read(code) in (["net(x)"], ["model(input_ids)"])


@pytest.mark.parametrize(
    "code",
    [
        "out = net(x)\nloss = crit(out, y)\nloss.backward()",  # computed with
        "out = net(x)\nouts.append(out)",  # stored
        "import torch\nout = net(x)\ntop = torch.max(out, 1)[0]\nkeep.append(top)",  # its values, with the graph
        "dev = (net(x) - y).abs_()\nloss = dev.mean()\nloss.backward()",  # in place, then backpropagated
        "out = net(x)\nlosses[epoch] = crit(out, y)",  # stored with its graph
        "loss = model(**batch).loss\nloss.backward()",  # `.loss` is no part of the output to read
        "out = net(x)\npred = softmax(out).argmax\nkeep(pred)",  # `.argmax` not called: no read on the way
        "out = net(x)\nprobs = softmax(out) * mask.data\nkeep(probs)",  # `.data` of something else
        "out = net(x)\nprint(out.shape)",  # only its shape: a check of the model
        "out = net(x)\nself.out = out",
        "from plots import show\nout = net(x)\nshow(out)",  # a function nobody here reads: may keep it
        "from plots import *\nout = net(x)\nshow(out)",
        "out = net(x)\nparts = [out[i] for i in range(3)]",  # views of it kept in a list
        "out = net(x)\nparts = [print(out) for out in batch]",  # another `out`, bound by the comprehension
        "out = net(x)\nfns = [lambda: out for _ in range(2)]",  # a lambda may run later
        "out = net(x)\nout += 1\nkeep.append(out)",  # changed in place, then stored
        "out = net(x)\nout[:] = 0\nloss = out.sum()\nloss.backward()",  # masked by a write, then backpropagated
        "out = net(x)\nax.imshow(keep(out))",  # drawn through a function that may keep it
        "out = net(x)\ntotal = out.sum()",
        "net(x)",  # not bound: a forward hook may be what it is for
        "out = net(x)\nkept = ok and out\nkeep(kept)",  # the last operand is the result: `out` itself
        "out = net(x)\nkept = out if ok else None\nkeep(kept)",  # a branch of the test, not the test
        "template = 'prob: {p}'\nout = net(x)\nlabels.append(template.replace('p', out))",  # not `format`
    ],
)
def test_not_only_reads(code):
    assert only_read(code) == []


def test_a_result_returned_is_not_only_read():
    tree = ast.parse("def f(net, x):\n    out = net(x)\n    print(out.data)\n    return out\n")
    assert read_only_calls(tree.body[0], ImportMap(tree).qualified_name) == frozenset()


def test_a_result_fed_back_into_the_next_step_is_followed():
    code = """
    for step in range(10):
        output, hidden = rnn(inp, hidden)
        inp = output.data.argmax()
    """
    assert "rnn(inp, hidden)" in only_read(code)


def test_a_result_fed_into_a_call_that_is_backpropagated_is_not_only_read():
    code = """
    h = encoder(x)
    out = decoder(h)
    out.sum().backward()
    """
    assert only_read(code) == []


def test_a_backward_pass_later_in_the_loop_may_use_the_call_through_a_hook():
    code = """
    for step in range(10):
        out = net(img)
        print(out.data)
        loss = -features[0].mean()
        loss.backward()
    """
    assert only_read(code) == []


def test_uses_before_the_assignment_outside_loops_do_not_count():
    code = """
    out = make()
    total = out.sum()
    out = net(x)
    print(out.data)
    """
    assert only_read(code) == ["net(x)"]


def test_reads_through_views_and_copies():
    assert only_read("enc = net(x)\nrows = enc[0].view(-1).cpu().data.numpy()") == ["net(x)"]
    assert only_read("enc = net(x)\nrows = enc.view(-1).cpu()") == []  # a copy kept, graph and all


def test_a_method_with_a_variable_of_the_same_name_is_another_variable():
    code = """
    class Net:
        def forward(self, x):
            out = self.fc(x)
            return out

    out = net(x)
    print(out.data)
    """
    assert only_read(code) == ["net(x)"]
    code = """
    out = net(x)
    print(out.data)

    def later():
        return out
    """
    assert only_read(code) == []


def test_a_value_rebound_in_a_row_is_followed_through_its_steps():
    code = """
    samples = G(z)
    samples = samples.mul(0.5).add(0.5)
    samples = samples.data.cpu()[:64]
    save_image(samples, "out.png")
    """
    assert only_read(code) == ["G(z)", "samples.mul(0.5).add(0.5)"]


def test_a_rebinding_inside_a_branch_does_not_end_the_value():
    code = """
    out = net(x)
    if flip:
        out = out.flip(0)
    loss = crit(out, y)
    """
    assert only_read(code) == []


def test_a_name_assigned_again_later_in_the_block_is_another_value():
    code = """
    code, _ = net(x)
    print(code.shape)
    for step in range(3):
        train()
    code = make_code()
    decoded = use(code)
    """
    assert only_read(code) == []  # the first call's result: only its shape, then replaced


def test_a_backward_pass_in_a_later_training_loop_does_not_count():
    code = """
    preds = model(x_test)
    print(preds[:10])
    for epoch in range(10):
        loss = crit(model(x), y)
        loss.backward()
    """
    assert only_read(code) == ["model(x_test)"]


def test_a_backward_pass_right_after_in_the_block_may_use_a_hook():
    code = """
    out = model(img)
    print(out.data)
    loss = -hooked[0].mean()
    loss.backward()
    """
    assert only_read(code) == []


def test_a_backward_pass_after_the_call_takes_its_graph_from_another_call_of_the_same_model():
    # Double DQN: the next states' Q-values only pick the argmax; the loss's graph comes from
    # `policy_net(states)`, the same model's training forward pass
    code = """
    next_q = policy_net(next_states)
    q_next = target_net(next_states).gather(1, torch.max(next_q, 1)[1].unsqueeze(1))
    q = policy_net(states).gather(1, actions)
    loss = F.smooth_l1_loss(q, rewards + gamma * q_next.detach())
    loss.backward()
    """
    assert "policy_net(next_states)" in only_read(code)


def test_twin_a_backward_pass_after_the_only_call_of_a_model_may_use_a_hook():
    code = """
    next_q = policy_net(next_states)
    best = torch.max(next_q, 1)[1]
    loss = -hooked[0].mean()
    loss.backward()
    """
    assert only_read(code) == []


@pytest.mark.parametrize(
    "code",
    [
        "logits = net(x)[:5]\nlogits",  # a part of the result
        "h = net(x)[0].view(-1)\nprint(h.data)",  # a view of a part
    ],
)
def test_a_part_or_view_of_the_result_is_followed(code):
    assert only_read(code) == ["net(x)"]


def test_a_name_assigned_again_in_a_later_loop_holds_the_loop_value_there():
    # The uses in the training loop see its own `pred`: the first one is only printed.
    code = """
    pred = net(x_test)
    print(pred.data)
    for x, y in loader:
        pred = net(x)
        loss = crit(pred, y)
        loss.backward()
    """
    assert only_read(code) == ["net(x_test)"]


def test_a_name_assigned_again_in_only_one_branch_may_still_hold_the_first_value():
    code = """
    pred = net(x_test)
    print(pred.data)
    for x, y in loader:
        if y is not None:
            pred = net(x)
        loss = crit(pred, y)
        loss.backward()
    """
    assert only_read(code) == []


def test_a_use_after_a_loop_that_assigns_the_name_sees_the_loop_value():
    # `out` after the loop is the last round's: the first `out` is never read (a smoke test).
    code = """
    out = net(x0)
    for i in range(10):
        out = net(x)
        loss = crit(out, y)
        loss.backward()
    print(out.data)
    """
    assert only_read(code) == []


def test_a_tuple_of_calls_assigned_to_as_many_names_binds_each_its_own_result():
    code = """
    pred_a, pred_b = net_a(x_test), net_b(x_test)
    plt.plot(x_test.numpy(), pred_a.data.numpy())
    kept.append(pred_b)
    """
    assert only_read(code) == ["net_a(x_test)"]


def test_a_backward_pass_after_the_names_are_assigned_again_belongs_to_the_new_values():
    # A backward pass right after a result may be fed by it through a forward hook; one that
    # follows a new forward pass into the same name (a later notebook cell) is that pass's.
    code = """
    pred = net(x)
    print(pred.data)
    pred = net(x2)
    loss = crit(pred, y)
    loss.backward()
    """
    assert only_read(code) == ["net(x)"]


def test_a_comprehension_over_the_items_of_a_zip_reads_the_result():
    code = """
    import torch
    import numpy as np
    import torch.nn.functional as F
    def images_to_probs(net, images):
        output = net(images)
        _, preds_tensor = torch.max(output, 1)
        preds = np.squeeze(preds_tensor.numpy())
        return preds, [F.softmax(el, dim=0)[i].item() for i, el in zip(preds, output)]
    """
    tree = ast.parse(textwrap.dedent(code))
    function = tree.body[-1]
    found = read_only_calls(function, ImportMap(tree).qualified_name)
    assert [ast.unparse(n) for n in ast.walk(function) if isinstance(n, ast.Call) and id(n) in found] == ["net(images)"]


def test_twin_a_comprehension_over_a_zip_that_keeps_the_element_is_no_read():
    code = """
    import torch.nn.functional as F
    def keep(net, images, labels):
        output = net(images)
        return [F.softmax(el, dim=0) for _, el in zip(labels, output)]
    """
    tree = ast.parse(textwrap.dedent(code))
    function = tree.body[-1]
    assert not read_only_calls(function, ImportMap(tree).qualified_name)


@pytest.mark.parametrize(
    "expr,expected",
    [
        ("net(x).data.max(1, keepdim=True)[1]", True),
        ("net(x)[0].item()", True),
        ("net(x).cpu().data.numpy()", True),
        ("net(x).argmax(1)", True),
        ("net(x).logits.argmax(-1)", True),  # a field of the output, read
        ("net(x).logits", False),
        ("net(x).shape", False),  # only its shape: a check of the model
        ("net(x).size(0)", False),
        ("net(x).sum()", False),  # computed with: may be backpropagated
        ("net(s).gather(1, a).detach().squeeze()", True),  # a DQN's target: selected, then cut
        ("net(s).gather(1, a)", False),  # selected and kept: may be backpropagated
        ("net(x)", False),
        # the indices of a values-and-indices reduction: integers, no graph (Double DQN's actions)
        ("net(s2).max(1)[1].unsqueeze(1)", True),
        ("torch.max(net(s2), 1)[1]", False),  # the function form hands `net(s2)` as an argument
        ("net(x).topk(5)[1]", True),
        ("net(s2).max(1)[0]", False),  # the values: a graph
        ("net(s2).max()[1]", False),  # an element of the maximum, a value
        ("((net(x) - y) ** 2).mean().item()", True),  # computed with, then read
        ("(net(z) - z).detach()", True),  # a straight-through estimator's difference, cut
        ("(net(x) - y) ** 2", False),  # computed with and kept: may be backpropagated
        ("-net(x).mean()", False),
    ],
)
def test_a_result_read_as_soon_as_it_is_made(expr, expected):
    from gradguard.check.analysis.read_only import read_at_once

    tree = ast.parse(f"y = {expr}")
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "net")
    assert read_at_once(call, lambda n: parents.get(id(n))) is expected


def test_a_comprehensions_first_iterable_is_code_of_the_scope_itself():
    code = """
    pred = net(x)
    pred = pred.data.max(1)[1]
    print([names[n.item()] for n in pred.squeeze()])
    """
    assert only_read(code) == ["net(x)"]


def test_a_name_kept_by_a_comprehensions_element_is_followed_through_its_result():
    code = """
    pred = net(x)
    print(pred.data)
    rows = [pred[i] for i in range(3)]
    keep(rows)
    """
    assert only_read(code) == []


def test_a_result_iterated_by_a_loop_whose_name_is_only_read_is_only_read():
    code = """
    maps = net(img)
    for fm in maps:
        plt.imshow(fm.detach().numpy())
    """
    assert only_read(code) == ["net(img)"]


def test_twin_a_result_whose_loop_keeps_its_items_is_not_only_read():
    code = """
    maps = net(img)
    kept = []
    for fm in maps:
        print(fm.data)
        kept.append(fm)
    """
    assert only_read(code) == []


def test_a_result_iterated_by_a_comprehension_whose_element_is_only_read_is_only_read():
    code = """
    predicted = model(images)
    predict = [np.argmax(p.detach().numpy()) for p in predicted]
    keep(predict)
    """
    assert only_read(code) == ["model(images)"]


@pytest.mark.parametrize(
    "comprehension",
    [
        "[p for p in predicted]",  # the items themselves: views holding the graph
        "[p * 2 for p in predicted]",  # computed with
        "[p.detach() for p in predicted for q in p]",  # a second generator: not followed
        "[(lambda: p)() for p in predicted]",  # nested code
    ],
)
def test_twin_a_comprehension_that_keeps_its_items_is_not_a_read(comprehension):
    code = f"""
    predicted = model(images)
    rows = {comprehension}
    keep(rows)
    """
    assert only_read(code) == []


def _with_functions(code: str) -> list:
    """``only_read`` with the module's functions' parameters read (``parameters_only_read``)."""
    from gradguard.check.analysis.read_only import parameters_only_read

    tree = ast.parse(textwrap.dedent(code))
    qualified = ImportMap(tree).qualified_name
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}

    def parameters_read(name):
        function = functions.get(name)
        return parameters_only_read(function, qualified) if function is not None else None

    found = read_only_calls(tree, qualified, parameters_read=parameters_read)
    return sorted(ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) in found)


def test_a_distribution_only_sampled_reads_the_output_it_is_made_of():
    # a policy's rollout: the action sampled, its log-probability kept as a number
    code = """
    from torch.distributions import Categorical, Normal

    def select_action(prob):
        m = Categorical(prob)
        return m.sample().item()

    prob, value = network(state)
    action = select_action(prob)
    mu, std = model.pi(s)
    dist = Normal(mu, std)
    a = dist.sample()
    log_prob = dist.log_prob(a)
    rollout.append((a.item(), log_prob.item()))
    """
    found = _with_functions(code)
    assert "model.pi(s)" in found and "network(state)" in found


def test_twin_a_distribution_whose_log_prob_is_kept_keeps_the_graph():
    # REINFORCE: the log-probability goes on to the loss
    code = """
    from torch.distributions import Categorical

    def select_action(prob):
        m = Categorical(prob)
        a = m.sample()
        return a.item(), m.log_prob(a)

    prob = network(state)
    action, log_prob = select_action(prob)
    mu, std = model.pi(s)
    dist = Categorical(mu)
    a = dist.sample()
    log_probs.append(dist.log_prob(a))
    """
    found = _with_functions(code)
    assert "model.pi(s)" not in found and "network(state)" not in found


@pytest.mark.parametrize(
    "handed",
    [
        "show(None, sample, 4)",
        "show(None, out=sample)",
        "show(None, sample[:8])",
    ],
)
def test_a_result_handed_to_a_function_that_only_reads_it_is_only_read(handed):
    code = f"""
    def show(in_, out, n=1):
        pic = out.data.cpu().view(-1, 28, 28)
        print(f"{{in_}} {{n}}")

    sample = model.decoder(z)
    {handed}
    """
    assert _with_functions(code) == ["model.decoder(z)"]


@pytest.mark.parametrize(
    "body",
    [
        "loss = crit(out, y)\n    loss.backward()",  # handed on to another call
        "return out",  # handed back
        "out = out.cpu()\n    print(out.data)",  # assigned again: another value
        "f = lambda: out.sum()\n    print(out.data)",  # used in nested code
        "print(out.shape)",  # only its shape: nothing evaluated
    ],
)
def test_twin_a_function_that_does_more_than_read_its_parameter(body):
    code = f"""
    def step(out, y):
        {body}

    sample = model(x)
    step(sample, y)
    """
    assert _with_functions(code) == []


@pytest.mark.parametrize(
    "body",
    [
        "predict = [np.argmax(p.detach().numpy()) for p in out]\n        return len(predict)",
        "for p in out:\n            print(p.argmax().item())",
        "for i, p in enumerate(out):\n            print(i, p.data)",
    ],
)
def test_a_parameter_iterated_with_each_item_only_read_is_only_read(body):
    code = f"""
    def success_rate(out, labels):
        {body}

    sample = model(x)
    print(success_rate(sample, y))
    """
    assert _with_functions(code) == ["model(x)"]


@pytest.mark.parametrize(
    "body",
    [
        "return [p * 2 for p in out]",  # the items computed with and handed back
        "for p in out:\n            keep.append(p)",  # the items kept
        "for p in out:\n            p = p.cpu()\n            print(p.data)",  # the loop name assigned again
        "total = 0\n        for p in out:\n            total = total + crit(p, y)\n        return total",
    ],
)
def test_twin_a_parameter_whose_items_are_kept_or_computed_with_is_not_read(body):
    code = f"""
    def rows(out, y):
        {body}

    sample = model(x)
    print(rows(sample, y))
    """
    assert _with_functions(code) == []


def test_twin_an_argument_handed_to_another_parameter_or_by_star_is_not_read():
    code = """
    def show(out, other):
        print(out.data)
        keep.append(other)

    a = model(x)
    show(x, a)
    b = model(x)
    show(*[b], x)
    """
    assert _with_functions(code) == []


@pytest.mark.parametrize(
    "code",
    [
        "l = loss(out, y)\nprint('%f' % l.mean().detach().numpy())",
        "l = crit(out, y)\nv = l.sum().item()",
        "out = net(x)\nprint(out.softmax(1).max(1)[1].tolist())",
    ],
)
def test_reductions_and_element_wise_maths_keep_the_graph_and_are_followed(code):
    found = only_read(code)
    assert found and all(call in ("loss(out, y)", "crit(out, y)", "net(x)") for call in found)


def test_twin_a_reduction_that_is_backpropagated_is_not_a_read():
    assert only_read("l = crit(out, y)\nl.mean().backward()") == []


@pytest.mark.parametrize(
    "code",
    [
        "acc = net(x)\nprint('%.2f%%' % (acc * 100))",
        "acc = net(x)\ns = 'acc {:.2f}'.format(acc)",
        "acc = net(x)\ns = '%d: %f' % (n, -acc)",
    ],
)
def test_a_result_formatted_into_text_is_read(code):
    assert only_read(code) == ["net(x)"]


def test_twin_a_result_used_in_arithmetic_outside_formatting_is_not_read():
    assert only_read("acc = net(x)\ntotal = acc * 100\ntotal.backward()") == []


def test_a_parameter_only_read_is_read_even_when_the_call_result_is_kept():
    code = """
    def accuracy(labels, probas):
        return ((probas > 0.5).float() == labels).float().mean()

    pred = model(x_test)
    acc = accuracy(y_test, pred)
    print('%.2f' % (acc * 100))
    """
    assert "model(x_test)" in _with_functions(code)


@pytest.mark.parametrize(
    "loop",
    [
        "for ax, img in zip(axes, decoded):\n    ax.imshow(img.detach().cpu().numpy())",
        "for i, img in enumerate(decoded):\n    print(i, img.data)",
    ],
)
def test_a_result_iterated_through_zip_or_enumerate_whose_items_are_only_read_is_only_read(loop):
    code = "samples = model.decoder(z)\ndecoded = samples[:10]\n" + loop
    assert only_read(code) == ["model.decoder(z)"]


@pytest.mark.parametrize(
    "loop",
    [
        "for ax, img in zip(axes, decoded):\n    kept.append(img)",  # the items are kept
        "for img, ax in zip(axes, decoded):\n    print(img.data)\n    kept.append(ax)",  # positions matter
        "for ax, img in zip(axes, *parts):\n    print(img.data)",  # which item is which is not known
    ],
)
def test_twin_items_kept_or_not_known_are_not_only_read(loop):
    code = "samples = model.decoder(z)\ndecoded = samples[:10]\n" + loop
    assert only_read(code) == []


def test_a_loop_name_reused_by_another_loop_is_judged_in_each_loop():
    # A notebook's cells reuse `img`: the loop over the samples reads its items.
    code = (
        "for ax, img in zip(axes, originals):\n    ax.imshow(img)\n"
        "samples = model.decoder(z)\n"
        "for ax, img in zip(axes, samples):\n    ax.imshow(img.detach().numpy())\n"
    )
    assert only_read(code) == ["model.decoder(z)"]


def test_twin_a_loop_that_assigns_its_own_loop_name_again_is_not_followed():
    code = "samples = model.decoder(z)\nfor img in samples:\n    img = img * 2\n    print(img.data)\n"
    assert only_read(code) == []


def test_a_helper_reshaping_its_parameter_and_keeping_only_indices_only_reads_it():
    # `prediction` handed back to itself reshaped, then only its argmax and sizes read: the mask
    # it returns is built from zeros
    code = """
    import numpy as np
    import torch

    def convert_to_mask(prediction):
        B, C, H, W = prediction.size()
        prediction = torch.transpose(prediction, 0, 1)
        prediction = torch.reshape(prediction, (C, -1))
        _, indices = torch.max(prediction, 0, False)
        out = torch.zeros(prediction.size())
        out[indices, np.arange(B * H * W)] = 1
        return out

    out = net(x)
    masks = convert_to_mask(out)
    results.append(masks)
    """
    assert _with_functions(code) == ["net(x)"]


@pytest.mark.parametrize(
    "step",
    [
        "values, indices = torch.max(prediction, 0, False)\n        keep.append(values)",  # the values kept
        "prediction = torch.sigmoid(prediction)\n        keep.append(prediction)",  # rebound, then kept
    ],
)
def test_twin_a_helper_keeping_its_parameters_values_does_not_only_read_it(step):
    code = f"""
    import torch

    def convert_to_mask(prediction):
        prediction = torch.transpose(prediction, 0, 1)
        {step}
        return prediction.size()

    out = net(x)
    masks = convert_to_mask(out)
    results.append(masks)
    """
    assert _with_functions(code) == []


def _only_read_with(code: str, **hooks) -> list:
    """``only_read`` of the module's code, with ``read_only_calls``'s keyword hooks."""
    tree = ast.parse(textwrap.dedent(code))
    found = read_only_calls(tree, ImportMap(tree).qualified_name, **hooks)
    return sorted(ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) in found)


def only_read_beside_models(code: str, models: set) -> list:
    """``only_read`` where the calls of the names in ``models`` run a model with parameters."""
    return _only_read_with(code, graph_source=lambda call: isinstance(call.func, ast.Name) and call.func.id in models)


TARGET_STEP = """
    for s, r, s2 in batches:
        target_q = r + 0.99 * target_critic(s2)
        target_q = target_q.detach()
        loss = F.mse_loss({prediction}, target_q)
        loss.backward()
"""


def test_a_target_detached_beside_a_training_forward_pass_is_only_read():
    # the loss takes its graph from `critic(s)`: the target network's output is only read
    assert only_read_beside_models(TARGET_STEP.format(prediction="critic(s)"), {"critic", "target_critic"}) == [
        "target_critic(s2)"
    ]


def test_a_target_detached_beside_a_training_forward_pass_bound_to_a_name_is_only_read():
    code = """
        def update(s, r, s2):
            q = critic(s)
            target_q = r + 0.99 * target_critic(s2)
            loss = (q - target_q.detach()).pow(2).mean()
            loss.backward()
    """
    tree = ast.parse(textwrap.dedent(code))
    function = tree.body[0]
    found = read_only_calls(
        function, ImportMap(tree).qualified_name, graph_source=lambda call: ast.unparse(call.func) == "critic"
    )
    assert [ast.unparse(n) for n in ast.walk(function) if isinstance(n, ast.Call) and id(n) in found] == [
        "target_critic(s2)"
    ]


@pytest.mark.parametrize(
    "prediction, models",
    [
        ("features['out']", {"critic", "target_critic"}),  # no model call in the loss: a hook may feed it
        ("critic(s)", set()),  # not known to run a model
        ("critic(s)", None),  # no way to ask
    ],
)
def test_twin_a_backward_pass_without_another_model_call_keeps_the_output(prediction, models):
    code = TARGET_STEP.format(prediction=prediction)
    if models is None:
        assert only_read(code) == []
    else:
        assert only_read_beside_models(code, models) == []


def test_twin_the_judged_value_itself_is_no_other_source():
    # `dist` is the model's output regathered: following the loss back through it reaches the
    # same call, which is no other forward pass
    code = """
        for s, a in batches:
            dist = current_model(s)
            dist = dist.gather(1, a)
            tau = helper(dist)
            loss = (tau - u).abs().mean()
            loss.backward()
    """
    assert only_read_beside_models(code, {"current_model"}) == []


def test_what_autograd_grad_is_handed_is_backpropagated():
    # the gradients are only read, but the loss they are taken of holds `net(x)`'s graph
    code = """
        import torch
        for x, y in data:
            out = net(x)
            loss = crit(out, y)
            grads = torch.autograd.grad(loss, params)
            print(grads[0].detach())
            print(crit(net(x0), y0).item())
    """
    assert "net(x)" not in only_read(code)


def test_a_result_handed_straight_to_an_image_conversion_is_converted():
    from gradguard.check.analysis.read_only import converted_to_image

    tree = ast.parse("from torchvision import transforms\nimg = transforms.ToPILImage()(net(x).squeeze(0).cpu())")
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "net")
    assert converted_to_image(call, lambda node: parents.get(id(node)), ImportMap(tree).qualified_name)


def test_twin_an_image_of_an_output_also_backpropagated_is_not_only_read():
    code = """
        from torchvision import transforms
        out = net(x)
        loss = crit(out, y)
        loss.backward()
        preview = transforms.ToPILImage()(out[0])
    """
    assert only_read(code) == []


def test_the_indices_of_a_reduction_are_no_view_of_the_output():
    # `best = net(s2).max(1)[1]` binds indices: the call is read at once, not bound
    tree = ast.parse("best = net(s2).max(1)[1].unsqueeze(1)\nq = target(s2).detach().gather(1, best)")
    assert not viewed_calls(tree.body[0].value)
    assert viewed_calls(ast.parse("v = net(s2).max(1)[0]").body[0].value)


def test_arithmetic_under_no_grad_reads_its_operands():
    code = """
        import torch
        v_next = critic(s2)
        with torch.no_grad():
            td_target = r + gamma * v_next
        print(td_target.mean().item())
    """
    assert only_read(code) == ["critic(s2)"]


def test_twin_a_name_stored_as_it_is_under_no_grad_keeps_its_graph():
    code = """
        import torch
        v_next = critic(s2)
        with torch.no_grad():
            memory.append(v_next)
    """
    assert only_read(code) == []


def test_a_parameter_rebound_to_its_own_values_without_graph_is_only_read():
    # d2l's `accuracy`: `y_hat = y_hat.argmax(axis=1)` reads the predictions, then compares indices
    code = """
    def accuracy(y_hat, y):
        if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
            y_hat = y_hat.argmax(axis=1)
        cmp = y_hat.type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    out = net(X)
    print(accuracy(out, y))
    """
    assert _with_functions(code) == ["net(X)"]


def test_twin_a_parameter_rebound_to_values_that_keep_its_graph_is_not():
    # `y_hat = y_hat.softmax(1)` keeps the graph, and the function hands it back
    code = """
    def scaled(y_hat, y):
        if len(y_hat.shape) > 1:
            y_hat = y_hat.softmax(1)
        return y_hat[range(len(y)), y]

    out = net(X)
    print(scaled(out, y))
    """
    assert _with_functions(code) == []


ACTOR_CRITIC_STEP = """
    def train_model(net, optimizer, next_state, reward, {parameters}):
        _, next_value = net(next_state)
        pred = reward + 0.99 * next_value[0]
        td_error = pred - value[0]
        loss = -torch.log(policy[0]) * td_error.item() + (value[0] - pred.detach()).pow(2)
        loss.backward()
"""


def _function_only_read(code: str) -> list:
    tree = ast.parse(textwrap.dedent(code))
    function = tree.body[0]
    found = read_only_calls(function, ImportMap(tree).qualified_name, graph_source=lambda call: False)
    return [ast.unparse(n) for n in ast.walk(function) if isinstance(n, ast.Call) and id(n) in found]


def test_a_loss_computed_from_the_function_s_parameters_takes_its_graph_from_them():
    # `policy` and `value` come from the caller's forward pass: the backward takes its graph from
    # them, not from a hook of `net(next_state)`, whose output is only read or detached
    assert _function_only_read(ACTOR_CRITIC_STEP.format(parameters="policy, value")) == ["net(next_state)"]


def test_twin_a_loss_computed_from_names_the_function_never_binds_may_take_a_hook_s_graph():
    # `policy` and `value` are globals here, not parameters: no source is shown
    assert _function_only_read(ACTOR_CRITIC_STEP.format(parameters="gamma=0.99")) == []


def test_twin_a_parameter_used_only_as_a_size_or_an_index_is_no_graph_source():
    # `batch_size` reaches the loss only through `.expand(batch_size, ...)`: it carries no graph
    code = """
        def compute_td_loss(batch_size):
            dist = current_model(state)
            index = action.expand(batch_size, 1, n)
            dist = dist.gather(1, index)
            tau = dist.argmax(1).float()
            loss = (tau * huber(u)).sum()
            loss.backward()
    """
    assert _function_only_read(code) == []


SAVE_IMAGES = """
import torchvision
import matplotlib.pyplot as plt

def save_img(imgs, e):
    imgs = imgs.reshape(imgs.shape[0], 1, 28, 28)
    imgs = imgs.clamp(0, 1)
    imgs = torchvision.utils.make_grid(imgs, nrow=8).detach().cpu().numpy()
    plt.imshow(imgs.transpose(1, 2, 0))
    {last}

samples = generator(z)
save_img(samples, epoch)
"""


def test_a_parameter_reshaped_mapped_then_detached_under_its_own_name_is_only_read():
    # each store of `imgs` gives it its own values back (a view, a clamp) or a copy without graph
    assert _with_functions(SAVE_IMAGES.format(last="plt.savefig(f'{e}.jpg')")) == ["generator(z)"]


def test_twin_a_parameter_rebound_to_something_else_on_the_way_is_not_only_read():
    # `imgs = decoder(imgs)` keeps a graph in the name the function then hands on
    code = SAVE_IMAGES.format(last="keep(imgs)").replace("imgs = imgs.clamp(0, 1)", "imgs = decoder(imgs)")
    assert "generator(z)" not in _with_functions(code.replace(".detach().cpu().numpy()", ""))


def _only_read_with_losses(code: str, losses: set) -> list:
    """``only_read`` where the calls of the names in ``losses`` are torch's losses."""
    return _only_read_with(code, torch_loss=lambda call: isinstance(call.func, ast.Name) and call.func.id in losses)


SHOWN_LOSS = """
    pred = model(x_test)
    print(pred.argmax(1))
    {callee}(pred, y_test)
"""


def test_a_torch_loss_as_a_statement_reads_its_arguments():
    # a notebook cell showing `loss_fn(pred, y_test)`: the loss is displayed, never backpropagated
    assert _only_read_with_losses(SHOWN_LOSS.format(callee="loss_fn"), {"loss_fn"}) == ["model(x_test)"]


def test_twin_another_callable_as_a_statement_may_keep_the_graph():
    # a style-transfer loss layer keeps `self.loss`: the call may hand the graph on
    assert _only_read_with_losses(SHOWN_LOSS.format(callee="style_loss"), {"loss_fn"}) == []


def test_a_name_unpacked_beside_the_result_that_holds_no_graph_need_not_be_read():
    # `net, predictions = train_and_pred(...)`: the model goes to an export, the predictions are read
    code = "net, predictions = train_and_pred(x)\nprint(predictions.detach().numpy())\nexport(net, x)\n"
    tree = ast.parse(code)
    graphless = read_only_calls(tree, ImportMap(tree).qualified_name, holds_no_graph=lambda _, name: name == "net")
    assert [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) in graphless] == [
        "train_and_pred(x)"
    ]
    # twin: without that knowledge, the export is a use that may keep the graph
    assert not read_only_calls(tree, ImportMap(tree).qualified_name)
    # and a name of a single assignment is always followed
    single = ast.parse("net = build(x)\nexport(net, x)\n")
    assert not read_only_calls(single, ImportMap(single).qualified_name, holds_no_graph=lambda _, name: True)


@pytest.mark.parametrize(
    "code,expected",
    [
        # appended to a list started empty, then only read
        ("preds = []\nfor x in xs:\n    preds.append(net(x))\nprint(preds[0].detach().numpy())", ["net(x)"]),
        ("preds = []\npreds.append(net(x))\nfor p in preds:\n    plot(p.detach().numpy())", ["net(x)"]),
        # twins: the list is stacked into a loss, handed on, or was not started empty
        ("preds = []\nfor x in xs:\n    preds.append(net(x))\nloss = crit(torch.stack(preds), y)\nloss.backward()", []),
        ("preds = []\npreds.append(net(x))\nkeep(preds)", []),
        ("preds = [net(x0)]\npreds.append(net(x))\nprint(preds[0].detach().numpy())", []),
    ],
)
def test_results_appended_to_a_new_list(code, expected):
    assert only_read(code) == expected


_SELF_METHOD_READ = """
    output = self.model(image)
    output = self.restore(output)
    plt.imsave("sample.png", output)
"""


def test_a_result_handed_to_a_method_of_the_class_that_only_reads_it_is_read():
    read = {"self.restore": (("x",), {"x": 1}, False)}  # `def restore(x): return x.data.numpy()`
    assert _only_read_with(_SELF_METHOD_READ, parameters_read=read.get) == ["self.model(image)"]


def test_twin_a_method_of_the_class_that_keeps_its_argument_leaves_the_result_open():
    read = {"self.restore": (("x",), {}, False)}  # `def restore(x): self.kept = x`
    assert _only_read_with(_SELF_METHOD_READ, parameters_read=read.get) == []
