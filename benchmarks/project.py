"""The command over a whole corpus against ruff's cheapest check.  Target: ratio <= 1.0.

    python benchmarks/project.py                  # the whole corpus (> 3 M lines)
    python benchmarks/project.py --packages jax,flax --rounds 5

Alternating runs, in one invocation, of

* ``jax-cudnn-lint --no-cache -j2 --format json CORPUS`` (the command: discovery, read and
  gate every file, whole-project analysis of the gated set), and
* ``ruff check --select E9 --no-cache --exit-zero CORPUS`` (read and parse every file:
  the floor for "a tool that looks at every Python file"; ruff uses every core, as the
  command does with -j2 on this 2-core machine),

then the ratio of medians.  The command's JSON summary gives its file counts, findings
and file errors, printed once so a reader can see both tools looked at the same files.

With ``--packages`` the named packages are passed as separate paths of one run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys

from common import fmt_s, machine_header, median, timed_run
from corpus import corpus_dir, count_lines, package_dir, py_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--packages", help="comma-separated (default: the whole corpus)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dir", help="corpus folder")
    args = parser.parse_args(argv)
    root = corpus_dir(args.dir)
    names = [n.strip() for n in args.packages.split(",")] if args.packages else None
    files = py_files(names, root)
    n_files, n_lines = count_lines(files)
    targets = [str(package_dir(n, root)) for n in names] if names else [str(root / "src")]
    ruff = shutil.which("ruff")
    if ruff is None:
        print("ruff is not installed (pip install ruff)", file=sys.stderr)
        return 2
    jcd = [
        sys.executable,
        "-m",
        "jax_cudnn_lint",
        "--no-cache",
        f"-j{args.jobs}",
        "--format",
        "json",
        *targets,
    ]
    base = [ruff, "check", "--select", "E9", "--no-cache", "--exit-zero", "--quiet", *targets]
    print(machine_header())
    print(
        f"corpus: {', '.join(names) if names else 'all of ' + str(root / 'src')}: "
        f"{n_files} files, {n_lines:,} lines"
    )
    _, proc = timed_run([ruff, "--version"])
    print(f"ruff: {proc.stdout.decode().strip()}")
    # Warm-up on a small package: writes the bytecode cache of the command's modules.
    warm = package_dir(names[0], root) if names else min((root / "src").iterdir())
    timed_run([*jcd[: jcd.index("json") + 1], str(warm)])
    times: dict[str, list[float]] = {"ruff": [], "jcd": []}
    summary = None
    for r in range(args.rounds):
        order = ("ruff", "jcd") if r % 2 == 0 else ("jcd", "ruff")
        for which in order:
            elapsed, proc = timed_run(jcd if which == "jcd" else base)
            if which == "jcd":
                if proc.returncode == 2 or b"Traceback" in proc.stderr:
                    print(proc.stderr.decode(errors="replace")[-4000:], file=sys.stderr)
                    return 2
                summary = json.loads(proc.stdout).get("summary")
            times[which].append(elapsed)
            print(f"  round {r + 1} {which:<4}: {fmt_s(elapsed)}")
    b, j = median(times["ruff"]), median(times["jcd"])
    print(f"jax-cudnn-lint summary: {json.dumps(summary, sort_keys=True)}")
    print(
        f"median ruff --select E9 {fmt_s(b)}, jax-cudnn-lint {fmt_s(j)}: ratio {j / b:.2f} "
        f"(target <= 1.0) [{'met' if j / b <= 1.0 else 'NOT met'}]; "
        f"jax-cudnn-lint {n_lines / j / 1000:,.0f} klines/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
