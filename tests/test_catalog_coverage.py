"""Every row of the cuDNN preconditions catalog is accounted for: a registered rule
reports it, or a written reason says why no rule does (environment only, not static,
not modelled yet).

The catalog lives outside the repository (`../shared/jax-cudnn-catalog.md`, read-only
in CI).  When it is there its row ids are parsed and must match this table exactly;
when it is not, the table's own ids stand in for it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jax_cudnn_lint.lint_rules import analysis  # noqa: F401 - registers every rule
from jax_cudnn_lint.lint_rules.registry import RULES

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "jax-cudnn-catalog.md"
PAGES = ROOT / "docs" / "rules"

ENVIRONMENT = "environment"

# catalog id -> the rule codes that report it, or the reason no rule does
COVERAGE: dict[str, tuple[str, ...] | str] = {
    # 1a. jax.nn.dot_product_attention
    "NN-1": "not yet a rule: a misspelt `implementation` raises ValueError on every host at the first call, so any CPU test run shows it",
    "NN-2": ("JCD212",),  # the mask dtype; the other NN-2 checks are named in notes when they fire first
    "NN-3": ("JCD206",),
    "NN-4": "not reported on its own: raises on every host (any CPU test shows it); the attention rules name it when it fires first",
    "NN-5": ("JCD207",),
    "NN-6": ("JCD211",),
    # 1b. fused_attention_stablehlo
    "FA-1": "environment only: a host without a CUDA jaxlib, not a property of the code",
    "FA-2": ("JCD213",),
    "FA-3": ("JCD210",),
    "FA-4a": ("JCD213",),
    "FA-4b": ("JCD213",),
    "FA-4c": ("JCD213",),
    "FA-5": ("JCD203",),
    "FA-6": "not yet a rule: bias and mask that do not broadcast together (a TypeError from jnp broadcasting)",
    "FA-7": ("JCD213",),
    "FA-8": ("JCD203",),
    "FA-9": ("JCD213",),
    "FA-10": ("JCD205",),
    "FA-11": "not yet a rule: from jax.nn NN-2 fires first; the private API's q_seqlen/kv_seqlen/offset dtype and rank",
    "FA-12": "not yet a rule: paged_attention is not a watched API",
    "FA-13": ("JCD210",),
    "FA-14": ("JCD204",),
    "FA-15": ("JCD201", "JCD202"),
    "FA-16": ("JCD210",),
    "FA-17": ("JCD210",),
    "FA-18": ("JCD210",),
    "FA-19": ("JCD209",),
    "FA-20": ("JCD209",),
    "FA-21": ("JCD209",),
    "FA-22": "not yet a rule: fp8 (private API only) under vmap",
    "FA-23": "not static here: needs literal PartitionSpecs, the mesh and the jit shardings, which the analysis does not model",
    "FA-24a": "environment only: lowering for a non-CUDA platform",
    "FA-24b": ("JCD203",),
    "FA-25": "historical: Ampere and cuDNN 8.9.4 gates of JAX 0.4.31-0.4.37, before the targets the rules model",
    # 1c. jax.experimental.rnn
    "RNN-1": ("JCD101",),
    "RNN-2": ("JCD102",),
    "RNN-3": ("JCD103",),
    "RNN-4": "environment only: rnn.lstm on a host without a CUDA/ROCm jaxlib",
    "RNN-5": "not yet a rule: x dtypes other than float32 fail at GPU lowering (read from the code, not verified on a GPU)",
    "RNN-6": ("JCD104",),
    "RNN-7": "not static as a failure: JAX does not check the LSTM shape contract; what cuDNN does with a mismatch at run time is unverified",
}

# rules that come from the catalog's prose rather than a row
FROM_SECTIONS = {
    "JCD208": "section 3: forward-mode AD (jvp, jacfwd) of the custom_vjp cuDNN path always fails",
}

_ROW = re.compile(r"^\|\s*((?:NN|FA|RNN)-\d+[a-z]?)\b[^|]*\|")


def catalog_rows(text: str) -> dict[str, str]:
    """id -> the row's `static?` cell."""
    rows: dict[str, str] = {}
    static_col: int | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            static_col = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if "static?" in cells:
            static_col = cells.index("static?")
            continue
        match = _ROW.match(line)
        if match and static_col is not None and static_col < len(cells):
            rows[match.group(1)] = cells[static_col]
    return rows


def catalog_ids() -> dict[str, str | None]:
    if CATALOG.exists():
        return dict(catalog_rows(CATALOG.read_text(encoding="utf-8")))
    return {key: None for key in COVERAGE}


def test_every_catalog_row_is_accounted_for() -> None:
    ids = catalog_ids()
    missing = sorted(set(ids) - set(COVERAGE))
    stale = sorted(set(COVERAGE) - set(ids))
    assert not missing, f"catalog rows without a rule or a reason: {missing}"
    assert not stale, f"rows in this table but not in the catalog: {stale}"


@pytest.mark.parametrize("row", sorted(COVERAGE))
def test_row_has_a_registered_rule_or_a_reason(row: str) -> None:
    entry = COVERAGE[row]
    if isinstance(entry, str):
        assert len(entry) > 20, f"{row}: say why no rule reports it"
        static = catalog_ids().get(row)
        if static is not None:
            environment = static.lower().startswith(ENVIRONMENT)
            assert environment == entry.startswith(ENVIRONMENT), f"{row}: the catalog says static? = {static!r}"
        return
    for code in entry:
        assert code in RULES, f"{row}: {code} is not a registered rule"
    page = PAGES / f"{entry[0]}.md"
    assert page.exists(), f"{entry[0]} has no rule page"
    assert re.search(rf"\b{re.escape(row)}\b", page.read_text(encoding="utf-8"), re.IGNORECASE), f"{page.name} does not cite catalog {row}"


def test_every_rule_traces_to_the_catalog() -> None:
    covered = {code for entry in COVERAGE.values() if not isinstance(entry, str) for code in entry} | set(FROM_SECTIONS)
    assert set(RULES) <= covered, f"rules no catalog row leads to: {sorted(set(RULES) - covered)}"


def test_section_rules_cite_their_section() -> None:
    for code, where in FROM_SECTIONS.items():
        assert code in RULES
        section = where.split(":", 1)[0]
        assert section in (PAGES / f"{code}.md").read_text(encoding="utf-8").lower(), f"{code}.md does not cite catalog {section}"


def test_parser_reads_the_static_column() -> None:
    sample = """\
| id | condition | message | exception | static? | where |
|---|---|---|---|---|---|
| FA-1 | no CUDA | `cuDNN is not detected.` | RuntimeError | environment only | CPU |
| NN-6 (removed) | bias grad | ... | ValueError | yes, given AD context | host |

| id | API | condition | message | exception | static? |
|---|---|---|---|---|---|
| RNN-2 | lstm | dtype | ... | NotImplementedError | yes (x64 caveat) |
"""
    assert catalog_rows(sample) == {"FA-1": "environment only", "NN-6": "yes, given AD context", "RNN-2": "yes (x64 caveat)"}
