"""Calls to external functions, by canonical qualified name: builtins, functools,
jax.numpy / numpy, jax.lax, jax.random, jax.nn, einops, and the constructors of
the flax / equinox / haiku layers we model (which become `ExtObjectV`s).
"""

from __future__ import annotations

import ast
import re
import dataclasses
import sys
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference import absl_flags, argparse_seeds, attribute_dicts, case_rows, cli_commands, configdict, data_files, enums, environment, fiddle_configs, filter_specs, paths, iterables, sharding, windows
from jax_cudnn_lint.shape_inference import dims as D
from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference import shapes as S
from jax_cudnn_lint.shape_inference.dims import Dim, Step, Why, merge_why
from jax_cudnn_lint.shape_inference.context import CallEvent, Ctx, with_config
from jax_cudnn_lint.shape_inference.modules import LIST_CHANGERS, NOT_PROJECT_MODULES, ModuleInfo
from jax_cudnn_lint.shape_inference.scopes import CONTEXT_FLAGS, config_update, dotted_name, in_prelude, top_level_imports
from jax_cudnn_lint.shape_inference.dtypes import DTYPE_BYTES, canonical_dtype, is_float, promote, real_part
from jax_cudnn_lint.shape_inference.values import (
    NEVER,
    STORED_UNSPELLED,
    UNKNOWN,
    ArrayV,
    BoundMethodV,
    ClassV,
    ConstV,
    DTypeV,
    DictV,
    ExternalV,
    ExtObjectV,
    FunctionV,
    InstanceV,
    FloatV,
    IntV,
    IterV,
    ModuleV,
    OpaqueV,
    PartialV,
    SetV,
    SliceV,
    TransformV,
    TupleV,
    UnknownV,
    Value,
    any_diff,
    class_chain,
    const_value,
    fresh_copies,
    int_value,
    join,
    next_serial,
    make_int,
    shape_of,
    live_view,
    map_arrays,
    mark_changed_in_place,
    absent,
    as_array as _array,
    call_arg as arg,
    same_key,
    mark_lora,
    not_a_sequence,
    is_mutable_list,
    still_describes,
    view_of,
    with_key,
    without_key,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]
Handler = Callable[["Interpreter", Args, Kwargs, ast.AST, "Frame", str], Value]


def _shape_arg(v: Value | None) -> tuple[Dim, ...] | None:
    if v is None:
        return None
    if isinstance(v, OpaqueV):
        return None
    return shape_of(v)


def _axis(v: Value | None, default: int | None) -> int | None:
    if v is None:
        return default
    return int_value(v)


# -- creation -----------------------------------------------------------------------------
def _default_float(qualname: str) -> str:
    return "float64" if qualname.startswith("numpy.") else "float32"


def h_zeros(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    shape = _shape_arg(arg(args, kwargs, 0, "shape"))
    dtype = A.dtype_or(arg(args, kwargs, 1, "dtype"), _default_float(q))
    step = interp.step(fr, node, f"{q.rsplit('.', 1)[-1]}{A.src(node)[A.src(node).find('('):]}")
    return ArrayV(shape, dtype, False, (step,))


def h_full(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    shape = _shape_arg(arg(args, kwargs, 0, "shape"))
    fill = arg(args, kwargs, 1, "fill_value")
    inferred: str | None = None
    if isinstance(fill, ConstV) and isinstance(fill.value, bool):
        inferred = "bool"
    elif isinstance(fill, ConstV) and isinstance(fill.value, float):
        inferred = _default_float(q)
    elif isinstance(fill, ArrayV):
        inferred = fill.dtype
    given = arg(args, kwargs, 2, "dtype")
    dtype = A.dtype_or(given, inferred)
    # jnp.full(shape, 0.5) of a Python number is weakly typed, as the number is
    weak = not q.startswith("numpy.") and A.dtype_or(given, "") == "" and fill is not None and _is_python_number(fill)
    # a differentiated fill value makes a differentiated array (probe 64b: a diffusion
    # timestep broadcast by `jnp.full(x.shape, t)`)
    made = ArrayV(shape, dtype, False, (interp.step(fr, node, A.src(node)),), weak=weak)
    return made.tainted(True) if fill is not None and fill.diff and not q.startswith("numpy.") else made


def h_like(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    base = _array(arg(args, kwargs, 0, "a"))
    dtype_pos = 2 if q.endswith("full_like") else 1
    dtype = A.dtype_or(arg(args, kwargs, dtype_pos, "dtype"), base.dtype if base else None)
    shape_v = kwargs.get("shape")
    shape = _shape_arg(shape_v) if shape_v is not None else (base.shape if base is not None else None)
    made = ArrayV(shape, dtype, False, base.why if base else ())
    fill = arg(args, kwargs, 1, "fill_value") if q.endswith("full_like") else None
    return made.tainted(True) if fill is not None and fill.diff and not q.startswith("numpy.") else made


def h_arange(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    given = kwargs.get("dtype")
    dtype = A.dtype_or(given, "int32")
    values = [int_value(a) for a in args[:3]]
    step_node = interp.step(fr, node, A.src(node))
    if len(args) == 1 and isinstance(args[0], IntV):
        return ArrayV((args[0].dim.with_why(step_node),), dtype, False)
    known = [v for v in values if v is not None]
    count = D.range_len(*([0] + known if len(known) == 1 else known)) if values and len(known) == len(values) else None
    if count is not None:
        return ArrayV((D.const(count, (step_node,)),), dtype, False)
    if len(args) == 2 and isinstance(args[0], IntV) and isinstance(args[1], IntV) and args[0].dim.value == 0:
        return ArrayV((args[1].dim,), dtype, False)
    floats = _float_range_len(args, kwargs)
    if floats is not None:
        # `np.arange(-90.0, 90.25, 0.25)`: a latitude grid of 721 (probe 101e)
        return ArrayV((D.const(floats, (step_node,)),), A.dtype_or(given, "float64" if q.startswith("numpy.") else "float32"), False)
    return ArrayV(None, A.dtype_or(given, None), False)


def _float_range_len(args: Args, kwargs: Kwargs) -> int | None:
    """The length of `arange(start, stop, step)` with a float among known numbers, as
    NumPy computes it (`ceil((stop - start) / step)`, in doubles as here); None where
    a bound is not known or a step is 0."""
    if not 1 <= len(args) <= 3 or set(kwargs) - {"dtype"}:
        return None
    numbers: list[float] = []
    for value in args:
        ok, number = const_value(value)
        if not ok or type(number) not in (int, float) or isinstance(number, float) and not math.isfinite(number):
            return None
        numbers.append(cast(float, number))
    if not any(type(number) is float for number in numbers):
        return None
    start, stop, step = (0.0, numbers[0], 1.0) if len(numbers) == 1 else (numbers[0], numbers[1], numbers[2] if len(numbers) == 3 else 1.0)
    ratio = (stop - start) / step if step else math.inf
    return max(0, math.ceil(ratio)) if math.isfinite(ratio) else None


def h_iota(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.broadcasted_iota(dtype, shape, dimension) / lax.iota(dtype, size): masks are
    built from them (`row >= col`)."""
    dtype = A.dtype_or(arg(args, kwargs, 0, "dtype"), None)
    if q.endswith("broadcasted_iota"):
        shape = _shape_arg(arg(args, kwargs, 1, "shape"))
    else:
        size = arg(args, kwargs, 1, "size")
        shape = (size.dim,) if isinstance(size, IntV) else None
    return ArrayV(shape, dtype, False, (interp.step(fr, node, A.src(node)),))


def h_take_along_axis(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.take_along_axis(arr, indices, axis): the indices' length on `axis`, the other
    axes broadcast (an MAE decoder's un-shuffle of the kept tokens)."""
    arr, indices = _array(arg(args, kwargs, 0, "arr")), _array(arg(args, kwargs, 1, "indices"))
    axis = _axis(arg(args, kwargs, 2, "axis"), None)
    if arr is None:
        return UNKNOWN
    diff = arr.diff
    if indices is None or arr.shape is None or indices.shape is None or axis is None or len(arr.shape) != len(indices.shape):
        return ArrayV(None, arr.dtype, diff, arr.why)
    rank = len(arr.shape)
    if not -rank <= axis < rank:
        return ArrayV(None, arr.dtype, diff, arr.why)
    axis %= rank
    others = S.broadcast_shapes(tuple(d for i, d in enumerate(arr.shape) if i != axis), tuple(d for i, d in enumerate(indices.shape) if i != axis))
    if others is None:
        return ArrayV(None, arr.dtype, diff, arr.why)
    shape = (*others[:axis], indices.shape[axis], *others[axis:])
    return ArrayV(shape, arr.dtype, diff, arr.why)


def h_argsort(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.argsort(a, axis=-1): indices of a's shape (an MAE's ids_restore)."""
    a = _array(arg(args, kwargs, 0, "a"))
    axis = arg(args, kwargs, 1, "axis")
    flattened = isinstance(axis, ConstV) and axis.value is None  # axis=None sorts the flattened array
    return ArrayV(a.shape if a is not None and not flattened else None, "int32", False)


def h_eye(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.eye / jnp.tri(N, M=None, k=0, dtype=None): (N, M or N), float unless told
    (`jnp.tri(T)` as a causal mask is a float32 one)."""
    n = arg(args, kwargs, 0, "N")
    m = arg(args, kwargs, 1, "M")
    dtype = A.dtype_or(arg(args, kwargs, 3, "dtype"), _default_float(q))
    if not isinstance(n, IntV):
        return ArrayV(None, dtype, False)
    if m is None or (isinstance(m, ConstV) and m.value is None):
        return ArrayV((n.dim, n.dim), dtype, False)
    return ArrayV((n.dim, m.dim if isinstance(m, IntV) else D.unknown()), dtype, False)  # an M we cannot read is not N


def _nested_shape(v: Value) -> tuple[tuple[Dim, ...], str | None] | None:
    """The shape and dtype np.array gives nested lists; None where a row was changed in
    place (`for r in rows: r.append(EOS)`: the list is not what it was made as) or the
    rows differ in length (np.array raises on ragged rows: probe 45a)."""
    if isinstance(v, TupleV):
        if v.changed_in_place:
            return None
        if not v.items:
            return (D.const(0),), None
        inner = [_nested_shape(i) for i in v.items]
        if any(i is None for i in inner):
            return None
        first = inner[0]
        assert first is not None
        if any(i is None or len(i[0]) != len(first[0]) or any(not a.same_as(b) for a, b in zip(i[0], first[0])) for i in inner):
            return None
        dtype = first[1]
        for i in inner[1:]:
            assert i is not None
            dtype = promote(dtype, i[1]) if dtype != i[1] else dtype
        return (D.const(len(v.items)),) + first[0], dtype
    if isinstance(v, IntV):
        return (), "int32"
    if isinstance(v, ConstV) and isinstance(v.value, bool):
        return (), "bool"
    if isinstance(v, ConstV) and isinstance(v.value, float):
        return (), "float32"
    if isinstance(v, ArrayV) and v.shape is not None:
        return v.shape, v.dtype
    if isinstance(v, ExtObjectV) and v.qualname == "jax.Device":
        return (), None  # (an array of devices, for a Mesh)
    return None


def h_array(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    src = arg(args, kwargs, 0, "object")
    given = arg(args, kwargs, 1, "dtype")
    dtype = A.dtype_or(given, None)
    if isinstance(src, ArrayV):
        return ArrayV(src.shape, A.dtype_or(given, src.dtype), src.diff if dtype is None or dtype.startswith(("float", "bfloat")) else False, src.why, src.name)
    if src is None:
        return UNKNOWN
    nested = _nested_shape(src)
    if nested is None:
        return ArrayV(None, dtype, src.diff)
    shape, inferred = nested
    if inferred == "float32" and q.startswith("numpy."):
        inferred = "float64"
    if inferred == "int32" and q.startswith("numpy."):
        inferred = "int64"
    # jnp.array(0.125) of a Python number is weakly typed (a list of them is not)
    weak = not q.startswith("numpy.") and A.dtype_or(given, "") == "" and _is_python_number(src)
    return ArrayV(shape, A.dtype_or(given, inferred), src.diff, (interp.step(fr, node, A.src(node)),), weak=weak)


def _is_python_number(value: Value) -> bool:
    """An int or float (not a bool: JAX types Python bools strongly)."""
    return A.is_python_number(value) and not (isinstance(value, ConstV) and isinstance(value.value, bool))


def h_random(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    name = q.rsplit(".", 1)[-1]
    step = interp.step(fr, node, A.src(node))
    if name in ("PRNGKey", "key"):
        return ArrayV((D.const(2),), "uint32", False, (step,))
    if name == "split":
        n = arg(args, kwargs, 1, "num")
        count = n.dim if isinstance(n, IntV) else D.const(2)
        return ArrayV((count, D.const(2)), "uint32", False, (step,))
    if name in ("fold_in",):
        return ArrayV((D.const(2),), "uint32", False, (step,))
    if name in ("bernoulli",):
        shape = _shape_arg(arg(args, kwargs, 2, "shape"))
        return ArrayV(shape, "bool", False, (step,))
    if name in ("randint",):
        shape = _shape_arg(arg(args, kwargs, 1, "shape"))
        return ArrayV(shape, A.dtype_or(arg(args, kwargs, 4, "dtype"), "int32"), False, (step,))
    if name == "categorical":
        return _categorical(args, kwargs, fr, step)
    if name == "permutation":
        # `permutation(key, n)`: the n indices shuffled; of an array, the array shuffled
        # (MAE's visible tokens, `permutation(key, 64)[:25]`: probe 76b)
        x = arg(args, kwargs, 1, "x")
        if isinstance(x, IntV):
            return ArrayV((x.dim.with_why(step),), "int64" if x64_enabled(fr) else "int32", False, (step,))
        return ArrayV(x.shape, x.dtype, x.diff, x.why) if isinstance(x, ArrayV) else ArrayV(None, None, False)
    if name == "choice":
        return ArrayV(None, None, False)
    if name in ("uniform", "normal", "truncated_normal", "orthogonal", "gumbel", "laplace", "rademacher", "exponential"):
        if name == "truncated_normal":
            shape = _shape_arg(arg(args, kwargs, 3, "shape"))
            dtype = A.dtype_or(arg(args, kwargs, 4, "dtype"), "float32")
        else:
            shape = _shape_arg(arg(args, kwargs, 1, "shape"))
            dtype = A.dtype_or(arg(args, kwargs, 2, "dtype"), "float32")
        return ArrayV(shape, dtype, False, (step,))
    return UNKNOWN


def _categorical(args: Args, kwargs: Kwargs, fr: Frame, step: Step) -> Value:
    """`jax.random.categorical(key, logits, axis=-1, shape=None)`: indices of `shape`, else
    of the logits' shape without `axis` (probe 73b: tokens sampled, then trained on)."""
    index = "int64" if x64_enabled(fr) else "int32"
    given = arg(args, kwargs, 3, "shape")
    if given is not None and not (isinstance(given, ConstV) and given.value is None):
        return ArrayV(_shape_arg(given), index, False, (step,))
    logits = arg(args, kwargs, 1, "logits")
    axis = int_value(arg(args, kwargs, 2, "axis") or make_int(-1))
    if not isinstance(logits, ArrayV) or logits.shape is None or axis is None or not -len(logits.shape) <= axis < len(logits.shape):
        return ArrayV(None, index, False)
    kept = tuple(size for i, size in enumerate(logits.shape) if i != axis % len(logits.shape))
    return ArrayV(kept, index, False, (step,))


def h_np_random(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    name = q.rsplit(".", 1)[-1]
    step = interp.step(fr, node, A.src(node))
    if name in ("randn", "rand"):
        dims = [a.dim for a in args if isinstance(a, IntV)]
        if len(dims) == len(args):
            return ArrayV(tuple(dims), "float64", False, (step,))
        return ArrayV(None, "float64", False)
    if name in ("normal", "uniform", "standard_normal", "random"):
        size = kwargs.get("size") if name != "standard_normal" and name != "random" else arg(args, kwargs, 0, "size")
        if size is None and len(args) >= 3:
            size = args[2]
        shape = _shape_arg(size) if size is not None else ()
        return ArrayV(shape, "float64", False, (step,))
    if name == "randint":
        size = kwargs.get("size") or (args[2] if len(args) > 2 else None)
        return ArrayV(_shape_arg(size) if size is not None else (), "int64", False, (step,))
    return UNKNOWN


# numpy's Generator methods (np.random.default_rng(seed).integers(...)): where `size` is
_GENERATOR_SIZE = {"integers": 2, "random": 0, "normal": 2, "uniform": 2, "standard_normal": 0, "randint": 2}


def h_np_generator(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`rng.integers(0, vocab, size=(B, T + 1))`, the data pipelines' token batches;
    args[0] is the generator itself."""
    name = q.rsplit(".", 1)[-1]
    size = arg(args[1:], kwargs, _GENERATOR_SIZE[name], "size")
    shape = () if size is None or (isinstance(size, ConstV) and size.value is None) else _shape_arg(size)
    dtype = A.dtype_or(kwargs.get("dtype"), ("int64" if name in ("integers", "randint") else "float64"))
    return ArrayV(shape, dtype, False, (interp.step(fr, node, A.src(node)),))


def h_shape_dtype_struct(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    shape = _shape_arg(arg(args, kwargs, 0, "shape"))
    dtype = A.dtype_name(arg(args, kwargs, 1, "dtype"))
    return ArrayV(shape, dtype, False, (interp.step(fr, node, A.src(node)),))


# -- shape-changing operations -----------------------------------------------------------------
def _array_and_sequence(args: Args, kwargs: Kwargs, method: str, q: str, names: tuple[str, ...]) -> tuple[ArrayV | None, Value | None]:
    """`x.reshape(2, 3)` / `x.reshape((2, 3))` / `jnp.reshape(x, (2, 3))`: the array and the sequence."""
    arr = _array(args[0] if args else kwargs.get("a"))
    rest = args[1:]
    if q == method and len(rest) > 1:
        return arr, TupleV(tuple(rest))
    if rest:
        return arr, rest[0]
    return arr, next((kwargs[n] for n in names if n in kwargs), None)


def h_reshape(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr, target = _array_and_sequence(args, kwargs, "jax.Array.reshape", q, ("newshape", "shape"))
    if arr is None:
        return UNKNOWN
    if isinstance(target, (IntV, OpaqueV)):
        target = TupleV((target,))
    if not isinstance(target, TupleV):
        return ArrayV(None, arr.dtype, arr.diff)
    return S.reshape(interp, arr, target.items, node, fr)


def h_ravel(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`x.ravel()`, `x.flatten()`, `jnp.ravel(x)`: one axis of all the elements (probe 79d:
    a meshgrid's nodes, `np.stack([gx.ravel(), gy.ravel()], -1)`)."""
    arr = _array(arg(args, kwargs, 0, "a"))
    if arr is None:
        return UNKNOWN
    if arr.shape is None:
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    return ArrayV((S.element_count(arr.shape).with_why(interp.step(fr, node, A.src(node))),), arr.dtype, arr.diff, arr.why)


def h_transpose(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr, axes = _array_and_sequence(args, kwargs, "jax.Array.transpose", q, ("axes", "permutation"))
    if arr is None:
        return UNKNOWN
    if axes is None or (isinstance(axes, ConstV) and axes.value is None):
        return S.transpose(interp, arr, None, node, fr)
    if isinstance(axes, TupleV):
        return S.transpose(interp, arr, axes.items, node, fr)
    return ArrayV(None, arr.dtype, arr.diff)


def h_swapaxes(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "a"))
    if arr is None:
        return UNKNOWN
    return S.swapaxes(arr, _axis(arg(args, kwargs, 1, "axis1"), None), _axis(arg(args, kwargs, 2, "axis2"), None))


def h_moveaxis(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "a"))
    if arr is None:
        return UNKNOWN
    return S.moveaxis(arr, _axis(arg(args, kwargs, 1, "source"), None), _axis(arg(args, kwargs, 2, "destination"), None))


def h_sliding_window_view(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None): each axis
    windowed by w becomes n - w + 1 long, and the windows' axes go last ((len - n + 1,
    n) for tokens, probe 66a; a forecaster's lookback windows over one axis, 78b)."""
    arr = _array(arg(args, kwargs, 0, "x"))
    window, axis = arg(args, kwargs, 1, "window_shape"), arg(args, kwargs, 2, "axis")
    if arr is None or arr.shape is None:
        return UNKNOWN
    items = window.items if isinstance(window, TupleV) else (window,)
    rank = len(arr.shape)
    if axis is None or isinstance(axis, ConstV) and axis.value is None:
        axes: list[int | None] = list(range(rank))
    else:
        axes = [int_value(a) for a in axis.items] if isinstance(axis, TupleV) else [int_value(axis)]
    sizes = [w.dim.value if isinstance(w, IntV) else None for w in items]
    if any(n is None or n < 1 for n in sizes) or len(axes) != len(items) or any(a is None or not -rank <= a < rank for a in axes):
        return ArrayV(None, arr.dtype, arr.diff, arr.why)
    step = interp.step(fr, node, A.src(node))
    shape = list(arr.shape)
    for a, n in zip(axes, sizes):
        assert a is not None and n is not None
        shape[a] = D.add(D.sub(shape[a], D.const(n), (step,)), D.const(1), (step,))
    return ArrayV((*shape, *(D.const(n, (step,)) for n in sizes if n is not None)), arr.dtype, arr.diff, merge_why(arr.why, (step,)))


def h_expand_dims(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "a"))
    if arr is None:
        return UNKNOWN
    axis = arg(args, kwargs, 1, "axis" if not q.startswith("jax.lax") else "dimensions")
    axes = [int_value(a) for a in axis.items] if isinstance(axis, TupleV) else [int_value(axis) if axis is not None else None]
    return S.expand_dims(arr, axes)


def h_squeeze(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "a"))
    if arr is None:
        return UNKNOWN
    axis = arg(args, kwargs, 1, "axis")
    if axis is None or (isinstance(axis, ConstV) and axis.value is None):
        return S.squeeze(arr, None)
    axes = [int_value(a) for a in axis.items] if isinstance(axis, TupleV) else [int_value(axis)]
    return S.squeeze(arr, axes)


def h_broadcast_to(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "array"))
    shape = _shape_arg(arg(args, kwargs, 1, "shape"))
    step = interp.step(fr, node, A.src(node))
    return ArrayV(tuple(d.with_why(step) for d in shape) if shape is not None else None, arr.dtype if arr else None, arr.diff if arr else False)


def h_at_update(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """x.at[idx].set(v) (add, multiply, min, ...): x's shape and dtype; differentiated if
    x or v is."""
    at = args[0] if args else None
    arr = _array(at.args[0]) if isinstance(at, ExtObjectV) and at.args else None
    if arr is None:
        return UNKNOWN
    return ArrayV(arr.shape, arr.dtype, any_diff(arr, *args[1:], *kwargs.values()), arr.why)


def h_at_get(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """x.at[idx].get(mode=..., fill_value=...): x[idx]'s shape and dtype."""
    at = args[0] if args else None
    indexed = at.kwarg("<indexed>") if isinstance(at, ExtObjectV) else None
    return indexed if indexed is not None else UNKNOWN


def _sized_axis(arr: ArrayV, axis: int | None, size: Dim, step: Step) -> Value:
    """`arr` with the size of one axis replaced."""
    if arr.shape is None or axis is None or not -len(arr.shape) <= axis < len(arr.shape):
        return ArrayV(None, arr.dtype, arr.diff)
    shape = list(arr.shape)
    shape[axis] = size.with_why(step)
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def h_dynamic_slice(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.dynamic_slice(x, starts, sizes): shaped `sizes`; dynamic_slice_in_dim(x, start,
    size, axis=0): `size` on that axis (the starts move the window, never its size)."""
    arr = _array(arg(args, kwargs, 0, "operand"))
    if arr is None:
        return UNKNOWN
    step = interp.step(fr, node, A.src(node))
    if q.endswith("_in_dim"):
        size = arg(args, kwargs, 2, "slice_size")
        axis = _axis(arg(args, kwargs, 3, "axis"), 0)
        return _sized_axis(arr, axis, size.dim, step) if isinstance(size, IntV) else ArrayV(None, arr.dtype, arr.diff)
    return _reshaped_as(arr, _shape_arg(arg(args, kwargs, 2, "slice_sizes")), step)


def h_index_in_dim(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.index_in_dim / dynamic_index_in_dim(x, index, axis=0, keepdims=True): one
    index of an axis, kept as size 1 or dropped."""
    arr = _array(arg(args, kwargs, 0, "operand"))
    if arr is None:
        return UNKNOWN
    axis = _axis(arg(args, kwargs, 2, "axis"), 0)
    keep = arg(args, kwargs, 3, "keepdims")
    keepdims = True if keep is None else A.truth(keep)
    if arr.shape is None or axis is None or keepdims is None or not -len(arr.shape) <= axis < len(arr.shape):
        return ArrayV(None, arr.dtype, arr.diff)
    if keepdims:
        return _sized_axis(arr, axis, D.const(1), interp.step(fr, node, A.src(node)))
    shape = list(arr.shape)
    del shape[axis]
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def _reshaped_as(arr: ArrayV, shape: tuple[Dim, ...] | None, step: Step) -> ArrayV:
    """`arr` given a shape of the same rank (a slice's sizes, a resize's target)."""
    if shape is None or (arr.shape is not None and len(shape) != len(arr.shape)):
        return ArrayV(None, arr.dtype, arr.diff)
    return ArrayV(tuple(d.with_why(step) for d in shape), arr.dtype, arr.diff, arr.why)


def h_static_slice(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.slice(x, starts, limits, strides) and lax.slice_in_dim(x, start, limit, stride, axis):
    (limit - start) / stride, rounded up, per axis; known non-negative ints only."""
    arr = _array(arg(args, kwargs, 0, "operand"))
    if arr is None or arr.shape is None:
        return ArrayV(None, arr.dtype, arr.diff) if arr is not None else UNKNOWN
    step = interp.step(fr, node, A.src(node))
    if q.endswith("_in_dim"):
        axis = _axis(arg(args, kwargs, 4, "axis"), 0)
        if axis is None or not -len(arr.shape) <= axis < len(arr.shape):
            return ArrayV(None, arr.dtype, arr.diff)
        start = _index_or(arg(args, kwargs, 1, "start_index"), 0)
        limit = _index_or(arg(args, kwargs, 2, "limit_index"), arr.shape[axis].value)
        stride = _index_or(arg(args, kwargs, 3, "stride"), 1)
        if start is None or limit is None or not stride or limit < start:
            return ArrayV(None, arr.dtype, arr.diff)
        return _sized_axis(arr, axis, D.const(-(-(limit - start) // stride)), step)
    starts = _shape_arg(arg(args, kwargs, 1, "start_indices"))
    limits = _shape_arg(arg(args, kwargs, 2, "limit_indices"))
    strides_v = arg(args, kwargs, 3, "strides")
    strides = _shape_arg(strides_v) if strides_v is not None and not (isinstance(strides_v, ConstV) and strides_v.value is None) else tuple(D.const(1) for _ in arr.shape)
    if starts is None or limits is None or strides is None or not len(starts) == len(limits) == len(strides) == len(arr.shape):
        return ArrayV(None, arr.dtype, arr.diff)
    shape: list[Dim] = []
    for lo, hi, st in zip(starts, limits, strides):
        if lo.value is None or hi.value is None or not st.value or lo.value < 0 or hi.value < lo.value:
            return ArrayV(None, arr.dtype, arr.diff)
        shape.append(D.const(-(-(hi.value - lo.value) // st.value)).with_why(step))
    return ArrayV(tuple(shape), arr.dtype, arr.diff, arr.why)


def _index_or(v: Value | None, default: int | None) -> int | None:
    """A non-negative int index, `default` where it is left out (None: unknown)."""
    if v is None or (isinstance(v, ConstV) and v.value is None):
        return default
    n = int_value(v)
    return n if n is not None and n >= 0 else None


def h_dynamic_update_slice(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.dynamic_update_slice(x, update, starts): x's shape; differentiated if either is."""
    arr = _array(arg(args, kwargs, 0, "operand"))
    if arr is None:
        return UNKNOWN
    return ArrayV(arr.shape, arr.dtype, any_diff(*args, *kwargs.values()), arr.why)


def h_linspace(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.linspace(start, stop, num=50): (num,), unless other keywords change the result's form."""
    if set(kwargs) - {"num", "endpoint", "dtype"} or len(args) > 4:
        return UNKNOWN  # retstep (5th) returns a tuple; axis goes with array endpoints
    ends = [arg(args, kwargs, 0, "start"), arg(args, kwargs, 1, "stop")]
    if any(isinstance(e, (ArrayV, OpaqueV, TupleV)) for e in ends):
        return UNKNOWN  # array endpoints add their axes
    num = arg(args, kwargs, 2, "num")
    size = num.dim if isinstance(num, IntV) else D.const(50) if num is None else None
    if size is None:
        return UNKNOWN
    dtype = A.dtype_or(kwargs.get("dtype"), _default_float(q))
    return ArrayV((size.with_why(interp.step(fr, node, A.src(node))),), dtype, False)


def h_image_resize(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jax.image.resize(image, shape, method): shaped `shape`."""
    arr = _array(arg(args, kwargs, 0, "image"))
    if arr is None:
        return UNKNOWN
    return _reshaped_as(arr, _shape_arg(arg(args, kwargs, 1, "shape")), interp.step(fr, node, A.src(node)))


def h_top_k(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.top_k(x, k): (values, indices), each x's shape with k last."""
    arr = _array(arg(args, kwargs, 0, "operand"))
    k = arg(args, kwargs, 1, "k")
    if arr is None or not isinstance(k, IntV) or arr.shape is None or not arr.shape:
        return UNKNOWN
    step = interp.step(fr, node, A.src(node))
    shape = (*arr.shape[:-1], k.dim.with_why(step))
    return TupleV((ArrayV(shape, arr.dtype, arr.diff, arr.why), ArrayV(shape, "int32", False, arr.why)))


def h_take(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.take(a, indices, axis): a's axis replaced by the indices' shape (axis None:
    the indices' shape, of a flattened a)."""
    arr = _array(arg(args, kwargs, 0, "a"))
    indices = _array(arg(args, kwargs, 1, "indices"))
    if arr is None or indices is None or indices.shape is None or set(kwargs) - {"indices", "axis", "mode", "fill_value"}:
        return UNKNOWN
    axis_v = arg(args, kwargs, 2, "axis")
    step = interp.step(fr, node, A.src(node))
    picked = tuple(d.with_why(step) for d in indices.shape)
    if axis_v is None or (isinstance(axis_v, ConstV) and axis_v.value is None):
        return ArrayV(picked, arr.dtype, arr.diff, arr.why)
    axis = _axis(axis_v, None)
    if arr.shape is None or axis is None or not -len(arr.shape) <= axis < len(arr.shape):
        return ArrayV(None, arr.dtype, arr.diff)
    axis %= len(arr.shape)
    return ArrayV((*arr.shape[:axis], *picked, *arr.shape[axis + 1 :]), arr.dtype, arr.diff, arr.why)


def h_lax_pad(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.pad(x, value, ((lo, hi, interior), ...)): lo + n + hi (+ (n - 1) * interior,
    for a known n) per axis; negative lo/hi crop."""
    arr = _array(arg(args, kwargs, 0, "operand"))
    config = arg(args, kwargs, 2, "padding_config")
    if arr is None:
        return UNKNOWN
    if arr.shape is None or not isinstance(config, TupleV) or len(config.items) != len(arr.shape):
        return ArrayV(None, arr.dtype, any_diff(*args))
    step = interp.step(fr, node, A.src(node))
    shape: list[Dim] = []
    for n, item in zip(arr.shape, config.items):
        triple = [int_value(i) for i in item.items] if isinstance(item, TupleV) and len(item.items) == 3 else None
        if triple is None or any(t is None for t in triple):
            return ArrayV(None, arr.dtype, any_diff(*args))
        lo, hi, interior = triple
        assert lo is not None and hi is not None and interior is not None
        if interior < 0 or (interior and n.value is None):
            return ArrayV(None, arr.dtype, any_diff(*args))
        size = D.add(n, D.const(lo + hi + (interior * max(n.value - 1, 0) if interior and n.value is not None else 0)))
        shape.append(size if lo == hi == interior == 0 else size.with_why(step))
    return ArrayV(tuple(shape), arr.dtype, any_diff(*args), arr.why)


def h_prod(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """math.prod / np.prod of a tuple of ints (a shape's product, `np.prod(x.shape[1:])`):
    their product; of anything else, Unknown (jnp.prod of an array is an array)."""
    items = args[0] if len(args) == 1 and not kwargs else None
    if not isinstance(items, TupleV) or not all(isinstance(i, IntV) for i in items.items):
        return UNKNOWN
    total = D.const(1)
    for item in items.items:
        assert isinstance(item, IntV)
        total = D.mul(total, item.dim)
    return IntV(total.with_why(interp.step(fr, node, f"{total.render()} = {A.src(node)}")))


# operator's functions of two arguments, as the operator they stand for
_OPERATORS: dict[str, ast.operator] = {
    "add": ast.Add(), "sub": ast.Sub(), "mul": ast.Mult(), "truediv": ast.Div(), "floordiv": ast.FloorDiv(),
    "mod": ast.Mod(), "pow": ast.Pow(), "matmul": ast.MatMult(), "lshift": ast.LShift(), "rshift": ast.RShift(),
}


def h_operator(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`operator.mul(a, b)` as `a * b` (the function functools.reduce folds: probe 72a)."""
    if len(args) != 2 or kwargs:
        return UNKNOWN
    return A.binop(interp, _OPERATORS[q.rsplit(".", 1)[-1]], args[0], args[1], node, fr)


def h_fold(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`functools.reduce(f, items[, initial])` over a tuple or list known item by item:
    f folded over them from the left (`reduce(operator.mul, grid, 1)`, a patch count:
    probe 72a); Unknown for anything else."""
    items = args[1] if len(args) in (2, 3) and not kwargs else None
    if not isinstance(items, TupleV) or len(items.items) > _MAX_FOLDED or len(args) == 2 and not items.items:
        interp.escape(args, kwargs)
        return UNKNOWN
    total = args[2] if len(args) == 3 else items.items[0]
    for item in items.items[3 - len(args):]:
        total = interp.call(args[0], [total, item], {}, False, node, fr)
    return total


_MAX_FOLDED = 64  # items functools.reduce folds one by one


def h_concatenate(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    parts = arg(args, kwargs, 0, "arrays")
    axis = _axis(arg(args, kwargs, 1, "axis" if not q.startswith("jax.lax") else "dimension"), 0)
    if not isinstance(parts, TupleV):
        return ArrayV(None, None, parts.diff if parts is not None else False)
    return S.concatenate(interp, [_list_as_vector(part) for part in parts.items], axis, node, fr)


def h_append(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.append(x, eos, axis=1)`: the two joined along the axis (an EOS token: probe
    35c); without an axis both flattened, one after the other (probe 102c: 64 tokens and
    an EOS, 65)."""
    arr, values, axis = arg(args, kwargs, 0, "arr"), arg(args, kwargs, 1, "values"), arg(args, kwargs, 2, "axis")
    if arr is None or values is None:
        return UnknownV(any(v is not None and v.diff for v in (arr, values)))
    # (a list, nested or not, as np.array reads it: `np.append([[0, 1], [2, 3]], [[4]])`: probe 104a)
    parts = [_scalar_as_array(h_array(interp, [part], {}, node, fr, q) if isinstance(part, TupleV) else part) for part in (arr, values)]
    diff = any(part.diff for part in parts)
    if axis is not None and not (isinstance(axis, ConstV) and axis.value is None):
        index = _axis(axis, None)
        return S.concatenate(interp, parts, index, node, fr) if index is not None else UnknownV(diff)
    sizes = [math.prod(d.value for d in part.shape if d.value is not None) if isinstance(part, ArrayV) and part.shape is not None and all(d.value is not None for d in part.shape) else None for part in parts]
    first = parts[0]
    dtype = first.dtype if isinstance(first, ArrayV) else None
    if any(size is None for size in sizes):
        return ArrayV(None, dtype, diff)
    step = interp.step(fr, node, A.src(node))
    return ArrayV((D.const(sum(cast("list[int]", sizes)), (step,)),), dtype, diff, (step,))


def _scalar_as_array(value: Value) -> Value:
    """A Python number among arrays: a 0-d array."""
    if isinstance(value, (IntV, FloatV)) or isinstance(value, ConstV) and type(value.value) in (int, float):
        return ArrayV((), None, False, value.why)
    return value


def h_eigh(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`w, v = jnp.linalg.eigh(a)` (or `eig`): the eigenvalues (a's shape without its
    last axis) and the eigenvectors (a's shape); `eigvalsh` / `eigvals` the first alone
    (probe 103c: a Laplacian's eigenvectors as positional encodings of k dims)."""
    a = _array(arg(args, kwargs, 0, "a"))
    if a is None or a.shape is None or len(a.shape) < 2:
        return UnknownV(a.diff if a is not None else False)
    step = interp.step(fr, node, A.src(node))
    values = a.with_shape(a.shape[:-1], step)
    return values if q.endswith(("eigvals", "eigvalsh")) else TupleV((values, a.with_shape(a.shape, step)))


def h_resize(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`np.resize(a, (17,))` / `jnp.resize`: a new array of that shape, a's items repeated
    or cut (probe 103a)."""
    a = arg(args, kwargs, 0, "a")
    shape = _shape_arg(arg(args, kwargs, 1, "new_shape"))
    diff = a.diff if a is not None else False
    if shape is None:
        return UnknownV(diff)
    step = interp.step(fr, node, A.src(node))
    return ArrayV(tuple(d.with_why(step) for d in shape), a.dtype if isinstance(a, ArrayV) else None, diff, (step,))


def h_resize_in_place(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`buf.resize(128, refcheck=False)`: a NumPy array grown or shrunk in place (probe
    102c); it returns None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and args and isinstance(args[0], ArrayV):
        interp.forget_array(node.func.value, args[0], fr, node)
    return ConstV(None)


def _list_as_vector(value: Value) -> Value:
    """A list or tuple of numbers among the arrays joined: a vector of that length
    (probe 82b: `np.concatenate([[CLS_ID], question, [SEP_ID], context])`)."""
    if isinstance(value, TupleV) and all(isinstance(item, (IntV, FloatV)) or isinstance(item, ConstV) and type(item.value) in (int, float) for item in value.items):
        return ArrayV((D.const(len(value.items), value.why),), None, False, value.why)
    return value


def h_stack(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    parts = arg(args, kwargs, 0, "arrays")
    axis = _axis(arg(args, kwargs, 1, "axis"), 0)
    rank = parts.element.rank if isinstance(parts, IterV) and isinstance(parts.element, ArrayV) else None
    if isinstance(parts, IterV) and parts.is_list and isinstance(parts.element, ArrayV) and parts.element.shape is not None and rank is not None and axis is not None and -rank - 1 <= axis <= rank:
        # a list of unknown length, every item the element: a new axis of unknown length
        # (`np.stack([data[i:i + n] for i in range(0, len(data) - n + 1, stride)])`)
        shape = list(parts.element.shape)
        shape.insert(axis if axis >= 0 else len(shape) + axis + 1, D.unknown())
        return ArrayV(tuple(shape), parts.element.dtype, parts.element.diff, parts.element.why)
    if not isinstance(parts, TupleV):
        return ArrayV(None, None, parts.diff if parts is not None else False)
    return S.stack(interp, parts.items, axis, node, fr)


def h_split(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "ary"))
    sections = arg(args, kwargs, 1, "indices_or_sections")
    axis = _axis(arg(args, kwargs, 2, "axis"), 0)
    if arr is None or sections is None:
        return UNKNOWN
    return S.split(interp, arr, sections, axis, node, fr, uneven=q.endswith("array_split"))


def h_split_along(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.hsplit(x, n)` (axis 1, or 0 of a vector), `vsplit` (0), `dsplit` (2): split
    along that axis (probe 40a)."""
    arr = _array(arg(args, kwargs, 0, "ary"))
    sections = arg(args, kwargs, 1, "indices_or_sections")
    if arr is None or sections is None:
        return UNKNOWN
    last = q.rsplit(".", 1)[-1]
    axis = {"vsplit": 0, "dsplit": 2}.get(last, 1 if arr.rank is None or arr.rank > 1 else 0)
    return S.split(interp, arr, sections, axis, node, fr)


def h_stack_along(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.hstack(xs)` (axis 1, or 0 for vectors) and `jnp.vstack(xs)` (axis 0, for
    arrays of two or more axes): a concatenation (a CLS token in front: probe 35c)."""
    parts = arg(args, kwargs, 0, "tup")
    if not isinstance(parts, TupleV) or not parts.items:
        return UnknownV(parts.diff if parts is not None else False)
    ranks = {item.rank for item in parts.items if isinstance(item, ArrayV)}
    rank = ranks.pop() if len(ranks) == 1 else None
    if rank is None or (q.endswith("vstack") and rank < 2):
        return ArrayV(None, None, any(item.diff for item in parts.items))
    axis = 0 if q.endswith("vstack") or rank == 1 else 1
    return S.concatenate(interp, parts.items, axis, node, fr)


def h_insert_delete(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.insert(x, 0, v, axis=1)` / `jnp.delete(x, 0, axis=1)`: the axis one longer or
    shorter per index given (an int, or a list of distinct ints); a slice or an array
    of indices is not followed (probe 35c)."""
    arr = _array(arg(args, kwargs, 0, "arr"))
    where = arg(args, kwargs, 1, "obj")
    axis = _axis(arg(args, kwargs, 3 if q.endswith("insert") else 2, "axis"), None)
    if arr is None or arr.shape is None or axis is None or where is None:
        return UnknownV(arr.diff if arr is not None else False)
    ax = S.norm_axis(axis, len(arr.shape))
    if isinstance(where, IntV) or (isinstance(where, ConstV) and type(where.value) is int):
        count = 1 if q.endswith("delete") else _inserted_at_one_index(arg(args, kwargs, 2, "values"), len(arr.shape))
    elif isinstance(where, TupleV) and where.items and all(int_value(item) is not None for item in where.items):
        indices = [int_value(item) for item in where.items]
        count = len(set(indices)) if q.endswith("delete") else len(indices)
    else:
        count = None
    if ax is None or count is None:
        return ArrayV(None, arr.dtype, arr.diff)
    step = interp.step(fr, node, A.src(node))
    length = D.add(arr.shape[ax], D.const(count if q.endswith("insert") else -count, (step,)))
    return arr.with_shape(arr.shape[:ax] + (length,) + arr.shape[ax + 1 :], step)


def _inserted_at_one_index(values: Value | None, rank: int) -> int | None:
    """How many slices `jnp.insert(x, i, values, axis)` adds at one index: NumPy's rule,
    which JAX follows: `values` padded to x's rank with leading 1s, then its axis 0 moved
    to `axis`, so its first axis counts (a per-row CLS block (B, 1, D) inserts B: probe
    36a); one for a scalar."""
    if values is None or isinstance(values, (IntV, FloatV)) or (isinstance(values, ConstV) and isinstance(values.value, (int, float))):
        return 1
    shape = values.shape if isinstance(values, ArrayV) else None
    if shape is None or len(shape) > rank:
        return None
    if not shape:
        return 1
    return ((D.const(1),) * (rank - len(shape)) + shape)[0].value


def h_shape_of(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`np.shape(x)`, `jnp.ndim(x)`, `jnp.size(x)` / `jnp.size(x, 1)`: as the attributes
    read them (probe 35c)."""
    first = arg(args, kwargs, 0, "a")
    arr = _array(first)
    if arr is None or first is None:
        return UNKNOWN
    short = q.rsplit(".", 1)[-1]
    if short == "shape":
        return S.shape_tuple(interp, arr, first, node, fr)
    if short == "ndim":
        return make_int(arr.rank) if arr.rank is not None else UNKNOWN
    axis = _axis(arg(args, kwargs, 1, "axis"), None)
    if arr.shape is None:
        return UNKNOWN
    if axis is not None:
        ax = S.norm_axis(axis, len(arr.shape))
        return IntV(arr.shape[ax]) if ax is not None else UNKNOWN
    if arg(args, kwargs, 1, "axis") is not None:
        return UNKNOWN
    total = D.const(1)
    for dim in arr.shape:
        total = D.mul(total, dim)
    return IntV(total)


def h_import_module(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`importlib.import_module(f"{__package__}.{name}_impl")`: the module, run as the
    import runs it (what it registers is registered: probe 52a)."""
    ok, text = const_value(arg(args, kwargs, 0, "name") or UNKNOWN)
    okp, package = const_value(arg(args, kwargs, 1, "package") or ConstV(None))
    if not okp and _names_own_module(node) and fr.module.name:
        # `import_module(".vit", __name__)` in a package's lazy `__getattr__` (probe 107d);
        # `__name__` is not read as a constant elsewhere: `if __name__ == "__main__":` runs
        okp, package = True, fr.module.name
    if not (ok and isinstance(text, str) and text) or not okp:
        return UNKNOWN
    if text.startswith("."):
        if not isinstance(package, str) or not package:
            return UNKNOWN
        dots = len(text) - len(text.lstrip("."))
        base = package.split(".")
        if dots - 1 >= len(base):
            return UNKNOWN
        text = ".".join([*base[: len(base) - (dots - 1)], text[dots:]]).rstrip(".")
    elif _changes_sys_path(interp, fr):
        return UNKNOWN  # (`sys.path.insert(0, "experiments")` first: which file loads is not known, probe 124b)
    else:
        # as `import configs.base` there would: sys.path as the code runs, the script's own
        # folder first (probe 123a: a nested experiment read the root's configs/base.py)
        text = interp.project.absolute_import(fr.module, text)
    info = interp.project.find(text)
    if info is None:
        return interp.import_module_value(text)
    interp.module_namespace(info)
    return ModuleV(info)


def _names_own_module(node: ast.AST) -> bool:
    """Is an import_module call's package argument the importer's `__name__`?"""
    if not isinstance(node, ast.Call):
        return False
    given = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "package"), None)
    return isinstance(given, ast.Name) and given.id == "__name__"


_MAX_LITERAL_TEXT = 1_000  # characters of a literal ast.literal_eval is read for


def h_literal_eval(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`ast.literal_eval("77")` of a text the analysis knows: the constant, list or dict
    it spells (probe 80b: `--set seq=77` overrides).  A literal builds values only; it
    runs nothing of the analysed code."""
    ok, text = const_value(arg(args, kwargs, 0, "node_or_string") or UNKNOWN)
    if not ok or not isinstance(text, str) or len(text) > _MAX_LITERAL_TEXT or len(args) > 1 or kwargs:
        return UNKNOWN
    try:
        parsed: object = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN
    literal: object = list(cast("tuple[object, ...]", parsed)) if isinstance(parsed, tuple) else parsed
    if isinstance(literal, dict) and not all(isinstance(key, str) for key in cast("dict[object, object]", literal)):
        return UNKNOWN
    return data_files.data_value(cast("object", literal), (interp.step(fr, node, A.src(node)),))


def _changes_sys_path(interp: Interpreter, fr: Frame) -> bool:
    """Does the module loading by name change sys.path (`sys.path.insert(...)`, an
    assignment, `site.addsitedir`)?  Not another entry's change: a test that puts its
    root first (`sys.path.insert(0, ".")`) runs another program (probe 100d's test)."""
    return interp.project.scan(fr.module, _sys_path_change)


def _sys_path_change(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in LIST_CHANGERS and dotted_name(node.func.value) == "sys.path" or dotted_name(node.func) == "site.addsitedir"
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        return any(dotted_name(t) == "sys.path" for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
    return False


def h_importorskip(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`nn = pytest.importorskip("flax.linen")`: the module, as `import flax.linen` gives
    it (the test is skipped only where the package is missing: probe 38b)."""
    name = arg(args, kwargs, 0, "modname")
    ok, text = const_value(name) if name is not None else (False, None)
    return interp.import_module_value(text) if ok and isinstance(text, str) and text else UNKNOWN


def h_window(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.hanning(M)` and the other window functions: a vector of M floats (a window
    over audio frames: probe 35c)."""
    size = arg(args, kwargs, 0, "M")
    length = size.dim if isinstance(size, IntV) else D.unknown()
    return ArrayV((length,), _default_float(q), False, (interp.step(fr, node, A.src(node)),))


def h_unstack(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.unstack(x, axis): one array per index of the axis, without it."""
    arr = _array(arg(args, kwargs, 0, "x"))
    axis = _axis(arg(args, kwargs, 1, "axis"), 0)
    if arr is None or arr.shape is None or axis is None:
        return UnknownV(arr.diff if arr is not None else False)
    ax = S.norm_axis(axis, len(arr.shape))
    count = arr.shape[ax].value if ax is not None else None
    if ax is None or count is None or count > 64:
        return UnknownV(arr.diff)
    step = interp.step(fr, node, f"unstack {A.src(node)}")
    item = arr.with_shape(arr.shape[:ax] + arr.shape[ax + 1 :], step)
    return TupleV((item,) * count)


def h_pad(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "array"))
    width = arg(args, kwargs, 1, "pad_width")
    if arr is None or width is None:
        return UNKNOWN
    return S.pad(interp, arr, width, node, fr)


def h_repeat(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "a"))
    repeats = arg(args, kwargs, 1, "repeats")
    axis_v = arg(args, kwargs, 2, "axis")
    total = arg(args, kwargs, 3, "total_repeat_length")
    if isinstance(total, IntV) and arr is not None and repeats is not None:
        # jnp.repeat(x, durations, axis=1, total_repeat_length=n): the axis has n items,
        # whatever the repeats (a length regulator's frames: probe 86b)
        repeats = make_int(1)
        out = S.repeat(interp, arr, repeats, int_value(axis_v) if axis_v is not None else None, node, fr)
        axis = int_value(axis_v) if axis_v is not None else 0
        if out.shape is None or axis is None or not -len(out.shape) <= axis < len(out.shape):
            return ArrayV(None, arr.dtype, arr.diff)
        shape = list(out.shape)
        shape[axis] = total.dim.with_why(interp.step(fr, node, f"total_repeat_length of {A.src(node)}"))
        return ArrayV(tuple(shape), out.dtype, out.diff, out.why)
    if arr is None or repeats is None:
        return UNKNOWN
    return S.repeat(interp, arr, repeats, int_value(axis_v) if axis_v is not None else None, node, fr)


def h_diff(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.diff(a, n=1, axis=-1): the axis shrinks by n (lengths from packed offsets,
    `jnp.diff(offsets, axis=1)`); with `prepend`/`append` that axis is unknown."""
    arr = _array(arg(args, kwargs, 0, "a"))
    if arr is None:
        return UNKNOWN
    n_v, axis_v = arg(args, kwargs, 1, "n"), arg(args, kwargs, 2, "axis")
    n = 1 if n_v is None or absent(n_v) else int_value(n_v)
    axis = -1 if axis_v is None or absent(axis_v) else int_value(axis_v)
    rank = len(arr.shape) if arr.shape is not None else 0
    if arr.shape is None or n is None or axis is None or n < 0 or not -rank <= axis < rank:
        return ArrayV(None, arr.dtype, arr.diff)
    axis %= rank
    dim = arr.shape[axis]
    extended = not (absent(arg(args, kwargs, 3, "prepend")) and absent(arg(args, kwargs, 4, "append")))
    if extended or (dim.value is not None and dim.value < n):
        dim = D.unknown()
    else:
        dim = D.sub(dim, D.const(n))
    return ArrayV(arr.shape[:axis] + (dim,) + arr.shape[axis + 1 :], arr.dtype, arr.diff, arr.why)


def h_tile(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "A"))
    reps = _shape_arg(arg(args, kwargs, 1, "reps"))
    if arr is None or arr.shape is None or reps is None:
        return ArrayV(None, arr.dtype if arr else None, arr.diff if arr else False)
    shape = list(arr.shape)
    if len(reps) > len(shape):
        shape = [D.const(1)] * (len(reps) - len(shape)) + shape
    reps_full = [D.const(1)] * (len(shape) - len(reps)) + list(reps)
    # (an axis tiled once is the input's, with its provenance: probe 88c's 49 queries were
    # credited to the literal 1 of `jnp.tile(q[None], (b, 1, 1))`)
    return ArrayV(tuple(a if b.value == 1 else D.mul(a, b) for a, b in zip(shape, reps_full)), arr.dtype, arr.diff)


def _preferred(result: Value, preferred: Value | None) -> Value:
    """A contraction's result in its `preferred_element_type`, when one is given (an
    unresolved one leaves the dtype unknown, never the operands')."""
    if absent(preferred) or not isinstance(result, ArrayV):
        return result
    return ArrayV(result.shape, A.dtype_name(preferred), result.diff, result.why, result.name)


def h_einsum(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return UNKNOWN
    ok, spec = const_value(args[0])
    if not ok or not isinstance(spec, str):
        return ArrayV(None, None, any_diff(*args))
    return _preferred(S.einsum(interp, spec, args[1:], node, fr), kwargs.get("preferred_element_type"))


def h_matmul(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    a = _array(arg(args, kwargs, 0, "a"))
    b = _array(arg(args, kwargs, 1, "b"))
    if a is None or b is None:
        return UnknownV(any_diff(*args))
    return _preferred(S.matmul(interp, a, b, node, fr), kwargs.get("preferred_element_type"))


def h_dot_general(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    a = _array(arg(args, kwargs, 0, "lhs"))
    b = _array(arg(args, kwargs, 1, "rhs"))
    numbers = arg(args, kwargs, 2, "dimension_numbers")
    if a is None or b is None or numbers is None:
        return UnknownV(any_diff(*args))
    return _preferred(S.dot_general(interp, a, b, numbers, node, fr), arg(args, kwargs, 4, "preferred_element_type"))


def h_einops(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "tensor"))
    pattern = arg(args, kwargs, 1, "pattern")
    ok, text = const_value(pattern) if pattern is not None else (False, None)
    if arr is None or not ok or not isinstance(text, str):
        return UnknownV(any_diff(*args))
    sizes = {k: v for k, v in kwargs.items() if k not in ("tensor", "pattern")}
    return S.einops(interp, q.rsplit(".", 1)[-1], arr, text, sizes, node, fr)


def h_einops_pack(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`packed, ps = einops.pack([cls, x], "b * d")`: the axes the `*` stands for, flattened
    per tensor and joined (a CLS token in front: probe 35c); the packed shapes unknown."""
    parts = arg(args, kwargs, 0, "tensors")
    pattern = arg(args, kwargs, 1, "pattern")
    ok, text = const_value(pattern) if pattern is not None else (False, None)
    diff = parts.diff or any(item.diff for item in parts.items) if isinstance(parts, TupleV) else parts is not None and parts.diff
    if not isinstance(parts, TupleV) or not parts.items or not ok or not isinstance(text, str) or text.split().count("*") != 1:
        return TupleV((UnknownV(diff), UNKNOWN))
    names = text.split()
    before, after = names.index("*"), len(names) - names.index("*") - 1
    arrays = [item for item in parts.items if isinstance(item, ArrayV) and item.shape is not None and len(item.shape) >= before + after]
    if len(arrays) != len(parts.items):
        return TupleV((ArrayV(None, None, diff), UNKNOWN))
    step = interp.step(fr, node, A.src(node))
    packed = D.const(0)
    for item in arrays:
        shape = item.shape or ()
        flat = D.const(1)
        for dim in shape[before : len(shape) - after]:
            flat = D.mul(flat, dim)
        packed = D.add(packed, flat, (step,))
    first = arrays[0].shape or ()
    dtype = arrays[0].dtype
    for item in arrays[1:]:
        dtype = promote(dtype, item.dtype)
    shape = (*first[:before], packed, *first[len(first) - after :])
    return TupleV((ArrayV(shape, dtype, diff, (step,)), UNKNOWN))


# -- shape-preserving, broadcasting, reducing ----------------------------------------------------
def h_preserve(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    first = args[0] if args else next(iter(kwargs.values()), None)
    arr = _array(first)
    short = q.rsplit(".", 1)[-1]
    if arr is None and first is not None and len(args) == 1 and not kwargs and short in _FLOAT_VALUED and A.is_python_number(first):
        if q.startswith("numpy."):
            # np.sqrt(d) is a NumPy float64 scalar: strongly typed, so it promotes (bf16 * it is float32)
            return ArrayV((), "float64" if x64_enabled(fr) else "float32", False, first.why)
        if q.startswith("jax.numpy."):
            return FloatV(first.why)  # a weakly typed float scalar, as a Python float is
    if arr is None:
        return UnknownV(first.diff and short not in _ZERO_TANGENT) if first is not None else UNKNOWN
    if short in _ZERO_TANGENT:
        return ArrayV(arr.shape, arr.dtype, False, arr.why, arr.name, stopped=True, weak=arr.weak)
    return ArrayV(arr.shape, _result_dtype(short, arr.dtype, fr), arr.diff, arr.why, arr.name, weak=arr.weak)


def h_fft(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.fft.fft` / `ifft` / `rfft` / `irfft` (and `numpy.fft`'s) over one axis, given no
    `n` or a literal one: rfft keeps n // 2 + 1 frequencies, irfft makes 2 * (m - 1)
    samples (probe 68c: spectral tokens from 64 samples are 33).  Complex results are
    complex64 (complex128 with x64 on, or from NumPy), irfft's real."""
    x = _array(arg(args, kwargs, 0, "a"))
    n_given = arg(args, kwargs, 1, "n")
    axis_given = arg(args, kwargs, 2, "axis")
    if x is None or x.shape is None or not x.shape:
        return UNKNOWN.tainted(bool(args) and args[0].diff)
    ok_axis, axis_value = const_value(axis_given) if axis_given is not None else (True, -1)
    axis = S.norm_axis(axis_value, len(x.shape)) if ok_axis and isinstance(axis_value, int) and not isinstance(axis_value, bool) else None
    if axis is None:
        return ArrayV(None, None, x.diff, x.why)
    name = q.rsplit(".", 1)[-1]
    wide = q.startswith("numpy.") or x64_enabled(fr)
    step = interp.step(fr, node, A.src(node))
    length = x.shape[axis]
    if n_given is not None and not (isinstance(n_given, ConstV) and n_given.value is None):
        length = n_given.dim if isinstance(n_given, IntV) else D.unknown()
    if name == "rfft":
        length = D.add(D.floordiv(length, D.const(2)), D.const(1), (step,))
    elif name == "irfft" and (n_given is None or isinstance(n_given, ConstV) and n_given.value is None):
        length = D.mul(D.const(2), D.sub(length, D.const(1)), (step,))
    dtype = ("float64" if wide else "float32") if name == "irfft" else ("complex128" if wide else "complex64")
    return ArrayV(x.shape[:axis] + (length,) + x.shape[axis + 1 :], dtype, x.diff, x.why + (step,))


def h_meshgrid(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.meshgrid(x, y, ..., indexing="xy" | "ij")` of 1-D arrays: one array per input,
    each of shape (len(x), len(y), ...) for "ij", the first two swapped for "xy" (the
    default), each of its own input's dtype (probe 68c: 33 x 33 grid tokens)."""
    indexing = kwargs.get("indexing", ConstV("xy"))
    ok, how = const_value(indexing)
    inputs = [_array(a) for a in args]
    if not ok or how not in ("xy", "ij") or not inputs or set(kwargs) - {"indexing"}:
        return UNKNOWN
    if any(x is None or x.shape is None or len(x.shape) != 1 for x in inputs):
        return UNKNOWN
    lengths = [x.shape[0] for x in inputs if x is not None and x.shape is not None]
    if how == "xy" and len(lengths) > 1:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    step = interp.step(fr, node, A.src(node))
    return TupleV(tuple(ArrayV(tuple(lengths), x.dtype, x.diff, x.why + (step,)) for x in inputs if x is not None), True, (step,))


def h_tree_leaves(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.tree.leaves(tree)` of tuples, lists and dicts of arrays and numbers: the
    leaves in JAX's order (a dict's by sorted key, None no leaf), as a list (probe 68e: a
    token per tensor of a dict, `jnp.stack([t.mean(0) for t in tree_leaves(d)])`)."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    found: list[Value] = []
    if not _collect_leaves(args[0], found, 0):
        return UnknownV(args[0].diff)
    return TupleV(tuple(found), True, (interp.step(fr, node, A.src(node)),))


def _collect_leaves(tree: Value, found: list[Value], depth: int) -> bool:
    if depth > 16 or len(found) > 64:
        return False
    if isinstance(tree, ConstV) and tree.value is None:
        return True
    if isinstance(tree, (ArrayV, IntV, FloatV)) or isinstance(tree, ConstV) and isinstance(tree.value, (int, float, complex)):
        found.append(tree)
        return True
    if isinstance(tree, TupleV):
        return all(_collect_leaves(item, found, depth + 1) for item in tree.items)
    if isinstance(tree, DictV):
        keys = [key for key, _ in tree.items]
        if not all(isinstance(key, str) for key in keys):
            return False
        by_key = dict(tree.items)
        return all(_collect_leaves(by_key[key], found, depth + 1) for key in sorted(str(key) for key in keys))
    if isinstance(tree, InstanceV) and A.is_eqx_class(tree.cls):
        fields = _module_leaf_fields(tree.cls)
        # (a differentiated module's fields are differentiated as they are read: probe 73a)
        return fields is not None and all(
            name in tree.attrs and _collect_leaves(tree.attrs[name].tainted(True) if tree.diff else tree.attrs[name], found, depth + 1) for name in fields
        )
    return False


def _module_leaf_fields(cls: ClassV) -> list[str] | None:
    """An equinox module's children in its pytree order: the dataclass fields, the bases'
    first, static ones left out (probe 70a: `jax.tree.leaves(banks)[0]`); None where a
    class redeclares a base's field (it keeps the base's place) or mixes in another
    library's class."""
    chain = list(class_chain(cls))
    fields = cls.all_fields()
    if sum(len(current.fields) for current in chain) != len(fields) or cls.external_bases() != {"equinox.Module"}:
        return None
    return [name for name, _, _ in fields if not A.is_static_field(cls, name)]


# where a value is placed, not what it holds (their pytree of arrays comes back as given)
_PLACEMENT = "with_sharding_constraint with_logical_constraint device_put optimization_barrier reshard".split()


def h_placed(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.lax.with_sharding_constraint(x, s)`, `jax.device_put(x, d)`, `eqx.filter_shard(x,
    s)` and the like place a pytree of arrays: an array as h_preserve reads it, a tuple,
    dict or model as given (`w, x = with_sharding_constraint((w, x), specs)`, probe 68a)."""
    first = args[0] if args else next(iter(kwargs.values()), None)
    if isinstance(first, (TupleV, DictV, InstanceV)):
        return first
    return h_preserve(interp, args, kwargs, node, fr, q)


def h_custom_root(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.lax.custom_root(f, initial_guess, solve, tangent_solve)`: `solve(f,
    initial_guess)` runs forward, and custom_root itself linearizes `f` at the solution,
    grad or not: its attention is differentiated there (traced on 0.10.2: an odd length
    raises without a grad, an even one is clean with one; probes 68e, 70a).  The solution
    has the initial guess's structure; it is differentiated where `f`'s value at it is.
    With `has_aux=True`, `solve` returns (solution, aux) and so does the call."""
    from jax_cudnn_lint.shape_inference.transforms import mark_differentiated  # (transforms builds on this module)

    f = arg(args, kwargs, 0, "f")
    guess = arg(args, kwargs, 1, "initial_guess")
    solve = arg(args, kwargs, 2, "solve")
    aux = kwargs.get("has_aux", arg(args, kwargs, 4, "has_aux"))
    has_aux = A.truth(aux) if aux is not None and not absent(aux) else False
    if f is None or guess is None or has_aux is None:
        return UNKNOWN
    if solve is not None:
        interp.call(solve, [f, guess], {}, False, node, fr)
    at_root = interp.call(f, [mark_differentiated(guess)], {}, False, node, fr)  # (linearized, whatever the solver)
    solution = guess.tainted(guess.diff or at_root.diff)
    return TupleV((solution, UNKNOWN)) if has_aux else solution


def h_associative_scan(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.lax.associative_scan(fn, elems)`: arrays of the shapes and dtypes of `elems`
    (a pytree of them; an associative `fn` keeps both), carrying their tangents (the
    positions a RoPE broadcasts against: probe 35a)."""
    elems = args[1] if len(args) > 1 else kwargs.get("elems")
    return _scanned_like(elems) if elems is not None else UNKNOWN


def _scanned_like(value: Value) -> Value:
    if isinstance(value, ArrayV):
        return ArrayV(value.shape, value.dtype, value.diff, value.why)
    if isinstance(value, TupleV):
        return TupleV(tuple(_scanned_like(item) for item in value.items), value.is_list, value.why, value.diff)
    return UnknownV(value.diff)


# JAX defines these with a zero JVP (ad.defjvp_zero): what they give carries no tangent,
# as a stop_gradient's result, so an attention fed only by them is not differentiated
_ZERO_TANGENT = frozenset("sign floor ceil round rint trunc fix".split())


# what these give for boolean and integer inputs (JAX's promotion): a float, or the
# default integer for a sum of booleans or small integers
_FLOAT_VALUED = frozenset(
    "exp log log2 log10 log1p expm1 tanh sinh cosh sin cos tan arctan arcsin arccos sqrt rsqrt cbrt erf erfc "
    "logaddexp2 gelu silu swish sigmoid softplus softmax log_softmax elu celu selu leaky_relu hard_tanh "
    "hard_sigmoid hard_swish mish soft_sign standardize normalize logistic mean std var nanmean median "
    "logsumexp reciprocal".split()
)
_ACCUMULATING = frozenset({"sum", "nansum", "prod", "cumsum", "cumprod"})
_SMALL_INTS = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32", "uint16": "uint32"}


def _result_dtype(name: str, dtype: str | None, fr: Frame) -> str | None:
    """The dtype `name` gives for an input of `dtype` (None: unknown)."""
    if dtype is not None and dtype.startswith("complex") and name in _REAL_VALUED:
        return real_part(dtype)
    if dtype is None or is_float(dtype) or dtype.startswith("complex"):
        return dtype
    if name in _FLOAT_VALUED:
        return "float64" if x64_enabled(fr) else "float32"
    if name in _ACCUMULATING and dtype in _SMALL_INTS:
        wide = _SMALL_INTS[dtype]
        return _X64_WIDE.get(wide, wide) if x64_enabled(fr) else wide
    return dtype


# elementwise functions whose value is real for a complex input (a magnitude, a part)
_REAL_VALUED = frozenset({"abs", "absolute", "real", "imag"})


def h_bool_preserve(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(args[0] if args else None)
    return ArrayV(arr.shape if arr else None, "bool", False)


def h_stop_gradient(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    x = arg(args, kwargs, 0, "x")
    if isinstance(x, ArrayV):
        return ArrayV(x.shape, x.dtype, False, x.why, x.name, stopped=True)
    return x.tainted(False) if x is not None else UNKNOWN


def h_broadcast(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if len(args) < 2:
        return UnknownV(any_diff(*args))
    out = args[0]
    divide = q.rsplit(".", 1)[-1] in ("divide", "true_divide")
    for other in args[1:]:
        out = S.broadcast_binary(interp, out, other, node, fr, divide)
    if q.endswith(".floor_divide") and isinstance(out, ArrayV):
        return ArrayV(out.shape, out.dtype, False, out.why, out.name, stopped=True, weak=out.weak)  # a zero JVP
    return out


def h_compare(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    out = h_broadcast(interp, args, kwargs, node, fr, q)
    if isinstance(out, ArrayV):
        return ArrayV(out.shape, "bool", False)
    return UNKNOWN


def _size(shape: tuple[Dim, ...]) -> Dim:
    """The number of elements of an array of this shape."""
    size = D.const(1)
    for dim in shape:
        size = D.mul(size, dim, ())
    return size


def h_outer(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.outer(a, b): (a.size, b.size), both flattened; the dtypes promoted (a float32
    RoPE table makes a bfloat16 query float32)."""
    if len(args) != 2 or kwargs:
        return UnknownV(any_diff(*args, *kwargs.values()))
    a, b = _array(args[0]), _array(args[1])
    if a is None or b is None:
        return UnknownV(any_diff(*args))
    both = S.broadcast_binary(interp, a, b, node, fr, False)
    dtype = both.dtype if isinstance(both, ArrayV) else None
    shape = (_size(a.shape), _size(b.shape)) if a.shape is not None and b.shape is not None else None
    return ArrayV(shape, dtype, a.diff or b.diff, merge_why(a.why, b.why))


# jax.nn.initializers factories (flax re-exports them) and where each takes `dtype` positionally
INITIALIZER_FACTORIES: dict[str, int | None] = {
    **{name: 3 for name in (
        "lecun_normal", "lecun_uniform", "glorot_normal", "glorot_uniform", "xavier_normal", "xavier_uniform",
        "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform",
    )},
    "normal": 1, "uniform": 1, "truncated_normal": 1, "constant": 1, "variance_scaling": 6, "orthogonal": 2,
    "zeros_init": None, "ones_init": None,
}
_INITIALIZER_PREFIXES = ["jax.nn.initializers", "flax.linen.initializers", "flax.nnx.initializers"]


def h_initializer(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.nn.initializers.lecun_normal()` and the like: an init function, called below."""
    return ExtObjectV(q, tuple(args), tuple(kwargs.items()), (interp.step(fr, node, A.src(node)),))


def call_initializer(interp: Interpreter, factory: ExtObjectV | None, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """An initializer called as `init(key, shape, dtype=jnp.float_)`: an array of that
    shape, of the dtype of the call, else of the factory (`normal(0.02, jnp.bfloat16)`),
    else JAX's default float."""
    shape_v = args[1] if len(args) > 1 else kwargs.get("shape")
    shape = _shape_arg(shape_v)
    if shape is None:
        return UNKNOWN
    default = "float64" if x64_enabled(fr) else "float32"
    dtype_v = args[2] if len(args) > 2 else kwargs.get("dtype")
    if factory is not None and dtype_v is None:
        index = INITIALIZER_FACTORIES.get(factory.qualname.rsplit(".", 1)[-1])
        dtype_v = factory.args[index] if index is not None and len(factory.args) > index else factory.kwarg("dtype")
    return ArrayV(shape, A.dtype_or(dtype_v, default), False, (interp.step(fr, node, A.src(node)),))


def h_initializer_call(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.nn.initializers.zeros(key, shape)`: zeros and ones are init functions themselves."""
    return call_initializer(interp, None, args, kwargs, node, fr)


def h_where(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if len(args) != 3:
        return UNKNOWN
    cond, a, b = args
    out = S.broadcast_binary(interp, a, b, node, fr)
    out = S.broadcast_binary(interp, cond if not isinstance(cond, ArrayV) else ArrayV(cond.shape, None, False), out, node, fr) if isinstance(out, ArrayV) else out
    if isinstance(out, ArrayV):
        both = S.broadcast_binary(interp, a, b, node, fr)  # the dtype: a and b promoted, Python scalars weakly
        dtype = both.dtype if isinstance(both, ArrayV) else None
        return ArrayV(out.shape, dtype, any_diff(a, b), out.why, weak=isinstance(both, ArrayV) and both.weak)
    return out


def h_sized_indices(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.nonzero(mask, size=33)` (and one-argument `where`, `flatnonzero`,
    `argwhere`, `unique` without its `return_*` options): JAX's static-size forms,
    `size` entries each (padded or cut), for jit (probe 118b: a gather of 33 tokens)."""
    name = q.rsplit(".", 1)[-1]
    given = args[0] if args else None
    size = int_value(kwargs["size"]) if "size" in kwargs else None
    extra = set(kwargs) - {"size", "fill_value"} - ({"axis"} if name == "unique" else set())
    if name == "where" and len(args) != 1:
        return h_where(interp, args, kwargs, node, fr, q)
    if not isinstance(given, ArrayV) or size is None or size < 0 or len(args) != 1 or extra or (name == "unique" and not absent(kwargs.get("axis"))):
        return UNKNOWN
    index = "int64" if x64_enabled(fr) else "int32"
    length = D.const(size, (interp.step(fr, node, f"size={size} of {A.src(node)}"),))
    if name == "flatnonzero":
        return ArrayV((length,), index, False)
    if name == "unique":
        return ArrayV((length,), given.dtype, False)
    if given.rank is None:
        return UNKNOWN
    if name == "argwhere":
        return ArrayV((length, D.const(given.rank)), index, False)
    return TupleV(tuple(ArrayV((length,), index, False) for _ in range(given.rank)))


_MAX_TRIANGLE = 1 << 16  # the largest side `triu_indices` is counted for


def h_triangle_indices(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`np.triu_indices(n, k=1)` / `tril_indices(n, k, m)`: the (rows, columns) of a
    triangle, two index arrays of its size (probe 118b: the 105 pairs of 15 atoms)."""
    n_given = arg(args, kwargs, 0, "n")
    n = int_value(n_given) if n_given is not None else None
    k_given, m_given = arg(args, kwargs, 1, "k"), arg(args, kwargs, 2, "m")
    k = int_value(k_given) if k_given is not None else 0
    m = int_value(m_given) if m_given is not None and not absent(m_given) else n
    if n is None or k is None or m is None or not (0 <= n <= _MAX_TRIANGLE and 0 <= m <= _MAX_TRIANGLE) or len(args) + len(kwargs) > 3:
        return UNKNOWN
    if q.endswith("triu_indices"):
        count = sum(max(0, m - max(0, i + k)) for i in range(n))
    else:
        count = sum(max(0, min(m, i + k + 1)) for i in range(n))
    index = "int64" if q.startswith("numpy.") or x64_enabled(fr) else "int32"
    length = D.const(count, (interp.step(fr, node, f"{count} = {A.src(node)}"),))
    return TupleV((ArrayV((length,), index, False), ArrayV((length,), index, False)))


def h_reduce(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(args[0] if args else kwargs.get("a"))
    if arr is None:
        return UnknownV(any_diff(*args))
    axis = arg(args, kwargs, 1, "axis")
    keep = kwargs.get("keepdims")
    keepdims = A.truth(keep) is True if keep is not None else False
    name = q.rsplit(".", 1)[-1]
    index = "int64" if x64_enabled(fr) else "int32"  # (the default integer)
    fixed = index if name in ("argmax", "argmin", "count_nonzero") else ("bool" if name in ("any", "all") else None)
    dtype = fixed or A.dtype_or(kwargs.get("dtype"), _result_dtype(name, arr.dtype, fr))
    out = S.reduce(arr, axis, keepdims, dtype)
    if out.dtype is not None and out.dtype != arr.dtype:
        # where the dtype came from, for a dtype finding (probe 80c: int64 lengths summed
        # from a bool mask, the message naming the mask)
        out = ArrayV(out.shape, out.dtype, out.diff, merge_why(out.why, (interp.step(fr, node, f"{A.src(node)} ({out.dtype})"),)), out.name, out.stopped, out.weak)
    if fixed is not None:
        return ArrayV(out.shape, out.dtype, False, out.why)
    return out


def h_norm(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.linalg.norm(x, ord, axis, keepdims): a reduction over `axis` (all axes where
    None), in a floating dtype (probe 58c: tokens pruned by their norm, then top_k)."""
    arr = _array(args[0] if args else kwargs.get("x"))
    if arr is None:
        return UnknownV(any_diff(*args, *kwargs.values()))
    axis = arg(args, kwargs, 2, "axis")
    keep = arg(args, kwargs, 3, "keepdims")
    keepdims = A.truth(keep) is True if keep is not None else False
    return S.reduce(arr, axis, keepdims, _result_dtype("mean", arr.dtype, fr))


_PYTHON_TYPE_DTYPES = {"builtins.int": ("int32", "int64"), "builtins.float": ("float32", "float64"), "builtins.bool": ("bool", "bool")}


def h_astype(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(args[0] if args else None)
    given = arg(args, kwargs, 1, "dtype") or kwargs.get("new_dtype")
    python_type = _PYTHON_TYPE_DTYPES.get(given.qualname) if isinstance(given, ExternalV) else None
    # `.astype(int)`: JAX's default integer (int64 under jax_enable_x64)
    dtype = python_type[x64_enabled(fr)] if python_type is not None else A.dtype_name(given)
    if arr is None:
        return UNKNOWN
    floating = dtype is None or dtype.startswith(("float", "bfloat", "complex"))
    why = arr.why
    if dtype is not None:
        # the step that decides the array's dtype, for a dtype finding's message (probe
        # 77c: a float32 query credited to its float32 input, not to `.astype(cfg_dtype)`)
        why = merge_why(why, (interp.step(fr, node, f"{A.src(node)} ({dtype})"),))
    return ArrayV(arr.shape, dtype, arr.diff and floating, why, arr.name)


def h_promote_dtype(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """flax's `promote_dtype`: every array cast to one dtype, `dtype=` or else the one JAX
    promotes them all to; None stays None.  nnx's takes one tuple and returns a tuple,
    linen's takes the arrays and returns a list (probe 30c: custom nnx attention
    functions call it first)."""
    from jax_cudnn_lint.shape_inference.dtypes import is_float, promote

    nnx = q.startswith("flax.nnx")
    items = (args[0].items if len(args) == 1 and isinstance(args[0], TupleV) else None) if nnx else tuple(args)
    if items is None or set(kwargs) - {"dtype", "inexact"}:
        return UNKNOWN
    given = kwargs.get("dtype")
    arrays = [item for item in items if isinstance(item, ArrayV)]
    if given is not None and not (isinstance(given, ConstV) and given.value is None):
        dtype = A.dtype_name(given)
    elif len(arrays) == len([item for item in items if not (isinstance(item, ConstV) and item.value is None)]) and arrays:
        dtype = arrays[0].dtype
        for other in arrays[1:]:
            dtype = promote(dtype, other.dtype)
        if dtype is not None and not is_float(dtype) and not dtype.startswith("complex"):
            dtype = None  # (an integer promoted to inexact: not modelled)
    else:
        dtype = None
    floating = dtype is None or is_float(dtype) or dtype.startswith("complex")
    out = tuple(
        ArrayV(item.shape, dtype, item.diff and floating, item.why, item.name) if isinstance(item, ArrayV)
        else item if isinstance(item, ConstV) and item.value is None else UnknownV(item.diff)
        for item in items
    )
    return TupleV(out, is_list=not nnx)


def h_one_hot(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    arr = _array(arg(args, kwargs, 0, "x"))
    n = arg(args, kwargs, 1, "num_classes")
    dtype = A.dtype_or(kwargs.get("dtype"), "float32")
    if arr is None or arr.shape is None or not isinstance(n, IntV):
        return ArrayV(None, dtype, False)
    return ArrayV(arr.shape + (n.dim,), dtype, False)


# -- attention entry points (shape of the result) -------------------------------------------------
def h_attention(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    query = _array(arg(args, kwargs, 0, "query"))
    value = _array(arg(args, kwargs, 2, "value"))
    bias = arg(args, kwargs, 3, "bias")
    diff = any_diff(*(v for v in (arg(args, kwargs, 0, "query"), arg(args, kwargs, 1, "key"), arg(args, kwargs, 2, "value"), bias) if v is not None))
    if query is None or query.shape is None:
        return ArrayV(None, query.dtype if query else None, diff)
    shape = query.shape
    if value is not None and value.shape is not None and len(value.shape) == len(shape):
        shape = shape[:-1] + value.shape[-1:]
    return ArrayV(shape, query.dtype, diff, query.why)


def h_lstm(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """rnn.lstm / lstm_ref -> (y, h_n, c_n): y is (batch, time, directions * hidden), the
    final states (directions * layers, batch, hidden) (an attention over an LSTM's
    output reads its time axis: probe 47b).  cuDNN's y has x's dtype and its states
    h_0's and c_0's (rnn_abstract_eval); the reference's are promoted with its weights."""
    diff = any_diff(*args, *kwargs.values())
    ref = q.endswith("lstm_ref")
    first = 9 if ref else 6  # hidden_size, num_layers, dropout, bidirectional after it
    hidden = int_value(arg(args, kwargs, first, "hidden_size") or UNKNOWN)
    layers = int_value(arg(args, kwargs, first + 1, "num_layers") or UNKNOWN)
    both = A.truth(arg(args, kwargs, first + 3, "bidirectional") or UNKNOWN)
    x = _array(arg(args, kwargs, 0, "x"))
    h_0, c_0 = _array(arg(args, kwargs, 1, "h_0")), _array(arg(args, kwargs, 2, "c_0"))
    step = interp.step(fr, node, A.src(node))
    directions = None if both is None else 2 if both else 1
    features = D.const(hidden * directions, (step,)) if hidden is not None and directions is not None else D.unknown((step,))
    y_shape = (x.shape[0], x.shape[1], features) if x is not None and x.shape is not None and len(x.shape) == 3 else None
    y = ArrayV(y_shape, None if ref or x is None else x.dtype, diff, (step,))
    if ref or h_0 is None or c_0 is None:
        states = None
        if y_shape is not None and hidden is not None and layers is not None and directions is not None:
            states = (D.const(directions * layers, (step,)), y_shape[0], D.const(hidden, (step,)))
        return TupleV((y, ArrayV(states, None, diff, (step,)), ArrayV(states, None, diff, (step,))))
    return TupleV((y, ArrayV(h_0.shape, h_0.dtype, diff, (step,)), ArrayV(c_0.shape, c_0.dtype, diff, (step,))))


def h_unpack_lstm_weights(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """rnn.unpack_lstm_weights(...) -> (W_ih, W_hh, b_ih, b_hh): four dicts of arrays,
    as lstm_ref takes them (`lstm_ref(x, h0, c0, *weights, ...)`)."""
    diff = any_diff(*args, *kwargs.values())
    return TupleV(tuple(UnknownV(diff) for _ in range(4)))


def h_vars(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`cfg = vars(parser.parse_args())`: a namespace's attributes as a dict (only for
    the namespaces the analysis builds whole: argparse's and SimpleNamespace)."""
    ns = args[0] if len(args) == 1 and not kwargs else None
    if not isinstance(ns, InstanceV) or ns.cls.qualname not in argparse_seeds.PLAIN_NAMESPACES:
        return UNKNOWN
    if STORED_UNSPELLED in ns.attrs:
        return UNKNOWN  # it may hold names code stored unspelled: no dict of known keys (probe 146a)
    return view_of(DictV(tuple((k, v) for k, v in ns.attrs.items() if k.isidentifier()), ns.why), ns)


def _flax_mask(mask_shape: tuple[Dim, ...] | None, extra: Value | None, dtype: Value | None, why: Why) -> ArrayV:
    """flax's mask helpers: `extra_batch_dims` leading 1s, and float32 unless told
    otherwise (their default dtype is jnp.float32, which jax.nn's attention rejects)."""
    out_dtype = A.dtype_or(dtype, "float32")
    n_extra = 0 if extra is None else int_value(extra)
    if mask_shape is None or n_extra is None or not 0 <= n_extra <= 8:
        return ArrayV(None, out_dtype, False, why)
    return ArrayV((D.const(1),) * n_extra + mask_shape, out_dtype, False, why)


def h_causal_mask(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """make_causal_mask(x, extra_batch_dims=0, dtype=jnp.float32): x.shape[:-1] + (1, L, L)."""
    x = _array(arg(args, kwargs, 0, "x"))
    shape = None if x is None or not x.shape else x.shape[:-1] + (D.const(1), x.shape[-1], x.shape[-1])
    why = (interp.step(fr, node, A.src(node)),)
    return _flax_mask(shape, arg(args, kwargs, 1, "extra_batch_dims"), arg(args, kwargs, 2, "dtype"), why)


def h_attention_mask(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """make_attention_mask(q_in, k_in, pairwise_fn, extra_batch_dims=0, dtype=jnp.float32):
    q_in.shape[:-1] + (1, Lq, Lk) (batch axes of q_in and k_in alike)."""
    a = _array(arg(args, kwargs, 0, "query_input"))
    b = _array(arg(args, kwargs, 1, "key_input"))
    shape = None
    if a is not None and b is not None and a.shape and b.shape:
        shape = a.shape[:-1] + (D.const(1), a.shape[-1], b.shape[-1])
    why = (interp.step(fr, node, A.src(node)),)
    return _flax_mask(shape, arg(args, kwargs, 3, "extra_batch_dims"), arg(args, kwargs, 4, "dtype"), why)


def h_combine_masks(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """combine_masks(*masks, dtype=jnp.float32): the masks given (None ones dropped)
    and-ed together; None when all are None.  The shape only when they all agree."""
    masks = [m for m in args if not (isinstance(m, ConstV) and m.value is None)]
    if not masks:
        return ConstV(None) if args else UNKNOWN
    arrays = [_array(m) for m in masks]
    shapes = {tuple(d.key() for d in a.shape) if a is not None and a.shape is not None else None for a in arrays}
    first = arrays[0]
    shape = first.shape if first is not None and len(shapes) == 1 and None not in shapes else None
    why = (interp.step(fr, node, A.src(node)),)
    return ArrayV(shape, A.dtype_or(kwargs.get("dtype"), "float32"), False, why)


# -- builtins and functools --------------------------------------------------------------------------
def h_len(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return UNKNOWN
    v = args[0]
    if isinstance(v, TupleV):
        # (with where the list was made: two `len(tokens)` of one list are one number,
        # so that a guard reading one reads the other: probe 106a)
        return make_int(len(v.items), merge_why(v.why, (interp.step(fr, node, A.src(node)),)))
    if isinstance(v, DictV):
        return make_int(len(v.items))
    if isinstance(v, SetV):
        distinct: list[object] = []
        for item in v.items:
            value = const_value(item)[1]
            if not any(same_key(value, seen) for seen in distinct):
                distinct.append(value)
        return make_int(len(distinct))
    if isinstance(v, ArrayV) and v.shape:
        return IntV(v.shape[0])
    if isinstance(v, ConstV) and isinstance(v.value, (str, bytes)):
        return make_int(len(v.value))
    if (members := enums.members(v)) is not None:
        return make_int(len(members), (interp.step(fr, node, A.src(node)),))  # `len(EventType)` (probe 67b)
    if isinstance(v, ExternalV) and v.qualname == "sys.argv" and argparse_seeds.argv_read_as_run(interp, fr):
        # the run without command-line arguments, as argparse's defaults are read:
        # `main(sys.argv[1] if len(sys.argv) > 1 else "ti16")` runs "ti16" (probe 73d)
        return make_int(1, (interp.step(fr, node, f"1 = {A.src(node)} on a run without arguments"),))
    if isinstance(v, A.RangeV) and v.start is not None and v.stop is not None:
        count = D.range_len(v.start, v.stop, v.step)
        return make_int(count, (interp.step(fr, node, A.src(node)),)) if count is not None else UNKNOWN
    return UNKNOWN


def h_range(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if len(args) == 1:
        return A.RangeV(0, int_value(args[0]))
    if len(args) == 2:
        return A.RangeV(int_value(args[0]), int_value(args[1]))
    if len(args) == 3:
        step = int_value(args[2])
        start, stop = int_value(args[0]), int_value(args[1])
        if step is not None and step < 0 and start is not None and stop is not None and len(range(start, stop, step)) <= _MAX_DESCENDING:
            # `range(9, 0, -2)` counting down by known ints: its items (probe 78a)
            return TupleV(tuple(make_int(i, (interp.step(fr, node, A.src(node)),)) for i in range(start, stop, step)))
        if step is None or step <= 0:
            return A.RangeV(None)  # counting down: the start is no lower bound
        return A.RangeV(int_value(args[0]), int_value(args[1]), step)
    return UNKNOWN


def h_slice(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`slice(hi)`, `slice(lo, hi[, step])` with ints or None: a SliceV; else unknown."""
    bounds: list[int | None] = []
    for value in args:
        if isinstance(value, ConstV) and value.value is None:
            bounds.append(None)
        elif (known := int_value(value)) is not None:
            bounds.append(known)
        else:
            return UNKNOWN
    if kwargs or not 1 <= len(bounds) <= 3:
        return UNKNOWN
    lo, hi, step = (None, bounds[0], None) if len(bounds) == 1 else (*bounds, None)[:3]
    return SliceV((lo, hi, step))


def h_int(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return make_int(0)
    v = args[0]
    if len(args) > 1 or kwargs:  # int(text, base)
        ok, text = const_value(v)
        base_ok, base = const_value(args[1] if len(args) > 1 else kwargs.get("base", UNKNOWN))
        if not (ok and base_ok and isinstance(text, str) and isinstance(base, int) and len(text) < 40):
            return UNKNOWN
        try:
            return make_int(int(text, base), v.why)
        except ValueError:
            return UNKNOWN
    if isinstance(v, IntV):
        return v
    if isinstance(v, ConstV) and isinstance(v.value, (float, bool)):
        if isinstance(v.value, float) and not math.isfinite(v.value):
            return UNKNOWN  # `int(float("inf"))` raises: on a path that runs, JAX never sees it (probe 43c)
        return make_int(int(v.value), v.why)
    if isinstance(v, ConstV) and isinstance(v.value, str) and v.value.strip().lstrip("-").isdigit() and len(v.value) < 20:
        return make_int(int(v.value), v.why)
    return UNKNOWN


def h_rounding(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """math.ceil, math.floor and round() of a known number: an int (`math.ceil(1021 / 2)` is 511)."""
    if len(args) != 1 or kwargs:
        return UNKNOWN  # round(x, ndigits) is a float
    value = args[0]
    if isinstance(value, IntV):
        return value
    ok, py = const_value(value)
    if not ok or not isinstance(py, float) or not math.isfinite(py):
        return UNKNOWN
    short = q.rsplit(".", 1)[-1]
    rounded = math.ceil(py) if short == "ceil" else math.floor(py) if short == "floor" else round(py)
    return make_int(rounded, merge_why(value.why, (interp.step(fr, node, f"{rounded} = {short}({py!r})"),)))


def _const_ints(values: Sequence[Value]) -> list[int] | None:
    """The Python ints `values` certainly are (bools excluded), or None."""
    out: list[int] = []
    for value in values:
        ok, py = const_value(value)
        if not ok or type(py) is not int or abs(py) > 2**62:
            return None
        out.append(py)
    return out


_INT_FUNCTIONS: dict[str, Callable[..., object]] = {
    "builtins.divmod": divmod, "builtins.pow": pow, "math.isqrt": math.isqrt, "math.gcd": math.gcd, "math.lcm": math.lcm,
    # pairs and orderings (probe 118b: `math.comb(n_res, 2)` residue pairs), of small ints
    "math.comb": math.comb, "math.perm": math.perm, "math.factorial": math.factorial,
    # NumPy's, of two ints (a third argument is its `out`): a NumPy int (probe 85e)
    "numpy.gcd": math.gcd, "numpy.lcm": math.lcm,
    "builtins.int.bit_length": int.bit_length, "builtins.int.bit_count": int.bit_count, "builtins.int.item": int,
}


_MAX_COUNTED = 4096  # the largest argument of math.comb / perm / factorial computed


def h_int_function(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """divmod, pow, math.isqrt, math.gcd, math.lcm of known ints (a patch grid's side,
    `divmod(n, patch)`): known ints, or a (quotient, remainder) pair."""
    ints = _const_ints(args) if not kwargs and not (q.startswith("numpy.") and len(args) != 2) else None
    if ints is None or (q == "builtins.pow" and (len(ints) < 2 or not 0 <= ints[1] <= 64 or abs(ints[0]) > 2**32)):
        return UNKNOWN  # a negative power is a float; a large one, too large to keep
    if q in ("math.comb", "math.perm", "math.factorial") and any(abs(i) > _MAX_COUNTED for i in ints):
        return UNKNOWN  # (a huge count takes long to compute, and is no length)
    try:
        result = _INT_FUNCTIONS[q](*ints)
    except (ValueError, TypeError, ZeroDivisionError, OverflowError):
        return UNKNOWN
    parts = cast("tuple[object, ...]", result) if isinstance(result, tuple) else (result,)
    if not all(isinstance(r, int) and abs(r) < 2**62 for r in parts):
        return UNKNOWN  # (and never written out: past 4300 digits str() raises)
    why = merge_why(*(a.why for a in args), (interp.step(fr, node, f"{result} = {A.src(node)}"),))
    if isinstance(result, tuple):
        return TupleV(tuple(make_int(r, why) for r in parts if isinstance(r, int)), False, why)
    return make_int(result, why) if isinstance(result, int) else UNKNOWN


def h_sum(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """sum() of a known tuple or list of ints (the tokens of several modalities), or of
    arrays: `sum(emb[i][codes[:, i]] for i in range(K))`, one embedding per codebook
    added up (probe 96c), as `start + a + b + ...`."""
    if not args or len(args) > 2 or not set(kwargs) <= {"start"}:
        return UNKNOWN
    items = args[0].items if isinstance(args[0], TupleV) else None
    start = args[1] if len(args) == 2 else kwargs.get("start", make_int(0))
    ints = _const_ints([*items, start]) if items is not None else None
    if ints is not None:
        return make_int(sum(ints), merge_why(*(a.why for a in args), (interp.step(fr, node, f"{sum(ints)} = {A.src(node)}"),)))
    if items is not None and not items:
        return start  # `sum([], x)`: nothing added (probe 97a)
    lists = isinstance(start, TupleV) and start.is_list and items is not None and all(isinstance(item, TupleV) and item.is_list for item in items)
    if items is not None and (lists or any(isinstance(item, ArrayV) for item in items)):
        total: Value = start  # (`sum(parts, [])`: the lists joined)
        for item in items:
            total = A.binop(interp, ast.Add(), total, item, node, fr)
        return total
    if isinstance(args[0], (IterV, ArrayV)):
        # over a generator, every item is described alike; over an array, its rows
        element = A.iter_element(interp, args[0], node, fr)
        if isinstance(element, ArrayV):
            return A.binop(interp, ast.Add(), start, element, node, fr)  # every item is described alike
    return UNKNOWN.tainted(any(arg.diff for arg in args))


# Rounding only: its result is a size (`int(np.ceil(n / patch))`).  NumPy gives a float64
# scalar, which is not weakly typed; held as a Python float it would keep a bf16 array's
# dtype in arithmetic, so np.sqrt (`q / np.sqrt(d)`) stays an array.
_NUMBER_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "ceil": math.ceil, "floor": math.floor, "trunc": math.trunc, "rint": round, "round": round,
}


def h_np_number(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """np.ceil / floor / round ... of a Python number: a float of known value, which int()
    turns into a size; of an array, its shape."""
    if len(args) == 1 and not kwargs and A.is_python_number(args[0]):
        ok, py = const_value(args[0])
        if ok and isinstance(py, (int, float)) and math.isfinite(py) and abs(py) < 2**53:
            value = float(_NUMBER_FUNCTIONS[q.rsplit(".", 1)[-1]](py))
            return ConstV(value, merge_why(args[0].why, (interp.step(fr, node, f"{value!r} = {A.src(node)}"),)))
    return h_preserve(interp, args, kwargs, node, fr, q)


def h_changes_in_place(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`operator.setitem(lens, 0, 512)`, `operator.iadd(a, b)`: the first argument is
    changed in place; `exec(code, ns)` may write any of the namespaces it is given."""
    interp.escape(args, kwargs)
    for value in args[1:] if q == "builtins.exec" else args[:1]:
        mark_changed_in_place(value)
    return UNKNOWN


def h_setattr(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """setattr(obj, "name", value) and object.__setattr__ (a frozen dataclass's
    __post_init__): the attribute, as `obj.name = value` sets it."""
    name = args[1] if len(args) == 3 else None
    obj = args[0] if args else None
    interp.register_functions(args[2:])  # `setattr(registry, name, fn)`: called through it
    if isinstance(obj, ClassV) and isinstance(name, ConstV) and isinstance(name.value, str):
        obj.attrs[name.value] = UNKNOWN  # `setattr(Config, "T", 512)`: ordered against the reads or not, unknown
        return ConstV(None)
    if isinstance(obj, ExtObjectV) and len(args) == 3 and not kwargs:
        from jax_cudnn_lint.shape_inference import layers

        layers.replace_variable(interp, obj, args[2])  # `setattr(layer, "kernel", Frozen(...))` (probe 155a)
    if kwargs or not isinstance(obj, InstanceV) or not (isinstance(name, ConstV) and isinstance(name.value, str)):
        interp.escape(args, kwargs)
        if isinstance(obj, InstanceV):  # frozen or not: setattr reaches it
            obj.forget_all() if len(args) == 3 and not isinstance(name, ConstV) else obj.forget()
        return UNKNOWN
    value = args[2]
    interp.mutations += 1
    obj.touch()
    if q == "builtins.setattr" and (isinstance(obj.cls.lookup("__setattr__"), FunctionV) or A.runs_a_setter(obj.cls.lookup(name.value))):
        obj.attrs[name.value] = UNKNOWN  # the class's __setattr__ or a property's setter decides what is stored (probe 114a)
        return ConstV(None)
    if attribute_dicts.stores_attributes_apart(obj.cls):
        obj.attrs[name.value] = UNKNOWN
        return ConstV(None)
    if A.is_mapping_namespace(obj):
        configdict.set_field(interp, obj, name.value, value, node, fr)
        return ConstV(None)
    if fr.may_skip(obj):
        old = obj.attrs.get(name.value)
        value = join(old, value) if old is not None else UNKNOWN
    obj.attrs[name.value] = value
    return ConstV(None)


def h_delattr(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """delattr(obj, "name"): what obj.name reads next (a base's value, an error) is not
    followed: unknown (probe 42b)."""
    obj = args[0] if args else None
    name = args[1] if len(args) == 2 else None
    if isinstance(obj, (InstanceV, ClassV)) and isinstance(name, ConstV) and isinstance(name.value, str):
        interp.mutations += 1
        obj.attrs[name.value] = UNKNOWN
    elif isinstance(obj, InstanceV):
        obj.forget_all()
    return ConstV(None)


def h_replace(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """dataclasses.replace(obj, **changes), and `.replace` / `._replace` of flax struct,
    chex and NamedTuple instances: the class built again from obj's fields and the
    changes, as dataclasses.replace does (so __post_init__ runs again)."""
    obj = args[0] if len(args) == 1 else None
    if not isinstance(obj, InstanceV) or not A.is_dataclass_like(obj.cls) or A.is_linen_class(obj.cls) or A.is_nnx_class(obj.cls):
        interp.escape(args, kwargs)
        return UNKNOWN
    names = [name for name, _default, _annotation in obj.cls.all_fields()]
    if any(key not in names for key in kwargs) or any(name not in kwargs and name not in obj.attrs for name in names):
        return UNKNOWN
    fields = {name: kwargs[name] if name in kwargs else obj.attrs[name] for name in names}
    return A.instantiate(interp, obj.cls, [], fields, node, fr)


def h_pydantic_construct(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`Cfg.model_construct(seq_len=77)` (pydantic 2; `construct` in 1): an instance with
    the values given and the defaults for the rest, no validator run (probe 75a); a
    default made by `Field(...)` is not read."""
    cls = args[0] if len(args) == 1 else None
    if not isinstance(cls, ClassV):
        return UNKNOWN
    made = InstanceV(cls, dict(kwargs), False, (interp.step(fr, node, A.src(node)),), True)
    for name, default, _annotation in cls.all_fields():
        if name not in kwargs and default is not None:
            made.attrs[name] = UNKNOWN if isinstance(default, A.CallResultV) else default
    return made


def h_pydantic_validate(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`Cfg.model_validate({"seq_len": 255})` (pydantic 2; `parse_obj` in 1): the model
    built from a dict of string keys, as `Cfg(**data)` builds it (its validators
    included); from anything else, or with options (`strict=`, `context=`), Unknown."""
    cls = args[0] if len(args) == 2 else None
    data = args[1] if cls is not None else None
    if kwargs or not isinstance(cls, ClassV) or not isinstance(data, DictV) or not all(isinstance(key, str) for key, _ in data.items):
        interp.escape(args[1:], kwargs)
        return UNKNOWN
    return interp.call(cls, [], {str(key): value for key, value in data.items}, False, node, fr)


def h_typing_cast(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`typing.cast(T, value)` is value (probe 73c: `cast("jax.Array", frames)`)."""
    return args[1] if len(args) == 2 and not kwargs else UNKNOWN


def h_pydantic_copy(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`cfg.model_copy(update={"seq_len": 255})` (pydantic 2; `.copy(update=...)` in 1): a
    copy of the model with those fields set as given: no validator runs (probes 73c,
    74a)."""
    update = kwargs.get("update", DictV(()))
    obj = args[0] if len(args) == 1 else None
    if set(kwargs) - {"update", "deep"} or not isinstance(obj, InstanceV) or not isinstance(update, DictV) or not all(isinstance(key, str) for key, _ in update.items):
        return UNKNOWN
    copied = InstanceV(obj.cls, dict(obj.attrs), False, (interp.step(fr, node, A.src(node)),), obj.ready)
    copied.attrs.update((str(key), value) for key, value in update.items)
    return copied


def h_asdict(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """dataclasses.asdict(cfg): its fields as a dict (`**asdict(cfg)` hands them on as
    keywords); nested dataclasses become dicts too, as asdict does."""
    return _as_dict(args[0], 0) if len(args) == 1 and not kwargs else UNKNOWN


def h_dataclass_fields(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """dataclasses.fields(cls or instance): one Field per field, of which the name is
    known (`{f.name for f in dataclasses.fields(cls)}` filtering a dict of overrides:
    probe 72a), and the default where it is a plain constant (`add_argument("--" +
    f.name, type=type(f.default), default=f.default)`: probe 80b); a flax module's
    hidden fields (`parent`, `name`) make it unknown."""
    from jax_cudnn_lint.shape_inference import layers

    given = args[0] if len(args) == 1 and not kwargs else None
    cls = given.cls if isinstance(given, InstanceV) else given
    if not isinstance(cls, ClassV) or not A.is_dataclass_like(cls) or A.is_linen_class(cls) or A.is_nnx_class(cls):
        return UNKNOWN
    step = interp.step(fr, node, A.src(node))
    postponed = _postponed_annotations(cls.module.tree)

    def described(name: str, default: Value | None, annotation: ast.expr | None) -> dict[str, Value]:
        plain = isinstance(default, (IntV, FloatV)) or isinstance(default, ConstV) and isinstance(default.value, (int, float, str, bool, type(None)))
        found: dict[str, Value] = {"name": ConstV(name), "default": default} if plain and default is not None else {"name": ConstV(name)}
        if isinstance(annotation, ast.Name) and annotation.id in ("int", "float", "str", "bool"):
            # `type=f.type` (probe 87b: an HfArgumentParser done by hand): the class, or
            # its name where annotations are postponed (`from __future__ import annotations`)
            found["type"] = ConstV(annotation.id) if postponed else ExternalV(f"builtins.{annotation.id}")
        return found

    # (`InitVar` pseudo-fields and the `KW_ONLY` marker are no fields: probe 98c)
    listed = [(name, default, annotation) for name, default, annotation in A.init_fields(cls) if not A.is_init_var(annotation) and not A.is_kw_only_marker(annotation)]
    return TupleV(tuple(layers.make_namespace(interp, "dataclasses.Field", [], described(name, default, annotation), node, fr) for name, default, annotation in listed), False, (step,))


def _postponed_annotations(tree: ast.Module) -> bool:
    """`from __future__ import annotations`: a field's `type` is the annotation's text."""
    return any(isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__" and any(alias.name == "annotations" for alias in stmt.names) for stmt in tree.body)


def _as_dict(value: Value, depth: int) -> Value:
    if not isinstance(value, InstanceV):
        return value
    if depth > 4 or not A.is_dataclass_like(value.cls) or A.is_linen_class(value.cls) or A.is_nnx_class(value.cls):
        return UNKNOWN
    names = [name for name, _default, _annotation in value.cls.all_fields()]
    if any(name not in value.attrs for name in names):
        return UNKNOWN
    return DictV(tuple((name, _as_dict(value.attrs[name], depth + 1)) for name in names), value.why)


_MATH_FLOAT: dict[str, Callable[[float], float]] = {"sqrt": math.sqrt, "log": math.log, "log2": math.log2, "exp": math.exp, "log10": math.log10}


def h_math_float(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """math.sqrt(d), math.log(d)...: a Python float (known when d is), or a ValueError."""
    if len(args) != 1 or kwargs or not A.is_python_number(args[0]):
        return UNKNOWN
    ok, py = const_value(args[0])
    if ok and isinstance(py, (int, float)) and abs(py) < 2**53:
        try:
            return ConstV(_MATH_FLOAT[q.rsplit(".", 1)[-1]](float(py)), args[0].why)
        except (ValueError, OverflowError):
            return UNKNOWN
    return FloatV(args[0].why)


def h_float(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return ConstV(0.0)
    if isinstance(args[0], (IntV, FloatV)) and len(args) == 1:
        ok_int, _ = const_value(args[0])
        if not ok_int:
            return FloatV(args[0].why)
    if isinstance(args[0], ArrayV) and args[0].shape == () and len(args) == 1:
        return FloatV(args[0].why)  # float(jnp.finfo(dtype).max), float(x.sum())
    ok, v = const_value(args[0])
    if ok and isinstance(v, (int, float)) and not isinstance(v, bool):
        return ConstV(float(v), args[0].why)
    if ok and isinstance(v, str):
        try:
            return ConstV(float(v), args[0].why)
        except ValueError:
            return UNKNOWN
    return UNKNOWN


def h_bool(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return ConstV(False)
    t = A.truth(args[0])
    return ConstV(t) if t is not None else UNKNOWN


def h_tuple(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return TupleV((), q.endswith("list"))
    v = args[0]
    if isinstance(v, TupleV):
        return TupleV(v.items, q.endswith("list"), v.why)
    if isinstance(v, S.SymShapeV):
        return UNKNOWN
    if isinstance(v, DictV):
        # `list(metadata["columns"])`: the keys, in order, as len() counts them (probe 79b:
        # `len(list(d))`; 80a: a module's dict)
        return TupleV(A.dict_keys(v).items, q.endswith("list"), (interp.step(fr, node, A.src(node)),))
    if isinstance(v, ConstV) and isinstance(v.value, (str, bytes)) and len(v.value) <= _MAX_LISTED_RANGE:
        # `list(prompt)`, `list(prompt.encode())`: its characters, its byte values (probe 62a)
        chars = [ConstV(c, v.why) if isinstance(c, str) else make_int(c, v.why) for c in v.value]
        return TupleV(tuple(chars), q.endswith("list"), (interp.step(fr, node, A.src(node)),))
    if isinstance(v, A.RangeV) and (items := A.known_items(v, _MAX_LISTED_RANGE)) is not None:
        return TupleV(tuple(items), q.endswith("list"), (interp.step(fr, node, A.src(node)),))  # lags `tuple(range(1, 8))` (probe 51c)
    if isinstance(v, ArrayV) and v.shape and (count := v.shape[0].value) is not None and count <= _MAX_LISTED_RANGE:
        # `list(history[-30:])` of a NumPy row: its items, one per entry of the leading
        # axis (probe 67b: `list(h[-30:]) + [target]`)
        row = v.with_shape(v.shape[1:], interp.step(fr, node, A.src(node)))
        return TupleV((row,) * count, q.endswith("list"), (interp.step(fr, node, A.src(node)),))
    if isinstance(v, IterV) and len(args) == 1 and not kwargs:
        # list(batches(cfg)): a sequence of unknown length, each item what the generator yields
        element = A.iter_element(interp, v, node, fr)
        return IterV(element, True, v.why) if not isinstance(element, UnknownV) else UNKNOWN
    return UNKNOWN


_MAX_ZIPPED = 64  # items of a zip or enumerate over known sequences kept one by one
_MAX_LISTED_RANGE = 1024  # items of `list(range(...))` kept one by one
_MAX_DESCENDING = 64  # items of a range counting down, kept one by one


def _any_int_from(start: int | None) -> IntV:
    """An int known only to be at least `start` (a counter)."""
    return IntV(D.Dim(None, 1, 0, None, start, None, ()))


def h_zip(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """zip(a, b): over known sequences, the tuples themselves (a short for loop runs
    each); otherwise an iterable of tuples, each part what describes its sequence's items."""
    if not args or any(k != "strict" for k in kwargs):
        return UNKNOWN
    seqs = [A.unpack(interp, a, None, False, node, fr) for a in args]
    known = [s for s in seqs if s is not None]
    if len(known) == len(seqs):
        n = min(len(s) for s in known)
        if n <= _MAX_ZIPPED:
            return TupleV(tuple(TupleV(tuple(s[i] for s in known)) for i in range(n)), False, (interp.step(fr, node, A.src(node)),))
    parts = tuple(A.iter_element(interp, a, node, fr) for a in args)
    return IterV(TupleV(parts))


def h_enumerate(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """enumerate(xs, start): pairs of a counter and an item of xs."""
    if not args or len(args) > 2 or any(k != "start" for k in kwargs):
        return UNKNOWN
    start_v = arg(args, kwargs, 1, "start")
    start = 0 if start_v is None else int_value(start_v)
    items = A.unpack(interp, args[0], None, False, node, fr)
    if items is not None and start is not None and len(items) <= _MAX_ZIPPED:
        return TupleV(tuple(TupleV((make_int(start + i), item)) for i, item in enumerate(items)), False, (interp.step(fr, node, A.src(node)),))
    return IterV(TupleV((_any_int_from(start), A.iter_element(interp, args[0], node, fr))))


def h_iter(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """iter(xs): an iterator over xs's items (an object's own `__iter__` when it has one)."""
    if len(args) != 1 or kwargs:
        return UNKNOWN  # iter(callable, sentinel)
    v = args[0]
    if isinstance(v, IterV) and not v.is_list:
        return v
    if isinstance(v, InstanceV):
        member = v.cls.lookup("__iter__")
        if isinstance(member, FunctionV):
            it = interp.call(BoundMethodV(member, v), [], {}, False, node, fr)
            return it if isinstance(it, (IterV, InstanceV)) else UNKNOWN
        return UNKNOWN
    element = A.iter_element(interp, v, node, fr)
    # read as it goes: a later change to the list shows through the iterator
    return UNKNOWN if isinstance(element, UnknownV) else IterV(element, False, (), interp.mutations)


def h_next(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """next(it) and next(it, default): an item of the iterator (or the default)."""
    if not 1 <= len(args) <= 2 or kwargs:
        return UNKNOWN
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.GeneratorExp) and isinstance(args[0], TupleV):
        # `next(w for w in WINDOWS if w >= k + 1)`: a generator made here, its items known:
        # the first, else the default (probe 79c: a bucket picked from a table)
        if args[0].items:
            return args[0].items[0]
        return args[1] if len(args) == 2 else NEVER
    item = A.next_item(interp, args[0], node, fr)
    return join(item, args[1]) if len(args) == 2 else item


def h_hash(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """hash(x): a Python int whose value is not known (probe 82b: `[hash(w) % V for w in
    words]` made into an array keeps its length)."""
    return IntV(D.unknown((interp.step(fr, node, A.src(node)),)))


def h_copy(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`copy.deepcopy(CONFIG)` / `copy.copy(cfg)` of constants, tuples, lists and dicts: a
    new object with the same contents, so that changing the copy leaves the original as
    it was (probe 84a: a crop size read from a deep copy of a nested config dict).
    Instances and whatever else: Unknown, as before."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    return _copied(args[0], q.endswith("deepcopy"), 0)


def _copied(value: Value, deep: bool, depth: int) -> Value:
    if value.changed_in_place or depth > 8:
        return UNKNOWN
    if isinstance(value, (IntV, ConstV, FloatV, DTypeV, SliceV, ArrayV, ExternalV, FunctionV, ClassV)):
        return value  # immutable here (an array's contents are not followed), or copied as itself
    if isinstance(value, TupleV) and (value.is_list or deep):
        items = tuple(_copied(item, deep, depth + 1) for item in value.items) if deep else value.items
        return TupleV(items, value.is_list, value.why, value.diff)
    if isinstance(value, DictV):
        pairs = tuple((key, _copied(item, deep, depth + 1)) for key, item in value.items) if deep else value.items
        return DictV(pairs, value.why, value.diff)
    if isinstance(value, SetV):
        return SetV(value.items, value.why)
    if isinstance(value, TupleV):
        return value  # a tuple, copied shallowly: itself
    return UNKNOWN


# A pattern run on the analysed code's own literals: short, and with no group repeated
# (`(a+)+` backtracks for ever: the linter must not hang on what it reads)
_SAFE_PATTERN = re.compile(r"[^()]*(?:\((?:\?:|\?P<\w+>)?[^()]*\)(?![*+{])[^()]*)*")
_MAX_PATTERN, _MAX_SUBJECT, _MAX_QUANTIFIERS = 100, 200, 3  # (n ** 3 steps at worst: `\d*\d*\d*x`)


def h_re_match(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`re.search(r"window(\\d+)", "swin_tiny_patch4_window7_224")` on literal strings: the
    match (its groups, read by `.group(n)` / `.group("name")` / `.groups()`) or None
    (probe 88b: a window size parsed from a model's name); `re.findall`'s list; a
    `re.compile(...)` pattern whose methods do the same (probe 89b).  Only short
    patterns whose groups are not repeated run; anything else is Unknown."""
    if q == "re.compile":
        ok, pattern = const_value(args[0]) if len(args) == 1 and not kwargs else (False, None)
        return ExtObjectV("re.Pattern", (args[0],), (), args[0].why) if ok and isinstance(pattern, str) and _safe_pattern(pattern) else UNKNOWN
    if q.startswith("re.Pattern.") and args and isinstance(args[0], ExtObjectV) and args[0].args:
        args, q = [args[0].args[0], *args[1:]], "re." + q.rsplit(".", 1)[-1]  # `PATTERN.match(name)`
    ok_p, pattern = const_value(args[0]) if len(args) == 2 and not kwargs else (False, None)
    ok_s, subject = const_value(args[1]) if len(args) == 2 and not kwargs else (False, None)
    if not (ok_p and ok_s and isinstance(pattern, str) and isinstance(subject, str)) or len(subject) > _MAX_SUBJECT or not _safe_pattern(pattern):
        return UNKNOWN
    why = merge_why(args[0].why, args[1].why, (interp.step(fr, node, A.src(node)),))
    try:
        if q == "re.findall":
            found_all = cast("list[object]", re.findall(pattern, subject))
            if len(found_all) > 64 or not all(isinstance(item, str) for item in found_all):
                return UNKNOWN  # (groups make tuples: not followed)
            return TupleV(tuple(ConstV(item, why) for item in found_all), True, why)
        found = getattr(re, q.rsplit(".", 1)[-1])(pattern, subject)
    except re.error:
        return UNKNOWN
    if found is None:
        return ConstV(None, why)
    groups = (found.group(0), *found.groups())
    named = tuple((name, ConstV(value, why)) for name, value in found.groupdict().items())
    return ExtObjectV("re.Match", (), (("_groups", TupleV(tuple(ConstV(g, why) for g in groups))), ("_named", DictV(named, why))), why)


def _safe_pattern(pattern: str) -> bool:
    """Short, no group repeated, at most _MAX_QUANTIFIERS quantifiers (a lazy `+?`
    counts once), no escape but \\d \\w \\s \\. (no back-reference)."""
    plain = pattern.replace("+?", "+").replace("*?", "*").replace("(?", "(")
    quantifiers = sum(plain.count(c) for c in "*+{")  # (an optional part, `?`, at most doubles the tries: four of them)
    escapes = pattern.replace("\\d", "").replace("\\w", "").replace("\\s", "").replace("\\.", "")
    return len(pattern) <= _MAX_PATTERN and quantifiers <= _MAX_QUANTIFIERS and plain.count("?") <= 4 and "\\" not in escapes and bool(_SAFE_PATTERN.fullmatch(pattern))


def h_re_group(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`m.group(n)`, `m.group("name")`, `m.groups()` of a match made from literals (h_re_match)."""
    match = args[0] if args else None
    held = match.kwarg("_groups") if isinstance(match, ExtObjectV) and match.qualname == "re.Match" else None
    named = match.kwarg("_named") if isinstance(match, ExtObjectV) else None
    if not isinstance(held, TupleV) or kwargs:
        return UNKNOWN
    if q.endswith(".groups"):
        return TupleV(held.items[1:]) if len(args) == 1 else UNKNOWN
    if len(args) == 2 and isinstance(args[1], ConstV) and isinstance(args[1].value, str):
        found = named.get(args[1].value) if isinstance(named, DictV) else None
        return found if found is not None else UNKNOWN
    index = int_value(args[1]) if len(args) == 2 else 0 if len(args) == 1 else None
    return held.items[index] if index is not None and 0 <= index < len(held.items) else UNKNOWN


def h_device_count(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.device_count()` and its kin: the host's number, unknown here, but one number
    throughout a run, so arithmetic keeps what it decides (probe 84c: `8 *
    jax.device_count() - 1` tokens is odd on every host)."""
    if args or kwargs:
        return IntV(D.unknown((interp.step(fr, node, A.src(node)),)))  # (a backend named)
    return IntV(D.symbol(f"{q}()", (interp.step(fr, node, A.src(node)),)))


def h_filter_truthy(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`filter(None, items)` of known items: those that are true (probe 81c: override
    specs split on commas, empty parts dropped).  Another predicate: Unknown."""
    if len(args) != 2 or kwargs or not (isinstance(args[0], ConstV) and args[0].value is None) or not isinstance(args[1], TupleV):
        return UNKNOWN
    kept: list[Value] = []
    for item in args[1].items:
        truth = A.truth(item)
        if truth is None:
            return UNKNOWN
        if truth:
            kept.append(item)
    return not_a_sequence(TupleV(tuple(kept), False, (interp.step(fr, node, A.src(node)),)))


def h_chex_variant(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """chex's `self.variant(fn)`: fn jitted, or as it is, or pmapped with its arguments
    broadcast to the devices: each calls fn on the arguments as given (probe 81e).  With
    other options (`broadcast_args_to_devices=False`: inputs with a device axis, probe
    82a), Unknown."""
    if len(args) != 1 or set(kwargs) - {"static_argnums", "static_argnames"}:
        return UNKNOWN
    return TransformV("jax.jit", args[0], tuple(kwargs.items()), (interp.step(fr, node, A.src(node)),))


def h_bisect(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """bisect.bisect_left / bisect_right (bisect) of a known int in a sorted tuple of
    known ints: the index (probe 79c: `BUCKETS[bisect.bisect_left(BUCKETS, n)]`)."""
    import bisect

    table, x = arg(args, kwargs, 0, "a"), arg(args, kwargs, 1, "x")
    values = [int_value(v) for v in table.items] if isinstance(table, TupleV) else None
    wanted = int_value(x) if x is not None else None
    if values is None or wanted is None or len(args) > 2 or kwargs or any(v is None for v in values):
        return UNKNOWN
    known = [v for v in values if v is not None]
    if known != sorted(known):
        return UNKNOWN
    pick = bisect.bisect_left if q.endswith("bisect_left") else bisect.bisect_right
    return make_int(pick(known, wanted), (interp.step(fr, node, A.src(node)),))


def h_minmax(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    items = args[0].items if len(args) == 1 and isinstance(args[0], TupleV) else args
    values = [int_value(a) for a in items]
    if values and all(v is not None for v in values) and not kwargs:
        pick = max if q.endswith("max") else min
        return make_int(pick(v for v in values if v is not None))
    numbers: list[float] = []
    for item in items:
        ok, py = const_value(item)
        if not ok or not isinstance(py, (int, float)) or isinstance(py, bool):
            return UNKNOWN
        numbers.append(float(py))
    if numbers and not kwargs:
        return ConstV(max(numbers) if q.endswith("max") else min(numbers))
    return UNKNOWN


def h_abs(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if args and isinstance(args[0], IntV) and args[0].dim.value is not None:
        return make_int(abs(args[0].dim.value))
    if args and isinstance(args[0], ArrayV):
        return args[0]
    return UNKNOWN


def h_dict(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """dict(d, **kw), and dict(cfg) of an ml_collections ConfigDict (its fields, as
    big_vision's `Model(**dict(config.model))` reads them)."""
    base: tuple[tuple[object, Value], ...] = ()
    if args:
        fields = configdict.items(interp, args[0], node, fr) if isinstance(args[0], InstanceV) else None
        pairs = _key_value_pairs(args[0])
        if isinstance(args[0], DictV):
            base = args[0].items
        elif fields is not None:
            base = tuple(fields)
        elif pairs is not None:
            for k, v in pairs:
                base = with_key(base, k, v)
        elif len(args) == 1 and not kwargs and isinstance(args[0], UnknownV):
            return args[0]  # `dict(params)` of params not known key by key: differentiated as they are
        else:
            if args[0].diff:
                fr.ctx = fr.ctx.reach_unknown()  # (as `{**params, "head": head}` of differentiated params: probe 66c)
            return UNKNOWN
    for k, v in kwargs.items():
        base = with_key(base, k, v)
    return DictV(base, (interp.step(fr, node, A.src(node)),))


def h_dict_copy(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`d.copy()`: a new dict of the same items.  `frozen.copy({"encoder": stopped})`,
    flax's FrozenDict.copy(add_or_replace): its items with those added or replaced (probe
    155a: an encoder's parameters put back under stop_gradient).  Anything else is
    unknown; a differentiated tree copied so leaves the transforms around not knowing
    what reaches on (as `dict(params)` of params not known key by key)."""
    if not kwargs and args and isinstance(args[0], DictV) and (len(args) == 1 or len(args) == 2 and isinstance(args[1], DictV)):
        items = args[0].items
        for key, held in args[1].items if len(args) == 2 and isinstance(args[1], DictV) else ():
            items = with_key(items, key, held)
        return DictV(items, (interp.step(fr, node, A.src(node)),), args[0].diff)
    interp.escape(args, kwargs)
    if any_diff(*args, *kwargs.values()):
        fr.ctx = fr.ctx.reach_unknown()
    return UNKNOWN


def _key_value_pairs(value: Value) -> list[tuple[object, Value]] | None:
    """The items of `dict([("seq_len", 51), ...])` or `dict(zip(keys, values))` where
    each key is a known constant (probe 78b: a config handed to jit as a static
    `tuple(cfg.items())` and rebuilt inside); None for anything else."""
    if not isinstance(value, TupleV):
        return None
    pairs: list[tuple[object, Value]] = []
    for item in value.items:
        if not isinstance(item, TupleV) or len(item.items) != 2:
            return None
        ok, key = const_value(item.items[0])
        if not ok:
            return None
        pairs.append((key, item.items[1]))
    return pairs


def h_dict_get(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args or not isinstance(args[0], DictV) or len(args) < 2:
        return UNKNOWN
    ok, key = const_value(args[1])
    if not ok:
        return UNKNOWN
    found = args[0].get(key)
    if found is None and interp.registries:
        found = interp.registry_item(args[0], key)
        if found is None and id(args[0]) in interp.registries:
            return UNKNOWN  # (a registry: another module may add the key)
    if found is not None:
        return found
    return args[2] if len(args) > 2 else ConstV(None)


_PYTHON_TYPES: dict[str, type] = {
    "builtins.int": int, "builtins.float": float, "builtins.bool": bool, "builtins.str": str,
    "builtins.tuple": tuple, "builtins.list": list, "builtins.dict": dict,
}


def _python_type(value: Value) -> type | None:
    """The Python type of a value the analysis holds exactly (None: cannot tell; an
    array may be a NumPy scalar, and NumPy's float64 is a float)."""
    if isinstance(value, IntV):
        return int
    if isinstance(value, FloatV):
        return float
    if isinstance(value, ConstV):
        return type(value.value)
    if isinstance(value, TupleV):
        return list if value.is_list else tuple
    if isinstance(value, DictV):
        return dict
    return None


def h_isinstance(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """isinstance(window, int) on a value of known Python type, against builtin types:
    configs that accept an int or a tuple pick their branch."""
    if len(args) != 2 or kwargs:
        return UNKNOWN
    verdict = is_instance(args[0], args[1])
    return UNKNOWN if verdict is None else ConstV(verdict)


def is_instance(value: Value, classes_value: Value) -> bool | None:
    """isinstance(value, classes_value) where certain (a match statement's class
    pattern asks it too)."""
    classes = classes_value.items if isinstance(classes_value, TupleV) else (classes_value,)
    verdicts: list[bool | None] = []
    for cls in classes:
        if isinstance(cls, ClassV):
            verdicts.append(_is_instance_of_class(value, cls))
        elif isinstance(cls, ExternalV) and cls.qualname in _PYTHON_TYPES:
            kind = _python_type(value)
            if kind is None and isinstance(value, InstanceV) and not (value.cls.external_bases() - {"builtins.object"}):
                verdicts.append(False)  # a class of the code's own on no library base (probe 85a: `case int(n):`)
                continue
            verdicts.append(None if kind is None else issubclass(kind, _PYTHON_TYPES[cls.qualname]))
        else:
            verdicts.append(None)
    if True in verdicts:
        return True
    return False if verdicts and all(v is False for v in verdicts) else None


def h_ends_the_path(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`parser.error(msg)`: prints and raises SystemExit (the statement ends the path)."""
    return NEVER


def h_property(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`seq = property(_get, _set)`: a property as the decorator makes it (a store runs
    its setter: what is stored is Unknown)."""
    getter = args[0] if args else kwargs.get("fget")
    return A.PropertyV(getter) if getter is not None else UNKNOWN


def h_any_all(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """any(...) / all(...) over items the analysis knows (a generator over a known tuple
    is unrolled): settled by one item, or by all of them."""
    items = A.known_items(args[0], 64) if len(args) == 1 and not kwargs else None
    if items is None:
        return UNKNOWN
    truths = [A.truth(item) for item in items]
    settles = q == "builtins.any"  # the item truth that settles it
    if settles in truths:
        return ConstV(settles)
    return ConstV(not settles) if all(t is (not settles) for t in truths) else UNKNOWN


def _is_instance_of_class(value: Value, cls: ClassV) -> bool | None:
    """isinstance(value, cls) for a class of the analysed code with no library base (so
    no array, number or builtin container is one, and no other class claims its
    instances): an object made from a class whose bases lead to it is; one made from
    another class is not (a generic `self` may be a subclass's: unknown)."""
    if cls.external_bases() or any(c.node.keywords for c in class_chain(cls)):
        return None  # (a metaclass may answer for itself: `__instancecheck__`, ABCMeta.register)
    if isinstance(value, InstanceV):
        if value.cls.lookup("__class__") is not None or "__class__" in value.attrs or value.cls.lookup("__new__") is not None:
            return None  # a proxy naming another class, `obj.__class__ = B`, a `__new__` that may make another
        if any(current.node is cls.node for current in class_chain(value.cls)):
            return True
        return None if value.recipe is not None else False
    if isinstance(value, (ArrayV, IntV, FloatV, ConstV, TupleV, DictV)):
        return False
    return None


# lax.Precision's constructor: the strings and ints it takes, and the member each names
_PRECISION_BY_VALUE: dict[object, str] = {
    "bfloat16": "DEFAULT", "default": "DEFAULT", "fastest": "DEFAULT", 0: "DEFAULT",
    "tensorfloat32": "HIGH", "high": "HIGH", "bfloat16_3x": "HIGH", 1: "HIGH",
    "float32": "HIGHEST", "highest": "HIGHEST", 2: "HIGHEST",
}


def h_precision(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.Precision("bfloat16") is Precision.DEFAULT (and a member is itself)."""
    value = args[0] if len(args) == 1 and not kwargs else None
    if isinstance(value, ExternalV) and value.qualname.startswith(q + "."):
        return value
    ok, py = const_value(value) if value is not None else (False, None)
    member = _PRECISION_BY_VALUE.get(py) if ok and isinstance(py, (str, int)) and not isinstance(py, bool) else None
    return ExternalV(f"{q}.{member}") if member is not None else UNKNOWN


def h_ahead_of_time(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.jit(f).lower(*args)` (or `.trace`, `.eval_shape`): f is traced with those
    arguments, so JAX's trace-time checks run; the Lowered/Traced object is Unknown."""
    if not args:
        return UNKNOWN
    interp.call(args[0], list(args[1:]), dict(kwargs), False, node, fr)
    return UNKNOWN


def h_nnx_clone(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`ema = nnx.clone(model)`: a copy of the module graph; the model itself is left as
    it was (probes 111b, 112a: the clone trained, or switched to "xla" while the
    original trains).  A graph deeper than the copy goes is Unknown (113a: a switch
    five levels down, shared, reached the original)."""
    if len(args) != 1 or kwargs or not isinstance(args[0], InstanceV):
        return UNKNOWN
    if _deeper_than(args[0], _CLONE_DEPTH):
        return UNKNOWN
    return fresh_copies(args[0], 0, next_serial(), deepest=4 * _CLONE_DEPTH)


_CLONE_DEPTH = 12


def _deeper_than(value: Value, levels: int, most: int = 2000) -> bool:
    """Does an object, list or dict lie more than `levels` below `value` by its shortest
    path, or are there more than `most` of them?  (Breadth first, each once.)"""
    seen: set[int] = {id(value)}
    level: list[Value] = [value]
    for _ in range(levels + 1):
        below: list[Value] = []
        for held in level:
            inner = held.attrs.values() if isinstance(held, InstanceV) else held.items if isinstance(held, TupleV) else (v for _, v in held.items) if isinstance(held, DictV) else ()
            for item in inner:
                if isinstance(item, (InstanceV, TupleV, DictV)) and id(item) not in seen:
                    seen.add(id(item))
                    below.append(item)
        if not below:
            return False
        if len(seen) > most:
            return True
        level = below
    return True


def h_patch_object(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`mock.patch.object(Config, "impl", None)` (a with item, a decorator, a patcher
    started later) and `mock.patch.dict(CONFIG, {...})` on an object or dict of the
    analysed code: while it holds, the attribute or the dict is not what the code set, so
    Unknown (probe 116c; a patch from another module is read by mark_patches)."""
    unset_attribute(args[0] if args else None, args[1] if len(args) > 1 else None)
    if q.endswith("patch.dict") and args and isinstance(args[0], DictV):
        mark_changed_in_place(args[0])
    return UNKNOWN


def unset_attribute(target: Value | None, name: Value | None) -> None:
    """What a patch or a monkeypatch sets on a class or an object: Unknown."""
    if isinstance(target, (ClassV, InstanceV)) and isinstance(name, ConstV) and isinstance(name.value, str):
        target.attrs[name.value] = UNKNOWN
        if isinstance(target, InstanceV):
            target.touch()


def h_export(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.export.export(jax.jit(f), platforms=[...])(*avals)`: the exporter traces f
    with those arguments like `.lower` does (probe 111e), so its call is h_ahead_of_time's."""
    if len(args) != 1:
        return UNKNOWN
    return BoundMethodV(ExternalV("jax.stages.trace"), args[0])


# finfo's attributes that are scalars of the dtype asked about
_FINFO_SCALARS = ("min", "max", "eps", "tiny", "smallest_normal", "resolution", "epsneg", "smallest_subnormal")


def h_finfo(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.finfo(dtype): `.min` / `.max` / `.eps` are NumPy scalars of that dtype (rank 0,
    strongly typed), the fill values of attention masks and biases."""
    given = arg(args, kwargs, 0, "dtype")
    if isinstance(given, ArrayV):
        name = given.dtype
    else:
        name = A.dtype_name(given) if given is not None else None
    why = (interp.step(fr, node, A.src(node)),)
    scalar = ArrayV((), name if name is not None and is_float(name) else None, False, why)
    bits = (("bits", make_int(8 * DTYPE_BYTES[name])),) if name is not None and name in DTYPE_BYTES else ()
    return ExtObjectV(q, (), (*((attr, scalar) for attr in _FINFO_SCALARS), *bits), why)


def h_dict_view(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """d.items() / d.keys() / d.values() of a dict whose keys are all known: a sequence
    (`for k, v in kwargs.items()` over an empty **kwargs runs no pass)."""
    if len(args) != 1 or kwargs or not isinstance(args[0], DictV):
        return UNKNOWN
    keys = list(A.dict_keys(args[0]).items)
    values = [v for _, v in args[0].items]
    view = q.rsplit(".", 1)[-1]
    if view == "keys":
        items = TupleV(tuple(keys))
    elif view == "values":
        items = TupleV(tuple(values))
    else:
        items = TupleV(tuple(TupleV((k, v)) for k, v in zip(keys, values)))
    return live_view(not_a_sequence(items), args[0])


# str methods evaluated on constants (pure, and cheap for short strings)
# str methods that give an int: an int of unknown value where the string or the argument
# is not known (probe 84a: `[RESTYPES.index(a) for a in seq]`, a protein's residue ids)
_STR_INT_METHODS = ("index", "rindex", "find", "rfind", "count")
_STR_METHODS = frozenset(
    {"split", "rsplit", "lower", "upper", "strip", "lstrip", "rstrip", "replace", "startswith", "endswith", "partition",
     "rpartition", "removeprefix", "removesuffix", "isdigit", "join", "format", "encode", "splitlines", *_STR_INT_METHODS}
)


def h_str_method(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """"B/16".split("/") and the like, on constant strings: configs that name their
    variant in one string ("B/16", "llama-7b") and take sizes from its parts."""
    found = _str_method(interp, args, kwargs, q)
    if found is UNKNOWN and q.rsplit(".", 1)[-1] in _STR_INT_METHODS:
        return IntV(D.unknown((interp.step(fr, node, A.src(node)),)))
    return found


def _str_method(interp: Interpreter, args: Args, kwargs: Kwargs, q: str) -> Value:
    consts: list[object] = []
    for value in args:
        ok, py = const_value(value)
        joined: tuple[object, ...] = tuple(cast("list[object]", py)) if ok and isinstance(py, (tuple, list)) else ()
        if q.endswith(".join") and joined and len(joined) <= 64 and all(isinstance(part, str) for part in joined):
            consts.append(joined)  # `"".join(["cu", "dnn"])`
            continue
        if not ok or not (py is None or isinstance(py, (str, int))) or (isinstance(py, str) and len(py) > 1000):
            return UNKNOWN
        consts.append(py)
    named: dict[str, object] = {}
    for key, value in kwargs.items():
        ok, py = const_value(value)
        if not ok or not (py is None or isinstance(py, (str, int))):
            return UNKNOWN
        named[key] = py
    if not consts or not isinstance(consts[0], str):
        return UNKNOWN
    if q.endswith(".format") and not A.safe_to_format(consts[0], [*consts[1:], *named.values()]):
        return UNKNOWN
    try:
        result: object = getattr(consts[0], q.rsplit(".", 1)[-1])(*consts[1:], **named)
    except (TypeError, ValueError, LookupError):
        return UNKNOWN  # `"{n}".format(limit=1)` raises KeyError where it runs (probe 43c)
    why = args[0].why
    if isinstance(result, (str, bool, bytes)):
        return ConstV(result, why)  # (bytes: `prompt.encode("utf-8")`, a byte-level tokenizer's input)
    if isinstance(result, (list, tuple)):
        items: list[object] = list(cast("list[object]", result))
        parts = [part for part in items if isinstance(part, str)]
        if len(parts) == len(items) <= 64:
            return TupleV(tuple(ConstV(part, why) for part in parts), isinstance(result, list))
    if isinstance(result, int):
        return make_int(result, why)
    return UNKNOWN


def h_nnx_variable(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """nnx.Param(jnp.zeros((1, 1, D))) and the other nnx variables: the array they hold,
    which is how code reads them (`x + self.pos`, `jnp.tile(self.cls, ...)`, `.value`).
    Only an nnx.Param is differentiated by nnx.grad and the nnx.DiffState(n, nnx.Param)
    filters: the array of any other (nnx.Variable, BatchStat, Cache, a frozen-weights
    subclass) carries no tangent."""
    value = arg(args, kwargs, 0, "value")
    if not isinstance(value, ArrayV):
        return UNKNOWN
    if q == "flax.nnx.Param":
        return value
    if q == "flax.nnx.LoRAParam":
        # an nnx.Param too; a DiffState's nnx.LoRAParam filter selects it (probe 55a: a
        # hand-written LoRA layer's factors)
        return mark_lora(ArrayV(value.shape, value.dtype, value.diff, value.why, value.name, weak=value.weak))
    return ArrayV(value.shape, value.dtype, False, value.why, value.name, stopped=True, weak=value.weak)


_SCALAR_TYPES = ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool_")


def h_scalar_type(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """np.float32(0.5), jnp.bfloat16(2): a scalar of that dtype, strongly typed (a
    bfloat16 array times np.float32(0.5) is float32); of an array, a cast."""
    dtype = canonical_dtype(q.rsplit(".", 1)[-1])
    if len(args) != 1 or kwargs or dtype is None:
        return UNKNOWN
    value = args[0]
    why = (interp.step(fr, node, A.src(node)),)
    if isinstance(value, ArrayV):
        return ArrayV(value.shape, dtype, value.diff and is_float(dtype), value.why, value.name)
    if A.is_python_number(value):
        return ArrayV((), dtype, False, why)
    return UNKNOWN


def h_promote_types(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jnp.promote_types(jnp.bfloat16, jnp.float16)` is float32 (JAX's lattice, not
    NumPy's: probe 39a); `jnp.result_type` of dtypes alike.  Float dtypes only; arrays and
    Python scalars (weak types) are not followed."""
    names = [A.dtype_name(value) if not isinstance(value, ArrayV) and not A.is_python_number(value) else None for value in args]
    if kwargs or not names or not all(is_float(name) for name in names) or (q.endswith("promote_types") and len(names) != 2):
        return UNKNOWN  # (floats only: with ints, NumPy's lattice and JAX's part: float16 and int16)
    promoted: str | None = names[0]
    for name in names[1:]:
        promoted = promote(promoted, name)
    return DTypeV(promoted) if promoted is not None else UNKNOWN


def h_np_dtype(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jnp.dtype("bfloat16"), np.dtype(cfg.dtype): the dtype, when its name is known."""
    name = A.dtype_name(arg(args, kwargs, 0, "dtype"))
    return DTypeV(name) if name is not None else UNKNOWN


def h_getattr(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """getattr(jnp, "bfloat16"), getattr(cfg, "seq_len"): as `jnp.bfloat16` would read;
    with a default, only an attribute the instance certainly has."""
    if len(args) not in (2, 3) or kwargs:
        return UNKNOWN
    ok, name = const_value(args[1])
    if not ok or not isinstance(name, str) or not name.isidentifier():
        return UNKNOWN
    base = args[0]
    if len(args) == 2:
        return interp.getattr_(base, name, node, fr)
    if isinstance(base, InstanceV) and name in base.attrs:
        return interp.getattr_(base, name, node, fr)
    if argparse_seeds.certainly_lacks(interp, base, name, fr):
        return args[2]
    return UNKNOWN


def h_hasattr(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """hasattr(ns, "seq_len") of a namespace built or parsed whole (probe 146a): True where
    it holds a known value, False where it certainly lacks the name (as getattr's default
    is taken); else unknown (a deleted attribute reads Unknown, present or not)."""
    if len(args) != 2 or kwargs:
        return UNKNOWN
    ok, name = const_value(args[1])
    base = args[0]
    if not ok or not isinstance(name, str) or not name.isidentifier() or not isinstance(base, InstanceV) or base.cls.qualname not in argparse_seeds.PLAIN_NAMESPACES:
        return UNKNOWN
    if name in base.attrs:
        return UNKNOWN if isinstance(base.attrs[name], UnknownV) else ConstV(True)
    if argparse_seeds.certainly_lacks(interp, base, name, fr):
        return ConstV(False)
    return UNKNOWN


def h_str(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """str(x.dtype) is its name ("bfloat16"); str of a known number or string, its text."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    if isinstance(args[0], DTypeV):
        return ConstV(args[0].name)
    if paths.is_path(args[0]):
        return paths.h_fspath(interp, args, kwargs, node, fr, q)  # (str(Path(...)): its text)
    ok, value = const_value(args[0])
    return ConstV(str(value)) if ok and isinstance(value, (str, int, float, bool)) and not (isinstance(value, int) and abs(value) > 10**100) else UNKNOWN


def h_type(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """type(obj) of an instance of an analysed class: its class (`type(self).seq = 256`
    changes the class, `type(self)(cfg)` makes another instance)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], InstanceV):
        return interp.generic_class_view(args[0].cls) if args[0].recipe is not None else args[0].cls
    if len(args) == 1 and not kwargs:
        # of a known constant, its builtin type: `type=type(default)` in an argparse loop
        # over a defaults dict, `type(getattr(cfg, key))(value)` (probes 71a, 76c)
        ok, py = const_value(args[0])
        kind = type(py).__name__ if ok and type(py) in (bool, int, float, str) else "float" if isinstance(args[0], FloatV) else "int" if isinstance(args[0], IntV) else None
        if kind is not None:
            return interp.external(f"builtins.{kind}")
    return UNKNOWN


def h_partial(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return UNKNOWN
    return PartialV(args[0], tuple(args[1:]), tuple(kwargs.items()), (interp.step(fr, node, A.src(node)),))


def h_decorator_factory(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    return A.ExtCallDecoratorV(q, list(args), dict(kwargs))


def h_type_checker(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jaxtyped(f, typechecker=beartype)`, `beartype(f)`: the function itself (a run-time
    type checker calls it as it is); `jaxtyped(typechecker=beartype)`: a decorator that does."""
    if args and isinstance(args[0], (FunctionV, BoundMethodV, A.OpaqueDecoratedV, PartialV, TransformV)):
        return args[0]
    return A.ExtCallDecoratorV(q, list(args), dict(kwargs))


def h_call_result(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if q in ("dataclasses.field", "flax.struct.field", "equinox.field"):
        # flax's and equinox's pass their keywords to dataclasses.field; a converter
        # (equinox) changes the default, which is then not known
        known = tuple((k, v) for k, v in kwargs.items() if "converter" not in kwargs or k not in ("default", "default_factory"))
        return A.CallResultV("dataclasses.field", DictV(known))
    if q in ("attrs.field", "attr.ib", "attr.attrib", "attr.field", "pydantic.Field", "pydantic.fields.Field"):
        # attrs' `default=` / `factory=`, pydantic's default (first argument) and
        # `default_factory=`, as dataclasses.field's; a converter changes the default
        given = dict(kwargs)
        if args and q.startswith("pydantic"):
            given.setdefault("default", args[0])
        if "factory" in given:
            given["default_factory"] = given.pop("factory")
        known = tuple((k, v) for k, v in given.items() if k in ("default", "default_factory", "converter", "kw_only", "init") and ("converter" not in given or k in ("converter", "kw_only", "init")))
        return A.CallResultV("dataclasses.field", DictV(known))
    if q == "pytest.param":
        marks = kwargs.get("marks")
        if _skips(marks, xfail_runs=True):
            return A.CallResultV("pytest.param.skipped", None)  # a row pytest never runs
        xfails = [m for m in (marks.items if isinstance(marks, TupleV) else (marks,) if marks is not None else ()) if isinstance(m, (ExternalV, A.ExtCallDecoratorV)) and m.qualname == case_rows.XFAIL]
        if xfails:
            # a row expected to fail: what its xfail expects is handled there (probe 41b)
            return A.CallResultV(case_rows.XFAIL_PARAM, TupleV((TupleV(tuple(args)), xfails[0])))
        return A.CallResultV(q, TupleV(tuple(args)))
    if q in A.EXPECTS_RAISE:
        # a value that is entered later (`with expectation:` of a parametrize row, `ctx =
        # nullcontext() if ok else pytest.raises(...)`, a TestCase helper that returns
        # `self.assertRaisesRegex(...)`): what it catches (probes 36b, 48c), a TestCase
        # method's after its `self` (probe 49a: `self` read as the class caught everything)
        expected = args[1:] if q.startswith("unittest.TestCase.") else args
        return A.CallResultV(q, expected[0] if expected else None)
    if q == "jax.default_matmul_precision":
        return A.CallResultV(q, args[0] if args else kwargs.get("precision"))
    if q == "flax.nnx.DiffState":
        # nnx.grad(..., argnums=nnx.DiffState(0, nnx.Param)): which argument, and a filter
        argnum = args[0] if args else kwargs.get("argnum", UNKNOWN)
        wrt = args[1] if len(args) > 1 else kwargs.get("filter", UNKNOWN)
        return A.CallResultV(q, TupleV((argnum, wrt)))
    if q in ("hypothesis.strategies.sampled_from", "hypothesis.strategies.just"):
        # the values a strategy draws, as case_rows reads them: a literal list (or one value)
        values = args[0] if args and not kwargs else None
        listed = values if isinstance(values, TupleV) and q.endswith("sampled_from") else TupleV((values,)) if values is not None else None
        return A.CallResultV("hypothesis.strategies.sampled_from", listed)
    if q in ("flax.nnx.All", "flax.nnx.Any", "flax.nnx.PathContains", "flax.nnx.filterlib.All", "flax.nnx.filterlib.Any", "flax.nnx.filterlib.PathContains"):
        # nnx's filters, as DiffState reads them (transforms.nnx_filter)
        return A.CallResultV(q.replace(".filterlib", ""), TupleV(tuple(args)) if not kwargs else None)
    if q == "jax.sharding.PartitionSpec":
        return A.CallResultV(q, TupleV(tuple(args)) if not kwargs else None)
    if q.endswith("enable_x64"):
        # `with jax.enable_x64(False):` turns 64-bit mode off; left out, it turns it on
        new_val = args[0] if args else kwargs.get("new_val")
        return A.CallResultV(q, ConstV(True) if new_val is None else new_val)
    return A.CallResultV(q, None)


def _skips(marks: Value | None, xfail_runs: bool = False) -> bool:
    """Do `pytest.param(..., marks=...)` marks skip the row (an xfail too, unless
    `xfail_runs`: then only one with run=False)?"""
    items = marks.items if isinstance(marks, TupleV) else (marks,) if marks is not None else ()
    return any(isinstance(m, ExternalV) and m.qualname == "pytest.mark.skip" or isinstance(m, A.ExtCallDecoratorV) and case_rows.skips(m.qualname, m.args, m.kwargs, xfail_runs=xfail_runs) for m in items)


def h_transform(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if not args:
        return A.ExtCallDecoratorV(q, [], dict(kwargs))
    func = args[0]
    if q in A.VMAP_LIKE and len(args) > 1 and "in_axes" not in kwargs:
        kwargs = {**kwargs, "in_axes": args[1]}
        if len(args) > 2 and "out_axes" not in kwargs:
            kwargs["out_axes"] = args[2]
    if q in ("jax.shard_map", "jax.experimental.shard_map.shard_map"):
        # shard_map(f, mesh, in_specs, out_specs) in its first API
        kwargs = {**dict(zip(("mesh", "in_specs", "out_specs"), args[1:4])), **kwargs}
    if q in A.GRAD_LIKE and len(args) > 1 and "argnums" not in kwargs:
        kwargs = {**kwargs, "argnums": args[1]}
        if len(args) > 2 and "has_aux" not in kwargs:
            kwargs["has_aux"] = args[2]
    from jax_cudnn_lint.shape_inference.values import ClassV

    if isinstance(func, ClassV) and q in A.LINEN_STAGING_LIFTS and A.is_linen_class(func):
        # `nn.remat(Attn)`: the class, whose instances run staged (a `try` in `__call__`
        # does not catch what a grad around raises: probes 75a, 76a)
        return dataclasses.replace(func, decorators=(*func.decorators, ExternalV(q)))
    if isinstance(func, ClassV) and q not in A.VMAP_LIKE:
        return func  # flax lifted transforms over a module class keep the class's shapes
    # (a class vmapped builds a stacked module: transforms._add_axis)
    return TransformV(q, func, tuple(kwargs.items()), (interp.step(fr, node, f"{A.src(node)}"),))


def h_checkify(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`checkify.checkify(f, errors=...)`: a function that runs f on its arguments and
    gives (error, f's result) (transforms.call_transform; probe 75d: a checkified train
    step was not analysed at all)."""
    if not args:
        return UNKNOWN
    return TransformV(A.CHECKIFY, args[0], (), (interp.step(fr, node, A.src(node)),))


def h_closure_convert(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`f, consts = jax.closure_convert(fn, *example_args)`: `f(*args, *consts)` computes
    fn(*args); the hoisted constants are read as fn reads them, so f is fn with no
    constants to pass (probe 75d)."""
    if not args or kwargs:
        return UNKNOWN
    return TupleV((args[0], TupleV((), True)))


def h_custom_rules(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`attn.defvjp(fwd, bwd)`, `@attn.defjvp` (which returns its rule): the rules a
    differentiated call of `attn` runs instead of its body (transforms.call_transform)."""
    jvp = q.endswith("defjvp")
    if len(args) == (2 if jvp else 3) and isinstance(args[0], TransformV) and not kwargs:
        func = args[0].func
        interp.custom_rules[id(func.node) if isinstance(func, FunctionV) else id(func)] = tuple(args[1:])
    return args[1] if jvp and len(args) == 2 else ConstV(None)


def h_primals_transform(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import transforms

    return transforms.call_primals(interp, q, args, kwargs, node, fr)


def h_check_grads(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.test_util.check_grads(f, args, order, modes=("fwd", "rev"))` and its
    `check_jvp(f, f_jvp, args)` / `check_vjp(f, f_vjp, args)`: a test that differentiates
    `f` at `args`, forward mode first where it checks both (probe 71b: an odd length
    under `modes=["rev"]`).  The first order only: a second order's own failure is not
    read here."""
    from jax_cudnn_lint.shape_inference import transforms

    name = q.rsplit(".", 1)[-1]
    f = arg(args, kwargs, 0, "f")
    given = arg(args, kwargs, 1 if name == "check_grads" else 2, "args")
    if f is None or not isinstance(given, TupleV):
        return UNKNOWN
    if name == "check_grads":
        given_modes = kwargs.get("modes", args[3] if len(args) > 3 else None)
        ok, read = const_value(given_modes) if given_modes is not None else (True, ("fwd", "rev"))
        items: list[object] = list(cast("Sequence[object]", read)) if ok and isinstance(read, (tuple, list)) else []
        modes = [m for m in items if isinstance(m, str)]
        if not items or len(modes) != len(items):
            return UNKNOWN
        forward = "fwd" in modes
        if not forward and "rev" not in modes:
            return ConstV(None)
    else:
        forward = name == "check_jvp"
    if forward:
        transforms.call_primals(interp, "jax.jvp", [f, given, given], {}, node, fr)
    else:
        transforms.call_primals(interp, "jax.vjp", [f, *given.items], {}, node, fr)
    return ConstV(None)


def h_control_flow(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import transforms

    return transforms.call_control_flow(interp, q, args, kwargs, node, fr)


def h_mapping(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import transforms

    return transforms.call_mapping(interp, q, args, kwargs, node, fr)


def h_path_mapping(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import transforms

    return transforms.call_path_mapping(interp, args, node, fr)


def h_haiku_transform(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.haiku_transform(interp, q, args, kwargs, node, fr)


def h_haiku_apply(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.haiku_apply(interp, q, args, kwargs, node, fr)


def h_haiku_lift(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`hk.lift(inner.init, name="encoder")`: a function whose call gives the inner
    transform's parameters, held in the outer model's (layers.call_layer)."""
    from jax_cudnn_lint.shape_inference import layers

    return ExtObjectV(layers.LIFTED_INIT, tuple(args[:1]), (), (interp.step(fr, node, A.src(node)),))


def h_layer(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference.layers import HAIKU_POLICY

    items = tuple(kwargs.items())
    if q.startswith("haiku.") and interp.haiku_casts(fr.module):
        items += ((HAIKU_POLICY, ConstV(True)),)
    return ExtObjectV(q, tuple(args), items, (interp.step(fr, node, A.src(node)),))


def h_haiku_policy(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """hk.mixed_precision.set_policy / push_policy: modules built from now on cast their
    inputs and outputs as the policy says, which is not modelled (their dtype: unknown)."""
    interp.haiku_policy = True
    return ConstV(None)



def h_namespace(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    if q.endswith("FrozenConfigDict"):  # it resolves FieldReferences once, when built
        args = [configdict.resolved(interp, a, node, fr) for a in args]
        kwargs = {k: configdict.resolved(interp, v, node, fr) for k, v in kwargs.items()}
    made = layers.make_namespace(interp, q, args, kwargs, node, fr)
    if q in argparse_seeds.PLAIN_NAMESPACES and not args and isinstance(made, InstanceV):
        # built from its keywords alone: `getattr(ns, "seq_len", 255)` of one it lacks is
        # the default, as for a parsed namespace (probe 137b)
        made.attrs[argparse_seeds.WHOLE] = ConstV(True)
    return made


def h_lifted_method(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.call_lifted_method(interp, q, args, kwargs, node, fr)


def h_layer_method(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.call_layer_method(interp, q, args, kwargs, node, fr)


def h_embed_attend(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.embed_attend(interp, q, args, kwargs, node, fr)


def h_linen_method(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.call_linen_method(interp, q, args, kwargs, node, fr)


_PRESERVE = (
    "exp log log2 log10 log1p expm1 tanh sinh cosh sin cos tan arctan arcsin arccos sqrt rsqrt abs absolute sign square "
    "negative reciprocal cbrt erf erfc floor ceil round rint trunc clip nan_to_num tril triu flip fliplr flipud roll sort "
    "fix conj conjugate real imag cumsum cumprod cummax asarray copy ravel_not relu relu6 gelu silu swish sigmoid "
    "softplus softmax log_softmax elu celu selu leaky_relu hard_tanh hard_sigmoid hard_swish glu_not mish soft_sign "
    "standardize normalize logistic with_sharding_constraint with_logical_constraint device_put optimization_barrier reshard reduce_precision "
    "dropout_not stop_gradient_not tanh_not"
).split()

# (heaviside too: its tangent is a zero JAX does not drop, so a query gated by it is
# still differentiated, probe 83b; logaddexp2 is binary, it was read as unary)
_BROADCAST = (
    "add subtract multiply divide true_divide floor_divide maximum minimum power pow logaddexp logaddexp2 arctan2 mod remainder "
    "heaviside hypot fmax fmin fmod float_power"
).split()
_COMPARE = "equal not_equal greater greater_equal less less_equal logical_and logical_or logical_xor".split()
_REDUCE = "sum mean max min prod std var argmax argmin any all amax amin nanmean nansum logsumexp median count_nonzero".split()

HANDLERS: dict[str, Handler] = {}


def _register(names: Sequence[str], prefixes: Sequence[str], handler: Handler) -> None:
    for prefix in prefixes:
        for name in names:
            HANDLERS[f"{prefix}.{name}"] = handler


def h_list_search(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`ids.index(IMAGE_TOKEN)`, `ids.count(PAD)` on a list or tuple of constants (probe
    98e: LLaVA's image placeholder, found by index in the prompt's ids).  A value not in
    the list makes `index` raise: Unknown."""
    if len(args) != 2 or kwargs or not isinstance(args[0], TupleV) or len(args[0].items) > _MAX_SEARCHED:
        return UNKNOWN
    ok, wanted = const_value(args[1])
    consts = [const_value(item) for item in args[0].items]
    if not ok or not all(known for known, _ in consts) or not isinstance(wanted, (int, str, float, bool)) and wanted is not None:
        return UNKNOWN
    values = [value for _, value in consts]
    step = (interp.step(fr, node, A.src(node)),)
    if q.endswith(".count"):
        return make_int(values.count(wanted), step)
    return make_int(values.index(wanted), step) if wanted in values else UNKNOWN


_MAX_SEARCHED = 4096  # items of a list `index` / `count` look through


_register(["index", "count"], ["builtins.list"], h_list_search)


_NP = ["jax.numpy"]
_register(["zeros", "ones", "empty"], _NP, h_zeros)
_register(["full"], _NP, h_full)
_register(["zeros_like", "ones_like", "empty_like", "full_like"], _NP, h_like)
_register(["arange"], _NP, h_arange)
_register(["eye", "tri"], _NP, h_eye)
_register(["take_along_axis"], _NP, h_take_along_axis)
_register(["argsort"], _NP, h_argsort)
_register(["broadcasted_iota", "iota"], ["jax.lax"], h_iota)
_register(["array", "asarray"], _NP, h_array)
_register(["reshape"], _NP + ["jax.lax", "jax.Array"], h_reshape)
_register(["ravel"], _NP + ["jax.Array"], h_ravel)
HANDLERS["jax.Array.flatten"] = h_ravel
_register(["transpose", "permute_dims"], _NP + ["jax.lax", "jax.Array"], h_transpose)
_register(["swapaxes"], _NP + ["jax.Array"], h_swapaxes)
_register(["moveaxis"], _NP, h_moveaxis)
_register(["expand_dims"], _NP + ["jax.lax"], h_expand_dims)
_register(["squeeze"], _NP + ["jax.lax", "jax.Array"], h_squeeze)
_register(["broadcast_to"], _NP, h_broadcast_to)
_register(["concatenate", "concat"], _NP + ["jax.lax"], h_concatenate)
_register(["stack"], _NP, h_stack)
_register(["append"], _NP, h_append)
_register(["hstack", "vstack"], _NP, h_stack_along)
_register(["insert", "delete"], _NP, h_insert_delete)
_register(["shape", "ndim", "size"], _NP, h_shape_of)
_register(["hanning", "hamming", "blackman", "bartlett"], _NP, h_window)
_register(["importorskip"], ["pytest"], h_importorskip)
_register(["split", "array_split"], _NP, h_split)
_register(["hsplit", "vsplit", "dsplit"], _NP, h_split_along)
_register(["pad"], _NP, h_pad)
_register(["repeat"], _NP + ["jax.Array"], h_repeat)
_register(["tile"], _NP, h_tile)
_register(["diff"], _NP, h_diff)
_register(["unstack"], _NP, h_unstack)
_register(["einsum"], _NP, h_einsum)
_register(["matmul", "dot"], _NP, h_matmul)
_register(["dot_general"], ["jax.lax"], h_dot_general)
_register(["rearrange", "repeat", "reduce"], ["einops"], h_einops)  # (reduce: the axes not on the right are reduced)
_register(["pack"], ["einops"], h_einops_pack)
_register(_PRESERVE, _NP + ["jax.nn", "jax.lax", "flax.linen", "flax.nnx", "jax.Array", "flax.linen.partitioning", "jax", "jax.scipy.special", "jax.sharding"], h_preserve)
_register(["checkpoint_name"], ["jax.ad_checkpoint", "jax._src.ad_checkpoint"], h_preserve)  # remat's name tag: its operand
_register(_PLACEMENT, ["jax.lax", "flax.linen", "flax.nnx", "jax", "flax.linen.partitioning", "jax.sharding"], h_placed)
_register(["filter_shard"], ["equinox"], h_placed)
_register(["fft", "ifft", "rfft", "irfft"], ["jax.numpy.fft", "numpy.fft"], h_fft)
_register(["meshgrid"], _NP + ["numpy"], h_meshgrid)
_register(["sliding_window_view"], ["numpy.lib.stride_tricks"], h_sliding_window_view)
_register(["promote_dtype"], ["flax.nnx.nn.dtypes", "flax.linen.dtypes"], h_promote_dtype)
_register(["stop_gradient"], ["jax.lax"], h_stop_gradient)
_register(["associative_scan"], ["jax.lax"], h_associative_scan)
_register(["custom_root"], ["jax.lax"], h_custom_root)
_register(_BROADCAST, _NP + ["jax.lax"], h_broadcast)
_register(_COMPARE, _NP, h_compare)
_register(["isnan", "isfinite", "isinf", "logical_not"], _NP, h_bool_preserve)
_register(["where", "nonzero", "flatnonzero", "argwhere", "unique"], _NP, h_sized_indices)
_register(["triu_indices", "tril_indices"], ["numpy", "jax.numpy"], h_triangle_indices)
_register(["outer"], _NP, h_outer)
_register(list(INITIALIZER_FACTORIES), _INITIALIZER_PREFIXES, h_initializer)
_register(["zeros", "ones"], _INITIALIZER_PREFIXES, h_initializer_call)
_register(_REDUCE, _NP + ["jax.Array", "jax.nn", "jax.scipy.special"], h_reduce)
HANDLERS["jax.numpy.linalg.norm"] = h_norm
for _q in ("eigh", "eigvalsh", "eig", "eigvals"):  # (eig's are complex: only their shapes are read)
    HANDLERS[f"jax.numpy.linalg.{_q}"] = h_eigh

_register(["astype"], ["jax.Array", "jax.numpy"], h_astype)
_register(["convert_element_type"], ["jax.lax"], h_astype)
_register(["one_hot"], ["jax.nn"], h_one_hot)
_register(["normal", "uniform", "truncated_normal", "bernoulli", "randint", "split", "PRNGKey", "key", "fold_in", "categorical", "permutation", "choice", "orthogonal", "gumbel", "laplace", "rademacher", "exponential"], ["jax.random"], h_random)
_register(["randn", "rand", "normal", "uniform", "standard_normal", "random", "randint"], ["jax.numpy.random"], h_np_random)
_register(["default_rng"], ["jax.numpy.random"], h_layer)
# seeded generators whose draws bound a random window (random_starts; probe 67a)
_register(["RandomState"], ["jax.numpy.random"], h_layer)
_register(["randint", "normal", "uniform", "standard_normal"], ["jax.numpy.random.RandomState"], h_np_generator)
HANDLERS["random.Random"] = h_layer
_register(list(_GENERATOR_SIZE), ["jax.numpy.random.default_rng"], h_np_generator)
_register(["ShapeDtypeStruct"], ["jax"], h_shape_dtype_struct)
_register(["dot_product_attention"], ["jax.nn", "jax._src.cudnn.fused_attention_stablehlo", "flax.linen", "flax.nnx"], h_attention)
_register(["lstm", "lstm_ref"], ["jax.experimental.rnn"], h_lstm)
_register(["unpack_lstm_weights"], ["jax.experimental.rnn"], h_unpack_lstm_weights)
_register(["make_causal_mask"], ["flax.linen", "flax.nnx"], h_causal_mask)
_register(["apply", "init", "init_with_output"], ["flax.linen.scan()", "flax.linen.vmap()"], h_lifted_method)
_register(["attend"], ["flax.linen.Embed", "flax.nnx.Embed"], h_embed_attend)
# (flax's own layers used as the top-level module: a unit test's, or an embedding applied
# on its own before the model, probe 113c)
_register(
    ["apply", "init", "init_with_output"],
    [f"flax.linen.{layer}" for layer in ("MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention", "Dense", "DenseGeneral", "Embed", "LayerNorm", "RMSNorm", "GroupNorm", "Einsum", "Conv", "ConvTranspose")],
    h_layer_method,
)
_register(["make_attention_mask"], ["flax.linen", "flax.nnx"], h_attention_mask)
_register(["combine_masks"], ["flax.linen", "flax.nnx"], h_combine_masks)
_register(["len"], ["builtins"], h_len)


def h_ord(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`ord(c)`: an int (a character-level tokenizer's ids: `[ord(c) for c in prompt]`
    is a list of ints, as long as the prompt; probe 62a), its value where c is known."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    ok, char = const_value(args[0])
    if ok and isinstance(char, str) and len(char) == 1:
        return make_int(ord(char), args[0].why)
    return IntV(D.unknown((interp.step(fr, node, A.src(node)),)))


_register(["ord"], ["builtins"], h_ord)
_register(["property"], ["builtins"], h_property)
_register(["any", "all"], ["builtins"], h_any_all)
_register(["range"], ["builtins"], h_range)
_register(["slice"], ["builtins"], h_slice)
_register(["zip"], ["builtins"], h_zip)
_register(["enumerate"], ["builtins"], h_enumerate)
_register(["iter"], ["builtins"], h_iter)
_register(["next"], ["builtins"], h_next)
_register(["filter"], ["builtins"], h_filter_truthy)
_register(["hash"], ["builtins"], h_hash)
_register(["search", "match", "fullmatch", "findall", "compile"], ["re"], h_re_match)
_register(["search", "match", "fullmatch", "findall"], ["re.Pattern"], h_re_match)
_register(["group", "groups"], ["re.Match"], h_re_group)
_register(["copy", "deepcopy"], ["copy"], h_copy)
_register(["device_count", "local_device_count", "process_count"], ["jax"], h_device_count)
_register(["bisect_left", "bisect_right", "bisect"], ["bisect"], h_bisect)
_register(["vars"], ["builtins"], h_vars)
_register(["int"], ["builtins"], h_int)
_register(["float"], ["builtins"], h_float)
_register(list(_MATH_FLOAT), ["math"], h_math_float)
_register(["round"], ["builtins"], h_rounding)
_register(["ceil", "floor"], ["math"], h_rounding)
_register(["replace"], ["dataclasses"], h_replace)
_register(["evolve"], ["attrs", "attr"], h_replace)  # (attrs' own dataclasses.replace: probe 73c)
_register(["cast"], ["typing"], h_typing_cast)
HANDLERS[A.PYDANTIC_COPY] = h_pydantic_copy
HANDLERS[A.PYDANTIC_CONSTRUCT] = h_pydantic_construct
HANDLERS[A.PYDANTIC_VALIDATE] = h_pydantic_validate
_register(["asdict"], ["dataclasses"], h_asdict)
_register(["fields"], ["dataclasses"], h_dataclass_fields)
_register(["set", "add", "multiply", "mul", "divide", "power", "min", "max", "apply"], ["jax.Array.at"], h_at_update)
_register(["get"], ["jax.Array.at"], h_at_get)
_register(["dynamic_slice", "dynamic_slice_in_dim"], ["jax.lax"], h_dynamic_slice)
_register(["index_in_dim", "dynamic_index_in_dim"], ["jax.lax"], h_index_in_dim)
_register(["slice", "slice_in_dim"], ["jax.lax"], h_static_slice)
_register(["dynamic_update_slice", "dynamic_update_slice_in_dim"], ["jax.lax"], h_dynamic_update_slice)
_register(["linspace"], _NP, h_linspace)
_register(["resize"], ["jax.image"], h_image_resize)
_register(["top_k"], ["jax.lax"], h_top_k)
_register(["take"], _NP, h_take)
_register(["pad"], ["jax.lax"], h_lax_pad)
_register(["conv_general_dilated", "conv", "conv_with_general_padding"], ["jax.lax"], windows.h_conv)
_register(["conv_transpose"], ["jax.lax"], windows.h_conv_transpose)
_register(["conv_general_dilated_patches"], ["jax.lax"], windows.h_conv_patches)
_register(["reduce_window"], ["jax.lax"], windows.h_reduce_window)
_register(["max_pool", "avg_pool"], ["flax.linen", "flax.nnx", "flax.linen.pooling"], windows.h_flax_pool)
_register(["min_pool"], ["flax.nnx", "flax.linen.pooling"], windows.h_flax_pool)  # not in flax.linen's namespace
_register(["max_pool", "avg_pool"], ["haiku"], windows.h_haiku_pool)
_register(["prod"], ["math", "jax.numpy"], h_prod)
_register(list(_OPERATORS), ["operator"], h_operator)
_register(["reduce"], ["functools"], h_fold)
_register(["setattr", "object.__setattr__", "type.__setattr__"], ["builtins"], h_setattr)
_register(["delattr", "object.__delattr__", "type.__delattr__"], ["builtins"], h_delattr)
_register(["bool"], ["builtins"], h_bool)
_register(["tuple", "list"], ["builtins"], h_tuple)


def h_tolist(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`row.tolist()` of a 1-D array: a list of its entries (probe 67b)."""
    v = args[0] if len(args) == 1 and not kwargs else None
    if isinstance(v, ArrayV) and v.shape is not None and len(v.shape) == 1:
        return h_tuple(interp, [v], {}, node, fr, "builtins.list")
    return UNKNOWN


_register(["tolist"], ["jax.Array"], h_tolist)
_register(["max", "min"], ["builtins"], h_minmax)
_register(["abs"], ["builtins"], h_abs)
_register(["dict"], ["builtins"], h_dict)
_register(["get"], ["builtins.dict"], h_dict_get)
_register(["copy"], ["builtins.dict"], h_dict_copy)
_register(["getattr"], ["builtins"], h_getattr)
_register(["hasattr"], ["builtins"], h_hasattr)
_register(["type"], ["builtins"], h_type)
_register(["str"], ["builtins"], h_str)
_register(["isinstance"], ["builtins"], h_isinstance)
_register(["Precision"], ["jax.lax"], h_precision)
_register(["finfo"], _NP, h_finfo)
_register(["Param", "LoRAParam", "Variable", "BatchStat", "Cache", "Intermediate"], ["flax.nnx"], h_nnx_variable)
_register(["items", "keys", "values"], ["builtins.dict"], h_dict_view)
_register(sorted(_STR_METHODS), ["builtins.str"], h_str_method)
_register(["select"], ["jax.lax"], h_where)
_register(["trace"], ["jax.stages"], h_ahead_of_time)
_register(["export"], ["jax.export", "jax.experimental.export"], h_export)
_register(["clone"], ["flax.nnx", "flax.nnx.graph"], h_nnx_clone)
_register(["object", "dict"], ["unittest.mock.patch", "mock.patch"], h_patch_object)


def h_environment_default(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`os.environ.get("SEQ_LEN", "1024")`: its default, where nothing analysed sets it."""
    return environment.read_default(interp, list(args), dict(kwargs), node, fr)


for _q in environment.READS:
    HANDLERS[_q] = h_environment_default
_register(["dtype"], _NP, h_np_dtype)
_register(list(_SCALAR_TYPES), _NP, h_scalar_type)
_register(["partial"], ["functools"], h_partial)
HANDLERS["jax.tree_util.Partial"] = h_partial  # a partial that is a pytree: called the same way
_register(["wraps", "lru_cache"], ["functools"], h_decorator_factory)
_register(["named_scope"], ["jax"], h_decorator_factory)  # (a context manager that decorates too: probe 89e)
_register(["parametrize", "skipif", "xfail", "skip", "filterwarnings", "slow", "gpu"], ["pytest.mark"], h_decorator_factory)
_register(["given", "settings", "example"], ["hypothesis"], h_decorator_factory)
_register(["parameters", "named_parameters", "product"], ["absl.testing.parameterized"], h_decorator_factory)
_register(["variants", "all_variants"], ["chex"], h_decorator_factory)
HANDLERS[A.CHEX_VARIANT] = h_chex_variant
_register(["skip", "skipIf", "skipUnless"], ["unittest"], h_decorator_factory)
_register(["set_policy", "push_policy"], ["haiku.mixed_precision"], h_haiku_policy)
_register(["fixture"], ["pytest"], h_decorator_factory)
_register(["jaxtyped"], ["jaxtyping"], h_type_checker)
_register(["beartype"], ["beartype"], h_type_checker)
_register(["typechecked"], ["typeguard"], h_type_checker)
_register(["dataclass"], ["dataclasses", "flax.struct", "chex", "pydantic.dataclasses", "pydantic.v1.dataclasses"], h_decorator_factory)
_register(["define", "frozen", "mutable"], ["attrs", "attr"], h_decorator_factory)
_register(["s", "attrs"], ["attr"], h_decorator_factory)
_register(["field"], ["dataclasses", "flax.struct", "equinox", "attrs", "attr"], h_call_result)
_register(["ib", "attrib"], ["attr"], h_call_result)
_register(["Field"], ["pydantic", "pydantic.fields"], h_call_result)
_register(["param"], ["pytest"], h_call_result)
_register(["DiffState", "All", "Any", "PathContains"], ["flax.nnx"], h_call_result)
_register(["sampled_from", "just"], ["hypothesis.strategies"], h_call_result)
_register(["default_matmul_precision"], ["jax"], h_call_result)
_register(["raises"], ["pytest"], h_call_result)
_register(["assert_raises"], ["numpy.testing"], h_call_result)
_register(A.TEST_CASE_EXPECTING, ["unittest.TestCase"], h_call_result)
_register(["enable_x64"], ["jax.experimental", "jax"], h_call_result)
_register(["PartitionSpec"], ["jax.sharding"], h_call_result)
_register(["divmod", "pow"], ["builtins"], h_int_function)
_register(["isqrt", "gcd", "lcm", "comb", "perm", "factorial"], ["math"], h_int_function)
_register(["gcd", "lcm"], ["numpy"], h_int_function)
_register(["bit_length", "bit_count", "item"], ["builtins.int"], h_int_function)
_register(["sum"], ["builtins"], h_sum)
HANDLERS["jax.Array.resize"] = h_resize_in_place
HANDLERS["jax.numpy.resize"] = h_resize
HANDLERS["builtins.sorted"] = iterables.h_sorted
HANDLERS["builtins.set"] = HANDLERS["builtins.frozenset"] = iterables.h_set
HANDLERS["builtins.reversed"] = iterables.h_reversed
HANDLERS["itertools.product"] = iterables.h_product
HANDLERS["itertools.combinations"] = HANDLERS["itertools.permutations"] = HANDLERS["itertools.combinations_with_replacement"] = iterables.h_combinations
HANDLERS["itertools.chain"] = iterables.h_chain
HANDLERS["itertools.islice"] = iterables.h_islice
_register(list(_NUMBER_FUNCTIONS), _NP, h_np_number)  # after _PRESERVE's registration  # read by shard_map (sharding.blocks)


def h_default_backend(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """The findings are about runs on the target, an NVIDIA GPU, where
    `jax.default_backend()` is "gpu": code that picks `implementation="cudnn"` there
    (`"cudnn" if jax.default_backend() == "gpu" else None`) is judged as it runs there,
    unless the module's own top level forces the CPU (`jax.config.update("jax_platforms",
    "cpu")`, `os.environ["JAX_PLATFORMS"] = "cpu"`: a tutorial's, probe 47c)."""
    if module_forces_cpu(fr.module):
        return ConstV("cpu", (interp.step(fr, node, f"{A.src(node)} is 'cpu': the module sets JAX_PLATFORMS to cpu"),))
    if interp.tests_force_cpu(fr.ctx, fr.module):
        return ConstV("cpu", (interp.step(fr, node, f"{A.src(node)} is 'cpu': the test's module or conftest.py sets JAX_PLATFORMS to cpu"),))
    return ConstV("gpu", (interp.step(fr, node, f"{A.src(node)} is 'gpu' on the target GPU"),))


def module_forces_cpu(module: ModuleInfo) -> bool:
    """_forces_cpu of a module's tree, once."""
    if module.forces_cpu is None:
        module.forces_cpu = _forces_cpu(module.tree)
    return module.forces_cpu


def forces_cpu_before_importing(module: ModuleInfo, is_project_module: Callable[[str], bool]) -> bool:
    """A test module or conftest that forces the CPU before it imports any module of
    the project: one imported first may have started JAX's backends on the GPU (a
    library calling `jax.local_device_count()` at import: probe 110a)."""
    if not module_forces_cpu(module):
        return False
    for stmt in module.tree.body:
        if _names_platforms(stmt):
            return True
        if isinstance(stmt, ast.ImportFrom) and (stmt.level or is_project_module(stmt.module or "")):
            return False
        if isinstance(stmt, ast.Import) and any(is_project_module(alias.name) for alias in stmt.names):
            return False
    return True


def _forces_cpu(tree: ast.Module) -> bool:
    """Does the module set the platforms to "cpu" alone, once, at its top level before
    anything runs: `jax.config.update("jax_platforms", "cpu")` (or the older
    "jax_platform_name", which `default_backend()` reads too), `os.environ[
    "JAX_PLATFORMS"] = "cpu"` (or JAX_PLATFORM_NAME) or its setdefault (a later write, or one after JAX started,
    is not followed: probe 48a)?"""
    writes = [stmt for stmt in ast.walk(tree) if isinstance(stmt, ast.stmt) and _names_platforms(stmt)]
    if len(writes) != 1:
        return False
    stmt = writes[0]
    if not in_prelude(tree, stmt):
        return False
    update = config_update(stmt)
    if update is not None:
        text = _module_text(tree, update[1])
        return update[0] == "jax_platforms" and _first_platform(text) == "cpu" or update[0] == "jax_platform_name" and text == "cpu"
    # the environment: read once, when JAX is imported, so only a write before any import
    # that may import it counts (probe 57a: set after `import jax`, the GPU is used)
    if not _before_any_import_of_jax(tree, stmt):
        return False
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(target := stmt.targets[0], ast.Subscript):
        key = target.slice
        return (dotted_name(target.value) or "").endswith("environ") and isinstance(key, ast.Constant) and _cpu_variable(key.value, _module_text(tree, stmt.value))
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and (dotted_name(call.func.value) or "").endswith("environ")):
        return False
    if call.func.attr == "setdefault":
        given = [a.value for a in call.args if isinstance(a, ast.Constant)]
        return len(given) == 2 == len(call.args) and _cpu_variable(given[0], given[1])
    if call.func.attr == "update":
        # `os.environ.update(JAX_PLATFORMS="cpu")`, `.update({"JAX_PLATFORMS": "cpu"})`
        pairs = [(k.arg, k.value) for k in call.keywords]
        if len(call.args) == 1 and isinstance(given := call.args[0], ast.Dict):
            pairs += [(k.value if isinstance(k, ast.Constant) else None, v) for k, v in zip(given.keys, given.values)]
        elif call.args:
            return False
        named = [(k, v) for k, v in pairs if k in _PLATFORM_VARIABLES]
        return len(named) == 1 and all(k is not None for k, _ in pairs) and _cpu_variable(named[0][0], _module_text(tree, named[0][1]))
    return False


# the environment variables JAX reads its platform setting from (jax_platforms and the
# older jax_platform_name, which `default_backend()` reads too: probe 53a)
_PLATFORM_VARIABLES = ("JAX_PLATFORMS", "JAX_PLATFORM_NAME")


def _cpu_variable(name: object, value: object) -> bool:
    """Does setting the environment variable `name` to `value` pick the CPU?  JAX
    lowercases JAX_PLATFORM_NAME, not JAX_PLATFORMS ("CPU" there is no backend)."""
    if not isinstance(value, str):
        return False
    return name == "JAX_PLATFORMS" and _first_platform(value) == "cpu" or name == "JAX_PLATFORM_NAME" and value.lower() == "cpu"


def _first_platform(value: object) -> str | None:
    """The platform JAX makes the default of a `jax_platforms` list ("cpu,gpu": the
    first; probe 110a)."""
    return value.split(",")[0].strip() if isinstance(value, str) else None


# packages whose import does not import JAX (checked with numpy 2, absl, einops 0.8,
# ml_collections, PyYAML and SciPy installed beside JAX 0.10.2; wandb 0.31, tqdm 4.70,
# pandas 3.1, matplotlib 3.11 and tensorboardX 2.6 too, probe 63a): a script may import
# them before it sets the platform (probe 58a)
_IMPORT_NO_JAX = frozenset({"numpy", "absl", "einops", "ml_collections", "yaml", "scipy", "rich", "wandb", "tqdm", "pandas", "matplotlib", "tensorboardX"})  # (not jaxtyping: `from jaxtyping import Array` imports JAX, probe 60a)
# jaxtyping's dtype annotations do not import JAX; its `Array`, `PyTree`, `ArrayLike`,
# `PRNGKeyArray` do (checked with jaxtyping 0.3 beside JAX 0.10.2; probe 60a)
_JAXTYPING_NO_JAX = frozenset({"Float", "Int", "UInt", "Shaped", "Bool", "Num", "Real", "Inexact", "Integer", "Complex", "Key", "jaxtyped"})
# ...except their submodules for JAX's frameworks (`from einops.layers.flax import ...`
# imports flax, which imports JAX: probe 59a)
_IMPORTS_JAX = frozenset({"jax", "flax", "haiku", "equinox", "optax", "chex"})


def _before_any_import_of_jax(tree: ast.Module, stmt: ast.stmt) -> bool:
    """Is `stmt` at the top level with only imports before it that do not import JAX,
    which reads the environment when it is imported: the standard library's and
    _IMPORT_NO_JAX's (a project module or another package may import it)?"""
    harmless = sys.stdlib_module_names | _IMPORT_NO_JAX

    def safe(module: str) -> bool:
        parts = module.split(".")
        return parts[0] in harmless and _IMPORTS_JAX.isdisjoint(parts)

    def may_import_jax(imported: ast.Import | ast.ImportFrom) -> bool:
        if isinstance(imported, ast.Import):
            return not all(safe(alias.name) for alias in imported.names)
        if imported.module == "jaxtyping" and not imported.level:
            return not all(alias.name in _JAXTYPING_NO_JAX for alias in imported.names)
        return bool(imported.level) or not safe(imported.module or "") or not all(safe(f"{imported.module}.{alias.name}") for alias in imported.names)

    for earlier in tree.body:
        if earlier is stmt:
            return True
        if any(may_import_jax(imported) for imported in top_level_imports(earlier)):
            return False  # (those of a `try` block too: `try: import flax`)
    return False


def _module_text(tree: ast.Module, node: ast.expr) -> object:
    """A literal's value, or that of a name the module binds once, at its top level, to a
    literal (`PLATFORM = "cpu"`: probe 52a); None else."""
    if isinstance(node, ast.Constant):
        return node.value
    if not isinstance(node, ast.Name):
        return None
    bound = [stmt for stmt in ast.walk(tree) if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(isinstance(t, ast.Name) and t.id == node.id for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))]
    if len(bound) != 1 or bound[0] not in tree.body or not isinstance(bound[0], ast.Assign) or not isinstance(bound[0].value, ast.Constant):
        return None
    return bound[0].value.value


def _names_platforms(stmt: ast.stmt) -> bool:
    """A simple statement that mentions the platform setting (a write, a delete, a read)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try)):
        return False
    return any(isinstance(node, ast.Constant) and node.value in ("jax_platforms", "jax_platform_name", *_PLATFORM_VARIABLES) or isinstance(node, ast.keyword) and node.arg in _PLATFORM_VARIABLES for node in ast.walk(stmt))


HANDLERS["jax.default_backend"] = h_default_backend
_register(["setitem", "delitem", "iadd", "iconcat", "ior", "__setitem__", "__delitem__", "__iadd__", "__iconcat__", "__ior__"], ["operator"], h_changes_in_place)
HANDLERS["builtins.exec"] = h_changes_in_place


def h_devices(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.devices()[0].platform` is "gpu" on the target, as `jax.default_backend()` is;
    `jax.devices("cpu")` lists CPU devices.  Anything else about a device is unknown."""
    backend = arg(args, kwargs, 0, "backend")
    ok, name = const_value(backend) if backend is not None else (True, None)
    if not ok or name not in (None, "gpu", "cuda", "cpu"):
        return UNKNOWN
    platform = "cpu" if name == "cpu" or name is None and (module_forces_cpu(fr.module) or interp.tests_force_cpu(fr.ctx, fr.module)) else "gpu"
    where = "the module sets JAX_PLATFORMS to cpu" if platform == "cpu" and name is None else "on the target GPU host"
    device = ExtObjectV("jax.Device", (), (("platform", ConstV(platform, (interp.step(fr, node, f"{A.src(node)}: {platform} devices {where}"),))),))
    return IterV(device, True, (interp.step(fr, node, A.src(node)),))


HANDLERS["jax.devices"] = HANDLERS["jax.local_devices"] = h_devices


HANDLERS["jax.make_mesh"] = HANDLERS["jax.sharding.Mesh"] = sharding.h_mesh
HANDLERS["jax.experimental.mesh_utils.create_device_mesh"] = sharding.h_create_device_mesh
_register(["set_mesh", "use_mesh"], ["jax", "jax.sharding"], sharding.h_set_mesh)
_register(sharding.SAME_SHAPE_COLLECTIVES, ["jax.lax"], sharding.h_same_shape_collective)
HANDLERS["jax.lax.axis_index"] = sharding.h_axis_index
HANDLERS["jax.lax.axis_size"] = sharding.h_axis_size
HANDLERS["jax.lax.all_gather"] = sharding.h_all_gather
HANDLERS["jax.lax.psum_scatter"] = sharding.h_psum_scatter
HANDLERS["jax.lax.all_to_all"] = sharding.h_all_to_all
HANDLERS["jax.numpy.promote_types"] = HANDLERS["jax.numpy.result_type"] = h_promote_types
_register(
    [n.rsplit(".", 1)[1] for n in A.GRAD_LIKE | A.JIT_LIKE | A.VMAP_LIKE if n.startswith("jax.")],
    ["jax"],
    h_transform,
)
for _name in A.GRAD_LIKE | A.JIT_LIKE | A.VMAP_LIKE:
    HANDLERS[_name] = h_transform
HANDLERS["jax.jacfwd"] = h_transform
HANDLERS["jax.custom_vjp.defvjp"] = HANDLERS["jax.custom_jvp.defjvp"] = h_custom_rules
HANDLERS["jax.eval_shape"] = h_primals_transform
_register(["check_grads", "check_jvp", "check_vjp"], ["jax.test_util", "jax._src.public_test_util"], h_check_grads)
HANDLERS["equinox.filter_eval_shape"] = h_primals_transform
HANDLERS["flax.nnx.eval_shape"] = h_primals_transform
for _name in A.PRIMALS_LIKE:
    HANDLERS[_name] = h_primals_transform
_register(["scan", "fori_loop", "while_loop", "cond", "switch", "map", "platform_dependent"], ["jax.lax"], h_control_flow)
_register(["scan", "fori_loop", "while_loop", "cond", "switch", "map"], ["haiku"], h_control_flow)  # haiku's own, same signatures (probe 43b)
# nnx's control flow takes modules in its operands, with jax.lax's signatures
_register(["fori_loop", "while_loop", "cond", "switch"], ["flax.nnx"], h_control_flow)


def h_lift_class(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.lift_class(interp, q, args, kwargs, node, fr)


# after the transforms' loop above: flax.linen.vmap is vmap-like once lifted, not before
_register(["scan", "vmap"], ["flax.linen"], h_lift_class)
_register(["map", "tree_map"], ["jax.tree", "jax.tree_util"], h_mapping)
_register(["map_with_path", "tree_map_with_path"], ["jax.tree", "jax.tree_util"], h_path_mapping)
_register(["path_aware_map"], ["flax.traverse_util"], h_path_mapping)
_register(["leaves", "tree_leaves"], ["jax.tree", "jax.tree_util"], h_tree_leaves)
_register(["map"], ["builtins"], h_mapping)
_register(
    ["Dense", "DenseGeneral", "Embed", "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm", "Dropout", "MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention", "Einsum", "Conv", "ConvTranspose"],
    ["flax.linen"],
    h_layer,
)
_register(["Sequential"], ["flax.linen", "flax.nnx"], h_layer)
_register(["Linear", "LinearGeneral", "LoRA", "LoRALinear", "Embed", "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm", "Dropout", "MultiHeadAttention", "Einsum", "Conv", "ConvTranspose"], ["flax.nnx"], h_layer)
_register(["Linear", "MLP", "Embedding", "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm", "Lambda", "Dropout", "MultiheadAttention", "Conv", "Conv1d", "Conv2d", "Conv3d", "Identity", "Sequential", "GRUCell", "LSTMCell",
           "ConvTranspose", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           *(f"{kind}Pool{n}d" for kind in ("Max", "Avg", "AdaptiveMax", "AdaptiveAvg") for n in (1, 2, 3))], ["equinox.nn"], h_layer)
_register(["Linear", "Embed", "LayerNorm", "RMSNorm", "BatchNorm", "GroupNorm", "MultiHeadAttention", "Conv1D", "Conv2D", "Conv3D", "Sequential"], ["haiku"], h_layer)


def h_haiku_dropout(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`hk.dropout(rng, rate, x)`: x's shape and dtype, differentiated as x is (probe 42a)."""
    x = arg(args, kwargs, 2, "x")
    return x if isinstance(x, ArrayV) else UnknownV(x.diff if x is not None else False)


_register(["dropout"], ["haiku"], h_haiku_dropout)
_register(["transform", "transform_with_state", "multi_transform", "multi_transform_with_state", "without_apply_rng"], ["haiku"], h_haiku_transform)
# hk.layer_stack(n) is an object that, called on f, gives the stacked function
_register(["layer_stack"], ["haiku"], h_layer)


def h_haiku_get_parameter(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.haiku_get_parameter(interp, args, kwargs, node, fr, state=q.endswith("get_state"))


_register(["get_parameter", "get_state"], ["haiku"], h_haiku_get_parameter)


def h_haiku_mha_method(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """hk.MultiHeadAttention's `__init__` and `_linear_projection`, called by a subclass of
    the analysed code on itself (A.LIBRARY_BASE_METHODS)."""
    from jax_cudnn_lint.shape_inference import layers

    if q.endswith(".__init__"):
        return layers.haiku_mha_init(interp, list(args), kwargs)
    return layers.haiku_linear_projection(interp, list(args), kwargs, node, fr)


HANDLERS["haiku.MultiHeadAttention.__init__"] = HANDLERS["haiku.MultiHeadAttention._linear_projection"] = h_haiku_mha_method


def h_module_parts(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """nnx.split / nnx.merge, eqx.partition(m, eqx.is_array) (or is_inexact_array: the
    arrays a gradient reaches are the floating ones anyway; any other filter spec: some
    of them) / eqx.combine: a module cut into its arrays and the rest, and put back
    together (transforms.split_parts)."""
    from jax_cudnn_lint.shape_inference import transforms

    if q == "equinox.partition" and set(kwargs) == {"is_leaf"} and len(args) == 2:
        # `is_leaf=` decides which subtrees the filter sees whole: some of the arrays
        return transforms.split_parts(args[0], 1, False, (UNKNOWN,))
    if kwargs or not args:
        return UNKNOWN
    if q == "flax.nnx.split":
        return transforms.split_parts(args[0], max(1, len(args) - 1), True, args[1:])
    if q in ("flax.nnx.graphdef", "flax.nnx.state"):
        # `nnx.merge(nnx.graphdef(m), nnx.state(m))`: the parts nnx.split gives, one at a
        # time (probe 154b); a state of several filters is a tuple of states, one each
        # (`params, rest = nnx.state(m, nnx.Param, ...)`: probe 156a)
        if q == "flax.nnx.graphdef" and len(args) > 1:
            return UNKNOWN
        parts = transforms.split_parts(args[0], max(1, len(args) - 1), True, args[1:])
        if not isinstance(parts, TupleV):
            return UNKNOWN  # (not a module of ours: as before, a library call not modelled)
        if q == "flax.nnx.graphdef" or len(args) <= 2:
            return parts.items[0] if q == "flax.nnx.graphdef" else parts.items[1]
        return TupleV(parts.items[1:])
    if q == "equinox.partition":
        if len(args) != 2:
            return UNKNOWN
        spec = args[1]
        if isinstance(spec, ExternalV) and spec.qualname in ("equinox.is_array", "equinox.is_inexact_array"):
            return transforms.split_parts(args[0], 1, False)
        spec = filter_specs.from_literal(spec) or spec  # (`[True, False]` for a list of models)
        # another filter (a pytree of bools: `tree_at(..., spec, replace=True)` on the
        # layers to train): a part of some of the arrays, as an nnx filter's (probe 46a)
        return transforms.split_parts(args[0], 1, False, (spec,))
    return transforms.recombine(args, fr)


_register(["split", "merge", "graphdef", "state"], ["flax.nnx"], h_module_parts)
_register(["partition", "combine"], ["equinox"], h_module_parts)


def h_inference_mode(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`eqx.nn.inference_mode(model)`: the same model with its dropout off; its layers
    and shapes as they were (a gradient still flows: probe 54b)."""
    return args[0] if args else UNKNOWN


def h_make_with_state(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`eqx.nn.make_with_state(Model)`: a maker whose call builds the model and gives
    (model, state); the state's values are not followed (probe 54b)."""
    if len(args) != 1 or kwargs or not isinstance(args[0], ClassV):
        return UNKNOWN
    return ExtObjectV(_MADE_WITH_STATE, (args[0],), (), (interp.step(fr, node, A.src(node)),))


_MADE_WITH_STATE = "equinox.nn.make_with_state()"


def h_tree_at(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`eqx.tree_at(lambda m: m.block.seq_len, model, 127)`: a copy of the module with the
    attribute at that path replaced by a value (probe 54b: a length changed by surgery).
    A submodule swapped in or given by `replace_fn` is unknown in its place, the rest of
    the module as it was; another `where` (several leaves, indexing) leaves the result
    unknown."""
    where = arg(args, kwargs, 0, "where")
    tree = arg(args, kwargs, 1, "pytree")
    replace = arg(args, kwargs, 2, "replace")
    if filter_specs.is_spec(tree) and isinstance(tree, ExtObjectV) and "is_leaf" not in kwargs:
        # a filter spec's subtrees set to True or False (equinox's way to freeze a part)
        return filter_specs.set_subtrees(tree, where, replace, kwargs.get("replace_fn")) or UNKNOWN
    path = _attribute_path(where)
    if path is None or not isinstance(tree, InstanceV) or (replace is None) == ("replace_fn" not in kwargs) or "is_leaf" in kwargs:
        return UNKNOWN
    if replace is None or isinstance(replace, (InstanceV, ExtObjectV)) and not _built_in_place(node) or isinstance(replace, UnknownV) and not isinstance(_attribute_at(tree, path), ArrayV):
        # a submodule swapped in (`jax.lax.stop_gradient(model.attn)`, whose arrays the
        # analysis does not hold stopped one by one: probe 55b), or what `replace_fn`
        # makes of the part (`replace_fn=lambda h: jax.tree.map(jax.lax.stop_gradient, h)`:
        # probe 155a), is not followed: unknown there, the other parts as they were;
        # unless the call builds it there (`LoRA(model.q, rank=8)`: probe 72e).  An array
        # replaced by one not known is a leaf not known (probe 69e: a resized table)
        replace = UNKNOWN
    return _with_attribute(tree, path, replace) or UNKNOWN


def _built_in_place(node: ast.AST) -> bool:
    """`eqx.tree_at(where, model, Wrapper(model.q))`: the replacement is a constructor
    call written in the call, with no stop_gradient inside it."""
    if not isinstance(node, ast.Call):
        return False
    given = node.args[2] if len(node.args) > 2 else next((k.value for k in node.keywords if k.arg == "replace"), None)
    return isinstance(given, ast.Call) and not any(
        isinstance(inner, ast.Call) and (dotted_name(inner.func) or "").endswith("stop_gradient") for inner in ast.walk(given)
    )


def h_haiku_merge(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`hk.data_structures.merge(trainable, frozen)`: the parameters joined module by
    module, as `{**a, **b}` one level down.  Where a part is not known key by key, the one
    part that is not empty, else unknown, and then the transforms around no longer know
    what they differentiate (JCD202, as `{**frozen, **lora}`: probe 72e)."""
    parts = [part for part in args if not (isinstance(part, DictV) and not part.items)]
    if kwargs:
        return UNKNOWN
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(part, DictV) for part in parts):
        items: tuple[tuple[object, Value], ...] = ()
        for part in parts:
            assert isinstance(part, DictV)
            for key, held in part.items:
                before = dict(items).get(key)
                if isinstance(before, DictV) and isinstance(held, DictV):
                    merged = before.items
                    for name, param in held.items:
                        merged = with_key(merged, name, param)
                    held = DictV(merged, held.why)
                elif before is not None:
                    return UNKNOWN
                items = with_key(items, key, held)
        return DictV(items, (interp.step(fr, node, A.src(node)),))
    if any(part.diff for part in parts):
        fr.ctx = fr.ctx.reach_unknown()
    return UNKNOWN


def _attribute_at(inst: InstanceV, path: list[str]) -> Value | None:
    held: Value | None = inst
    for name in path:
        held = held.attrs.get(name) if isinstance(held, InstanceV) else None
    return held


def h_deserialised(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`eqx.tree_deserialise_leaves(path, like)`: `like` with its leaves loaded from the
    file, each of the shape and dtype it has in `like` (equinox checks them), so the
    model itself (probe 69e)."""
    like = arg(args, kwargs, 1, "like")
    return like if like is not None else UNKNOWN


def _attribute_path(where: Value | None) -> list[str] | None:
    """`lambda m: m.a.b` as ["a", "b"]."""
    node = getattr(where, "node", None) if isinstance(where, FunctionV) else None
    if not isinstance(node, ast.Lambda) or len(node.args.args) != 1:
        return None
    param = node.args.args[0].arg
    path: list[str] = []
    body = node.body
    while isinstance(body, ast.Attribute):
        path.insert(0, body.attr)
        body = body.value
    return path if path and isinstance(body, ast.Name) and body.id == param else None


def _with_attribute(inst: InstanceV, path: list[str], value: Value) -> InstanceV | None:
    if path[0] not in inst.attrs:
        return None
    held: Value | None = value
    if len(path) > 1:
        inner = inst.attrs[path[0]]
        # a library layer with a weight replaced (`lambda m: m.head.weight`): that layer
        # unknown, the others as they were (probe 156a)
        held = _with_attribute(inner, path[1:], value) if isinstance(inner, InstanceV) else UNKNOWN if isinstance(inner, ExtObjectV) else None
    if held is None:
        return None
    if inst.diff and not held.diff:
        # a module differentiated whole, one part swapped for one without tangents
        # (`eqx.tree_at(lambda m: m.text, model, freeze(model.text))`): the others keep
        # theirs, this one has none (probe 109d)
        attrs = {name: other.tainted(True) for name, other in inst.attrs.items()}
        attrs[path[0]] = held
        return InstanceV(inst.cls, attrs, False, inst.why, inst.ready)
    return InstanceV(inst.cls, {**inst.attrs, path[0]: held}, inst.diff, inst.why, inst.ready)


HANDLERS["equinox.nn.inference_mode"] = h_inference_mode
HANDLERS["equinox.nn.make_with_state"] = h_make_with_state
HANDLERS["equinox.tree_at"] = h_tree_at
HANDLERS[A.CHECKIFY] = h_checkify
HANDLERS["jax.closure_convert"] = h_closure_convert
HANDLERS["equinox.tree_deserialise_leaves"] = h_deserialised
HANDLERS["haiku.data_structures.merge"] = h_haiku_merge
HANDLERS["flax.nnx.split_rngs"] = h_decorator_factory


def h_state_axes(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`nnx.StateAxes({nnx.Param: 0, ...: 0})` in an nnx.scan's in_axes (flax's guide, for
    layers with dropout state): axis 0 where the parameters are scanned over axis 0 and
    every other state over axis 0 or broadcast (its shapes do not reach attention); else
    unknown.  (Its dict's keys are filters, which the analysis does not hold as values.)"""
    mapping = node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords else None
    if not isinstance(mapping, ast.Dict) or not mapping.keys:
        return UNKNOWN
    axes = [value.value if isinstance(value, ast.Constant) else "?" for value in mapping.values]
    # the parameters' axis: nnx.Param's entry, or else `...`'s (everything else)
    params = [axis for key, axis in zip(mapping.keys, axes) if isinstance(key, (ast.Attribute, ast.Name)) and A.src(key).endswith("Param")]
    params = params or [axis for key, axis in zip(mapping.keys, axes) if isinstance(key, ast.Constant) and key.value is Ellipsis]
    if params and all(axis == 0 for axis in params) and all(axis in (0, None) for axis in axes):
        return make_int(0, (interp.step(fr, node, A.src(node)),))
    return UNKNOWN


HANDLERS["flax.nnx.StateAxes"] = h_state_axes
HANDLERS["flax.nnx.scan"] = h_transform
_register(["apply", "init"], ["haiku.transform", "haiku.transform_with_state"], h_haiku_apply)
_register(["lift", "transparent_lift"], ["haiku", "haiku.experimental"], h_haiku_lift)
# flax's TrainState keeps apply_fn and params as fields: `state.apply_fn(...)` is model.apply
_register(["create"], ["flax.training.train_state.TrainState"], h_layer)


def h_returns_none(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    return ConstV(None)


def h_nnx_update(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`nnx.update(model, nnx.state(donor, nnx.Param))`: the model's variables take the
    state's values (loaded weights, an EMA copy), whose shapes may differ (a position
    table at another resolution): the arrays it holds are of unknown shape; its structure,
    submodules and settings stay (probe 52c: the whole model was forgotten)."""
    if args and isinstance(args[0], InstanceV):
        interp.mutations += 1
        _new_arrays(args[0], 0)
    return ConstV(None)


def _new_arrays(inst: InstanceV, depth: int) -> None:
    for name, value in list(inst.attrs.items()):
        if isinstance(value, ArrayV):
            inst.touch()
            inst.attrs[name] = ArrayV(None, None, value.diff)
        elif isinstance(value, InstanceV) and value is not inst and depth < 8:
            _new_arrays(value, depth + 1)
        elif isinstance(value, TupleV) and depth < 8:
            for item in value.items:
                if isinstance(item, InstanceV):
                    _new_arrays(item, depth + 1)


def h_same_state(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """state.apply_gradients(grads=...): a state of the same structure; state.replace(
    field=value): that field replaced (probe 59a: `replace(apply_fn=...)` had kept the
    model given to create)."""
    if not args:
        return UNKNOWN
    state = args[0]
    if not q.endswith(".replace") or not isinstance(state, ExtObjectV):
        return state
    if len(args) > 1:
        return UNKNOWN
    given = dict(state.kwargs)
    given.update(kwargs)
    return ExtObjectV(state.qualname, state.args, tuple(given.items()), state.why, state.diff)


_register(["apply_gradients", "replace"], ["flax.training.train_state.TrainState.create"], h_same_state)


def h_replicate(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`flax.jax_utils.replicate(state)`, `jax.device_put_replicated(state, devices)`,
    `jax_utils.unreplicate(state)`: the same tree with each array given (or stripped of) a
    device axis, so of a shape not known here; a TrainState keeps its `apply_fn` and `tx`
    (probe 58b: the imagenet example's replicated state lost the model it applies)."""
    return replicated(args[0]) if args else UNKNOWN


def replicated(value: Value) -> Value:
    """`value` with its structure kept and its arrays' shapes unknown (see h_replicate)."""
    return map_arrays(value, lambda a: ArrayV(None, a.dtype, a.diff, a.why), _replicated_leaf)


def _replicated_leaf(value: Value) -> Value:
    if A.is_train_state(value):
        return A.map_train_state(value, lambda _, held: replicated(held))
    return value if isinstance(value, (ConstV, IntV, FloatV)) else UnknownV(value.diff)


_register(["replicate", "unreplicate"], ["flax.jax_utils"], h_replicate)


def h_shard(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """flax's `common_utils.shard(batch)`: each array reshaped to (local devices, -1,
    *rest): its leading axis split in two whose lengths the analysis does not know, the
    others kept (probe 63a: the flax examples' `map(shard, batches)`)."""
    if len(args) != 1 or kwargs:
        return UNKNOWN
    step = interp.step(fr, node, A.src(node))

    def split(a: ArrayV) -> Value:
        if a.shape is None or not a.shape:
            return ArrayV(None, a.dtype, a.diff, a.why)
        return ArrayV((D.unknown((step,)), D.unknown((step,)), *a.shape[1:]), a.dtype, a.diff, merge_why(a.why, (step,)))

    return map_arrays(args[0], split, lambda leaf: UnknownV(leaf.diff))


HANDLERS["flax.training.common_utils.shard"] = h_shard


def h_same_tree(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """flax.core's `freeze` / `unfreeze`: the same tree of variables, as a FrozenDict or
    a dict (probe 66c: `unfreeze(params)` passed to apply lost them)."""
    return args[0] if len(args) == 1 and not kwargs else UNKNOWN


_register(["freeze", "unfreeze"], ["flax.core", "flax.core.frozen_dict"], h_same_tree)


def h_memmap(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`np.memmap(path, dtype=np.uint16, mode="r")`: a token file, one axis of a length
    not known unless `shape=` says (probe 64c); `np.fromfile(path, dtype)` alike."""
    dtype = A.dtype_or(arg(args, kwargs, 1, "dtype"), "uint8" if q.endswith("memmap") else "float64")
    given = kwargs.get("shape") if q.endswith("memmap") else None
    if given is not None:
        shape = _shape_arg(given)
        return ArrayV(shape, dtype, False, (interp.step(fr, node, A.src(node)),))
    if q.endswith("fromfile") and (len(args) > 2 or "count" in kwargs or "sep" in kwargs):
        return ArrayV(None, dtype, False)
    return ArrayV((D.unknown((interp.step(fr, node, A.src(node)),)),), dtype, False, (interp.step(fr, node, A.src(node)),))


HANDLERS["numpy.memmap"] = HANDLERS["numpy.fromfile"] = h_memmap


def h_dynamic_scale_grad(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`dynamic_scale.value_and_grad(loss_fn, argnums=0, has_aux=False)`: a transform
    like jax.value_and_grad (args[0] is the DynamicScale object)."""
    return h_transform(interp, args[1:], kwargs, node, fr, A.DYNAMIC_SCALE_VALUE_AND_GRAD) if len(args) > 1 else UNKNOWN


HANDLERS["flax.training.dynamic_scale.DynamicScale"] = h_layer
HANDLERS[A.DYNAMIC_SCALE_VALUE_AND_GRAD] = h_dynamic_scale_grad
HANDLERS["jax.device_put_replicated"] = h_replicate


def h_device_put(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """jax.device_put(x, device_or_sharding): the same arrays, placed; a tree of them
    (a TrainState, a dict of params) keeps its structure (probe 59a: a sharded state lost
    the model it applies)."""
    first = args[0] if args else kwargs.get("x")
    if first is None:
        return UNKNOWN
    if isinstance(first, (TupleV, DictV)) or A.is_train_state(first):
        return first
    return h_preserve(interp, args, kwargs, node, fr, q)


HANDLERS["jax.device_put"] = h_device_put


def h_progress(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """A progress bar over an iterable (`tqdm(configs)`, rich's `track(stages)`) yields its
    items themselves: a write through the loop variable changes them (probe 60a).  flax's
    prefetching to the devices yields the batches with their shapes (each leaf is put
    sharded over its leading axis)."""
    given = args[0] if args else kwargs.get("iterable", kwargs.get("sequence", kwargs.get("iterator", kwargs.get("data_iter"))))
    return given if given is not None else UNKNOWN


for _q in (
    "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm", "rich.progress.track",
    "flax.jax_utils.prefetch_to_device", "flax.training.prefetch_iterator.PrefetchIterator",
):
    HANDLERS[_q] = h_progress
# nnx's optimizer updates a model's parameters in place, never its structure or shapes
_register(["Optimizer", "ModelAndOptimizer"], ["flax.nnx", "flax.nnx.optimizer"], h_layer)
_register(["update"], ["flax.nnx.Optimizer", "flax.nnx.ModelAndOptimizer", "flax.nnx.optimizer.Optimizer"], h_returns_none)
HANDLERS["flax.nnx.update"] = h_nnx_update


def h_to_nnx(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    from jax_cudnn_lint.shape_inference import layers

    return layers.bridge_to_nnx(interp, args, kwargs, node, fr)


def h_lazy_init(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`nnx.bridge.lazy_init(model, x)`: the model, its variables made."""
    return args[0] if args else UNKNOWN


HANDLERS["flax.nnx.bridge.ToNNX"] = h_to_nnx
HANDLERS["importlib.import_module"] = h_import_module
for _q in data_files.READERS:
    HANDLERS[_q] = data_files.h_load  # (json.loads of a literal too: probe 53c's HF-style config)
for _q in (*fiddle_configs.CONFIGS, *fiddle_configs.PARTIALS):
    HANDLERS[_q] = fiddle_configs.h_config
for _q in fiddle_configs.BUILDS:
    HANDLERS[_q] = fiddle_configs.h_build
HANDLERS["builtins.open"] = HANDLERS["io.open"] = data_files.h_open
HANDLERS[f"{data_files.OPENED}.read"] = data_files.h_read
HANDLERS["os.path.join"] = HANDLERS["posixpath.join"] = paths.h_path_join
for _q in ("os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.normpath"):
    HANDLERS[_q] = paths.h_path_of_file
for _q in paths.CONSTRUCTORS:
    HANDLERS[_q] = paths.h_path
for _q in paths.METHODS:
    HANDLERS[f"{paths.PATH}.{_q}"] = paths.h_method
HANDLERS["os.fspath"] = paths.h_fspath
HANDLERS["os.path.exists"] = HANDLERS["os.path.isfile"] = data_files.h_exists
HANDLERS["ast.literal_eval"] = h_literal_eval


def h_get_logger(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`log = logging.getLogger(__name__)`: a logger, whose methods (`log.info("%s", args)`)
    are the standard library's and change nothing they are given (probe 62c: a parsed
    command line logged through a module's logger lost its values)."""
    return ExtObjectV("logging.Logger", (), (), (interp.step(fr, node, A.src(node)),))


HANDLERS["logging.getLogger"] = HANDLERS["absl.logging.get_absl_logger"] = h_get_logger
HANDLERS["flax.nnx.bridge.lazy_init"] = h_lazy_init
# nnx containers and markers hold what they are given (flax >= 0.12 wants a list of
# submodules wrapped: `self.blocks = nnx.List([Block(...) for _ in range(n)])`)
_register(["Dict", "data", "static"], ["flax.nnx"], h_same_state)


def h_nnx_list(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`nnx.List()` / `nnx.List(layers)`: a list of what it is given, appended to later."""
    if not args and not kwargs:
        return TupleV((), True, (interp.step(fr, node, A.src(node)),))
    if len(args) == 1 and not kwargs and isinstance(args[0], TupleV):
        return TupleV(args[0].items, True, args[0].why)
    return args[0] if len(args) == 1 and not kwargs else UNKNOWN


_register(["List"], ["flax.nnx"], h_nnx_list)
# updated parameters or models keep the structure of what they update
_register(["apply_updates"], ["optax", "equinox"], h_same_state)
_register(["ConfigDict", "FrozenConfigDict"], ["ml_collections", "ml_collections.config_dict"], h_namespace)
_register(["SimpleNamespace"], ["types"], h_namespace)


def h_field_reference(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """ml_collections' FieldReference(default), `ref.get()` / `ref.set(v)`, `cfg.get_ref(key)`,
    `cfg.get(key, default)`, `cfg.update(...)`, `cfg.to_dict()`."""
    if q in configdict.FIELD_REFERENCE_CTORS:
        return configdict.field_reference(interp, list(args), kwargs, node, fr)
    if q == configdict.GET_REF:
        return configdict.get_ref(interp, list(args), kwargs, node, fr)
    if q == configdict.UPDATE:
        return configdict.update(interp, list(args), kwargs, node, fr)
    if q == configdict.TO_DICT:
        return configdict.to_dict(interp, args[0], node, fr) if len(args) == 1 and isinstance(args[0], InstanceV) and not kwargs else UNKNOWN
    if q == configdict.GET:
        # `config.get("seq_len", 64)`: the field, where the config certainly has it; a
        # missing one may be set where we do not see (as getattr with a default)
        key = const_value(args[1])[1] if len(args) in (2, 3) and set(kwargs) <= {"default", "default_value"} else None
        if isinstance(args[0], InstanceV) and isinstance(key, str) and key in args[0].attrs:
            return interp.getattr_(args[0], key, node, fr)
        return UNKNOWN
    return configdict.call_ref_method(interp, q, list(args), kwargs, node, fr)


def h_config_flag(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """config_flags.DEFINE_config_dict / DEFINE_config_file: absl flags (configdict.py)."""
    return configdict.define_config_dict(interp, q, list(args), kwargs, node, fr)


for _q in (*configdict.FIELD_REFERENCE_CTORS, configdict.GET_REF, configdict.UPDATE, configdict.TO_DICT, configdict.GET, configdict.REF_GET, configdict.REF_SET):
    HANDLERS[_q] = h_field_reference
for _q in (*configdict.CONFIG_DICT_FLAGS, *configdict.CONFIG_FILE_FLAGS):
    HANDLERS[_q] = h_config_flag


def h_omegaconf(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """OmegaConf's config makers (omegaconf_configs.py, imported on first use: the editor
    path reads few configs)."""
    from jax_cudnn_lint.shape_inference import omegaconf_configs

    handler: Handler = getattr(omegaconf_configs, f"h_{q.rsplit('.', 1)[-1]}")
    return handler(interp, args, kwargs, node, fr, q)


_register(["create", "structured", "merge", "from_dotlist", "from_cli", "load"], ["omegaconf.OmegaConf"], h_omegaconf)
_register(["Namespace"], ["argparse"], h_namespace)


def h_argument_parser(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    if q == argparse_seeds.PARSER:
        return argparse_seeds.new_parser(interp, kwargs, node, fr)
    return argparse_seeds.call_method(interp, q.rsplit(".", 1)[-1], list(args), kwargs, node, fr)


HANDLERS[argparse_seeds.PARSER] = h_argument_parser


def h_tyro_cli(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """tyro.cli(Args): its defaults on a run without options (argparse_seeds.tyro_cli)."""
    return argparse_seeds.tyro_cli(interp, list(args), kwargs, node, fr)


HANDLERS["tyro.cli"] = h_tyro_cli


def h_typer(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """typer: an app (`typer.Typer()`), its `command()` / `callback()` decorators,
    `typer.run(main)` and the `typer.Option(127)` defaults (cli_commands.py)."""
    interp.cli_apps_seen = True
    if q == cli_commands.TYPER_APP:
        return cli_commands.typer_app(list(args), kwargs, interp.step(fr, node, A.src(node)))
    if q in (cli_commands.TYPER_COMMAND, cli_commands.TYPER_CALLBACK):
        return A.ExtCallDecoratorV(q, list(args[:2]), dict(kwargs))  # (the app, and a command's given name: `@app.command("train")`)
    if q == cli_commands.TYPER_ADD and args:
        return cli_commands.typer_register(interp, args[0], None, False)  # (a group of commands now)
    if q in cli_commands.TYPER_PARAMS:
        return cli_commands.typer_param(list(args), kwargs, q == "typer.Argument")
    if q == "typer.run" and len(args) == 1 and not kwargs and argparse_seeds.command_line_as_given(interp, fr):
        return cli_commands.call_with_defaults(interp, args[0], node, fr)
    if q == "typer.run" and args:
        return cli_commands.not_followed(interp, args[0])
    app = args[0] if args and isinstance(args[0], ExtObjectV) and args[0].qualname == cli_commands.TYPER_APP else None
    if q == "typer.main.get_command" and app is not None and len(args) == 1 and not kwargs:
        return app  # (the click command typer makes of the app: run as the app runs)
    if q == "typer.Typer.main" and app is not None:
        return cli_commands.run_app(interp, app, list(args[1:]), kwargs, node, fr)  # `get_command(app).main([...], standalone_mode=False)`
    interp.escape(args, kwargs)
    return UNKNOWN


for _q in (cli_commands.TYPER_APP, cli_commands.TYPER_COMMAND, cli_commands.TYPER_CALLBACK, cli_commands.TYPER_ADD, *cli_commands.TYPER_PARAMS, "typer.run", "typer.main.get_command", "typer.Typer.main"):
    HANDLERS[_q] = h_typer
_register(["option", "argument", "command", "group"], ["click"], h_decorator_factory)
HANDLERS[cli_commands.GROUP_COMMAND] = h_decorator_factory  # `@cli.command("train")`: [the group, its name]


def h_click_add_command(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`cli.add_command(train)` / `cli.add_command(train, name="fit")`."""
    if len(args) >= 2 and isinstance(args[0], cli_commands.CliCommandV):
        cli_commands.register(args[0], args[1], args[2] if len(args) > 2 else kwargs.get("name"))
    return UNKNOWN


HANDLERS[cli_commands.GROUP_ADD] = h_click_add_command
for _q in cli_commands.CLICK_TYPES:
    HANDLERS[_q] = h_call_result


def h_cli_runner(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """click's and typer's test runners: `CliRunner().invoke(cli, args)` runs the command."""
    if q.endswith(".invoke"):
        return cli_commands.invoke(interp, list(args), kwargs, node, fr)
    return ExtObjectV(q, (), tuple(kwargs.items()), ())  # (`CliRunner(env={...})`: invoke reads it)


for _q in cli_commands.RUNNERS:
    HANDLERS[_q] = HANDLERS[f"{_q}.invoke"] = h_cli_runner


def h_absl_define(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    return absl_flags.define(interp, q, list(args), kwargs, node, fr)


def h_absl_change(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    return absl_flags.call(interp, q, list(args), kwargs)


for _q in absl_flags.DEFINES:
    HANDLERS[_q] = h_absl_define
for _q in (*absl_flags.SAVERS, *absl_flags.REQUIRED):
    HANDLERS[_q] = h_absl_change
for _m in argparse_seeds.METHODS:
    HANDLERS[f"{argparse_seeds.PARSER}.{_m}"] = h_argument_parser
for _m in argparse_seeds.EXITS:
    HANDLERS[f"{argparse_seeds.PARSER}.{_m}"] = h_ends_the_path
for _m in ("apply", "init", "init_with_output", "param", "variable", "make_rng", "is_initializing", "sow", "bind"):
    HANDLERS[f"flax.linen.Module.{_m}"] = h_linen_method



# -- JAX config set by jax.config.update: jax_enable_x64, jax_default_matmul_precision -----
# `jax.config.update("jax_enable_x64", True)` as a plain statement of a module body runs at
# import, before any function of that module can run: the module's code runs with the flag.
# The value is kept in the module namespace under a name no Python code can spell; set in a
# branch, a function body or twice with different values it becomes Unknown.
# Anywhere (a `main()`, an `if __name__ == "__main__":` block) the update also holds for
# the statements after it on the same path and the calls they make, in program order: the
# frame's context carries it (context.with_config; branches, loops and `try` join it).
CONFIG_SLOTS = {flag: f"<{flag}>" for flag in CONTEXT_FLAGS}


def h_config_update(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    name = arg(args, kwargs, 0, "name")
    value = arg(args, kwargs, 1, "val")
    ok, flag = const_value(name) if name is not None else (False, None)
    if not ok or not isinstance(flag, str) or flag not in CONFIG_SLOTS:
        return ConstV(None)
    slot = CONFIG_SLOTS[flag]
    if not fr.is_class:
        fr.ctx = _ctx_after_update(interp, flag, value, node, fr)
    certain = value is not None and const_value(value)[0] and fr.func is None and not fr.is_class and fr.branch_depth == 0
    previous = fr.module.namespace.get(slot)
    if fr.func is not None and isinstance(previous, ConstV):
        if value is not None and const_value(value) == (True, previous.value):
            return ConstV(None)  # setting what the module body set changes nothing
        if _restored_in_finally(fr.func.node, node, flag, previous.value):
            return ConstV(None)  # `update(flag, False)` in a try whose finally puts the module's value back (probe 40b)
    if certain and value is not None:
        setting = const_value(value)[1]
        if previous is None or (isinstance(previous, ConstV) and previous.value == setting):
            fr.module.namespace[slot] = ConstV(setting, (interp.step(fr, node, f"{A.src(node)} in the module body"),))
            return ConstV(None)
    fr.module.namespace[slot] = UNKNOWN
    return ConstV(None)


def _restored_in_finally(func: ast.AST, node: ast.AST, flag: str, setting: object) -> bool:
    """Is `node` in the body of a `try` of `func`, or in the statement just before one,
    whose `finally` sets `flag` back to the literal `setting` (`jax.config.update(
    "jax_enable_x64", True)`)?  Then the function leaves the flag as it found it."""
    line = getattr(node, "lineno", 0)
    for block in ast.walk(func):
        for field in ("body", "orelse", "finalbody"):
            held: object = getattr(block, field, None)
            statements = cast("list[ast.stmt]", held) if isinstance(held, list) else []
            for i, stmt in enumerate(statements):
                if isinstance(stmt, ast.Try) and stmt.body and stmt.body[0].lineno <= line <= (stmt.body[-1].end_lineno or stmt.body[-1].lineno):
                    tried = stmt  # set in the try's body
                elif stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno) and i + 1 < len(statements) and isinstance(statements[i + 1], ast.Try):
                    tried = cast("ast.Try", statements[i + 1])  # set just before it: `update(flag, False); try: ... finally: update(flag, True)`
                else:
                    continue
                for restore in tried.finalbody:
                    update = config_update(restore)
                    if update is not None and update[0] == flag and isinstance(update[1], ast.Constant) and update[1].value == setting:
                        return True
    return False


def _ctx_after_update(interp: Interpreter, flag: str, value: Value | None, node: ast.AST, fr: Frame) -> Ctx:
    """The frame's context once `jax.config.update(flag, value)` has run."""
    ok, setting = const_value(value) if value is not None else (False, None)
    ctx = fr.ctx
    if flag == "jax_enable_x64":
        return with_config(ctx, ok and bool(setting), ctx.config_precision)
    if fr.func is not None:
        interp.config_setters.add(id(fr.func.node))
    why = (interp.step(fr, node, A.src(node)),)
    return with_config(ctx, ctx.x64, ConstV(setting, why) if ok else UNKNOWN)


def module_config(info: object, flag: str) -> ConstV | None:
    """The value a module body certainly sets for a JAX config flag, else None."""
    namespace = getattr(info, "namespace", None)
    if not isinstance(namespace, dict):
        return None
    value = namespace.get(CONFIG_SLOTS[flag])  # type: ignore[union-attr]
    return value if isinstance(value, ConstV) else None


def settings_now(info: object) -> dict[str, Value]:
    """The config flags a module body has set so far, by their namespace slots (what a
    call its body runs now sees: CallEvent.settings_then)."""
    namespace = getattr(info, "namespace", None)
    if not isinstance(namespace, dict):
        return {}
    return {slot: value for slot in CONFIG_SLOTS.values() if isinstance(value := namespace.get(slot), Value)}  # type: ignore[union-attr]


def module_config_at(event: CallEvent, flag: str) -> ConstV | None:
    """module_config where the call ran: a call the module's own body ran before an
    update sees the flags as they were then (probe 47c)."""
    if event.settings_then is None:
        return module_config(event.module, flag)
    value = event.settings_then.get(CONFIG_SLOTS[flag])
    return value if isinstance(value, ConstV) else None


def x64_enabled(fr: Frame) -> bool:
    """jax_enable_x64 is certainly on here: `with jax.enable_x64():` or the module body
    (unless a `with jax.enable_x64(False):` or an update in this context says otherwise)."""
    if fr.ctx.x64 is not None:
        return fr.ctx.x64
    flag = module_config(fr.module, "jax_enable_x64")
    return flag is not None and flag.value is True


_X64_WIDE = {"int32": "int64", "float32": "float64"}


def _x64_defaults(handler: Handler, dtype_pos: int, literal_only: bool = False) -> Handler:
    """Under x64 an array created without a dtype is int64 / float64, not int32 / float32."""

    def wrapped(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
        result = handler(interp, args, kwargs, node, fr, q)
        if not isinstance(result, ArrayV) or arg(args, kwargs, dtype_pos, "dtype") is not None:
            return result
        if literal_only and isinstance(arg(args, kwargs, 0, "object"), ArrayV):
            return result
        dtype = result.dtype
        if dtype is None and q.endswith(".full") and isinstance(arg(args, kwargs, 1, "fill_value"), IntV):
            dtype = "int32"
        if dtype is None:
            return result
        if x64_enabled(fr):
            dtype = _X64_WIDE.get(dtype, dtype)
        if dtype == result.dtype:
            return result
        return ArrayV(result.shape, dtype, result.diff, result.why, result.name, result.stopped, result.weak)

    return wrapped


for _name, _pos in (("zeros", 1), ("ones", 1), ("empty", 1), ("full", 2), ("arange", 3), ("eye", 3), ("tri", 3)):
    HANDLERS[f"jax.numpy.{_name}"] = _x64_defaults(HANDLERS[f"jax.numpy.{_name}"], _pos)
for _name in ("array", "asarray"):
    # asarray is also in _PRESERVE, which would drop its dtype= argument
    HANDLERS[f"jax.numpy.{_name}"] = _x64_defaults(h_array, 1, literal_only=True)
for _name, _pos in (("normal", 2), ("uniform", 2), ("randint", 4)):
    HANDLERS[f"jax.random.{_name}"] = _x64_defaults(HANDLERS[f"jax.random.{_name}"], _pos)
HANDLERS["jax.config.update"] = h_config_update


# unmodelled callables known not to change the objects they are given
# (nnx's state readers only read the module: `nnx.state(model, nnx.Param)` as a scan's
# initial carry left the model forgotten, and the grad in the scan's body unseen: probe 37b)
_PURE_UNMODELLED = frozenset({"flax.nnx.state", "flax.nnx.graphdef", "flax.nnx.variables", "flax.nnx.to_pure_dict", "builtins.print", "builtins.isinstance", "builtins.hasattr", "builtins.getattr", "builtins.repr", "builtins.str", "builtins.id", "builtins.type", "builtins.sorted", "builtins.any", "builtins.all", "builtins.iter", "builtins.next", "builtins.round", "builtins.enumerate", "builtins.zip", "builtins.reversed", "builtins.callable", "builtins.format", "builtins.set", "builtins.frozenset",
                               # printouts and structure readers of an nnx graph or a pytree leave
                               # the model as it was (probe 111b); not nnx.iter_graph or to_tree,
                               # which hand out the graph's own nodes for code to change (113a)
                               "flax.nnx.display", "flax.nnx.tabulate", "jax.tree_util.tree_structure", "jax.tree.structure", "jax.tree_util.tree_flatten",
                               "jax.tree.flatten", "equinox.tree_pprint", "equinox.tree_pformat", "equinox.tree_equal"})

# array libraries whose functions are pure and differentiable in their array inputs...
_ARRAY_LIBRARIES = ("jax.numpy.", "jax.lax.", "jax.scipy.", "jax.nn.", "einops.")
# ...except these, whose results carry no tangent (indices, counts, signs, comparisons)
_NO_TANGENT = frozenset(
    "argmax argmin argsort argwhere nonzero flatnonzero searchsorted digitize bincount histogram unique count_nonzero "
    "sign floor ceil round rint trunc fix isclose allclose array_equal equal not_equal greater greater_equal less "
    "less_equal logical_and logical_or logical_xor logical_not isnan isinf isfinite stop_gradient iota broadcasted_iota "
    "while_loop fori_loop cond switch scan map custom_root custom_linear_solve".split()
)

# libraries that log, save or display what they are given and change none of it (the
# standard library's and absl's logging, absl's flags, experiment trackers, progress bars): a config handed to them keeps
# what is known of it (probe 58a: `logging.info("%s", cfg)` under absl's logging)
_RECORDING_LIBRARIES = frozenset({"absl", "wandb", "tqdm", "yaml", "clu", "tensorboard", "tensorboardX", "mlflow", "rich", "logging", "pprint"})

# libraries whose functions never change the objects they are given (optax is functional:
# `tx.update(grads, state, params)` returns new values)
_PURE_LIBRARIES = ("optax.",)

_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort", "reverse", "__setitem__",
     "__delitem__", "__iadd__", "__imul__", "__ior__",  # (spelled out: `ids.__iadd__([0])`, probe 87a)
     "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update"}
)


def call_external(interp: Interpreter, qualname: str, args: Args, kwargs: Kwargs, star: bool, node: ast.AST, fr: Frame) -> Value:
    if star:
        if args and qualname.startswith(("builtins.list.", "builtins.dict.", "builtins.set.")) and qualname.rsplit(".", 1)[-1] in _MUTATORS:
            interp.mutations += 1
            mark_changed_in_place(args[0])  # `fields.setdefault(*pair)`: changed, by what we cannot tell (probe 147a)
        return UnknownV(any_diff(*args, *kwargs.values()))
    name = A.canonical(qualname)
    if name.startswith(absl_flags.FLAGS) and (name == absl_flags.FLAGS or name[len(absl_flags.FLAGS)] == "."):
        return absl_flags.call(interp, name, args, kwargs)
    handler = HANDLERS.get(name) or HANDLERS.get(A.np_twin(name))
    if handler is None:
        short = name.rsplit(".", 1)[-1]
        if name.startswith(("builtins.list.", "builtins.dict.", "builtins.set.")) and short in _MUTATORS:
            interp.mutations += 1  # in place: what a generator read earlier may have changed
            interp.register_functions([*args[1:], *kwargs.values()])
            if args and isinstance(args[0], IterV) and args[0].is_list:
                added = _list_additions(short, args) if not kwargs or short == "sort" else None
                if added is not None and still_describes(args[0], added):
                    return args[0].element if short == "pop" else UNKNOWN  # (each item still as the list says)
            if args:
                mark_changed_in_place(args[0])  # seen by every holder; the name is rebound below
            if name == "builtins.dict.pop" and (popped := _dict_pop(interp, args, kwargs, node, fr)) is not None:
                return popped
            if name == "builtins.dict.setdefault" and (held := _dict_setdefault(interp, args, kwargs, node, fr)) is not None:
                return held
            if args and isinstance(args[0], InstanceV) and name == "builtins.dict.update" and attribute_dicts.is_attribute_dict(args[0].cls):
                return configdict.update(interp, list(args), kwargs, node, fr)  # `dict.update(cfg, lr=...)`: as `cfg.update(...)` (probe 103a)
            if args and isinstance(args[0], InstanceV):
                args[0].forget()  # `dict.pop(cfg, ...)`, `super(AttrDict, cfg).__setitem__(...)` on a dict of ours (probe 102a)
            elif not (name == "builtins.dict.update" and _dict_update(interp, args, kwargs, node, fr)) and not _list_update(interp, short, args, kwargs, node, fr) and not _set_update(interp, short, args, kwargs, node, fr):
                _forget_receiver(interp, node, fr)
        elif name.startswith(_PURE_LIBRARIES):
            # an optimizer (`optax.adamw(...)`) whose methods (`tx.init`, `tx.update`)
            # must stay known as optax's, not as calls of unknown code
            return ExtObjectV(name, (), (), ())
        elif name.startswith(_ARRAY_LIBRARIES) and short not in _NO_TANGENT:
            # an array op we do not model (`jnp.fft.rfft`, `lax.conv_transpose`): its
            # result is unknown but carries its inputs' tangents, so a literal reshape
            # after it still proves the attention differentiated (probe 35c)
            return UnknownV(any_diff(*args, *kwargs.values()))
        elif name not in _PURE_UNMODELLED and (root := name.split(".")[0]) not in _RECORDING_LIBRARIES:
            # (what a recording library is given keeps what is known of it, an object's
            # attributes included: `log.info("%s", args)`, probe 62c)
            interp.escape(args, kwargs, unseen=root not in NOT_PROJECT_MODULES)
            _changed_by_library(interp, name, args, kwargs, fr)
        return UNKNOWN
    return handler(interp, args, kwargs, node, fr, name)


# library functions that change a list or dict they are given, in place: the first
# argument (heapq, bisect, random), or every dict given (a ChainMap writes into its first)
_CHANGES_FIRST_ARGUMENT = frozenset(
    {"heapq.heappush", "heapq.heappop", "heapq.heappushpop", "heapq.heapreplace", "heapq.heapify", "bisect.insort", "bisect.insort_left",
     "bisect.insort_right", "random.shuffle", "numpy.random.shuffle"}
)


# ...of which those that only reorder it, or take items out
_REORDERS_ITS_LIST = frozenset({"heapq.heappop", "heapq.heapify", "random.shuffle", "numpy.random.shuffle"})


def _changed_by_library(interp: Interpreter, name: str, args: Args, kwargs: Kwargs, fr: Frame) -> None:
    """A list or dict a library function changes in place (`heapq.heappush(ids, 0)`), or
    whose changing method it is handed (`itertools.starmap(ids.append, pairs)`), or that
    a `collections.ChainMap` writes into: every name for it is Unknown (probe 88a: three
    false JCD201s kept the length from before)."""
    changed: list[Value] = []
    if name in _CHANGES_FIRST_ARGUMENT and args:
        # (a list of unknown length given items its element describes, or only reordered,
        # is as it was: `bisect.insort(rows, row)` of a row like the others)
        added = [] if name in _REORDERS_ITS_LIST else args[1:2] if len(args) == 2 else None
        if not (isinstance(args[0], IterV) and args[0].is_list and added is not None and still_describes(args[0], added)):
            changed.append(args[0])
    if name == "collections.ChainMap":
        changed.extend(args)
    for value in (*args, *kwargs.values()):
        if isinstance(value, BoundMethodV) and isinstance(value.func, ExternalV) and value.func.qualname.rsplit(".", 1)[-1] in _MUTATORS:
            changed.append(value.self_value)
    for value in changed:
        if isinstance(value, (DictV, SetV)) or is_mutable_list(value):
            interp.mutations += 1
            mark_changed_in_place(value)
            interp.forget_holders(value, fr)


def _dict_update(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> bool:
    """`cfg.update(seq_len=127)` / `cfg.update(overrides)` on a dict the analysis knows,
    outside any branch: the name is rebound to the updated dict (False: not that case)."""
    if fr.branch_depth or fr.state is None or not args or not isinstance(args[0], DictV):
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Name, ast.Subscript))):
        return False
    changes: list[tuple[object, Value]] = []
    for other in args[1:]:
        if not isinstance(other, DictV) or len(args) > 2:
            return False
        changes.extend(other.items)
    changes.extend(kwargs.items())
    items = args[0].items
    for key, value in changes:
        items = with_key(items, key, value)
    return interp.rebind_path(node.func.value, DictV(items, args[0].why), fr)  # (`cfg["model"].update(...)` too)


def _dict_setdefault(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value | None:
    """`kw.setdefault("seq_len", 511)` on a dict the analysis knows, outside any branch:
    the value it holds for the key, else the default, which the name's dict now holds
    (None: not that case)."""
    if fr.branch_depth or fr.state is None or kwargs or len(args) not in (2, 3) or not isinstance(args[0], DictV):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)):
        return None
    ok, key = const_value(args[1])
    if not ok:
        return None
    if not interp.held_once([args[0]], fr):
        interp.forget_holders(args[0], fr)
        return None
    held = args[0].get(key)
    if held is not None:
        interp.assign_name(node.func.value.id, DictV(args[0].items, args[0].why), fr)  # as it was
        return held
    default = args[2] if len(args) == 3 else ConstV(None)
    interp.assign_name(node.func.value.id, DictV(with_key(args[0].items, key, default), args[0].why), fr)
    return default


def _dict_pop(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value | None:
    """`labels = batch.pop("labels")` on a dict the analysis knows, outside any branch:
    the name is rebound to the dict without that key, and the popped value returned
    (None: not that case).  The `run_mlm_flax.py` idiom: `model(**batch)` after it."""
    if fr.branch_depth or fr.state is None or kwargs or not 2 <= len(args) <= 3 or not isinstance(args[0], DictV):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)):
        return None
    ok, key = const_value(args[1])
    if not ok or not isinstance(key, (str, int)):
        return None
    found = [v for k, v in args[0].items if same_key(k, key)]
    if not found and len(args) < 3 or not interp.held_once([args[0]], fr):
        return None  # KeyError; or another name holds it too (Unknown)
    interp.assign_name(node.func.value.id, DictV(without_key(args[0].items, key), args[0].why), fr)
    return found[-1] if found else args[2]


def _list_update(interp: Interpreter, method: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> bool:
    """`tokens.append(cls)`, `.extend([...])`, `.insert(0, reg)` on a list the analysis
    knows, outside any branch: the name (or the dict entry) is rebound to the longer list
    (False: not that case).  timm's ViT gathers its prefix tokens this way before one
    concatenate."""
    if fr.branch_depth or fr.state is None or kwargs or not args or not isinstance(args[0], TupleV) or not args[0].is_list:
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    # `blocks`, `self.blocks` (a UNet's `self.input_blocks.append(...)`), or a dict's entry
    # (`params["blocks"].append({...})`: a nanoGPT port's init, probe 57b)
    receiver = node.func.value
    entry = isinstance(receiver, ast.Subscript) and isinstance(receiver.value, ast.Name) and isinstance(receiver.slice, ast.Constant)
    if not (isinstance(receiver, ast.Name) or (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)) or entry):
        return False
    if isinstance(receiver, ast.Name) and (not interp.held_once([args[0]], fr) or interp.named_by_nested_code(receiver.id, fr)):
        interp.forget_holders(args[0], fr)  # (another name holds it too, or a closure may change it: probes 86a, 87a)
        return True
    items = list(args[0].items)
    if method == "append" and len(args) == 2:
        items.append(args[1])
    elif method == "extend" and len(args) == 2 and isinstance(args[1], TupleV):
        items.extend(args[1].items)
    elif method == "insert" and len(args) == 3 and (at := int_value(args[1])) is not None and at >= 0:
        items.insert(at, args[2])
    else:
        return False
    if len(items) > 1024:
        return False  # (as many as a widened comprehension or loop gives: `ids.extend([0] * 127)`, probe 85e)
    interp.assign(receiver, TupleV(tuple(items), True, args[0].why), fr, node)
    return True


def _set_update(interp: Interpreter, method: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> bool:
    """`eval_only.add(255)`, `.discard(31)`, `.remove(31)`, `.update({...})` of constants
    on a set of constants one name holds, outside any branch: the name is rebound to the
    changed set (probe 101a: changed, the set was forgotten and its membership test, a
    guard keeping odd lengths out of a grad, with it).  False: not that case."""
    if fr.branch_depth or fr.state is None or kwargs or len(args) < 2 or not isinstance(args[0], SetV):
        return False
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)):
        return False
    receiver = node.func.value
    if not interp.held_once([args[0]], fr) or interp.named_by_nested_code(receiver.id, fr):
        interp.forget_holders(args[0], fr)
        return True
    if method in ("add", "discard", "remove") and len(args) == 2:
        given = [args[1]]
    elif method == "update" and all(isinstance(a, (SetV, TupleV)) for a in args[1:]):
        given = [item for a in args[1:] for item in cast("SetV | TupleV", a).items]
    else:
        return False
    held: list[tuple[object, Value]] = [(const_value(item)[1], item) for item in args[0].items]
    for item in given:
        ok, py = const_value(item)
        try:
            hash(py)
        except TypeError:
            return False
        if not ok:
            return False
        present = any(same_key(py, old) for old, _ in held)
        if method in ("discard", "remove"):
            held = [(old, value) for old, value in held if not same_key(py, old)]
        elif not present:
            held.append((py, item))
    interp.assign(receiver, SetV(tuple(value for _, value in held), args[0].why), fr, node)
    return True


def _list_additions(method: str, args: Args) -> list[Value] | None:
    """The items a list method called with `args` (the list first) puts into the list:
    none for one that only reorders or removes; None for any other call."""
    if method in ("sort", "reverse", "pop", "remove", "clear"):
        return []
    if method == "append" and len(args) == 2 or method == "insert" and len(args) == 3:
        return [args[-1]]
    if method == "extend" and len(args) == 2:
        added = args[1]
        if isinstance(added, TupleV):
            return list(added.items)
        if isinstance(added, IterV):
            return [added.element]
    return None


def _forget_receiver(interp: Interpreter, node: ast.AST, fr: Frame) -> None:
    """`xs.append(y)` changes xs: what we knew of its length no longer holds.  (Not the
    class of `dict.update(d, ...)`: the name `dict` still holds the class.)"""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        name = node.func.value.id
        held = fr.state.get(name) if fr.state is not None else None
        if name in ("dict", "list", "set") and held is None or isinstance(held, (ExternalV, ClassV)):
            return
        interp.assign_name(name, UNKNOWN, fr)


