"""JAX transforms and control flow: how a transformed function's body is reached.

grad-like transforms mark the differentiated arguments (their values become
`diff`) and push the transform onto the context; jit-like ones are transparent;
vmap removes the mapped axis from each argument and records the vmap; lax control
flow calls its bodies with the carried values; `map` and `jax.tree.map` call their
function on each item or leaf they can see.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import dims as D
from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference import filter_specs, jacobian_rows, mixed_tangents, sharding
from jax_cudnn_lint.shape_inference.context import UNKNOWN_ARGNUMS, Ctx, VmapInfo
from jax_cudnn_lint.shape_inference.dims import Dim, Step
from jax_cudnn_lint.shape_inference.scopes import parameter_names
from jax_cudnn_lint.shape_inference.dtypes import is_float
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    absent,
    ArrayV,
    ClassV,
    ConstV,
    DictV,
    DTypeV,
    ExternalV,
    FloatV,
    ExtObjectV,
    BoundMethodV,
    FunctionV,
    PartialV,
    InstanceV,
    IntV,
    IterV,
    OpaqueV,
    TransformV,
    TupleV,
    UnknownV,
    Value,
    class_chain,
    contains_diff,
    const_value,
    int_value,
    join,
    map_arrays,
)

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]


def _with_transform(ctx: Ctx, kind: str, step: Step, params_diff: bool | None = None, second_order: tuple[Step, ...] = ()) -> Ctx:
    """Under one more transform.  A differentiating one marks new values as
    differentiated, so what `second_order` said of the old ones says nothing of them;
    it traces its function directly, so the handlers inside count again (staged_handled)."""
    return Ctx(
        ctx.chain,
        ctx.transforms + ((kind, step),),
        ctx.params_diff if params_diff is None else params_diff,
        ctx.params_diff_why,
        ctx.vmaps,
        ctx.depth,
        ctx.x64,
        ctx.precision,
        second_order,
        ctx.handled,
        ctx.config_precision,
        ctx.params_tree if params_diff is None else None,
        ctx.mesh,
        None if _differentiating(kind) else ctx.staged_handled,
        None,
        ctx.guarded,
    )


def _differentiating(kind: str) -> bool:
    kind = kind.removesuffix(UNKNOWN_ARGNUMS)
    return kind in REVERSE_MODE or kind in FORWARD_MODE or kind in A.GRAD_LIKE


# transforms that trace their function to a jaxpr before anything differentiates it
STAGING = frozenset(
    {"jax.jit", "jax.pmap", "jax.checkpoint", "flax.linen.jit", "flax.linen.remat", "flax.linen.checkpoint", "flax.nnx.jit",
     "flax.nnx.remat", "flax.nnx.checkpoint", "equinox.filter_jit", "equinox.filter_checkpoint", "haiku.remat"}
)


def staged(ctx: Ctx) -> Ctx:
    """This context where a staging transform begins: under a differentiation, the
    handlers in force here are the last that catch what the differentiation raises in
    the staged function (traced on 0.10.2: `try` inside `jax.jit(f)` or a scan's body
    under `jax.grad` does not catch the odd length; around the jit call it does)."""
    if ctx.staged_handled is not None or not any(_differentiating(kind) for kind, _ in ctx.transforms):
        return ctx
    return dataclasses.replace(ctx, staged_handled=ctx.handled)


# Transforms that differentiate in reverse mode (jax.hessian is jacfwd of jacrev: forward outside).
REVERSE_MODE = frozenset(
    {
        "jax.grad", "jax.value_and_grad", "jax.jacrev", "jax.jacobian", "jax.vjp",
        "flax.nnx.grad", "flax.nnx.value_and_grad", "flax.nnx.vjp", "equinox.filter_grad",
        "equinox.filter_value_and_grad", "equinox.filter_vjp", "equinox.filter_jacrev", "flax.linen.grad",
        "flax.linen.value_and_grad", "flax.linen.vjp", A.DYNAMIC_SCALE_VALUE_AND_GRAD,
    }
)


# Transforms that differentiate in forward mode (jax.hessian: forward outside).
FORWARD_MODE = frozenset(
    {"jax.jvp", "jax.jacfwd", "jax.hessian", "jax.linearize", "flax.linen.jvp", "flax.nnx.jvp", "equinox.filter_jvp", "equinox.filter_jacfwd", "equinox.filter_hessian"}
)


def second_order(ctx: Ctx, kind: str, func: Value, args: Args, kwargs: Kwargs, nums: list[int], step: Step) -> tuple[Step, ...]:
    """(outer step, this step) when a differentiating transform, inside another (either
    mode, either way round: jvp of grad is a Hessian-vector product, grad of jacfwd and
    jvp of jvp fail alike, traced on 0.10.2), differentiates only values the other
    differentiates: each of its differentiated arguments came in differentiated, and no
    other argument, keyword, closure value or default of `func` did (nor flax params,
    nor a vmap in between).  Then whatever is differentiated inside is differentiated
    twice, and cuDNN attention's passes, which have no differentiation rule, are
    differentiated by the outer transform."""
    outer = [s for k, s in ctx.transforms if k in REVERSE_MODE or k in FORWARD_MODE]
    if kind not in REVERSE_MODE and kind not in FORWARD_MODE or not outer or not nums or ctx.params_diff:
        return ()
    if not all(args[i].diff for i in nums):
        return ()
    if any(a.diff for i, a in enumerate(args) if i not in nums) or any(v.diff for v in kwargs.values()):
        return ()
    while isinstance(func, TransformV) and func.kind not in A.GRAD_LIKE and func.kind not in A.VMAP_LIKE:
        func = func.func  # jit and the like
    func = mixed_tangents.haiku_forward(func) or func  # `jax.grad(net.apply)`: the forward function's closure (probe 68e)
    if not isinstance(func, FunctionV) or any(v.diff for _, v in _closure_values(func)):
        return ()
    if any(d.diff for d in func.defaults) or any(d.diff for _, d in func.kw_defaults):
        return ()
    return (outer[-1], step)


def _closure_values(func: FunctionV) -> list[tuple[str, Value]]:
    """The closure values `func` may read: the names it mentions that are not its own
    parameters (`lambda x: loss(params, x)` reads params, not the x of the function
    around it)."""
    free = func.module.facts.names_used(func.node) - parameter_names(func.node.args)
    return [(name, v) for state in func.closure for name, v in state.items() if name in free]


def call_in_ctx(interp: Interpreter, func: Value, args: Args, kwargs: Kwargs, ctx: Ctx, node: ast.AST, fr: Frame) -> Value:
    saved = fr.ctx
    fr.ctx = ctx
    try:
        return interp.call(func, args, kwargs, False, node, fr)
    finally:
        fr.ctx = saved




def mark_differentiated(value: Value, depth: int = 0, every_leaf: bool = True) -> Value:
    """What a grad-like transform makes of an argument it differentiates: a value that
    was stop_gradient'ed before (a custom rule's primal input) is differentiated anew.
    An nnx module's variables that are not nnx.Param (held stopped) are leaves to
    `jax.grad` (`every_leaf`), not to `nnx.grad` and its nnx.Param filters."""
    if isinstance(value, (ConstV, IntV, FloatV)):
        # a Python number traced by the transform is a weakly typed scalar: `x * temp` of
        # a bfloat16 x stays bfloat16 (probe 43b)
        return ArrayV((), "float32", True, value.why, weak=True)
    if isinstance(value, ArrayV) and value.stopped:
        return ArrayV(value.shape, value.dtype, True, value.why, value.name, weak=value.weak)
    if isinstance(value, TupleV) and depth < 4:
        return TupleV(tuple(mark_differentiated(item, depth + 1, every_leaf) for item in value.items), value.is_list, value.why, True)
    if isinstance(value, DictV) and depth < 4:
        return DictV(tuple((k, mark_differentiated(v, depth + 1, every_leaf)) for k, v in value.items), value.why, True)
    if isinstance(value, InstanceV) and every_leaf and depth < 4 and _holds_stopped(value, 0):
        module = InstanceV(value.cls, {}, True, value.why, value.ready)
        module.attrs.update({name: mark_differentiated(held, depth + 1) for name, held in value.attrs.items()})
        return module
    return value.tainted(True)


def _holds_stopped(value: Value, depth: int) -> bool:
    """Does an object hold (a few levels down) an array that carries no tangent (an nnx
    variable other than nnx.Param)?"""
    if isinstance(value, ArrayV):
        return value.stopped
    if depth >= 4:
        return False
    if isinstance(value, InstanceV):
        return any(_holds_stopped(held, depth + 1) for held in value.attrs.values())
    if isinstance(value, (TupleV, DictV)):
        items = value.items if isinstance(value, TupleV) else tuple(v for _, v in value.items)
        return any(_holds_stopped(item, depth + 1) for item in items)
    return False


def _argnums(tv: TransformV, n_args: int) -> list[int] | None:
    value = tv.param("argnums")
    if value is None:
        return [0] if n_args else []
    value = _whole_params_diff_state(value)
    single = int_value(value)
    if single is not None:
        return [single % n_args] if n_args and -n_args <= single < n_args else None
    if isinstance(value, TupleV):
        out: list[int] = []
        for item in value.items:
            i = int_value(item)
            if i is None or not (n_args and -n_args <= i < n_args):
                return None
            out.append(i % n_args)
        return out
    return None


def _whole_params_diff_state(value: Value) -> Value:
    """`nnx.DiffState(0, nnx.Param)` differentiates argument 0 as `argnums=0` does (every
    nnx.Param), and so does one with a filter nnx_filter reads (its marks are narrower:
    _diff_filters); with another filter (a head by type, a callable) which parameters
    reach the attention is not followed: Unknown (its argument is not marked)."""
    if isinstance(value, TupleV):
        return TupleV(tuple(_whole_params_diff_state(item) for item in value.items), value.is_list, value.why)
    if isinstance(value, A.CallResultV) and value.qualname == "flax.nnx.DiffState" and isinstance(value.payload, TupleV):
        argnum, wrt = value.payload.items
        return argnum if nnx_filter(wrt) is not None else UNKNOWN
    return value


# What an nnx filter selects, as far as the analysis reads it: every nnx.Param (ALL_PARAMS),
# the LoRA parameters (nnx.LoRAParam: an nnx.LoRA's, an nnx.LoRALinear's low-rank part),
# or the variables under a path component ("path", name: nnx.PathContains(name)); a
# Selection is the union of some (nnx.Any).
ALL_PARAMS = ("param",)
Filter = tuple[str | int, ...]
Selection = tuple[Filter, ...]


def nnx_filter(wrt: Value, depth: int = 0) -> Selection | None:
    """The filters a DiffState differentiates by (probe 52c: LoRA fine-tuning by
    `nnx.DiffState(0, nnx.LoRAParam)` or `nnx.All(nnx.Param, nnx.PathContains("lora"))`
    was JCD202 where JCD201 is certain; 118d: `nnx.Any(PathContains("embed"),
    PathContains("head"))`, either); None for one not read."""
    if isinstance(wrt, TupleV) and len(wrt.items) == 1 and depth < 4:
        return nnx_filter(wrt.items[0], depth + 1)  # `(nnx.Param,)`
    if isinstance(wrt, ExternalV) and wrt.qualname == "flax.nnx.Param":
        return (ALL_PARAMS,)
    if isinstance(wrt, ExternalV) and wrt.qualname == "flax.nnx.LoRAParam":
        return (("lora",),)
    if isinstance(wrt, ClassV) and wrt.external_bases() & {"flax.nnx.Param", "flax.nnx.LoRAParam", "flax.nnx.Variable"}:
        # `class LoRAWeight(nnx.Param)` of the analysed code (probe 73e), or a Variable
        # subclass (83a: `class Expert(nnx.Variable)`, whose arrays only such a filter selects)
        return (("class", str(id(wrt.node))),)
    if isinstance(wrt, A.CallResultV) and wrt.qualname == "flax.nnx.PathContains" and isinstance(wrt.payload, TupleV) and len(wrt.payload.items) == 1:
        ok, name = const_value(wrt.payload.items[0])
        return (("path", name),) if ok and isinstance(name, (str, int)) and not isinstance(name, bool) else None
    if isinstance(wrt, A.CallResultV) and wrt.qualname in ("flax.nnx.All", "flax.nnx.Any") and isinstance(wrt.payload, TupleV) and wrt.payload.items and depth < 4:
        parts = [nnx_filter(item, depth + 1) for item in wrt.payload.items]
        if None in parts:
            return None
        chosen = [part for part in parts if part is not None]
        if wrt.qualname == "flax.nnx.Any":
            # either: every parameter where one part takes them all
            return (ALL_PARAMS,) if (ALL_PARAMS,) in chosen else tuple(f for part in chosen for f in part)
        narrower = [part for part in chosen if part != (ALL_PARAMS,)]
        if len(narrower) > 1:
            return None  # (both: an intersection is not read)
        return narrower[0] if narrower else (ALL_PARAMS,)  # (nnx.Param holds every LoRAParam)
    return None


def _diff_filters(tv: TransformV) -> dict[int, Selection]:
    """The narrower filters of `argnums=nnx.DiffState(n, filter)`, by argument."""
    value = tv.param("argnums")
    states = value.items if isinstance(value, TupleV) else (value,) if value is not None else ()
    found: dict[int, Selection] = {}
    for state in states:
        if isinstance(state, A.CallResultV) and state.qualname == "flax.nnx.DiffState" and isinstance(state.payload, TupleV):
            argnum, wrt = state.payload.items
            chosen = nnx_filter(wrt)
            index = int_value(argnum)
            if chosen is not None and chosen != (ALL_PARAMS,) and index is not None:
                found[index] = chosen
    return found


_LORA_LAYERS = ("flax.nnx.LoRA", "flax.nnx.LoRALinear")


def _lora_kind_selected(kind: Value | None, chosen: Filter) -> bool:
    """Does the filter select the matrices of an nnx.LoRA made with `lora_param_type=kind`
    (nnx.LoRAParam when left out; a subclass of the analysed code: probe 74a)?"""
    if chosen == ("lora",):
        return kind is None or isinstance(kind, ExternalV) and kind.qualname == "flax.nnx.LoRAParam" or isinstance(kind, ClassV) and "flax.nnx.LoRAParam" in kind.external_bases()
    if chosen[0] == "class" and isinstance(kind, ClassV):
        return int(chosen[1]) in {id(current.node) for current in class_chain(kind)}
    return False


def mark_selected(value: Value, chosen: Selection) -> Value:
    """An nnx module with only the parameters narrower filters select differentiated: the
    layers holding them (an nnx.LoRA, an nnx.LoRALinear's low-rank part, everything under
    a path component) taint what they compute, the rest of the module does not.  Marks
    only add, so a union is marked one filter after another."""
    for one in chosen:
        value = _mark_filter(value, one)
    return value


def _mark_filter(value: Value, chosen: Filter, path: tuple[str | int, ...] = (), depth: int = 0) -> Value:
    """mark_selected for one filter."""
    if isinstance(value, ExtObjectV):
        if chosen[0] == "path" and chosen[1] in path:
            return value.tainted(True)
        if value.qualname in _LORA_LAYERS and (_lora_kind_selected(value.kwarg("lora_param_type"), chosen) or chosen == ("path", "lora") and value.qualname == "flax.nnx.LoRALinear"):
            return value.tainted(True)  # (a LoRALinear's low-rank part sits under `lora`)
        return value
    if isinstance(value, ArrayV):
        if chosen[0] == "class" and int(chosen[1]) in getattr(value, "variable_classes", frozenset[int]()):
            # a variable of the class the filter names, Param or not: differentiated (an
            # nnx.Variable subclass's array is kept out of plain nnx.grad only: probe 83a)
            return ArrayV(value.shape, value.dtype, True, value.why, value.name, weak=value.weak) if value.dtype is None or value.dtype.startswith(("float", "bfloat", "complex")) else value
        selected = chosen[0] == "path" and chosen[1] in path or chosen == ("lora",) and getattr(value, "lora", False)
        return value.tainted(True) if selected and not value.stopped else value
    if depth >= 6:
        return value
    if isinstance(value, InstanceV):
        module = InstanceV(value.cls, {}, False, value.why, value.ready)
        module.attrs.update({name: _mark_filter(held, chosen, (*path, name), depth + 1) for name, held in value.attrs.items()})
        return module
    if isinstance(value, TupleV):
        # (a list's items are under int keys in nnx's paths: `PathContains("0")` is none of them, probe 119a)
        return TupleV(tuple(_mark_filter(item, chosen, (*path, i), depth + 1) for i, item in enumerate(value.items)), value.is_list, value.why)
    return value


def call_transform(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, star: bool, node: ast.AST, fr: Frame) -> Value:
    kind = tv.kind
    if star:
        return UNKNOWN
    step = tv.why[-1] if tv.why else interp.step(fr, node, kind)
    if kind in A.GRAD_LIKE:
        if kind == A.OPTAX_VALUE_AND_GRAD:
            kwargs = {name: value for name, value in kwargs.items() if name != "state"}
        nums = _argnums(tv, len(args))
        seen_kind = kind
        if nums is None:
            # we cannot tell which arguments are differentiated: none is marked, and the
            # transform is not one whose reach is in sight (a call under it that no
            # marked value reaches may still be differentiated: JCD202, not silence)
            nums = []
            seen_kind = kind if kind in FORWARD_MODE else f"{kind}{UNKNOWN_ARGNUMS}"
        every_leaf = not kind.startswith("flax.nnx.")  # nnx.grad: nnx.Param only
        narrower = _diff_filters(tv) if kind.startswith("flax.nnx.") else {}
        marked = [(mark_selected(a, narrower[i]) if i in narrower else mark_differentiated(a, every_leaf=every_leaf)) if i in nums else a for i, a in enumerate(args)]
        ctx = _with_transform(fr.ctx, seen_kind, step, second_order=second_order(fr.ctx, kind, tv.func, args, kwargs, nums, step))

        def mark(i: int, value: Value) -> Value:
            return mark_selected(value, narrower[i]) if i in narrower else mark_differentiated(value, every_leaf=every_leaf)

        start = len(interp.events)
        result = _call_differentiated(interp, kind, tv.func, args, kwargs, mark, nums, ctx, node, fr, marked)
        if kind in jacobian_rows.JACREV and nums:
            has_aux = tv.param("has_aux")
            jacobian_rows.mark_rows(interp, kind, False if has_aux is None else A.truth(has_aux), tv.func, marked, kwargs, result, start, step, node, fr)
        grads = _gradients(tv, args, nums, result) if kind in ("jax.grad", "jax.value_and_grad", A.DYNAMIC_SCALE_VALUE_AND_GRAD) else UNKNOWN
        if kind == A.DYNAMIC_SCALE_VALUE_AND_GRAD:
            return TupleV((UNKNOWN, UNKNOWN, result, grads))  # (the new scale, is_finite, value, grads)
        if kind.endswith("value_and_grad") or kind == A.OPTAX_VALUE_AND_GRAD:
            return TupleV((result, grads))
        return grads
    if kind in A.VMAP_LIKE:
        return _call_vmap(interp, tv, args, kwargs, node, fr, step)
    if kind in A.SCAN_LIKE:
        return _call_nnx_scan(interp, tv, args, kwargs, node, fr)
    if kind == "jax.custom_jvp":
        return _call_custom_jvp(interp, tv, args, kwargs, node, fr)
    if kind == "jax.custom_vjp":
        return _call_custom_vjp(interp, tv, args, kwargs, node, fr)
    if kind == "jax.custom_gradient":
        return _call_custom_gradient(interp, tv, args, kwargs, node, fr)
    if kind == "jax.pmap":
        return _call_pmap(interp, tv, args, kwargs, node, fr)
    if kind in SHARD_MAP:
        return _call_shard_map(interp, tv, args, kwargs, node, fr)
    if kind == A.PER_LAYER_STACK:
        return _call_per_layer_stack(interp, tv, args, kwargs, node, fr)
    if kind == A.CHECKIFY:
        return TupleV((UNKNOWN, interp.call(tv.func, args, kwargs, False, node, fr)))  # (error, result)
    # jit, checkpoint, remat, named_call: transparent (staging: staged)
    if kind in STAGING:
        return call_in_ctx(interp, tv.func, args, kwargs, staged(fr.ctx), node, fr)
    return interp.call(tv.func, args, kwargs, False, node, fr)


def _call_per_layer_stack(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`hk.layer_stack(n, with_per_layer_inputs=True)(f)(x, *ys)`: f on the carry x and
    one layer's slice of each ys (their leading axis dropped), returning (carry, y); the
    stack returns the last carry, which has the first's shapes, and the stacked ys."""
    if not args or kwargs:
        return UNKNOWN
    out = interp.call(tv.func, [args[0], *(_leading_slice(a) for a in args[1:])], {}, False, node, fr)
    if isinstance(out, TupleV) and len(out.items) == 2:
        return TupleV((join(args[0], out.items[0]), UnknownV(out.items[1].diff)))
    return UnknownV(out.diff)


def _rules_of(interp: Interpreter, tv: TransformV) -> tuple[Value, ...] | None:
    return interp.custom_rules.get(id(tv.func.node) if isinstance(tv.func, FunctionV) else id(tv.func))


def _call_custom_jvp(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """A `jax.custom_jvp` function.  Differentiated, JAX runs its `defjvp` rule in place of
    its body: `rule(*nondiff_args, primals, tangents)` with the primal values (a
    `jax.jvp` inside the rule differentiates anew, as a cuDNN call pushed through it is)
    and tangents as differentiated as the inputs; otherwise (and where the rule is not
    known, or keywords are passed) the body, which sees its inputs as stop_gradient would
    give them.  The result depends on the inputs as the rule's tangents do."""
    primals = [_stopped(a) for a in args]
    differentiated = any(contains_diff(a) for a in (*args, *kwargs.values()))
    rules = _rules_of(interp, tv)
    nondiff = _static_argnums(tv.param("nondiff_argnums"))
    result: Value = UNKNOWN
    if differentiated and rules is not None and len(rules) == 1 and not kwargs and nondiff is not None and all(i < len(args) for i in nondiff):
        diff_args = [i for i in range(len(args)) if i not in nondiff]
        # an input nothing differentiates has a zero tangent: what the rule computes from
        # it alone carries none (a gate's `x * d_scale`: probe 47a)
        tangents = TupleV(tuple(mark_differentiated(args[i]) if contains_diff(args[i]) else _stopped(args[i]) for i in diff_args))
        out = interp.call(rules[0], [*(primals[i] for i in sorted(nondiff)), TupleV(tuple(primals[i] for i in diff_args)), tangents], {}, False, node, fr)
        if isinstance(out, TupleV) and len(out.items) == 2:
            result = out.items[0]
            if _no_tangent(out.items[1]):
                return result  # a rule whose tangent is certainly zero (`zeros_like(t)`: a fake-quant, probe 47a)
    else:
        result = interp.call(tv.func, primals, {k: _stopped(v) for k, v in kwargs.items()}, False, node, fr)
    return _released(result).tainted(True) if differentiated else result


def _call_custom_vjp(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """A `jax.custom_vjp` function.  Differentiated, JAX runs its `defvjp` rules in place
    of its body, with the primal values (not differentiated by the outer transform: a
    `jax.vjp` inside a rule differentiates on its own); otherwise the body, as a
    custom_jvp's, sees its inputs as stop_gradient would give them.  The result depends
    on the inputs as the rules' tangents do."""
    primals = [_stopped(a) for a in args]
    primal_kwargs = {k: _stopped(v) for k, v in kwargs.items()}
    differentiated = any(contains_diff(a) for a in (*args, *kwargs.values()))
    rules = _rules_of(interp, tv)
    if differentiated and rules is not None and len(rules) == 2:
        fwd, bwd = rules
        out = interp.call(fwd, primals, primal_kwargs, False, node, fr)
        result = out.items[0] if isinstance(out, TupleV) and len(out.items) == 2 else UNKNOWN
        nondiff = _static_argnums(tv.param("nondiff_argnums"))
        if isinstance(out, TupleV) and len(out.items) == 2 and nondiff is not None and all(i < len(primals) for i in nondiff):
            # bwd(*nondiff_args, residuals, cotangent)
            interp.call(bwd, [*(primals[i] for i in sorted(nondiff)), out.items[1], _stopped(result)], {}, False, node, fr)
    else:
        result = interp.call(tv.func, primals, primal_kwargs, False, node, fr)
    return _released(result).tainted(True) if differentiated else result


def _call_custom_gradient(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`jax.custom_gradient` f: f returns (output, vjp function) and runs on the primal
    values, as a custom_vjp's forward rule; the output carries a tangent where an input
    does (an identity that scales the gradient in front of the attention: probe 47a)."""
    differentiated = any(contains_diff(a) for a in (*args, *kwargs.values()))
    out = interp.call(tv.func, [_stopped(a) for a in args], {k: _stopped(v) for k, v in kwargs.items()}, False, node, fr)
    result = out.items[0] if isinstance(out, TupleV) and len(out.items) == 2 else UnknownV(differentiated)
    return _released(result).tainted(True) if differentiated else result


SHARD_MAP = ("jax.shard_map", "jax.experimental.shard_map.shard_map", "flax.nnx.shard_map")


def _call_pmap(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """pmap runs the function once per device on a slice of the mapped axis: the body sees
    the arguments without it, as under vmap, but no batching rule runs (no vmap context)."""
    axes = _in_axes(tv.param("in_axes"), len(args))
    static = _static_argnums(tv.param("static_broadcasted_argnums"))
    size: Dim | None = None
    if axes is None or static is None:
        mapped: Args = [UnknownV(a.diff) for a in args]
        mapped_kwargs: Kwargs = {k: UnknownV(v.diff) for k, v in kwargs.items()}
    else:
        mapped = []
        for i, (a, ax) in enumerate(zip(args, axes)):
            new, s = _drop_axes(a, None if i in static else ax)  # a static argument is passed whole
            mapped.append(new)
            size = size or s
        mapped_kwargs = {k: _drop_axis(v, 0)[0] for k, v in kwargs.items()}  # keywords: always axis 0
    name = tv.param("axis_name")
    if isinstance(name, ConstV) and isinstance(name.value, str) and size is not None and size.value is not None:
        # the collectives of the body (`psum(1, "batch")`, all_gather) span the mapped size
        result = call_in_ctx(interp, tv.func, mapped, mapped_kwargs, dataclasses.replace(fr.ctx, mesh=fr.ctx.mesh.naming(name.value, size.value)), node, fr)
    else:
        result = interp.call(tv.func, mapped, mapped_kwargs, False, node, fr)
    out_axes = tv.param("out_axes")
    out_axis = int_value(out_axes) if out_axes is not None else 0
    return UnknownV(result.diff) if out_axis is None else _add_axis(result, size, out_axis)


def _static_argnums(value: Value | None) -> set[int] | None:
    """pmap's static_broadcasted_argnums: an int or a tuple of ints (None: cannot tell)."""
    if value is None:
        return set()
    items = value.items if isinstance(value, TupleV) else (value,)
    nums = [int_value(item) for item in items]
    return None if any(n is None or n < 0 for n in nums) else {n for n in nums if n is not None}


def _call_shard_map(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """shard_map runs the function on each device's block (sharding.blocks), over its
    `mesh=` or the one `with jax.set_mesh(...)` holds around it; the body knows the
    mesh's axis sizes (its collectives read them).  The result's sharded axes are
    unknown (out_specs joins the blocks back)."""
    in_specs = tv.param("in_specs")
    specs = in_specs.items if isinstance(in_specs, TupleV) and len(in_specs.items) == len(args) else [in_specs] * len(args)
    mesh = tv.param("mesh")
    axes = A.mesh_axes(mesh) if mesh is not None else fr.ctx.mesh.ambient
    step = interp.step(fr, node, f"block of a shard_map over {A.src(node)}")
    local = [sharding.blocks(a, spec, dict(axes), step) for a, spec in zip(args, specs)]
    ctx = fr.ctx if axes == fr.ctx.mesh.bound else dataclasses.replace(fr.ctx, mesh=fr.ctx.mesh.binding(axes))
    result = call_in_ctx(interp, tv.func, local, kwargs, ctx, node, fr)
    return sharding.blocks(result, tv.param("out_specs"), {})


def _stopped(value: Value, depth: int = 0) -> Value:
    """`value` as jax.lax.stop_gradient returns it, leaf by leaf."""
    if isinstance(value, ArrayV):
        return ArrayV(value.shape, value.dtype, False, value.why, value.name, stopped=True, weak=value.weak)
    if isinstance(value, TupleV) and depth < 4:
        return TupleV(tuple(_stopped(item, depth + 1) for item in value.items), value.is_list, value.why)
    if isinstance(value, DictV) and depth < 4:
        return DictV(tuple((k, _stopped(v, depth + 1)) for k, v in value.items), value.why)
    return value.tainted(False)


def _no_tangent(value: Value, depth: int = 0) -> bool:
    """A custom_jvp rule's output tangent that certainly carries nothing differentiated:
    known arrays (and numbers) none of which is (an unknown value may be)."""
    if isinstance(value, ArrayV):
        return not value.diff
    if isinstance(value, TupleV) and depth < 4:
        return all(_no_tangent(item, depth + 1) for item in value.items)
    return isinstance(value, (ConstV, IntV, FloatV)) and not value.diff


def _released(value: Value) -> Value:
    """A custom rule's result, leaf by leaf, as able to carry a tangent again: the rule
    computes it from the primal inputs (stopped), but its tangent is the rule's (an
    identity `custom_vjp` that scales the gradient returns its input: probe 46a)."""
    return map_arrays(value, lambda a: ArrayV(a.shape, a.dtype, a.diff, a.why, a.name, weak=a.weak) if a.stopped else a, lambda other: other)


def _gradient_like(value: Value, depth: int = 0) -> Value:
    """The gradient with respect to `value`: the same tree of the same shapes, as
    jax.grad gives (a float leaf keeps its dtype; other leaves, or leaves we cannot
    see, make the tree unknown)."""
    if depth > 8:
        return UNKNOWN
    if isinstance(value, ArrayV):
        dtype = value.dtype if value.dtype is not None and (value.dtype.startswith(("float", "bfloat", "complex"))) else None
        return ArrayV(value.shape, dtype, value.diff, value.why)
    if isinstance(value, TupleV):
        items = tuple(_gradient_like(v, depth + 1) for v in value.items)
        return UNKNOWN if any(isinstance(i, UnknownV) for i in items) else TupleV(items, value.is_list, value.why, value.diff)
    if isinstance(value, DictV):
        entries = tuple((k, _gradient_like(v, depth + 1)) for k, v in value.items)
        return UNKNOWN if any(isinstance(v, UnknownV) for _, v in entries) else DictV(entries, value.why, value.diff)
    if isinstance(value, ConstV) and value.value is None:
        return value
    return UNKNOWN


def _gradients(tv: TransformV, args: Args, nums: list[int], result: Value) -> Value:
    """What jax.grad / jax.value_and_grad return besides the value: the gradients, shaped
    like the differentiated arguments (a tuple of them for a tuple argnums), and with
    has_aux=True, (gradients, aux) for grad.  Unknown where we cannot be sure."""
    argnums = tv.param("argnums")
    if not nums or any(i >= len(args) for i in nums):
        return UNKNOWN
    if argnums is None or int_value(argnums) is not None:
        grads = _gradient_like(args[nums[0]])
    else:
        grads = TupleV(tuple(_gradient_like(args[i]) for i in nums))
        if any(isinstance(g, UnknownV) for g in grads.items):
            grads = UNKNOWN
    aux = tv.param("has_aux")
    if aux is not None:
        has_aux = A.truth(aux)
        if has_aux is None:
            return UNKNOWN
        if has_aux and tv.kind == "jax.grad":
            aux_value = result.items[1] if isinstance(result, TupleV) and len(result.items) == 2 else UNKNOWN
            return TupleV((grads, aux_value))
    return grads


def _drop_axis(value: Value, axis: int | None, depth: int = 0) -> tuple[Value, Dim | None]:
    if axis is None:
        return value, None
    if isinstance(value, ExtObjectV) and axis == 0 and value.qualname in (STACKED, ARRAYS_PART):
        return unstack(value), None
    if isinstance(value, ArrayV):
        if value.shape is None:
            return ArrayV(None, value.dtype, value.diff, value.why), None
        rank = len(value.shape)
        if not -rank <= axis < rank:
            return ArrayV(None, value.dtype, value.diff, value.why), None
        ax = axis % rank
        return ArrayV(value.shape[:ax] + value.shape[ax + 1 :], value.dtype, value.diff, value.why), value.shape[ax]
    if isinstance(value, TupleV):
        items: list[Value] = []
        size: Dim | None = None
        for item in value.items:
            new, s = _drop_axis(item, axis, depth + 1)
            items.append(new)
            size = size or s
        return TupleV(tuple(items), value.is_list, value.why, value.diff), size
    if isinstance(value, DictV):
        entries: list[tuple[object, Value]] = []
        size = None
        for key, item in value.items:
            new, s = _drop_axis(item, axis, depth + 1)
            entries.append((key, new))
            size = size or s  # (a scan over a dict of inputs: its steps, probe 70a)
        return DictV(tuple(entries), value.why, value.diff), size
    if isinstance(value, InstanceV) and axis == 0 and depth < 4:
        # a module whose arrays are stacked layer by layer (`lax.scan(body, h, self.blocks)`):
        # one layer, its arrays without the leading axis, its other fields as they are
        layer = InstanceV(value.cls, {}, value.diff, value.why, value.ready)
        for name, held in value.attrs.items():
            layer.attrs[name] = _drop_axis(held, 0, depth + 1)[0] if isinstance(held, (ArrayV, TupleV, DictV, InstanceV)) else held
        return layer, None
    if A.is_train_state(value) and depth < 4:
        # a replicated TrainState under pmap: each field without the device axis (probe 58b)
        return A.map_train_state(value, lambda _, held: _drop_axis(held, axis, depth + 1)[0]), None
    return UnknownV(value.diff), None


def _add_axis(value: Value, size: Dim | None, axis: int) -> Value:
    if isinstance(value, InstanceV) and axis == 0:
        return ExtObjectV(STACKED, (value,), (), value.why, value.diff)
    if isinstance(value, ArrayV) and value.shape is not None and size is not None:
        rank = len(value.shape) + 1
        if -rank <= axis < rank:
            ax = axis % rank
            return ArrayV(value.shape[:ax] + (size,) + value.shape[ax:], value.dtype, value.diff, value.why)
    if isinstance(value, TupleV):
        return TupleV(tuple(_add_axis(v, size, axis) for v in value.items), value.is_list, value.why, value.diff)
    if isinstance(value, DictV):  # each leaf of a returned dict (`vmap(init_block)(keys)`) is mapped
        return DictV(tuple((k, _add_axis(v, size, axis)) for k, v in value.items), value.why, value.diff)
    if isinstance(value, ArrayV):
        return ArrayV(None, value.dtype, value.diff, value.why)
    if A.is_train_state(value):
        return A.map_train_state(value, lambda _, held: _add_axis(held, size, axis))  # (a pmapped step's state: probe 59a)
    return UnknownV(value.diff)


def _in_axes(in_axes: Value | None, n: int) -> list[int | None | DictV | TupleV] | None:
    """vmap's in_axes for each argument (None = not mapped); None when unresolved."""
    if in_axes is None:
        return [0 for _ in range(n)]
    if isinstance(in_axes, ConstV) and in_axes.value is None:
        return [None for _ in range(n)]
    if isinstance(in_axes, TupleV) and len(in_axes.items) == n:
        axes: list[int | None | DictV | TupleV] = []
        for item in in_axes.items:
            if isinstance(item, ConstV) and item.value is None:
                axes.append(None)
                continue
            if isinstance(item, (DictV, TupleV)):
                axes.append(item)  # (the argument's tree, axis by axis: `({"q": 0, "k": None},)`)
                continue
            i = int_value(item)
            if i is None:
                return None
            axes.append(i)
        return axes
    single = int_value(in_axes)
    return None if single is None else [single for _ in range(n)]


def _drop_axes(value: Value, spec: int | None | Value, depth: int = 0) -> tuple[Value, Dim | None]:
    """`_drop_axis` over a tree of in_axes matching the argument's (a dict of axes for a
    dict, a tuple for a tuple: probe 69a); unknown where they do not match."""
    if spec is None or isinstance(spec, int):
        return _drop_axis(value, spec)
    if isinstance(spec, ConstV) and spec.value is None:
        return value, None
    if isinstance(spec, IntV):
        axis = int_value(spec)
        return _drop_axis(value, axis) if axis is not None else (UnknownV(value.diff), None)
    size: Dim | None = None
    if depth < 8 and isinstance(spec, DictV) and isinstance(value, DictV) and {k for k, _ in spec.items} == {k for k, _ in value.items}:
        by_key = dict(spec.items)
        entries: list[tuple[object, Value]] = []
        for key, item in value.items:
            new, found = _drop_axes(item, by_key[key], depth + 1)
            entries.append((key, new))
            size = size or found
        return DictV(tuple(entries), value.why, value.diff), size
    if depth < 8 and isinstance(spec, TupleV) and isinstance(value, TupleV) and len(spec.items) == len(value.items):
        items: list[Value] = []
        for item, item_spec in zip(value.items, spec.items):
            new, found = _drop_axes(item, item_spec, depth + 1)
            items.append(new)
            size = size or found
        return TupleV(tuple(items), value.is_list, value.why, value.diff), size
    return UnknownV(value.diff), None


def _call_vmap(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, step: Step) -> Value:
    in_axes = tv.param("in_axes")
    axes = _in_axes(in_axes, len(args))
    size: Dim | None = None
    if axes is None:
        mapped: Args = [UnknownV(a.diff) for a in args]
    else:
        mapped = []
        for a, ax in zip(args, axes):
            new, s = _drop_axes(a, ax)
            mapped.append(new)
            size = size or s
    call = tv.func.cls.lookup("__call__") if isinstance(tv.func, InstanceV) else None
    inner = tv.func
    while isinstance(inner, TransformV) and inner.kind in SAME_ARGUMENTS:
        inner = inner.func  # `jax.vmap(jax.grad(loss), in_axes=1)`: loss gets the mapped arguments as they are
    # `jax.vmap(model.encode)`: a bound method maps its arguments after self, its object's
    # fields not mapped, as `jax.vmap(model)` maps `__call__`'s (probe 151a)
    method = inner.func if isinstance(inner, BoundMethodV) and isinstance(inner.func, FunctionV) and isinstance(inner.self_value, InstanceV) else None
    applied = _applied_module_call(inner, in_axes, kwargs)
    if applied is not None:
        method, in_axes = applied
    mapped_function = inner if isinstance(inner, FunctionV) else call if isinstance(call, FunctionV) else method
    mapped_def = mapped_function.node if mapped_function is not None else None
    mapped_path = mapped_function.module.path if mapped_function is not None else ""
    bound = isinstance(call, FunctionV) or method is not None
    mapped_tree = mapped_function.module.tree if mapped_function is not None else None
    info = VmapInfo(tv.kind, in_axes, step.line, step.path, size, mapped_def, mapped_path, mapped_tree, interp.project.by_path, bound=bound, direct=_direct_api(interp, tv.func))
    ctx = fr.ctx
    name = tv.param("axis_name")
    # `vmap(f, axis_name="batch")`: f's collectives over "batch" span the vmap (probe 47a)
    mesh = ctx.mesh.naming(name.value, size.value if size is not None else None) if isinstance(name, ConstV) and isinstance(name.value, str) else ctx.mesh
    vctx = Ctx(ctx.chain, ctx.transforms + ((tv.kind, step),), ctx.params_diff, ctx.params_diff_why, ctx.vmaps + (info,), ctx.depth, ctx.x64, ctx.precision, ctx.second_order, ctx.handled, ctx.config_precision, ctx.params_tree, mesh, ctx.staged_handled, None, ctx.guarded)
    result = call_in_ctx(interp, tv.func, mapped, kwargs, vctx, node, fr)
    out_axes = tv.param("out_axes")
    out_axis = int_value(out_axes) if out_axes is not None else 0
    if out_axis is None:
        return UnknownV(result.diff)
    return _add_axis(result, size, out_axis)


def _applied_module_call(func: Value, in_axes: Value | None, kwargs: Kwargs) -> tuple[FunctionV, Value] | None:
    """`jax.vmap(model.apply, in_axes=(None, 0))` of a linen module, its variables not
    mapped: the module's `__call__` mapped as a bound method (its fields, parameters and
    submodules every example's), with the in_axes of the arguments after the variables
    (probe 157b's r08); None for anything else (`method=`, mapped variables)."""
    if not (isinstance(func, BoundMethodV) and isinstance(func.func, ExternalV) and func.func.qualname == "flax.linen.Module.apply" and isinstance(func.self_value, InstanceV)):
        return None
    if "method" in kwargs or not isinstance(in_axes, TupleV) or not in_axes.items or not (isinstance(in_axes.items[0], ConstV) and in_axes.items[0].value is None):
        return None
    call = func.self_value.cls.lookup("__call__")
    return (call, TupleV(in_axes.items[1:], in_axes.is_list, in_axes.why, in_axes.diff)) if isinstance(call, FunctionV) else None


# transforms that call their function with the arguments they are given, in order: a vmap
# of one maps the function's parameters as its in_axes say
SAME_ARGUMENTS = frozenset(
    {
        "jax.grad",
        "jax.value_and_grad",
        "jax.jacrev",
        "jax.jacobian",
        "jax.jacfwd",
        "jax.hessian",
        "jax.jit",
        "jax.checkpoint",
        "jax.named_call",
        "equinox.filter_grad",
        "equinox.filter_value_and_grad",
        "equinox.filter_jacfwd",
        "equinox.filter_jacrev",
        "equinox.filter_hessian",
        "equinox.filter_jit",
        "equinox.filter_checkpoint",
    }
)


def _direct_api(interp: Interpreter, func: Value) -> tuple[int, frozenset[str]] | None:
    """`jax.vmap(jax.nn.dot_product_attention)`, `jax.vmap(partial(jax.nn.dot_product_attention,
    implementation="cudnn"))`: what the partial binds, where the vmap maps a watched API."""
    if isinstance(func, ExternalV) and interp.watch(func.qualname):
        return 0, frozenset()
    if isinstance(func, PartialV) and isinstance(func.func, ExternalV) and interp.watch(func.func.qualname):
        return len(func.args), frozenset(name for name, _ in func.kwargs)
    return None


EVAL_SHAPE = ("jax.eval_shape", "equinox.filter_eval_shape", "flax.nnx.eval_shape")


def call_primals(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """jax.vjp(f, *primals), jax.jvp(f, primals, tangents), jax.linearize(f, *primals);
    jax.eval_shape(f, *args) and its equinox and nnx twins call f on the arguments."""
    if not args:
        return UNKNOWN
    func = args[0]
    if q in EVAL_SHAPE:
        return interp.call(func, args[1:], kwargs, False, node, fr)
    if q.endswith("jvp"):
        primals = args[1] if len(args) > 1 else kwargs.get("primals")
        if not isinstance(primals, TupleV):
            return UNKNOWN
        if q == "equinox.filter_jvp":
            # equinox differentiates only the floating-point arrays among the primals
            call_args = [p.tainted(True) if isinstance(p, ArrayV) and is_float(p.dtype) else p for p in primals.items]
        else:
            call_args = [mark_differentiated(p) for p in primals.items]
        given = list(primals.items)
    else:
        call_args = [mark_differentiated(p) for p in args[1:]]
        given = list(args[1:])
    step = interp.step(fr, node, A.src(node))
    # (`given`: the primals as the caller gives them, differentiated twice where they
    # came in differentiated: second_order)
    nums = list(range(len(given)))
    ctx = _with_transform(fr.ctx, q, step, second_order=second_order(fr.ctx, q, func, given, kwargs, nums, step))
    result = _call_differentiated(interp, q, func, given, {}, lambda i, _: call_args[i], nums, ctx, node, fr, call_args)
    if q == "jax.linearize":
        # (primal out, the linear function): applying it is a jvp at those primals
        return TupleV((result, ExtObjectV(LINEAR_FUNCTION, (func, TupleV(tuple(given))), (), (step,))))
    return TupleV((result, UNKNOWN))


LINEAR_FUNCTION = "jax.linearize.linear_function"


def call_linear_function(interp: Interpreter, fn: ExtObjectV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`f_jvp(*tangents)` of `_, f_jvp = jax.linearize(f, *primals)`: forward mode at
    those primals, as `jax.jvp(f, primals, tangents)` (probe 73b: a custom_vjp call then
    fails when compiled, JCD208); its value is the tangent out, shaped as f's output."""
    func, primals = fn.args
    if kwargs or not isinstance(primals, TupleV):
        return UNKNOWN
    out = call_primals(interp, "jax.jvp", [func, primals, TupleV(tuple(args))], {}, node, fr)
    return out.items[0] if isinstance(out, TupleV) and out.items else UNKNOWN


def _call_differentiated(
    interp: Interpreter, kind: str, func: Value, args: Args, kwargs: Kwargs, mark: Callable[[int, Value], Value], nums: list[int], ctx: Ctx, node: ast.AST, fr: Frame, marked: Args
) -> Value:
    """Call `func` under a differentiating transform with its arguments `marked`; where
    it lies inside another and both transforms differentiate values of their own, the
    calls each one's values reach are told apart (mixed_tangents)."""
    outer = [s for k, s in fr.ctx.transforms if k in REVERSE_MODE or k in FORWARD_MODE]
    if (
        outer and nums and not ctx.second_order and not fr.ctx.second_order and (kind in REVERSE_MODE or kind in FORWARD_MODE) and not interp.aside_runs
        and mixed_tangents.outer_values_present(fr.ctx, func, args, kwargs, nums) and (cleared := mixed_tangents.cleared_callable(func)) is not None
    ):
        return mixed_tangents.call_marking_mixed(interp, func, cleared, args, kwargs, mark, nums, outer[-1], ctx.transforms[-1][1], ctx, node, fr)
    return call_in_ctx(interp, func, marked, kwargs, ctx, node, fr)


def _leading_slice(value: Value) -> Value:
    return _drop_axis(value, 0)[0]


def call_control_flow(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """lax's loops and branches, whose bodies are traced to jaxprs (staged)."""
    saved = fr.ctx
    fr.ctx = staged(fr.ctx)
    try:
        return _call_control_flow(interp, q, args, kwargs, node, fr)
    finally:
        fr.ctx = saved


def _call_control_flow(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    name = q.rsplit(".", 1)[-1]
    if name == "scan":
        body = args[0] if args else kwargs.get("f")
        init = args[1] if len(args) > 1 else kwargs.get("init")
        xs = args[2] if len(args) > 2 else kwargs.get("xs", ConstV(None))
        if body is None or init is None:
            return UNKNOWN
        no_xs = isinstance(xs, ConstV) and xs.value is None
        x, steps = (ConstV(None), None) if no_xs else _drop_axis(xs, 0)
        length = args[3] if len(args) > 3 else kwargs.get("length")
        if isinstance(length, IntV) and (steps is None or steps.value is None or steps.value == length.dim.value):
            steps = length.dim  # (`length=N` with no xs: a sampling loop of N steps, probe 69d)
        out = interp.call(body, [init, x], {}, False, node, fr)
        if isinstance(out, TupleV) and len(out.items) == 2:
            carry = loop_carry(init, out.items[0])
            again = interp.call(body, [carry, x], {}, False, node, fr)
            ys = again.items[1] if isinstance(again, TupleV) and len(again.items) == 2 else UnknownV(out.items[1].diff)
            # the outputs stacked along a leading axis of the number of steps
            stacked = ys if isinstance(ys, ConstV) and ys.value is None else _add_axis(ys, steps, 0) if steps is not None else UnknownV(ys.diff)
            return TupleV((carry, stacked))
        return UNKNOWN
    if name == "fori_loop":
        if len(args) < 4:
            return UNKNOWN
        body, init = args[2], args[3]
        index = IntV(Dim(None, 1, 0, None, None, None, ()))
        out = interp.call(body, [index, init], {}, False, node, fr)
        carry = loop_carry(init, out)
        interp.call(body, [index, carry], {}, False, node, fr)
        return carry
    if name == "while_loop":
        if len(args) < 3:
            return UNKNOWN
        cond, body, init = args[0], args[1], args[2]
        interp.call(cond, [init], {}, False, node, fr)
        out = interp.call(body, [init], {}, False, node, fr)
        carry = loop_carry(init, out)
        interp.call(body, [carry], {}, False, node, fr)
        return carry
    if name == "cond":
        if len(args) < 3:
            return UNKNOWN
        operands = args[3:]
        a = interp.call(args[1], operands, {}, False, node, fr)
        b = interp.call(args[2], operands, {}, False, node, fr)
        return join(a, b)
    if name == "switch":
        if len(args) < 2 or not isinstance(args[1], TupleV) or not args[1].items:
            return UNKNOWN
        operands = args[2:]
        return _joined([interp.call(branch, operands, {}, False, node, fr) for branch in args[1].items])
    if name == "map":
        if len(args) < 2:
            return UNKNOWN
        interp.call(args[0], [_leading_slice(args[1])], {}, False, node, fr)
        return UNKNOWN
    if name == "platform_dependent":
        # `lax.platform_dependent(*args, default=f, cuda=g, ...)`: JAX traces every branch
        # with the operands, whatever the platform (probe 107b: a cuDNN `cuda=` branch
        # raised on the CPU too)
        branches = [value for key, value in kwargs.items() if key != "default" or not absent(value)]
        return _joined([interp.call(branch, args, {}, False, node, fr) for branch in branches])
    return UNKNOWN


def _joined(results: list[Value]) -> Value:
    """What one of several traced branches returns (lax.switch, lax.platform_dependent)."""
    if not results:
        return UNKNOWN
    out = results[0]
    for other in results[1:]:
        out = join(out, other)
    return out


def loop_carry(init: Value, out: Value) -> Value:
    """The carry a loop's body is traced with: what its first and its returned carry
    share, with a tangent where either has one.  JAX traces the body once, its carry's
    tangents a fixed point (a carry the body makes differentiated is differentiated in
    the trace, whatever the length: probe 63b, `ctx + a * y` under grad of a)."""
    joined = join(init, out)
    if isinstance(joined, TupleV) and isinstance(init, TupleV) and isinstance(out, TupleV) and len(init.items) == len(out.items) == len(joined.items):
        return TupleV(tuple(loop_carry(a, b) for a, b in zip(init.items, out.items)), joined.is_list, joined.why, init.diff or out.diff)
    if isinstance(joined, DictV) and isinstance(init, DictV) and isinstance(out, DictV) and [k for k, _ in init.items] == [k for k, _ in out.items]:
        return DictV(tuple((k, loop_carry(a, b)) for (k, a), (_, b) in zip(init.items, out.items)), joined.why, init.diff or out.diff)
    if isinstance(joined, InstanceV) and isinstance(init, InstanceV) and isinstance(out, InstanceV) and init.cls is out.cls and init.attrs.keys() == out.attrs.keys():
        # a NamedTuple or frozen dataclass carry, field by field (probe 65a)
        return InstanceV(joined.cls, {k: loop_carry(v, out.attrs[k]) for k, v in init.attrs.items()}, init.diff or out.diff, joined.why, joined.ready)
    return joined.tainted(True) if (init.diff or out.diff) and not joined.diff else joined


_MAX_MAPPED = 64  # items or leaves a map calls its function on one by one


def call_mapping(interp: Interpreter, q: str, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """`map(f, xs, ...)` and `jax.tree.map(f, tree, ...)` (`jax.tree_util.tree_map`):
    `f` is called on each item (leaf) the analysis can see, and the results keep the
    structure, so `q, k, v = map(lambda t: t.reshape(...), (q, k, v))` unpacks them.
    Where the items or the tree are not known, `f` is not called and the result is
    unknown."""
    if len(args) < 2 or kwargs and not (set(kwargs) <= {"is_leaf"} and isinstance(kwargs["is_leaf"], ConstV) and kwargs["is_leaf"].value is None):
        return UnknownV(any(a.diff for a in args))
    func, sequences = args[0], args[1:]
    if q == "builtins.map":
        unpacked = [A.unpack(interp, seq, None, False, node, fr) for seq in sequences]
        if len(sequences) == 1 and unpacked[0] is None and isinstance(sequences[0], IterV):
            # `map(prepare, batches())`: lazily, each item what the function makes of one
            # item of the iterator (probe 63a: the flax examples' `map(shard, it)`)
            element = A.iter_element(interp, sequences[0], node, fr)
            if isinstance(element, UnknownV):
                return UnknownV(sequences[0].diff)
            return IterV(interp.call(func, [element], {}, False, node, fr), False, sequences[0].why)
        if any(items is None for items in unpacked):
            return UnknownV(any(a.diff for a in sequences))
        count = min(len(items) for items in unpacked if items is not None)
        if count > _MAX_MAPPED:
            return UnknownV(any(a.diff for a in sequences))
        return TupleV(tuple(interp.call(func, [items[i] for items in unpacked if items is not None], {}, False, node, fr) for i in range(count)))
    flag = filter_specs.constant_bool_function(func)
    if flag is not None and len(sequences) == 1 and _equinox_tree(sequences[0]):
        return filter_specs.uniform_spec(flag)  # (`jax.tree.map(lambda _: False, model)`: an equinox filter spec)
    budget = [_MAX_MAPPED]
    mapped = _tree_map(interp, func, sequences, node, fr, budget)
    if _may_stop_gradients(func) and (undecided := _without_unseen_tangents(mapped)) is not mapped:
        # `jax.tree.map(lambda p, m: p if m else stop_gradient(p), params, mask)` over
        # subtrees not seen: which of their leaves keep their tangents is not known (probe 66c)
        fr.ctx = fr.ctx.reach_unknown()
        return undecided
    return mapped


def call_path_mapping(interp: Interpreter, args: Args, node: ast.AST, fr: Frame) -> Value:
    """`flax.traverse_util.path_aware_map(f, params)`, `jax.tree.map_with_path(f, tree)`:
    `f` decides by each leaf's path, which is not followed, so the tree made is unknown.
    `f` is run once on a leaf not known: the tree carries tangents where that leaf's
    result does (none after `jnp.round(a)` or `stop_gradient(a)` of every leaf: probe
    157a).  Where `f` branches (`stop_gradient(p) if "head" in path else p`, or
    `jnp.zeros_like(a)` for some paths), which leaves keep their tangents is not known
    (probe 155a: silent before, as if every leaf had lost its tangent; 157a: a false
    JCD201 where the branch zeroed the encoder)."""
    if len(args) < 2:
        return UNKNOWN
    func, trees = args[0], args[1:]
    differentiated = any(contains_diff(tree) for tree in trees)
    leaf = interp.call(func, [UNKNOWN, *(UnknownV(contains_diff(tree)) for tree in trees)], {}, False, node, fr)
    if differentiated and not leaf.diff and _branches(func):
        # (the arms joined: a tangent certain on every path only; some leaves may keep theirs)
        fr.ctx = fr.ctx.reach_unknown()
        return UNKNOWN
    return UnknownV(leaf.diff)


def _branches(func: Value) -> bool:
    """Does a function of ours choose between values (an if, a conditional expression,
    a match)?  A function of a library's does not decide by a leaf's path."""
    node = func.node if isinstance(func, FunctionV) else None
    return node is not None and any(isinstance(part, (ast.If, ast.IfExp, ast.Match)) for part in ast.walk(node))


def _without_unseen_tangents(value: Value, depth: int = 0) -> Value:
    """`value` with its differentiated unknown parts (subtrees a map did not see) taken
    as not differentiated; the same object where it has none."""
    if isinstance(value, UnknownV):
        return UnknownV(False, value.why) if value.diff else value
    if depth < 8 and isinstance(value, TupleV):
        items = tuple(_without_unseen_tangents(item, depth + 1) for item in value.items)
        return value if all(a is b for a, b in zip(items, value.items)) else TupleV(items, value.is_list, value.why)
    if depth < 8 and isinstance(value, DictV):
        entries = tuple((k, _without_unseen_tangents(v, depth + 1)) for k, v in value.items)
        return value if all(a[1] is b[1] for a, b in zip(entries, value.items)) else DictV(entries, value.why)
    return value


def _may_stop_gradients(func: Value) -> bool:
    """Does a mapped function of ours call `stop_gradient`, or a function whose result
    carries no tangent (`jnp.zeros_like`, `jnp.round`: probe 157a), on some leaves maybe?"""
    node = func.node if isinstance(func, FunctionV) else None
    return node is not None and any(
        isinstance(call, ast.Call) and (isinstance(call.func, ast.Attribute) and call.func.attr in _NO_TANGENT_CALLS or isinstance(call.func, ast.Name) and call.func.id in _NO_TANGENT_CALLS)
        for call in ast.walk(node)
    )


# what gives a value without the tangent of what it is given
_NO_TANGENT_CALLS = frozenset({"stop_gradient", "zeros_like", "ones_like", "full_like", "empty_like", "zeros", "ones", "full", "empty", "round", "floor", "ceil", "sign", "trunc", "rint", "fix"})


def _equinox_tree(tree: Value) -> bool:
    """An equinox module or layer, or a list or tuple of them (`[encoder, probe]`)."""
    if isinstance(tree, TupleV):
        return bool(tree.items) and all(_equinox_tree(item) for item in tree.items)
    return isinstance(tree, InstanceV) and A.is_eqx_class(tree.cls) or isinstance(tree, ExtObjectV) and tree.qualname.startswith("equinox.nn.")


def _stops_a_leaf(interp: Interpreter, func: Value, node: ast.AST, fr: Frame, budget: list[int]) -> bool:
    """Does `func` give every differentiated float array leaf back without its tangent,
    whatever its rank (a vector, a kernel, a conv's) or one unknown?  (`stop_gradient(a) if
    a.ndim == 2 else a` stops the kernels only: probe 110a.)"""
    if not isinstance(func, FunctionV) or budget[0] <= 0:
        return False
    budget[0] -= 1
    mark = len(interp.events)
    try:
        for shape in (None, (D.const(8),), (D.const(8), D.const(8)), (D.const(3), D.const(3), D.const(8), D.const(8))):
            out = interp.call(func, [ArrayV(shape, "float32", True)], {}, False, node, fr)
            if not (isinstance(out, ArrayV) and not out.diff):
                return False
        return True
    finally:
        del interp.events[mark:]


def _tree_map(interp: Interpreter, func: Value, trees: Args, node: ast.AST, fr: Frame, budget: list[int]) -> Value:
    """One level of jax.tree.map: tuples, lists and dicts are nodes, None an empty
    subtree, arrays and numbers leaves; anything else may be a node we cannot see."""
    first = trees[0]
    diff = any(t.diff for t in trees)
    if isinstance(first, TupleV):
        if not all(isinstance(t, TupleV) and len(t.items) == len(first.items) for t in trees):
            return UnknownV(diff)
        rows = [t.items for t in trees if isinstance(t, TupleV)]
        return TupleV(tuple(_tree_map(interp, func, [row[i] for row in rows], node, fr, budget) for i in range(len(first.items))), first.is_list)
    if isinstance(first, DictV):
        keys = [k for k, _ in first.items]
        if not all(isinstance(t, DictV) and [k for k, _ in t.items] == keys for t in trees):
            return UnknownV(diff)
        rows = [[v for _, v in t.items] for t in trees if isinstance(t, DictV)]
        return DictV(tuple((k, _tree_map(interp, func, [row[i] for row in rows], node, fr, budget)) for i, k in enumerate(keys)))
    if isinstance(first, ConstV) and first.value is None:
        return first
    if isinstance(first, InstanceV) and (A.is_eqx_class(first.cls) or first.cls.declared_frozen()):
        # an equinox module, a flax struct or a NamedTuple is a node: its fields mapped
        # (`jax.tree.map(lambda v: v[i], stacked_layers)` gives one layer); static fields kept
        if not all(isinstance(t, InstanceV) and t.cls is first.cls and t.attrs.keys() == first.attrs.keys() for t in trees):
            return UnknownV(diff)
        mapped = InstanceV(first.cls, {}, first.diff, first.why, first.ready)
        for name, held in first.attrs.items():
            static = A.is_static_field(first.cls, name) or isinstance(held, (FunctionV, PartialV, ExternalV))
            mapped.attrs[name] = held if static else _tree_map(interp, func, [t.attrs[name] for t in trees if isinstance(t, InstanceV)], node, fr, budget)
        if first.diff and len(trees) == 1 and not any(value.diff for value in mapped.attrs.values()) and _stops_a_leaf(interp, func, node, fr, budget):
            # `tree_map(lambda a: stop_gradient(a) if eqx.is_array(a) else a, model.text)`:
            # a module whose tangents came from being differentiated whole, its leaves
            # stopped one by one, has none left (probe 109d: a frozen text tower)
            mapped = InstanceV(first.cls, mapped.attrs, False, first.why, first.ready)
        return mapped
    if isinstance(first, ExtObjectV) and all(A.is_train_state(t) and [k for k, _ in t.kwargs] == [k for k, _ in first.kwargs] for t in trees):
        # flax's TrainState: its fields mapped (probe 58b)
        rows = [dict(t.kwargs) for t in trees if isinstance(t, ExtObjectV)]
        return A.map_train_state(first, lambda name, _: _tree_map(interp, func, [row[name] for row in rows], node, fr, budget))
    if isinstance(first, ExtObjectV) and first.qualname.startswith("equinox.nn.") and len(trees) == 1 and budget[0] > 0:
        budget[0] -= 1
        return _mapped_layer(interp, func, first, node, fr)
    if isinstance(first, ExtObjectV) and first.qualname == ARRAYS_PART and len(trees) == 1 and budget[0] > 0:
        budget[0] -= 1
        return _mapped_part(interp, func, first, node, fr)
    leaf = isinstance(first, (ArrayV, IntV)) or (isinstance(first, ConstV) and isinstance(first.value, (int, float)))
    if (isinstance(first, UnknownV) or isinstance(first, OpaqueV) and diff) and isinstance(func, (FunctionV, ExternalV, PartialV)) and budget[0] > 0:
        # a tree whose leaves are not known: the function run once on a leaf not known
        # either, whose tangents every leaf's result has: differentiated whatever the
        # leaf (`tree_map(lambda w: w * scale, params)` under a grad over scale: probe
        # 68b), or none where it takes them all away (`tree_map(jax.lax.stop_gradient,
        # q["encoder"])`: probe 156a; a function that stops some leaves only keeps them)
        budget[0] -= 1
        mapped = interp.call(func, [UnknownV(t.diff) for t in trees], {}, False, node, fr)
        if diff and not mapped.diff and _branches(func):
            return UnknownV(True)  # (some leaves may keep their tangents: call_mapping says which are not known)
        return UnknownV(mapped.diff)
    if not leaf or budget[0] <= 0:
        return UnknownV(diff)
    budget[0] -= 1
    return interp.call(func, list(trees), {}, False, node, fr)


def _mapped_part(interp: Interpreter, func: Value, part: ExtObjectV, node: ast.AST, fr: Frame) -> Value:
    """An nnx state mapped leaf by leaf (`jax.tree.map(lambda s: jnp.zeros(s.shape,
    s.dtype), state)` after `nnx.split(nnx.eval_shape(...))`: an abstract model made
    concrete, probe 157a): where the function keeps every leaf's shape and dtype, the
    same part, with the tangents its result has; anything else, Unknown."""
    sizes = (D.symbol("_leaf_rows"), D.symbol("_leaf_cols"))
    diff = False
    for dtype in ("float32", "bfloat16"):
        out = interp.call(func, [ArrayV(sizes, dtype, part.diff)], {}, False, node, fr)
        if not (isinstance(out, ArrayV) and out.dtype == dtype and out.shape is not None and len(out.shape) == 2 and all(a.same_as(b) for a, b in zip(out.shape, sizes))):
            return UnknownV(part.diff)
        diff = diff or out.diff
    return ExtObjectV(part.qualname, part.args, part.kwargs, part.why, diff)


def _mapped_layer(interp: Interpreter, func: Value, layer: ExtObjectV, node: ast.AST, fr: Frame) -> Value:
    """An equinox layer's weights mapped (`jax.tree.map(lambda a: a.astype(jnp.bfloat16),
    model)`, a mixed-precision cast: probe 85b): the function run on a weight of
    unknown sizes; where it keeps the shape, the layer with the weights' new dtype (unknown
    where not known) and tangents; anything else, Unknown."""
    given = layer.kwarg("dtype")
    before = A.dtype_name(given) if given is not None else "float32"
    sizes = (D.symbol("_weight_rows"), D.symbol("_weight_cols"))
    out = interp.call(func, [ArrayV(sizes, before, layer.diff)], {}, False, node, fr)
    if not (isinstance(out, ArrayV) and out.shape is not None and len(out.shape) == 2 and all(a.same_as(b) for a, b in zip(out.shape, sizes))):
        return UnknownV(layer.diff)
    if out.dtype == before:
        return layer if out.diff == layer.diff else ExtObjectV(layer.qualname, layer.args, layer.kwargs, layer.why, out.diff)
    dtype: Value = DTypeV(out.dtype) if out.dtype is not None else UnknownV(False)
    kwargs = (*((k, v) for k, v in layer.kwargs if k != "dtype"), ("dtype", dtype))
    return ExtObjectV(layer.qualname, layer.args, kwargs, layer.why, out.diff)


# -- stacked modules and their parts --------------------------------------------------------------
# A module (any object) built under vmap has every array with a leading axis: it is kept
# as `STACKED` around the one built per example, which a scan over it (or a vmap) hands
# to its body.  nnx.split / eqx.partition cut a module into its arrays (`ARRAYS_PART`)
# and the rest (`STATIC_PART`); nnx.merge / eqx.combine of the parts of one module give
# it back, with the arrays' stacking.  Anything else done to these values is unknown.
STACKED = "jax_cudnn_lint.stacked"
ARRAYS_PART = "jax_cudnn_lint.part.arrays"
STATIC_PART = "jax_cudnn_lint.part.static"


def unstack(value: ExtObjectV) -> Value:
    """One slice along the leading axis of a stacked module or of its arrays part."""
    inner = value.args[0]
    if value.qualname == STACKED:
        return inner.tainted(True) if value.diff and not inner.diff else inner
    if isinstance(inner, ExtObjectV) and inner.qualname == STACKED:
        return ExtObjectV(ARRAYS_PART, (unstack(inner),), value.kwargs, value.why, value.diff)  # (what the part holds kept)
    return UnknownV(value.diff)


def _module_and_depth(value: Value) -> tuple[InstanceV, int] | None:
    """The module inside `value` (stacked any number of times) and how many times."""
    depth = 0
    while isinstance(value, ExtObjectV) and value.qualname == STACKED:
        value, depth = value.args[0], depth + 1
    return (value, depth) if isinstance(value, InstanceV) else None


def split_parts(module: Value, n_arrays: int, static_first: bool, filters: Sequence[Value] = ()) -> Value:
    """nnx.split(m, *filters) -> (graphdef, state, ...), eqx.partition(m, eqx.is_array) ->
    (arrays, static): parts that only `recombine` reads.  Each arrays part keeps its
    nnx filter: only a part of nnx.Param holds no other variable."""
    several = isinstance(module, TupleV) and any(_module_and_depth(item) is not None for item in module.items)
    if _module_and_depth(module) is None and not several and not A.is_nnx_layer(module):
        return UnknownV(module.diff)  # (a tuple of modules: `nnx.split((model, optimizer))`)
    arrays = [ExtObjectV(ARRAYS_PART, (module,), (("holds", ConstV(_part_holds(filters, i))), *_spec_of(filters, i)), (), module.diff) for i in range(n_arrays)]
    static = ExtObjectV(STATIC_PART, (module,), (), (), False)
    return TupleV((static, *arrays) if static_first else (*arrays, static))


def recombine(parts: Args, fr: Frame | None = None) -> Value:
    """nnx.merge(graphdef, *states) / eqx.combine(*parts): the module the parts were cut
    from, shaped (stacked) as its arrays parts are, differentiated where they are.  The
    parts must be one static part and arrays parts all of one module, equally stacked."""
    statics = [p for p in parts if isinstance(p, ExtObjectV) and p.qualname == STATIC_PART]
    arrays = [p for p in parts if isinstance(p, ExtObjectV) and p.qualname == ARRAYS_PART]
    if len(statics) != 1 or not arrays or len(statics) + len(arrays) != len(parts):
        return UNKNOWN
    whole = statics[0].args[0]
    if isinstance(whole, TupleV):
        # the modules split together (`nnx.merge(graphdef, state)` of a (model, optimizer),
        # `eqx.partition([encoder, probe], spec)`)
        if any(part.args[0] is not whole for part in arrays):
            return UNKNOWN
        differentiated = {_holds(p) for p in arrays if p.diff}
        if (marked := _marked_by_spec(arrays, differentiated, whole)) is not None:
            return marked  # (probe 63a: only the probe of `[encoder, probe]` trained)
        if differentiated - {"all", "params", "rest"} and fr is not None:
            fr.ctx = fr.ctx.reach_unknown()  # (a part by another filter: as for one module, below)
            return whole
        return whole.tainted(True) if differentiated and not whole.diff else whole
    if A.is_nnx_layer(whole):
        # flax's own layer split and merged (`nnx.merge(*nnx.split(nnx.MultiHeadAttention(...)))`,
        # probe 65c): its variables are nnx.Params
        if any(part.args[0] is not whole for part in arrays):
            return UNKNOWN
        differentiated = {_holds(p) for p in arrays if p.diff}
        if differentiated - {"all", "params", "rest"} and fr is not None:
            fr.ctx = fr.ctx.reach_unknown()
            return whole
        return whole.tainted(True) if differentiated & {"all", "params"} and not whole.diff else whole
    base = _module_and_depth(whole)
    depths: set[int] = set()
    for part in arrays:
        found = _module_and_depth(part.args[0])
        if base is None or found is None or found[0].attrs is not base[0].attrs:
            return UNKNOWN
        depths.add(found[1])
    if len(depths) != 1:
        return UNKNOWN
    module = arrays[0].args[0]
    differentiated = {_holds(p) for p in arrays if p.diff}
    if not differentiated and module.diff and any(_holds(p) == "all" for p in arrays):
        # `eqx.combine(jax.lax.stop_gradient(arrays), static)` of a module differentiated
        # whole: every array of it stopped (probe 109d: a frozen text tower)
        return module.tainted(False)
    if "all" in differentiated or {"params", "rest"} <= differentiated:
        return mark_differentiated(module)  # (every variable of it was differentiated)
    if (marked := _marked_by_spec(arrays, differentiated, module)) is not None:
        return marked  # (an equinox filter spec of bools: the subtrees it sets to True)
    if differentiated - {"params"} and fr is not None:
        # a part of some other variables (LoRA parameters, a head by path, batch stats,
        # `(nnx.Param, nnx.BatchStat)`) was differentiated: which arrays reach the
        # attention is not followed, as with an `nnx.DiffState(n, filter)`: none is taken
        # as differentiated, and the transforms around say their reach is unknown (a
        # call then gets JCD202, not silence)
        fr.ctx = fr.ctx.reach_unknown()
    if "params" in differentiated:
        return module if module.diff else module.tainted(True)
    return module


def _marked_by_spec(arrays: list[ExtObjectV], differentiated: set[str], whole: Value) -> Value | None:
    """The module (or list of modules) differentiated where the equinox filter spec its
    one differentiated part was cut by says; None where that is not the case."""
    if differentiated != {"spec"}:
        return None
    spec = next((p.kwarg("spec") for p in arrays if p.diff and _holds(p) == "spec"), None)
    return filter_specs.apply(whole, spec, mark_differentiated) if isinstance(spec, ExtObjectV) and filter_specs.is_spec(spec) else None


def _part_holds(filters: Sequence[Value], index: int) -> str:
    """What an `nnx.split` part holds: "all" (no filter: the whole state), "params"
    (exactly nnx.Param), "rest" (`...` after nnx.Param: every other variable), or
    "other" (a narrower or different filter, or what is left after one)."""
    if not filters:
        return "all"
    if index >= len(filters):
        return "other"
    item = filters[index]
    if isinstance(item, ExternalV) and item.qualname == "flax.nnx.Param":
        return "params"
    if filter_specs.is_spec(item):
        return "spec"
    if isinstance(item, ConstV) and item.value is Ellipsis:
        if index == 0:
            return "all"
        earlier = filters[:index]
        return "rest" if len(earlier) == 1 and _part_holds(filters, 0) == "params" else "other"
    return "other"


def _spec_of(filters: Sequence[Value], index: int) -> tuple[tuple[str, Value], ...]:
    """The equinox filter spec an arrays part was cut by, kept for `recombine`."""
    return (("spec", filters[index]),) if index < len(filters) and filter_specs.is_spec(filters[index]) else ()


def _holds(part: ExtObjectV) -> str:
    held = part.kwarg("holds")
    return held.value if isinstance(held, ConstV) and isinstance(held.value, str) else "other"


def _is_carry(value: Value | None) -> bool:
    return isinstance(value, ExternalV) and value.qualname == "flax.nnx.Carry"


def _call_nnx_scan(interp: Interpreter, tv: TransformV, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame) -> Value:
    """nnx.scan(f, in_axes=..., out_axes=...)(*args): f on the carry (the argument whose
    axis is nnx.Carry) as is, the scanned ones (axis 0) without their leading axis and
    the broadcast ones (None) as they are; a second call with the carry f returns, as
    lax.scan.  out_axes nnx.Carry returns the carry, (nnx.Carry, 0) the carry and
    unknown stacked outputs.  The defaults are (nnx.Carry, 0) both ways."""
    in_axes = tv.param("in_axes")
    out_axes = tv.param("out_axes")
    axes: tuple[Value, ...]
    if in_axes is None:
        axes = (ExternalV("flax.nnx.Carry"), ConstV(0))
    elif isinstance(in_axes, TupleV):
        axes = in_axes.items
    else:
        return UNKNOWN
    carries = sum(_is_carry(a) for a in axes)
    if kwargs or len(axes) != len(args) or carries > 1:
        return UNKNOWN
    mapped: Args = []
    for a, ax in zip(args, axes):
        if _is_carry(ax) or (isinstance(ax, ConstV) and ax.value is None):
            mapped.append(a)
        elif (axis := int_value(ax)) is not None:
            mapped.append(_drop_axis(a, axis)[0])  # each step sees one slice along the scanned axis
        else:
            mapped.append(UnknownV(a.diff))
    out = interp.call(tv.func, mapped, {}, False, node, fr)
    if not carries:
        return UnknownV(out.diff)  # no carry: a map over the scanned axis (its outputs stacked)
    at = next(i for i, a in enumerate(axes) if _is_carry(a))
    if _is_carry(out_axes):
        carry = join(args[at], out)
        interp.call(tv.func, [*mapped[:at], carry, *mapped[at + 1 :]], {}, False, node, fr)
        return carry
    pair = out_axes is None or (isinstance(out_axes, TupleV) and len(out_axes.items) == 2 and _is_carry(out_axes.items[0]) and int_value(out_axes.items[1]) == 0)
    if pair and isinstance(out, TupleV) and len(out.items) == 2:
        carry = join(args[at], out.items[0])
        interp.call(tv.func, [*mapped[:at], carry, *mapped[at + 1 :]], {}, False, node, fr)
        return TupleV((carry, UnknownV(out.items[1].diff)))
    return UnknownV(out.diff)
