"""The figures as their readers meet them (teaching audit #39-#44): a phone shrinks a heatmap to its 366 px column
and its cell numbers must still read at 9 px; each cell's number is torch's weight and contrasts with its cell's
colour; a screen-reader user hears, in the alt text, the key each query weighs most (torch's argmax, with its
weight) and where pixel p0 looks on the grid, as a sighted reader sees them."""

import re
from pathlib import Path

import numpy as np
import pytest

import attnwalk
from attnwalk import figures
from attnwalk.scenario import load_scenario

pytest.importorskip("matplotlib", reason="figures need matplotlib: pip install 'attnwalk[figures]' (CI does)")
torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
FIGS = ROOT / "examples" / "notes" / "figures"
YOLO = {"h": 3, "w": 3, "dim": 4, "heads": 2, "seed": 42, "pe_on": "o"}  # examples/course.toml's yolo-3x3-seed42
PHONE_PX = 366  # a 390 px phone less the page's (and GitHub's, MkDocs') side margins

# matplotlib writes each text of an SVG (text as paths) as a comment, then a group with its fill (none when black),
# its place and its size: scale(s -s) for s = font size in pt / 100.
_TEXT = re.compile(r'<!-- (.*?) -->\s*<g (?:style="fill: (#[0-9a-f]{6})" )?transform="translate\(([-\d.e]+) '
                   r'([-\d.e]+)\)(?: rotate\([^)]*\))? scale\(([\d.]+) -[\d.]+\)"')


def cell_numbers(svg: str) -> list[tuple[str, float]]:
    """(text, font size in pt) of each number written in a map's cells, in drawing order: the numeric texts of
    every axes but the last (the colour bar, whose tick labels are numbers too), tick labels (integers) aside."""
    groups = re.split(r'<g id="axes_\d+">', svg)[1:]
    assert len(groups) >= 2, "a map and its colour bar"
    return [(m.group(1), float(m.group(5)) * 100) for g in groups[:-1] for m in _TEXT.finditer(g)
            if re.fullmatch(r"\d\.\d+", m.group(1))]


def svg_width_pt(svg: str) -> float:
    return float(re.search(r'<svg[^>]* width="([0-9.]+)pt"', svg).group(1))


def phone_px(pt: float, width_pt: float) -> float:
    """Rendered size in px of ``pt``-point text in a figure ``width_pt`` wide shown in a phone's column (an
    <img> of max-width 100%: shrunk to the column when wider, never enlarged)."""
    return pt * 4 / 3 * min(1.0, PHONE_PX / (width_pt * 4 / 3))


def torch_yolo_attn(t) -> np.ndarray:
    """The attention weights (heads, N, N) of a yolo trace's input and qkv weights, as torch computes them:
    1x1 conv, view per head as [q, k, v], softmax(qᵀk · key_dim^-0.5) over the keys (DESIGN.md §2)."""
    x, w, b = (torch.tensor(np.asarray(t[k]), dtype=torch.float64) for k in ("x", "w_qkv", "b_qkv"))
    heads, kd = t.config["heads"], t.derived["key_dim"]
    B, C, H, W = x.shape
    qkv = torch.nn.functional.conv2d(x, w, b).view(B, heads, -1, H * W)
    q, k, _ = qkv.split([kd, kd, qkv.shape[2] - 2 * kd], dim=2)
    return torch.softmax(q.transpose(-2, -1) @ k * kd ** -0.5, dim=-1)[0].numpy()


def torch_causal_attn() -> np.ndarray:
    """Seed 001's "Tôi đi học" under its causal mask filled with -10000 (examples/scenarios), in torch."""
    q = torch.tensor([[1, 0], [0, 1], [1, 1]], dtype=torch.float64)
    k = torch.tensor([[1, 0], [1, 1], [0, 2]], dtype=torch.float64)
    s = (q @ k.T / 2 ** 0.5).masked_fill(~torch.ones(3, 3, dtype=torch.bool).tril(), -10000)
    return torch.softmax(s, -1)[None].numpy()


def committed_maps() -> list[Path]:
    maps = sorted(FIGS.glob("*-attn-h*.svg")) + sorted(FIGS.glob("*-look-p0.svg"))
    assert len(maps) >= 14
    return maps


@pytest.mark.parametrize("path", committed_maps(), ids=lambda p: p.name)
def test_cell_numbers_read_at_9px_on_a_phone(path):
    """#35: a 9 x 9 heatmap was 511 pt wide with 7 pt numbers, so a phone's column showed them at 5 px. Every
    committed map writes its numbers where they read at 9 px or more once shrunk to a 366 px column."""
    svg = path.read_text(encoding="utf-8")
    nums = cell_numbers(svg)
    assert len(nums) >= 3, path.name
    width = svg_width_pt(svg)
    assert min(phone_px(pt, width) for _, pt in nums) >= 9.0, (path.name, width, nums[0])


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_the_yolo_cells_are_torchs_weights(lang):
    """The numbers in the course's 3x3 heatmaps, row by row, and in its "where p0 looks" panels are torch's
    weights to 3 decimals; a masked cell (the causal note's) has none."""
    a = torch_yolo_attn(attnwalk.walk(**YOLO))
    for h in range(2):
        svg = (FIGS / f"yolo-3x3-seed42.{lang}-attn-h{h}.svg").read_text(encoding="utf-8")
        assert [s for s, _ in cell_numbers(svg)] == [f"{v:.3f}" for v in a[h].ravel()]
    look = (FIGS / f"yolo-3x3-seed42.{lang}-look-p0.svg").read_text(encoding="utf-8")
    assert [s for s, _ in cell_numbers(look)] == [f"{v:.3f}" for h in range(2) for v in a[h, 0]]
    causal = torch_causal_attn()[0]
    svg = (FIGS / f"sdpa-causal-toi-di-hoc.{lang}-attn-h0.svg").read_text(encoding="utf-8")
    assert [s for s, _ in cell_numbers(svg)] == [f"{causal[i, j]:.4f}" for i in range(3) for j in range(i + 1)]


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_small_maps_show_the_texts_own_digits(lang):
    """A cell printed 0.134 where the text's matrix prints 0.134471 (hand-2x2, 6 decimals) and 0.198 for 0.1978
    ("Tôi đi học", 4): where the map still reads on a phone with the note's decimals, its cells carry them, as
    torch computes the weights (softmax of the hand example's scores); the 9 x 9 maps keep three and say so."""
    t = attnwalk.walk(**load_scenario(ROOT / "examples" / "scenarios" / "hand-2x2.toml"))
    q, k = (torch.tensor(np.asarray(t[n])[0, 0], dtype=torch.float64) for n in ("q", "k"))
    a = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, -1).numpy()
    svg = (FIGS / f"hand-2x2.{lang}-attn-h0.svg").read_text(encoding="utf-8")
    assert [s for s, _ in cell_numbers(svg)] == [f"{v:.6f}" for v in a.ravel()]
    fewer = {"en": "to three decimals, fewer than the text's", "vi": "với ba chữ số thập phân, ít hơn trong bài"}[lang]
    assert fewer not in figures.specs(t, lang)[1]["alt"]
    assert fewer in figures.specs(attnwalk.walk(**YOLO), lang)[1]["alt"]


def _contrast(a, b) -> float:
    la, lb = sorted((figures.luminance(a), figures.luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("case", ["yolo", "mha", "causal"])
def test_cell_text_contrasts_with_its_cell(case):
    """Each number reads against its own cell at WCAG's 4.5:1 or more. The text was white below the middle of
    the colour range: viridis' teal there took white at 4.0:1 (the yolo map's 0.1111 cells)."""
    from matplotlib.colors import to_rgb
    from matplotlib.figure import Figure

    opts = YOLO if case == "yolo" else load_scenario(ROOT / "examples" / "scenarios" / {
        "mha": "mha-seed-002.toml", "causal": "toi-di-hoc-causal.toml"}[case])
    t = attnwalk.walk(**opts)
    draws = [lambda f, h=h: figures._draw_heatmap(f, t, h, figures.WORDS["en"]) for h in range(t["attn"].shape[1])]
    if case == "yolo":
        draws.append(lambda f: figures._draw_look(f, t, 0, figures.WORDS["en"]))
    seen = 0
    for draw in draws:
        fig = Figure()
        draw(fig)
        for ax in fig.axes:
            if not ax.images:
                continue
            im = ax.images[0]
            for txt in ax.texts:
                value = txt.get_text().split("\n")[-1]
                if not re.fullmatch(r"\d\.\d+", value):
                    continue
                j, i = (int(round(c)) for c in txt.get_position())
                cell = im.cmap(im.norm(im.get_array()[i, j]))
                assert f"{im.get_array()[i, j]:.{len(value) - 2}f}" == value
                assert _contrast(to_rgb(txt.get_color()), cell) >= 4.5, (case, i, j, value, txt.get_color())
                seen += 1
    assert seen >= {"yolo": 2 * 81 + 18, "mha": 18, "causal": 6}[case]


_PAIR = re.compile(r"p(\d+)(?: \([^()]*\))? → [pm](\d+)(?: \([^()]*\))? \((?:weight|trọng số) (\d+\.\d+)\)")


def _most(a: np.ndarray, decimals: int) -> dict[int, tuple[set[int], str]]:
    """Per query: the keys whose weight, printed, equals the row's largest printed weight, and that weight."""
    out = {}
    for i, row in enumerate(a):
        top = f"{row.max():.{decimals}f}"
        out[i] = ({j for j, v in enumerate(row) if f"{v:.{decimals}f}" == top}, top)
    return out


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("case", ["yolo", "causal"])
def test_alt_text_names_the_key_each_query_weighs_most(case, lang):
    """A screen reader read "Heatmap … each cell's value written in it": no value. The alt text now names,
    for each query, the key it weighs most with its weight (every key tied with it at the note's decimals:
    "Tôi đi học"'s p2 weighs đi and học alike), as torch computes them."""
    if case == "yolo":
        t = attnwalk.walk(**YOLO)
        a = torch_yolo_attn(t)
    else:
        t = attnwalk.walk(**load_scenario(ROOT / "examples" / "scenarios" / "toi-di-hoc-causal.toml"))
        a = torch_causal_attn()
    dec = t.config["decimals"]
    specs = {s["key"]: s for s in figures.specs(t, lang)}
    for h in range(a.shape[0]):
        alt = specs[f"attn-h{h}"]["alt"]
        assert ("weighs most" if lang == "en" else "chú ý nhiều nhất") in alt
        found: dict[int, tuple[set[int], str]] = {}
        for m in _PAIR.finditer(alt):
            keys, w = found.setdefault(int(m.group(1)), (set(), m.group(3)))
            keys.add(int(m.group(2)))
            assert m.group(3) == w
        assert found == _most(a[h], dec)
    if case == "causal" and lang == "en":
        assert "p2 (học) → p1 (đi) (weight 0.4011), p2 (học) → p2 (học) (weight 0.4011)" in specs["attn-h0"]["alt"]


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_look_alt_says_where_p0_looks_on_the_grid(lang):
    """The "where does p0 look" alt text said each cell holds its weight, and nothing of where the weight lies:
    it now names, per head, the pixels p0 weighs most and least (torch's argmax and argmin) and their place on
    the 3 x 3 grid (p8: bottom row, right column)."""
    t = attnwalk.walk(**YOLO)
    a = torch_yolo_attn(t)
    place = {"en": {0: "top row, left column", 8: "bottom row, right column"},
             "vi": {0: "hàng trên, cột trái", 8: "hàng dưới, cột phải"}}[lang]
    alt = next(s["alt"] for s in figures.specs(t, lang) if s["key"] == "look-p0")
    for h in range(2):
        hi, lo = int(a[h, 0].argmax()), int(a[h, 0].argmin())
        assert (hi, lo) == (8, 0)  # the ramp input: p0 looks most at the far corner in both heads
        words = {"en": f"head {h} looks most at p{hi} ({place[hi]}) and least at p{lo} ({place[lo]})",
                 "vi": f"head {h} nhìn nhiều nhất vào p{hi} ({place[hi]}) và ít nhất vào p{lo} ({place[lo]})"}[lang]
        assert (words[0].upper() + words[1:] if h == 0 else words) in alt


def test_maps_too_large_for_legible_numbers_draw_none_and_say_so():
    """A 16-query map (4 x 4 pixels) wrote its numbers at 5 pt in a 6-inch figure: about 3 px on a phone and 6 px
    on a desktop page. It now draws no numbers, and neither its alt text nor the look figure's claims them; its
    alt text still names each query's most weighed key (16 queries), a 64-query map's does not."""
    t = attnwalk.walk(h=4, w=4, dim=8, heads=2, input="normal")
    specs = {s["key"]: s for s in figures.specs(t, "en")}
    assert "written in it" not in specs["attn-h0"]["alt"]
    assert len(_PAIR.findall(specs["attn-h0"]["alt"])) >= 16
    assert cell_numbers(figures.svg(t, "attn-h0", "en")) == []
    big = {s["key"]: s for s in figures.specs(attnwalk.walk(h=8, w=8, dim=8, heads=2), "en")}
    assert "→" not in big["attn-h0"]["alt"] and "written in it" not in big["attn-h0"]["alt"]
    assert "each cell shows" not in big["look-p0"]["caption"] and "holding its weight" not in big["look-p0"]["alt"]
    small = {s["key"]: s for s in figures.specs(attnwalk.walk(**YOLO), "en")}
    assert "written in it" in small["attn-h0"]["alt"] and "each cell shows" in small["look-p0"]["caption"]


@pytest.mark.parametrize("side, heads", [(8, 2), (20, 2), (12, 4), (12, 3), (40, 4)])
def test_a_look_figure_without_numbers_reads_on_a_phone(side, heads):
    """yolo-8x8's HTML pages carry its "where does p0 look" figure: two 8 x 8 panels in a 7.4-inch figure, their
    titles, ticks and axis labels at about 5 px on a phone; three or four heads (#50) sat in one row, 7 pt titles
    at ~4 px. The panels now sit two to a row at the phone's width: every text of the figure reads at 8 px or
    more in a 366 px column (the shape flow's bar)."""
    t = attnwalk.walk(h=side, w=side, dim=4 * heads, heads=heads)
    svg = figures.svg(t, "look-p0", "en")
    sizes = [float(m.group(5)) * 100 for m in _TEXT.finditer(svg)]
    assert len(sizes) >= 10 and cell_numbers(svg) == []
    assert min(phone_px(pt, svg_width_pt(svg)) for pt in sizes) >= 8.0, (svg_width_pt(svg), min(sizes))
    panels = [ax for ax in _axes(t) if ax.images]
    assert [ax.images[0].get_array().tolist() for ax in panels] == [t["attn"][0, h, 0].reshape(side, side).tolist()
                                                                   for h in range(heads)]
    # two-digit labels never closer than their width (about 11 pt at 9 pt): 12 columns ran "1011" for 10, 11
    fig = panels[0].figure
    fig.draw_without_rendering()
    ticks = panels[0].get_xticks()
    cell_pt = panels[0].get_window_extent().width / fig.dpi * 72 / side
    assert max(ticks) < 10 or (ticks[1] - ticks[0]) * cell_pt >= 12, (ticks, cell_pt)


def _axes(t):
    from matplotlib.figure import Figure

    fig = Figure(layout="constrained")
    figures._draw_look(fig, t, 0, figures.WORDS["en"])
    return fig.axes


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("case", ["hand-2x2.toml", "toi-di-hoc-causal.toml", "cross-attention.toml",
                                  "mha-seed-002.toml"])
def test_a_narrow_heatmaps_title_and_labels_stay_inside_it(case, lang):
    """A figure made as narrow as its cells (#35) must still hold its title, centred over three or four cells:
    "A_0: attention weights of head 0" ran past the right edge of a 3 x 3 map with token labels. Every text of
    the drawn figure lies inside it."""
    from matplotlib.figure import Figure

    t = attnwalk.walk(**load_scenario(ROOT / "examples" / "scenarios" / case))
    fig = Figure(layout="constrained")
    figures._draw_heatmap(fig, t, 0, figures.WORDS[lang])
    fig.draw_without_rendering()
    box = fig.bbox
    shown = [txt for ax in fig.axes for txt in ax.get_xticklabels()  # a locator's ticks past the axis are not drawn
             if min(ax.get_xlim()) <= txt.get_position()[0] <= max(ax.get_xlim())]
    texts = [ax.title for ax in fig.axes] + shown + [txt for ax in fig.axes for txt in ax.texts]
    for txt in texts:
        if txt.get_text():
            e = txt.get_window_extent()
            assert e.x0 >= box.x0 - 0.5 and e.x1 <= box.x1 + 0.5, (txt.get_text(), e.x1, box.x1)
