"""The words of the figures (titles, axes, alt text, captions), in each language of the notes."""

WORDS = {
    "en": {
        "keys": "key j", "queries": "query i", "weight": "attention weight", "row": "row", "col": "column",
        "attn_title": "A_{h}: attention weights of head {h}",
        "look_title": "head {h}: where p{p} looks",
        "conv1x1": "1×1 conv {a}→{b}", "split": "split per head", "softmax": "softmax over keys j",
        "chunk": "chunk, split heads", "project": "projections W_Q, W_K, W_V", "columns": "columns of X",
        "mask": "mask", "merge": "merge heads",
        "shapes_alt": "Diagram of the tensor shapes through the {variant} attention, step by step.",
        "shapes_caption": "The shapes of every recorded tensor, with this note's sizes.",
        "attn_alt": "Heatmap of the attention weights of head {h}: {n} queries (rows) by {m} keys (columns), "
                    "each cell's value written in it; the colours span {lo} to {hi}.",
        "attn_caption": "Attention weights of head {h} (rows: queries i, columns: keys j). The colour scale "
                        "(viridis) spans only {lo} to {hi}, the smallest and largest weight of all heads, "
                        "so that small differences show.",
        "masked_caption": "Hatched grey cells are masked.",
        "look_alt": "For each of the {heads} heads, the attention row of pixel p0 drawn back on the {H}×{W} "
                    "grid; colours span {lo} to {hi}.",
        "look_caption": "Where does pixel p0 look? Its attention row, per head, drawn back on the feature map "
                        "(p0 outlined; colours span {lo} to {hi}).",
    },
    "vi": {
        "keys": "key j", "queries": "query i", "weight": "trọng số chú ý", "row": "hàng", "col": "cột",
        "attn_title": "A_{h}: trọng số chú ý của head {h}",
        "look_title": "head {h}: p{p} nhìn vào đâu",
        "conv1x1": "conv 1×1 {a}→{b}", "split": "tách theo head", "softmax": "softmax theo key j",
        "chunk": "chunk, tách head", "project": "chiếu W_Q, W_K, W_V", "columns": "các cột của X",
        "mask": "mask", "merge": "gộp các head",
        "shapes_alt": "Sơ đồ kích thước các tensor qua attention {variant}, từng bước.",
        "shapes_caption": "Kích thước của mọi tensor được ghi lại, với kích thước thật của ghi chú này.",
        "attn_alt": "Bản đồ nhiệt trọng số chú ý của head {h}: {n} query (hàng) × {m} key (cột), "
                    "giá trị ghi trong từng ô; màu trải từ {lo} đến {hi}.",
        "attn_caption": "Trọng số chú ý của head {h} (hàng: query i, cột: key j). Thang màu (viridis) chỉ "
                        "trải từ {lo} đến {hi}, trọng số nhỏ nhất và lớn nhất của mọi head, để thấy được "
                        "những khác biệt nhỏ.",
        "masked_caption": "Ô xám gạch chéo là ô bị mask.",
        "look_alt": "Với mỗi head trong {heads} head, hàng chú ý của pixel p0 vẽ lại trên lưới {H}×{W}; "
                    "màu trải từ {lo} đến {hi}.",
        "look_caption": "Pixel p0 nhìn vào đâu? Hàng chú ý của nó, theo từng head, vẽ lại trên feature map "
                        "(p0 được viền; màu trải từ {lo} đến {hi}).",
    },
}
