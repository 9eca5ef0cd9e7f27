"""The labels documents use for tensors (DESIGN §5), shared by templates and checker.

Each label is a pattern with named fields; ``TENSOR_OF`` says which trace tensor and index
it denotes. Batch index ``b`` prints as ``:`` when the batch has one element, as the seeds do.
"""

from __future__ import annotations

import re

# name -> (LaTeX pattern, trace tensor, index fields in tensor order). Plain-text labels
# (code blocks, prose) drop ``\text{}`` and write ``\hat{S}`` as ``Ŝ``: see ``plain``.
LABELS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "x": ("X[{b},{c},:,:]", "x", ("b", "c")),
    "qkv": (r"\text{{QKV}}[{b},{c},:,:]", "qkv", ("b", "c")),
    "q": ("Q_{h}", "q", ("b", "h")),
    "k": ("K_{h}", "k", ("b", "h")),
    "v": ("V_{h}", "v", ("b", "h")),
    "scores": ("S_{h}", "scores", ("b", "h")),
    "scores_row": ("S_{h}[{i}, :]", "scores", ("b", "h", "i")),
    "scores_scaled": (r"\hat{{S}}_{h}", "scores_scaled", ("b", "h")),
    "scores_scaled_row": (r"\hat{{S}}_{h}[{i}, :]", "scores_scaled", ("b", "h", "i")),
    "exp_row": ("E_{h}[{i}, :]", "exp", ("b", "h", "i")),
    "attn": ("A_{h}", "attn", ("b", "h")),
    "attn_row": ("A_{h}[{i}, :]", "attn", ("b", "h", "i")),
    "o": ("O[{b},{c},:,:]", "o", ("b", "c")),
    "pe": (r"\text{{PE}}[{b},{c},:,:]", "pe", ("b", "c")),
    "o_pe": ("O'[{b},{c},:,:]", "o_pe", ("b", "c")),
    "out": (r"\text{{Out}}[{b},{c},:,:]", "out", ("b", "c")),
    "w_qkv": (r"W_{{qkv}}", "w_qkv", ()),
    "w_proj": (r"W_{{proj}}", "w_proj", ()),
    "w_pe": (r"W_{{pe}}[{c}]", "w_pe", ("c",)),
    # Sequence variants (sdpa, mha): matrices have one row per token (batch 0 when b is absent).
    "x_seq": ("X", "x", ("b",)),
    "x_kv": (r"X_{{kv}}", "x_kv", ("b",)),
    "w_q": ("W_Q", "w_q", ()),
    "w_k": ("W_K", "w_k", ()),
    "w_v": ("W_V", "w_v", ()),
    "b_qkv": (r"b_{{qkv}}", "b_qkv", ()),
    "w_out": (r"W_{{out}}", "w_out", ()),
    "b_out": (r"b_{{out}}", "b_out", ()),
    "qkv_seq": (r"\text{{QKV}}", "qkv", ("b",)),
    # mha's QKV and b_qkv cut as PyTorch cuts them (``q, k, v = qkv.chunk(3, dim=-1)``, nn.MultiheadAttention's
    # ``b_q, b_k, b_v = in_proj_bias.chunk(3)``): Q, K, V before the head split; the third is ``QKV_CHUNKS``'
    "q_seq": ("Q", "qkv", ("b",)),
    "k_seq": ("K", "qkv", ("b",)),
    "v_seq": ("V", "qkv", ("b",)),
    "b_q": (r"b_{{q}}", "b_qkv", ()),
    "b_k": (r"b_{{k}}", "b_qkv", ()),
    "b_v": (r"b_{{v}}", "b_qkv", ()),
    "mask": ("M", "mask", ()),
    "scores_masked": (r"\tilde{{S}}_{h}", "scores_masked", ("b", "h")),
    "scores_masked_row": (r"\tilde{{S}}_{h}[{i}, :]", "scores_masked", ("b", "h", "i")),
    "o_h": ("O_{h}", "o", ("b", "h")),
    "o_merged": (r"O_{{cat}}", "o_merged", ("b",)),
    "out_seq": (r"\text{{Out}}", "out", ("b",)),
    "alpha": ("α(p{i}→p{j})", "attn", ("i", "j")),  # head 0; keys of a cross-attention are m0, m1, ...
    "alpha_cross": ("α(p{i}→m{j})", "attn", ("i", "j")),
    "out_row": ("Out(p{i})", "out", ("i",)),  # the row of token i: all heads merged (sdpa) / after W_out (mha)
}


# Which third of its tensor's last axis a label of a chunk names (0: Q, 1: K, 2: V), as ``chunk(3, dim=-1)`` cuts it.
QKV_CHUNKS = {"q_seq": 0, "k_seq": 1, "v_seq": 2, "b_q": 0, "b_k": 1, "b_v": 2}


def _sub(h: int) -> str:
    """A subscript as the seeds write it: ``0`` for one digit, ``{12}`` otherwise."""
    return str(h) if 0 <= h < 10 else "{" + str(h) + "}"


def plain(tex_label: str) -> str:
    """A LaTeX label as plain text for code blocks: ``\text{QKV}`` -> ``QKV``, ``\\hat{S}`` -> ``Ŝ``,
    ``\\tilde{S}`` -> ``S̃``."""
    out = re.sub(r"\\text\{([^}]*)\}", r"\1", tex_label)
    out = out.replace(r"\hat{S}", "Ŝ").replace(r"\tilde{S}", "S\u0303")
    return re.sub(r"_\{(\w+)\}", r"_\1", out).replace("{", "").replace("}", "")


def label(name: str, batch_size: int = 1, **index) -> str:
    """The printed LaTeX label of ``name`` at ``index`` (b, c, h, i as the pattern needs)."""
    pattern = LABELS[name][0]
    fields = dict(index)
    if "b" in fields:
        fields["b"] = ":" if batch_size == 1 else str(fields["b"])
    if "h" in fields:
        fields["h"] = _sub(fields["h"])
    return pattern.format(**fields)


# Labels the checker also reads: worked sums print the per-head output O_h[d, i] (the columns of
# O before the view back to (B, C, H, W)). Not rendered through ``label()``.
CHECK_EXTRA: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "o_head": ("O_{h}", "o", ("b", "h")),
}


def check_patterns() -> list[tuple[str, re.Pattern, int]]:
    """Regexes for every label, in the checker's normalized text (``plain`` forms).

    Each entry is (name, compiled regex, optional_index) where the regex has named groups
    ``ix`` (a full ``[b,c,:,:]`` index), ``b``, ``c``, ``h``, ``i``, ``j``; optional_index is 1
    when a trailing ``[i, :]``-style index may follow. Row labels (``S_{h}[{i}, :]``) fold into
    their matrix label plus that trailing index.
    """
    global _CHECK_PATTERNS
    if _CHECK_PATTERNS is not None:
        return _CHECK_PATTERNS
    out, seen = [], set()
    marks = {k: "\x01" + k.upper() for k in "bchij"}
    groups = {"B": r"(?P<b>\d+)", "C": r"(?P<c>\d+)", "H": r"(?P<h>\d+)", "I": r"(?P<i>\d+)",
              "J": r"(?P<j>\d+)"}
    for name, (pattern, _tensor, _fields) in {**LABELS, **CHECK_EXTRA}.items():
        text = plain(pattern.format(**marks)).replace("\\tildeS", "S\u0303")
        text = re.sub(r"\[\x01I, :\]$", "", text)  # a row label: the matrix label plus an index
        if text in seen:
            continue
        seen.add(text)
        rx = re.escape(text)
        optional = 1
        full = re.escape("[\x01B,\x01C,:,:]")
        if full in rx:
            rx = rx.replace(full, r"\[(?P<ix>[^\]\n]*)\]")
            optional = -1
        for k, g in groups.items():
            rx = rx.replace("\x01" + k, g)
        rx = rx.replace(r"\[(?P<c>", r"\[\s*(?P<c>").replace(r"(?P<c>\d+)\]", r"(?P<c>\d+)\s*\]")
        if rx[-1].isalnum() or rx.endswith(r"\d+)"):
            rx += r"(?![\w'])"
        if name in QKV_CHUNKS and len(text) == 1:
            # a bare Q, K, V names a chunk only as mha's display prints it (``Q =`` over its matrix, ``⟦`` once
            # normalized): a hand note's ``K = c1``, ``K(p1) = 1`` or ``Q = X W_Q^T`` stays as it was read
            rx += r"(?=[ \t]*=[ \t]*\n⟦)"
        out.append((len(text), name, re.compile(rx), optional))
    # the longest literal first: ``Out(p0)`` before ``Out``, ``X_{kv}`` before ``X``
    out = [entry[1:] for entry in sorted(out, key=lambda e: -e[0])]
    _CHECK_PATTERNS = out
    return out


_CHECK_PATTERNS: list | None = None


# Words people use for each tensor in hand-written notes (en, vi, zh, fr, ko, ja, pt, de, LaTeX forms), read by
# ``check.human``. Order matters: the first tensor whose phrase occurs in a label wins, so the
# specific phrases ("scaled scores", "attention weights") come before the general ones ("scores").
# Phrases are matched case-insensitively on the label text with LaTeX flattened (``\text{}`` dropped,
# spaces removed around ``_``/``^``); a phrase in ``|...|`` is matched as a whole word.
WORDS: dict[str, tuple[str, ...]] = {
    "scores_masked": ("masked scores", "masked score", "điểm sau mask", "điểm đã che", "掩码后的分数", "掩码分数",
                      "after masking", "sau khi che", "sau mask"),
    "scores_scaled": ("scaled scores", "scaled score", "scaled attention scores", "qk^t/√", "qk^t)/√", "qk^t)/(√",
                      "/√d_k", "/ √d_k",
                      "divide by √", "divided by √", "dividing by √", "÷√", "/sqrt(d_k)", "/ sqrt(d_k)",
                      "/np.sqrt(d_k)", "/ np.sqrt(d_k)", "scaled", "缩放点积", "điểm đã scale",
                      "điểm đã chia", "điểm sau khi chia", "điểm chuẩn hóa", "chia cho √", "缩放后的分数", "缩放后",
                      "缩放分数", "除以√", "除以根号",
                      "scores escalados", "pontuações escaladas"),
    "attn": ("attention weights", "attention weight", "attention matrix", "attention probabilities",
             "attention distribution", "softmax(", "softmax", "soft_max", "weights", "probabilities", "probs", "|attn|",
             "ma trận chú ý", "注意力矩阵",
             "trọng số chú ý", "trọng số attention", "trọng số", "ma trận attention", "xác suất",
             "注意力权重", "权重", "注意力分布", "概率", "|α|",
             "poids d'attention", "어텐션 가중치", "가중치", "アテンション重み", "注意重み",
             "pesos de atenção", "matriz de atenção", "pesos",
             # Portuguese identifiers without the cedilla (``ESPERADO_ATENCAO = np.array([``, ``pesos_atencao``)
             "atencao",
             "aufmerksamkeitsgewicht", "aufmerksamkeitsmatrix", "gewichte"),
    "scores": ("attention scores", "attention score", "raw scores", "scores", "score", "qk^t", "q·k^t", "q k^t",
               "q @ k.t", "q@k.t", "dot products", "dot product", "logits", "điểm attention", "điểm chú ý",
               "điểm số", "|điểm|", "dotproducts", "dot_products", "注意力分数", "注意力得分", "分数", "得分",
               "相似度", "scores bruts", "어텐션 스코어", "アテンションスコア", "スコア行列",
               "pontuações", "produtos escalares", "produto escalar", "skalarprodukt"),
    "out": ("context vectors", "context vector", "context", "output", "outputs", "|z|", "|out|", "attention output",
            "weighted sum", "weighted_values", "|weighted values|", "tổng có trọng số", "加权求和", "加权和",
            "kết quả", "đầu ra", "vector ngữ cảnh", "输出", "上下文向量", "结果",
            "sortie", "représentation transformée", "출력", "出力", "saída", "saídas", "|saida|", "after attention",
            "ergebnis"),
    "w_q": ("w_q", "w^q", "wq", "w_query", "query weights", "trọng số query", "查询权重"),
    "w_k": ("w_k", "w^k", "wk", "w_key", "key weights", "trọng số key", "键权重"),
    "w_v": ("w_v", "w^v", "wv", "w_value", "value weights", "trọng số value", "值权重"),
    "q": ("queries", "query", "|q|", "|q vector|", "|q vectors|", "ma trận query", "查询", "查询矩阵"),
    "k": ("keys", "key", "|k|", "|k vector|", "|k vectors|", "ma trận key", "键", "键矩阵"),
    "v": ("values", "value", "|v|", "|v vector|", "|v vectors|", "ma trận value", "值矩阵", "值"),
    "x": ("input embeddings", "embeddings", "embedding", "inputs", "input", "|x|", "đầu vào", "nhúng", "输入",
          "词向量", "嵌入", "entrada", "entradas", "eingabe"),
    # each value times its weight, before the sum: no tensor of the trace, and not V ("加权值" holds "值"), so a
    # matrix a caption names so is never judged as V alone (heldout2's zh_illustrated_self_attention_rounded)
    "weighted": ("加权值", "加权后的值", "加权后的value", "weighted value"),
}
# Row names people use, 1-based: q1, "word 1", "row 2", "token 3", "hàng 1", "từ 2", "第1行", "词1".
ROW_WORDS = ("row", "word", "token", "query", "position", "pos", "hàng", "từ", "dòng", "vị trí", "行", "词", "第")
# A pair of lists labelled before / after, one line apart, under a softmax (``antes:  [0.8, 0.3, 0.1]`` then
# ``después: [0.57, 0.29, 0.14]``): the second is the softmax of the first.
BEFORE_WORDS = ("before", "antes", "vorher", "avant", "trước")
AFTER_WORDS = ("after", "después", "despues", "nachher", "après", "sau")
# A masked score as notes print it among the scores a softmax takes (``[ 0.5    1.8    -∞  ]``,
# ``softmax([1.2, 0.8, -\\infty])``): its weight is 0. Compared with the backslashes taken out.
NEG_INFINITY = ("-∞", "−∞", "-inf", "−inf", "-infty", "−infty", "-infinity")
# The arrows between a row of scores, ``softmax`` and its weights (``[0.3 0.7 2.5] → softmax → [0.08, ...]``).
ARROWS = ("→", "->", "=>", "⟶", "⇒")
# The label of a sum alone on its line, below a row's exponentials (``Sum = 149.492``, ``Suma = 4.4524``).
SUM_WORDS = ("sum", "total", "tổng", "总和", "求和", "和", "Σ", "\\sum", "suma", "somme", "summe", "soma", "toplam",
             "jumlah")
# A matrix's letter with a 1-based row subscript naming one row of it (``A_{1,:} = [..]``, ``\mathbf{A}_{1\cdot} =
# \left[..\right]``): the tensor(s) each letter stands for, the first that fits the row's length and values wins.
ROW_SYMBOLS = {"A": ("attn",), "P": ("attn",), "\\alpha": ("attn",), "α": ("attn",), "S": ("scores_scaled", "scores"),
               "O": ("out",), "H": ("out",), "Z": ("out",), "Y": ("out",), "Q": ("q",), "K": ("k",), "V": ("v",),
               "X": ("x",), "E": ("x",),
               # lower-case a, as Chinese course notes name a weight row (``a_{2,\cdot} = [0.248,\ 0.248,\ 0.504]``)
               "a": ("attn",)}
# A lower-case letter with a 1-based token subscript naming that token's vector, written as a tuple (``z_1 = (0.69,
# 0.93)``, ``$z_3 = (0.4965, 0.7517)$``: an exam's final answer; ``e_2 = (1.4142, 0.0000, 2.8284)``: the energies, a
# decoder step's scaled scores): the tensor each letter stands for (check.tuple_rows).
TUPLE_ROW_SYMBOLS = {"z": "out", "e": "scores_scaled"}
# A matrix's letter with two 1-based subscripts naming one cell of it (``A_{1, 2} = 0.50``): the tensor it stands
# for (S, s and α are read with the other hand-written element names, ``check.labels.hand_label_at``).
CELL_SYMBOLS = {"A": "attn", "P": "attn"}
# Words saying a matrix is assumed rather than computed (``ধরি output: Z_2 = [..]``, "suppose the weights are"),
# regex alternatives matched as whole words, case-insensitively: ``check.forms.assumed_matrices`` leaves such a
# matrix of a computed tensor unread.
ASSUMED_WORDS = ("assume", "assumed", "assuming", "suppose", "supposed",
                 r"let\s+(?:the\s+)?(?:\$[^$\n]{1,30}\$|[\w-]+)\s+be",  # "let Z be", "let the output be"
                 "ধরি", "ধরা যাক", "giả sử", "giả định", "假设", "假定", "supposons", "supposez", "admettons",
                 "supponiamo", "angenommen", "nehmen wir an", "supongamos", "suponha", "suponhamos", "가정", "仮定")
# The operators of a dot product written out between two vectors (``[2,0]\cdot[0,2,1]=0``): such a vector is an
# operand, not a row of the matrix its neighbours form (``check.forms.dot_operand_lists``).
DOT_OPERATORS = ("\\cdot", "·", "⋅", "∙", "\\bullet")
# Python identifiers of a note's code (``check.program``: ``W_Q = np.array([[..]])``). An identifier naming a trace
# tensor outright (its stable name, DESIGN §4, or a usual spelling): compared as written for one letter (``A`` is
# the weights, a lower-case ``a`` is any variable), lower-cased otherwise.
CODE_NAMES = {"X": "x", "x": "x", "Q": "q", "q": "q", "K": "k", "k": "k", "V": "v", "v": "v", "S": "scores",
              "A": "attn", "O": "out", "x_kv": "x_kv", "w_q": "w_q", "w_k": "w_k", "w_v": "w_v", "w_qkv": "w_qkv",
              "b_qkv": "b_qkv", "w_out": "w_out", "b_out": "b_out", "w_proj": "w_proj", "b_proj": "b_proj",
              "scores": "scores", "scores_scaled": "scores_scaled", "scaled_scores": "scores_scaled",
              "scores_masked": "scores_masked", "masked_scores": "scores_masked", "attn": "attn", "out": "out",
              "output": "out", "softmax_scores": "attn", "scores_softmax": "attn", "attn_weights": "attn",
              "attention_weights": "attn", "attn_scores": "scores", "attention_scores": "scores"}
# Words of a longer identifier (split at "_" and at lower-to-upper case changes) that name no tensor and may stand
# beside the words of ``WORDS`` that do (``expected_output``, ``ESPERADO_SCORES_ESCALADOS``, ``attn_matrix``):
# any other word (``exp_values``, ``sum_exp``, ``grad_q``) leaves the identifier unread.
CODE_NEUTRAL_WORDS = ("np", "torch", "tensor", "tensors", "matrix", "mat", "arr", "array", "expected", "esperado",
                      "esperada", "esperados", "esperadas", "attendu", "attendus", "erwartet", "final", "true", "ref",
                      "reference", "manual", "computed", "result", "results", "given", "toy", "all", "full", "my",
                      "the", "matriz", "matrice")
# A row of one token's tensor named by the token in quotes (``"好"的注意力权重：[..]``, ``"cat"'s weights = [..]``): the
# words that may join the token to the tensor's name, and words that name a token's row only with its token (``"好"的
# 新向量 = .. = [..]``: "new vector" alone names nothing). Read by ``check.forms.token_rows``.
POSSESSIVES = ("的", "'s", "’s")
TOKEN_ROW_WORDS = {"out": ("新向量", "new vector", "new vectors")}
# Russian words for the tensors (heldout9's problem set: ``→ веса $(0.401, 0.198, 0.401)$``), added to ``WORDS``.
WORDS["attn"] += ("веса внимания", "веса")
WORDS["scores"] += ("скоры",)
WORDS["out"] += ("выход",)
# Words that open a worked aside about another setup (``例如：若 .. 8 个注意力头，则每个头的 d_k = 512/8 = 64``): a
# symbol given the value of the line's own arithmetic there is no claim about the note's scenario
# (``check.notations.worked_hypotheticals``).
EXAMPLE_WORDS = ("例如", "比如", "若", "如果", "假设", "e.g.", "for example", "for instance", "if", "suppose", "say",
                 "例えば", "たとえば", "예를 들어", "만약", "ví dụ", "nếu", "giả sử", "par exemple", "zum beispiel",
                 "por ejemplo", "ad esempio", "por exemplo")
# What the product of two tensors of attention is (``Y = A V = [A] [V] = [Y]``: whatever letter the note gives the
# result, the product of the weights and V is the output), for ``check.notations.product_letters``.
PRODUCT_RESULTS = {("q", "k"): "scores", ("attn", "v"): "out", ("x", "w_q"): "q", ("x", "w_k"): "k", ("x", "w_v"): "v"}
# The value of the attention function is its output (heldout11's ``Attention(Q,K,V) ≈ [[49.72, 59.72], ..]``): the
# whole call names the output, not the Q, K, V inside it.
WORDS["out"] += ("attention(q,k,v)", "attention(q, k, v)")

# Separators between a list's entries in a note written with decimal commas (``[0; 0,7071; 0,7071]``: Vietnamese,
# German, Turkish habits): read as the list commas they stand for (check.commas)
LIST_SEPARATORS_WITH_DECIMAL_COMMAS = (";",)
# The corner cell of a spreadsheet's table (``| **13** | e^score | The | cat |``: the sheet's row number, then what
# the block holds above its row names) -> the tensor it holds; where the corner holds the phrases of several
# (``weighted sum``: weights and output; ``e^score / sum``), the one its numbers agree with most, the first on a tie
# (check.sheets). A column headed by a word of ``SUM_WORDS`` (``row sum``) holds the row sums of e^ŝ.
SHEET_CORNERS = (("exp", ("e^", "exp", "=exp")), ("scores_scaled", ("/ √", "/√", "sqrt", "scaled")),
                 ("attn", ("weight", "softmax", "α", "attention", "trọng số", "prob", "/ sum", "/sum", "/ row sum",
                           "normali")),
                 ("scores", ("score", "qk", "dot", "điểm")),
                 ("out", ("output", "context", "đầu ra", "kết quả", "weighted", "× v", "×v", "· v", "·v", "@ v",
                          "@v")))
# A corner naming a projection's weights (``W_Q weights``): no tensor of SHEET_CORNERS, whatever its words
SHEET_PROJECTIONS = ("w_q", "w_k", "w_v", "w_o", "w^q", "w^k", "w^v", "w^o", "wq", "wk", "wv", "projection")
# Unicode bracket pieces of a matrix typed in plain text (``⎡1 0⎤`` over ``⎣0 1⎦``, ``⎢ ⎥`` between): (top left, top
# right), (middle left, middle right), (bottom left, bottom right) (check.brackets)
BRACKET_PIECES = (("⎡", "⎤"), ("⎢", "⎥"), ("⎣", "⎦"))
# The letter naming such a matrix (``Q¹ =``, ``O¹ = A¹V¹ =``) -> the tensor; two letters ``Q¹K¹ᵀ`` name the scores
BRACKET_LETTERS = {"Q": "q", "K": "k", "V": "v", "X": "x", "S": "scores", "A": "attn", "P": "attn", "O": "out",
                   "Z": "out", "Y": "out", "H": "out"}
# Two such letters written together before "=" (``A¹V¹ =``): the product's tensor (others name none)
BRACKET_PRODUCTS = {"AV": "out", "PV": "out"}
# Words of a matrix's label that say its scores are scaled (``chia √2 →``)
SCALED_MARKS = ("√", "sqrt", "/ d", "chia", "scaled")
# Words that state the sum of the exponentials written just before them, no number between (``exp(0.4792) = 1.6148,
# .., exp(0.4503) = 1.5688, which sum to 5.4696``): the row's sum of e^ŝ (check.exponentials)
# The label of a list of one row's weights below a hand-worked row of exponentials and their sum (``- Weights: [0.233,
# 0.401, 0.366]``: check.restated_scores)
WEIGHT_LIST_WORDS = ("weights", "attention weights", "softmax", "probabilities", "trọng số", "权重")
EXP_SUM_PHRASES = ("which sum to", "that sum to", "which add up to", "that add up to", "summing to", "adding up to",
                   "sum to", "add up to", "the row sum is", "row sum is", "the sum is", "their sum is",
                   "cộng lại được", "cộng lại là", "có tổng là", "tổng cộng là", "tổng là")
# Prose that states every row's sum of e^ŝ in one list (``The row sums are 14.867, 5.563, 13.779 and 5.563``, ``the
# rows sum to 9.2265, 7.1414 and 10.2456``): phrases ending right before the list (check.rowsums)
ROW_SUM_PHRASES = ("row sums are", "row sums:", "row sums", "rows sum to", "the sums of the rows are",
                   "tổng các hàng là", "tổng từng hàng là", "tổng mỗi hàng là", "各行の和は", "每行的和为",
                   "每行之和为")
# The words and marks that join a list's items besides commas and semicolons (check.rowsums): words and ``と`` alone
# or after a comma (``13.779 and 5.563``, ``9.2265, 7.1414, and 10.2456``), ``、`` alone
ROW_SUM_AND_WORDS = ("and", "và")
ROW_SUM_AND_MARKS = ("と",)
ROW_SUM_SEPARATORS = ("、",)
# The verbs between a tensor's plural word and every row of it listed in prose, in order (``the outputs are [..], [..]
# and [..]``; the rows joined by commas and ROW_SUM_AND_WORDS): check.prose_rows
PROSE_ROWS_VERBS = ("are", "were", "là", "lần lượt là", "sind", "sont")
# A query's weights in prose, split by slashes after a verb of attending (``token 3 attends 0.4176 / 0.2802 / 0.3005``):
# check.prose_rows
ATTENDS_VERBS = ("attends to", "attends", "chú ý tới", "chú ý")
# Signs that say "approximately" as ≈ does (Japanese ``≒``, ``≃``): read as ≈ (check.relations)
APPROX_SIGNS = ("≒", "≃")
# A row named in prose by its number (``Token 3's output is (0.599, 0.802)``, ``the output for token 2 is [..]``,
# ``đầu ra của token 2 là [..]``): the words that count rows, and the verbs between the name and its vector
# (check.numbered_rows; the tensor's words are ``WORDS``')
NUMBERED_ROW_WORDS = ("token", "word", "query", "position", "từ", "vị trí")
NUMBERED_ROW_VERBS = ("is", "are", "=", ":", "≈", "là", "bằng")
NUMBERED_ROW_LINKS = ("of", "for", "của")
# Words that show the softmax of the unscaled scores on purpose (a comparison), near exponentials of them
# (check.unscaled leaves such a line as it is)
UNSCALED_WORDS = ("without", "unscaled", "not scaled", "no scaling", "before scaling", "if we forgot", "không chia",
                  "chưa chia", "nếu không", "không scale", "chưa scale", "未缩放", "不缩放", "不除以", "ohne", "sans",
                  "sin escalar", "スケーリングなし", "스케일링 없이", "comparison", "compare", "had we", "skipped",
                  "skipping", "before dividing", "instead", "so sánh", "trước khi chia")
# A Jupyter prompt kept by a notebook exported to Markdown (``**In [5]:**``, ``Out[7]:``, ``In[ ]:``): the cell's
# number, never a tensor's name (an ``Out`` prompt is no attention output O; check.human drops it from labels)
NOTEBOOK_PROMPT = re.compile(r"(?<![\w\[])(?:In|Out)[ \t]?\[[ \t]*\d*[ \t]*\][ \t]*:")
# Words just above a seed-notation ``S_h`` (raw scores) that say the matrix printed is already scaled (``.. and,
# divided by sqrt(2),`` then ``S_1 = [[0.7071, ..]]``): the label is then read as Ŝ_h (check.head_subscripts)
SCALED_CUES = ("divided by sqrt", "divided by √", "divide by sqrt", "divided by the square root", "/ sqrt(d_k)",
               "/sqrt(d_k)", "/ √d_k", "/√d_k", "chia cho √", "chia cho căn", "chia cho sqrt", "除以√", "除以根号")
# List items named by a row symbol and its number (slides, cheat sheets: ``- q5: 0, 1.4, 1.4, 2.8, 0``, ``- o4 ≈ (0.96,
# 0.91)``): symbols whose rows are the output's, and those whose rows are of the tensor the heading above names
# (check.row_items)
ROW_ITEM_OUTPUTS = ("o", "z", "y")
ROW_ITEM_QUERIES = ("q",)

# Flash-card cloze deletions that hide a number (Anki's ``{{c1::0.6698}}``, with an optional hint ``{{c2::0.33::w}}``):
# the number is the card's answer, read as printed (check.clozes)
CLOZE = r"\{\{c\d+::(?P<answer>[^{}:\n]*)(?:::[^{}\n]*)?\}\}"
# One token's steps listed on one line, each after its term (a flash card's answer: ``token 1: e^s = 2.0281 and
# 1.0000, sum 3.0281, weights 0.6698 and 0.3302``): the term of each step (check.step_lists), the numbers of a row
# joined by these words or commas
STEP_LIST_TERMS = (("exp_raw", ("e^s", "e^ŝ", "exp(s)", "exponentials")), ("row_sum_raw", ("sum",)),
                   ("attn", ("weights",)), ("scores_scaled", ("scaled scores",)), ("out", ("output",)))
STEP_LIST_ANDS = ("and", "và")
# Tensors printed in one layout only, a query's row (S = QKᵀ): a code print of them transposed is wrong, not the
# other layout a weight or Q may be printed in (check.program)
QUERY_ROWS = ("scores", "scores_scaled", "scores_masked")
# A decoder step's context written as a weighted sum of the value column vectors (``c_2 = 0.1867\begin{pmatrix} 1 \\
# 0 \end{pmatrix} + .. = \begin{pmatrix} .. \end{pmatrix}``): the letters naming the result, and its tensor
# (check.column_sums; the coefficients are that step's weights)
COLUMN_SUM_SYMBOLS = {"c": "out", "z": "out"}
# A query's weight on its own key restated in prose (``Token 2 puts 0.3747 of its weight on itself``, ``"mèo" dành
# 57.61% sự chú ý cho chính nó``): the words for the weight between the number and the word for itself
# (check.own_weights; the words for itself are SELF_WORDS)
OWN_WEIGHT_WORDS = ("weight", "attention", "trọng số", "sự chú ý", "注意力", "权重", "poids")
# A query's own key named without its token (``0.37 of its weight on itself``, ``(0.55) cho chính nó``: check.human's
# restated weights, check.own_weights)
SELF_WORDS = ("itself", "themselves", "chính nó", "自身", "自己", "lui-même", "elle-même", "soi-même")
# What a print of an array writes before its rows (``tensor([[2.2000, 3.2000],``, ``array([[0.5, 0.5],``,
# ``tf.Tensor(``, JAX's ``Array([[``): pasted as comments under the print, the matrix still is the printed variable's
# (check.comment_prints)
REPR_HEADS = ("tensor(", "array(", "Array(", "tf.Tensor(")
# Object-literal keys of an example's own inputs in a widget's data (``queries: [0.8, 0.3]``, ``keys: [``) and of
# the scores its softmax list takes (``dotProducts: [0.19, ..]``): an object of such keys is one worked example, its
# softmax list the softmax of its score list (check.object_examples)
EXAMPLE_QUERY_KEYS = ("query", "queries", "q")
EXAMPLE_SCORE_KEYS = ("dotproducts", "dot_products", "dots", "scores", "logits", "rawscores", "raw_scores")
EXAMPLE_WEIGHT_KEYS = ("softmax", "weights", "attention", "attentionweights", "attention_weights", "probs",
                       "probabilities")
# A coding challenge's test case (``Input:`` / ``[[1,2],[3,4]] [[5,6],[7,8]] [[9,10],[11,12]]Expected:`` /
# ``[[2.5,3.5],[6.5,7.5]]``): the words before its inputs and before its expected result, matched as a word and
# without case, then a colon (check.challenge_cases)
TEST_CASE_INPUT_WORDS = ("input", "inputs", "đầu vào", "输入", "entrada")
TEST_CASE_OUTPUT_WORDS = ("expected", "expected output", "output", "kết quả mong đợi", "đầu ra", "输出", "期望输出",
                          "salida esperada")
# A note naming its tokens itself where the config names none (``Câu ví dụ có 4 token: *Tôi*, *yêu*, *Hà*, *Nội*``):
# the words after the count, before a colon; and the row words that may stand before a declared token's word
# (``hàng yêu = 0.7071, ..``), and the links between a row word and the token's (``hàng của token *yêu*``, ``row of
# "love"``), and the words that join the last two declared words (``*Tôi*, *yêu* và *mèo*``): check.token_words
DECLARED_TOKEN_WORDS = ("token", "tokens", "từ", "words")
DECLARED_TOKEN_ROW_WORDS = ("hàng", "row", "dòng")
DECLARED_TOKEN_LINKS = ("của", "of", "for")
DECLARED_TOKEN_ANDS = ("and", "và")
# The seed-notation letters of a head's tensor (``O_2``, ``A_1``, ``S_1``) that a chain ``O_2 = A_2 V = [[..]]`` names
# past a formula the claim reader does not parse: the tensor each letter stands for (check.label_chains)
CHAIN_HEAD_SYMBOLS = {"Q": "q", "K": "k", "V": "v", "S": "scores", "A": "attn", "O": "o"}
# The words that number a row where a line names several (``row 1 = [..], row 2 = [..]``, ``token 1: [..]<br>token 2:
# [..]``): check.line_rows
LINE_ROW_WORDS = ("row", "token", "query", "position", "hàng", "dòng")

# Services that render a formula URL-encoded in an image link (check.url_latex): the part of the URL before the
# formula. A README's ``![Q](https://latex.codecogs.com/svg.latex?Q%20%3D%20%5Cbegin%7Bbmatrix%7D%200.57%20..)``
# shows the matrix; the formula is read as inline math (heldout18's course READMEs).
MATH_IMAGE_URLS = (r"https?://latex\.codecogs\.com/(?:svg|png|gif|eps|pdf)\.(?:latex|image|download)\?",
                   r"https?://latex\.codecogs\.com/(?:svg|png|gif)\.image\?",
                   r"https?://chart\.apis\.google\.com/chart\?cht=tx&chl=",
                   r"https?://render\.githubusercontent\.com/render/math\?math=")
# the renderers' own commands before the formula (background, resolution, size, font): no mathematics
MATH_IMAGE_PREAMBLE = (r"\\bg_\w+", r"\\bg\{\w+\}", r"\\dpi\{\d+\}", r"\\inline", r"\\fn_\w+", r"\\large",
                       r"\\Large", r"\\LARGE", r"\\small", r"\\huge", r"\\Huge", r"\\normalsize", r"\\tiny")
