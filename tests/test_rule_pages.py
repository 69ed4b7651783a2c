"""Rule pages (docs/rules/JCDxxx.md) follow ruff's order, and their code is real:
the Example is reported with the page's code and the Use instead block is not; both
blocks are run with JAX (cuDNN probes at sm90 / cuDNN 9.10): Use instead runs clean
and the Example raises (except JCD202, whose hazard needs a training step elsewhere:
its repro is traced by test_finding_repros.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.lint_rules.registry import RULES

PAGES = Path(__file__).resolve().parents[1] / "docs" / "rules"
SECTIONS = ["What it does", "Why is this bad?", "Example", "Use instead", "Known problems", "Confirm mode", "Options", "References"]
ALL_RULES = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")
RUNS_CLEAN_EXAMPLE = {"JCD202", "JCD104"}


def section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no section {title!r}"
    return match.group(1)


def python_block(text: str) -> str:
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match, "no python block"
    return match.group(1)


def jax_is(version: str) -> bool:
    """The installed JAX is this version (a page for another JAX cannot raise here)."""
    from importlib import metadata

    return metadata.version("jax") == version


def run_block(code: str) -> subprocess.CompletedProcess[str]:
    program = textwrap.dedent(
        """
        import sys
        from jax_cudnn_lint.kernels.probes import patched_probes
        from jax_cudnn_lint.kernels.targets import make_target
        with patched_probes(make_target("sm90", "9.10")):
            exec(compile(sys.stdin.read(), "<rule page>", "exec"), {"__name__": "__main__"})
        """
    )
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-c", program], input=code, capture_output=True, text=True, timeout=300, env=env, check=False)


@pytest.mark.parametrize("code", sorted(RULES))
def test_rule_page(code: str) -> None:
    page = PAGES / f"{code}.md"
    assert page.exists(), f"{code} has no rule page"
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# {code} `{RULES[code].name}`"), "title must be '# CODE `name`'"
    titles = re.findall(r"^## (.+)$", text, re.M)
    assert titles == SECTIONS, f"sections must be {SECTIONS}, got {titles}"
    example = python_block(section(text, "Example"))
    fixed = python_block(section(text, "Use instead"))
    # a page for rules gated to older JAX says which version it is judged for
    version = re.search(r"<!-- jax-version: (\S+) -->", text)
    config = ALL_RULES.with_(jax_version=version.group(1)) if version else ALL_RULES
    reported = [f for f in lint_source(example, "example.py", config) if f.code == code]
    assert reported, "the Example is not reported"
    assert not any(f.code == code for f in lint_source(fixed, "fixed.py", config)), "the Use instead block is reported"
    pytest.importorskip("jax")
    clean = run_block(fixed)
    assert clean.returncode == 0, f"Use instead does not run clean:\n{clean.stderr[-3000:]}"
    bad = run_block(example)
    if code in RUNS_CLEAN_EXAMPLE or (version and not jax_is(version.group(1))):
        assert bad.returncode == 0, bad.stderr[-3000:]
    else:
        assert bad.returncode != 0 and "Traceback" in bad.stderr, "the Example does not fail in JAX"
        expect = next((f.repro["expect"] for f in reported if f.repro), None)
        if expect is not None:
            lines = [ln for ln in bad.stderr.splitlines() if ln.startswith(expect["exception"])]
            assert any(re.search(expect["message_regex"], ln) for ln in lines), bad.stderr[-2000:]
