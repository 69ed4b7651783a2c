"""What the JCD plugin adds to a flake8 run over real code.  Target: <= 2 %.

    python benchmarks/flake8_overhead.py                 # jax, flax, equinox, optax
    python benchmarks/flake8_overhead.py --packages jax,flax,equinox,optax,dm-haiku --rounds 5

The sources are the corpus (benchmarks/corpus.py; $JCD_CORPUS_DIR).  Both variants run
flake8's default checks (pycodestyle + pyflakes) with ``--isolated --jobs 2``, output to
/dev/null, through the same small driver (benchmarks/common.py, FLAKE8_DRIVER):

* baseline: our entry point is filtered out of flake8's plugin discovery, which is
  exactly flake8 without jax-cudnn-lint installed;
* with plugin: nothing filtered, as users run it.

Why not compare ``--select`` sets: flake8 cannot unload a plugin by option; select and
ignore only filter the report, every installed extension still runs on every file, so
``--select E,W,F`` vs ``--select E,W,F,JCD`` would time the same work.  Why not
uninstall between runs: slow, and it cannot alternate within one invocation.

Runs alternate (baseline, plugin, plugin, baseline, ...) so that drift of the machine
falls on both; the ratio of medians is printed, with every time.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
from pathlib import Path

from common import flake8_cmd, fmt_s, machine_header, median, timed_run
from corpus import corpus_dir, count_lines, package_dir, py_files

DEFAULT_PACKAGES = "jax,flax,equinox,optax"


def plugin_cpu_time(files: list[Path]) -> tuple[float, int]:
    """The plugin's own run() over every file, trees built as flake8 builds them."""
    from jax_cudnn_lint.flake8_plugin import JcdChecker

    total = 0.0
    results = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        lines = text.splitlines(keepends=True)
        start = time.process_time()
        results += len(list(JcdChecker(tree, lines, str(path)).run()))
        total += time.process_time() - start
    return total, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--packages", default=DEFAULT_PACKAGES)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each variant (3)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dir", help="corpus folder")
    args = parser.parse_args(argv)
    root = corpus_dir(args.dir)
    names = [n.strip() for n in args.packages.split(",") if n.strip()]
    files = py_files(names, root)
    n_files, n_lines = count_lines(files)
    targets = [str(package_dir(n, root)) for n in names]
    common = ["--isolated", f"--jobs={args.jobs}", f"--output-file={os.devnull}", *targets]
    print(machine_header())
    print(f"corpus: {', '.join(names)}: {n_files} files, {n_lines:,} lines")

    # The driver really does load/unload the plugin: flake8 --version lists plugins.
    _, with_v = timed_run(flake8_cmd(["--version"], with_plugin=True))
    _, without_v = timed_run(flake8_cmd(["--version"], with_plugin=False))
    if b"jax-cudnn-lint" not in with_v.stdout or b"jax-cudnn-lint" in without_v.stdout:
        print("driver check failed: plugin presence not as expected", file=sys.stderr)
        print(with_v.stdout.decode(), without_v.stdout.decode(), file=sys.stderr)
        return 2
    print(f"flake8 --version (with plugin): {with_v.stdout.decode().strip()}")

    # Warm-up (page cache, bytecode): one untimed run of each variant on the first package.
    warm = ["--isolated", f"--output-file={os.devnull}", targets[0]]
    for with_plugin in (False, True):
        timed_run(flake8_cmd(warm, with_plugin=with_plugin))
    times: dict[bool, list[float]] = {False: [], True: []}
    for r in range(args.rounds):
        order = (False, True) if r % 2 == 0 else (True, False)
        for with_plugin in order:
            elapsed, proc = timed_run(flake8_cmd(common, with_plugin=with_plugin))
            if proc.returncode not in (0, 1) or b"Traceback" in proc.stderr:
                print(proc.stderr.decode(errors="replace")[-3000:], file=sys.stderr)
                return 2
            times[with_plugin].append(elapsed)
            label = "with plugin" if with_plugin else "baseline   "
            print(f"  round {r + 1} {label}: {fmt_s(elapsed)}")
    base, plug = median(times[False]), median(times[True])
    ratio = plug / base
    print(
        f"median baseline {fmt_s(base)}, with plugin {fmt_s(plug)}: ratio {ratio:.3f} "
        f"(overhead {100 * (ratio - 1):+.1f} %; target <= +2 %) "
        f"[{'met' if ratio <= 1.02 else 'NOT met'}]"
    )
    cpu, n_results = plugin_cpu_time(files)
    share = cpu / (base * args.jobs)
    print(
        f"in-process check: the plugin's run() over the same {n_files} files takes {cpu:.2f} s "
        f"CPU ({n_results} results) = {100 * share:.2f} % of the baseline's "
        f"{args.jobs} x {fmt_s(base)} (the plugin's import, once per worker, comes on top)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
