"""Integer dimensions: exact, polynomial in symbols, or partly known.

A dimension is what the rules ask about (is T odd?), so every operation keeps
whatever survives: the exact value, a polynomial over symbols (unresolved config
fields, parameters, `x.shape[i]` of unknown arrays), the residue modulo a power of
two up to 128 (parity survives where the exact value does not: `2*T` is even, the
join of 128 and 256 is 0 mod 128), a small set of possible constants and an
interval.  Every dimension carries the steps that produced it, for messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import gcd

MAX_MOD = 128
MAX_CHOICES = 4
MAX_STEPS = 12

Monomial = tuple[str, ...]
Poly = tuple[tuple[Monomial, int], ...]


@dataclass(frozen=True)
class Step:
    """One link of a provenance chain: where a value was made and how."""

    path: str
    line: int
    text: str

    def render(self) -> str:
        return f"{self.text} (line {self.line})" if self.line else self.text


Why = tuple[Step, ...]


def merge_why(*chains: Why) -> Why:
    """Concatenate provenance chains without repeats, keeping the newest steps."""
    seen: set[Step] = set()
    out: list[Step] = []
    for chain in chains:
        for step in chain:
            if step not in seen:
                seen.add(step)
                out.append(step)
    return tuple(out[-MAX_STEPS:])


def _pow2_part(n: int) -> int:
    """Largest power of two dividing n, capped at MAX_MOD (0 is divisible by all)."""
    if n == 0:
        return MAX_MOD
    return min(MAX_MOD, n & -n)


def _poly_const(n: int) -> Poly:
    return (((), n),) if n else ()


def _poly_norm(terms: dict[Monomial, int]) -> Poly:
    return tuple(sorted((m, c) for m, c in terms.items() if c))


def _poly_add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    terms: dict[Monomial, int] = dict(a)
    for mono, coeff in b:
        terms[mono] = terms.get(mono, 0) + sign * coeff
    return _poly_norm(terms)


def _poly_mul(a: Poly, b: Poly) -> Poly:
    terms: dict[Monomial, int] = {}
    for ma, ca in a:
        for mb, cb in b:
            mono = tuple(sorted(ma + mb))
            terms[mono] = terms.get(mono, 0) + ca * cb
    return _poly_norm(terms)


def _mono_div(num: Monomial, den: Monomial) -> Monomial | None:
    rest = list(num)
    for sym in den:
        if sym not in rest:
            return None
        rest.remove(sym)
    return tuple(rest)


def _poly_div(num: Poly, den: Poly) -> Poly | None:
    """Exact division by a single term (c * monomial), else None."""
    if len(den) != 1:
        return None if num != den else _poly_const(1)
    dmono, dcoeff = den[0]
    out: dict[Monomial, int] = {}
    for mono, coeff in num:
        rest = _mono_div(mono, dmono)
        if rest is None or coeff % dcoeff:
            return None
        out[rest] = out.get(rest, 0) + coeff // dcoeff
    return _poly_norm(out)


@dataclass(frozen=True, eq=False)
class Dim:
    """An integer value.  `poly` None means no closed form is known."""

    poly: Poly | None
    mod: int  # residue known modulo this power of two (1 = nothing known)
    res: int
    choices: frozenset[int] | None = None
    lo: int | None = None
    hi: int | None = None
    why: Why = ()

    # -- reading ---------------------------------------------------------------
    @property
    def value(self) -> int | None:
        """The exact integer, when there is one."""
        if self.poly is None:
            return None
        if not self.poly:
            return 0
        if len(self.poly) == 1 and self.poly[0][0] == ():
            return self.poly[0][1]
        return None

    def parity(self) -> int | None:
        """0 (even), 1 (odd) or None (not certain)."""
        if self.choices is not None:
            parities = {c % 2 for c in self.choices}
            return parities.pop() if len(parities) == 1 else None
        return self.res % 2 if self.mod >= 2 else None

    def is_known(self) -> bool:
        return self.value is not None

    def same_as(self, other: Dim) -> bool:
        """Certainly equal (same closed form)."""
        return self.poly is not None and self.poly == other.poly

    def render(self) -> str:
        value = self.value
        if value is not None:
            return str(value)
        if self.choices is not None:
            return "{" + ", ".join(str(c) for c in sorted(self.choices)) + "}"
        if self.poly is not None:
            return render_poly(self.poly)
        if self.mod >= 2:
            return f"? ({self.res} mod {self.mod})"
        return "?"

    def key(self) -> object:
        """A hashable identity for memoising calls (ignores provenance)."""
        return (self.poly, self.mod, self.res, self.choices)

    def with_why(self, *steps: Step | Why) -> Dim:
        chains: list[Why] = [self.why]
        for item in steps:
            chains.append((item,) if isinstance(item, Step) else item)
        return Dim(self.poly, self.mod, self.res, self.choices, self.lo, self.hi, merge_why(*chains))

    def replace_why(self, why: Why) -> Dim:
        return Dim(self.poly, self.mod, self.res, self.choices, self.lo, self.hi, why)


def render_poly(poly: Poly) -> str:
    parts: list[str] = []
    for mono, coeff in sorted(poly, key=lambda t: (-len(t[0]), t[0])):
        body = "*".join(mono)
        if not body:
            parts.append(str(coeff))
        elif coeff == 1:
            parts.append(body)
        elif coeff == -1:
            parts.append("-" + body)
        else:
            parts.append(f"{coeff}*{body}")
    text = " + ".join(parts) if parts else "0"
    return text.replace("+ -", "- ")


# -- construction ----------------------------------------------------------------
def const(n: int, why: Why = ()) -> Dim:
    return Dim(_poly_const(n), MAX_MOD, n % MAX_MOD, None, n, n, why)


def symbol(name: str, why: Why = (), *, nonneg: bool = True) -> Dim:
    return Dim((((name,), 1),), 1, 0, None, 0 if nonneg else None, None, why)


def range_len(start: int, stop: int, step: int = 1) -> int | None:
    """len(range(start, stop, step)) without building the range: len() of a range past
    sys.maxsize raises OverflowError (None for a step of 0, which range() refuses)."""
    if step == 0:
        return None
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // -step)


def slice_len(n: int, lo: int | None, hi: int | None, step: int | None) -> int | None:
    """len(range(n)[lo:hi:step]) for any size of n (None for a step of 0)."""
    if step == 0:
        return None
    return range_len(*slice(lo, hi, step).indices(max(n, 0)))  # range(-1) is empty


def unknown(why: Why = ()) -> Dim:
    return Dim(None, 1, 0, None, None, None, why)


def congruent(res: int, mod: int, why: Why = ()) -> Dim:
    mod = max(1, min(MAX_MOD, mod))
    return Dim(None, mod, res % mod, None, None, None, why)


def _from_poly(poly: Poly, mod: int, res: int, lo: int | None, hi: int | None, why: Why) -> Dim:
    if not poly or (len(poly) == 1 and poly[0][0] == ()):
        n = poly[0][1] if poly else 0
        return const(n, why)
    # a polynomial whose every coefficient shares a power of two fixes residues too
    g = 0
    constant = 0
    for mono, coeff in poly:
        if mono:
            g = gcd(g, coeff)
        else:
            constant = coeff
    poly_mod = _pow2_part(g)
    if poly_mod > mod:
        mod, res = poly_mod, constant % poly_mod
    return Dim(poly, mod, res % mod, None, lo, hi, why)


def _interval(a: int | None, b: int | None, op: str) -> int | None:
    if a is None or b is None:
        return None
    return a + b if op == "+" else a - b


# -- arithmetic --------------------------------------------------------------------
def add(a: Dim, b: Dim, why: Why = ()) -> Dim:
    mod = min(a.mod, b.mod)
    res = (a.res + b.res) % mod
    chain = merge_why(a.why, b.why, why)
    choices = _combine(a, b, lambda x, y: x + y)
    if a.poly is not None and b.poly is not None:
        out = _from_poly(_poly_add(a.poly, b.poly), mod, res, _interval(a.lo, b.lo, "+"), _interval(a.hi, b.hi, "+"), chain)
    else:
        out = Dim(None, mod, res, None, _interval(a.lo, b.lo, "+"), _interval(a.hi, b.hi, "+"), chain)
    return _with_choices(out, choices)


def neg(a: Dim, why: Why = ()) -> Dim:
    return mul(const(-1), a, why)


def sub(a: Dim, b: Dim, why: Why = ()) -> Dim:
    mod = min(a.mod, b.mod)
    res = (a.res - b.res) % mod
    chain = merge_why(a.why, b.why, why)
    choices = _combine(a, b, lambda x, y: x - y)
    lo = _interval(a.lo, b.hi, "-")
    hi = _interval(a.hi, b.lo, "-")
    if a.poly is not None and b.poly is not None:
        out = _from_poly(_poly_add(a.poly, b.poly, -1), mod, res, lo, hi, chain)
    else:
        out = Dim(None, mod, res, None, lo, hi, chain)
    return _with_choices(out, choices)


def mul(a: Dim, b: Dim, why: Why = ()) -> Dim:
    # x = r1 + m1*i, y = r2 + m2*j  =>  xy = r1*r2 + r1*m2*j + r2*m1*i + m1*m2*i*j
    mod = _pow2_part(gcd(gcd(a.mod * b.mod, a.res * b.mod), b.res * a.mod))
    mod = min(mod, MAX_MOD)
    res = (a.res * b.res) % mod
    chain = merge_why(a.why, b.why, why)
    choices = _combine(a, b, lambda x, y: x * y)
    lo = a.lo * b.lo if a.lo is not None and b.lo is not None and a.lo >= 0 and b.lo >= 0 else None
    if a.poly is not None and b.poly is not None:
        out = _from_poly(_poly_mul(a.poly, b.poly), mod, res, lo, None, chain)
    else:
        out = Dim(None, mod, res, None, lo, None, chain)
    return _with_choices(out, choices)


def floordiv(a: Dim, b: Dim, why: Why = ()) -> Dim:
    chain = merge_why(a.why, b.why, why)
    av, bv = a.value, b.value
    if av is not None and bv is not None:
        return const(av // bv, chain) if bv else unknown(chain)
    choices = _combine(a, b, lambda x, y: x // y if y else None)
    if a.poly is not None and b.poly is not None:
        quotient = _poly_div(a.poly, b.poly)
        if quotient is not None:
            mod, res = 1, 0
            if bv is not None and bv > 0:
                mod, res = _residue_after_exact_division(a, bv)
            return _with_choices(_from_poly(quotient, mod, res, None, None, chain), choices)
    if bv is not None and bv > 0:
        mod, res = _residue_after_exact_division(a, bv) if a.mod % _pow2_part(bv) == 0 and a.res % _pow2_part(bv) == 0 else (1, 0)
        # only valid when the division is exact; we cannot know that without a closed form
        if a.poly is None:
            mod, res = 1, 0
        return _with_choices(Dim(None, mod, res, None, None, None, chain), choices)
    return _with_choices(unknown(chain), choices)


def _residue_after_exact_division(a: Dim, c: int) -> tuple[int, int]:
    """Residue of a/c when c divides a exactly."""
    two = _pow2_part(c) if c else 1
    odd = c // two if two else c
    if a.mod <= two or a.res % two:
        return 1, 0
    mod = a.mod // two
    res = (a.res // two) % mod
    if odd != 1:
        res = (res * pow(odd, -1, mod)) % mod if mod > 1 else 0
    return mod, res


def mod_op(a: Dim, b: Dim, why: Why = ()) -> Dim:
    chain = merge_why(a.why, b.why, why)
    av, bv = a.value, b.value
    if av is not None and bv is not None:
        return const(av % bv, chain) if bv else unknown(chain)
    choices = _combine(a, b, lambda x, y: x % y if y else None)
    if bv is not None and bv > 0 and bv & (bv - 1) == 0 and a.mod >= bv:
        return const(a.res % bv, chain)
    return _with_choices(unknown(chain), choices)


def join(a: Dim, b: Dim) -> Dim:
    """What is certain of a value that is `a` on one path and `b` on another."""
    same_poly = a.poly is not None and a.poly == b.poly
    if same_poly and a.mod == b.mod and a.res == b.res and a.choices == b.choices and a.lo == b.lo and a.hi == b.hi:
        return a
    # one symbol refined differently on the two paths (`if T % 2:` ... `else:`): the
    # symbol stays, what each path learnt of it is joined
    mod = min(a.mod, b.mod)
    while mod > 1 and (a.res % mod) != (b.res % mod):
        mod //= 2
    res = a.res % mod
    choices: frozenset[int] | None = None
    ca = a.choices if a.choices is not None else (frozenset({a.value}) if a.value is not None else None)
    cb = b.choices if b.choices is not None else (frozenset({b.value}) if b.value is not None else None)
    if ca is not None and cb is not None and len(ca | cb) <= MAX_CHOICES:
        choices = ca | cb
    lo = min(a.lo, b.lo) if a.lo is not None and b.lo is not None else None
    hi = max(a.hi, b.hi) if a.hi is not None and b.hi is not None else None
    return Dim(a.poly if same_poly else None, mod, res, choices, lo, hi, merge_why(a.why, b.why))


def refine_residue(a: Dim, res: int, mod: int) -> Dim:
    """What a guard such as `T % 2 == 0` teaches about a value."""
    if mod <= a.mod:
        return a
    return Dim(a.poly, min(mod, MAX_MOD), res % min(mod, MAX_MOD), a.choices, a.lo, a.hi, a.why)


def _combine(a: Dim, b: Dim, fn: Callable[[int, int], int | None]) -> frozenset[int] | None:
    if a.choices is None and b.choices is None:
        return None
    ca = a.choices if a.choices is not None else (frozenset({a.value}) if a.value is not None else None)
    cb = b.choices if b.choices is not None else (frozenset({b.value}) if b.value is not None else None)
    if ca is None or cb is None:
        return None
    out: set[int] = set()
    for x in ca:
        for y in cb:
            r = fn(x, y)
            if r is None:
                return None
            out.add(r)
    return frozenset(out) if len(out) <= MAX_CHOICES else None


def _with_choices(d: Dim, choices: frozenset[int] | None) -> Dim:
    if choices is None or d.value is not None:
        return d
    if len(choices) == 1:
        return const(next(iter(choices)), d.why)
    mod = MAX_MOD
    first = next(iter(choices))
    while mod > 1 and any((c - first) % mod for c in choices):
        mod //= 2
    if mod > d.mod:
        return Dim(d.poly, mod, first % mod, choices, d.lo, d.hi, d.why)
    return Dim(d.poly, d.mod, d.res, choices, d.lo, d.hi, d.why)
