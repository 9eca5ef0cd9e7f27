"""The course index page: the notes in learning order and a vi/en glossary of the course's terms."""

from __future__ import annotations

from pathlib import Path

from .course import relative_link

# (English term, Vietnamese term as the course writes it, meaning in en, meaning in vi)
GLOSSARY = [
    ("query (Q)", "query (truy vấn, Q)", "what a token asks for; one row of $Q$ per token",
     "điều một token cần tìm; mỗi token một hàng của $Q$"),
    ("key (K)", "key (khoá, K)", "what a token offers to be matched against; $S = Q K^T$",
     "điều một token đưa ra để được so khớp; $S = Q K^T$"),
    ("value (V)", "value (giá trị, V)", "the content a token passes on; $O = A V$",
     "nội dung một token truyền đi; $O = A V$"),
    ("score", "điểm (score)", "$S[i, j]$: how well query $i$ matches key $j$",
     "$S[i, j]$: query $i$ khớp với key $j$ đến đâu"),
    ("attention weight", "trọng số chú ý (attention weight)",
     "$A[i, j]$ = α(pi→pj), a row of the softmax; each row sums to 1",
     "$A[i, j]$ = α(pi→pj), một hàng của softmax; tổng mỗi hàng bằng 1"),
    ("head", "head", "one attention run on its own slice of channels; heads run in parallel",
     "một phép attention chạy trên một phần kênh riêng; các head chạy song song"),
    ("key_dim, $d_k$", "key_dim, $d_k$", "the size of each query and key vector in a head",
     "kích thước của mỗi vector query và key trong một head"),
    ("scale", "hệ số scale", "$1/\\sqrt{d_k}$, multiplies the scores so the softmax does not saturate",
     "$1/\\sqrt{d_k}$, nhân vào điểm để softmax không bão hoà"),
    ("softmax", "softmax", "turns a row of scores into positive weights that sum to 1",
     "biến một hàng điểm thành các trọng số dương có tổng bằng 1"),
    ("mask, keep matrix $M$", "mask, ma trận giữ $M$", "1 = the query may look at the key, 0 = masked",
     "1 = query được nhìn key đó, 0 = bị che"),
    ("mask fill", "giá trị lấp (mask fill)", "the value a masked score is replaced by (−inf, −1e9, −10000)",
     "giá trị thay cho điểm bị che (−inf, −1e9, −10000)"),
    ("closed form", "dạng đóng (closed form)", "an exact formula of a number, e.g. $1/(2 + 2e)$",
     "công thức chính xác của một con số, ví dụ $1/(2 + 2e)$"),
    ("saturation", "bão hoà (saturation)", "one weight is 1 to the printed precision: the others vanish",
     "một trọng số bằng 1 theo độ chính xác in ra: các trọng số khác biến mất"),
    ("projection", "phép chiếu (projection)", "a Linear layer or 1×1 convolution making Q, K, V or the output",
     "một lớp Linear hay tích chập (convolution) 1×1 tạo Q, K, V hoặc đầu ra"),
    ("positional encoding (PE)", "mã hoá vị trí (positional encoding, PE)",
     "YOLO's depthwise 3×3 convolution that adds where a pixel is",
     "tích chập (convolution) 3×3 theo từng kênh của YOLO, thêm thông tin vị trí của pixel"),
    ("shape", "kích thước (shape)", "the sizes of a tensor's axes, e.g. (B, heads, N, N)",
     "kích thước các trục của một tensor, ví dụ (B, heads, N, N)"),
    ("view", "đổi hình (view)", "the same numbers read with another shape (`view`, `reshape`)",
     "cùng các con số, đọc theo một kích thước khác (`view`, `reshape`)"),
]

TEXT = {
    "en": {"title": "attnwalk — the course", "intro": "Worked examples of attention, in learning order. Every "
           "number in them is computed by attnwalk and checked by `attnwalk check`; each note ends with "
           "exercises whose answers are checked too.", "notes": "Notes", "glossary": "Glossary",
           "head": "| English | Tiếng Việt | Meaning |", "regen": "Written by `attnwalk build examples/course.toml`."},
    "vi": {"title": "attnwalk — khoá học", "intro": "Các ví dụ tính tay về attention, theo thứ tự học. Mọi con số "
           "đều do attnwalk tính và được `attnwalk check` kiểm tra; cuối mỗi bài có bài tập, đáp án cũng được "
           "kiểm tra.", "notes": "Các bài", "glossary": "Thuật ngữ", "head": "| Tiếng Việt | English | Nghĩa |",
           "regen": "Sinh bởi `attnwalk build examples/course.toml`."},
}


def index_page(lang: str, notes: list[tuple[str, Path, str]], here: Path) -> str:
    """The index in ``lang``: ``notes`` as (name, path, title) in learning order, links relative to ``here``."""
    t = TEXT[lang]
    lines = [f"# {t['title']}", "", t["intro"], "", f"## {t['notes']}", ""]
    for n, (name, path, title) in enumerate(notes, start=1):
        rel = relative_link(path, here)
        lines.append(f"{n}. [{title}]({rel}) — `{name}`")
    lines += ["", f"## {t['glossary']}", "", t["head"], "|---|---|---|"]
    for en, vi, m_en, m_vi in GLOSSARY:
        lines.append(f"| {en} | {vi} | {m_en} |" if lang == "en" else f"| {vi} | {en} | {m_vi} |")
    lines += ["", t["regen"]]
    return "\n".join(lines) + "\n"
