"""Long fuzz run: the strategies of tests/test_fuzz.py with many more examples.

    python benchmarks/fuzz.py                      # 5000 examples, split over the strategies
    python benchmarks/fuzz.py --examples 20000 --strategy jax
    python benchmarks/fuzz.py --seed 123           # reproducible run

Each strategy runs with fresh random seeds (CI runs a fixed, derandomised ~200).  For
every program the engine (``lint_source``) and the flake8 plugin class are checked
against the contract in tests/test_fuzz.py.  Internal errors are raised, not swallowed
(JCD_RAISE_INTERNAL_ERRORS=1).  Prints, per strategy: examples run, how many parsed,
how many passed the gate, how many gave findings (by code), and the first failure
(shrunk program and traceback) if any.  Exit status 1 if any strategy failed.
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib.util
import os
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

os.environ["JCD_RAISE_INTERNAL_ERRORS"] = "1"
# hypothesmith compiles what it generates: `1()` and friends warn on every example.
warnings.filterwarnings("ignore", category=SyntaxWarning)

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from jax_cudnn_lint import engine

REPO = Path(__file__).resolve().parent.parent


def _load_fuzz_module() -> Any:
    path = REPO / "tests" / "test_fuzz.py"
    spec = importlib.util.spec_from_file_location("jcd_test_fuzz", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _strategies(tf: Any) -> dict[str, tuple[st.SearchStrategy[str], float]]:
    import hypothesmith

    # name -> (strategy, share of the examples); from_node is ~0.2 s an example.
    return {
        "grammar": (tf.GRAMMAR, 0.25),
        "node": (hypothesmith.from_node(), 0.10),
        "spliced": (tf.spliced_programs(), 0.30),
        "jax": (tf.jax_programs(), 0.35),
    }


def run_one(
    name: str, strategy: st.SearchStrategy[str], n: int, tf: Any, run_seed: int | None
) -> tuple[dict[str, Any], str | None]:
    stats: dict[str, Any] = {"examples": 0, "parsed": 0, "gated": 0, "with_findings": 0}
    codes: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
        database=None,
        derandomize=False,
        print_blob=True,
    )
    @given(strategy)
    def prop(text: str) -> None:
        stats["examples"] += 1
        try:
            ast.parse(text)
            stats["parsed"] += 1
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
        if engine.might_matter(text):
            stats["gated"] += 1
        findings = tf.check_engine(text)
        tf.check_plugin(text)
        if findings:
            stats["with_findings"] += 1
            codes.update(f.code for f in findings)

    if run_seed is not None:
        prop = seed(run_seed)(prop)
    failure = None
    try:
        prop()
    except Exception:  # noqa: BLE001 - report it, go on with the next strategy
        failure = traceback.format_exc()
    stats["codes"] = dict(codes)
    return stats, failure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5000, help="total examples (5000)")
    parser.add_argument(
        "--strategy", action="append", choices=["grammar", "node", "spliced", "jax"]
    )
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    tf = _load_fuzz_module()
    from common import machine_header

    print(machine_header())
    strategies = _strategies(tf)
    chosen = args.strategy or list(strategies)
    total_share = sum(strategies[name][1] for name in chosen)
    failed = False
    grand = 0
    for name in chosen:
        strategy, share = strategies[name]
        n = max(1, round(args.examples * share / total_share))
        start = time.perf_counter()
        stats, failure = run_one(name, strategy, n, tf, args.seed)
        elapsed = time.perf_counter() - start
        grand += stats["examples"]
        print(
            f"{name:8} examples={stats['examples']:6} parsed={stats['parsed']:6} "
            f"gated={stats['gated']:6} with_findings={stats['with_findings']:5} "
            f"codes={stats['codes']} time={elapsed:.1f}s "
            f"{'FAILED' if failure else 'ok'}"
        )
        if failure:
            failed = True
            print(failure, file=sys.stderr)
    print(f"total examples: {grand}; {'FAILURES (see stderr)' if failed else 'no failure'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
