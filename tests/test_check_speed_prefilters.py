"""The hand-written readers' prefilters and shared scans find what their regexes find (issue 12, item 4).

Where a reader's whole-note regex is replaced by a scan of a few literal marks (the regex engine tries a
pattern that opens with an alternation or a digit at every character of a note), the lines or offsets it
reads must be exactly the regex's: compared here on random texts made of the characters the patterns read.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right

from attnwalk.check import human, notations

COEF_PARTS = ["V", "v", "V_", "v_1", "V₀", "V₉", "v₅", "·", "*", "×", "\\cdot", "\\cdo", "t", " ", " ", "\t", "\n",
              "0", "7", "٣", "²", "_", "₀", "₉", "x", "cdot", "0.5", "$", "{"]


def _texts(parts: list[str], n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(parts) for _ in range(rnd.randint(0, 40))) for _ in range(n)]


def test_coefficient_lines_are_the_lines_of_every_match():
    for text in _texts(COEF_PARTS, 20000, 7) + ["", "V", "3V_", " \\cdotV", "\\cdot\tv", "tV", "5 \t v₃\n2*V"]:
        starts = human._line_starts(text)
        want = sorted({bisect_right(starts, m.start()) - 1 for m in notations._COEF_MARK.finditer(text)})
        assert notations._coef_lines(text) == want, text


def ref_cells(text: str, base: int):
    """``human._cells`` as it was: every number read, then what they leave searched for a letter."""
    cells = [human.Cell(m.group(), base + m.start()) for m in human.NUM_RE.finditer(text)]
    if human._LETTER.search(text) is not None:
        rest = human.NUM_RE.sub("", text)
        if human._LETTER.search(rest) and not human._NOT_WORDS.fullmatch(rest):
            return None
    return cells


CELL_PARTS = ["0", "1.5", "-2", "−3", "e", "E", "e-4", "E+2", "1e5", "x", "ab", "é", "Ω", "中", "\\cdots", "&", ",",
              " ", "\t", "\n", "(", ")", "[", "]", ".", "%", "_", "^", "\\\\", ";", "+"]


def test_a_row_with_a_letter_no_number_holds_is_prose_as_before():
    for text in _texts(CELL_PARTS, 20000, 11) + ["", "1e5 2E-3", "e", "2 3 x"]:
        assert human._cells(text, 7) == ref_cells(text, 7), text


def ref_bindings(tree, env, trace, given=frozenset()):
    """``computed.bindings`` as it was: the names counted over a walk of the whole module, and each statement that
    is no plain assignment walked again for the names it drops."""
    import ast

    from attnwalk.check import computed

    env = dict(env)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in computed._SOFTMAX:
            env[("def", node.name)] = computed._last_axis_softmax(node)
    counts: dict = {}
    for node in ast.walk(tree):
        for t in computed._targets(node):
            counts[t] = counts.get(t, 0) + 1
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            for t in {t for n in ast.walk(node) for t in computed._targets(n)}:
                for key in (t, ("scalar", t), ("mask", t)):
                    env.pop(key, None)
            continue
        name = node.targets[0].id
        if name in given:
            continue
        for key in (name, ("scalar", name), ("mask", name)):
            env.pop(key, None)
        if counts.get(name, 0) != 1:
            continue
        kind = computed.kind_of(node.value, env, trace)
        if kind is not None:
            env[name] = kind
        elif (value := computed._scalar(node.value, env, trace.derived.get("d_k"))) is not None:
            env[("scalar", name)] = value
        elif (mask := computed.mask_of(node.value, env)) is not None:
            env[("mask", name)] = mask
    return env


STATEMENTS = ["s = q @ k.T", "s = q @ k.T / 2**0.5", "w = torch.softmax(s, dim=-1)", "o = w @ v", "d_k = k.shape[-1]",
              "s = q @ k.T / math.sqrt(d_k)", "w, o = f(s)", "s += 1", "for w in range(3):\n    o = w @ v",
              "s.masked_fill_(m, 0)", "m = torch.triu(torch.ones(3, 3), diagonal=1).bool()",
              "s = s.masked_fill(m, float('-inf'))", "def softmax(x):\n    e = np.exp(x)\n    return e / e.sum(-1)",
              "w = softmax(s)", "o[0] = 1", "x: int = 2", "print(w @ v)", "k = [[1, 1], [0, 1], [1, 0]]",
              "y = [o for o in w]", "if (n := 3):\n    s = q"]


def test_bindings_from_one_walk_of_each_statement_are_the_plain_ones():
    import ast

    from attnwalk.api import walk
    from attnwalk.check import computed

    trace = walk(variant="sdpa", source="direct", heads=1, q=[[1, 0], [0, 1], [1, 1]], k=[[1, 1], [0, 1], [1, 0]],
                 v=[[1, 2], [3, 0], [0, 1]])
    rnd = random.Random(5)
    for _ in range(3000):
        tree = ast.parse("\n".join(rnd.choice(STATEMENTS) for _ in range(rnd.randint(0, 6))))
        env = {"q": "q", "k": "k", "v": "v", **({"o": "out"} if rnd.random() < 0.3 else {})}
        given = frozenset(rnd.sample(["q", "k", "s", "w"], rnd.randint(0, 2)))
        assert computed.bindings(tree, env, trace, given) == ref_bindings(tree, env, trace, given), ast.unparse(tree)


SHIFTED_PARTS = ["e^{", "\\exp(", "e^{0.7071-1.4142}", "}", ")", "&", "=", "\\approx", "≈", " ", "\t", "\n", "\n",
                 "0.4931", "-0.7071", "−1", "1.4142", "\\\\", "e^{0}", "&=1\\\\", "x", "e^", "exp(",
                 "e^{0.7071-1.4142}&=e^{-0.7071}\\approx 0.4931\\\\", "\\exp(1.5) = 4.48", "  e^{0}&=1\\\\\n"]


def test_shifted_exponential_lines_are_matched_on_the_lines_holding_their_opening():
    rnd = random.Random(13)
    found = 0
    for text in ["".join(rnd.choice(SHIFTED_PARTS) for _ in range(rnd.randint(0, 30))) for _ in range(20000)]:
        want = [(m.start(), m.end()) for m in notations._SHIFTED_EXP_LINE.finditer(text)]
        assert [(m.start(), m.end()) for m in human.line_matches(notations._SHIFTED_EXP_LINE, text, "e^{", "\\exp(")] \
            == want, text
        found += len(want)
    assert found > 200


TUPLE_PARTS = ["=", "≈", "\\approx", "softmax", "softmax}", "\\text{softmax}", "}", "(", ")", " ", "\t", "\n", "1",
               "0.5", "-2", "−3", ",", ", ", "x", "approx", "oftmax", "(1, 2)", "= (0.1, 0.2)", "(0.09, 0.24, 0.66)"]


def test_tuples_tried_at_each_relation_before_a_parenthesis_are_every_match():
    from attnwalk.check import forms

    found = 0
    for text in _texts(TUPLE_PARTS, 20000, 3):
        human._PER_TEXT = (None, {})
        want = [(m.start(), m.end(), m.group("body")) for m in forms._TUPLE.finditer(text)]
        assert [(m.start(), m.end(), m.group("body")) for m in forms._tuples(text)] == want, text
        found += len(want)
    assert found > 2000


def ref_content(text: str, a: int, content: str):
    """``program._content`` as it was: each line of ``content`` looked for at the end of its line of the note."""
    from attnwalk.check.source import line_starts

    starts = line_starts(text)
    k = bisect_left(starts, a)
    out = []
    for line in content.split("\n")[:-1]:
        if k >= len(starts):
            return None
        stop = starts[k + 1] if k + 1 < len(starts) else len(text)
        while stop > starts[k] and text[stop - 1] in "\r\n":
            stop -= 1
        if not text.startswith(line, stop - len(line)) or stop - len(line) < starts[k]:
            return None
        out.append(stop - len(line))
        k += 1
    return content, out


CONTENT_PARTS = ["a", "1 2", " ", "\t", "\n", "\n", "\r\n", "\r", "> ", "    ", "x = [1, 2]", "#"]


def test_a_block_standing_verbatim_in_the_note_is_placed_as_before():
    from attnwalk.check import program

    rnd = random.Random(17)
    verbatim = 0
    for text in _texts(CONTENT_PARTS, 20000, 17):
        human._PER_TEXT = (None, {})
        a = rnd.randint(0, len(text))
        if rnd.random() < 0.5:  # most blocks start a line
            a = text.rfind("\n", 0, a) + 1
        b = rnd.randint(a, len(text))
        content = text[a:b]
        if rnd.random() < 0.3:  # a container's marks or a tab markdown-it expanded: no longer verbatim
            content = content.replace("\t", "    ").replace("> ", "")
        if rnd.random() < 0.5:
            content += "\n"
        verbatim += text.startswith(content, a) and "\n" in content and (a == 0 or text[a - 1] == "\n")
        assert program._content(text, a, content) == ref_content(text, a, content), (text, a, content)
    assert verbatim > 1500


ROW_PARTS = ["token", "Token", "TOKEN", "word", "Query", "position", "từ", "Từ", "TỪ", "vị trí", "Vị Trí", "tokens",
             "xtoken", "_word", "İ", "ı", "ſ", "poſition", "posıtion", "0", "1", "12", "07", " ", " ", "\t", "\n", "'s",
             "é", "K"]


def test_numbered_row_lines_are_the_lines_of_every_match():
    # the old path: one case-insensitive scan of the whole note for the rows, one for a token 0
    from attnwalk.check import numbered_rows as nr

    for text in _texts(ROW_PARTS, 20000, 11) + ["", "token 0", "TOKEN 3\n", "İ token 1", "poſition 2", "xtoken 2"]:
        end = len(text) + 1
        want = sorted({(text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end()) % end)
                       for m in nr._ROW_AT.finditer(text)})
        lines = nr.row_lines(text)
        assert lines == want, text
        assert nr.zero_words(text, lines) == {w.lower() for w in nr._ZERO.findall(text)}, text


def ref_sheet_blocks(text: str):
    """``sheets.sheet_blocks`` as it was: every table's rows split, then its header asked."""
    from attnwalk.check import sheets

    out = []
    for tm in sheets._TABLE.finditer(text):
        lines, at, rows = tm.group(0).rstrip("\n").split("\n"), tm.start(), []
        for line in lines:
            rows.append(sheets._cells(line, at))
            at += len(line) + 1
        letters = [t for t, _ in rows[0][1:]]
        if rows[0][0][0] or not letters or "".join(letters) != sheets._LETTERS[:len(letters)]:
            continue
        block = None
        for cells in rows[2:]:
            if not sheets._ROW_NUMBER.fullmatch(cells[0][0]) or len(cells) < 3:
                block = None
                continue
            body = cells[2:]
            while body and not body[-1][0]:
                body.pop()
            if not any(human.NUM_RE.fullmatch(t) for t, _ in body):
                block = (cells[1][0], [t for t, _ in body], [])
                out.append(block)
            elif block is not None and all(human.NUM_RE.fullmatch(t) for t, _ in body) and len(body) == len(block[1]):
                block[2].append(body)
            else:
                block = None
    return out


SHEET_LINES = ["| | A | B |", "|  |A|B|C|", "|\u00a0| A |", "|| A | B |", "| x | A | B |", "|---|---|---|",
               "| **1** | e^score | 0.5 | 0.2 |", "| 2 | | 1.5 | 2 |", "| **3** | The | 0.598 | 0.295 |",
               "| 4 | weight | a | b |", "| A | B |", "text", "", "|\t|\tA\t|\tB\t|", "| | B | A |"]


def test_sheet_blocks_asked_from_their_header_are_the_same():
    from attnwalk.check import sheets

    rnd = random.Random(5)
    for _ in range(5000):
        text = "\n".join(rnd.choice(SHEET_LINES) for _ in range(rnd.randint(0, 12)))
        assert sheets.sheet_blocks(text) == ref_sheet_blocks(text), text
