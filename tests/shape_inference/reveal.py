"""`reveal_type(expr)` in a snippet records what the analysis knows of expr there.

The astroid `extract_node` idea on our own interpreter: each test writes real code,
marks the expressions it asks about, and reads back their abstract values.  Values
from analyses without a caller (parameters unknown) and with one are both kept.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from jax_cudnn_lint.shape_inference import analyse
from jax_cudnn_lint.shape_inference.values import ArrayV, ConstV, IntV, TupleV, Value


@dataclass
class Revealed:
    line: int
    value: Value
    generic: bool

    @property
    def shape(self) -> str:
        v = self.value
        if isinstance(v, ArrayV):
            return v.render_shape()
        if isinstance(v, TupleV):
            return "(" + ", ".join(i.dim.render() if isinstance(i, IntV) else "?" for i in v.items) + ")"
        return "?"

    @property
    def dtype(self) -> str | None:
        return self.value.dtype if isinstance(self.value, ArrayV) else None

    @property
    def int(self) -> int | None:
        return self.value.dim.value if isinstance(self.value, IntV) else None

    @property
    def parity(self) -> int | None:
        return self.value.dim.parity() if isinstance(self.value, IntV) else None

    @property
    def const(self) -> object:
        return self.value.value if isinstance(self.value, ConstV) else "<not a constant>"

    @property
    def diff(self) -> bool:
        return self.value.diff

    def why(self, axis: int | None = None) -> list[str]:
        v = self.value
        if isinstance(v, IntV):
            return [s.render() for s in v.dim.why]
        if isinstance(v, ArrayV) and v.shape is not None and axis is not None:
            return [s.render() for s in v.shape[axis].why]
        return [s.render() for s in v.why]


def reveal(source: str, *, files: dict[str, str] | None = None, contextual_only: bool = True) -> list[Revealed]:
    """Analyse `source` (plus other project files) and return every reveal_type() value.

    With `contextual_only`, values from generic analyses of functions that are also
    called in the snippet are dropped, so each reveal reads as the program runs it.
    """
    trees = {"main.py": ast.parse(textwrap.dedent(source))}
    for name, text in (files or {}).items():
        trees[name] = ast.parse(textwrap.dedent(text))
    analysis = analyse(trees, lambda q: q == "builtins.reveal_type", root=None)
    out = [Revealed(e.node.lineno, e.args[0], e.generic) for e in analysis.events if e.args]
    if contextual_only and any(not r.generic for r in out):
        out = [r for r in out if not r.generic]
    return sorted(out, key=lambda r: r.line)


def one(source: str, **kwargs: object) -> Revealed:
    found = reveal(source, **kwargs)  # type: ignore[arg-type]
    assert len(found) == 1, f"expected one reveal, got {[(r.line, r.shape) for r in found]}"
    return found[0]
