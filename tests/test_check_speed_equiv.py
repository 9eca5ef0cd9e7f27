"""The float-first checker (``check/bounds.py``) gives the exact path's verdict for every number (issue 12).

``check_text(exact=True)`` is the reference: every comparison in Fraction, every claim in sympy and
mpmath. The default path decides in float64 with an error bound and goes exact only near the
boundary. Both run on every note we have, on mutated copies of each (digits changed, digits appended
so that a value sits just above / below / on a rounding boundary) and on hand-made claims whose two
sides meet within 1e-38 of the boundary; every number's verdict, expected value and fix must agree.
"""

from __future__ import annotations

import math
import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from attnwalk.check import bounds, check_text
from attnwalk.check.checker import F32_REL, _close
from attnwalk.check.expr import Num
from attnwalk.check.source import FRONT_RE
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
NUM = re.compile(r"(?<![\w.])(-?)(\d+\.\d+)(?![\w]|\.\d)")


def _notes() -> list[tuple[str, Path, dict | None]]:
    out = [(p.name, p, None) for p in sorted((ROOT / "examples/notes").glob("*.md"))]
    out += [(p.name, p, load_scenario(p.with_suffix(".toml"))) for p in sorted((ROOT / "tests/corpus").glob("*.md"))]
    out.append(("seed000", ROOT / "examples/handwritten/000_1990ceb7e4aac7cb.md",
                dict(h=3, w=3, heads=2, seed=42, pe_on="o")))
    out.append(("seed004", ROOT / "examples/handwritten/004_2311b208f99d33c7.md",
                load_scenario(ROOT / "examples/scenarios/hand-2x2.toml")))
    return out


NOTES = _notes()


def verdicts(text: str, options: dict | None, exact: bool) -> list:
    report = check_text(text, options, exact=exact)
    # a failure's expected value is plain text (report lines, JSON); a pass's may be formatted lazily
    assert all(isinstance(exp, str) for r in report.recs for ok, _, exp in r.checks if not ok)
    return [(r.line, r.text, r.status, r.operand, r.fix, [(ok, label, str(exp)) for ok, label, exp in r.checks])
            for r in report.recs]


def assert_same(text: str, options: dict | None) -> tuple[int, int]:
    fast, ref = verdicts(text, options, False), verdicts(text, options, True)
    assert len(fast) == len(ref)
    for a, b in zip(fast, ref):
        assert a == b
    return sum(r[2] == "verified" for r in ref), sum(r[2] == "wrong" for r in ref)


@pytest.mark.parametrize("name,path,options", NOTES, ids=[n[0] for n in NOTES])
def test_same_verdicts_on_every_note(name, path, options):
    verified, _ = assert_same(path.read_text(encoding="utf-8"), options)
    assert verified > 0


def mutate(text: str, rng: random.Random) -> str:
    """Change about a third of the note's decimals: the last digit ±1, or digits appended that put the
    printed value a hair above, below or on the midpoint to its neighbour (x.xxxx5, ...49999999)."""
    def one(m):
        sign, digits = m.group(1), m.group(2)
        if rng.random() < 0.7:  # hand-style matrices are judged only when most of their numbers agree
            return m.group(0)
        kind = rng.randrange(6)
        if kind == 0:
            d = int(digits[-1])
            return sign + digits[:-1] + str((d + rng.choice((1, 9))) % 10)
        if kind == 1:
            return sign + digits + "5"
        if kind == 2:
            return sign + digits + "49999999"
        if kind == 3:
            return sign + digits + "50000001"
        if kind == 4:
            return sign + digits[:-1] + ("5" if digits[-1] != "5" else "4") + "0" * rng.randrange(1, 12)
        return ("" if sign else "-") + digits
    fm = FRONT_RE.match(text)
    head = fm.group(0) if fm else ""
    return head + NUM.sub(one, text[len(head):])  # the front matter (config, weights) stays


@pytest.mark.parametrize("name,path,options", NOTES, ids=[n[0] for n in NOTES])
def test_same_verdicts_on_mutated_copies(name, path, options):
    text = path.read_text(encoding="utf-8")
    rng = random.Random(name)
    wrong = 0
    for _ in range(2):
        wrong += assert_same(mutate(text, rng), options)[1]
    assert wrong > 0  # the mutations reached the verdicts


# ---------------------------------------------------------------- hand-made boundary claims

STRICT = "---\ngenerator: attnwalk test\nconfig:\n  variant: sdpa\n  tokens: 2\n  dim: 2\n  heads: 1\n---\n"
LOOSE = "---\nconfig:\n  variant: sdpa\n  tokens: 2\n  dim: 2\n  heads: 1\n---\n"


def _dec(q: Fraction, decimals: int) -> str:
    """``q`` written with exactly ``decimals`` decimals (q must be a multiple of 10^-decimals)."""
    n = q * 10**decimals
    assert n.denominator == 1 and n >= 0
    s = str(n.numerator).rjust(decimals + 1, "0")
    return s[:-decimals] + "." + s[-decimals:]


def boundary_claims(strict: bool) -> list[str]:
    """``X = Y`` whose intervals (X ± half unit, Y ± half unit) are apart by the exact path's slack
    (2^-45 of the magnitude, plus 2^-22 of Y for hand notes) give or take k·1e-38."""
    out = []
    for y, dy in (("0.5", 1), ("0.25", 2), ("0.1234", 4), ("0.999999", 6)):
        yq = Fraction(y)
        hy = Fraction(1, 2 * 10**dy)
        b_hi = yq + hy
        slack = Fraction(1, 2**45) + (0 if strict else b_hi * F32_REL)  # magnitudes below 1: mag = 1
        dx = 40 - 2  # 40 characters at most: "0." and 38 digits
        hx = Fraction(1, 2 * 10**dx)
        edge = b_hi + slack + hx  # X - hX == Y + hY + slack
        if edge >= 1:
            continue
        base = Fraction(math.floor(edge * 10**dx), 10**dx)
        for k in range(-3, 5):
            out.append(f"{_dec(base + Fraction(k, 10**dx), dx)} = {y}")
        # and from below: X + hX == Y - hY - slack
        low = yq - hy - slack - hx
        base = Fraction(math.floor(low * 10**dx), 10**dx)
        for k in range(-3, 5):
            out.append(f"{_dec(base + Fraction(k, 10**dx), dx)} = {y}")
    # the classic half-way cases, sums and products that land on x.xxxx5 or just beside it
    out += ["0.12345 + 0 ≈ 0.1234", "0.12345 + 0 ≈ 0.1235", "0.1234499999 * 1 ≈ 0.1234",
            "0.1234500001 * 1 ≈ 0.1234", "1/8 ≈ 0.12", "1/8 ≈ 0.13", "1 / 7.436563656 ≈ 0.134366",
            "1 / 7.436563656 ≈ 0.134467", "exp(0.5751) ≈ 1.7771", "exp(0.5) ≈ 1.6487", "exp(0.5) ≈ 1.6488",
            "2 + 2·e^2 = 16.778", "sqrt(2) ≈ 1.41421356237", "log(2) ≈ 0.69315", "(0.3)(0.4) + (0.5)(0.6) = 0.42",
            "0.25^2 = 0.0625", "2^10 = 1024", "1/3 = 0.3333333333333333333333333333333333"]
    return out


@pytest.mark.parametrize("strict", [True, False], ids=["attnwalk-note", "hand-note"])
def test_same_verdicts_on_claims_at_the_boundary(strict):
    claims = boundary_claims(strict)
    text = (STRICT if strict else LOOSE) + "\n\n".join(claims) + "\n"
    verified, wrong = assert_same(text, None)
    assert verified > len(claims) // 4 and wrong > len(claims) // 4  # both sides of the boundary


def test_boundary_claims_are_decided_exactly_not_in_float():
    """A claim within 1e-38 of the boundary is beyond float64: the float path must say "undecided"."""
    from attnwalk.check.expr import parse_chain, tokenize

    for claim in boundary_claims(True)[:64]:
        exprs = parse_chain(claim, tokenize(claim), 0)[0]
        a, b = (bounds.claim(e, {}) for e in exprs)
        assert bounds.overlap(a, b, True) is None, claim


# ---------------------------------------------------------------- printed values, one at a time


def _cases(rng: random.Random):
    """(text, sign, expected, scale, strict): expected floats on, beside and far from the boundary."""
    for _ in range(4000):
        d = rng.randrange(0, 13)
        p = Fraction(rng.randrange(0, 10**rng.randrange(1, 16)), 10**d)
        text = _dec(p, d) if d else str(p.numerator)
        neg = rng.random() < 0.3
        sp = -p if neg else p
        strict = rng.random() < 0.5
        scale = rng.choice((0.0, 0.0, float(p) * 3, 1.0))
        h = Fraction(1, 2 * 10**d) if d else Fraction(1, 2)
        for side in (1, -1):
            edge = sp + side * h
            if not strict:  # solve |e - p| = h + 2^-22·max(|e|, scale) for e near the edge
                e0 = float(edge)
                edge = sp + side * (h + F32_REL * Fraction(max(abs(e0), scale)))
            e = float(edge)
            yield text, neg, e, scale, strict
            for steps in (1, 2, 3, 50, 10**6):
                yield text, neg, math.nextafter(e, math.inf) if steps == 1 else e + steps * math.ulp(e), scale, strict
                yield text, neg, e - steps * math.ulp(e), scale, strict
        yield text, neg, float(sp) + rng.uniform(-3, 3) * float(h), scale, strict


def test_close_agrees_with_the_exact_comparison_everywhere():
    rng = random.Random(12)
    decided = undecided = 0
    for text, neg, e, scale, strict in _cases(rng):
        num = Num(text, 0)
        exact = _close(num.value * (-1 if neg else 1), num, e, scale, strict)
        fast = bounds.close(text, neg, num.decimals, False, e, scale, strict)
        assert fast is None or fast == exact, (text, neg, e, scale, strict, fast, exact)
        decided += fast is not None
        undecided += fast is None
    assert undecided > 1000 and decided > 1000  # both: cases beyond float64 and cases it decides


def test_close_hand_made_half_way_values():
    """0.12345 printed as 0.1234 or 0.1235: the nearest doubles to 0.12345 lie on one side of it."""
    for text in ("0.1234", "0.1235"):
        num = Num(text, 0)
        for e in (0.12345, math.nextafter(0.12345, 1), math.nextafter(0.12345, 0), 0.1234499999999999,
                  0.1234500000000001):
            exact = _close(num.value, num, e, 0.0, True)
            assert bounds.close(text, False, 4, False, e, 0.0, True) in (None, exact)
    # the nearest double to 0.12345 lies above it (0.123450000000000004174...): 0.1235 passes, 0.1234 not
    assert Fraction(0.12345) > Fraction("0.12345")
    assert _close(Fraction("0.1235"), Num("0.1235", 0), 0.12345, 0.0, True)
    assert not _close(Fraction("0.1234"), Num("0.1234", 0), 0.12345, 0.0, True)
    # and a double just below the midpoint: 0.1234 passes (true digits ...4999999999999999...)
    below = math.nextafter(0.12345, 0)
    assert Fraction(below) < Fraction("0.12345")
    assert _close(Fraction("0.1234"), Num("0.1234", 0), below, 0.0, True)
    assert bounds.close("0.1234", False, 4, False, below, 0.0, True) is None  # 1 ulp: decided exactly
    assert bounds.close("0.1234", False, 4, False, 0.123449, 0.0, True) is True
    assert bounds.close("0.1234", False, 4, False, 0.123451, 0.0, True) is False


# ---------------------------------------------------------------- enclosures against mpmath


ENV = {"dim": Fraction(8), "heads": Fraction(2), "attn_ratio": Fraction(1, 2), "w": Fraction(0.1),
       "big": Fraction(3 * 10**20)}  # symbols (exact rationals) and a label's float value


def _random_expr(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.2:
            return rng.choice(list(ENV))
        d = rng.randrange(0, 9)
        digits = str(rng.randrange(1, 10**rng.randrange(1, 12)))
        s = digits if d == 0 else (digits.rjust(d + 1, "0")[:-d] + "." + digits.rjust(d + 1, "0")[-d:])
        return s
    kind = rng.randrange(8)
    a, b = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    if kind < 4:
        return f"({a}) {'+-*/'[kind]} ({b})"
    if kind == 4:
        return f"({a}) * ({b}) - ({b}) * ({a})"  # cancellation: the exact interval straddles 0
    if kind == 5:
        return f"exp(({a}) / ({b}) / 1000)"
    if kind == 6:
        return rng.choice((f"sqrt({a})", f"int({a} * attn_ratio)", "dim // heads", f"int(dim * {b})",
                           f"log({a})", f"int({a})", f"({a}) // ({b})", f"e^(({a}) / ({b}))",
                           f"exp(-10000 - {a})", f"[{a}, {b}] - {b}", f"[{a}, …] + 1", f"({a}) + ∞"))
    return f"({a})^{rng.choice(('2', '3', '(-1)', '(-2)', '0.5', '(-0.5)', '1.25'))}"


def test_enclosures_hold_the_exact_paths_interval_ends():
    """Each float end is within its error bound of the end mpmath computes (cancellation included)."""
    from mpmath import mpf

    from attnwalk.check.checker import _ends, _flat, _interval
    from attnwalk.check.expr import NotEvaluable, evaluate, parse_chain, tokenize

    rng = random.Random(1212)
    checked = skipped = 0
    for _ in range(1500):
        src = _random_expr(rng, 4)
        node = parse_chain(src, tokenize(src), 0, None, ENV)[0][0]
        try:
            fl = bounds.claim(node, ENV)
        except bounds.Skip:
            with pytest.raises((NotEvaluable, ZeroDivisionError, TypeError, ValueError, OverflowError)):
                evaluate(node, ENV, False)
            skipped += 1
            continue
        except bounds.Fallback:
            continue
        ivs, fls = _flat(_interval(node, ENV)), _flat(fl)
        assert len(ivs) == len(fls)
        for iv, f in zip(ivs, fls):
            lo, hi = _ends(iv)
            assert lo <= hi
            for x, m in ((f[0], lo), (f[1], hi)):
                assert abs(mpf(x) - m) <= mpf(f[2]), (src, f, lo, hi)
        checked += 1
    assert checked > 500 and skipped > 20


def test_notes_sharing_a_config_walk_once(monkeypatch):
    """Notes checked with one scenario (``check --scenario s.toml a.md b.md``, or --fix rechecking a
    note) share their trace: it is computed once; another config computes its own."""
    import attnwalk.api
    from attnwalk.check import _TRACES

    calls = []
    walk = attnwalk.api.walk
    monkeypatch.setattr(attnwalk.api, "walk", lambda **kw: calls.append(1) or walk(**kw))
    _TRACES.clear()
    opts = load_scenario(ROOT / "examples/scenarios/hand-2x2.toml")
    seed = (ROOT / "examples/handwritten/004_2311b208f99d33c7.md").read_text(encoding="utf-8")
    first, again = check_text(seed, opts), check_text(seed.replace("α", "alpha"), opts)
    assert len(calls) == 1 and first.verified and again.verified
    assert [r.status for r in check_text(seed, dict(opts)).recs] == [r.status for r in first.recs]
    assert len(calls) == 1
    check_text(seed, {**opts, "seed": 7})
    assert len(calls) == 2
