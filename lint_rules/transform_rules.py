"""Rules for cuDNN attention under JAX transforms (catalog section 3, FA-19..FA-21).

* JCD208: forward-mode autodiff (`jax.jvp`, `jax.jacfwd`, `jax.hessian`), or reverse
  over reverse, of cuDNN attention.  The cuDNN path is a `custom_vjp`, which has no
  forward-mode rule, and its passes' primitives have no differentiation rule.
* JCD209: `jax.vmap` (or `nnx.vmap`, `eqx.filter_vmap`) over cuDNN attention in the
  ways its batching rules reject: a
  batch axis other than 0 on query/key/value or a bias (FA-19), query batched while key/value are
  not or the reverse (FA-20, JAX <= 0.11.0), a batched bias or mask that broadcasts
  batch or heads (FA-21).

JCD209 judges only what it can see for certain: vmap_batching.py works out which
operands the vmap batches, over which axis, and leaves out what it cannot follow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules import attention_checks as C
from jax_cudnn_lint.lint_rules import versions, vmap_batching
from jax_cudnn_lint.lint_rules.attention_call import AttentionCall, attention_calls
from jax_cudnn_lint.lint_rules.attention_dtype_rules import attention_finding
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.shape_inference import transforms
from jax_cudnn_lint.shape_inference.context import CallEvent, VmapInfo
from jax_cudnn_lint.shape_inference.handlers import caught
from jax_cudnn_lint.shape_inference.values import ConstV, IntV, TupleV, Value

JCD208 = rule(
    "JCD208",
    "cudnn-attention-forward-mode",
    "cuDNN attention under forward-mode autodiff (jvp, jacfwd, hessian) or reverse over reverse: its custom_vjp has no forward-mode rule, its passes no differentiation rule",
    confirmable=False,
)
JCD209 = rule(
    "JCD209",
    "cudnn-attention-vmap",
    "jax.vmap over cuDNN attention in a way its batching rule rejects",
    confirmable=False,
)

# jax.linearize is left out: it fails only once the linear function is applied
FORWARD_MODE = transforms.FORWARD_MODE - {"jax.linearize"}
# Transforms that differentiate in reverse mode (and linearize): with one of them around
# the call, the differentiated values may come from it rather than from the forward-mode
# transform.
REVERSE_MODE = transforms.REVERSE_MODE | {"jax.linearize"}
CUSTOM_VJP_JVP = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
HESSIAN = "Differentiation rule for 'dot_product_attention_fwd_wrapper' not implemented"


# -- JCD208: forward mode ------------------------------------------------------------------------
def _forward_mode(call: AttentionCall) -> tuple[str, int] | None:
    kinds = [kind for kind, _ in call.event.ctx.transforms]
    if any(kind in REVERSE_MODE for kind in kinds):
        return None
    for kind, step in reversed(call.event.ctx.transforms):
        if kind in FORWARD_MODE:
            return kind, step.line
    return None


def _second_order(call: AttentionCall, config: Config) -> Finding:
    outer, inner = call.event.ctx.second_order[:2]
    mixed = len(call.event.ctx.second_order) > 2  # each through its own values (mixed_tangents)
    names = [kind.rsplit(".", 1)[-1] for kind, step in call.event.ctx.transforms if step in (outer, inner)]
    outer_name, inner_name = (names[0], names[-1]) if len(names) >= 2 else ("a differentiating transform", "another")
    note = C.first_note(call, config, C.TRACE_END)
    inner_kind = next((kind for kind, step in call.event.ctx.transforms if step == inner), "")
    # a forward-mode inner transform traced on its own first (a jit, a checkpoint or a
    # control-flow body inside the outer transform) meets the custom_vjp's missing jvp rule
    # instead (probes 58a, 59a: grad of jit of jacfwd, grad of jacfwd of jit, lax.cond)
    alone = f' (TypeError("{CUSTOM_VJP_JVP}") where a jit, checkpoint, lax.cond or loop body lies inside the outer transform)' if inner_kind in transforms.FORWARD_MODE else ""
    version = versions.jax_version(config)
    if call.event.ctx.vmaps and not note and version is not None and version <= versions.NEWEST_RELEASE:
        # a vmap in between batches the forward pass first: where it batches the operands
        # unalike, its rule fails before the outer transform meets the pass (probe 68e)
        vmap_line = call.event.ctx.vmaps[-1].line
        alone += f' (or, where the vmap at line {vmap_line} batches query, key and value unalike, TypeError("cannot reshape ...") from its batching rule first, JAX <= 0.11.0)'
    message = (
        f"cuDNN attention is differentiated twice, by {inner_name} at line {inner.line} inside {outer_name} "
        f"at line {outer.line}, {'each through values of its own that reach it' if mixed else 'through the same values'}: the cuDNN path's forward and backward passes have no "
        f'differentiation rule, so JAX raises NotImplementedError("{HESSIAN}") while tracing{alone}{note}; '
        'use implementation="xla" where second derivatives are needed'
    )
    evidence = [
        f"outer differentiating transform: {outer_name} (line {outer.line})",
        f"inner differentiating transform: {inner_name} (line {inner.line}); "
        + (
            "the arguments it differentiates reach query/key/value/bias, and so do values the outer one differentiates (its closure, other arguments or parameters)"
            if mixed
            else "each argument it differentiates is differentiated by the outer one, and nothing else reaches it differentiated"
        ),
        "differentiated: query/key/value/bias depend on " + ("both" if mixed else "those arguments"),
    ]
    return attention_finding(call, JCD208.code, message, evidence, None)


def _nested_lines(events: list[CallEvent], config: Config) -> set[tuple[str, int]]:
    """The attention lines some path reaches under a forward-mode transform and another
    differentiating one: there the custom_vjp's TypeError or, where the other's tangents
    reach the call too, the passes' NotImplementedError (probe 58a: grad over w of a
    jacfwd over x)."""
    out: set[tuple[str, int]] = set()
    for call in attention_calls(events, config):
        kinds = [kind for kind, _ in call.event.ctx.transforms if kind in transforms.FORWARD_MODE or kind in REVERSE_MODE]
        if len(kinds) > 1 and any(kind in transforms.FORWARD_MODE for kind in kinds):
            out.add((call.event.module.path, call.event.node.lineno))
    return out


def check_jcd208(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    second: list[Finding] = []
    nested = _nested_lines(events, config)
    for call in attention_calls(events, config):
        if not call.is_cudnn or not call.differentiated or call.never_differentiated:
            continue
        if call.api_is_nn and versions.before(config, versions.NN_CUDNN_SINCE):
            continue
        if call.event.ctx.second_order:
            if not C.handled(call, config, "NotImplementedError", C.TRACE_END, differentiation=True):
                second.append(_second_order(call, config))
            continue
        found = _forward_mode(call)
        if found is None:
            continue
        kind, line = found
        name = kind.rsplit(".", 1)[-1]
        if C.handled(call, config, "NotImplementedError" if name in ("hessian", "filter_hessian") else "TypeError", C.TRACE_END, differentiation=True):
            continue
        if name in ("hessian", "filter_hessian"):
            raised = f'NotImplementedError("{HESSIAN}") while tracing ({name} is jacfwd of jacrev)'
        elif name in ("jacfwd", "filter_jacfwd"):
            raised = f'TypeError("{CUSTOM_VJP_JVP}") while tracing'
        else:
            raised = (
                f'TypeError("{CUSTOM_VJP_JVP}") when the jvp is compiled or run '
                "(jax.eval_shape and make_jaxpr trace it without complaint)"
            )
        if (call.event.module.path, call.event.node.lineno) in nested:
            raised += f' (NotImplementedError("{HESSIAN}") where another differentiating transform\'s tangents reach it too)'
        note = C.first_note(call, config, C.TRACE_END)
        message = (
            f"cuDNN attention is differentiated in forward mode by {name} (line {line}): the cuDNN path is a jax.custom_vjp, "
            f"which has no forward-mode rule, so JAX raises {raised}{note}; differentiate in reverse mode "
            "(jax.grad / jax.vjp of a scalar; jax.jacrev maps the backward pass, which vmap's batching rule may reject), or use implementation=\"xla\" "
            "where forward-mode or second derivatives are needed"
        )
        evidence = [f"forward-mode transform: {kind} (line {line})", "differentiated: query/key/value/bias depend on its primals"]
        findings.append(attention_finding(call, JCD208.code, message, evidence, None))
    # a call reached in several contexts is reported once, the first kept: a second-order
    # one first, whose NotImplementedError is raised while tracing where both transforms
    # reach the call (probe 77b: a jvp inside a grad, also analysed without the grad)
    return second + findings


# -- JCD209: vmap ------------------------------------------------------------------------------
@dataclass(frozen=True)
class VmapProblem:
    catalog: str
    raised: str
    why: str
    fix: str

    @property
    def exception(self) -> str:
        return self.raised.split("(", 1)[0]


def vmap_problem(call: AttentionCall, config: Config) -> tuple[VmapProblem, VmapInfo] | None:
    if not call.is_cudnn or not call.event.ctx.vmaps:
        return None
    if call.api_is_nn and versions.before(config, versions.NN_CUDNN_SINCE):
        return None
    info = call.event.ctx.vmaps[-1]
    batching = vmap_batching.batching(call, info)
    if batching is None:
        return None
    qkv = [batching.get(n) for n in ("query", "key", "value")]
    # FA-19: a batch axis other than 0 on query/key/value (4-D per example), or on a 4-D
    # bias that reaches the primitive as it is (a mask is combined into it, which moves
    # the batch axis to the front: clean with a bool mask, traced on 0.10.2)
    bias = batching.get("bias") if C.absent(call.arg("mask")) else None
    for item in (*qkv, bias):
        if item is not None and item.axis not in (None, 0) and item.per_example.rank == 4:
            return VmapProblem(
                "FA-19",
                f'NotImplementedError("Currently only support batch_dim in [0, None], but got dim={item.axis}")',
                f"{item.name} `{item.source}` is mapped over axis {item.axis}",
                f"move the mapped axis to the front (jnp.moveaxis({item.source}, {item.axis}, 0)) and use in_axes=0",
            ), info
    q, k, v = qkv
    if q is None or k is None or v is None:
        return None
    present = [q, k, v]
    if any(item.axis not in (None, 0) for item in present):
        return None
    # FA-20: query batched and key/value not, or the reverse (fixed after 0.11.0)
    batched = {item.name: item.axis is not None for item in present}
    size = info.size.value if info.size is not None else None
    version = versions.jax_version(config)
    if len(set(batched.values())) == 2 and version is not None and version <= versions.NEWEST_RELEASE and size is not None and size > 1:
        mapped = ", ".join(n for n, b in batched.items() if b)
        unmapped = ", ".join(n for n, b in batched.items() if not b)
        return VmapProblem(
            "FA-20",
            'TypeError("cannot reshape array of shape ... into shape ...") from the batching rule',
            f"{mapped} {'is' if ',' not in mapped else 'are'} batched (vmap size {size}) but {unmapped} "
            f"{'is' if ',' not in unmapped else 'are'} not: the rule folds the vmap axis into the query's batch "
            f"and reshapes every operand to it (JAX <= 0.11.0; fixed in JAX 0.11.1, PR #39451)",
            "batch all of query, key and value (jnp.broadcast_to the shared ones) or call attention on the "
            "stacked batch without vmap",
        ), info
    # FA-21: a batched bias/mask whose per-example shape broadcasts batch or heads
    if not all(batched.values()):
        return None
    ops = C.operands(call)
    if ops is None:
        return None
    b0, nq = C.exact(ops.B), C.exact(ops.Nq)
    batches_unbatched = versions.since(config, versions.VMAP_BATCHES_UNBATCHED)
    for name in ("bias", "mask"):
        item = batching.get(name)
        other = call.arg("mask" if name == "bias" else "bias")
        if item is None or not C.absent(other) or b0 is None or nq is None:
            continue
        shape = item.per_example.shape
        if shape is None or len(shape) < 2:
            continue
        lead = [C.exact(d) for d in shape[:-2]]
        if any(d is None for d in lead):
            continue
        if item.axis == 0 and math.prod(d or 0 for d in lead) != b0 * nq:
            unbatched = "pass it unbatched with a batch dimension of 1" if batches_unbatched else "pass it unbatched (in_axes=None)"
            return VmapProblem(
                "FA-21",
                'TypeError("cannot reshape array of shape ... into shape (B*V, N, T, S)") from the batching rule',
                f"the batched {name} `{item.source}` has per-example shape {item.per_example.render_shape()}, which broadcasts "
                f"batch or heads (query batch {b0}, heads {nq}); the rule reshapes a batched {name} to (B*V, N, T, S) without broadcasting",
                f"broadcast the {name} to the full (B, N, T, S) per example (jnp.broadcast_to), or, when it is the same for every example, {unbatched}",
            ), info
        if item.axis is None and batches_unbatched and len(lead) == 2 and lead[0] == b0 > 1 and lead[1] == 1 < nq:
            return VmapProblem(
                "FA-21",
                'TypeError("cannot reshape array of shape (V, B, 1, T, S) into shape (V*B, N, T, S)") from the batching rule',
                f"the unbatched {name} `{item.source}` of shape {item.per_example.render_shape()} has the query's batch {b0} but "
                f"one head (heads {nq}); since JAX 0.11.1 the rule batches it and reshapes it to (B*V, N, T, S) without broadcasting heads",
                f"broadcast the {name} over the heads (jnp.broadcast_to to (B, N, T, S)), or give it a batch dimension of 1 "
                f"when it is the same for every example",
            ), info
    return None


def jacobian_rows_finding(call: AttentionCall, config: Config) -> Finding | None:
    """FA-20 through `jax.jacrev`: its vmapped pullback brings a batched cotangent to the
    backward pass of a call whose query, key and value (residuals) are not batched
    (jacobian_rows.py; fixed after 0.11.0)."""
    rows = call.event.ctx.jacobian_rows
    version = versions.jax_version(config)
    if rows is None or not call.is_cudnn or not call.differentiated or call.never_differentiated or version is None or version > versions.NEWEST_RELEASE:
        return None
    if call.api_is_nn and versions.before(config, versions.NN_CUDNN_SINCE):
        return None
    if call.event.ctx.second_order or _forward_mode(call) is not None:
        return None  # (JCD208: differentiating the forward pass fails first)
    # the backward pass runs after the function returns: only a handler around the
    # jacrev's call catches it, or one that catches an earlier failure of the forward pass
    first = C.first_failure(call, config, C.TRACE_END)
    if caught(rows.handled, "TypeError") or first is not None and caught(call.event.ctx.handled, first.exception):
        return None
    name = rows.kind.rsplit(".", 1)[-1]
    where = f"line {rows.step.line}" if rows.step.path == call.event.module.path else f"{rows.step.path}:{rows.step.line}"
    count = f"{rows.rows} output elements" if rows.rows is not None else "more than one output element"
    message = (
        f"cuDNN attention differentiated by {name} ({where}) of a function with {count}: {name} vmaps the backward pass "
        f"over one cotangent per output element, and the cotangent reaching this call is batched while its query, key and value "
        f"(the forward pass's residuals) are not; the batching rule folds the vmap axis into the batch and reshapes every "
        f"operand to it (JAX <= 0.11.0; fixed in JAX 0.11.1, PR #39451); JAX raises "
        f'TypeError("cannot reshape array of shape ... into shape ...") from the batching rule{C.first_note(call, config, C.TRACE_END)}; '
        f"take jax.grad (or jax.vjp) of each output element in turn, or use implementation=\"xla\" for the Jacobian"
    )
    evidence = [f"reverse-mode Jacobian: {rows.kind} ({where}), {count}", "its output depends on this call's output", "catalog: FA-20"]
    return attention_finding(call, JCD209.code, message, evidence, None)


def check_jcd209(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        found = vmap_problem(call, config)
        if found is None:
            by_rows = jacobian_rows_finding(call, config)
            if by_rows is not None:
                findings.append(by_rows)
            continue
        problem, info = found
        if C.handled(call, config, problem.exception, C.TRACE_END):
            continue
        note = C.first_note(call, config, C.TRACE_END)
        where = f"line {info.line}" if info.path == call.event.module.path else f"{info.path}:{info.line}"  # (the vmap in another file)
        message = (
            f"cuDNN attention under {vmap_batching.VMAPS[info.transform]} ({where}): {problem.why}; JAX raises {problem.raised}{note}; {problem.fix}"
        )
        evidence = [f"vmap: {where}, in_axes {_render_axes(info.in_axes)}", f"catalog: {problem.catalog}"]
        if info.size is not None:
            evidence.append(f"vmap size: {info.size.render()}")
        findings.append(attention_finding(call, JCD209.code, message, evidence, None))
    return findings


def _render_axes(value: Value | None) -> str:
    if value is None:
        return "0 (default)"
    if isinstance(value, IntV):
        return value.dim.render()
    if isinstance(value, ConstV):
        return repr(value.value)
    if isinstance(value, TupleV):
        return "(" + ", ".join(_render_axes(item) for item in value.items) + ")"
    return "?"


CHECKS = (check_jcd208, check_jcd209)
