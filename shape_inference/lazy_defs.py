"""Modules reached through imports, parsed without their unused definitions.

Most of what an import reaches is never used: of the ~600 modules the benchmark corpus
loads, top-level functions and classes hold 79 % of the text, and the analysis asks for a
few names of each.  `skeleton` parses a module with every top-level `def` and `class`
(decorators included) blanked out, and puts a `LazyDef` placeholder in the body where each
was; the interpreter binds the name to a value that parses and runs the definition the
first time something looks it up (`Interpreter.materialize`).

Finding top-level statements without a tokenizer: one starts on a line whose first
character is not blank, `#` or a closing bracket.  Such a line can also lie inside a
string or brackets (a false cut).  The skeleton is used only if it parses, no statement of
it spans a blanked piece (a piece inside a string or brackets would be spanned), every
blanked piece has balanced triple quotes (a string that opens in a def and runs past its
piece would not), and no piece says `global` (the analysis needs every function's
`global` names up front).  Otherwise the whole file is parsed, as before.  A placeholder
whose own text does not parse to one definition of its name stays unknown.
"""

from __future__ import annotations

import ast
import bisect
import re

from jax_cudnn_lint.shape_inference import recursion

# A line that may start a top-level statement.
_STATEMENT_LINE = re.compile(r"^(?=[^\s#)\]}])", re.MULTILINE)
# The definition a piece starts with, after its decorators.
_DEFINITION = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+(\w+)")


class LazyDef(ast.stmt):
    """A top-level def or class of a reached module, not parsed yet: its `name`, its
    source `text` and where it starts (`lineno`, 1-based)."""

    _fields = ()
    name: str
    text: str

    def __init__(self, name: str, text: str, lineno: int, end_lineno: int) -> None:
        super().__init__()
        self.name = name
        self.text = text
        self.lineno = lineno
        self.end_lineno = end_lineno
        self.col_offset = 0
        self.end_col_offset = 0

    def parse(self, filename: str) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
        """The definition, with its real line numbers; None unless the text is exactly one
        definition of `name`."""
        try:
            body = recursion.parse("\n" * (self.lineno - 1) + self.text, filename).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if len(body) != 1:
            return None
        node = body[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == self.name:
            return node
        return None


def skeleton(text: str, filename: str) -> ast.Module:
    """The module with its top-level definitions as `LazyDef` placeholders, or the whole
    parse where the cheap cut cannot be trusted.  Raises what `ast.parse` raises."""
    pieces = _definition_pieces(text)
    if not pieces:
        return recursion.parse(text, filename)
    parts: list[str] = []
    placeholders: list[LazyDef] = []
    done = 0
    line = 1
    for start, end, name in pieces:
        line += text.count("\n", done, start)
        piece = text[start:end]
        lines = piece.count("\n")
        parts.append(text[done:start])
        parts.append("\n" * lines)
        placeholders.append(LazyDef(name, piece, line, line + max(lines - 1, 0)))
        line += lines
        done = end
    parts.append(text[done:])
    try:
        tree = recursion.parse("".join(parts), filename)
    except SyntaxError:
        return recursion.parse(text, filename)
    if _spans_a_piece(tree.body, [p.lineno for p in placeholders]):
        return recursion.parse(text, filename)
    tree.body = _merged(tree.body, placeholders)
    return tree


def _definition_pieces(text: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each top-level definition worth blanking, in order."""
    starts = [m.start() for m in _STATEMENT_LINE.finditer(text)]
    starts.append(len(text))
    pieces: list[tuple[int, int, str]] = []
    i = 0
    while i < len(starts) - 1:
        start = starts[i]
        j = i
        while text.startswith("@", starts[j]) and j < len(starts) - 2:
            j += 1  # decorators: the definition is on a later line
        match = _DEFINITION.match(text, starts[j])
        if match is None:
            i = j + 1
            continue
        end = starts[j + 1]
        piece = text[start:end]
        if piece.count('"""') % 2 == 0 and piece.count("'''") % 2 == 0 and "global" not in piece:
            pieces.append((start, end, match.group(1)))
        i = j + 1
    return pieces


def _spans_a_piece(body: list[ast.stmt], piece_lines: list[int]) -> bool:
    """Does a statement of the skeleton run across the first line of a blanked piece?"""
    for stmt in body:
        end = stmt.end_lineno or stmt.lineno
        if end > stmt.lineno:
            k = bisect.bisect_right(piece_lines, stmt.lineno)
            if k < len(piece_lines) and piece_lines[k] <= end:
                return True
    return False


def _merged(body: list[ast.stmt], placeholders: list[LazyDef]) -> list[ast.stmt]:
    """The skeleton's statements and the placeholders, in source order."""
    out: list[ast.stmt] = []
    k = 0
    for stmt in body:
        while k < len(placeholders) and placeholders[k].lineno < stmt.lineno:
            out.append(placeholders[k])
            k += 1
        out.append(stmt)
    out.extend(placeholders[k:])
    return out
