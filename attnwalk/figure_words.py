"""The words of the figures (titles, axes, alt text, captions), in each language of the notes."""

WORDS = {
    "en": {
        "keys": "key j", "queries": "query i", "weight": "attention weight", "row": "row", "col": "column",
        "attn_title": "$A_{{{h}}}$: attention weights of head {h}",
        "look_title": "head {h}: where p{p} looks",
        "conv1x1": "1×1 conv {a}→{b}", "split": "split per head", "softmax": "softmax over keys j",
        "chunk": "chunk, split heads", "project": "projections\nW_Q, W_K, W_V", "columns": "columns of X",
        "mask": "mask", "merge": "merge heads", "s_masked": "S masked", "o_merged": "O merged",
        # the tensors in order, then where their shapes are in words a screen reader reads (audit #49): the
        # shapes themselves would be integers check leaves unread in every figure note
        "shapes_alt": "Diagram of the tensor shapes through the {variant} attention, step by step: {chain}. "
                      "Every shape, with this note's sizes, is listed in the quick-check table.",
        "shapes_caption": "The shapes of every recorded tensor, with this note's sizes.",
        "attn_alt": "Heatmap of the attention weights of head {h}: {n} queries (rows) by {m} keys (columns), "
                    "darker for smaller weights{cells}.",
        "cells_written": ", each cell's weight written in it",
        "cells_fewer": " to three decimals, fewer than the text's",
        # one item per query (up to ALT_ROWS queries): the key it weighs most, in check's "pi → pj (weight w)"
        "alt_most": " The key each query weighs most: {pairs}.",
        "alt_pair": "{q} → {k} (weight {w})",
        "look_where": "head {h} looks most at {pmax} ({at_max}) and least at {pmin} ({at_min})",
        "rows3": ["top", "middle", "bottom"], "cols3": ["left", "centre", "right"], "place": "{row} row, {col} column",
        # Every number of a caption is one `attnwalk check` verifies: "pi → pj (weight w)" of the head the
        # caption names, and "the weights lie in [lo, hi]" over all heads.
        "attn_caption": "Attention weights of head {h} (rows: queries i, columns: keys j). Smallest: {qmin} → {kmin} "
                        "(weight {lo_h}); largest: {qmax} → {kmax} (weight {hi_h}).",
        "scale_caption": "The colour bar (viridis) runs from the smallest to the largest weight of all heads: the "
                         "weights lie in [{lo}, {hi}].",
        "narrow_caption": " Only that range is coloured, so that small differences show.",
        "masked_caption": "The colour bar (viridis) spans the weights that are not masked, in all heads; hatched grey "
                          "cells are masked (their weight is 0).",
        # every pair masked (padding:K over every key): no cell is coloured, and a finite fill gives the
        # masked cells weights that are not 0 (1/m each), so masked_caption's "their weight is 0" is not said
        "all_masked_caption": "Every pair is masked (the padding covers every key), so every cell is hatched grey; "
                              "what such a row gets is the fill value's policy, in the mask step.",
        "alt_none": " Every key is masked for every query.",
        "pooled_caption": "With {n} × {m} weights, more than the picture has pixels, each square covers a block "
                          "of {k} × {k} pairs and shows the largest weight in it, so that a single strong weight "
                          "stays visible.",
        "look_alt": "For each of the {heads} heads, the attention row of pixel p0 drawn back on the {H}×{W} "
                    "grid{cells}. {where}.",
        "look_cells": ", each cell named by its pixel and holding its weight",
        "look_caption": "Where does pixel p0 look? Its attention row, per head, drawn back on the feature map "
                        "(p0 outlined{shown}). {most} The colour bar is that of "
                        "the heatmaps: the weights lie in [{lo}, {hi}].",
        "look_shown": "; each cell shows its pixel and weight",
        "look_most": "head {h} looks most at {p}",
        "and": "and",
    },
    "vi": {
        "keys": "key j", "queries": "query i", "weight": "trọng số chú ý", "row": "hàng", "col": "cột",
        "attn_title": "$A_{{{h}}}$: trọng số chú ý của head {h}",
        "look_title": "head {h}: p{p} nhìn vào đâu",
        "conv1x1": "conv 1×1 {a}→{b}", "split": "tách theo head", "softmax": "softmax theo key j",
        "chunk": "chunk, tách head", "project": "chiếu W_Q, W_K, W_V", "columns": "các cột của X",
        "mask": "mask", "merge": "gộp các head", "s_masked": "S đã che", "o_merged": "O đã gộp",
        "shapes_alt": "Sơ đồ kích thước các tensor qua attention {variant}, từng bước: {chain}. "
                      "Kích thước của từng tensor, với kích thước thật của ghi chú này, có trong bảng ở mục "
                      "kiểm tra nhanh.",
        "shapes_caption": "Kích thước của mọi tensor được ghi lại, với kích thước thật của ghi chú này.",
        "attn_alt": "Bản đồ nhiệt trọng số chú ý của head {h}: {n} query (hàng) × {m} key (cột), "
                    "ô càng tối trọng số càng nhỏ{cells}.",
        "cells_written": ", trọng số ghi trong từng ô",
        "cells_fewer": " với ba chữ số thập phân, ít hơn trong bài",
        "alt_most": " Key mà mỗi query chú ý nhiều nhất: {pairs}.",
        "alt_pair": "{q} → {k} (trọng số {w})",
        "look_where": "head {h} nhìn nhiều nhất vào {pmax} ({at_max}) và ít nhất vào {pmin} ({at_min})",
        "rows3": ["trên", "giữa", "dưới"], "cols3": ["trái", "giữa", "phải"], "place": "hàng {row}, cột {col}",
        "attn_caption": "Trọng số chú ý của head {h} (hàng: query i, cột: key j). Nhỏ nhất: {qmin} → {kmin} "
                        "(trọng số {lo_h}); lớn nhất: {qmax} → {kmax} (trọng số {hi_h}).",
        "scale_caption": "Thang màu (viridis) trải từ trọng số nhỏ nhất đến lớn nhất của mọi head: trọng số nằm "
                         "trong khoảng [{lo}, {hi}].",
        "narrow_caption": " Chỉ khoảng đó được tô màu, để thấy được những khác biệt nhỏ.",
        "masked_caption": "Thang màu (viridis) trải trên các trọng số không bị che (mask) của mọi head; ô xám gạch "
                          "chéo là ô bị che (trọng số bằng 0).",
        "all_masked_caption": "Mọi cặp đều bị che (phần đệm phủ mọi key), nên mọi ô đều là ô xám gạch chéo; "
                              "trọng số của một hàng như vậy theo quy ước của giá trị lấp, ở bước mask.",
        "alt_none": " Với mọi query, mọi key đều bị che.",
        "pooled_caption": "Với {n} × {m} trọng số, nhiều hơn số điểm ảnh của hình, mỗi ô vuông gộp một khối "
                          "{k} × {k} cặp và tô màu trọng số lớn nhất trong khối, để một trọng số lớn đơn lẻ "
                          "không bị mất khi thu nhỏ.",
        "look_alt": "Với mỗi head trong {heads} head, hàng chú ý của pixel p0 vẽ lại trên lưới {H}×{W}"
                    "{cells}. {where}.",
        "look_cells": ", mỗi ô ghi tên pixel và trọng số của nó",
        "look_caption": "Pixel p0 nhìn vào đâu? Hàng chú ý của nó, theo từng head, vẽ lại trên feature map "
                        "(p0 được viền{shown}). {most} Thang màu giống các bản đồ nhiệt: "
                        "trọng số nằm trong khoảng [{lo}, {hi}].",
        "look_shown": "; mỗi ô ghi tên pixel và trọng số",
        "look_most": "head {h} nhìn nhiều nhất vào {p}",
        "and": "và",
    },
}
