"""Shared bits of the benchmark scripts: machine header, timing, flake8 with or without JCD.

Benchmarks print ratios against a baseline measured in the same run (CONVENTIONS.md,
habit 12); nothing here asserts a timing.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# flake8 has no option that unloads a plugin: `--select`/`--ignore` only filter what is
# reported, every installed extension still runs on every file.  So the baseline is
# flake8 started through the same driver with our entry point filtered out of plugin
# discovery: the exact state of "jax-cudnn-lint not installed", same interpreter, same
# options, same start-up path.  `drop` names distributions to filter (PyPI names).
FLAKE8_DRIVER = """\
import sys
drop = set(filter(None, sys.argv[1].split(",")))
from flake8.plugins import finder
_find = finder._find_importlib_plugins
finder._find_importlib_plugins = lambda: (p for p in _find() if p.package not in drop)
from flake8.main.cli import main
sys.exit(main(sys.argv[2:]))
"""
PLUGIN_DIST = "jax-cudnn-lint"


def flake8_cmd(args: Sequence[str], *, with_plugin: bool, drop: Sequence[str] = ()) -> list[str]:
    dropped = list(drop) + ([] if with_plugin else [PLUGIN_DIST])
    return [sys.executable, "-c", FLAKE8_DRIVER, ",".join(dropped), *args]


def bench_env(bytecode: bool = True) -> dict[str, str]:
    """The environment benchmark subprocesses run in.

    Users' interpreters cache bytecode; a sandbox that sets PYTHONDONTWRITEBYTECODE makes
    every process compile flake8, pycodestyle, pyflakes and this package from source,
    which is not what anyone's editor pays.  So by default the variable is dropped and
    bytecode goes to a cache folder outside the tree (PYTHONPYCACHEPREFIX); scripts do
    one warm-up run of each variant before timing.  bytecode=False keeps the variable.
    """
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        prefix = Path("~/.cache/jax-cudnn-lint/pycache").expanduser()
        prefix.mkdir(parents=True, exist_ok=True)
        env["PYTHONPYCACHEPREFIX"] = str(prefix)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def machine_header(bytecode: bool = True) -> str:
    try:
        uname = subprocess.run(["uname", "-a"], capture_output=True, text=True, check=False)
        uname_text = uname.stdout.strip()
    except OSError:
        uname_text = platform.platform()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"date: {now}\nmachine: {uname_text}\nnproc: {os.cpu_count()}\n"
        f"python: {sys.version.split()[0]} ({platform.python_implementation()})\n"
        f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n"
        f"bytecode cache: {'on (PYTHONPYCACHEPREFIX, warm-up run first)' if bytecode else 'off'}"
    )


def timed_run(
    cmd: Sequence[str],
    *,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 3600,
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    proc = subprocess.run(
        list(cmd),
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=env if env is not None else bench_env(),
        timeout=timeout,
        check=False,
    )
    return time.perf_counter() - start, proc


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"
