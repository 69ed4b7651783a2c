"""Strided windows: lax.conv_general_dilated (and lax.conv, lax.conv_with_general_padding),
lax.reduce_window, and the pooling functions of flax (linen, nnx) and haiku built on it.

Each spatial axis becomes (n + low + high - window) // stride + 1, or ceil(n / stride)
under "SAME" padding, the arithmetic JAX does (lax.padtype_to_pads and the shape rule
of the primitive); the step carries that arithmetic, so that a finding names the
downsampling that made an odd length.  Anything not resolved (a stride, a padding, a
window, the layout) leaves the axis, or the whole shape, unknown.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import dims as D
from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference.dims import Dim, Step, merge_why
from jax_cudnn_lint.shape_inference.dtypes import is_float
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ArrayV,
    ConstV,
    IntV,
    TupleV,
    Value,
    absent,
    any_diff,
    int_value,
    as_array as _array,
    call_arg as _arg,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]
Padding = str | tuple[int, int]


def strided_axis(n: Dim, window: int, stride: int, padding: Padding | None, step: Step, base_dilation: int = 1, pad_window: int | None = None) -> Dim:
    """The length of one axis after a strided window (JAX's arithmetic).

    `window` is the window's span (already dilated); "SAME" / "SAME_LOWER" padding is
    worked out as lax.padtype_to_pads does, from the undilated length and `pad_window`
    (the window's span unless told), which gives ceil(n / stride) without base
    dilation.  A base (input) dilation spreads n to (n - 1) * d + 1 first.  The
    result carries the arithmetic as its step; unknown where it cannot be certain.
    """
    if window < 1 or stride < 1 or base_dilation < 1 or padding is None:
        return D.unknown()
    span = window if pad_window is None else pad_window
    if isinstance(padding, str):
        if base_dilation == 1 and span == window:
            out = D.floordiv(D.add(n, D.const(stride - 1)), D.const(stride))
            return with_arithmetic(out, f"ceil({n.render()} / {stride})", step)
        if n.value is None:
            return D.unknown()
        same = -(-n.value // stride)
        total = max((same - 1) * stride + span - n.value, 0)
        padding = (total // 2, total - total // 2)
    lo, hi = padding
    size, shown = n, n.render()
    if base_dilation != 1:
        if n.value is None:
            return D.unknown()
        size = D.const((n.value - 1) * base_dilation + 1 if n.value > 0 else 0)
        shown = f"({n.render()} - 1) * {base_dilation} + 1"
    if size.value is not None and size.value + lo + hi < window:
        return D.unknown()  # an empty or negative result: leave it to JAX
    out = D.add(D.floordiv(D.add(size, D.const(lo + hi - window)), D.const(stride)), D.const(1))
    padded = f"{shown} + {lo + hi}" if lo + hi else shown
    return with_arithmetic(out, f"({padded} - {window}) // {stride} + 1", step)


def transposed_axis(n: Dim, window: int, stride: int, padding: Padding | None, step: Step) -> Dim:
    """The length of one axis after a transposed convolution (lax.conv_transpose, and the
    layers built on it): "SAME" gives n * s, "VALID" n * s + max(k - s, 0) for a kernel
    spanning k (JAX's _conv_transpose_padding), explicit pads (n - 1) * s + lo + hi - k + 2."""
    if window < 1 or stride < 1 or padding is None:
        return D.unknown()
    if padding == "SAME":
        out = D.mul(n, D.const(stride))
        return with_arithmetic(out, f"{n.render()} * {stride}", step)
    if padding == "VALID":
        out = D.add(D.mul(n, D.const(stride)), D.const(max(window - stride, 0)))
        return with_arithmetic(out, f"{n.render()} * {stride} + {max(window - stride, 0)}", step)
    if isinstance(padding, str):
        return D.unknown()
    lo, hi = padding
    out = D.add(D.mul(D.add(n, D.const(-1)), D.const(stride)), D.const(lo + hi - window + 2))
    return with_arithmetic(out, f"({n.render()} - 1) * {stride} + {lo + hi - window + 2}", step)


def h_conv_transpose(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation, dimension_numbers,
    transpose_kernel, precision, preferred_element_type): each spatial axis by
    transposed_axis, the features from the kernel's O axis (its I axis where
    `transpose_kernel`); TensorFlow's layout ("NHC", "HIO", "NHC") when none is given."""
    lhs = _array(_arg(args, kwargs, 0, "lhs"))
    rhs = _array(_arg(args, kwargs, 1, "rhs"))
    diff = any_diff(*args, *kwargs.values())
    if lhs is None or rhs is None:
        return UNKNOWN
    names = ("rhs_dilation", "dimension_numbers", "transpose_kernel", "precision", "preferred_element_type")
    positions = {name: 4 + i for i, name in enumerate(names)}
    preferred = _arg(args, kwargs, positions["preferred_element_type"], "preferred_element_type")
    dtype = A.dtype_name(preferred) if not absent(preferred) else lhs.dtype if lhs.dtype == rhs.dtype else None
    unknown = ArrayV(None, dtype, diff)
    if len(args) > 4 + len(names) or set(kwargs) - {"lhs", "rhs", "strides", "padding", *positions}:
        return unknown
    if lhs.shape is None or rhs.shape is None or len(lhs.shape) != len(rhs.shape) or len(lhs.shape) < 3:
        return unknown
    ndim = len(lhs.shape)
    spatial = ndim - 2
    given = _arg(args, kwargs, positions["dimension_numbers"], "dimension_numbers")
    if absent(given):
        letters = "".join(chr(ord("a") + i) for i in range(spatial))
        specs: tuple[str, str, str] | None = ("N" + letters + "C", letters + "IO", "N" + letters + "C")
    else:
        specs = _conv_specs(given, ndim)
    strides = _sizes(_arg(args, kwargs, 2, "strides"), spatial)
    paddings = _paddings(_arg(args, kwargs, 3, "padding"), spatial, ("SAME", "VALID"), transposed=True)
    dilation = _ints_or_ones(_arg(args, kwargs, positions["rhs_dilation"], "rhs_dilation"), spatial)
    flipped = _arg(args, kwargs, positions["transpose_kernel"], "transpose_kernel")
    if specs is None or strides is None or paddings is None or dilation is None or not (absent(flipped) or isinstance(flipped, ConstV)):
        return unknown
    lhs_spec, rhs_spec, out_spec = specs
    step = interp.step(fr, node, A.src(node))
    sizes: dict[str, Dim] = {}
    for i, letter in enumerate(c for c in rhs_spec if c not in "OI"):
        k = rhs.shape[rhs_spec.index(letter)].value
        sizes[letter] = D.unknown() if k is None or k < 1 else transposed_axis(lhs.shape[lhs_spec.index(letter)], (k - 1) * dilation[i] + 1, strides[i], paddings[i], step)
    sizes["N"] = lhs.shape[lhs_spec.index("N")]
    features = "I" if isinstance(flipped, ConstV) and flipped.value is True else "O"
    sizes["C"] = rhs.shape[rhs_spec.index(features)].with_why(step)
    return ArrayV(tuple(sizes[c] for c in out_spec), dtype, diff, merge_why(lhs.why, rhs.why))


def with_arithmetic(out: Dim, formula: str, step: Step) -> Dim:
    """The length with a step that shows how it was computed (when it is known)."""
    if out.value is None:
        return out.with_why(step)
    return out.with_why(Step(step.path, step.line, f"{out.render()} = {formula}, {step.text}"))


def known_ints(v: Value | None, count: int) -> list[int] | None:
    """A tuple or list of `count` known ints (None otherwise)."""
    if not isinstance(v, TupleV) or len(v.items) != count:
        return None
    items = [int_value(i) for i in v.items]
    if any(i is None for i in items):
        return None
    return [i for i in items if i is not None]


def _sizes(v: Value | None, count: int) -> list[int] | None:
    """Window sizes or strides, one per axis: an int whose value is not known gives 0,
    which leaves that axis unknown (strided_axis takes no size below 1) and the others
    known; anything but ints leaves them all unknown."""
    if not isinstance(v, TupleV) or len(v.items) != count or not all(isinstance(i, IntV) for i in v.items):
        return known_ints(v, count)
    return [n if (n := int_value(i)) is not None else 0 for i in v.items]


def _ints_or_ones(v: Value | None, count: int) -> list[int] | None:
    """`v` as `count` ints, all 1s when left out or None."""
    return [1] * count if absent(v) else known_ints(v, count)


def _paddings(v: Value | None, count: int, modes: tuple[str, ...], transposed: bool = False) -> list[Padding | None] | None:
    """A padding argument: one of the string `modes` (upper-cased) for every axis, or
    one (low, high) pair per axis (None for a pair of ints not both known).  "VALID" is
    no padding, (0, 0), except for a transposed convolution, where it is a mode of its
    own (n * s + max(k - s, 0): probe 74c, read as (0, 0) it gave 29 for 33)."""
    if isinstance(v, ConstV) and isinstance(v.value, str):
        mode = v.value.upper()
        if mode not in modes:
            return None
        same: list[Padding | None] = [("VALID" if transposed else (0, 0)) if mode == "VALID" else "SAME"]
        return same * count
    if not isinstance(v, TupleV) or len(v.items) != count:
        return None
    pairs: list[Padding | None] = []
    for item in v.items:
        pair = known_ints(item, 2)
        if pair is None and isinstance(item, TupleV) and len(item.items) == 2 and all(isinstance(i, IntV) for i in item.items):
            pairs.append(None)
            continue
        if pair is None:
            return None
        pairs.append((pair[0], pair[1]))
    return pairs


# -- lax.conv_general_dilated ----------------------------------------------------------------
def _conv_specs(v: Value | None, ndim: int) -> tuple[str, str, str] | None:
    """The (lhs, rhs, out) layout strings: as given ("NWC", "WIO", "NWC"), or JAX's
    default (N, C, spatial... / O, I, spatial...) when left out.  The spatial letters
    must be the same set in all three; ConvDimensionNumbers of ints are not read."""
    if absent(v):
        spatial = "".join(chr(ord("a") + i) for i in range(ndim - 2))
        return ("NC" + spatial, "OI" + spatial, "NC" + spatial)
    if not isinstance(v, TupleV) or len(v.items) != 3:
        return None
    specs: list[str] = []
    for item in v.items:
        if not (isinstance(item, ConstV) and isinstance(item.value, str)):
            return None
        specs.append(item.value)
    lhs, rhs, out = specs
    for spec, pair in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if len(spec) != ndim or len(set(spec)) != ndim or not set(pair) <= set(spec):
            return None
    if not set(lhs) - set("NC") == set(rhs) - set("OI") == set(out) - set("NC"):
        return None
    return (lhs, rhs, out)


def h_conv(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
    rhs_dilation, dimension_numbers, feature_group_count, batch_group_count, precision,
    preferred_element_type), and lax.conv / lax.conv_with_general_padding (the default
    layout): each spatial axis from the kernel's, the features from the kernel's O axis.
    The dtype is the operands' (JAX requires them equal) or preferred_element_type."""
    lhs = _array(_arg(args, kwargs, 0, "lhs"))
    rhs = _array(_arg(args, kwargs, 1, "rhs"))
    diff = any_diff(*args, *kwargs.values())
    if lhs is None or rhs is None:
        return UNKNOWN
    short = q.rsplit(".", 1)[-1]
    if short == "conv":
        positions = {"precision": 4, "preferred_element_type": 5}
    elif short == "conv_with_general_padding":
        positions = {"lhs_dilation": 4, "rhs_dilation": 5, "precision": 6, "preferred_element_type": 7}
    else:
        names = ("lhs_dilation", "rhs_dilation", "dimension_numbers", "feature_group_count", "batch_group_count", "precision", "preferred_element_type", "out_sharding")
        positions = {name: 4 + i for i, name in enumerate(names)}

    def get(name: str) -> Value | None:
        at = positions.get(name)
        if at is None:
            return None  # not a parameter of this function
        return _arg(args, kwargs, at, name)

    preferred = get("preferred_element_type")
    if not absent(preferred):
        dtype = A.dtype_name(preferred)
    else:
        dtype = lhs.dtype if lhs.dtype is not None and lhs.dtype == rhs.dtype else None
    unknown = ArrayV(None, dtype, diff)
    if len(args) > 4 + len(positions) or set(kwargs) - {"lhs", "rhs", "window_strides", "padding", *positions}:
        return unknown
    if lhs.dtype is not None and rhs.dtype is not None and lhs.dtype != rhs.dtype:
        return ArrayV(None, None, diff)  # JAX raises: the operands' dtypes must match
    if lhs.shape is None or rhs.shape is None or len(lhs.shape) != len(rhs.shape) or len(lhs.shape) < 3:
        return unknown
    ndim = len(lhs.shape)
    spatial = ndim - 2
    specs = _conv_specs(get("dimension_numbers"), ndim)
    strides = _sizes(_arg(args, kwargs, 2, "window_strides"), spatial)
    paddings = _paddings(_arg(args, kwargs, 3, "padding"), spatial, ("SAME", "SAME_LOWER", "VALID"))
    lhs_dilation = _ints_or_ones(get("lhs_dilation"), spatial)
    rhs_dilation = _ints_or_ones(get("rhs_dilation"), spatial)
    batch_groups = get("batch_group_count")
    groups = 1 if absent(batch_groups) else int_value(batch_groups) if batch_groups is not None else None
    if specs is None or strides is None or paddings is None or lhs_dilation is None or rhs_dilation is None or groups is None or groups < 1:
        return unknown
    if min(lhs_dilation + rhs_dilation, default=1) < 1:
        return unknown  # JAX raises
    padding_v = _arg(args, kwargs, 3, "padding")
    if isinstance(padding_v, ConstV) and isinstance(padding_v.value, str) and lhs_dilation != [1] * spatial:
        return unknown  # JAX raises: string padding of a transposed convolution
    lhs_spec, rhs_spec, out_spec = specs
    feature_groups = get("feature_group_count")
    channel_groups = 1 if absent(feature_groups) else int_value(feature_groups) if feature_groups is not None else None
    in_channels, kernel_in = lhs.shape[lhs_spec.index("C")].value, rhs.shape[rhs_spec.index("I")].value
    if channel_groups is None or (in_channels is not None and kernel_in is not None and in_channels != kernel_in * channel_groups):
        return unknown  # JAX raises when the input's channels are not the kernel's times the groups
    step = interp.step(fr, node, A.src(node))
    letters = [c for c in rhs_spec if c not in "OI"]  # JAX orders the spatial axes as the kernel does
    sizes: dict[str, Dim] = {}
    for i, letter in enumerate(letters):
        k = rhs.shape[rhs_spec.index(letter)].value
        if k is None or k < 1:
            sizes[letter] = D.unknown()
            continue
        window = (k - 1) * rhs_dilation[i] + 1
        n = lhs.shape[lhs_spec.index(letter)]
        sizes[letter] = strided_axis(n, window, strides[i], paddings[i], step, lhs_dilation[i], window)
    batch = lhs.shape[lhs_spec.index("N")]
    sizes["N"] = batch if groups == 1 else D.floordiv(batch, D.const(groups)).with_why(step)
    sizes["C"] = rhs.shape[rhs_spec.index("O")].with_why(step)
    return ArrayV(tuple(sizes[c] for c in out_spec), dtype, diff, merge_why(lhs.why, rhs.why))


def h_conv_patches(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
    lhs_dilation, rhs_dilation, dimension_numbers, precision, preferred_element_type):
    JAX's own construction, a grouped convolution with an identity kernel of C * prod(
    filter_shape) outputs, one input feature each and the filter's spatial shape (the
    unfolded patches of PatchTST-style models: probe 107c)."""
    lhs = _array(_arg(args, kwargs, 0, "lhs"))
    if lhs is None or lhs.shape is None or len(lhs.shape) < 3 or len(args) > 9:
        return UNKNOWN if lhs is None else ArrayV(None, lhs.dtype, any_diff(*args, *kwargs.values()))
    ndim = len(lhs.shape)
    filter_shape = known_ints(_arg(args, kwargs, 1, "filter_shape"), ndim - 2)
    specs = _conv_specs(_arg(args, kwargs, 6, "dimension_numbers"), ndim)
    if filter_shape is None or specs is None:
        return ArrayV(None, lhs.dtype, any_diff(*args, *kwargs.values()))
    lhs_spec, rhs_spec, _ = specs
    channels = lhs.shape[lhs_spec.index("C")]
    spatial = iter(filter_shape)
    kernel = tuple(
        D.mul(channels, D.const(math.prod(filter_shape))) if letter == "O" else D.const(1) if letter == "I" else D.const(next(spatial))
        for letter in rhs_spec
    )
    rhs = ArrayV(kernel, lhs.dtype)
    conv_kwargs = {name: kwargs[name] for name in ("lhs_dilation", "rhs_dilation", "dimension_numbers", "preferred_element_type") if name in kwargs}
    for at, name in ((4, "lhs_dilation"), (5, "rhs_dilation"), (6, "dimension_numbers"), (8, "preferred_element_type")):
        if at < len(args):
            conv_kwargs[name] = args[at]
    conv_kwargs["feature_group_count"] = IntV(channels)
    strides = _arg(args, kwargs, 2, "window_strides")
    padding = _arg(args, kwargs, 3, "padding")
    if strides is None or padding is None:
        return ArrayV(None, lhs.dtype, any_diff(*args, *kwargs.values()))
    return h_conv(interp, [lhs, rhs, strides, padding], conv_kwargs, node, fr, "jax.lax.conv_general_dilated")


# -- lax.reduce_window and the pools built on it -------------------------------------------------
def _reduced(interp: Interpreter, x: ArrayV, windows: list[int], strides: list[int], paddings: Sequence[Padding | None], node: ast.AST, fr: Frame, dtype: str | None, base: list[int] | None = None, dilation: list[int] | None = None) -> ArrayV:
    """x after a reduce_window over all its axes (one window, stride and padding each)."""
    assert x.shape is not None
    step = interp.step(fr, node, A.src(node))
    out: list[Dim] = []
    for i, n in enumerate(x.shape):
        span = (windows[i] - 1) * (dilation[i] if dilation else 1) + 1
        if windows[i] == 1 and strides[i] == 1 and paddings[i] in ("SAME", (0, 0)) and not (base and base[i] != 1):
            out.append(n)  # an axis the window leaves alone
            continue
        out.append(strided_axis(n, span, strides[i], paddings[i], step, base[i] if base else 1, span))
    return ArrayV(tuple(out), dtype, x.diff, x.why)


def h_reduce_window(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """lax.reduce_window(operand, init_value, computation, window_dimensions,
    window_strides, padding, base_dilation, window_dilation) of one array: the operand's
    dtype, each axis strided."""
    x = _array(_arg(args, kwargs, 0, "operand"))
    if x is None:
        return UNKNOWN
    diff = any_diff(*args, *kwargs.values())
    unknown = ArrayV(None, x.dtype, diff)
    if x.shape is None or len(args) > 8:
        return unknown
    ndim = len(x.shape)
    windows = _sizes(_arg(args, kwargs, 3, "window_dimensions"), ndim)
    strides_v = _arg(args, kwargs, 4, "window_strides")
    strides = [1] * ndim if absent(strides_v) else _sizes(strides_v, ndim)
    paddings = _paddings(_arg(args, kwargs, 5, "padding"), ndim, ("SAME", "SAME_LOWER", "VALID"))
    base = _ints_or_ones(_arg(args, kwargs, 6, "base_dilation"), ndim)
    dilation = _ints_or_ones(_arg(args, kwargs, 7, "window_dilation"), ndim)
    if windows is None or strides is None or paddings is None or base is None or dilation is None or min(base + dilation, default=1) < 1:
        return unknown
    out = _reduced(interp, x, windows, strides, paddings, node, fr, x.dtype, base, dilation)
    return ArrayV(out.shape, out.dtype, diff, out.why)


def _pool_input(args: Args, kwargs: Kwargs, name: str, q: str) -> tuple[ArrayV, str | None, ArrayV, bool] | None:
    """A pool's input array, its result dtype (an average of integers is a float of a
    dtype left unknown), the result when the window cannot be read, and whether it
    averages."""
    x = _array(_arg(args, kwargs, 0, name))
    if x is None:
        return None
    avg = q.endswith("avg_pool")
    dtype = x.dtype if not avg or (x.dtype is not None and is_float(x.dtype)) else None
    return x, dtype, ArrayV(None, dtype, x.diff), avg


def h_flax_pool(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """flax's max_pool / min_pool / avg_pool(inputs, window_shape, strides=None,
    padding="VALID"): inputs (batch..., spatial..., features), or with no batch axis;
    window_shape and strides tuples (flax concatenates them: a list fails), padding
    "SAME", "VALID" or (low, high) pairs (which allow at most one batch axis)."""
    pooled = _pool_input(args, kwargs, "inputs", q)
    if pooled is None:
        return UNKNOWN
    x, dtype, unknown, avg = pooled
    allowed: set[str] = {"inputs", "window_shape", "strides", "padding"}
    if avg:
        allowed.add("count_include_pad")
    if x.shape is None or set(kwargs) - allowed or len(args) > len(allowed):
        return unknown
    window_v = _arg(args, kwargs, 1, "window_shape")
    strides_v = _arg(args, kwargs, 2, "strides")
    padding_v = _arg(args, kwargs, 3, "padding")
    if not isinstance(window_v, TupleV) or window_v.is_list:
        return unknown
    spatial = len(window_v.items)
    batch = len(x.shape) - spatial - 1
    windows = _sizes(window_v, spatial)
    empty = isinstance(strides_v, TupleV) and not strides_v.items
    if absent(strides_v) or empty:
        strides: list[int] | None = [1] * spatial
    else:
        strides = _sizes(strides_v, spatial) if isinstance(strides_v, TupleV) and not strides_v.is_list else None
    valid: list[Padding | None] = [(0, 0)]
    paddings = valid * spatial if padding_v is None else _paddings(padding_v, spatial, ("SAME", "SAME_LOWER", "VALID"))
    if batch < 0 or windows is None or strides is None or paddings is None or spatial == 0:
        return unknown
    if not (isinstance(padding_v, ConstV) or padding_v is None) and batch > 1:
        return unknown  # flax pads one batch axis only: JAX raises
    ones = [1] * batch
    return _reduced(interp, x, ones + windows + [1], ones + strides + [1], [(0, 0)] * batch + paddings + [(0, 0)], node, fr, dtype)


def h_haiku_pool(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """hk.max_pool / hk.avg_pool(value, window_shape, strides, padding, channel_axis=-1):
    an int applies to every axis but the first and the channel axis; a shorter sequence
    is padded with leading 1s (batch axes); padding is "SAME" or "VALID"."""
    pooled = _pool_input(args, kwargs, "value", q)
    if pooled is None:
        return UNKNOWN
    x, dtype, unknown, _avg = pooled
    if x.shape is None or set(kwargs) - {"value", "window_shape", "strides", "padding", "channel_axis"} or len(args) > 5 or not x.shape:
        return unknown
    ndim = len(x.shape)
    channel_v = _arg(args, kwargs, 4, "channel_axis")
    channel: int | None = -1
    if absent(channel_v) and channel_v is not None:
        channel = None  # channel_axis=None: every axis but the first
    elif channel_v is not None:
        channel = int_value(channel_v)
        if channel is None:
            return unknown
    padding_v = _arg(args, kwargs, 3, "padding")
    if not (isinstance(padding_v, ConstV) and padding_v.value in ("SAME", "VALID")):
        return unknown
    sizes: list[list[int]] = []
    for v in (_arg(args, kwargs, 1, "window_shape"), _arg(args, kwargs, 2, "strides")):
        single = int_value(v) if isinstance(v, IntV) else None
        if single is not None:
            if channel and not 0 <= abs(channel) < ndim:
                return unknown
            axis = channel + ndim if channel and channel < 0 else channel
            sizes.append([1] + [1 if d == axis else single for d in range(1, ndim)])
        elif isinstance(v, TupleV) and len(v.items) <= ndim:
            given = known_ints(v, len(v.items))
            if given is None:
                return unknown
            sizes.append([1] * (ndim - len(given)) + given)
        else:
            return unknown
    windows, strides = sizes
    paddings: list[Padding] = [(0, 0) if padding_v.value == "VALID" else "SAME"] * ndim
    return _reduced(interp, x, windows, strides, paddings, node, fr, dtype)
