"""Turning provenance into words: the `evidence` lines, related locations and the
short "where it came from" phrase of a message."""

from __future__ import annotations

import os

from jax_cudnn_lint.finding import Location
from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.dims import Step, Why


def where(step: Step, here: str) -> str:
    """'line 12' in the same file, 'model.py:12' in another."""
    if step.path == here or not step.path:
        return f"line {step.line}"
    return f"{os.path.basename(step.path)}:{step.line}"


def origin_phrase(why: Why, here: str) -> str:
    """The most telling step of a derivation, for the message: its text and place."""
    if not why:
        return ""
    # the latest arithmetic step ("511 = 512 - 1, slice ...") says most; else the latest
    step = next((s for s in reversed(why) if " = " in s.text), why[-1])
    return f"{step.text} at {where(step, here)}" if step.line else step.text


def evidence_lines(label: str, why: Why, here: str) -> list[str]:
    lines: list[str] = []
    for step in why:
        lines.append(f"{label}: {step.text} ({where(step, here)})" if step.line else f"{label}: {step.text}")
    return lines


def context_lines(event: CallEvent) -> list[str]:
    here = event.module.path
    lines: list[str] = []
    for step in event.ctx.chain:
        lines.append(f"reached: {step.text} ({where(step, here)})")
    for kind, step in event.ctx.transforms:
        lines.append(f"transform: {kind} - {step.text} ({where(step, here)})")
    for step in event.ctx.params_diff_why:
        lines.append(f"differentiated: {step.text} ({where(step, here)})")
    for step in event.via:
        lines.append(f"callee: {step.text} ({where(step, here)})")
    return lines


def related_locations(event: CallEvent, *whys: Why) -> tuple[Location, ...]:
    """Every place in the evidence chain, other files included (for SARIF)."""
    seen: set[tuple[str, int]] = set()
    out: list[Location] = []
    steps: list[Step] = []
    for why in whys:
        steps.extend(why)
    steps.extend(event.ctx.chain)
    steps.extend(s for _, s in event.ctx.transforms)
    steps.extend(event.ctx.params_diff_why)
    steps.extend(event.via)
    for step in steps:
        if not step.line or (step.path, step.line) in seen:
            continue
        if step.path == event.module.path and step.line == event.node.lineno:
            continue
        seen.add((step.path, step.line))
        out.append(Location(step.path or event.module.path, step.line, 0, step.text))
    return tuple(out)
