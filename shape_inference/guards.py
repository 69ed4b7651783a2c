"""What an `if` the analysis cannot decide reads, for the undecided-guard rule.

A length made from a number that such a test reads is not certain to reach either arm
(`if t in eval_only: forward else: grad`, eval_only unknown): which arm 33 takes is the
question.  The test reads the number by name, or through a value of the program that
carries it: an attribute (`cfg.t`), an item (`lens[i]`, `x.shape[1]`), `len(tokens)`, or
a flag computed from it before (`eval_only = t in EVAL; if eval_only:`) (probe 105a).

Only expressions whose evaluation runs none of the analysed code's calls are read again
(`len` is a builtin's); an attribute may run a property, whose events are dropped."""

from __future__ import annotations

import ast

# an expression an if-test may read the length through, read again for its value
_READ_AGAIN = (ast.Attribute, ast.Subscript, ast.Call)
def is_flag_test(node: ast.expr) -> bool:
    """A comparison, `and`/`or`, or `not`: a value a later `if` may test (not `-n`)."""
    return isinstance(node, (ast.Compare, ast.BoolOp)) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


def _plain(node: ast.expr) -> bool:
    """A name, an attribute or item chain on one (`self.cfg.t`, `lens[i]`, `x.shape[1]`),
    or `len(...)` of one: no call of the analysed code in it."""
    while True:
        if isinstance(node, ast.Name):
            return True
        if isinstance(node, ast.Attribute):
            node = node.value
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if not (isinstance(index, (ast.Constant, ast.Name)) or isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant)):
                return False
            node = node.value
        elif isinstance(node, ast.Call) and _is_len(node):
            node = node.args[0]
        else:
            return False


def _is_len(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords


def test_reads(test: ast.expr) -> tuple[tuple[str, ...], tuple[ast.expr, ...]]:
    """The names a test reads, and the larger plain expressions (attributes, items,
    `len(...)`) whose values it reads: each holds a number the test may decide on."""
    names: set[str] = set()
    larger: list[ast.expr] = []
    for node in ast.walk(test):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, _READ_AGAIN) and (not isinstance(node, ast.Call) or _is_len(node)) and _plain(node):
            larger.append(node)
    return tuple(names), tuple(larger)
