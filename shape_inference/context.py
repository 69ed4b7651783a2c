"""The calling context of an analysed function body, and the events it records.

A context says how the code was reached: the chain of call sites (for evidence),
the JAX transforms around it (grad, jvp, vmap, ...) and whether the parameters of
the flax modules being applied are differentiated.  An event is one evaluation of a
call to a watched API with every argument as an abstract value.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from jax_cudnn_lint.shape_inference.dims import Dim, Step
from jax_cudnn_lint.shape_inference.modules import ModuleInfo
from jax_cudnn_lint.shape_inference.values import ConstV, Value


@dataclass(frozen=True)
class VmapInfo:
    """One enclosing vmap: which axes it maps for each operand of the attention call."""

    transform: str
    in_axes: Value | None
    line: int
    path: str
    size: Dim | None = None  # the mapped axis size, when an argument's shape gives it
    # the def or lambda vmap maps, where it is one of the analysed code (in any module),
    # and the path of its module
    function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None = field(default=None, compare=False)
    function_path: str = ""
    function_tree: ast.Module | None = field(default=None, compare=False, repr=False)
    # the project's modules by path, where the calls from the mapped function down to the
    # attention are read (lint_rules/vmap_batching.py)
    modules: Mapping[str, ModuleInfo] | None = field(default=None, compare=False, repr=False)
    # the function is an object's `__call__` (`jax.vmap(module)`): its first parameter is
    # the object itself, whose fields the vmap does not map
    bound: bool = False
    # the vmap maps the watched API itself, or a `partial` of it: the positional arguments
    # and keyword names the partial binds (never batched); None for anything else
    direct: tuple[int, frozenset[str]] | None = None


@dataclass(frozen=True)
class JacobianRows:
    """A reverse-mode Jacobian (`jax.jacrev`) whose pullback, vmapped over `rows`
    cotangents (None: more than one, how many not known), reaches an attention call's
    output (jacobian_rows.py); `handled`: the handlers around the Jacobian's call, the
    only ones its backward pass runs inside."""

    kind: str
    step: Step
    rows: int | None
    handled: frozenset[str]


MeshAxes = tuple[tuple[str, int], ...]  # mesh axis names with their sizes, those known


@dataclass(frozen=True)
class MeshScope:
    """The meshes in scope: `ambient`, the one `with jax.set_mesh(mesh):` holds (a
    shard_map without `mesh=` runs over it); `bound`, the axes a shard_map's or pmap's
    body runs over, whose collectives (all_gather, axis_size...) read their sizes.  A
    collective outside such a body names an unbound axis (JAX raises): it reads nothing."""

    ambient: MeshAxes = ()
    bound: MeshAxes = ()

    def binding(self, axes: MeshAxes) -> MeshScope:
        """In a body that runs over `axes`."""
        return self if axes == self.bound else MeshScope(self.ambient, axes)

    def naming(self, name: str, size: int | None) -> MeshScope:
        """Where a pmap or vmap binds `name` (its `axis_name`) to an axis of `size` (None:
        not known): a mesh axis of that name is shadowed."""
        kept = tuple(item for item in self.bound if item[0] != name)
        return self.binding((*kept, (name, size)) if size is not None else kept)


NO_MESH = MeshScope()


UNKNOWN_ARGNUMS = " (which arguments: unknown)"  # (a transform kind's suffix in a Ctx)

# (submodule or parameter name, differentiated: a bool for a leaf, a tree for a submodule)
DiffTree = tuple[tuple[str, "bool | DiffTree"], ...]


# (an origin of a known int an undecided if-test reads, the test's node id, the arm's sense)
Guard = tuple[Step, int, bool]


@dataclass(frozen=True)
class Ctx:
    chain: tuple[Step, ...] = ()  # call sites from the entry point, outermost first
    transforms: tuple[tuple[str, Step], ...] = ()  # enclosing JAX transforms, outermost first
    params_diff: bool = False  # flax linen: module parameters are differentiated
    params_diff_why: tuple[Step, ...] = ()
    vmaps: tuple[VmapInfo, ...] = ()
    depth: int = 0
    # jax_enable_x64 here: True on; False not on for certain or not known (a `with
    # jax.enable_x64(False):` block, an update to a value we cannot read); None: as the
    # module body left it (externals.x64_enabled)
    x64: bool | None = None
    precision: Value | None = None  # ambient jax.default_matmul_precision
    # (outer, inner) reverse-mode transform steps when every differentiated value here is
    # differentiated by both: the inner one's differentiated arguments all came in
    # differentiated by the outer one, and nothing else did (transforms.second_order)
    second_order: tuple[Step, ...] = ()
    # the exception classes caught here by a `try` whose handler carries on (a fallback to
    # XLA), a `suppress(...)`, or all of them (EVERY_ERROR) inside `with pytest.raises(...)`
    # (a project's own tests of these very failures): a finding whose error they catch is
    # not reported (handlers.caught)
    handled: frozenset[str] = frozenset()
    # jax_default_matmul_precision as `jax.config.update` set it earlier on this path, in
    # program order: a function that sets it before it calls on (UNKNOWN: set on some
    # paths only).  A `with jax.default_matmul_precision(...)` (`precision`) overrides it
    config_precision: Value | None = None
    # flax linen, inside `apply(variables, ...)` with a literal params dict: for each
    # submodule name, whether its parameters are differentiated (a nested tree for a
    # submodule with submodules); None where not known (then params_diff says for all)
    params_tree: DiffTree | None = None
    # the named mesh axes in scope, with their known sizes (sharding.py)
    mesh: MeshScope = NO_MESH
    # the handlers in force where a staging transform (jit, checkpoint, a scan's body)
    # began inside a differentiating one: the function is traced to a jaxpr first and
    # differentiated after, outside any `try` inside it, so only these catch what the
    # differentiation raises (probe 74d: a jitted fallback under grad); None: no staging
    # since the innermost differentiation
    staged_handled: frozenset[str] | None = None
    # set on an attention call after the fact where a jax.jacrev's batched cotangents
    # reach its output (JCD209, FA-20)
    jacobian_rows: JacobianRows | None = None
    # the origins (provenance steps) of known ints that an enclosing `if` the analysis
    # could not decide reads (`if t in eval_only:` with eval_only unknown), each with the
    # test's node id and the arm's sense: a length made from one of them is not certain to
    # reach this code, unless the other arm reaches it too (probes 101a, 103a, 105a)
    guarded: frozenset[Guard] = frozenset()

    def reach_unknown(self) -> Ctx:
        """This context with the enclosing transforms no longer knowing which arguments
        they differentiate (a part cut by a filter not followed: JCD202, not silence)."""
        return replace(self, transforms=tuple((kind if kind.endswith(UNKNOWN_ARGNUMS) else kind + UNKNOWN_ARGNUMS, step) for kind, step in self.transforms))

    def key(self) -> object:
        return (
            self.handled,
            self.params_diff,
            self.params_tree,
            bool(self.second_order),
            tuple(t for t, _ in self.transforms),
            # (the vmap's site too: JCD209 reads the code between it and the attention, so a
            # clean vmap's event must not stand for another's, probe 152a)
            tuple((v.transform, v.in_axes.key() if v.in_axes is not None else None, v.size.key() if v.size is not None else None, v.path, v.line) for v in self.vmaps),
            self.x64,
            None if self.precision is None else self.precision.key(),
            None if self.config_precision is None else self.config_precision.key(),
            self.mesh,
            self.staged_handled,
            self.guarded,
        )

    def handled_when_differentiated(self) -> frozenset[str]:
        """What catches an error the differentiation itself raises (FA-15's odd lengths)."""
        return self.handled if self.staged_handled is None else self.staged_handled


@dataclass(eq=False)
class Root:
    """One analysis from its root (a module's body, or a function analysed as code out
    of sight calls it).  `open`: it handed a function or a model to code out of sight,
    which may differentiate what its own paths run forward (probe 60a: a frozen probe
    beside `trainer.fit(finetune_loss)`)."""

    open: bool = False


@dataclass
class CallEvent:
    """One evaluation of a call to a watched API."""

    qualname: str
    node: ast.Call
    module: ModuleInfo
    args: tuple[Value, ...]
    kwargs: dict[str, Value]
    star_unknown: bool  # a *args / **kwargs that could not be resolved
    ctx: Ctx
    via: tuple[Step, ...] = field(default=())  # how the callee was reached (partial, attention_fn=)
    generic: bool = False  # analysed without a caller (parameters unknown)
    # a call the module's own body runs (a script's top level, its main guard): the JAX
    # config flags its body had set by then, by their namespace slots (externals.
    # module_config_at: an update below the call does not hold for it, probe 47c);
    # None for calls made once the body has run, which see what it set in the end
    settings_then: dict[str, Value] | None = None
    # which analysis from its root made it: a program's body, or one function analysed as
    # code out of sight calls it (Interpreter.generic_call); two events of one root are
    # one program's paths (attention_rules: a frozen path silences its program's others)
    root: Root | None = None


def with_config(ctx: Ctx, x64: bool | None, config_precision: Value | None) -> Ctx:
    """`ctx` with the JAX config flags that `jax.config.update` set on this path."""
    if ctx.x64 is x64 and ctx.config_precision is config_precision:
        return ctx
    return Ctx(ctx.chain, ctx.transforms, ctx.params_diff, ctx.params_diff_why, ctx.vmaps, ctx.depth, x64, ctx.precision, ctx.second_order, ctx.handled, config_precision, ctx.params_tree, ctx.mesh, ctx.staged_handled, None, ctx.guarded)


def joined_config(ctx: Ctx, paths: list[Ctx], unknown: Value) -> Ctx:
    """`ctx` after paths that may each have run `jax.config.update`: a flag keeps the value
    every path agrees on.  Otherwise x64 is not certainly on and the precision is `unknown`."""
    if not paths:
        return ctx
    x64 = paths[0].x64 if all(path.x64 is paths[0].x64 for path in paths) else False
    first = paths[0].config_precision
    same = all(path.config_precision is first or (path.config_precision is not None and first is not None and path.config_precision.key() == first.key()) for path in paths)
    return with_config(ctx, x64, first if same else unknown)


def with_handled(ctx: Ctx, handled: frozenset[str]) -> Ctx:
    """`ctx` where the errors of these classes are caught (or no longer are)."""
    if ctx.handled == handled:
        return ctx
    return Ctx(ctx.chain, ctx.transforms, ctx.params_diff, ctx.params_diff_why, ctx.vmaps, ctx.depth, ctx.x64, ctx.precision, ctx.second_order, handled, ctx.config_precision, ctx.params_tree, ctx.mesh, ctx.staged_handled, None, ctx.guarded)


def params_diff_of(ctx: Ctx, name: Value | None) -> bool:
    """Are the parameters of the submodule (or the parameter) `name` differentiated?
    By the applied params dict where it names it, else as all the applied ones are."""
    entry = _tree_entry(ctx.params_tree, name)
    return ctx.params_diff if entry is None else _any_diff(entry)


def _tree_entry(tree: DiffTree | None, name: Value | None) -> bool | DiffTree | None:
    if tree is None or not isinstance(name, ConstV) or not isinstance(name.value, str):
        return None
    return next((entry for key, entry in tree if key == name.value), None)


def _any_diff(entry: bool | DiffTree) -> bool:
    return entry if isinstance(entry, bool) else any(_any_diff(sub) for _, sub in entry)


def submodule_ctx(ctx: Ctx, name: Value | None) -> Ctx | None:
    """The context a linen submodule named `name` runs in under an applied params dict:
    its own part of the dict; None where the dict does not name it (nothing changes)."""
    entry = _tree_entry(ctx.params_tree, name)
    if entry is None:
        return None
    tree = None if isinstance(entry, bool) else entry
    return Ctx(ctx.chain, ctx.transforms, _any_diff(entry), ctx.params_diff_why, ctx.vmaps, ctx.depth, ctx.x64, ctx.precision, ctx.second_order, ctx.handled, ctx.config_precision, tree, ctx.mesh, ctx.staged_handled, None, ctx.guarded)
