"""Attention whose backward pass `jax.jacrev` maps over the rows of a Jacobian.

`jax.jacrev(f)` runs f forward once, then vmaps its pullback over one cotangent per
output element.  Under that vmap the cuDNN backward primitive meets a batched cotangent
and unbatched residuals (the query, key and value of the forward pass), and up to JAX
0.11.0 its batching rule reshapes every operand to the batched size: `TypeError: cannot
reshape array ...` (catalog FA-20; traced on 0.10.2: a loss vector of 2, an MGDA step).
It fails only where the cotangent reaching the attention is batched, that is where f has
more than one output element and the attention's output reaches them through values
that carry tangents (not only an aux output, not behind `stop_gradient`).

The analysis keeps one "differentiated" bit per value, so the second condition is read
from runs aside, their events dropped: f with every value cleared and the output of one
attention call site marked differentiated (does the mark reach f's result?), and f with
nothing marked (a check that clearing left no differentiated value behind).  The calls
at a site the mark reaches get `Ctx.jacobian_rows`; JCD209 judges them."""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import mixed_tangents
from jax_cudnn_lint.shape_inference.context import Ctx, JacobianRows
from jax_cudnn_lint.shape_inference.dims import Step
from jax_cudnn_lint.shape_inference.values import ArrayV, DictV, FloatV, IntV, TupleV, Value, contains_diff

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = Sequence[Value]
Kwargs = dict[str, Value]

# the reverse-mode Jacobians (jax.hessian is jacfwd of jacrev: JCD208's)
JACREV = frozenset({"jax.jacrev", "jax.jacobian", "equinox.filter_jacrev"})
_MAX_SITES = 4  # attention call sites judged per Jacobian (each one run aside)


def output_size(value: Value, depth: int = 0) -> tuple[int, bool] | None:
    """(elements known, all known) of a function's result, a pytree of arrays and
    numbers; None where a leaf is neither."""
    if depth > 8:
        return None
    if isinstance(value, ArrayV):
        if value.shape is None or any(d.value is None for d in value.shape):
            return 0, False
        return math.prod(d.value or 0 for d in value.shape), True
    if isinstance(value, (IntV, FloatV)):
        return 1, True
    if isinstance(value, (TupleV, DictV)):
        items = value.items if isinstance(value, TupleV) else [v for _, v in value.items]
        total, exact = 0, True
        for item in items:
            found = output_size(item, depth + 1)
            if found is None:
                return None
            total, exact = total + found[0], exact and found[1]
        return total, exact
    return None


def _output(result: Value, has_aux: bool) -> Value | None:
    if not has_aux:
        return result
    return result.items[0] if isinstance(result, TupleV) and len(result.items) == 2 else None


def mark_rows(interp: Interpreter, kind: str, has_aux: bool | None, func: Value, args: Args, kwargs: Kwargs, result: Value, start: int, step: Step, node: ast.AST, fr: Frame) -> None:
    """After `func` ran under the Jacobian `kind` (its events from `start` on), give the
    attention calls whose output reaches more than one output element the rows."""
    if kind not in JACREV or has_aux is None or interp.aside_runs:
        return
    output = _output(result, has_aux)
    size = output_size(output) if output is not None else None
    if size is None or size[0] <= 1:
        return
    real = interp.events[start:]
    sites = list(dict.fromkeys(id(e.node) for e in real if e.qualname.endswith("dot_product_attention") and mixed_tangents.differentiated(e)))
    cleared = mixed_tangents.cleared_callable(func)
    if not sites or len(sites) > _MAX_SITES or cleared is None:
        return
    clean_args = [a.tainted(False) for a in args]
    clean_kwargs = {k: v.tainted(False) for k, v in kwargs.items()}
    ctx = dataclasses.replace(fr.ctx, params_diff=False, params_diff_why=(), params_tree=None)
    places = [id(e.node) for e in real]

    def reaches(site: int | None) -> bool | None:
        """Does the output of the calls at `site` reach the result (None: the run aside
        took another path)?"""
        interp.aside_runs += 1
        interp.marked_site = site
        saved = fr.ctx
        fr.ctx = ctx
        mark = len(interp.events)
        try:
            out = _output(interp.call(cleared, clean_args, clean_kwargs, False, node, fr), has_aux)
            if [id(e.node) for e in interp.events[mark:]] != places:
                return None
            return out is not None and contains_diff(out)
        finally:
            fr.ctx = saved
            del interp.events[mark:]
            interp.marked_site = None
            interp.aside_runs -= 1

    if reaches(None) is not False:
        return  # (clearing left a differentiated value behind, or the paths differ)
    rows = JacobianRows(kind, step, size[0] if size[1] else None, fr.ctx.handled)
    for site in sites:
        if reaches(site):
            for i, event in enumerate(real):
                if id(event.node) == site:
                    interp.events[start + i] = dataclasses.replace(event, ctx=_with_rows(event.ctx, rows))


def _with_rows(ctx: Ctx, rows: JacobianRows) -> Ctx:
    return dataclasses.replace(ctx, jacobian_rows=rows)
