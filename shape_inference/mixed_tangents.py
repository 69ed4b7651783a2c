"""Attention reached by the tangents of two nested differentiations, each through its
own values: a physics-informed loss that takes `jax.grad` of the network with respect to
its input coordinates, inside the `jax.grad` over the parameters that trains it; a
WGAN-GP critic's gradient penalty over interpolated inputs, inside the critic's step
(probe 68c).

The analysis keeps one "differentiated" bit per value, not which transform's tangents a
value carries.  `transforms.second_order` covers the case that bit settles: the inner
transform differentiates only what the outer one does.  Here the inner transform
differentiates its own arguments while the outer one's values (parameters in its
closure, another argument, flax parameters being applied) are differentiated too, so
the bit cannot tell a call reached by both from one reached by either alone.  JAX
raises only for the first: the outer transform then differentiates the cuDNN forward
pass the inner one traced, and that primitive has no differentiation rule.

So the inner function is also run three times aside, the events of those runs dropped:
with the outer transform's values alone differentiated (O), with the inner transform's
arguments alone (I, every other value cleared), and with nothing (a check that clearing
left no differentiated value behind: otherwise nothing is concluded).  An attention call
differentiated in both O and I, at the same place in each run's sequence of calls, is
reached by both."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.context import CallEvent, Ctx
from jax_cudnn_lint.shape_inference.dims import Step
from jax_cudnn_lint.shape_inference.values import BoundMethodV, ExternalV, ExtObjectV, FunctionV, PartialV, TransformV, Value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = Sequence[Value]
Kwargs = dict[str, Value]

# the text of the third step of `Ctx.second_order` when each transform reaches the call
# through its own values (lint_rules.transform_rules words the finding by it)
MIXED = "the values the outer transform differentiates reach the call too"

_OPERANDS = ("query", "key", "value", "bias")


# wrappers that call their function as it is (looked through)
_TRANSPARENT = frozenset(
    {"jax.jit", "jax.checkpoint", "jax.remat", "jax.named_call", "equinox.filter_jit", "equinox.filter_checkpoint", "flax.nnx.jit", "flax.nnx.remat"}
)


def cleared_callable(func: Value, depth: int = 0) -> Value | None:
    """`func` reading no differentiated value of its own: a function's closure and
    defaults, a partial's bound arguments, a bound method's `self` cleared (probe 69a:
    `jax.grad(partial(model, params))`, `jax.grad(model.energy)`), under jit-like
    wrappers; haiku's `net.apply` as it is where its forward function reads none.  None
    for anything else."""
    if depth > 8:
        return None
    while isinstance(func, TransformV) and func.kind in _TRANSPARENT:
        func = func.func
    if isinstance(func, FunctionV):
        closure = tuple({name: value.tainted(False) for name, value in state.items()} for state in func.closure)
        defaults = tuple(d.tainted(False) for d in func.defaults)
        kw_defaults = tuple((k, d.tainted(False)) for k, d in func.kw_defaults)
        return FunctionV(func.node, func.module, closure, defaults, kw_defaults, func.qualname, func.decorators, func.owner)
    if isinstance(func, PartialV):
        inner = cleared_callable(func.func, depth + 1)
        if inner is None:
            return None
        return PartialV(inner, tuple(a.tainted(False) for a in func.args), tuple((k, v.tainted(False)) for k, v in func.kwargs), func.why)
    if isinstance(func, BoundMethodV):
        forward = haiku_forward(func)
        if forward is not None:
            return None if _reads_differentiated(forward) else func
        inner = cleared_callable(func.func, depth + 1)
        return BoundMethodV(inner, func.self_value.tainted(False)) if inner is not None else None
    return None


def haiku_forward(func: Value) -> FunctionV | None:
    """The forward function of haiku's `net.apply` (a `hk.transform` of it, with or
    without state or an rng), whose closure the transformed function reads."""
    if isinstance(func, BoundMethodV) and isinstance(func.func, ExternalV) and func.func.qualname.startswith("haiku.transform") and func.func.qualname.endswith(".apply"):
        held = func.self_value
        if isinstance(held, ExtObjectV) and held.args and isinstance(held.args[0], FunctionV):
            return held.args[0]
    return None


def _reads_differentiated(func: Value, depth: int = 0) -> bool:
    """Does `func` hold a differentiated value of its own (see `cleared_callable`)?"""
    if depth > 8:
        return False
    while isinstance(func, TransformV) and func.kind in _TRANSPARENT:
        func = func.func
    if isinstance(func, FunctionV):
        if any(d.diff for d in func.defaults) or any(d.diff for _, d in func.kw_defaults):
            return True
        return any(value.diff for state in func.closure for value in state.values())
    if isinstance(func, PartialV):
        return any(a.diff for a in func.args) or any(v.diff for _, v in func.kwargs) or _reads_differentiated(func.func, depth + 1)
    if isinstance(func, BoundMethodV):
        forward = haiku_forward(func)
        return _reads_differentiated(forward if forward is not None else func.func, depth + 1) or forward is None and func.self_value.diff
    return False


def outer_values_present(ctx: Ctx, func: Value, args: Args, kwargs: Kwargs, nums: Sequence[int]) -> bool:
    """Does something other than the inner transform's own arguments come in
    differentiated (so that the outer transform's tangents may reach a call inside)?"""
    if ctx.params_diff or any(a.diff for i, a in enumerate(args) if i not in nums) or any(v.diff for v in kwargs.values()):
        return True
    return _reads_differentiated(func)


def call_marking_mixed(
    interp: Interpreter,
    given: Value,
    cleared: Value,
    args: Args,
    kwargs: Kwargs,
    mark: Callable[[int, Value], Value],
    nums: Sequence[int],
    outer: Step,
    inner: Step,
    ctx: Ctx,
    node: ast.AST,
    fr: Frame,
) -> Value:
    """Call `given` under the inner transform (`ctx`) as `transforms.call_transform` does
    (`cleared`: it as `cleared_callable` makes it), with `mark(i, arg)` marking the arguments it
    differentiates; the attention calls
    that the outer transform's values and the inner one's arguments both reach get
    (outer, inner, MIXED) as their `second_order`."""
    clean_args = [a.tainted(False) for a in args]
    clean_kwargs = {k: v.tainted(False) for k, v in kwargs.items()}
    inner_ctx = dataclasses.replace(ctx, params_diff=False, params_diff_why=(), params_tree=None)
    start = len(interp.events)
    interp.aside_runs += 1
    try:
        outer_run = _run(interp, given, list(args), kwargs, ctx, node, fr, start)
        inner_run = _run(interp, cleared, [mark(i, a) if i in nums else a for i, a in enumerate(clean_args)], clean_kwargs, inner_ctx, node, fr, start)
        neither_run = _run(interp, cleared, clean_args, clean_kwargs, inner_ctx, node, fr, start)
    finally:
        interp.aside_runs -= 1
    saved = fr.ctx
    fr.ctx = ctx
    try:
        result = interp.call(given, [mark(i, a) if i in nums else a for i, a in enumerate(args)], kwargs, False, node, fr)
    finally:
        fr.ctx = saved
    real = interp.events[start:]
    places = [id(event.node) for event in real]
    if any([place for place, _ in run] != places for run in (outer_run, inner_run, neither_run)):
        return result  # (the runs took other paths: nothing is known)
    if any(reached for _, reached in neither_run):
        return result  # (clearing left a differentiated value behind: nothing is known)
    both = (outer, inner, Step(inner.path, inner.line, MIXED))
    for i, event in enumerate(real):
        if outer_run[i][1] and inner_run[i][1] and not event.ctx.second_order and event.qualname.endswith("dot_product_attention"):
            interp.events[start + i] = dataclasses.replace(event, ctx=dataclasses.replace(event.ctx, second_order=both))
    return result


def _run(interp: Interpreter, func: Value, args: list[Value], kwargs: Kwargs, ctx: Ctx, node: ast.AST, fr: Frame, start: int) -> list[tuple[int, bool]]:
    """Each watched call of one run aside, in order: where, and whether an operand came
    in differentiated; the run's events are dropped."""
    saved = fr.ctx
    fr.ctx = ctx
    try:
        interp.call(func, args, kwargs, False, node, fr)
        return [(id(event.node), differentiated(event)) for event in interp.events[start:]]
    finally:
        fr.ctx = saved
        del interp.events[start:]


def differentiated(event: CallEvent) -> bool:
    """Does an operand of the attention call come in differentiated?"""
    operands = [*event.args[: len(_OPERANDS)], *(event.kwargs[name] for name in _OPERANDS if name in event.kwargs)]
    return any(value.diff for value in operands)
