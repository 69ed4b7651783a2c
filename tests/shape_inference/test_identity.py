"""Id-keyed tables must keep their keys alive, and repeated runs must agree.

A table keyed by `id(obj)` that outlives `obj` gives `obj`'s entry to the next object
at the same address.  The README example lost its JCD201 on CI that way: the lazily
parsed `random_batch` of data.py was freed after its first use, another module's
placeholder reused its address, and took its (unknown) value.  Whether an address is
reused depends on everything allocated before, so the regression test runs the example
many times in one process, with different allocations in between.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from jax_cudnn_lint.cli import analyse, build_parser, resolve_options
from jax_cudnn_lint.shape_inference.identity import IdentityTable

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class _Key:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key)

    def __hash__(self) -> int:
        return 0


def test_identity_table_keeps_its_keys_alive() -> None:
    table: IdentityTable[_Key, str] = IdentityTable()
    key = _Key()
    alive = weakref.ref(key)
    table[key] = "first"
    del key
    gc.collect()
    kept = alive()
    assert kept is not None
    assert table.get(kept) == "first"


def test_identity_table_is_by_identity_not_equality() -> None:
    table: IdentityTable[_Key, str] = IdentityTable()
    first, second = _Key(), _Key()
    table[first] = "first"
    assert first == second
    assert second not in table and table.get(second) is None
    table[second] = "second"
    assert (table.get(first), table.get(second), len(table)) == ("first", "second", 2)


def test_the_readme_example_gives_the_same_findings_on_every_run_in_one_process() -> None:
    ballast: list[object] = []
    seen: set[tuple[str, ...]] = set()
    for run in range(40):
        ballast.append([object() for _ in range(run * 7)])
        ballast.append({i: str(i) for i in range(run)})
        options = resolve_options(build_parser().parse_args(["--no-cache", "-j1", str(EXAMPLES)]))
        seen.add(tuple(sorted(f"{Path(f.path).name}:{f.code}" for f in analyse(options).findings)))
    assert seen == {("model.py:JCD201", "test_encoder.py:JCD101")}
