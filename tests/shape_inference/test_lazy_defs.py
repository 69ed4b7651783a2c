"""Reached modules parsed lazily (lazy_defs.py): the skeleton, once every placeholder is
parsed, is the module's own tree, and every cut it cannot trust falls back to a full parse."""

from __future__ import annotations

import ast
import subprocess
import textwrap
from pathlib import Path

import pytest

from jax_cudnn_lint.shape_inference.lazy_defs import LazyDef, skeleton

REPO = Path(__file__).resolve().parents[2]


def _filled(tree: ast.Module, filename: str = "<test>") -> ast.Module:
    """The skeleton with each placeholder replaced by its parse (as materialize does)."""
    body: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, LazyDef):
            node = stmt.parse(filename)
            assert node is not None, stmt.name
            body.append(node)
        else:
            body.append(stmt)
    return ast.Module(body=body, type_ignores=tree.type_ignores)


def _same_as_full_parse(text: str) -> bool:
    full = ast.dump(ast.parse(text), include_attributes=True)
    return ast.dump(_filled(skeleton(text, "<test>")), include_attributes=True) == full


def _placeholders(text: str) -> list[tuple[str, int]]:
    return [(s.name, s.lineno) for s in skeleton(text, "<test>").body if isinstance(s, LazyDef)]


MODULE = textwrap.dedent(
    '''\
    """A module docstring."""
    import jax

    N = 8


    @jax.jit
    @functools.partial(
        jax.vmap, in_axes=0
    )
    def f(x):
        """Doc."""
        return x  # a comment
    # a comment at column 0 inside the piece's tail

    f = jax.jit(f)


    class Model(nn.Module):
        features: int = N

        def __call__(self, x):
            return (
                x
    )


    async def g():
        pass
    if N:
        def h():
            pass
    else:
        h = None
    try:
        import numpy
    except ImportError:
        numpy = None
    '''
)


def test_definitions_become_placeholders_with_their_lines() -> None:
    full = ast.parse(MODULE).body
    # a decorated definition's placeholder starts at its first decorator
    assert _placeholders(MODULE) == [("f", 7), ("Model", full[5].lineno), ("g", full[6].lineno)]
    tree = skeleton(MODULE, "<test>")
    kinds = [type(s).__name__ for s in tree.body]
    assert kinds == ["Expr", "Import", "Assign", "LazyDef", "Assign", "LazyDef", "LazyDef", "If", "Try"]
    assert [s.lineno for s in tree.body if not isinstance(s, LazyDef)] == [
        s.lineno for i, s in enumerate(full) if i not in (3, 5, 6)
    ]


def test_placeholders_parse_to_the_module_s_own_tree() -> None:
    assert _same_as_full_parse(MODULE)
    node = next(s for s in skeleton(MODULE, "<test>").body if isinstance(s, LazyDef) and s.name == "Model")
    parsed = node.parse("<test>")
    assert isinstance(parsed, ast.ClassDef) and parsed.lineno == 19 and parsed.body[1].lineno == 22


@pytest.mark.parametrize(
    ("text", "lazy"),
    [
        # a column-0 def inside a module-level string: the string spans the piece
        ('USAGE = """\ndef run():\n    pass\n"""\n\ndef real():\n    pass\n', []),
        # a string in a function body whose lines start at column 0: the piece of the
        # def that opens it is not blanked (odd triple quotes); `after` still is
        ('def template():\n    return """\nimport os\nx = 1\n"""\n\ndef after():\n    pass\n', [("after", 7)]),
        # a call whose arguments continue at column 0: the skeleton does not parse
        ("def f():\n    x = g(\na, b)\n    return x\n\ndef k():\n    pass\n", []),
        # a docstring with a column-0 line that says def: odd triple quotes in both pieces
        ('def f():\n    """Use it as:\ndef g(): ...\n"""\n    return 1\n', []),
    ],
)
def test_untrusted_cuts_are_not_blanked(text: str, lazy: list[tuple[str, int]]) -> None:
    assert _placeholders(text) == lazy
    assert _same_as_full_parse(text)


def test_functions_that_declare_globals_are_parsed_up_front() -> None:
    text = "COUNT = 0\n\ndef bump():\n    global COUNT\n    COUNT += 1\n\ndef other():\n    pass\n"
    assert _placeholders(text) == [("other", 7)]


def test_a_placeholder_that_is_not_one_definition_of_its_name_stays_unknown() -> None:
    assert LazyDef("f", "def g():\n    pass\n", 1, 2).parse("<test>") is None
    assert LazyDef("f", "def f(:\n", 1, 1).parse("<test>") is None
    assert LazyDef("f", "def f():\n    pass\nx = 1\n", 1, 3).parse("<test>") is None


def test_syntax_errors_are_raised_as_by_a_full_parse() -> None:
    with pytest.raises(SyntaxError):
        skeleton("x = (\n\ndef f():\n    pass\n", "<test>")


def test_the_repository_s_own_files_round_trip() -> None:
    """Every Python file of this repository (and the standard library's ast, subprocess
    and textwrap modules): skeleton + placeholders == ast.parse."""
    files = sorted(REPO.glob("**/*.py"))
    files += [Path(ast.__file__), Path(subprocess.__file__), Path(textwrap.__file__)]
    checked = 0
    for path in files:
        if ".venv" in path.parts or "build" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        assert _same_as_full_parse(text), path
        checked += 1
    assert checked > 50
