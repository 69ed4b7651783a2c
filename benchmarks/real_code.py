"""Every finding the command reports on the corpus, for benchmarks/REAL_CODE.md.

    python benchmarks/real_code.py                    # every corpus package, one run each
    python benchmarks/real_code.py --whole            # the corpus as one project (as project.py)
    python benchmarks/real_code.py --json out.json    # keep the raw reports

Each package is linted as its own project (``jax-cudnn-lint --no-cache --format json
src/<package>``), since that is how its authors would run it.  Prints per package the
files, findings by code and file errors (JCD900/JCD901), then each finding with its
message and the source line, ready to be judged in REAL_CODE.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from common import machine_header, timed_run
from corpus import corpus_dir


def _source_line(path: Path, line: int) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""
    except OSError:
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dir", help="corpus folder")
    parser.add_argument("--packages", help="comma-separated (default: all fetched)")
    parser.add_argument("--whole", action="store_true", help="one run over the whole corpus")
    parser.add_argument("--json", help="write the raw reports here")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    src = corpus_dir(args.dir) / "src"
    if args.whole:
        targets = [src]
    elif args.packages:
        targets = [src / n.strip() for n in args.packages.split(",")]
    else:
        targets = sorted(p for p in src.iterdir() if p.is_dir())
    print(machine_header())
    reports: dict[str, object] = {}
    all_findings: list[tuple[str, dict[str, object]]] = []
    for target in targets:
        cmd = [
            sys.executable,
            "-m",
            "jax_cudnn_lint",
            "--no-cache",
            f"-j{args.jobs}",
            "--format",
            "json",
            ".",
        ]
        elapsed, proc = timed_run(cmd, cwd=target)
        if b"Traceback" in proc.stderr or proc.returncode == 2:
            print(
                f"{target.name}: exit {proc.returncode}\n"
                f"{proc.stderr.decode(errors='replace')[-3000:]}"
            )
        try:
            report = json.loads(proc.stdout)
        except json.JSONDecodeError:
            print(f"{target.name}: no JSON report (exit {proc.returncode})")
            continue
        reports[target.name] = report
        codes = collections.Counter(str(f["code"]) for f in report["findings"])
        errors = collections.Counter(str(e["code"]) for e in report["errors"])
        print(
            f"{target.name:<18} exit {proc.returncode} {elapsed:6.1f}s "
            f"summary={json.dumps(report.get('summary'), sort_keys=True)} "
            f"findings={dict(codes)} errors={dict(errors)}"
        )
        for e in report["errors"]:
            print(f"    {e['code']} {e['path']}:{e['line']}: {str(e['message'])[:200]}")
        for f in report["findings"]:
            all_findings.append((target.name, f))
    print(f"\n{len(all_findings)} findings:")
    for package, f in all_findings:
        base = src if args.whole else src / package
        path = base / str(f["path"])
        print(f"\n[{package}] {f['path']}:{f['line']}:{f['col']}: {f['code']} {f['message']}")
        print(f"    source: {_source_line(path, int(str(f['line'])))}")
        for step in f.get("evidence") or []:  # type: ignore[union-attr]
            print(f"    evidence: {step}")
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
