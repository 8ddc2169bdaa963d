"""torch's names, in one place: what each torch function, method and class does to gradients.

Every rule and analysis reads these sets; none keeps a list of its own. Names are the last
component (``randn``, ``mul_``, ``CrossEntropyLoss``) unless a set says it holds qualified
names (``torch.no_grad``). Checked against torch 2.13.
"""

from __future__ import annotations

import ast
import re
from typing import Optional


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- grad mode ------------------------------------------------------------------------------
NO_GRAD_NAMES = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
INFERENCE_NAMES = frozenset(
    {"torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"}
)
ENABLE_NAMES = frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})
SET_ENABLED_NAMES = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
)
GRAD_MODE_NAMES = NO_GRAD_NAMES | INFERENCE_NAMES | ENABLE_NAMES | SET_ENABLED_NAMES
GRAD_OFF_NAMES = NO_GRAD_NAMES | INFERENCE_NAMES | SET_ENABLED_NAMES  # what can disable grad
# What `from torch.autograd import *` binds (its `__all__`).
AUTOGRAD_EXPORTS = _words(
    """Variable Function backward grad_mode NestedIOFunction detect_anomaly enable_grad grad gradcheck
    gradgradcheck inference_mode no_grad set_detect_anomaly set_grad_enabled variable"""
)
# Context managers of `torch.autograd` that leave the grad mode as it is: profilers, anomaly
# detection, saved-tensor hooks, forward-mode AD's level (their names say "grad", their code
# never sets the mode).
GRAD_MODE_KEEPING_NAMES = frozenset(
    {
        "torch.autograd.profiler.profile",
        "torch.autograd.profiler.record_function",
        "torch.autograd.profiler.emit_nvtx",
        "torch.autograd.profiler.emit_itt",
        "torch.autograd.detect_anomaly",
        "torch.autograd.set_detect_anomaly",
        "torch.autograd.anomaly_mode.detect_anomaly",
        "torch.autograd.anomaly_mode.set_detect_anomaly",
        "torch.autograd.graph.saved_tensors_hooks",
        "torch.autograd.graph.save_on_cpu",
        "torch.autograd.graph.disable_saved_tensors_hooks",
        "torch.autograd.forward_ad.dual_level",
    }
)

# -- autograd entry points ------------------------------------------------------------------
BACKWARD_FUNCTIONS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
# What a backward pass is called as spelt (`loss.backward()`, `autograd.grad(...)`): a quick
# test before the import map is asked (`ImportMap.may_name`).
BACKWARD_CALL_NAMES = frozenset({"backward", "grad"})
VARIABLE_NAMES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
PARAMETER_NAMES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# `torch.nn.init`'s fills under their old names, without `_`: deprecated wrappers of the fills
# (`xavier_normal` calls `xavier_normal_`), which run under `no_grad` like them.
DEPRECATED_INIT_FILLS = frozenset(
    f"torch.nn.init.{name}"
    for name in _words(
        "uniform normal constant eye dirac xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse"
    )
)
AUTOGRAD_FUNCTION_BASES = frozenset(
    {
        "torch.autograd.Function",
        "torch.autograd.function.Function",
        "torch.autograd.function.InplaceFunction",
        "torch.autograd.function._SingleLevelFunction",
    }
)
# torch's module class, and library classes derived from it that hold no parameters of their own and
# are made to be subclassed (torchkeras' `Model`, a Keras-style `fit`/`predict` on `nn.Module`, from
# the book "Eat PyTorch in 20 days").
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "torchkeras.Model"})

# -- tensor methods -------------------------------------------------------------------------
# In-place methods that write values (torch 2.13 ``Tensor`` methods ending in ``_``, without
# those that only change metadata or flags, listed below).
INPLACE_VALUE_METHODS = _words(
    """abs_ absolute_ acos_ acosh_ add_ addbmm_ addcdiv_ addcmul_ addmm_ addmv_ addr_ apply_ arccos_
    arccosh_ arcsin_ arcsinh_ arctan2_ arctan_ arctanh_ asin_ asinh_ atan2_ atan_ atanh_ baddbmm_
    bernoulli_ bitwise_and_ bitwise_left_shift_ bitwise_not_ bitwise_or_ bitwise_right_shift_
    bitwise_xor_ cauchy_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ copy_ copysign_ cos_
    cosh_ cumprod_ cumsum_ deg2rad_ digamma_ div_ divide_ eq_ erf_ erfc_ erfinv_ exp2_ exp_ expm1_
    exponential_ fill_ fill_diagonal_ fix_ float_power_ floor_ floor_divide_ fmod_ frac_ gcd_ ge_
    geometric_ greater_ greater_equal_ gt_ heaviside_ hypot_ i0_ igamma_ igammac_ index_add_
    index_copy_ index_fill_ index_put_ index_reduce_ lcm_ ldexp_ le_ lerp_ less_ less_equal_ lgamma_
    log10_ log1p_ log2_ log_ log_normal_ logical_and_ logical_not_ logical_or_ logical_xor_ logit_
    lt_ map2_ map_ masked_fill_ masked_scatter_ mul_ multiply_ mvlgamma_ nan_to_num_ ne_ neg_
    negative_ nextafter_ normal_ not_equal_ polygamma_ pow_ put_ rad2deg_ random_ reciprocal_ relu_
    remainder_ renorm_ round_ rsqrt_ scatter_ scatter_add_ scatter_reduce_ sgn_ sigmoid_ sign_ sin_
    sinc_ sinh_ sqrt_ square_ sub_ subtract_ tan_ tanh_ tril_ triu_ true_divide_ trunc_ uniform_
    xlogy_ zero_"""
)
# In-place methods that change only metadata or flags, not the values the original sees.
META_INPLACE_METHODS = _words(
    """as_strided_ detach_ requires_grad_ resize_ resize_as_ resize_as_sparse_ set_ share_memory_
    sparse_resize_ sparse_resize_and_clear_ squeeze_ swapaxes_ swapdims_ t_ transpose_
    unsqueeze_"""
)
# Packages of array frameworks and inference runtimes whose models autograd never records: a model
# in a file that imports one (a Flax module, a Keras model, an OpenVINO or ONNX Runtime network)
# is not known to be a torch module by its name.
OTHER_MODEL_FRAMEWORKS = frozenset(
    {"jax", "flax", "haiku", "equinox", "keras", "tensorflow.keras", "openvino", "onnxruntime", "tensorrt"}
)
# Context managers of meta-learning libraries that enter a functional copy of the module they are
# handed and a differentiable optimizer: `with higher.innerloop_ctx(net, opt) as (fnet, diffopt):`
# (`fnet(x)` runs `net`'s layers on fast weights that require grad).
FUNCTIONAL_MODULE_CONTEXTS = frozenset({"higher.innerloop_ctx"})
# Functions of those libraries handing back such a copy: `fmodel = higher.monkeypatch(net)`.
FUNCTIONAL_MODULE_COPIES = frozenset({"higher.monkeypatch"})
# Packages of machine-learning libraries that are not built on torch: what their functions and
# classes make (`fasttext.load_model(path)`, `xgboost.XGBClassifier()`,
# `tf.keras.models.load_model(path)`) is no torch module, whatever the name it is bound to
# (`model.predict(text)` records no graph).
NON_TORCH_MODEL_PACKAGES = (
    "fasttext.",
    "sklearn.",
    "xgboost.",
    "lightgbm.",
    "catboost.",
    "gensim.",
    "tensorflow.",
    "keras.",
    "jax.",
    "flax.",
)
# Packages wrapping a torch module in an estimator whose inference runs it without grad and hands
# back numpy arrays: skorch's `NeuralNetRegressor(module=Net).predict(X)` goes through its
# `evaluation_step`, under `torch.set_grad_enabled(False)`; a stable-baselines3 algorithm's
# `DQN(...).predict(obs)` goes through `BasePolicy.predict`, under `th.no_grad()`. What their
# classes make is no module.
GRAD_OFF_ESTIMATOR_PACKAGES = ("skorch.", "stable_baselines3.", "sb3_contrib.")
# torch.hub repositories whose models run without grad themselves (`torch.hub.load(
# "ultralytics/yolov5", "yolov5s")` is wrapped in AutoShape, whose forward is
# `@smart_inference_mode()`) and return detections, not tensors.
INFERENCE_HUB_REPOSITORIES = ("ultralytics/yolov5", "ultralytics/yolov3")
# Their models' names, also loaded from a local copy of the repository (`torch.hub.load(
# "yolov5-master/", "yolov5s", source="local")`).
INFERENCE_HUB_MODELS = ("yolov5", "yolov3")
# The helper packages of the book *Dive into Deep Learning* (`import d2lzh_pytorch as d2l`, `from
# d2l import torch as d2l`), whose chapters are copied into many learning repositories: its
# hand-written models over the weights they are handed (`linreg(X, w, b)`) and its losses.
TEACHING_PACKAGES = ("d2l.", "d2lzh_pytorch.", "d2lzh.")
TEACHING_MODELS = _words("linreg")
TEACHING_LOSSES = _words("squared_loss")
# Their accumulators, which sum what they are handed as Python floats (`metric[0] / metric[1]`).
TEACHING_ACCUMULATORS = _words("Accumulator")
# Model classes of the ultralytics package: calling one, or its `predict`, runs under
# `smart_inference_mode()` and returns results, not tensors with a graph; `train()` runs its own
# trainer (`from ultralytics import YOLO; model = YOLO("best.pt"); model.predict(img)`).
INFERENCE_MODEL_CLASSES = _words("YOLO YOLOE YOLOWorld RTDETR SAM FastSAM NAS")
# Test doubles: what `Mock(spec=BertForMaskedLM)` makes answers calls with what the test set,
# and runs no network.
MOCK_CONSTRUCTORS = frozenset(
    f"{package}.{name}"
    for package in ("unittest.mock", "mock")
    for name in ("Mock", "MagicMock", "NonCallableMock", "NonCallableMagicMock", "AsyncMock", "create_autospec")
)
# Library models that run their networks under `torch.no_grad()` themselves and hand back
# detections, not tensors with a graph: facenet-pytorch's `MTCNN` (its `detect`, which its
# `forward` calls, wraps `detect_face` in `no_grad`).
GRAD_OFF_MODELS = frozenset({"facenet_pytorch.MTCNN", "facenet_pytorch.models.mtcnn.MTCNN"})
# The parameters torch's recurrent layers (`nn.LSTM`, `nn.GRUCell`, ...) hold under their own
# names: `weight_ih_l0`, `bias_hh_l1_reverse`, `weight_ih` of a cell.
RNN_PARAMETER_RE = re.compile(r"^(?:weight|bias)_(?:ih|hh)(?:_l\d+(?:_reverse)?)?$")
# The start of such a name in a template (`"weight_ih_l{}".format(l)`, `f"bias_hh_l{l}"`).
RNN_PARAMETER_TEMPLATE_RE = re.compile(r"^(?:weight|bias)_(?:ih|hh)(?:_l|$)")
# Methods of Hugging Face `transformers` models that run (part of) the model, with grad as the
# caller leaves it: `clip.get_text_features(**inputs)`, `clip.get_image_features(pixel_values)`.
TRANSFORMERS_RUNNING_METHODS = _words("get_text_features get_image_features get_audio_features get_video_features")
INFERENCE_MODEL_PACKAGE = "ultralytics."
# torchvision functions handing back a module that runs the one they are given, with its
# parameters and mode: a feature extractor of a trained model is that model.
MODULE_VIEWS = frozenset(
    {
        "torchvision.models.feature_extraction.create_feature_extractor",
        "torchvision.models._utils.IntermediateLayerGetter",
    }
)
# Explainers that run their own forward and backward pass through the model they are handed:
# torchcam's and pytorch-grad-cam's gradient-based CAMs (not `CAM`, `ScoreCAM`, `EigenCAM`,
# `AblationCAM`, which need no gradient), pytorch-grad-cam's guided backpropagation, and Captum's
# attributions other than its perturbation methods. A model output handed to one is
# backpropagated; code calling one uses gradients.
EXPLAINER_PACKAGES = ("torchcam.", "pytorch_grad_cam.", "captum.attr.")
_GRADIENT_CAMS = _words(
    "GradCAM GradCAMpp SmoothGradCAMpp XGradCAM LayerCAM HiResCAM GradCAMElementWise GradCAMPlusPlus "
    "EigenGradCAM FullGrad GuidedBackpropReLUModel"
)
_CAPTUM_PERTURBATION = _words(
    "Occlusion FeatureAblation FeaturePermutation ShapleyValueSampling ShapleyValues Lime LimeBase KernelShap "
    "LayerFeatureAblation LayerFeaturePermutation NeuronFeatureAblation"
)
# Adversarial attacks called on a batch (`atk = torchattacks.FGSM(model, eps=8 / 255)`, then
# `adv = atk(images, labels)`; foolbox's `attack(fmodel, images, labels, epsilons=...)`): each
# differentiates the model's loss with respect to the images, under the grad mode it is called in
# (torchattacks' query-based black-box attacks need no gradient).
ATTACK_PACKAGES = ("torchattacks.", "foolbox.attacks.")
_QUERY_ATTACKS = _words("Square OnePixel Pixle SPSA")
BACKPROPAGATING_TOOL_PACKAGES = EXPLAINER_PACKAGES + ATTACK_PACKAGES


def backpropagating_tool(qualified: str) -> bool:
    """Whether a qualified class name is a tool that backpropagates through the model it is handed:
    a gradient-based explainer (``torchcam.methods.SmoothGradCAMpp``, ``pytorch_grad_cam.GradCAM``,
    ``captum.attr.Saliency``) or a gradient-based adversarial attack (``torchattacks.PGD``,
    ``foolbox.attacks.LinfPGD``)."""
    if not qualified.startswith(BACKPROPAGATING_TOOL_PACKAGES):
        return False
    last = qualified.rsplit(".", 1)[-1]
    if qualified.startswith(("captum.", *ATTACK_PACKAGES)):
        return last[:1].isupper() and last not in _CAPTUM_PERTURBATION and last not in _QUERY_ATTACKS
    return last in _GRADIENT_CAMS


# Submodules of torchvision's models, by the attribute names torchvision gives them
# (`alexnet.features[0]`, `resnet.layer4`, `vgg.classifier`).
TORCHVISION_SUBMODULES = _words(
    "features classifier avgpool fc layer1 layer2 layer3 layer4 conv1 bn1 maxpool backbone head heads "
    "encoder decoder roi_heads rpn"
)

# Libraries whose calls never make a tensor of torch's or a module (prefixes of qualified names):
# `cmp_model = iaa.arithmetic.JpegCompression(70)` is an image augmenter, `clf = SVC()` sklearn's.
PLAIN_VALUE_LIBRARIES = (
    "numpy.",
    "pandas.",
    "math.",
    "random.",
    "imgaug.",
    "albumentations.",
    "cv2.",
    "PIL.",
    "sklearn.",
    "scipy.",
    "skimage.",
    "matplotlib.",
    "joblib.",  # `joblib.load(path)`: what scikit-learn pipelines dump
)

# Modules of machine-learning libraries not built on torch whose classes are estimators with
# `predict` (`from sklearn.ensemble import RandomForestClassifier`, `from xgboost import
# XGBClassifier`): in a file importing one, a model known by its name alone may be one of them.
NON_TORCH_ESTIMATOR_MODULES = frozenset(
    {
        "sklearn.ensemble",
        "sklearn.linear_model",
        "sklearn.svm",
        "sklearn.tree",
        "sklearn.neighbors",
        "sklearn.naive_bayes",
        "sklearn.neural_network",
        "sklearn.gaussian_process",
        "sklearn.discriminant_analysis",
        "xgboost",
        "lightgbm",
        "catboost",
    }
)
# The methods by which such an estimator is applied to data.
ESTIMATOR_METHODS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function"})
# Methods of scikit-learn's estimator API that no torch module has: a value a scope calls one of
# them on (`model.decision_function(X)`) is an estimator there, whatever its name.
ESTIMATOR_ONLY_METHODS = frozenset({"decision_function", "score_samples", "get_params", "set_params", "partial_fit"})

# Methods only tensors have (among the names user code calls on values).
TENSOR_ONLY_METHODS = INPLACE_VALUE_METHODS | {
    "cpu",
    "cuda",
    "numpy",
    "clone",
    "detach",
    "detach_",
    "backward",
    "requires_grad_",
    "item",
    "tolist",
    "register_hook",
    "retain_grad",
}
# Methods that only tensors have (not arrays, modules, lists or data frames) and that give a
# tensor: called on something unknown, they show it was a tensor.
TENSOR_RESULT_METHODS = _words("contiguous detach permute unsqueeze expand narrow index_select")
# Tensor methods whose argument must be a tensor too (``ys.type_as(src.data)``).
TENSOR_ARGUMENT_METHODS = frozenset({"type_as", "expand_as", "view_as", "reshape_as"})
# Tensor methods whose arguments are operands of arithmetic (`a.mul(b)`): what they return is
# computed from those arguments, with their graphs. Other methods' arguments are sizes, indices
# or settings (`action.expand(batch_size, 1)`), or belong to objects other than tensors
# (`replay_buffer.sample(batch_size)`).
OPERAND_METHODS = _words(
    """add sub mul div true_divide matmul mm bmm pow dot mv addmm lerp minimum maximum where
    add_ sub_ mul_ div_ pow_ masked_fill expand_as type_as"""
)
# The public attributes of `torch.Tensor` (torch 2.13's `dir(torch.Tensor)`, without the names
# that start with `_`): a method a tensor lacks (`loss.get_loss()` of a loss wrapper the code
# calls `loss`) shows its receiver is something else.
TENSOR_ATTRIBUTE_NAMES = _words(
    """
    H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax
    amin aminmax angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh
    arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere
    as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2
    atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount
    bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_
    bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm
    bool broadcast_to byte cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char cholesky
    cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_
    clip clip_ clone coalesce col_indices conj conj_physical conj_physical_ const_data_ptr
    contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_ count_nonzero cov cpu cross
    crow_indices cuda cummax cummin cumprod cumprod_ cumsum cumsum_ data data_ptr deg2rad
    deg2rad_ dense_dim dequantize det detach detach_ device diag diag_embed diagflat diagonal
    diagonal_scatter diff digamma digamma_ dim dim_order dist div div_ divide divide_ dot double
    dsplit dtype eig element_size eq eq_ equal erf erf_ erfc erfc_ erfinv erfinv_ exp exp2 exp2_
    exp_ expand expand_as expm1 expm1_ exponential_ fill_ fill_diagonal_ fix fix_ flatten flip
    fliplr flipud float float_power float_power_ floor floor_ floor_divide floor_divide_ fmax
    fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge ge_ geometric_ geqrf ger get_device grad
    grad_dtype grad_fn greater greater_ greater_equal greater_equal_ gt gt_ half hardshrink
    hash_tensor heaviside heaviside_ histc histogram hsplit hypot hypot_ i0 i0_ igamma igamma_
    igammac igammac_ imag index index_add index_add_ index_copy index_copy_ index_fill
    index_fill_ index_put index_put_ index_reduce index_reduce_ index_select indices inner int
    int_repr inverse ipu is_coalesced is_complex is_conj is_contiguous is_cpu is_cuda
    is_distributed is_floating_point is_inference is_ipu is_leaf is_maia is_meta is_mkldnn
    is_mps is_mtia is_neg is_nested is_nonzero is_pinned is_quantized is_same_size is_set_to
    is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xla is_xpu isclose isfinite isinf
    isnan isneginf isposinf isreal istft item itemsize kron kthvalue layout lcm lcm_ ldexp
    ldexp_ le le_ lerp lerp_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_
    log1p log1p_ log2 log2_ log_ log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp
    logdet logical_and logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor
    logical_xor_ logit logit_ logsumexp long lstsq lt lt_ lu lu_solve mH mT map2_ map_
    masked_fill masked_fill_ masked_scatter masked_scatter_ masked_select matmul matrix_exp
    matrix_power max maximum mean median min minimum mm mode module_load moveaxis movedim msort
    mtia mul mul_ multinomial multiply multiply_ mv mvlgamma mvlgamma_ name nan_to_num
    nan_to_num_ nanmean nanmedian nanquantile nansum narrow narrow_copy nbytes ndim ndimension
    ne ne_ neg neg_ negative negative_ nelement new new_empty new_empty_strided new_full
    new_ones new_tensor new_zeros nextafter nextafter_ nonzero nonzero_static norm normal_
    not_equal not_equal_ numel numpy orgqr ormqr outer output_nr permute pin_memory pinverse
    polygamma polygamma_ positive pow pow_ prelu prod put put_ q_per_channel_axis
    q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile
    rad2deg rad2deg_ random_ ravel real reciprocal reciprocal_ record_stream register_hook
    register_post_accumulate_grad_hook reinforce relu relu_ remainder remainder_ renorm renorm_
    repeat repeat_interleave requires_grad requires_grad_ reshape reshape_as resize resize_
    resize_as resize_as_ resize_as_sparse_ resolve_conj resolve_neg retain_grad retains_grad
    roll rot90 round round_ row_indices rsqrt rsqrt_ scatter scatter_ scatter_add scatter_add_
    scatter_reduce scatter_reduce_ select select_scatter set_ sgn sgn_ shape share_memory_ short
    sigmoid sigmoid_ sign sign_ signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse
    slice_scatter slogdet smm softmax solve sort sparse_dim sparse_mask sparse_resize_
    sparse_resize_and_clear_ split split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_
    sspaddmm std stft storage storage_offset storage_type stride sub sub_ subtract subtract_ sum
    sum_to_size svd swapaxes swapaxes_ swapdims swapdims_ symeig t t_ take take_along_dim tan
    tan_ tanh tanh_ tensor_split tile to to_dense to_mkldnn to_padded_tensor to_sparse
    to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr tolist topk trace
    transpose transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_ trunc
    trunc_ type type_as unbind unflatten unfold uniform_ unique unique_consecutive unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_ untyped_storage values var vdot
    view view_as volatile vsplit where xlogy xlogy_ xpu zero_"""
)
# torch functions whose first argument must be a tensor (``torch.mean(source, 0)``; numpy
# arrays, lists and numbers are refused), besides every ``torch.nn.functional`` function.
TENSOR_ONLY_FUNCTIONS = _words(
    """mean sum max min argmax argmin amax amin softmax log_softmax sigmoid tanh relu exp log log1p
    sqrt rsqrt abs clamp clip flatten squeeze unsqueeze reshape transpose permute matmul mm bmm norm
    std var topk sort argsort cumsum prod sign floor ceil round diag numel masked_fill gather
    index_select narrow chunk split unbind flip roll logsumexp t mv dot outer unique unique_consecutive
    bincount nonzero count_nonzero isnan isinf isfinite"""
)
# torch's products of two tensors: each positional argument must be a tensor (``torch.mv(w, u)``
# refuses a numpy array in either place).
TENSOR_PAIR_FUNCTIONS = _words("mm mv bmm matmul dot outer")
# torchvision's functions whose first argument is a tensor or a list of tensors
# (``save_image(fake.data, path)``): what has a ``.data`` there is a tensor.
TENSOR_TAKING_TORCHVISION_FUNCTIONS = frozenset(
    {"torchvision.utils.save_image", "torchvision.utils.make_grid", "torchvision.utils.draw_bounding_boxes"}
)
# Keywords of torch's reductions and shape methods that name dimensions by number (``dim=1``;
# numpy says ``axis=``, xarray names dimensions by string).
DIMENSION_KEYWORDS = frozenset({"dim", "keepdim"})
# Attributes only tensors have.
TENSOR_ONLY_ATTRIBUTES = frozenset({"grad", "requires_grad", "grad_fn", "is_leaf", "data"})
# Methods and attributes whose result may share memory with the tensor (views, the tensor itself).
ALIAS_METHODS = _words(
    """view view_as reshape reshape_as flatten unflatten squeeze unsqueeze permute transpose t expand
    expand_as narrow select unbind split chunk tensor_split contiguous cpu cuda to float double half
    bfloat16 type type_as long int bool byte char short as_strided diagonal movedim moveaxis
    swapaxes swapdims unfold view_as_real view_as_complex detach data squeeze_ unsqueeze_
    requires_grad_ pin_memory share_memory_ coalesce to_dense resolve_conj resolve_neg conj positive
    adjoint ravel hsplit vsplit dsplit split_with_sizes unsafe_split unsafe_chunk as_subclass indices
    values crow_indices col_indices align_to align_as rename refine_names broadcast_to"""
)
ALIAS_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
# Attributes that only read a tensor's metadata.
# List methods that add what they are handed to the list (`outputs.append(out)`).
LIST_ADDING_METHODS = _words("append extend insert")
READ_ATTRIBUTES = _words(
    """shape dtype device is_cuda ndim requires_grad is_leaf layout nbytes itemsize is_sparse
    is_quantized is_meta grad_fn placements device_mesh names is_nested is_mps is_xpu is_mkldnn
    is_sparse_csr"""
)
# Methods and torch functions whose result still carries the graph of their (tensor) inputs.
GRAD_PRESERVING = _words(
    """abs absolute acos add addmm arccos arcsin arctan asin atan baddbmm bmm cat chunk clamp clamp_max
    clamp_min clip clone contiguous cos cosh cpu cuda cumsum cumprod diag diagonal div divide double
    einsum exp expand expand_as expm1 flatten flip float gather half bfloat16 index_select log log10
    log1p log2 log_softmax logsumexp masked_fill matmul max mean min mm mul multiply narrow neg norm
    permute pow prod relu repeat reshape roll rsqrt select sigmoid sin sinh softmax split sqrt square
    squeeze stack std sub subtract sum t tanh tile to transpose tril triu unbind unflatten unsqueeze
    var view view_as where nan_to_num gelu silu dropout linear conv1d conv2d conv3d normalize
    cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy
    binary_cross_entropy_with_logits kl_div cosine_similarity pairwise_distance type_as
    real imag amax amin topk sort leaky_relu elu selu softplus hardtanh glu logsigmoid tan atan2
    minimum maximum concat concatenate hstack vstack dot mv outer bilinear embedding pad interpolate
    max_pool1d max_pool2d avg_pool1d avg_pool2d adaptive_avg_pool2d batch_norm layer_norm group_norm
    instance_norm one_hot_like sum_to_size masked_select take repeat_interleave movedim moveaxis
    swapaxes swapdims squeeze_ unsqueeze_ reshape_as expand_as broadcast_to abs_ logit erf erfinv
    sinc reciprocal square_ sqrt_ neg_ exp_ mul_ add_ sub_ div_ clamp_ pow_"""
)
# Methods and torch functions whose result never carries a graph: integer or boolean results,
# plain Python values, copies out of autograd.
GRAD_DROPPING = _words(
    """detach detach_ item tolist numpy argmax argmin argsort eq ne lt le gt ge long int bool
    isnan isinf isfinite nonzero size dim numel shape dtype device data sign round floor ceil
    requires_grad_ count_nonzero bincount unique histc is_floating_point is_complex element_size
    stride data_ptr nelement is_contiguous equal allclose any all byte char short multinomial
    searchsorted bucketize"""
)
# What the semantic model calls a `torch.distributions` object built from tensors (its `ref`).
DISTRIBUTION = "torch.distributions"
# Methods of torch.distributions that draw under `no_grad` (tensors have none of that name): what a
# model's output that is a distribution hands back from them holds no graph (``rsample`` does).
SAMPLING_METHODS = frozenset({"sample", "sample_n"})
# Attributes and methods after which a tensor's value holds no graph (``p.data``,
# ``out.detach()``, ``loss.item()``): a value bound from one carries none of it further.
GRAPH_ENDING_METHODS = frozenset({"detach", "numpy", "item", "tolist"})
GRAPH_ENDING_STEPS = GRAPH_ENDING_METHODS | {"data"}
# Methods returning (values, indices) whatever their arguments: the indices carry no graph.
VALUES_AND_INDICES_METHODS = frozenset({"topk", "sort", "kthvalue", "cummax", "cummin", "mode"})
# Methods returning (values, indices) when given a dimension (`x.max(1)`; `x.max()` is a value).
VALUES_AND_INDICES_ALONG_A_DIMENSION = frozenset({"max", "min", "median"})


def returns_values_and_indices(method: str, given: int) -> bool:
    """Whether a tensor's method (or torch's function of that name, counting the tensor among the
    ``given`` arguments one fewer) returns a (values, indices) pair: ``out.topk(5)``,
    ``out.max(1)``; the indices carry no graph."""
    return method in VALUES_AND_INDICES_METHODS or (method in VALUES_AND_INDICES_ALONG_A_DIMENSION and given > 0)


# Integer and boolean dtypes: a tensor of one never requires grad (`x.to(torch.uint8)`).
INTEGER_DTYPES = frozenset(
    "torch." + name for name in "uint8 uint16 uint32 uint64 int8 int16 int32 int64 short int long bool".split()
)
# Results that are plain Python values (not tensors).
PYTHON_VALUE_METHODS = frozenset(
    {"item", "tolist", "size", "dim", "numel", "nelement", "element_size", "stride", "data_ptr", "is_contiguous"}
)
# Comparisons of a tensor's values: their result holds booleans, which carry no graph.
VALUE_COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# Reductions: a tensor reduced over every dimension is 0-dim (``loss.sum()``, ``x.mean()``).
FULL_REDUCTIONS = frozenset({"sum", "mean", "prod", "norm", "max", "min", "std", "var", "amax", "amin", "logsumexp"})
# torch functions of two vectors whose result is 0-dim: `torch.dot(diff, diff)`.
SCALAR_PRODUCTS = frozenset({"dot", "vdot"})
# Element-wise torch functions of one tensor: the result has its input's shape (a 0-dim
# input gives a 0-dim result: `torch.abs(diff)` of a mean).
ELEMENTWISE_UNARY = _words(
    """abs absolute neg negative exp expm1 log log10 log1p log2 sqrt rsqrt square sigmoid tanh sin cos
    tan relu clamp clamp_min clamp_max clip sign floor ceil round trunc frac reciprocal"""
)
# Element-wise torch functions of two operands (`torch.div(loss, n)`): 0-dim where both are
# 0-dim tensors or numbers.
ELEMENTWISE_BINARY = _words("add sub subtract mul multiply div divide true_divide pow")
# What a dataset class's text shows it builds its items with: tensors (`from_numpy(...)`,
# `torch.tensor(...)`, a `transform` such as `ToTensor`).
TENSOR_MAKING_RE = re.compile(r"\b(?:torch\.\w+|from_numpy|tensor|\w*Tensor|transforms?\w*)\s*\(|\btransform\b")
# Methods a Python number lacks and a tensor has: code calling one on a function's result reads
# that result as a tensor (`meta_loss.item()`, `evaluate_loss(...).detach()`).
TENSOR_READING_METHODS = _words("item detach cpu cuda numpy tolist backward clone")
# Builtins whose argument is only read.
# What code that reads a tensor's values (a model's output) shows in its text.
VALUE_READ_HINTS = (
    ".data",
    ".item()",
    ".tolist()",
    ".numpy()",
    "print(",
    ".argmax(",
    ".detach().",
    "save_image(",  # samples saved or drawn: `vutils.save_image(fake.detach(), ...)`
    "imshow(",
    "matshow(",
    "add_image(",
    "allclose(",  # outputs compared: `assert torch.allclose(mlp(x), reference)`
    "multinomial(",  # a token sampled from the output: `torch.multinomial(probs, 1)`
    "ToPILImage()(",  # turned into an image: `transforms.ToPILImage()(sr(x).squeeze(0))`
    "to_pil_image(",
    "model_view(",  # attention maps drawn by bertviz: `model_view(attention, tokens)`
    "head_view(",
)
READING_BUILTINS = frozenset(
    {"print", "str", "repr", "format", "len", "float", "int", "bool", "isinstance", "hash", "id", "type", "complex"}
)
# torch functions that read their tensor arguments and return new tensors or plain values.
READING_TORCH_FUNCTIONS = _words(
    """cat concat concatenate stack hstack vstack sum mean norm max min amax amin allclose equal
    isclose eq ne lt le gt ge abs dist matmul mm mv bmm dot outer add sub mul div pow sqrt exp log clone
    argmax argmin topk sort var std median prod cumsum any all isnan isinf isfinite nonzero where
    count_nonzero save numel is_tensor is_floating_point sign maximum minimum zeros_like ones_like
    empty_like full_like rand_like randn_like randint_like unique unique_consecutive bincount
    gather index_select masked_select take_along_dim searchsorted bucketize cdist"""
)
# Attributes that hold tensors on every torch module that has them.
MODULE_TENSOR_ATTRIBUTES = frozenset({"running_mean", "running_var", "weight", "bias"})

# -- torch functions ------------------------------------------------------------------------
# torch functions that create a new tensor; it requires grad only when asked to.
FACTORIES = _words(
    """zeros ones empty full rand randn randint randperm arange linspace logspace eye from_numpy
    tensor as_tensor zeros_like ones_like empty_like full_like rand_like randn_like randint_like
    normal bernoulli multinomial tril_indices triu_indices empty_strided"""
)
# Of those, the samplers that record a graph of tensor arguments requiring grad (their gradients
# are zeros, but the graph is kept): `torch.normal(mean, std)` of a policy's output (torch 2.13:
# `torch.normal(m, s).grad_fn` is `NormalBackward3`); `multinomial` hands back indices, no graph.
GRAPH_KEEPING_SAMPLERS = _words("normal bernoulli poisson")
# Of those, the factories whose result never carries a graph, whatever they are given
# (`torch.full_like(logits, eps)` reads a shape; `torch.as_tensor(t)` hands a tensor back as it is).
GRAPH_FREE_FACTORIES = FACTORIES - GRAPH_KEEPING_SAMPLERS - {"as_tensor"}
# Hooks of a LightningModule that the trainer runs in its evaluation loops, without grad, by
# name and by prefix.
LIGHTNING_EVALUATION_HOOKS = _words("validation_step test_step predict_step validation_epoch_end test_epoch_end")
LIGHTNING_EVALUATION_HOOK_PREFIXES = ("on_validation", "on_test", "on_predict")
# Methods of a Catalyst runner that Catalyst runs without grad (`runner.predict_loader(...)`).
CATALYST_EVALUATION_HOOKS = _words("predict_batch")
# Factories that make a tensor from a shape alone: an input made by one is a dummy.
SHAPE_FACTORIES = _words("zeros ones empty full rand randn")
LEGACY_TENSOR_TYPES = _words(
    """FloatTensor LongTensor DoubleTensor IntTensor ByteTensor BoolTensor HalfTensor Tensor
    ShortTensor CharTensor BFloat16Tensor"""
)
# Top-level ``torch.*`` callables that return something other than a tensor.
# torch functions whose result is an integer or boolean tensor, which can hold no graph
# (`torch.argmax(model(x), -1)`: the indices carry nothing of the output's graph).
INDEX_RESULTS = _words(
    """argmax argmin argsort eq ne lt le gt ge greater less equal isnan isinf isfinite nonzero
    count_nonzero bincount multinomial searchsorted bucketize"""
)
TORCH_NON_TENSOR = _words(
    """no_grad enable_grad inference_mode set_grad_enabled is_grad_enabled is_inference_mode_enabled
    device dtype Size manual_seed seed initial_seed load save is_tensor is_storage
    is_floating_point is_complex is_nonzero numel get_default_dtype set_default_dtype
    set_default_device set_num_threads get_num_threads set_num_interop_threads compile finfo iinfo
    Generator set_printoptions use_deterministic_algorithms are_deterministic_algorithms_enabled
    get_rng_state set_rng_state typename is_autocast_enabled autocast set_float32_matmul_precision
    get_float32_matmul_precision broadcast_shapes result_type can_cast promote_types
    set_anomaly_enabled is_anomaly_enabled vmap cond _Reduction has_torch_function
    handle_torch_function get_device equal allclose"""
)
# Functions outside torch's tensor namespaces that return one tensor made from their tensor
# arguments, with their graph (``make_grid`` stacks the images it is given).
TENSOR_FUNCTIONS = frozenset({"torch.nn.utils.rnn.pad_sequence", "torchvision.utils.make_grid"})
# Namespaces whose functions return tensors.
TENSOR_NAMESPACES = ("torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.")
# Functional losses (``F.cross_entropy``) and loss modules (``nn.CrossEntropyLoss``).
LOSS_FUNCTIONS = _words(
    """cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy
    binary_cross_entropy_with_logits kl_div margin_ranking_loss hinge_embedding_loss
    multilabel_margin_loss soft_margin_loss multilabel_soft_margin_loss cosine_embedding_loss
    multi_margin_loss triplet_margin_loss poisson_nll_loss gaussian_nll_loss ctc_loss"""
)
LOSS_MODULES = _words(
    """L1Loss MSELoss CrossEntropyLoss CTCLoss NLLLoss PoissonNLLLoss GaussianNLLLoss KLDivLoss BCELoss
    BCEWithLogitsLoss MarginRankingLoss HingeEmbeddingLoss MultiLabelMarginLoss HuberLoss SmoothL1Loss
    SoftMarginLoss MultiLabelSoftMarginLoss CosineEmbeddingLoss MultiMarginLoss TripletMarginLoss
    TripletMarginWithDistanceLoss NLLLoss2d"""
)
# torch.nn modules without parameters: calling one records no graph of its own.
PARAMETERLESS_MODULES = (
    _words(
        """ReLU ReLU6 LeakyReLU ELU SELU CELU GELU SiLU Mish Sigmoid Tanh Softmax LogSoftmax Softmin
    Softplus Softsign Hardtanh Hardsigmoid Hardswish Hardshrink Softshrink Tanhshrink Threshold
    LogSigmoid GLU Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout MaxPool1d
    MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d
    AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d LPPool1d LPPool2d
    Flatten Unflatten Identity Upsample UpsamplingNearest2d UpsamplingBilinear2d PixelShuffle
    PixelUnshuffle ZeroPad2d ConstantPad1d ConstantPad2d ConstantPad3d ReflectionPad1d
    ReflectionPad2d ReplicationPad1d ReplicationPad2d CosineSimilarity PairwiseDistance
    ChannelShuffle Fold Unfold"""
    )
    | LOSS_MODULES
)
# torch.nn activations whose forward is one autograd operation: a legacy backward hook on one
# sees the module's own input and output gradients.
SINGLE_OPERATION_MODULES = _words(
    """ReLU ReLU6 LeakyReLU ELU SELU CELU GELU SiLU Sigmoid Tanh Softplus Softsign Hardtanh
    Hardsigmoid Hardswish Threshold LogSigmoid"""
)
# Layers whose behaviour differs between ``train()`` and ``eval()``.
DROPOUT_MODULES = _words("Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout")
BATCHNORM_MODULES = _words(
    """BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm LazyBatchNorm1d LazyBatchNorm2d
    LazyBatchNorm3d"""
)
TRAIN_MODE_MODULES = DROPOUT_MODULES | BATCHNORM_MODULES
# The dropout and batch-norm layers torchvision's classification models build, by constructor
# (`torchvision.models.resnet18(...)` holds `BatchNorm2d`; `vgg16` its classifier's `Dropout`).
_TORCHVISION_MODEL_LAYERS = (
    (re.compile(r"(?:resnet|resnext|wide_resnet)\d"), frozenset({"BatchNorm2d"})),
    (re.compile(r"vgg\d+_bn$"), frozenset({"BatchNorm2d", "Dropout"})),
    (re.compile(r"vgg\d+$|alexnet$|squeezenet"), frozenset({"Dropout"})),
    (re.compile(r"densenet\d|shufflenet_v2|regnet_"), frozenset({"BatchNorm2d"})),
    (
        re.compile(r"mobilenet_v[23]|efficientnet_|inception_v3$|googlenet$|mnasnet"),
        frozenset({"BatchNorm2d", "Dropout"}),
    ),
)
# torchvision's classification model classes, built directly (`torchvision.models.VGG(layers,
# num_classes=10)`) rather than by their builders (`vgg16()`): modules, in training mode, with
# the layers their builders' models hold (a `VGG`'s batch norm comes with the `features` it is
# handed, its classifier's dropout always).
_TORCHVISION_MODEL_CLASS_LAYERS = {
    **dict.fromkeys(("VGG", "AlexNet", "SqueezeNet"), frozenset({"Dropout"})),
    **dict.fromkeys(("ResNet", "DenseNet", "ShuffleNetV2", "RegNet"), frozenset({"BatchNorm2d"})),
    **dict.fromkeys(
        ("MobileNetV2", "MobileNetV3", "EfficientNet", "Inception3", "GoogLeNet", "MNASNet"),
        frozenset({"BatchNorm2d", "Dropout"}),
    ),
}
TORCHVISION_MODEL_CLASSES = frozenset(_TORCHVISION_MODEL_CLASS_LAYERS)


def torchvision_model_layers(constructor: str) -> Optional[frozenset]:
    """The dropout and batch-norm layers a torchvision classification model's constructor
    (``resnet18``, ``vgg16_bn``, ``efficientnet_b0``, or a model class: ``VGG``) builds, or None
    for one not listed."""
    if constructor in _TORCHVISION_MODEL_CLASS_LAYERS:
        return _TORCHVISION_MODEL_CLASS_LAYERS[constructor]
    for pattern, layers in _TORCHVISION_MODEL_LAYERS:
        if pattern.match(constructor):
            return layers
    return None


def torchvision_backbone_layers(constructor: str) -> frozenset:
    """The batch-norm layers of a torchvision classification model (``resnet50``), which any
    part of it a module keeps holds (``nn.Sequential(*list(resnet.children())[:-3])``); not its
    dropout, which sits in the classifier such a part often leaves out."""
    return (torchvision_model_layers(constructor) or frozenset()) & BATCHNORM_MODULES


# Signal transforms that are modules keeping buffers (windows, filter banks), no parameters:
# torchaudio's features (`MelSpectrogram`, `AmplitudeToDB`, `MFCC`) and kymatio's scattering
# transforms (`Scattering1D`, `Scattering2D`, `HarmonicScattering3D`, fixed wavelet filters).
SIGNAL_TRANSFORMS = ("torchaudio.transforms.", "kymatio.")
# A module switched to eval mode in the text: `.eval()`, `.train(False)`, `.train(mode=False)`.
SWITCHES_TO_EVAL_RE = re.compile(r"\.eval\(\s*\)|\.train\(\s*(?:mode\s*=\s*)?False\s*\)")


# Containers of modules.
MODULE_CONTAINERS = _words("Sequential ModuleList ModuleDict ParameterList ParameterDict")
# Layers whose one parameter is `weight`: freezing it freezes the layer (pretrained word vectors).
WEIGHT_ONLY_MODULES = _words("Embedding EmbeddingBag")
# Methods of a module that return the module itself (or a module).
MODULE_RETURNING_METHODS = _words(
    """to cuda cpu eval train float half double bfloat16 requires_grad_ type xpu mps share_memory
    to_empty apply"""
)
# Of those, the ones that move or cast the module and keep its mode (`model.to(device).eval()`
# switches `model`).
MODULE_MOVES = _words("to cuda cpu float double half bfloat16 type")
# Methods of a module that return its parameters.
PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
# Methods whose call never runs a model's forward: a module's own methods, a tensor's, and
# those of Python's containers, strings, files and loggers (``model.parameters()``,
# ``loss.backward()``, ``outputs.append(y)``, ``log.info(...)``). Names that also name layers
# (``norm``, ``linear``, ``embedding``, ``dropout``, ``relu``) are left out.
# `self.name(` in a method's text: a call of one of the instance's layers or methods.
# Methods named for running a model (`policy.act(state)`, `net.encode(seq)`, `model.generate(z)`).
RUNNING_METHOD_RE = re.compile(
    r"(?:act|predict\w*|encode\w*|decode\w*|generate\w*|sample\w*|translate\w*|infer\w*|inference|forward_\w+"
    r"|embed\w*|classify|greedy\w*|beam\w*|evaluate|detect\w*|reconstruct\w*|denoise\w*|transcribe|caption\w*"
    r"|cond_sample|q_?values?|qvals)$"
)
# A name for a reinforcement-learning environment (`env`, `self.envs`, `train_env`, `game`):
# its `step(action)` and `reset()` are the environment's, not an optimizer's or a gradient reset.
ENVIRONMENT_NAME_RE = re.compile(r"(?:^|_)(?:envs?|environment|environments|game|simulator)(?:$|_)", re.I)


def names_an_environment(receiver: ast.AST) -> bool:
    """Whether a receiver is named for an environment (``env``, ``self.train_env``, ``envs[i]``)."""
    while isinstance(receiver, ast.Subscript):
        receiver = receiver.value
    last = (
        receiver.attr if isinstance(receiver, ast.Attribute) else receiver.id if isinstance(receiver, ast.Name) else ""
    )
    return ENVIRONMENT_NAME_RE.search(last) is not None


# torch functions joining a sequence of tensors (their first argument) into a new tensor.
JOINING_FUNCTIONS = frozenset(
    {"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack", "torch.vstack", "torch.dstack"}
)
SELF_CALL_RE = re.compile(r"\bself\.(\w+)\s*\(")
# `self.weight = nn.Parameter(torch.zeros(n, n))` in a module's `__init__`: a parameter it holds.
PARAMETER_ATTRIBUTE_RE = re.compile(r"\bself\.(\w+)\s*=\s*(?:torch\.)?(?:nn\.)?Parameter\s*\(")


def parameters_read(text: str, names) -> bool:
    """Whether a method's text computes with one of the parameters ``names`` the module holds
    (``x @ self.weight``, ``torch.triu(self.weight, 1)``, ``F.linear(x, self.W)``): not a line
    that initialises, writes or only inspects it (``nn.init.normal_(self.weight)``,
    ``self.weight.data.zero_()``, ``self.weight.shape``, ``self.a.item()``)."""
    if not names:
        return False
    pattern = re.compile(
        r"\bself\.(?:" + "|".join(re.escape(name) for name in sorted(names)) + r")\b"
        r"(?!\s*(?:=(?!=)|\.(?:data|grad|requires_grad|shape|size|device|dtype|numel|item|tolist|detach|numpy)\b"
        r"|\.(?:\w+_)\s*\())"
    )
    for line in text.splitlines():
        if pattern.search(line) and "init." not in line and not line.lstrip().startswith(("def ", "#", "@")):
            return True
    return False


def parameter_attributes(init_texts, properties) -> frozenset:
    """The parameters a module class's ``__init__`` (``init_texts``: its own and its bases')
    makes, ``self.weight = nn.Parameter(...)``, and the names of its properties (``properties``:
    (name, text) pairs) computed from them (``weight_sym_upper`` returning ``torch.triu(self.weight,
    1) + ...``), which its methods read as they read a parameter."""
    names = {name for text in init_texts for name in PARAMETER_ATTRIBUTE_RE.findall(text)}
    if names:
        names |= {name for name, text in properties if parameters_read(text, names)}
    return frozenset(names)


# A `return` of a full reduction: `return torch.mean(...)`, `return(torch.mean(...))`,
# `return (pred == y).float().mean()`.
RETURNS_A_REDUCTION_RE = re.compile(
    r"^[ \t]*return\b[ \t(]*(?:torch\.(?:mean|sum)\(|[^\n#]*\.(?:mean|sum)\(\)[ \t)]*(?:#[^\n]*)?$)", re.M
)
# Text that differentiates an output by an input: `torch.autograd.grad(u, t, ...)`.
AUTOGRAD_GRAD_RE = re.compile(r"\bautograd\.grad\(")
# A module's `forward` that needs grad on: it runs a backward pass itself (a meta-learner), or
# asserts its output requires grad (`assert qvalues.requires_grad`, a course's sanity check).
FORWARD_NEEDS_GRAD_RE = re.compile(r"\.backward\(|\bassert\s+[\w.\[\]]+\.requires_grad\b")


def forward_needs_grad(text: str) -> bool:
    """Whether a module's ``forward`` text needs grad on (``FORWARD_NEEDS_GRAD_RE``), or
    differentiates its own output (a Hamiltonian network's ``torch.autograd.grad(H.sum(), X,
    create_graph=True)``: under ``no_grad`` it raises) without turning grad on itself
    (``with torch.enable_grad():``)."""
    if FORWARD_NEEDS_GRAD_RE.search(text) is not None:
        return True
    return (
        AUTOGRAD_GRAD_RE.search(text) is not None and "enable_grad" not in text and "set_grad_enabled(True" not in text
    )


def forward_with_its_helpers(methods: dict) -> str:
    """The text of a class's ``forward`` with that of the methods of the class it calls
    (``self.backward_g(x)`` of a GANomaly whose ``forward`` trains through its helpers), one
    level deep: what ``forward_needs_grad`` reads."""
    forward = methods.get("forward", "")
    helpers = {name for name in SELF_CALL_RE.findall(forward) if name in methods and name != "forward"}
    return "\n".join([forward, *(methods[name] for name in sorted(helpers))])


# `nn.Module`'s own methods: `self.parameters()` in a method is no call of a layer.
MODULE_OWN_METHODS = (
    MODULE_RETURNING_METHODS
    | PARAMETER_METHODS
    | _words(
        """modules named_modules children named_children buffers named_buffers state_dict
        load_state_dict zero_grad register_forward_hook register_forward_pre_hook
        register_full_backward_hook register_buffer register_parameter add_module get_submodule
        get_parameter apply extra_repr"""
    )
)
NOT_MODEL_METHODS = (
    MODULE_OWN_METHODS
    | TENSOR_ONLY_METHODS
    | ALIAS_METHODS
    | GRAD_DROPPING
    | PYTHON_VALUE_METHODS
    | (FULL_REDUCTIONS - {"norm"})
    | _words(
        """step get append extend insert pop popitem items keys values update
        setdefault join format split rsplit strip lstrip rstrip replace startswith endswith lower
        upper encode decode add discard remove clear index count sort copy write writelines
        read readline readlines close flush debug info warning warn error exception critical log
        add_scalar add_scalars add_image add_images add_histogram set_description set_postfix"""
    )
)
OPTIMIZER_PREFIX = "torch.optim."
# Learning-rate schedulers: their `step()` changes learning rates, not parameters.
LR_SCHEDULER_PREFIX = "torch.optim.lr_scheduler."
OPTIMIZER_NON_CLASSES = frozenset({"lr_scheduler", "swa_utils", "Optimizer"})
DATALOADER_NAMES = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
DATASET_SPLIT_KEYWORDS = {"train": True, "training": True, "is_train": True, "split": None, "subset": None}
EVAL_SPLIT_WORDS = ("val", "valid", "validation", "test", "testing", "eval", "evaluation", "dev", "holdout")
TRAIN_SPLIT_WORDS = ("train", "training", "trn")
# Words in a function's name that say it evaluates a model (``evaluate``, ``val_epoch``, ``predict``).
# torchvision data sets whose items are `(image, class index)` with the index a Python int
# (`int(self.targets[index])`), unless a `target_transform` makes it something else.
INT_TARGET_DATASETS = _words(
    "MNIST FashionMNIST KMNIST EMNIST CIFAR10 CIFAR100 SVHN STL10 ImageFolder DatasetFolder ImageNet"
)

EVALUATION_FUNCTION_WORDS = frozenset(
    {"eval", "evaluate", "evaluation", "val", "valid", "validate", "validation", "test", "testing"}
    | {"predict", "prediction", "predictions", "inference", "infer"}
)


# -- reading calls ----------------------------------------------------------------------------
_MISSING = object()


def call_argument(call: ast.Call, position: Optional[int], keyword: Optional[str]) -> Optional[ast.expr]:
    """The argument given at ``position`` or as ``keyword=`` (None when not given, or when a
    ``*args``/``**kwargs`` before it makes the position unknown)."""
    if keyword is not None:
        for kw in call.keywords:
            if kw.arg == keyword:
                return kw.value
    if position is not None:
        for i, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return None
            if i == position:
                return arg
    return None


def constant_of(node: Optional[ast.AST], default=_MISSING):
    """The value of a literal constant (``True``, ``0.5``, ``"val"``, ``-1``), else ``default``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    return None if default is _MISSING else default


def last_name(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1]


def recurrent_dropout(call: ast.Call, qualified: str) -> bool:
    """Whether a call builds a recurrent layer with dropout between its layers
    (``nn.LSTM(d, h, n, dropout=0.2)``), which training mode applies."""
    if last_name(qualified) not in ("LSTM", "GRU", "RNN"):
        return False
    rate = call_argument(call, None, "dropout")
    value = constant_of(rate, default=None) if rate is not None else None
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
