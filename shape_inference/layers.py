"""Layers of flax (linen and nnx), equinox and haiku, and flax's Module methods.

A layer object remembers its constructor arguments (`ExtObjectV`); calling it maps
input shapes to output shapes.  An output depends on differentiated values when its
input does, when the layer object itself was drawn from a differentiated model
(nnx, equinox), or when the flax linen parameters being applied are differentiated.
The attention layers call their `attention_fn` the way flax does, so a
`partial(jax.nn.dot_product_attention, implementation="cudnn")` handed to them is
seen with the query, key and value shapes they build.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import dims as D
from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference import shapes as S
from jax_cudnn_lint.shape_inference import windows as W
from jax_cudnn_lint.shape_inference.context import Ctx, DiffTree, params_diff_of
from jax_cudnn_lint.shape_inference.dims import Dim, Step, merge_why
from jax_cudnn_lint.shape_inference.dtypes import promote
from jax_cudnn_lint.shape_inference.scopes import NNX_ATTENTION_KWARGS, dotted_name, imported_name
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ArrayV,
    BoundMethodV,
    ClassV,
    ConstV,
    DictV,
    ExternalV,
    ExtObjectV,
    FunctionV,
    InstanceV,
    IntV,
    TransformV,
    TupleV,
    UnknownV,
    Value,
    absent,
    any_diff,
    contains_diff,
    int_value,
    make_int,
    shape_of,
    as_array as _arr,
    call_arg as _in,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]


def _get(obj: ExtObjectV, i: int, name: str) -> Value | None:
    if i < len(obj.args):
        return obj.args[i]
    return obj.kwarg(name)


def _out_dtype(obj: ExtObjectV, x: ArrayV) -> str | None:
    given = obj.kwarg("dtype")
    if not absent(given) and obj.qualname in _EQUINOX_WEIGHTED:
        given_name = A.dtype_name(given)  # the weights' dtype: `weight @ x` promotes with the input (probe 42a)
        return promote(x.dtype, given_name) if given_name is not None else None
    if not absent(given):
        return A.dtype_name(given)  # None when given but not resolved
    if obj.qualname.startswith("flax."):
        param = A.dtype_or(obj.kwarg("param_dtype"), "float32")
        return promote(x.dtype, param)
    if obj.qualname.startswith("haiku."):
        # haiku makes a module's parameters in its input's dtype; a mixed-precision policy
        # (hk.mixed_precision.set_policy) casts both ways: unknown
        return None if obj.kwarg(HAIKU_POLICY) is not None else x.dtype
    if obj.qualname in _EQUINOX_WEIGHTED:
        # equinox makes the weights when the layer is built: float32 unless dtype= said
        return promote(x.dtype, "float32")
    return x.dtype


# equinox layers whose weights are made when they are built (float32 unless `dtype=`)
_EQUINOX_WEIGHTED = ("equinox.nn.Linear", "equinox.nn.MLP", "equinox.nn.GRUCell", "equinox.nn.LSTMCell")


def _embedding_dtype(obj: ExtObjectV) -> str | None:
    """What an embedding lookup gives: flax's `dtype`, else its `param_dtype` (float32 by
    default: probe 42a, `nn.Embed(..., param_dtype=jnp.bfloat16)` is bfloat16); haiku's
    and equinox's table is float32 unless given (`embedding_matrix`, `weight`, `dtype`)."""
    q = obj.qualname
    given = obj.kwarg("dtype")
    if q.startswith("flax."):
        return A.dtype_name(given) if not absent(given) else A.dtype_or(obj.kwarg("param_dtype"), "float32")
    table = _arr(_get(obj, 2, "embedding_matrix" if q.startswith("haiku") else "weight"))
    if table is not None:
        return table.dtype
    if q.startswith("haiku."):
        return None if obj.kwarg(HAIKU_POLICY) is not None or _get(obj, 2, "embedding_matrix") is not None else "float32"
    if q.startswith("equinox."):
        return A.dtype_name(given) if not absent(given) else "float32" if _get(obj, 2, "weight") is None else None
    return None


# The parameters a layer object holds as attributes, by (layer, attribute): the
# constructor arguments (position, keyword) that give each axis.  `emb.weight[tokens]`
# and `self.embed.embedding[ids]` index the table directly (probe 50b).
_PARAMETERS: dict[tuple[str, str], tuple[tuple[int, str], ...]] = {
    ("equinox.nn.Embedding", "weight"): ((0, "num_embeddings"), (1, "embedding_size")),
    ("equinox.nn.Linear", "weight"): ((1, "out_features"), (0, "in_features")),
    ("equinox.nn.Linear", "bias"): ((1, "out_features"),),
    ("flax.nnx.Embed", "embedding"): ((0, "num_embeddings"), (1, "features")),
    ("flax.nnx.Linear", "kernel"): ((0, "in_features"), (1, "out_features")),
    ("flax.nnx.Linear", "bias"): ((1, "out_features"),),
}


def parameter(obj: ExtObjectV, name: str) -> ArrayV | None:
    """A layer's parameter read as an attribute (`eqx.nn.Embedding.weight`, `nnx.Embed.
    embedding`, `nnx.Linear.kernel`): an array of the shape its constructor gives, in its
    parameter dtype; None for any other attribute."""
    axes = _PARAMETERS.get((obj.qualname, name))
    if axes is None:
        return None
    dims = tuple(size.dim if isinstance(size := _get(obj, i, keyword), IntV) else D.unknown() for i, keyword in axes)
    if obj.qualname.startswith("flax."):
        dtype = A.dtype_or(obj.kwarg("param_dtype"), "float32")
    else:
        given = obj.kwarg("dtype")
        dtype = A.dtype_name(given) if not absent(given) else "float32"
    if obj.qualname == "equinox.nn.Embedding" and not absent(table := obj.kwarg("weight")):
        return table if isinstance(table, ArrayV) else ArrayV(None, None, obj.diff)
    return ArrayV(dims, dtype, obj.diff)


HAIKU_POLICY = "<haiku mixed precision>"  # a keyword no call can spell: a policy was set


def _features(v: Value | None, one: bool = False) -> tuple[Dim, ...] | None:
    """The feature dims a layer's size argument gives; with `one` (an int-only argument,
    as Embed's), one unknown dim where the size is not known: the input's other dims
    still hold (`nn.Embed(vocab, cfg.width)` keeps the batch and the length)."""
    if v is None:
        return None
    if isinstance(v, IntV):
        return (v.dim,)
    found = shape_of(v)
    if found is None and one and not isinstance(v, (TupleV, ArrayV)):
        return (D.unknown(),)
    return found


def replace_variable(interp: Interpreter, layer: ExtObjectV, value: Value) -> None:
    """`layer.kernel = Frozen(layer.kernel.value)`, `setattr(layer, name, ...)`: a flax
    nnx layer's variable replaced by one that may carry no tangent (a Variable type of
    the project's own, or a value not known; probe 155a: pretrained weights frozen so).
    The layer is known by its construction's argument tuple, which every differentiated
    copy of it shares (ExtObjectV.tainted), so a holder made before or after sees it."""
    if not A.is_nnx_layer(layer):
        return
    if isinstance(value, ArrayV) and not value.stopped:
        return  # (an nnx.Param put back: trained as before)
    held = layer.args or layer.kwargs
    if held:
        interp.replaced_layers[id(held)] = held


def variables_replaced(interp: Interpreter, layer: ExtObjectV) -> bool:
    held = layer.args or layer.kwargs
    return bool(held) and interp.replaced_layers.get(id(held)) is held


LIFTED_INIT = "haiku.lift"  # what `hk.lift(inner.init)` gives (externals.h_haiku_lift)


def call_layer(interp: Interpreter, obj: ExtObjectV, args: Args, kwargs: Kwargs, star: bool, node: ast.AST, fr: Frame) -> Value:
    if star:
        return UNKNOWN
    q = obj.qualname
    if q == LIFTED_INIT:
        # the lifted parameters, part of the outer model's: differentiated where they are
        # (probe 119c); at apply time the inner init does not run
        return UnknownV(fr.ctx.params_diff)
    if q in _LIFTED or q.endswith("()") and q[:-2] in _LIFTED:
        return _lifted(interp, obj, args, kwargs, node, fr)
    if q == "haiku.layer_stack":
        return _layer_stack(interp, obj, args, kwargs, node, fr)
    if q == "equinox.nn.make_with_state()" and obj.args:
        # `model, state = eqx.nn.make_with_state(Model)(...)`: the model, and a state not followed
        return TupleV((interp.call(obj.args[0], args, kwargs, False, node, fr), UNKNOWN))
    if q == BRIDGED_LINEN and obj.args and isinstance(obj.args[0], InstanceV):
        # `nnx.bridge.ToNNX(linen_module, rngs=...)(x)`: the linen module applied with the
        # variables the nnx object holds, differentiated where it is (probe 52c)
        return call_linen_method(interp, "flax.linen.Module.apply", [obj.args[0], UnknownV(obj.diff), *args], dict(kwargs), node, fr)
    if q in ("flax.linen.Sequential", "flax.nnx.Sequential", "equinox.nn.Sequential", "haiku.Sequential"):
        return _sequential(interp, obj, args, kwargs, node, fr)
    short = q.rsplit(".", 1)[-1]
    x_value = args[0] if args else next(iter(kwargs.values()), None)
    if short == "Identity" and q.startswith("equinox") and x_value is not None:
        return x_value  # `jax.vmap(jax.vmap(eqx.nn.Identity()))(q)` (probe 35a, map_pfn)
    if short == "Lambda" and q.startswith("equinox") and obj.args and len(args) == 1:
        return interp.call(obj.args[0], args, {}, False, node, fr)  # `eqx.nn.Lambda(fn)(x)` is fn(x) (probe 119c)
    own = obj.diff or params_diff_of(fr.ctx, obj.kwarg("name"))
    if own and not (x_value is not None and x_value.diff) and variables_replaced(interp, obj):
        # its weights replaced by a Variable type of the project's own (or not known):
        # whether nnx.grad's filter reaches them is not followed (JCD202, not JCD201)
        fr.ctx = fr.ctx.reach_unknown()
        own = False
    diff = own or (x_value.diff if x_value is not None else False)
    x = _arr(x_value)
    step = interp.step(fr, node, f"{short} {A.src(node)}")
    if short in ("MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention") and q.startswith(("flax.linen", "flax.nnx")):
        return _mha(interp, obj, args, kwargs, node, fr, diff)
    if x is None:
        return UnknownV(diff)
    if short in ("Dense", "Linear") and q.startswith(("flax.linen", "haiku")):
        feats = _features(_get(obj, 0, "features" if q.startswith("flax") else "output_size"), one=True)
        if x.shape is None or feats is None:
            return ArrayV(None, _out_dtype(obj, x), diff)
        return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), _out_dtype(obj, x), diff, x.why)
    if short == "Linear" and q.startswith("flax.nnx"):
        feats = _features(_get(obj, 1, "out_features"), one=True)
        if x.shape is None or feats is None:
            return ArrayV(None, _out_dtype(obj, x), diff)
        return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), _out_dtype(obj, x), diff, x.why)
    if short in ("Linear", "MLP") and q.startswith("equinox"):
        # (an MLP ends in a Linear of `out_size`: probe 63c, point-cloud group tokens)
        out = _get(obj, 1, "out_features" if short == "Linear" else "out_size")
        if isinstance(out, ConstV) and out.value == "scalar":
            return ArrayV(x.shape[:-1] if x.shape else None, _out_dtype(obj, x), diff)
        feats = _features(out, one=True)
        if x.shape is None or feats is None:
            return ArrayV(None, _out_dtype(obj, x), diff)
        return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), _out_dtype(obj, x), diff, x.why)
    if short in ("GRUCell", "LSTMCell") and q.startswith("equinox"):
        # one step of the cell: the new hidden state (LSTM: with the cell state), of
        # `hidden_size`, for the input's leading axes (probe 86d: a GRU scanned over 43 steps)
        hidden = args[1] if len(args) > 1 else kwargs.get("hidden")
        parts = [hidden] if short == "GRUCell" and hidden is not None else list(hidden.items) if isinstance(hidden, TupleV) else []
        diff = diff or any(part.diff for part in parts)
        dtypes = {_out_dtype(obj, x), *(part.dtype if isinstance(part, ArrayV) else None for part in parts)}
        feats = _features(_get(obj, 1, "hidden_size"), one=True)
        dtype = dtypes.pop() if len(dtypes) == 1 else None
        state = ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats) if x.shape is not None and feats is not None else None, dtype, diff, x.why)
        return state if short == "GRUCell" else TupleV((state, state))
    if short in ("LoRA", "LoRALinear") and q.startswith("flax.nnx"):
        return _lora(obj, x, step, diff)
    if short in ("DenseGeneral", "LinearGeneral"):
        feats = _features(_get(obj, 0 if q.startswith("flax.linen") else 1, "features" if q.startswith("flax.linen") else "out_features"))
        axis_v = obj.kwarg("axis")
        axes: list[int] = [-1]
        if axis_v is not None:
            single = int_value(axis_v)
            if single is not None:
                axes = [single]
            elif isinstance(axis_v, TupleV) and all(int_value(i) is not None for i in axis_v.items):
                axes = [int_value(i) for i in axis_v.items]  # type: ignore[misc]
            else:
                return ArrayV(None, _out_dtype(obj, x), diff)
        if x.shape is None or feats is None:
            return ArrayV(None, _out_dtype(obj, x), diff)
        rank = len(x.shape)
        if any(not -rank <= a < rank for a in axes):
            return ArrayV(None, _out_dtype(obj, x), diff)
        drop = {a % rank for a in axes}
        kept = tuple(d for i, d in enumerate(x.shape) if i not in drop)
        return ArrayV(kept + tuple(f.with_why(step) for f in feats), _out_dtype(obj, x), diff, x.why)
    if short in ("Embed", "Embedding"):
        feats = _get(obj, 1, "features" if short == "Embed" else "embedding_size")
        if q.startswith("haiku"):
            feats = _haiku_embed_dim(obj)
        dtype = _embedding_dtype(obj)
        if x.shape is None:
            return ArrayV(None, dtype, diff)
        width = feats.dim.with_why(step) if isinstance(feats, IntV) else D.unknown()  # (the ids' dims hold whatever the width)
        return ArrayV(x.shape + (width,), dtype, diff, x.why)
    if short.startswith("Conv") and not short.startswith("ConvTranspose"):
        return _conv(obj, x, step, diff)
    if short.startswith("ConvTranspose") and q.startswith(("flax.linen", "flax.nnx")):
        return _flax_conv_transpose(obj, x, step, diff)
    if short.startswith("ConvTranspose") and q.startswith("equinox.nn"):
        return _equinox_conv_transpose(obj, short, x, step, diff)
    if short == "Einsum" and q.startswith(("flax.linen", "flax.nnx")):
        return _einsum_layer(interp, obj, x, args, kwargs, node, fr, diff)
    if short in ("LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm"):
        normed = ArrayV(x.shape, _out_dtype(obj, x), diff, x.why, x.name)
        if short == "BatchNorm" and q.startswith("equinox"):
            # a stateful layer: `h, state = bn(h, state)` (probe 119c)
            return TupleV((normed, args[1] if len(args) > 1 else kwargs.get("state", UNKNOWN)))
        return normed
    if short in _EQUINOX_POOLS and q.startswith("equinox"):
        return _equinox_pool(obj, short, x, step, diff)
    if short == "Dropout":
        return ArrayV(x.shape, x.dtype, diff, x.why, x.name)
    if short == "MultiheadAttention" and q.startswith("equinox"):
        return ArrayV(x.shape, x.dtype, diff)
    return UnknownV(diff)


_EQUINOX_POOLS = frozenset(
    f"{kind}Pool{n}d" for kind in ("Max", "Avg", "AdaptiveMax", "AdaptiveAvg") for n in (1, 2, 3)
)


def _equinox_pool(obj: ExtObjectV, short: str, x: ArrayV, step: Step, diff: bool) -> Value:
    """equinox's pools over one unbatched channels-first example (C, *spatial):
    `MaxPool1d(kernel_size, stride=1, padding=0, use_ceil=False)` makes each spatial
    axis (n + 2p - k) // s + 1, `AdaptiveAvgPool1d(target_shape)` the target (probe
    35c); `use_ceil=True` or an uneven padding leaves the shape unknown."""
    ndim = int(short[-2])
    if x.shape is None or len(x.shape) != ndim + 1:
        return ArrayV(None, x.dtype, diff)

    def per_axis(v: Value | None, default: int | None) -> list[int] | None:
        if absent(v):
            return None if default is None else [default] * ndim
        single = int_value(v) if isinstance(v, (IntV, ConstV)) else None
        return [single] * ndim if single is not None else W.known_ints(v, ndim)

    if short.startswith("Adaptive"):
        target = per_axis(_get(obj, 0, "target_shape"), None)
        if target is None:
            return ArrayV(None, x.dtype, diff)
        return x.with_shape((x.shape[0], *(D.const(size, (step,)) for size in target)), step).tainted(diff)
    kernel, stride, padding = per_axis(_get(obj, 0, "kernel_size"), None), per_axis(_get(obj, 1, "stride"), 1), per_axis(_get(obj, 2, "padding"), 0)
    ceil = _get(obj, 3, "use_ceil")
    if kernel is None or stride is None or padding is None or not (absent(ceil) or (isinstance(ceil, ConstV) and ceil.value is False)):
        return ArrayV(None, x.dtype, diff)
    spatial = tuple(W.strided_axis(n, k, st, (p, p), step) for n, k, st, p in zip(x.shape[1:], kernel, stride, padding))
    return x.with_shape((x.shape[0], *spatial), step).tainted(diff)


def _lora(obj: ExtObjectV, x: ArrayV, step: Step, diff: bool) -> Value:
    """nnx.LoRA(in, rank, out): `x @ lora_a @ lora_b` (plus `base_module(x)` when given),
    in `dtype`, else the input's promoted with param_dtype; nnx.LoRALinear(in, out,
    lora_rank=...): an nnx.Linear's output plus its LoRA's (lora_dtype /
    lora_param_dtype), the two promoted.  A custom promote function leaves the dtype
    unknown, as does a base module (its own dtype is added in)."""
    linear = obj.qualname.endswith("LoRALinear")
    feats = _features(_get(obj, 1 if linear else 2, "out_features"))
    lora_dtype = obj.kwarg("lora_dtype" if linear else "dtype")
    if not absent(lora_dtype):
        dtype = A.dtype_name(lora_dtype)
    else:
        dtype = promote(x.dtype, A.dtype_or(obj.kwarg("lora_param_dtype" if linear else "param_dtype"), "float32"))
    if linear:
        base = _out_dtype(obj, x)
        dtype = promote(base, dtype) if base is not None and dtype is not None else None
    if obj.kwarg("lora_promote_dtype" if linear else "promote_dtype") is not None or obj.kwarg("base_module") is not None:
        dtype = None
    kind = obj.kwarg("lora_param_type")
    base = obj.kwarg("base_module")
    if not linear and kind is not None and not A.is_nnx_param_kind(kind) and not (base is not None and base.diff):
        diff = x.diff  # its matrices are variables of another kind: nnx.grad may not reach them
    if x.shape is None or feats is None:
        return ArrayV(None, dtype, diff)
    return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), dtype, diff, x.why)


def _einsum_layer(interp: Interpreter, obj: ExtObjectV, x: ArrayV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, diff: bool) -> Value:
    """flax's Einsum layers: the einsum of the input with a kernel of the given shape
    (`nnx.Einsum(einsum_str, kernel_shape, ...)`, `nn.Einsum(shape, einsum_str=...)`; the
    einsum_str given at the call wins in nnx and is the only one in linen when given), in
    the dtype the other flax layers compute in (dtype, else the input's promoted with
    param_dtype).  A custom promote_dtype or einsum_op leaves the result unknown, a
    preferred_element_type its dtype."""
    linen = obj.qualname.startswith("flax.linen")
    if obj.kwarg("promote_dtype") is not None or obj.kwarg("einsum_op") is not None or set(kwargs) - {"einsum_str", "out_sharding"} or len(args) > 2:
        return UnknownV(diff)
    at_call = _in(args, kwargs, 1, "einsum_str")
    if absent(at_call):
        at_call = None
    if linen:
        shape_v, given = _get(obj, 0, "shape"), _get(obj, 1, "einsum_str")
        if absent(given):
            given = None
        if at_call is not None and given is not None:
            return UnknownV(diff)  # linen raises: exactly one of them
    else:
        shape_v, given = _get(obj, 1, "kernel_shape"), _get(obj, 0, "einsum_str")
    spec_v = at_call if at_call is not None else given
    kernel_shape = shape_of(shape_v) if shape_v is not None else None
    dtype = _out_dtype(obj, x)
    preferred = obj.kwarg("preferred_element_type")
    if not absent(preferred):
        dtype = None
    if not (isinstance(spec_v, ConstV) and isinstance(spec_v.value, str)) or kernel_shape is None:
        return ArrayV(None, dtype, diff)
    kernel = ArrayV(kernel_shape, A.dtype_or(obj.kwarg("param_dtype"), "float32"), diff)
    out = S.einsum(interp, spec_v.value, [x, kernel], node, fr)
    if not isinstance(out, ArrayV):
        return ArrayV(None, dtype, diff)
    return ArrayV(out.shape, dtype, diff, out.why)


def _haiku_embed_dim(obj: ExtObjectV) -> Value | None:
    """hk.Embed(vocab_size, embed_dim, embedding_matrix, ...): the embedding width, from
    embed_dim or else from the second axis of a given embedding_matrix."""
    dim = _get(obj, 1, "embed_dim")
    if isinstance(dim, IntV):
        return dim
    matrix = _arr(_get(obj, 2, "embedding_matrix"))
    if matrix is not None and matrix.shape is not None and len(matrix.shape) == 2:
        return IntV(matrix.shape[1])
    return None


def _layer_stack(interp: Interpreter, obj: ExtObjectV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`hk.layer_stack(n)(f)`: a function that applies f n times, each time to what the
    previous one returned, so f's output has the structure and shapes of its input and
    calling f once sees every shape it sees.  With per-layer inputs (f takes slices of
    stacked arrays and returns a pair: `with_per_layer_inputs=True`) it is called on the
    carry and one slice of each (transforms.call_layer_stack)."""
    def off(v: Value | None) -> bool:
        return v is None or (isinstance(v, ConstV) and v.value is False)

    per_layer = _get(obj, 1, "with_per_layer_inputs")
    if not (off(per_layer) or isinstance(per_layer, ConstV) and per_layer.value is True) or not off(_get(obj, 3, "pass_reverse_to_layer_fn")):
        return UNKNOWN
    func = args[0] if len(args) == 1 and not kwargs else kwargs.get("f") if not args and set(kwargs) == {"f"} else None
    if func is None:
        return UNKNOWN
    kind = "haiku.layer_stack" if off(per_layer) else A.PER_LAYER_STACK
    return TransformV(kind, func, (), (interp.step(fr, node, f"{A.src(node)} (one layer of the stack)"),))


# the Sequentials that take one list of layers (nnx's takes them as arguments)
_LIST_SEQUENTIALS = frozenset({"flax.linen.Sequential", "equinox.nn.Sequential", "haiku.Sequential"})


def _sequential(interp: Interpreter, obj: ExtObjectV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`nn.Sequential([f, g])(x)` / `nnx.Sequential(f, g)(x)` / `eqx.nn.Sequential([f,
    g])(x)` / `hk.Sequential([f, g])(x)`: g(f(x)); flax spreads a tuple output over the
    next layer's arguments and a dict's items over its keywords.  An output whose kind we cannot see stops the chain (unknown), as does
    an nnx `rngs=` (handed only to layers that take it)."""
    spreads = obj.qualname.startswith("flax")  # equinox and haiku hand the output on whole
    spelled = [name for name, _ in obj.kwargs if not name.startswith("<")]  # (not HAIKU_POLICY's mark)
    if obj.qualname in _LIST_SEQUENTIALS:
        given = _get(obj, 0, "layers")
        if not isinstance(given, TupleV) or len(obj.args) + len(spelled) != 1:
            return UNKNOWN
        layers: tuple[Value, ...] = given.items
    else:
        if spelled:
            return UNKNOWN
        layers = obj.args
    if not layers or "rngs" in kwargs:
        return UNKNOWN
    call_args: Args = list(args)
    call_kwargs: Kwargs = dict(kwargs)
    out: Value = UNKNOWN
    for i, layer in enumerate(layers):
        if obj.diff:
            layer = layer.tainted(True)
        if i > 0:
            if not spreads:
                call_args, call_kwargs = [out], {}
            elif isinstance(out, TupleV) and not out.is_list:
                call_args, call_kwargs = list(out.items), {}
            elif isinstance(out, DictV) and all(isinstance(k, str) for k, _ in out.items):
                call_args = []
                call_kwargs = {str(k): v for k, v in out.items}
            elif isinstance(out, (ArrayV, IntV)):
                call_args, call_kwargs = [out], {}
            else:
                return UnknownV(out.diff)
        out = interp.call(layer, call_args, call_kwargs, False, node, fr)
    return out


def haiku_get_parameter(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, state: bool = False) -> Value:
    """`hk.get_parameter(name, shape, dtype=None, init=...)`: an array of that shape,
    differentiated when the parameters being applied are.  Its dtype is the one given, or
    float32 (haiku's default, probe 42a), unless a mixed-precision policy or a custom
    getter or creator may cast it.  `hk.get_state(...)` (`state`): the same, never
    differentiated (probe 119c: a memory of a known shape)."""
    shape_v = _in(args, kwargs, 1, "shape")
    dtype_v = _in(args, kwargs, 2, "dtype")
    shape = shape_of(shape_v) if shape_v is not None else None
    init = _in(args, kwargs, 3, "init")
    # the initializer makes the array: haiku's own and jnp.zeros/ones honour the dtype
    # they are handed (float32 by default); a user's may not (probe 44a)
    named = init.qualname if isinstance(init, (ExternalV, ExtObjectV)) else imported_name(fr.module.facts, _initializer_spelled(node)) or ""
    honours = init is None or named.startswith("haiku.initializers.") or named in ("jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty")
    if interp.haiku_casts(fr.module) or absent(dtype_v) and not honours:
        dtype = None
    else:
        dtype = "float32" if absent(dtype_v) else A.dtype_name(dtype_v)
    return ArrayV(shape, dtype, fr.ctx.params_diff and not state, (interp.step(fr, node, A.src(node)),) if shape is not None else ())


def haiku_mha_fields(args: Args, kwargs: Kwargs) -> dict[str, Value] | None:
    """The fields `hk.MultiHeadAttention(num_heads, key_size, w_init_scale=None, *,
    w_init, with_bias, b_init, value_size, model_size, name)` sets: `value_size` is
    `key_size` and `model_size` is `key_size * num_heads` where not given."""
    names = ("num_heads", "key_size", "w_init_scale")
    if len(args) > len(names) or set(kwargs) & set(names[: len(args)]):
        return None
    given = {**dict(zip(names, args)), **kwargs}
    heads, key_size = given.get("num_heads"), given.get("key_size")
    if heads is None or key_size is None:
        return None
    value_size, model_size = given.get("value_size"), given.get("model_size")
    fields = dict(given)
    fields["value_size"] = key_size if value_size is None or absent(value_size) else value_size
    if model_size is None or absent(model_size):
        h, k = int_value(heads), int_value(key_size)
        fields["model_size"] = make_int(h * k, merge_why(heads.why, key_size.why)) if h is not None and k is not None else UNKNOWN
    fields.setdefault("with_bias", ConstV(True))
    return fields


def haiku_mha_init(interp: Interpreter, args: Args, kwargs: Kwargs) -> Value:
    """`super().__init__(...)` in a subclass of hk.MultiHeadAttention: its fields set."""
    inst = args[0] if args else None
    if not isinstance(inst, InstanceV):
        return UNKNOWN
    fields = haiku_mha_fields(list(args[1:]), {k: v for k, v in kwargs.items() if k != "name"})
    if fields is None:
        inst.forget()
        return UNKNOWN
    inst.attrs.update(fields)
    if "name" in kwargs:
        inst.attrs["name"] = kwargs["name"]
    return ConstV(None)


def haiku_linear_projection(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`self._linear_projection(x, head_size, name)` of hk.MultiHeadAttention: an
    hk.Linear of `num_heads * head_size` features, reshaped to `(*x.shape[:-1],
    num_heads, head_size)` (probes 116e, 119c: a subclass running cuDNN attention)."""
    inst = args[0] if args else None
    x = _in(args, kwargs, 1, "x")
    head_size = _in(args, kwargs, 2, "head_size")
    heads = inst.attrs.get("num_heads") if isinstance(inst, InstanceV) else None
    if not isinstance(heads, IntV) or not isinstance(head_size, IntV) or x is None:
        return UnknownV(any_diff(*args))
    features = A.binop(interp, ast.Mult(), heads, head_size, node, fr)
    projected = call_layer(interp, ExtObjectV("haiku.Linear", (features,), (("name", _in(args, kwargs, 3, "name") or ConstV(None)),), ()), [x], {}, False, node, fr)
    if not isinstance(projected, ArrayV) or projected.shape is None:
        return UnknownV(projected.diff)
    step = interp.step(fr, node, f"{A.src(node)}: heads of hk.MultiHeadAttention")
    return ArrayV(projected.shape[:-1] + (heads.dim.with_why(step), head_size.dim.with_why(step)), projected.dtype, projected.diff, projected.why)


def _initializer_spelled(node: ast.AST) -> str:
    """The dotted name a `get_parameter` call's initializer is made by, as spelled
    (`hk.initializers.VarianceScaling(1.0)`: "hk.initializers.VarianceScaling")."""
    call = node if isinstance(node, ast.Call) else None
    given = (call.args[3] if len(call.args) > 3 else next((k.value for k in call.keywords if k.arg == "init"), None)) if call is not None else None
    made = given.func if isinstance(given, ast.Call) else given
    return (dotted_name(made) or "") if made is not None else ""


# Where each library's convolution takes its arguments: (features, kernel size, strides,
# padding, dilation) as (position, keyword), and whether the channels come first.
_CONV_ARGS = {
    "flax.linen": ((0, "features"), (1, "kernel_size"), (2, "strides"), (3, "padding"), (5, "kernel_dilation")),
    "flax.nnx": ((1, "out_features"), (2, "kernel_size"), (3, "strides"), (-1, "padding"), (-1, "kernel_dilation")),
    "equinox.nn": ((1, "out_channels"), (2, "kernel_size"), (3, "stride"), (4, "padding"), (5, "dilation")),
    "haiku": ((0, "output_channels"), (1, "kernel_shape"), (2, "stride"), (-1, "padding"), (3, "rate")),
}


def _conv(obj: ExtObjectV, x: ArrayV, step: Step, diff: bool) -> Value:
    """A convolution's output: each spatial axis from its kernel, stride and padding (a
    patch embedding makes the sequence: 224 / 16 -> 14 x 14 = 196 tokens).

    flax (linen, nnx) and haiku convolve channels-last inputs with any batch axes in
    front; equinox takes one unbatched channels-first example (`eqx.nn.Conv` takes the
    number of spatial axes first).  A dilated kernel spans (k - 1) * d + 1 inputs, as in
    lax.conv_general_dilated.  Input dilation, haiku's channels-first `data_format` and
    an unresolved argument leave the shape unknown.
    """
    library = next(lib for lib in _CONV_ARGS if obj.qualname.startswith(lib))
    short = obj.qualname.rsplit(".", 1)[-1]
    (f_at, f_name), (k_at, k_name), (s_at, s_name), (p_at, p_name), (d_at, d_name) = _CONV_ARGS[library]
    offset = 0
    if library == "equinox.nn" and short == "Conv":
        offset = 1  # Conv(num_spatial_dims, in_channels, out_channels, ...)
    spatial = _conv_rank(library, short, obj, k_at + offset, k_name)
    unknown = ArrayV(None, _out_dtype(obj, x), diff)
    data_format = obj.kwarg("data_format")
    if spatial is None or x.shape is None or (data_format is not None and not (isinstance(data_format, ConstV) and isinstance(data_format.value, str) and data_format.value.endswith("C"))):
        return unknown
    kernel = _per_axis(_conv_get(obj, k_at + offset, k_name), spatial, library != "flax.linen" and library != "flax.nnx")
    strides = _per_axis(_conv_get(obj, s_at + offset, s_name), spatial, True, default=1)
    dilation = _per_axis(_conv_get(obj, d_at + offset, d_name), spatial, True, default=1)
    input_dilation = obj.kwarg("input_dilation") if library.startswith("flax") else None
    if kernel is None or strides is None or dilation is None:
        return unknown
    kernel = [(k - 1) * d + 1 for k, d in zip(kernel, dilation)]
    if input_dilation is not None and _per_axis(input_dilation, spatial, True) != [1] * spatial:
        return unknown
    padding = _conv_get(obj, p_at + offset, p_name)
    default_padding = "VALID_ZERO" if library == "equinox.nn" else "SAME"
    channels_first = library == "equinox.nn"
    shape = x.shape
    if channels_first:
        if len(shape) != spatial + 1:
            return unknown
        axes = shape[1:]
    else:
        if len(shape) < spatial + 1:
            return unknown
        axes = shape[-spatial - 1 : -1]
    out_axes: list[Dim] = []
    for i, n in enumerate(axes):
        pads = _conv_padding(padding, i, spatial, kernel[i], default_padding)
        if pads is None:
            return unknown
        # the arithmetic, so that a message names the convolution that made the length
        out_axes.append(W.strided_axis(n, kernel[i], strides[i], pads, step))
    feats = _conv_get(obj, f_at + offset, f_name)
    channels = feats.dim.with_why(step) if isinstance(feats, IntV) else D.unknown()
    if channels_first:
        return ArrayV((channels, *out_axes), x.dtype, diff, x.why)
    return ArrayV((*shape[: -spatial - 1], *out_axes, channels), _out_dtype(obj, x), diff, x.why)


def _flax_conv_transpose(obj: ExtObjectV, x: ArrayV, step: Step, diff: bool) -> Value:
    """flax's ConvTranspose over channels-last inputs (linen: features, kernel_size,
    strides, padding, kernel_dilation; nnx: in_features first): each spatial axis as
    lax.conv_transpose makes it for "SAME" (the default) or "VALID" padding (an upsampling
    decoder: 100 -> 201 frames, probe 35c); other paddings leave the shape unknown."""
    library = "flax.nnx" if obj.qualname.startswith("flax.nnx") else "flax.linen"
    shift = 1 if library == "flax.nnx" else 0
    unknown = ArrayV(None, _out_dtype(obj, x), diff)
    spatial = _conv_rank(library, "ConvTranspose", obj, 1 + shift, "kernel_size")
    if spatial is None or x.shape is None or len(x.shape) < spatial + 1:
        return unknown
    kernel = _per_axis(_get(obj, 1 + shift, "kernel_size"), spatial, False)
    strides = _per_axis(_get(obj, 2 + shift, "strides"), spatial, True, default=1)
    dilation = _per_axis(_get(obj, 4 + shift, "kernel_dilation"), spatial, True, default=1)
    padding = _get(obj, 3 + shift, "padding")
    mode = "SAME" if absent(padding) else padding.value.upper() if isinstance(padding, ConstV) and isinstance(padding.value, str) else None
    features = _get(obj, shift, "out_features" if shift else "features")
    if kernel is None or strides is None or dilation is None or mode not in ("SAME", "VALID") or not isinstance(features, IntV):
        return unknown
    axes = x.shape[-spatial - 1 : -1]
    out = [W.transposed_axis(n, (k - 1) * d + 1, s, mode, step) for n, k, s, d in zip(axes, kernel, strides, dilation)]
    return ArrayV((*x.shape[: -spatial - 1], *out, features.dim.with_why(step)), _out_dtype(obj, x), diff, x.why)


def _equinox_conv_transpose(obj: ExtObjectV, short: str, x: ArrayV, step: Step, diff: bool) -> Value:
    """equinox's ConvTranspose over one channels-first example (`ConvTranspose(num_spatial_dims,
    in, out, kernel_size, stride, output_padding, padding, dilation)`, the 1d/2d/3d forms
    without the first): each spatial axis (n - 1) * s - 2 * p + d * (k - 1) + op + 1, as
    PyTorch's (probe 74c: 16 -> 33 steps; checked on equinox 0.13).  A string padding
    leaves the shape unknown."""
    shift = 1 if short == "ConvTranspose" else 0
    unknown = ArrayV(None, _out_dtype(obj, x), diff)
    spatial = _conv_rank("equinox.nn", short, obj, 3 + shift, "kernel_size")
    if spatial is None or x.shape is None or len(x.shape) != spatial + 1:
        return unknown
    kernel = _per_axis(_get(obj, 2 + shift, "kernel_size"), spatial, True)
    strides = _per_axis(_get(obj, 3 + shift, "stride"), spatial, True, default=1)
    dilation = _per_axis(_get(obj, 6 + shift, "dilation"), spatial, True, default=1)
    output_padding = _non_negative_per_axis(_get(obj, 4 + shift, "output_padding"), spatial)
    padding = _non_negative_per_axis(_get(obj, 5 + shift, "padding"), spatial)
    features = _get(obj, 1 + shift, "out_channels")
    if kernel is None or strides is None or dilation is None or output_padding is None or padding is None or not isinstance(features, IntV):
        return unknown
    out: list[Dim] = []
    for n, k, s, d, p, op in zip(x.shape[1:], kernel, strides, dilation, padding, output_padding):
        size = D.add(D.mul(D.add(n, D.const(-1)), D.const(s)), D.const(d * (k - 1) + op + 1 - 2 * p))
        out.append(W.with_arithmetic(size, f"({n.render()} - 1) * {s} + {d * (k - 1) + op + 1 - 2 * p}", step))
    return ArrayV((features.dim.with_why(step), *out), _out_dtype(obj, x), diff, x.why)


def _non_negative_per_axis(v: Value | None, spatial: int) -> list[int] | None:
    """equinox's padding / output_padding: left out (0), an int, or one int per axis."""
    if v is None or isinstance(v, ConstV) and v.value is None:
        return [0] * spatial
    single = int_value(v)
    if single is not None:
        return [single] * spatial if single >= 0 else None
    items = [int_value(i) for i in v.items] if isinstance(v, TupleV) and len(v.items) == spatial else None
    return [i for i in items if i is not None and i >= 0] if items is not None and all(i is not None and i >= 0 for i in items) else None


def _conv_get(obj: ExtObjectV, at: int, name: str) -> Value | None:
    return obj.kwarg(name) if at < 0 else _get(obj, at, name)


def _conv_rank(library: str, short: str, obj: ExtObjectV, k_at: int, k_name: str) -> int | None:
    """How many spatial axes: from the class name (Conv2d, Conv2D), equinox's
    num_spatial_dims, or the length of flax's kernel_size (an int is one axis)."""
    if short[-2:-1].isdigit():
        return int(short[-2])
    if library == "equinox.nn":
        return int_value(obj.args[0]) if obj.args else int_value(obj.kwarg("num_spatial_dims") or UNKNOWN)
    if library.startswith("flax"):
        kernel = _conv_get(obj, k_at, k_name)
        if isinstance(kernel, IntV):
            return 1
        if isinstance(kernel, TupleV):
            return len(kernel.items)
    return None


def _per_axis(v: Value | None, spatial: int, broadcast: bool, default: int | None = None) -> list[int] | None:
    """An int or a sequence of ints, one per spatial axis (an int broadcasts where the
    library broadcasts it)."""
    if v is None or (isinstance(v, ConstV) and v.value is None):
        return None if default is None else [default] * spatial
    single = int_value(v)
    if single is not None:
        return [single] * spatial if broadcast or spatial == 1 else None
    if isinstance(v, TupleV) and len(v.items) == spatial:
        items = [int_value(i) for i in v.items]
        if all(i is not None and i > 0 for i in items):
            return items  # type: ignore[return-value]
    return None


def _conv_padding(v: Value | None, axis: int, spatial: int, kernel: int, default: str) -> str | tuple[int, int] | None:
    """"SAME" (output ceil(n / stride)) or (low, high) padding of one spatial axis."""
    if v is None:
        return "SAME" if default == "SAME" else (0, 0)
    if isinstance(v, ConstV) and isinstance(v.value, str):
        mode = v.value.upper()
        if mode in ("SAME", "SAME_LOWER", "CIRCULAR", "CAUSAL"):
            return "SAME"
        return (0, 0) if mode == "VALID" else None
    single = int_value(v)
    if single is not None:
        return (single, single)
    if isinstance(v, TupleV) and len(v.items) == spatial:
        item = v.items[axis]
        one = int_value(item)
        if one is not None:
            return (one, one)
        if isinstance(item, TupleV) and len(item.items) == 2:
            lo, hi = int_value(item.items[0]), int_value(item.items[1])
            if lo is not None and hi is not None:
                return (lo, hi)
    return None




def _mha(interp: Interpreter, obj: ExtObjectV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, diff: bool) -> Value:
    """flax MultiHeadDotProductAttention / nnx.MultiHeadAttention: project, then attention_fn."""
    q = obj.qualname
    nnx = q.startswith("flax.nnx")
    inputs_q = _arr(_in(args, kwargs, 0, "inputs_q"))
    inputs_k = _arr(_in(args, kwargs, 1, "inputs_k"))
    inputs_v = _arr(_in(args, kwargs, 2, "inputs_v"))
    if inputs_k is None and "inputs_kv" in kwargs:
        inputs_k = inputs_v = _arr(kwargs["inputs_kv"])
    if q.endswith("SelfAttention"):
        inputs_k = inputs_v = inputs_q
    if inputs_k is None:
        inputs_k = inputs_q
    if inputs_v is None:
        inputs_v = inputs_k
    num_heads = _get(obj, 0, "num_heads")
    qkv = obj.kwarg("qkv_features")
    if nnx:
        in_features = _get(obj, 1, "in_features")
        qkv = qkv if qkv is not None else (_get(obj, 2, "qkv_features") if len(obj.args) > 2 else in_features)
    elif qkv is None and inputs_q is not None and inputs_q.shape:
        qkv = IntV(inputs_q.shape[-1])
    param = A.dtype_or(obj.kwarg("param_dtype"), "float32")

    def out_dtype(x: ArrayV | None) -> str | None:
        return A.dtype_or(obj.kwarg("dtype"), promote(x.dtype, param) if x else None)

    step = Step(fr.module.path, getattr(node, "lineno", 0), f"{q.rsplit('.', 1)[-1]}(num_heads=..., attention_fn=...) projects to heads")
    head_dim: Dim | None = None
    if isinstance(num_heads, IntV) and isinstance(qkv, IntV):
        hd = D.floordiv(qkv.dim, num_heads.dim)
        head_dim = hd if hd.value is not None or hd.poly is not None else None

    def project(x: ArrayV | None) -> ArrayV:
        if x is None or x.shape is None:
            return ArrayV(None, out_dtype(x), diff)
        # heads known only at run time leave the batch and the length as they are
        heads = num_heads.dim.with_why(step) if isinstance(num_heads, IntV) else D.unknown()
        width = head_dim.with_why(step) if head_dim is not None else D.unknown()
        return ArrayV(x.shape[:-1] + (heads, width), out_dtype(x), diff, x.why)

    query, key, value = project(inputs_q), project(inputs_k), project(inputs_v)
    fn = obj.kwarg("attention_fn")
    if fn is not None and not (isinstance(fn, ExternalV) and fn.qualname in ("flax.linen.dot_product_attention", "flax.nnx.dot_product_attention")):
        call_kwargs: Kwargs = {}
        mask = kwargs.get("mask")
        decoding = A.truth(kwargs.get("decode") or obj.kwarg("decode") or ConstV(False)) is True if nnx else interp.linen_decoding and A.truth(obj.kwarg("decode") or ConstV(False)) is True
        if decoding:
            # a decode step with its cache given (linen: `apply({"params": p, "cache": c},
            # x, mutable=["cache"])`; nnx: `decode=True` after `init_cache`): the keys and
            # values are the cache's (its length is the init input's), and flax combines
            # the masks into a float32 one
            decode_step = Step(fr.module.path, getattr(node, "lineno", 0), "flax's decode step: combine_masks(mask, cache positions) is float32")
            key = ArrayV(None, key.dtype, key.diff)
            value = ArrayV(None, value.dtype, value.diff)
            mask = ArrayV(None, "float32", False, (decode_step,))
        if nnx:
            # nnx passes its keywords unconditionally (flax 0.12): an attention_fn
            # that does not take them fails with a TypeError, which binding shows
            call_kwargs = {name: UNKNOWN for name in NNX_ATTENTION_KWARGS}
            call_kwargs["mask"] = mask if mask is not None else ConstV(None)
            call_kwargs["is_causal"] = kwargs.get("is_causal", ConstV(False))  # its own keyword, False by default (probe 39c)
        elif mask is not None and not (isinstance(mask, ConstV) and mask.value is None):
            # linen keeps only the keywords the attention_fn's signature accepts
            call_kwargs["mask"] = mask
        if not nnx and A.truth(kwargs.get("sow_weights", ConstV(False))) is not False:
            # linen adds `module=self` when it sows the weights: an attention_fn without
            # that parameter (jax.nn's) fails with a TypeError first
            call_kwargs["module"] = UNKNOWN
        via = (Step(fr.module.path, getattr(node, "lineno", 0), f"called by {q}(attention_fn=...)"),)
        interp.call(fn, [query, key, value], call_kwargs, False, node, fr, via)
    out_features = obj.kwarg("out_features")
    if inputs_q is None or inputs_q.shape is None:
        return ArrayV(None, A.dtype_or(obj.kwarg("dtype"), None), diff)
    last = out_features.dim if isinstance(out_features, IntV) else (inputs_q.shape[-1] if not nnx else (in_features.dim if isinstance(in_features, IntV) else D.unknown()))  # type: ignore[possibly-undefined]
    return ArrayV(inputs_q.shape[:-1] + (last,), out_dtype(inputs_q), diff, inputs_q.why)


# -- flax linen lifted transforms over a module class: nn.scan(Block, ...), nn.vmap(Block, ...) --
_LIFTED = ("flax.linen.scan", "flax.linen.vmap")


def lift_class(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`nn.scan(Block, length=N, ...)` / `nn.vmap(Block, in_axes=0, ...)`: a class whose
    instances call Block's `__call__` per step (scan: the carry as is, the other
    arguments without their leading axis) or per example (vmap, as jax.vmap maps).
    The function form of scan, `nn.scan(fn, ...)(module, carry, xs)`, calls fn with the
    module, the carry and each step's slice (probe 104e); nn.vmap's is not modelled."""
    if args and isinstance(args[0], FunctionV) and q == "flax.linen.scan":
        return ExtObjectV(q + "()", (args[0],), tuple(kwargs.items()), (interp.step(fr, node, A.src(node)),))
    if not args or not isinstance(args[0], ClassV):
        return UNKNOWN
    return ExtObjectV(q, (args[0],), tuple(kwargs.items()), (interp.step(fr, node, A.src(node)),))


def _lifted(interp: Interpreter, obj: ExtObjectV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    if not obj.qualname.endswith("()"):
        # constructing the lifted module: construct the wrapped one
        inst = interp.call(obj.args[0], args, kwargs, False, node, fr)
        if not isinstance(inst, InstanceV):
            return UNKNOWN
        return ExtObjectV(obj.qualname + "()", (inst,), obj.kwargs, obj.why)
    inst = obj.args[0]
    kind = obj.qualname[:-2]
    step = interp.step(fr, node, f"{kind.rsplit('.', 1)[-1]} of {A.src(node)}")
    if kind == "flax.linen.vmap":
        params = tuple((k, v) for k, v in obj.kwargs if k in ("in_axes", "out_axes"))
        return interp.call(TransformV(kind, inst, params, (step,)), args, kwargs, False, node, fr)
    module: Args = []  # the function form's module, passed as it is
    if isinstance(inst, FunctionV):
        module, args = list(args[:1]), args[1:]
    if not args:
        return UNKNOWN
    in_axes = obj.kwarg("in_axes")
    xs: Args = []
    for i, x in enumerate(args[1:]):
        axis: Value | None = in_axes
        if isinstance(in_axes, TupleV):
            axis = in_axes.items[i] if i < len(in_axes.items) else None
        index = 0 if axis is None else int_value(axis)
        if index is not None:
            xs.append(_without_axis(x, index))  # (`in_axes=1`: chunks of a (B, n, c, C) sequence, probe 104e)
        elif isinstance(axis, ExternalV) and axis.qualname == "flax.linen.broadcast":
            xs.append(x)
        else:
            xs.append(UnknownV(x.diff))
    carry = args[0]
    out = interp.call(inst, [*module, carry, *xs], kwargs, False, node, fr)
    if isinstance(out, TupleV) and len(out.items) == 2 and out.items[0].diff and not carry.diff:
        # the next step takes this step's carry, now differentiated (by the layer's
        # parameters): run it again as step two sees it
        out = interp.call(inst, [*module, carry.tainted(True), *xs], kwargs, False, node, fr)
    if isinstance(out, TupleV) and len(out.items) == 2:
        return TupleV((out.items[0], UnknownV(out.items[1].diff)))
    return UnknownV(out.diff)


def _without_axis(x: Value, axis: int) -> Value:
    """One step's slice of what nn.scan scans over `axis` (each leaf of a tuple)."""
    if isinstance(x, ConstV) and x.value is None:
        return x
    if isinstance(x, ArrayV) and x.shape and -len(x.shape) <= axis < len(x.shape):
        index = axis % len(x.shape)
        return x.with_shape(x.shape[:index] + x.shape[index + 1:])
    if isinstance(x, TupleV):
        return TupleV(tuple(_without_axis(i, axis) for i in x.items), x.is_list, x.why, x.diff)
    return UnknownV(x.diff)


# -- namespaces (ConfigDict, OmegaConf, SimpleNamespace) ------------------------------------------
_NAMESPACE_CLASSES: dict[str, ClassV] = {}
# Namespaces that are also mappings: a nested dict becomes one of them (`cfg.model.seq`)
# and `cfg["model"]` reads an attribute.  SimpleNamespace keeps a dict a dict.
MAPPING_NAMESPACES = frozenset(
    f"{module}.{name}"
    for module in ("ml_collections", "ml_collections.config_dict")
    for name in ("ConfigDict", "FrozenConfigDict")
) | {"omegaconf.DictConfig"}


def make_namespace(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    cls = _NAMESPACE_CLASSES.get(q)
    if cls is None:
        cls = ClassV(ast.ClassDef(name=q.rsplit(".", 1)[-1], bases=[], keywords=[], body=[], decorator_list=[]), fr.module, (), {}, [], q)
        _NAMESPACE_CLASSES[q] = cls
    inst = InstanceV(cls, {}, False, (interp.step(fr, node, A.src(node)),))
    nested = q in MAPPING_NAMESPACES
    if args and isinstance(args[0], DictV):
        for k, v in args[0].items:
            if isinstance(k, str):
                inst.attrs[k] = make_namespace(interp, q, [v], {}, node, fr) if nested and str_keyed(v) else v
            else:
                return UNKNOWN if nested else inst
    elif args:
        return UNKNOWN
    for k, v in kwargs.items():
        inst.attrs[k] = make_namespace(interp, q, [v], {}, node, fr) if nested and str_keyed(v) else v
    return inst


def str_keyed(v: Value) -> bool:
    """A dict whose keys are all strings: one a mapping namespace takes as its fields."""
    return isinstance(v, DictV) and all(isinstance(k, str) for k, _ in v.items)


def namespace_item(inst: InstanceV, key: object) -> Value | None:
    """`cfg["seq"]` of a mapping namespace; None: not one."""
    if not A.is_mapping_namespace(inst) or not isinstance(key, str):
        return None
    return inst.attrs.get(key, UNKNOWN)


# keywords of flax's apply/init that the module's own call does not get
_APPLY_ONLY = frozenset({"rngs", "mutable", "capture_intermediates"})


# -- flax linen Module methods ---------------------------------------------------------------------
BRIDGED_LINEN = "flax.nnx.bridge.ToNNX"


def bridge_to_nnx(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`nnx.bridge.ToNNX(module, rngs=...)`: an nnx object that applies a linen module."""
    if not args or not isinstance(args[0], InstanceV) or not A.is_linen_class(args[0].cls):
        return UNKNOWN
    return ExtObjectV(BRIDGED_LINEN, (args[0],), (), (interp.step(fr, node, A.src(node)),))


def call_linen_method(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    if not args or not isinstance(args[0], InstanceV):
        return UNKNOWN
    inst = args[0]
    rest = args[1:]
    name = q.rsplit(".", 1)[-1]
    if name in ("apply", "init", "init_with_output"):
        if not rest:
            return UNKNOWN
        variables = rest[0]
        decoding = name == "apply" and _applies_cache(variables, kwargs.get("mutable"), inst)
        method = kwargs.pop("method", None)
        kwargs = {k: v for k, v in kwargs.items() if k not in _APPLY_ONLY}
        target: Value | None
        if method is None or (isinstance(method, ConstV) and method.value is None):
            target = inst.cls.lookup("__call__")
        elif isinstance(method, ConstV) and isinstance(method.value, str):
            target = inst.cls.lookup(method.value)
        elif isinstance(method, FunctionV):
            target = method
        else:
            target = None
        if target is None:
            return UNKNOWN
        new_ctx = _applying(interp, name, variables, node, fr)
        fresh = InstanceV(inst.cls, dict(inst.attrs), False, inst.why, False)
        saved = fr.ctx
        fr.ctx = new_ctx
        interp.linen_decoding += decoding
        try:
            A.linen_setup(interp, fresh, new_ctx, generic=fr.generic)
            out = interp.call(BoundMethodV(target, fresh), rest[1:], kwargs, False, node, fr)
        finally:
            fr.ctx = saved
            interp.linen_decoding -= decoding
        if name == "apply":
            return out
        return InitVariablesV(_module_key(inst)) if name == "init" else UNKNOWN
    if name == "param":
        shape = None
        if len(rest) >= 3:
            shape = shape_of(rest[2])
        dtype = A.dtype_or(rest[3] if len(rest) >= 4 else None, "float32")
        return ArrayV(shape, dtype, params_diff_of(fr.ctx, rest[0] if rest else None), (interp.step(fr, node, A.src(node)),))
    return UNKNOWN




class InitVariablesV(UnknownV):
    """What a linen module's `init` returns: Unknown as a value, but known to be the
    variables of a module of that class and fields, cache included when its attention
    layers decode."""

    module: object  # the class's def and the module's fields (their keys)

    def __init__(self, module: object, diff: bool = False) -> None:
        super().__init__(diff)
        object.__setattr__(self, "module", module)

    def key(self) -> object:
        return ("?", self.diff, "init", self.module)

    def tainted(self, diff: bool) -> Value:
        return self if diff == self.diff else InitVariablesV(self.module, diff)


def _module_key(inst: InstanceV) -> object:
    """A linen module's class and fields: `Decoder(decode=False).init` made no cache for `Decoder()`."""
    return (id(inst.cls.node), tuple(sorted((name, value.key()) for name, value in inst.attrs.items())))


def _applies_cache(variables: Value, mutable: Value | None, inst: InstanceV) -> bool:
    """`apply({"params": p, "cache": c}, x, mutable=["cache"])`, or `apply(variables, ...)`
    with what the module's own `init` gave: a decode step that reads and updates a cache
    it is given (certainly: a literal dict with a "cache", or init's variables)."""
    given = isinstance(variables, DictV) and any(k == "cache" for k, _ in variables.items)
    if not (given or isinstance(variables, InitVariablesV) and variables.module == _module_key(inst)):
        return False
    if isinstance(mutable, ConstV):
        return mutable.value is True or mutable.value == "cache"
    return isinstance(mutable, TupleV) and any(isinstance(i, ConstV) and i.value == "cache" for i in mutable.items)


def _applying(interp: Interpreter, name: str, variables: Value, node: ast.AST, fr: Frame) -> Ctx:
    """The context `module.apply(variables, ...)` (or init) runs the module in: its
    parameters are differentiated when the variables are."""
    params_diff = name == "apply" and contains_diff(variables)
    ctx = fr.ctx
    why = ctx.params_diff_why + ((interp.step(fr, node, f"{A.src(node)} applies differentiated parameters"),) if params_diff else ())
    params = variables.get("params") if name == "apply" and isinstance(variables, DictV) else None
    tree = diff_tree(params) if params is not None and not ctx.params_diff else None
    return Ctx(ctx.chain, ctx.transforms, params_diff or ctx.params_diff, why, ctx.vmaps, ctx.depth, ctx.x64, ctx.precision, ctx.second_order, ctx.handled, ctx.config_precision, tree, ctx.mesh, ctx.staged_handled, None, ctx.guarded)


def diff_tree(params: Value) -> DiffTree | None:
    """Which parts of a literal params dict are differentiated, by submodule and
    parameter name (`{"encoder": frozen, "head": head}` under a grad over the head);
    None for anything but a dict with string keys."""
    if not isinstance(params, DictV) or not all(isinstance(key, str) for key, _ in params.items):
        return None
    entries: list[tuple[str, bool | DiffTree]] = []
    for key, value in params.items:
        sub = diff_tree(value) if isinstance(value, DictV) else None
        entries.append((str(key), sub if sub is not None else contains_diff(value)))
    return tuple(entries)



def call_lifted_method(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`ScanLayers().apply(variables, *xs)` / `.init(rng, *xs)` of a module-level
    `ScanLayers = nn.scan(Layer, ...)`: the lifted module's call, run as apply runs it."""
    return _apply_method(interp, q, args, kwargs, node, fr, lambda obj, xs, kw: _lifted(interp, obj, xs, kw, node, fr))


def embed_attend(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`embed.attend(x)` of flax's Embed (nnx and linen): `x @ embedding.T`, the logits
    of a tied output layer, (..., num_embeddings) (probe 56c: a draft model's logits fed a
    speculative step).  Its dtype: the layer's `dtype`; else nnx's, which its constructor
    sets to the table's `param_dtype`, and linen's query and table promoted (flax 0.12).
    Where analysed code replaces a layer's parameters, the table's size and dtype are
    not the constructor's (probe 57a: a vocabulary resized by `embed.embedding = ...`)."""
    obj = args[0] if args else None
    x_value = args[1] if len(args) > 1 else kwargs.get("query")
    if not isinstance(obj, ExtObjectV) or x_value is None:
        return UNKNOWN
    diff = obj.diff or params_diff_of(fr.ctx, obj.kwarg("name")) or x_value.diff
    x = _arr(x_value)
    replaced = any(info.facts.replaces_parameters() for info in interp.project.parsed)
    given = obj.kwarg("dtype")
    table = None if replaced else A.dtype_or(obj.kwarg("param_dtype"), "float32")
    if not absent(given):
        dtype = A.dtype_name(given)
    elif obj.qualname.startswith("flax.nnx"):
        dtype = A.dtype_or(obj.kwarg("param_dtype"), "float32")
    else:
        dtype = promote(x.dtype, table) if x is not None and table is not None else None
    if x is None or x.shape is None or not x.shape:
        return ArrayV(None, dtype, diff)
    vocab = _get(obj, 0, "num_embeddings")
    width = vocab.dim.with_why(interp.step(fr, node, f"Embed.attend {A.src(node)}")) if isinstance(vocab, IntV) and not replaced else D.unknown()
    return ArrayV(x.shape[:-1] + (width,), dtype, diff, x.why)


def call_layer_method(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`mha.apply(variables, x)` / `mha.init(rng, x)` of flax's own attention module used
    as the top-level module (a unit test, a notebook): its call, run as apply runs it."""
    return _apply_method(interp, q, args, kwargs, node, fr, lambda obj, xs, kw: call_layer(interp, obj, xs, kw, False, node, fr))


def _apply_method(
    interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, run: Callable[[ExtObjectV, list[Value], Kwargs], Value]
) -> Value:
    obj = args[0] if args else None
    name = q.rsplit(".", 1)[-1]
    if not isinstance(obj, ExtObjectV) or len(args) < 2 or "method" in kwargs:
        return UNKNOWN
    kwargs = {k: v for k, v in kwargs.items() if k not in _APPLY_ONLY}
    saved = fr.ctx
    fr.ctx = _applying(interp, name, args[1], node, fr)
    try:
        out = run(obj, list(args[2:]), kwargs)
    finally:
        fr.ctx = saved
    return out if name == "apply" else UNKNOWN


# -- haiku: hk.transform(f) gives init / apply that call f -----------------------------------------
def haiku_transform(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """hk.transform(f), hk.transform_with_state(f), hk.without_apply_rng(t): an object
    that remembers f, whether apply takes a state and whether it takes an rng."""
    name = q.rsplit(".", 1)[-1]
    step = interp.step(fr, node, A.src(node))
    if name == "without_apply_rng":
        inner = args[0] if args else None
        if isinstance(inner, ExtObjectV) and inner.qualname in _HAIKU_MULTI_TRANSFORMS:
            return _multi_transformed(interp, inner.qualname, inner.args[0], False, node, fr, step)
        if not isinstance(inner, ExtObjectV) or inner.qualname not in _HAIKU_TRANSFORMS:
            return UNKNOWN
        return ExtObjectV(inner.qualname, inner.args, (*inner.kwargs, ("apply_rng", ConstV(False))), (step,))
    if not args:
        return UNKNOWN
    if q in _HAIKU_MULTI_TRANSFORMS:
        return _multi_transformed(interp, q, args[0], True, node, fr, step)
    return ExtObjectV(q, (args[0],), (), (step,))


_HAIKU_TRANSFORMS = ("haiku.transform", "haiku.transform_with_state")
_HAIKU_MULTI_TRANSFORMS = ("haiku.multi_transform", "haiku.multi_transform_with_state")


def _multi_transformed(interp: Interpreter, q: str, setup: Value, apply_rng: bool, node: ast.AST, fr: Frame, step: Step) -> Value:
    """hk.multi_transform(f): f() returns (an init function, a tree of functions); the
    object's `apply` is that tree, each an hk.transform's apply of its function (probe
    118b: `(encode,) = f.apply`, differentiated)."""
    made = interp.call(setup, [], {}, False, node, fr)
    if not (isinstance(made, TupleV) and len(made.items) == 2):
        return ExtObjectV(q, (setup,), (("apply", UNKNOWN),), (step,))
    single = "haiku.transform_with_state" if q.endswith("_with_state") else "haiku.transform"
    options: tuple[tuple[str, Value], ...] = () if apply_rng else (("apply_rng", ConstV(False)),)

    def applied(fn: Value, depth: int = 0) -> Value:
        if isinstance(fn, TupleV) and depth < 4:
            return TupleV(tuple(applied(item, depth + 1) for item in fn.items), fn.is_list, fn.why)
        if isinstance(fn, DictV) and depth < 4:
            return DictV(tuple((key, applied(item, depth + 1)) for key, item in fn.items), fn.why)
        return BoundMethodV(ExternalV(f"{single}.apply"), ExtObjectV(single, (fn,), options, (step,)))

    return ExtObjectV(q, (setup,), (("apply", applied(made.items[1])),), (step,))


def haiku_apply(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`model.apply(params, [state,] [rng,] *inputs)` calls f on the inputs; with
    differentiated params every haiku layer in f computes with differentiated weights.
    `model.init(rng, *inputs)` calls f too (its events count; the params are unknown)."""
    if not args or not isinstance(args[0], ExtObjectV):
        return UNKNOWN
    transformed, rest = args[0], list(args[1:])
    func = transformed.args[0]
    with_state = transformed.qualname == "haiku.transform_with_state"
    apply_rng = transformed.kwarg("apply_rng")
    takes_rng = not (isinstance(apply_rng, ConstV) and apply_rng.value is False)
    kwargs = {k: v for k, v in kwargs.items() if k != "rng"}
    if q.endswith(".init"):
        if not rest:
            return UNKNOWN
        interp.call(func, rest[1:], kwargs, False, node, fr)
        return UNKNOWN
    skip = 1 + int(with_state) + int(takes_rng and "rng" not in kwargs)
    if len(rest) < skip:
        return UNKNOWN
    params, inputs = rest[0], rest[skip:]
    given = contains_diff(params)
    if not given and fr.ctx.params_diff:
        # an apply inside a model whose parameters are differentiated, of parameters that
        # carry no tangent here: a frozen teacher's, or `hk.experimental.lift`ed ones put
        # under stop_gradient (probe 155a); where they are not known key by key, whether
        # the outer ones reach them is not known (JCD202, not JCD201)
        if not isinstance(params, DictV):
            fr.ctx = fr.ctx.reach_unknown()
        out = _call_with_params(interp, func, inputs, kwargs, False, node, fr, inherit=False)
    else:
        out = _call_with_params(interp, func, inputs, kwargs, given, node, fr)
    return TupleV((out, UNKNOWN)) if with_state else out


def _call_with_params(interp: Interpreter, func: Value, args: Args, kwargs: Kwargs, params_diff: bool, node: ast.AST, fr: Frame, inherit: bool = True) -> Value:
    """Call a model function whose parameters are (or are not) being differentiated;
    `inherit`: as well as those of the model it runs in."""
    ctx = fr.ctx
    why = (ctx.params_diff_why if inherit else ()) + ((interp.step(fr, node, f"{A.src(node)} applies differentiated parameters"),) if params_diff else ())
    saved = fr.ctx
    fr.ctx = Ctx(ctx.chain, ctx.transforms, params_diff or inherit and ctx.params_diff, why, ctx.vmaps, ctx.depth, ctx.x64, ctx.precision, ctx.second_order, ctx.handled, ctx.config_precision, None, ctx.mesh, ctx.staged_handled, None, ctx.guarded)
    try:
        return interp.call(func, args, kwargs, False, node, fr)
    finally:
        fr.ctx = saved
