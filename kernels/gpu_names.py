"""GPU names as the command, the plugin and confirm read them: one reader of a spelling.

Kept apart from targets.py (its Target dataclass) so that the flake8 plugin's settings
can read a `--jcd-gpu` value without loading the confirm machinery (benchmarks/editor.py).
"""

from __future__ import annotations

import re

DEFAULT_GPU = "sm90"
DEFAULT_CUDNN = "9.10"

_SM_DIGITS_RE = re.compile(r"^\d{2,3}[af]?$")  # "90", "103", "90a", "100f" once "sm" is gone
_CC_RE = re.compile(r"^(\d+)\.(\d+)$")


def parse_cc(capability: str) -> tuple[int, int]:
    m = _CC_RE.match(str(capability).strip())
    if not m:
        raise ValueError(f"not a compute capability: {capability!r} (expected like '9.0')")
    return int(m.group(1)), int(m.group(2))


def parse_gpu(gpu: str) -> tuple[int, int]:
    """'sm90' / 'sm_90' / '9.0' / '90' / 'sm103' / 'sm90a' / 'sm100f' (an architecture's
    feature set, the same chip) -> compute capability (major, minor).

    The one reader of a GPU spelling: the command, the plugin and confirm all call it."""
    cleaned = gpu.strip().lower().replace("sm_", "").replace("sm", "")
    found: tuple[int, int] | None = None
    if _CC_RE.match(cleaned):
        found = parse_cc(cleaned)
    elif _SM_DIGITS_RE.match(cleaned):
        digits = cleaned.rstrip("af")
        found = int(digits[:-1]), int(digits[-1])
    # NVIDIA's compute capabilities run from 3.x to 12.x: `800` or `10` is a typo (probe 40a)
    if found is None or not 3 <= found[0] <= 15:
        raise ValueError(
            f"unknown GPU target {gpu!r}: use an SM name such as sm80, sm90, sm100, sm103"
            " (or a compute capability such as 9.0)"
        )
    return found
