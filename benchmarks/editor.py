"""The editor path: one attention-model file through ``flake8 -`` (stdin).  Target: < 50 ms.

    python benchmarks/editor.py                          # flax/linen/attention.py of the corpus
    python benchmarks/editor.py --file path/to/model.py --runs 30

Editors (and pre-commit on one changed file) start flake8 once per buffer and pipe it
in: the cost users feel is the whole process, plugin import included.  Both variants
run ``flake8 --isolated --stdin-display-name FILE -`` through the same driver
(benchmarks/common.py); the baseline filters our entry point out of plugin discovery
(flake8 cannot unload a plugin by option).  Runs alternate; medians are printed with
their difference.

Also printed: the import of the plugin module (the gate) and of the analysis it loads
when the first file passes the gate, each in a fresh interpreter that has flake8
loaded already; and, in this process, the plugin's own ``run()`` on the file (tree
already parsed, as flake8 hands it over).  These split the difference into "import"
and "analysis"; what is left is flake8's plugin discovery and process noise.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import time
from pathlib import Path

from common import bench_env, flake8_cmd, machine_header, median, timed_run
from corpus import corpus_dir, package_dir

# A typical model file: real attention code that passes the gate (so the analysis runs).
DEFAULT_FILE = ("flax", "flax/linen/attention.py")


# What flake8 has imported before any plugin runs: the split measures only our part.
_FLAKE8_PRELOAD = "import flake8.main.application, flake8.checker, pyflakes.checker, pycodestyle"


def _plugin_import_time(runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Medians, in a fresh interpreter with flake8 loaded: (plugin module with the gate,
    the analysis it loads for the first file that passes the gate)."""
    code = (
        f"{_FLAKE8_PRELOAD}; import time; t = time.perf_counter(); "
        "import jax_cudnn_lint.flake8_plugin; t1 = time.perf_counter(); "
        "import jax_cudnn_lint.engine; print(t1 - t, time.perf_counter() - t1)"
    )
    plugin, analysis = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        )
        first, second = out.stdout.split()
        plugin.append(float(first))
        analysis.append(float(second))
    return median(plugin), median(analysis)


def _plugin_run_time(text: str, name: str, runs: int) -> tuple[float, int]:
    from jax_cudnn_lint.flake8_plugin import JcdChecker

    lines = text.splitlines(keepends=True)
    values = []
    results: list[object] = []
    for _ in range(runs):
        tree = ast.parse(text)
        start = time.perf_counter()
        results = list(JcdChecker(tree, lines, name).run())
        values.append(time.perf_counter() - start)
    return median(values), len(results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--file", help="the file to pipe in (default: corpus flax attention.py)")
    parser.add_argument("--runs", type=int, default=21, help="runs of each variant (21)")
    parser.add_argument("--dir", help="corpus folder")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="no .pyc cache (every start compiles)"
    )
    args = parser.parse_args(argv)
    env = bench_env(not args.no_bytecode)
    if args.file:
        path = Path(args.file)
    else:
        path = package_dir(DEFAULT_FILE[0], corpus_dir(args.dir)) / DEFAULT_FILE[1]
    data = path.read_bytes()
    text = data.decode("utf-8")
    from jax_cudnn_lint.engine import might_matter

    print(machine_header(not args.no_bytecode))
    print(
        f"file: {path} ({text.count(chr(10))} lines, gate: "
        f"{'passes' if might_matter(text) else 'stops it'})"
    )
    flake_args = ["--isolated", "--stdin-display-name", path.name, "-"]
    times: dict[bool, list[float]] = {False: [], True: []}
    outputs: dict[bool, bytes] = {}
    for with_plugin in (False, True):  # warm-up: writes the bytecode cache
        timed_run(flake8_cmd(flake_args, with_plugin=with_plugin), stdin=data, env=env)
    for r in range(args.runs):
        order = (False, True) if r % 2 == 0 else (True, False)
        for with_plugin in order:
            elapsed, proc = timed_run(
                flake8_cmd(flake_args, with_plugin=with_plugin), stdin=data, env=env
            )
            if b"Traceback" in proc.stderr:
                print(proc.stderr.decode(errors="replace"), file=sys.stderr)
                return 2
            times[with_plugin].append(elapsed)
            outputs[with_plugin] = proc.stdout
    base, plug = median(times[False]), median(times[True])
    jcd_lines = [ln for ln in outputs[True].decode().splitlines() if " JCD" in ln]
    print(
        f"flake8 - (stdin), median of {args.runs}: baseline {base * 1000:.0f} ms, "
        f"with plugin {plug * 1000:.0f} ms: adds {1000 * (plug - base):+.0f} ms "
        f"(ratio {plug / base:.3f}; target < 50 ms) "
        f"[{'met' if plug - base < 0.050 else 'NOT met'}]"
    )
    print(f"  JCD lines reported: {len(jcd_lines)}")
    imp, analysis_imp = _plugin_import_time(min(args.runs, 11), env)
    run_t, n = _plugin_run_time(text, path.name, args.runs)
    print(
        f"  split (medians, fresh interpreter with flake8 loaded): plugin import {imp * 1000:.0f} ms, "
        f"analysis import on the first gated file {analysis_imp * 1000:.0f} ms, "
        f"plugin run() {run_t * 1000:.1f} ms ({n} results)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
