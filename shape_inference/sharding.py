"""Meshes, shard_map blocks and the collectives of a shard_map body.

A shard_map runs its function on each device's block: an axis that a PartitionSpec
names is split over those mesh axes, so the body sees the global length divided by
their sizes.  Inside the body, the collectives change lengths by the same sizes
(`all_gather` multiplies, `psum_scatter` divides, `all_to_all` does both), and
`axis_size` / `psum(1, name)` read them.  The sizes come from the mesh in sight: the
shard_map's `mesh=`, or the one `with jax.set_mesh(mesh):` holds around it (the context
carries them, Ctx.mesh).  Sequence and context parallelism make odd per-device
lengths out of even global ones this way (probes 39c, 46b).  A size or a spec not read
leaves the lengths it decides unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference.dims import Dim, Step, const, unknown
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ArrayV,
    ConstV,
    DictV,
    ExtObjectV,
    InstanceV,
    TupleV,
    UnknownV,
    Value,
    absent,
    int_value,
    make_int,
    map_arrays,
    call_arg as arg,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]

PARTITION_SPEC = "jax.sharding.PartitionSpec"


# -- meshes ------------------------------------------------------------------------------
def h_mesh(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.make_mesh((2, 4), ("data", "seq"))`, `Mesh(devices.reshape(2, 4), ("data",
    "seq"))`: a mesh, with the sizes of its axes by name where they are known."""
    made = q.endswith("make_mesh")
    layout = arg(args, kwargs, 0, "axis_shapes" if made else "devices")
    named = arg(args, kwargs, 1, "axis_names")
    sizes: list[int | None] | None = None
    if made and isinstance(layout, TupleV):
        sizes = [int_value(item) for item in layout.items]
    elif not made and isinstance(layout, ArrayV) and layout.shape is not None:
        sizes = [dim.value for dim in layout.shape]
    names = named.items if isinstance(named, TupleV) else (named,) if named is not None else ()
    texts = [item.value for item in names if isinstance(item, ConstV) and isinstance(item.value, str)]
    if sizes is None or len(texts) != len(names) or len(texts) != len(sizes):
        return A.CallResultV(A.MESH, None)
    return A.CallResultV(A.MESH, DictV(tuple((name, make_int(size)) for name, size in zip(texts, sizes) if size is not None)))


def h_create_device_mesh(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`mesh_utils.create_device_mesh((8,))`: an array of devices of that shape, for
    `Mesh(devices, names)` (probe 46b)."""
    shape = arg(args, kwargs, 0, "mesh_shape")
    sizes = [int_value(item) for item in shape.items] if isinstance(shape, TupleV) else None
    if sizes is None or any(size is None or size <= 0 for size in sizes):
        return UNKNOWN
    step = interp.step(fr, node, A.src(node))
    return ArrayV(tuple(const(size, (step,)) for size in sizes if size is not None), None, False, (step,))


def h_set_mesh(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.set_mesh(mesh)` / `jax.sharding.use_mesh(mesh)`: as a `with` item, the mesh a
    shard_map without `mesh=` runs over (jax_api.enter_context)."""
    mesh = arg(args, kwargs, 0, "mesh")
    return A.CallResultV(A.SET_MESH, mesh.payload if isinstance(mesh, A.CallResultV) and mesh.qualname == A.MESH else None)


# -- shard_map blocks ----------------------------------------------------------------------
def _replicated(entry: Value) -> bool:
    """A PartitionSpec entry of None: the axis is not split."""
    return isinstance(entry, ConstV) and entry.value is None


def blocks(value: Value, spec: Value | None, sizes: dict[str, int], step: Step | None = None, depth: int = 0) -> Value:
    """`value` with the axes `spec` shards divided by the sizes of the mesh axes they name
    (`sizes`), unknown where one is not known or does not divide.  `spec` is a
    PartitionSpec for the whole tree below it, or a tree of them matching `value`'s
    (`in_specs=({"q": P(None, "sp")},)`: probe 46b); every axis is unknown where `spec` is
    not read."""
    entries: tuple[Value, ...] | None = None
    if isinstance(spec, A.CallResultV) and spec.qualname == PARTITION_SPEC and isinstance(spec.payload, TupleV):
        entries = spec.payload.items
        if all(_replicated(entry) for entry in entries):
            return value  # `P()`: replicated, a module's parameters too (nnx.shard_map(f, in_specs=(P(), ...)))
    if isinstance(value, ArrayV):
        if value.shape is None:
            return value
        shape = tuple(_block_length(d, entries[i] if entries is not None and i < len(entries) else None, entries is None, sizes, step) for i, d in enumerate(value.shape))
        return ArrayV(shape, value.dtype, value.diff, value.why)
    if depth < 8:
        if isinstance(value, TupleV) and isinstance(spec, TupleV) and len(spec.items) == len(value.items):
            return TupleV(tuple(blocks(v, s, sizes, step, depth + 1) for v, s in zip(value.items, spec.items)), value.is_list, value.why, value.diff)
        if isinstance(value, DictV) and isinstance(spec, DictV) and {k for k, _ in spec.items} == {k for k, _ in value.items}:
            by_key = dict(spec.items)
            return DictV(tuple((k, blocks(v, by_key[k], sizes, step, depth + 1)) for k, v in value.items), value.why, value.diff)
        if entries is not None or spec is None or isinstance(spec, UnknownV):
            if isinstance(value, TupleV):
                return TupleV(tuple(blocks(v, spec, sizes, step, depth + 1) for v in value.items), value.is_list, value.why, value.diff)
            if isinstance(value, DictV):
                return DictV(tuple((k, blocks(v, spec, sizes, step, depth + 1)) for k, v in value.items), value.why, value.diff)
    if isinstance(value, (TupleV, DictV, InstanceV, ExtObjectV)):
        return UnknownV(value.diff)
    return value


def _block_length(dim: Dim, entry: Value | None, unread: bool, sizes: dict[str, int], step: Step | None) -> Dim:
    """One axis of a shard_map block: the whole axis where its spec entry is None (or
    the spec is shorter), the global length over the named mesh axes' sizes where each is
    known and divides it, else unknown."""
    if unread:
        return unknown(dim.why)
    if entry is None or _replicated(entry):
        return dim
    devices = _devices(entry, sizes)
    if devices is None or dim.value is None or dim.value % devices:
        return unknown(dim.why)
    block = const(dim.value // devices, dim.why)
    return block.with_why(dim.why, Step(step.path, step.line, f"{block.value} = {dim.value} / {devices} devices, {step.text}")) if step is not None else block


def _devices(names: Value | None, sizes: dict[str, int]) -> int | None:
    """The number of devices over the mesh axes `names` (a name or a tuple of names),
    None where one is not known."""
    items = names.items if isinstance(names, TupleV) else (names,)
    devices = 1
    for name in items:
        size = sizes.get(name.value) if isinstance(name, ConstV) and isinstance(name.value, str) else None
        if size is None:
            return None
        devices *= size
    return devices


# -- collectives in a shard_map body ------------------------------------------------------
def _axis_devices(args: Args, kwargs: Kwargs, fr: Frame) -> int | None:
    """The devices the collective's `axis_name` spans, by the mesh in scope; None where
    not known, or where `axis_index_groups` splits them."""
    if not absent(kwargs.get("axis_index_groups")):
        return None
    return _devices(arg(args, kwargs, 1, "axis_name"), dict(fr.ctx.mesh.bound))


def _leafwise(value: Value, change: Callable[[ArrayV], Value]) -> Value:
    """`change` applied to each array of a pytree of them (a collective maps its tree);
    any other leaf is unknown."""
    return map_arrays(value, change, lambda other: UnknownV(other.diff))


def h_same_shape_collective(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """psum, pmean, pmax, pmin, ppermute, pvary...: each device's block keeps its shape
    and dtype.  `psum(1, name)` is the number of devices (the classic axis_size)."""
    x = arg(args, kwargs, 0, "x")
    if x is None:
        return UNKNOWN
    if q.endswith(".psum") and not isinstance(x, (ArrayV, TupleV, DictV)):
        # a Python number, each device's: `psum(1, name)` is the number of devices
        count = int_value(x)
        devices = _axis_devices(args, kwargs, fr)
        return make_int(count * devices, (interp.step(fr, node, f"{A.src(node)} = {count * devices}"),)) if count is not None and devices is not None else UNKNOWN
    return _leafwise(x, lambda a: a)


def h_axis_index(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.lax.axis_index(name)`: this device's index, an int32 scalar."""
    return ArrayV((), "int32", False)


def h_axis_size(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`jax.lax.axis_size(name)`: the number of devices along the axis."""
    devices = _devices(arg(args, kwargs, 0, "axis_name"), dict(fr.ctx.mesh.bound))
    return make_int(devices, (interp.step(fr, node, f"{A.src(node)} = {devices}"),)) if devices is not None else UNKNOWN


def _scaled(dim: Dim, devices: int | None, times: bool, step: Step) -> Dim:
    """`dim` multiplied (all_gather) or divided (psum_scatter, all_to_all's split axis)
    by the number of devices; unknown where either is, or it does not divide."""
    if devices is None or dim.value is None or not times and dim.value % devices:
        return unknown(dim.why)
    n = dim.value * devices if times else dim.value // devices
    return const(n, dim.why).with_why(Step(step.path, step.line, f"{n} = {dim.value} {'*' if times else '/'} {devices} devices, {step.text}"))


def _axis(value: Value | None, default: int, ndim: int) -> int | None:
    """An axis argument as a non-negative position (None: not read, or out of range)."""
    n = default if absent(value) else int_value(value) if value is not None else None
    if n is None or not -ndim <= n < ndim:
        return None
    return n % ndim


class _StepOnce:
    """The call's step, made (its source unparsed) only where a length needs it."""

    def __init__(self, interp: Interpreter, fr: Frame, node: ast.AST) -> None:
        self.interp, self.fr, self.node = interp, fr, node
        self.made: Step | None = None

    def __call__(self) -> Step:
        if self.made is None:
            self.made = self.interp.step(self.fr, self.node, A.src(self.node))
        return self.made


def h_all_gather(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`all_gather(x, name, axis=0, tiled=False)`: the blocks stacked on a new axis, or
    concatenated along `axis` when tiled."""
    devices = _axis_devices(args, kwargs, fr)
    tiled = A.truth(kwargs["tiled"]) if "tiled" in kwargs else False
    step = _StepOnce(interp, fr, node)

    def gathered(a: ArrayV) -> Value:
        if a.shape is None or tiled is None:
            return ArrayV(None, a.dtype, a.diff, a.why)
        axis = _axis(kwargs.get("axis"), 0, len(a.shape) + (0 if tiled else 1))
        if axis is None:
            return ArrayV(None, a.dtype, a.diff, a.why)
        if tiled:
            shape = (*a.shape[:axis], _scaled(a.shape[axis], devices, True, step()), *a.shape[axis + 1 :])
        else:
            shape = (*a.shape[:axis], const(devices, (step(),)) if devices is not None else unknown((step(),)), *a.shape[axis:])
        return ArrayV(shape, a.dtype, a.diff, a.why, weak=a.weak)

    x = arg(args, kwargs, 0, "x")
    return _leafwise(x, gathered) if x is not None else UNKNOWN


def h_psum_scatter(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`psum_scatter(x, name, scatter_dimension=0, tiled=False)`: the sum, each device
    keeping its part of `scatter_dimension` (divided when tiled, dropped when not)."""
    devices = _axis_devices(args, kwargs, fr)
    tiled = A.truth(kwargs["tiled"]) if "tiled" in kwargs else False
    step = _StepOnce(interp, fr, node)

    def scattered(a: ArrayV) -> Value:
        axis = _axis(kwargs.get("scatter_dimension"), 0, len(a.shape)) if a.shape is not None else None
        if a.shape is None or axis is None or tiled is None:
            return ArrayV(None, a.dtype, a.diff, a.why)
        kept = (_scaled(a.shape[axis], devices, False, step()),) if tiled else ()
        return ArrayV((*a.shape[:axis], *kept, *a.shape[axis + 1 :]), a.dtype, a.diff, a.why, weak=a.weak)

    x = arg(args, kwargs, 0, "x")
    return _leafwise(x, scattered) if x is not None else UNKNOWN


def h_all_to_all(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`all_to_all(x, name, split_axis, concat_axis, tiled=False)`: tiled, `split_axis`
    is divided by the devices and `concat_axis` multiplied (Ulysses-style sequence
    parallelism); untiled, the split axis (of the devices' size) is dropped and one of
    that size inserted at `concat_axis`."""
    devices = _axis_devices(args, kwargs, fr)
    tiled = A.truth(kwargs["tiled"]) if "tiled" in kwargs else False
    step = _StepOnce(interp, fr, node)
    split, concat = arg(args, kwargs, 2, "split_axis"), arg(args, kwargs, 3, "concat_axis")

    def exchanged(a: ArrayV) -> Value:
        if a.shape is None or tiled is None or split is None or concat is None:
            return ArrayV(None, a.dtype, a.diff, a.why)
        s, c = _axis(split, 0, len(a.shape)), _axis(concat, 0, len(a.shape))
        if s is None or c is None:
            return ArrayV(None, a.dtype, a.diff, a.why)
        shape = list(a.shape)
        if tiled:
            shape[s] = _scaled(shape[s], devices, False, step())
            shape[c] = _scaled(shape[c], devices, True, step())
        else:
            del shape[s]
            shape.insert(c, const(devices, (step(),)) if devices is not None else unknown((step(),)))
        return ArrayV(tuple(shape), a.dtype, a.diff, a.why, weak=a.weak)

    x = arg(args, kwargs, 0, "x")
    return _leafwise(x, exchanged) if x is not None else UNKNOWN


SAME_SHAPE_COLLECTIVES = ("psum", "pmean", "pmax", "pmin", "ppermute", "pshuffle", "pvary", "pbroadcast", "pcast")
