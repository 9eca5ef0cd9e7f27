"""Writes the hand-style corpus (tests/corpus/*.md + *.toml + *.planted.json).

Run by hand: ``python tests/corpus/make_corpus.py``. The correct values come from PyTorch (float64),
not from attnwalk; each note plants some wrong numbers (written ⟨like this⟩ while composing) and
lists them, by line, in its ``.planted.json``.
"""

import json
import re
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
T = torch.float64


def f(x, d):
    s = f"{float(x):.{d}f}"
    return "0." + "0" * d if s.startswith("-0.") and float(s) == 0 else s


def bad(x, d, delta=3):
    """A planted wrong number: off by ``delta`` units in the last printed digit."""
    return "⟨" + f(float(x) + delta * 10.0**-d, d) + "⟩"


def mat(a, d, plant=(), sep=", ", open_="[", close="]"):
    rows = []
    for i, r in enumerate(a.tolist()):
        rows.append(open_ + sep.join(bad(x, d) if (i, j) in plant else f(x, d) for j, x in enumerate(r)) + close)
    return rows


def tex(a, d, plant=()):
    rows = [" & ".join(bad(x, d) if (i, j) in plant else f(x, d) for j, x in enumerate(r))
            for i, r in enumerate(a.tolist())]
    return "\\begin{bmatrix}\n" + " \\\\\n".join(rows) + "\n\\end{bmatrix}"


def attention(x, wq, wk, wv, scale="sqrt_dk", mask=None):
    q, k, v = x @ wq, x @ wk, x @ wv
    s = q @ k.T
    sc = s / q.shape[-1] ** 0.5 if scale == "sqrt_dk" else s * (1.0 if scale == "none" else scale)
    m = sc if mask is None else sc.masked_fill(~mask, -1e9)
    a = torch.softmax(m, -1)
    return dict(q=q, k=k, v=v, s=s, sc=sc, m=m, a=a, o=a @ v)


def write(name, text, scenario):
    planted = []
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        for m in re.finditer(r"⟨([^⟩]*)⟩", line):
            planted.append({"line": n, "published": m.group(1).rstrip("%")})
        lines[n - 1] = re.sub(r"⟨([^⟩]*)⟩", r"\1", line)
    (HERE / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
    (HERE / f"{name}.toml").write_text(scenario, encoding="utf-8")
    (HERE / f"{name}.planted.json").write_text(json.dumps(planted, indent=1) + "\n", encoding="utf-8")


X = [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]]
WQ = [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]]
WK = [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]]
WV = [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]
PROJECT = f"""variant = "sdpa"
source = "project"
weight_layout = "in_out"
heads = 1
x = {X}
w_q = {WQ}
w_k = {WK}
w_v = {WV}
"""


def main():
    x, wq, wk, wv = (torch.tensor(t, dtype=T) for t in (X, WQ, WK, WV))
    r = attention(x, wq, wk, wv)
    r1 = attention(x, wq, wk, wv, scale="none")

    # 1. English blog, LaTeX, several matrices in one $$ block, \text{softmax}(\cdot)
    write("en_blog_latex", f"""# Self-attention, illustrated with numbers

We take three input embeddings of dimension 4 and weight matrices $W^Q$, $W^K$, $W^V$ (shape 4×3).

$$
Q = XW^Q = {tex(r['q'], 0, {(1, 2)})}, \\quad K = XW^K = {tex(r['k'], 0)}, \\quad V = XW^V = {tex(r['v'], 0)}
$$

The raw attention scores are $QK^T$:

$$
\\text{{Scores}} = QK^T = {tex(r['s'], 0, {(2, 2)})}
$$

We divide by $\\sqrt{{d_k}} = \\sqrt{{3}}$:

$$
\\frac{{QK^T}}{{\\sqrt{{d_k}}}} = {tex(r['sc'], 4, {(0, 1)})}
$$

Then the softmax, row by row:

$$
\\text{{softmax}}(\\cdot) = {tex(r['a'], 4, {(1, 0), (2, 2)})}
$$

And the output is the weighted sum of the values:

$$
\\text{{Output}} = {tex(r['o'], 4, {(0, 1)})}
$$
""", PROJECT)

    # 2. Notebook export: python code cells and numpy prints without commas
    def np_print(a, d, plant=()):
        rows = mat(a, d, plant, sep=" ")
        return "[" + "\n ".join(rows) + "]"
    write("en_notebook_numpy", f"""## Attention from scratch (notebook)

```python
import numpy as np
x = np.array([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])
scores = q @ k.T
print(scores)
```

```
{np_print(r['s'], 1, {(0, 0)})}
```

```python
scaled = scores / np.sqrt(d_k)
print(scaled)
```

```
{np_print(r['sc'], 5, {(2, 1)})}
```

```python
weights = softmax(scaled)
print(weights)
```

```
{np_print(r['a'], 5, {(0, 2), (1, 1)})}
```

```python
output = weights @ v
print(output)
```

```
{np_print(r['o'], 5, {(2, 0)})}
```
""", PROJECT)

    # 3. README style: plain grids with a # comment per row, label on the line before the block
    names = ["I", "love", "cats"]

    def grid(a, d, plant=()):
        return "\n".join("  ".join(bad(v, d) if (i, j) in plant else f(v, d) for j, v in enumerate(row))
                         + f"   # {names[i]}" for i, row in enumerate(a.tolist()))
    write("en_readme_grid", f"""# tiny-attn

Example run on "I love cats".

Attention weights:

```
{grid(r['a'], 3, {(0, 0), (2, 1)})}
```

Context vectors:

```
{grid(r['o'], 3, {(1, 2)})}
```
""", PROJECT + 'labels = ["I", "love", "cats"]\n')

    # 4. Tables whose rows are tokens; percentages as weights; softmax(QK^T) without scaling
    def pct_rows(a, plant=()):
        out = []
        for i, row in enumerate(a.tolist()):
            cells = [(bad(v * 100, 1, 4) + "%") if (i, j) in plant else f(v * 100, 1) + "%" for j, v in enumerate(row)]
            out.append(f"| {names[i]} | " + " | ".join(cells) + " |")
        return "\n".join(out)
    write("en_table_percent", f"""# How much does each word look at the others?

We skip the scaling here: weights = softmax(QK^T).

Attention weights (in percent):

| token | I | love | cats |
|---|---|---|---|
{pct_rows(r1['a'], {(0, 1), (2, 0)})}
""", PROJECT + 'scale = "none"\nlabels = ["I", "love", "cats"]\n')

    # 5. Vietnamese course style: row vectors q1, k2 (1-based), "Ma trận Query Q"
    def vec(name, a, d, plant=()):
        return "\n".join(f"- ${name}{i + 1}$ = [" + ", ".join(bad(v, d) if (i, j) in plant else f(v, d)
                                                              for j, v in enumerate(row)) + "]"
                         for i, row in enumerate(a.tolist()))
    write("vi_course_vectors", f"""# Bài 3: Cơ chế attention — ví dụ tính tay

## Ma trận Query Q

{vec('q', r['q'], 0, {(2, 0)})}

## Ma trận Key K

{vec('k', r['k'], 0)}

## Trọng số chú ý

Sau khi chia cho √d_k và lấy softmax, ta được trọng số chú ý:

$$
A = {tex(r['a'], 3, {(1, 2)})}
$$

## Kết quả

Đầu ra (kết quả) của lớp attention:

$$
Z = {tex(r['o'], 3, {(2, 1)})}
$$
""", PROJECT)

    # 6. Vietnamese: plain grid with token words as row names, "điểm" then "trọng số"
    vi_names = ["Tôi", "đi", "học"]

    def named_grid(a, d, plant=()):
        return "\n".join(f"{vi_names[i]:<4} " + "  ".join(bad(v, d) if (i, j) in plant else f(v, d)
                                                         for j, v in enumerate(row))
                         for i, row in enumerate(a.tolist()))
    write("vi_named_grid", f"""# Ví dụ "Tôi đi học"

Điểm attention (QK^T):

```
{named_grid(r['s'], 1, {(1, 1)})}
```

Trọng số attention sau softmax:

```
{named_grid(r['a'], 4, {(0, 2), (2, 0)})}
```
""", PROJECT + 'labels = ["Tôi", "đi", "học"]\n')

    # 7. Chinese blog: 注意力分数 / 注意力权重 / 输出, Python lists
    def pylist(a, d, plant=()):
        return "[" + ",\n ".join(mat(a, d, plant)) + "]"
    write("zh_blog_lists", f"""# 注意力机制计算例子

注意力分数（QK^T）：

```
{pylist(r['s'], 1, {(0, 1)})}
```

缩放后的分数（除以√d_k）：

```
{pylist(r['sc'], 4, {(1, 0)})}
```

注意力权重：

```
{pylist(r['a'], 4, {(2, 2), (0, 0)})}
```

输出：

```
{pylist(r['o'], 4, {(1, 1)})}
```
""", PROJECT)

    # 8. Chinese, 1-based rows "第1行", given scores (source = scores)
    S = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 1.0], [1.2, 0.3, 3.0]], dtype=T)
    a = torch.softmax(S, -1)
    rows = "\n".join(f"- 第{i + 1}行: [" + ", ".join(bad(v, 3) if (i, j) in {(0, 0), (2, 1)} else f(v, 3)
                                                   for j, v in enumerate(row)) + "]"
                     for i, row in enumerate(a.tolist()))
    write("zh_given_scores", f"""# Softmax 例子

给定注意力分数 [[2.0, 1.0, 0.1], [0.5, 2.5, 1.0], [1.2, 0.3, 3.0]]，按行做 softmax 得到注意力权重：

{rows}
""", 'variant = "sdpa"\nsource = "scores"\nscores = [[2.0, 1.0, 0.1], [0.5, 2.5, 1.0], [1.2, 0.3, 3.0]]\n')

    # 9. Masked (causal) scores before and after scaling, -1e9 fill
    causal = torch.ones(3, 3, dtype=torch.bool).tril()
    rm = attention(x, wq, wk, wv, mask=causal)
    masked_before = rm['s'].masked_fill(~causal, -1e9)
    write("en_masked_scores", f"""# Causal attention by hand

Masked scores (before scaling):

$$
{tex(masked_before, 1, {(1, 1)})}
$$

Scaled and masked scores:

$$
{tex(rm['m'], 4, {(2, 0)})}
$$

Attention weights:

$$
{tex(rm['a'], 4, {(1, 0)})}
$$
""", PROJECT + 'mask = "causal"\nmask_fill = "-1e9"\n')

    # 10. Given q, k, v (source = direct), numpy-print torch tensors, "Head" prose
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=T)
    k = torch.tensor([[1.0, 2.0], [0.0, 1.0], [1.0, 0.0]], dtype=T)
    v = torch.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]], dtype=T)
    s = q @ k.T
    aw = torch.softmax(s / 2**0.5, -1)

    def tt(a_, d, plant=()):
        return "tensor([" + ",\n        ".join(mat(a_, d, plant)) + "])"
    write("en_torch_print", f"""# SDPA in PyTorch: what the numbers are

```python
q = torch.tensor([[1., 0.], [0., 1.], [1., 1.]])
k = torch.tensor([[1., 2.], [0., 1.], [1., 0.]])
v = torch.tensor([[1., 0.], [2., 1.], [0., 3.]])
```

The attention weights `attn = softmax(q @ k.T / sqrt(d_k))`:

```
{tt(aw, 4, {(0, 0), (1, 2)})}
```

The output `out = attn @ v`:

```
{tt(aw @ v, 4, {(2, 1)})}
```
""", 'variant = "sdpa"\nsource = "direct"\nheads = 1\nq = [[1, 0], [0, 1], [1, 1]]\nk = [[1, 2], [0, 1], [1, 0]]\n'
         'v = [[1, 0], [2, 1], [0, 3]]\n')

    def commented(a_, plant):
        return "\n".join("    [" + ", ".join(bad(vv, 4) if (i, j) in plant else f(vv, 4) for j, vv in enumerate(row))
                         + f"],  # {vi_names[i]}" for i, row in enumerate(a_.tolist()))

    # 11. Vietnamese: Python-list weights in a python block with per-row comments, label before the block
    write("vi_python_comments", f"""# Tính attention bằng tay

Trọng số chú ý (mỗi hàng là một từ):

```python
A = [
{commented(r['a'], {(0, 1)})}
]
```

Đầu ra:

```python
Z = [
{commented(r['o'], {(2, 2)})}
]
```
""", PROJECT)


    # 12. Obsidian: callouts (> [!note]) holding $$ bmatrix blocks and a numpy print with e-notation
    def sci(a, plant=()):
        rows = []
        for i, row in enumerate(a.tolist()):
            cells = []
            for j, x in enumerate(row):
                t = f"{x:.4e}"
                if (i, j) in plant:
                    m, e = t.split("e")
                    t = "⟨" + f"{float(m) + 0.0003:.4f}e{e}" + "⟩"
                cells.append(t)
            rows.append("[" + " ".join(cells) + "]")
        return "[" + "\n ".join(rows) + "]"
    ws = attention(x, wq, wk, wv, scale=4.0)
    write("en_obsidian_callouts", f"""# Attention (Obsidian vault note)

> [!note] Raw scores
> $$
> S = QK^T = {tex(r['s'], 0, {(1, 1)}).replace(chr(10), chr(10) + '> ')}
> $$

> [!example]- Weights with a sharp scale (scores × 4), as numpy prints them
> ```
> attention weights:
> {sci(ws['a'], {(0, 2)}).replace(chr(10), chr(10) + '> ')}
> ```

> [!tip] Output
> $$
> \\text{{Output}} = {tex(ws['o'], 3, {(1, 0)}).replace(chr(10), chr(10) + '> ')}
> $$
""", PROJECT + "scale = 4.0\n")

    # 13. MkDocs Material: admonitions (!!! note) with indented tables and code blocks
    def md_table(a, d, names, keys, plant=()):
        out = ["    | | " + " | ".join(keys) + " |", "    |---|" + "---|" * len(keys)]
        for i, row in enumerate(a.tolist()):
            out.append(f"    | {names[i]} | " + " | ".join(bad(v, d) if (i, j) in plant else f(v, d)
                                                        for j, v in enumerate(row)) + " |")
        return "\n".join(out)
    toks = ["the", "cat", "sat"]
    write("en_mkdocs_admonitions", f"""# Attention, step by step

!!! note "Attention weights"
    Each row is a query token, each column a key; rows sum to 1.

{md_table(r['a'], 3, toks, toks, {(2, 0)})}

!!! example "Output vectors"
    ```
{chr(10).join('    ' + ln for ln in mat(r['o'], 3, {(0, 2)}))}
    ```

??? info "Scaled scores"
    $$
    \\frac{{QK^T}}{{\\sqrt{{d_k}}}} = {tex(r['sc'], 3, {(1, 2)}).replace(chr(10), chr(10) + '    ')}
    $$
""", PROJECT + 'labels = ["the", "cat", "sat"]\n')

    # 14. Vietnamese: 1-based rows ("hàng 1", "từ 2"), Kᵀ printed transposed, rows without commas
    kt = r['k'].T
    write("vi_transposed_rows", f"""# Ví dụ attention: từng hàng một

Ma trận Kᵀ (mỗi cột là một key):

$$
K^T = {tex(kt, 0, {(0, 1)})}
$$

Điểm chú ý (chưa chia):

- hàng 1: [{' '.join(f(v, 0) for v in r['s'][0].tolist())}]
- hàng 2: [{' '.join(bad(v, 0) if j == 0 else f(v, 0) for j, v in enumerate(r['s'][1].tolist()))}]
- hàng 3: [{' '.join(f(v, 0) for v in r['s'][2].tolist())}]

Trọng số chú ý của từ 2: [{', '.join(bad(v, 4) if j == 2 else f(v, 4) for j, v in enumerate(r['a'][1].tolist()))}]
""", PROJECT)

    # 15. Chinese: shapes as factors, (3×4)·(4×3) = (3×3), and "Expected:" of a test case
    write("zh_factor_shapes", f"""# 自注意力：形状与结果

形状：Q 是 (3×3)，Kᵀ 是 (3×3)，所以 QKᵀ 是 (3×3)。乘积的形状 (3×4)·(4×3) = (3×⟨4⟩)。

测试用例：

```python
out = attention(
    [[{'], ['.join(', '.join(f(v, 0) for v in row) for row in r['q'].tolist())}]],
    [[{'], ['.join(', '.join(f(v, 0) for v in row) for row in r['k'].tolist())}]],
    [[{'], ['.join(', '.join(f(v, 0) for v in row) for row in r['v'].tolist())}]],
)
```

Expected: {'[' + ', '.join(mat(r['o'], 4, {(1, 1)})) + ']'}
""", 'variant = "sdpa"\nsource = "direct"\nheads = 1\n'
         f"q = {[[int(v) for v in row] for row in r['q'].tolist()]}\n"
         f"k = {[[int(v) for v in row] for row in r['k'].tolist()]}\n"
         f"v = {[[int(v) for v in row] for row in r['v'].tolist()]}\n")

    # 16. English notebook-and-prose mix: numpy array(...) repr, a torch print with grad_fn, a q×k table,
    #     rows named by token words in prose, and key = value pairs for one query
    q3 = torch.tensor([[1, 0, 1], [0, 1, 0], [1, 1, 0]], dtype=T)
    k3 = torch.tensor([[1, 0, 0], [0, 1, 1], [1, 1, 1]], dtype=T)
    v3 = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=T)
    s3 = q3 @ k3.T
    a3 = torch.softmax(s3 / 3 ** 0.5, -1)
    o3 = a3 @ v3

    def arr(a_, d, plant=()):
        rows = mat(a_, d, plant)
        return "array([" + ",\n       ".join(rows) + "])"

    def tt2(a_, d, plant=()):
        rows = mat(a_, d, plant)
        return "tensor([" + ",\n        ".join(rows) + "], grad_fn=<SoftmaxBackward0>)"
    qk_rows = "\n".join(f"| q{i + 1} | " + " | ".join(bad(x, 0) if (i, j) == (2, 1) else f(x, 0)
                                                       for j, x in enumerate(row)) + " |"
                        for i, row in enumerate(s3.tolist()))
    write("en_prose_rows", f"""# Attention for "I love cats"

Scores (`q @ k.T`):

```
{arr(s3, 0, {(2, 2)})}
```

Weights printed by torch:

```
{tt2(a3, 4, {(1, 2)})}
```

|    | k1 | k2 | k3 |
|----|----|----|----|
{qk_rows}

The output for "cats" is [{f(o3[2, 0], 4)}, {f(o3[2, 1], 4)}], and for "love" it is \
[{f(o3[1, 0], 4)}, {bad(o3[1, 1], 4, 10)}].

Attention weights for "I": I = {f(a3[0, 0], 2)}, love = {f(a3[0, 1], 2)}, cats = {bad(a3[0, 2], 2, 1)}.
""", 'variant = "sdpa"\nsource = "direct"\nheads = 1\nq = [[1, 0, 1], [0, 1, 0], [1, 1, 0]]\n'
         'k = [[1, 0, 0], [0, 1, 1], [1, 1, 1]]\nv = [[1, 2], [3, 4], [5, 6]]\nlabels = ["I", "love", "cats"]\n')

    # 17. Vietnamese (with a Chinese line): a causal mask, masked scores printed with -\infty and -inf,
    #     a weights table by token, rows named in prose ("Đầu ra của "học" là [..]", "输出第3行 = [..]")
    xm = torch.tensor([[1, 0], [0, 1], [1, 1]], dtype=T)
    keep = torch.tril(torch.ones(3, 3)).bool()
    sm = (xm @ xm.T) / 2 ** 0.5
    am = torch.softmax(sm.masked_fill(~keep, float("-inf")), -1)
    om = am @ xm

    def tex_inf(a_, d, plant=()):
        rows = [" & ".join("-\\infty" if not keep[i, j] else bad(x, d) if (i, j) in plant else f(x, d)
                           for j, x in enumerate(r)) for i, r in enumerate(a_.tolist())]
        return "\\begin{bmatrix} " + " \\\\ ".join(rows) + " \\end{bmatrix}"

    def torch_inf(a_, d, plant=()):
        rows = ["[" + ", ".join("  -inf" if not keep[i, j] else bad(x, d) if (i, j) in plant else f(x, d)
                                for j, x in enumerate(r)) + "]" for i, r in enumerate(a_.tolist())]
        return "tensor([" + ",\n        ".join(rows) + "])"
    names = ["Tôi", "đi", "học"]
    wrows = "\n".join(f"| {names[i]} | " + " | ".join(bad(x, 4) if (i, j) == (1, 1) else f(x, 4)
                                                     for j, x in enumerate(row)) + " |"
                      for i, row in enumerate(am.tolist()))
    write("vi_causal_masked", f"""# Ví dụ che tương lai (causal mask)

Sau khi chia cho $\\sqrt{{2}}$ và che các vị trí tương lai bằng $-\\infty$:

$$
\\tilde{{S}} = {tex_inf(sm, 4, {(2, 2)})}
$$

Trọng số chú ý:

| | Tôi | đi | học |
|---|---|---|---|
{wrows}

Đầu ra của "học" là [{f(om[2, 0], 4)}, {bad(om[2, 1], 4)}].

注意力权重第3行：[{f(am[2, 0], 4)}, {f(am[2, 1], 4)}, {bad(am[2, 2], 4)}]，\
输出第2行 = [{bad(om[1, 0], 4)}, {f(om[1, 1], 4)}]。

Điểm đã che, PyTorch in ra:

```
{torch_inf(sm, 4, {(1, 0)})}
```
""", 'variant = "sdpa"\nsource = "direct"\nheads = 1\nmask = "causal"\nq = [[1, 0], [0, 1], [1, 1]]\n'
         'k = [[1, 0], [0, 1], [1, 1]]\nv = [[1, 0], [0, 1], [1, 1]]\nlabels = ["Tôi", "đi", "học"]\n')

    # 18. English: two examples in one note; only the first is the scenario's (the second has other inputs,
    #     so its numbers must stay unread however "wrong" they look against the scenario)
    q4 = q3 * 2
    a4 = torch.softmax((q4 @ k3.T) / 3 ** 0.5, -1)
    write("en_two_examples", f"""# Two examples

## Example 1

Q = {'[' + ', '.join(mat(q3, 0)) + ']'}

Attention weights:

```
[{(chr(10) + ' ').join(r + ',' if i < 2 else r for i, r in enumerate(mat(a3, 4, {(0, 2), (2, 0)})))}]
```

## Example 2: the same keys, queries twice as long

Q = {'[' + ', '.join(mat(q4, 0)) + ']'}

Attention weights:

```
[{(chr(10) + ' ').join(r + ',' if i < 2 else r for i, r in enumerate(mat(a4, 4)))}]
```
""", 'variant = "sdpa"\nsource = "direct"\nheads = 1\nq = [[1, 0, 1], [0, 1, 0], [1, 1, 0]]\n'
         'k = [[1, 0, 0], [0, 1, 1], [1, 1, 1]]\nv = [[1, 2], [3, 4], [5, 6]]\n')

    # 19. English: a softmax written as a call on given scores, softmax([..]) = [..], and its arithmetic
    sc = torch.tensor([[2.0, 1.0, 0.1]], dtype=T)
    ac = torch.softmax(sc, -1)
    ex = torch.exp(sc)
    write("en_softmax_call", f"""# Softmax by hand

softmax([2.0, 1.0, 0.1]) = [{f(ac[0, 0], 3)}, {f(ac[0, 1], 3)}, {bad(ac[0, 2], 3, 10)}]

The scores are `[2.0, 1.0, 0.1]`, and the weights come out as {f(ac[0, 0], 3)}, {f(ac[0, 1], 3)} and \
{f(ac[0, 2], 3)}.

e^2.0 = {f(ex[0, 0], 3)}, e^1.0 = {f(ex[0, 1], 3)}, e^0.1 = {f(ex[0, 2], 3)}, sum = {f(ex.sum(), 3)}, so \
{f(ex[0, 0], 3)} / {f(ex.sum(), 3)} = {f(ac[0, 0], 3)}.
""", 'variant = "sdpa"\nsource = "scores"\nscores = [[2.0, 1.0, 0.1]]\nlabels = ["cat"]\n'
         'kv_labels = ["the", "cat", "sat"]\n')

    # 20. Chinese blog exported to HTML: <table> rows of <td> numbers, a token name first, a header row of <th>
    def html(a_, d, names_, plant=()):
        head = "  <tr><th></th>" + "".join(f"<th>{n}</th>" for n in names_) + "</tr>" if names_ else ""
        body = "\n".join("  <tr>" + (f"<td>{names_[i]}</td>" if names_ else "")
                         + "".join(f"<td>{bad(x, d) if (i, j) in plant else f(x, d)}</td>" for j, x in enumerate(r))
                         + "</tr>" for i, r in enumerate(a_.tolist()))
        return "<table>\n" + (head + "\n" if head else "") + body + "\n</table>"
    write("zh_html_tables", f"""# 注意力计算（网页导出）

<p>注意力权重（每行一个查询）：</p>
{html(a3, 4, ["I", "love", "cats"], {(1, 2)})}

<p>输出：</p>
{html(o3, 4, None, {(2, 1)})}
""", 'variant = "sdpa"\nsource = "direct"\nheads = 1\nq = [[1, 0, 1], [0, 1, 0], [1, 1, 0]]\n'
         'k = [[1, 0, 0], [0, 1, 1], [1, 1, 1]]\nv = [[1, 2], [3, 4], [5, 6]]\nlabels = ["I", "love", "cats"]\n')

if __name__ == "__main__":
    main()
