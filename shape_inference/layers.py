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
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import dims as D
from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference.context import Ctx
from jax_cudnn_lint.shape_inference.dims import Dim, Step
from jax_cudnn_lint.shape_inference.dtypes import promote
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
    OpaqueV,
    TupleV,
    UnknownV,
    Value,
    contains_diff,
    int_value,
    shape_of,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]


def _get(obj: ExtObjectV, i: int, name: str) -> Value | None:
    if i < len(obj.args):
        return obj.args[i]
    return obj.kwarg(name)


def _in(args: Args, kwargs: Kwargs, i: int, name: str) -> Value | None:
    if i < len(args):
        return args[i]
    return kwargs.get(name)


def _arr(v: Value | None) -> ArrayV | None:
    if isinstance(v, ArrayV):
        return v
    if isinstance(v, OpaqueV):
        return ArrayV(None, None, v.diff, v.why, v.name)
    return None


def _out_dtype(obj: ExtObjectV, x: ArrayV) -> str | None:
    explicit = A.dtype_name(obj.kwarg("dtype"))
    if explicit is not None:
        return explicit
    if obj.qualname.startswith(("flax.", "haiku.")):
        param = A.dtype_name(obj.kwarg("param_dtype")) or "float32"
        return promote(x.dtype, param)
    return x.dtype


def _features(v: Value | None) -> tuple[Dim, ...] | None:
    if v is None:
        return None
    if isinstance(v, IntV):
        return (v.dim,)
    return shape_of(v)


def call_layer(interp: Interpreter, obj: ExtObjectV, args: Args, kwargs: Kwargs, star: bool, node: ast.AST, fr: Frame) -> Value:
    if star:
        return UNKNOWN
    q = obj.qualname
    short = q.rsplit(".", 1)[-1]
    x_value = args[0] if args else next(iter(kwargs.values()), None)
    diff = obj.diff or fr.ctx.params_diff or (x_value.diff if x_value is not None else False)
    x = _arr(x_value)
    step = interp.step(fr, node, f"{short} {A.src(node)}")
    if short in ("MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention") and q.startswith(("flax.linen", "flax.nnx")):
        return _mha(interp, obj, args, kwargs, node, fr, diff)
    if x is None:
        return UnknownV(diff)
    if short in ("Dense", "Linear") and q.startswith(("flax.linen", "haiku")):
        feats = _features(_get(obj, 0, "features" if q.startswith("flax") else "output_size"))
        if x.shape is None or feats is None:
            return ArrayV(None, _out_dtype(obj, x), diff)
        return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), _out_dtype(obj, x), diff, x.why)
    if short == "Linear" and q.startswith("flax.nnx"):
        feats = _features(_get(obj, 1, "out_features"))
        if x.shape is None or feats is None:
            return ArrayV(None, _out_dtype(obj, x), diff)
        return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), _out_dtype(obj, x), diff, x.why)
    if short == "Linear" and q.startswith("equinox"):
        out = _get(obj, 1, "out_features")
        if isinstance(out, ConstV) and out.value == "scalar":
            return ArrayV(x.shape[:-1] if x.shape else None, x.dtype, diff)
        feats = _features(out)
        if x.shape is None or feats is None:
            return ArrayV(None, x.dtype, diff)
        return ArrayV(x.shape[:-1] + tuple(f.with_why(step) for f in feats), x.dtype, diff, x.why)
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
            feats = obj.kwarg("embed_dim")
        if x.shape is None or not isinstance(feats, IntV):
            return ArrayV(None, _out_dtype(obj, x), diff)
        dtype = A.dtype_name(obj.kwarg("dtype")) or ("float32" if q.startswith("flax") else None)
        return ArrayV(x.shape + (feats.dim.with_why(step),), dtype, diff, x.why)
    if short in ("LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm"):
        return ArrayV(x.shape, _out_dtype(obj, x), diff, x.why, x.name)
    if short == "Dropout":
        return ArrayV(x.shape, x.dtype, diff, x.why, x.name)
    if short == "MultiheadAttention" and q.startswith("equinox"):
        return ArrayV(x.shape, x.dtype, diff)
    return UnknownV(diff)


_NNX_ATTENTION_KWARGS = ("dropout_rng", "dropout_rate", "broadcast_dropout", "deterministic", "dtype", "precision", "module", "is_causal")


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
    dtype = A.dtype_name(obj.kwarg("dtype"))
    param = A.dtype_name(obj.kwarg("param_dtype")) or "float32"
    step = Step(fr.module.path, getattr(node, "lineno", 0), f"{q.rsplit('.', 1)[-1]}(num_heads=..., attention_fn=...) projects to heads")
    head_dim: Dim | None = None
    if isinstance(num_heads, IntV) and isinstance(qkv, IntV):
        hd = D.floordiv(qkv.dim, num_heads.dim)
        head_dim = hd if hd.value is not None or hd.poly is not None else None

    def project(x: ArrayV | None) -> ArrayV:
        if x is None or x.shape is None or head_dim is None or not isinstance(num_heads, IntV):
            return ArrayV(None, dtype or (promote(x.dtype, param) if x else None), diff)
        return ArrayV(x.shape[:-1] + (num_heads.dim.with_why(step), head_dim.with_why(step)), dtype or promote(x.dtype, param), diff, x.why)

    query, key, value = project(inputs_q), project(inputs_k), project(inputs_v)
    fn = obj.kwarg("attention_fn")
    if fn is not None and not (isinstance(fn, ExternalV) and fn.qualname in ("flax.linen.dot_product_attention", "flax.nnx.dot_product_attention")):
        call_kwargs: Kwargs = {}
        mask = kwargs.get("mask")
        if nnx:
            # nnx passes its keywords unconditionally (flax 0.12): an attention_fn
            # that does not take them fails with a TypeError, which binding shows
            call_kwargs = {name: UNKNOWN for name in _NNX_ATTENTION_KWARGS}
            call_kwargs["mask"] = mask if mask is not None else ConstV(None)
        elif mask is not None and not (isinstance(mask, ConstV) and mask.value is None):
            # linen keeps only the keywords the attention_fn's signature accepts
            call_kwargs["mask"] = mask
        via = (Step(fr.module.path, getattr(node, "lineno", 0), f"called by {q}(attention_fn=...)"),)
        interp.call(fn, [query, key, value], call_kwargs, False, node, fr, via)
    out_features = obj.kwarg("out_features")
    if inputs_q is None or inputs_q.shape is None:
        return ArrayV(None, dtype, diff)
    last = out_features.dim if isinstance(out_features, IntV) else (inputs_q.shape[-1] if not nnx else (in_features.dim if isinstance(in_features, IntV) else D.unknown()))  # type: ignore[possibly-undefined]
    return ArrayV(inputs_q.shape[:-1] + (last,), dtype or promote(inputs_q.dtype, param), diff, inputs_q.why)


# -- namespaces (ConfigDict, SimpleNamespace) ------------------------------------------------------
_NAMESPACE_CLASSES: dict[str, ClassV] = {}


def make_namespace(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    cls = _NAMESPACE_CLASSES.get(q)
    if cls is None:
        cls = ClassV(ast.ClassDef(name=q.rsplit(".", 1)[-1], bases=[], keywords=[], body=[], decorator_list=[]), fr.module, (), {}, [], q)
        _NAMESPACE_CLASSES[q] = cls
    inst = InstanceV(cls, {}, False, (interp.step(fr, node, A.src(node)),))
    if args and isinstance(args[0], DictV):
        for k, v in args[0].items:
            if isinstance(k, str):
                inst.attrs[k] = v
    elif args:
        return UNKNOWN
    for k, v in kwargs.items():
        inst.attrs[k] = v
    return inst


# -- flax linen Module methods ---------------------------------------------------------------------
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
        method = kwargs.pop("method", None)
        kwargs = {k: v for k, v in kwargs.items() if k not in ("rngs", "mutable", "capture_intermediates")}
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
        params_diff = name == "apply" and contains_diff(variables)
        ctx = fr.ctx
        why = ctx.params_diff_why + ((interp.step(fr, node, f"{A.src(node)} applies differentiated parameters"),) if params_diff else ())
        new_ctx = Ctx(ctx.chain, ctx.transforms, params_diff or ctx.params_diff, why, ctx.vmaps, ctx.depth, ctx.x64, ctx.precision)
        fresh = InstanceV(inst.cls, dict(inst.attrs), False, inst.why, False)
        saved = fr.ctx
        fr.ctx = new_ctx
        try:
            A.linen_setup(interp, fresh, new_ctx, generic=fr.generic)
            out = interp.call(BoundMethodV(target, fresh), rest[1:], kwargs, False, node, fr)
        finally:
            fr.ctx = saved
        if name == "apply":
            return out
        return UNKNOWN
    if name == "param":
        shape = None
        if len(rest) >= 3:
            shape = shape_of(rest[2])
        dtype = A.dtype_name(rest[3]) if len(rest) >= 4 else None
        return ArrayV(shape, dtype or "float32", fr.ctx.params_diff, (interp.step(fr, node, A.src(node)),))
    return UNKNOWN


