"""The attention fixtures cannot drift from JAX: each `case_*` is traced with JAX's
cuDNN probes set to sm90 / cuDNN 9.10 (catalog, section 5) and must do what its
`# expect:` comment says: positives raise "Unsupported sequence length", negatives
trace clean.  Runs our own fixture files only, in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from rule_fixtures import case_expectations, config_overrides, traced_fixture_files

pytest.importorskip("jax")

HERE = Path(__file__).parent
TRACED = traced_fixture_files()


def trace(path: Path) -> dict[str, list[str]]:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path.parent), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, str(HERE / "trace_cases.py"), str(path), "sm90", "9.10"],
        capture_output=True, text=True, timeout=600, env=env, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _id(path: Path) -> str:
    return path.name if path.parent.name == "rules" else f"{path.parent.name}/{path.name}"


@pytest.mark.parametrize("path", TRACED, ids=_id)
def test_cases_agree_with_jax(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    wanted = config_overrides(text).get("jax_version")
    if wanted is not None and wanted != metadata.version("jax"):
        pytest.skip(f"its cases are JAX {wanted}'s; this is JAX {metadata.version('jax')}")
    expected = case_expectations(text)
    observed = trace(path)
    wrong = []
    for case, expect in sorted(expected.items()):
        outcome, detail = observed.get(case, ["missing", "case not run"])
        if outcome != expect:
            wrong.append(f"{case}: expected {expect}, JAX gave {outcome} {detail}")
    assert not wrong, "\n".join(wrong)
    undeclared = sorted(set(observed) - set(expected))
    assert not undeclared, f"cases without an `# expect:` comment: {undeclared}"
