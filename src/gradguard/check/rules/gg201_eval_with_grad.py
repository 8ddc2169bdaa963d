"""Evaluation with grad enabled.

## What it does
In short: a call of a model, while grad is enabled, whose graph nothing will backpropagate: in
a loop over validation or test data, after `model.eval()`, in a function named for evaluation
or prediction, or whose output is only read (printed, `.item()`, `.argmax()`, compared, drawn,
detached at once). Code that uses gradients nearby (a backward pass, an optimizer step,
`torch.autograd.grad`, inputs made to require grad) makes each such call a site of its own. The
rest of this section says what counts as each of these, and which sites stay quiet.

Flags evaluation code that runs a model while grad is enabled: a function that calls
`.eval()` on a model, or loops over a validation/test loader (`val_loader`, `valid_dl`,
`test_loader`, `eval_dataloader`, `loader_eval`, `dev_iter`, `self.val_dataloader()`, ...), and then calls
the model outside any `no_grad`/`inference_mode` region, without any sign of gradient use in
that function. Also flagged: one body serving a training and an evaluation phase (`for phase in
["train", "val"]`, `fit(..., phase="validation")`) whose every backward pass sits under a test of
the training phase (`if phase == "train":`, or a flag: `if not is_test:`, `if is_train and ...:`), with a
switch to eval mode under the other branch (or under `if phase == "validation":`, `if is_test:`; or, where
the phase is a parameter of a function, a caller with grad enabled handing it an evaluation value:
`self.run_epoch(val_loader, mode="val")`, `run_epoch(loader, train=False)`; any parameter guarding
every backward pass alone, whatever its name, is such a flag: `if grad: loss.backward()` and
`run_epoch(test_loader, False)`; so is a local name bound once to such a test, `train_mode = optimizer is not None`
then `if train_mode:`; so is a parameter tested for None, `if optimizer is not None:
loss.backward()` or `if optimizer:`, where the call leaves it out or hands None, also where the body
switches the mode itself, `model.train() if optimizer else model.eval()`; a function whose optional
parameter, None by default, guards its backward passes and whose body switches to eval mode where it is
absent serves an evaluation phase however its callers reach it, through a factory or from another file,
unless a caller of another file runs it with grad off; the switch may also be one call,
`model.train(phase == "train")`), and a model call outside both,
with grad enabled: the evaluation phase records a graph for nothing (`torch.set_grad_enabled(phase == "train")` around
the forward pass is the usual cure, `torch.set_grad_enabled(optimizer is not None)` for an object tested
for truth, which `set_grad_enabled` does not take; no fix is offered). And a model call whose output (or a part or view of it:
`logits = net(x)[:5]`) is read at once (`net(x).data.max(1)[1]`; a `requires_grad_()` on the
way hands back the output itself, graph and all: `ctc(net(x).log_softmax(2).requires_grad_(), y, ...)`) or bound to names that are
then only read (not where a loop around it backpropagates the name, `fs[0, label].backward()` above
`fs = net(x)`: the next turn takes the gradient of this output; `prediction = net(x)` followed by
`prediction.data.numpy()`, `.item()`, `.argmax()`,
the indices of `.topk(5).indices` or `.max(1)[1]`,
comparisons or `print` (also `print("output", net(x))` or `f"{net(x):.3f}"` at once), used as an index (`classes[predicted[j]]`), drawn or logged
(`ax.matshow(attention)`, `writer.add_image(tag, sample)`, `save_image(fake, path)`, tiled by
`torchvision.utils.make_grid` on its way to a drawing, converted into a PIL image, also by a name the
file binds only to `transforms.ToPILImage()`, torch_snippets'
`show(pred[0])`, shown as a
notebook cell's last line, also among others, `out.shape, out[0][:3]`, or the call alone as that
line, `model(val_x)` (not `model(val_x);`, whose semicolon keeps it from being shown), unless it calls a method or function the check reads that is named for
evaluation, `model.predict(prefix)`, judged there; so is a call of such a method of a plain class of the
file holding a model, `sbs.predict(x)`, also one attached by `setattr(StepByStep, "predict", predict)`, or
one whose class the code shows and whose method hands back no graph, `self.validator.validate(loader)`,
or of the class at hand, `self.val(test_data)`), iterated by a loop or a comprehension that only
reads each item (`[np.argmax(p.detach().numpy()) for p in out]`), collected by a list comprehension
straight into a tensor constructor that copies the values (`torch.tensor([net(g) for g in validset])`), fed back into the next step of a generation loop, written into
before it is read (`out[:] = 0`, actions masked), changed in place by augmented arithmetic before it is read or
detached (a DQN's `target *= gamma`, `target += r`, `target = target.detach()`), written into a buffer a torch factory made whose other uses are
writes, reads computing what is written back, and reads detached at once (a k-step prediction, `preds[i] =
net(preds[i - 4:i])`, then `preds[n:].detach().numpy()`; also added into one through the name it is bound to,
`pred_y_i = net(x_i)`, `pred_y[a:b] += pred_y_i`, of `torch.zeros(...).to(device)` read as `pred_y.cpu().detach()`), handed to a
function of the file or of another file of the run that only reads that parameter: `show_images(sample)` where
`def show_images(out): plt.imshow(out.data.cpu()[0])` (or first copies it without graph, `out = out.data.numpy()`), bound outside
any loop to a name (not `_`) that nothing reads afterwards and no backward pass follows (`y_pred = model(hour_var)` after training; not the
forward pass of a homework's training step whose loss line is left to write, `loss = None`, nor one whose output nothing reads in a
loop that zeroes the same model's gradients first, `self.model.zero_grad()`, `output = self.model(x)`, then `# TODO` and `pass`:
a gradient computation left to write; nor one in a branch of a training loop, after `optimizer.zero_grad()`, whose other
branch runs the same model and backpropagates, under a test that does not tell phases apart (`if mixed_precision:
... scaler.scale(loss).backward()` / `else: outputs = model(x)`: the backward pass missing there is a bug of its own)),
or fed into a loss or other tensor
computation whose result is only read: `print(loss(net(features), labels).item())`, also through a loss
function of the file that only computes from its arguments (`loss = mse_loss`, then
`loss(net(features), labels).mean().item()`; not one that keeps an argument), through
arithmetic and indexing, `torch.sum(mlp(x) * x).item()`, or into a torch function that gives a
bool, a number or indices: `torch.allclose(mlp(x), reference)`, `torch.multinomial(probs, 1)`), as in
predictions made after training, a test loss printed every epoch
for a plot or samples drawn from a trained generator (a submodule such as `model.decoder` is in
the mode `model.eval()` or `model.train()` set; so is a torch layer the run's module classes store
under that name, `self.feat_extraction = nn.Sequential(...)`, of a model loaded whole, `net =
torch.load(path)`, then `net.feat_extraction(z)`); not when only its shape is read (also in a loop over evaluation data that stops after one batch:
`print(output.shape)` then `break`; also of a model run once on made-up input, a saved model loaded
again, `out = loaded(torch.rand(1, 3, 224, 224))` then `print(out.shape)`, unless the lines around
time it), not for a
module built in the same scope and never trained or loaded there (a torch layer built and run at once,
`nn.Linear(n, 1)(x)`, is such a module in any file; an object holding it, `agent = Agent()`,
whose class has a method that backpropagates and that the code calls, `agent.update()`, trains it; its parameters copied
pair by pair to or from another module in a `for ... in zip(...)` loop, `native_param.copy_(custom_param)`, do not), outside a loop over evaluation data (such a
loop records a graph for every batch all the same: `for imgs, _ in test_loader: writer.add_images("out",
conv(imgs))`) (not one made of another
model's layers, `nn.Sequential(*list(model.children())[:1])`, or given them one by one,
`for layer in cnn.children(): model.add_module(name, layer)` as the neural style tutorial builds
its model; a smoke test of the model's
code, also in a function named for evaluation: `def test_rnn(RNN): rnn = RNN(8); rnn(x)`, or
of modules handed in, run on made-up input whose output's values nothing reads: `z = e(torch.randn(...))`,
`print(z.size())`; in a file that neither backpropagates nor loads weights, a function named for
testing whose callers all hand it a module just built and made-up input, `test_model(torch.randn(10,
1, 32, 160), CRNN(...))`, even where it times the call or reads the output's shape; in a file that never backpropagates, a call on made-up input whose result nothing
reads at all, `oup = model(torch.rand(1, 3, 224, 224))` at a model file's end;
loading shows as `net.load...(`, `net.restore...(`, `load...(net, ...)`, a keyword naming weights
(`Net(checkpoint_name=path)`, `pretrained=True`) or a class whose `__init__` loads them
(`self.load_state_dict(torch.load(path))`, in the file or another file of the run; a class whose
`__init__` ends with `self.eval()`, an ensemble of loaded members, makes its instances in eval
mode; `torch.hub.load(repo, "alexnet")` is a model, not a tokenizer's or helpers' entry); in a script or
notebook, which runs in order, only what comes before the call (or in the loops around it) counts
when its data is not named for a test split (data a torch factory makes up, `test_example =
torch.randn(5, 5)`, is none, whatever its name), and an optimizer over the parameters only once a
step or a backward pass has run: a demo of the untrained model (or of one of its layers, `model[0](x)`;
word vectors put into an embedding, `nn.Embedding.from_pretrained(vectors)`, are no trained weights)
before its training cell is not reported (also one built in a cell that does not parse, an exercise's `net = # complete here`,
where later cells train it, or one built only in a later cell, never trained nor given weights: the
notebook was run out of order, and a function of the file computing a model by hand before any
backward pass or step of the script since its weights were last made), nor, in a file that never backpropagates or for the file's only
instance of the class, a demo of the outputs of an untrained instance of the file's own class
(in a file that never backpropagates, also of a torch layer: `nn.BatchNorm2d(16)`, or of a class of another
file of the run whose `__init__` loads nothing: a test script of the project's `Encoder`) switched to eval mode on made-up inputs, printed or shown as a notebook cell's last line (a torch factory's,
numbers written in the code, `torch.tensor([3, 2])`, what
a function of the file returns of them or of numpy's or scipy's random numbers,
`get_truncated_noise(n, z, 0.7)`, those numbers handed to `torch.tensor` on the spot,
`torch.tensor(np.random.normal(size=[2, 100]))`, or what another such demo gave: `outputs, state = encoder(x)`, then
`decoder(y, state)`, also `torch.from_numpy(np.array([[1, 2]], dtype="float32"))`; a call whose output is thrown
away untimed is a check that it runs, not reported; one timed or profiled, `model(x)` or `_ = model(x)`, still is); comments and strings are not code; training by a helper
as `train...(net, ...)`, `fit...(net, ...)` or `net = train...(...)`; `net.train()` only sets
a mode, and counts as training where the code has a backward pass (a module class's own
`train(...)` loop that backpropagates, `pinn.train(x, epochs=1000)`, is training); handing the module to a
function of the file that trains (`train_batch(x, y, model, optimizer)`, its arguments on one line or
several) is training, and a model's own method named for training given data (`logs = model.fit(train,
dev=dev, epochs=10)` of a Keras-like module) trains, it evaluates nothing; what the
code does after the name is bound to another module is about that one, and so is what it did
before the name was bound to this one when it builds the module again), and not when a backward pass follows in the same loop or right after it in the same
block, unless the loss it backpropagates is computed from another call of a model with parameters
(the step's training forward pass: DDPG's `target_critic(s2)`, detached, beside `critic(s)` in the
critic's loss) or the loop calls the same model again (a forward hook may feed it: in a file that registers forward hooks, a call whose result
is dropped, `model(x)` alone, followed in its loop by a backward pass, is not reported even after
`.eval()`; and an output handed to a callable the file does not define, in a file whose class
backpropagates in `__call__`, may be backpropagated there); the backward pass must be reachable from the output
(not through a value read only detached: `action_next = actor_target(s2)`, `q_next = critic_target(s2,
action_next)`, `y = r + gamma * q_next.detach()` backpropagates neither target call); a
name rebound on every path in between carries the new value (`pred = net(test_x)` in the
evaluation step, then `pred = net(x)`, `loss = f(pred)`, `loss.backward()` in the training
loop backpropagates the second `pred` only; round a loop the same holds: a sample
`fake = netG(fixed_noise)` saved at the loop's end is not the `fake = netG(noise)` that its top
binds again and backpropagates). A function whose result carries a graph that a caller in the
file backpropagates is training, however it switched the model's mode (`calculate_prototypes(X, y,
model)` calling `model.eval()`, the distances to its prototypes in the training loss). A function
named for evaluation whose result carries a
graph is reported when every caller in the file only reads that result, and so is a model call whose
output a function returns (`return losses, predictions` of a final forward pass after its training
loop) where every caller in the file only reads what it returns, whether or not the function
itself reads anything (`yhat, losses = build_and_train(x, y)` in a loop of experiments, then
`np.corrcoef(y.T, yhat.data.T)`); for a method, not where the file also calls a method of its name
on something the model does not know (`model.generate(gray)` in a training step handed `model`). A
helper that copies what it is handed into a buffer it makes (`ret = torch.zeros(...)`, `ret[:, :, i]
= image[i]`) and gives the buffer back detached (`ret.detach().numpy()`) only reads it. A module-level name whose uses in the module show a
module (`G_AB = Generator()` from a star import, `G_AB.parameters()` handed to an optimizer) is
one in every function that reads it (`fake_B = G_AB(real_A)` in `sample_images`). A model is also a
function of the file that computes one by hand: it returns a tensor with a graph of its own,
whatever it is given (`def forward(x): return x @ w.t() + b` over weights that require grad),
neither backpropagates nor steps, and is not handed a module; so is what `torch.jit.trace` or
`torch.jit.script` makes of a module (it shares the module's parameters), and the functional copy
`higher` enters or makes of one (`with higher.innerloop_ctx(net, opt) as (fnet, diffopt):`,
`higher.monkeypatch(net)`: a MAML's `fnet(x_qry)` runs `net`'s layers on fast weights); and so is a short function of the
file (three statements at most, or four around a call of the model's own name) that returns a
model's output, a part of it, or what it computes from one, with its graph (`def G(z): return torch.sigmoid(G_(z))` over a module-level `G_`; a
rollout's `select_action(state)` returning `torch.normal(action_mean, action_std)` of its policy's
outputs, a sample that keeps their graph), and a call of a function of
the file that is handed a module and runs it, neither backpropagates, steps nor yields, and
gives back a tensor that may carry the graph (`batch_loss(model, x, y)` of `def batch_loss(model,
x, y): return F.cross_entropy(model(x), y)`: reported where its loss is only read, `total +=
batch_loss(model, x, y).item()`), and so is a call of a module-level function of another file of the
run that calls the module it is handed, hands back what it computes and turns no grad off
(`utils.get_segment_labels(image, model, device)`; not one named for evaluation, judged in its own
file, nor one handed a module without parameters or the file's own untrained one, nor one that
backpropagates or differentiates, an attack's `torch.autograd.grad(loss, image)`). A call of a model's method runs
the model where the method's code shows it (it calls `self(...)`, `self.forward(...)`, a layer
the instance holds, a parameter its `__init__` makes, also through a property computed from one (a Hopfield
network's `def step(self, x): return torch.sign(x @ self.weight_sym)`), or another such method:
`agent.get_action(obs)`, `net.qvals(x)`; a method named `step`, `encode`, `decode` or `log` only where a class of
the file or of the run defines it), for a
class of the file or of another file of the run; for a class the run does not show, where the
method is named for running it (`act`, `predict`, `encode`, `sample`...), or, whatever its name,
where every module class of the file or the run defining it runs the model by it
(`model.quantize_forward(data)` of a model handed in). A method's own instance is in eval mode where
every call of the method the file shows is made on an instance switched to it (`self.eval()`, then
`self.predict(ch, hidden)` in `generate`). A model is something named like one (`model`, `net`, `self.backbone`,
`teacher`, `ema_model`, `netD`, `model.module`, ...), unless it is called with no input (`model_class()` builds one): a module without parameters (pooling,
dropout, torchaudio's `MelSpectrogram`, a class of the file holding only such layers or
transforms; an attribute under which the run's module classes keep only such a layer, `model.act(logits)`
of `self.act = nn.Softmax(dim=-1)`) records no graph, and nothing else in the code tells the two apart (`backward`, `torch.autograd`, an optimizer `step`, `.grad`, `requires_grad`,
`grad_fn`), and no `torch.jit.freeze`, `optimize_for_mobile` (a frozen module holds its weights as constants) or quantization's `convert` (its weights are packed integers). In a function it is reported at the first such model call (one fix wraps the function); in
a script's or notebook's own code, at each loop over evaluation data and each statement that runs
a model switched to eval mode, on evaluation data, or whose output is only read (each cell is run,
and fixed, on its own), or, in a script or notebook that uses no gradients, that runs a model its
code gave weights from a file before the call (`AE.load_state_dict(torch.load(path))`, `G =
torch.load(path)`, a function of the file or of the run loading the model it is handed,
`load_model("g.pth", G, opt)`; not a call whose output is thrown away, a warm-up, nor one whose output goes
to a function of the file or of another file of the run that backpropagates it; in a function of
such a file, only one that shows what it computes, `plt.show()`, running a model loaded at module
level). In a function that does train (a
training loop followed by a validation loop), the validation loop alone is checked: a loop
over an evaluation loader whose body shows no gradient use. A loop over evaluation data that
does use gradients (an adversarial attack: `torch.autograd.grad(loss, x_adv)`, an attack of
torchattacks or foolbox, `atk = torchattacks.PGD(model)` then `atk(x, y)`, or a call named for
one, `adversary.perturb(x, y)`, `fgsm_attack(...)`) is not wrapped whole: each model call in it
whose output is never backpropagated is reported on its own, with the advice to wrap that call.
Functions named for evaluation include those named for sampling (`sample`, `sample_from_model`,
`save_samples`); a list the code appends outputs to (`res_logits.append(logits)`, then
`return torch.cat(res_logits)`) may hold a graph, so returning it is returning a graph.

Also flagged: a model switched to eval mode and run with grad inside a training step (a loop that
backpropagates and steps an optimizer), on inputs that carry no graph (the loop's data, moved or
cast; or a tensor bound before the loop and never in it, not by a model's call, where no backward
pass of the loop keeps its graph: had it one, the second backward pass would raise), whose output
the loss takes, where no optimizer the step steps updates that model or a part of it (not
`AdamW(model.classifier.parameters())` beside a backbone frozen in eval mode; a distillation teacher
beside `SGD(student.parameters())`, built in the function, handed in by every caller of the file
with the student's, or kept on the instance by a trainer class, `self.optimizer`, whose `__init__` switched
`self.teacher` to eval mode and which never switches it back; a teacher the function builds, `copy.deepcopy(model)`, is in no optimizer
handed in; a perceptual loss's target features, `vgg(image)`; a style transfer's `vgg(content)`
beside `Adam([image])`, an optimizer of tensors alone): the backward pass runs through it and fills
gradients nothing uses. Not where an optimizer holds it, where a caller
hands one model as both, where its input carries a graph (`vgg(fake)`: the generator needs that
gradient; freeze the network's parameters instead), nor where the code reads gradients (`p.grad`,
`torch.autograd.grad`; importing the legacy `Variable` from `torch.autograd` is no such use).
A method of the class that calls a gradient-based explainer (`self.grad_cam(image, target)` of a
module class of the run, kept under the snake-case name of the class the file imports, whose `forward`
backpropagates) uses gradients: there only a call whose output is only read is a site. So does code that
builds such a module (`cam = GradCam(model, layer)`, handed to an object that runs it). An output copied item
by item into a tensor (`targets[i] = out[i, label[i]]` of a `torch.zeros` buffer) is backpropagated with it
(`targets.sum().backward()`: a saliency map).
An environment's `step` (`obs, reward, done, info = env.step(action)`, a receiver named for an
environment) is no optimizer step, nor is a learning-rate scheduler's (`scheduler.step(val_loss)` of a
`ReduceLROnPlateau(optimizer)`); a method named for training (`trainer.sample_and_train(n)`) is
no model call and counts as training. A method of an object whose class the code does not show
(`self.algo.predict(obs)` of an agent handed its algorithm) runs a model where every class of the
run's files in the file's folder that defines it runs one by it, at least one a plain class holding
the model (`self.model.parameters()` in its body; classes handing the call on by the same name do
not count).

Not flagged: functions under a decorator or inside a caller region that may disable grad (the
callers in the file, in other files of the run and in its notebooks' cells, a method's calls on
instances other files make, `model = lm.LM()` then `model.sample(x)`; for a function defined
in another's body, its calls there);
an output detached at once that the step hands to a model it trains (`fake = G(z).detach()`, then
`D(fake)` in the discriminator's loss: an input, not an evaluation; handed only to a call whose own
output is detached, `critic_target(s2, actor_target(s2).detach()).detach()`, it trains nothing and is
reported);
methods named as Lightning's evaluation hooks (`validation_step`, `predict_step`, `on_test_...`),
which its trainer runs without grad (unless the file imports no Lightning and calls the method
itself: `model.predict_step(batch)` of the file's own module is code like any other; nor a
method of a class with no base in such a file taking no hook's batch, `class Solver(object): def
test_step(self, x, c)`; `def validation_step(self, batch, batch_idx)` of a mixin stays a hook), and a
Catalyst runner's `predict_batch`, which `runner.predict_loader(...)` runs without grad;
a function its enclosing function returns (`return perform_val_step_fn`: it runs wherever the
factory's result is called, often under `no_grad`);
library models that run without grad themselves (facenet-pytorch's `MTCNN`, whose `detect` runs
its networks under `no_grad`), test doubles (`Mock(spec=BertForMaskedLM)`), and a criterion known by
its name alone (`self.criterion(output, target)`) handed tensors without graph;
a training loop holding `...` statements of its own (an exercise whose zeroing, backward pass and
step are left to write), and a `self.<attr>` whose own `backward` its class calls with a gradient
(`self.model.backward(self.loss_fn.backward())`: a hand-written layer framework autograd does not
track);
a module whose `forward` runs a backward pass itself, or through a method of its class it calls (a
meta-learner, a GANomaly's `self.backward_g(x)`: the call trains) or asserts
its output requires grad (`assert qvalues.requires_grad`: under `no_grad` it fails); a method of a
module class of the file or of the run that differentiates, itself or through a method of its
class it calls (a physics-informed network's residual taking `torch.autograd.grad(u, t,
create_graph=True)`); a module
built without parameters (`nn.Sequential(nn.Dropout(0.5))`, `nn.BatchNorm1d(n, affine=False)`, a
class of the file holding only `MaxPool2d`, `ReLU`, a loss module and such: a demo of a layer,
a label-smoothing criterion; a class, of the file or of the run, holding only torchvision's image
transforms, `self.preprocess = transforms.Compose([...])`; `requires_grad=False` says nothing of
parameters, and a layer of another package, PyTorch Geometric's `GCNConv`, may hold some);
a container the scope assembles from the layers of a module it froze and from layers without
parameters (a style-transfer loss network: `vgg.requires_grad_(False)`, `model =
nn.Sequential(normalize)`, `model.add_module(name, layer)` for each `layer` of `vgg.children()`,
a loss module keeping a detached target), whose calls record no graph; a function handed a model
that it runs only under its own `no_grad` (a diffusion sampler);
a model known only by its name (also its methods, `model.predict(x)`) in a file that imports
JAX, Flax or Keras, or TensorFlow without torch or with its training (`tf.GradientTape`, `keras`);
a `predict` (or `predict_proba`) of a model known only by its name in a file that imports the
estimators of scikit-learn, XGBoost, LightGBM or CatBoost (`loaded_model.predict(X)` beside
`from xgboost import XGBClassifier`), or a `predict_proba`, `predict_log_proba` or
`decision_function` that no module class of the file or the run runs a model by (models a caller
`joblib.load`s); a stable-baselines3 algorithm's `predict` (its policy runs under `no_grad`);
a call followed in its block by an optimizer's step with no backward pass between
(`g_optimizer.zero_grad(); g_optimizer.step()`: the missing `g_loss.backward()` is the bug, and the
backward pass, once written, would raise under `no_grad`);
a model whose parameters the code freezes before the call (`for p in model.parameters():
p.requires_grad_(False)`, also over a list of models, `for model in [graphSage, classification]:`
around such a loop, `G = load(fp).requires_grad_(False)`, a helper of the file or of
another file of the run, `freeze.frozon(net)`, a function of the file returning it frozen,
`fe, head = split(model)`; for a
parameter of a function, by every caller of the file; for a global a function reads, by the
module's code before the function's definition, never thawed later; not by a freeze in the other
branch of an `if` that no loop repeats), with no
layer added after the freeze (an attribute given a constant, `model.aux_logits = False`, is none;
a head given before the freeze loop, `model.last_linear = nn.Linear(2048, 1)`, is frozen by it too), its inputs not
made to require grad (`model.enable_input_require_grads()`) and none of its parameters thawed in
between: then its calls record no graph (an
input made to require grad, `x.requires_grad_()`, thaws nothing); an instance of a module class
(of the file or of another file of the run) whose `__init__` freezes, in its own body, the whole
instance with no part added after, or every attribute its other methods read (a VGG feature
extractor of a style or perceptual loss: `for p in self.features.parameters(): p.requires_grad =
False`), unless the file thaws parameters again; an output whose graph
`torchviz` draws (`make_dot(y.mean())`); code calling a gradient-based explainer (torchcam's
`SmoothGradCAMpp`, pytorch-grad-cam's `GradCAM` or `GuidedBackpropReLUModel`, Captum's
gradient attributions), which backpropagates through the model, nor an output handed to one
(`cam_extractor(class_id, logits)`; torchcam's `CAM`, which reads weights only, is an evaluation);
`model.generate(...)` of a class the run does not show (Hugging Face's and the GPT
implementations' `generate` run without grad; a class of the file or of another file of the run
says for itself, as does a module class of the run whose `generate` runs it, for a model switched to
eval mode, and `GPT.from_pretrained(...)` or `Net.load(...)` on one makes an instance of it);
a method of a model whose class is not known that every module class of the run defining it runs
without grad (`self.model.predict_proba(x)` with `@torch.inference_mode()` on `predict_proba`), or
that only plain classes of the file or of the run define, running the model they hold under `no_grad`
(`model.predict(X)` of an `LSTMPredictor` wrapper, `model.predict_label(x)` of an attack's
`PytorchModel`, `model` known by its name alone);
the hooks of a `LightningModule` that the trainer runs without grad, and what they call;
module-level functions and methods that this file calls only where grad is disabled
(`with torch.no_grad(): validate(model, loader)`, and the functions `validate` calls;
`model.get_accuracy(x, y)` under `no_grad` in a script's code, and the `self.predict(x)` that
method calls: the grad mode of a caller is the one its own callers run it in; a method stored in a
table that a function only calls entries of, `sampler = dict(tcn=self.sample_tcn)` then
`sampler[kind](x)` under `no_grad`, is called there);
unit tests (`test_*` in a test file: `test_*.py`, `*_test.py`, `tests.py`, a `tests/` folder, not
`test.py`, which most often evaluates a trained model; the methods of a `unittest.TestCase`) running the model
they test, built in `setUp`, whose output they only read, or built in the test itself and
switched to eval mode there (`detr_resnet50(pretrained=False)`: `pretrained=False` loads nothing; nor
does a class whose `__init__` picks its weights from a parameter, `weights = "DEFAULT" if pretrained
else None`),
and any other function of a test file running a model it builds and never trains (a model tester's
`create_and_check_*` helper);
functions that only switch the model to eval mode and return; functions that return a loss
(the caller may call `backward` on it), and functions that may return a graph and are handed to a
function or method of the file that backpropagates, or to an optimizer's `step` (a loss closure,
`self.optimize(image, total_loss_function)`); functions named for evaluation whose result carries a graph,
alone or in a tuple (`return action, log_prob` in a policy's `evaluate`), unless every caller in
the file only reads it (`output = evaluate(x)` then `output.data.topk(3)`); `forward` / `__call__` (not the
`forward` of a plain class, one without a base class, whose every model call's output is only read: an
ensemble member's `return mean.detach().numpy(), var.detach().numpy()`); and the hooks PyTorch Lightning
already runs without grad or with its own loss handling (`training_step`, `validation_step`,
`test_step`, `predict_step`, `*_epoch_end`, `on_validation_*`, `on_test_*`, `on_predict_*`), as methods:
a script's own function of that name (`def test_step(x, t): model.eval(); ...`) is judged as any
other. A function defined under `if __name__ == "__main__":` has the callers the script shows, as
one defined at the top level.

## Why is this bad?
`model.eval()` only changes layers such as dropout and batch norm; it does not turn autograd
off. Every forward call still records a graph and keeps the activations it needs for a
backward pass that never comes: evaluation uses several times the memory it needs and runs
slower. Anything accumulated from the outputs (`total += criterion(out, y)`) keeps those
graphs alive across iterations.

## Example
```python
import torch

def evaluate(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
```

## Use instead
```python
import torch

@torch.no_grad()
def evaluate(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
```

## Fix safety
The fix decorates the function with `@torch.no_grad()` (using the file's name for torch)
and is unsafe: a caller may rely on the outputs carrying gradients (for example to
backpropagate through a model kept in eval mode). No fix is offered for `async def`
functions (the decorator would not cover the coroutine's body), for functions with a
`torch.jit` decorator, for files that do not bind a name to torch, for module-level code, and
for validation loops inside training functions (decorating those would disable training).
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from gradguard.check.analysis.flow import GradMode
from gradguard.check.analysis.grad_mode import RegionKind, classify_grad_mode
from gradguard.check.analysis.imports import ImportMap, callee_name, dotted_name, subscript_root
from gradguard.check.analysis.model import is_property, names_a_loss, parameterless_layer, split_of_text
from gradguard.check.analysis.project import (
    builds_parameters,
    current as current_project,
    init_switches_to_eval,
    loaded_parameter,
    loads_weights,
)
from gradguard.check.analysis.read_only import (
    TO_IMAGE_FUNCTION,
    Rebindings,
    assigned_values,
    converted_to_image,
    ends_in_metadata,
    left_to_subclasses,
    makes_image_converter,
    parameters_only_read,
    read_at_once,
    read_only_calls,
    viewed_calls,
    written_into_detached_buffer,
)
from gradguard.check.analysis.scopes import (
    FUNCTION_TYPES,
    called_parameters,
    comprehension_nodes,
    parameter_defaults,
    parameters,
    target_names,
    walk_in_order,
)
from gradguard.check.analysis.steps import (
    code_occurrences,
    frozen_global,
    frozen_models,
    frozen_since,
    given_a_layer,
    given_layer_offsets,
    in_block,
    in_code,
    may_freeze,
    stepped_optimizer,
)
from gradguard.check.analysis.values import RUN_FUNCTION, Grad, Kind, Role, Split, Value
from gradguard.check.analysis.vocabulary import (
    DISTRIBUTION,
    ESTIMATOR_METHODS,
    ESTIMATOR_ONLY_METHODS,
    GRAPH_ENDING_METHODS,
    INDEX_RESULTS,
    LIGHTNING_EVALUATION_HOOK_PREFIXES,
    LIGHTNING_EVALUATION_HOOKS,
    LIST_ADDING_METHODS,
    LR_SCHEDULER_PREFIX,
    MODULE_CONTAINERS,
    MODULE_OWN_METHODS,
    NOT_MODEL_METHODS,
    READING_BUILTINS,
    RUNNING_METHOD_RE,
    SET_ENABLED_NAMES,
    SHAPE_FACTORIES,
    TEACHING_MODELS,
    TEACHING_PACKAGES,
    TORCH_NON_TENSOR,
    TRANSFORMERS_RUNNING_METHODS,
    VALUE_READ_HINTS,
    call_argument,
    names_an_environment,
)
from gradguard.check.model import Applicability, Edit, Fix, FixAvailability, Severity
from gradguard.check.rules.base import Finding, Invalid, Rule, Valid
from gradguard.check.triggers import TextSearch
from gradguard.common.text import occurrences, short

_LOADER_RE = re.compile(
    # (after a data set's name: `mnist_testloader`, `cifar10_val_loader`)
    r"^(?:(?:[a-z0-9]+_)*(?:val|valid|validation|test|testing|eval|evaluation|dev)_?(?:data_?)?(?:loader|dataloader|dl|iter|iterator)s?"
    r"|(?:data_?)?loader_?(?:val|valid|validation|test|eval))$",
    re.I,
)
_ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "zip", "track", "islice", "trange", "progress_bar"})
# Calls that use gradients: a unit making one trains (or differentiates) on purpose.
_GRAD_METHODS = frozenset({"backward", "step", "zero_grad", "requires_grad_", "retain_grad", "register_hook"})
_GRAD_FUNCTIONS = (
    "torch.autograd.grad",
    "torch.autograd.backward",
    "torch.autograd.functional.",
    "torch.autograd.forward_ad.",
    "torch.autograd.gradcheck",
    "torch.func.",
    "functorch.",
    "torch.jit.freeze",
    "torch.jit.optimize_for_inference",
    "torchviz.",  # `make_dot(y.mean())` draws the graph the model call records
)
_GRAD_ATTRIBUTES = frozenset({"grad", "grad_fn", "requires_grad"})
_GRAD_NAMES = frozenset({"gradcheck", "gradgradcheck", "jacobian", "hessian", "vjp", "jvp", "grad", "vmap"})
# What the text of a loop's iterable says when it may be a loader or a data set.
_DATA_WORDS_RE = re.compile(r"load|data|set|batch|iter|dl\b|val|test|eval|dev|split|sample|ds\b|examples", re.I)
# A validation/test split named in an identifier or a string (file and function triggers):
# `val`, `valid`, `validation`, `test`, `testing`, `eval` or `dev` starting a word (`test_x`,
# `valset`, `X_val`), or `Val`/`Valid`/`Validation`/`Test`/`Testing` anywhere, not followed
# by a lower-case letter (as in the camel-case split names below; `ValueError` and `Tester` are
# none). Each pattern starts with its word, which the engine then looks for as a plain string:
# about 3x faster than one pattern of alternatives.
_SPLIT_SUFFIX = r"(?:set|data|x|y|s)?(?![a-z])"
_SPLIT_TRIGGERS = (
    re.compile(r"val(?<![A-Za-z0-9]val)(?:id|idation)?" + _SPLIT_SUFFIX),
    re.compile(r"test(?<![A-Za-z0-9]test)(?:ing)?" + _SPLIT_SUFFIX),
    re.compile(r"eval(?<![A-Za-z0-9]eval)" + _SPLIT_SUFFIX),
    re.compile(r"dev(?<![A-Za-z0-9]dev)" + _SPLIT_SUFFIX),
    re.compile(r"Val(?:id|idation)?(?![a-z])"),  # not `ValueError`
    re.compile(r"Test(?:ing)?(?![a-z])"),
)
# A name that mentions a validation/test split: ``test_x``, ``X_val``, ``valid_imgs``,
# ``testImages``, ``valset`` (a word of the name, in snake or camel case). One of these occurs
# exactly where ``(?<![A-Za-z0-9])(?:\w*_)?(?:val|...|dev)(?:set|data|x|y|s)?(?![a-z])`` or its
# camel-case forms ``(?<=[a-z0-9_])(?:Val|...|Dev)(?![a-z])``, ``(?<![A-Za-z0-9])(?:Val|Test)(?![a-z])``
# occur (`tests/check/test_fast_patterns.py`); each starts with its word, which the pattern
# engine looks for first: several times as fast on whole files as one pattern of alternatives.
_SPLIT_NAME_PATTERNS = (
    *_SPLIT_TRIGGERS[:4],
    re.compile(r"Val(?:(?<=[a-z0-9_]Val)(?:id|idation)?|(?<![A-Za-z0-9]Val))(?![a-z])"),
    re.compile(r"Test(?:(?<=[a-z0-9_]Test)(?:ing)?|(?<![A-Za-z0-9]Test))(?![a-z])"),
    re.compile(r"Eval(?<=[a-z0-9_]Eval)(?![a-z])"),
    re.compile(r"Dev(?<=[a-z0-9_]Dev)(?![a-z])"),
)
# The target of an assignment at the start of a line: ``    encoder = ...``.
_ASSIGNED_ON_LINE_RE = re.compile(r"[ \t]*([A-Za-z_][\w.]*)[ \t]*=(?!=)")
# A data split named in a string: ``split="test"``, ``"data/val"``, ``'valid'``.
_SPLIT_TEXT_RE = re.compile(r"""["'/](?:val|valid|validation|test|testing|eval|dev)["'/]""")
# Function names that say the function evaluates: a model call in one is evaluation.
_EVAL_FUNCTION_RE = re.compile(
    r"(^|_)(eval|evaluate|evaluation|validate|validation|valid|val|test|testing|predict|prediction|"
    r"inference|infer|generate|generation|demo|detect|sample|samples|sampling)($|_)",
    re.I,
)
_SKIP_FUNCTIONS = (
    frozenset({"forward", "__call__", "training_step", "validation_step_end", "test_step_end"})
    | LIGHTNING_EVALUATION_HOOKS
)
_SKIP_PREFIXES = LIGHTNING_EVALUATION_HOOK_PREFIXES
_FACTORY_PREFIXES = ("create_", "build_", "get_", "load_", "make_", "init_", "_")
# Methods of a model named for something other than running it (`model.init_hidden(bs)`).
_NOT_RUNNING_PREFIXES = _FACTORY_PREFIXES + (
    "begin",
    "set_",
    "reset",
    "save",
    "zero",
    "register",
    "add_",
    "named_",
    "state_",
    "to_",
    "from_",
    "train",
    "eval",
    "num_",
    "count",
    "print",
    "log",
    "summary",
    "freeze",
    "unfreeze",
    "update",
    "step",
    "sync",
    "copy",
    "clone",
    "share",
    "apply",
    "cpu",
    "cuda",
    "half",
    "float",
    "double",
    "init",
    "load",
    "fuse",  # `model.fuse_model()`: fuses conv, batch norm and ReLU modules in place
    "prepare",
    "convert",
    "quantize",
)


@dataclass
class _Unit:
    """What one function body (or the module) has shown so far."""

    eval_calls: list = field(default_factory=list)  # every ``x.eval()`` / ``x.train(False)``, in order
    # every ``x.train(phase == "train")``: eval mode in the evaluation phase of a loop over phases
    phase_switches: list = field(default_factory=list)
    loader_loops: dict = field(default_factory=dict)  # id(loop) -> (loop, loader text)
    # Loops whose iterable may be evaluation data, by its text, not asked about yet (the model
    # is asked only when a call in the loop may be a model call): id(loop) -> (loop, name).
    maybe_loops: dict = field(default_factory=dict)
    model_calls: list = field(default_factory=list)  # _Candidate
    read_by_callers: bool = False  # it returns a graph that every caller of the file only reads

    @property
    def eval_call(self) -> Optional[ast.AST]:
        """The first switch to eval mode met."""
        return self.eval_calls[0] if self.eval_calls else None


@dataclass
class _Candidate:
    """A model call with grad enabled, and what shows that it evaluates."""

    call: ast.Call
    why: str  # "loop", "eval-mode", "eval-call", "eval-data", "eval-function", "read-only", "loaded", "eval-phase"
    loop_id: Optional[int] = None
    data: str = ""  # the evaluation data or model shown in the message
    # a module-level `test_*` function's call of a module it builds (`_testing_what_it_builds`)
    tests_own: bool = False


@dataclass
class _State:
    """What the rule keeps while it walks one file."""

    units: dict = field(default_factory=dict)  # id(function) (0: the module) -> _Unit
    may_evaluate: Optional[bool] = None  # `_may_evaluate`, computed on first use
    eval_receivers: Optional[frozenset] = None  # `_switched_to_eval`: what `.eval()` is called on
    # `_self_evaluating_instances`: names bound to a module whose class's `__init__` ends in eval mode
    self_evaluating: Optional[frozenset] = None
    # `_self_abstract_method`: the methods the file's classes leave to subclasses, by name
    abstract_methods: Optional[frozenset] = None
    names_split: Optional[bool] = None  # `_names_a_split`
    named_eval: dict = field(default_factory=dict)  # id(function) -> `_evaluates_by_name`
    read_only: dict = field(default_factory=dict)  # id(scope) -> ids of calls whose result is only read
    reads_values: dict = field(default_factory=dict)  # id(scope) -> `_reads_values`
    # id(scope) -> (names its returns hand back, whose callers only read them or None: not asked yet)
    returns_to_readers: dict = field(default_factory=dict)
    reading_functions: Optional[frozenset] = None  # `_reading_functions`
    parameters_read: dict = field(default_factory=dict)  # function name -> `_parameters_read`
    self_methods_training: dict = field(default_factory=dict)  # (id(class), method) -> `_self_method_trains`
    code_text: Optional[str] = None  # `_code_text`
    uses_grad: dict = field(default_factory=dict)  # id(function) -> `_function_uses_grad`
    calls_backpropagate: Optional[bool] = None  # `_calls_backpropagate`
    # ids of the calls whose result is the value of an assignment, or that value a part or view of it
    assigned_calls: set = field(default_factory=set)
    frozen: dict = field(default_factory=dict)  # (id(scope), name) -> what `_frozen` reads of the text
    parameters_called: dict = field(default_factory=dict)  # id(function) -> `_parameters_called`
    wrapper_shapes: dict = field(default_factory=dict)  # id(function) -> `_wrapper_shape`
    own_backward_calls: dict = field(default_factory=dict)  # id(class) -> `_runs_a_backward_of_its_own`'s attributes
    project_runners: dict = field(default_factory=dict)  # qualified name -> `_project_runner`
    qualified_name: Optional[Callable] = None  # `_qualified_name`: imports, and image converters held by names
    cell_ends: Optional[frozenset] = None  # ids of a notebook's statements that end their cell (`_displayed`)
    name_loads: dict = field(default_factory=dict)  # id(scope) -> name -> the Name nodes reading it (`_left_unused`)
    returns_asked: set = field(default_factory=set)  # ids of the functions `_returned_only_read` is working on
    checkpoint_loads: Optional[dict] = None  # `_checkpoint_loads`
    function_spans: Optional[list] = None  # sorted (start, end) of the file's outermost functions
    module_level_loads: Optional[dict] = None  # `_module_level_loads`
    phase_calls: dict = field(default_factory=dict)  # id(function) -> `_evaluation_phase_call`
    method_calls: Optional[dict] = None  # method name -> ids of the file's calls `x.<name>(...)`
    definitions: Optional[dict] = None  # function name -> the file's definitions of it (`_definitions_named`)


def _loader_name(expr: ast.AST) -> Optional[str]:
    """The evaluation loader a ``for`` iterates, if its name says so."""
    node = expr
    if isinstance(node, ast.Call):
        func = node.func
        if callee_name(node) in _ITER_WRAPPERS:
            for arg in node.args:
                found = _loader_name(arg)
                if found:
                    return found
            return None
        if not node.args and isinstance(func, ast.Attribute) and _LOADER_RE.match(func.attr):
            return func.attr + "()"
        return None
    last = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if last and _LOADER_RE.match(last):
        return last
    return None


def _bound_wrapper(ctx, iterable: ast.AST) -> Optional[ast.AST]:
    """What a loop's name is bound to where its scope binds it once, to a wrapper of an iterable
    (``tq = tqdm(enumerate(self.testloader), total=...)``, then ``for i, (x, y) in tq:``)."""
    if not isinstance(iterable, ast.Name):
        return None
    scope = ctx.function if ctx.function is not None else ctx.tree
    bindings = ctx.model.uses(scope).bindings_of(iterable.id)
    if len(bindings) != 1 or type(bindings[0].node) is not ast.Assign:
        return None
    value = bindings[0].value
    if not isinstance(value, ast.Call):
        return None
    return value if callee_name(value) in _ITER_WRAPPERS and value.args else None


def _may_be_data(ctx, iterable: ast.AST) -> bool:
    """Whether an iterable not named like an evaluation loader may still be evaluation data,
    by its text and the file's."""
    if not _may_evaluate(ctx):
        return False  # no split named anywhere in the file: no loader here can be an evaluation one
    # `range(n)`, `zip(a, b)`, `self.modules()`: not a loader nor a data set
    return _DATA_WORDS_RE.search(ctx.text(iterable)) is not None


def _evaluation_iterable(ctx, iterable: ast.AST, named: Optional[str]) -> Optional[str]:
    """How to name the iterable of a loop over evaluation data, or None when it is not one:
    a loader or data set built from a validation/test split (``DataLoader(test_set)``,
    ``MNIST(train=False)``, ``ImageFolder("data/val")``, ``loaders["val"]``, a parameter
    every caller passes such a loader to), or one named like it (``val_loader``)."""
    value = ctx.model.value(iterable)
    if value.kind in (Kind.LOADER, Kind.DATASET):
        if value.split is Split.EVAL:
            return named or _shown(ctx, iterable)
        if value.split is Split.TRAIN or not value.weak:
            return None
    if named is not None and value.kind in (Kind.LOADER, Kind.DATASET, Kind.UNKNOWN):
        return named
    return None


def _evaluation_loop(ctx, unit: "_Unit", loop_id: int) -> bool:
    """Whether a loop of the unit iterates evaluation data (asked of the model once)."""
    if loop_id in unit.loader_loops:
        return True
    entry = unit.maybe_loops.pop(loop_id, None)
    if entry is None:
        return False
    loop, named = entry
    shown = _evaluation_iterable(ctx, loop.iter, named)
    if shown is None:
        return False
    unit.loader_loops[loop_id] = (loop, shown)
    return True


def _shown(ctx, node: ast.AST) -> str:
    """The loop's iterable as the message shows it: the loader itself, not its wrappers."""
    while isinstance(node, ast.Call) and node.args:
        if callee_name(node) not in _ITER_WRAPPERS:
            break
        node = node.args[0]
    return short(ctx.text(node), 40)


_BUILTINS = frozenset(dir(__import__("builtins")))


# Names in NOT_MODEL_METHODS that a model class may define as a method running it.
_CALLABLE_NAMES = frozenset({"encode", "decode", "log", "step"}) & NOT_MODEL_METHODS


def _certainly_not_a_model(ctx, target: ast.AST) -> bool:
    """Callees the syntax alone shows are no model (no question to the model needed): a
    builtin, a function or class the module defines, an imported name or module attribute
    (``torch.cat``, ``np.mean``, ``torch.ops.aten.abs.default``), a method of the current class
    (``self.helper(...)``), a method no module's call goes through (``outputs.append``,
    ``model.parameters``)."""
    if isinstance(target, ast.Name):
        name = target.id
        if (
            name in _BUILTINS or (name in ctx.imports.names and ctx.model.imported_instance(name) is None)
        ) and not _bound_locally(ctx, name):
            return not ctx.model.rebinds(name) and _project_runner(ctx, target) is None
        definitions = ctx.model.scopes.module.definitions.get(name)
        return (
            bool(definitions)
            and not ctx.model.rebinds(name)
            # not a parameter or local of the same name (`def predict_rnn(prefix, rnn, params)`
            # beside the module's `def rnn(...)`): what it holds is what the callers hand it
            and not _bound_locally(ctx, name)
            and not any(
                _graph_function(ctx, [definition])
                or _parameters_called(ctx, definition)
                or _wrapper_shape(ctx, definition)
                or _computes_from_handed_weights(definition)
                for definition in definitions
            )
        )
    if isinstance(target, ast.Attribute):
        if target.attr.startswith("assert"):
            return True  # `self.assertEqual(...)`
        if target.attr in NOT_MODEL_METHODS:
            # `outputs.append(y)`, `model.parameters()`, `tokenizer.encode(text)`; not a method a
            # module class of the file or run defines under that name (`vae_net.encode(x)`)
            return target.attr not in _CALLABLE_NAMES or not ctx.model.method_shown(target.attr)
        root = target.value
        if not (isinstance(root, ast.Name) and root.id == "self") and ctx.model.stores_only_parameterless_layers(
            target.attr
        ):
            return True  # `model.act(logits)` where the run's models keep an `nn.Softmax` under `act`
        if isinstance(root, ast.Name) and root.id == "self":
            cls = ctx.method_class
            call = ctx.parent(target)
            if cls is not None and _runs_a_backward_of_its_own(ctx, target, cls):
                return True
            return (
                cls is not None
                and any(
                    isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and s.name == target.attr
                    and not is_property(s)
                    for s in cls.body
                )
                # not a trainer's helper running its model (`self.compute_batch(batch)`), nor one
                # running a module it is handed (`self.run_nerf(rays, model)`)
                and not (
                    isinstance(call, ast.Call)
                    and call.func is target
                    and (ctx.model.self_method_runs_model(call) or _own_method_runs_a_handed_module(ctx, call))
                )
            )
        # An attribute of an imported module, however deep: `np.mean`, `torch.ops.aten.abs.default`;
        # not a function of another file of the run that runs a module it is handed.
        while isinstance(root, ast.Attribute):
            root = root.value
        return (
            ctx.model.is_import(target)
            and not (isinstance(root, ast.Name) and _bound_locally(ctx, root.id))
            and _project_runner(ctx, target) is None
        )
    return not isinstance(target, (ast.Subscript, ast.Call))


# `self.model.backward(grad)`: a `backward` of an attribute of `self` called with an argument.
_OWN_BACKWARD_RE = re.compile(r"\bself\.(\w+)\.backward\(\s*[^)\s]")


def _runs_a_backward_of_its_own(ctx, target: ast.Attribute, cls: ast.ClassDef) -> bool:
    """Whether the class calls a ``backward`` method of ``self.<attr>`` that it hands a gradient
    (``self.model.backward(self.loss_fn.backward())``): a layer of a hand-written framework, whose
    weights autograd does not track (a module has no ``backward`` method, a tensor is not called)."""
    found = ctx.state(_State).own_backward_calls
    attributes = found.get(id(cls))
    if attributes is None:
        # the attributes of `self` whose `backward` the class calls with an argument, in one pass
        text = ctx.text(cls)
        attributes = found[id(cls)] = frozenset(_OWN_BACKWARD_RE.findall(text)) if ".backward(" in text else frozenset()
    return target.attr in attributes


def _bound_locally(ctx, name: str) -> bool:
    """Whether a function around the walk's position binds ``name`` (a parameter, a local): there
    it is not the module's import or builtin (`def eval(insts, model)` in a file that does
    `import model.crf`)."""
    return any(isinstance(scope, FUNCTION_TYPES) and ctx.model.function_binds(scope, name) for scope in ctx.scopes)


def _project_runner(ctx, target: ast.AST) -> Optional[dict]:
    """The parameters (name -> position) that a module-level function of another file of the run
    calls, where ``target`` names one that neither backpropagates, steps, yields nor turns grad
    off, and hands back what it computes (``utils.get_segment_labels(image, model, device)`` of
    ``def get_segment_labels(image, model, device): ...; return model(image)``); None otherwise
    (read from that file: ``ProjectIndex.function_node``, once per name)."""
    project = ctx.model.project
    if project is None:
        return None
    qualified = ctx.imports.qualified_name(target)
    if qualified is None or qualified.startswith(("torch.", "torchvision.")) or "." not in qualified:
        return None
    cache = ctx.state(_State).project_runners
    if qualified in cache:
        return cache[qualified]
    cache[qualified] = None
    if _EVAL_FUNCTION_RE.search(qualified.rpartition(".")[2]):
        return None  # `d2l.predict_sentiment(net, ...)`: judged inside, in its own file
    found = ctx.model.project_function(qualified)
    if found is None:
        return None
    _tree, function = found
    nodes = list(walk_in_order(function))
    called = called_parameters(function, nodes)
    if not called:
        return None
    text = ast.unparse(function)
    if (
        re.search(r"\.(?:backward|step)\(|autograd\.grad\(|no_grad|inference_mode|set_grad_enabled", text)
        or any(isinstance(sub, (ast.Yield, ast.YieldFrom)) for sub in nodes)
        or ctx.model.project_function_differentiates(qualified)
    ):
        # a training step or an attack differentiating (also through a helper of its file:
        # `run_model` calling `train_epoch`), a generator, or grad turned off inside
        return None
    returns = [sub.value for sub in nodes if isinstance(sub, ast.Return) and sub.value is not None]
    if not returns or any(
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _READ_STEPS
        for value in returns
    ):
        return None  # nothing handed back, or only what it read
    cache[qualified] = called
    return called


def _builds_a_backpropagating_module(ctx, call: ast.Call, qualified: str) -> bool:
    """Whether a call builds an instance of a module class of another file of the run whose
    ``forward`` backpropagates (``cam = GradCam(model, target_layer)``): code that makes a
    gradient-based explainer uses gradients, wherever it runs it (an object it hands it to)."""
    if (
        ctx.model.project is None
        or qualified.startswith(("torch.", "torchvision."))
        or not qualified.rpartition(".")[2][:1].isupper()
    ):
        return False
    made = ctx.model.value(call)
    return (
        made.kind is Kind.MODULE and (made.ref or "").startswith("project:") and ctx.model.module_backpropagates(made)
    )


def _handed_a_model(ctx, argument: ast.AST) -> bool:
    """Whether an argument is a module that may record a graph: not one without parameters,
    nor one known by its name alone in a file that imports another framework's models (Keras),
    nor an instance of the file's own class that the file never trains or loads (a test of the
    helper on a toy module)."""
    value = ctx.model.value(argument)
    if value.kind is not Kind.MODULE or ctx.model.module_without_parameters(value):
        return False
    if value.weak and ctx.model.other_framework_models:
        return False  # `checkAcc(model, ...)` of a Keras `model` known by its name: not torch's
    if isinstance(argument, ast.Name) and value.ref and ctx.model.class_info(value.ref) is not None:
        name = re.escape(argument.id)
        trained = rf"\b{name}\.(?:load|parameters\(|train\()|\b(?:load|train|fit)\w*\(\s*{name}\b"
        return re.search(trained, ctx.source.text) is not None
    return True


# The last step of a returned value that leaves no graph in it.
_READ_STEPS = frozenset({"item", "tolist", "numpy", "detach"})


def _graph_function(ctx, definitions: list) -> bool:
    """Whether the file's one definition of a name is a function that computes a model by hand:
    it returns a tensor carrying a graph of its own, whatever it is given (``def net(X): return
    X @ W + b`` over weights that require grad), and neither backpropagates nor steps."""
    if len(definitions) != 1 or not isinstance(definitions[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if not ctx.model.reads_grad_globals(definitions[0]):
        return False  # its graph, if any, comes from what it is given
    summary = ctx.model.function_summary(definitions[0])
    if summary.trains or summary.generator:
        return False
    returned = summary.returns
    if returned.kind is Kind.UNKNOWN:
        # `def model(xb): return log_softmax(xb @ weights + bias)`: through the file's own
        # functions, as the file calls it (the summary follows no call of its own).
        returned = ctx.model.returns_as_called(definitions[0])
    # A model's output (`Role.OUTPUT`) is the model call's inside it, reported there.
    return returned.kind is Kind.TENSOR and returned.grad is Grad.YES and not returned.has(Role.LOSS | Role.OUTPUT)


def _computes_from_handed_weights(definition: ast.AST) -> bool:
    """The shape of a model computed by hand from the weights it is handed: one statement,
    returning arithmetic over its parameters (``def model(t_u, w, b): return w * t_u + b``)."""
    return (
        isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef))
        and len(definition.body) == 1
        and isinstance(definition.body[0], ast.Return)
        and isinstance(definition.body[0].value, ast.BinOp)
        and len(definition.args.args) >= 2
    )


def _handed_weights_trained_here(ctx, call: ast.Call, definitions: list) -> bool:
    """Whether the call runs a function of the file that computes a model by hand from the
    weights it is handed (``def model(t_u, w, b): return w * t_u + b``), and the scope
    backpropagates through another call of it given the same weights: ``val_t_p = model(val_t_u,
    *params)`` beside ``train_t_p = model(train_t_u, *params)`` and ``train_loss.backward()`` in
    the training loop of *Deep Learning with PyTorch*. Those weights require grad, so the
    validation call records a graph."""
    if len(definitions) != 1 or not isinstance(definitions[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if not call.args[1:] and not call.keywords:
        return False
    return _computes_from_handed_weights(definitions[0]) and _runs_on_trained_weights(ctx, call)


def _runs_on_trained_weights(ctx, call: ast.Call) -> bool:
    """Whether a call of a model computed by hand (``model(t_u, w, b)``, d2l's ``linreg(X, w,
    b)``) is handed weights the code trains, and the scope, or a function around it, backpropagates
    through another call of it given the same weights (``eval_loss()`` inside the training
    function, over its `w` and `b`)."""
    weights = [ast.dump(arg) for arg in call.args[1:]] + [ast.dump(keyword) for keyword in call.keywords]
    if not call.args or not weights or not isinstance(call.func, ast.Name):
        return False
    # The weights are trained somewhere in the file: made with `requires_grad=True`, switched to
    # it (`w.requires_grad_(True)`: the model's value of the name here) or handed to an optimizer
    # (not `rescale(x, scale, shift)` with constants).
    handed = [arg.value if isinstance(arg, ast.Starred) else arg for arg in call.args[1:]]
    if not handed or not all(isinstance(arg, ast.Name) for arg in handed):
        return False
    text = ctx.source.text
    if not any(
        re.search(
            rf"(?<![\w.]){re.escape(arg.id)}\s*=[^\n]*requires_grad\s*=\s*True|"
            rf"optim\.\w+\(\s*\[?\s*{re.escape(arg.id)}\b",
            text,
        )
        or _requires_grad_here(ctx, arg)
        for arg in handed  # type: ignore[attr-defined]
    ):
        return False
    name = call.func.id
    scope = ctx.function if ctx.function is not None else ctx.tree
    scopes = [scope]
    if scope is not ctx.tree:
        scopes += [s for s in reversed(ctx.model.enclosing(scope)) if isinstance(s, FUNCTION_TYPES)]
    for around in scopes:
        if ".backward(" not in (ctx.source.text if around is ctx.tree else ctx.text(around)):
            continue
        if any(
            other is not call
            and isinstance(other, ast.Call)
            and isinstance(other.func, ast.Name)
            and other.func.id == name
            and other.args
            and [ast.dump(arg) for arg in other.args[1:]] + [ast.dump(keyword) for keyword in other.keywords] == weights
            and _backpropagated_in(ctx, other, around)
            for other in walk_in_order(around)
        ):
            return True
    return False


def _requires_grad_here(ctx, name: ast.AST) -> bool:
    """Whether the model's value of a name where it is read is a tensor that requires grad."""
    value = ctx.model.value(name)
    return value.kind is Kind.TENSOR and value.grad is Grad.YES


def _backpropagated_in(ctx, call: ast.Call, scope: ast.AST) -> bool:
    """Whether the call's result, bound to a name, goes into a loss that the scope backpropagates
    (``train_t_p = model(...)``, ``train_loss = loss_fn(train_t_p, y)``, ``train_loss.backward()``;
    or computed into the loss the statement binds: ``l = loss(net(X, w, b), y).sum()``)."""
    name = _bound_name(ctx, call)
    if name is None:
        statement = _statement(ctx, call)
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            return False
        name = statement.targets[0].id
    uses = ctx.model.uses(scope)
    return bool(uses.derived(name) & uses.backpropagated)


def _parameters_called(ctx, fn: ast.AST) -> dict:
    """The parameters a function of the file calls, by name, with their position (None for a
    keyword-only one): ``model`` for ``def calc_loss_batch(x, y, model): logits = model(x)``."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    cache = ctx.state(_State).parameters_called
    found = cache.get(id(fn))
    if found is None:
        own = ctx.model.own_nodes(fn)
        # `[model(part) for part in x.split(n)]` calls `model` too
        found = cache[id(fn)] = called_parameters(fn, [*own, *comprehension_nodes(own)])
    return found


def _runs_a_module_it_is_handed(ctx, call: ast.Call, definitions: list, method: bool = False) -> bool:
    """Whether a call of the file's one definition of a function hands it a module that it
    runs, and gets back a tensor that may carry that run's graph: ``calc_loss_batch(x, y,
    model, device)`` of ``def calc_loss_batch(x, y, model, device): return loss_fn(model(x), y)``
    is a model call, as ``model(x)`` would be. Not a function that backpropagates, steps an
    optimizer or yields (a training step), nor one whose result holds no graph (it reads the
    output, or runs the model without grad). A distribution made from the output carries its
    graph as a tensor would (``def get_policy(net, obs): return Categorical(logits=net(obs))``).
    ``method``: the definition is a method of the class at hand, called as ``self.run(x, model)``."""
    if len(definitions) != 1:
        return False
    fn = definitions[0]
    called = _parameters_called(ctx, fn)
    if not called or _evaluates_by_name_cached(ctx, fn):
        return False  # `def predict(model, x): return model(x)`: reported inside, where its callers only read it
    shift = 1 if method else 0  # past `self`
    handed = {
        name
        for name, position in called.items()
        if (argument := call_argument(call, None if position is None else position - shift, name)) is not None
        and ctx.model.value(argument).kind is Kind.MODULE
    }
    if not handed:
        return False
    runs = [
        node
        for node in ctx.model.own_nodes(fn)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in handed
    ]
    if runs and all(ctx.model.grad_mode(node).off for node in runs):
        return False  # a sampler running the model it is handed only under its own `no_grad`
    if _grad_off_by_argument(ctx, call, fn, shift):
        return False  # `calculate_loss(model, ..., is_train=False)` runs it under `set_grad_enabled(is_train)`
    summary = ctx.model.function_summary(fn)
    if summary.trains or summary.generator:
        return False
    result = ctx.model.value(call)
    return (result.kind is Kind.TENSOR or result.ref == DISTRIBUTION) and result.grad is not Grad.NO


def _own_method_runs_a_handed_module(ctx, call: ast.Call) -> bool:
    """``self.run_nerf(rays, model)``: a method of the class at hand (not a property, not
    ``forward``) that runs a module the call hands it and gives back its graph
    (``_runs_a_module_it_is_handed``)."""
    func = call.func
    cls = ctx.method_class
    if cls is None or not isinstance(func, ast.Attribute) or func.attr == "forward" or not (call.args or call.keywords):
        return False
    method = next(
        (
            s
            for s in cls.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == func.attr and not is_property(s)
        ),
        None,
    )
    return (
        method is not None
        and not method.decorator_list
        and _method_like(method)
        and _runs_a_module_it_is_handed(ctx, call, [method], method=True)
    )


def _used_as_an_estimator(ctx, receiver: ast.AST) -> bool:
    """Whether the scope at hand calls a method only scikit-learn's estimators have
    (``ESTIMATOR_ONLY_METHODS``: ``decision_function``, ``get_params``) on the value spelt as
    ``receiver``: there it holds an estimator, not a torch module."""
    shown = ctx.text(receiver)
    scope = ctx.function if ctx.function is not None else ctx.tree
    return any(
        isinstance(node, ast.Attribute) and node.attr in ESTIMATOR_ONLY_METHODS and ctx.text(node.value) == shown
        for node in ctx.model.own_nodes(scope)
    )


def _turns_grad_on(ctx, function: ast.AST) -> bool:
    """Whether the function's own code enables grad in a ``with`` block (``torch.enable_grad()``,
    ``torch.set_grad_enabled(True)`` or a flag not known False): a ``no_grad`` decorator would not
    reach the calls inside."""
    for node in ctx.model.own_nodes(function):
        if not isinstance(node, ast.withitem) or not isinstance(node.context_expr, ast.Call):
            continue
        kind = classify_grad_mode(node.context_expr, ctx.imports)
        if kind is RegionKind.ENABLE or (
            kind is RegionKind.MAYBE and ctx.imports.qualified_name(node.context_expr.func) in SET_ENABLED_NAMES
        ):
            return True
    return False


def _grad_off_by_argument(ctx, call: ast.Call, fn: ast.AST, shift: int = 0) -> bool:
    """Whether the function turns grad on or off by one of its parameters
    (``with torch.set_grad_enabled(is_train):``) and the call passes ``False`` for it (``shift``:
    the leading parameters the call does not hand, a method's ``self``)."""
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)][shift:]  # type: ignore[attr-defined]
    for node in ctx.model.own_nodes(fn):
        if not isinstance(node, ast.withitem) or not isinstance(node.context_expr, ast.Call):
            continue
        switch = node.context_expr
        if ctx.imports.qualified_name(switch.func) not in SET_ENABLED_NAMES:
            continue
        flag = call_argument(switch, 0, "mode")
        if not isinstance(flag, ast.Name) or flag.id not in {a.arg for a in parameters(fn)}:
            continue
        position = positional.index(flag.id) if flag.id in positional else None
        given = call_argument(call, position, flag.id)
        if isinstance(given, ast.Constant) and given.value is False:
            return True
    return False


def _called_by_the_file(ctx, name: str) -> bool:
    """Whether a file without Lightning calls a method named like a Lightning hook itself
    (``model.predict_step(batch, device)`` of the file's own ``nn.Module``): then it is no
    hook a trainer runs without grad, but code like any other."""
    if name not in LIGHTNING_EVALUATION_HOOKS or f".{name}(" not in ctx.source.text:
        return False
    return not ctx.imports.imports_package(("lightning", "pytorch_lightning"))


def _plain_function_named_like_a_hook(ctx, function: ast.AST) -> bool:
    """A function, not a method, named like a Lightning evaluation hook (a script's own
    ``def test_step(x, t): model.eval(); ...``), or a method of a class with no base in a file
    without Lightning that does not take a hook's batch (``class Solver(object): def
    test_step(self, x, c)``, called by the run's scripts; not ``def validation_step(self, batch,
    batch_idx)`` of a mixin): no trainer runs it, the code calls it."""
    name = function.name  # type: ignore[attr-defined]
    is_hook = name in LIGHTNING_EVALUATION_HOOKS or name.startswith(_SKIP_PREFIXES)
    if not is_hook:
        return False
    owner = ctx.parent(function)
    if not isinstance(owner, ast.ClassDef):
        return True
    names = [a.arg for a in function.args.posonlyargs + function.args.args][1:]  # type: ignore[attr-defined]
    return (
        all(isinstance(base, ast.Name) and base.id == "object" for base in owner.bases)
        and not owner.keywords
        and not ctx.imports.imports_package(("lightning", "pytorch_lightning"))
        and not (names[:1] == ["batch"] or _HOOK_BATCH_PARAMETERS.intersection(names))
    )


# Parameters of Lightning's step hooks (`def validation_step(self, batch, batch_idx)`).
_HOOK_BATCH_PARAMETERS = frozenset({"batch_idx", "batch_nb", "batch_num", "dataloader_idx", "dataloader_id"})


def _plain_class_forward_only_read(ctx, function: ast.AST, unit: _Unit) -> bool:
    """A ``forward`` of a plain class (no base class: not a module, whose callers decide its grad
    mode) whose every model call's output is only read (an ensemble member's ``def forward(self,
    inputs): out = self.model(x); ...; return mean.detach().numpy()``): nothing its callers get
    can carry the graph each call records, so it is judged like any other function."""
    owner = ctx.parent(function)
    return (
        isinstance(owner, ast.ClassDef)
        and function.name == "forward"  # type: ignore[attr-defined]
        and all(isinstance(base, ast.Name) and base.id == "object" for base in owner.bases)
        and not owner.keywords
        and all(candidate.why == "read-only" for candidate in unit.model_calls)
    )


def _wrapper_shape(ctx, fn: ast.AST) -> bool:
    """A short function (four statements at most) ending in a ``return`` of a value, or of a part of
    one, that calls a name the module binds by assignment, or a method of one (``def G(z): return
    G_(z)``, ``h = G_shared(z); return G1_(h)`` with ``G_ = nn.Sequential(...)``, ``def decode(z):
    return autoencoder.decode(z)``, ``return policy_net(s)[0]``, a rollout's ``select_action``): the
    shape of a wrapper around a model (``_wraps_a_model``); not one calling only imported names,
    builtins or the file's functions."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(fn.body) > 4:
        return False
    cache = ctx.state(_State).wrapper_shapes  # asked for every call of the function
    found = cache.get(id(fn))
    if found is None:
        last = fn.body[-1]
        module = ctx.model.scopes.module
        # the longer shape (four statements, or a part of a value handed back) only around a call of
        # the module's name itself (`policy_net(state)`), not of a method of one (`log.info(...)`)
        longer = len(fn.body) == 4 or isinstance(getattr(last, "value", None), ast.Subscript)
        found = cache[id(fn)] = (
            isinstance(last, ast.Return)
            and isinstance(last.value, (ast.Call, ast.Tuple, ast.Name, ast.Subscript))
            and any(
                isinstance(sub, ast.Call)
                and isinstance(called := (sub.func if longer else _called_root(sub.func)), ast.Name)
                and called.id not in ctx.imports.names
                and called.id not in _BUILTINS
                and called.id not in module.definitions
                and module.binds(called.id)
                and not ctx.model.function_binds(fn, called.id)  # the module's, not a local of that name
                for stmt in fn.body
                for sub in walk_in_order(stmt)
            )
        )
    return found


def _called_root(func: ast.AST) -> ast.AST:
    """What a call calls, or the object whose method it calls (``ae`` of ``ae.decode``)."""
    return func.value if isinstance(func, ast.Attribute) else func


def _wraps_a_model(ctx, definitions: list) -> bool:
    """Whether the file's one definition of a function wraps models of the file: it returns a
    model's output, or what it computes from one, with its graph (``def G1(z): return
    G1_(G_shared(z))`` over module-level modules), and neither backpropagates, steps nor yields. Its calls are model calls: the
    model call inside it hands its output back, and is not reported there."""
    if len(definitions) != 1 or not _wrapper_shape(ctx, definitions[0]):
        return False
    if _evaluates_by_name_cached(ctx, definitions[0]):
        return False  # `def evaluate(line): ... return rnn(x)`: reported inside, where its callers only read it
    summary = ctx.model.function_summary(definitions[0])
    if summary.trains or summary.generator:
        return False
    returned = summary.returns
    last = definitions[0].body[-1]
    if returned.kind is Kind.UNKNOWN and isinstance(last, ast.Return) and last.value is not None:
        # `def decode(z): return autoencoder.decode(z)`: a method of a module the module holds,
        # which the summary does not follow; the value at the `return` says what it hands back
        returned = ctx.model.value(last.value)
    parts = returned.items if returned.kind is Kind.CONTAINER and returned.items else (returned,)
    carried = [part for part in parts if part.kind is Kind.TENSOR and part.grad is Grad.YES]
    if any(part.has(Role.OUTPUT) for part in carried):
        return True
    # computed from a model's output: `def D(X): return torch.sum((X - D_(X)) ** 2, 1)`
    return bool(carried) and any(
        isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and ctx.model.value(sub.func).kind is Kind.MODULE
        for sub in ctx.model.own_nodes(definitions[0])
    )


def _eval_call_before(unit: "_Unit", call: ast.Call) -> Optional[ast.AST]:
    """The switch to eval mode a message cites for a model call: the last one before it on
    the same model (``new_model.eval()`` for ``new_model(x)``), else the unit's first."""
    shown = dotted_name(_callee(call))
    before = [
        switch
        for switch in unit.eval_calls
        if switch.lineno <= call.lineno and dotted_name(switch.func.value) == shown  # type: ignore[attr-defined]
    ]
    return before[-1] if before else unit.eval_call


def _switches_callee(switch: ast.Call, call: ast.Call) -> bool:
    """Whether a switch to eval mode is of the model a call runs or of a model holding it
    (``net.eval()`` for ``net(x)`` or ``net.encoder(x)``), as their spelling shows."""
    switched = dotted_name(switch.func.value)  # type: ignore[attr-defined]
    called = dotted_name(_callee(call))
    if switched is None or called is None:
        return True  # not known apart: as before
    return _holds(switched, called)


def _holds(whole: str, part: str) -> bool:
    """Whether the dotted name ``part`` is ``whole`` or an attribute of it (``net.encoder`` of ``net``)."""
    return part == whole or part.startswith(whole + ".")


def _mode_switch_call(call: ast.Call) -> bool:
    """``net.train()``, ``net.train(False)``, ``net.train(mode=flag)``: ``nn.Module.train``'s own
    call, at most one argument, its ``mode``."""
    return len(call.args) + len(call.keywords) <= 1 and all(k.arg == "mode" for k in call.keywords)


def _switches_to_eval(call: ast.Call) -> bool:
    """``x.eval()`` or ``x.train(False)``."""
    func = call.func
    if not isinstance(func, ast.Attribute) or call.keywords:
        return False
    if func.attr == "eval":
        return not call.args
    if func.attr == "train" and len(call.args) == 1:
        arg = call.args[0]
        return isinstance(arg, ast.Constant) and arg.value is False
    return False


def _switches_by_phase(call: ast.Call) -> bool:
    """``x.train(phase == "train")``: training mode in the training phase, eval mode in the other."""
    return (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "train"
        and len(call.args) == 1
        and not call.keywords
        and _training_phase_test(call.args[0])
    )


def _callee(call: ast.Call) -> ast.AST:
    """The module a call runs: ``model`` in ``model(x)``, ``model.forward(x)``,
    ``self.__call__(x)``, ``model.module(x)``."""
    func = call.func
    if _data_parallel(call):
        return call.args[0]  # `nn.parallel.data_parallel(netG, (txt, noise), gpus)` runs `netG`
    target = func.value if isinstance(func, ast.Attribute) and func.attr in ("forward", "__call__") else func
    if isinstance(target, ast.Attribute) and target.attr == "module":
        target = target.value
    return target


def _data_parallel(call: ast.Call) -> bool:
    """``nn.parallel.data_parallel(module, inputs, ...)``: torch's function that runs a module."""
    return callee_name(call) == "data_parallel" and bool(call.args) and not isinstance(call.args[0], ast.Starred)


def _function_uses_grad(ctx, function: ast.AST) -> bool:
    """``_uses_grad`` of one function's body (or of the module's whole code), kept per node."""
    cache = ctx.state(_State).uses_grad
    found = cache.get(id(function))
    if found is None:
        found = cache[id(function)] = _uses_grad(ctx, [function])
    return found


def _evaluates_by_name_cached(ctx, function: ast.AST) -> bool:
    names = ctx.state(_State).named_eval
    found = names.get(id(function))
    if found is None:
        found = names[id(function)] = _evaluates_by_name(ctx, function)
    return found


def _evaluates_by_name(ctx, function: ast.AST) -> bool:
    """A function whose name says it evaluates (``evaluate``, ``predict``, ``test``) and that is
    given what it evaluates (a parameter besides ``self``): not a smoke test building its own
    input (``def test(): net = Net(); print(net(torch.randn(1, 3)))``), not a pytest test
    (``test_*`` in a test file)."""
    name = function.name
    if not _EVAL_FUNCTION_RE.search(name):
        return False
    params = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
    if not [p for p in params if p not in ("self", "cls")] and function.args.vararg is None:
        return _runs_a_trained_global(ctx, function)
    if name.startswith("test_") and _in_test_file(ctx):
        return False
    return True


def _runs_a_trained_global(ctx, function: ast.AST) -> bool:
    """Whether a function handed nothing calls a model it does not build: a module-level one
    the script's global (``def evaluate(): output, hidden = model(s)``) in a file that trains
    (it calls ``backward``), a nested one the model of the function around it, which trains it
    (d2l's ``def eval_loss(): return loss(net(features), labels).item()`` inside
    ``train_ch7``): that model, not one the function builds to try out."""
    if "backward(" not in ctx.source.text or isinstance(ctx.parent(function), ast.ClassDef):
        return False  # nothing trains, or a method: its models are the instance's
    enclosing = ctx.model.enclosing(function)
    outer = next((node for node in enclosing[1:] if isinstance(node, FUNCTION_TYPES)), None)
    if outer is None and enclosing[-1] is not function:
        return False  # a method
    if outer is not None and ".backward(" not in ctx.text(outer):
        return False
    module = ctx.model.scopes.module
    for node in walk_in_order(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = node.func.id
            if (
                (module.binds(callee) if outer is None else ctx.model.body_binds(outer, callee))
                and not ctx.model.body_binds(function, callee)
                and ctx.model.value(node.func).kind is Kind.MODULE
            ):
                return outer is not None or not _code_lacks(ctx, "backward(")
    return False


def _kept_for_training(ctx, unit: "_Unit", function: Optional[ast.AST]) -> bool:
    """Whether a method keeps a model's output on the instance (``self.Q =
    self.policy_net(states).gather(1, actions)``) for another method of its class that
    backpropagates it (``loss = F.smooth_l1_loss(self.Q, target); loss.backward()``): the method
    prepares a training step, and `no_grad` around it would break that step."""
    owner = ctx.parent(function) if function is not None else None
    if not isinstance(owner, ast.ClassDef):
        return False
    kept = set()
    for candidate in unit.model_calls:
        statement = _statement(ctx, candidate.call)
        if isinstance(statement, ast.Assign):
            kept.update(
                target.attr
                for target in statement.targets
                if isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
            )
    if not kept:
        return False
    for method in owner.body:
        if method is function or not isinstance(method, FUNCTION_TYPES):
            continue
        text = ctx.text(method)
        if ".backward(" in text and any(re.search(rf"\bself\.{attr}\b(?!\s*=[^=])", text) for attr in kept):
            return True
    return False


def _in_test_file(ctx) -> bool:
    """A file of tests, as pytest collects them (`test_*.py`, `*_test.py`, a `tests/` folder)
    or as projects name a module of them (`tests.py`); not `test.py`, most often a script
    that evaluates a trained model."""
    path = ctx.filename.replace("\\", "/")
    base = path.rsplit("/", 1)[-1]
    return base.startswith("test_") or base.endswith("_test.py") or base == "tests.py" or "/tests/" in path


def _unit_test(ctx, function: Optional[ast.AST]) -> bool:
    """Whether ``function`` is a unit test: ``test_*`` in a test file, or a method of a
    ``unittest.TestCase`` class (its model built in ``setUp``: ``self.model(torch.randn(...))``
    is a smoke test of the model's code)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.name.startswith("test"):
        return False
    cls = ctx.method_class
    if cls is not None and any((dotted_name(b) or "").endswith("TestCase") for b in cls.bases):
        return True
    return function.name.startswith("test_") and _in_test_file(ctx)


def _testing_what_it_builds(ctx, function: Optional[ast.AST]) -> bool:
    """A unit test (``_unit_test``), or a module-level ``test_*`` function handed nothing, in a
    function that uses gradients (`x = torch.randn(4, 3, requires_grad=True)`): it compares
    modules it builds, their graphs included (`def test_custom_batch_norm():` of a script)."""
    return _unit_test(ctx, function) or (
        isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        and function.name.startswith("test_")
        and not parameters(function)
        and function in ctx.tree.body
    )


def _eval_receivers(text: str) -> frozenset:
    """The receivers spelt before ``.eval()`` / ``.train(False)`` in a text (found with
    ``str.find``: a regular expression would try every position of a large file), and the
    name a module switched as it is made is bound to (``encoder = Encoder(...).eval()``,
    ``vgg = vgg16(weights=w).features.eval()``)."""
    found = set()
    for marker in (".eval()", ".train(False)"):
        i = text.find(marker)
        while i >= 0:
            j = i
            while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_."):
                j -= 1
            if j < i and text[j] != ".":
                found.add(text[j:i])
            elif j > 0 and text[j - 1] == ")":  # `vgg = vgg16(weights=w).features.eval()` too
                bound = _ASSIGNED_ON_LINE_RE.match(text, text.rfind("\n", 0, i) + 1)
                if bound is not None:
                    found.add(bound.group(1))
            i = text.find(marker, i + 1)
    return frozenset(found)


def _switched_to_eval(ctx, callee: ast.AST) -> bool:
    """Whether the file switches something spelt like ``callee`` to eval mode
    (``net.eval()``, ``net.train(False)``): only then can the model know it is in eval mode."""
    state = ctx.state(_State)
    if state.eval_receivers is None:
        state.eval_receivers = _eval_receivers(ctx.source.text)
    text = dotted_name(callee)
    if text is None:
        return False
    return text in state.eval_receivers or text in _self_evaluating_instances(ctx)


_INSTANCE_RE = re.compile(r"^[ \t]*([\w.]+)[ \t]*=[ \t]*(\w+)[ \t]*\(", re.M)


def _self_evaluating_instances(ctx) -> frozenset:
    """The names the file binds to a new instance of a module class whose ``__init__`` ends in
    eval mode (``model = EREC()``, of ``class EREC(nn.Module)`` calling ``self.eval()`` after
    loading its members), of this file or of another file of the run (kept per file)."""
    state = ctx.state(_State)
    if state.self_evaluating is not None:
        return state.self_evaluating
    text = ctx.source.text
    classes = set()
    if "self.eval()" in text or "self.train(False)" in text:
        for node in ctx.tree.body:
            if isinstance(node, ast.ClassDef):
                init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                if init_switches_to_eval(init):
                    classes.add(node.name)
    project = ctx.model.project
    if project is not None and any(fact.evaluates_itself for fact in project.classes.values()):
        classes.update(
            local
            for local, qualified in ctx.imports.names.items()
            if ctx.model.project_class_evaluates_itself(qualified)
        )
    found = (
        frozenset(m.group(1) for m in _INSTANCE_RE.finditer(text) if m.group(2) in classes) if classes else frozenset()
    )
    state.self_evaluating = found
    return found


def _may_be_evaluation_data(ctx, call: ast.Call) -> bool:
    """Whether an argument's text names a validation/test split (``test_x``, ``X_val``,
    ``valid_images[:10]``): a cheap filter before asking the model where the data comes from."""
    if not call.args:
        return False
    src = ctx.source
    text = src.text[src.node_start(call.args[0]) : src.node_end(call.args[-1])]
    return _names_split(text)


def _names_split(text: str) -> bool:
    """Whether a name in the text mentions a validation/test split (``_SPLIT_NAME_PATTERNS``)."""
    return any(pattern.search(text) is not None for pattern in _SPLIT_NAME_PATTERNS)


def _names_a_split(ctx) -> bool:
    """Whether the file names a validation/test split (``train=False``, ``split="test"``,
    ``"data/val"``): only then can data or loaders come from one."""
    state = ctx.state(_State)
    if state.names_split is None:
        text = ctx.source.text
        state.names_split = "train=False" in text or _SPLIT_TEXT_RE.search(text) is not None
    return state.names_split


def _may_evaluate(ctx) -> bool:
    """Whether the file shows any sign of evaluation that the model may tie to a call: a
    module switched to eval mode, or a validation/test split of a data set."""
    state = ctx.state(_State)
    if state.may_evaluate is None:
        text = ctx.source.text
        state.may_evaluate = (
            ".eval()" in text
            or "train(False)" in text
            or "train=False" in text
            or _SPLIT_TEXT_RE.search(text) is not None
            or _names_split(text)  # test_set, valid_data
        )
    return state.may_evaluate


# Predictions compared and counted: `correct += (predicted == labels).sum()`.
_COUNTED_COMPARISON_RE = re.compile(r"==[^\n]*\)\s*\.(?:sum|float|mean|long|int|double|all|any|item|cpu)\(")
# In a script or notebook, a value compared in a test (`if (pred == label):`), not the
# `__name__` guard.
_TESTED_COMPARISON_RE = re.compile(r"^[ \t]+(?:el)?if\b(?![^\n]*__name__)[^\n]*[=!]=", re.M)


def _added_to_a_list(node: ast.AST, names) -> bool:
    """Whether ``node`` is a call adding one of ``names`` to a list (``history.append(pred)``)."""
    return (
        type(node) is ast.Call
        and type(node.func) is ast.Attribute  # type: ignore[attr-defined]
        and node.func.attr in LIST_ADDING_METHODS  # type: ignore[attr-defined]
        and any(type(arg) is ast.Name and arg.id in names for arg in node.args)  # type: ignore[attr-defined]
    )


def _kept_in_training(ctx, call: ast.Call, read_only: Optional[bool]) -> bool:
    """Whether a call's output, bound to a name, is kept beyond the function (appended to a
    list, stored in an attribute or an item, returned) by a function that uses gradients (an
    L-BFGS fit appending `self.model(x)` to its history before stepping): the eval mode alone
    does not make it an evaluation, and the output may yet be backpropagated."""
    function = ctx.function
    if function is None or read_only:
        return False
    name = _bound_name(ctx, call)
    if name is None or not _function_uses_grad(ctx, function):
        return False
    if name in ctx.model.uses(function).escaping:
        return True
    return any(_added_to_a_list(node, (name,)) for node in ctx.model.own_nodes(function))


def _result_only_read(ctx, call: ast.Call) -> bool:
    """Whether the call's result is read at once (``net(x).data.max(1)``) or bound to names
    that are then only read (``.data``, ``.item()``, printing: ``analysis.read_only``)."""
    if _result_only_read_directly(ctx, call):
        return True
    return id(call) not in ctx.state(_State).assigned_calls and _fed_into_read(ctx, call)


def _an_argument(ctx, node: ast.AST) -> bool:
    """Whether a value is a positional argument of a call (``loss(net(x), y)``), or an operand
    of arithmetic, a sign or an index on the way to one (``torch.sum(mlp(x) * x)``,
    ``torch.allclose(mlp(a)[:, ::-1], b)``)."""
    parent = ctx.parent(node)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp)) or (isinstance(parent, ast.Subscript) and parent.value is node):
        node, parent = parent, ctx.parent(parent)
    return isinstance(parent, ast.Call) and node in parent.args


def _fed_into_read(ctx, call: ast.Call) -> bool:
    """Whether the call's result is an argument of tensor computations whose result is only
    read: ``loss(net(x), y).item()``, ``l = criterion(net(features), labels)`` then
    ``print(l)``, ``assert torch.allclose(mlp(x), y)`` (a number: the graph ends there). Each
    call, operator or index on the way computes a tensor from its operands (a loss, a torch
    function): nothing keeps the operand itself."""
    chain = []
    current: ast.AST = call
    while not _printed(ctx, current) and _an_argument(ctx, current):  # `print(loss(net(x), y))` reads
        current = ctx.parent(current)
        chain.append(current)
        while not isinstance(current, ast.Call):  # the operators and indexes on the way to the call
            current = ctx.parent(current)
            chain.append(current)
    if not chain:
        return False
    if _grid_for_drawing(ctx, chain[0]):
        return True  # `show_image(make_grid(model(images)))`: a grid of images made to be drawn
    *inner, outer = chain
    # the cheap questions first: whether the outer call's result is read (or is a number), then
    # what the values on the way are (the model's flows)
    qualified = ctx.imports.qualified_name(outer.func) or ""  # type: ignore[attr-defined]
    if (
        qualified.startswith("torch.")
        and (qualified[6:] in TORCH_NON_TENSOR or qualified[6:] in INDEX_RESULTS)
        and not ctx.model.rebinds("torch")
    ):
        # `torch.allclose(...)`, `torch.equal(...)`: a bool or number of torch's; `torch.argmax(
        # model(x), -1)`: indices; no graph, wherever the result goes
        outer_read = True
    elif _handed_to_a_read_parameter(ctx, outer, inner[-1] if inner else call):  # type: ignore[arg-type]
        outer_read = True  # `accuracy(model(g, x)[mask], y)`: a function of the file that only reads it
    elif _result_only_read_directly(ctx, outer):  # type: ignore[arg-type]
        outer_read = (
            ctx.model.value(outer).kind is Kind.TENSOR
            or (not inner and _another_part_of_the_model(outer, call))  # type: ignore[arg-type]
            or _computes_from_its_arguments(ctx, outer)  # type: ignore[arg-type]
        )
    else:
        return False
    return outer_read and all(ctx.model.value(node).kind is Kind.TENSOR for node in inner)


def _computes_from_its_arguments(ctx, outer: ast.Call) -> bool:
    """Whether ``outer`` calls a function of the file that only computes a value from its
    arguments (a notebook's own ``mse_loss(y_pred, y)``, bound as ``loss = mse_loss``): it trains
    nothing, yields nothing and keeps no argument (no store into an attribute, an item or a list),
    so what it returns, read at once (``loss(net(x), y).mean().item()``), ends the graph there."""
    value = ctx.model.value(outer.func)
    fn = ctx.model.function_node(value)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.decorator_list:
        return False
    summary = ctx.model.function_summary(fn)
    if summary.trains or summary.generator:
        return False
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    returns = False
    for node in ctx.model.own_nodes(fn):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return False
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(not isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in targets):
                return False  # `self.last = y_pred`, `cache[k] = y_pred`
        elif _added_to_a_list(node, params):
            return False  # `history.append(y_pred)`
        elif isinstance(node, ast.Return) and node.value is not None:
            returns = True
    return returns


def _another_part_of_the_model(outer: ast.Call, call: ast.Call) -> bool:
    """Whether ``outer`` runs another attribute of the object whose attribute ``call`` runs,
    on that call's output (``model.linear(model.decoder(x, ...))``): one layer of the model fed
    by another, a tensor like its input."""
    receiver = dotted_name(call.func.value) if isinstance(call.func, ast.Attribute) else None
    return (
        receiver is not None
        and isinstance(outer.func, ast.Attribute)
        and outer.func.attr != call.func.attr  # type: ignore[attr-defined]
        and dotted_name(outer.func.value) == receiver
    )


def _grid_for_drawing(ctx, node: ast.AST) -> bool:
    """``torchvision.utils.make_grid(...)``: images tiled into one to be drawn or saved."""
    return isinstance(node, ast.Call) and (ctx.imports.qualified_name(node.func) or "") == "torchvision.utils.make_grid"


def _handed_to_a_read_parameter(ctx, outer: ast.Call, argument: ast.AST) -> bool:
    """Whether ``argument`` is a positional argument of a call of a function of the file (or of
    another file of the run) that only reads that parameter and makes no backward pass
    (``_parameters_read``): whatever it returns cannot hold the argument's graph."""
    func = outer.func
    if isinstance(func, ast.Name):
        if func.id in _BUILTINS or ctx.model.rebinds(func.id):
            return False
        name = ctx.imports.qualified_name(func) or func.id
    else:
        name = ctx.imports.qualified_name(func)
        if name is None or name.startswith("torch."):
            return False
    read = _parameters_read(ctx, name)
    if read is None or read[2] or any(isinstance(arg, ast.Starred) for arg in outer.args):
        return False
    positional, kinds, _backpropagates = read
    index = next((i for i, arg in enumerate(outer.args) if arg is argument), None)
    return index is not None and index < len(positional) and positional[index] in kinds


def _result_only_read_directly(ctx, call: ast.Call) -> bool:
    """``_result_only_read`` without following the call's result into other calls."""
    scope = ctx.function if ctx.function is not None else ctx.tree
    if id(call) not in ctx.state(_State).assigned_calls:
        if _appended(ctx, call):
            # `preds.append(model(x))`, the list then only read (`preds[0].detach().numpy()`)
            return not isinstance(scope, ast.Lambda) and id(call) in _only_read_calls(ctx, scope)
        return (
            _read_at_once(ctx, call)
            or _printed(ctx, call)
            or _displayed(ctx, call)
            or converted_to_image(call, ctx.parent, _qualified_name(ctx))
        )
    return (
        not isinstance(scope, ast.Lambda)
        and (
            id(call) in _only_read_calls(ctx, scope)
            or _left_unused(ctx, call, scope)
            or written_into_detached_buffer(call, ctx.parent, scope, _qualified_name(ctx))
        )
        and not _backpropagated_next_iteration(ctx, call)
    )


def _backpropagated_next_iteration(ctx, call: ast.Call) -> bool:
    """Whether the name the call's result is bound to in a loop is backpropagated in that loop's
    body (``fs[0, label].backward(retain_graph=True)`` above ``fs = net(x)``): the next turn
    takes the gradient of this output (DeepFool's per-class gradients at the new point)."""
    statement = ctx.parent(call)
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.value is call
    ):
        return False
    name = statement.targets[0].id
    loop = next((a for a in ctx.ancestors(statement) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))), None)
    if loop is None:
        return False
    for node in walk_in_order(loop):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            root = subscript_root(func.value)
            if isinstance(root, ast.Name) and root.id == name:
                return True
        elif (
            ctx.imports.qualified_name(func) in ("torch.autograd.grad", "torch.autograd.backward")
            and any(
                isinstance(subscript_root(arg), ast.Name) and subscript_root(arg).id == name  # type: ignore[union-attr]
                for arg in node.args[:1]
            )
        ):
            return True
    return False


def _appended(ctx, call: ast.AST) -> bool:
    """Whether a call's result is appended to a list by a statement of its own (``preds.append(
    model(x))``)."""
    parent = ctx.parent(call)
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr == "append"
        and parent.args == [call]
        and isinstance(ctx.parent(parent), ast.Expr)
    )


def _bound_name(ctx, call: ast.AST) -> Optional[str]:
    """The one name a call's result is bound to (``out = net(x)``), or None."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    return None


def _unfinished_gradient_step(ctx, scope: ast.AST, call: ast.Call) -> bool:
    """Whether a loop's body zeroes the gradients of the model it then runs, and nothing reads the
    output (a homework's `self.model.zero_grad()`, `output = self.model(x)`, then `# TODO` and
    `pass` where the importance of each weight is to be computed from its gradients): a gradient
    computation left to write, not an evaluation."""
    name = _bound_name(ctx, call)
    loop = next((a for a in ctx.ancestors(call) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))), None)
    model = dotted_name(_callee(call))
    if name is None or loop is None or model is None:
        return False
    zeroed = any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "zero_grad"
        and dotted_name(node.func.value) == model
        and node.lineno < call.lineno
        for node in ctx.model.own_nodes(scope)
        if any(a is loop for a in ctx.ancestors(node))
    )
    return zeroed and not any(
        type(node) is ast.Name and node.id == name and type(node.ctx) is ast.Load for node in ctx.model.own_nodes(scope)
    )


def _steps_left_to_write(ctx, call: ast.Call) -> bool:
    """Whether the loop running the call holds ``...`` statements of its own: an exercise's
    training step whose lines are left to write (``# TODO: Perform backpropagation`` then
    ``...``), not an evaluation that ``no_grad`` would fix."""
    loop = next((a for a in ctx.ancestors(call) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))), None)
    return loop is not None and any(
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value is Ellipsis
        for statement in loop.body
    )


# Words of a test telling a training phase from an evaluation phase (`if phase == "train":`, `if not is_test:`).
_PHASE_WORDS = ("train", "eval", "val", "test", "phase", "mode", "infer", "predict", "grad")


def _backward_left_out_of_a_branch(ctx, call: ast.Call) -> bool:
    """Whether the call sits in one branch of an ``if`` whose other branch runs the same model and
    backpropagates, in a loop that zeroes gradients before it (``if amp: ...; scaler.scale(loss).backward()``
    / ``else: outputs = model(x); loss = criterion(outputs, y)``): a training step whose backward
    pass is missing from one branch, a bug of its own, not an evaluation that `no_grad` would fix.
    Not where the test tells phases apart (``if phase == "train":``, a flag guarding the backward)."""
    model = dotted_name(_callee(call))
    if model is None:
        return False
    child: ast.AST = call
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, FUNCTION_TYPES + (ast.ClassDef,)):
            return False
        if isinstance(ancestor, ast.If) and (child in ancestor.body or child in ancestor.orelse):
            other = ancestor.orelse if child in ancestor.body else ancestor.body
            nodes = [node for statement in other for node in walk_in_order(statement)]
            runs = any(isinstance(n, ast.Call) and dotted_name(_callee(n)) == model for n in nodes)
            backward = any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
                for n in nodes
            )
            if not (runs and backward):
                return False
            test = ctx.text(ancestor.test).lower()
            if any(word in test for word in _PHASE_WORDS) or (
                ctx.function is not None and _backward_flag(ctx.function, ancestor)
            ):
                return False  # `if phase == "train":` / `else:`: the other branch is an evaluation phase
            loop = next((a for a in ctx.ancestors(ancestor) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))), None)
            return loop is not None and any(
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "zero_grad"
                and n.lineno < ancestor.lineno
                for statement in loop.body
                for n in walk_in_order(statement)
            )
        child = ancestor
    return False


_BACKWARD_CALLS = frozenset({"backward", "manual_backward", "grad"})


def _step_without_backward(ctx, call: ast.Call) -> bool:
    """Whether an optimizer steps later in the call's own block with no backward pass between the
    call and the step (``x_fake = G(x, c); g_loss = ...; g_opt.zero_grad(); g_opt.step()``): a
    training step whose ``g_loss.backward()`` is missing, a bug of its own that `no_grad` would
    hide (and the backward, once written, would raise under it)."""
    enclosing = ctx.model.enclosing(call)
    scope = ctx.function if ctx.function is not None else ctx.tree
    placed = ctx.model.rebindings(scope).blocks.get(id(enclosing[0])) if enclosing else None
    if placed is None:
        return False
    block, index = placed
    statement = block[index]
    for later in block[index:]:
        # in the order of the text (`if train: with amp.scale_loss(...) as s: s.backward()`, then
        # `opt.step()`: the backward pass comes first, however deep)
        calls = sorted(
            (
                node
                for node in walk_in_order(later)
                if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
            ),
            key=lambda node: (node.lineno, node.col_offset),
        )
        for node in calls:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id  # type: ignore[union-attr]
            if name in _BACKWARD_CALLS:
                return False
            if later is not statement and name == "step" and stepped_optimizer(ctx, node) is not None:
                return True
    return False


def _enabled_argument(ctx, scope: ast.AST, test: ast.expr) -> str:
    """What ``torch.set_grad_enabled`` is given for a phase's test: the test itself, where it is a
    bool (`phase == "train"`, a flag `train`), or ``x is not None`` where it is an object the
    scope uses (`if optimizer:` of `optimizer.step()`: `set_grad_enabled` takes a bool only and
    raises TypeError on an optimizer)."""
    text = ctx.text(test)
    if isinstance(test, ast.Name) and any(
        isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == test.id
        for node in ctx.model.own_nodes(scope)
    ):
        return f"{text} is not None"
    return text


def _thrown_away(ctx, call: ast.Call) -> bool:
    """Whether the call's result is dropped: a bare statement (``model(x)``) or bound to ``_``
    (``_ = model(x)``, a timed or warm-up run)."""
    return isinstance(ctx.parent(call), ast.Expr) or _bound_name(ctx, call) == "_"


def _placeholder_backward(ctx, scope: ast.AST, after: ast.AST) -> bool:
    """Whether a backward pass of the scope after ``after`` backpropagates a name the scope binds
    to a constant (``loss = None`` or ``loss = 0`` of an exercise, the loss line left to write)."""
    uses = ctx.model.uses(scope)
    for node in ctx.model.own_nodes(scope):
        if (
            type(node) is ast.Call
            and node.lineno > (after.end_lineno or after.lineno)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward"
            and isinstance(node.func.value, ast.Name)
            and any(isinstance(b.value, ast.Constant) for b in uses.bindings_of(node.func.value.id))
        ):
            return True
    return False


def _left_unused(ctx, call: ast.Call, scope: ast.AST) -> bool:
    """Whether the call's result is bound to a name that nothing reads afterwards (``y_pred =
    model(hour_var)`` after training, then only a fresh call printed): it keeps its graph for
    nothing. Not ``_ = net(x)`` (discarded on purpose, perhaps for a forward hook), not in a loop,
    and not where the name is read by nested code (a function may run later), nor where a backward
    pass follows that backpropagates a placeholder (a homework's training step whose loss line is
    left to write: `loss = None`, then `loss.backward()`)."""
    name = _bound_name(ctx, call)
    if name is None or name.startswith("_"):
        return False
    if _certainly_not_a_model(ctx, _callee(call)):
        return False  # `idx = torch.arange(n)`: asked no further
    if any(isinstance(a, (ast.For, ast.AsyncFor, ast.While)) for a in ctx.ancestors(call)):
        return False  # in a loop, a forward pass left unused is a fragment or runs for its hooks
    if "backward(" not in ctx.source.text and _made_up_input(ctx, call):
        # `oup = model(torch.rand(1, 3, 224, 224))`, never read, in a file that never trains: a
        # check that the model file runs
        return False
    assignment = ctx.parent(call)
    src = ctx.source
    end = len(src.text) if scope is ctx.tree else src.node_end(scope)
    if re.compile(rf"(?<![\w.]){re.escape(name)}\b").search(src.text, src.node_end(assignment), end) is not None:
        return False  # spelt again after the binding (a use, most often): asked no further
    if src.text.find(".backward(", src.node_end(assignment), end) >= 0 and _placeholder_backward(
        ctx, scope, assignment
    ):
        return False  # `loss = None` ... `loss.backward()`: the loss left to write takes its graph from this call
    start = (assignment.end_lineno or assignment.lineno, assignment.end_col_offset or 0)
    loads = ctx.state(_State).name_loads.get(id(scope))
    if loads is None:
        loads = ctx.state(_State).name_loads[id(scope)] = {}
        for node in walk_in_order(scope):
            if type(node) is ast.Name and type(node.ctx) is ast.Load:
                loads.setdefault(node.id, []).append(node)  # type: ignore[attr-defined]
    earlier = []
    for node in loads.get(name, ()):
        if (node.lineno, node.col_offset) >= start:
            return False
        earlier.append(node)
    for use in earlier:  # read by nested code, which may run after the binding, unless its own name
        function = next(
            (
                a
                for a in ctx.ancestors(use)
                if a is scope or isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            ),
            scope,
        )
        if function is not scope and not _binds_locally(function, name):
            return False
    return True


def _binds_locally(function: ast.AST, name: str) -> bool:
    """Whether a function assigns ``name`` itself (and declares it neither global nor nonlocal)."""
    stored = False
    for node in walk_in_order(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if type(node) is ast.Name and node.id == name and type(node.ctx) is ast.Store:
            stored = True
        elif isinstance(node, ast.arg) and node.arg == name:
            stored = True
    return stored


# What follows a call whose result is read at once, in the text: a cheap test before the parents.
_READ_AT_ONCE_STARTS = (".", "[")
_COMPARISON_STARTS = ("<", ">", "==", "!=")
# After the call, the start of arithmetic on its result (`(net(x) - y) ** 2`), which a read may follow.
_ARITHMETIC_STARTS = ("+", "-", "*", "/", "%", "@", ")")


def _printed(ctx, call: ast.Call) -> bool:
    """``print("output", net(x))``, ``float(net(x))``, ``f"{net(x)}"``: the result handed straight
    to a builtin that only reads it, or formatted into text."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.FormattedValue):
        return True  # `f"{net(x):.3f}"`: formatted into text
    return (
        isinstance(parent, ast.Call)
        and call in parent.args
        and isinstance(parent.func, ast.Name)
        and parent.func.id in READING_BUILTINS
        and parent.func.id not in ("len", "isinstance", "type", "id", "hash")
    )


def _judged_in_its_method(ctx, call: ast.Call) -> bool:
    """``sbs.predict(x)`` of a plain class of the file holding a model (or ``model.sample(x)`` of a
    module class of the file, or ``self.val(loader)`` of the class at hand), whose method named for
    evaluation the check reads (also one attached by ``setattr``) and hands back numbers or arrays:
    that method's own model call is where its grad mode is judged, not each call of it."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and _EVAL_FUNCTION_RE.search(func.attr)):
        return False
    receiver = ctx.model.value(func.value)
    if receiver.kind not in (Kind.OTHER, Kind.MODULE) or func.attr not in ctx.model.file_method_names():
        return False
    # (not where a definition of it may hand back a graph, `return loss, acc`: the call keeps it)
    info = ctx.model.class_of(receiver)
    if receiver.kind is Kind.MODULE and (info is None or func.attr == "forward"):
        return False  # a module's own method, judged there only where the file shows its class
    if info is not None:
        # `self.validator.validate(loader)` of a `Validate()`: that class's method alone
        definitions = [
            node
            for node in info.node.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == func.attr
        ][-1:]
    else:
        definitions = _definitions_named(ctx, func.attr)
    return bool(definitions) and all(
        isinstance(node.value, ast.Constant)
        or _GRAPH_ENDED_RE.search(ctx.text(node.value)) is not None
        # `return correct / total, actual, predicted` of numbers and lists of indices
        or (info is not None and _hands_back_no_graph(ctx.model.returns_as_called(definition)))
        for definition in definitions
        for node in ctx.model.own_nodes(definition)
        if isinstance(node, ast.Return) and node.value is not None
    )


def _hands_back_no_graph(value: Value) -> bool:
    """Whether a returned value holds no graph: of a tuple, each of its items."""
    if value.kind is Kind.CONTAINER and value.items is not None:
        return all(not _may_hand_back_a_graph(item) for item in value.items)
    return not _may_hand_back_a_graph(value)


def _definitions_named(ctx, name: str) -> list:
    """The file's functions and methods defined under ``name`` (the file walked once)."""
    state = ctx.state(_State)
    if state.definitions is None:
        state.definitions = {}
        for node in walk_in_order(ctx.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                state.definitions.setdefault(node.name, []).append(node)
    return state.definitions.get(name, [])  # type: ignore[no-any-return]


# What a return hands back without a graph: `y_hat.detach().cpu().numpy()`, `loss.item()`.
_GRAPH_ENDED_RE = re.compile(r"\.(?:numpy|item|tolist)\(\)\s*$")


def _displayed(ctx, call: ast.Call) -> bool:
    """``model(val_x)`` alone (or a part of it, ``mynet(X)[1]``, or beside other values,
    ``net(X), y``) as the last line of a notebook's cell: the notebook shows its result, and nothing else can use it (not with a semicolon after
    it, which keeps the notebook from showing it)."""
    starts = ctx.source.cell_starts
    if not starts or ctx.function is not None:
        return False
    shown: ast.AST = call
    statement = ctx.parent(call)
    while isinstance(statement, ast.Subscript) and statement.value is shown:
        shown, statement = statement, ctx.parent(statement)  # `mynet(X)[1]`: a part of it shown
    if isinstance(statement, ast.Tuple) and shown in statement.elts:
        statement = ctx.parent(statement)  # `net(X), y`: shown beside the labels
    if not isinstance(statement, ast.Expr) or ctx.parent(statement) is not ctx.tree:
        return False
    state = ctx.state(_State)
    if state.cell_ends is None:
        body = ctx.tree.body
        state.cell_ends = frozenset(
            id(stmt)
            for stmt, following in zip(body, [*body[1:], None])
            if following is None
            or bisect.bisect_right(starts, following.lineno) != bisect.bisect_right(starts, stmt.lineno)
        )
    if id(statement) not in state.cell_ends:
        return False
    if ctx.source.text[ctx.source.node_end(statement) :].lstrip(" \t").startswith(";"):
        return False  # `net(x);`: the semicolon keeps the notebook from showing it
    func = call.func
    if (
        isinstance(func, ast.Attribute) and _EVAL_FUNCTION_RE.search(func.attr) and ctx.model.method_shown(func.attr)
    ) or (
        isinstance(func, ast.Name)
        and _EVAL_FUNCTION_RE.search(func.id)
        and func.id in ctx.model.scopes.module.definitions
    ):
        return False  # `model.predict(prefix)`: the method the check reads is where its grad mode is judged
    if _EVAL_FUNCTION_RE.search(getattr(func, "attr", getattr(func, "id", ""))) and _of_another_file(ctx, func):
        return False  # `d2l.predict_sentiment(net, vocab, text)`: judged in its own file
    return True


def _of_another_file(ctx, func: ast.AST) -> bool:
    """Whether a callee is a module-level function another file of the run defines."""
    project = ctx.model.project
    qualified = ctx.imports.qualified_name(func) if project is not None else None
    if project is None or qualified is None or "." not in qualified:
        return False
    return project.function_key(ctx.model.filename, qualified) in project.functions


def _read_at_once_text(ctx, call: ast.Call) -> bool:
    """Whether the text right after the call could read its result (a cheap test)."""
    src = ctx.source
    text = src.text
    end = src.node_end(call)
    if text.startswith(_READ_AT_ONCE_STARTS, end):
        return True  # `net(x)[0].item()`, `net(x).argmax(1)`
    # spaces, and line breaks within brackets or after a backslash (`torch.log(d(x))\`, then
    # `.squeeze().detach()` on the next line): the AST test that follows tells the rest
    while end < len(text) and text[end] in " \t\\\r\n":
        end += 1
    if text.startswith(_READ_AT_ONCE_STARTS, end):
        return True
    # `net(x) > 0.5`: compared; `((net(x) - y) ** 2).mean().item()`: computed with, then read
    return text.startswith(_COMPARISON_STARTS, end) or text.startswith(_ARITHMETIC_STARTS, end)


# torch functions that copy the values of a list of tensors into a new tensor, without their graphs.
_COPYING_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor"})


def _copied_by_a_comprehension(ctx, call: ast.Call) -> bool:
    """Whether the call is what a list comprehension collects, and the list goes straight into a
    tensor constructor (``torch.tensor([net(g) for g, _ in validset])``): the values are copied, the
    graphs each call recorded are dropped at once."""
    comprehension = ctx.parent(call)
    if not isinstance(comprehension, ast.ListComp) or comprehension.elt is not call:
        return False
    made = ctx.parent(comprehension)
    return (
        isinstance(made, ast.Call)
        and bool(made.args)
        and made.args[0] is comprehension
        and _qualified_name(ctx)(made.func) in _COPYING_CONSTRUCTORS
    )


def _read_at_once(ctx, call: ast.Call) -> bool:
    """``net(x).data.max(1)[1]``: the result read as soon as it is made (``analysis.read_only``)."""
    return _read_at_once_text(ctx, call) and read_at_once(call, ctx.parent)


def _reads_values(ctx, scope: ast.AST) -> bool:
    """Whether the scope's text shows values read (``VALUE_READ_HINTS``): only then can a
    result bound to a name in it be only read (kept per scope); see also
    ``_returns_to_readers``."""
    cache = ctx.state(_State).reads_values
    found = cache.get(id(scope))
    if found is None:
        text = ctx.text(scope) if scope is not ctx.tree else ctx.source.text
        found = cache[id(scope)] = (
            any(hint in text for hint in VALUE_READ_HINTS)
            or ".detach()" in text  # a target detached in a training step, an action handed back detached
            or (".max(" in text and _ARGMAX_BY_INDEX.search(text) is not None)  # `q.max(1)[1]`: indices
            or ("==" in text and _COUNTED_COMPARISON_RE.search(text) is not None)
            or (scope is ctx.tree and "=" in text and _TESTED_COMPARISON_RE.search(text) is not None)
            or any(f"{name}(" in text for name in _reading_functions(ctx))
        )
    return found


def _trains_itself_or_by_a_helper(ctx, scope: ast.AST, text: str) -> bool:
    """Whether a function backpropagates in its own text, or calls a function of the file or of
    the run that does (``train(net, features, labels, ...)``, then a final forward pass)."""
    if "backward(" in text:
        return True
    for node in ctx.model.own_nodes(scope):
        if type(node) is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if isinstance(func, ast.Name) and _trains(ctx, func.id):
                return True
            qual = ctx.imports.qualified_name(func)
            if qual is not None and ctx.model.project_function_differentiates(qual):
                return True
    return False


def _returns_to_readers(ctx, scope: ast.AST, call: Optional[ast.Call] = None) -> bool:
    """Whether a training function (``_trains_itself_or_by_a_helper``) whose own text reads nothing
    hands back what it computes to callers that only read it (a final forward pass after the
    training loop, ``return
    predictions, losses``, then ``np.corrcoef(y.T, yhat.data.T)`` in a loop of experiments): a
    result bound there may be only read too. With ``call``, only where the name it is bound to
    is returned. Only in functions with one of the rule's function triggers (a function without
    any is not walked, and must not be reported when it is: ``encode(net, tokens)`` is reported
    at its call instead), and not in one named for evaluation (reported as such,
    ``read_by_callers``)."""
    if not isinstance(scope, FUNCTION_TYPES):
        return False
    state = ctx.state(_State)
    found = state.returns_to_readers.get(id(scope))
    if found is None:
        text = ctx.text(scope)
        returned: frozenset = frozenset()
        if "return " in text and _trains_itself_or_by_a_helper(ctx, scope, text) and _reads_values(ctx, ctx.tree):
            returned = frozenset(
                e.id
                for sub in ctx.model.own_nodes(scope)
                if isinstance(sub, ast.Return) and sub.value is not None
                for e in (sub.value.elts if isinstance(sub.value, ast.Tuple) else [sub.value])
                if isinstance(e, ast.Name)
            )
        if returned and (
            _evaluates_by_name_cached(ctx, scope)
            or not any(map(TextSearch(text).occurs, EvalWithGrad.function_triggers or ()))
        ):
            returned = frozenset()
        found = state.returns_to_readers[id(scope)] = (returned, None)
    returned, answer = found
    if not returned or (call is not None and _bound_name(ctx, call) not in returned):
        return False
    if answer is None:
        answer = _returned_only_read(ctx, scope)
        state.returns_to_readers[id(scope)] = (returned, answer)
    return answer


def _reading_functions(ctx) -> frozenset:
    """Names of the file's module-level functions whose text reads values: handing a result to
    one (`plot_images(test_data, model_output)` of a function that draws
    `predicted[i].view(28, 28).detach()`) may read it (``read_only.parameters_only_read``)."""
    state = ctx.state(_State)
    if state.reading_functions is None:
        state.reading_functions = _local_reading_functions(ctx) | _imported_reading_functions(ctx)
    return state.reading_functions


def _local_reading_functions(ctx) -> frozenset:
    """The module-level functions whose lines hold a ``VALUE_READ_HINTS`` occurrence: each
    hint's occurrences are found once in the whole text, then placed by line (no function's text
    is cut out and searched again)."""
    functions = [stmt for stmt in ctx.tree.body if isinstance(stmt, FUNCTION_TYPES)]
    if not functions:
        return frozenset()
    text = ctx.source.text
    starts = ctx.source.line_starts
    lines = {bisect.bisect_right(starts, at) for hint in VALUE_READ_HINTS for at in occurrences(text, hint)}
    if not lines:
        return frozenset()
    hit = sorted(lines)
    found = set()
    for stmt in functions:
        first = stmt.decorator_list[0].lineno if stmt.decorator_list else stmt.lineno
        i = bisect.bisect_left(hit, first)
        if i < len(hit) and hit[i] <= (stmt.end_lineno or stmt.lineno):
            found.add(stmt.name)
    return frozenset(found)


def _imported_reading_functions(ctx) -> frozenset:
    """How this file calls the functions of the run's other files whose text reads values
    (``ProjectIndex.reading_functions``): ``to_numpy``, ``ptu.to_numpy``."""
    project = current_project()
    if project is None:
        return frozenset()
    return project.spellings(ctx.filename, ctx.imports.names, project.reading_functions)


def _qualified_name(ctx):
    """``ctx.imports.qualified_name``, where a name the file binds only to converters into PIL
    images (``rgb = transforms.ToPILImage()``, at module level or in each function using one) is
    that conversion (``rgb(out)`` is ``to_pil_image(out)``): what the model's output becomes is an
    image to draw."""
    state = ctx.state(_State)
    if state.qualified_name is None:
        qualified = ctx.imports.qualified_name
        converters = set()
        if "ToPILImage" in ctx.source.text:
            stores: dict = {}
            made: dict = {}
            for node in walk_in_order(ctx.tree):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    stores[node.id] = stores.get(node.id, 0) + 1
                elif (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and makes_image_converter(node.value, qualified)
                ):
                    made[node.targets[0].id] = made.get(node.targets[0].id, 0) + 1
            converters = {name for name, count in made.items() if stores.get(name) == count}
        if converters:

            def with_converters(expr: ast.AST) -> Optional[str]:
                if isinstance(expr, ast.Name) and expr.id in converters:
                    return TO_IMAGE_FUNCTION
                return qualified(expr)

            state.qualified_name = with_converters
        else:
            state.qualified_name = qualified
    return state.qualified_name


def _only_read_calls(ctx, scope: ast.AST) -> frozenset:
    """The calls of a scope whose result is only read (``analysis.read_only``), kept per
    scope; none in a scope whose text reads no tensor's values."""
    cache = ctx.state(_State).read_only
    found = cache.get(id(scope))
    if found is None:
        if _reads_values(ctx, scope) or _returns_to_readers(ctx, scope):
            found = read_only_calls(
                scope,
                _qualified_name(ctx),
                ctx.model.own_nodes(scope),
                ctx.model.rebindings(scope),
                lambda name: _parameters_read(ctx, name),
                (lambda: _returned_only_read(ctx, scope)) if isinstance(scope, FUNCTION_TYPES) else None,
                lambda call: _runs_a_model_with_parameters(ctx, call),
                lambda call: ctx.model.is_torch_loss(call.func, evident=True),
                lambda assignment, name: _unpacked_without_graph(ctx, assignment, name),
            )
        else:
            found = frozenset()
        cache[id(scope)] = found
    return found


# What a name unpacked from a call's tuple may hold without a graph of its own.
_GRAPHLESS_KINDS = frozenset({Kind.MODULE, Kind.NUMBER, Kind.OPTIMIZER, Kind.LOADER, Kind.DATASET})


def _unpacked_without_graph(ctx, assignment: ast.AST, name: str) -> bool:
    """Whether ``name``, one of the names an assignment unpacks a tuple into, holds a value that
    carries no graph as the code shows it (``net`` of ``net, predictions = train_and_pred(...)``,
    a model the function built): not one known by its name alone."""
    for target in getattr(assignment, "targets", ()):
        for node in walk_in_order(target):
            if type(node) is ast.Name and node.id == name:  # type: ignore[attr-defined]
                value = ctx.model.value(node)
                return value.kind in _GRAPHLESS_KINDS and not value.weak
    return False


def _may_hand_back_a_graph(value) -> bool:
    """Whether a returned value may carry a graph, counting the parts of a tuple whose kind is not
    known (``return q.mean(), td_error`` with ``td_error`` of a loss callable handed in)."""
    if value.may_carry_graph:
        return True
    if value.kind is Kind.CONTAINER:
        parts = (*(value.items or ()), *((value.elem,) if value.elem is not None else ()))
        return any(part.kind is Kind.UNKNOWN and part.grad is not Grad.NO for part in parts)
    return False


def _keeps_graph_on_self(ctx, function: ast.AST) -> bool:
    """Whether a method stores on ``self`` a value that may carry a graph (PEARL's
    ``infer_posterior``: ``self.z_mean = torch.stack(...)`` of its encoder's output, backpropagated
    later by the training step's KL loss), or appends one to a list its caller hands in (ENAS's
    ``sample_cell(arc_seq, entropy_list, log_prob_list)``): what it computes outlives the call, so
    its name alone does not make it an evaluation."""
    handed = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)} - {
        "self",
        "cls",
    }
    for node in ctx.model.own_nodes(function):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            flat = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            if (
                any(
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                    for target in flat
                )
                and ctx.model.value(node.value).may_carry_graph
            ):
                return True  # `self.z_mean = ...`, `self.hx, self.cx = self.lstm(inputs, hidden)`
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in LIST_ADDING_METHODS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in handed
            and node.args
            and (appended := ctx.model.value(node.args[-1])).may_carry_graph
            # not a value nothing shows is a tensor (`words.append(vocab[choice])`, a word)
            and appended.kind is not Kind.UNKNOWN
        ):
            return True  # `log_prob_list.append(selected_log_prob)` into a list the caller handed in
    return False


def _runs_a_model_with_parameters(ctx, call: ast.Call) -> bool:
    """Whether a call runs a module with parameters, or a method of one (``critic(s, a)``,
    ``self.value_net.forward(obs)``, ``policy.act(obs)``): a forward pass a loss may be
    backpropagated through (not a loss module, ``nn.MSELoss()``, nor a torch function)."""
    target = _callee(call)
    value = ctx.model.value(target)
    if value.kind is not Kind.MODULE and isinstance(target, ast.Attribute):
        value = ctx.model.value(target.value)  # `policy.act(obs)`
    return (
        value.kind is Kind.MODULE and not parameterless_layer(value) and not ctx.model.module_without_parameters(value)
    )


def _parameters_read(ctx, name: str):
    """What the file's one module-level function ``name`` only reads of its parameters
    (``analysis.read_only.parameters_only_read``; of a name defined more than once, what every
    definition only reads), kept per name; None for anything else (a decorated function, a name
    defined other than as a function)."""
    cache = ctx.state(_State).parameters_read
    if name.startswith("self."):
        # a method of the class at hand: whether it backpropagates (`self.compute_loss(...)` whose
        # body calls `loss.backward()`), else what it only reads of its parameters past `self`
        # (`output = self.restore(output)` of a static `restore(x)` taking `x.data` to numpy)
        owner = ctx.method_class
        key = (name, id(owner))
        if key not in cache:
            method = next(
                (
                    node
                    for node in (owner.body if owner is not None else ())
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name[5:]
                ),
                None,
            )
            found = None
            if method is not None and ".backward(" in ctx.text(method):
                found = ((), {}, True)
            elif method is not None and not is_property(method):
                static = any(dotted_name(d) == "staticmethod" for d in method.decorator_list)
                plain = not method.decorator_list or static
                if plain and (static or _method_like(method)):
                    positional, kinds, backpropagates = parameters_only_read(
                        method, ctx.imports.qualified_name, ctx.model.own_nodes(method)
                    )
                    found = (positional if static else positional[1:], kinds, backpropagates)
            cache[key] = found
        return cache[key]
    if name in cache:
        return cache[name]
    if "." in name:
        found = cache[name] = _project_parameters_read(ctx, name)
        return found
    definitions = ctx.model.scopes.module.definitions.get(name, ())
    found = None
    if not definitions and name not in _BUILTINS and _calls_backpropagate(ctx):
        # `loss = loss_compute(out, y)` with `loss_compute` handed in, in a file whose class
        # backpropagates in `__call__` (`SimpleLossCompute`): the callable may be one of those.
        found = cache[name] = ((), {}, True)
        return found
    if definitions and all(
        isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and not function.decorator_list
        for function in definitions
    ):
        # A notebook defining a helper again in a later cell (`accuracy` copied into two
        # sections): a parameter counts as only read where every definition only reads it.
        each = [parameters_only_read(f, ctx.imports.qualified_name, ctx.model.own_nodes(f)) for f in definitions]
        positional = each[0][0]
        if all(other[0] == positional for other in each[1:]):
            kinds = {
                parameter: min(found[1][parameter] for found in each)  # a value read wins over a size read
                for parameter in each[0][1]
                if all(parameter in found[1] for found in each)
            }
            found = (positional, kinds, any(found[2] for found in each))
    cache[name] = found
    return found


def _result_called(ctx, call: ast.Call) -> bool:
    """``net = one_layer_net(784, 10)``, then ``net(x)``: the call built a module (of a class
    the file does not show), it ran none. (Not the function's own name in its ``def`` line:
    ``def qa_values(self, obs): qa_values = self.q_net(obs)``.)"""
    name = _bound_name(ctx, call)
    if name is None:
        return False
    scope = ctx.function if ctx.function is not None else ctx.tree
    text = ctx.source.text if scope is ctx.tree else ctx.text(scope)
    if re.search(rf"(?<![\w.])(?<!def ){re.escape(name)}\(", text) is None:
        return False
    # in code, not in a string or a comment (`"""want u(x, t=0) = sin(x)"""` in a training loop)
    return any(
        type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == name for node in walk_in_order(scope)
    )


def _calls_backpropagate(ctx) -> bool:
    """Whether a class of the file runs a backward pass in its ``__call__`` (a loss-computing
    object that steps the optimizer itself), answered once per file."""
    state = ctx.state(_State)
    if state.calls_backpropagate is None:
        state.calls_backpropagate = "__call__" in ctx.source.text and any(
            isinstance(method, ast.FunctionDef) and method.name == "__call__" and ".backward(" in ctx.text(method)
            for node in ctx.tree.body
            if isinstance(node, ast.ClassDef)
            for method in node.body
        )
    return state.calls_backpropagate


def _project_parameters_read(ctx, qualified: str):
    """``_parameters_read`` of a module-level function another file of the run defines
    (``plotutils.show_next_word``), read from that file (``ProjectIndex.function_node``)."""
    found = ctx.model.project_function(qualified)
    if found is None:
        return None
    tree, function = found
    return parameters_only_read(function, ImportMap(tree).qualified_name)


_READ_ONLY_MESSAGE = (
    "runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated"
)
# The same where the output is detached as it is made (`fake_A = G_BA(imgs_B).detach()`).
_DETACHED_MESSAGE = "runs with grad enabled, but its output is detached at once (`.detach()`) and never backpropagated"


# The same where what is computed from the output is used detached (`target_q = r + g *
# target_net(s2)`, then `mse(q, target_q.detach())`).
_USED_DETACHED_MESSAGE = (
    "runs with grad enabled, but what is computed from its output is only read or used detached (`.detach()`) "
    "and never backpropagated"
)


def _read_only_message(ctx, call: ast.Call) -> str:
    """``_READ_ONLY_MESSAGE``, said of ``.detach()`` where that is how the output is read (at
    once, or through the names it is bound to and computed into)."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Attribute) and parent.attr == "detach" and isinstance(ctx.parent(parent), ast.Call):
        return _DETACHED_MESSAGE
    if isinstance(parent, (ast.BinOp, ast.UnaryOp)) and read_at_once(call, ctx.parent):
        # `(quantizer(z) - z).detach()`, `((net(x) - y) ** 2).mean().item()`: computed with, then read
        return _USED_DETACHED_MESSAGE
    statement = _statement(ctx, call)
    scope = statement
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        scope = ctx.parent(scope)  # the function (or module) the call's statement belongs to
    if scope is None:
        return _READ_ONLY_MESSAGE
    if isinstance(statement, ast.Assign) and ".detach()" in (
        ctx.text(scope) if scope is not ctx.tree else ctx.source.text
    ):
        names = _computed_from_targets(ctx, scope, statement)
        for node in ctx.model.own_nodes(scope):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "detach"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in names
                and node.lineno >= statement.lineno
            ):
                return _USED_DETACHED_MESSAGE
    return _READ_ONLY_MESSAGE


# What `_why` says of a call in code that uses no gradients when its output is only read.
_ONLY_READ_WHY = "although its output is only read (`.data`, `.item()`, printing)"
_LOADING_WORDS = frozenset({"pretrained", "weights", "checkpoint", "ckpt"})


def _loading_keyword(name: Optional[str]) -> bool:
    """A keyword naming weights to load: ``pretrained``, ``weights``, ``state_dict``,
    ``checkpoint_name``, ``ckpt_path``, ``pretrained_weights``; not one asking for fresh weights
    (``init_weights=True`` of torchvision's VGG, ``random_weights``)."""
    if name is None:
        return False
    name = name.lower()
    words = name.split("_")
    if words[0] in _FRESH_WEIGHT_WORDS:
        return False
    return "state_dict" in name or not _LOADING_WORDS.isdisjoint(words)


# What a keyword for fresh weights starts with: `init_weights=True`, `random_weights`, `reset_weights`.
_FRESH_WEIGHT_WORDS = frozenset({"init", "initialize", "initialise", "random", "reset"})


def _returned_only_read(ctx, function: ast.AST) -> bool:
    """Whether every caller of a function of the file only reads what it returns (a training
    function's `return losses, predictions` of a final forward pass, then plotted); False while
    that is being worked out (a function reached again through its callers)."""
    asking = ctx.state(_State).returns_asked
    if id(function) in asking:
        return False
    asking.add(id(function))
    try:
        return _callers_only_read(ctx, function)
    finally:
        asking.discard(id(function))


def _returns_a_loss(ctx, function: ast.AST) -> bool:
    """Whether the function's own returns hand back a loss: not those of an optimizer's closure
    defined inside (``def closure(): ... loss.backward(); return loss`` for LBFGS); a loss among
    the values of a tuple it returns too (``return loss, td_errors``), where the function
    backpropagates nothing itself (not ``return predictions, loss`` after its training loop)."""
    for sub in ctx.model.own_nodes(function):
        if not isinstance(sub, ast.Return) or sub.value is None:
            continue
        in_tuple = isinstance(sub.value, ast.Tuple)
        returned = (
            sub.value.elts if in_tuple and not ctx.model.function_summary(function).calls_backward else (sub.value,)
        )
        for value in returned:
            found = ctx.model.value(value)
            if (found.has(Role.LOSS) and found.grad is not Grad.NO) or (
                # (a loss without a graph, `total += c_loss.data[0]`, backpropagates nothing)
                # `return loss, acc` of a loss set on some paths only: named for one, not known
                # to be anything else (not a sum of `.data` reads: `avg_loss` of `loss.data`)
                in_tuple
                and isinstance(value, ast.Name)
                and names_a_loss(value.id)
                and found.kind in (Kind.TENSOR, Kind.UNKNOWN)
                and found.grad is not Grad.NO
            ):
                return True
    return False


def _handed_on_with_a_graph(ctx, function: ast.AST) -> bool:
    """Whether a function (not a method) that may hand back a graph is itself handed to a call
    of the code around it that backpropagates: a method or function of the file that does
    (``self.optimize(image, total_loss_function)``), or an optimizer's ``step(closure)``. Such a
    caller takes the graph it returns, as for a loss it returns; not a library's explainer
    (``shap.Explainer(predict, masker)`` only reads the outputs)."""
    if isinstance(ctx.parent(function), ast.ClassDef):
        return False
    name = function.name
    around = next(
        (s for s in ctx.model.enclosing(function) if s is not function and isinstance(s, FUNCTION_TYPES)), ctx.tree
    )
    text = ctx.text(around) if around is not ctx.tree else ctx.source.text
    spelt_in_def = text.find(f"def {name}") + len("def ")
    if all(at == spelt_in_def for at in occurrences(text, name)):
        return False  # its name appears only in its own `def` (a quick test before the walk)
    handed = any(
        isinstance(sub, ast.Call)
        and any(isinstance(arg, ast.Name) and arg.id == name for arg in (*sub.args, *(k.value for k in sub.keywords)))
        and (
            (isinstance(sub.func, ast.Attribute) and sub.func.attr == "step")
            or (isinstance(sub.func, ast.Name) and _trains(ctx, sub.func.id))
            or _self_method_trains(ctx, sub)
        )
        for sub in walk_in_order(around)
    )
    return handed and _may_hand_back_a_graph(ctx.model.returns_as_called(function))


def _callers_only_read(ctx, function: ast.AST) -> bool:
    """Whether the function is called in this file, only by calls whose result is only read
    (``output = evaluate(line)`` then ``output.data.topk(3)``; ``print(predict(x))``;
    ``create_samples(gen, z).detach().cpu().numpy()``) or dropped (a call statement)."""
    sites = ctx.model.callers(function)
    if not sites or _method_called_elsewhere(ctx, function, sites):
        return False
    for site in sites:
        call = site.call
        up = ctx.parent(call)
        if isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "print" and call in up.args:
            continue
        if isinstance(up, ast.Expr) and up.value is call:
            continue  # `test_classify(model, test_loader)` as a statement: the result is dropped
        if read_at_once(call, ctx.parent):
            continue  # `create_samples(gen, z).detach().cpu().numpy()`
        if isinstance(up, ast.Call) and call in up.args and _handed_to_a_read_parameter(ctx, up, call):
            continue  # `decode_matrix(vectorizer, sample(net.emb, ...))`: a function that only reads it
        scope = site.frame.node
        if isinstance(scope, ast.Lambda) or not (isinstance(up, ast.Assign) and up.value is call):
            return False
        if id(call) not in _only_read_calls(ctx, scope):
            return False
    return True


def _result_backpropagated_by_a_caller(ctx, function: ast.AST) -> bool:
    """Whether a caller of the file backpropagates what the function hands back
    (``train_prototypes = calculate_prototypes(X, y, model)``, then the distances to them in
    the loss): the function's graph is trained through, however it switched the model's mode. Only
    a function certain to hand back a graph (a tensor of its model's outputs, or a tuple holding
    one): a caller's names are followed by name, not by value."""
    if not ctx.model.returns_as_called(function).holds_graph:
        return False
    return any(
        not isinstance(site.frame.node, ast.Lambda) and _backpropagated_in(ctx, site.call, site.frame.node)
        for site in ctx.model.callers(function) or ()
    )


def _method_called_elsewhere(ctx, function: ast.AST, sites: list) -> bool:
    """Whether ``function`` is a method and the file calls a method of its name besides the
    callers the model knows (``model.generate(gray)`` on a training step's parameter, whose
    class the step does not show): a caller that may backpropagate."""
    name = getattr(function, "name", None)
    if name is None or not any(isinstance(s, ast.ClassDef) for s in ctx.model.enclosing(function)[1:]):
        return False
    state = ctx.state(_State)
    if state.method_calls is None:
        state.method_calls = {}
        for node in walk_in_order(ctx.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                state.method_calls.setdefault(node.func.attr, set()).add(id(node))
    return bool(state.method_calls.get(name, set()) - {id(site.call) for site in sites})


def _class_trained_elsewhere(ctx, construction: ast.Call) -> bool:
    """Whether the class a call constructs is the file's model under training: another instance
    of it is bound to a name whose parameters the file hands on (``model = CNNSimilarity(**kargs)``
    and ``model.parameters()``); not a helper module built for a computation (``GramMatrix()(A)``)."""
    name = construction.func.id if isinstance(construction.func, ast.Name) else None
    if name is None or not ctx.model.scopes.module.definitions.get(name):
        return False
    text = ctx.source.text
    instances = set(re.findall(rf"(\w+)\s*=\s*{re.escape(name)}\(", text))
    return any(f"{instance}.parameters()" in text for instance in instances)


def _module_handed_to_maker(ctx, scope: ast.AST, name: ast.Name, call: ast.Call) -> Optional[ast.Name]:
    """The module named in the call that made the object ``name`` holds before ``call``
    (``agent = Agent(policy, device=d)``: ``policy``), if one is."""
    made = None
    for binding in ctx.model.uses(scope).bindings_of(name.id):
        if binding.node.lineno <= call.lineno and isinstance(binding.value, ast.Call):
            if made is None or binding.node.lineno >= made.lineno:
                made = binding.value
    if made is None:
        return None
    for argument in [*made.args, *(keyword.value for keyword in made.keywords)]:
        if isinstance(argument, ast.Name) and ctx.model.value(argument).kind is Kind.MODULE:
            return argument
    return None


def _fresh_module(ctx, call: ast.Call, so_far: bool = False) -> bool:
    """Whether the call runs a module built in this scope and never trained or loaded there
    (``net = DPN92(); y = net(torch.randn(1, 3, 32, 32)); print(y)``): a smoke test of the
    model's code, not an evaluation. Loading shows as ``net.load...(``/``net.restore...(``
    (a project's own loader) or ``load...(net, ...)``, training by a helper as
    ``train...(net, ...)``/``fit...(net, ...)`` or ``net = train...(...)``, and ``net.train()``
    where the code has a backward pass (alone it only sets a mode: a demo of dropout).
    ``so_far``: in a script or notebook, which runs in order, only what the code did before the
    call (or in the loops around it) counts, and an optimizer over the parameters only once a
    step has run: a demo of the untrained model before its training cell."""
    callee = call.func
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
        callee = callee.value  # `net.forward(x)`, `net.embedding(x)`: the module built here, or a part of it
    elif (
        isinstance(callee, ast.Subscript)
        and isinstance(callee.value, ast.Name)
        and isinstance(callee.slice, (ast.Constant, ast.UnaryOp))
    ):
        callee = callee.value  # `model[0](x)`: a layer of an `nn.Sequential` built here
    if isinstance(callee, ast.Call):
        # `nn.BatchNorm1d(3)(x)`: a module built on the spot and run at once, in a file that
        # never trains, unless what builds it loads weights (`models.resnet18(pretrained=True)(x)`)
        built = ctx.model.value(callee)
        return (
            # an instance of the model class the file trains, dropped at once, is never trained:
            # a check that the architecture runs (`CNNSimilarity(**kargs)((q1[:3], q2[:3]))`); a
            # torch layer given sizes alone, `nn.Linear(input_size, 1)(x)`, is a new one anywhere
            (_code_lacks(ctx, "backward(") or _class_trained_elsewhere(ctx, callee) or _new_torch_layer(ctx, callee))
            and built.kind is Kind.MODULE
            and not built.weak
            and not _given_weights(ctx, callee, call.lineno)
        )
    if not isinstance(callee, ast.Name):
        return False
    if ctx.model.value(callee).kind is Kind.FUNCTION:
        # `cfg_guided_noise(cond_model, x, t)`: a function of the file running the module it is handed
        callee = next(
            (arg for arg in call.args if isinstance(arg, ast.Name) and ctx.model.value(arg).kind is Kind.MODULE),
            callee,
        )
    scope = ctx.function if ctx.function is not None else ctx.tree
    if ctx.model.value(callee).kind is Kind.OTHER:
        # `agent = Agent(policy)`, then `agent.get_action(state)`: the module handed to the
        # object is the one that runs
        callee = _module_handed_to_maker(ctx, scope, callee, call) or callee
    return _fresh_named(ctx, call, callee, scope, so_far)


def _fresh_named(
    ctx, call: ast.Call, callee: ast.Name, scope: ast.AST, so_far: bool, seen: frozenset = frozenset()
) -> bool:
    """``_fresh_module`` of the module the name ``callee`` holds at ``call``; a name that
    only holds another's module (``g = generator``) asks of that one, and its own uses count too."""
    name = callee.id
    made_at = None  # the line of the last binding before the call that builds the module
    builds = 0  # how many bindings before the call build one
    loaded_at = None  # the line of the last one that loads or trains it
    rebound_at = None  # the first line after the call that binds the name again
    alias = None  # the last binding before the call, where it is another name (`g = generator`)
    last_at = 0
    for binding in ctx.model.uses(scope).bindings_of(name):
        value = _unpacked_element(binding.node, binding.value, name)
        if binding.node.lineno > call.lineno:
            if rebound_at is None or binding.node.lineno < rebound_at:
                rebound_at = binding.node.lineno
            continue
        if binding.node.lineno > last_at:
            last_at = binding.node.lineno
            alias = (
                value
                if isinstance(binding.node, ast.Assign)
                and isinstance(value, ast.Name)
                and value.id not in seen | {name}
                else None
            )
        if not isinstance(value, ast.Call) or isinstance(binding.node, (ast.For, ast.AsyncFor)):
            continue  # (`for k, model in self.models.items()`: an item of a container, built elsewhere)
        if any(type(sub) is ast.Name and sub.id == name for sub in walk_in_order(value)):  # type: ignore[attr-defined]
            continue  # `model = DataParallel(model)`, `model = model.eval()`: the module it held before
        line = binding.node.lineno
        if _given_weights(ctx, value, line):
            loaded_at = max(loaded_at or 0, line)
        else:
            builds += 1
            made_at = max(made_at or 0, line)
    if (
        made_at is None
        and so_far
        and scope is ctx.tree
        and ctx.source.cell_starts
        and rebound_at is None
        and loaded_at is None
        and not ctx.model.scopes.module.binds(name)
        and name not in ctx.imports.names
        and _trained_later(ctx, call, name)
    ):
        # a notebook's model built in a cell that does not parse (an exercise's `<???>`) and
        # trained in later cells: shown before its training
        made_at, builds = 1, 1
    if (
        made_at is None
        and rebound_at is not None
        and loaded_at is None
        and so_far
        and _built_only_later(ctx, call, name)
    ):
        return True  # a notebook's cell run before the cell building the model, which nothing trains
    if alias is not None and (made_at is None or last_at > made_at) and (loaded_at is None or last_at > loaded_at):
        # `g = generator`, then `g(xb)`: the module built under the other name, untouched under this one
        src = ctx.source
        start = src.line_starts[last_at - 1]
        end = src.node_end(call) if so_far else (len(src.text) if scope is ctx.tree else src.node_end(scope))
        if rebound_at is not None:
            end = min(end, src.line_starts[rebound_at - 1])
        return _fresh_named(ctx, call, alias, scope, so_far, seen | {name}) and _untouched(
            ctx, scope, callee, _code_text(ctx)[start:end], so_far
        )
    if made_at is None or (loaded_at is not None and loaded_at >= made_at):
        return False
    src = ctx.source
    start, end = (0, len(src.text)) if scope is ctx.tree else (src.node_start(scope), src.node_end(scope))
    if builds > 1 or loaded_at is not None:
        # Built again (`embedding_layer = nn.Embedding(3, 3)` after an optimizer over the first
        # one): what the code did with the name before is about the module it held then.
        start = max(start, src.line_starts[made_at - 1])
    if rebound_at is not None:
        # What the code does with the name once it holds another module (`model = Classifier()`
        # again, then trained) says nothing of the one this call runs.
        end = src.line_starts[rebound_at - 1]
    in_order = so_far  # the module is built in this scope: what follows the call cannot have trained it
    if in_order:
        start = max(start, src.line_starts[made_at - 1])  # before the binding, the name held another value
        outermost = None
        for ancestor in ctx.ancestors(call):
            if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                break
            if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
                outermost = ancestor
        end = min(end, src.node_end(outermost if outermost is not None else call))
    return _untouched(ctx, scope, callee, _code_text(ctx)[start:end], in_order)


def _unpacked_element(statement: ast.AST, value: Optional[ast.AST], name: str) -> Optional[ast.AST]:
    """What an assignment binds to ``name``: the matching element where a tuple of names is
    given a tuple of the same length (``enc, dec = Encoder(), Decoder()``), else its value."""
    if not (isinstance(statement, ast.Assign) and isinstance(value, (ast.Tuple, ast.List))):
        return value
    for target in statement.targets:
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
            for element, part in zip(target.elts, value.elts):
                if isinstance(element, ast.Name) and element.id == name:
                    return part
    return value


def _untouched(ctx, scope: ast.AST, callee: ast.Name, text: str, in_order: bool) -> bool:
    """Whether the code ``text`` (the part of ``scope`` that can have acted on the module the
    name ``callee`` holds) neither loads weights into it nor trains it, itself or through a helper."""
    name = callee.id
    text = _own_state_reloads_blanked(text, name)
    if (
        any(next(code_occurrences(text, f"{name}.{method}"), None) is not None for method in ("load", "restore"))
        or _part_loaded(text, name)
    ) and (not _unit_test(ctx, ctx.function) or _UNIT_TEST_LOADS_RE.search(text) is not None):
        # given weights (`model.load(path)`, a project's own loader); in a unit test, only weights
        # from outside it count (not another model's of the test: `m.load_state_dict(base.state_dict())`)
        return False
    if (_parameters_handed_on(text, name) or _optimizer_over_its_tensors(text, name)) and (
        not in_order or re.search(r"\.(?:backward|step)\(|\b(?:train|fit)\w*\(", text) is not None
    ):
        return False  # handed to an optimizer: trained
    if in_order and re.search(rf"(?<![\w.]){re.escape(name)}\([\s\S]*\.backward\(", text) is not None:
        return False  # run, then a backward pass: a training loop before the call
    if in_order and any(
        _trains(ctx, match.group(1)) and _mentions(ctx, match.group(1), name)
        for match in re.finditer(r"(?<![\w.])(\w+)\(\s*\)", text)
    ):
        return False  # `fit()`: a function of the file that trains the module it reads as a global
    if f"{name}.train(" in text and (
        ".backward(" in text or re.search(rf"\b{re.escape(name)}\.train\((?!\s*(?:\)|True|False|mode\b))", text)
    ):
        return False  # `model.train()` before a training loop; `model.train(data)`: a method that trains
    if any(
        in_code(text, match.start()) and in_code(text, match.end())
        for match in re.finditer(
            rf"\b{re.escape(name)}\.(?:(?:train\w+|fit\w*)\(|(\w+)\s*=(?!=)[^\n]*\b{re.escape(name)}\.\1\b)", text
        )
    ):
        return False  # `model.train_model(x)`, `model.fit(...)`; `lrmodel.w = lrmodel.w - lr * g`: updated by hand
    # `load_checkpoint(model, ...)`; `train_ch3(net, train_iter, ...)`: trained by a helper
    # (not `other.load_state_dict(model.state_dict())`: that loads `other`)
    if re.search(rf"\b(?:load(?!_state_dict)|restore|train|fit)\w*\(\s*{re.escape(name)}\b", text) is not None:
        return False
    # `trainer = Trainer(model, optimizer, ...)`, then `trainer.load_checkpoint(path)` or
    # `trainer.run(epochs=10)`: loaded or trained through the object it was handed to
    for holder in re.findall(rf"^[ \t]*(\w+)\s*=\s*[\w.]+\([^\n]*\b{re.escape(name)}\b", text, re.M):
        if holder != name and re.search(rf"(?<![\w.]){re.escape(holder)}\.(?:load|restore|train|fit|run)\w*\(", text):
            return False
    # `agent = REINFORCE(...)`, then `agent.update()`: a method of the object's class that backpropagates
    held = ctx.model.value(callee)
    if held.kind is Kind.OTHER and held.ref is not None:
        for method in set(re.findall(rf"(?<![\w.]){re.escape(name)}\.(\w+)\(", text)):
            if method not in MODULE_OWN_METHODS and ctx.model.instance_method_trains(held, method):
                return False
    if _filled_with_layers_of_another(ctx, scope, name):
        return False  # `model.add_module(name, layer)` for each layer of a pretrained `cnn`
    # `train_batch(x, y, model, optimizer, loss_fn)`: handed to a function of the file that trains (its
    # arguments on one line or several)
    return not any(
        _trains(ctx, match.group(1)) for match in re.finditer(rf"\b(\w+)\([^()]*\b{re.escape(name)}\b", text)
    )


def _filled_with_layers_of_another(ctx, scope: ast.AST, name: str) -> bool:
    """Whether the scope adds to the module ``name`` the layers of another one it iterates
    (``for layer in cnn.children(): model.add_module(str(i), layer)``, a style transfer's model
    built from a pretrained VGG's layers): their weights come with them."""
    for loop in ctx.model.own_nodes(scope):
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or not _made_of_layers_of_another(loop.iter):
            continue
        layers = set(target_names(loop.target))
        if any(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("add_module", "append")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
            and any(isinstance(arg, ast.Name) and arg.id in layers for arg in node.args)
            for statement in loop.body
            for node in walk_in_order(statement)
        ):
            return True
    return False


def _new_torch_layer(ctx, construction: ast.Call) -> bool:
    """Whether a call builds a torch layer, which takes sizes and settings (``nn.Linear(n, 1)``,
    ``nn.BatchNorm1d(3, affine=False)``), or a container of torch's given numbers alone: not one
    holding modules it is handed (``nn.Sequential(encoder, head)`` of trained parts)."""
    qualified = ctx.imports.qualified_name(construction.func) or ""
    last = qualified.rpartition(".")[2]
    if not qualified.startswith("torch.nn.") or not last[:1].isupper():
        return False
    if last not in _MODULE_HOLDING_LAYERS:
        return True
    return all(
        isinstance(argument, ast.Constant) or ctx.model.value(argument).kind is Kind.NUMBER
        for argument in (*construction.args, *(k.value for k in construction.keywords))
    )


# torch's modules built from other modules: what they hold may be trained.
_MODULE_HOLDING_LAYERS = MODULE_CONTAINERS | {"DataParallel", "DistributedDataParallel"}


def _given_weights(ctx, value: ast.Call, line: int) -> bool:
    """Whether what builds a module at ``line`` gives it weights: it loads or trains them
    (``load_model(path)``, ``models.resnet18(pretrained=True)``), assembles the layers of another
    model, builds a class whose ``__init__`` loads a checkpoint, or copies a trained model."""
    return (
        _loads_or_trains(value, ctx)
        or _made_of_layers_of_another(value)
        or ctx.model.module_loads_weights(ctx.model.value(value))
        or _copy_after_training(ctx, value, line)
        or _built_by_a_loading_function(ctx, value)
    )


def _built_by_a_loading_function(ctx, value: ast.Call) -> bool:
    """Whether ``value`` calls a function of the file that loads weights into what it hands back
    (``def get_model(w): m = Generator(); m.load_state_dict(torch.load(w)); return m``), also
    moved or switched on the way (``get_model(w).cuda()``)."""
    while isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Call):
        value = value.func.value  # `.cuda()`, `.to(device)`, `.eval()` of what it builds
    if not isinstance(value.func, ast.Name):
        return False
    definitions = ctx.model.scopes.module.definitions.get(value.func.id) or ()
    return bool(definitions) and all(
        isinstance(d, FUNCTION_TYPES)
        and loads_weights(ctx.text(d))
        and any(isinstance(n, ast.Return) and n.value is not None for n in ctx.model.own_nodes(d))
        for d in definitions
    )


def _own_state_reloads_blanked(text: str, name: str) -> str:
    """``text`` without the module's reloads of its own weights (``sd = model.state_dict()`` then
    ``model.load_state_dict(sd)``, a demo of the round trip): no weights come from elsewhere."""
    own = {
        m.group(1) for m in re.finditer(rf"(?<![\w.])(\w+)\s*=[^\n]*(?<![\w.]){re.escape(name)}\.state_dict\(", text)
    }
    if not own:
        return text
    reload = re.compile(rf"(?<![\w.]){re.escape(name)}\.load_state_dict\(\s*(?:{'|'.join(map(re.escape, own))})\s*\)")
    return reload.sub(lambda m: " " * len(m.group(0)), text)


# What shows weights from outside a unit test: a file, a hub, a pretrained model.
_UNIT_TEST_LOADS_RE = re.compile(
    r"torch\.load\(|load_state_dict_from_url|from_pretrained|hub\.|\.pth?\b|ckpt|checkpoint"
)


def _frozen(ctx, target: ast.AST, call: ast.Call) -> bool:
    """Whether the scope, before the call, froze every parameter of the model called (``for p in
    model.parameters(): p.requires_grad_(False)``, ``model.requires_grad_(False)``, a helper of the
    file: ``analysis.steps.frozen_models``) and thawed none after, and gives it no new layer
    (``model.fc = nn.Linear(...)``, transfer learning): a call of it on an input without grad
    records no graph."""
    root = target.value if isinstance(target, ast.Attribute) else target
    if not isinstance(root, ast.Name):
        return False
    if not may_freeze(ctx):
        return False
    scope = ctx.function if ctx.function is not None else ctx.tree
    known = ctx.state(_State).frozen
    key = (id(scope), root.id)
    found = known.get(key)  # (a new layer is given, every caller hands it frozen or it is a frozen global)
    if found is None:
        text = ctx.source.text if scope is ctx.tree else ctx.text(scope)
        given_layer = given_a_layer(text, root.id)
        frozen = not given_layer and (
            _frozen_by_every_caller(ctx, scope, root.id)
            or _frozen_global(ctx, scope, root.id)
            or _frozen_through_a_dict(ctx, scope, root.id)
        )
        first_line = 1 if scope is ctx.tree else scope.lineno  # type: ignore[attr-defined]
        layer_lines = tuple(first_line + text.count("\n", 0, at) for at in given_layer_offsets(text, root.id))
        found = known[key] = (given_layer, frozen, layer_lines)
    if found[0]:
        # `model.fc = nn.Linear(...)`: a new layer trains, unless the scope froze the model after
        # giving it (the freeze loop then covers the new layer too)
        since = frozen_since(ctx, scope, call, root.id)
        return since is not None and bool(found[2]) and all(line < since[0] for line in found[2])
    return found[1] or root.id in frozen_models(ctx, scope, call)


def _assembled_from_frozen_layers(ctx, target: ast.AST, call: ast.Call) -> bool:
    """Whether the module called is a container the scope assembles, before the call, from
    layers of modules it froze and from layers without parameters (a style-transfer loss
    network: ``vgg.requires_grad_(False)``, ``self.model = nn.Sequential(normalize)``, then
    ``for layer in vgg.children(): self.model.add_module(name, layer)``, and
    ``self.model(style).detach()`` for the targets): every parameter it holds is frozen, so a call
    on an input without grad records no graph."""
    container = dotted_name(target)
    if container is None:
        return False
    scope = ctx.function if ctx.function is not None else ctx.tree
    text = ctx.source.text if scope is ctx.tree else ctx.text(scope)
    if f"{container}.add_module(" not in text or _thawed(ctx, target):
        return False
    frozen = frozen_models(ctx, scope, call)
    if not frozen:
        return False
    assembled = False
    for node in ctx.model.own_nodes(scope):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not any(dotted_name(t) == container for t in targets):
                continue
            value = node.value
            if isinstance(value, ast.Subscript) and dotted_name(value.value) == container:
                continue  # `self.model = self.model[: i + 1]`: some of its own layers
            if not (
                isinstance(value, ast.Call)
                and ctx.imports.qualified_name(value.func) == "torch.nn.Sequential"
                and not value.keywords
                and all(_adds_nothing_trainable(ctx, arg, frozen, container) for arg in value.args)
            ):
                return False
            assembled = True
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_module"
            and dotted_name(node.func.value) == container
        ):
            if len(node.args) != 2 or node.keywords:
                return False
            if not _adds_nothing_trainable(ctx, node.args[1], frozen, container):
                return False  # (also one added after the call: in a loop, the call meets it at the next turn)
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CONTAINER_GROWERS
        ):
            if dotted_name(node.func.value) == container:
                return False  # `self.model.append(nn.Linear(...))`: a layer not looked at
    return assembled


_CONTAINER_GROWERS = LIST_ADDING_METHODS | {"register_module", "register_parameter"}


def _adds_nothing_trainable(ctx, layer: ast.AST, frozen: frozenset, container: str) -> bool:
    """Whether a layer added to a container holds no parameter that trains: a layer of a frozen
    module (``for layer in vgg.children()``), one without parameters (``nn.ReLU(inplace=False)``,
    a loss module keeping a detached target), or a module of the file that builds no layer of its
    own and is handed only tensors and copies of the container (``ContentLoss(target,
    copy.deepcopy(self.model))``)."""
    if isinstance(layer, ast.Name):
        definitions = ctx.model.definitions(layer)
        if not definitions:
            return False
        for binding in definitions:
            node = binding.node
            if isinstance(node, (ast.For, ast.AsyncFor)):
                if dotted_name(_layers_iterated(node, layer.id)) not in frozen:
                    return False
            elif not (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and _constructs_nothing_trainable(ctx, node.value, frozen, container)
            ):
                return False
        return True
    return _constructs_nothing_trainable(ctx, layer, frozen, container)


def _layers_iterated(loop: ast.For | ast.AsyncFor, name: str) -> Optional[ast.AST]:
    """The module whose layers a loop binds ``name`` to: ``for layer in vgg.children()`` (also
    ``vgg.modules()``, ``vgg`` itself, ``enumerate(vgg.children())``, ``vgg.named_children()``)."""
    source, target = loop.iter, loop.target
    if isinstance(target, ast.Tuple):
        # `for i, layer in enumerate(...)`, `for name, layer in vgg.named_children()`
        if len(target.elts) != 2 or not (isinstance(target.elts[1], ast.Name) and target.elts[1].id == name):
            return None
        if _method_call_without_arguments(source, ("named_children", "named_modules")):
            return source.func.value  # type: ignore[attr-defined]
        if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "enumerate"):
            return None
        if len(source.args) != 1:
            return None
        source = source.args[0]
    elif not (isinstance(target, ast.Name) and target.id == name):
        return None
    if _method_call_without_arguments(source, ("children", "modules")):
        return source.func.value  # type: ignore[attr-defined]
    return source


def _method_call_without_arguments(node: ast.AST, methods: tuple) -> bool:
    """``x.children()``: a call of one of ``methods`` on something, with no argument."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in methods
        and not node.args
        and not node.keywords
    )


def _constructs_nothing_trainable(ctx, expr: ast.AST, frozen: frozenset, container: str) -> bool:
    """Whether a module value adds no trainable parameter to the container: a layer without
    parameters, a class of the file holding none, or one building no layer of its own and handed
    only tensors and the (frozen) container or a copy of it."""
    value = ctx.model.value(expr)
    if value.kind is not Kind.MODULE:
        return False
    if parameterless_layer(value) or ctx.model.module_without_parameters(value):
        return True
    info = ctx.model.class_of(value)
    if info is None or not isinstance(expr, ast.Call) or builds_parameters(ctx.text(info.node)):
        return False
    for argument in [*expr.args, *(k.value for k in expr.keywords)]:
        copied = argument
        if (
            isinstance(copied, ast.Call)
            and ctx.imports.qualified_name(copied.func) == "copy.deepcopy"
            and len(copied.args) == 1
        ):
            copied = copied.args[0]
        if dotted_name(copied) in (container, *frozen):
            continue  # the container itself, or a copy of it: its layers, frozen as they are
        if not ctx.model.value(argument).is_tensor:
            return False
    return True


def _thawed(ctx, target: ast.AST) -> bool:
    """Whether the file may make the parameters of the model called require grad again: a loop
    over some module's ``parameters()`` setting ``requires_grad`` to True, or
    ``<model>.requires_grad_()`` on the model called."""
    text = ctx.source.text
    if _THAW_LOOP_RE.search(text):
        return True
    root = dotted_name(target)
    return root is not None and re.search(rf"\b{re.escape(root)}\.requires_grad_\(\s*(?:True)?\s*\)", text) is not None


_THAW_LOOP_RE = re.compile(
    r"parameters\(\)[^\n]*:[ \t]*(?:\n[ \t]+)?\w+\.requires_grad(?:\s*=\s*True|_\(\s*(?:True)?\s*\))"
)


_FREEZING_FUNCTIONS = frozenset(
    {
        "torch.jit.freeze",
        "torch.jit.optimize_for_inference",
        "torch.utils.mobile_optimizer.optimize_for_mobile",
        # a quantized model's weights are packed integers, not parameters
        "torch.quantization.convert",
        "torch.ao.quantization.convert",
    }
)


def _frozen_copy(ctx, target: ast.AST) -> bool:
    """Whether the name called is bound, everywhere in the scope, to a frozen copy of a module
    (``optimize_for_mobile(scripted)``, ``torch.jit.freeze(scripted)``): its weights are
    constants, so its calls record no graph."""
    if not isinstance(target, ast.Name):
        return False
    bindings = ctx.model.uses(ctx.function if ctx.function is not None else ctx.tree).bindings_of(target.id)
    return bool(bindings) and all(
        isinstance(b.value, ast.Call) and ctx.imports.qualified_name(b.value.func) in _FREEZING_FUNCTIONS
        for b in bindings
    )


def _frozen_global(ctx, function: ast.AST, name: str) -> bool:
    """Whether ``name`` is a global the function reads (never binds) whose module-level code
    froze every parameter before the function's definition and thaws none later, and gives it
    no new layer anywhere: the function runs it frozen wherever it is called from."""
    return frozen_global(ctx, function, name, code_text=lambda: _code_text(ctx))


def _input_requires_grad(ctx, scope: ast.AST, call: ast.Call) -> bool:
    """Whether an argument of the call is a name the scope made require grad before it
    (``img.requires_grad = True``, ``x.requires_grad_()``): the output is there to be
    differentiated with respect to its input (Sobolev or saliency losses, attacks), by helpers
    the check may not read."""
    names = {arg.id for arg in call.args if isinstance(arg, ast.Name)}
    if not names:
        return False
    at = (call.lineno, call.col_offset)
    for node in ctx.model.own_nodes(scope):
        if not isinstance(node, (ast.Assign, ast.Call)) or (node.lineno, node.col_offset) >= at:
            continue
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute)
            and t.attr == "requires_grad"
            and isinstance(t.value, ast.Name)
            and t.value.id in names
            for t in node.targets
        ):
            if not (isinstance(node.value, ast.Constant) and node.value.value is False):
                return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "requires_grad_"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in names
            and not (node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value is False)
        ):
            return True
    return False


def _parameter_slot(function: ast.AST, name: str, method: bool) -> Optional[tuple]:
    """(position, keyword) by which a call of ``function`` hands it its parameter ``name``, for
    ``call_argument(call, *slot)``: its place among the positional parameters (past ``self`` or
    ``cls`` where ``method``), or None for a keyword-only one; None where ``name`` is no parameter."""
    spec = function.args if isinstance(function, FUNCTION_TYPES) else None
    if spec is None:
        return None
    positional = [a.arg for a in (*spec.posonlyargs, *spec.args)]
    if name in positional:
        return (positional.index(name) - (1 if method else 0), name)
    return (None, name) if name in {a.arg for a in spec.kwonlyargs} else None


def _method_like(function: ast.AST) -> bool:
    """Whether a function's first parameter is ``self`` or ``cls`` (a call hands it the rest)."""
    spec = function.args if isinstance(function, FUNCTION_TYPES) else None
    first = (*spec.posonlyargs, *spec.args)[:1] if spec is not None else ()
    return bool(first) and first[0].arg in ("self", "cls")


def _frozen_through_a_dict(ctx, function: ast.AST, name: str) -> bool:
    """Whether ``name`` is bound only from a string key of a parameter (``tnet = nets["tnet"]``)
    of a module-level function that every caller of the file hands a dict it wrote, under that
    key, a model frozen there (``nets = {"snet": snet, "tnet": tnet}`` after ``for p in
    tnet.parameters(): p.requires_grad = False``)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function not in ctx.tree.body:
        return False
    bindings = ctx.model.uses(function).bindings_of(name)
    keys = {
        (b.value.value.id, b.value.slice.value)
        for b in bindings
        if isinstance(b.value, ast.Subscript)
        and isinstance(b.value.value, ast.Name)
        and isinstance(b.value.slice, ast.Constant)
        and isinstance(b.value.slice.value, str)
    }
    if not bindings or len(keys) != 1 or len(bindings) != sum(1 for b in bindings if b.value is not None):
        return False
    ((holder, key),) = keys
    slot = _parameter_slot(function, holder, method=False)
    if slot is None or slot[0] is None or ctx.model.body_binds(function, holder):
        return False  # not a positional parameter, or one the function binds again
    sites = ctx.model.callers(function)
    if not sites:
        return False
    for site in sites:
        handed = call_argument(site.call, *slot)
        if not isinstance(handed, ast.Name):
            return False
        caller = site.frame.node if site.frame is not None else ctx.tree
        written = [b.value for b in ctx.model.uses(caller).bindings_of(handed.id)]
        if len(written) != 1 or not isinstance(written[0], ast.Dict):
            return False
        model = next(
            (v for k, v in zip(written[0].keys, written[0].values) if isinstance(k, ast.Constant) and k.value == key),
            None,
        )
        if not isinstance(model, ast.Name) or model.id not in frozen_models(ctx, caller, site.call):
            return False
    return True


def _frozen_by_every_caller(ctx, function: ast.AST, name: str) -> bool:
    """Whether ``name`` is a parameter of a module-level function that the function never
    binds and every caller of the file hands a model frozen there (``G =
    load(fp).requires_grad_(False)``, then ``generate_image(device, G, z)``)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function not in ctx.tree.body:
        return False
    slot = _parameter_slot(function, name, method=False)
    if slot is None or ctx.model.body_binds(function, name):
        return False
    sites = ctx.model.callers(function)
    if not sites:
        return False
    for site in sites:
        handed = call_argument(site.call, *slot)
        if not isinstance(handed, ast.Name):
            return False
        caller = site.frame.node if site.frame is not None else ctx.tree
        if handed.id not in frozen_models(ctx, caller, site.call):
            return False
        if given_a_layer(ctx.source.text if caller is ctx.tree else ctx.text(caller), handed.id):
            return False  # `net.classifier[6] = nn.Linear(...)` after the freeze: that layer trains
    return True


def _plain_data(ctx, scope: ast.AST, node: ast.AST, depth: int) -> bool:
    """Whether an input carries no graph: a tensor known to have none, or a name the scope binds
    only as a loop's target (``for data, target in loader``), moved or cast on the way
    (``data = data.to(device)``) or passed through a layer without parameters (``hr = pad(hr)``,
    ``nn.Upsample``); not the output of a call that may run a model."""
    grad = ctx.model.value(node).grad
    if grad is not Grad.MAYBE:
        return grad is Grad.NO
    while isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES:
            node = node.func.value
        elif len(node.args) == 1 and parameterless_layer(ctx.model.value(node.func)):
            node = node.args[0]  # `hr = padh(hr)` of an `nn.ReflectionPad2d`: no parameters, no graph of its own
        else:
            break
    if not isinstance(node, ast.Name) or depth > 3:
        return False
    # the bindings this use may see (`x = gen(x.cuda(0))` reads the loop's `x`, not its own result)
    bindings = ctx.model.definitions(node)
    return bool(bindings) and all(
        isinstance(b.node, (ast.For, ast.AsyncFor))
        or (isinstance(b.node, ast.Assign) and b.value is not None and _plain_data(ctx, scope, b.value, depth + 1))
        for b in bindings
    )


_MOVES = frozenset({"to", "cuda", "cpu", "float", "double", "half", "long", "contiguous", "view", "reshape"})


def _unchanged_through_the_loop(ctx, scope: ast.AST, node: ast.AST, loop: ast.AST, step: list) -> bool:
    """Whether an input is bound before the training loop and never in it (``content = load(path)``,
    a parameter), not by a model's call, and no backward pass of the loop keeps its graph
    (``retain_graph``): had it a graph, the loop's second backward pass would run through freed
    buffers and raise, so it carries none (a style transfer's ``vgg(content)`` each step)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MOVES:
        node = node.func.value
    if not isinstance(node, ast.Name):
        return False
    if any(
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "backward"
        and any(k.arg in ("retain_graph", None) for k in call.keywords)
        for call in step
    ):
        return False
    first, last = loop.lineno, loop.end_lineno or loop.lineno
    uses = ctx.model.uses(scope)
    if any(first <= binding.node.lineno <= last for binding in uses.bindings_of(node.id)):
        return False
    reaching = ctx.model.definitions(node)
    if not (
        all(
            isinstance(binding.node, (ast.Assign, ast.AnnAssign))
            and isinstance(binding.value, ast.Call)
            and ctx.model.value(_callee(binding.value)).kind is not Kind.MODULE
            and ctx.model.value(binding.value).grad is not Grad.YES
            and not _MADE_TO_REQUIRE_GRAD_RE.search(ctx.text(binding.value))
            for binding in reaching
        )
        if reaching
        else node.id in uses.parameters
    ):
        return False
    # not a leaf the code optimizes (`Adam([image])`): gradients reach it without any graph
    return not any(
        isinstance(sub, ast.Name) and sub.id == node.id
        for call in uses.calls
        if ctx.model.value(call).kind is Kind.OPTIMIZER
        for argument in (*call.args, *(k.value for k in call.keywords))
        for sub in walk_in_order(argument)
    )


def _optimizes_tensors_only(ctx, optimizer: ast.AST) -> bool:
    """Whether an optimizer, bound once, is given a list of tensors and nothing else
    (``Adam([target])`` over an image the code optimizes): it updates no module."""
    if not isinstance(optimizer, ast.Name):
        return False
    bindings = ctx.model.definitions(optimizer)
    if len(bindings) != 1 or not isinstance(bindings[0].value, ast.Call):
        return False
    params = call_argument(bindings[0].value, 0, "params")
    return (
        isinstance(params, (ast.List, ast.Tuple))
        and bool(params.elts)
        and all(isinstance(elt, ast.Name) and ctx.model.value(elt).kind is Kind.TENSOR for elt in params.elts)
    )


# A tensor made a leaf that requires grad: `x.clone().requires_grad_(True)`, `nn.Parameter(x)`.
_MADE_TO_REQUIRE_GRAD_RE = re.compile(r"requires_grad|Parameter\(")


def _distinct_at_every_call(ctx, function: ast.AST, name: str, updated: list, handed) -> bool:
    """Whether every caller of ``function`` hands it, for the model named ``name`` (a
    parameter), one that no name in ``updated`` (the modules an optimizer it builds updates)
    is handed as: ``train_kd(student, teacher)``, not ``train_kd(net, net)``."""
    sites = ctx.model.callers(function)
    if not sites:
        return False

    def given(site, dotted: str) -> Optional[str]:
        root, _, rest = dotted.partition(".")
        where = handed(root)
        if where is None:
            return dotted  # built inside the function
        found = dotted_name(call_argument(site.call, *where))
        return None if found is None else (found + "." + rest if rest else found)

    for site in sites:
        model = given(site, name)
        if model is None or any(given(site, other) in (None, model) for other in updated):
            return False
    return True


_AUTOGRAD_VARIABLE_RE = re.compile(r"\bfrom\s+torch\.autograd\s+import\s+Variable\b|\bautograd\.Variable\b")


def _same_or_part(name: str, other: str) -> bool:
    """Whether two dotted names are one module, or one holds the other (``model`` and
    ``model.classifier``)."""
    return _holds(name, other) or _holds(other, name)


def _untrained_teacher(ctx, scope: ast.AST, call: ast.Call) -> bool:
    """Whether a backpropagated call runs a model that no optimizer of the step trains (a
    distillation teacher: ``teacher.eval()``, then ``teacher(data)`` beside the student's
    ``optimizer.step()``): every optimizer the scope steps updates known modules, none of them
    the one called (``SGD(student.parameters())``, handed in by every caller; a model the scope
    builds itself, ``copy.deepcopy(model)``, is in no optimizer handed in), the call's inputs
    carry no graph (not a perceptual loss's ``vgg(fake)``, whose gradient the generator needs)
    and the scope reads no gradient (``p.grad``: saliency, Fisher information)."""
    target = _callee(call)
    name = dotted_name(target)
    if name is None:
        return False
    own = ctx.model.own_nodes(scope)
    text = ctx.source.text if scope is ctx.tree else ctx.text(scope)
    # `torch.autograd.grad(...)` and the like; not the legacy `Variable` an old script imports
    # from there (`from torch.autograd import Variable`)
    if any(isinstance(node, ast.Attribute) and node.attr == "grad" for node in own) or (
        "autograd" in text and "autograd" in _AUTOGRAD_VARIABLE_RE.sub("", text)
    ):
        return False
    loop = next((s for s in ctx.model.enclosing(call) if isinstance(s, (ast.For, ast.AsyncFor, ast.While))), None)
    if loop is None:
        return False  # not a training step's input: a target computed once, before the loop
    step = [node for node in walk_in_order(loop) if isinstance(node, ast.Call)]
    if not all(
        _plain_data(ctx, scope, arg, 0) or _unchanged_through_the_loop(ctx, scope, arg, loop, step)
        for arg in (*call.args, *(k.value for k in call.keywords))
    ):
        return False
    optimizers = [found for node in step for found in [stepped_optimizer(ctx, node)] if found]
    if not optimizers or not any(isinstance(n.func, ast.Attribute) and n.func.attr == "backward" for n in step):
        return False
    method = _method_like(scope)

    def handed(root: str) -> Optional[tuple]:
        """(position, keyword) of a parameter the body never rebinds; None for other names."""
        slot = _parameter_slot(scope, root, method)
        return None if slot is None or ctx.model.body_binds(scope, root) else slot

    teacher_root = name.split(".")[0]
    teacher_param = handed(teacher_root) if teacher_root != "self" else None
    if teacher_param is None and teacher_root != "self":
        # a model the function builds (`copy.deepcopy(model)`, `Net()`, loaded), never an alias
        bindings = ctx.model.uses(scope).bindings_of(teacher_root)
        if not bindings or not all(isinstance(b.value, ast.Call) for b in bindings):
            return False
    for optimizer in optimizers:
        root = dotted_name(optimizer)
        # (`self.optimizer` of a trainer class: what it updates, not the method's `self`)
        optimizer_param = handed(root.split(".")[0]) if root is not None and not root.startswith("self.") else None
        if optimizer_param is None:
            value = ctx.model.value(optimizer)
            if not value.ref and _optimizes_tensors_only(ctx, optimizer):
                continue  # `Adam([image])`: a style transfer's image, no module
            if not value.ref or any(_same_or_part(name, updated) for updated in value.ref.split("+")):
                return False  # `AdamW(model.classifier.parameters())` trains a part of `model`
            if teacher_param is not None and not _distinct_at_every_call(
                ctx, scope, name, value.ref.split("+"), handed
            ):
                return False  # `train(net, net)`: the student may be the teacher
            continue
        if teacher_param is None and teacher_root != "self":
            continue  # built here: in no optimizer made before the call
        sites = ctx.model.callers(scope)
        if not sites or teacher_param is None:
            return False
        for site in sites:
            given = call_argument(site.call, *optimizer_param)
            model = call_argument(site.call, *teacher_param)
            value = ctx.model.value(given) if given is not None else None
            if value is None or value.kind is not Kind.OPTIMIZER or not value.ref or dotted_name(model) is None:
                return False
            if dotted_name(model) in value.ref.split("+"):
                return False
    return True


def _feeds_a_hooked_loss(ctx, call: ast.Call) -> bool:
    """A call whose result is dropped, in a file that registers forward hooks, followed in its
    loop by a backward pass: the hook hands the graph to that loss (``model(x)``, then
    ``objective = -activations[:, k].sum(); objective.backward()``, optimizing the input)."""
    if type(ctx.parent(call)) is not ast.Expr or "register_forward_hook" not in ctx.source.text:
        return False
    if not ctx.loops:
        return False
    loop = ctx.loops[-1]  # the innermost
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr == "backward"
        and (sub.lineno, sub.col_offset) > (call.lineno, call.col_offset)
        for sub in walk_in_order(loop)
    )


def _loads_or_trains(value: ast.Call, ctx=None) -> bool:
    """Whether a module's construction loads or trains it, anywhere in its chain of calls:
    ``load_model(path)``, ``torch.load(path)["generator"].to(device)``, ``train_net(get_net())``,
    ``Net.from_pretrained(name)``, ``Net(weights=...)`` (not ``Net(emb_weights=w)`` where ``ctx``'s
    model shows ``w`` holds None)."""
    node: ast.AST = value
    while True:
        if isinstance(node, ast.Call):
            func = node.func
            last = callee_name(node)
            if (
                "load" in last.lower()
                or last.lower().startswith(("train", "fit"))  # `net = train_net(get_net(), ...)`
                or last == "from_pretrained"
                or any(
                    _loading_keyword(k.arg)
                    and not (isinstance(k.value, ast.Constant) and k.value.value in (False, None))
                    and not (
                        ctx is not None and isinstance(k.value, ast.Name) and ctx.model.value(k.value).kind is Kind.NONE
                    )
                    for k in node.keywords
                )  # `pretrained=True`, `weights=...`, `checkpoint_name=path`; not `pretrained=False`
            ):
                return True
            node = func.value if isinstance(func, ast.Attribute) else func
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return False


_DUMMY_FACTORIES = frozenset(f"torch.{name}" for name in SHAPE_FACTORIES)
# Inputs a demo makes up: the shape factories, and numbers drawn or counted out on the spot.
_MADE_UP_FACTORIES = _DUMMY_FACTORIES | frozenset(
    f"torch.{name}"
    for name in ("normal", "randint", "randperm", "arange", "linspace", "eye", "rand_like", "randn_like")
)


# A run timed or profiled around a call: the graph is part of what is measured.
_TIMING_RE = re.compile(r"\btime\.(?:time|perf_counter|monotonic)\b|\bperf_counter\(|timeit|[Pp]rofile")


def _read_for_shape_only(ctx, call: ast.Call) -> bool:
    """Whether the call's result, bound to a name (or unpacked into names: ``out, hidden =
    m(x)``), is read afterwards in its scope, until the name is bound again, only for its shape
    (``out.shape``, ``out.size()``, ``out.dtype``, ``len(out)``); in a loop, the name is bound
    nowhere else after it; and the lines from just before the call to the last read time nothing."""
    names = _bound_names(ctx, call)
    if not names:
        return False
    scope = ctx.function if ctx.function is not None else ctx.tree
    assignment = ctx.parent(call)
    after = (assignment.end_lineno or 0, assignment.end_col_offset or 0)
    uses = []
    for name in names:
        named = sorted(
            (
                node
                for node in ctx.model.own_nodes(scope)
                if type(node) is ast.Name and node.id == name and (node.lineno, node.col_offset) > after
            ),
            key=lambda node: (node.lineno, node.col_offset),
        )
        reads = []
        for node in named:
            if not isinstance(node.ctx, ast.Load):
                break  # bound again (`out = model(x)` of a later cell): its reads are another value's
            reads.append(node)
        if not reads or (ctx.loops and any(isinstance(n.ctx, ast.Store) for n in named)):
            return False
        uses.extend(reads)
    last = max(use.lineno for use in uses)
    starts = ctx.source.line_starts  # the lines from two before the call to the last read
    start = starts[max(call.lineno - 3, 0)]
    end = starts[last] if last < len(starts) else len(ctx.source.text)
    if _TIMING_RE.search(ctx.source.text, start, end) is not None:
        return False  # `start = time.time()`, ..., `print(time.time() - start, out.shape)`: its cost is measured
    for use in uses:
        parent = ctx.parent(use)
        if isinstance(parent, ast.Attribute) and parent.attr in ("shape", "dtype", "ndim", "device"):
            continue
        if (
            isinstance(parent, ast.Attribute)
            and parent.attr in ("size", "dim")
            and isinstance(ctx.parent(parent), ast.Call)
        ):
            continue
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len":
            continue
        return False
    return True


def _bound_names(ctx, call: ast.AST) -> list:
    """The names a call's result is bound to: one (``out = net(x)``) or a flat tuple of them
    (``out, hidden = rnn(x, h)``); [] for any other target."""
    name = _bound_name(ctx, call)
    if name is not None:
        return [name]
    parent = ctx.parent(call)
    if (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Tuple)
        and all(isinstance(elt, ast.Name) for elt in parent.targets[0].elts)
    ):
        return [elt.id for elt in parent.targets[0].elts if elt.id != "_"]  # type: ignore[attr-defined]
    return []


def _shape_probe_once(ctx, call: ast.Call) -> bool:
    """Whether the call runs in a loop that stops after its first round (its body ends with
    ``break``) and its result, bound to a name, is read there for its shape alone
    (``output = net(imgs)``, ``print(output.shape)``, ``break``): a check of the model's shapes on
    one batch, not an evaluation."""
    name = _bound_name(ctx, call)
    if name is None:
        return False
    loop = next((a for a in ctx.ancestors(call) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))), None)
    if loop is None or not loop.body or not isinstance(loop.body[-1], ast.Break):
        return False
    assignment = ctx.parent(call)
    uses = [
        node
        for statement in loop.body
        for node in walk_in_order(statement)
        if isinstance(node, ast.Name)
        and node.id == name
        and isinstance(node.ctx, ast.Load)
        and (node.lineno, node.col_offset) > (assignment.end_lineno or 0, assignment.end_col_offset or 0)
    ]
    return bool(uses) and all(
        isinstance(parent := ctx.parent(use), ast.Attribute) and parent.attr in ("shape", "size", "dtype", "ndim")
        for use in uses
    )


def _dummy_input(ctx, call: ast.Call) -> bool:
    """Whether every input of a call is made on the spot by a torch factory
    (``net(torch.zeros(1, *shape))``): a probe of the model's shapes, not an evaluation."""
    return bool(call.args) and all(
        isinstance(arg, ast.Call) and ctx.imports.qualified_name(arg.func) in _DUMMY_FACTORIES for arg in call.args
    )


def _test_or_demo(ctx, callee, call: ast.Call) -> bool:
    """Whether a call runs a module built in its scope and never trained or loaded there
    (``_fresh_module``) in a unit test of it, or as a demo of the outputs of an untrained class
    (``_demo_of_own_class``) on made-up inputs, shown, kept or thrown away untimed (not a call run
    for its cost alone, ``model(x)`` timed or profiled: the graph costs there), or runs the model a
    ``unittest.TestCase`` builds in ``setUp`` in one of its tests (``_built_in_set_up``)."""
    if _built_in_set_up(ctx, call) and _unit_test(ctx, ctx.function):
        return True
    return _fresh_module(ctx, call) and (
        _unit_test(ctx, ctx.function)
        # a helper of a test file (`create_and_check_xlnet_base_model` of a model tester class,
        # called by the `test_*` methods): it checks the outputs of a model it builds
        or (ctx.function is not None and _in_test_file(ctx))
        or (
            _demo_of_own_class(ctx, callee, call)
            and _made_up_input(ctx, call)
            and (not _thrown_away(ctx, call) or _displayed(ctx, call) or not _timed_here(ctx))
        )
    )


def _timed_here(ctx) -> bool:
    """Whether the call's function (or the script, outside functions) times or profiles
    something: a call whose output it throws away may be run for its cost, graph included
    (an untimed `actor(torch.from_numpy(np.array([[1, 2]])))` is a check that it runs)."""
    scope = ctx.function
    text = ctx.text(scope) if scope is not None else ctx.source.text
    return _TIMING_RE.search(text) is not None


def _built_in_set_up(ctx, call: ast.Call) -> bool:
    """Whether a call runs ``self.model`` (or a part of it) that the class's ``setUp`` builds by a
    call and loads nothing into (``self.model = UNet(3, 1)``): the model a unit test tests."""
    target = call.func
    while isinstance(target, ast.Attribute) and not (isinstance(target.value, ast.Name) and target.value.id == "self"):
        target = target.value
    cls = ctx.method_class
    if not isinstance(target, ast.Attribute) or cls is None:
        return False
    for method in cls.body:
        if isinstance(method, FUNCTION_TYPES) and method.name == "setUp" and "load" not in ctx.text(method):
            return any(
                isinstance(statement, ast.Assign)
                and isinstance(statement.value, ast.Call)
                and any(ctx.text(t) == f"self.{target.attr}" for t in statement.targets)
                for statement in method.body
            )
    return False


def _demo_of_own_class(ctx, callee, call: ast.Call) -> bool:
    """Whether the model is an instance of a class of the file (or of another file of the run,
    or a torch layer) in a file that never backpropagates, or the file's only instance of the
    file's class: a demo of the code (an
    assignment's untrained generator shown for a few inputs; `model = NetBN().eval()` beside
    other models that train), not an evaluation of a model."""
    if (callee.ref or "").startswith("torch.nn."):
        # a torch layer shown at work (`layer = nn.BatchNorm2d(16)`, `layer.eval()`) in a file
        # that never backpropagates: a demo of what the layer does
        return _code_lacks(ctx, "backward(")
    if (callee.ref or "").startswith("torchvision.models."):
        # a torchvision model built here without weights (`rn18 = resnet18()`, profiled), not a
        # trace of one (`torch.jit.trace(model, x)` of a pretrained model), in a file that never
        # backpropagates
        return _code_lacks(ctx, "backward(") and _built_by_its_class(ctx, call)
    fact = ctx.model.run_class_fact(callee)
    if fact is not None:
        # a class of another file of the run whose `__init__` loads nothing, built here, in a
        # file that never backpropagates (a test script of the project's model)
        return (
            fact.module and not fact.loads_weights and _code_lacks(ctx, "backward(") and _built_by_its_class(ctx, call)
        )
    info = ctx.model.class_info(callee.ref) if callee.ref else None
    if info is None:
        return _untrained_library_module(ctx, call)
    if not info.is_module:
        return False
    if _code_lacks(ctx, "backward("):
        return True
    text = _code_text(ctx)
    # the class's one instance (its `class X(` line aside): no other one trains in its place
    name = getattr(info.node, "name", "")
    return sum(1 for at in code_occurrences(text, f"{name}(") if not text.endswith("class ", 0, at)) == 1


# Keywords of a constructor that may give a library's model trained weights.
_WEIGHT_KEYWORDS = ("pretrain", "weight", "checkpoint", "ckpt", "path")


def _untrained_library_module(ctx, call: ast.Call) -> bool:
    """Whether the module a call runs is bound, everywhere in the scope, to a class of an
    imported library (not torch's) built from sizes alone, in a file that never
    backpropagates: ``encoder = d2l.Seq2SeqEncoder(vocab_size=10, embed_size=8, ...)`` shown at
    work in a book's chapter. Not where a constructor is given text (a path, a model's name:
    ``YOLO("best.pt")``) or a keyword for weights (``pretrained=True``)."""
    if not isinstance(call.func, ast.Name) or not _code_lacks(ctx, "backward("):
        return False
    bindings = ctx.model.uses(ctx.function if ctx.function is not None else ctx.tree).bindings_of(call.func.id)

    def untrained(value: Optional[ast.AST]) -> bool:
        if not isinstance(value, ast.Call):
            return False
        qualified = ctx.imports.qualified_name(value.func)
        if qualified is None or qualified.startswith("torch.") or not qualified.rsplit(".", 1)[-1][:1].isupper():
            return False
        arguments = [*value.args, *(k.value for k in value.keywords)]
        text = any(
            isinstance(a, ast.JoinedStr) or (isinstance(a, ast.Constant) and isinstance(a.value, str))
            for a in arguments
        )
        weights = any(k.arg is None or any(word in k.arg.lower() for word in _WEIGHT_KEYWORDS) for k in value.keywords)
        return not text and not weights

    return bool(bindings) and all(untrained(b.value) for b in bindings)


_NAME_BEFORE_RE = re.compile(r"(?<![\w.])(\w+)$")
_ASSIGNED_BEFORE_RE = re.compile(r"(?<![\w.])(\w+)[ \t]*=[ \t]*$")


def _checkpoint_loads(ctx) -> dict:
    """Name -> offsets where the file's code gives the module it holds weights from a file
    (``AE.load_state_dict(...)``, ``G = torch.load(path)``), found once per file."""
    state = ctx.state(_State)
    if state.checkpoint_loads is None:
        text = ctx.source.text  # a match in a string spanning lines is dropped where it is used
        found: dict = {}
        for needle, before in (
            (".load_state_dict(", _NAME_BEFORE_RE),
            (".load_weights(", _NAME_BEFORE_RE),
            ("torch.load(", _ASSIGNED_BEFORE_RE),
            ("torch.jit.load(", _ASSIGNED_BEFORE_RE),
        ):
            at = text.find(needle)
            while at >= 0:
                line_start = text.rfind("\n", 0, at) + 1
                match = before.search(text, line_start, at)
                if match is not None and in_code(text, match.start()):
                    found.setdefault(match.group(1), []).append(match.start())
                at = text.find(needle, at + len(needle))
        project = current_project()
        loading = (
            project.spellings(ctx.filename, ctx.imports.names, project.loading_functions) if project is not None else ()
        )
        for call in loading:
            # `model = model_selector.get_checkpoint_resnet(path)`: a function of the run that loads
            # the weights and hands the model back
            for match in re.finditer(rf"(?<![\w.])(\w+)(?:[ \t]*:[^=\n]+)?[ \t]*=[ \t]*{re.escape(call)}\(", text):
                if in_code(text, match.start()):
                    found.setdefault(match.group(1), []).append(match.start())
        # `load_model_optimizer("g.pth", gener, opt)`: a function of the file or of the run loading
        # the model it is handed
        into = {
            node.name: loaded
            for node in ctx.tree.body
            if isinstance(node, FUNCTION_TYPES)
            and ".load_state_dict(" in ctx.text(node)
            and (loaded := loaded_parameter(node)) is not None
        }
        if project is not None and project.argument_loading_functions:
            run = project.argument_loading_functions
            for local, (module, function) in project.spelled_functions(ctx.filename, ctx.imports.names, run).items():
                into.setdefault(local, run[module][function])
        if into:
            for node in walk_in_order(ctx.tree):
                if isinstance(node, ast.Call) and (loaded := into.get(dotted_name(node.func) or "")) is not None:
                    model = call_argument(node, *loaded)
                    if isinstance(model, ast.Name):
                        found.setdefault(model.id, []).append(ctx.source.node_start(node))
        state.checkpoint_loads = found
    return state.checkpoint_loads


def _loaded_from_checkpoint(ctx, call: ast.Call) -> Optional[int]:
    """The line where the module a call of a script's own code runs (``AE(img)``,
    ``vae.decoder(z)``) is given weights from a file earlier in that code,
    ``AE.load_state_dict(torch.load(path))`` or ``G = torch.load(path)``; None where no such
    line shows. In a function, only for a module-level name the function does not bind, loaded
    at module level, in a function that shows what it computes (``plt.show()``) of a file that
    uses no gradients anywhere (elsewhere its callers decide what it is run for)."""
    callee = call.func
    if isinstance(callee, ast.Attribute):
        callee = callee.value
    if not isinstance(callee, ast.Name):
        return None
    offsets = _checkpoint_loads(ctx).get(callee.id)
    if not offsets:
        return None
    if ends_in_metadata(call, ctx.parent):
        return None  # `print(model(x).size())`: a shape probe
    function = ctx.function
    src = ctx.source
    if function is not None and (
        "show" not in src.text[src.node_start(function) : src.node_end(function)]
        or ctx.model.uses(function).bindings_of(callee.id)
        or not ctx.model.scopes.module.binds(callee.id)
        or _function_uses_grad(ctx, ctx.tree)  # the whole file's code
    ):
        return None
    # the script's own loads: not a function's (its `model` is its own), not a docstring's example
    loads = _module_level_loads(ctx, callee.id)
    if function is None:
        loads = loads[: bisect.bisect_left(loads, src.node_start(call))]  # before the call
    before = loads[-1] if loads else None
    if before is None or _thrown_away(ctx, call) or _handed_to_backpropagation(ctx, call):
        return None  # `model(get_test_input(dim))` alone: a warm-up, whose graph is freed at once
    return bisect.bisect_right(src.line_starts, before)


def _module_level_loads(ctx, name: str) -> list:
    """The sorted offsets of ``_checkpoint_loads(ctx)[name]`` in the file's module-level
    code: outside every function and every multi-line string. Found once per name."""
    state = ctx.state(_State)
    if state.module_level_loads is None:
        state.module_level_loads = {}
    found = state.module_level_loads.get(name)
    if found is None:
        src = ctx.source
        code = _code_text(ctx)
        if state.function_spans is None:
            outermost: list = []  # functions nest, so the outermost spans cover them all
            for start, end in sorted(
                (src.node_start(node), src.node_end(node))
                for node in walk_in_order(ctx.tree)
                if isinstance(node, FUNCTION_TYPES)
            ):
                if not outermost or start >= outermost[-1][1]:
                    outermost.append((start, end))
            state.function_spans = outermost
        spans = state.function_spans
        starts = [start for start, _ in spans]
        found = []
        for at in sorted(_checkpoint_loads(ctx).get(name, ())):
            index = bisect.bisect_right(starts, at) - 1
            if code[at] == src.text[at] and not (index >= 0 and at < spans[index][1]):
                found.append(at)
        state.module_level_loads[name] = found
    return found


def _handed_to_backpropagation(ctx, call: ast.Call) -> bool:
    """Whether the script hands what a call returns (or what it computes from it) to a
    function of the file or of another file of the run that backpropagates its argument
    (``plotutils.show_next_word(scores)`` whose body calls ``scores.sum().backward()``)."""
    statement = _statement(ctx, call)
    uses = ctx.model.uses(ctx.tree)
    names: set = set()
    for binding in uses.bindings:
        if binding.node is statement:
            names |= uses.derived(binding.name)
    if not names:
        return False
    for other in uses.calls:
        if not any(
            isinstance(arg, ast.Name) and arg.id in names for arg in (*other.args, *(k.value for k in other.keywords))
        ):
            continue
        func = other.func
        name = func.id if isinstance(func, ast.Name) else ctx.imports.qualified_name(func)
        read = _parameters_read(ctx, name) if name else None
        if read is not None and read[2]:
            return True
    return False


def _built_by_its_class(ctx, call: ast.Call) -> bool:
    """Whether the module a call runs is bound, everywhere in the scope, to a call of a class
    of the run (``en_de = EncoderDecoder(encoder, decoder)``), not to what torch makes of
    another module (``torch.jit.trace(model, example)`` of a module handed in)."""
    if not isinstance(call.func, ast.Name):
        return False
    bindings = ctx.model.uses(ctx.function if ctx.function is not None else ctx.tree).bindings_of(call.func.id)
    return bool(bindings) and all(
        isinstance(b.value, ast.Call)
        and not (ctx.imports.qualified_name(b.value.func) or "").startswith("torch.")
        and ctx.model.value(b.value).kind is Kind.MODULE
        for b in bindings
    )


def _unpacked(binding, name: str) -> ast.AST:
    """The part of a binding's value a name takes: ``torch.tensor([3, 2])`` for ``valid_lens``
    in ``num_kvpairs, valid_lens = 6, torch.tensor([3, 2])``; the value itself otherwise."""
    node, value = binding.node, binding.value
    if isinstance(node, ast.Assign) and isinstance(value, ast.Tuple) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Tuple) and len(target.elts) == len(value.elts):
            for element, part in zip(target.elts, value.elts):
                if isinstance(element, ast.Name) and element.id == name:
                    return part
    return value


def _made_up_input(ctx, call: ast.Call, depth: int = 0, any_module: bool = False) -> bool:
    """Whether every input of a call is made up by a torch factory (``torch.randn(5, 5) + 1``),
    on the spot or through a name the scope binds only to such values (a loop's name to the
    rows of one: ``for tmp in torch.randn(10, 1, 26, 26): model(tmp.unsqueeze(0))``), or to what
    a module built there and never trained makes of them (``outputs, hiddens = encoder(x)``,
    then ``decoder(y, hiddens)``): an example of the model's code at work, not data of a split,
    whatever the name (``test_example``). ``any_module``: what any module makes of made-up
    values counts too (``z = encoder(x)``, then ``decoder(z)``, in a shape check of modules handed
    in)."""
    if not call.args:
        return False
    tensors = 0
    for arg in call.args:
        if ctx.model.value(arg).kind is Kind.NUMBER:
            continue  # `e(x, stack)`, `stack` of a `range`: a setting, not data
        tensors += 1
        base = _kept_base(arg)
        if isinstance(base, ast.Name):
            if not _name_made_up(ctx, call, base.id, depth, any_module=any_module):
                return False
        elif not _factory_made(ctx, arg):
            return False
    return tensors > 0


def _kept_base(expr: ast.AST) -> ast.AST:
    """``tmp`` in ``tmp.unsqueeze(0).to(device)``: what a chain of ``_MADE_UP_KEEPING`` methods
    is called on."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _MADE_UP_KEEPING:
        expr = expr.func.value
    return expr


def _name_made_up(ctx, call: ast.Call, name: str, depth: int, loop_depth: int = 0, any_module: bool = False) -> bool:
    """Whether every binding of ``name`` that may reach ``call`` gives it made-up values
    (``_made_up_input``)."""
    uses = ctx.model.uses(ctx.function if ctx.function is not None else ctx.tree)
    bindings = uses.bindings_of(name)
    if ctx.function is None:
        bindings = _reaching_in_order(ctx, call, bindings)
    if not bindings:
        return False
    for b in bindings:
        if b.value is None:
            return False
        if isinstance(b.node, (ast.For, ast.AsyncFor)):
            # a loop's name takes the rows of what it iterates: made up where that is
            iterated = _kept_base(b.value)
            if not (
                _factory_made(ctx, b.value)
                or (
                    not loop_depth
                    and isinstance(iterated, ast.Name)
                    and _name_made_up(ctx, call, iterated.id, depth, loop_depth + 1)
                )
            ):
                return False
            continue
        value = _unpacked(b, name)
        parts = value.elts if isinstance(value, (ast.List, ast.Tuple)) and not _empty_state(value) else [value]
        # a decoder's state made of such parts (`[encoder_blk(X, valid_lens), valid_lens, [None]]`)
        if not all(
            _factory_made(ctx, part)
            or (
                part is not value
                and isinstance(part, ast.Name)
                and not loop_depth
                and _name_made_up(ctx, call, part.id, depth, loop_depth + 1)
            )
            or (
                not depth
                and isinstance(part, ast.Call)
                and (any_module or _fresh_module(ctx, part))
                and _made_up_input(ctx, part, depth + 1)
            )
            for part in parts
        ):
            return False
    return True


def _reaching_in_order(ctx, call: ast.Call, bindings: list) -> list:
    """Of a script's bindings of a name, those that can reach ``call`` as its statements run in
    order: the last one before the call when it is a top-level statement (a notebook's `X_test =
    torch.tensor([5.0])`, not the split a later cell binds to the name), every one before it
    otherwise, and every one at all when a loop around the call binds the name again."""
    before = [b for b in bindings if b.node.lineno < call.lineno]
    if len(before) < len(bindings):
        loops = [a for a in ctx.ancestors(call) if isinstance(a, (ast.For, ast.AsyncFor, ast.While))]
        end = max((ctx.source.node_end(loop) for loop in loops), default=-1)
        if any(ctx.source.node_start(b.node) < end for b in bindings if b.node.lineno >= call.lineno):
            return bindings
    if before and before[-1].node in ctx.tree.body:
        return before[-1:]
    return before


def _factory_made(ctx, expr: ast.AST, depth: int = 0) -> bool:
    """``torch.randn(5, 5)``, ``torch.randn(10, z) * 10 + 1``, ``torch.zeros(1, 3).to(device)``, or
    a call of a function of the file that returns only such values or a tensor of random numbers
    (``get_noise(n, z_dim)``; ``torch.Tensor(truncnorm.rvs(...))``)."""
    while True:
        if isinstance(expr, ast.BinOp) and isinstance(expr.right, ast.Constant):
            expr = expr.left
        elif isinstance(expr, ast.BinOp) and isinstance(expr.left, ast.Constant):
            expr = expr.right
        elif (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in _MADE_UP_KEEPING
            and ctx.imports.qualified_name(expr.func) is None
        ):
            expr = expr.func.value
        else:
            break
    if _empty_state(expr):
        return True  # `state = [None, None, [None]]`: a demo's empty decoder state
    if not isinstance(expr, ast.Call):
        return False
    qualified = ctx.imports.qualified_name(expr.func)
    if qualified in _MADE_UP_FACTORIES:
        return True
    if qualified in _TENSOR_FROM_DATA and expr.args and _literal(expr.args[0]):
        return True  # `valid_lens = torch.tensor([3, 2])`: numbers written in the code
    if qualified in _TENSOR_FROM_DATA and len(expr.args) == 1 and isinstance(expr.args[0], ast.Call):
        source = expr.args[0]
        made_by = ctx.imports.qualified_name(source.func) or ""
        if made_by in ("numpy.array", "numpy.asarray") and source.args and _literal(source.args[0]):
            return True  # `torch.from_numpy(np.array([[1, 2]], dtype="float32"))`: numbers written in the code
        if made_by.startswith(_RANDOM_SOURCES):
            return True  # `torch.tensor(np.random.normal(size=[2, 100]))`: numpy's random numbers
    if depth or qualified is not None or not isinstance(expr.func, ast.Name):
        return False
    definitions = ctx.model.scopes.module.definitions.get(expr.func.id, ())
    if len(definitions) != 1 or not isinstance(definitions[0], ast.FunctionDef):
        return False
    returns = [sub.value for sub in ctx.model.own_nodes(definitions[0]) if isinstance(sub, ast.Return)]
    return bool(returns) and all(
        value is not None and (_factory_made(ctx, value, depth + 1) or _random_tensor(ctx, value, definitions[0]))
        for value in returns
    )


def _random_tensor(ctx, expr: ast.AST, function: ast.FunctionDef) -> bool:
    """``torch.Tensor(noise)`` where the function binds ``noise`` to random numbers of numpy or
    scipy (``truncnorm.rvs(...)``, ``np.random.randn(...)``)."""
    if not (
        isinstance(expr, ast.Call)
        and ctx.imports.qualified_name(expr.func) in _TENSOR_FROM_DATA
        and len(expr.args) == 1
        and isinstance(expr.args[0], ast.Name)
    ):
        return False
    bindings = ctx.model.uses(function).bindings_of(expr.args[0].id)
    return bool(bindings) and all(
        isinstance(binding.value, ast.Call)
        and (ctx.imports.qualified_name(binding.value.func) or "").startswith(_RANDOM_SOURCES)
        for binding in bindings
    )


_TENSOR_FROM_DATA = frozenset({"torch.Tensor", "torch.tensor", "torch.from_numpy", "torch.FloatTensor"})


def _empty_state(expr: ast.AST) -> bool:
    """A list or tuple of ``None`` (nested): ``[None, None, [None]]``."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        return bool(expr.elts) and all(_empty_state(elt) for elt in expr.elts)
    return isinstance(expr, ast.Constant) and expr.value is None


def _literal(expr: ast.AST) -> bool:
    """Numbers written in the code: ``3``, ``[3, 2]``, ``[[1, 0], [0, 1]]``, ``-1.5``."""
    if isinstance(expr, (ast.List, ast.Tuple)):
        return bool(expr.elts) and all(_literal(elt) for elt in expr.elts)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        expr = expr.operand
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)


_RANDOM_SOURCES = ("numpy.random.", "scipy.stats.")


# Methods after which a made-up tensor is still made up (moved, cast, reshaped).
_MADE_UP_KEEPING = frozenset(
    {
        "to",
        "cuda",
        "float",
        "double",
        "half",
        "unsqueeze",
        "view",
        "reshape",
        "repeat",
        "expand",
        "permute",
        "transpose",
    }
)


_LAYER_LISTS = frozenset({"children", "modules", "named_children", "named_modules"})


# Calls that give a module holding another module's weights.
_MODULE_COPIES = frozenset({"torch.jit.trace", "torch.jit.script", "copy.deepcopy"})


def _copy_after_training(ctx, value: ast.AST, line: int) -> bool:
    """``traced_model = torch.jit.trace(model, example)`` (or ``torch.jit.script(model)``,
    ``copy.deepcopy(model)``) where the code before that line runs a backward pass or an
    optimizer step: the copy holds trained weights, not new ones (an untrained module traced for
    a demo stays one)."""
    if not (
        isinstance(value, ast.Call)
        and value.args
        and isinstance(value.args[0], ast.Name)
        and ctx.imports.qualified_name(value.func) in _MODULE_COPIES
    ):
        return False
    src = ctx.source
    return _STEP_RE.search(src.text, 0, src.line_starts[line - 1]) is not None


def _made_of_layers_of_another(value: ast.AST) -> bool:
    """``nn.Sequential(*list(model.children())[:1])``: a module made of another one's layers
    (a trained or pretrained model's, its features reused), not a new one."""
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and sub.func.attr in _LAYER_LISTS
        and isinstance(sub.func.value, (ast.Name, ast.Attribute))  # not `Net().children()`: a new one's
        for sub in walk_in_order(value)
    )


# Values of a phase variable that name training (`phase == "train"`), and names of a flag that
# says the pass trains (`if is_train:`).
_TRAINING_PHASES = frozenset({"train", "training", "Train", "Training", "TRAIN", "TRAINING", "trn"})
_TRAINING_FLAGS = frozenset({"train", "training", "is_train", "is_training", "train_mode", "training_mode"})


def _phase_compared(test: ast.AST) -> Optional[object]:
    """The constant a name is compared with by ``==`` (``phase == "train"``, ``"val" == mode``)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    sides = (test.left, test.comparators[0])
    if not any(isinstance(side, ast.Name) for side in sides):
        return None
    return next((side.value for side in sides if isinstance(side, ast.Constant)), None)


# Names of a flag that says the pass evaluates (`if is_test: model.eval()`).
_EVALUATION_FLAGS = frozenset(
    {"is_test", "is_eval", "is_val", "is_valid", "is_validation", "eval_mode", "test_mode", "evaluate", "evaluation"}
)


def _training_phase_test(test: ast.AST) -> bool:
    """``phase == "train"``, ``"train" == mode``, ``is_train``, ``not is_test``, or a conjunction
    holding one (``not is_test and optimizer is not None``): the test of a training phase."""
    if isinstance(test, ast.Name):
        return test.id in _TRAINING_FLAGS
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id in _EVALUATION_FLAGS
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_training_phase_test(value) for value in test.values)
    phases = _phases_compared(test)
    if phases is not None:
        return not phases[1].isdisjoint(_TRAINING_PHASES)
    return _phase_compared(test) in _TRAINING_PHASES


def _phases_compared(test: ast.AST) -> Optional[tuple]:
    """(name, the constants) of a test of one name against several phases, ``mode == "train" or
    mode == "train+log"``; None for any other test."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)):
        return None
    names = set()
    constants = set()
    for value in test.values:
        constant = _phase_compared(value)
        if not isinstance(constant, str):
            return None
        names.update(side.id for side in (value.left, value.comparators[0]) if isinstance(side, ast.Name))  # type: ignore[attr-defined]
        constants.add(constant)
    return (names.pop(), frozenset(constants)) if len(names) == 1 else None


def _evaluation_phase_run_without_grad(ctx, function: ast.AST, test: ast.expr, name: str) -> bool:
    """Whether every call of ``function`` (whose phase its parameter ``name`` selects, tested by
    ``test``) runs with grad disabled, except those that hand it the training phase
    (``step("train", ...)`` beside ``with torch.no_grad(): step("val", ...)``)."""
    slot = _parameter_slot(function, name, _method_like(function))
    sites = ctx.model.callers(function) if slot is not None else None
    if not sites:
        return False
    for site in sites:
        if site.state.mode is not GradMode.ENABLED:
            continue
        given = call_argument(site.call, *slot)  # type: ignore[misc]
        if (
            given is None
            and not any(k.arg is None for k in site.call.keywords)
            and not any(isinstance(a, ast.Starred) for a in site.call.args)
        ):
            given = parameter_defaults(function).get(name)  # left out: its default
        if not (isinstance(given, ast.Constant) and _phase_test_holds(test, name, given.value) is True):
            return False  # a phase other than training, or one not known, with grad enabled
    return True


def _phase_test_holds(test: ast.expr, name: str, value: object) -> Optional[bool]:
    """Whether a training-phase test of the name ``name`` holds where it has the constant
    ``value`` (``mode == "train"`` for ``"train"``; ``is_train`` for True; ``optimizer is not
    None`` for None), or None where the test says something else."""
    if isinstance(test, ast.Name) and test.id == name:
        return bool(value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _phase_test_holds(test.operand, name, value)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_phase_test_holds(part, name, value) for part in test.values]
        if any(part is None for part in parts):
            return None
        return any(parts) if isinstance(test.op, ast.Or) else all(parts)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(right, ast.Name) and right.id == name and isinstance(op, (ast.Eq, ast.NotEq)):
            left, right = right, left
        if not (isinstance(left, ast.Name) and left.id == name):
            return None
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
            return (value == right.value) is isinstance(op, ast.Eq)
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            return (value is None) is isinstance(op, ast.Is)
        if (
            isinstance(op, (ast.In, ast.NotIn))
            and isinstance(right, (ast.Tuple, ast.List, ast.Set))
            and all(isinstance(e, ast.Constant) for e in right.elts)
        ):
            return (value in [e.value for e in right.elts]) is isinstance(op, ast.In)  # type: ignore[attr-defined]
    return None


def _phase_name(test: ast.AST) -> Optional[str]:
    """The name a training-phase test reads (``mode`` in ``mode == "train"``, ``is_train``,
    ``is_test`` in ``not is_test``), for a test of that one name."""
    if isinstance(test, ast.Name):
        return test.id
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id
    if isinstance(test, ast.Compare) and _phase_compared(test) is not None:
        return next((side.id for side in (test.left, test.comparators[0]) if isinstance(side, ast.Name)), None)
    phases = _phases_compared(test)
    if phases is not None:
        return phases[0]
    return _given_name(test)


def _given_name(test: ast.AST) -> Optional[str]:
    """The name ``x`` of a test ``x is not None`` (``if optimizer is not None: loss.backward()``)."""
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.left, ast.Name)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left.id
    return None


def _evaluation_phase_call(ctx, function: ast.AST) -> Optional[ast.Call]:
    """A call, with grad enabled, that runs a function serving a training and an evaluation
    phase in its evaluation phase: the function's backward passes sit under a test of one of its
    parameters (``if mode == "train":``), and the call hands that parameter an evaluation value
    (``self.run_epoch(val_loader, mode="val")``; ``is_train=False``). None otherwise (kept per
    function)."""
    cache = ctx.state(_State).phase_calls
    key = id(function)
    if key in cache:
        return cache[key]
    cache[key] = None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or "backward" not in ctx.text(function):
        return None
    tests = [
        _flag_source(function, node.test)
        for node in ctx.model.own_nodes(function)
        if isinstance(node, ast.If)
        and (_training_phase_test(node.test) or _backward_flag(function, node))
        and _phase_name(_flag_source(function, node.test)) is not None
    ]
    if not tests:
        return None
    method = _method_like(function)
    for test in tests:
        name = _phase_name(test)
        slot = _parameter_slot(function, name, method) if name is not None else None
        if slot is None:
            continue
        for site in ctx.model.callers(function) or ():
            if site.state.mode is not GradMode.ENABLED:
                continue
            given = call_argument(site.call, *slot)
            if (
                given is None
                and not any(k.arg is None for k in site.call.keywords)
                and not any(isinstance(a, ast.Starred) for a in site.call.args)
            ):
                given = parameter_defaults(function).get(name)  # left out: its default
            if not isinstance(given, ast.Constant):
                continue
            if _given_name(test) is not None or (isinstance(test, ast.Name) and given.value is None):
                # `if optimizer is not None: loss.backward()`, `if optimizer:`, and no optimizer given
                evaluates = given.value is None
            elif isinstance(test, ast.Compare):
                evaluates = isinstance(given.value, str) and split_of_text(given.value) is Split.EVAL
            elif isinstance(test, ast.BoolOp):  # `mode == "train" or mode == "train+log"`, given "eval"
                phases = _phases_compared(test)
                evaluates = (
                    phases is not None
                    and isinstance(given.value, str)
                    and given.value not in phases[1]
                    and split_of_text(given.value) is Split.EVAL
                )
            else:  # a flag: `is_train=False`, or `is_test=True` for `not is_test`
                evaluates = given.value is isinstance(test, ast.UnaryOp)
            if evaluates:
                cache[key] = site.call
                return site.call
    for test in tests:
        switch = _own_evaluation_switch(ctx, function, test)
        if switch is not None:
            cache[key] = switch
            return switch
    return None


def _own_evaluation_switch(ctx, function: ast.AST, test: ast.AST) -> Optional[ast.Call]:
    """The ``model.eval()`` a function runs itself where its optional parameter is absent
    (``def class_trainer(loader, model, loss_fn, optimizer=None): if optimizer: model.train()
    else: model.eval()``, its backward pass under ``if optimizer:``): the function serves an
    evaluation phase, whichever way its callers reach it (through a factory, from another
    file). None where a caller of another file runs it with grad off, or where its own file
    calls it (those calls say, and none of them left the parameter out with grad on)."""
    name = _given_name(test) or (test.id if isinstance(test, ast.Name) else None)
    if name is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    default = parameter_defaults(function).get(name)
    if not (isinstance(default, ast.Constant) and default.value is None):
        return None
    switch = None
    shown = ast.dump(test)
    for node in ctx.model.own_nodes(function):
        if isinstance(node, (ast.If, ast.IfExp)) and ast.dump(_flag_source(function, node.test)) == shown:
            branch = node.orelse if isinstance(node, ast.If) else [node.orelse]
            switch = next(
                (
                    sub
                    for statement in branch
                    for sub in ast.walk(statement)
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "eval"
                ),
                None,
            )
            if switch is not None:
                break
    if switch is None:
        return None
    if any(ctx.model.external_calls(function)):
        return None  # another file runs it with grad off: perhaps its evaluation phase
    callers = ctx.model.callers(function)
    if callers:
        return None  # its own file's calls say (none left the parameter out with grad on)
    return switch


def _in_training_branch(ctx, call: ast.Call, scope: ast.AST, training_test) -> bool:
    """Whether the call sits, in ``scope``, in the body of an ``if`` whose test ``training_test``
    takes for the training phase's (``if phase == "training": outputs = model(inputs)`` / ``else:
    with torch.no_grad(): ...``): the evaluation phase never runs it."""
    for statement in ctx.model.enclosing(call):
        if statement is scope:
            return False
        if isinstance(statement, ast.If) and training_test(statement.test) and in_block(statement.body, call):
            return True
    return False


def _flag_source(function: ast.AST, test: ast.AST) -> ast.AST:
    """A test of a local name the function's body binds once, at its top, to a test of a
    parameter (``train_mode = optimizer is not None``, then ``if train_mode:``): that test;
    the test itself otherwise."""
    if not isinstance(test, ast.Name) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return test
    bound = [
        statement.value
        for statement in function.body
        if isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == test.id
    ]
    names = {arg.arg for arg in parameters(function)}
    if len(bound) != 1 or test.id in names:
        return test
    value = bound[0]
    name = value.id if isinstance(value, ast.Name) else _given_name(value)
    return value if name is not None and name in names else test


def _backward_flag(function: ast.AST, test_of: ast.If) -> bool:
    """Whether an ``if`` tests a parameter of the function alone, whatever its name (or a local
    name bound once to such a test: ``train_mode = optimizer is not None``), and its body
    runs a backward pass (``def run_epoch(model, loader, grad): ... if grad: loss.backward()``):
    the flag that tells the function's training pass from its evaluation pass."""
    test = _flag_source(function, test_of.test)
    name = test.id if isinstance(test, ast.Name) else _given_name(test)
    return (
        isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        and name is not None
        and name in {arg.arg for arg in parameters(function)}
        and any(
            isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "backward"
            for statement in test_of.body
            for sub in ast.walk(statement)
        )
    )


def _training_phase_only(ctx, unit: _Unit, scope: ast.AST, call: ast.Call) -> Optional[tuple]:
    """(the test, the switch to eval mode) where one body serves a training and an evaluation
    phase (``for phase in ["train", "val"]``, ``fit(..., phase="validation")``): every backward
    pass of the scope sits under a test of the training phase (``if phase == "train":``), the
    call runs outside it, and the scope switches a model to eval mode under another branch of
    such a test; () where every call running the evaluation phase disables grad. None otherwise."""
    # (also where the scope switches to eval mode itself: `model.train() if optimizer else
    # model.eval()`, then `if optimizer: loss.backward()`, called with no optimizer)
    phase_call = _evaluation_phase_call(ctx, scope) if unit.eval_call is None or scope is not ctx.tree else None
    if (unit.eval_call is None and phase_call is None and not unit.phase_switches) or ctx.model.grad_mode(
        call
    ) is not GradMode.ENABLED:
        return None
    backward = [
        node
        for node in walk_in_order(scope)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward"
    ]
    if not backward:
        return None
    tests = []
    for node in backward:
        guard = next(
            (
                s
                for s in ctx.model.enclosing(node)
                if isinstance(s, ast.If)
                and (_training_phase_test(s.test) or (phase_call is not None and _backward_flag(scope, s)))
            ),
            None,
        )
        if guard is None or not in_block(guard.body, node):
            return None  # a backward pass of every phase
        tests.append(guard)
    if any(in_block(guard.body, call) or in_block(guard.orelse, call) for guard in tests):
        return None  # the call runs in one phase only
    shown = {ast.dump(guard.test) for guard in tests}
    if _in_training_branch(ctx, call, scope, lambda test: ast.dump(test) in shown):
        return (
            None  # in the training branch of another `if` of the same test (`if phase == "training": out = model(x)`)
        )
    if scope is ctx.tree:
        # module code (a script, a notebook): the call must run in the loop over the phases,
        # not in a later cell of its own (`output = mask_model(image)` after the loop)
        loops = [s for s in ctx.model.enclosing(tests[0]) if isinstance(s, (ast.For, ast.AsyncFor, ast.While))]
        if not any(loop in ctx.model.enclosing(call) for loop in loops):
            return None
    phase = _phase_name(tests[0].test)
    phase_loops = [
        s
        for s in ctx.model.enclosing(tests[0])
        if isinstance(s, (ast.For, ast.AsyncFor)) and isinstance(s.target, ast.Name) and s.target.id == phase
    ]
    if phase_loops and not any(loop in ctx.model.enclosing(call) for loop in phase_loops):
        return None  # outside the loop over the phases (`if num_epochs == 0: model.eval(); ...`)
    if phase is not None and _evaluation_phase_run_without_grad(ctx, scope, tests[0].test, phase):
        return ()  # `def val(...): with torch.no_grad(): return step("val", ...)`: its callers disable grad
    if phase_call is not None:
        if unit.eval_call is None:
            return tests[0].test, phase_call  # `self.run_epoch(val_loader, mode="val")`: its callers say
    for eval_call in unit.eval_calls:
        for statement in ctx.model.enclosing(eval_call):
            if not isinstance(statement, ast.If):
                continue
            if _training_phase_test(statement.test) and in_block(statement.orelse, eval_call):
                if _leaves(statement.orelse):
                    return None  # `else: model.eval(); break`: the evaluation phase runs none of what follows
                return tests[0].test, eval_call  # `if phase == "train": model.train() else: model.eval()`
            if _evaluation_phase_test(statement.test) and in_block(statement.body, eval_call):
                if _leaves(statement.body):
                    return None
                return tests[0].test, eval_call  # `if phase == "validation": model.eval()`
    for switch in unit.phase_switches:
        if ast.dump(switch.args[0]) in shown:
            return tests[0].test, switch  # `model.train(phase == "train")`
    if phase_call is not None:
        # `model.train() if optimizer else model.eval()` of a scope called with no optimizer
        return tests[0].test, phase_call
    return None


def _leaves(block: list) -> bool:
    """Whether a block ends its loop's turn or its function: a ``break``, ``continue``,
    ``return`` or ``raise`` among its own statements."""
    return any(isinstance(statement, (ast.Break, ast.Continue, ast.Return, ast.Raise)) for statement in block)


def _evaluation_phase_test(test: ast.AST) -> bool:
    """``phase == "validation"``, ``mode == "test"``, ``is_test``, ``not is_train``: the test of an
    evaluation phase."""
    if isinstance(test, ast.Name):
        return test.id in _EVALUATION_FLAGS
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id in _TRAINING_FLAGS
    value = _phase_compared(test)
    return isinstance(value, str) and split_of_text(value) is Split.EVAL


# A backward pass or an optimizer step, in the text.
_STEP_RE = re.compile(r"\.(?:backward|step)\(")


def _own_module_method(ctx, call: ast.Call) -> bool:
    """Whether the call is ``self.<method>(...)`` in a module class of the file, of a method that
    runs the module's layers (WaveNet's ``self.wavenet(input, ...)`` in its ``generate``): it runs
    the model ``self`` is, in ``self``'s mode."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return False
    receiver = ctx.model.value(func.value)
    return receiver.kind is Kind.MODULE and not receiver.weak and ctx.model.self_method_runs_model(call)


def _demo_of_handed_fresh_modules(ctx, call: ast.Call) -> bool:
    """A helper of a file that never backpropagates running the module it is handed on made-up
    input (``def teoria(model): entrada = torch.rand(1, 3, 1); y, h = model(entrada); print(y)``),
    where every caller hands it a module it has just built and given no weights
    (``model = SimpleRNN(1, 2, 1)``, then ``teoria(model)``), and nothing in the file loads
    weights: a demo of the model's code."""
    function = ctx.function
    callee = _callee(call)
    if not isinstance(function, FUNCTION_TYPES) or isinstance(function, ast.Lambda) or not isinstance(callee, ast.Name):
        return False
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if callee.id not in names or ctx.model.body_binds(function, callee.id):
        return False
    if not all(_code_lacks(ctx, needle) for needle in ("backward(", "load_state_dict(", ".load(")):
        return False  # the file trains or loads weights: the module handed in may hold them
    sites = ctx.model.callers(function)
    if not sites:
        return False
    if not (_made_up_input(ctx, call) or _handed_made_up_input(ctx, call, names, sites)):
        return False
    index = names.index(callee.id)
    for site in sites:
        given = call_argument(site.call, index, callee.id)
        if isinstance(given, ast.Call):
            # `test_model(torch.randn(...), Net())`: a module built on the spot
            built = ctx.model.value(given)
            if built.kind is not Kind.MODULE or built.weak or _given_weights(ctx, given, site.call.lineno):
                return False
            continue
        if not isinstance(given, ast.Name):
            return False
        scope = site.frame.node
        bindings = ctx.model.uses(scope).bindings_of(given.id)
        if not bindings or not all(
            type(b.node) is ast.Assign
            and isinstance(b.value, ast.Call)
            and ctx.model.value(b.value).kind is Kind.MODULE
            and not ctx.model.value(b.value).weak
            and not _given_weights(ctx, b.value, b.node.lineno)
            for b in bindings
        ):
            return False
    return True


def _handed_made_up_input(ctx, call: ast.Call, names: list, sites: list) -> bool:
    """Whether every input of the call is a parameter of its function that every caller hands a
    made-up value (``test_model(copy.deepcopy(data), model)`` of ``data = torch.randn(10, 1, 32,
    160)``): the demo's input is made where it is called."""
    if not call.args:
        return False
    for arg in call.args:
        base = _kept_base(arg)
        if not (isinstance(base, ast.Name) and base.id in names):
            return False
        index = names.index(base.id)
        for site in sites:
            given = call_argument(site.call, index, base.id)
            if given is None:
                return False
            if isinstance(given, ast.Call) and ctx.imports.qualified_name(given.func) in ("copy.deepcopy", "copy.copy"):
                given = given.args[0] if given.args else given
            if _factory_made(ctx, given):
                continue
            if not isinstance(given, ast.Name):
                return False
            bindings = ctx.model.uses(site.frame.node).bindings_of(given.id)
            if not bindings or not all(
                type(b.node) is ast.Assign and b.value is not None and _factory_made(ctx, b.value) for b in bindings
            ):
                return False
    return True


def _untrained_graph_function(ctx, call: ast.Call) -> bool:
    """A script's call of a function of the file that computes a model by hand (``def
    forward(x): return w * x``) with no backward pass or step of the script between the last
    binding of a weight it reads (``w = torch.tensor(0.0, requires_grad=True)``) and the call:
    a demo of the untrained model, as ``_fresh_module`` says for a module."""
    func = call.func
    if ctx.function is not None or not isinstance(func, ast.Name):
        return False
    # The definition bound at the call (a notebook may define `forward` anew in each cell).
    bound = ctx.model.function_node(ctx.model.value(func))
    definitions = [bound] if bound is not None else ctx.model.scopes.module.definitions.get(func.id)
    if not definitions or not _graph_function(ctx, definitions):
        return False
    read = {
        sub.id
        for definition in definitions
        for sub in walk_in_order(definition)
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)
    }
    bindings = ctx.model.uses(ctx.tree).bindings
    # where a weight it reads is made anew, asking for grad (`w = torch.tensor(0.0,
    # requires_grad=True)`), not updated (`w -= lr * w.grad`, `w = w - lr * w.grad`)
    made_at = [
        b.node.lineno
        for b in bindings
        if b.name in read
        and b.node.lineno < call.lineno
        and isinstance(b.node, ast.Assign)
        and b.value is not None
        and "requires_grad" in ctx.text(b.value)
        and not any(isinstance(sub, ast.Name) and sub.id == b.name for sub in walk_in_order(b.value))
    ]
    src = ctx.source
    start = src.line_starts[max(made_at) - 1] if made_at else 0
    end = src.node_start(call)
    return _STEP_RE.search(src.text, start, end) is None or _STEP_RE.search(_code_text(ctx), start, end) is None


def _trained_later(ctx, call: ast.Call, name: str) -> bool:
    """Whether the code after the call trains the module ``name`` holds: its parameters handed to
    an optimizer, then a backward pass or a step."""
    end = ctx.source.node_end(call)
    if _STEP_RE.search(ctx.source.text, end) is None:
        return False  # not in the raw text: not in the code
    text = _code_text(ctx)[end:]
    return _parameters_handed_on(text, name) and _STEP_RE.search(text) is not None


def _optimizer_over_its_tensors(text: str, name: str) -> bool:
    """Whether a ``torch.optim`` optimizer is built over tensors of ``name`` picked by hand
    (``SGD(params=[net.weight], ...)``, d2l's ``SGD([{"params": net[0].weight, ...}])``)."""
    for match in re.finditer(r"optim\.[A-Z]\w*\(", text):
        arguments = text[match.end() : match.end() + 300].split(")", 1)[0]
        if re.search(rf"(?<![\w.]){re.escape(name)}[.\[]", arguments) is not None:
            return True
    return False


def _parameters_handed_on(text: str, name: str) -> bool:
    """Whether the text hands ``name``'s parameters on (to an optimizer, a ``requires_grad``
    filter, a variable): a sign of training. A line that only shows or counts them
    (``print(list(net.parameters()))``, ``params = list(net.parameters())``,
    ``sum(p.numel() for p in net.parameters())``, ``for p in net.parameters(): print(p)``) is
    not, nor a comment or a string that spells them."""
    needle = f"{name}.parameters("
    for i in code_occurrences(text, needle):
        start = text.rfind("\n", 0, i) + 1
        stop = text.find("\n", i)
        line = text[start : stop if stop >= 0 else len(text)].strip()
        shown = "print(" in line or "numel(" in line or _LISTED_RE.match(line) is not None
        if not shown and line.startswith("for ") and line.endswith(":") and stop >= 0:
            end = text.find("\n", stop + 1)
            shown = text[stop + 1 : end if end >= 0 else len(text)].strip().startswith("print(")
            if not shown and "zip(" in line:
                # `for a, b in zip(native.all_weights[0], custom.parameters()):` whose body copies
                # or compares each pair: a test of the module against another, not its training
                body = _indented_block(text, start, stop)
                shown = "copy_(" in body or "assert " in body
        if not shown:
            return True
    return False


def _indented_block(text: str, header_start: int, header_end: int) -> str:
    """The text of the lines after a header (from ``header_end``) indented deeper than it."""
    indent = len(text[header_start:header_end]) - len(text[header_start:header_end].lstrip())
    lines = []
    for line in text[header_end + 1 :].split("\n"):
        stripped = line.lstrip()
        if stripped and len(line) - len(stripped) <= indent:
            break
        lines.append(line)
    return "\n".join(lines)


# `list(net.parameters())`, `params = len(...)`: the parameters listed or counted, not handed on.
_LISTED_RE = re.compile(r"(?:\w+\s*=\s*)?(?:list|tuple|len|sum)\(")


def _built_only_later(ctx, call: ast.Call, name: str) -> bool:
    """Whether, in a notebook's code (its cells in order) that never backpropagates nor loads the
    name's weights, every binding of ``name`` comes after the call and builds a module from its
    class (``preds = network(images)`` in cell 6, ``network = Network()`` in cell 11: the cells
    were run out of order, and the module is untrained wherever it is built)."""
    if ctx.function is not None or not ctx.source.cell_starts or not _code_lacks(ctx, "backward("):
        return False
    if next(code_occurrences(_code_text(ctx), f"{name}.load"), None) is not None:
        return False
    bindings = ctx.model.uses(ctx.tree).bindings_of(name)
    return bool(bindings) and all(
        b.node.lineno > call.lineno
        and isinstance(b.value, ast.Call)
        and not isinstance(b.node, (ast.For, ast.AsyncFor))
        and not _given_weights(ctx, b.value, b.node.lineno)
        and ctx.model.value(b.value).kind is Kind.MODULE
        for b in bindings
    )


def _part_loaded(text: str, name: str) -> bool:
    """Whether the code gives a part of the object weights (``model.generator.load_state_dict(...)``
    of a GAN wrapper): the module the call runs is then trained."""
    pattern = rf"(?<![\w.]){re.escape(name)}(?:\.\w+)+\.(?:load|restore)\w*\("
    return any(in_code(text, match.start()) for match in re.finditer(pattern, text))


def _code_lacks(ctx, needle: str) -> bool:
    """Whether ``needle`` is absent from the file's code text (``_code_text``), which is made
    only when the raw text holds it."""
    return needle not in ctx.source.text or needle not in _code_text(ctx)


def _code_text(ctx) -> str:
    """The file's text with every string literal that spans lines blanked out (newlines kept,
    offsets unchanged): an example printed for the reader (a triple-quoted
    `model.load_state_dict(...)`) or a docstring is no code. A line's own strings and comments
    are left to ``_in_code``. Made once per file."""
    state = ctx.state(_State)
    if state.code_text is None:
        text = ctx.source.text
        if '"""' in text or "'''" in text:
            spans = sorted(
                (ctx.source.node_start(node), ctx.source.node_end(node))
                for node in walk_in_order(ctx.tree)
                if (type(node) is ast.JoinedStr or (type(node) is ast.Constant and isinstance(node.value, str)))
                and (node.end_lineno or node.lineno) > node.lineno
            )
            pieces, last = [], 0
            for start, end in spans:
                if start < last:
                    continue  # inside an f-string already blanked
                pieces.append(text[last:start])
                pieces.append(_NOT_NEWLINE_RE.sub(" ", text[start:end]))
                last = end
            pieces.append(text[last:])
            text = "".join(pieces)
        state.code_text = text
    return state.code_text


_NOT_NEWLINE_RE = re.compile(r"[^\n]")


def _statement(ctx, node: ast.AST) -> Optional[ast.stmt]:
    current = node
    while current is not None and not isinstance(current, ast.stmt):
        current = ctx.parent(current)
    return current


def _computed_from_targets(ctx, scope: ast.AST, statement: ast.Assign) -> set:
    """The names an assignment's targets hold (also a container a slot of is stored into,
    ``values[mask] = ...``) and every name ``scope`` computes from them."""
    uses = ctx.model.uses(scope)
    return {
        derived
        for target in statement.targets
        for sub in ast.walk(target)
        if isinstance(sub, ast.Name)
        for derived in uses.derived(sub.id)
    }


def _handed_to_a_model(ctx, scope: ast.AST, statement: Optional[ast.AST]) -> bool:
    """Whether what an assignment binds, or a name computed from it, is handed to a call that may
    run a model (``D(fake)`` after ``fake = G(z).detach()``): anything but a torch function, a
    layer without parameters (a loss module: ``criterion(q, target_q)``), a builtin, or a call
    whose own result is detached or read at once (``critic_target(s1, a1).detach()``)."""
    if not isinstance(statement, ast.Assign):
        return True
    names = _computed_from_targets(ctx, scope, statement)
    for node in ctx.model.own_nodes(scope):
        if not isinstance(node, ast.Call) or not any(
            isinstance(sub, ast.Name) and sub.id in names
            for arg in (*node.args, *(k.value for k in node.keywords))
            for sub in ast.walk(arg)
        ):
            continue
        func = node.func
        if (isinstance(func, ast.Name) and func.id in _BUILTINS) or (ctx.imports.qualified_name(func) or "").startswith(
            "torch."
        ):
            continue
        if _read_at_once(ctx, node):
            continue  # `critic_target(s1, a1).detach()`: a target too, no model trained through it
        value = ctx.model.value(_callee(node))
        if value.kind is Kind.MODULE:
            if not parameterless_layer(value):
                return True  # not `self.criterion = nn.MSELoss()`
        elif value.kind is Kind.UNKNOWN and (
            isinstance(func, ast.Name)
            or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self")
        ):
            return True  # `D(fake)`, `self.D(fake)` of a module not known
        elif isinstance(func, ast.Attribute) and ctx.model.value(func.value).kind is Kind.MODULE:
            return True  # `policy.act(obs)`; not `writer.add_scalars(...)` nor a tensor's method
    return False


def _fed_detached_to_a_call(ctx, call: ast.Call, scope: ast.AST) -> bool:
    """Whether the name a call's result is bound to is handed, detached, to another call
    (``fake = G(z)``, then ``D(fake.detach())``)."""
    name = _bound_name(ctx, call)
    if name is None:
        return False
    text = ctx.text(scope) if scope is not ctx.tree else ctx.source.text
    return re.search(rf"\(\s*{re.escape(name)}\.detach\(\)\s*[,)]", text) is not None


def _backpropagated(ctx, scope: ast.AST, call: ast.Call) -> bool:
    """Whether a call's result reaches ``backward()``: it is bound to names from which, through
    other bindings, a backpropagated name is computed (or the call sits in a backward call).

    A name rebound on every path in between stops the chain: after ``pred = net(test_x)``,
    ``pred = net(b_x); loss = f(pred); loss.backward()`` backpropagates the second ``pred``,
    not the first (``_reaches``)."""
    if _read_at_once(ctx, call) or (id(call) not in ctx.state(_State).assigned_calls and _fed_into_read(ctx, call)):
        # `ref = classifier(gen(z)).detach()`, `m = torch.mean(D(X)).data[0]`: nothing of its
        # graph goes further
        return False
    uses = ctx.model.uses(scope)
    statement = _statement(ctx, call)
    if statement is None:
        return True
    if isinstance(statement, ast.Expr):
        text = ctx.text(statement)
        return "backward" in text
    targets: set = set()
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        for binding in uses.bindings:
            if binding.node is statement:
                targets.add(binding.name)
        # `preds[i] = net(x)`: the container a name holds keeps the graph (not an attribute's)
        for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
            root = subscript_root(target)
            if root is not target and isinstance(root, ast.Name):
                targets.add(root.id)
    if not targets:
        return True  # stored somewhere the model does not follow: assume it may be
    # Only what comes after the call (a loop body comes round again: from the loop's start).
    start = statement.lineno
    loop = next((s for s in ctx.model.enclosing(call) if isinstance(s, (ast.For, ast.AsyncFor, ast.While))), None)
    loop_start = None
    if loop is not None:
        start = loop.lineno
        loop_start = (loop.lineno, loop.col_offset)
    later = [b for b in uses.bindings if getattr(b.node, "lineno", 0) >= start]
    # Where each name is bound from the call's result, directly or through other bindings.
    derived: dict = {name: [statement] for name in targets}
    rebound = ctx.model.rebindings(scope)
    # `targets[i] = batch[label[i]]`: an item written into a tensor (a `torch.zeros` buffer) puts its
    # graph in that tensor, which `targets.sum().backward()` then backpropagates
    item_stores = [
        (root.id, node)
        for node in ctx.model.own_nodes(scope)
        if isinstance(node, ast.Assign)
        and getattr(node, "lineno", 0) >= start
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Subscript)
        and isinstance(root := subscript_root(node.targets[0]), ast.Name)
    ]
    changed = True
    while changed:
        changed = False
        for name, node in item_stores:
            if node not in derived.get(name, ()) and any(
                n.id in derived and _reaches(rebound, derived[n.id], node, n.id, loop_start)
                for n in _names_with_graph(node.value)
            ):
                derived.setdefault(name, []).append(node)
                changed = True
        for binding in later:
            if binding.value is None or binding.node in derived.get(binding.name, ()):
                continue
            value = binding.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr in GRAPH_ENDING_METHODS
            ):
                continue  # `returns = torch.cat(returns).detach()`: no graph goes further
            if any(
                n.id in derived and _reaches(rebound, derived[n.id], binding.node, n.id, loop_start)
                for n in _names_with_graph(binding.value)
            ):
                derived.setdefault(binding.name, []).append(binding.node)
                changed = True
    for later_call in uses.calls:
        if later_call.lineno < start:
            continue
        func = later_call.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            parts = [func.value, *later_call.args]
        else:
            qual = ctx.imports.qualified_name(func) or ""
            if qual in ("torch.autograd.grad", "torch.autograd.backward") or qual.startswith("torchviz."):
                parts = later_call.args + [
                    k.value for k in later_call.keywords
                ]  # `make_dot(y.mean())`: the graph drawn
            elif qual and (differentiated := ctx.model.project_differentiated_parameters(qual)):
                # `get_grads_batch(x, out)` of another file, taking `torch.autograd.grad` of `out` (not a
                # label it only compares with: `generate_pgd_adv(model, x, y=category_id[0])`)
                parts = [
                    argument
                    for name, position in differentiated.items()
                    if (argument := call_argument(later_call, position, name)) is not None
                ]
            elif not qual:
                parts = ctx.model.backpropagated_arguments(
                    later_call
                )  # `loss_function(out, ...)` backpropagating `out`
                if not parts:
                    continue
            else:
                continue
        names = {n.id for part in parts for n in walk_in_order(part) if isinstance(n, ast.Name) and n.id in derived}
        if names:
            site = _statement(ctx, later_call)
            if site is None or any(_reaches(rebound, derived[name], site, name, loop_start) for name in names):
                return True
    return False


def _names_with_graph(node: ast.AST) -> list:
    """The names an expression reads whose graph its value may carry: not those read only
    through a method or attribute that ends the graph (``y = r + gamma * q_next.detach()``:
    ``r`` and ``gamma``, not ``q_next``)."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if (
            isinstance(current, ast.Call)
            and isinstance(current.func, ast.Attribute)
            and current.func.attr in GRAPH_ENDING_METHODS
        ) or (isinstance(current, ast.Attribute) and current.attr == "data"):
            # what the call is handed still counts (`x.new_tensor(y).detach()` aside, rare)
            stack.extend(current.args if isinstance(current, ast.Call) else ())
            continue
        if isinstance(current, ast.Name):
            found.append(current)
            continue
        stack.extend(ast.iter_child_nodes(current))
    return found


def _reaches(rebound: Rebindings, sources: list, site: ast.AST, name: str, loop_start: Optional[tuple] = None) -> bool:
    """Whether a binding of ``name`` at one of the statements ``sources`` may still hold at
    ``site``: not assigned again on every path in between (``Rebindings.between``). A source
    after the site is reached round the loop (starting at ``loop_start``), unless the name is
    bound again on every path from the loop's top to the site (``fake = netG(noise)`` first
    thing in the loop: the ``fake = netG(fixed_noise)`` saved at its end never reaches it)."""
    for source in sources:
        if not hasattr(source, "end_lineno"):
            return True
        if _position(source) >= _position(site):
            if loop_start is None or not rebound.between(name, loop_start, site):
                return True
            continue
        if not rebound.between(name, (source.end_lineno, source.end_col_offset), site):
            return True
    return False


def _position(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset)


def _uses_grad(ctx, nodes) -> bool:
    """Whether code uses gradients: backward, an optimizer step, ``.grad``, ``requires_grad``,
    ``torch.autograd``/``torch.func`` calls, a frozen TorchScript module, a call of a function of the
    module that backpropagates or steps (``train(x, y)``), or of one from elsewhere named to train
    (``train_ch3(net, ...)``, ``trainer.fit(model)``)."""
    for root in nodes:
        for node in walk_in_order(root):
            if isinstance(node, ast.Call):
                func = node.func
                qual = ctx.imports.qualified_name(func)
                if qual is not None:
                    if qual.startswith(_GRAD_FUNCTIONS) or qual.rsplit(".", 1)[-1] in _GRAD_NAMES:
                        return True
                    if ctx.model.project_function_differentiates(qual):
                        return True  # `calculate_jacobian(x, y, net, criterion)` of another file: `loss.backward()`
                    if _builds_a_backpropagating_module(ctx, node, qual):
                        return True  # `cam = GradCam(model, layer)`: a Grad-CAM of the run, built to be run
                elif isinstance(func, ast.Attribute) and func.attr in _GRAD_METHODS:
                    if func.attr != "step" or not _environment_step(ctx, node):
                        return True
                elif isinstance(func, ast.Name) and _trains(ctx, func.id):
                    return True  # `train(x, y)`: a function of the file that backpropagates or steps
                elif _self_method_trains(ctx, node):
                    return True  # `self._train_batch(x, y)`: a method of the class that backpropagates
                elif _self_abstract_method(ctx, node):
                    # `self._optimize(batch)` of a base class whose `_optimize` raises
                    # NotImplementedError: a subclass's step, perhaps in another file, may backpropagate
                    return True
                elif (
                    isinstance(func, ast.Attribute)
                    and not (isinstance(func.value, ast.Name) and func.value.id == "self")
                    and func.attr not in MODULE_OWN_METHODS
                    and ctx.model.method_trains_everywhere(func.attr)
                ):
                    return True  # `solver.train_eval()`: every class of the run defining it backpropagates
                elif (
                    isinstance(func, ast.Attribute)
                    and (func.attr not in MODULE_OWN_METHODS or (func.attr == "train" and not _mode_switch_call(node)))
                    and ctx.model.method_may_train(func.attr)
                    and ctx.model.instance_method_trains(ctx.model.value(func.value), func.attr)
                ):
                    # `agent.update(...)` on an instance of a class whose `update` backpropagates; a
                    # module class's own `train(...)` loop (`pinn.train(epochs, lr)`), not `net.train()`
                    return True
                elif ctx.model.backpropagating_tool_call(node):
                    # `cam_extractor(class_idx, out)`, `atk(images, labels)`: Grad-CAM or an attack
                    # backpropagates through the model
                    return True
                if (node.args or node.keywords) and _named_to_train(ctx, node):
                    return True  # `train_ch3(net, train_iter, ...)`, `trainer.fit(model)`: trained elsewhere
                for kw in node.keywords:
                    if kw.arg == "requires_grad" and not (
                        isinstance(kw.value, ast.Constant) and kw.value.value is False
                    ):
                        return True
            elif isinstance(node, ast.Attribute) and node.attr in _GRAD_ATTRIBUTES:
                return True
    return False


def _self_abstract_method(ctx, call: ast.Call) -> bool:
    """Whether a call is ``self.<m>(...)`` of a method its class leaves to subclasses
    (``read_only.left_to_subclasses``)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return False
    state = ctx.state(_State)
    if state.abstract_methods is None:
        state.abstract_methods = frozenset(
            method.name
            for node in ctx.tree.body
            if isinstance(node, ast.ClassDef)
            for method in node.body
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and left_to_subclasses(method)
        )
    if func.attr not in state.abstract_methods:
        return False
    owner = next((a for a in ctx.ancestors(call) if isinstance(a, ast.ClassDef)), None)
    if owner is None:
        return False
    method = next(
        (s for s in owner.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == func.attr),
        None,
    )
    return method is not None and left_to_subclasses(method)


def _environment_step(ctx, call: ast.Call) -> bool:
    """Whether ``x.step(...)`` steps an environment, not an optimizer: its result is unpacked or
    indexed (``obs, reward, done, info = env.step(action)``; an optimizer's ``step`` returns
    None, or the closure's loss), or its receiver is named for one (``self.env.step(a)``), and
    the code does not show it is an optimizer."""
    if stepped_optimizer(ctx, call) is not None:
        return False
    if isinstance(call.func, ast.Attribute) and (ctx.model.value(call.func.value).ref or "").startswith(
        LR_SCHEDULER_PREFIX
    ):
        return True  # `self.scheduler.step(val_loss)` of a `ReduceLROnPlateau`: learning rates, not gradients
    parent = ctx.parent(call)
    if isinstance(parent, ast.Subscript) and parent.value is call:
        return True
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and any(
        isinstance(target, (ast.Tuple, ast.List))
        for target in (parent.targets if isinstance(parent, ast.Assign) else [parent.target])
    ):
        return True
    return isinstance(call.func, ast.Attribute) and names_an_environment(call.func.value)  # `envs[i].step(a)`


def _self_method_trains(ctx, call: ast.Call) -> bool:
    """Whether ``self.<method>(...)`` runs a method of the enclosing class that backpropagates or
    steps an optimizer (a trainer's ``_train_batch``): ``_trains`` for the class's methods; or that
    calls a tool backpropagating through the model (``self.grad_cam(image, target)``)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return False
    cls = next((s for s in ctx.model.enclosing(call) if isinstance(s, ast.ClassDef)), None)
    if cls is None:
        return False
    known = ctx.state(_State).self_methods_training
    key = (id(cls), func.attr)
    if key not in known:
        known[key] = any(
            isinstance(s, FUNCTION_TYPES)
            and s.name == func.attr
            and (
                ctx.model.function_summary(s).trains
                # `self.grad_cam(image, target)` of a Grad-CAM module whose `forward` backpropagates
                or any(
                    isinstance(sub, ast.Call) and ctx.model.backpropagating_tool_call(sub)
                    for sub in ctx.model.own_nodes(s)
                )
            )
            for s in cls.body
        )
    return bool(known[key])


def _mentions(ctx, function: str, name: str) -> bool:
    """Whether a function of the module named ``function`` reads ``name`` in its body."""
    return any(
        isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
        and re.search(rf"\b{re.escape(name)}\b", ctx.text(d)) is not None
        for d in ctx.model.scopes.module.definitions.get(function) or ()
    )


def _trains(ctx, name: str) -> bool:
    """Whether ``name`` is a function of the module that backpropagates or steps an optimizer."""
    definitions = ctx.model.scopes.module.definitions.get(name) or ()
    for definition in definitions:
        if isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
            summary = ctx.model.function_summary(definition)
            if summary.trains:
                return True
    return False


def _named_to_train(ctx, call: ast.Call) -> bool:
    """A call of a function the file does not define whose name says it trains (``train_ch3``,
    ``d2l.train_epoch``, ``trainer.fit``) or attacks its input (``adversary.perturb``,
    ``adversarial_args["attack"](**attack_args)``), not ``fit_transform``; a ``train`` method
    only where it is given what it trains on (``trainer.train(data_loader, epochs)``), not a
    mode flag (``model.train(False)`` switches a module's mode): weak evidence, asked only of
    calls given arguments."""
    func = call.func
    if isinstance(func, ast.Name):
        if ctx.model.scopes.module.definitions.get(func.id):
            return False  # the file's own function: its summary says (`_trains`)
        name = func.id
    elif isinstance(func, ast.Attribute):
        name = func.attr
        if name == "train":
            if (
                len(call.args) == 1
                and not call.keywords
                and isinstance(call.args[0], (ast.Constant, ast.Name, ast.UnaryOp))
            ):
                return False  # `model.train(True)`, `net.train(mode)`, `net.train(not eval_mode)`
            if any(k.arg == "mode" for k in call.keywords):
                return False
            return ctx.model.value(func.value).kind not in (Kind.MODULE, Kind.UNKNOWN) or len(call.args) > 1
    elif isinstance(func, ast.Subscript) and isinstance(func.slice, ast.Constant) and isinstance(func.slice.value, str):
        name = func.slice.value  # `args["attack"](**attack_args)`: a callable picked by its name
    else:
        return False
    low = name.lower()
    if low.startswith(_ATTACK_PREFIXES) or any(word in low for word in _ATTACK_WORDS):
        return True  # `adversary.perturb(x, y)`, `fgsm_attack(model, x)`: gradients of the input
    return (
        low in ("train", "fit")
        or (low.startswith(("train_", "fit_")) and low != "fit_transform")
        or low.endswith(("_train", "_fit"))  # `trainer.sample_and_train(batch_size)`
    )


# Names of adversarial attacks, which backpropagate to their input (advertorch's `perturb`).
_ATTACK_PREFIXES = ("perturb", "attack")
_ATTACK_WORDS = ("fgsm", "pgd", "adversar")


def _module_code(ctx) -> list:
    """The module's own statements, without function and class definitions."""
    return [s for s in ctx.tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


# A function named for sampling (`def sample(`, `def create_samples(`, `def decode_chain_sampling(`),
# not `def downsample(`.
_SAMPLING_DEF = re.compile(r"def (?:\w+_)?sampl")
# The indices of a maximum, as old code reads them (`q_values.max(1)[1]`): the action a network picks.
_ARGMAX_BY_INDEX = re.compile(r"\.max\((?:dim=)?-?\d\)\[1\]")


# Evidence for which each statement of a script's own code is a site of its own.
_SCRIPT_SITES = frozenset({"eval-mode", "eval-data", "eval-call", "read-only", "loaded"})


class EvalWithGrad(Rule):
    code = "GG201"
    name = "eval-with-grad"
    summary = "evaluation (`.eval()` or a validation loader loop) runs the model with grad enabled"
    fix_availability = FixAvailability.SOMETIMES
    severity = Severity.WARNING
    # A unit with findings switches a model to eval mode, loops over a loader or data set, reads
    # data of a validation/test split, or is named for evaluation: each shows in its text.
    triggers = (
        ".eval(",
        "evaluat",
        "train(False",
        "oader",
        "_dl",
        "_iter",
        "predict",
        "infer",
        "generat",
        "demo",
        "detect",
        _SAMPLING_DEF,
        _ARGMAX_BY_INDEX,
        *VALUE_READ_HINTS,  # a model's output only read: `prediction.data.numpy()`
        ".detach()",  # a training step's target computed with grad, then detached: `target_q.detach()`
        *_SPLIT_TRIGGERS,
    )
    function_triggers = (*triggers, "eval", "show")

    def applies_to(self, text: str, search: Optional[TextSearch] = None) -> bool:
        """One of ``triggers`` occurs, or a call of a function of the run that reads values
        (``ptu.to_numpy(self.net(obs))`` in a file whose own text shows no reading)."""
        if super().applies_to(text, search):
            return True
        project = current_project()
        return project is not None and any(f"{name}(" in text for name in project.reading_function_names())

    def file_function_triggers(self, ctx) -> frozenset:
        """Calls of the helpers of the file or of the run that read values (``to_numpy(``): a
        function handing a model's output to one may only read it."""
        return frozenset(f"{name}(" for name in _reading_functions(ctx))

    valid = (
        # The buffer of predictions is backpropagated: its graph is needed.
        Valid(
            """
            import torch
            import torch.nn as nn

            net = nn.LSTM(3, 8, 2)
            optimizer = torch.optim.Adam(net.parameters())
            for step in range(100):
                loss = net(torch.randn(10, 5, 3))[0].pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            pred_y = torch.zeros([20, 8]).to("cpu")
            for i, x_i in enumerate(chunks):
                pred_y_i = net(x_i)[0][-1]
                pred_y[10 * i : 10 * (i + 1)] += pred_y_i
            pred_y.pow(2).mean().backward()
            """
        ),
        # The output bound in a loop is backpropagated at the loop's next turn (DeepFool).
        Valid(
            """
            import torch


            def deepfool_like(net, image, label, max_iter=50):
                x = image.clone().requires_grad_()
                fs = net(x)
                k_i = label
                loop_i = 0
                while k_i == label and loop_i < max_iter:
                    fs[0, label].backward(retain_graph=True)
                    g = x.grad.detach().clone()
                    x = (x.detach() + 0.01 * g.sign()).requires_grad_()
                    fs = net(x)
                    k_i = fs[0].argmax().item()
                    loop_i += 1
                return x.detach()
            """
        ),
        # A timing check of the model's code: its only caller hands it a module just built and
        # made-up input, in a file that neither trains nor loads weights.
        Valid(
            """
            import copy
            import time

            import torch
            import torch.nn as nn
            from torchvision import datasets, transforms


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(1, 8, 3)
                    self.bn = nn.BatchNorm2d(8)

                def forward(self, x):
                    return self.bn(self.conv(x))


            def test_model(data, model):
                t0 = time.time()
                output = model(data)
                print(time.time() - t0, data.shape, output.shape)


            if __name__ == "__main__":
                data = torch.randn(10, 1, 32, 160)
                model = Net()
                test_model(copy.deepcopy(data), model)
            """
        ),
        # A layer without parameters the models keep (`self.act = nn.Softmax(dim=-1)`), run on a
        # model of no known class: no weights, no graph worth the advice.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from torch.distributions import Categorical


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 5)
                    self.act = nn.Softmax(dim=-1)

                def forward(self, x):
                    return self.fc(x)


            def train_step(model, opt, x, reward):
                logits = model(x)
                probs = model.act(logits)
                action = Categorical(probs).sample()
                baseline = reward.mean().detach()
                loss = (F.cross_entropy(logits, action, reduction="none") * (reward - baseline)).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            """
        ),
        # A training loop handing the outputs to a step its class leaves to subclasses
        # (`_optimize` raises NotImplementedError here; a subclass backpropagates and steps).
        Valid(
            """
            class RunnerBase:
                def __init__(self, model, loader, val_loader):
                    self._model = model
                    self._loader = loader
                    self._val_loader = val_loader

                def _optimize(self, pred, target):
                    raise NotImplementedError()

                def validate(self):
                    return 0.0

                def train(self):
                    for step, (x, y) in enumerate(self._loader):
                        self._model.train()
                        pred = self._model(x)
                        loss = self._optimize(pred, y)
                        print(loss)
                        if step % 100 == 0:
                            self._model.eval()
                            print(self.validate())
            """
        ),
        # A shape check of a fresh decoder, its two outputs unpacked, in a script that trains
        # another model: only the sizes are read.
        Valid(
            """
            import torch
            from torch import nn


            class Decoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.emb = nn.Embedding(10, 4)
                    self.rnn = nn.GRU(4, 20)

                def forward(self, word, h):
                    return self.rnn(self.emb(word).view(1, 1, -1), h)


            m = Decoder()
            m.train(False)
            out, hidden = m(torch.tensor([1]), torch.zeros(1, 1, 20))
            print(out.size(), hidden.size())

            net = nn.Linear(4, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for _ in range(10):
                opt.zero_grad()
                net(torch.randn(8, 4)).pow(2).mean().backward()
                opt.step()
            """
        ),
        # One body for both phases whose evaluation branch leaves the phase loop (`break`): the
        # model call after it runs in the training phase alone.
        Valid(
            """
            import torch.nn.functional as F


            def fit(model, optimizer, loader, epochs):
                for epoch in range(epochs):
                    for phase in ["train", "val"]:
                        if phase == "train":
                            model.train()
                        else:
                            model.eval()
                            break
                        for x, y in loader:
                            optimizer.zero_grad()
                            loss = F.mse_loss(model(x), y)
                            if phase == "train":
                                loss.backward()
                                optimizer.step()
            """
        ),
        # A model file's check that it runs: made-up input, the output never read, nothing trained
        # in the file.
        Valid(
            """
            import torch
            from torch import nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 2)

                def forward(self, x):
                    return self.fc(x)


            def load_weights(model, state_dict):
                own = model.state_dict()
                for name, param in state_dict.items():
                    if isinstance(param, nn.Parameter):
                        param = param.data
                    own[name].copy_(param)
                return model


            if __name__ == "__main__":
                model = load_weights(Net(), torch.load("w.pt"))
                oup = model(torch.rand(1, 8))
            """
        ),
        # One body for both phases, switched by `model.train(phase == "train")`, the forward pass
        # under `set_grad_enabled` of the same test.
        Valid(
            """
            import torch


            def fit(model, dataloaders, optimizer, criterion, epochs):
                for epoch in range(epochs):
                    for phase in ["train", "val"]:
                        model.train(phase == "train")
                        for inputs, labels in dataloaders[phase]:
                            optimizer.zero_grad()
                            with torch.set_grad_enabled(phase == "train"):
                                loss = criterion(model(inputs), labels)
                            if phase == "train":
                                loss.backward()
                                optimizer.step()
                            print(loss.item())
            """
        ),
        # A private method (`__solve`) is called by its name: its one caller runs it under `no_grad`.
        Valid(
            """
            import torch


            class Solver:
                def __init__(self, model):
                    self.model = model
                    self.model.eval()

                def __solve(self, grid):
                    return self.model(grid).argmax(1)

                def solve(self, grid):
                    with torch.no_grad():
                        return self.__solve(grid)
            """
        ),
        # The same with the evaluation pass called under `no_grad`.
        Valid(
            """
            import torch


            def pass_epoch(model, loader, criterion, optimizer=None):
                train_mode = optimizer is not None
                model.train(mode=train_mode)
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    if train_mode:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total / len(loader)


            def fit(model, train_loader, val_loader, criterion, epochs=10):
                optimizer = torch.optim.Adam(model.parameters())
                for _ in range(epochs):
                    pass_epoch(model, train_loader, criterion, optimizer)
                    with torch.no_grad():
                        print(pass_epoch(model, val_loader, criterion, optimizer=None))
            """
        ),
        # `predict_proba` of models a caller loads with `joblib.load`, where no module class defines it: scikit-learn's API.
        Valid(
            """
            import numpy as np
            import torch


            def ensemble_predict(ensemble_models, features):
                x = np.asarray(features, dtype=np.float32)[None]
                probs = [model.predict_proba(x)[:, 1] for model in ensemble_models]
                return float(np.mean(probs)), torch.cuda.is_available()
            """
        ),
        # The first layer of a model built here and never trained, run on made-up input to see its statistics.
        Valid(
            """
            import torch
            from torch import nn

            model = nn.Sequential(nn.Conv2d(1, 8, 5), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
            x = torch.randn(64, 1, 28, 28)
            p = model[0](x)
            print(p.mean(), p.std())
            """
        ),
        # A training pass named for generating that writes each step's state and loss into `torch.zeros`
        # buffers: a tensor written into takes the graph of what it is given, and the caller backpropagates it.
        Valid(
            """
            import torch
            from torch import nn


            class StyleTransfer(nn.Module):
                def __init__(self, vocab_size, hidden):
                    super().__init__()
                    self.embedding = nn.Embedding(vocab_size, hidden)
                    self.generator = nn.GRU(hidden, hidden)
                    self.out = nn.Linear(hidden, vocab_size)

                def generate_x(self, hidden, targets, criterion):
                    steps, batch = targets.shape
                    states = torch.zeros(steps, 1, batch, hidden.shape[-1])
                    losses = torch.zeros(steps, batch)
                    inp = self.embedding(targets[:1])
                    for i in range(steps):
                        output, hidden = self.generator(inp, hidden)
                        states[i] = hidden
                        losses[i] = criterion(self.out(output[0]), targets[i])
                        inp = self.embedding(targets[i : i + 1])
                    return states, losses.mean()
            """
        ),
        # A module's method named for generating that hands back (its embedding's output, lengths): the
        # first part, another method's result, carries the embedding's graph into the caller's training step.
        Valid(
            """
            import numpy as np
            import torch
            from torch import nn


            class WordEmbedding(nn.Module):
                def __init__(self, vocab, dim):
                    super().__init__()
                    self.vocab = vocab
                    self.embedding = nn.Embedding(len(vocab), dim)

                def generate_batch(self, sentences):
                    lengths = np.array([len(s) for s in sentences])
                    ids = np.zeros((len(sentences), lengths.max()), dtype=np.int64)
                    for i, sentence in enumerate(sentences):
                        ids[i, : len(sentence)] = [self.vocab.get(w, 0) for w in sentence]
                    embedded = self._embed(ids)
                    return embedded, lengths

                def _embed(self, ids):
                    return self.embedding(torch.from_numpy(ids))
            """
        ),
        # A module built here whose `__init__` puts word vectors into its embedding (`Embedding.from_pretrained`):
        # its other layers are untrained, so this is a check that it runs.
        Valid(
            """
            import numpy as np
            import torch


            class Tagger(torch.nn.Module):
                def __init__(self, vectors):
                    super().__init__()
                    self.embedding = torch.nn.Embedding.from_pretrained(torch.from_numpy(vectors))
                    self.out = torch.nn.Linear(vectors.shape[1], 5)

                def forward(self, ids):
                    return self.out(self.embedding(ids))


            tagger = Tagger(np.loadtxt("vectors.txt", dtype=np.float32))
            tags = tagger(torch.tensor([[1, 2, 3]]))
            print(tags)
            """
        ),
        # The same appending the log-probabilities of its samples to a list the caller hands in (a policy-gradient loss's terms).
        Valid(
            """
            import torch


            def predict(model, x, log_probs, num_words=100):
                words = []
                for _ in range(num_words):
                    logits = model(x)
                    dist = torch.distributions.Categorical(logits=logits[:, -1])
                    choice = dist.sample()
                    log_probs.append(dist.log_prob(choice))
                    words.append(choice.item())
                    x = torch.cat((x[:, 1:], choice[:, None]), 1)
                return words
            """
        ),
        # The same, with every call of `predict` under `no_grad`.
        Valid(
            """
            import torch


            class NetEval:
                def __init__(self, net):
                    self.net = net

                def forward(self, inputs):
                    outputs = self.net(inputs)
                    return outputs

                def predict(self, inputs):
                    outputs = self.forward(inputs)
                    _, predicted = torch.max(outputs, 1)
                    return predicted


            def write_predictions(net, test_loader, path):
                net.eval()
                evaluator = NetEval(net)
                rows = []
                for x, _ in test_loader:
                    with torch.no_grad():
                        rows.extend(evaluator.predict(x).tolist())
                return rows
            """
        ),
        # A generator step whose `g_loss.backward()` is missing between `zero_grad()` and `step()`: that is the bug,
        # and `no_grad` would hide it (the backward, once written, would raise under it).
        Valid(
            """
            import torch


            def train_generator(G, D, loader, g_opt):
                for x, c in loader:
                    fake = G(x, c)
                    g_loss = -torch.mean(D(fake))
                    g_opt.zero_grad()
                    g_opt.step()
                    print(g_loss.item())
            """
        ),
        # A stable-baselines3 algorithm's `predict`: `BasePolicy.predict` runs the policy under `no_grad` and hands back numpy actions.
        Valid(
            """
            import torch
            from stable_baselines3 import DQN


            def evaluate(env, path, episodes=10):
                model = DQN.load(path)
                model.policy.eval()
                total = 0.0
                for _ in range(episodes):
                    obs, done = env.reset(), False
                    while not done:
                        action, _ = model.predict(obs, deterministic=True)
                        obs, reward, done, info = env.step(action)
                        total += reward
                return total / episodes, torch.cuda.is_available()
            """
        ),
        # A new head given before the freeze loop, which then freezes it too: every parameter is frozen at the call.
        Valid(
            """
            import pretrainedmodels
            import torch
            from torch import nn

            model = pretrainedmodels.__dict__["resnet50"](num_classes=1000, pretrained="imagenet")
            model.last_linear = nn.Sequential(nn.Linear(2048, 1))
            model.load_state_dict(torch.load("best.pth"))
            for param in model.parameters():
                param.requires_grad = False
            model.eval()
            test_data_loader = torch.utils.data.DataLoader(torch.randn(8, 3, 224, 224), batch_size=4)
            preds = []
            for x in test_data_loader:
                preds.append(model(x).sigmoid().numpy())
            """
        ),
        # A criterion known by its name alone (built by a helper of a package the run does not hold), handed the
        # model's output computed under `no_grad`: a loss of tensors without graph records nothing.
        Valid(
            """
            import torch
            from utils.loss import SegmentationLosses


            class Trainer:
                def __init__(self, model, args):
                    self.model = model
                    self.criterion = SegmentationLosses(cuda=args.cuda).build_loss(mode=args.loss_type)

                def validation(self, loader):
                    self.model.eval()
                    test_loss = 0.0
                    for image, target in loader:
                        with torch.no_grad():
                            output = self.model(image)
                        loss = self.criterion(output, target)
                        test_loss += loss.item()
                    return test_loss
            """
        ),
        # facenet-pytorch's `MTCNN` runs its networks under `no_grad` itself (its `detect`), here only to save the face crops.
        Valid(
            """
            import torch
            from facenet_pytorch import MTCNN


            def crop_faces(frames, paths):
                detector = MTCNN(image_size=160, device="cuda" if torch.cuda.is_available() else "cpu")
                detector.eval()
                for frame, path in zip(frames, paths):
                    detector(frame, save_path=path)
            """
        ),
        # A hand-written layer framework: the trainer calls its model's own `backward` with the loss's gradient
        # (`self.model.backward(self.loss_fn.backward())`), so autograd tracks none of its weights.
        Valid(
            """
            import torch
            from torch import nn



            class LayerTrainer:
                def __init__(self, model: nn.Module, loss_fn, optimizer):
                    self.model = model
                    self.loss_fn = loss_fn
                    self.optimizer = optimizer

                def train_batch(self, X, y):
                    out = self.model(X)
                    loss = self.loss_fn(out, y)
                    self.optimizer.zero_grad()
                    self.model.backward(self.loss_fn.backward())
                    self.optimizer.step()
                    return loss.item(), (out.argmax(dim=1) == y).sum().item()

                def test_batch(self, X, y):
                    out = self.model(X)
                    loss = self.loss_fn(out, y)
                    return loss.item(), (out.argmax(dim=1) == y).sum().item()

                def test_epoch(self, dl_test):
                    return [self.test_batch(X, y) for X, y in dl_test]
            """
        ),
        # An exercise's training loop whose zeroing, backward pass and step are left to write (`...`).
        Valid(
            """
            import torch


            def train_epoch(model, train_loader, criterion, optimizer, writer=None, epoch=None):
                model.train()
                total_loss = 0.0
                for batch_idx, (inputs, labels) in enumerate(train_loader):
                    # TODO: Zero the gradients
                    ...
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    # TODO: Perform backpropagation
                    ...
                    # TODO: Update the model parameters
                    ...
                    total_loss += loss.item()
                    if writer and epoch is not None and batch_idx % 50 == 0:
                        writer.add_scalar("Loss/train_batch", loss.item(), epoch * len(train_loader) + batch_idx)
                return total_loss / len(train_loader)
            """
        ),
        # A function that also calls `model.decision_function(...)`, a method only scikit-learn's estimators have:
        # its `model` is an estimator, whose `predict_proba` records no graph.
        Valid(
            """
            import numpy as np
            import torch


            def predict_estimator(model, X_test, y_test, task="regression"):
                X_np = X_test.reshape(len(X_test), -1)
                y_np = y_test.reshape(-1, 1)
                if task == "classification":
                    if hasattr(model, "predict_proba"):
                        predicted = model.predict_proba(X_np)[:, 1].reshape(-1, 1)
                    else:
                        logits = model.decision_function(X_np)
                        predicted = 1.0 / (1.0 + np.exp(-logits)).reshape(-1, 1)
                else:
                    predicted = model.predict(X_np).reshape(-1, 1)
                return predicted, y_np


            def as_tensor(values):
                return torch.as_tensor(values)
            """
        ),
        # An untrained model's demo whose constructor is handed a keyword named for weights that holds None
        # (`emb_weights = None`): no weights given, nothing trained.
        Valid(
            """
            import torch
            import torch.nn as nn


            class CNN(nn.Module):
                def __init__(self, vocab_size, emb_dim, out_dim, emb_weights=None):
                    super().__init__()
                    self.emb = nn.Embedding(vocab_size, emb_dim)
                    if emb_weights is not None:
                        self.emb.weight = nn.Parameter(emb_weights)
                    self.fc = nn.Linear(emb_dim, out_dim)

                def forward(self, x):
                    return self.fc(self.emb(x).mean(1))


            emb_weights = None
            model = CNN(100, 16, 4, emb_weights=emb_weights)
            x = torch.randint(100, (2, 7))
            print(model(x))
            """
        ),
        # Two untrained layers built by one tuple assignment (`encoder, decoder = ...`) and tried on a made-up
        # signal in a script that never trains: a demo of the layers' code.
        Valid(
            """
            import torch
            import torch.nn as nn

            encoder, decoder = nn.Conv1d(1, 8, 16, stride=8), nn.ConvTranspose1d(8, 1, 16, stride=8)
            signal = torch.sin(torch.linspace(0, 100, 8000)).view(1, 1, -1)
            restored = decoder(encoder(signal))
            print(restored.shape, (restored - signal).pow(2).mean().item())
            """
        ),
        # kymatio's scattering transform has no parameters: its run on data without grad records no graph.
        Valid(
            """
            import numpy as np
            import torch
            from kymatio import Scattering1D


            class ScatteringFeatures:
                def __init__(self):
                    self.scattering = Scattering1D(5, 200, 2)

                def extract(self, samples):
                    x = torch.from_numpy(np.asarray(samples)).float()
                    features = self.scattering.forward(x)
                    return features.numpy()
            """
        ),
        # One body for both phases, its evaluation phase run only by a caller that disables grad (`val`),
        # its training phase by one that backpropagates (`train`).
        Valid(
            """
            import torch


            def step(split, loader, model, optimizer=None):
                if split == "train":
                    model.train()
                else:
                    model.eval()
                total = 0.0
                for x, y in loader:
                    output = model(x)
                    loss = torch.nn.functional.mse_loss(output, y)
                    total += loss.item()
                    if split == "train":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                return total


            def train(loader, model, optimizer):
                return step("train", loader, model, optimizer)


            def val(loader, model):
                with torch.no_grad():
                    return step("val", loader, model)
            """
        ),
        # An untrained generator's demo through another name for it (`g = generator`): nothing trains or loads it under either name.
        Valid(
            """
            import torch
            import torch.nn as nn

            generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            g = generator
            g.eval()
            noise = torch.randn(1, 4)
            fake = g(noise)
            print(fake)
            """
        ),
        # The same class whose weights do not require grad: no graph is recorded.
        Valid(
            """
            import torch


            class PSoftmaxModel(object):
                def __init__(self, fea_num, cate_num):
                    self.fea_num = fea_num
                    self.w = torch.normal(0, 0.01, size=(fea_num, cate_num))
                    self.b = torch.zeros(cate_num)

                def linreg(self, X):
                    return torch.mm(X.view(-1, self.fea_num), self.w) + self.b

                def fit(self, X):
                    return torch.softmax(self.linreg(X), dim=1)

                def predict(self, X):
                    y_pred = self.fit(X)
                    return torch.argmax(y_pred, dim=1).reshape(-1)


            model = PSoftmaxModel(784, 10)
            for x, y in loader:
                scores = model.fit(x)
            x, y = next(iter(test_loader))
            print(model.predict(x))
            """
        ),
        # The same helper keeping each step's log-probability in a list the episode backpropagates (REINFORCE).
        Valid(
            """
            import gym
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self, n_in, n_out):
                    super().__init__()
                    self.fc = nn.Linear(n_in, 64)
                    self.mean = nn.Linear(64, n_out)
                    self.log_std = nn.Parameter(torch.zeros(1, n_out))

                def forward(self, x):
                    h = torch.tanh(self.fc(x))
                    mean = self.mean(h)
                    log_std = self.log_std.expand_as(mean)
                    return mean, log_std, torch.exp(log_std)


            env = gym.make("Hopper-v4")
            policy_net = Policy(11, 3)
            optimizer = torch.optim.Adam(policy_net.parameters())


            def select_action(state, log_probs):
                state = torch.from_numpy(state).unsqueeze(0)
                action_mean, _, action_std = policy_net(state)
                action = torch.normal(action_mean, action_std)
                log_probs.append(-((action.detach() - action_mean) / action_std).pow(2).sum())
                return action


            def update_params(states):
                action_mean, _, _ = policy_net(torch.tensor(states))
                loss = -action_mean.sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


            for episode in range(100):
                state, states, log_probs = env.reset(), [], []
                for t in range(1000):
                    action = select_action(state, log_probs)
                    state, reward, done, _ = env.step(action.detach()[0].numpy())
                    states.append(state)
                    if done:
                        break
                update_params(states)
                torch.stack(log_probs).sum().backward()
            """
        ),
        # The same filter over the padded output: its gradient reaches the model, so it must run with grad.
        Valid(
            """
            import torch
            import torch.nn as nn
            from tqdm import tqdm


            class HighPass(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 3, 3, padding=1)

                def forward(self, x):
                    return x - self.conv(x)


            def train(model, train_loader, device):
                optim = torch.optim.Adam(model.parameters(), lr=1e-4)
                criterion = nn.MSELoss()
                high_pass = HighPass().to(device).eval()
                high_pass.load_state_dict(torch.load("high_pass.pth"))
                pad = nn.ReflectionPad2d(40)
                with tqdm(train_loader) as pbar:
                    for lr, hr in pbar:
                        lr = lr.to(device)
                        hr = hr.to(device)
                        sr = model(lr)
                        loss = criterion(sr, hr) + high_pass(pad(sr)).abs().mean()
                        optim.zero_grad()
                        loss.backward()
                        optim.step()
            """
        ),
        # The same global holding a plain filter object where the function is called: `conv1` is that
        # object's method, not a layer of the network the global holds later.
        Valid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn


            class EdgeFilter:
                def conv1(self, img):
                    return torch.nn.functional.conv2d(img, torch.ones(1, 1, 3, 3))


            class CNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv1 = nn.Conv2d(1, 8, 3)

                def forward(self, x):
                    return self.conv1(x)


            model = EdgeFilter()


            def show_edges():
                img = torch.rand(1, 1, 28, 28)
                plt.imshow(model.conv1(img)[0, 0].numpy())


            show_edges()

            model = CNN()
            model.load_state_dict(torch.load("cnn.pt"))
            model.eval()
            """
        ),
        # A saliency map: the outputs' items copied into a `torch.zeros` buffer, whose sum is backpropagated
        # to the input.
        Valid(
            """
            import torch


            class SaliencyGuidedTrainer:
                def __init__(self, model, optimizer):
                    self.model = model
                    self.optimizer = optimizer

                def input_gradients(self, x, label):
                    x.requires_grad = True
                    self.model.eval()
                    output = self.model(x)
                    targets = torch.zeros(x.shape[0])
                    for batch_index, batch in enumerate(output):
                        targets[batch_index] = batch[label[batch_index]]
                    targets.sum().backward(retain_graph=True)
                    self.optimizer.zero_grad()
                    return x.grad
            """
        ),
        # The same trainer with the teacher run under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            import torch.optim as optim


            class TrainManager(object):
                def __init__(self, student, teacher, train_loader):
                    self.student = student
                    self.teacher = teacher
                    self.optimizer = optim.SGD(self.student.parameters(), lr=0.1)
                    self.teacher.eval()
                    self.train_loader = train_loader

                def train(self):
                    criterion = nn.CrossEntropyLoss()
                    for data, target in self.train_loader:
                        self.optimizer.zero_grad()
                        output = self.student(data)
                        with torch.no_grad():
                            teacher_outputs = self.teacher(data)
                        loss = criterion(output, target) + F.kl_div(F.log_softmax(output, dim=1), F.softmax(teacher_outputs, dim=1))
                        loss.backward()
                        self.optimizer.step()
            """
        ),
        # A frozen backbone kept in eval mode, its classifier trained by the step's optimizer: the
        # optimizer of `model.classifier.parameters()` trains a part of `model`, whose graph the backward pass needs.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torch.optim import AdamW
            from torchvision.models import efficientnet_b0

            model = efficientnet_b0(weights="DEFAULT")
            model.classifier = nn.Linear(1280, 10)
            for name, parameter in model.named_parameters():
                parameter.requires_grad = name.startswith("classifier.")
            optimizer = AdamW(model.classifier.parameters(), lr=1e-3)
            criterion = nn.CrossEntropyLoss()
            for epoch in range(3):
                model.eval()
                model.classifier.train()
                for x, y in [(torch.randn(4, 3, 64, 64), torch.randint(0, 10, (4,)))]:
                    optimizer.zero_grad()
                    logits = model(x)
                    loss = criterion(logits, y)
                    loss.backward()
                    optimizer.step()
            """
        ),
        # A class taken from a dict and called with no input builds a model; the model runs under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def test_models(model_classes, model_paths, dataloader, device):
                scores = []
                for images, labels in dataloader:
                    for weights_path in model_paths:
                        model_class = model_classes[weights_path]
                        model = model_class().to(device)
                        model.load_state_dict(torch.load(weights_path))
                        model.eval()
                        with torch.no_grad():
                            outputs = model(images.to(device))
                        scores.append(F.softmax(outputs, dim=1).cpu().numpy())
                return scores
            """
        ),
        # YOLOv5 loaded from a local copy of its repository: AutoShape runs its forward without grad.
        Valid(
            """
            import cv2
            import torch

            model = torch.hub.load("yolov5-master/", "yolov5s", source="local", pretrained=True)
            frame = cv2.imread("street.jpg")
            results = model([frame])
            print(results.xyxyn[0][:, -1].cpu().numpy())
            """
        ),
        # An untrained instance of the file's class run once on numbers written in the code, its output
        # thrown away, in a script that times nothing: a check that it runs.
        Valid(
            """
            import numpy as np
            import torch
            import torch.nn as nn


            class Actor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Linear(16, 1))

                def forward(self, state):
                    return torch.tanh(self.net(state))


            actor = Actor()
            actor.eval()
            actor(torch.from_numpy(np.array([[1, 2]], dtype="float32")))
            """
        ),
        # Every model of a list frozen by a loop over the list (`if p.requires_grad:` guarding each freeze):
        # their calls on inputs without grad record no graph.
        Valid(
            """
            import torch
            import torch.nn as nn

            encoder = nn.Linear(8, 4)
            classifier = nn.Linear(4, 2)
            optimizer = torch.optim.Adam(list(encoder.parameters()) + list(classifier.parameters()))
            for x, y in [(torch.randn(16, 8), torch.randint(0, 2, (16,)))]:
                loss = nn.functional.cross_entropy(classifier(encoder(x)), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            models = [encoder, classifier]
            for model in models:
                for param in model.parameters():
                    if param.requires_grad:
                        param.requires_grad = False
            val_x = torch.randn(16, 8)
            predicts = classifier(encoder(val_x)).argmax(1)
            print(predicts.tolist())
            """
        ),
        # A module class of the file holding only torchaudio's transforms (buffers, no parameters):
        # computing features with it records no graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchaudio.transforms import MelSpectrogram, TimeMasking


            class LogMelSpectrogram(nn.Module):
                def __init__(self, n_mels=40, masking=True):
                    super().__init__()
                    self.transform = MelSpectrogram(sample_rate=16000, n_mels=n_mels)
                    self.masking = masking
                    if masking:
                        self.time_masking = TimeMasking(time_mask_param=30)

                def forward(self, waveform):
                    spectrogram = self.transform(waveform)
                    if self.masking:
                        spectrogram = self.time_masking(spectrogram)
                    return torch.log(spectrogram + 1e-9)


            def validate(model, val_loader):
                melspec_val = LogMelSpectrogram(masking=False)
                model.eval()
                correct = 0
                for X, y in val_loader:
                    features = melspec_val(X)
                    with torch.no_grad():
                        pred = model(features)
                    correct += (pred.argmax(dim=1) == y).sum().item()
                return correct
            """
        ),
        # A helper that switches the model to eval mode, whose result the training step backpropagates
        # (the distances to the prototypes are in the loss): its graph is trained through.
        Valid(
            """
            import torch
            import torch.nn as nn


            def calculate_prototypes(X, y, model):
                model.eval()
                prototypes = []
                for c in torch.unique(y):
                    features = model(X[y == c])
                    prototypes.append(features.mean(dim=0))
                return torch.stack(prototypes)


            model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1))
            optimizer = torch.optim.Adam(model.parameters())
            X = torch.randn(20, 4)
            y = torch.randint(0, 3, (20,))
            for epoch in range(3):
                model.train()
                optimizer.zero_grad()
                prototypes = calculate_prototypes(X, y, model)
                distances = torch.cdist(model(X), prototypes)
                loss = nn.functional.cross_entropy(-distances, y)
                loss.backward()
                optimizer.step()
            """
        ),
        # A module whose `forward` trains through a helper of its class (`self.backward_g(x)` runs
        # `backward()`): a call of it is a training step, which `no_grad` would break.
        Valid(
            """
            import torch
            from torch import nn


            class AnomalyGAN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.netg = nn.Linear(8, 8)
                    self.optimizer = torch.optim.Adam(self.netg.parameters())

                def backward_g(self, x):
                    self.err_g = (self.netg(x) - x).abs().mean()
                    self.err_g.backward()

                def forward(self, x):
                    self.optimizer.zero_grad()
                    self.backward_g(x)
                    self.optimizer.step()
                    return self.err_g


            model = AnomalyGAN()
            model.load_state_dict(torch.load("ganomaly.pt"))
            model.eval()
            for images, labels in test_loader:
                error = model(images)
                print(error.item())
            """
        ),
        # A batch norm without parameters (`affine=False`), switched on its construction: on made-up
        # input, nothing requires grad, so no graph is recorded.
        Valid(
            """
            import torch
            from torch import nn

            bn = nn.BatchNorm1d(100, affine=False).train()
            for i in range(100):
                bn(torch.randn(20, 100) * 20 + 7)

            bn.eval()
            print(bn(torch.ones(20, 100)))
            """
        ),
        # The same function handed the module's own `net`, which runs no model.
        Valid(
            """
            import torch
            from torch import nn


            def net(x):
                return x * 2


            def predict(net, x):
                return net(x).argmax(1).tolist()


            model = nn.Linear(4, 3)
            model.load_state_dict(torch.load("linear.pt"))
            print(predict(net, torch.randn(2, 4)))
            """
        ),
        # The same target backpropagated as it is, graph and all: the graph is used.
        Valid(
            """
            import torch
            from torch import nn
            from torch.optim import Adam

            class DQN:
                def __init__(self):
                    self.model = nn.Linear(4, 2)
                    self.target_net = nn.Linear(4, 2)
                    self.target_net.eval()
                    self.optim = Adam(self.model.parameters())
                    self.criterion = nn.MSELoss()

                def train_step(self, s_batch, a_batch, ns_batch, r_batch, d_batch):
                    q_batch = self.model(s_batch).gather(-1, a_batch[:, None].long()).squeeze()
                    target = self.target_net(ns_batch).max(1)[0]
                    target *= (1 - d_batch.float()) * 0.99
                    target += r_batch
                    loss = self.criterion(q_batch, target)
                    self.optim.zero_grad()
                    loss.backward()
                    self.optim.step()
            """
        ),
        # A training step whose plain branch lost its backward pass (the mixed-precision branch has it):
        # a bug of its own, which `no_grad` would only hide.
        Valid(
            """
            import torch


            def train(model, train_loader, optimizer, criterion, scaler, mixed_precision, device):
                model.train()
                total = 0.0
                for sequences, labels in train_loader:
                    optimizer.zero_grad()
                    if mixed_precision and device == "cuda":
                        with torch.autocast("cuda"):
                            outputs = model(sequences)
                            loss = criterion(outputs, labels)
                        scaler.scale(loss).backward()
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        outputs = model(sequences)
                        loss = criterion(outputs, labels)
                    total += loss.item()
                return total
            """
        ),
        # The same hook of a `LightningModule`: the trainer runs it without grad.
        Valid(
            """
            import lightning as L
            import torch
            from torch import nn


            class Solver(L.LightningModule):
                def __init__(self, encoder, decoder):
                    super().__init__()
                    self.encoder = encoder
                    self.decoder = decoder

                def test_step(self, x, c):
                    enc = self.encoder(x)
                    x_tilde = self.decoder(enc, c)
                    return x_tilde.data.cpu().numpy()
            """
        ),
        # The same loop calling a method that only rewrites the weights: no model runs.
        Valid(
            """
            import torch
            from torch import nn


            class QNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(1, 8, 3)
                    self.fc = nn.Linear(8 * 26 * 26, 10)

                def quantize_weights(self, bits):
                    for p in self.parameters():
                        p.data = torch.round(p.data * 2**bits) / 2**bits


            def calibrate(model, test_loader):
                for data, target in test_loader:
                    output = model.quantize_weights(8)
                print("calibrated")
            """
        ),
        # A pickled model known by its name alone, in a file that imports XGBoost's estimators: its
        # `predict` may be theirs, which records no graph.
        Valid(
            """
            import pickle

            import torch
            from xgboost import XGBClassifier

            X_val = torch.load("X_val.pt")

            with open("model.pkl", "rb") as f:
                loaded_model = pickle.load(f)
            test_X = X_val[:10]
            if isinstance(test_X, torch.Tensor):
                test_X = test_X.numpy()
            predictions = loaded_model.predict(test_X)
            print(f"Sample predictions: {predictions[:5]}")
            """
        ),
        # A saved model loaded again and run once on made-up input, its output read for its shape: a
        # check that it loads and runs (not timed: its cost is not what is measured).
        Valid(
            """
            import torch
            import torchvision

            model = torchvision.models.alexnet(weights=None)
            model.eval()
            example_input = torch.rand(1, 3, 224, 224)
            traced_model = torch.jit.trace(model, example_input)
            traced_model.save("alexnet_traced.pt")
            print(traced_model.code)

            loaded_model = torch.jit.load("alexnet_traced.pt")
            out = loaded_model(torch.rand(1, 3, 224, 224))
            print(out.shape)
            """
        ),
        # `requires_grad_()` hands back the output itself, graph and all: the loss is backpropagated.
        Valid(
            """
            import torch
            from torch import nn, optim


            def fit(model, loader):
                optimizer = optim.Adam(model.parameters())
                ctc = nn.CTCLoss()
                for images, targets, lengths in loader:
                    model.train()
                    input_lengths = torch.full((images.size(0),), 32, dtype=torch.long)
                    loss = ctc(model(images).log_softmax(2).requires_grad_(), targets, input_lengths, lengths)
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad()
            """
        ),
        # A helper returning a model method's output, backpropagated by its caller.
        Valid(
            """
            import torch
            import torch.nn as nn


            class AE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.e = nn.Linear(4, 2)
                    self.d = nn.Linear(2, 4)

                def decode(self, z):
                    return self.d(z)

                def forward(self, x):
                    return self.decode(self.e(x))


            ae = AE()
            opt = torch.optim.Adam(ae.parameters())
            for x in loader:
                loss = ((ae(x) - x) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()


            def decode(z):
                return ae.decode(z)


            sample = decode(torch.randn(1, 2))
            penalty = sample.pow(2).mean()
            penalty.backward()
            """
        ),
        # `to_pil` is a converter into images in one function and a list's `append` in another:
        # what it makes of the output is not known.
        Valid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torchvision.transforms as transforms


            def show_model_output(model, x):
                to_pil = transforms.ToPILImage()
                y_pred = torch.sigmoid(model(x))
                plt.imshow(to_pil(y_pred[0]))
                plt.show()


            def keep_model_output(model, x, store):
                to_pil = store.append
                to_pil(model(x))
            """
        ),
        # The file's one `predict_label` belongs to a plain wrapper running its model under
        # `no_grad`: an attack calling it on a model known by its name alone records no graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            class PytorchModel(object):
                def __init__(self, model):
                    self.model = model
                    self.model.eval()

                def predict_label(self, image):
                    with torch.no_grad():
                        output = self.model(image)
                    _, predict = torch.max(output, 1)
                    return predict[0]


            class OPTAttack(object):
                def __init__(self, model):
                    self.model = model

                def attack(self, x0, y0):
                    model = self.model
                    if model.predict_label(x0) != y0:
                        return x0
                    return x0 * 2
            """
        ),
        # Predictions written into a buffer that a rollout loss then backpropagates: the graphs are
        # what the buffer is for.
        Valid(
            """
            import torch
            from torch import nn

            net = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 1))
            optimizer = torch.optim.Adam(net.parameters())
            x = torch.randn(100)
            for X, y in loader:
                optimizer.zero_grad()
                loss = ((net(X) - y) ** 2).mean()
                loss.backward()
                optimizer.step()

            preds = torch.zeros(100)
            preds[:4] = x[:4]
            for i in range(4, 100):
                preds[i] = net(preds[i - 4:i].reshape((1, -1)))
            rollout_loss = ((preds[4:] - x[4:]) ** 2).mean()
            rollout_loss.backward()
            optimizer.step()
            """
        ),
        # A helper that saves the model it is handed gives it no weights: the generator shown is
        # untrained, a demo of its shapes.
        Valid(
            """
            import torch
            import torch.nn as nn
            from PIL import Image


            def save_model(filename, model, optimizer):
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, filename)


            if __name__ == "__main__":
                gen = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
                opt = torch.optim.Adam(gen.parameters())
                save_model("gen.pth", gen, opt)
                image = gen(torch.randn(1, 8))[0]
                picture = image.detach().numpy()
                Image.fromarray(picture).show()
            """
        ),
        # A sampler handed a trained model runs it only under its own `no_grad`: the call records
        # no graph, though its first sample comes from a function it is handed.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l = nn.Linear(4, 4)

                def forward(self, x, t):
                    return self.l(x) * t


            def em_sampler(score_model, marginal_prob_std, n=10):
                t = torch.ones(8, 4)
                x = torch.randn(8, 4) * marginal_prob_std(t)
                with torch.no_grad():
                    for i in range(n):
                        x = x + 0.1 * score_model(x, 0.5)
                return x


            score_model = Net()
            score_model.load_state_dict(torch.load("ckpt.pth"))
            samples = em_sampler(score_model, std_fn, 10)
            print(samples.clamp(0, 1))
            """
        ),
        # A module holding only torchvision's image transforms has no parameters: preprocessing an
        # image with it records no graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchvision import transforms


            class Preprocess(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.preprocess = transforms.Compose([transforms.Resize((256, 256)), transforms.ToTensor()])

                def forward(self, image):
                    return self.preprocess(image)


            model = torch.load("model.pt")
            model.eval()
            transform = Preprocess()
            x = transform(image).unsqueeze(0)
            with torch.no_grad():
                print(model(x).argmax(1))
            """
        ),
        # A style-transfer loss network assembled from the layers of a VGG it froze, parameterless
        # layers and a loss module keeping a detached target: the targets computed with it record
        # no graph (every parameter it holds is frozen).
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models


            class StyleLoss(nn.Module):
                def __init__(self, target):
                    super().__init__()
                    self.target = target.detach()

                def forward(self, x):
                    self.loss = torch.mean((x - self.target) ** 2)
                    return x


            def build(style, device):
                cnn = models.vgg19(weights="DEFAULT").features.eval().to(device)
                cnn.requires_grad_(False)
                model = nn.Sequential()
                losses = []
                for i, layer in enumerate(cnn.children()):
                    if isinstance(layer, nn.ReLU):
                        layer = nn.ReLU(inplace=False)
                    model.add_module(f"layer_{i}", layer)
                    if i in (1, 6, 11):
                        target = model(style).detach()
                        loss = StyleLoss(target)
                        model.add_module(f"style_loss_{i}", loss)
                        losses.append(loss)
                return model, losses
            """
        ),
        # The validation predictions collected under `no_grad`.
        Valid(
            """
            import torch as th
            import torch.nn as nn

            net = nn.Linear(4, 1)
            opt = th.optim.Adam(net.parameters())
            loss = nn.MSELoss()
            for epoch in range(10):
                pred_label = th.stack([net(g) for g, _ in trainset])
                ep_t_loss = loss(pred_label, labels)
                ep_t_loss.backward()
                opt.step()
                opt.zero_grad()
                with th.no_grad():
                    pred = th.tensor([net(graph) for graph, _ in validset])
                ep_v_loss = loss(pred, vlabels)
                print(ep_v_loss.item())
            """
        ),
        # The discriminator's costs for the policy's step computed under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn

            d = nn.Linear(4, 1)
            pi = nn.Linear(4, 1)
            opt = torch.optim.Adam(pi.parameters())
            for x, y in loader:
                with torch.no_grad():
                    costs = (-1) * torch.log(d(x))\
                        .squeeze()
                loss = (pi(x).squeeze() * costs).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            """
        ),
        # A test of a hand-written cell against torch's layer: both built here, the parameters
        # copied pairwise from one to the other, the outputs compared.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Cell(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.lin = nn.Linear(n, n)

                def forward(self, x):
                    return torch.tanh(self.lin(x))


            def test(n):
                x = torch.randn(3, n)
                custom = Cell(n)
                out = custom(x)
                native = nn.Linear(n, n)
                for native_param, custom_param in zip(native.parameters(), custom.parameters()):
                    with torch.no_grad():
                        native_param.copy_(custom_param)
                assert (out - torch.tanh(native(x))).abs().max() < 1e-5
            """
        ),
        # A Hopfield network's own `step`, computing with its weight, iterated under `no_grad`
        # after training to show the reconstruction.
        Valid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn


            class Hopfield(nn.Module):
                def __init__(self, size):
                    super().__init__()
                    self.weight = nn.Parameter(torch.zeros(size, size))

                def step(self, x):
                    return torch.tanh(x @ self.weight)

                def forward(self, x, steps=5):
                    for _ in range(steps):
                        x = self.step(x)
                    return x


            model = Hopfield(64)
            optimizer = torch.optim.Adam(model.parameters())
            for x in loader:
                loss = (model(x) - x).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            state = noisy
            with torch.no_grad():
                for i in range(7):
                    state = model.step(state)
                    plt.imshow(state.view(8, 8))
            """
        ),
        # A plain class's `forward` handing back only detached arrays, run by its caller under
        # `no_grad`.
        Valid(
            """
            import torch


            class Member:
                def __init__(self):
                    self.model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))

                def forward(self, inputs):
                    out = self.model(torch.from_numpy(inputs).float())
                    mean, var = torch.split(out, 1, dim=1)
                    return mean.detach().numpy(), var.detach().numpy()


            member = Member()
            with torch.no_grad():
                mean, var = member.forward(xtest)
            """
        ),
        # A homework's importance of each weight (Memory Aware Synapses), left to write: the loop
        # zeroes the model's gradients and runs it, and its gradients are what the `TODO` reads.
        Valid(
            """
            class MAS:
                def __init__(self, model, dataloader):
                    self.model = model
                    self.dataloader = dataloader

                def calculate_importance(self):
                    self.model.eval()
                    for data in self.dataloader:
                        self.model.zero_grad()
                        output = self.model(data[0])
                        # TODO: generate the importance of each weight from its gradients
                        pass
            """
        ),
        # A data set class's own `generator` method, called before evaluating under `no_grad`:
        # a method the class defines, not a generator network, whatever its name.
        Valid(
            """
            import torch


            class Dataset:
                def __init__(self, pairs):
                    self.pairs = pairs

                def generator(self, batch_size):
                    for i in range(0, len(self.pairs), batch_size):
                        yield torch.zeros(batch_size, dtype=torch.long)


            def evaluate(test_set: Dataset, model):
                test_gen = test_set.generator(1)
                model.eval()
                with torch.no_grad():
                    for batch in test_gen:
                        print(model(batch).argmax(1))
            """
        ),
        # The same function's evaluation phase run under `no_grad`.
        Valid(
            """
            import torch


            def run_epoch(model, loader, criterion, optimizer, mode="train"):
                total = 0.0
                for x, y in loader:
                    out = model(x)
                    loss = criterion(out, y)
                    if mode == "train" or mode == "train+log":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total


            def fit(model, train_loader, val_loader, criterion, optimizer):
                for epoch in range(10):
                    model.train()
                    run_epoch(model, train_loader, criterion, optimizer, mode="train+log")
                    model.eval()
                    with torch.no_grad():
                        print(run_epoch(model, val_loader, criterion, optimizer, mode="eval"))
            """
        ),
        # REINFORCE keeping each step's `log_prob` of the distribution a helper builds from the
        # policy's output: the loss backpropagates through those graphs.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torch.distributions import Categorical


            def get_policy(policy_net, obs):
                return Categorical(logits=policy_net(obs))


            def train(env, episodes=10):
                policy_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
                optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-2)
                for episode in range(episodes):
                    log_probs, rewards = [], []
                    s, done = env.reset(), False
                    while not done:
                        dist = get_policy(policy_net, torch.tensor(s, dtype=torch.float32))
                        a = dist.sample()
                        log_probs.append(dist.log_prob(a))
                        s, r, done, _ = env.step(a.item())
                        rewards.append(r)
                    loss = -(torch.stack(log_probs) * sum(rewards)).sum()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """
        ),
        # A new torch layer shown on made-up features in a notebook that trains another model:
        # a demo of the layer, whose weights are random.
        Valid(
            """
            import torch
            from torch import nn

            encoder = nn.Linear(8, 4)
            optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
            for x, y in loader:
                optimizer.zero_grad()
                loss = ((encoder(x) - y) ** 2).mean()
                loss.backward()
                optimizer.step()

            features = torch.rand(2, 4)
            print(nn.Linear(4, 1)(features))
            """
        ),
        # The meta-training step backpropagates the query loss through the functional copy.
        Valid(
            """
            import higher
            import torch
            import torch.nn.functional as F


            def meta_train(net, meta_opt, tasks, inner_steps=5):
                inner_opt = torch.optim.SGD(net.parameters(), lr=0.1)
                for x_spt, y_spt, x_qry, y_qry in tasks:
                    meta_opt.zero_grad()
                    with higher.innerloop_ctx(net, inner_opt, copy_initial_weights=False) as (fnet, diffopt):
                        for _ in range(inner_steps):
                            diffopt.step(F.cross_entropy(fnet(x_spt), y_spt))
                        qry_loss = F.cross_entropy(fnet(x_qry), y_qry)
                        qry_loss.backward()
                    meta_opt.step()
            """
        ),
        # The helper hands its picture back with the graph copied into it, and the caller
        # backpropagates it: not only read.
        Valid(
            """
            import matplotlib.pyplot as plt
            import torch
            from torch import nn


            class Colorizer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gen = nn.Conv2d(1, 3, 3, padding=1)
                    self.disc = nn.Conv2d(3, 1, 3)

                def generate(self, gray):
                    return self.gen(gray)


            def to_picture(image):
                s = image.size()
                picture = torch.zeros(s[1], s[2], s[0])
                for i in range(s[0]):
                    picture[:, :, i] = image[i, :, :]
                return picture


            def train_step(model, gray, color, optimizer):
                optimizer.zero_grad()
                loss = ((model.generate(gray) - color) ** 2).mean()
                loss.backward()
                optimizer.step()


            model = Colorizer()
            optimizer = torch.optim.Adam(model.gen.parameters())
            for gray, color in loader:
                train_step(model, gray, color, optimizer)
            out = model.generate(gray)
            to_picture(out[0]).sum().backward()
            """
        ),
        # The loop's backward pass keeps its graph (`retain_graph=True`): an input bound before
        # the loop may then carry one, and the features need not be constants.
        Valid(
            """
            import torch
            from torch import nn
            from torchvision import models


            class Features(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.vgg = models.vgg19(weights="DEFAULT").features

                def forward(self, x):
                    return self.vgg(x)


            def transfer(content, steps):
                net = Features().eval()
                image = content.clone().requires_grad_(True)
                optimizer = torch.optim.Adam([image], lr=0.01)
                for _ in range(steps):
                    optimizer.zero_grad()
                    loss = torch.mean((net(image) - net(content)) ** 2)
                    loss.backward(retain_graph=True)
                    optimizer.step()
                return image
            """
        ),
        # A model of new layers, shown on an input as it is built: a demo, not an evaluation.
        Valid(
            """
            import torch
            from torch import nn

            content = torch.rand(1, 3, 64, 64)
            model = nn.Sequential()
            targets = []
            for i, layer in enumerate([nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 8, 3)]):
                model.add_module(str(i), layer)
                if i in (1, 2):
                    targets.append(model(content).detach())
            """
        ),
        # Sampling methods picked from a table (`sampler[kind](x, length)`), and the table is
        # called only under `no_grad`: so are they.
        Valid(
            """
            import torch


            class System:
                def sample(self, x, length):
                    self.net.eval()
                    sampler = dict(tcn=self.sample_tcn, lstm=self.sample_rnn)
                    with torch.no_grad():
                        outputs = sampler[self.kind](x, length)
                    print(outputs)

                def sample_rnn(self, x, length):
                    history = [x]
                    for _ in range(length):
                        logits = self.net(history[-1])
                        history.append(torch.multinomial(torch.softmax(logits, dim=-1), 1))
                    return torch.stack(history)

                def sample_tcn(self, x, length):
                    history = [x]
                    for _ in range(length):
                        logits = self.net(torch.cat(history, dim=-1))
                        history.append(torch.multinomial(torch.softmax(logits[:, -1], dim=-1), 1))
                    return torch.stack(history)
            """
        ),
        # The backward pass sits under `optimizer is not None`, and every call hands an optimizer:
        # no phase runs without one.
        Valid(
            """
            def run_epoch(model, loader, criterion, optimizer=None):
                for x, y in loader:
                    loss = criterion(model(x), y)
                    if optimizer is not None:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()


            def train(model, train_dl, criterion, optimizer, epochs):
                for epoch in range(epochs):
                    model.train()
                    run_epoch(model, train_dl, criterion, optimizer)
            """
        ),
        # The same loss function keeping its argument (appended to a list the module holds): what
        # it returns may not end the graph.
        Valid(
            """
            import torch
            from torch import nn

            seen = []


            def mse_loss(y_pred, y):
                seen.append(y_pred)
                return ((y_pred - y) ** 2).mean()


            loss = mse_loss


            def fit(features, labels, train_iter, num_epochs):
                net = nn.Linear(features.shape[1], 1)
                optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
                history = []
                for _ in range(num_epochs):
                    for x, y in train_iter:
                        l = loss(net(x), y)
                        optimizer.zero_grad()
                        l.backward()
                        optimizer.step()
                    history.append(loss(net(features), labels).mean().item())
                return history
            """
        ),
        # `dropout.eval()` in a demo of dropout switches a layer without parameters: it says nothing
        # of evaluating the untrained classifier shown after it.
        Valid(
            """
            import torch
            import torchvision
            from torch import nn
            from torch.utils.data import DataLoader

            transform = torchvision.transforms.ToTensor()
            dataset = torchvision.datasets.CIFAR10(root="data", train=False, transform=transform)
            imgs, _ = next(iter(DataLoader(dataset, batch_size=64)))

            dropout = nn.Dropout(p=0.5)
            dropout.eval()
            print(dropout(imgs).shape)
            dropout.train()

            classifier = nn.Sequential(nn.Flatten(), nn.Linear(3072, 10))
            out = classifier(imgs)
            print(out.shape)
            """
        ),
        # A model of a library not built on torch (fastText), in a file that imports torch: its
        # `predict` records no graph, whatever the name it is bound to.
        Valid(
            """
            import fasttext
            import torch

            def inference(path, texts):
                model = fasttext.load_model(path)
                for text in texts:
                    print(model.predict(text, k=2))
            """
        ),
        # A Catalyst runner's `predict_batch`: `runner.predict_loader(...)` runs it without grad.
        Valid(
            """
            import torch
            from catalyst import dl

            class SegmentationRunner(dl.SupervisedRunner):
                def predict_batch(self, batch):
                    return self.model(batch[0].to(self.device)).argmax(1)
            """
        ),
        # A function handed the model runs it under `no_grad` and sums the scores into a number
        # (`log_is = 0`, then `log_is += ...`): what it returns carries no graph.
        Valid(
            """
            import torch

            def inception_score(model, classifier):
                log_is = 0
                num_batches = 500
                with torch.no_grad():
                    for _ in range(num_batches):
                        p = torch.softmax(classifier(model(torch.randn(100, 8))), 1)
                        log_is += (p * torch.log(p)).sum(1)
                log_is /= num_batches
                return torch.exp(log_is.mean())

            generator = torch.load("generator.pt")
            print(inception_score(generator, torch.load("classifier.pt")))
            """
        ),
        # A numpy layer of the file defines `forward`: an explicit `.forward(...)` call on an
        # object handed in shows no torch module.
        Valid(
            """
            import numpy as np
            import torch

            class Dense:
                def __init__(self, w):
                    self.w = w

                def forward(self, x):
                    return x @ self.w

            class Agent:
                def __init__(self, net):
                    self.net = net

                def act(self, state):
                    return int(np.argmax(self.net.forward(state)))
            """
        ),
        # The output of a model in eval mode kept (not only read) by a function that trains it
        # afterwards: it may yet be backpropagated.
        Valid(
            """
            import torch

            def fit(model, history, optimizer, x, y):
                model.eval()
                pred = model(x)
                history.append(pred)

                def closure():
                    optimizer.zero_grad()
                    loss = ((model(x) - y) ** 2).mean()
                    loss.backward()
                    return loss

                return optimizer.step(closure)
            """
        ),
        # A plain class's helper running only a layer without parameters (`nn.Flatten`): no graph.
        Valid(
            """
            import torch
            from torch import nn


            class CParser:
                def __init__(self):
                    self.flatten = nn.Flatten(start_dim=0)

                def tensor_to_array(self, name, tensor):
                    tensor = self.flatten(tensor)
                    return f"float {name}[] = {{" + ", ".join(str(t.item()) for t in tensor) + "};"

                def output_testing(self, expected):
                    return self.tensor_to_array("expected", expected)
            """
        ),
        # The training phase's forward pass in its own branch, the evaluation phase's under
        # `no_grad` in the other: no phase records a graph for nothing.
        Valid(
            """
            import torch


            def fit(model, optimizer, criterion, loader, phase="training"):
                if phase == "training":
                    model.train()
                else:
                    model.eval()
                total = 0
                for inputs, targets in loader:
                    if phase == "training":
                        optimizer.zero_grad()
                        outputs = model(inputs)
                    else:
                        with torch.no_grad():
                            outputs = model(inputs)
                    loss = criterion(outputs, targets)
                    total += loss.item()
                    if phase == "training":
                        loss.backward()
                        optimizer.step()
                return total


            def train(model, optimizer, criterion, train_loader, val_loader):
                for epoch in range(10):
                    fit(model, optimizer, criterion, train_loader, phase="training")
                    fit(model, optimizer, criterion, val_loader, phase="validation")
            """
        ),
        # An untrained generator of the file shown at work on numpy's random numbers, in a file
        # that never backpropagates: a demo of the code, not an evaluation.
        Valid(
            """
            import numpy as np
            import torch
            import torch.nn as nn


            class Generator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(100, 784), nn.Tanh())

                def forward(self, z):
                    return self.net(z)


            G = Generator()
            G.eval()
            print(G(torch.tensor(np.random.normal(size=[2, 100])).float()))
            """
        ),
        # The same function's evaluation pass called under `no_grad`.
        Valid(
            """
            import torch


            def run_epoch(model, loader, optimizer, criterion, grad):
                total = 0.0
                for images, targets in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(images), targets)
                    if grad:
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total / len(loader)


            def fit(model, train_loader, test_loader, optimizer, criterion, epochs):
                for epoch in range(epochs):
                    train_loss = run_epoch(model, train_loader, optimizer, criterion, True)
                    with torch.no_grad():
                        test_loss = run_epoch(model, test_loader, optimizer, criterion, False)
                    print(epoch, train_loss, test_loss)
            """
        ),
        # A `log` method that writes a message and runs nothing.
        Valid(
            """
            import torch
            import torch.nn as nn
            from transformers import AutoModel


            class Regressor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bert = AutoModel.from_pretrained("bert-base-uncased")
                    self.head = nn.Linear(768, 1)

                def forward(self, ids):
                    return self.head(self.bert(ids).last_hidden_state[:, 0])

                def log(self, message):
                    print(f"{type(self).__name__}: {message}")
                    return message


            class Classifier(Regressor):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Linear(768, 2)


            def report(task, ids):
                model = Regressor() if task == "regression" else Classifier()
                model.load_state_dict(torch.load("model.pt"))
                model.eval()
                print(model.log(ids.shape))
            """
        ),
        # A function defined in another's body and called there only under `no_grad`.
        Valid(
            """
            import torch


            def target_values(policy_net, target_net, next_states, rewards, gamma=0.99):
                def best_actions(states):
                    q = policy_net(states)
                    return q.max(1)[1].unsqueeze(1)

                with torch.no_grad():
                    actions = best_actions(next_states)
                    next_q = target_net(next_states).gather(1, actions)
                return rewards + gamma * next_q
            """
        ),
        # The values of a maximum (`.max(1)[0]`), backpropagated by the caller: training.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Critic:
                def __init__(self, n_actions):
                    self.model = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, n_actions))
                    self.optimizer = torch.optim.Adam(self.model.parameters())

                def best_value(self, states):
                    return self.model(states).max(1)[0]

                def learn(self, states, targets):
                    loss = (self.best_value(states) - targets).pow(2).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """
        ),
        # A module whose `forward` asserts its output requires grad (a course's sanity check): under
        # `no_grad` every call of it fails.
        Valid(
            """
            import torch
            import torch.nn as nn


            class DQNAgent(nn.Module):
                def __init__(self, n_actions):
                    super().__init__()
                    self.fc = nn.Linear(4, n_actions)

                def forward(self, states):
                    qvalues = self.fc(states)
                    assert qvalues.requires_grad, "qvalues must be a torch tensor with grad"
                    return qvalues

                def get_qvalues(self, states):
                    qvalues = self.forward(torch.as_tensor(states, dtype=torch.float32))
                    return qvalues.data.cpu().numpy()
            """
        ),
        # A physics-informed network's residual differentiates the output by its input
        # (`torch.autograd.grad(..., create_graph=True)`, through a method it calls): under `no_grad`
        # it raises, evaluation or not.
        Valid(
            """
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


            def validate(model, loader):
                model.eval()
                total = 0.0
                for t in loader:
                    total += (model.residual(t) ** 2).mean().item()
                return total / len(loader)
            """
        ),
        # A feature extractor a function of the file returns frozen: its call records no graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            def split(model, at):
                fe = model[:at]
                fe.eval()
                for param in fe.parameters():
                    param.requires_grad = False
                return fe, model[at:]


            def report(loader):
                model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
                model.load_state_dict(torch.load("model.pt"))
                fe, head = split(model, 2)
                for images, _ in loader:
                    print(fe(images).mean().item())
            """
        ),
        # One layer of the model fed by another, and the result is backpropagated: training.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def best(out, k):
                probs, ix = out[:, -1].data.topk(k)
                return ix


            def train_step(src, tgt, model, optimizer):
                out = model.linear(model.decoder(src, src))
                loss = F.cross_entropy(out.flatten(0, 1), tgt.flatten())
                loss.backward()
                optimizer.step()
                return best(out, 1)
            """
        ),
        # The same agent never trained: a demo of the untrained policy.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, obs):
                    return self.fc(obs)


            class Agent:
                def __init__(self):
                    self.policy = Policy()
                    self.optimizer = torch.optim.Adam(self.policy.parameters())
                    self.states = []

                def update(self):
                    logits = self.policy(torch.stack(self.states))
                    loss = -logits.log_softmax(-1).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()


            def main(env, episodes):
                agent = Agent()
                for episode in range(episodes):
                    obs = env.reset()
                    for step in range(200):
                        logits = agent.policy(torch.as_tensor(obs))
                        action = logits.argmax().item()
                        agent.states.append(torch.as_tensor(obs))
                        obs = env.step(action)
                    print(len(agent.states))
            """
        ),
        # The same `test_step`, whose loss a caller backpropagates.
        Valid(
            """
            import torch
            import torch.nn as nn


            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l1 = nn.Linear(784, 10)

                def forward(self, x):
                    return torch.log_softmax(self.l1(x), dim=-1)


            if __name__ == '__main__':
                def compute_loss(label, pred):
                    return criterion(pred, label)


                def train_step(x, t):
                    model.train()
                    preds = model(x)
                    loss = compute_loss(t, preds)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    return loss, preds


                def test_step(x, t):
                    model.eval()
                    preds = model(x)
                    loss = compute_loss(t, preds)
                    return loss, preds


                model = MLP()
                criterion = nn.NLLLoss()
                optimizer = torch.optim.Adam(model.parameters())
                for epoch in range(10):
                    for x, t in train_loader:
                        loss, _ = train_step(x, t)
                    test_loss = 0.0
                    for x, t in test_loader:
                        loss, preds = test_step(x, t)
                        loss.backward()
                        test_loss += loss.item()
                        print(preds.argmax(dim=-1).tolist())
            """
        ),
        # A loss closure handed to the code that backpropagates it (an image optimized through a
        # model switched to eval mode): its caller takes the graph it returns.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Features(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)

                def forward(self, x):
                    return self.conv(x)


            class StyleTransfer:
                def __init__(self, content, steps):
                    self.model = Features().eval()
                    self.content = content
                    self.steps = steps

                def optimize(self, image, loss_function):
                    optimizer = torch.optim.Adam([image], lr=0.01)
                    for _ in range(self.steps):
                        optimizer.zero_grad()
                        loss = loss_function()
                        loss.backward()
                        optimizer.step()
                    return image.detach()

                def run(self):
                    image = torch.rand_like(self.content, requires_grad=True)
                    with torch.no_grad():
                        target = self.model(self.content)

                    def total_loss_function():
                        generated = self.model(image)
                        return torch.mean((target - generated) ** 2)

                    return self.optimize(image, total_loss_function)
            """
        ),
        # A model whose class freezes, in its `__init__`, every part its `forward` runs (a VGG
        # feature extractor for a style loss): its calls on inputs without grad record no graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torchvision


            class VGGFeatures(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.features = torchvision.models.vgg19(weights="DEFAULT").features
                    for param in self.features.parameters():
                        param.requires_grad = False

                def forward(self, x):
                    return self.features(x)


            model = VGGFeatures().eval()
            content = torch.rand(1, 3, 64, 64)
            content_features = model(content)
            print(content_features.mean().item())
            """
        ),
        # The same helpers over a generator nobody gave weights: a demo of the untrained model.
        Valid(
            """
            import torch
            from torchvision.transforms import ToPILImage

            from nn.model import Generator

            def get_model(weights):
                m = Generator()
                return m

            def make_sr(image, model):
                return model(image)

            def convert_sr(image):
                return ToPILImage()(image.squeeze(0))

            def process_with_cpu(weights, image):
                net = get_model(weights)
                img = make_sr(image, net)
                return convert_sr(img)
            """
        ),
        # A module whose `forward` runs under `no_grad` records no graph when called (GG206 asks
        # whether that region is meant).
        Valid(
            """
            import torch
            import torch.nn as nn

            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)

                def forward(self, x):
                    with torch.no_grad():
                        features = self.fc(x)
                        return features

            encoder = Encoder()
            encoder.load_state_dict(torch.load("encoder.pt"))
            encoder.eval()
            features = encoder(torch.load("image.pt"))
            print(features.argmax(1))
            """
        ),
        # `init_weights=True` asks the constructor for fresh weights: a shape check of an untrained
        # model on made-up input.
        Valid(
            """
            import torch
            import torch.nn as nn

            class VGG(nn.Module):
                def __init__(self, features, num_classes=1000, init_weights=True):
                    super().__init__()
                    self.features = features
                    self.classifier = nn.Linear(64, num_classes)
                    if init_weights:
                        nn.init.normal_(self.classifier.weight, 0, 0.01)

                def forward(self, x):
                    x = self.features(x)
                    print(x.shape)
                    return self.classifier(x.view(x.size(0), -1))

            CNN_c = VGG(nn.Sequential(nn.Conv2d(3, 64, 3), nn.AdaptiveAvgPool2d(1)), num_classes=10, init_weights=True)
            b = torch.Tensor(1, 3, 64, 64)
            out = CNN_c(b)
            """
        ),
        # `model.predict(...)` of a parameter whose class is not known, where the only class of the
        # file defining `predict` is a numpy tagger holding no module.
        Valid(
            """
            import torch

            class HiddenMarkovModel:
                def fit(self, sents):
                    self.tags = sorted({tag for sent in sents for _, tag in sent})
                    return self

                def predict(self, sentences):
                    return [[self.tags[0] for _ in words] for words in sentences]

            def accuracy_score(model, sents):
                true_pred = num_pred = 0
                for sent in sents:
                    tags = [tag for _, tag in sent]
                    preds = model.predict([[word for word, _ in sent]])[0]
                    true_pred += sum(tag == pred for tag, pred in zip(tags, preds))
                    num_pred += len(tags)
                print("Accuracy:", true_pred / num_pred * 100, "%")

            accuracy_score(tagger.fit(train_sents), test_sents)
            """
        ),
        # A helper known only by its name (its definition cell does not parse), handed the model:
        # it evaluates the model, it is not one.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)

                def forward(self, x):
                    return self.fc(x)

            model = Tagger()
            model.load_state_dict(torch.load("best.pt"))
            print("Accuracy:", accuracy_model(model, test_iterator), "%")
            """
        ),
        # An annotated output that the step backpropagates.
        Valid(
            """
            import torch.nn.functional as F
            from torch import Tensor

            def train_step(model, optimizer, obs, target):
                values: Tensor = model(obs)[1]
                loss: Tensor = F.mse_loss(values.squeeze(-1), target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.item()
            """
        ),
        # The same generation under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            class WaveNet(nn.Module):
                def __init__(self, classes=256):
                    super().__init__()
                    self.classes = classes
                    self.start_conv = nn.Conv1d(classes, 32, 1)
                    self.end_conv = nn.Conv1d(32, classes, 1)

                def wavenet(self, input):
                    return self.end_conv(F.relu(self.start_conv(input)))

                def forward(self, input):
                    return self.wavenet(input).transpose(1, 2)

                @torch.no_grad()
                def generate(self, num_samples):
                    self.eval()
                    generated = []
                    input = torch.zeros(1, self.classes, 1)
                    for i in range(num_samples):
                        x = self.wavenet(input).squeeze()
                        prob = F.softmax(x, dim=0)
                        generated.append(torch.multinomial(prob, 1).item())
                    self.train()
                    return generated
            """
        ),
        # A theory notebook's helper showing what a module it is handed makes of random input;
        # every caller hands it one it has just built, and nothing in the file trains or loads.
        Valid(
            """
            import torch
            import torch.nn as nn

            class SimpleRNN(nn.Module):
                def __init__(self, input_size, hidden_size, num_layers):
                    super().__init__()
                    self.rnn = nn.RNN(input_size, hidden_size, num_layers, batch_first=True)

                def forward(self, x):
                    return self.rnn(x)

            def teoria(model, largo_entrada=3, batch_size=1, input_size=1):
                entrada = torch.rand(batch_size, largo_entrada, input_size)
                y, h = model(entrada)
                print(y)
                print(h)

            model = SimpleRNN(1, 2, 1)
            teoria(model, 3)
            """
        ),
        # The training twin: the progress bar wraps the training split, whose output is backpropagated.
        Valid(
            """
            import torch.nn.functional as F
            from tqdm import tqdm

            class Trainer:
                def __init__(self, model, optimizer, train_loader):
                    self.model = model
                    self.optimizer = optimizer
                    self.train_loader = train_loader

                def train_epoch(self):
                    self.model.train()
                    tq = tqdm(enumerate(self.train_loader), total=len(self.train_loader))
                    for i, (x, y) in tq:
                        logits = self.model(x)
                        loss = F.cross_entropy(logits, y)
                        self.optimizer.zero_grad()
                        loss.backward()
                        self.optimizer.step()
                        tq.set_description(f"{loss.item():.4f}")
            """
        ),
        # A homework template's training step: the loss computed from `preds` is left to write,
        # and the backward pass after it takes its graph from that forward pass.
        Valid(
            """
            def train(model, optimizer, graph):
                model.train()
                optimizer.zero_grad()
                preds = model(graph.node_feature, graph.edge_index)
                loss = None
                ############# Your code here #############
                pass
                ##########################################
                loss.backward()
                optimizer.step()
                return loss.item()
            """
        ),
        # The same error kept as a tensor, with its graph: nothing shows it is only read.
        Valid(
            """
            import torch
            import torch.nn as nn

            x, y = torch.randn(20, 5), torch.randn(20, 1)
            holdout, holdout_y = torch.randn(100, 5), torch.randn(100, 1)
            net = nn.Linear(5, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for _ in range(10):
                loss = ((net(x) - y) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            errors = (net(holdout) - holdout_y) ** 2
            """
        ),
        # The same function with a meter of another library, whose items may keep graphs: what it
        # hands back may be backpropagated.
        Valid(
            """
            import torch
            from meters import Meter


            def evaluate_loss(net, data_iter, loss):
                metric = Meter(2)
                for X, y in data_iter:
                    out = net(X)
                    l = loss(out, y.reshape(out.shape))
                    metric.add(l.sum(), l.numel())
                return metric[0] / metric[1]
            """
        ),
        # A method defined twice in one class: the first `predict`, which runs the helper with
        # grad, never runs; the one that does runs it under `no_grad`.
        Valid(
            """
            import torch


            class Trainer:
                def __init__(self, model):
                    self.model = model

                def predict_on_batch(self, x):
                    return self.model(x).data.cpu()

                def predict(self, loader):
                    return [self.predict_on_batch(x) for x in loader]

                def predict(self, loader):
                    self.model.eval()
                    with torch.no_grad():
                        return [self.predict_on_batch(x) for x in loader]
            """
        ),
        # A unit test of the model its `setUp` builds, switched to eval mode in the test: a check of
        # the model's code on made-up input.
        Valid(
            """
            import unittest
            import torch
            from model import UNet


            class TestUNet(unittest.TestCase):
                def setUp(self):
                    self.model = UNet(in_channels=3, out_channels=1)
                    self.dummy_input = torch.randn(1, 3, 256, 256)

                def test_consistency(self):
                    self.model.eval()
                    output = self.model(self.dummy_input)
                    self.assertTrue(torch.all(output >= 0))
            """
        ),
        # A distillation step whose optimizer trains the teacher too (deep mutual learning):
        # the backward pass through it is what it is for.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def train_kd(student, teacher, loader):
                optimizer = torch.optim.SGD(list(student.parameters()) + list(teacher.parameters()), lr=0.1)
                teacher.eval()
                for data, target in loader:
                    optimizer.zero_grad()
                    loss = F.kl_div(F.log_softmax(student(data), 1), F.softmax(teacher(data), 1))
                    loss.backward()
                    optimizer.step()
            """
        ),
        # The same step handed one model as student and teacher: its optimizer trains the teacher.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def train_kd(student, teacher, loader):
                optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
                teacher.eval()
                for data, target in loader:
                    optimizer.zero_grad()
                    loss = F.kl_div(F.log_softmax(student(data), 1), F.softmax(teacher(data), 1))
                    loss.backward()
                    optimizer.step()


            net = torch.nn.Linear(4, 2)
            train_kd(net, net, [])
            """
        ),
        # A perceptual loss: the VGG in eval mode is run on the generator's output, whose gradient
        # the generator needs (the VGG's parameters, not the call, are what to freeze).
        Valid(
            """
            import torch
            import torch.nn.functional as F
            import torchvision


            vgg = torchvision.models.vgg16(weights="DEFAULT").features.eval()
            generator = torch.nn.Conv2d(3, 3, 3, padding=1)
            optimizer = torch.optim.Adam(generator.parameters())
            for image in loader:
                optimizer.zero_grad()
                fake = generator(image)
                loss = F.mse_loss(vgg(fake), target_features)
                loss.backward()
                optimizer.step()
            """
        ),
        # A step whose optimizer runs a closure (L-BFGS): `loss = optimizer.step(closure)` still
        # steps an optimizer, not an environment (the function trains: the call before it, whose
        # output is kept, is no evaluation).
        Valid(
            """
            import torch


            class Fitter:
                def fit(self, x, y):
                    self.model.eval()
                    pred = self.model(x)
                    self.history.append(pred)

                    def closure():
                        self.optimizer.zero_grad()
                        loss = ((self.model(x) - y) ** 2).mean()
                        loss.backward()
                        return loss

                    loss = self.optimizer.step(closure)
                    return loss
            """
        ),
        # torchcam's gradient-based CAM backpropagates the output it is handed: the forward
        # pass must record a graph.
        Valid(
            """
            import torch
            import torchvision
            from torchcam.methods import SmoothGradCAMpp

            model = torchvision.models.resnet18(weights="DEFAULT").eval()
            cam_extractor = SmoothGradCAMpp(model)


            def explain(image):
                logits = model(image)
                class_id = logits.argmax(1).item()
                return cam_extractor(class_id, logits)
            """
        ),
        # pytorch-grad-cam's guided backpropagation runs its own backward pass.
        Valid(
            """
            import torch
            from pytorch_grad_cam import GuidedBackpropReLUModel

            model = torch.load("fruit30.pth")
            model.eval()
            gb_model = GuidedBackpropReLUModel(model=model, use_cuda=False)
            gb = gb_model(input_tensor, target_category=None)
            show(gb)
            """
        ),
        # A helper defined twice, the second handing back what it is given: not only read.
        Valid(
            """
            import torch


            def accuracy(y_hat, y):
                return float((y_hat.argmax(1) == y).sum())


            def accuracy(y_hat, y):
                return y_hat.softmax(1)[range(len(y)), y]


            for X, y in train_iter:
                trainer.zero_grad()
                loss(net(X), y).backward()
                trainer.step()
                scores.append(accuracy(net(X), y))
            """
        ),
        # A feature extractor of a model built there and never trained: a demo of its shapes.
        Valid(
            """
            import torch
            import torchvision
            from torchvision.models.feature_extraction import create_feature_extractor

            body = create_feature_extractor(torchvision.models.resnet18(), return_nodes={"layer4": "c5"})
            out = body(torch.randn(1, 3, 224, 224))
            print(out["c5"].shape)
            """
        ),
        # The same function handing back probabilities, with their graph: its callers decide.
        Valid(
            """
            import torch


            def fit_and_predict(train_data, train_label, test_data, epochs):
                model = torch.nn.Linear(4, 3)
                criterion = torch.nn.MSELoss()
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                for epoch in range(epochs):
                    loss = criterion(model(train_data), train_label)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return torch.softmax(model(test_data), -1)
            """
        ),
        # An instance of the file's class built and run in one expression, to check the
        # architecture runs: dropped at once, it is never trained, whatever the file trains later.
        Valid(
            """
            import torch
            import torch.nn as nn


            class CNNSimilarity(nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.fc = nn.Linear(dim, 1)

                def forward(self, pair):
                    return torch.sigmoid(self.fc(pair[0] * pair[1]))


            print(CNNSimilarity(8)((q1_train[:3], q2_train[:3])))
            model = CNNSimilarity(8)
            optimizer = torch.optim.Adam(model.parameters())
            for q1, q2, y in loader:
                optimizer.zero_grad()
                nn.functional.binary_cross_entropy(model((q1, q2)), y).backward()
                optimizer.step()
            """
        ),
        # A sampler appending log-probabilities to lists its caller hands in, which the caller
        # backpropagates (ENAS's controller): its name alone makes no evaluation.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            class Controller(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)

                def sample_cell(self, state, log_prob_list):
                    log_prob = F.log_softmax(self.fc(state), dim=-1)
                    action = torch.multinomial(log_prob.exp(), 1)[0]
                    log_prob_list.append(log_prob[:, action])
                    return action.item()
            """
        ),
        # A method named for training (`sample_and_train`) of an object switched to eval mode
        # between its updates: it trains, it is no evaluation.
        Valid(
            """
            def learn(trainer, env, steps, batch_size):
                trainer.eval()
                observations = env.reset()
                for t in range(steps):
                    actions = trainer.get_actions(observations)
                    observations, rewards, dones, _ = env.step(actions)
                    if t % 100 == 0:
                        trainer.prep_training()
                        trainer.sample_and_train(batch_size)
                        trainer.eval()
            """
        ),
        # A shape check of modules handed in, on made-up input: only sizes are read.
        Valid(
            """
            import torch


            def test_stacked_autoencoder(encoder, decoder, size):
                x = torch.randn(32, *size)
                for stack in range(len(encoder.stacks)):
                    z = encoder(x, stack)
                    y = decoder(z, stack)
                    print(z.size(), y.size())
            """
        ),
        # ACER's step hands the model's outputs to a method of the class that backpropagates them.
        Valid(
            """
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x).softmax(-1), self.fc(x)


            class Agent:
                def __init__(self, optimizer, writer):
                    self.net = Net()
                    self.optimizer = optimizer
                    self.writer = writer

                def compute_loss(self, policies, q_values, actions):
                    loss = -(policies.gather(1, actions).log() * q_values.gather(1, actions).detach()).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                    return loss.item()

                def train(self, observations, actions, step):
                    policies, q_values = self.net.forward(observations)
                    loss = self.compute_loss(policies, q_values, actions)
                    self.writer.add_scalar("loss", loss, step)
            """
        ),
        # A helper nested in a function whose only caller runs it under `no_grad`.
        Valid(
            """
            import torch


            def inception_score(model, images):
                model.eval()

                def get_pred(x):
                    return torch.softmax(model(x), 1).data.cpu().numpy()

                return [get_pred(batch) for batch in images]


            def test(model, images):
                with torch.no_grad():
                    print(inception_score(model, images))
            """
        ),
        # The caller runs the validation phase under `no_grad`.
        Valid(
            """
            import torch


            class Trainer:
                def __init__(self, model, optimizer, loss_function):
                    self.model = model
                    self.optimizer = optimizer
                    self.loss_function = loss_function

                def run_epoch(self, loader, mode="train"):
                    losses = []
                    for x, y in loader:
                        loss = self.loss_function(self.model(x), y)
                        if mode == "train":
                            self.optimizer.zero_grad()
                            loss.backward()
                            self.optimizer.step()
                        losses.append(loss.item())
                    return sum(losses) / len(losses)

                def run(self, train_loader, val_loader, epochs):
                    for epoch in range(epochs):
                        self.model.train()
                        train_loss = self.run_epoch(train_loader, mode="train")
                        self.model.eval()
                        with torch.no_grad():
                            val_loss = self.run_epoch(val_loader, mode="val")
                        print(epoch, train_loss, val_loss)
            """
        ),
        # A preview image of the output the step backpropagates: the graph is needed.
        Valid(
            """
            from torchvision import transforms


            def train_step(generator, optimizer, criterion, z, target):
                fake = generator(z)
                loss = criterion(fake, target)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return transforms.ToPILImage()(fake[0].cpu())
            """
        ),
        # An OpenVINO network, in a script that also runs a torch model (under `no_grad`): autograd
        # records nothing for the network, whatever its name.
        Valid(
            """
            import numpy as np
            import torch
            from openvino.inference_engine import IECore


            def torch_demo(x):
                cnn_model = torch.load("./age_gender_model.pt")
                with torch.no_grad():
                    age, gender = cnn_model(x)
                print(age.numpy(), gender.numpy())


            def openvino_demo(rois):
                ie = IECore()
                em_exec_net = ie.load_network(network=ie.read_network(model="age.onnx"), device_name="CPU")
                for roi in rois:
                    em_res = em_exec_net.infer(inputs={"input": [roi]})
                    gender_prob = em_res["prob"].reshape(1, 2)
                    print(np.argmax(gender_prob, 1))
            """
        ),
        # Named for inference, but it keeps its encoder's output on `self`, where the training
        # step's KL loss backpropagates it (PEARL's posterior over the task).
        Valid(
            """
            import torch
            import torch.nn as nn


            class ContextEncoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)

                def forward(self, context):
                    return self.fc(context)

                def infer_posterior(self, context):
                    params = self.forward(context)
                    self.z_mean = params[..., :2].mean(0)
                    self.z_var = torch.nn.functional.softplus(params[..., 2:]).mean(0)
            """
        ),
        # The loss backpropagated shows no model call of its own: its graph may come from a forward
        # hook of the call whose output is only printed.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Critic(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)

                def forward(self, s):
                    return self.fc(s)


            critic = Critic()
            optimizer = torch.optim.Adam(critic.parameters())
            features = {}
            critic.fc.register_forward_hook(lambda module, inputs, output: features.update(out=output))
            for s in batches:
                q = critic(s)
                print(q.detach())
                loss = features["out"].pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """
        ),
        # The same running loss handed back to a caller that backpropagates it.
        Valid(
            """
            import torch


            def test_classify(model, test_loader, criterion):
                model.eval()
                avg_loss = 0
                for batch_num, (feats, labels) in enumerate(test_loader):
                    outputs = model(feats)
                    loss = criterion(outputs, labels)
                    avg_loss = torch.mean(loss) / (batch_num + 1) + avg_loss * batch_num / (batch_num + 1)
                model.train()
                return avg_loss, batch_num


            def train(model, train_loader, test_loader, criterion, optimizer):
                for feats, labels in train_loader:
                    optimizer.zero_grad()
                    criterion(model(feats), labels).backward()
                    optimizer.step()
                val_loss, _ = test_classify(model, test_loader, criterion)
                val_loss.backward()
            """
        ),
        # The same TD target backpropagated through (a residual-gradient update): its graph is used.
        Valid(
            """
            import torch.nn.functional as F


            def update_value(value_net, optimizer, obs, next_obs, rew, don, gamma, iters):
                for _ in range(iters):
                    td_target = rew + gamma * value_net(next_obs) * (1 - don)
                    value = value_net(obs)
                    value_loss = F.smooth_l1_loss(td_target, value)
                    optimizer.zero_grad()
                    value_loss.backward()
                    optimizer.step()
                    print(value_loss.item())
            """
        ),
        # The same query with the text tower run under `no_grad`.
        Valid(
            """
            import torch
            from transformers import CLIPModel, CLIPProcessor

            model = CLIPModel.from_pretrained("openai/clip-vit-base-patch32")
            processor = CLIPProcessor.from_pretrained("openai/clip-vit-base-patch32")


            def query(projections, text):
                model.eval()
                inputs = processor(text=text, return_tensors="pt")
                with torch.no_grad():
                    text_embed = model.get_text_features(**inputs)
                similarity = torch.matmul(projections, text_embed.squeeze())
                return torch.topk(similarity, 5).indices
            """
        ),
        # A generator's outputs handed back in a dict beside values of unknown kind, on either
        # branch: the caller may backpropagate them (an autoencoder phase does).
        Valid(
            """
            import torch.nn as nn


            class ALAE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.decoder = nn.Linear(8, 8)

                def generate(self, styles, return_style=False):
                    fake = self.decoder(styles)
                    if return_style:
                        return {"fake": fake, "styles": styles}
                    else:
                        return {"fake": fake}
            """
        ),
        # The package `model` itself, in a function that does not bind the name: its functions are
        # no model.
        Valid(
            """
            import torch
            import model.evaluation


            def evaluate(net, batches):
                net.eval()
                with torch.no_grad():
                    scores = [net(x) for x in batches]
                return model.evaluation.f_score(scores)
            """
        ),
        # The same critic's helper only moves the output (`t.to("cpu")`): its graph goes on to the
        # caller.
        Valid(
            """
            import torch
            from torch import nn


            def to_cpu(t):
                return t.to("cpu")


            class Critic(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.q_net = nn.Linear(4, 2)

                def qa_values(self, obs):
                    qa_values = self.q_net(torch.as_tensor(obs))
                    return to_cpu(qa_values)

                def get_action(self, obs):
                    return to_cpu(self.q_net(torch.as_tensor(obs)))
            """
        ),
        # The same policy's `self.baseline` never used as a module in its classes: what it holds is
        # not known.
        Valid(
            """
            import torch
            from torch import nn

            from cs285.infrastructure import pytorch_util as ptu


            class Policy(nn.Module):
                def __init__(self, nn_baseline):
                    super().__init__()
                    self.baseline = ptu.build_mlp(4, 1) if nn_baseline else None


            class PolicyPG(Policy):
                def run_baseline_prediction(self, observations):
                    pred = self.baseline(torch.as_tensor(observations))
                    return pred.squeeze().detach().numpy()
            """
        ),
        # The same frozen model with no new layer, handed to the evaluating function: no graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models

            def fit(net, optimizer, criterion, epochs, train_loader, test_loader):
                for epoch in range(epochs):
                    net.train()
                    for inputs, labels in train_loader:
                        optimizer.zero_grad()
                        criterion(net(inputs), labels).backward()
                        optimizer.step()
                    net.eval()
                    for inputs_test, labels_test in test_loader:
                        outputs_test = net(inputs_test)
                        print(criterion(outputs_test, labels_test).item())

            net = models.vgg19_bn(pretrained=True)
            for param in net.parameters():
                param.requires_grad = False
            optimizer = torch.optim.SGD(net.parameters(), lr=0.001)
            fit(net, optimizer, nn.CrossEntropyLoss(), 5, train_loader, test_loader)
            """
        ),
        # The same trainer's helper computing statistics without the model: no model call.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Trainer:
                def __init__(self, loader):
                    self.model = nn.Linear(784, 784)
                    self.loader = loader

                def batch_stats(self, batch):
                    images = batch[0].view(-1, 784)
                    return images.mean()

                def evaluate(self, iterator):
                    means = []
                    for batch in iterator:
                        means.append(self.batch_stats(batch).item())
                    return sum(means) / len(means)
            """
        ),
        # The same model handed to an object that neither loads nor trains it: a demo of an
        # untrained model's output.
        Valid(
            """
            import torch
            import torch.nn as nn

            caps_model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
            logger = Logger(caps_model, "runs/demo")
            logger.describe()
            probs = caps_model(torch.randn(4, 784))
            print(probs.data)
            """
        ),
        # A query-set loss returned with its accuracy, set on one path or another: the caller adds
        # it to the meta-loss it backpropagates.
        Valid(
            """
            import torch
            import torch.nn.functional as F

            def query_test(net, x, y, binary):
                logits = net(x)
                if binary:
                    loss = F.binary_cross_entropy_with_logits(logits[:, 0], y.float())
                    pred = (logits[:, 0] > 0).long()
                else:
                    loss = F.cross_entropy(logits, y)
                    pred = logits.argmax(dim=1)
                return loss, torch.eq(y, pred).sum().item() / len(y)
            """
        ),
        # A diffusion model's sampling runs its network only in a step decorated with
        # `@torch.inference_mode()`: no graph is recorded, whatever calls `sample`.
        Valid(
            """
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

            model = Diffusion(UNet(), 1000)
            model.load_state_dict(torch.load("ddpm.pt"))
            images = model.sample(16)
            save_image(images, "samples.png")
            """
        ),
        # A scikit-learn ensemble loaded with joblib: named like a model, but no torch module.
        Valid(
            """
            import joblib
            import torch

            def ensemble_predict(features, folds):
                predictions = []
                for fold in folds:
                    em_model = joblib.load(f"fold_{fold}/model.joblib")
                    predictions.append(em_model.predict(features))
                return predictions
            """
        ),
        # The same sampling function, its result handed to a function that trains on it.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            def reinforce(indices):
                loss = -policy(indices).mean()
                loss.backward()
                return loss.item()

            def sample(emb, cell, fc, h, idx, n=20):
                out = [idx]
                for _ in range(n):
                    h = cell(emb(idx), h)
                    idx = torch.multinomial(F.softmax(fc(h), dim=1), 1)[:, 0]
                    out.append(idx)
                return torch.stack(out, 1)

            class CharRNN(nn.Module):
                def __init__(self, vocab_size, hidden):
                    super().__init__()
                    self.emb = nn.Embedding(vocab_size, hidden)
                    self.cell = nn.GRUCell(hidden, hidden)
                    self.fc = nn.Linear(hidden, vocab_size)

            net = CharRNN(len(vocab), 64)
            net.load_state_dict(torch.load("char_rnn.pt"))
            print(reinforce(sample(net.emb, net.cell, net.fc, h0, start)))
            """
        ),
        # A private attribute called in an evaluation loop, which nothing in the class uses as a
        # module: a function handed in (`self._fn = metric_fn`), not a model.
        Valid(
            """
            import torch

            class Scorer:
                def __init__(self, metric_fn):
                    self._fn = metric_fn

                def score(self, val_loader):
                    total = 0.0
                    for preds, labels in val_loader:
                        total += self._fn(preds, labels).item()
                    return total
            """
        ),
        # A decoder block of the file shown on ones, with a state made of an untrained encoder
        # block's output on the same made-up input, the made-up lengths and an empty cache.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Block(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(n, n)
                    self.drop = nn.Dropout(0.5)

                def forward(self, X, state):
                    return self.drop(self.fc(X)), state

            encoder_blk = Block(24)
            encoder_blk.eval()
            decoder_blk = Block(24)
            decoder_blk.eval()
            X = torch.ones((2, 100, 24))
            valid_lens = torch.tensor([3, 2])
            state = [encoder_blk(X, valid_lens), valid_lens, [None]]
            decoder_blk(X, state)[0].shape
            """
        ),
        # ultralytics' YOLO runs its predictions under inference mode itself.
        Valid(
            """
            import torch
            from ultralytics import YOLO

            device = "cuda" if torch.cuda.is_available() else "cpu"
            model = YOLO("./best.pt").to(device)

            def detect_frame(frame, conf):
                results = model.predict(frame, conf=conf, verbose=False)
                return [box.xyxy.tolist() for box in results[0].boxes]
            """
        ),
        # A book's chapter shows a library's encoder at work: built from sizes, never trained in
        # the file, run once on zeros to show its output's shape.
        Valid(
            """
            import torch
            from d2l import torch as d2l

            encoder = d2l.Seq2SeqEncoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2)
            encoder.eval()
            X = torch.zeros((4, 7), dtype=torch.long)
            output, state = encoder(X)
            print(output.shape, state.shape)
            """
        ),
        # An untrained network of the file run on the rows of a random tensor to show what a
        # prediction looks like.
        Valid(
            """
            import torch
            import torch.nn as nn

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(26 * 26, 5)

                def forward(self, x):
                    return self.fc(x.flatten(1))

            def demo():
                model = Net()
                model.eval()
                for sample in torch.randn(10, 1, 26, 26):
                    out = model(sample.unsqueeze(0))
                    print(torch.softmax(out, 1).argmax().item())
            """
        ),
        # Two model outputs combined by arithmetic, then backpropagated: a training step.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Agent:
                def __init__(self):
                    self.policy = nn.Linear(4, 2)
                    self.discriminator = nn.Linear(4, 3)
                    self.log_pz = 0.1
                    self.alpha = 0.2
                    self.opt = torch.optim.Adam(self.policy.parameters())

                def reward(self, s, z, a):
                    r = self.discriminator(s)[z.argmax(dim=-1)] - \
                        self.log_pz + \
                        self.alpha * self.policy(s)[a]
                    self.opt.zero_grad()
                    (-r).backward()
                    self.opt.step()
                    return r.detach().item()

                def learn(self, s):
                    loss = self.policy(s).sum()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
            """
        ),
        # A prediction after training under `no_grad`, in a function whose LBFGS closure
        # returns its loss.
        Valid(
            """
            import torch


            class LinearModel(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(1, 1)

                def forward(self, x):
                    return self.linear(x)


            def main():
                x_data = torch.Tensor([[1.0], [2.0], [3.0]])
                y_data = torch.Tensor([[2.0], [4.0], [6.0]])
                criterion = torch.nn.MSELoss(reduction="sum")
                model = LinearModel()
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                for epoch in range(100):
                    loss = criterion(model(x_data), y_data)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                lbfgs = LinearModel()
                opt2 = torch.optim.LBFGS(lbfgs.parameters())

                def closure():
                    opt2.zero_grad()
                    l2 = criterion(lbfgs(x_data), y_data)
                    l2.backward()
                    return l2

                opt2.step(closure)
                with torch.no_grad():
                    print(f"Predict (after training): f(4) = {model(torch.Tensor([[4.0]])).item():.3f}")
            """
        ),
        # A trained model's output handed to a function of the file that keeps it, not one that
        # only draws it.
        Valid(
            """
            import torch
            import torch.nn as nn
            import matplotlib.pyplot as plt


            def plot_images(original, predicted):
                print(original.shape)
                return torch.cat([original, predicted])


            def train_model():
                model = nn.Linear(784, 784)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for _ in range(10):
                    x = torch.rand(32, 784)
                    loss = (model(x) - x).pow(2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                return model


            def main():
                model = train_model()
                test_data = torch.rand(5, 784)
                model_output = model(test_data)
                return plot_images(test_data, model_output)
            """
        ),
        # A layer built on the spot and run at once, in a file that never trains: a demo.
        Valid(
            """
            import torch
            from torch import nn

            x = torch.randn(3, 3)
            print(nn.BatchNorm1d(3)(x))
            """
        ),
        # An output kept on the instance for a method of the class that backpropagates it (a
        # DQN's `self.Q`, computed with the network in eval mode).
        Valid(
            """
            import torch
            import torch.nn.functional as F


            class Brain:
                def __init__(self, policy_net, optimizer):
                    self.policy_net = policy_net
                    self.optimizer = optimizer

                def get_expected_Q(self, states, actions, rewards):
                    self.policy_net.eval()
                    self.Q = self.policy_net(states).gather(1, actions)
                    return rewards * 0.99

                def update_policynet(self, expected_Q):
                    self.policy_net.train()
                    loss = F.smooth_l1_loss(self.Q, expected_Q.unsqueeze(1))
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """
        ),
        # A method the file runs only without grad, on an instance a method builds (moved to a
        # device) and may reload through a helper that hands it back.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            class Net(nn.Module):
                def __init__(self, n_in, n_out):
                    super().__init__()
                    self.actor = nn.Linear(n_in, n_out)
                    self.critic = nn.Linear(n_in, 1)

                def forward(self, x):
                    return self.critic(x), self.actor(x)

                def act(self, x):
                    value, actor_output = self(x)
                    return F.softmax(actor_output, dim=1).multinomial(num_samples=1)


            class Environment:
                def load_ckp(self, path, model, optimizer):
                    checkpoint = torch.load(path)
                    model.load_state_dict(checkpoint["state_dict"])
                    optimizer.load_state_dict(checkpoint["optimizer"])
                    return model, optimizer

                def run(self, envs, device, resume):
                    actor_critic = Net(4, 2).to(device)
                    optimizer = torch.optim.Adam(actor_critic.parameters())
                    if resume:
                        actor_critic, optimizer = self.load_ckp("ckp.pt", actor_critic, optimizer)
                    obs = torch.zeros(1, 4)
                    for step in range(100):
                        with torch.no_grad():
                            action = actor_critic.act(obs)
                        obs, reward = envs.step(action)
                        values, logits = actor_critic(obs)
                        loss = -(values * reward).mean()
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
            """
        ),
        # A method whose only caller runs it without grad through an attribute that may hold
        # any model (`self.model = model`): that call is the class's own, or none at all.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Decoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lm_head = nn.Linear(8, 8)

                def forward(self, x):
                    return self.lm_head(x)

                def generate(self, context, max_length):
                    out = []
                    for _ in range(max_length):
                        logits = self(context)
                        out.append(logits.argmax(-1).tolist())
                    return out


            class Generator:
                def __init__(self, model):
                    self.model = model

                @torch.no_grad()
                def generate(self):
                    return self.model.generate(torch.zeros(1, 8), 5)


            decoder = Decoder()
            opt = torch.optim.SGD(decoder.parameters(), lr=0.1)
            loss = decoder(torch.randn(4, 8)).pow(2).mean()
            loss.backward()
            opt.step()
            print(Generator(decoder).generate())
            """
        ),
        # A nested evaluation function over the model of a function that never trains it (a
        # demo of the untrained model), in a file that trains elsewhere.
        Valid(
            """
            import torch
            from torch import nn


            def show_untrained(features, labels):
                net = nn.Linear(features.shape[-1], 1)
                loss = nn.MSELoss()

                def eval_loss():
                    return loss(net(features).view(-1), labels).item()

                print("untrained loss:", eval_loss())


            def fit(net, features, labels, optimizer):
                loss = nn.MSELoss()(net(features).view(-1), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """
        ),
        # A torch layer's demo on made-up input: the printed text names its attributes
        # (`"layer.weight ="`), which is no update of the layer by hand.
        Valid(
            """
            import torch
            from torch import nn

            x = torch.randn(8, 16) + 0.5
            layer = nn.Linear(16, 4)
            layer.eval()
            out = layer(x)
            print("layer.weight =", layer.weight)
            print(out)
            """
        ),
        # A function handed nothing that builds the model it tries out.
        Valid(
            """
            import torch
            import torch.nn as nn


            def evaluate():
                model = nn.LSTM(8, 8)
                output, hidden = model(torch.randn(3, 1, 8))
                print(output.shape)


            net = nn.Linear(8, 1)
            loss = net(torch.randn(4, 8)).sum()
            loss.backward()
            """
        ),
        # A model of unknown class whose `generate` may be the one a class of the file runs
        # under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Seq2Seq(nn.Module):
                def forward(self, src):
                    return self.decoder(src)

                def generate(self, src):
                    return self.forward(src)


            class GPT(nn.Module):
                def forward(self, ids):
                    return self.head(ids)

                def generate(self, ids):
                    with torch.no_grad():
                        return self.forward(ids).argmax(-1)


            def chat(model, ids):
                model.eval()
                print(model.generate(ids))
            """
        ),
        # `generate` of a model no class of the run defines: a library's, which runs without grad.
        Valid(
            """
            import torch


            def run(model, ids):
                model.eval()
                out = model.generate(ids)
                print(out.tolist())
            """
        ),
        # A decoder's method called only by another module's method inside `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Decoder(nn.Module):
                def __init__(self, vocab_size, hidden_size):
                    super().__init__()
                    self.embedding = nn.Embedding(vocab_size, hidden_size)
                    self.generator = nn.Linear(hidden_size, vocab_size)

                def generate(self, bos_token):
                    x_t = torch.tensor([[bos_token]])
                    result = [bos_token]
                    while result[-1] != 2:
                        y_hat = self.generator(self.embedding(x_t)).argmax(-1)
                        result.append(y_hat.item())
                        x_t = y_hat
                    return result


            class Seq2Seq(nn.Module):
                def __init__(self, vocab_size, hidden_size):
                    super().__init__()
                    self.decoder = Decoder(vocab_size, hidden_size)

                def validate(self, bos_token):
                    with torch.no_grad():
                        return self.decoder.generate(bos_token)
            """,
        ),
        # The helper runs the model under `set_grad_enabled(is_train)`, and is given `False`.
        Valid(
            """
            import torch


            def calculate_loss(model, loss_fn, x, y, is_train):
                with torch.set_grad_enabled(is_train):
                    loss = loss_fn(model(x), y)
                return loss


            model = torch.nn.Linear(1, 1)
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(5000):
                train_loss = calculate_loss(model, torch.nn.MSELoss(), x_train, y_train, is_train=True)
                optimizer.zero_grad()
                train_loss.backward()
                optimizer.step()
                val_loss = calculate_loss(model, torch.nn.MSELoss(), x_val, y_val, is_train=False)
                print(f"val loss = {val_loss}")
            """,
        ),
        # A torch layer shown at work in eval mode, in a file that trains nothing.
        Valid(
            """
            import torch
            import torch.nn as nn

            x = torch.rand(1, 16, 7, 7)
            layer = nn.BatchNorm2d(16)
            print(layer(x).shape)
            layer.eval()
            out = layer(x)
            print(out.mean())
            """,
        ),
        # Only the output's shape is read, through `.data` and a conversion: a shape probe.
        Valid(
            """
            import torch
            from torch.nn import Module


            class NeuralNetwork(Module):
                def __init__(self, network, input_size):
                    super().__init__()
                    self.network = network
                    self.input_size = input_size
                    self.output_size = self._get_output_shape()[1:]

                def _get_output_shape(self):
                    sample_input = torch.rand([2, *self.input_size])
                    return self.network(sample_input).data.cpu().numpy().shape
            """,
        ),
        # A contractive autoencoder's test loop: the loss function it calls backpropagates the
        # output (`output_e.backward(...)`) to read the input's gradient.
        Valid(
            """
            import torch
            import torch.nn as nn

            def loss_function(output_e, outputs, imgs):
                output_e.backward(torch.ones(output_e.size()), retain_graph=True)
                return ((outputs - imgs) ** 2).mean() + imgs.grad.abs().sum()

            model = nn.Linear(4, 4)
            optimizer = torch.optim.Adam(model.parameters())
            for imgs in train_loader:
                imgs.requires_grad_(True)
                out = model(imgs)
                loss = loss_function(out, out, imgs)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            for imgs in dataloader_test:
                model.eval()
                imgs.requires_grad_(True)
                outputs_e = model(imgs)
                loss = loss_function(outputs_e, outputs_e, imgs)
                print(loss.item())
            """,
        ),
        # Its shape compared: a check of the model's code, no values read.
        Valid(
            """
            import torch
            import torch.nn as nn

            model = nn.Sequential(nn.Linear(2, 4), nn.Sigmoid(), nn.Linear(4, 1), nn.Sigmoid())
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(100):
                optimizer.zero_grad()
                nn.functional.binary_cross_entropy(model(x), y).backward()
                optimizer.step()

            assert model(x).shape == (4, 1)
            """,
        ),
        # An untrained cell traced for a demo of tracing (the TorchScript tutorial's shape).
        Valid(
            """
            import torch


            class MyCell(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(4, 4)

                def forward(self, x, h):
                    new_h = torch.tanh(self.linear(x) + h)
                    return new_h, new_h


            my_cell = MyCell()
            x, h = torch.rand(3, 4), torch.rand(3, 4)
            traced_cell = torch.jit.trace(my_cell, (x, h))
            print(traced_cell(x, h))
            """,
        ),
        # One batch of the test split through the model to see its output's shape, then `break`.
        Valid(
            """
            import torchvision
            from torch import nn
            from torch.utils.data import DataLoader

            dataset = torchvision.datasets.CIFAR10("./dataset", train=False, transform=torchvision.transforms.ToTensor())
            dataloader = DataLoader(dataset, batch_size=64)
            net = nn.Sequential(nn.Conv2d(3, 32, 5, padding=2), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 16 * 16, 10))
            for imgs, targets in dataloader:
                output = net(imgs)
                print(output.shape)
                break
            """,
        ),
        # The same epoch function with the forward pass under the phase's grad mode.
        Valid(
            """
            import torch


            def run_epoch(model, data_loader, loss_fn, optimizer=None, is_test=False):
                if is_test:
                    model.eval()
                else:
                    model.train()
                total_loss = 0
                for image, target in data_loader:
                    if not is_test and optimizer is not None:
                        optimizer.zero_grad()
                    with torch.set_grad_enabled(not is_test):
                        output = model(image)
                        loss = loss_fn(output, target)
                    if not is_test and optimizer is not None:
                        loss.backward()
                        optimizer.step()
                    total_loss += loss.item()
                return total_loss / len(data_loader)
            """,
        ),
        # The same shape over constants nothing trains: preprocessing, not a model.
        Valid(
            """
            import torch


            def rescale(t_u, scale, shift):
                return scale * t_u + shift


            def fit(model, optimizer, train_x, train_y, val_x, scale, shift):
                for epoch in range(10):
                    train_in = rescale(train_x, scale, shift)
                    val_in = rescale(val_x, scale, shift)
                    print(val_in.mean().item())
                    loss = ((model(train_in) - train_y) ** 2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
        ),
        # A demo of a fresh module's state_dict round trip: it reloads its own untrained weights
        # after the first call, so neither call runs a trained model.
        Valid(
            """
            import torch
            import torch.nn as nn


            def demo_state_dict():
                model = nn.Linear(10, 5)
                sd = model.state_dict()
                x = torch.randn(2, 10)
                y1 = model(x)
                model.load_state_dict(sd)
                y2 = model(x)
                print(torch.allclose(y1, y2))
            """,
        ),
        # A script's test of a layer it builds against torch's, on an input that requires grad.
        Valid(
            """
            import torch
            import torch.nn as nn


            def test_batch_norm_matches_torch():
                custom_bn = CustomBatchNorm1d(3)
                torch_bn = nn.BatchNorm1d(3)
                x = torch.randn(4, 3, requires_grad=True)
                custom_bn.eval()
                torch_bn.eval()
                diff = torch.max(torch.abs(custom_bn(x) - torch_bn(x))).item()
                print(f"diff: {diff:.6f}")


            if __name__ == "__main__":
                test_batch_norm_matches_torch()
            """,
        ),
        # An untrained model of the file shown through a helper that runs the module it is handed.
        Valid(
            """
            import torch
            import torch.nn as nn


            class UNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 3, 3, padding=1)

                def forward(self, x, t):
                    return self.conv(x)


            def guided_noise(model, x_t, t, scale=7.5):
                uncond = model(x_t, t)
                return uncond + scale * (model(x_t, t) - uncond)


            unet = UNet()
            x = torch.randn(2, 3, 16, 16)
            noise = guided_noise(unet, x, torch.tensor([50, 100]))
            print(f"{noise.max():.2f}")
            """,
        ),
        # A demo of the file's own untrained class; the loading code is only an example printed
        # for the reader (a string, not code).
        Valid(
            """
            import torch
            import torch.nn as nn


            class SimpleModel(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(10, 2)

                def forward(self, x):
                    return self.fc(x)


            model = SimpleModel()
            model.eval()
            example_input = torch.randn(1, 10)
            traced_model = torch.jit.trace(model, example_input)
            assert torch.allclose(model(example_input), traced_model(example_input))

            print('''
            model = SimpleModel()
            model.load_state_dict(torch.load("model_weights.pth"))
            model.eval()
            ''')
            """,
        ),
        # An output handed straight to a function of the file that backpropagates it.
        Valid(
            """
            import torch
            import torch.nn as nn


            def step(logits, labels, optimizer):
                loss = nn.functional.cross_entropy(logits, labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.item()


            def train(model, features, labels, mask):
                optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
                for epoch in range(200):
                    print(step(model(features)[mask], labels[mask], optimizer))
            """,
        ),
        # A numpy version of the model before the torch one: `w` is a number where it is called.
        Valid(
            """
            import numpy as np
            import torch

            a = torch.ones(3, requires_grad=True)
            (a * 2).sum().backward()

            X = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
            w = 0.0


            def forward(x):
                return w * x


            for epoch in range(100):
                w -= 0.01 * np.dot(2 * X, forward(X) - 2 * X).mean()
            print(f"Prediction after training: f(5) = {forward(5):.3f}")

            w = torch.tensor(0.0, requires_grad=True)
            """,
        ),
        # Each cell defines `forward` anew: the one bound at the call shows an untrained model.
        Valid(
            """
            import torch

            X = torch.tensor([1.0, 2.0, 3.0, 4.0])
            w = torch.tensor(0.0, requires_grad=True)


            def forward(x):
                return w * x


            for epoch in range(100):
                ((forward(X) - 2 * X) ** 2).mean().backward()
                with torch.no_grad():
                    w -= 0.01 * w.grad
                w.grad.zero_()

            w = torch.tensor(0.0, requires_grad=True)


            def forward(x):
                return w * x


            print(f"Prediction before training: f(5) = {forward(5):.3f}")
            optimizer = torch.optim.SGD([w], lr=0.01)
            """,
        ),
        # `X_test` is a made-up example where it is read; a later cell binds the name to a split.
        Valid(
            """
            import torch
            import torch.nn as nn

            X = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
            X_test = torch.tensor([5.0])
            model = nn.Linear(1, 1)
            print(f"Prediction before training: f(5) = {model(X_test).item():.3f}")
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(100):
                ((model(X) - 2 * X) ** 2).mean().backward()
                optimizer.step()
                optimizer.zero_grad()

            X_train, X_test = X[:3], X[3:]
            """,
        ),
        # A hand-computed model's weight made anew after a first training: shown before its training.
        Valid(
            """
            import torch

            X = torch.tensor([1.0, 2.0, 3.0, 4.0])
            Y = torch.tensor([2.0, 4.0, 6.0, 8.0])


            def forward(x):
                return w * x


            w = torch.tensor(0.0, requires_grad=True)
            for epoch in range(100):
                ((forward(X) - Y) ** 2).mean().backward()
                with torch.no_grad():
                    w -= 0.01 * w.grad
                w.grad.zero_()

            w = torch.tensor(0.0, requires_grad=True)
            print(f"Prediction before training: f(5) = {forward(5):.3f}")
            optimizer = torch.optim.SGD([w], lr=0.01)
            """,
        ),
        # A method named like a model (`evaluate_model`) is no submodule: it is judged as a method,
        # and this one runs its forward passes under `no_grad`.
        Valid(
            """
            import torch
            import torch.nn as nn


            class ModelTrainer(nn.Module):
                def __init__(self, model, loader):
                    super().__init__()
                    self.model = model
                    self.test_loader = loader

                def evaluate_model(self):
                    correct = 0
                    self.eval()
                    with torch.no_grad():
                        for x, y in self.test_loader:
                            correct += (self.forward(x).argmax(1) == y).sum().item()
                    return correct / len(self.test_loader.dataset)

                def forward(self, x):
                    return self.model(x)


            model_trainer = ModelTrainer(nn.Linear(4, 2), loader)
            model_trainer.load_state_dict(torch.load("ckpt.pt"))
            test_acc = model_trainer.evaluate_model()
            print(f"test accuracy {test_acc:.2%}")
            """,
        ),
        # The same loop with grad enabled in the training phase only.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def fit(model, loaders, optimizer, epochs):
                for epoch in range(epochs):
                    for phase in ["train", "validation"]:
                        if phase == "train":
                            model.train()
                        else:
                            model.eval()
                        for images, labels in loaders[phase]:
                            with torch.set_grad_enabled(phase == "train"):
                                loss = F.cross_entropy(model(images), labels)
                            if phase == "train":
                                optimizer.zero_grad()
                                loss.backward()
                                optimizer.step()
            """,
        ),
        # A flag set on a frozen model is no new layer: its calls still record no graph.
        Valid(
            """
            import torch
            from torchvision import models

            inception = models.inception_v3(pretrained=True)
            inception.aux_logits = False  # the auxiliary head's output is not wanted
            for p in inception.parameters():
                p.requires_grad = False
            inception.eval()
            features = []
            for x, y in val_loader:
                features.extend(inception(x).numpy())
            """,
        ),
        # A new module's own layers, shown before any training.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(1, 4, 3)
                    self.fc = nn.Linear(4 * 26 * 26, 1)

                def forward(self, x):
                    return self.fc(self.conv(x).flatten(1))


            features = nn.Sequential(*list(Net().children())[:1])
            print(features(torch.randn(1, 1, 28, 28))[0, 0, :3])
            """,
        ),
        # The only instance of the file's class, switched to eval mode and shown on made-up
        # inputs: a demo of the class, though other models of the file train.
        Valid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l = nn.Linear(5, 1)

                def forward(self, x):
                    return self.l(x)


            class NetBN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l1 = nn.Linear(10, 5)
                    self.bn = nn.BatchNorm1d(5)

                def forward(self, x):
                    return self.bn(self.l1(x))


            other = Net()
            (1 - other(torch.randn(5))).mean().backward()

            inp = torch.randn(10).unsqueeze(0)
            model = NetBN().eval()
            print(model(inp))
            """,
        ),
        # A global model whose every parameter the module froze before the function is defined:
        # the function runs it frozen, on inputs without grad.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torchvision.models import resnet50

            model = resnet50(pretrained=True)
            for param in model.parameters():
                param.requires_grad = False
            model = model.eval()


            def predict_on_image(input):
                pred = model(input)
                prob, clss = torch.max(F.softmax(pred, dim=-1)[0], 0)
                print(f"PREDICTION: {clss.item()} @ {prob.item()}")


            predict_on_image(torch.rand(1, 3, 224, 224))
            """,
        ),
        # Frozen in the first round of the loop: the later rounds' evaluation records no graph.
        Valid(
            """
            import torch
            import torch.nn as nn


            def main(train_loader, valid_loader, model):
                criterion = nn.CrossEntropyLoss()
                optimizer = torch.optim.SGD(model.parameters(), 0.1)
                for epoch in range(3):
                    if epoch == 0:
                        for param in model.parameters():
                            param.requires_grad = False
                    else:
                        model.eval()
                        for data, target in valid_loader:
                            output = model(data)
                            print(criterion(output, target).item())
                    for data, target in train_loader:
                        optimizer.zero_grad()
                        criterion(model(data), target).backward()
                        optimizer.step()
            """,
        ),
        # Outputs written into a tensor item by item, then backpropagated through it.
        Valid(
            """
            import torch
            from torch import nn

            model = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            model.eval()
            for epoch in range(10):
                outs = torch.zeros(len(train_x))
                for i in range(len(train_x)):
                    outs[i] = model(train_x[i])
                loss = ((outs - train_y) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            """,
        ),
        # A demo of an untrained block on made-up inputs: numbers drawn on the spot, a literal tensor.
        Valid(
            """
            import torch
            from torch import nn


            class Block(nn.Module):
                def __init__(self, num_hiddens, dropout):
                    super().__init__()
                    self.dense = nn.Linear(num_hiddens, num_hiddens)
                    self.dropout = nn.Dropout(dropout)

                def forward(self, X, valid_lens=None):
                    return self.dropout(self.dense(X))


            X = torch.normal(0, 1, (2, 100, 24))
            valid_lens = torch.tensor([3, 2])
            encoder_blk = Block(24, 0.5)
            encoder_blk.eval()
            assert encoder_blk(X, valid_lens).shape == X.shape
            """,
        ),
        # The same wrapper, its output only backpropagated.
        Valid(
            """
            import torch

            G_ = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 784))


            def G(z):
                return torch.sigmoid(G_(z))


            G_solver = torch.optim.Adam(G_.parameters(), lr=1e-3)
            for it in range(1000):
                G_loss = ((G(torch.randn(32, 16)) - 0.5) ** 2).mean()
                G_solver.zero_grad()
                G_loss.backward()
                G_solver.step()
                if it % 100 == 0:
                    print(G_loss.item())
            """,
        ),
        # A script's demo of an untrained model before its training cell, after another
        # model's evaluation in eval mode: its outputs, only printed, are the untrained model's.
        Valid(
            """
            import torch
            from torch import nn

            model_0 = nn.Linear(2, 1)
            model_0.load_state_dict(torch.load("model_0.pt"))
            model_0.eval()
            with torch.inference_mode():
                print(model_0(X_test)[:5])

            model_1 = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 3))
            print(torch.softmax(model_1(X_train)[:10], dim=1))

            optimizer = torch.optim.Adam(model_1.parameters(), lr=0.02)
            for epoch in range(100):
                loss = nn.functional.cross_entropy(model_1(X_train), y_train)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
        ),
        # A helper that runs the model it is handed, called where grad is off.
        Valid(
            """
            import torch
            import torch.nn.functional as F


            def batch_loss(model, x, y):
                return F.cross_entropy(model(x), y)


            @torch.no_grad()
            def mean_loss(model, loader):
                total = 0.0
                for x, y in loader:
                    total += batch_loss(model, x, y).item()
                return total / len(loader)


            def train(model, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    batch_loss(model, x, y).backward()
                    optimizer.step()
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            def test():
                net = nn.Linear(4, 2)
                prediction = net(torch.randn(1, 4))
                print(prediction)
            """,
        ),
        Valid(
            """
            import torch

            @torch.no_grad()
            def evaluate(model, val_loader):
                model.eval()
                return [model(x) for x, _ in val_loader]
            """,
        ),
        Valid(
            """
            import torch

            class Wrapper:
                def eval(self):
                    self.model.eval()
                    return self
            """,
        ),
        Valid(
            """
            import torch

            def finetune(model, x, y, optimizer):
                model.eval()
                loss = (model(x) - y).pow(2).mean()
                loss.backward()
                optimizer.step()
            """,
        ),
        Valid(
            """
            import torch
            import lightning as L

            class M(L.LightningModule):
                def validation_step(self, batch, idx):
                    self.model.eval()
                    out = self.model(batch)
                    self.log('val', out.mean())
            """,
        ),
        Valid(
            """
            import torch

            def outer(model, val_loader):
                with torch.no_grad():
                    def run():
                        model.eval()
                        return [model(x) for x in val_loader]
                    return run()
            """,
        ),
        Valid(
            """
            import torch

            def saliency(model, x):
                model.eval()
                x.requires_grad_()
                out = model(x)
                out.max().backward()
                return x.grad
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn.functional as F

            def eval_loss(model, x, y):
                model.eval()
                return F.cross_entropy(model(x), y)
            """,
        ),
        Valid(
            """
            import torch

            def train(model, train_loader, val_loader, opt):
                for x, y in train_loader:
                    model(x).sum().backward()
                    opt.step()
                model.eval()
                with torch.no_grad():
                    for x, y in val_loader:
                        model(x)
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            def test_pool(x):
                pool = nn.MaxPool2d(2)
                pool.eval()
                assert pool(x).shape[-1] == x.shape[-1] // 2
            """,
        ),
        Valid(
            """
            import torch

            def validation(model, testloader):
                model.eval()
                return [model(x) for x in testloader]

            def validation_2(model, test_loader):
                for x, y in test_loader:
                    model(x)

            def train(model, loader, testloader, opt):
                for x in loader:
                    model(x).sum().backward()
                    opt.step()
                    model.eval()
                    with torch.no_grad():
                        validation(model, testloader)
                        validation_2(model, testloader)
                    model.train()
            """,
        ),
        Valid(
            """
            import torch

            def export(model, x):
                frozen = torch.jit.freeze(torch.jit.script(model.eval()))
                frozen(x)
                return frozen
            """,
        ),
        Valid(
            """
            import torch
            from torch import nn

            net = nn.Linear(1, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(10):
                net.eval()
                pred = net(test_x)
                net.train()
                for x, y in train_loader:
                    if y is not None:
                        pred = net(x)
                    loss = (pred - y).pow(2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
            """,
        ),
        Valid(
            """
            import torch

            emb = torch.nn.Embedding(10, 4)
            scale = torch.ones(4, requires_grad=True)

            def scaled(embed, words):
                return embed(words) * scale

            for words in test_loader:
                out = scaled(emb, words)
                print(out.data)
            """,
        ),
        Valid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 3)
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(10):
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()

            print(model(x).shape)
            """,
        ),
        # The same step in a function handed both models: the detached output goes to `D`.
        Valid(
            """
            import torch


            def d_step(G, D, opt_D, real, z):
                fake = G(z).detach()
                loss = D(fake).mean() - D(real).mean()
                opt_D.zero_grad()
                loss.backward()
                opt_D.step()
                print(loss.item())
            """
        ),
        # A generator's output detached as it is made, for the discriminator's step: the step
        # trains on it (no graph is kept), which is no evaluation.
        Valid(
            """
            import torch
            import torch.nn as nn

            G, D = nn.Linear(4, 4), nn.Linear(4, 1)
            opt_G = torch.optim.Adam(G.parameters())
            opt_D = torch.optim.Adam(D.parameters())
            for real, z in loader:
                opt_D.zero_grad()
                fake = G(z).detach()
                (D(fake).mean() - D(real).mean()).backward()
                opt_D.step()
                opt_G.zero_grad()
                (-D(G(z)).mean()).backward()
                opt_G.step()
            """
        ),
        # The same final pass where a caller goes on to backpropagate what it returns.
        Valid(
            """
            import torch
            import torch.nn as nn

            def train_the_model(model, data, labels, optimizer):
                for epoch in range(100):
                    loss = nn.functional.binary_cross_entropy_with_logits(model(data), labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                predictions = model(data)
                accuracy = ((predictions > 0) == labels).float().mean()
                return predictions, accuracy

            net = nn.Linear(2, 1)
            predictions, accuracy = train_the_model(net, x, y, torch.optim.SGD(net.parameters(), lr=0.1))
            predictions.pow(2).mean().backward()
            """
        ),
        # The same loaded model fine-tuned by the script: its outputs are backpropagated.
        Valid(
            """
            import torch
            import torch.nn as nn

            AE = nn.Sequential(nn.Linear(784, 2), nn.Sigmoid())
            AE.load_state_dict(torch.load("./ae.pth"))
            optimizer = torch.optim.Adam(AE.parameters())
            for img, label in dataloader:
                codes = AE(img)
                optimizer.zero_grad()
                codes.pow(2).mean().backward()
                optimizer.step()
            """
        ),
        # A module class whose `__init__` only calls `super().__init__()`: no parameters, so
        # no graph to record (also with the instance bound to the class's own name).
        Valid(
            """
            import torch
            from torch import nn

            class HelloWorldModule(nn.Module):
                def __init__(self):
                    super().__init__()

                def forward(self, input):
                    return input + 1

            HelloWorldModule = HelloWorldModule()
            print(HelloWorldModule(torch.tensor(1)))
            """
        ),
        # The same function handing its images back: its callers decide what it runs for.
        Valid(
            """
            import torch
            import torch.nn as nn

            decoder = nn.Sequential(nn.Linear(2, 784), nn.Sigmoid())
            decoder.load_state_dict(torch.load("./decoder.pth"))

            def decode_numbers(points):
                return torch.cat([decoder(torch.tensor([point])).view(28, 28) for point in points], 1)
            """
        ),
        # The same outputs copied into a torch tensor: the copy joins the graph.
        Valid(
            """
            import numpy as np
            import torch
            import torch.nn as nn

            net = nn.Linear(9, 1)
            optimizer = torch.optim.SGD(net.parameters(), lr=0.001)
            for X, y in train_data:
                optimizer.zero_grad()
                nn.functional.mse_loss(net(X), y).backward()
                optimizer.step()

            yHat = torch.zeros(len(new_data))
            for t, X in enumerate(new_data):
                yy = net(X)
                yHat[t] = yy[-1]
            print(yHat)
            """
        ),
        # A load inside a function is that function's own model; a shape probe reads no value.
        Valid(
            """
            import torch
            import torch.nn as nn

            def load_model(pretrained=False):
                model = nn.Linear(4, 2)
                if pretrained:
                    model.load_state_dict(torch.load("w.pth"))
                return model

            if __name__ == "__main__":
                model = load_model(pretrained=True)
                print(model(torch.randn(2, 4)).size())
            """
        ),
        # A model's method named for something other than running it, known by its name alone.
        Valid(
            """
            import torchvision

            float_model = torchvision.models.quantization.resnet18(pretrained=True, quantize=False)
            float_model.eval()
            float_model.fuse_model()
            """
        ),
        # A torchvision model built without weights, profiled on made-up input in a file that
        # trains nothing: a demo of its code.
        Valid(
            """
            import torch
            import torchvision

            rn18 = torchvision.models.resnet18()
            rn18.eval()
            x = torch.randn(5, 3, 224, 224)
            with torch.profiler.profile() as prof:
                output = rn18(x)
            print(prof.key_averages().table(), output.shape)
            """
        ),
        # An untrained instance of the file's own class in eval mode, on made-up inputs unpacked
        # from a tuple and an empty state, in a file that trains nothing.
        Valid(
            """
            import torch
            from torch import nn

            class DecoderBlock(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = nn.Linear(n, n)
                    self.drop = nn.Dropout(0.5)

                def forward(self, x, state):
                    return self.drop(self.fc(x)), state

            decoder_blk = DecoderBlock(24)
            decoder_blk.eval()
            batch, valid_lens = 2, torch.tensor([3, 2])
            X = torch.ones((batch, 100, 24))
            state = [None, None, [None]]
            print(decoder_blk(X, state)[0].shape)
            """
        ),
        # A module frozen for mobile holds its weights as constants: its calls record no graph.
        Valid(
            """
            import torch
            import torchvision
            from torch.utils.mobile_optimizer import optimize_for_mobile

            model = torchvision.models.resnet18(pretrained=True).eval()
            optimized = optimize_for_mobile(torch.jit.script(model))
            print(optimized(img).argmax().item())
            """
        ),
        # A quantized model's weights are packed integers, not parameters: no graph.
        Valid(
            """
            import torch

            model_fp32_prepared = torch.quantization.prepare_qat(model_fp32)
            training_loop(model_fp32_prepared)
            model_fp32_prepared.eval()
            model_int8 = torch.quantization.convert(model_fp32_prepared)
            res = model_int8(torch.randn(1, 1, 4, 4))
            print(res.argmax().item())
            """
        ),
        # A hand-written classifier handed back by the function that trained it: no module.
        Valid(
            """
            import torch


            class LinearSVM(object):
                def __init__(self):
                    self.W = None

                def train(self, X, y, lr=1e-3):
                    self.W = 1e-6 * torch.randn(X.shape[1], 10)
                    self.W -= lr * X.t().mm(torch.ones(X.shape[0], 10))

                def predict(self, X):
                    return torch.argmax(X.mm(self.W), dim=1)


            def test_one_param_set(cls, data, lr):
                cls.train(data["X_train"], data["y_train"], lr)
                acc = (cls.predict(data["X_train"]) == data["y_train"]).double().mean().item()
                return cls, acc


            best_svm_model, best_acc = None, -1
            for lr in [1e-3, 1e-2]:
                cand_svm_model, cand_acc = test_one_param_set(LinearSVM(), data_dict, lr)
                if cand_acc > best_acc:
                    best_acc, best_svm_model = cand_acc, cand_svm_model
            y_test_pred = best_svm_model.predict(data_dict["X_test"])
            print((y_test_pred == data_dict["y_test"]).double().mean())
            """
        ),
        # A static method called through its class's name (`Trainer.accuracy(...)`) or a class
        # method through `cls` runs in its caller's grad mode: here without grad.
        Valid(
            """
            import torch


            class Trainer:
                @staticmethod
                def accuracy(model, loader):
                    preds = []
                    for batch in loader:
                        logits = model(**batch)["logits"]
                        preds.append(torch.argmax(logits, dim=1))
                    return torch.cat(preds)

                @classmethod
                def recall(cls, model, loader):
                    return [model(x).argmax(1) for x in loader]

                @staticmethod
                @torch.no_grad()
                def evaluate(model, loader):
                    return Trainer.accuracy(model, loader)

                @classmethod
                @torch.no_grad()
                def report(cls, model, loader):
                    return cls.recall(model, loader)
            """
        ),
        # A function handing back the discriminator's loss: the generator's output, detached for
        # it, is an input the step trains on (as where the step itself backpropagates).
        Valid(
            """
            import torch
            import torch.nn.functional as F


            class GAN:
                def __init__(self, generator, discriminator):
                    self.G = generator
                    self.D = discriminator

                def discriminator_loss(self, real, z):
                    fake = self.G(z).detach()
                    real_score = self.D(real)
                    fake_score = self.D(fake)
                    return F.softplus(-real_score).mean() + F.softplus(fake_score).mean()

                def discriminator_hinge(self, real, z):
                    fake = self.G(z)
                    return F.relu(1 - self.D(real)).mean() + F.relu(1 + self.D(fake.detach())).mean()

                def discriminator_bce(self, real, z):
                    fake = self.G(z).detach()
                    real_score, fake_score = self.D(real), self.D(fake)
                    real_loss = F.binary_cross_entropy_with_logits(real_score, torch.ones_like(real_score))
                    return real_loss + F.binary_cross_entropy_with_logits(fake_score, torch.zeros_like(fake_score))
            """
        ),
        Valid(
            # twin: the rollout of a training loop, whose outputs the agent's update backpropagates
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x)


            class Agent:
                def __init__(self, policy):
                    self.policy = policy
                    self.optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)

                def get_action(self, state):
                    x = torch.from_numpy(state).float()
                    return self.policy(x)

                def update_policy(self, log_probs, returns):
                    loss = -(torch.stack(log_probs) * returns).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()


            def train():
                agent = Agent(Policy())
                for episode in range(100):
                    state, done, log_probs = env.reset(), False, []
                    while not done:
                        action = agent.get_action(state)
                        log_probs.append(action.sum())
                        state, reward, done, info = env.step(action.detach().numpy())
                    agent.update_policy(log_probs, 1.0)
            """
        ),
        Valid(
            # twin: the caller backpropagates what the function hands back
            """
            import torch
            import torch.nn as nn


            def train(net, features, labels, epochs):
                optimizer = torch.optim.Adam(net.parameters())
                for _ in range(epochs):
                    optimizer.zero_grad()
                    loss = ((net(features) - labels) ** 2).mean()
                    loss.backward()
                    optimizer.step()


            def train_and_pred(train_x, train_y, test_x, epochs):
                net = nn.Linear(train_x.shape[1], 1)
                train(net, train_x, train_y, epochs)
                predictions = net(test_x)
                return predictions


            predictions = train_and_pred(train_x, train_y, test_x, 100)
            loss = ((predictions - test_y) ** 2).mean()
            loss.backward()
            """
        ),
        Valid(
            # skorch's estimator runs its module under `torch.set_grad_enabled(False)` in `predict`
            # and hands back a numpy array
            """
            import torch
            import torch.nn as nn
            from skorch import NeuralNetRegressor


            class RegNet(nn.Module):
                def __init__(self, hidden=32):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, 1))

                def forward(self, x):
                    return self.body(x)


            loss_function = nn.MSELoss()
            net = NeuralNetRegressor(module=RegNet, max_epochs=100, optimizer=torch.optim.Adam)
            net.fit(X_train, y_train)
            y_pred = net.predict(X_test)
            y_pred = torch.from_numpy(y_pred).float()
            test_loss = loss_function(y_pred, y_test)
            print(f"TEST LOSS: {test_loss}")
            """
        ),
        Valid(
            # twin: the estimator scikit-learn's grid search fitted (`best_estimator_`), the same one
            """
            import torch
            import torch.nn as nn
            from skorch import NeuralNetRegressor
            from sklearn.model_selection import GridSearchCV


            class RegNet(nn.Module):
                def __init__(self, hidden=32):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, 1))

                def forward(self, x):
                    return self.body(x)


            loss_function = nn.MSELoss()
            net = NeuralNetRegressor(module=RegNet, max_epochs=100, optimizer=torch.optim.Adam)
            gs = GridSearchCV(net, {"module__hidden": [16, 32]}, cv=3)
            gs.fit(X_train, y_train)
            net = gs.best_estimator_
            y_pred = net.predict(X_test)
            y_pred = torch.from_numpy(y_pred).float()
            test_loss = loss_function(y_pred, y_test)
            print(f"TEST LOSS: {test_loss}")
            """
        ),
        Valid(
            # a shape probe of the model: its method hands back `x.shape[-1]`, no graph
            """
            import torch
            import torch.nn as nn


            class CRNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.backbone = nn.Conv2d(3, 8, 3)
                    self.head = nn.Linear(8, 10)

                def get_batch_max_length(self, x):
                    x = self.backbone(x)
                    self.batch_max_length = x.shape[-1]
                    return self.batch_max_length

                def forward(self, x):
                    return self.head(self.backbone(x).mean((2, 3)))


            class Predictor:
                def __init__(self, path):
                    self.net = CRNN()
                    self.net.load_state_dict(torch.load(path))
                    self.net.eval()
                    self.net.get_batch_max_length(torch.zeros(2, 3, 32, 100))

                def predict(self, image):
                    with torch.no_grad():
                        return self.net(image).argmax(-1)
            """
        ),
        Valid(
            # twin: the predictions handed back beside the model enter a loss that is backpropagated
            """
            import torch
            import torch.nn as nn


            def train(net, features, labels, epochs):
                optimizer = torch.optim.Adam(net.parameters())
                for _ in range(epochs):
                    optimizer.zero_grad()
                    loss = ((net(features) - labels) ** 2).mean()
                    loss.backward()
                    optimizer.step()


            def train_and_pred(train_x, train_y, test_x, epochs):
                net = nn.Linear(train_x.shape[1], 1)
                train(net, train_x, train_y, epochs)
                predictions = net(test_x)
                return net, predictions


            net, predictions = train_and_pred(train_x, train_y, test_x, 100)
            ((predictions - test_y) ** 2).mean().backward()
            torch.onnx.export(net, train_x[:1], "model.onnx")
            """
        ),
        Valid(
            # twin: the appended outputs are stacked into a loss that is backpropagated
            """
            from copy import deepcopy

            import matplotlib.pyplot as plt
            import torch


            def plot_adaptation(meta_model, X, y, n_steps=5):
                model = deepcopy(meta_model)
                optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
                preds = []
                for step in range(n_steps):
                    optimizer.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(X), y)
                    loss.backward()
                    optimizer.step()
                    preds.append(model(X))
                torch.stack(preds).mean().backward()
            """
        ),
        Valid(
            # a Hamiltonian network's `forward` differentiates its own output: under `no_grad` it raises
            """
            import torch
            import torch.nn as nn


            class HNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.H = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 1))

                def forward(self, x):
                    x = x.detach().requires_grad_(True)
                    dH = torch.autograd.grad(self.H(x).sum(), x, create_graph=True)[0]
                    return torch.stack([dH[:, 1], -dH[:, 0]], dim=1)


            model = HNN()
            model.load_state_dict(torch.load("hnn.pt"))
            model.eval()
            test_loss = 0.0
            for x, dx in test_loader:
                test_loss += ((model(x) - dx) ** 2).mean().item()
            print(test_loss)
            """
        ),
    )
    invalid = (
        # Test predictions added into a buffer made by a torch factory, read only detached.
        Invalid(
            """
            import torch
            import torch.nn as nn

            net = nn.LSTM(3, 8, 2)
            optimizer = torch.optim.Adam(net.parameters())
            for step in range(100):
                loss = net(torch.randn(10, 5, 3))[0].pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            pred_y = torch.zeros([20, 8]).to("cpu")
            for i, x_i in enumerate(chunks):
                pred_y_i = net(x_i)[0][-1]
                pred_y[10 * i : 10 * (i + 1)] += pred_y_i
            print(pred_y.cpu().detach().numpy()[:, 0])
            """,
            line=14,
            column=16,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The loop backpropagates another output: the one bound here is only read.
        Invalid(
            """
            import torch


            def deepfool_like(net, image, label, max_iter=50):
                x = image.clone().requires_grad_()
                out = net(x)
                k_i = label
                loop_i = 0
                while k_i == label and loop_i < max_iter:
                    out[0, label].backward(retain_graph=True)
                    g = x.grad.detach().clone()
                    x = (x.detach() + 0.01 * g.sign()).requires_grad_()
                    fs = net(x)
                    k_i = fs[0].argmax().item()
                    loop_i += 1
                return x.detach()
            """,
            line=13,
            column=14,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same run on a sample of the test split: an evaluation.
        Invalid(
            """
            import time

            import torch
            import torch.nn as nn
            from torchvision import datasets, transforms


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(1, 8, 3)
                    self.bn = nn.BatchNorm2d(8)

                def forward(self, x):
                    return self.bn(self.conv(x))


            def test_model(data, model):
                t0 = time.time()
                output = model(data)
                print(time.time() - t0, data.shape, output.shape)


            if __name__ == "__main__":
                test_set = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
                test_model(test_set[0][0].unsqueeze(0), Net())
            """,
            line=20,
            column=14,
            message="`model(...)` runs with grad enabled in `test_model`, whose result carries no graph, and nothing "
            "in this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same with a layer that has weights: its graph is recorded for a value only sampled from.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from torch.distributions import Categorical


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 5)
                    self.act = nn.Linear(5, 5)

                def forward(self, x):
                    return self.fc(x)


            def train_step(model, opt, x, reward):
                logits = model(x)
                probs = model.act(logits)
                action = Categorical(probs).sample()
                baseline = reward.mean().detach()
                loss = (F.cross_entropy(logits, action, reduction="none") * (reward - baseline)).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            """,
            line=19,
            column=13,
            message="`model.act(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; "
            "run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # An evaluation helper whose one running caller hands it a loaded model in eval mode; a
        # second caller, a function nobody calls, does not count.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Searcher(nn.Module):
                def __init__(self, enc):
                    super().__init__()
                    self.enc = enc

                def forward(self, x):
                    return torch.max(self.enc(x), dim=1)


            def evaluate(searcher, x):
                tokens, scores = searcher(x)
                return [t.item() for t in tokens]


            def evaluate_input(searcher):
                while True:
                    print(evaluate(searcher, torch.randn(2, 4)))


            def single_evaluate(searcher, x):
                print(evaluate(searcher, x))


            enc = torch.load("enc.pt")
            enc.eval()
            single_evaluate(Searcher(enc), torch.randn(2, 4))
            """,
            line=15,
            column=22,
            message="`searcher(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            unsafe=True,
        ),
        # One body for both phases, switched by `model.train(phase == "train")`: the validation
        # phase records a graph for nothing.
        Invalid(
            """
            import torch


            def fit(model, dataloaders, optimizer, criterion, epochs):
                for epoch in range(epochs):
                    for phase in ["train", "val"]:
                        model.train(phase == "train")
                        for inputs, labels in dataloaders[phase]:
                            optimizer.zero_grad()
                            loss = criterion(model(inputs), labels)
                            if phase == "train":
                                loss.backward()
                                optimizer.step()
                            print(loss.item())
            """,
            line=10,
            column=34,
            message='`model(...)` runs with grad enabled in every phase, but only the phase where `phase == "train"` '
            '(line 11) backpropagates: in the evaluation phase (`model.train(phase == "train")`, line 7) autograd '
            "records a graph for nothing, wasting memory and time; run the forward pass under "
            '`with torch.set_grad_enabled(phase == "train"):`',
        ),
        # A trainer switching to eval mode when it is given no optimizer, reached through a factory:
        # its evaluation phase runs with grad on.
        Invalid(
            """
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


            def get_trainer(name):
                if name == "class":
                    return class_trainer
                raise ValueError(name)
            """,
            line=8,
            column=24,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where `optimizer` (line 9) "
            "backpropagates: in the evaluation phase (`model.eval()`, line 5) autograd records a graph for nothing, "
            "wasting memory and time; run the forward pass under `with torch.set_grad_enabled(optimizer is not None):`",
        ),
        # A model loaded from torch.hub, kept by a module and run by its `predict`.
        Invalid(
            """
            import torch
            from torch import nn


            class HubNet(nn.Module):
                def __init__(self, num_classes):
                    super().__init__()
                    self.layers = torch.hub.load("pytorch/vision:v0.10.0", "alexnet", pretrained=True)
                    self.layers.classifier[-1] = nn.Linear(4096, num_classes)

                def predict(self, single_in):
                    pred = self.layers(single_in.unsqueeze(0))
                    return torch.argmax(pred, dim=1).item()
            """,
            line=12,
            column=16,
            message="`self.layers(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            unsafe=True,
        ),
        # The phase's flag kept in a local name (`train_mode = optimizer is not None`).
        Invalid(
            """
            import torch


            def pass_epoch(model, loader, criterion, optimizer=None):
                train_mode = optimizer is not None
                model.train(mode=train_mode)
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    if train_mode:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total / len(loader)


            def fit(model, train_loader, val_loader, criterion, epochs=10):
                optimizer = torch.optim.Adam(model.parameters())
                for _ in range(epochs):
                    pass_epoch(model, train_loader, criterion, optimizer)
                    print(pass_epoch(model, val_loader, criterion, optimizer=None))
            """,
            line=9,
            column=26,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where `train_mode` (line 10) backpropagates: in the evaluation phase (`pass_epoch(model, val_loader, criterion, optimizer=None)`, line 22) autograd records a graph for nothing, wasting memory and time; run the forward pass under `with torch.set_grad_enabled(train_mode):`",
        ),
        # The same where a module class of the file runs its model by `predict_proba`.
        Invalid(
            """
            import torch
            from torch import nn


            class Scorer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(16, 2)

                def predict_proba(self, x):
                    return torch.softmax(self.fc(x), dim=1)


            def ensemble_predict(ensemble_models, features):
                for model in ensemble_models:
                    model.eval()
                probs = [model.predict_proba(features)[:, 1] for model in ensemble_models]
                return torch.stack(probs).mean().item()
            """,
            line=17,
            column=14,
            message="`model.predict_proba(...)` runs with grad enabled after `model.eval()` (line 16), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            from torch import nn


            class Scorer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(16, 2)

                def predict_proba(self, x):
                    return torch.softmax(self.fc(x), dim=1)


            @torch.no_grad()
            def ensemble_predict(ensemble_models, features):
                for model in ensemble_models:
                    model.eval()
                probs = [model.predict_proba(features)[:, 1] for model in ensemble_models]
                return torch.stack(probs).mean().item()
            """,
            unsafe=True,
        ),
        # The same body switching the model's mode itself (`model.train() if optimizer else model.eval()`).
        Invalid(
            """
            import torch


            def run_epoch(model, loader, criterion, optimizer=None):
                model.train() if optimizer else model.eval()
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    if optimizer:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total / len(loader)


            def fit(model, train_loader, val_loader, criterion, epochs=10):
                optimizer = torch.optim.Adam(model.parameters())
                for _ in range(epochs):
                    run_epoch(model, train_loader, criterion, optimizer)
                    print(run_epoch(model, val_loader, criterion))
            """,
            line=8,
            column=26,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where `optimizer` (line 9) backpropagates: in the evaluation phase (`run_epoch(model, val_loader, criterion)`, line 21) autograd records a graph for nothing, wasting memory and time; run the forward pass under `with torch.set_grad_enabled(optimizer is not None):`",
        ),
        # One body for both phases, the backward pass under `if optimizer:`: `set_grad_enabled` takes a bool
        # (an optimizer raises TypeError), so the advice tests it against None.
        Invalid(
            """
            import torch


            def run_epoch(model, loader, criterion, optimizer=None):
                total = 0.0
                for x, y in loader:
                    loss = criterion(model(x), y)
                    if optimizer:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total / len(loader)


            def fit(model, train_loader, val_loader, criterion, epochs=10):
                optimizer = torch.optim.Adam(model.parameters())
                for _ in range(epochs):
                    run_epoch(model, train_loader, criterion, optimizer)
                    print(run_epoch(model, val_loader, criterion))
            """,
            line=7,
            column=26,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where `optimizer` (line 8) backpropagates: in the evaluation phase (`run_epoch(model, val_loader, criterion)`, line 20) autograd records a graph for nothing, wasting memory and time; run the forward pass under `with torch.set_grad_enabled(optimizer is not None):`",
        ),
        # The same layer after the model's training loop.
        Invalid(
            """
            import torch
            from torch import nn

            model = nn.Sequential(nn.Conv2d(1, 8, 5), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 24 * 24, 10))
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
            for _ in range(10):
                loss = nn.functional.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            p = model[0](x)
            print(p.mean(), p.std())
            """,
            line=12,
            column=5,
            message="`model[0](...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same module loading its trained weights in `__init__`.
        Invalid(
            """
            import numpy as np
            import torch


            class Tagger(torch.nn.Module):
                def __init__(self, vectors):
                    super().__init__()
                    self.embedding = torch.nn.Embedding(vectors.shape[0], vectors.shape[1])
                    self.load_state_dict(torch.load("tagger.pt"))
                    self.out = torch.nn.Linear(vectors.shape[1], 5)

                def forward(self, ids):
                    return self.out(self.embedding(ids))


            tagger = Tagger(np.loadtxt("vectors.txt", dtype=np.float32))
            tags = tagger(torch.tensor([[1, 2, 3]]))
            print(tags)
            """,
            line=17,
            column=8,
            message="`tagger(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A discriminator step whose backward pass (inside `autocast`) comes before the step: the generator's forward
        # pass is still only used detached.
        Invalid(
            """
            import torch


            def train(G, D, loader, d_opt, scaler):
                for x, z in loader:
                    fake = G(z)
                    d_loss = D(fake.detach()).mean() - D(x).mean()
                    d_opt.zero_grad()
                    if scaler is not None:
                        with torch.autocast("cuda"):
                            scaler.scale(d_loss).backward()
                        scaler.step(d_opt)
                        scaler.update()
            """,
            line=6,
            column=16,
            message="`G(...)` runs with grad enabled, but what is computed from its output is only read or used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A prediction function appending words (what `dictionary[choice]` holds, nothing shows a tensor) to the caller's list.
        Invalid(
            """
            import numpy as np
            import torch


            def predict(model, words, dictionary, num_words=100, topk=5):
                x = torch.tensor([[dictionary.index(w) for w in words]])
                for _ in range(num_words):
                    prediction = model(x)
                    _, top_choices = torch.topk(prediction, k=topk)
                    choice = np.random.choice(top_choices[0])
                    words.append(dictionary[choice])
                    x = torch.cat((x[:, 1:], torch.tensor([[choice]])), 1)
                return " ".join(words)
            """,
            line=8,
            column=22,
            message="`model(...)` runs with grad enabled in `predict`, whose result carries no graph, and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import numpy as np
            import torch


            @torch.no_grad()
            def predict(model, words, dictionary, num_words=100, topk=5):
                x = torch.tensor([[dictionary.index(w) for w in words]])
                for _ in range(num_words):
                    prediction = model(x)
                    _, top_choices = torch.topk(prediction, k=topk)
                    choice = np.random.choice(top_choices[0])
                    words.append(dictionary[choice])
                    x = torch.cat((x[:, 1:], torch.tensor([[choice]])), 1)
                return " ".join(words)
            """,
            unsafe=True,
        ),
        # A prediction method of a plain class running the model it holds through its own thin `forward`.
        Invalid(
            """
            import torch


            class NetEval:
                def __init__(self, net):
                    self.net = net

                def forward(self, inputs):
                    outputs = self.net(inputs)
                    return outputs

                def predict(self, inputs):
                    outputs = self.forward(inputs)
                    _, predicted = torch.max(outputs, 1)
                    return predicted


            def write_predictions(net, test_loader, path):
                net.eval()
                evaluator = NetEval(net)
                rows = []
                for x, _ in test_loader:
                    rows.extend(evaluator.predict(x).tolist())
                return rows
            """,
            line=13,
            column=19,
            message="`self.forward(...)` runs with grad enabled in `predict`, whose result carries no graph, and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch


            class NetEval:
                def __init__(self, net):
                    self.net = net

                def forward(self, inputs):
                    outputs = self.net(inputs)
                    return outputs

                @torch.no_grad()
                def predict(self, inputs):
                    outputs = self.forward(inputs)
                    _, predicted = torch.max(outputs, 1)
                    return predicted


            def write_predictions(net, test_loader, path):
                net.eval()
                evaluator = NetEval(net)
                rows = []
                for x, _ in test_loader:
                    rows.extend(evaluator.predict(x).tolist())
                return rows
            """,
            unsafe=True,
        ),
        # The head given after the freeze loop: its parameters require grad, and the call records a graph.
        Invalid(
            """
            import pretrainedmodels
            import torch
            from torch import nn

            model = pretrainedmodels.__dict__["resnet50"](num_classes=1000, pretrained="imagenet")
            for param in model.parameters():
                param.requires_grad = False
            model.last_linear = nn.Sequential(nn.Linear(2048, 1))
            model.load_state_dict(torch.load("best.pth"))
            model.eval()
            test_data_loader = torch.utils.data.DataLoader(torch.randn(8, 3, 224, 224), batch_size=4)
            preds = []
            for x in test_data_loader:
                preds.append(model(x).sigmoid().numpy())
            """,
            line=14,
            column=18,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 10), and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same helper called only after `net.eval()`.
        Invalid(
            """
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.Linear(8, 2))
            optimizer = torch.optim.Adam(net.parameters())
            data, targets = torch.randn(16, 4), torch.randint(0, 2, (16,))


            def print_batch_accuracy(data, targets):
                output = net(data)
                acc = (output.argmax(1) == targets).float().mean()
                print(f"accuracy {acc.item():.2f}")


            loss = nn.functional.cross_entropy(net(data), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            net.eval()
            print_batch_accuracy(data, targets)
            """,
            line=10,
            column=14,
            message="`net(...)` runs with grad enabled with `net` in eval mode, and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A notebook's helper reading the global `net`, called while it trains: a later cell's `net.eval()` says nothing of
        # the mode at these calls (the message speaks of the output only read).
        Invalid(
            """
            import torch
            import torch.nn as nn

            net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.Linear(8, 2))
            optimizer = torch.optim.Adam(net.parameters())
            data, targets = torch.randn(16, 4), torch.randint(0, 2, (16,))


            def print_batch_accuracy(data, targets):
                output = net(data)
                acc = (output.argmax(1) == targets).float().mean()
                print(f"accuracy {acc.item():.2f}")


            print_batch_accuracy(data, targets)
            loss = nn.functional.cross_entropy(net(data), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print_batch_accuracy(data, targets)

            net.eval()
            with torch.no_grad():
                print((net(data).argmax(1) == targets).float().mean())
            """,
            line=10,
            column=14,
            message="`net(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A torchvision detector does not: its boxes carry a graph until `.tolist()`.
        Invalid(
            """
            import torch
            from torchvision.models.detection import fasterrcnn_resnet50_fpn


            def detect_all(frames):
                detector = fasterrcnn_resnet50_fpn(weights="DEFAULT")
                detector.eval()
                boxes = []
                for frame in frames:
                    boxes.append(detector([frame])[0]["boxes"].tolist())
                return boxes
            """,
            line=10,
            column=22,
            message="`detector(...)` runs with grad enabled after `detector.eval()` (line 7), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same trainer backpropagating through autograd (`loss.backward()`): its test step records a graph for nothing.
        Invalid(
            """
            import torch
            from torch import nn



            class LayerTrainer:
                def __init__(self, model: nn.Module, loss_fn, optimizer):
                    self.model = model
                    self.loss_fn = loss_fn
                    self.optimizer = optimizer

                def train_batch(self, X, y):
                    out = self.model(X)
                    loss = self.loss_fn(out, y)
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                    return loss.item(), (out.argmax(dim=1) == y).sum().item()

                def test_batch(self, X, y):
                    out = self.model(X)
                    loss = self.loss_fn(out, y)
                    return loss.item(), (out.argmax(dim=1) == y).sum().item()

                def test_epoch(self, dl_test):
                    return [self.test_batch(X, y) for X, y in dl_test]
            """,
            line=21,
            column=15,
            message="`self.model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A later `model.forward(x)` under `no_grad` says nothing of the earlier `model(x)`, which runs `forward`
        # with grad enabled: a module runs without grad only where its `forward` turns grad off itself.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    out = F.relu(self.fc(x))
                    return out


            model = Net()
            model.load_state_dict(torch.load("w.pth", map_location="cpu"))
            model.eval()
            x = torch.randn(1, 4)
            out = model(x)
            print(out.argmax())
            with torch.no_grad():
                out2 = model.forward(x)
            print(out2)
            """,
            line=20,
            column=7,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 18), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation run inside `with torch.set_grad_enabled(True):`: a `no_grad` decorator would not reach it,
        # so no fix is offered (the block itself is what to change).
        Invalid(
            """
            import torch


            def test(loader, model):
                model.eval()
                for inputs, labels in loader:
                    with torch.set_grad_enabled(True):
                        logits = model.forward(inputs)
                    print(logits.detach().argmax(1))
            """,
            line=8,
            column=22,
            message="`model.forward(...)` runs with grad enabled after `model.eval()` (line 5), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A helper differentiating the model's outputs with respect to its input (`torch.autograd.grad` in a
        # comprehension) uses gradients: only the plain forward pass beside it wastes a graph, so the site is that call,
        # not the function (whose `@torch.no_grad()` would make `derivatives` raise).
        Invalid(
            """
            import torch


            def derivatives(model, inputs):
                x = inputs.clone().requires_grad_(True)
                out = model(x)
                grads = [
                    torch.autograd.grad(out[:, i], x, torch.ones_like(out[:, i]), create_graph=True)[0]
                    for i in range(out.shape[1])
                ]
                return torch.cat(grads, dim=1)


            def infer(checkpoint, inputs):
                model = torch.load(checkpoint, weights_only=False)
                model.eval()
                return model(inputs).detach().numpy(), derivatives(model, inputs).detach().numpy()
            """,
            line=17,
            column=12,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 16), and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A method of the class at hand running the model it is handed (`self.render(image, model)`), its
        # output only read at the test step.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            class Trainer:
                def __init__(self, images):
                    self.images = images

                def fit(self, model, optimizer, steps):
                    for step in range(steps):
                        pred = self.render(self.images[0], model)
                        loss = F.mse_loss(pred, self.images[0])
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                        if step % 10 == 0:
                            pred = self.render(self.images[-1], model)
                            test_loss = F.mse_loss(pred, self.images[-1])
                            print("test loss:", test_loss.item())

                def render(self, image, model):
                    chunks = [model(part) for part in image.split(1024)]
                    return torch.cat(chunks, 0)
            """,
            line=17,
            column=24,
            message="`self.render(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A model trained by a helper of the script whose call spans several lines, then run for a sample: trained,
        # not an untrained demo.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            model = nn.Sequential(nn.Embedding(65, 32), nn.Linear(32, 65))


            def run_experiment(net, data, steps):
                optimizer = torch.optim.Adam(net.parameters())
                for _ in range(steps):
                    x, y = data
                    loss = F.cross_entropy(net(x).view(-1, 65), y.view(-1))
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            run_experiment(
                model,
                data=(torch.randint(65, (4, 8)), torch.randint(65, (4, 8))),
                steps=100,
            )
            logits = model(torch.zeros(1, 1, dtype=torch.long))
            print(logits.argmax(-1))
            """,
            line=23,
            column=10,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same with `val` running the evaluation phase with grad enabled.
        Invalid(
            """
            import torch


            def step(split, loader, model, optimizer=None):
                if split == "train":
                    model.train()
                else:
                    model.eval()
                total = 0.0
                for x, y in loader:
                    output = model(x)
                    loss = torch.nn.functional.mse_loss(output, y)
                    total += loss.item()
                    if split == "train":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                return total


            def train(loader, model, optimizer):
                return step("train", loader, model, optimizer)


            def val(loader, model):
                return step("val", loader, model)
            """,
            line=11,
            column=18,
            message='`model(...)` runs with grad enabled in every phase, but only the phase where `split == "train"` (line 14) backpropagates: in the evaluation phase (`model.eval()`, line 8) autograd records a graph for nothing, wasting memory and time; run the forward pass under `with torch.set_grad_enabled(split == "train"):`',
        ),
        # A model held behind a property (`self.model` hands back `self._model`): calling the property's value runs the model.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Client:
                def __init__(self, model: nn.Module, test_loader):
                    self._model = model
                    self.test_loader = test_loader

                @property
                def model(self):
                    return self._model

                def test(self):
                    self.model.eval()
                    correct = 0
                    for x, y in self.test_loader:
                        outputs = self.model(x)
                        correct += (outputs.argmax(1) == y).sum().item()
                    return correct
            """,
            line=18,
            column=23,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 15), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn


            class Client:
                def __init__(self, model: nn.Module, test_loader):
                    self._model = model
                    self.test_loader = test_loader

                @property
                def model(self):
                    return self._model

                @torch.no_grad()
                def test(self):
                    self.model.eval()
                    correct = 0
                    for x, y in self.test_loader:
                        outputs = self.model(x)
                        correct += (outputs.argmax(1) == y).sum().item()
                    return correct
            """,
            unsafe=True,
        ),
        # The same, with weights loaded through the other name: a trained model's outputs, only read.
        Invalid(
            """
            import torch
            import torch.nn as nn

            generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            g = generator
            g.load_state_dict(torch.load("G.pth"))
            g.eval()
            noise = torch.randn(1, 4)
            fake = g(noise)
            print(fake)
            """,
            line=9,
            column=8,
            message="`g(...)` runs with grad enabled after `g.eval()` (line 7), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A model written by hand in a plain class: its `predict` runs `fit`, which computes with the weights
        # `__init__` makes requiring grad (`self.w`), on a test batch whose predictions are only printed.
        Invalid(
            """
            import torch


            class PSoftmaxModel(object):
                def __init__(self, fea_num, cate_num):
                    self.fea_num = fea_num
                    self.w = torch.normal(0, 0.01, size=(fea_num, cate_num), requires_grad=True)
                    self.b = torch.zeros(cate_num, requires_grad=True)

                def linreg(self, X):
                    return torch.mm(X.view(-1, self.fea_num), self.w) + self.b

                def fit(self, X):
                    return torch.softmax(self.linreg(X), dim=1)

                def predict(self, X):
                    y_pred = self.fit(X)
                    return torch.argmax(y_pred, dim=1).reshape(-1)


            model = PSoftmaxModel(784, 10)
            for x, y in loader:
                loss = torch.nn.functional.nll_loss(model.fit(x).log(), y)
                loss.backward()
                with torch.no_grad():
                    model.w -= 0.1 * model.w.grad
                    model.b -= 0.1 * model.b.grad
                    model.w.grad.zero_()
                    model.b.grad.zero_()
            x, y = next(iter(test_loader))
            print(model.predict(x))
            """,
            line=17,
            column=18,
            message="`self.fit(...)` runs with grad enabled on evaluation data `X`, and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A base class's `evaluate` running the model through its own `validation_step`, whose `self(images)` runs
        # the module (the "Zero to GANs" template).
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            def accuracy(outputs, labels):
                _, preds = torch.max(outputs, dim=1)
                return torch.tensor(torch.sum(preds == labels).item() / len(preds))


            class ImageClassificationBase(nn.Module):
                def training_step(self, batch):
                    images, labels = batch
                    out = self(images)
                    return F.cross_entropy(out, labels)

                def validation_step(self, batch):
                    images, labels = batch
                    out = self(images)
                    loss = F.cross_entropy(out, labels)
                    acc = accuracy(out, labels)
                    return {"val_loss": loss.detach(), "val_acc": acc}

                def validation_epoch_end(self, outputs):
                    batch_losses = [x["val_loss"] for x in outputs]
                    epoch_loss = torch.stack(batch_losses).mean()
                    batch_accs = [x["val_acc"] for x in outputs]
                    epoch_acc = torch.stack(batch_accs).mean()
                    return {"val_loss": epoch_loss.item(), "val_acc": epoch_acc.item()}

                def evaluate(self, val_loader):
                    self.eval()
                    outputs = [self.validation_step(batch) for batch in val_loader]
                    return self.validation_epoch_end(outputs)


            class Net(ImageClassificationBase):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(784, 10)

                def forward(self, x):
                    return self.fc(x.flatten(1))


            def fit_cycle(epochs, model, train_loader, val_loader, opt_func=torch.optim.SGD):
                history = []
                optimizer = opt_func(model.parameters(), 0.01)
                for epoch in range(epochs):
                    model.train()
                    for batch in train_loader:
                        loss = model.training_step(batch)
                        loss.backward()
                        optimizer.step()
                        optimizer.zero_grad()
                    result = model.evaluate(val_loader)
                    history.append(result)
                return history
            """,
            line=33,
            column=20,
            message="`self.validation_step(...)` runs with grad enabled after `self.eval()` (line 32), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            def accuracy(outputs, labels):
                _, preds = torch.max(outputs, dim=1)
                return torch.tensor(torch.sum(preds == labels).item() / len(preds))


            class ImageClassificationBase(nn.Module):
                def training_step(self, batch):
                    images, labels = batch
                    out = self(images)
                    return F.cross_entropy(out, labels)

                def validation_step(self, batch):
                    images, labels = batch
                    out = self(images)
                    loss = F.cross_entropy(out, labels)
                    acc = accuracy(out, labels)
                    return {"val_loss": loss.detach(), "val_acc": acc}

                def validation_epoch_end(self, outputs):
                    batch_losses = [x["val_loss"] for x in outputs]
                    epoch_loss = torch.stack(batch_losses).mean()
                    batch_accs = [x["val_acc"] for x in outputs]
                    epoch_acc = torch.stack(batch_accs).mean()
                    return {"val_loss": epoch_loss.item(), "val_acc": epoch_acc.item()}

                @torch.no_grad()
                def evaluate(self, val_loader):
                    self.eval()
                    outputs = [self.validation_step(batch) for batch in val_loader]
                    return self.validation_epoch_end(outputs)


            class Net(ImageClassificationBase):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(784, 10)

                def forward(self, x):
                    return self.fc(x.flatten(1))


            def fit_cycle(epochs, model, train_loader, val_loader, opt_func=torch.optim.SGD):
                history = []
                optimizer = opt_func(model.parameters(), 0.01)
                for epoch in range(epochs):
                    model.train()
                    for batch in train_loader:
                        loss = model.training_step(batch)
                        loss.backward()
                        optimizer.step()
                        optimizer.zero_grad()
                    result = model.evaluate(val_loader)
                    history.append(result)
                return history
            """,
            unsafe=True,
        ),
        # A rollout's `select_action`, four lines around the policy: `torch.normal` of its outputs keeps their
        # graph, and the rollout only reads the action (the update runs the policy again).
        Invalid(
            """
            import gym
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self, n_in, n_out):
                    super().__init__()
                    self.fc = nn.Linear(n_in, 64)
                    self.mean = nn.Linear(64, n_out)
                    self.log_std = nn.Parameter(torch.zeros(1, n_out))

                def forward(self, x):
                    h = torch.tanh(self.fc(x))
                    mean = self.mean(h)
                    log_std = self.log_std.expand_as(mean)
                    return mean, log_std, torch.exp(log_std)


            env = gym.make("Hopper-v4")
            policy_net = Policy(11, 3)
            optimizer = torch.optim.Adam(policy_net.parameters())


            def select_action(state):
                state = torch.from_numpy(state).unsqueeze(0)
                action_mean, _, action_std = policy_net(state)
                action = torch.normal(action_mean, action_std)
                return action


            def update_params(states):
                action_mean, _, _ = policy_net(torch.tensor(states))
                loss = -action_mean.sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


            for episode in range(100):
                state, states = env.reset(), []
                for t in range(1000):
                    action = select_action(state)
                    state, reward, done, _ = env.step(action.detach()[0].numpy())
                    states.append(state)
                    if done:
                        break
                update_params(states)
            """,
            line=43,
            column=18,
            message="`select_action(...)` runs with grad enabled, but what is computed from its output is only read or used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A trainer's own validation method, handing back accuracies: reported once, at its model call
        # (one fix), not again at `self.val(test_data)`.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Trainer:
                def __init__(self, net, optimizer):
                    self.net = net
                    self.optimizer = optimizer
                    self.criterion = nn.CrossEntropyLoss()

                def train(self, train_data, test_data, epochs):
                    for epoch in range(epochs):
                        self.net.train()
                        for imgs, labels in train_data:
                            self.optimizer.zero_grad()
                            loss = self.criterion(self.net(imgs), labels)
                            loss.backward()
                            self.optimizer.step()
                        seq_acc, char_acc = self.val(test_data)
                        print(f"epoch {epoch}: {seq_acc:.3f} {char_acc:.3f}")

                def val(self, test_data):
                    self.net.eval()
                    for imgs, labels in test_data:
                        outputs = self.net(imgs)
                        char_acc = (outputs.argmax(1) == labels).float().mean()
                        seq_acc = (outputs.argmax(1) == labels).all(1).float().mean()
                    return seq_acc, char_acc
            """,
            line=25,
            column=23,
            message="`self.net(...)` runs with grad enabled after `self.net.eval()` (line 23), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn


            class Trainer:
                def __init__(self, net, optimizer):
                    self.net = net
                    self.optimizer = optimizer
                    self.criterion = nn.CrossEntropyLoss()

                def train(self, train_data, test_data, epochs):
                    for epoch in range(epochs):
                        self.net.train()
                        for imgs, labels in train_data:
                            self.optimizer.zero_grad()
                            loss = self.criterion(self.net(imgs), labels)
                            loss.backward()
                            self.optimizer.step()
                        seq_acc, char_acc = self.val(test_data)
                        print(f"epoch {epoch}: {seq_acc:.3f} {char_acc:.3f}")

                @torch.no_grad()
                def val(self, test_data):
                    self.net.eval()
                    for imgs, labels in test_data:
                        outputs = self.net(imgs)
                        char_acc = (outputs.argmax(1) == labels).float().mean()
                        seq_acc = (outputs.argmax(1) == labels).all(1).float().mean()
                    return seq_acc, char_acc
            """,
            unsafe=True,
        ),
        # A frozen filter's target side, the target padded first by a layer without parameters: still plain data.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from tqdm import tqdm


            class HighPass(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 3, 3, padding=1)

                def forward(self, x):
                    return x - self.conv(x)


            def train(model, train_loader, device):
                optim = torch.optim.Adam(model.parameters(), lr=1e-4)
                criterion = nn.MSELoss()
                high_pass = HighPass().to(device).eval()
                high_pass.load_state_dict(torch.load("high_pass.pth"))
                pad = nn.ReflectionPad2d(40)
                with tqdm(train_loader) as pbar:
                    for lr, hr in pbar:
                        lr = lr.to(device)
                        hr = pad(hr.to(device))
                        sr = model(lr)
                        loss = criterion(sr, hr) + criterion(high_pass(sr), high_pass(hr))
                        optim.zero_grad()
                        loss.backward()
                        optim.step()
            """,
            line=26,
            column=65,
            message="`high_pass(...)` runs with grad enabled with `high_pass` in eval mode, and no optimizer of this step updates `high_pass`: the backward pass runs through it and fills gradients nothing uses, wasting memory and time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, as a target should)",
        ),
        # A notebook's function reading a global the notebook binds again later: it sees what the global
        # holds where it is called (`CNN`, whose `conv1` it runs), not the notebook's last binding.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn


            class CNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv1 = nn.Conv2d(1, 8, 3)

                def forward(self, x):
                    return self.conv1(x)


            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(784, 10)

                def forward(self, x):
                    return self.fc(x.flatten(1))


            model = CNN()
            model.load_state_dict(torch.load("cnn.pt"))


            def visualize_feature_map():
                model.eval()
                img = torch.rand(1, 1, 28, 28)
                conv1_output = torch.relu(model.conv1(img))
                plt.imshow(conv1_output[0, 0].cpu().detach().numpy())


            visualize_feature_map()

            model = MLP()
            """,
            line=31,
            column=31,
            message="`model.conv1(...)` runs with grad enabled after `model.eval()` (line 29), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn


            class CNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv1 = nn.Conv2d(1, 8, 3)

                def forward(self, x):
                    return self.conv1(x)


            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(784, 10)

                def forward(self, x):
                    return self.fc(x.flatten(1))


            model = CNN()
            model.load_state_dict(torch.load("cnn.pt"))


            @torch.no_grad()
            def visualize_feature_map():
                model.eval()
                img = torch.rand(1, 1, 28, 28)
                conv1_output = torch.relu(model.conv1(img))
                plt.imshow(conv1_output[0, 0].cpu().detach().numpy())


            visualize_feature_map()

            model = MLP()
            """,
            unsafe=True,
        ),
        # A distillation trainer class: the teacher switched to eval mode in `__init__`, the optimizer on
        # `self` updating the student alone.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            import torch.optim as optim


            class TrainManager(object):
                def __init__(self, student, teacher, train_loader):
                    self.student = student
                    self.teacher = teacher
                    self.optimizer = optim.SGD(self.student.parameters(), lr=0.1)
                    self.teacher.eval()
                    self.train_loader = train_loader

                def train(self):
                    criterion = nn.CrossEntropyLoss()
                    for data, target in self.train_loader:
                        self.optimizer.zero_grad()
                        output = self.student(data)
                        teacher_outputs = self.teacher(data)
                        loss = criterion(output, target) + F.kl_div(F.log_softmax(output, dim=1), F.softmax(teacher_outputs, dim=1))
                        loss.backward()
                        self.optimizer.step()
            """,
            line=20,
            column=31,
            message="`self.teacher(...)` runs with grad enabled with `self.teacher` in eval mode, and no optimizer of this step updates `self.teacher`: the backward pass runs through it and fills gradients nothing uses, wasting memory and time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, as a target should)",
        ),
        # The same call timed: the graph is part of what is measured.
        Invalid(
            """
            import time

            import numpy as np
            import torch
            import torch.nn as nn


            class Actor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Linear(16, 1))

                def forward(self, state):
                    return torch.tanh(self.net(state))


            actor = Actor()
            actor.eval()
            start = time.perf_counter()
            actor(torch.from_numpy(np.array([[1, 2]], dtype="float32")))
            print(time.perf_counter() - start)
            """,
            line=20,
            column=1,
            message="`actor(...)` runs with grad enabled after `actor.eval()` (line 18), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # DDPG's target networks: the target critic's output is detached before it enters the loss, so
        # neither target call's graph is backpropagated (each statement of the script is a site).
        Invalid(
            """
            from copy import deepcopy

            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            critic = nn.Sequential(nn.Linear(3, 16), nn.BatchNorm1d(16), nn.Linear(16, 1))
            actor = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Linear(16, 1))
            critic_target = deepcopy(critic)
            actor_target = deepcopy(actor)
            critic_target.eval()
            actor_target.eval()
            critic_optim = torch.optim.Adam(critic.parameters())
            for s, a, r, s_next in [(torch.randn(8, 2), torch.randn(8, 1), torch.randn(8, 1), torch.randn(8, 2))]:
                action_next = actor_target(s_next)
                q_next = critic_target(torch.cat([s_next, action_next], 1))
                y = r + 0.99 * q_next.detach()
                critic_loss = F.mse_loss(critic(torch.cat([s, a], 1)), y)
                critic_optim.zero_grad()
                critic_loss.backward()
                critic_optim.step()
            """,
            line=15,
            column=19,
            message="`actor_target(...)` runs with grad enabled after `actor_target.eval()` (line 12), and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
            also=(
                Finding(
                    16,
                    14,
                    "`critic_target(...)` runs with grad enabled after `critic_target.eval()` (line 11), and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
                ),
            ),
        ),
        # The same loop over a list that leaves the classifier out: it still records a graph.
        Invalid(
            """
            import torch
            import torch.nn as nn

            encoder = nn.Linear(8, 4)
            classifier = nn.Linear(4, 2)
            optimizer = torch.optim.Adam(list(encoder.parameters()) + list(classifier.parameters()))
            for x, y in [(torch.randn(16, 8), torch.randint(0, 2, (16,)))]:
                loss = nn.functional.cross_entropy(classifier(encoder(x)), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            models = [encoder]
            for model in models:
                for param in model.parameters():
                    if param.requires_grad:
                        param.requires_grad = False
            val_x = torch.randn(16, 8)
            predicts = classifier(encoder(val_x)).argmax(1)
            print(predicts.tolist())
            """,
            line=19,
            column=12,
            message="`classifier(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A validation epoch whose loss is summed as numbers and divided by a count of batches (handed to
        # `range`, whatever its name says); a learning-rate scheduler's `step` uses no gradients.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from torch.optim.lr_scheduler import ReduceLROnPlateau


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)

                def forward(self, x, y):
                    preds = self.fc(x)
                    accuracy = torch.mean((preds.argmax(1) == y).float())
                    return accuracy, F.cross_entropy(preds, y)


            class Builder:
                def __init__(self, data):
                    self.data = data
                    self.net = Net()
                    self.optimizer = torch.optim.Adam(self.net.parameters())
                    self.scheduler = ReduceLROnPlateau(self.optimizer, "min")

                def run_val_epoch(self, total_val_batches):
                    total_c_loss = 0.0
                    for i in range(total_val_batches):
                        x, y = self.data.get_val_batch()
                        acc, c_loss = self.net(x, y)
                        total_c_loss += c_loss.item()
                    total_c_loss = total_c_loss / total_val_batches
                    self.scheduler.step(total_c_loss)
                    return total_c_loss
            """,
            line=29,
            column=27,
            message="`self.net(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from torch.optim.lr_scheduler import ReduceLROnPlateau


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)

                def forward(self, x, y):
                    preds = self.fc(x)
                    accuracy = torch.mean((preds.argmax(1) == y).float())
                    return accuracy, F.cross_entropy(preds, y)


            class Builder:
                def __init__(self, data):
                    self.data = data
                    self.net = Net()
                    self.optimizer = torch.optim.Adam(self.net.parameters())
                    self.scheduler = ReduceLROnPlateau(self.optimizer, "min")

                @torch.no_grad()
                def run_val_epoch(self, total_val_batches):
                    total_c_loss = 0.0
                    for i in range(total_val_batches):
                        x, y = self.data.get_val_batch()
                        acc, c_loss = self.net(x, y)
                        total_c_loss += c_loss.item()
                    total_c_loss = total_c_loss / total_val_batches
                    self.scheduler.step(total_c_loss)
                    return total_c_loss
            """,
            unsafe=True,
        ),
        # A validation method handing back numbers and lists of indices, called by another class's method:
        # reported once, at the method that runs the model (one fix).
        Invalid(
            """
            import torch


            class Validate:
                def __init__(self, model):
                    self.model = model

                def validate(self, dataloader):
                    self.model.eval()
                    correct, predicted = 0, []
                    for x, y in dataloader:
                        _, predict = torch.max(self.model(x), 1)
                        correct += (predict == y).sum().item()
                        predicted.extend(predict.cpu())
                    return correct / len(dataloader.dataset), predicted


            class Pipeline:
                def __init__(self, model):
                    self.validator = Validate(model)

                def validate(self, dataloader):
                    accuracy, predicted = self.validator.validate(dataloader)
                    return accuracy, predicted
            """,
            line=12,
            column=36,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 9), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch


            class Validate:
                def __init__(self, model):
                    self.model = model

                @torch.no_grad()
                def validate(self, dataloader):
                    self.model.eval()
                    correct, predicted = 0, []
                    for x, y in dataloader:
                        _, predict = torch.max(self.model(x), 1)
                        correct += (predict == y).sum().item()
                        predicted.extend(predict.cpu())
                    return correct / len(dataloader.dataset), predicted


            class Pipeline:
                def __init__(self, model):
                    self.validator = Validate(model)

                def validate(self, dataloader):
                    accuracy, predicted = self.validator.validate(dataloader)
                    return accuracy, predicted
            """,
            unsafe=True,
        ),
        # The indices of a `topk` of the output, looped over and printed: read, with no graph.
        Invalid(
            """
            import torch
            import torch.nn as nn

            rnn = nn.GRU(4, 8)
            optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
            for x in [torch.randn(3, 1, 4)]:
                out, h = rnn(x)
                out.sum().backward()
                optimizer.step()
                optimizer.zero_grad()

            categories = ["a", "b", "c", "d", "e", "f", "g", "h"]
            yhat, h = rnn(torch.randn(3, 1, 4))
            for i, c in enumerate(yhat[-1].squeeze().topk(5).indices):
                print("top", i, categories[c])
            """,
            line=13,
            column=11,
            message="`rnn(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same helper, called only to save what it computes: nothing backpropagates it.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def calculate_prototypes(X, y, model):
                model.eval()
                prototypes = []
                for c in torch.unique(y):
                    features = model(X[y == c])
                    prototypes.append(features.mean(dim=0))
                return torch.stack(prototypes)


            model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1))
            model.load_state_dict(torch.load("protonet.pt"))
            X = torch.randn(20, 4)
            y = torch.randint(0, 3, (20,))
            prototypes = calculate_prototypes(X, y, model)
            torch.save(prototypes, "prototypes.pt")
            """,
            line=9,
            column=20,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 6), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn


            @torch.no_grad()
            def calculate_prototypes(X, y, model):
                model.eval()
                prototypes = []
                for c in torch.unique(y):
                    features = model(X[y == c])
                    prototypes.append(features.mean(dim=0))
                return torch.stack(prototypes)


            model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1))
            model.load_state_dict(torch.load("protonet.pt"))
            X = torch.randn(20, 4)
            y = torch.randint(0, 3, (20,))
            prototypes = calculate_prototypes(X, y, model)
            torch.save(prototypes, "prototypes.pt")
            """,
            unsafe=True,
        ),
        # The same module whose helper only computes the error: a call of it evaluates.
        Invalid(
            """
            import torch
            from torch import nn


            class AnomalyGAN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.netg = nn.Linear(8, 8)
                    self.optimizer = torch.optim.Adam(self.netg.parameters())

                def error_g(self, x):
                    self.err_g = (self.netg(x) - x).abs().mean()

                def forward(self, x):
                    self.error_g(x)
                    return self.err_g


            model = AnomalyGAN()
            model.load_state_dict(torch.load("ganomaly.pt"))
            model.eval()
            for images, labels in test_loader:
                error = model(images)
                print(error.item())
            """,
            line=23,
            column=13,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 21), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same layer with its affine parameters: they require grad, and each call records a graph.
        Invalid(
            """
            import torch
            from torch import nn

            bn = nn.BatchNorm1d(100).train()
            for i in range(100):
                bn(torch.randn(20, 100) * 20 + 7)

            bn.eval()
            print(bn(torch.ones(20, 100)))
            """,
            line=9,
            column=7,
            message="`bn(...)` runs with grad enabled after `bn.eval()` (line 8), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A character model's `predict`, called only by its own `generate` after `self.eval()`: the
        # instance runs in eval mode there, and the hidden state it hands back is cut by the next call.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn.functional as F
            from torch import nn


            class CharRNN(nn.Module):
                def __init__(self, chars):
                    super().__init__()
                    self.chars = chars
                    self.lstm = nn.LSTM(len(chars), 64, batch_first=True)
                    self.fc = nn.Linear(64, len(chars))

                def forward(self, x, hidden):
                    out, hidden = self.lstm(x, hidden)
                    return self.fc(out), hidden

                def predict(self, x, hidden):
                    hidden = tuple([e.data for e in hidden])
                    out, hidden = self.forward(x, hidden)
                    p = F.softmax(out, dim=1).data
                    return int(p.argmax()), hidden

                def generate(self, size, x, hidden):
                    self.eval()
                    chars = []
                    for ii in range(size):
                        char, hidden = self.predict(x, hidden)
                        chars.append(char)
                    return chars
            """,
            line=20,
            column=23,
            message="`self.forward(...)` runs with grad enabled with `self` in eval mode, and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A parameter named as a function of the module: what it holds is what the caller hands it (a
        # loaded model), not that function.
        Invalid(
            """
            import torch
            from torch import nn


            def net(x):
                return x * 2


            def predict(net, x):
                return net(x).argmax(1).tolist()


            model = nn.Linear(4, 3)
            model.load_state_dict(torch.load("linear.pt"))
            print(predict(model, torch.randn(2, 4)))
            """,
            line=10,
            column=12,
            message="`net(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A DQN's target changed in place (`target *= gamma`, `target += r`), then detached: its graph is
        # never backpropagated.
        Invalid(
            """
            import torch
            from torch import nn
            from torch.optim import Adam

            class DQN:
                def __init__(self):
                    self.model = nn.Linear(4, 2)
                    self.target_net = nn.Linear(4, 2)
                    self.target_net.eval()
                    self.optim = Adam(self.model.parameters())
                    self.criterion = nn.MSELoss()

                def train_step(self, s_batch, a_batch, ns_batch, r_batch, d_batch):
                    q_batch = self.model(s_batch).gather(-1, a_batch[:, None].long()).squeeze()
                    target = self.target_net(ns_batch).max(1)[0]
                    target *= (1 - d_batch.float()) * 0.99
                    target += r_batch
                    target = target.detach()
                    loss = self.criterion(q_batch, target)
                    self.optim.zero_grad()
                    loss.backward()
                    self.optim.step()
            """,
            line=15,
            column=18,
            message="`self.target_net(...)` runs with grad enabled with `self.target_net` in eval mode, and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # An attack written as a module whose `forward` backpropagates: the script uses gradients, and
        # only the evaluation of the perturbed batch is the site.
        Invalid(
            """
            import torch
            from torch import nn


            class CWAttack(nn.Module):
                def __init__(self, model, steps=10):
                    super().__init__()
                    self.model = model
                    self.steps = steps

                def forward(self, images, labels):
                    w = images.clone().requires_grad_(True)
                    optimizer = torch.optim.Adam([w], lr=0.01)
                    for _ in range(self.steps):
                        cost = nn.functional.cross_entropy(self.model(w), labels)
                        optimizer.zero_grad()
                        cost.backward()
                        optimizer.step()
                    return w.detach()


            model = torch.load("cnn.pt")
            model.eval()
            cw_attack = CWAttack(model)
            correct = 0
            for data, target in test_loader:
                perturbed = cw_attack(data, target)
                output = model(perturbed)
                correct += (output.argmax(1) == target).sum().item()
            print(correct)
            """,
            line=28,
            column=14,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same shape where the test tells the phases apart: the other branch is an evaluation.
        Invalid(
            """
            import torch


            def run_epoch(model, loader, optimizer, criterion, phase):
                total = 0.0
                for sequences, labels in loader:
                    optimizer.zero_grad()
                    if phase == "train":
                        outputs = model(sequences)
                        loss = criterion(outputs, labels)
                        loss.backward()
                        optimizer.step()
                    else:
                        outputs = model(sequences)
                        loss = criterion(outputs, labels)
                    total += loss.item()
                return total


            run_epoch(net, val_loader, opt, nn.CrossEntropyLoss(), "val")
            """,
            line=14,
            column=23,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A method named like a Lightning hook (`test_step`) of a class with no base, in a file without
        # Lightning: no trainer runs it, the run's scripts call it.
        Invalid(
            """
            import torch
            from torch import nn


            class Solver(object):
                def __init__(self, encoder, decoder):
                    self.encoder = encoder
                    self.decoder = decoder

                def test_step(self, x, c):
                    self.encoder.eval()
                    self.decoder.eval()
                    enc = self.encoder(x)
                    x_tilde = self.decoder(enc, c)
                    return x_tilde.data.cpu().numpy()
            """,
            line=13,
            column=15,
            message="`self.encoder(...)` runs with grad enabled after `self.encoder.eval()` (line 11), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A calibration pass over the test loader by a method whose name does not say it runs the model,
        # where every module class defining it runs the model by it (`quantize_forward`).
        Invalid(
            """
            import torch
            from torch import nn


            class QNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(1, 8, 3)
                    self.fc = nn.Linear(8 * 26 * 26, 10)

                def quantize_forward(self, x):
                    return self.fc(self.conv(x).flatten(1))


            def calibrate(model, test_loader):
                for data, target in test_loader:
                    output = model.quantize_forward(data)
                print("calibrated")
            """,
            line=17,
            column=18,
            message="`model.quantize_forward(...)` runs with grad enabled in the loop over `test_loader` (line 16), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same where the file imports no other library's estimators: a model named so is taken for torch's.
        Invalid(
            """
            import pickle

            import torch

            X_val = torch.load("X_val.pt")

            with open("model.pkl", "rb") as f:
                loaded_model = pickle.load(f)
            test_X = X_val[:10]
            if isinstance(test_X, torch.Tensor):
                test_X = test_X.numpy()
            predictions = loaded_model.predict(test_X)
            print(f"Sample predictions: {predictions[:5]}")
            """,
            line=12,
            column=15,
            message="`loaded_model.predict(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # `u(x, t=0)` in a string is no call of the name the output is bound to.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch

            model = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
            optimiser = torch.optim.Adam(model.parameters())
            for i in range(100):
                optimiser.zero_grad()
                loss = model(points).pow(2).mean()
                '''
                want u(x, t=0) = sin(x): the residual's mean is the loss
                '''
                loss.backward()
                optimiser.step()

            u = model(grid)
            plt.contourf(u.detach().numpy())
            """,
            line=15,
            column=5,
            message="`model(...)` runs with grad enabled, but what is computed from its output is only read or used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A plain class's `predict` runs its model with grad on: reported in the method, not at each
        # call of it (`sbs.predict(...)`), whose grad mode the method decides.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class StepByStep:
                def __init__(self, model, optimizer):
                    self.model = model
                    self.optimizer = optimizer

                def train_step(self, x, y):
                    self.model.train()
                    loss = ((self.model(x) - y) ** 2).mean()
                    loss.backward()
                    self.optimizer.step()
                    self.optimizer.zero_grad()

                def predict(self, x):
                    self.model.eval()
                    y_hat = self.model(torch.as_tensor(x).float())
                    self.model.train()
                    return y_hat.detach().cpu().numpy()


            model = nn.Linear(1, 1)
            sbs = StepByStep(model, torch.optim.SGD(model.parameters(), lr=0.1))
            for x, y in loader:
                sbs.train_step(x, y)
            predictions = sbs.predict([[0.5], [0.3]])
            print(predictions)
            """,
            line=19,
            column=17,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 18), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A helper returning a model method's output (`def decode(z): return ae.decode(z)`) is a
        # model call: a sample decoded after training and only read records a graph for nothing.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class AE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.e = nn.Linear(4, 2)
                    self.d = nn.Linear(2, 4)

                def decode(self, z):
                    return self.d(z)

                def forward(self, x):
                    return self.decode(self.e(x))


            ae = AE()
            opt = torch.optim.Adam(ae.parameters())
            for x in loader:
                loss = ((ae(x) - x) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()


            def decode(z):
                return ae.decode(z)


            sample = decode(torch.randn(1, 2))
            print(sample.data.cpu().numpy())
            """,
            line=31,
            column=10,
            message="`decode(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A converter into PIL images bound inside the function: the output only becomes an image to draw.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torchvision.transforms as transforms


            def show_model_output(model, x):
                to_pil = transforms.ToPILImage()
                y_pred = torch.sigmoid(model(x))
                plt.imshow(to_pil(y_pred[0]))
                plt.show()
            """,
            line=8,
            column=28,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same wrapper without its `no_grad`: both its forward pass and the attack's call are reported.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class PytorchModel(object):
                def __init__(self, model):
                    self.model = model
                    self.model.eval()

                def predict_label(self, image):
                    output = self.model(image)
                    _, predict = torch.max(output, 1)
                    return predict[0]


            class OPTAttack(object):
                def __init__(self, model):
                    self.model = model

                def attack(self, x0, y0):
                    model = self.model
                    if model.predict_label(x0) != y0:
                        return x0
                    return x0 * 2
            """,
            line=11,
            column=18,
            message="`self.model(...)` runs with grad enabled with `self.model` in eval mode, and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation "
            "under `torch.no_grad()` or `torch.inference_mode()`",
            also=(
                Finding(
                    22,
                    12,
                    "`model.predict_label(...)` runs with grad enabled although its output is only read (`.data`, "
                    "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for "
                    "every call, wasting memory and time; run evaluation under `torch.no_grad()` or "
                    "`torch.inference_mode()`",
                ),
            ),
        ),
        # A k-step prediction written into a buffer the next step reads, the buffer then only drawn
        # detached: every step's graph is recorded for nothing (and chained through the buffer).
        Invalid(
            """
            import torch
            from torch import nn

            net = nn.Sequential(nn.Linear(4, 10), nn.ReLU(), nn.Linear(10, 1))
            optimizer = torch.optim.Adam(net.parameters())
            x = torch.randn(100)
            for X, y in loader:
                optimizer.zero_grad()
                loss = ((net(X) - y) ** 2).mean()
                loss.backward()
                optimizer.step()

            preds = torch.zeros(100)
            preds[:4] = x[:4]
            for i in range(4, 100):
                preds[i] = net(preds[i - 4:i].reshape((1, -1)))
            plt.plot(preds[4:].detach().numpy())
            """,
            line=16,
            column=16,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A helper of the file loads weights into the model it is handed: the script then runs a
        # trained generator with grad on for an image it only shows.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from PIL import Image


            def load_model(filename, model, optimizer):
                state = torch.load(filename)
                model.load_state_dict(state["model"])
                optimizer.load_state_dict(state["optimizer"])


            if __name__ == "__main__":
                gen = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
                opt = torch.optim.Adam(gen.parameters())
                load_model("gen.pth", gen, opt)
                image = gen(torch.randn(1, 8))[0]
                picture = image.detach().numpy()
                Image.fromarray(picture).show()
            """,
            line=16,
            column=13,
            message="`gen(...)` runs with grad enabled on weights loaded from a file (line 15), and nothing in this "
            "module uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same sampler without its `no_grad`: every step records a graph for samples only read.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l = nn.Linear(4, 4)

                def forward(self, x, t):
                    return self.l(x) * t


            def em_sampler(score_model, marginal_prob_std, n=10):
                t = torch.ones(8, 4)
                x = torch.randn(8, 4) * marginal_prob_std(t)
                for i in range(n):
                    x = x + 0.1 * score_model(x, 0.5)
                return x


            score_model = Net()
            score_model.load_state_dict(torch.load("ckpt.pth"))
            samples = em_sampler(score_model, std_fn, 10)
            print(samples.clamp(0, 1))
            """,
            line=24,
            column=11,
            message="`em_sampler(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same preprocessing module with a convolution of its own: its call records a graph.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import transforms


            class Preprocess(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.preprocess = transforms.Compose([transforms.Resize((256, 256)), transforms.ToTensor()])
                    self.project = nn.Conv2d(3, 3, 1)

                def forward(self, image):
                    return self.project(self.preprocess(image))


            model = torch.load("model.pt")
            model.eval()
            transform = Preprocess()
            x = transform(image).unsqueeze(0)
            with torch.no_grad():
                print(model(x).argmax(1))
            """,
            line=19,
            column=5,
            message="`transform(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same loss network from a VGG left trainable: each target records a graph for nothing.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models


            class StyleLoss(nn.Module):
                def __init__(self, target):
                    super().__init__()
                    self.target = target.detach()

                def forward(self, x):
                    self.loss = torch.mean((x - self.target) ** 2)
                    return x


            def build(style, device):
                cnn = models.vgg19(weights="DEFAULT").features.eval().to(device)
                model = nn.Sequential()
                losses = []
                for i, layer in enumerate(cnn.children()):
                    if isinstance(layer, nn.ReLU):
                        layer = nn.ReLU(inplace=False)
                    model.add_module(f"layer_{i}", layer)
                    if i in (1, 6, 11):
                        target = model(style).detach()
                        loss = StyleLoss(target)
                        model.add_module(f"style_loss_{i}", loss)
                        losses.append(loss)
                return model, losses
            """,
            line=25,
            column=22,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The validation predictions collected into `th.tensor([...])`, which copies their values:
        # every call's graph is recorded for nothing.
        Invalid(
            """
            import torch as th
            import torch.nn as nn

            net = nn.Linear(4, 1)
            opt = th.optim.Adam(net.parameters())
            loss = nn.MSELoss()
            for epoch in range(10):
                pred_label = th.stack([net(g) for g, _ in trainset])
                ep_t_loss = loss(pred_label, labels)
                ep_t_loss.backward()
                opt.step()
                opt.zero_grad()
                pred = th.tensor([net(graph) for graph, _ in validset])
                ep_v_loss = loss(pred, vlabels)
                print(ep_v_loss.item())
            """,
            line=13,
            column=23,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # GAIL's costs from the discriminator, detached on the line a backslash continues: the
        # policy's step takes them as constants, and the discriminator's graph is for nothing.
        Invalid(
            """
            import torch
            import torch.nn as nn

            d = nn.Linear(4, 1)
            pi = nn.Linear(4, 1)
            opt = torch.optim.Adam(pi.parameters())
            for x, y in loader:
                costs = (-1) * torch.log(d(x))\
                    .squeeze().detach()
                loss = (pi(x).squeeze() * costs).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            """,
            line=8,
            column=30,
            message="`d(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The twin: the cell's parameters go to an optimizer and a helper trains it, then its
        # output is only printed.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Cell(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.lin = nn.Linear(n, n)

                def forward(self, x):
                    return torch.tanh(self.lin(x))


            def test(n, loader):
                x = torch.randn(3, n)
                custom = Cell(n)
                optimizer = torch.optim.SGD(custom.parameters(), lr=0.1)
                train(custom, optimizer, loader)
                out = custom(x)
                print(out.argmax(1))
            """,
            line=19,
            column=11,
            message="`custom(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The twin with grad on: `step` computes with the module's parameter (`x @ self.weight`),
        # so each call records a graph that nothing backpropagates (the drawing detaches).
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn


            class Hopfield(nn.Module):
                def __init__(self, size):
                    super().__init__()
                    self.weight = nn.Parameter(torch.zeros(size, size))

                def step(self, x):
                    return torch.tanh(x @ self.weight)

                def forward(self, x, steps=5):
                    for _ in range(steps):
                        x = self.step(x)
                    return x


            model = Hopfield(64)
            optimizer = torch.optim.Adam(model.parameters())
            for x in loader:
                loss = (model(x) - x).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            state = noisy
            for i in range(7):
                state = model.step(state)
                plt.imshow(state.detach().view(8, 8))
            """,
            line=30,
            column=13,
            message="`model.step(...)` runs with grad enabled, but what is computed from its output is only read or "
            "used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The twin with grad on: a plain class (an ensemble member holding its network) whose
        # `forward` hands back only detached arrays: no caller can backpropagate what it records.
        Invalid(
            """
            import torch


            class Member:
                def __init__(self):
                    self.model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
                    self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

                def forward(self, inputs):
                    out = self.model(torch.from_numpy(inputs).float())
                    mean, var = torch.split(out, 1, dim=1)
                    return mean.detach().numpy(), var.detach().numpy()

                def step(self, x, y):
                    loss = ((self.model(x)[:, :1] - y) ** 2).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """,
            line=10,
            column=15,
            message="`self.model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The twin of the homework left to write: the loop zeroes the model's gradients, but the
        # output is only read and nothing backpropagates it.
        Invalid(
            """
            class Scorer:
                def __init__(self, model, dataloader):
                    self.model = model
                    self.dataloader = dataloader

                def score(self):
                    self.model.eval()
                    correct = 0
                    for data in self.dataloader:
                        self.model.zero_grad()
                        output = self.model(data[0])
                        correct += (output.argmax(1) == data[1]).sum().item()
                    return correct
            """,
            line=11,
            column=22,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 7), and its output is "
            "never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A function serving both phases backpropagates under a test of its `mode` against two
        # training phases; the validation call hands it "eval", with grad on.
        Invalid(
            """
            import torch


            def run_epoch(model, loader, criterion, optimizer, mode="train"):
                total = 0.0
                for x, y in loader:
                    out = model(x)
                    loss = criterion(out, y)
                    if mode == "train" or mode == "train+log":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total


            def fit(model, train_loader, val_loader, criterion, optimizer):
                for epoch in range(10):
                    model.train()
                    run_epoch(model, train_loader, criterion, optimizer, mode="train+log")
                    model.eval()
                    print(run_epoch(model, val_loader, criterion, optimizer, mode="eval"))
            """,
            line=7,
            column=15,
            message='`model(...)` runs with grad enabled in every phase, but only the phase where `mode == "train" or '
            'mode == "train+log"` (line 9) backpropagates: in the evaluation phase (`run_epoch(model, val_loader, '
            'criterion, optimizer, mode="eval")`, line 22) autograd records a graph for nothing, wasting memory and '
            'time; run the forward pass under `with torch.set_grad_enabled(mode == "train" or mode == "train+log"):`',
        ),
        # A REINFORCE rollout through a helper that builds a `Categorical` from the policy's output:
        # the action is only sampled and read, and the loss runs the policy again on the batch.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torch.distributions import Categorical


            def get_policy(policy_net, obs):
                return Categorical(logits=policy_net(obs))


            def train(env, episodes=10):
                policy_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
                optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-2)
                for episode in range(episodes):
                    obs_buf, act_buf, rewards = [], [], []
                    s, done = env.reset(), False
                    while not done:
                        obs_buf.append(s)
                        dist = get_policy(policy_net, torch.tensor(s, dtype=torch.float32))
                        a = dist.sample()
                        s, r, done, _ = env.step(a.item())
                        act_buf.append(a.item())
                        rewards.append(r)
                    obs = torch.tensor(obs_buf, dtype=torch.float32)
                    acts = torch.tensor(act_buf)
                    loss = -(get_policy(policy_net, obs).log_prob(acts) * sum(rewards)).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
            """,
            line=18,
            column=20,
            message="`get_policy(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; "
            "run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # An RL evaluation's policy defined inside `evaluate`: `actor` is what the callers hand
        # `evaluate`, a module of the file, and the action it gives is only read.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn


            class Actor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l1 = nn.Linear(3, 1)

                def forward(self, x):
                    return self.l1(x)


            def evaluate(actor, env, n_episodes=1):
                def policy(state):
                    state = torch.FloatTensor(state.reshape(-1))
                    action = actor(state).cpu().data.numpy().flatten()
                    return np.clip(action, -1, 1)

                score = 0
                for _ in range(n_episodes):
                    obs, done = env.reset(), False
                    while not done:
                        obs, reward, done, _ = env.step(policy(obs))
                        score += reward
                return score


            def train(env):
                actor = Actor()
                optimizer = torch.optim.Adam(actor.parameters())
                for step in range(10):
                    loss = actor(torch.randn(3)).sum()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    print(evaluate(actor, env))
            """,
            line=18,
            column=18,
            message="`actor(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A course notebook's helpers: the model moved by `to_device` (a list item by item, or
        # else `data.to(device)`), its `validation_step` and `validation_epoch_end` given by a base
        # class, `evaluate` with no `no_grad`.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            def to_device(data, device):
                if isinstance(data, (list, tuple)):
                    return [to_device(x, device) for x in data]
                return data.to(device, non_blocking=True)


            class ImageClassificationBase(nn.Module):
                def validation_step(self, batch):
                    images, labels = batch
                    out = self(images)
                    loss = F.cross_entropy(out, labels)
                    return {"val_loss": loss.detach()}

                def validation_epoch_end(self, outputs):
                    losses = [x["val_loss"] for x in outputs]
                    return {"val_loss": torch.stack(losses).mean().item()}


            class CIFAR10Model(ImageClassificationBase):
                def __init__(self):
                    super().__init__()
                    self.linear = nn.Linear(3072, 10)

                def forward(self, xb):
                    return self.linear(xb.view(xb.size(0), -1))


            def evaluate(model, val_loader):
                outputs = [model.validation_step(batch) for batch in val_loader]
                return model.validation_epoch_end(outputs)


            model = to_device(CIFAR10Model(), device)
            history = [evaluate(model, val_loader)]
            """,
            line=34,
            column=16,
            message="`model.validation_step(...)` runs with grad enabled in `evaluate`, whose result carries no graph, "
            "and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and "
            "time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # torchattacks' FGSM differentiates the model's loss with respect to the images: the loop
        # needs grad, so only the model's call on the attacked images is reported, to be wrapped.
        Invalid(
            """
            import torch
            import torchattacks

            model = torch.load("model.pt")
            model.eval()
            atk = torchattacks.FGSM(model, eps=8 / 255)
            correct = 0
            with torch.enable_grad():
                for data, target in testloader:
                    adv_images = atk(data, target)
                    outputs = model(adv_images)
                    correct += (outputs.argmax(1) == target).sum().item()
            print(correct)
            """,
            line=11,
            column=19,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A hand-written softmax regression over leaves that require grad: `net` and the `softmax`
        # it calls are straight-line functions of the file, evaluated over the call's arguments,
        # so `net(x)` gives a tensor with a graph; the accuracy loop only reads it.
        Invalid(
            """
            import torch

            w = torch.zeros(784, 10, requires_grad=True)
            b = torch.zeros(10, requires_grad=True)


            def softmax(x):
                x_exp = x.exp()
                partition = x_exp.sum(dim=1, keepdim=True)
                return x_exp / partition


            def net(x):
                logits = torch.mm(x.view(-1, 784), w) + b
                return softmax(logits)


            def evaluate_accuracy(data_iter, net):
                acc_sum, n = 0.0, 0
                for x, y in data_iter:
                    acc_sum += (net(x).argmax(dim=1) == y).float().sum().item()
                    n += x.shape[0]
                return acc_sum / n


            def train(train_iter, test_iter, lr):
                for x, y in train_iter:
                    loss = -torch.log(net(x).gather(1, y.view(-1, 1))).sum()
                    loss.backward()
                    with torch.no_grad():
                        for param in (w, b):
                            param -= lr * param.grad
                            param.grad.zero_()
                print(evaluate_accuracy(test_iter, net))
            """,
            line=21,
            column=21,
            message="`net(...)` runs with grad enabled in the loop over `data_iter` (line 20), and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A per-epoch loss computed for a plot through the notebook's own loss function (bound as
        # `loss = mse_loss`): it only computes from its arguments, and `.item()` reads its result.
        Invalid(
            """
            import torch
            from torch import nn


            def mse_loss(y_pred, y):
                squared = (y_pred - y.view(y_pred.size())) ** 2
                return squared.mean()


            loss = mse_loss


            def fit(features, labels, train_iter, num_epochs):
                net = nn.Linear(features.shape[1], 1)
                optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
                history = []
                for _ in range(num_epochs):
                    for x, y in train_iter:
                        l = loss(net(x), y)
                        optimizer.zero_grad()
                        l.backward()
                        optimizer.step()
                    history.append(loss(net(features), labels).mean().item())
                return history
            """,
            line=23,
            column=29,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A trainer's GAN, built in one method and moved in place (`self.gan = self.gan.cuda()`):
        # the attribute still holds the module class of the file, whose `generate_img` runs it.
        Invalid(
            """
            import torch
            from torch import nn
            from torchvision.utils import save_image


            class GAN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.G = nn.Linear(100, 784)

                def generate_img(self, z):
                    return self.G(z)


            class Trainer:
                def compile(self):
                    self.gan = GAN()
                    if torch.cuda.is_available():
                        self.gan = self.gan.cuda()

                def sample(self, z):
                    self.gan.G.eval()
                    img = self.gan.generate_img(z)
                    save_image(img.squeeze(), "sample.png")
            """,
            line=12,
            column=16,
            message="`self.G(...)` runs with grad enabled in `generate_img`, whose callers only read its result, and "
            "nothing in this function uses gradients: autograd records a graph for every call, wasting memory and "
            "time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            also=(
                Finding(
                    23,
                    15,
                    "`self.gan.generate_img(...)` runs with grad enabled although its output is only read (`.data`, "
                    "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for "
                    "every call, wasting memory and time; run evaluation under `torch.no_grad()` or "
                    "`torch.inference_mode()`",
                ),
            ),
        ),
        # The same method on a class of the file that is no Catalyst runner: nothing turns grad off.
        Invalid(
            """
            import torch

            class Predictor:
                def __init__(self, model):
                    self.model = model

                def predict_batch(self, batch):
                    return self.model(batch[0]).argmax(1)
            """,
            line=8,
            column=16,
            message="`self.model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An agent's network handed in, unknown by name: the class's code runs it as modules are
        # run (`self.DQN.forward(state)`), so it is a module; acting only reads its output.
        Invalid(
            """
            import torch as T

            class Agent:
                def __init__(self, DQN, target_DQN):
                    self.DQN = DQN
                    self.target_DQN = target_DQN
                    self.target_DQN.load_state_dict(self.DQN.state_dict())

                def act(self, state):
                    state = T.tensor([state], dtype=T.float)
                    return T.argmax(self.DQN.forward(state)).item()
            """,
            line=11,
            column=25,
            message="`self.DQN.forward(...)` runs with grad enabled although its output is only read (`.data`, "
            "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for "
            "every call, wasting memory and time; run evaluation under `torch.no_grad()` or "
            "`torch.inference_mode()`",
        ),
        # The same helper running a layer with parameters.
        Invalid(
            """
            import torch
            from torch import nn


            class CParser:
                def __init__(self):
                    self.flatten = nn.Linear(4, 4)

                def tensor_to_array(self, name, tensor):
                    tensor = self.flatten(tensor)
                    return f"float {name}[] = {{" + ", ".join(str(t.item()) for t in tensor) + "};"

                def output_testing(self, expected):
                    return self.tensor_to_array("expected", expected)
            """,
            line=14,
            column=16,
            message="`self.tensor_to_array(...)` runs with grad enabled in `output_testing`, whose result carries no "
            "graph, and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation before the loop over the phases (`if num_epochs == 0:`): its own loop,
        # not the phases', so the advice is `no_grad` around it.
        Invalid(
            """
            import torch


            def train_model(model, criterion, optimizer, loaders, num_epochs):
                if num_epochs == 0:
                    model.eval()
                    correct = 0
                    for inputs, labels in loaders["val"]:
                        outputs = model(inputs)
                        correct += (outputs.argmax(1) == labels).sum().item()
                    return correct
                for epoch in range(num_epochs):
                    for phase in ["train", "val"]:
                        if phase == "train":
                            model.train()
                        else:
                            model.eval()
                        for inputs, labels in loaders[phase]:
                            optimizer.zero_grad()
                            with torch.set_grad_enabled(phase == "train"):
                                loss = criterion(model(inputs), labels)
                            if phase == "train":
                                loss.backward()
                                optimizer.step()
            """,
            line=9,
            column=23,
            message='`model(...)` runs with grad enabled in the loop over `loaders["val"]` (line 8), which never '
            "uses gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same, the evaluation branch without `no_grad`.
        Invalid(
            """
            import torch


            def fit(model, optimizer, criterion, loader, phase="training"):
                if phase == "training":
                    model.train()
                else:
                    model.eval()
                total = 0
                for inputs, targets in loader:
                    if phase == "training":
                        optimizer.zero_grad()
                        outputs = model(inputs)
                    else:
                        outputs = model(inputs)
                    loss = criterion(outputs, targets)
                    total += loss.item()
                    if phase == "training":
                        loss.backward()
                        optimizer.step()
                return total


            def train(model, optimizer, criterion, train_loader, val_loader):
                for epoch in range(10):
                    fit(model, optimizer, criterion, train_loader, phase="training")
                    fit(model, optimizer, criterion, val_loader, phase="validation")
            """,
            line=15,
            column=23,
            message='`model(...)` runs with grad enabled in every phase, but only the phase where `phase == "training"` '
            "(line 18) backpropagates: in the evaluation phase (`model.eval()`, line 8) autograd records a graph for "
            "nothing, wasting memory and time; run the forward pass under `with torch.set_grad_enabled(phase == "
            '"training"):`',
        ),
        # A wrapper's generator given weights (`model.generator.load_state_dict(...)`), then
        # sampled on random numbers: the trained model at work, not a demo of its code.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn


            class GAN:
                def __init__(self, latent):
                    self.generator = nn.Sequential(nn.Linear(latent, 784), nn.Tanh())


            model = GAN(100)
            model.generator.load_state_dict(torch.load("generator.ckpt"))
            model.generator.eval()
            print(model.generator(torch.tensor(np.random.normal(size=[2, 100])).float()))
            """,
            line=14,
            column=7,
            message="`model.generator(...)` runs with grad enabled after `model.generator.eval()` (line 13), and "
            "nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; "
            "run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same generator run on numbers read from a file: data, not made up.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn


            class Generator(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(100, 784), nn.Tanh())

                def forward(self, z):
                    return self.net(z)


            G = Generator()
            G.eval()
            print(G(torch.tensor(np.load("z.npy")).float()))
            """,
            line=17,
            column=7,
            message="`G(...)` runs with grad enabled after `G.eval()` (line 16), and nothing in this module uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # One function for both passes, its backward pass under a flag parameter (named `grad`,
        # not for a phase) that the evaluation call sets to False.
        Invalid(
            """
            import torch


            def run_epoch(model, loader, optimizer, criterion, grad):
                total = 0.0
                for images, targets in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(images), targets)
                    if grad:
                        loss.backward()
                        optimizer.step()
                    total += loss.item()
                return total / len(loader)


            def fit(model, train_loader, test_loader, optimizer, criterion, epochs):
                for epoch in range(epochs):
                    train_loss = run_epoch(model, train_loader, optimizer, criterion, True)
                    test_loss = run_epoch(model, test_loader, optimizer, criterion, False)
                    print(epoch, train_loss, test_loss)
            """,
            line=8,
            column=26,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where `grad` (line 9) "
            "backpropagates: in the evaluation phase (`run_epoch(model, test_loader, optimizer, criterion, False)`, "
            "line 19) autograd records a graph for nothing, wasting memory and time; run the forward pass under "
            "`with torch.set_grad_enabled(grad):`",
        ),
        # One function for both passes, its backward pass under `optimizer is not None`: the
        # validation call leaves the optimizer out (its default is None).
        Invalid(
            """
            def compute_epoch_stats(model, loader, criterion, optimizer=None):
                total = 0.0
                for x, y in loader:
                    pred = model(x)
                    loss = criterion(pred, y)
                    total += loss.item()
                    if optimizer is not None:
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                return total / len(loader)


            def train(model, train_dl, val_dl, criterion, optimizer, epochs):
                for epoch in range(epochs):
                    model.train()
                    train_loss = compute_epoch_stats(model, train_dl, criterion, optimizer)
                    model.eval()
                    val_loss = compute_epoch_stats(model, val_dl, criterion)
                    print(epoch, train_loss, val_loss)
            """,
            line=4,
            column=16,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where `optimizer is not "
            "None` (line 7) backpropagates: in the evaluation phase (`compute_epoch_stats(model, val_dl, criterion)`, "
            "line 19) autograd records a graph for nothing, wasting memory and time; run the forward pass under "
            "`with torch.set_grad_enabled(optimizer is not None):`",
        ),
        # A `log` method that runs the model's backbone (of one of two classes of the file), after a
        # switch to eval mode: a method named for something else, whose body shows it runs the model.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from transformers import AutoModel


            class Regressor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bert = AutoModel.from_pretrained("bert-base-uncased")
                    self.head = nn.Linear(768, 1)

                def forward(self, ids):
                    return self.head(self.bert(ids).last_hidden_state[:, 0])

                def log(self, ids):
                    hidden = self.bert(ids).last_hidden_state
                    torch.save(hidden, "hidden.pt")
                    return hidden.mean()


            class Classifier(Regressor):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Linear(768, 2)


            def report(task, ids):
                model = Regressor() if task == "regression" else Classifier()
                model.load_state_dict(torch.load("model.pt"))
                model.eval()
                print(model.log(ids))
            """,
            line=31,
            column=11,
            message="`model.log(...)` runs with grad enabled after `model.eval()` (line 30), and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A web endpoint running a text encoder another library built, switched to eval mode by the
        # script (`pipe.text_encoder.eval()`): every request records a graph.
        Invalid(
            """
            import torch
            from diffusers import StableDiffusionInstructPix2PixPipeline
            from fastapi import FastAPI
            from clients import run_unet

            app = FastAPI()
            pipe = StableDiffusionInstructPix2PixPipeline.from_pretrained("timbrooks/instruct-pix2pix")
            text_encoder = pipe.text_encoder.eval().to("cuda")
            tokenizer = pipe.tokenizer


            @app.post("/inference")
            async def infer(prompt: str):
                text_inputs = tokenizer(prompt, return_tensors="pt")
                prompt_embeds = text_encoder(text_inputs.input_ids.to("cuda"))[0]
                return run_unet(prompt_embeds)
            """,
            line=15,
            column=21,
            message="`text_encoder(...)` runs with grad enabled with `text_encoder` in eval mode, and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same nested function called with grad enabled.
        Invalid(
            """
            import torch


            def target_values(policy_net, target_net, next_states, rewards, gamma=0.99):
                def best_actions(states):
                    q = policy_net(states)
                    return q.max(1)[1].unsqueeze(1)

                actions = best_actions(next_states)
                with torch.no_grad():
                    next_q = target_net(next_states).gather(1, actions)
                return rewards + gamma * next_q
            """,
            line=6,
            column=13,
            message="`policy_net(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A recurrent agent's acting step, unpacking its output in nested tuples and handing every
        # part back detached: the graph is recorded for nothing.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn


            class RecurrentAgent(nn.Module):
                def __init__(self, n_actions):
                    super().__init__()
                    self.cell = nn.LSTMCell(8, 32)
                    self.logits = nn.Linear(32, n_actions)

                def forward(self, prev_state, obs):
                    h, c = self.cell(obs, prev_state)
                    return (h, c), self.logits(h)

                def step(self, prev_state, obs):
                    obs = torch.tensor(np.asarray(obs), dtype=torch.float32)
                    (h, c), logits = self.forward(prev_state, obs)
                    return (h.detach(), c.detach()), logits.detach()


            def evaluate(agent, env, n_games=1):
                rewards = []
                for _ in range(n_games):
                    obs = env.reset()
                    memory = (torch.zeros(1, 32), torch.zeros(1, 32))
                    total, done = 0.0, False
                    while not done:
                        memory, logits = agent.step(memory, obs[None])
                        obs, reward, done, _ = env.step(int(logits.argmax()))
                        total += reward
                    rewards.append(total)
                return np.mean(rewards)
            """,
            line=18,
            column=26,
            message="`self.forward(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An agent picking its action as the indices of a maximum (`q_values.max(1)[1]`): the Q-values'
        # graph is recorded at every step for nothing.
        Invalid(
            """
            import random
            import torch
            import torch.nn as nn


            class Agent:
                def __init__(self, n_actions):
                    self.model = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, n_actions))
                    self.optimizer = torch.optim.Adam(self.model.parameters())
                    self.n_actions = n_actions
                    self.epsilon = 0.1

                def select_action(self, state):
                    if random.random() < self.epsilon:
                        return torch.tensor([[random.randrange(self.n_actions)]], dtype=torch.long)
                    q_values = self.model(state)
                    action = q_values.max(1)[1].view(1, 1)
                    return action

                def learn(self, states, actions, targets):
                    q = self.model(states).gather(1, actions)
                    loss = nn.functional.mse_loss(q, targets)
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """,
            line=16,
            column=20,
            message="`self.model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same agent without that assert: reading its Q-values records a graph for nothing.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class DQNAgent(nn.Module):
                def __init__(self, n_actions):
                    super().__init__()
                    self.fc = nn.Linear(4, n_actions)

                def forward(self, states):
                    qvalues = self.fc(states)
                    return qvalues

                def get_qvalues(self, states):
                    qvalues = self.forward(torch.as_tensor(states, dtype=torch.float32))
                    return qvalues.data.cpu().numpy()
            """,
            line=15,
            column=19,
            message="`self.forward(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A plain class's own `forward` helper running the generator it holds: the samples drawn each
        # epoch record a graph (the same helper in the generator's step is trained, and quiet).
        Invalid(
            """
            import torch
            import torch.nn as nn


            class GAN:
                def __init__(self):
                    self.generator = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
                    self.discriminator = nn.Sequential(nn.Linear(16, 1), nn.Sigmoid())
                    self.g_opt = torch.optim.Adam(self.generator.parameters())
                    self.d_opt = torch.optim.Adam(self.discriminator.parameters())
                    self.test_noises = torch.randn(16, 8)
                    self.progress = []

                def forward(self, z):
                    return self.generator(z)

                def generator_step(self, x):
                    self.g_opt.zero_grad()
                    fake = self.forward(torch.randn(x.size(0), 8))
                    loss = -torch.log(self.discriminator(fake)).mean()
                    loss.backward()
                    self.g_opt.step()
                    return loss.item()

                def train(self, loader, epochs):
                    for epoch in range(epochs):
                        for batch, _ in loader:
                            self.generator_step(batch)
                        images = self.forward(self.test_noises)
                        self.progress.append(images.detach().cpu().numpy())
            """,
            line=29,
            column=22,
            message="`self.forward(...)` runs with grad enabled, but what is computed from its output is only read or "
            "used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same function returning the part in eval mode only: its parameters still require grad.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def split(model, at):
                fe = model[:at]
                fe.eval()
                return fe, model[at:]


            def report(loader):
                model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
                model.load_state_dict(torch.load("model.pt"))
                fe, head = split(model, 2)
                for images, _ in loader:
                    print(fe(images).mean().item())
            """,
            line=16,
            column=15,
            message="`fe(...)` runs with grad enabled with `fe` in eval mode, and nothing in this function uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation method whose callers (a training method of its class, the script) only
        # read what it returns, whichever of the file's flows first asks who calls it.
        Invalid(
            """
            import torch
            from captum.attr import IntegratedGradients
            from torch.nn import Linear


            class ModelTrainer:
                def __init__(self, model, optimizer, criterion):
                    self.model = model
                    self.optimizer = optimizer
                    self.criterion = criterion

                def train(self, epochs, train_loader, val_loader):
                    for epoch in range(epochs):
                        self.model.train()
                        total_loss = acc = 0
                        for data in train_loader:
                            self.optimizer.zero_grad()
                            out = self.model(data.x, data.edge_index)
                            loss = self.criterion(out, data.y)
                            total_loss += loss.item() / len(train_loader)
                            acc += self.accuracy(out.argmax(dim=1), data.y) / len(train_loader)
                            loss.backward()
                            self.optimizer.step()
                            val_loss, val_acc = self.test(val_loader)
                        print(f"{total_loss:.2f} {acc:.2f} {val_loss:.2f} {val_acc:.2f}")

                def test(self, loader):
                    self.model.eval()
                    loss = acc = 0
                    for data in loader:
                        out = self.model(data.x, data.edge_index)
                        loss += self.criterion(out, data.y) / len(loader)
                        acc += self.accuracy(out.argmax(dim=1), data.y) / len(loader)
                    return loss, acc

                def accuracy(self, pred_y, y):
                    return ((pred_y == y).sum() / len(y)).item()


            trainer = ModelTrainer(model, optimizer, criterion)
            test_loss, test_acc = trainer.test(test_loader)
            print(f"{test_loss:.2f} {test_acc:.2f}")
            for epoch in range(200):
                gcn_model.train()
                optimizer.zero_grad()
                loss = F.nll_loss(gcn_model(data.x, data.edge_index), data.y)
                loss.backward()
                optimizer.step()
            """,
            line=24,
            column=37,
            message="`self.test(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
            also=(
                Finding(
                    31,
                    19,
                    "`self.model(...)` runs with grad enabled after `self.model.eval()` (line 28), and nothing in "
                    "this function uses gradients: autograd records a graph for every call, wasting memory and time; "
                    "run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
                ),
                # the script's own evaluation through the trainer holding the model
                Finding(
                    41,
                    23,
                    "`trainer.test(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
                    "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and "
                    "time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
                ),
            ),
        ),
        # A model made of another library's layers (PyTorch Geometric's `GCNConv`), trained by its
        # own `fit`: it holds parameters, and the call after training records a graph.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch_geometric.nn import GCNConv


            class GCN(torch.nn.Module):
                def __init__(self, dim_in, dim_h, dim_out):
                    super().__init__()
                    self.conv1 = GCNConv(dim_in, dim_h)
                    self.conv2 = GCNConv(dim_h, dim_out)

                def forward(self, x, edge_index):
                    return self.conv2(F.relu(self.conv1(x, edge_index)), edge_index)

                def fit(self, data, epochs):
                    criterion = torch.nn.CrossEntropyLoss()
                    optimizer = torch.optim.Adam(self.parameters(), lr=0.01)
                    for epoch in range(epochs):
                        optimizer.zero_grad()
                        loss = criterion(self(data.x, data.edge_index), data.y)
                        loss.backward()
                        optimizer.step()


            def report(data):
                gcn = GCN(data.num_features, 16, 7)
                gcn.fit(data, epochs=100)
                out = gcn(data.x, data.edge_index)
                print((out.argmax(dim=1) == data.y).float().mean().item())
            """,
            line=28,
            column=11,
            message="`gcn(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; "
            "run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A decoding loop: one layer of the model fed by another (`model.linear(model.decoder(...))`),
        # whose output only a helper of the file that reads it (`.data.topk`) takes.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def best(out, k):
                probs, ix = out[:, -1].data.topk(k)
                return ix


            def beam_search(src, model, steps, k):
                outputs = src
                for i in range(steps):
                    out = model.linear(model.decoder(outputs, src))
                    out = F.softmax(out, dim=-1)
                    outputs = torch.cat([outputs, best(out, k)], dim=1)
                return outputs
            """,
            line=13,
            column=28,
            message="`model.decoder(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An agent (a plain class) built here and trained by its own `update`: the policy call
        # that picks each action records a graph nothing backpropagates.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, obs):
                    return self.fc(obs)


            class Agent:
                def __init__(self):
                    self.policy = Policy()
                    self.optimizer = torch.optim.Adam(self.policy.parameters())
                    self.states = []

                def update(self):
                    logits = self.policy(torch.stack(self.states))
                    loss = -logits.log_softmax(-1).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()


            def main(env, episodes):
                agent = Agent()
                for episode in range(episodes):
                    obs = env.reset()
                    for step in range(200):
                        logits = agent.policy(torch.as_tensor(obs))
                        action = logits.argmax().item()
                        agent.states.append(torch.as_tensor(obs))
                        obs = env.step(action)
                    agent.update()
            """,
            line=33,
            column=22,
            message="`agent.policy(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A script's own `test_step` (named like a Lightning hook, but a plain function no trainer
        # runs), defined under the main guard: its callers only read what it returns.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l1 = nn.Linear(784, 10)

                def forward(self, x):
                    return torch.log_softmax(self.l1(x), dim=-1)


            if __name__ == '__main__':
                def compute_loss(label, pred):
                    return criterion(pred, label)


                def train_step(x, t):
                    model.train()
                    preds = model(x)
                    loss = compute_loss(t, preds)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    return loss, preds


                def test_step(x, t):
                    model.eval()
                    preds = model(x)
                    loss = compute_loss(t, preds)
                    return loss, preds


                model = MLP()
                criterion = nn.NLLLoss()
                optimizer = torch.optim.Adam(model.parameters())
                for epoch in range(10):
                    for x, t in train_loader:
                        loss, _ = train_step(x, t)
                    test_loss = 0.0
                    for x, t in test_loader:
                        loss, preds = test_step(x, t)
                        test_loss += loss.item()
                        print(preds.argmax(dim=-1).tolist())
            """,
            line=31,
            column=17,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 30), and nothing in this function "
            "uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same loss closure, only printed: nothing backpropagates what it returns.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Features(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)

                def forward(self, x):
                    return self.conv(x)


            class StyleTransfer:
                def __init__(self, content, steps):
                    self.model = Features().eval()
                    self.content = content
                    self.steps = steps

                def optimize(self, image, loss_function):
                    optimizer = torch.optim.Adam([image], lr=0.01)
                    for _ in range(self.steps):
                        optimizer.zero_grad()
                        loss = loss_function()
                        loss.backward()
                        optimizer.step()
                    return image.detach()

                def run(self):
                    image = torch.rand_like(self.content, requires_grad=True)
                    with torch.no_grad():
                        target = self.model(self.content)

                    def total_loss_function():
                        generated = self.model(image)
                        return torch.mean((target - generated) ** 2)

                    print(total_loss_function().item())
            """,
            line=35,
            column=25,
            message="`self.model(...)` runs with grad enabled with `self.model` in eval mode, and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A class freezing its features but adding a head after them: the head's parameters require
        # grad, so each call records a graph.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torchvision


            class VGGFeatures(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.features = torchvision.models.vgg19(weights="DEFAULT").features
                    for param in self.features.parameters():
                        param.requires_grad = False
                    self.head = nn.Linear(512, 10)

                def forward(self, x):
                    return self.head(self.features(x).mean((2, 3)))


            model = VGGFeatures().eval()
            content = torch.rand(1, 3, 64, 64)
            content_features = model(content)
            print(content_features.mean().item())
            """,
            line=20,
            column=20,
            message="`model(...)` runs with grad enabled with `model` in eval mode, and nothing in this module uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A super-resolution script: a helper of the file loads the generator's weights, another
        # runs it, and the image is only converted for saving.
        Invalid(
            """
            import torch
            from torchvision.transforms import ToPILImage

            from nn.model import Generator

            def get_model(weights):
                m = Generator()
                m.load_state_dict(torch.load(weights)["generator"])
                return m

            def make_sr(image, model):
                return model(image)

            def convert_sr(image):
                return ToPILImage()(image.squeeze(0))

            def process_with_cpu(weights, image):
                net = get_model(weights)
                img = make_sr(image, net)
                return convert_sr(img)
            """,
            line=19,
            column=11,
            message="`make_sr(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            from torchvision.transforms import ToPILImage

            from nn.model import Generator

            def get_model(weights):
                m = Generator()
                m.load_state_dict(torch.load(weights)["generator"])
                return m

            def make_sr(image, model):
                return model(image)

            def convert_sr(image):
                return ToPILImage()(image.squeeze(0))

            @torch.no_grad()
            def process_with_cpu(weights, image):
                net = get_model(weights)
                img = make_sr(image, net)
                return convert_sr(img)
            """,
            unsafe=True,
        ),
        # Attention maps of a pretrained model drawn by bertviz: its graph is kept for nothing.
        Invalid(
            """
            import torch
            from bertviz import model_view
            from transformers import GPT2LMHeadModel, GPT2Tokenizer

            tokenizer = GPT2Tokenizer.from_pretrained("gpt2")
            ru_gpt = GPT2LMHeadModel.from_pretrained("gpt2", output_attentions=True)
            inputs = tokenizer.encode_plus("Hello world", return_tensors="pt")
            input_ids = inputs["input_ids"]
            attention = ru_gpt(input_ids)[-1]
            tokens = tokenizer.convert_ids_to_tokens(input_ids[0].tolist())
            model_view(attention, tokens)
            """,
            line=9,
            column=13,
            message="`ru_gpt(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # Annotated assignments are followed as plain ones: an A2C's n-step bootstrap, detached at once.
        Invalid(
            """
            import numpy as np
            import torch
            from torch import Tensor

            def unpack_batch(batch, model, gamma):
                rewards = np.array([t.reward for t in batch], dtype=np.float32)
                next_obs: Tensor = torch.as_tensor(np.stack([t.next_obs for t in batch]))
                next_vals: Tensor = model(next_obs)[1]
                next_vals: np.ndarray = next_vals.detach().cpu().numpy()[:, 0]
                rewards += gamma * next_vals
                return torch.tensor(rewards)
            """,
            line=8,
            column=25,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import numpy as np
            import torch
            from torch import Tensor

            @torch.no_grad()
            def unpack_batch(batch, model, gamma):
                rewards = np.array([t.reward for t in batch], dtype=np.float32)
                next_obs: Tensor = torch.as_tensor(np.stack([t.next_obs for t in batch]))
                next_vals: Tensor = model(next_obs)[1]
                next_vals: np.ndarray = next_vals.detach().cpu().numpy()[:, 0]
                rewards += gamma * next_vals
                return torch.tensor(rewards)
            """,
            unsafe=True,
        ),
        # A module's own generation method, after `self.eval()`, running the layers through another
        # method of the class.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            class WaveNet(nn.Module):
                def __init__(self, classes=256):
                    super().__init__()
                    self.classes = classes
                    self.start_conv = nn.Conv1d(classes, 32, 1)
                    self.end_conv = nn.Conv1d(32, classes, 1)

                def wavenet(self, input):
                    return self.end_conv(F.relu(self.start_conv(input)))

                def forward(self, input):
                    return self.wavenet(input).transpose(1, 2)

                def generate(self, num_samples):
                    self.eval()
                    generated = []
                    input = torch.zeros(1, self.classes, 1)
                    for i in range(num_samples):
                        x = self.wavenet(input).squeeze()
                        prob = F.softmax(x, dim=0)
                        generated.append(torch.multinomial(prob, 1).item())
                    self.train()
                    return generated
            """,
            line=23,
            column=17,
            message="`self.wavenet(...)` runs with grad enabled after `self.eval()` (line 19), and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            class WaveNet(nn.Module):
                def __init__(self, classes=256):
                    super().__init__()
                    self.classes = classes
                    self.start_conv = nn.Conv1d(classes, 32, 1)
                    self.end_conv = nn.Conv1d(32, classes, 1)

                def wavenet(self, input):
                    return self.end_conv(F.relu(self.start_conv(input)))

                def forward(self, input):
                    return self.wavenet(input).transpose(1, 2)

                @torch.no_grad()
                def generate(self, num_samples):
                    self.eval()
                    generated = []
                    input = torch.zeros(1, self.classes, 1)
                    for i in range(num_samples):
                        x = self.wavenet(input).squeeze()
                        prob = F.softmax(x, dim=0)
                        generated.append(torch.multinomial(prob, 1).item())
                    self.train()
                    return generated
            """,
            unsafe=True,
        ),
        # The same helper handed a module given trained weights first: its outputs are predictions.
        Invalid(
            """
            import torch
            import torch.nn as nn

            class SimpleRNN(nn.Module):
                def __init__(self, input_size, hidden_size, num_layers):
                    super().__init__()
                    self.rnn = nn.RNN(input_size, hidden_size, num_layers, batch_first=True)

                def forward(self, x):
                    return self.rnn(x)

            def teoria(model, largo_entrada=3, batch_size=1, input_size=1):
                entrada = torch.rand(batch_size, largo_entrada, input_size)
                y, h = model(entrada)
                print(y)
                print(h)

            model = SimpleRNN(1, 2, 1)
            model.load_state_dict(torch.load("rnn.pt"))
            teoria(model, 3)
            """,
            line=14,
            column=12,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn

            class SimpleRNN(nn.Module):
                def __init__(self, input_size, hidden_size, num_layers):
                    super().__init__()
                    self.rnn = nn.RNN(input_size, hidden_size, num_layers, batch_first=True)

                def forward(self, x):
                    return self.rnn(x)

            @torch.no_grad()
            def teoria(model, largo_entrada=3, batch_size=1, input_size=1):
                entrada = torch.rand(batch_size, largo_entrada, input_size)
                y, h = model(entrada)
                print(y)
                print(h)

            model = SimpleRNN(1, 2, 1)
            model.load_state_dict(torch.load("rnn.pt"))
            teoria(model, 3)
            """,
            unsafe=True,
        ),
        # torch 0.3's `loss.data[0]` is the loss as a number: the function hands back no loss.
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            class Trainer:
                def __init__(self, model, dataloader):
                    self.model = model
                    self.dataloader = dataloader

                def validate(self):
                    self.model.eval()
                    total_loss = 0
                    for x, target in iter(self.dataloader):
                        output = self.model(x)
                        loss = F.cross_entropy(output.squeeze(), target.squeeze())
                        total_loss += loss.data[0]
                    avg_loss = total_loss / len(self.dataloader)
                    self.model.train()
                    return avg_loss, len(self.dataloader)
            """,
            line=13,
            column=22,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 10), and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn.functional as F

            class Trainer:
                def __init__(self, model, dataloader):
                    self.model = model
                    self.dataloader = dataloader

                @torch.no_grad()
                def validate(self):
                    self.model.eval()
                    total_loss = 0
                    for x, target in iter(self.dataloader):
                        output = self.model(x)
                        loss = F.cross_entropy(output.squeeze(), target.squeeze())
                        total_loss += loss.data[0]
                    avg_loss = total_loss / len(self.dataloader)
                    self.model.train()
                    return avg_loss, len(self.dataloader)
            """,
            unsafe=True,
        ),
        # Teachers loaded from checkpoints into a dict, run over the data set to cache their
        # outputs, detached at once: the loop over the dict's items builds none of them.
        Invalid(
            """
            import torch

            class DatasetCacher:
                def __init__(self, paths):
                    self.models = {}
                    for k, path in paths.items():
                        self.models[k] = torch.load(path)

                def perform_pass(self, loader):
                    results = {k: [] for k in self.models}
                    for data, target in loader:
                        for k, model in self.models.items():
                            results[k].append(model(data)["outs"].detach())
                    return {k: torch.cat(v) for k, v in results.items()}
            """,
            line=13,
            column=35,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An adversarial evaluation: the loop runs the attack (which backpropagates) over a
        # progress bar bound to a name first, and the model's output on the attacked images is
        # only scored.
        Invalid(
            """
            from tqdm import tqdm

            class Trainer:
                def __init__(self, model, attacker, test_loader):
                    self.model = model
                    self.attacker = attacker
                    self.test_loader = test_loader

                def _accuracy(self, logits, target):
                    return float((logits.argmax(1) == target).sum()) / target.size(0)

                def eval_model(self):
                    self.model.eval()
                    acc = 0
                    tq = tqdm(enumerate(self.test_loader), total=len(self.test_loader))
                    for i, (x, y) in tq:
                        x_adv = self.attacker(x, y)
                        adv_logits = self.model(x_adv)
                        acc += self._accuracy(adv_logits, y)
                    return acc / (i + 1)
            """,
            line=18,
            column=26,
            message="`self.model(...)` runs with grad enabled in the loop over `test_loader` (line 16), and its output "
            "is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A notebook's check of the trained model: its output is only shown, the loss of it too
        # (a torch loss as a statement keeps nothing).
        Invalid(
            """
            import torch
            from torch import nn

            model = nn.Linear(4, 2)
            loss_fn = nn.CrossEntropyLoss().cuda()
            optimizer = torch.optim.Adam(model.parameters())
            for x, y in train_loader:
                optimizer.zero_grad()
                loss_fn(model(x), y).backward()
                optimizer.step()
            pred = model(x_test)
            pred.argmax(1)
            loss_fn(pred, y_test)
            """,
            line=11,
            column=8,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The network's class handed in as `net`: `net(o_dim, a_dim)` builds the modules (their
        # `.parameters()` and calls show it), and the target network's output is used detached.
        Invalid(
            """
            import torch
            from torch import nn


            class DQNAgent:
                def __init__(self, net, o_dim, a_dim, gamma=0.99):
                    self.gamma = gamma
                    self.online_net = net(o_dim, a_dim)
                    self.target_net = net(o_dim, a_dim)
                    self.optimizer = torch.optim.Adam(self.online_net.parameters())
                    self.loss_fn = nn.SmoothL1Loss()

                def learn(self, states, actions, rewards, next_states):
                    q_expected = self.online_net(states).gather(1, actions)
                    q_next = self.target_net(next_states).max(1)[0].view(-1, 1)
                    q_targets = rewards + self.gamma * q_next
                    loss = self.loss_fn(q_expected, q_targets.detach())
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """,
            line=15,
            column=18,
            message="`self.target_net(...)` runs with grad enabled, but what is computed from its output is only read "
            "or used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A double DQN's loss, handed back to the caller that backpropagates it (`return loss,
        # errors`): the online network's output on the next states only picks actions and the
        # target's is read through `.data`; neither can be in the loss: each call is a site (the
        # function, whose `q` is the loss, is not).
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            def compute_errors(online_model, target_model, states, actions, rewards, next_states, gamma=0.99):
                q = online_model(states)
                q_next = online_model(next_states)
                next_q_target = target_model(next_states)
                qa = q.gather(1, actions)
                qa_next = next_q_target.gather(1, torch.max(q_next, 1)[1].unsqueeze(1))
                expected = rewards + gamma * qa_next
                errors = F.mse_loss(qa, expected.data, reduction="none")
                loss = errors.mean()
                return loss, errors
            """,
            line=6,
            column=14,
            message="`online_model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
            also=(
                Finding(
                    7,
                    21,
                    "`target_model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
                    "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and "
                    "time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
                ),
            ),
        ),
        # A DQN's loss, handed back to the caller that backpropagates it: the target network's
        # output, detached at once, cannot be in it.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn


            class Agent:
                def __init__(self):
                    self.q_network = nn.Linear(4, 2)
                    self.target_q_network = nn.Linear(4, 2)

                def _compute_loss(self, state, action, reward, next_state):
                    q_value = self.q_network(state).gather(1, action)
                    next_q = self.target_q_network(next_state).max(dim=1, keepdim=True)[0].detach()
                    return F.smooth_l1_loss(q_value, reward + 0.99 * next_q)
            """,
            line=13,
            column=18,
            message="`self.target_q_network(...)` runs with grad enabled, but its output is only read (`.data`, "
            "`.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory "
            "and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same call from a caller that leaves grad on.
        Invalid(
            """
            import torch


            class Trainer:
                @staticmethod
                def accuracy(model, loader):
                    preds = []
                    for batch in loader:
                        logits = model(**batch)["logits"]
                        preds.append(torch.argmax(logits, dim=1))
                    return torch.cat(preds)

                def evaluate(self, model, loader):
                    return Trainer.accuracy(model, loader)
            """,
            line=9,
            column=22,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # d2l's weight decay: an optimizer over the layer's weight picked by hand still trains it,
        # so its test loss is an evaluation of a trained model.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def fit_and_plot(train_iter, test_features, test_labels, loss):
                net = nn.Linear(5, 1)
                optimizer_w = torch.optim.SGD(params=[net.weight], lr=0.1, weight_decay=1e-3)
                test_ls = []
                for _ in range(10):
                    for x, y in train_iter:
                        l = loss(net(x), y).mean()
                        optimizer_w.zero_grad()
                        l.backward()
                        optimizer_w.step()
                    test_ls.append(loss(net(test_features), test_labels).mean().item())
                return test_ls
            """,
            line=15,
            column=29,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A held-out error computed from the trained model's output, then read with `.item()`.
        Invalid(
            """
            import torch
            import torch.nn as nn

            x, y = torch.randn(20, 5), torch.randn(20, 1)
            holdout, holdout_y = torch.randn(100, 5), torch.randn(100, 1)
            net = nn.Linear(5, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for _ in range(10):
                loss = ((net(x) - y) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            print(((net(holdout) - holdout_y) ** 2).mean().item())
            """,
            line=13,
            column=9,
            message="`net(...)` runs with grad enabled, but what is computed from its output is only read or used "
            "detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory "
            "and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # d2l's `evaluate_loss`: its `Accumulator` sums floats, so the function hands back no graph.
        Invalid(
            """
            import torch
            from d2l import torch as d2l


            def evaluate_loss(net, data_iter, loss):
                metric = d2l.Accumulator(2)
                for X, y in data_iter:
                    out = net(X)
                    l = loss(out, y.reshape(out.shape))
                    metric.add(l.sum(), l.numel())
                return metric[0] / metric[1]
            """,
            line=8,
            column=15,
            message="`net(...)` runs with grad enabled in `evaluate_loss`, whose result carries no graph, and nothing "
            "in this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            from d2l import torch as d2l


            @torch.no_grad()
            def evaluate_loss(net, data_iter, loss):
                metric = d2l.Accumulator(2)
                for X, y in data_iter:
                    out = net(X)
                    l = loss(out, y.reshape(out.shape))
                    metric.add(l.sum(), l.numel())
                return metric[0] / metric[1]
            """,
            unsafe=True,
        ),
        # The same class with only the first `predict`: it runs the helper with grad.
        Invalid(
            """
            import torch


            class Trainer:
                def __init__(self, model):
                    self.model = model

                def predict_on_batch(self, x):
                    return self.model(x).data.cpu()

                def predict(self, loader):
                    return [self.predict_on_batch(x) for x in loader]
            """,
            line=9,
            column=16,
            message="`self.model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch


            class Trainer:
                def __init__(self, model):
                    self.model = model

                @torch.no_grad()
                def predict_on_batch(self, x):
                    return self.model(x).data.cpu()

                def predict(self, loader):
                    return [self.predict_on_batch(x) for x in loader]
            """,
            unsafe=True,
        ),
        # The same L-BFGS fit printing a forward pass first: that output is only read.
        Invalid(
            """
            import torch


            class Fitter:
                def fit(self, x, y):
                    self.model.eval()
                    pred = self.model(x)
                    print(pred.sum())

                    def closure():
                        self.optimizer.zero_grad()
                        loss = ((self.model(x) - y) ** 2).mean()
                        loss.backward()
                        return loss

                    loss = self.optimizer.step(closure)
                    return loss
            """,
            line=7,
            column=16,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 6), and its output is "
            "never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A test whose `setUp` loads trained weights into the model: an evaluation of the trained
        # model, not a check of the model's code.
        Invalid(
            """
            import unittest
            import torch
            from model import UNet


            class TestUNet(unittest.TestCase):
                def setUp(self):
                    self.model = UNet(in_channels=3, out_channels=1)
                    self.model.load_state_dict(torch.load("best.pt"))
                    self.images = torch.load("test_images.pt")

                def test_accuracy(self):
                    self.model.eval()
                    output = self.model(self.images)
                    self.assertTrue(torch.all(output >= 0))
            """,
            line=14,
            column=18,
            message="`self.model(...)` runs with grad enabled after `self.model.eval()` (line 13), and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import unittest
            import torch
            from model import UNet


            class TestUNet(unittest.TestCase):
                def setUp(self):
                    self.model = UNet(in_channels=3, out_channels=1)
                    self.model.load_state_dict(torch.load("best.pt"))
                    self.images = torch.load("test_images.pt")

                @torch.no_grad()
                def test_accuracy(self):
                    self.model.eval()
                    output = self.model(self.images)
                    self.assertTrue(torch.all(output >= 0))
            """,
            unsafe=True,
        ),
        # A distillation teacher in eval mode, run with grad: its optimizer trains the student
        # only, yet every backward pass runs through the teacher.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def train_kd(student, teacher, loader):
                optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
                teacher.eval()
                for data, target in loader:
                    optimizer.zero_grad()
                    student_logits = student(data)
                    teacher_logits = teacher(data)
                    loss = F.kl_div(F.log_softmax(student_logits, 1), F.softmax(teacher_logits, 1))
                    loss.backward()
                    optimizer.step()


            teacher = torch.nn.Linear(784, 10)
            teacher.load_state_dict(torch.load("teacher.pt"))
            student = torch.nn.Linear(784, 10)
            train_kd(student, teacher, [])
            """,
            line=11,
            column=26,
            message="`teacher(...)` runs with grad enabled after `teacher.eval()` (line 7), and no optimizer of this "
            "step updates `teacher`: the backward pass runs through it and fills gradients nothing uses, wasting "
            "memory and time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, "
            "as a target should)",
        ),
        # A copy of the model made the teacher: the optimizer handed in holds the original's
        # parameters, never the copy's.
        Invalid(
            """
            import copy


            def distill(model, optimizer, criterion, loader):
                teacher = copy.deepcopy(model)
                teacher.eval()
                model.train()
                for inputs, targets in loader:
                    optimizer.zero_grad()
                    soft = teacher(inputs).softmax(dim=1)
                    loss = criterion(model(inputs), soft)
                    loss.backward()
                    optimizer.step()
            """,
            line=10,
            column=16,
            message="`teacher(...)` runs with grad enabled after `teacher.eval()` (line 6), and no optimizer of this "
            "step updates `teacher`: the backward pass runs through it and fills gradients nothing uses, wasting "
            "memory and time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, "
            "as a target should)",
        ),
        # A perceptual loss's target features, computed from the real image with grad: the
        # backward pass runs through the VGG for them, which no optimizer updates.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            import torchvision


            vgg = torchvision.models.vgg16(weights="DEFAULT").features.eval()
            generator = torch.nn.Conv2d(3, 3, 3, padding=1)
            optimizer = torch.optim.Adam(generator.parameters())
            for image in loader:
                optimizer.zero_grad()
                fake = generator(image)
                loss = F.mse_loss(vgg(fake), vgg(image))
                loss.backward()
                optimizer.step()
            """,
            line=12,
            column=34,
            message="`vgg(...)` runs with grad enabled with `vgg` in eval mode, and no optimizer of this step "
            "updates `vgg`: the backward pass runs through it and fills gradients nothing uses, wasting memory and "
            "time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, as a target "
            "should)",
        ),
        # A style transfer's content features, recomputed each step from an image bound before
        # the loop: had it a graph, the second backward pass would raise, so it has none, and
        # the optimizer holds only the image it optimizes.
        Invalid(
            """
            import torch
            from torch import nn
            from torchvision import models


            class Features(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.vgg = models.vgg19(weights="DEFAULT").features

                def forward(self, x):
                    return self.vgg(x)


            def transfer(content, steps):
                net = Features().eval()
                image = content.clone().requires_grad_(True)
                optimizer = torch.optim.Adam([image], lr=0.01)
                for _ in range(steps):
                    optimizer.zero_grad()
                    loss = torch.mean((net(image) - net(content)) ** 2)
                    loss.backward()
                    optimizer.step()
                return image
            """,
            line=21,
            column=41,
            message="`net(...)` runs with grad enabled with `net` in eval mode, and no optimizer of this step updates "
            "`net`: the backward pass runs through it and fills gradients nothing uses, wasting memory and time; run "
            "it under `with torch.no_grad():` (its output then enters the loss as a constant, as a target should)",
        ),
        # A model assembled from a pretrained network's layers carries their weights: its
        # output, detached at once, is a target computed with grad for nothing.
        Invalid(
            """
            import torch
            from torch import nn
            from torchvision import models

            cnn = models.vgg19(weights="DEFAULT").features.eval()
            content = torch.rand(1, 3, 64, 64)
            model = nn.Sequential()
            targets = []
            for i, layer in enumerate(cnn.children()):
                model.add_module(str(i), layer)
                if i in (4, 9):
                    targets.append(model(content).detach())
            """,
            line=12,
            column=24,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A trained model's output copied into a picture the helper reads detached: only read. The
        # method it runs is not reported on its own: a training step calls a method of its name on
        # a parameter the model does not know, and backpropagates what it gives back.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            from torch import nn


            class Colorizer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gen = nn.Conv2d(1, 3, 3, padding=1)
                    self.disc = nn.Conv2d(3, 1, 3)

                def generate(self, gray):
                    return self.gen(gray)


            def to_picture(image):
                s = image.size()
                picture = torch.zeros(s[1], s[2], s[0])
                for i in range(s[0]):
                    picture[:, :, i] = image[i, :, :]
                return picture.detach().numpy()


            def train_step(model, gray, color, optimizer):
                optimizer.zero_grad()
                loss = ((model.generate(gray) - color) ** 2).mean()
                loss.backward()
                optimizer.step()


            model = Colorizer()
            optimizer = torch.optim.Adam(model.gen.parameters())
            for gray, color in loader:
                train_step(model, gray, color, optimizer)
            out = model.generate(gray)
            plt.imshow(to_picture(out[0]))
            """,
            line=35,
            column=7,
            message="`model.generate(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A meta-test's query pass through `higher`'s functional copy of the model, detached at
        # once: the inner loop needs gradients, this pass does not.
        Invalid(
            """
            import higher
            import torch
            import torch.nn.functional as F


            def meta_test(net, tasks, inner_steps=5):
                inner_opt = torch.optim.SGD(net.parameters(), lr=0.1)
                accs = []
                for x_spt, y_spt, x_qry, y_qry in tasks:
                    with higher.innerloop_ctx(net, inner_opt, track_higher_grads=False) as (fnet, diffopt):
                        for _ in range(inner_steps):
                            diffopt.step(F.cross_entropy(fnet(x_spt), y_spt))
                        logits = fnet(x_qry).detach()
                        accs.append((logits.argmax(dim=1) == y_qry).float().mean().item())
                return accs
            """,
            line=13,
            column=22,
            message="`fnet(...)` runs with grad enabled, but its output is detached at once (`.detach()`) and never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A torch container holding a module the file trains, built and run at once: it runs
        # trained weights.
        Invalid(
            """
            import torch
            from torch import nn

            encoder = nn.Linear(8, 4)
            optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
            for x, y in loader:
                optimizer.zero_grad()
                loss = ((encoder(x) - y) ** 2).mean()
                loss.backward()
                optimizer.step()

            features = torch.rand(2, 4)
            print(nn.Sequential(encoder, nn.ReLU())(torch.rand(2, 8)))
            """,
            line=13,
            column=7,
            message="`nn.Sequential(encoder, nn.ReLU())(...)` runs with grad enabled, but its output is only read "
            "(`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A DDPG critic's target: the target actor's action, detached, is handed only to the
        # target critic, whose output is detached too: no model is trained through either.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn


            class Actor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(3, 1)

                def forward(self, s):
                    return torch.tanh(self.fc(s))


            class Critic(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)

                def forward(self, s, a):
                    return self.fc(torch.cat([s, a], 1))


            class Agent:
                def __init__(self):
                    self.actor, self.actor_target = Actor(), Actor()
                    self.critic, self.critic_target = Critic(), Critic()
                    self.critic_optim = torch.optim.Adam(self.critic.parameters())

                def critic_learn(self, s0, a0, r1, s1, gamma=0.99):
                    a1 = self.actor_target(s1).detach()
                    y_true = r1 + gamma * self.critic_target(s1, a1).detach()
                    loss = F.mse_loss(self.critic(s0, a0), y_true)
                    self.critic_optim.zero_grad()
                    loss.backward()
                    self.critic_optim.step()
            """,
            line=31,
            column=14,
            message="`self.actor_target(...)` runs with grad enabled, but its output is detached at once (`.detach()`) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
            also=(
                Finding(
                    32,
                    31,
                    "`self.critic_target(...)` runs with grad enabled, but its output is detached at once "
                    "(`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory and "
                    "time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
                ),
            ),
        ),
        # `model.train(False)` in the training function before it hands the model on: the
        # evaluation function runs it in eval mode, whatever mode `main` made it in.
        Invalid(
            """
            import torch
            from torch import nn


            class Tagger(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)

                def forward(self, x):
                    return self.fc(x)


            def evaluating(model, datas):
                correct = 0
                for x, y in datas:
                    scores = model(x)
                    for pred, gold in zip(scores.argmax(1).tolist(), y.tolist()):
                        correct += pred == gold
                return correct


            def train(model, train_data, dev_data, optimizer):
                model.train(True)
                for epoch in range(10):
                    for x, y in train_data:
                        loss = nn.functional.cross_entropy(model(x), y)
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
                    model.train(False)
                    print(evaluating(model, dev_data))
                    model.train(True)


            def main(train_data, dev_data):
                model = Tagger()
                train(model, train_data, dev_data, torch.optim.SGD(model.parameters(), lr=0.1))
            """,
            line=17,
            column=18,
            message="`model(...)` runs with grad enabled with `model` in eval mode, and nothing in this function uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A fixed blur in eval mode on the real images of a discriminator's step, in a script of
        # PyTorch 0.3 idioms: importing `Variable` from `torch.autograd` is no use of gradients.
        Invalid(
            """
            import torch
            from torch import nn
            from torch.autograd import Variable


            class Blur(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 3, 3, padding=1)

                def forward(self, x):
                    return self.conv(x)


            D = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 1))
            blur = Blur()
            blur.eval()
            D_optimizer = torch.optim.Adam(D.parameters())
            for x in train_loader:
                x = Variable(x)
                x = blur(x)
                D_loss = nn.functional.softplus(-D(x)).mean()
                D_optimizer.zero_grad()
                D_loss.backward()
                D_optimizer.step()
            """,
            line=21,
            column=9,
            message="`blur(...)` runs with grad enabled after `blur.eval()` (line 17), and no optimizer of this step "
            "updates `blur`: the backward pass runs through it and fills gradients nothing uses, wasting memory and "
            "time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, as a target "
            "should)",
        ),
        # A module class with its own `train(...)` loop (a PINN's, which also differentiates its
        # input): `pinn.train(x, epochs=1000)` trains, it is no `nn.Module.train()` switch, so the
        # function uses gradients and only the prediction is a site (no decorator on `main`).
        Invalid(
            """
            import torch
            from torch import nn


            class PINN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(nn.Linear(2, 20), nn.Tanh(), nn.Linear(20, 1))
                    self.optimizer = torch.optim.Adam(self.parameters())

                def forward(self, x):
                    return self.net(x)

                def train(self, x, epochs):
                    x = x.requires_grad_(True)
                    for _ in range(epochs):
                        u = self.forward(x)
                        (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
                        loss = (du**2).mean()
                        self.optimizer.zero_grad()
                        loss.backward()
                        self.optimizer.step()


            def main(x, grid):
                pinn = PINN()
                pinn.train(x, epochs=1000)
                u = pinn(grid)
                print(u.detach().numpy())
            """,
            line=28,
            column=9,
            message="`pinn(...)` runs with grad enabled, but what is computed from its output is only read or used "
            "detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory "
            "and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # d2l's `accuracy` reads the predictions it is handed (`y_hat = y_hat.argmax(axis=1)`):
        # the second forward pass of each training step, for the accuracy alone, records a graph.
        Invalid(
            """
            import torch
            from torch import nn


            def accuracy(y_hat, y):
                if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
                    y_hat = y_hat.argmax(axis=1)
                cmp = y_hat.type(y.dtype) == y
                return float(cmp.type(y.dtype).sum())


            net = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
            loss = nn.CrossEntropyLoss()
            trainer = torch.optim.SGD(net.parameters(), lr=0.1)
            for X, y in train_iter:
                trainer.zero_grad()
                loss(net(X), y).backward()
                trainer.step()
                train_acc += accuracy(net(X), y)
            """,
            line=19,
            column=27,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A notebook defining its reading helper again in a later cell: both definitions only read.
        Invalid(
            """
            import torch


            def accuracy(y_hat, y):
                return float((y_hat.argmax(1) == y).sum())


            def accuracy(y_hat, y):
                return float((y_hat.argmax(axis=1) == y).float().sum())


            for X, y in train_iter:
                trainer.zero_grad()
                loss(net(X), y).backward()
                trainer.step()
                print(accuracy(net(X), y))
            """,
            line=16,
            column=20,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # Profiled with autograd's profiler, which leaves the grad mode as it is.
        Invalid(
            """
            import torch
            import torchvision

            model = torchvision.models.resnet18(weights="DEFAULT")
            model.eval()
            with torch.autograd.profiler.profile() as prof:
                out = model(img)
            print(prof.key_averages().table())
            """,
            line=7,
            column=11,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 5), and nothing in this "
            "module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation "
            "under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A feature extractor of a trained model runs that model, with its weights.
        Invalid(
            """
            import torch
            from torchvision.models.feature_extraction import create_feature_extractor

            model = torch.load("fruit30.pth")
            model = model.eval()
            model_trunc = create_feature_extractor(model, return_nodes={"avgpool": "semantic_feature"})
            features = model_trunc(input_img)
            semantic_feature = features["semantic_feature"].squeeze().detach().cpu().numpy()
            """,
            line=7,
            column=12,
            message="`model_trunc(...)` runs with grad enabled after `model.eval()` (line 5), and nothing in this "
            "module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation "
            "under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # Predictions after training, returned as indices: `torch.argmax` keeps no graph.
        Invalid(
            """
            import torch


            def fit_and_predict(train_data, train_label, test_data, epochs):
                model = torch.nn.Linear(4, 3)
                criterion = torch.nn.MSELoss()
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                for epoch in range(epochs):
                    loss = criterion(model(train_data), train_label)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                return torch.argmax(model(test_data), -1)
            """,
            line=13,
            column=25,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A generator switched to eval mode on one path only, then run with grad in the training
        # step of another model: no optimizer updates it.
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            model = torch.nn.Linear(8, 2)
            gen = torch.nn.Linear(8, 8)
            gen.load_state_dict(torch.load("m2u_gen.pt"))
            optim = torch.optim.Adam(model.parameters())
            if cycle_gan:
                gen.eval()
            for x, y in loader:
                if cycle_gan:
                    x = gen(x)
                loss = F.cross_entropy(model(x), y)
                optim.zero_grad()
                loss.backward()
                optim.step()
            """,
            line=12,
            column=13,
            message="`gen(...)` runs with grad enabled after `gen.eval()` (line 9), and no optimizer of this step "
            "updates `gen`: the backward pass runs through it and fills gradients nothing uses, wasting memory and "
            "time; run it under `with torch.no_grad():` (its output then enters the loss as a constant, as a target "
            "should)",
        ),
        # A converter into PIL images held by a name: the decoder's output only becomes a picture.
        Invalid(
            """
            import torch
            from torchvision import transforms

            decoder = torch.nn.Linear(16, 3 * 8 * 8)
            decoder.load_state_dict(torch.load("vq_vae_dec.pt"))
            rgb = transforms.ToPILImage()
            for z in codes:
                img = rgb(decoder(z).view(3, 8, 8))
                plt.imshow(img)
            """,
            line=8,
            column=15,
            message="`decoder(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation episode: `env.step(action)` steps the environment, not an optimizer.
        Invalid(
            """
            import torch


            class Agent:
                def test(self, episodes):
                    self.network.eval()
                    for _ in range(episodes):
                        state, done = self.env.reset(), False
                        while not done:
                            probs = self.network(torch.as_tensor(state))
                            action = probs.argmax().item()
                            state, reward, done, _ = self.env.step(action)
            """,
            line=10,
            column=25,
            message="`self.network(...)` runs with grad enabled after `self.network.eval()` (line 6), and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # torchcam's plain CAM reads the last layer's weights: no gradient, the call is an evaluation.
        Invalid(
            """
            import torch
            import torchvision
            from torchcam.methods import CAM

            model = torchvision.models.resnet18(weights="DEFAULT").eval()
            cam_extractor = CAM(model)
            logits = model(image)
            class_id = logits.argmax(1).item()
            activation_map = cam_extractor(class_id, logits)
            """,
            line=7,
            column=10,
            message="`model(...)` runs with grad enabled with `model` in eval mode, and nothing in this module uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation function handing back its running loss, whose only caller drops it.
        Invalid(
            """
            import torch


            def test_classify(model, test_loader, criterion):
                model.eval()
                avg_loss = 0
                for batch_num, (feats, labels) in enumerate(test_loader):
                    outputs = model(feats)
                    loss = criterion(outputs, labels)
                    avg_loss = torch.mean(loss) / (batch_num + 1) + avg_loss * batch_num / (batch_num + 1)
                model.train()
                return avg_loss, batch_num


            def train(model, train_loader, test_loader, criterion, optimizer):
                for feats, labels in train_loader:
                    optimizer.zero_grad()
                    criterion(model(feats), labels).backward()
                    optimizer.step()
                test_classify(model, test_loader, criterion)
            """,
            line=8,
            column=19,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 5), and nothing in this function "
            "uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The model trained by the trainer it is handed (`trainer.train(data_loader, epochs)`), then
        # its features only read: the function uses gradients, the call does not.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class ResNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2, 2)

                def forward(self, x, return_features=False):
                    feats = self.fc(x)
                    return (feats, feats.softmax(-1)) if return_features else feats


            def run_experiments(data_loader, inputs, epochs):
                model = ResNet()
                optimizer = torch.optim.Adam(model.parameters())
                trainer = Trainer(model, optimizer)
                trainer.train(data_loader, epochs)
                feats, preds = model(inputs, True)
                return feats.detach().cpu(), preds.detach().cpu()
            """,
            line=20,
            column=20,
            message="`model(...)` runs with grad enabled, but what is computed from its output is only read or "
            "used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A TD target of the value network, used only detached in the value loss: its graph is
        # recorded for nothing (the loss's graph comes from `value_net(obs)`).
        Invalid(
            """
            import torch.nn.functional as F


            def update_value(value_net, optimizer, obs, next_obs, rew, don, gamma, iters):
                for _ in range(iters):
                    td_target = rew + gamma * value_net(next_obs) * (1 - don)
                    value = value_net(obs)
                    value_loss = F.smooth_l1_loss(td_target.detach(), value)
                    optimizer.zero_grad()
                    value_loss.backward()
                    optimizer.step()
                    print(value_loss.item())
            """,
            line=6,
            column=35,
            message="`value_net(...)` runs with grad enabled, but what is computed from its output is only read or "
            "used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # Hugging Face CLIP's text tower (`get_text_features`) after `.eval()`, with grad on.
        Invalid(
            """
            import torch
            from transformers import CLIPModel, CLIPProcessor

            model = CLIPModel.from_pretrained("openai/clip-vit-base-patch32")
            processor = CLIPProcessor.from_pretrained("openai/clip-vit-base-patch32")


            def query(projections, text):
                model.eval()
                inputs = processor(text=text, return_tensors="pt")
                text_embed = model.get_text_features(**inputs)
                similarity = torch.matmul(projections, text_embed.squeeze())
                return torch.topk(similarity, 5).indices
            """,
            line=11,
            column=18,
            message="`model.get_text_features(...)` runs with grad enabled after `model.eval()` (line 9), and nothing "
            "in this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # Double DQN's next-state Q-values of the policy network, only read for their argmax,
        # beside its training forward pass: the loss's graph comes from that one.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def optimize_model(policy_net, target_net, optimizer, states, actions, rewards, next_states, mask, gamma):
                next_q_values = policy_net(next_states)
                with torch.no_grad():
                    next_q_state_values = target_net(next_states)
                next_q = torch.zeros(len(states))
                next_q[mask] = next_q_state_values.gather(1, torch.max(next_q_values, 1)[1].unsqueeze(1)).squeeze(1)
                q = policy_net(states).gather(1, actions).squeeze(1)
                loss = F.smooth_l1_loss(q, rewards + gamma * next_q)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                return loss.item()
            """,
            line=6,
            column=21,
            message="`policy_net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A super-resolution model loaded from a file, its output turned into an image at once.
        Invalid(
            """
            import torch
            from PIL import Image
            from torchvision import transforms


            def single_image(in_path, out_path, weight_path):
                model = torch.load(weight_path)
                output_image = compute(model, Image.open(in_path))
                output_image.save(out_path)


            def compute(model, in_img):
                return transforms.ToPILImage()(model(transforms.ToTensor()(in_img).unsqueeze(0)).squeeze(0))
            """,
            line=13,
            column=36,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # One epoch function for both phases: the caller runs it for validation with grad on, and
        # only the training phase backpropagates.
        Invalid(
            """
            class Trainer:
                def __init__(self, model, optimizer, loss_function):
                    self.model = model
                    self.optimizer = optimizer
                    self.loss_function = loss_function

                def run_epoch(self, loader, mode="train"):
                    losses = []
                    for x, y in loader:
                        loss = self.loss_function(self.model(x), y)
                        if mode == "train":
                            self.optimizer.zero_grad()
                            loss.backward()
                            self.optimizer.step()
                        losses.append(loss.item())
                    return sum(losses) / len(losses)

                def run(self, train_loader, val_loader, epochs):
                    for epoch in range(epochs):
                        self.model.train()
                        train_loss = self.run_epoch(train_loader, mode="train")
                        self.model.eval()
                        val_loss = self.run_epoch(val_loader, mode="val")
                        print(epoch, train_loss, val_loss)
            """,
            line=10,
            column=39,
            message="`self.model(...)` runs with grad enabled in every phase, but only the phase where `mode == "
            '"train"` (line 11) backpropagates: in the evaluation phase (`self.run_epoch(val_loader, mode="val")`, '
            "line 23) autograd records a graph for nothing, wasting memory and time; run the forward pass under "
            '`with torch.set_grad_enabled(mode == "train"):`',
        ),
        # Double DQN picks the next actions with the online network: only their indices are used.
        Invalid(
            """
            import torch.nn as nn


            class QNetwork(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, s):
                    return self.fc(s)


            class Agent:
                def __init__(self, optimizer):
                    self.qnetwork_local = QNetwork()
                    self.qnetwork_target = QNetwork()
                    self.optimizer = optimizer

                def learn(self, states, actions, rewards, next_states, gamma):
                    best_actions = self.qnetwork_local(next_states).max(1)[1].unsqueeze(1)
                    q_next = self.qnetwork_target(next_states).detach().gather(1, best_actions)
                    q_expected = self.qnetwork_local(states).gather(1, actions)
                    loss = (rewards + gamma * q_next - q_expected).pow(2).mean()
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """,
            line=20,
            column=24,
            message="`self.qnetwork_local(...)` runs with grad enabled, but its output is only read (`.data`, "
            "`.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and "
            "time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
            also=(
                Finding(
                    21,
                    18,
                    "`self.qnetwork_target(...)` runs with grad enabled, but its output is detached at once "
                    "(`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting memory "
                    "and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
                ),
            ),
        ),
        # A DQN's target network, detached at once: only the loss takes the target, as a constant.
        Invalid(
            """
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.out = nn.Linear(4, 2)

                def forward(self, x):
                    return self.out(x)


            class DQN:
                def __init__(self, optimizer):
                    self.eval_net, self.target_net = Net(), Net()
                    self.optimizer = optimizer
                    self.loss_func = nn.MSELoss()

                def learn(self, b_s, b_a, b_r, b_s_, gamma):
                    q_eval = self.eval_net(b_s).gather(1, b_a)
                    q_next = self.target_net(b_s_).detach()
                    q_target = b_r + gamma * q_next.max(1)[0].view(-1, 1)
                    loss = self.loss_func(q_eval, q_target)
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
            """,
            line=21,
            column=18,
            message="`self.target_net(...)` runs with grad enabled, but its output is detached at once (`.detach()`) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A3C's test process, handed the shared model by `mp.Process(target=test, args=(...))`:
        # every module class defining `pi` runs the model by it.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            from torch.distributions import Categorical


            class ActorCritic(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Linear(4, 256)
                    self.fc_pi = nn.Linear(256, 2)

                def pi(self, x, softmax_dim=0):
                    return F.softmax(self.fc_pi(F.relu(self.fc1(x))), dim=softmax_dim)


            def test(global_model, env):
                for episode in range(100):
                    s, done = env.reset(), False
                    while not done:
                        prob = global_model.pi(torch.from_numpy(s).float())
                        a = Categorical(prob).sample().item()
                        s, r, done, info = env.step(a)
            """,
            line=21,
            column=20,
            message="`global_model.pi(...)` runs with grad enabled although its output is only read (`.data`, "
            "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every "
            "call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The KL divergence of a natural policy gradient: the old policy's output is only used
        # detached, while the new policy's graph is handed back for `torch.autograd.grad`. Only
        # the old policy's call is the site (`@torch.no_grad()` on the function would break it).
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Actor(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.mu = nn.Linear(4, 2)
                    self.log_std = nn.Parameter(torch.zeros(2))

                def forward(self, x):
                    return self.mu(x), self.log_std.exp().expand(len(x), 2)


            def kl_divergence(new_actor: Actor, old_actor: Actor, states):
                mu, std = new_actor(torch.Tensor(states))
                mu_old, std_old = old_actor(torch.Tensor(states))
                mu_old = mu_old.detach()
                std_old = std_old.detach()
                kl = torch.log(std / std_old) + (std_old.pow(2) + (mu_old - mu).pow(2)) / (2.0 * std.pow(2)) - 0.5
                return kl.sum(1, keepdim=True)
            """,
            line=17,
            column=23,
            message="`old_actor(...)` runs with grad enabled, but what is computed from its output is only read or "
            "used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A DQN agent's update helper hands back the TD error (of the loss callable it was given)
        # for its caller's backward pass: the target network's call is the site, not the function.
        Invalid(
            """
            import torch.nn as nn


            class QNet(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, s):
                    return self.fc(s)


            class Agent:
                def __init__(self, value_criteria, optimizer):
                    self.model = QNet()
                    self.target_model = QNet()
                    self.value_criteria = value_criteria
                    self.optimizer = optimizer

                def _get_q_update(self, s0, a, r, s1, gamma):
                    next_q = self.target_model(s1)
                    next_q = next_q.data.max(dim=1)[0]
                    current_q = self.model(s0).gather(1, a).squeeze()
                    td_error = self.value_criteria(current_q, r + gamma * next_q)
                    return next_q.clone().mean(), td_error

                def update(self, s0, a, r, s1, gamma):
                    _, td_error = self._get_q_update(s0, a, r, s1, gamma)
                    self.optimizer.zero_grad()
                    td_error.backward()
                    self.optimizer.step()
            """,
            line=21,
            column=18,
            message="`self.target_model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same made-up input, timed: the output is thrown away, the graph is what it costs.
        Invalid(
            """
            import time
            import torch


            def test_speed(model):
                x = torch.randn(8, 3, 32, 32)
                start = time.time()
                for _ in range(10):
                    model(x)
                print(time.time() - start)
            """,
            line=9,
            column=9,
            message="`model(...)` runs with grad enabled in `test_speed`, whose result carries no graph, and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # DDPG's target networks: their outputs are detached before the critic's loss, which takes
        # its graph from the critic's own forward pass in the same loop.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            class Critic(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 1)

                def forward(self, s):
                    return self.fc(s)


            critic, target_critic = Critic(), Critic()
            target_critic.load_state_dict(critic.state_dict())
            optimizer = torch.optim.Adam(critic.parameters())
            for s, r, s2 in batches:
                target_q = r + 0.99 * target_critic(s2)
                target_q = target_q.detach()
                loss = F.mse_loss(critic(s), target_q)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            line=19,
            column=27,
            message="`target_critic(...)` runs with grad enabled, but what is computed from its output is only read or "
            "used detached (`.detach()`) and never backpropagated: autograd records a graph for nothing, wasting "
            "memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A whole model pickled with `torch.load` (its name says nothing), called in a web app's
        # handler: only its outputs' values are sent back.
        Invalid(
            """
            import torch

            siamese_pre = torch.load("../models/model_triplet.pt").cuda()


            def processing_pre(img0, img1):
                img0_output, img1_output = siamese_pre(img0.cuda(), img1.cuda())
                return str(img1_output.data.cpu().numpy()[0].tolist())
            """,
            line=7,
            column=32,
            message="`siamese_pre(...)` runs with grad enabled although its output is only read (`.data`, "
            "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every "
            "call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same dicts holding the output detached: no graph goes back to the caller.
        Invalid(
            """
            import torch.nn as nn


            class ALAE(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.decoder = nn.Linear(8, 8)

                def generate(self, styles, return_style=False):
                    fake = self.decoder(styles)
                    if return_style:
                        return {"fake": fake.detach(), "styles": styles}
                    else:
                        return {"fake": fake.detach()}
            """,
            line=10,
            column=16,
            message="`self.decoder(...)` runs with grad enabled although its output is only read (`.data`, "
            "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every "
            "call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A parameter named like a package the file imports (`import model.crf`): inside the
        # function, `model` is the model handed in.
        Invalid(
            """
            import torch
            import model.crf


            def evaluate(batches, model, crf_layer):
                model.eval()
                paths = []
                for x, mask in batches:
                    scores = model.forward(x)
                    paths.append(crf_layer.viterbi_decode(scores, mask).tolist())
                return paths
            """,
            line=9,
            column=18,
            message="`model.forward(...)` runs with grad enabled with `model` in eval mode, and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A critic's output handed back through a helper of the file that detaches it
        # (`to_numpy`), in a method whose local has the method's name.
        Invalid(
            """
            import torch
            from torch import nn


            def to_numpy(t):
                return t.to("cpu").detach().numpy()


            class Critic(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.q_net = nn.Linear(4, 2)

                def qa_values(self, obs):
                    qa_values = self.q_net(torch.as_tensor(obs))
                    return to_numpy(qa_values)
            """,
            line=15,
            column=21,
            message="`self.q_net(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same output handed straight to the helper.
        Invalid(
            """
            import torch
            from torch import nn


            def to_numpy(t):
                return t.to("cpu").detach().numpy()


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.logits_na = nn.Linear(4, 2)

                def get_action(self, obs):
                    return to_numpy(self.logits_na(torch.as_tensor(obs)))
            """,
            line=15,
            column=25,
            message="`self.logits_na(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A baseline network the class builds (or leaves None) and hands to an optimizer: a module,
        # whatever builds it; its predictions only read.
        Invalid(
            """
            import torch
            from torch import nn

            from cs285.infrastructure import pytorch_util as ptu


            class Policy(nn.Module):
                def __init__(self, nn_baseline):
                    super().__init__()
                    if nn_baseline:
                        self.baseline = ptu.build_mlp(4, 1)
                        self.baseline_optimizer = torch.optim.Adam(self.baseline.parameters())
                    else:
                        self.baseline = None


            class PolicyPG(Policy):
                def run_baseline_prediction(self, observations):
                    pred = self.baseline(torch.as_tensor(observations))
                    return pred.squeeze().detach().numpy()
            """,
            line=19,
            column=16,
            message="`self.baseline(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A frozen pretrained model given a new trainable layer by index, then handed to the
        # function that evaluates it: the new layer records a graph.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torchvision import models

            def fit(net, optimizer, criterion, epochs, train_loader, test_loader):
                for epoch in range(epochs):
                    net.train()
                    for inputs, labels in train_loader:
                        optimizer.zero_grad()
                        criterion(net(inputs), labels).backward()
                        optimizer.step()
                    net.eval()
                    for inputs_test, labels_test in test_loader:
                        outputs_test = net(inputs_test)
                        print(criterion(outputs_test, labels_test).item())

            net = models.vgg19_bn(pretrained=True)
            for param in net.parameters():
                param.requires_grad = False
            net.classifier[6] = nn.Linear(net.classifier[6].in_features, 2)
            optimizer = torch.optim.SGD(net.classifier[6].parameters(), lr=0.001)
            fit(net, optimizer, nn.CrossEntropyLoss(), 5, train_loader, test_loader)
            """,
            line=14,
            column=28,
            message="`net(...)` runs with grad enabled in the loop over `test_loader` (line 13), which never uses "
            "gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in `with "
            "torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A trainer's evaluation through the helper its training uses: the helper runs the model.
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Trainer:
                def __init__(self, loader, val_loader):
                    self.model = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 784))
                    self.optimizer = torch.optim.Adam(self.model.parameters())
                    self.loader, self.val_loader = loader, val_loader

                def compute_batch(self, batch):
                    images = batch[0].view(-1, 784)
                    return nn.functional.mse_loss(self.model(images), images)

                def evaluate(self, iterator):
                    losses = []
                    for batch in iterator:
                        losses.append(self.compute_batch(batch).item())
                    return sum(losses) / len(losses)

                def train(self, epochs):
                    for epoch in range(epochs):
                        for batch in self.loader:
                            loss = self.compute_batch(batch)
                            self.optimizer.zero_grad()
                            loss.backward()
                            self.optimizer.step()
                        print(epoch, self.evaluate(self.val_loader))
            """,
            line=17,
            column=27,
            message="`self.compute_batch(...)` runs with grad enabled in the loop over `iterator` (line 16), and nothing "
            "in this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A model given its weights through the trainer object it was handed to, then run for a
        # plot with grad enabled.
        Invalid(
            """
            import torch
            import torch.nn as nn

            caps_model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
            caps_trainer = Trainer(caps_model, torch.optim.Adam(caps_model.parameters()), loader)
            caps_trainer.load_checkpoint("weights/capsnet_mnist.pth.tar")
            probs = caps_model(batch)
            plot_batch(probs.data)
            """,
            line=7,
            column=9,
            message="`caps_model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A trained model's predictions on a test batch, each only compared in a test.
        Invalid(
            """
            import torch
            import torch.nn as nn

            net = nn.Linear(784, 10)
            optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
            for inputs, labels in train_loader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(net(inputs), labels).backward()
                optimizer.step()

            outputs = net(images)
            predicted = torch.max(outputs, 1)[1]
            wrong = 0
            for i in range(50):
                if predicted[i] != labels[i]:
                    wrong += 1
            """,
            line=11,
            column=11,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same sampling with the decorator left off the step: the network runs with grad.
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Diffusion(nn.Module):
                def __init__(self, net, steps):
                    super().__init__()
                    self.net = net
                    self.steps = steps

                def forward(self, x, t):
                    return self.net(x, t)

                def denoise_step(self, x, t):
                    return x - self(x, t)

                def denoise(self, x):
                    for t in reversed(range(self.steps)):
                        x = self.denoise_step(x, t)
                    return x

                def sample(self, n):
                    return self.denoise(torch.randn(n, 3, 32, 32))

            model = Diffusion(UNet(), 1000)
            model.load_state_dict(torch.load("ddpm.pt"))
            images = model.sample(16)
            save_image(images, "samples.png")
            """,
            line=26,
            column=10,
            message="`model.sample(...)` runs with grad enabled on weights loaded from a file (line 25), and nothing "
            "in this module uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A sampling function run on a trained model's layers: its only caller hands the indices to
        # a function of the file that only decodes them.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F

            def decode(vocab, indices):
                return ["".join(vocab[i] for i in row) for row in indices.cpu().tolist()]

            def sample(emb, cell, fc, h, idx, n=20):
                out = [idx]
                for _ in range(n):
                    h = cell(emb(idx), h)
                    idx = torch.multinomial(F.softmax(fc(h), dim=1), 1)[:, 0]
                    out.append(idx)
                return torch.stack(out, 1)

            class CharRNN(nn.Module):
                def __init__(self, vocab_size, hidden):
                    super().__init__()
                    self.emb = nn.Embedding(vocab_size, hidden)
                    self.cell = nn.GRUCell(hidden, hidden)
                    self.fc = nn.Linear(hidden, vocab_size)

            net = CharRNN(len(vocab), 64)
            net.load_state_dict(torch.load("char_rnn.pt"))
            print(decode(vocab, sample(net.emb, net.cell, net.fc, h0, start)))
            """,
            line=11,
            column=13,
            message="`cell(...)` runs with grad enabled in `sample`, whose callers only read its result, and nothing "
            "in this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A notebook's phase loop runs each phase under its grad mode; a later cell predicts with
        # grad enabled on its own: its output only read, not a phase of the loop.
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 3)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(3):
                for phase in ["train", "val"]:
                    if phase == "train":
                        model.train()
                    else:
                        model.eval()
                    for x, y in loaders[phase]:
                        with torch.set_grad_enabled(phase == "train"):
                            loss = nn.functional.cross_entropy(model(x), y)
                        if phase == "train":
                            optimizer.zero_grad()
                            loss.backward()
                            optimizer.step()

            output = model(image)
            print(torch.argmax(output, dim=-1))
            """,
            line=20,
            column=10,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A trainer keeps its model under a private name, handed in and moved to the GPU: its
        # uses (`.parameters()` to the optimizer, `.eval()`) show a module, whatever the name.
        Invalid(
            """
            import torch

            class Trainer:
                def __init__(self, generator, lr):
                    self._gen = generator.cuda()
                    self._opt = torch.optim.Adam(self._gen.parameters(), lr=lr)

                def evaluate(self, loader):
                    self._gen.eval()
                    correct = 0
                    for data, labels in loader:
                        preds = self._gen(data.cuda()).argmax(1)
                        correct += (preds == labels.cuda()).sum().item()
                    return correct
            """,
            line=12,
            column=21,
            message="`self._gen(...)` runs with grad enabled after `self._gen.eval()` (line 9), and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same with a name that says nothing: the class's `Adam(self._seg.parameters())` does.
        Invalid(
            """
            import torch

            class Evaluator:
                def __init__(self, segmenter, lr):
                    self._seg = segmenter
                    self._opt = torch.optim.Adam(self._seg.parameters(), lr=lr)

                def score(self, val_loader):
                    total = 0.0
                    for images, masks in val_loader:
                        total += (self._seg(images).argmax(1) == masks).float().mean().item()
                    return total / len(val_loader)
            """,
            line=11,
            column=23,
            message="`self._seg(...)` runs with grad enabled in the loop over `val_loader` (line 10), and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # d2l's hand-written linear regression over weights the function trains, its loss read
        # by a closure every 100 examples.
        Invalid(
            """
            import torch
            import d2lzh_pytorch as d2l

            def train_ch7(features, labels, lr=0.05):
                net, loss = d2l.linreg, d2l.squared_loss
                w = torch.zeros(features.shape[1], 1, requires_grad=True)
                b = torch.zeros(1, requires_grad=True)

                def eval_loss():
                    return loss(net(features, w, b), labels).mean().item()

                ls = [eval_loss()]
                for i in range(0, len(features), 10):
                    l = loss(net(features[i : i + 10], w, b), labels[i : i + 10]).mean()
                    l.backward()
                    with torch.no_grad():
                        for p in (w, b):
                            p -= lr * p.grad
                            p.grad.zero_()
                    ls.append(eval_loss())
                return ls
            """,
            line=10,
            column=21,
            message="`net(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A hand-written model over weights switched to require grad, its loss printed every epoch.
        Invalid(
            """
            import torch

            features = torch.randn(1000, 2)
            labels = features @ torch.tensor([[2.0], [-3.4]]) + 4.2
            w = torch.zeros(2, 1)
            b = torch.zeros(1)
            w.requires_grad_(requires_grad=True)
            b.requires_grad_(requires_grad=True)

            def lin_reg(X, w, b):
                return torch.mm(X, w) + b

            net = lin_reg
            for epoch in range(3):
                for i in range(0, 1000, 10):
                    l = ((net(features[i : i + 10], w, b) - labels[i : i + 10]) ** 2).sum()
                    l.backward()
                    with torch.no_grad():
                        w -= 0.03 * w.grad
                        b -= 0.03 * b.grad
                        w.grad.zero_()
                        b.grad.zero_()
                train_l = (net(features, w, b) - labels) ** 2
                print("epoch %d, loss %f" % (epoch + 1, train_l.mean().item()))
            """,
            line=23,
            column=16,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same library's model given trained weights: an evaluation.
        Invalid(
            """
            import torch
            from d2l import torch as d2l

            encoder = d2l.Seq2SeqEncoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2, pretrained=True)
            encoder.eval()
            X = torch.zeros((4, 7), dtype=torch.long)
            output, state = encoder(X)
            print(output.argmax(-1), state.shape)
            """,
            line=7,
            column=17,
            message="`encoder(...)` runs with grad enabled after `encoder.eval()` (line 5), and nothing in this module "
            "uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # Two model outputs combined by arithmetic into a reward that is only read.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Agent:
                def __init__(self):
                    self.policy = nn.Linear(4, 2)
                    self.discriminator = nn.Linear(4, 3)
                    self.log_pz = 0.1
                    self.alpha = 0.2
                    self.opt = torch.optim.Adam(self.policy.parameters())

                def reward(self, s, z, a):
                    r = self.discriminator(s)[z.argmax(dim=-1)] - \
                        self.log_pz + \
                        self.alpha * self.policy(s)[a]
                    return r.detach().item()

                def learn(self, s):
                    loss = self.policy(s).sum()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
            """,
            line=14,
            column=13,
            message="`self.discriminator(...)` runs with grad enabled although its output is only read (`.data`, "
            "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every "
            "call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same prediction with grad on: the closure's `return loss` is the closure's, not
        # the function's (which returns nothing a caller could backpropagate).
        Invalid(
            """
            import torch


            class LinearModel(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.linear = torch.nn.Linear(1, 1)

                def forward(self, x):
                    return self.linear(x)


            def main():
                x_data = torch.Tensor([[1.0], [2.0], [3.0]])
                y_data = torch.Tensor([[2.0], [4.0], [6.0]])
                criterion = torch.nn.MSELoss(reduction="sum")
                model = LinearModel()
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                for epoch in range(100):
                    loss = criterion(model(x_data), y_data)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                lbfgs = LinearModel()
                opt2 = torch.optim.LBFGS(lbfgs.parameters())

                def closure():
                    opt2.zero_grad()
                    l2 = criterion(lbfgs(x_data), y_data)
                    l2.backward()
                    return l2

                opt2.step(closure)
                print(f"Predict (after training): f(4) = {model(torch.Tensor([[4.0]])).item():.3f}")
            """,
            line=34,
            column=47,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and "
            "never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A trained model's output handed only to a function of the file that draws it.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import matplotlib.pyplot as plt


            def plot_images(original, predicted):
                _, ax = plt.subplots(2, 5)
                for i in range(5):
                    ax[0, i].imshow(original[i, :].view(28, 28).detach(), cmap="gray")
                    ax[1, i].imshow(predicted[i, :].view(28, 28).detach(), cmap="gray")
                plt.show()


            def train_model():
                model = nn.Linear(784, 784)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for _ in range(10):
                    x = torch.rand(32, 784)
                    loss = (model(x) - x).pow(2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                return model


            def main():
                model = train_model()
                test_data = torch.rand(5, 784)
                model_output = model(test_data)
                plot_images(test_data, model_output)
            """,
            line=29,
            column=20,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and "
            "never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A pretrained model built on the spot and run at once: its weights come from a file.
        Invalid(
            """
            import torch
            import torchvision

            img = torch.randn(1, 3, 224, 224)
            print(torchvision.models.resnet18(pretrained=True)(img).argmax(1))
            """,
            line=5,
            column=7,
            message="`torchvision.models.resnet18(pretrained=True)(...)` runs with grad enabled although its output is "
            "only read (`.data`, `.item()`, printing), and nothing in this module uses gradients: autograd records a "
            "graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or "
            "`torch.inference_mode()`",
        ),
        # The same output kept on the instance only to be printed.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            class Brain:
                def __init__(self, policy_net, optimizer):
                    self.policy_net = policy_net
                    self.optimizer = optimizer

                def get_expected_Q(self, states, actions, rewards):
                    self.policy_net.eval()
                    self.Q = self.policy_net(states).gather(1, actions)
                    return rewards * 0.99

                def report(self):
                    print(self.Q.mean().item())
            """,
            line=12,
            column=18,
            message="`self.policy_net(...)` runs with grad enabled after `self.policy_net.eval()` (line 11), and "
            "nothing in this function uses gradients: autograd records a graph for every call, wasting memory and "
            "time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same rollout without `no_grad`: `act` runs the model with grad on.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F


            class Net(nn.Module):
                def __init__(self, n_in, n_out):
                    super().__init__()
                    self.actor = nn.Linear(n_in, n_out)
                    self.critic = nn.Linear(n_in, 1)

                def forward(self, x):
                    return self.critic(x), self.actor(x)

                def act(self, x):
                    value, actor_output = self(x)
                    return F.softmax(actor_output, dim=1).multinomial(num_samples=1)


            class Environment:
                def load_ckp(self, path, model, optimizer):
                    checkpoint = torch.load(path)
                    model.load_state_dict(checkpoint["state_dict"])
                    optimizer.load_state_dict(checkpoint["optimizer"])
                    return model, optimizer

                def run(self, envs, device, resume):
                    actor_critic = Net(4, 2).to(device)
                    optimizer = torch.optim.Adam(actor_critic.parameters())
                    if resume:
                        actor_critic, optimizer = self.load_ckp("ckp.pt", actor_critic, optimizer)
                    obs = torch.zeros(1, 4)
                    for step in range(100):
                        if True:
                            action = actor_critic.act(obs)
                        obs, reward = envs.step(action)
                        values, logits = actor_critic(obs)
                        loss = -(values * reward).mean()
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
            """,
            line=16,
            column=31,
            message="`self(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same generator without `no_grad`: the decoder's `generate` runs with grad on.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Decoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lm_head = nn.Linear(8, 8)

                def forward(self, x):
                    return self.lm_head(x)

                def generate(self, context, max_length):
                    out = []
                    for _ in range(max_length):
                        logits = self(context)
                        out.append(logits.argmax(-1).tolist())
                    return out


            class Generator:
                def __init__(self, model):
                    self.model = model

                def generate(self):
                    return self.model.generate(torch.zeros(1, 8), 5)


            decoder = Decoder()
            opt = torch.optim.SGD(decoder.parameters(), lr=0.1)
            loss = decoder(torch.randn(4, 8)).pow(2).mean()
            loss.backward()
            opt.step()
            print(Generator(decoder).generate())
            """,
            line=16,
            column=22,
            message="`self(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A nested evaluation function over the model the function around it trains (d2l's
        # `train_pytorch_ch7`), called between training steps.
        Invalid(
            """
            import torch
            from torch import nn


            def train(features, labels, batch_size=10, num_epochs=2):
                net = nn.Sequential(nn.Linear(features.shape[-1], 1))
                loss = nn.MSELoss()
                optimizer = torch.optim.SGD(net.parameters(), lr=0.05)

                def eval_loss():
                    return loss(net(features).view(-1), labels).item() / 2

                ls = [eval_loss()]
                data_iter = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(features, labels), batch_size)
                for _ in range(num_epochs):
                    for X, y in data_iter:
                        l = loss(net(X).view(-1), y) / 2
                        optimizer.zero_grad()
                        l.backward()
                        optimizer.step()
                    ls.append(eval_loss())
                return ls
            """,
            line=11,
            column=21,
            message="`net(...)` runs with grad enabled in `eval_loss`, whose result carries no graph, and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same demo, where the code does update the layer by hand: a model it changed.
        Invalid(
            """
            import torch
            from torch import nn

            x = torch.randn(8, 16) + 0.5
            layer = nn.Linear(16, 4)
            layer.eval()
            out = layer(x)
            layer.weight = nn.Parameter(layer.weight * 0.5)
            print(out)
            """,
            line=7,
            column=7,
            message="`layer(...)` runs with grad enabled after `layer.eval()` (line 6), and nothing in this module "
            "uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation function handed nothing runs the script's own global model, trained below.
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.LSTM(8, 8)
            optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01)
            criterion = nn.MSELoss()


            def evaluate():
                loss = 0
                for s in data[8:]:
                    output, hidden = model(s)
                    loss += criterion(output, s).item()
                return loss


            for epoch in range(3):
                for s in data[:8]:
                    output, hidden = model(s)
                    loss = criterion(output, s)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                print(evaluate())
            """,
            line=12,
            column=26,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A module class of the file whose `generate` runs its forward: not a library's `generate`.
        Invalid(
            """
            import torch.nn as nn


            class Seq2Seq(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.decoder = nn.Linear(8, 8)

                def forward(self, src, teacher_forcing):
                    return self.decoder(src), None

                def generate(self, src):
                    return self.forward(src, teacher_forcing=0.0)


            def random_eval(dset, seq2seq):
                seq2seq.eval()
                dec_outs, attn_ws = seq2seq.generate(dset.src)
                for out_idx in dec_outs.topk(1)[1].squeeze():
                    print(out_idx.tolist())
            """,
            line=18,
            column=25,
            message="`seq2seq.generate(...)` runs with grad enabled after `seq2seq.eval()` (line 17), and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A trained model traced for deployment, its traced copy's prediction read.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x)


            model = Net()
            optimizer = torch.optim.Adam(model.parameters())
            for data, target in train_loader:
                optimizer.zero_grad()
                nn.functional.mse_loss(model(data), target).backward()
                optimizer.step()

            example_input = torch.randn(1, 4)
            traced_model = torch.jit.trace(model, example_input)
            output_traced = traced_model(example_input)
            print(output_traced.argmax(1).item())
            """,
            line=23,
            column=17,
            message="`traced_model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; "
            "run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # One epoch function for both phases, told apart by a flag: only the training phase
        # backpropagates.
        Invalid(
            """
            import torch


            def run_epoch(model, data_loader, loss_fn, optimizer=None, is_test=False):
                if is_test:
                    model.eval()
                else:
                    model.train()
                total_loss = 0
                for image, target in data_loader:
                    if not is_test and optimizer is not None:
                        optimizer.zero_grad()
                    output = model(image)
                    loss = loss_fn(output, target)
                    if not is_test and optimizer is not None:
                        loss.backward()
                        optimizer.step()
                    total_loss += loss.item()
                return total_loss / len(data_loader)
            """,
            line=13,
            column=18,
            message="`model(...)` runs with grad enabled in every phase, but only the phase where "
            "`not is_test and optimizer is not None` (line 15) backpropagates: in the evaluation phase "
            "(`model.eval()`, line 6) autograd records a graph for nothing, wasting memory and time; run the "
            "forward pass under `with torch.set_grad_enabled(not is_test and optimizer is not None):`",
        ),
        # After training, reconstructions tiled by make_grid and drawn.
        Invalid(
            """
            import matplotlib.pyplot as plt
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            import torchvision

            model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 3, padding=1))
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(3):
                for data, _ in dataloader:
                    loss = F.mse_loss(model(data), data)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            def show_image(img):
                plt.imshow(img.numpy().transpose(1, 2, 0))


            images, labels = next(iter(dataloader))
            show_image(torchvision.utils.make_grid(model(images)))
            """,
            line=22,
            column=40,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A model computed by hand from the weights it is handed: the validation call gets the
        # weights the training call backpropagates into, so it records a graph too.
        Invalid(
            """
            import torch


            def model(t_u, w, b):
                return w * t_u + b


            def loss_fn(t_p, t_c):
                return ((t_p - t_c) ** 2).mean()


            def training_loop(n_epochs, optimizer, params, train_t_u, val_t_u, train_t_c, val_t_c):
                for epoch in range(1, n_epochs + 1):
                    train_t_p = model(train_t_u, *params)
                    train_loss = loss_fn(train_t_p, train_t_c)

                    val_t_p = model(val_t_u, *params)
                    val_loss = loss_fn(val_t_p, val_t_c)

                    optimizer.zero_grad()
                    train_loss.backward()
                    optimizer.step()
                    print(f"Epoch {epoch}, training loss {train_loss.item():.4f}, validation loss {val_loss.item():.4f}")
                return params


            params = torch.tensor([1.0, 0.0], requires_grad=True)
            optimizer = torch.optim.SGD([params], lr=1e-2)
            """,
            line=17,
            column=19,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # An untrained instance of the file's class timed in eval mode, its output dropped into
        # `_`: each timed call records a graph, and the timing measures it.
        Invalid(
            """
            import time

            import torch
            import torch.nn as nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x)


            other = nn.Linear(4, 4)
            other(torch.randn(2, 4)).sum().backward()

            model = Net()
            model.eval()
            x = torch.randn(100, 4)
            start = time.time()
            for _ in range(100):
                _ = model(x)
            print(time.time() - start)
            """,
            line=24,
            column=9,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 20), and its output is never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # After training, a prediction bound to a name nothing reads keeps its graph for nothing,
        # as the printed one does.
        Invalid(
            """
            import torch

            model = torch.nn.Linear(1, 1)
            criterion = torch.nn.MSELoss()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
            for epoch in range(500):
                y_pred = model(x_data)
                loss = criterion(y_pred, y_data)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            hour_var = torch.tensor([[4.0]])
            y_pred = model(hour_var)
            print("predict (after training)", 4, model(hour_var).item())
            """,
            line=14,
            column=10,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
            also=(
                Finding(
                    15,
                    38,
                    "`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
                    "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
                    "under `with torch.no_grad():` (or `torch.inference_mode()`)",
                ),
            ),
        ),
        # A method of the file's module class that runs its layers, on a model handed in and
        # switched to eval mode: an evaluation like `model(images)`.
        Invalid(
            """
            import numpy as np
            import torch.nn as nn


            class Frontend(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lp = nn.Conv2d(3, 3, 5, padding=2)

                def forward(self, x):
                    return self.lp(x)

                def analysis(self, x):
                    return [self.lp(x)]


            def frontend_analysis(model, test_loader):
                model.eval()
                outputs = []
                for images, _ in test_loader:
                    outputs.append(model.analysis(images)[0].detach().cpu().numpy())
                return np.concatenate(outputs)
            """,
            line=21,
            column=24,
            message="`model.analysis(...)` runs with grad enabled after `model.eval()` (line 18), and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An evaluation loop that runs an attack picked from a dict (it backpropagates to the
        # input): the function keeps grad, the model call whose output is only read does not need it.
        Invalid(
            """
            import torch.nn as nn


            def adversarial_test(model, test_loader, adversarial_args):
                model.eval()
                test_loss = 0
                for data, target in test_loader:
                    adversarial_args["attack_args"]["net"] = model
                    adversarial_args["attack_args"]["x"] = data
                    data = data + adversarial_args["attack"](**adversarial_args["attack_args"])
                    output = model(data)
                    test_loss += nn.CrossEntropyLoss()(output, target).item()
                return test_loss / len(test_loader)
            """,
            line=11,
            column=18,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # An output handed straight to a function of the file that only reads it.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def accuracy(logits, labels):
                return torch.sum(torch.argmax(logits, dim=1) == labels).item() / len(labels)


            def train(model, features, labels, train_mask, test_mask):
                optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
                for epoch in range(200):
                    loss = nn.functional.cross_entropy(model(features)[train_mask], labels[train_mask])
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                acc = accuracy(model(features)[test_mask], labels[test_mask])
                print(f"Test accuracy {acc:.4f}")
            """,
            line=16,
            column=20,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The twin of the made-up `X_test` example: after training, the prediction is only read.
        Invalid(
            """
            import torch
            import torch.nn as nn

            X = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
            X_test = torch.tensor([5.0])
            model = nn.Linear(1, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(100):
                ((model(X) - 2 * X) ** 2).mean().backward()
                optimizer.step()
                optimizer.zero_grad()
            print(f"Prediction after training: f(5) = {model(X_test).item():.3f}")

            X_train, X_test = X[:3], X[3:]
            """,
            line=12,
            column=44,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A model computed by hand, its prediction formatted into text after training (the same
        # line before training is a demo of the untrained model).
        Invalid(
            """
            import torch

            X = torch.tensor([1.0, 2.0, 3.0, 4.0])
            Y = torch.tensor([2.0, 4.0, 6.0, 8.0])
            w = torch.tensor(0.0, requires_grad=True)


            def forward(x):
                return w * x


            print(f"Prediction before training: f(5) = {forward(5):.3f}")
            optimizer = torch.optim.SGD([w], lr=0.01)
            for epoch in range(100):
                loss = ((forward(X) - Y) ** 2).mean()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            print(f"Prediction after training: f(5) = {forward(5):.3f}")
            """,
            line=19,
            column=44,
            message="`forward(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A model's own `encode` method (not a tokenizer's) run after training, its result only read.
        Invalid(
            """
            import torch
            import torch.nn as nn


            class AutoEncoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = nn.Conv2d(1, 4, 3)
                    self.decoder = nn.ConvTranspose2d(4, 1, 3)

                def encode(self, x):
                    return self.encoder(x)

                def forward(self, x):
                    return self.decoder(self.encode(x))


            net = AutoEncoder()
            optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
            for image in train_images:
                loss = (net(image) - image).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            codes = net.encode(test_images)
            print(codes.argmax(1)[0])
            """,
            line=26,
            column=9,
            message="`net.encode(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # One loop serves both phases; only the training phase backpropagates.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def fit(model, loaders, optimizer, epochs):
                for epoch in range(epochs):
                    for phase in ["train", "validation"]:
                        if phase == "train":
                            model.train()
                        else:
                            model.eval()
                        for images, labels in loaders[phase]:
                            loss = F.cross_entropy(model(images), labels)
                            if phase == "train":
                                optimizer.zero_grad()
                                loss.backward()
                                optimizer.step()
            """,
            line=13,
            column=40,
            message='`model(...)` runs with grad enabled in every phase, but only the phase where `phase == "train"` '
            "(line 14) backpropagates: in the evaluation phase (`model.eval()`, line 11) autograd records a graph for "
            "nothing, wasting memory and time; run the forward pass under "
            '`with torch.set_grad_enabled(phase == "train"):`',
        ),
        # A frozen model whose inputs are made to require grad (gradient checkpointing) records a
        # graph at every call.
        Invalid(
            """
            import torch
            import transformers

            model = transformers.AutoModelForCausalLM.from_pretrained("gpt2")
            for param in model.parameters():
                param.requires_grad = False
            model.gradient_checkpointing_enable()
            model.enable_input_require_grads()

            model.eval()
            for batch in val_loader:
                print(model(**batch).loss.item())
            """,
            line=12,
            column=11,
            message="`model(...)` runs with grad enabled in the loop over `val_loader` (line 11), which never uses "
            "gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A frozen backbone given a new classifier layer by index trains that layer: its calls
        # record a graph.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torchvision

            vggnet = torchvision.models.vgg16(weights="DEFAULT")
            for p in vggnet.parameters():
                p.requires_grad = False
            vggnet.classifier[6] = nn.Linear(4096, 10)
            train(vggnet, train_loader)

            vggnet.eval()
            X, y = next(iter(test_loader))
            predictions = torch.argmax(vggnet(X), axis=1)
            print((predictions == y).float().mean().item())
            """,
            line=13,
            column=28,
            message="`vggnet(...)` runs with grad enabled after `vggnet.eval()` (line 11), and its output is never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A module made of a trained model's layers, its output only drawn.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import matplotlib.pyplot as plt

            model = nn.Sequential(nn.Conv2d(1, 64, 3), nn.ReLU(), nn.Flatten(), nn.Linear(64 * 26 * 26, 1))
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
            for x, y in loader:
                loss = nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()

            first_layer = nn.Sequential(*list(model.children())[:1])
            maps = first_layer(x[:1])[0].detach()
            for ix in range(8):
                plt.imshow(maps[ix])
            """,
            line=14,
            column=8,
            message="`first_layer(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A global model frozen only after the function has run.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            from torchvision.models import resnet50

            model = resnet50(pretrained=True)
            model.eval()


            def predict_on_image(input):
                pred = model(input)
                prob, clss = torch.max(F.softmax(pred, dim=-1)[0], 0)
                print(f"PREDICTION: {clss.item()} @ {prob.item()}")


            predict_on_image(torch.rand(1, 3, 224, 224))
            for param in model.parameters():
                param.requires_grad = False
            """,
            line=10,
            column=12,
            message="`model(...)` runs with grad enabled with `model` in eval mode, and nothing in this function uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A model frozen in one branch of an `if` is not the model the other branch builds,
        # trains and evaluates.
        Invalid(
            """
            import torch
            import torch.nn as nn


            def main(flags, backbone, train_loader, valid_loader):
                criterion = nn.CrossEntropyLoss()
                if flags.features_only:
                    model = backbone
                    for param in model.parameters():
                        param.requires_grad = False
                else:
                    model = nn.Linear(10, 2)
                    optimizer = torch.optim.SGD(model.parameters(), 0.1)
                    for data, target in train_loader:
                        optimizer.zero_grad()
                        criterion(model(data), target).backward()
                        optimizer.step()
                    model.eval()
                    for data, target in valid_loader:
                        output = model(data)
                        print(criterion(output, target).item())
            """,
            line=20,
            column=22,
            message="`model(...)` runs with grad enabled in the loop over `valid_loader` (line 19), which never uses "
            "gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # Outputs written into a tensor item by item, in a script that trains: the tensor holds
        # each call's graph, and nothing backpropagates it.
        Invalid(
            """
            import torch
            from torch import nn

            model = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for x, y in train_loader:
                loss = ((model(x) - y) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()

            model.eval()
            preds = torch.zeros(len(test_x))
            for i in range(len(test_x)):
                preds[i] = model(test_x[i])
            print(preds)
            """,
            line=15,
            column=16,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 12), and its output is never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # Samples scaled by numbers (`net_G(Z) / 2 + 0.5`) hold the call's graph, only drawn.
        Invalid(
            """
            import torch
            from torch import nn
            import matplotlib.pyplot as plt


            def update(net_D, net_G, X, Z, loss, trainer_D, trainer_G):
                fake_X = net_G(Z)
                trainer_D.zero_grad()
                l_D = loss(net_D(X), torch.ones(X.shape[0], 1)) + loss(net_D(fake_X.detach()), torch.zeros(X.shape[0], 1))
                l_D.backward()
                trainer_D.step()
                trainer_G.zero_grad()
                l_G = loss(net_D(fake_X), torch.ones(X.shape[0], 1))
                l_G.backward()
                trainer_G.step()


            def train(net_D, net_G, data_iter, num_epochs, latent_dim):
                loss = nn.BCEWithLogitsLoss()
                trainer_D = torch.optim.Adam(net_D.parameters())
                trainer_G = torch.optim.Adam(net_G.parameters())
                for epoch in range(num_epochs):
                    for X in data_iter:
                        Z = torch.normal(0, 1, size=(X.shape[0], latent_dim))
                        update(net_D, net_G, X, Z, loss, trainer_D, trainer_G)
                    Z = torch.normal(0, 1, size=(21, latent_dim))
                    fake_x = net_G(Z) / 2 + 0.5
                    imgs = torch.cat([fake_x[i].cpu().detach() for i in range(len(fake_x))], dim=0)
                    plt.imshow(imgs)
            """,
            line=27,
            column=18,
            message="`net_G(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # `self.__call__(x)` runs the module as `self(x)` does.
        Invalid(
            """
            import torch
            from torch import nn
            import numpy as np


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(10, 3)
                    self.dropout = nn.Dropout(0.5)

                def forward(self, x):
                    return self.fc(self.dropout(x))

                def run_epoch(self, train_iterator, val_x, val_y, optimizer, loss_op):
                    val_accuracies = []
                    for i, (x, y) in enumerate(train_iterator):
                        optimizer.zero_grad()
                        y_pred = self.__call__(x)
                        loss = loss_op(y_pred, y)
                        loss.backward()
                        optimizer.step()
                        if (i + 1) % 50 == 0:
                            self.eval()
                            all_preds = []
                            val_iterator = zip(val_x, val_y)
                            for j, (x, y) in enumerate(val_iterator):
                                y_pred = self.__call__(x)
                                predicted = torch.max(y_pred.cpu().data, 1)[1]
                                all_preds.extend(predicted.numpy())
                            val_accuracies.append(np.mean(all_preds))
                            self.train()
                    return val_accuracies
            """,
            line=28,
            column=30,
            message="`self.__call__(...)` runs with grad enabled after `self.eval()` (line 24), and its output is never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A cell's last line shows what it lists: each item is read.
        Invalid(
            """
            import torch


            def encode(net, tokens):
                encoded, _ = net(torch.tensor(tokens).unsqueeze(0))
                return encoded


            net = torch.nn.GRU(8, 8, batch_first=True)
            net.load_state_dict(torch.load("gru.pt"))
            encoded_text = encode(net, val_tokens)
            print(encoded_text.shape)
            encoded_text[:, 0, :], encoded_text[:, 1, :][0][:3]
            """,
            line=11,
            column=16,
            message="`encode(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A method named like Lightning's `predict_step`, in a file without Lightning that calls
        # it itself: no trainer runs it without grad.
        Invalid(
            """
            import torch
            from torch import nn
            from mt_data import tgt_vocab


            class EncoderDecoder(nn.Module):
                def __init__(self, vocab, hidden):
                    super().__init__()
                    self.encoder = nn.GRU(hidden, hidden, batch_first=True)
                    self.embed = nn.Embedding(vocab, hidden)
                    self.decoder = nn.GRU(hidden, hidden, batch_first=True)
                    self.out = nn.Linear(hidden, vocab)

                def forward(self, src, tgt):
                    _, h = self.encoder(self.embed(src))
                    y, _ = self.decoder(self.embed(tgt), h)
                    return self.out(y)



            def add_to_class(Class):
                def wrapper(obj):
                    setattr(Class, obj.__name__, obj)
                return wrapper


            @add_to_class(EncoderDecoder)
            def predict_step(self, src, bos, num_steps):
                _, state = self.encoder(self.embed(src))
                outputs = [bos]
                for _ in range(num_steps):
                    y, state = self.decoder(self.embed(outputs[-1]), state)
                    outputs.append(self.out(y).argmax(2))
                return torch.cat(outputs[1:], 1), []


            model = EncoderDecoder(20, 16)
            opt = torch.optim.Adam(model.parameters())
            src, tgt = torch.randint(0, 20, (4, 7)), torch.randint(0, 20, (4, 7))
            for _ in range(10):
                opt.zero_grad()
                loss = nn.functional.cross_entropy(model(src, tgt).reshape(-1, 20), tgt.reshape(-1))
                loss.backward()
                opt.step()
            preds, _ = model.predict_step(src, torch.zeros(4, 1, dtype=torch.long), 5)
            for p in preds:
                print(tgt_vocab.to_tokens(p))
            """,
            line=29,
            column=16,
            message="`self.encoder(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A function named for evaluation that runs the model it is handed is reported inside,
        # once: its calls are not model calls of their own.
        Invalid(
            """
            import torch

            def predict(model, x):
                return torch.softmax(model(x), dim=1)

            model = torch.nn.Linear(4, 3)
            model.load_state_dict(torch.load("m.pt"))
            model.eval()
            for x, y in test_loader:
                print(predict(model, x).argmax(1).tolist())
            """,
            line=4,
            column=26,
            message="`model(...)` runs with grad enabled with `model` in eval mode, and nothing in this function uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # An output read at once (`.item()`): the margin computed from it feeds a later loss,
        # but none of the graph does.
        Invalid(
            """
            import torch

            D = torch.nn.Sequential(torch.nn.Linear(784, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
            D_solver = torch.optim.Adam(D.parameters(), lr=1e-3)
            for X in pretrain_batches:
                loss = torch.mean(D(X))
                D_solver.zero_grad()
                loss.backward()
                D_solver.step()

            m = torch.mean(D(all_images)).item()
            for X, fake in batches:
                D_loss = torch.mean(D(X)) + torch.relu(m - torch.mean(D(fake)))
                D_solver.zero_grad()
                D_loss.backward()
                D_solver.step()
            """,
            line=11,
            column=16,
            message="`D(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and "
            "never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A function of the file wrapping a model (`def G(z): return torch.sigmoid(G_(z))`):
        # samples drawn through it and only read.
        Invalid(
            """
            import torch

            G_ = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 784))


            def G(z):
                return torch.sigmoid(G_(z))


            G_solver = torch.optim.Adam(G_.parameters(), lr=1e-3)
            for it in range(1000):
                G_loss = ((G(torch.randn(32, 16)) - 0.5) ** 2).mean()
                G_solver.zero_grad()
                G_loss.backward()
                G_solver.step()
                if it % 100 == 0:
                    samples = G(torch.randn(16, 16)).data.numpy()
            """,
            line=17,
            column=19,
            message="`G(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and "
            "never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A sample detached as it is made and only kept, in a loop where the same name is
        # backpropagated elsewhere: the sample's graph is recorded for nothing.
        Invalid(
            """
            import torch
            import torch.nn as nn

            G, D = nn.Linear(4, 4), nn.Linear(4, 1)
            opt_G = torch.optim.Adam(G.parameters())
            samples = []
            for real, z in loader:
                opt_G.zero_grad()
                fake = G(z)
                (-D(fake).mean()).backward()
                opt_G.step()
                fake = G(fixed_z).detach()
                samples.append(fake)
            """,
            line=12,
            column=12,
            message="`G(...)` runs with grad enabled, but its output is detached at once (`.detach()`) and never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # `nn.parallel.data_parallel(netG, inputs, gpus)` runs `netG`.
        Invalid(
            """
            import torch
            import torch.nn as nn

            netG = nn.Linear(8, 8)
            netG.load_state_dict(torch.load("netG.pth"))
            netG.eval()
            for txt_embedding in embeddings:
                fake_imgs = nn.parallel.data_parallel(netG, txt_embedding, range(2))
                print(fake_imgs[0].data.cpu().numpy())
            """,
            line=8,
            column=17,
            message="`nn.parallel.data_parallel(...)` runs with grad enabled after `netG.eval()` (line 6), and nothing "
            "in this module uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # The same helper given `True` for a loss that is only printed: its graph is kept for nothing.
        Invalid(
            """
            import torch


            def calculate_loss(model, loss_fn, x, y, is_train):
                with torch.set_grad_enabled(is_train):
                    loss = loss_fn(model(x), y)
                return loss


            model = torch.nn.Linear(1, 1)
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(5000):
                train_loss = calculate_loss(model, torch.nn.MSELoss(), x_train, y_train, is_train=True)
                optimizer.zero_grad()
                train_loss.backward()
                optimizer.step()
                val_loss = calculate_loss(model, torch.nn.MSELoss(), x_val, y_val, is_train=True)
                print(f"val loss = {val_loss}")
            """,
            line=17,
            column=16,
            message="`calculate_loss(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, "
            "printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run "
            "it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A data set class of the file whose `x` ends as a tensor (after an array): a
        # validation set's `x` is evaluation data.
        Invalid(
            """
            import numpy as np
            import torch
            from torch.utils.data import Dataset


            class Data(Dataset):
                def __init__(self, n=100, train=True):
                    self.x = np.random.rand(n, 2)
                    self.y = torch.from_numpy((self.x.sum(1) > 1).astype(np.int64))
                    self.x = torch.from_numpy(self.x).float()

                def __getitem__(self, index):
                    return self.x[index], self.y[index]

                def __len__(self):
                    return len(self.y)


            data_set = Data()
            validation_set = Data(train=False)
            model = torch.nn.Linear(2, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(100):
                loss = torch.nn.functional.cross_entropy(model(data_set.x), data_set.y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                val_loss = torch.nn.functional.cross_entropy(model(validation_set.x), validation_set.y)
                history.append(val_loss)
            """,
            line=28,
            column=50,
            message="`model(...)` runs with grad enabled on evaluation data `validation_set.x`, and its output is never "
            "backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A validation batch's output handed to a helper of the file that reads only the indices
        # of its maximum (`output.max(1)[1]`) and a loss read with `.item()`.
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torch import optim


            def accuracy(output, target):
                idx_max = output.max(1)[1]
                accuracy_ = (torch.sum(idx_max == target)).type(torch.FloatTensor) / target.size(0)
                return accuracy_.item()


            sentiment_regressor = nn.Linear(4, 3)
            regressor_optimizer = optim.Adam(sentiment_regressor.parameters())
            criterion = nn.CrossEntropyLoss()
            for epoch in range(10):
                x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
                regressor_optimizer.zero_grad()
                output = sentiment_regressor(x)
                loss = criterion(output, y)
                batch_accuracy = accuracy(output, y)
                loss.backward()
                regressor_optimizer.step()

                error_val = 0
                accuracy_val = 0
                for i in range(5):
                    x_val, y_val = torch.randn(8, 4), torch.randint(0, 3, (8,))
                    output = sentiment_regressor(x_val)
                    loss = criterion(output, y_val)
                    batch_accuracy = accuracy(output, y_val)
                    error_val += loss.item()
                    accuracy_val += batch_accuracy
                print(error_val, accuracy_val)
            """,
            line=28,
            column=18,
            message="`sentiment_regressor(...)` runs with grad enabled, but its output is only read (`.data`, "
            "`.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and "
            "time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # Outputs compared to a threshold: a mask of booleans, with no graph.
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Sequential(nn.Linear(2, 4), nn.Sigmoid(), nn.Linear(4, 1), nn.Sigmoid())
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(100):
                optimizer.zero_grad()
                nn.functional.binary_cross_entropy(model(x), y).backward()
                optimizer.step()

            yhat = (model(grid)[:, 0] > 0.5).numpy()
            """,
            line=11,
            column=9,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # Outputs compared: `torch.allclose` gives a bool, the graph ends there.
        Invalid(
            """
            import torch

            mlp = torch.nn.Linear(8, 8)
            mlp.load_state_dict(torch.load("block0_mlp.pt"))
            x = torch.randn(2, 8)
            assert torch.allclose(mlp(x), x @ torch.load("w.pt"), atol=1e-5)
            """,
            line=6,
            column=23,
            message="`mlp(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # Sampling from a loaded model: `torch.multinomial` gives indices, no graph.
        Invalid(
            """
            import torch
            import transformers

            tokenizer = transformers.AutoTokenizer.from_pretrained("gpt2")
            model = transformers.AutoModelForCausalLM.from_pretrained("gpt2")
            prompt = "The capital of France is"
            for _ in range(10):
                inputs = tokenizer(prompt, return_tensors="pt")
                probs = torch.softmax(model(**inputs).logits[0, -1], dim=-1)
                next_id = torch.multinomial(probs, num_samples=1)
                prompt += tokenizer.decode(next_id)
            print(prompt)
            """,
            line=9,
            column=27,
            message="`model(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this module uses gradients: autograd records a graph for every call, wasting "
            "memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A helper that runs the model it is handed is a model call: its loss is only read here.
        Invalid(
            """
            import torch
            import torch.nn.functional as F


            def batch_loss(model, x, y):
                return F.cross_entropy(model(x), y)


            def mean_loss(model, loader):
                total = 0.0
                for x, y in loader:
                    total += batch_loss(model, x, y).item()
                return total / len(loader)


            def train(model, loader, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    batch_loss(model, x, y).backward()
                    optimizer.step()
            """,
            line=12,
            column=18,
            message="`batch_loss(...)` runs with grad enabled although its output is only read (`.data`, `.item()`, "
            "printing), and nothing in this function uses gradients: autograd records a graph for every call, "
            "wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A script's evaluation loops are sites of their own: wrapping one leaves the other.
        Invalid(
            """
            import torch
            from torch.utils.data import DataLoader

            val_loader = DataLoader(val_set, batch_size=16)
            autoencoder = torch.load("autoencoder.pt")
            autoencoder.eval()
            for x, _ in val_loader:
                print(autoencoder(x).mean().item())

            vae = torch.load("vae.pt")
            vae.eval()
            for x, _ in val_loader:
                print(vae(x).mean().item())
            """,
            line=8,
            column=11,
            message="`autoencoder(...)` runs with grad enabled after `autoencoder.eval()` (line 6), and nothing in this "
            "module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation "
            "under `torch.no_grad()` or `torch.inference_mode()`",
            also=(
                Finding(
                    13,
                    11,
                    "`vae(...)` runs with grad enabled after `vae.eval()` (line 11), and nothing in this module uses "
                    "gradients: autograd records a graph for every call, wasting memory and time; run evaluation "
                    "under `torch.no_grad()` or `torch.inference_mode()`",
                ),
            ),
        ),
        Invalid(
            """
            import torch
            from torch import nn

            net = nn.Linear(1, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            x = torch.linspace(-1, 1, 100).unsqueeze(1)
            for step in range(100):
                loss = (net(x) - x.pow(2)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            prediction = net(x)
            print(prediction.data.numpy())
            """,
            line=12,
            column=14,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            """
            import torch

            def evaluate(model, val_loader):
                model.eval()
                for x, y in val_loader:
                    out = model(x)
            """,
            line=6,
            column=15,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 4), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch

            @torch.no_grad()
            def evaluate(model, val_loader):
                model.eval()
                for x, y in val_loader:
                    out = model(x)
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch as th

            class Runner:
                @staticmethod
                def predict(net, batch):
                    net.eval()
                    return net(batch)
            """,
            line=7,
            column=16,
            message="`net(...)` runs with grad enabled after `net.eval()` (line 6), and nothing in this function uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch as th

            class Runner:
                @staticmethod
                @th.no_grad()
                def predict(net, batch):
                    net.eval()
                    return net(batch)
            """,
            unsafe=True,
        ),
        Invalid(
            """
            import torch

            def fit(model, train_dl, valid_dl, opt):
                for x, y in train_dl:
                    model(x).sum().backward()
                    opt.step()
                for x, y in enumerate(valid_dl):
                    preds = model(x)
            """,
            line=8,
            column=17,
            message="`model(...)` runs with grad enabled in the loop over `valid_dl` (line 7), which never uses gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            """
            from torch import nn

            model = nn.Linear(2, 2)
            model.eval()
            y = model(x)
            """,
            line=5,
            column=5,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 4), and nothing in this module uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        Invalid(
            """
            import torch
            from torch import nn

            net = nn.Linear(1, 1)
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for epoch in range(10):
                net.eval()
                pred = net(test_x)
                test_losses.append((pred - test_y).pow(2).mean().item())
                net.train()
                for x, y in train_loader:
                    pred = net(x)
                    loss = (pred - y).pow(2).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
            """,
            line=8,
            column=12,
            message="`net(...)` runs with grad enabled after `net.eval()` (line 7), and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            """
            import torch
            import torch.nn.functional as F

            w = torch.randn(10, 784, requires_grad=True)
            b = torch.zeros(10, requires_grad=True)

            def forward(x):
                return x @ w.t() + b

            optimizer = torch.optim.SGD([w, b], lr=0.1)
            for x, y in train_loader:
                loss = F.cross_entropy(forward(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            correct = 0
            for x, y in test_loader:
                logits = forward(x)
                correct += (logits.argmax(1) == y).sum().item()
            """,
            line=18,
            column=14,
            message="`forward(...)` runs with grad enabled in the loop over `test_loader` (line 17), which never uses gradients: autograd records a graph for every call, wasting memory and time; wrap the loop in `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

            def train(x, y):
                optimizer.zero_grad()
                nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()

            for epoch in range(3):
                train(torch.rand(8, 4), torch.rand(8, 2))

            model.eval()
            copy = nn.Linear(4, 2)
            copy.load_state_dict(model.state_dict())
            copy.eval()
            print(copy(torch.rand(1, 4)).argmax(1).item())
            """,
            line=19,
            column=7,
            message="`copy(...)` runs with grad enabled after `copy.eval()` (line 18), and its output is never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn

            model = nn.Linear(4, 3)
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(10):
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()

            predict = model(x).data.max(1, keepdim=True)[1]
            print(predict.squeeze().tolist())
            """,
            line=11,
            column=11,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A final forward pass after the training loop whose predictions are returned, and
        # every caller only reads them (an accuracy, a plot).
        Invalid(
            """
            import torch
            import torch.nn as nn

            def train_the_model(model, data, labels, optimizer):
                for epoch in range(100):
                    loss = nn.functional.binary_cross_entropy_with_logits(model(data), labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                predictions = model(data)
                accuracy = ((predictions > 0) == labels).float().mean()
                return predictions, accuracy

            net = nn.Linear(2, 1)
            predictions, accuracy = train_the_model(net, x, y, torch.optim.SGD(net.parameters(), lr=0.1))
            print(accuracy, predictions.detach()[:5])
            """,
            line=10,
            column=19,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same where the training function itself reads nothing: a caller in a loop of
        # experiments reads what it returns.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn

            def build_and_train(x, y):
                model = nn.Sequential(nn.Linear(1, 8), nn.ReLU(), nn.Linear(8, 1))
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                for epoch in range(500):
                    loss = nn.functional.mse_loss(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                predictions = model(x)
                return predictions, loss

            for slope in np.linspace(-2, 2, 21):
                x = torch.randn(50, 1)
                y = slope * x
                yhat, loss = build_and_train(x, y)
                print(slope, np.corrcoef(y.T, yhat.data.T)[0, 1])
            """,
            line=13,
            column=19,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # A script that loads a model and runs it over a loader, keeping its outputs to plot:
        # nothing in the script uses gradients.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import matplotlib.pyplot as plt

            AE = nn.Sequential(nn.Linear(784, 2), nn.Sigmoid())
            AE.load_state_dict(torch.load("./ae.pth"))
            codes = []
            for img, label in dataloader:
                codes.append(AE(img))
            codes = torch.cat(codes)
            plt.scatter(codes[:, 0].detach().numpy(), codes[:, 1].detach().numpy())
            """,
            line=9,
            column=18,
            message="`AE(...)` runs with grad enabled on weights loaded from a file (line 6), and nothing in this "
            "module uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A function of the script drawing what the loaded model decodes, in a file that uses
        # no gradients.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import matplotlib.pyplot as plt

            decoder = nn.Sequential(nn.Linear(2, 784), nn.Sigmoid())
            decoder.load_state_dict(torch.load("./decoder.pth"))

            def plot_numbers(points):
                images = [decoder(torch.tensor([point])).view(28, 28) for point in points]
                plt.imshow(torch.cat(images, 1).detach().numpy())
                plt.show()

            plot_numbers([[0.0, 1.0], [1.0, 0.0]])
            """,
            line=9,
            column=15,
            message="`decoder(...)` runs with grad enabled on weights loaded from a file (line 6), and nothing in this "
            "function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A trained model's outputs copied into a numpy array: only read.
        Invalid(
            """
            import numpy as np
            import torch
            import torch.nn as nn

            net = nn.Linear(9, 1)
            optimizer = torch.optim.SGD(net.parameters(), lr=0.001)
            for X, y in train_data:
                optimizer.zero_grad()
                nn.functional.mse_loss(net(X), y).backward()
                optimizer.step()

            yHat = np.zeros(len(new_data))
            for t, X in enumerate(new_data):
                yy = net(X)
                yHat[t] = yy[-1]
            print(yHat)
            """,
            line=14,
            column=10,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it "
            "under `with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        # The same torchvision model given weights: evaluated with grad on.
        Invalid(
            """
            import torch
            import torchvision

            rn18 = torchvision.models.resnet18(pretrained=True)
            rn18.eval()
            x = torch.randn(5, 3, 224, 224)
            print(rn18(x).argmax(1))
            """,
            line=7,
            column=7,
            message="`rn18(...)` runs with grad enabled after `rn18.eval()` (line 5), and nothing in this module uses "
            "gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
        # A trace of a pretrained torchvision model timed on a batch: evaluated with grad on.
        Invalid(
            """
            import time
            import torch
            import torchvision

            model = torchvision.models.resnet18(pretrained=True)
            model.eval()
            traced_script_module = torch.jit.trace(model, torch.rand(1, 3, 224, 224))
            start = time.time()
            output = traced_script_module(torch.rand(64, 3, 224, 224))
            print(time.time() - start, output.shape)
            """,
            line=9,
            column=10,
            message="`traced_script_module(...)` runs with grad enabled after `model.eval()` (line 6), and nothing "
            "in this module uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        Invalid(
            # an agent handed a trained policy: its `get_action` runs the policy it holds
            """
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x)


            class Agent:
                def __init__(self, policy):
                    self.policy = policy
                    self.optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)

                def get_action(self, state):
                    x = torch.from_numpy(state).float()
                    return self.policy(x)


            def main():
                policy = Policy()
                policy.load_state_dict(torch.load("model.mdl"))
                agent = Agent(policy)
                state = env.reset()
                for _ in range(100):
                    action = agent.get_action(state)
                    state, reward, done, info = env.step(action.detach().numpy())
            """,
            line=30,
            column=18,
            message="`agent.get_action(...)` runs with grad enabled although its output is only read (`.data`, "
            "`.item()`, printing), and nothing in this function uses gradients: autograd records a graph for every "
            "call, wasting memory and time; run evaluation under `torch.no_grad()` or `torch.inference_mode()`",
            fixed="""
            import torch
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x)


            class Agent:
                def __init__(self, policy):
                    self.policy = policy
                    self.optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)

                def get_action(self, state):
                    x = torch.from_numpy(state).float()
                    return self.policy(x)


            @torch.no_grad()
            def main():
                policy = Policy()
                policy.load_state_dict(torch.load("model.mdl"))
                agent = Agent(policy)
                state = env.reset()
                for _ in range(100):
                    action = agent.get_action(state)
                    state, reward, done, info = env.step(action.detach().numpy())
            """,
            unsafe=True,
        ),
        Invalid(
            # a function training by a helper of the file, then predicting: its one caller only
            # reads the predictions it hands back
            """
            import torch
            import torch.nn as nn


            def train(net, features, labels, epochs):
                optimizer = torch.optim.Adam(net.parameters())
                for _ in range(epochs):
                    optimizer.zero_grad()
                    loss = ((net(features) - labels) ** 2).mean()
                    loss.backward()
                    optimizer.step()


            def train_and_pred(train_x, train_y, test_x, epochs):
                net = nn.Linear(train_x.shape[1], 1)
                train(net, train_x, train_y, epochs)
                predictions = net(test_x)
                return predictions


            predictions = train_and_pred(train_x, train_y, test_x, 100)
            print(predictions.detach().numpy())
            """,
            line=17,
            column=19,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            # twin of the shape probe: the features themselves are kept
            """
            import torch
            import torch.nn as nn


            class CRNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.backbone = nn.Conv2d(3, 8, 3)
                    self.head = nn.Linear(8, 10)

                def features(self, x):
                    return self.backbone(x)

                def forward(self, x):
                    return self.head(self.backbone(x).mean((2, 3)))


            class Predictor:
                def __init__(self, path):
                    self.net = CRNN()
                    self.net.load_state_dict(torch.load(path))
                    self.net.eval()
                    self.reference = self.net.features(torch.zeros(2, 3, 32, 100))

                def predict(self, image):
                    with torch.no_grad():
                        return self.net(image).argmax(-1)
            """,
            line=23,
            column=26,
            message="`self.net.features(...)` runs with grad enabled after `self.net.eval()` (line 22), and nothing in "
            "this function uses gradients: autograd records a graph for every call, wasting memory and time; run "
            "evaluation under `torch.no_grad()` or `torch.inference_mode()`",
        ),
        Invalid(
            # the model handed back beside its predictions goes to an export: the predictions are
            # only read
            """
            import torch
            import torch.nn as nn


            def train(net, features, labels, epochs):
                optimizer = torch.optim.Adam(net.parameters())
                for _ in range(epochs):
                    optimizer.zero_grad()
                    loss = ((net(features) - labels) ** 2).mean()
                    loss.backward()
                    optimizer.step()


            def train_and_pred(train_x, train_y, test_x, epochs):
                net = nn.Linear(train_x.shape[1], 1)
                train(net, train_x, train_y, epochs)
                predictions = net(test_x)
                return net, predictions


            net, predictions = train_and_pred(train_x, train_y, test_x, 100)
            print(predictions.detach().numpy())
            torch.onnx.export(net, train_x[:1], "model.onnx")
            """,
            line=17,
            column=19,
            message="`net(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            # a fine-tuning shown step by step: each step's prediction is appended to a list that is
            # only drawn, detached, later
            """
            from copy import deepcopy

            import matplotlib.pyplot as plt
            import torch


            def plot_adaptation(meta_model, X, y, n_steps=5):
                model = deepcopy(meta_model)
                optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
                preds = []
                for step in range(n_steps):
                    optimizer.zero_grad()
                    loss = torch.nn.functional.mse_loss(model(X), y)
                    loss.backward()
                    optimizer.step()
                    preds.append(model(X))
                for pred in preds:
                    plt.plot(X, pred.detach().numpy())
            """,
            line=16,
            column=22,
            message="`model(...)` runs with grad enabled, but its output is only read (`.data`, `.item()`, printing) "
            "and never backpropagated: autograd records a graph for nothing, wasting memory and time; run it under "
            "`with torch.no_grad():` (or `torch.inference_mode()`)",
        ),
        Invalid(
            # twin: the network turns grad on for its own differentiation, so the loop can run without
            """
            import torch
            import torch.nn as nn


            class HNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.H = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 1))

                def forward(self, x):
                    with torch.enable_grad():
                        x = x.detach().requires_grad_(True)
                        dH = torch.autograd.grad(self.H(x).sum(), x, create_graph=True)[0]
                    return torch.stack([dH[:, 1], -dH[:, 0]], dim=1)


            model = HNN()
            model.load_state_dict(torch.load("hnn.pt"))
            model.eval()
            test_loss = 0.0
            for x, dx in test_loader:
                test_loss += ((model(x) - dx) ** 2).mean().item()
            print(test_loss)
            """,
            line=22,
            column=20,
            message="`model(...)` runs with grad enabled after `model.eval()` (line 19), and nothing in this module "
            "uses gradients: autograd records a graph for every call, wasting memory and time; run evaluation under "
            "`torch.no_grad()` or `torch.inference_mode()`",
        ),
    )

    # -- collecting ----------------------------------------------------------------------------
    def _unit(self, ctx) -> Optional[_Unit]:
        function = ctx.function
        if isinstance(function, ast.Lambda):
            return None
        units = ctx.state(_State).units
        key = id(function) if function is not None else 0
        unit = units.get(key)
        if unit is None:
            unit = units[key] = _Unit()
        return unit

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign, ctx) -> None:
        if node.value is None:
            return  # `x: Tensor`, a declaration
        assigned = ctx.state(_State).assigned_calls
        for value in [node.value, *(value for _, value in assigned_values(node))]:
            assigned.update(id(call) for call in viewed_calls(value))

    visit_AnnAssign = visit_Assign

    def visit_For(self, node: ast.AST, ctx) -> None:
        if isinstance(ctx.function, ast.Lambda):
            return
        iterable = _bound_wrapper(ctx, node.iter) or node.iter
        named = _loader_name(iterable)
        if named is not None or _may_be_data(ctx, iterable):
            unit = self._unit(ctx)
            if unit is not None:
                unit.maybe_loops[id(node)] = (node, named)

    visit_AsyncFor = visit_For

    def visit_Call(self, node: ast.Call, ctx) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and _switches_to_eval(node):
            if dotted_name(func.value) is not None and not ctx.model.is_import(func.value):
                switched = ctx.model.value(func.value)
                # not a layer without parameters (`dropout.eval()` in a demo of dropout): switching
                # it says nothing of evaluating a model
                if switched.kind in (Kind.MODULE, Kind.UNKNOWN) and not parameterless_layer(switched):
                    unit = self._unit(ctx)
                    if unit is not None:
                        unit.eval_calls.append(node)
            return
        if isinstance(func, ast.Attribute) and _switches_by_phase(node):
            unit = self._unit(ctx)
            if unit is not None and ctx.model.value(func.value).kind in (Kind.MODULE, Kind.UNKNOWN):
                unit.phase_switches.append(node)
            return
        function = ctx.function
        if isinstance(function, ast.Lambda) or ctx.grad_disabled:
            return  # inside `with torch.no_grad():` or a decorated function: no question to ask
        unit = ctx.state(_State).units.get(id(function) if function is not None else 0)
        loops = []  # the enclosing loops that iterate evaluation data or may, innermost first
        if unit is not None and (unit.loader_loops or unit.maybe_loops):
            loops = [
                id(loop)
                for loop in reversed(ctx.loops)
                if id(loop) in unit.loader_loops or id(loop) in unit.maybe_loops
            ]
        named_eval = function is not None and _evaluates_by_name_cached(ctx, function)
        callee = _callee(node)
        # Signs besides a loop over evaluation data that this call may evaluate.
        other_signs = (
            (unit is not None and (unit.eval_call is not None or bool(unit.phase_switches)))
            or named_eval
            or _switched_to_eval(ctx, callee)
            or (_names_a_split(ctx) and _may_be_evaluation_data(ctx, node))
            or _loaded_from_checkpoint(ctx, node) is not None
            or (function is not None and _evaluation_phase_call(ctx, function) is not None)
        )
        read_only = None  # whether the call's result is only read, found when needed
        if not loops and not other_signs:
            if id(node) in ctx.state(_State).assigned_calls:
                scope = function if function is not None else ctx.tree
                if (
                    not _reads_values(ctx, scope) and not _returns_to_readers(ctx, scope, node)
                ) or _certainly_not_a_model(ctx, callee):
                    return  # bound to a name, but nothing in the scope reads a value
            elif _copied_by_a_comprehension(ctx, node):
                read_only = True  # `torch.tensor([net(g) for g in validset])`: values copied, the graphs dropped
            else:
                # `loss(net(x), y)`: see `_fed_into_read`; `net(x)` alone as a notebook cell's last line is shown
                argument = (
                    _an_argument(ctx, node) or _displayed(ctx, node) or isinstance(ctx.parent(node), ast.FormattedValue)
                )
                if (
                    not (argument or _read_at_once_text(ctx, node))
                    or not (
                        argument
                        or read_at_once(node, ctx.parent)
                        or converted_to_image(node, ctx.parent, _qualified_name(ctx))
                    )
                    or _certainly_not_a_model(ctx, callee)
                ):
                    return  # nothing in this unit or file can make this call an evaluation: no model query
            if read_only is None:
                read_only = _result_only_read(ctx, node)
            if not read_only:
                return
        elif _certainly_not_a_model(ctx, callee):
            return
        loop_id = next((loop for loop in loops if _evaluation_loop(ctx, unit, loop)), None)
        if loop_id is None and not other_signs:
            if read_only is None:
                read_only = _result_only_read(ctx, node)
            if not read_only:
                return
        if _feeds_a_hooked_loss(ctx, node) or _result_called(ctx, node):
            return
        if (
            loop_id is None
            and not read_only
            and named_eval
            and not (unit is not None and unit.eval_call is not None)
            and _function_uses_grad(ctx, function)
            and not _switched_to_eval(ctx, callee)
            and not (_names_a_split(ctx) and _may_be_evaluation_data(ctx, node))
        ):
            # Only the function's name says it evaluates, and it uses gradients: only a call whose
            # output is only read can be reported there (`_decide`), asked before the model.
            if read_only is None:
                read_only = _result_only_read(ctx, node)
            if not read_only:
                return
        if not self._is_model_call(ctx, node):
            return
        if ctx.model.grad_mode(node) is not GradMode.ENABLED:
            return
        if (
            _judged_in_its_method(ctx, node)
            or _backward_left_out_of_a_branch(ctx, node)
            or _step_without_backward(ctx, node)
        ):
            return
        candidate = self._evidence(ctx, node, unit, loop_id, named_eval, read_only)
        if candidate is not None:
            if unit is None:
                unit = self._unit(ctx)
            unit.model_calls.append(candidate)

    def _evidence(
        self, ctx, node: ast.Call, unit, loop_id, named_eval: bool, read_only: Optional[bool]
    ) -> Optional[_Candidate]:
        if loop_id is not None:
            if _shape_probe_once(ctx, node):
                return None  # `output = net(imgs); print(output.shape); break`: a check of the model's shapes
            return _Candidate(node, "loop", loop_id)
        if _made_up_input(ctx, node) and _read_for_shape_only(ctx, node):
            # `out = loaded(torch.rand(1, 3, 224, 224)); print(out.shape)`: a check that the model
            # (here one saved and loaded again) runs, whatever else shows evaluation
            return None
        callee = ctx.model.value(_callee(node))
        if _own_module_method(ctx, node):
            callee = ctx.model.value(node.func.value)  # type: ignore[attr-defined]
        if callee.has(Role.EVALUATING) and not _kept_in_training(ctx, node, read_only):
            if _test_or_demo(ctx, callee, node):
                # a unit test of a model it builds (`model.eval(); out = model(x)`), or a demo of
                # the outputs of the file's own class in a file that never trains (not a call run
                # for its cost alone, `model(x)` timed or profiled: the graph costs there)
                return None
            return _Candidate(
                node,
                "eval-mode",
                data=short(ctx.text(_callee(node)), 40),
                tests_own=_testing_what_it_builds(ctx, ctx.function) and _fresh_module(ctx, node),
            )
        for arg in node.args:
            value = ctx.model.value(arg)
            if value.is_tensor and value.split is Split.EVAL:
                return _Candidate(node, "eval-data", data=short(ctx.text(arg), 40))
        if (unit is None or unit.eval_call is None) and ctx.function is not None:
            if _evaluation_phase_call(ctx, ctx.function) is not None and not _in_training_branch(
                ctx, node, ctx.function, _training_phase_test
            ):
                return _Candidate(node, "eval-phase")  # judged with the phase's test (`_decide`)
        if unit is not None and unit.eval_call is None and unit.phase_switches:
            return _Candidate(node, "eval-phase")  # `model.train(phase == "train")` before it
        if unit is not None and unit.eval_call is not None:
            if _test_or_demo(ctx, callee, node):
                # `scripted = torch.jit.script(model)` in a test of the model it builds;
                # `en_de = EncoderDecoder(encoder, decoder)` of two demo parts, on zeros
                return None
            return _Candidate(node, "eval-call")
        if named_eval:
            if _dummy_input(ctx, node):
                return None  # `o = self.conv_val(torch.zeros(1, *shape))`: a shape probe, not an evaluation
            if _fresh_module(ctx, node):
                return None  # `def test_rnn(RNN): rnn = RNN(8); out = rnn(x)`: a test of the model's code
            if _demo_of_handed_fresh_modules(ctx, node):
                return None  # `def test_model(data, model)` run by `test_model(torch.randn(...), Net())`
            if (
                _made_up_input(ctx, node, any_module=True)
                and not (read_only or (read_only is None and _result_only_read(ctx, node)))
                and not _thrown_away(ctx, node)
            ):
                # `def test_stacked_ae(e, d): x = torch.randn(...); z = e(x, stack); print(z.size())`:
                # a check of the model's code on made-up input whose values nothing reads (not a
                # run timed for its cost alone: that output is thrown away)
                return None
            if read_only or (read_only is None and _result_only_read(ctx, node)):
                return _Candidate(node, "read-only")  # what the function returns cannot hold this graph
            return _Candidate(node, "eval-function")
        if (
            (read_only or (read_only is None and _result_only_read(ctx, node)))
            # an untrained model's demo before its training (not its predictions on test data;
            # `test_example = torch.randn(5, 5)` is made up, whatever its name)
            and not _fresh_module(ctx, node, so_far=not _may_be_evaluation_data(ctx, node) or _made_up_input(ctx, node))
            and not _untrained_graph_function(ctx, node)
            and not _unit_test(ctx, ctx.function)
            and not _demo_of_handed_fresh_modules(ctx, node)
        ):
            return _Candidate(node, "read-only")
        loaded_at = _loaded_from_checkpoint(ctx, node)
        if loaded_at is not None:
            return _Candidate(node, "loaded", data=str(loaded_at))
        return None

    @staticmethod
    def _model_method_call(ctx, target: ast.AST) -> bool:
        """``net.qvals(x)``, ``policy.act(state)``, ``agent.get_action(obs)``: a method of a model
        that runs it, as its class in the file or the run shows (``SemanticModel.method_runs_module``,
        whatever the method's name); for a class the run does not show, a method named for running
        a model (``RUNNING_METHOD_RE``), never one named for something else (``init_hidden``,
        ``get_...``, ``parameters``)."""
        if not isinstance(target, ast.Attribute):
            return False
        if isinstance(target.value, ast.Name) and target.value.id == "self":
            # `self.compute_batch(batch)` of a trainer: a method of the class running its model
            call = ctx.parent(target)
            return isinstance(call, ast.Call) and call.func is target and ctx.model.self_method_runs_model(call)
        call = ctx.parent(target)
        if (
            isinstance(call, ast.Call)
            and call.func is target
            and (call.args or call.keywords)
            and _named_to_train(ctx, call)
        ):
            return False  # `logs = model.fit(train, dev=dev, epochs=10)`: a method named for training trains
        receiver = ctx.model.value(target.value)
        if (
            receiver.kind is Kind.UNKNOWN
            and RUNNING_METHOD_RE.match(target.attr) is not None
            and not ctx.model.other_framework_models
            and ctx.model.held_model_method_everywhere(target.attr)
        ):
            return True  # `self.algo.predict(obs)`: every class of the run defining it runs the model it holds
        if receiver.kind is Kind.OTHER and ctx.model.plain_method_runs_held_model(receiver, target.attr):
            return True  # `agent.get_action(state)` of an agent holding the policy it was handed
        if receiver.kind is not Kind.MODULE or ctx.model.module_without_parameters(receiver):
            return False
        if receiver.weak and ctx.model.other_framework_models:
            return False  # `model.forward_train(batch)` of a Keras model known by its name alone
        ref = receiver.ref or ""
        if ref.startswith("torch.nn.") or ctx.model.module_backpropagates(receiver):
            return False  # a torch layer's own methods (`lstm.flatten_parameters()`) run nothing
        runs = ctx.model.method_runs_module(receiver, target.attr)
        if (
            runs is None
            and target.attr in TRANSFORMERS_RUNNING_METHODS
            and (
                ref.startswith("transformers.")
                or (not ref and any(q.startswith("transformers.") for q in ctx.imports.names.values()))
            )
        ):
            return True  # `clip.get_text_features(**inputs)`: Hugging Face's text tower, run with grad on
        if (
            runs is None
            and target.attr.startswith(_NOT_RUNNING_PREFIXES)
            and not (receiver.has(Role.EVALUATING) and ctx.model.method_runs_somewhere(target.attr))
            and not ctx.model.method_runs_everywhere(target.attr)
        ):
            # `model.init_hidden(bs)`, `net.get_config()` of a class not shown (not where a module
            # class of the file or the run runs the model by it: `def log(self, ids): self.bert(ids)`)
            return False
        if runs is None and receiver.weak and ctx.model.method_of_plain_classes_only(target.attr):
            return False  # `model.predict(words)`, where only a numpy tagger of the file defines `predict`
        if runs is None and receiver.weak and ctx.model.method_quiet_in_wrappers(target.attr):
            return (
                False  # `model.predict(X)`, where the run's classes defining `predict` wrap a model run under `no_grad`
            )
        if runs is None and ctx.model.method_quiet_everywhere(target.attr):
            return False  # `self.model.predict_proba(x)`: every class defining it runs it without grad
        if (
            runs is None
            and receiver.weak
            and target.attr in ESTIMATOR_METHODS
            and (
                ctx.model.imports_non_torch_estimators
                or _used_as_an_estimator(ctx, target.value)
                # `model.predict_proba(x)` where no module class of the file or the run runs a
                # model by that name: scikit-learn's API (models a caller `joblib.load`s)
                or (target.attr != "predict" and not ctx.model.method_runs_somewhere(target.attr))
            )
        ):
            # `loaded_model.predict(X)` beside `from xgboost import XGBClassifier`: maybe not torch's;
            # `model.predict_proba(X)` where the scope also calls `model.decision_function(X)`: an estimator
            return False
        if runs is None:
            # A class the file does not show: only a method named for running the model
            # (`policy.act(state)`, `net.encode(seq)`; not `generator.label_to_name(i)`). Its
            # `generate` is most often Hugging Face's or a GPT's, which run without grad (a
            # class of another file of the run says for itself: `quiet_methods`).
            generate = target.attr.startswith("generate") and not (receiver.ref or "").startswith("project:")
            if (
                receiver.has(Role.EVALUATING)
                and "loss" not in target.attr.lower()  # `model.loss(y, y_hat)`: computed from outputs it is given
                # not where the model may be a meta-learner of the run, adapting with autograd
                # (`model.test_loop(loader)` of a MAML among the file's few-shot methods)
                and not ctx.model.imports_a_differentiating_module
                and ctx.model.method_runs_somewhere(target.attr)
                and not (generate and ctx.model.method_quiet_somewhere(target.attr))
            ):
                # `model.eval()`, then `model.analysis(images)` or `seq2seq.generate(src)`: a module
                # class of the file or run runs by it (its `generate` too, where none of the run's
                # classes runs its `generate` without grad)
                return True
            if generate:
                return False
            if (
                "loss" not in target.attr.lower()
                and not ctx.model.imports_a_differentiating_module
                and ctx.model.method_runs_everywhere(target.attr)
            ):
                return True  # `global_model.pi(state)`: every module class defining `pi` runs by it
            if ctx.model.method_runs_nowhere(target.attr):
                return False  # `self.generator.sample_noise_vector(bs)`: every class defining it runs no layer by it
            # not a method named for training (`trainer.sample_and_train(batch_size)`)
            return RUNNING_METHOD_RE.match(target.attr) is not None and "train" not in target.attr.lower()
        return runs

    @staticmethod
    def _is_model_call(ctx, node: ast.Call) -> bool:
        """A call of a model: a module with parameters (an instance of an ``nn.Module``
        subclass, a torch layer, a model a project function returns), or, where nothing else
        is known, something named like one (``model``, ``self.net``, ``teacher.module``)."""
        target = _callee(node)
        if _certainly_not_a_model(ctx, target) or _frozen(ctx, target, node) or _frozen_copy(ctx, target):
            return False
        if _assembled_from_frozen_layers(ctx, target, node):
            return False
        value = ctx.model.value(target)
        if value.kind is Kind.MODULE and value.weak and not value.ref and ctx.model.value(node).has(Role.LOSS):
            return False  # `self.criterion(output, target)`: a loss known by its name, computed on tensors
        if value.weak and target is node.func and not node.args and not node.keywords:
            # `model_class().to(device)` of a class taken from a dict: known by its name alone and
            # given no input, it builds a model rather than runs one
            return False
        if value.kind is Kind.TENSOR and isinstance(target, ast.Name) and target is node.func:
            # `print(tagger.requires_grad)`, then `tagger(x)`: a tensor is not called; what the
            # uses made a tensor of is a module
            value = Value(Kind.MODULE, Grad.NO, weak=True)
        if ctx.model.module_freezes_itself(value) and not _thawed(ctx, target):
            return False  # `VGG19(...)` freezing its features in `__init__`: no graph of its own
        if value.kind is Kind.FUNCTION and isinstance(target, ast.Name):
            # A function handed a module (`embedded_dropout(embed, words)`) applies it: that
            # module is what is evaluated, or tested.
            # The definition bound here (a script may define `model` twice, a model each time).
            bound = ctx.model.function_node(value)
            definitions = [bound] if bound is not None else ctx.model.scopes.module.definitions.get(target.id)
            if not definitions:
                return False
            if _graph_function(ctx, definitions) and ctx.model.reads_grad_globals_at(definitions[0], node):
                return not any(ctx.model.value(arg).kind is Kind.MODULE for arg in node.args)
            if _handed_weights_trained_here(ctx, node, definitions):
                return True
            return _runs_a_module_it_is_handed(ctx, node, definitions) or _wraps_a_model(ctx, definitions)
        if (
            value.kind is Kind.OTHER
            and (value.ref or "").startswith(TEACHING_PACKAGES)
            and (value.ref or "").rsplit(".", 1)[-1] in TEACHING_MODELS
        ):
            return _runs_on_trained_weights(ctx, node)  # `net = d2l.linreg`, handed trained `w`, `b`
        if value.kind is Kind.OTHER and (value.ref or "").startswith(RUN_FUNCTION):
            # `net = utils.linreg` of a copy of d2l's helpers in the run: its definition says
            key = ctx.model.run_function(value.ref[len(RUN_FUNCTION) :])  # type: ignore[index]
            found = ctx.model.project.function_node(key) if key is not None else None
            if (
                found is not None
                and bool(node.args[1:] or node.keywords)
                and _computes_from_handed_weights(found[1])
                and _runs_on_trained_weights(ctx, node)
            ):
                return True
        if (
            isinstance(target, ast.Attribute)
            and target is node.func
            and isinstance(target.value, ast.Name)
            and target.value.id == "self"
            and _own_method_runs_a_handed_module(ctx, node)
        ):
            return True  # `self.run_nerf(rays, model)`: a method of the class at hand running the module it is handed
        if (
            value.kind is not Kind.MODULE
            and isinstance(target, ast.Name)
            and target.id == "self"
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "forward"
        ):
            # a plain class's own `forward` helper (`def forward(self, z): return self.generator(z)`)
            return ctx.model.self_method_runs_model(node)
        if value.kind is not Kind.MODULE:
            runner = _project_runner(ctx, target) if ctx.model.project is not None else None
            if runner is not None:
                return any(
                    (argument := call_argument(node, position, name)) is not None and _handed_a_model(ctx, argument)
                    for name, position in runner.items()
                )
            return EvalWithGrad._model_method_call(ctx, target)
        if ctx.model.module_without_parameters(value):
            return False  # a class of the file over plain tensors updated by hand: no graph
        if ctx.model.module_forward_without_grad(value):
            return False  # its `forward` runs under `no_grad`: no graph (GG206's finding, if a mistake)
        if ctx.model.module_backpropagates(value):
            return False  # `accs = maml(x_spt, y_spt, x_qry, y_qry)`: its forward trains
        if parameterless_layer(value):
            return False  # pooling, activations, losses: no parameters, no graph of their own
        if isinstance(target, ast.Name) and ctx.model.builds_parameterless(ctx.function or ctx.tree, target.id):
            return False  # `nn.Sequential(nn.Dropout(0.5))`, `nn.BatchNorm1d(2, affine=False)`
        if value.weak:
            if ctx.model.other_framework_models:
                return False  # `model(inputs)` in a Flax or Keras file: not known to be torch's
            last = (
                target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
            )
            # `self._gen.eval()` before `self._gen(data)`: its uses show a module, whatever its name
            shown = (
                isinstance(target, ast.Attribute)
                and (dotted := dotted_name(target)) is not None
                and ctx.model.used_as_module(ctx.function or ctx.tree, dotted)
            )
            if not last or (last.startswith(_FACTORY_PREFIXES) and not shown):
                return False
            if isinstance(target, ast.Attribute) and last.startswith(_NOT_RUNNING_PREFIXES) and not shown:
                return False  # `float_model.fuse_model()`: a method named for something else, known by its name alone
            bound = _bound_name(ctx, node)
            if bound is not None and ctx.model.used_as_module(ctx.function or ctx.tree, bound):
                return False  # `cls_model = model_cls(); cls_model.eval()`: it makes a module
            if not shown and any(
                (handed := ctx.model.value(arg)).kind is Kind.MODULE and not handed.weak for arg in node.args
            ):
                return False  # `accuracy_model(model, test_iterator)`: handed a module, it is a helper, not one
        return True

    # -- deciding ------------------------------------------------------------------------------
    def leave_FunctionDef(self, node: ast.AST, ctx) -> None:
        state = ctx.state(_State)
        unit = state.units.pop(id(node), None)
        if unit is None or not unit.model_calls:
            return
        if (
            (node.name in _SKIP_FUNCTIONS or node.name.startswith(_SKIP_PREFIXES))
            and not _called_by_the_file(ctx, node.name)
            and not _plain_function_named_like_a_hook(ctx, node)
            and not _plain_class_forward_only_read(ctx, node, unit)
        ):
            return
        if ctx.model.shadowed_method(node):
            return  # its class body defines it again below: this code never runs
        if (_returns_a_loss(ctx, node) and not _callers_only_read(ctx, node)) or _handed_on_with_a_graph(ctx, node):
            # A loss handed back: a caller may backpropagate it (not where every caller drops or
            # reads it). A call whose output is only read or detached here cannot be in it: a
            # DQN's `target_net(s2).max(1)[0].detach()` in its `_compute_loss` is a site.
            reported: set = set()
            ctx.scopes.append(node)
            try:
                for candidate in unit.model_calls:
                    if candidate.why == "read-only" and self._runs_another_model(ctx, unit, node):
                        self._report_read_only(ctx, candidate.call, node, reported, returns_loss=True)
            finally:
                ctx.scopes.pop()
            return
        # The walk has left the function: its scope is put back while the candidates are judged,
        # so that what asks `ctx.function` (which calls' results are only read, the method's
        # class) asks of this function, not of the code around it.
        ctx.scopes.append(node)
        try:
            self._decide(ctx, unit, node)
        finally:
            ctx.scopes.pop()

    leave_AsyncFunctionDef = leave_FunctionDef

    def leave_Module(self, node: ast.Module, ctx) -> None:
        unit = ctx.state(_State).units.pop(0, None)
        if unit is None or not unit.model_calls:
            return
        self._decide(ctx, unit, None)

    def _decide(self, ctx, unit: _Unit, function: Optional[ast.AST]) -> None:
        nodes = [function] if function is not None else _module_code(ctx)
        if (
            function is not None
            and all(c.why in ("eval-function", "read-only") for c in unit.model_calls)
            and any(c.why == "eval-function" for c in unit.model_calls)
        ):
            # Only its name says the function evaluates, for an output it does not only read:
            # not when it hands a graph back. (Outputs only read cannot be in what it returns.)
            if ctx.model.returns_as_called(function).may_carry_graph:
                if not _callers_only_read(ctx, function):
                    return
                unit.read_by_callers = True
            if _keeps_graph_on_self(ctx, function):
                return
        if (
            function is not None
            and unit.model_calls
            and all(c.why == "read-only" for c in unit.model_calls)
            and not _uses_grad(ctx, nodes)
            and _may_hand_back_a_graph(ctx.model.returns_as_called(function))
            and self._runs_another_model(ctx, unit, function)
            and not _callers_only_read(ctx, function)
        ):
            # It hands back a graph of another call (`kl` of `new_actor`, beside `old_actor(s)`
            # detached): only the calls whose output is only read are sites, each on its own.
            reported: set = set()
            for candidate in unit.model_calls:
                self._report_read_only(ctx, candidate.call, function, reported, returns_loss=True)
            return
        if function is not None and _result_backpropagated_by_a_caller(ctx, function):
            return
        if not _uses_grad(ctx, nodes) and not _kept_for_training(ctx, unit, function):
            # A function is one site (its fix wraps it); a script's or notebook's code has no
            # single place to wrap: each loop over evaluation data, and each statement that runs
            # a model switched to eval mode (or on evaluation data, or whose output is only read),
            # is a site of its own.
            where = "this function" if function is not None else "this module"
            seen: set = set()
            for index, candidate in enumerate(unit.model_calls):
                if index and function is not None:
                    continue
                if _steps_left_to_write(ctx, candidate.call):
                    continue  # an exercise's training loop, its backward and step still `...`
                if candidate.why == "loop":
                    site = self._outermost_loader_loop(ctx, unit, unit.loader_loops[candidate.loop_id][0])
                elif index and candidate.why not in _SCRIPT_SITES:
                    continue
                else:
                    site = _statement(ctx, candidate.call)
                if id(site) in seen:
                    continue
                seen.add(id(site))
                ctx.report(
                    self.code,
                    candidate.call,
                    f"`{ctx.text(candidate.call.func)}(...)` runs with grad enabled "
                    f"{self._why(ctx, unit, candidate, function)}, and nothing in {where} uses gradients: autograd "
                    f"records a graph for every call, wasting memory and time; run evaluation under "
                    f"`torch.no_grad()` or `torch.inference_mode()`",
                    self._fix(ctx, function),
                )
            return
        # A unit that trains: its evaluation loops, and model calls whose evaluation is
        # certain (a model in eval mode, evaluation data) and whose outputs are never
        # backpropagated, are checked on their own.
        reported = set()
        scope = function if function is not None else ctx.tree
        for candidate in unit.model_calls:
            call = candidate.call
            phase = _training_phase_only(ctx, unit, scope, call)
            if phase == ():
                continue  # the evaluation phase runs without grad, the training phase backpropagates
            if phase is not None:
                statement = _statement(ctx, call)
                if statement is not None and id(statement) not in reported:
                    reported.add(id(statement))
                    test, eval_call = phase
                    ctx.report(
                        self.code,
                        call,
                        f"`{ctx.text(call.func)}(...)` runs with grad enabled in every phase, but only the phase where "
                        f"`{ctx.text(test)}` (line {test.lineno}) backpropagates: in the evaluation phase "
                        f"(`{short(ctx.text(eval_call), 80)}`, line {eval_call.lineno}) autograd records a graph for nothing, wasting "
                        f"memory and time; run the forward pass under `with torch.set_grad_enabled({_enabled_argument(ctx, scope, test)}):`",
                    )
                continue
            if candidate.why == "loop":
                loop, loader = unit.loader_loops[candidate.loop_id]
                outer = self._outermost_loader_loop(ctx, unit, loop)
                if id(outer) in reported or candidate.loop_id in reported:
                    continue
                if _uses_grad(ctx, [outer]):
                    # A loop over evaluation data that also uses gradients (an adversarial
                    # attack, test-time training): its calls whose output is never
                    # backpropagated are checked on their own.
                    if _input_requires_grad(ctx, scope, call):
                        # `img.requires_grad = True`, then `snet(img)`: differentiated by the input,
                        # perhaps inside what only seems to read the output (a Sobolev loss of
                        # another file taking `autograd.grad` of it)
                        continue
                    only_read = _result_only_read(ctx, call)
                    if not _fresh_module(ctx, call):
                        what = (
                            _read_only_message(ctx, call)
                            if only_read
                            else f"runs with grad enabled in the loop over `{loader}` (line {loop.lineno}), "
                            f"and its output is never backpropagated"
                        )
                        self._report_unused_output(ctx, call, scope, reported, what)
                    continue
                reported.add(id(outer))
                reported.add(candidate.loop_id)
                ctx.report(
                    self.code,
                    call,
                    f"`{ctx.text(call.func)}(...)` runs with grad enabled in the loop over `{loader}` (line {loop.lineno}), "
                    f"which never uses gradients: autograd records a graph for every call, wasting memory and time; "
                    f"wrap the loop in `with torch.no_grad():` (or `torch.inference_mode()`)",
                )
            elif (
                (
                    # a call of the evaluation phase alone (`else:` of `if training:`), whose output is only read
                    candidate.why == "eval-phase" and _result_only_read(ctx, call) and not _fresh_module(ctx, call)
                )
                or candidate.why == "read-only"
                or (
                    # A call after a switch to eval mode of another model, or of this one where the
                    # flow cannot tell (`model.eval()` inside the epoch loop): what decides is
                    # whether its output is only read, as for any call.
                    candidate.why == "eval-call"
                    and _result_only_read(ctx, call)
                    # in a script, an untrained model's demo before its training cell (as for "read-only")
                    and not _fresh_module(
                        ctx, call, so_far=not _may_be_evaluation_data(ctx, call) or _made_up_input(ctx, call)
                    )
                )
            ):
                self._report_read_only(ctx, call, scope, reported)
            elif candidate.why in ("eval-mode", "eval-data", "eval-call"):
                if candidate.tests_own:
                    continue  # a test of modules it builds, over an input that requires grad
                switch = _eval_call_before(unit, call) if candidate.why == "eval-call" else None
                if candidate.why == "eval-call" and not (
                    # `if cycle_gan: gen.eval()`, then `gen(x)` in the training loop: the switch of
                    # this model on some path, which the flow cannot tell from the other
                    switch is not None and dotted_name(switch.func.value) == dotted_name(_callee(call))  # type: ignore[attr-defined]
                ):
                    continue
                if (
                    candidate.why in ("eval-mode", "eval-call")
                    and _backpropagated(ctx, scope, call)
                    and _untrained_teacher(ctx, scope, call)
                ):
                    statement = _statement(ctx, call)
                    if statement is not None and id(statement) not in reported:
                        reported.add(id(statement))
                        callee = ctx.text(_callee(call))
                        ctx.report(
                            self.code,
                            call,
                            f"`{ctx.text(call.func)}(...)` runs with grad enabled "
                            f"{self._why(ctx, unit, candidate, function)}, and no optimizer of this step updates "
                            f"`{callee}`: the backward pass runs through it and fills gradients nothing uses, wasting "
                            f"memory and time; run it under `with torch.no_grad():` (its output then enters the loss "
                            f"as a constant, as a target should)",
                        )
                    continue
                if candidate.why == "eval-call":
                    continue  # only read: judged above; backpropagated: the training step's
                self._report_unused_output(
                    ctx,
                    call,
                    scope,
                    reported,
                    f"runs with grad enabled {self._why(ctx, unit, candidate, function)}, and its output is never "
                    f"backpropagated",
                )

    def _runs_another_model(self, ctx, unit: _Unit, function: ast.AST) -> bool:
        """Whether the function makes a model call besides its candidates (`new_actor(states)`
        beside `old_actor(states)`, detached): one whose graph what it returns may hold."""
        candidates = {id(c.call) for c in unit.model_calls}
        return any(
            isinstance(node, ast.Call) and id(node) not in candidates and self._is_model_call(ctx, node)
            for node in ctx.model.own_nodes(function)
        )

    def _report_read_only(self, ctx, call: ast.Call, scope: ast.AST, reported: set, returns_loss: bool = False) -> None:
        """Report a model call, in code that trains (``returns_loss``: in a function handing
        back a loss its callers backpropagate), whose output is only read or detached."""
        if returns_loss and _fed_detached_to_a_call(ctx, call, scope):
            return  # `fake = gen(noise)`, `disc(fake.detach())` in a discriminator's loss: an input, as inline
        message = _read_only_message(ctx, call)
        if (
            message is _DETACHED_MESSAGE
            and (returns_loss or _backpropagated(ctx, scope, ctx.parent(ctx.parent(call))))
            and _handed_to_a_model(ctx, scope, _statement(ctx, call))
        ):
            # `fake = G(z).detach()` for the discriminator's step: an input the step
            # trains on, not an evaluation (no graph is kept); not a target only a loss
            # takes (`target_q = target_net(s2).detach()`, `mse(q, target_q)`)
            return
        # only read (`analysis.read_only`, which follows `.detach()` and reads): no name
        # chain to a backward pass is asked for (`td_target = r + g * V(s2)`, then
        # `loss(td_target.detach(), V(s))`); not for a generator's output fed detached to
        # the model the step trains (`D(fake.detach())`), an input as above
        self._report_unused_output(
            ctx, call, scope, reported, message, only_read=not _fed_detached_to_a_call(ctx, call, scope)
        )

    def _report_unused_output(
        self, ctx, call: ast.Call, scope: ast.AST, reported: set, what: str, only_read: bool = False
    ) -> None:
        """Report a model call, in code that trains, whose output is never backpropagated
        (once per statement; ``only_read``: shown by ``analysis.read_only``, no chain of names
        to a backward pass asked for)."""
        if not only_read and (_backpropagated(ctx, scope, call) or _unfinished_gradient_step(ctx, scope, call)):
            return
        statement = _statement(ctx, call)
        if statement is None or id(statement) in reported:
            return
        reported.add(id(statement))
        ctx.report(
            self.code,
            call,
            f"`{ctx.text(call.func)}(...)` {what}: autograd records a graph for nothing, wasting memory and time; "
            f"run it under `with torch.no_grad():` (or `torch.inference_mode()`)",
        )

    @staticmethod
    def _why(ctx, unit: _Unit, candidate: _Candidate, function) -> str:
        eval_call = _eval_call_before(unit, candidate.call)
        if (
            eval_call is not None
            and not _switches_callee(eval_call, candidate.call)
            and candidate.why in ("eval-call", "read-only")
            and _result_only_read(ctx, candidate.call)
        ):
            # `ensemble_model.eval()` says nothing of `model(x)`: what it shows is its output only read
            return _ONLY_READ_WHY
        if eval_call is not None and eval_call.lineno <= candidate.call.lineno and candidate.why != "eval-data":
            return f"after `{ctx.text(eval_call)}` (line {eval_call.lineno})"
        if candidate.why == "loop":
            loop, loader = unit.loader_loops[candidate.loop_id]
            return f"in the loop over `{loader}` (line {loop.lineno})"
        if candidate.why in ("eval-mode", "eval-call") and unit.eval_call is not None:
            return f"after `{ctx.text(unit.eval_call)}` (line {unit.eval_call.lineno})"
        if candidate.why == "eval-mode":
            return f"with `{candidate.data}` in eval mode"
        if candidate.why == "eval-data":
            return f"on evaluation data `{candidate.data}`"
        if candidate.why == "read-only":
            return _ONLY_READ_WHY
        if candidate.why == "loaded":
            return f"on weights loaded from a file (line {candidate.data})"
        if unit.read_by_callers:
            return f"in `{function.name}`, whose callers only read its result"
        return f"in `{function.name}`, whose result carries no graph"

    @staticmethod
    def _outermost_loader_loop(ctx, unit: _Unit, loop: ast.AST) -> ast.AST:
        best = loop
        current = ctx.parent(loop)
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if _evaluation_loop(ctx, unit, id(current)):
                best = current
            current = ctx.parent(current)
        return best

    def _fix(self, ctx, function: Optional[ast.AST]) -> Optional[Fix]:
        torch_name = ctx.imports.torch_name
        if function is None or torch_name is None or not isinstance(function, ast.FunctionDef):
            return None
        if any("jit" in ctx.text(d) for d in function.decorator_list):
            return None
        if _turns_grad_on(ctx, function):
            return None  # `with torch.set_grad_enabled(True):` inside would undo the decorator
        src = ctx.source
        line_start = src.line_starts[function.lineno - 1]
        indent = src.indentation(function.lineno)
        if not src.line(function.lineno)[len(indent) :].startswith("def "):
            return None
        return Fix(
            Applicability.UNSAFE,
            f"Decorate `{function.name}` with `@{torch_name}.no_grad()`",
            (Edit(line_start, line_start, f"{indent}@{torch_name}.no_grad(){src.newline}"),),
        )
