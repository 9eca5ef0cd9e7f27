"""What every held-out round asserts (tests/corpus/heldout*/: real public notes check had never seen, each round
measured once before any change in its FIRST_RUN.md): its notes are new real notes (a source line, in no earlier
round), torch proves as many numbers wrong per note as the round's table says, no right number is called wrong on
any of them, check finds the wrong numbers per note that benchmarks/heldout.py prints, the benchmark's all-row,
FIRST_RUN.md's all-row kept as it was printed, and where --fix converges. What each round's readers do is tested in
tests/test_check_heldoutN.py.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

import shutil
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import heldout_tools

from attnwalk.check import check_file
from attnwalk.scenario import load_scenario

pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"

truth, bench = heldout_tools()


class Round(NamedTuple):
    folder: str
    languages: set  # the note names' prefixes
    at_least: int  # notes
    wrong: int  # numbers torch proves wrong in the round's claims
    found: dict  # note -> wrong numbers check finds now (FIRST_RUN.md: before any change)
    all_row: str  # how the benchmark's all-row starts: | **all** | wrong | found | recall | false positives |


# wrong numbers check finds per note (heldout: torch finds 1, 6 and 5 there; FIRST_RUN.md: 1, 1 and 0 before
# notations.py).
# en_cat_ate_mouse_percent's 37 % restates the note's own 1.47 / 4.02 = 0.37 (right arithmetic) where torch's
# weight is 36.46 %: a miss, not a false alarm; the softmax note's row sum
# 149.492 (148.41 + 1.00 + 0.082, rounded addends) is found by notations.exponential_sums: e^5 + 1 + e^-2.5 = 149.4952.
HELDOUT = {"en_softmax_by_hand_10_0_m5": 6, "en_widget_data_the_cat_sat": 5}

# wrong numbers check finds per note (FIRST_RUN.md: 16 of 61 before the recognisers below, 53 after them, all 62
# since zh's step-6 products of its one-decimal weights, ``2: 0.5 * [2, 8, 0] = [1.0, 4.0, 0.0]``, are judged as the
# weighted values they restate: notations.rounded_weight_sums). Its step-7 addends restating those products
# (``[0.0, 0.0, 0.0] + [1.0, 4.0, 0.0] + ...`` under "加权值") were judged as V's rows, so --fix wrote V there; now
# "加权值" names no V and the addends are judged as the products they restate (the same 33 found).
# Results of printed arithmetic (docs/course.md): a number written as the result of a product or sum of operands
# printed right there is right where it rounds torch's value or that arithmetic, the arithmetic counting only where
# its operands are right themselves; the claims carry it as ``or_arith`` (tests/corpus/heldout/truth.py). Under it,
# zh's products ``0.5 * [2, 8, 0] = [1.0, 4.0, 0.0]`` and ``0.5 * [2, 6, 3] = [1.0, 3.0, 1.5]`` (weight 0.5 rounding
# torch's 0.4683) and step 7's addends restating them are right: 10 fewer wrong and found (1.0, 4.0, 1.0, 3.0, 1.5 on
# lines 109-110 and 119-120; torch 0.9, 3.7, 0.9, 2.8, 1.4). Line 108's products of the wrong weight 0.0 stay wrong.
HELDOUT2 = {"en_blog_arrow_annotations": 2, "en_html_cells_one_per_line": 8, "ko_latex_bmatrix_assumed_weights": 16,
            "zh_illustrated_self_attention_rounded": 23, "zh_numpy_comment_outputs_keys": 3}

# wrong numbers check finds per note (FIRST_RUN.md: 2 of 56 before the recognisers below, 38 after them, 48 since
# the ko notes' own sums of their rounded weights, ``0.668*[1,0] + 0.332*[2,1] ≈ [1.332, 0.332]``, ``[0,0.1345]``,
# are judged as the output they restate: test_rounded_weight_sums_are_the_output_rows_they_stand_for). The ja score
# matrix ``E = QKᵀ`` (its own Q and K's 1s and 0s, torch's 2s) was judged as QKᵀ/√2 (1.414 printed as 1: half its
# cells agree) and its eight 0s flagged, so --fix wrote the scaled scores' 1s there; now a tensor the label's word
# is only widened to must agree in most cells (human.best_reading): not understood, 20 found before, 12 now.
# Results of printed arithmetic: the cafe note's ``[0,0.1345] = [0.402, 0.4635]`` (0.269 * 0.5 and 0.329 + 0.1345,
# the weights rounding torch's; torch 0.1347, 0.4636) are right: 2 fewer wrong and found.
HELDOUT3 = {"en_gqa_worked_example": 5, "ja_projection_tables_latex": 12, "ko_blog_2x2_rounded_weights": 20,
            "ko_blog_cafe_menu_three_keys": 1}

# wrong numbers check finds per note (FIRST_RUN.md: 4 of 12). Found since: the side-by-side README's weights block
# (a caption ending in a colon just above a matrix names it, not the "Expected Output" heading above the fence), the
# pandoc README's escaped lists (\[\[...\]\] read as lists where unambiguous), the two-decimal README's truncated
# output matrix (Portuguese words for the tensors: "Saída obtida:").
HELDOUT4 = {"en_lab_readme_side_by_side_inputs": 8, "en_lab_readme_escaped_brackets": 2,
            "pt_lab_readme_two_decimals": 2}

# wrong numbers check finds per note (FIRST_RUN.md: 0 of 183). Found since: the slide's quoted output under the
# German heading "Ergebnis" and its restatement in code; the ViT guide's "After Attention" table (rows named by the
# token after the position), its dot products written out in the table's cells, the score list restating that
# column, the softmax of the printed scores on the next line, the weights as coefficients of ``new_E``, and the
# scores the prose quotes after a token's word (``H (0.194)``), the table of projections by the matrix E the guide
# prints and works out once for patch A, and the two tables restating those projections.
# and (heldout6) the coefficients of F's weighted sum that restate its printed, wrong softmax row (``0.08×[..]``).
# And the guide's ``Lower attention to itself (0.084)`` restating ``E(0.084)`` (human._restated_by_self), the lab's
# ``0.119 and 0.880 respectively`` after ``the respective scores of 927 and 929`` (forms.respective_weights; torch
# 0.8808 -> 0.881).
HELDOUT5 = {"de_notebook_slide_expected_output": 2, "en_vit_patch_attention_tables": 178,
            "en_nbconvert_dot_attention_float128": 1}

# wrong numbers check finds per note (FIRST_RUN.md: 21 of 61). Found since: the study guide's outputs worked out from
# its own wrong weights (z₁ = 0.47·[1,0] + ..., the coefficients restating α's printed rows); the course document's
# ``después: [..]`` under ``antes: [..]`` (the softmax of the list before); the solution's ``Suma = 4.4524`` under
# its ``exp(0.7071) = 2.0281`` lines (the row's Σ e^s).
# And the devlog's ``output = 0.18*V_si + 0.49*V_llueve + ...`` restating its judged softmax row two lines above
# (notations.value_coefficients, the row by the weights it restates): 3 more.
HELDOUT6 = {"es_bootcamp_solution_exp_rows": 11, "es_course_doc_scores_then_softmax": 2,
            "es_devlog_unscaled_one_query": 6, "es_doc_frames_rounded_softmax": 16,
            "es_notes_softmax_from_zero_percent": 4}


# wrong numbers check finds per note (FIRST_RUN.md: 5 of 44). Found since: the handbook's coefficients restating its
# wrong weight row 14 lines above (``= 0.34×[1.0,0.0] + ...``), its products on the next line (``= [0.34,0.0] +
# [0.145,0.145] + ...``) and its output on the line after (``= [0.764, 0.346]``).
# The Korean lesson's ``\mathbf{p} \approx (0.09, 0.24, 0.66)`` below ``\mathbf{z} = (1, 2, 3)``: the softmax of the
# scores' tuple (forms.softmax_tuples; torch 0.6652 -> 0.67).
# The handbook's weights restated as ``(Virat=0.34, scored=0.29, a=0.17, century=0.31)`` under the judged row
# (human._restated_by_name): 4 more.
# The Indonesian comments' ``Setelah softmax: tensor([[0.05, 0.95]])`` and ``probs = [0.05, 0.95]`` below the logits
# judged as the scores (forms.weights_below_scores; torch 0.0241, 0.9759), and the ``5% Non-Clickbait, 95% Clickbait``
# after the first, restating it (human._restated_as_percent; 2%, 98%): 6 more.
HELDOUT7 = {"en_handbook_virat_rounded_weights": 20, "en_robotics_notes_softmax_logits": 2, "ko_softmax_concept_123": 1,
            "id_clickbait_logits_comment": 6,
            # (the Vietnamese lesson's weighted terms ``= [0.506+0.930+2.763, 1.012+1.116+3.070, ...]``, found
            # as torch's 0.9316, 2.7648, 1.0130, 1.1179, 3.0720 before, are the products of its printed weights
            # 0.506, 0.186, 0.307, each rounding torch's: right as results of printed arithmetic, 5 fewer)
            }

# wrong numbers check finds per note (FIRST_RUN.md: 19 of 61, and 35 right numbers called wrong on seven notes).
# Found since: the report's and the exam's weight rows named by a row subscript, ``A_{1,:} = A_{2,:} = [0.1636, \;
# 0.1636, \; 0.6727]``, ``\mathbf{A}_{1\cdot} = \left[0.045,\; 0.768,\; 0.186\right]`` (notations.indexed_rows),
# and the weight matrices named by a bold letter, ``\mathbf{A} \approx \begin{bmatrix}`` (bold_letter_matrices).
# and the exam's row-3 sum 38.018 (torch 37.951), its "Row 1 … Row 3" read 1-based (checker._context).
# The exam's boxed O (``\boxed{\mathbf{O} \approx \begin{bmatrix}``, torch [0.4642, 1.9546], [1.9426, 1.5144]): its
# W_Q, W_K, W_V printed side by side on one line no longer read W_K as a wrong W_Q (forms._LAST_MATRIX_END), so the
# note is no "other example" and a bold O is sure; 4 more.
# The Chinese comments' ``"好"的注意力权重：[0.21, 0.50, 0.29, 0.00]`` and ``"好"的新向量 = 0.21×V_<s> + .. =
# [0.51, 0.52, 0.36, 0.43]`` (a row named by its token in quotes: forms.token_rows; torch [0.2290, 0.4611,
# 0.3099], [0.5223, 0.4928, 0.3775, 0.4155]) and the coefficients restating the first (notations.value_coefficients):
# 10 more.
# The causal note's weighted sums written with ``\times`` in a display, ``$$0.196 \times [2.0, 0.0] + 0.804 \times [0.0,
# 2.0] = [0.392, 1.608]$$`` (notations.rounded_weight_sums: ``\times`` and a closing ``$$``; torch [0.3911, 1.6089]),
# and row 2's coefficient 0.504 (torch 0.5035) and result 1.504 (torch 1.503490: 1.503): 4 more.
# The exam's stage-E outputs ``.. = [0.462, 1.953]$.`` (a weighted sum closed by ``$`` and a period; torch [0.4642,
# 1.9546], [1.9426, 1.5144]): 4 more.
# The causal note's ``$$\mathbf{H} = [A][V]$$`` under ``$\mathbf{H} = \mathbf{A} \mathbf{V} \in ..$`` (its factors
# named by the letters of the line above: forms.display_products; the row-2 weight 0.504, torch 0.5035): 1 more.
# The French exercise's ``"dort" accorde .. son attention (0.504) à lui-même`` (a token's weight on itself said in
# prose: human._own_weight; torch 0.5035): 1 more.
# Results of printed arithmetic: the exam's row 2 ``= [1.944, 1.516]`` sums its printed products (torch 1.943,
# 1.514) and the causal note's ``= [0.392, 1.608]`` is 0.196 * 2.0, 0.804 * 2.0 (torch 0.391, 1.609): 4 fewer found
# and wrong; the exam's products 0.372 of its wrong weight 0.186 (torch 0.373) and the causal note's 1.008 and 0.504 of
# its wrong 0.504 (torch 1.007, 0.503), claimed as the note's arithmetic before, are wrong: 4 more wrong, not found.
HELDOUT8 = {"en_exam_notes_ktu_three_tokens": 17, "en_notes_causal_order_shipment": 9,
            "fr_course_le_chat_dort_fences": 4, "fr_course_smiles_cco_pmatrix": 6,
            "zh_comments_causal_sdpa_weights": 10}
# heldout8's notes with right numbers still called wrong: none (the first run's 35 are fixed:
# test_check_heldout8.FALSE_POSITIVES, tests/test_check_fp8.py)
HELDOUT8_FALSE_POSITIVES: dict = {}
# the exam's ``\exp(2.828)=16.952`` was fixed to the printed operand's exp(2.828) = 16.912; its exponents print a
# row of the scaled scores, so the exponentials are claims about e^ŝ too and --fix writes e^(2√2) = 16.919
# (check.exponentials)
HELDOUT8_FIX_GAPS: dict = {}

# wrong numbers check finds per note (FIRST_RUN.md: 25 of 131, no right number called wrong): the reference note's
# softmax row ``\approx [0.422, 0.156, 0.422]`` (torch 0.401, 0.198, 0.401), the Portuguese script's
# ``ESPERADO_OUTPUT`` row ``[0.496, 0.504]`` (0.497, 0.503), the TLOB document's weight matrix and output rows (from
# the true X @ W: its K, V and Q rows 1-2 are not X @ W, so 106 of its numbers are wrong and 86 are missed).
# Found since: the script's ``ESPERADO_ATENCAO`` row ``[0.248, 0.504, 0.248]`` (torch 0.503; "atencao", Portuguese
# identifiers without the cedilla, names the weights) and the Traditional Chinese note's ``a_{2,\cdot} = [0.248,\
# 0.248,\ 0.504]`` (a lower-case a with a row subscript, notation.ROW_SYMBOLS): 2 more; the TLOB document's NumPy
# literals of Q (rows 1-2: 6), K (9), V (9), the scores (9) and the scaled scores (9), read from its python blocks
# (check/program.py: ``Q = np.array([..])`` judged as Q; torch from the true X @ W, every one in its claims): 42 more.
# And the Qwen2-VL note's outputs ``0.456 \times [10, 0] + .. = [6.16, 3.85]`` (its own arithmetic of its rounded
# weights; torch 6.1546: notations.rounded_weight_sums with ``\times``): 2 more.
# The Traditional Chinese note's row-3 sum ``\text{sum} = 14.478`` in its own display below the exponentials' (torch
# 14.4835) and the Portuguese chapter's ``soma = 6.131`` below ``exp(0.5) = .., exp(1.5) = .., exp(-inf) = 0`` (torch
# e^0.5 + e^1.5 = 6.1304): notations.exponential_sums past ``$$`` lines, a masked row's finite cells: 2 more.
# The Traditional Chinese note's matrix ``A = \begin{bmatrix}`` (line 141's 0.504: a plain capital names a matrix where
# most of its numbers agree: notations.bold_letter_matrices), and the same matrix as the first factor of ``O = AV =
# [..][..]`` on line 155 (a product's factors named by its letters: forms.display_products): 2 more.
# And its coefficient 0.504 of ``o_2 = 0.248 \cdot \begin{bmatrix}0\\1\end{bmatrix} + ..`` (V's rows as LaTeX
# columns: notations.rounded_weight_sums): 1 more.
HELDOUT9 = {"en_reference_pmatrix_column_value": 3, "es_tlob_doc_projected_python_blocks": 62,
            "pt_book_causal_mask_given_scores": 1, "pt_test_script_expected_constants": 3,
            "zh_hant_kernel_regression_cat_mouse": 5}
# Results of printed arithmetic: the Qwen2-VL note's 6.16 (twice) is 0.456 * 10 + 0.320 * 5 of weights rounding
# torch's (torch 6.15): right, 2 fewer found and wrong; the reference note's products 0.844, 0.422 of its wrong 0.422
# (torch 0.802, 0.401) and the Traditional Chinese note's products 0.504 of its wrong 0.504 (torch 0.503), claimed as
# the notes' arithmetic before, are wrong: 4 more wrong, not found.

# wrong numbers check finds per note (FIRST_RUN.md: 7 of 45, and 8 right numbers called wrong on the two Korean notes):
# the English lesson's ``output_1 = 0.669*[1,0] + 0.331*[0,1] ≈ [0.669, 0.331]`` (torch 0.670, 0.330), the Korean
# note's ``0.669 \cdot 2 + 0.331 \cdot 8 = 4.316`` (as its own arithmetic, 3.986; torch 3.981) and the Turkish comment
# row ``#  [0.50, 0.50, 0.71]]`` of the scaled scores (torch 0.71).
# Found since: the Turkish comment rows of the weights and the output under ``print("Ağırlıklar:\n",
# weights.round(3))`` and ``print("Çıktı:\n", output.round(2))`` (notations.commented_print_results): 13 more.
# And the softmax calls ``softmax([0.707, 0]) ≈ [0.669, 0.331]`` of the English lesson and the Korean note: the
# arguments' rounding allows σ(0.707 ± 0.0005) = 0.66974 ± 0.00011, not 0.669 (notations._judge_softmax's slack, h/2
# for every weight before, is the first-order bound of each): 4 more.
# And the Korean course's output ``≈ [4.2, 5.3, 6.4, 7.6]`` indented below ``output = 0.51[1,2,3,4] + 0.19[5,6,7,8] +
# 0.31[9,10,11,12]`` (torch 4.2, 5.2, 6.2, 7.2; notations._TERM reads a weight right before its value row, and
# _sum_going_on an indented result on the next line): 3 more.
# And a two-number list of three decimals quoted again restates the judged one (human._restated_lists: three numbers
# before): the lesson's backticked ``[0.669, 0.331]`` in its prose twice, the Korean note's ``[0.669,0.331] \cdot``:
# 6 more.
# And the Korean note's ``[0.669 \cdot 1 + 0.331 \cdot 9,\ 0.669 \cdot 2 + 0.331 \cdot 8] = [3.648,\ 4.316]``: the
# coefficients restate weights row 0, the list after it is output row 0 (notations.entrywise_weighted_sums; torch
# 3.642, 3.981), so --fix writes torch's row where it wrote the note's own arithmetic, 3.986: 5 more.
# Results of printed arithmetic: the Korean course's 5.3 is 0.51*2 + 0.19*6 + 0.31*10 = 5.26 of weights rounding
# torch's (torch 5.2): right, 1 fewer found and wrong (its 6.4 and 7.6 are neither: 6.27, 7.28).
HELDOUT10 = {"en_lesson_self_attention_by_hand": 10, "ko_lecture_day43_hand_calculation": 2,
             "ko_obsidian_note_the_cat": 10, "tr_course_numpy_printed_comments": 15}
# heldout10's notes with right numbers still called wrong: none. The first run's 8 are fixed: the Korean course's
# ``exp([1, 0, 0.5]) = [2.72, 1, 1.65]`` is the exponentials of its arguments (notations.exponential_calls), and a
# LaTeX factor of a written-out product (``QK^\top = [Q] [K^\top] = ..``, ``[0.5,0.5] \cdot [V]``) is none of the
# products' results its label names (notations.factor_readings): test_check_heldout10
HELDOUT10_FALSE_POSITIVES: dict = {}
HELDOUT10_FIX_GAPS: dict = {}  # (the first run's one gap, the Korean note's 4.316, is closed: see HELDOUT10)


# wrong numbers check finds per note (FIRST_RUN.md: 45 of 75, and 11 right numbers called wrong on four notes): the
# practice problems' 0.76 (torch 0.77) in its softmax rows, weights and weighted sum and its output [0.29, 1.71] from
# the rounded weights (0.28, 1.72); the study guide's rows computed from its wrong K = X W_K (31: scaled scores,
# exp(2.828) ≈ 16.99, the sums 25.21 and 8.17, the weights); the Chinese course note's hand-rounded exponentials 285,
# 19800, 16, 33000 and its output [49.72, 59.72] from the rounded weights (49.71, 59.71); the MkDocs exercise's
# 1/4.2974 ≈ 0.2328 (0.2327).
# Found since: the Chinese course note's final ``Attention(Q,K,V) ≈ [[49.72, 59.72], ..]`` (the function's value
# is the output: notation.WORDS["out"]): 2 more.
# Results of printed arithmetic (the first run's 2 false positives, which the convention was decided on): the practice
# problems' ``[0.10, 0]`` is 0.05 * [2,0] (0.05 rounding torch's 0.0454: right) and its output's 0.29 sums 0.10 + 0 +
# 0.19 (right; torch 0.28): 1 fewer found; its 1.52 is 0.76 * 2 of the wrong 0.76 (torch 1.54): wrong, 1 more found
# (the same 7), and its 1.71 sums that wrong 1.52 (torch 1.72): wrong still. The Chinese course note's ``≈ [49.72,
# 59.72]`` is 0.014*30 + 0.986*50 of weights rounding torch's (torch 49.71, 59.71): right, 2 fewer found and wrong.
# Session 28: the Chinese course note's ``分母和：4.11 + 285 + 19800 ≈ 20089.11`` restates the exponentials above it
# (check.exponentials.restated_sum): its 285 and 19800 wrong as their originals, its total torch's row sum, 3 more.
HELDOUT11 = {"en_practice_problems_cat_sat_projection": 7, "en_study_guide_latex_backticked_rows": 31,
             "ko_mkdocs_exercise_admonition": 1, "zh_course_notes_two_queries_three_keys": 9}
# heldout11's notes with right numbers still called wrong (FIRST_RUN.md), each with the one change it needs
# (fixed since: the Chinese course note's aside ``d_k = 512/8 = 64`` after 例如/若 is no claim about the scenario
# (notations.worked_hypotheticals) and its ``4.11/20089.11≈0`` is an integer rounded to units after ≈
# (checker._arith); the Korean card's ``2.028 \quad e^{0}=1`` is two claims, not the product 2.028·e^0
# (expr._implicit_ok: juxtaposition across a gap wider than one space); the exam's written-out products
# ``S = QK^{\top} = [Q] [Kᵀ] = [S]``, ``Y = A V = [A] [V] = [Y]`` name their factors and result by the label's
# letters (notations.product_letters), not by ``K = X W^K`` on a line above)
# (and the practice problems' ``[0.10, 0]`` after ``0.05 * [2,0]`` is a result of printed arithmetic: right, as its
# weight rounds torch's; notations.rounds_either)
HELDOUT11_FALSE_POSITIVES: dict = {}
# where --fix does not converge to torch's numbers on heldout11 (FIRST_RUN.md)
HELDOUT11_FIX_GAPS = {
    # (its ``exp(2.828) ≈ 16.99`` fixed to the printed argument's 16.91 is right since the convention on results of
    # printed arithmetic: the claims accept it)
    ("heldout11", "en_study_guide_latex_backticked_rows"): "--fix writes the scaled scores [1, 1, 0] where line 146 "
    "prints the raw scores of row 2",
}


# wrong numbers check finds per note (FIRST_RUN.md: 16 of 49, and 1 right number called wrong): the river-bank
# lesson's two stated weight rows (``A = [0.4223 0.2104 0.4223; 0.0463 0.7675 0.1862; ..]``, torch [0.4011 0.1978
# 0.4011; 0.0454 0.7679 0.1867]) in A and in ``A · V``; the notebook's 0.504 (torch 0.50349) in a_1 and Y_1 and its
# output 1.504 (torch 1.50349) in Y_1 and Y.
# Found since: the notebook's sums stated after their row's exponentials, ``e^{0.707}=2.028, .., e^{1.414}=4.114$,
# sum $=8.170$`` and ``sum $=9.228$`` (torch's row sums 8.1695, 9.2265: notations.stated_row_sums): 2 more; the
# Korean lecture's sum of its exponentials of the scores minus the row maximum, ``\sum &\approx 1.9863`` below
# ``e^{0.7071-1.4142}&=e^{-0.7071}\approx 0.4931\\`` in an ``aligned`` block (torch 1 + 2e^(-1/√2) = 1.9861:
# notations.shifted_exponentials): 1 more.
HELDOUT12 = {"en_course_day35_obsidian_callouts_river_bank": 12, "en_notebook_cross_attention_mpmath": 6,
             "ko_lecture_stable_softmax_three_tokens": 1}
# heldout12's notes with right numbers still called wrong: none. The first run's one is fixed: the chapter's
# ``o_2^{(1)} = 0.330\,[1,0] + ..`` read the head index of the superscript as the arithmetic ``(1) = 0.330``; an
# exponent right after ``^`` starts no claim of its own (checker.Checker's scan), so --fix no longer writes 1.000
# over the weight there
HELDOUT12_FALSE_POSITIVES: dict = {}
HELDOUT12_FIX_GAPS: dict = {}

# wrong numbers check finds per note (FIRST_RUN.md: 20 of 96, and 13 right numbers called wrong, before the readers
# below): the Julia session's stale ``Z = A * V`` display and its restatement (10), the R page's hand-check sum of the
# exponentials of unscaled scores, the thread's sum that does not add up, the Zenn article's transposed ``QK^\top``
# (2), the Marp deck's transposed masked row, weights and restated output (6). Found since: the forum answer's numbers
# with decimal commas, read with points (check.commas: its sum 8,1795, the unscaled third row's weights in the row,
# in A and in z3, z2's 2,2553 and the restated Z, where ``Kết quả: Z`` now names the output, not the keys of ``Kết``:
# human._find_phrase), 18; the spreadsheet's blocks under its column letters (check.sheets: the unscaled third score
# row, its e^ŝ, sum and weights, the outputs 1.462 and the swapped last row), 14; the two-head notes' Unicode bracket
# matrices (check.brackets: head 2's weights and outputs, and the concatenation's copied row), 10; the row sums stated
# in one prose list (check.rowsums: the Julia session's 13.779 and the R page's 10.2456), 2; the Zenn article's sum
# ``和 $≒ 8.8235$`` after its exponentials, ≒ read as ≈ (check.relations), 1; the R page's ``Token 3's output is
# (0.599, 0.803)`` (check.numbered_rows), 1; the forum answer's third row of exponentials of its raw scores
# (``e^2 ≈ 7,3891; e^3 ≈ 20,0855`` where the softmax takes [0,7071; 1,4142; 2,1213]: check.unscaled), 4; the Julia
# session's ``Token 3 puts 41.2% of its attention on itself`` (check.own_weights, session 27), 1; the thread's
# ``e^0.5 ≈ 1.648`` in a row of exponentials parted by ``·`` (read by no claim: check.exponentials judges it as e^ŝ)
# and its restatement in the sum below (check.exponentials.restated_sum), 2 (session 28).
HELDOUT13 = {"en_julia_repl_matrix_float64": 12, "en_rmarkdown_console_row_labels": 3,
             "en_spreadsheet_cells_exp_formulas": 14, "en_thread_five_tokens_given_logits": 3,
             "ja_zenn_linear_layout_approx_equal": 3, "vi_forum_decimal_comma_semicolon_lists": 22,
             "vi_marp_slides_causal_minus_infinity": 6, "vi_plaintext_unicode_brackets_two_heads": 10}
# heldout13's right numbers called wrong on the first run, all fixed: the thread's ``d_k = 4`` and ``√4 = 2`` (given
# scores × 1/2: d_k is 4, not 0; check._given_dk) and the forum answer's ten numbers split at their decimal comma
HELDOUT13_FALSE_POSITIVES: dict = {}
# where --fix writes the arithmetic of a wrong printed operand (a sum flagged as arithmetic, fixed to the sum of its
# printed terms, one of which torch proves wrong: the sum stays wrong by torch's row sum)
HELDOUT13_FIX_GAPS = {
    ("heldout13", "en_rmarkdown_console_row_labels"): "--fix writes 17.4964 (e^1 + e^2 + e^2, the unscaled scores' "
    "exponentials the line prints) where torch's row sum is 10.2546",
    ("heldout13", "vi_forum_decimal_comma_semicolon_lists"): "the exponentials of the unscaled third row are flagged "
    "with no fix (ŝ at the exponent's precision, e^1 for 1.4142, would make the line other arithmetic): left wrong",
}
# (closed in session 28: the thread's ``+ 1.648 + .. = 7.419``, fixed to 7.428, the sum of its printed terms, one of
# them wrong: its 1.648 is now found as e^0.5 and fixed to 1.649 before the sum, written 7.429, torch's 7.4286)

# heldout14 (notes written for the round, mistakes planted): FIRST_RUN.md found 14 of 74 (the lecture's τ-less row
# and 1.2898, the exam's S_23, row sum and 0.5053, the notebook's stale row, the rst page's 0.8212, the Anki deck's
# 0.3320 and its concatenation's head-2 half); since then, the rst and AsciiDoc tables (check.markup_tables: the
# rst list-table's slip, the copied grid row, the AsciiDoc exponent and digit slips), 5; the tables of e^ŝ with a sum
# column (check.sum_columns: the lecture's 6.0175, the rst page's 4.7548), 2; the weights in percent with a tổng
# column (check.sum_columns: the Colab notebook's 29.4%, its copied 44.6% and the sum 100.2%), 3; an exam's final
# answer's outputs as tuples ``$z_3 = (0.7536, 0.4966)$`` and the AsciiDoc listing's ``z2 = [..]`` (check.tuple_rows),
# 4; then (session 27) the Anki deck's clozes and its cards' ``token 1: e^s = .., sum .., weights ..`` lines
# (check.clozes, check.step_lists: head 2's exponentials, sums and weights), 9; the Colab notebook's ``S`` printed
# transposed (notation.QUERY_ROWS), 6; the cross-attention's ``e_2`` tuple (tuple_rows, ``e``) and ``c_2`` as a sum of
# column vectors with α_1's weights (check.column_sums), 6; the notebook's ``Token 2 puts 0.3747 of its weight on
# itself`` (check.own_weights), 1; the AsciiDoc page's ``e^{6.5} \approx 665.1416 .. and .., so the row sum is
# 678.3341`` (torch 678.3241: check.exponentials, notation.EXP_SUM_PHRASES), 1; weighted sums of value rows written
# as tuples, ``0.2483\,(1, 0) + 0.5053\,(0, 1) + .. = (0.4966, 0.7536)``, each sum read with the values, weights and
# output of its head (notations.rounded_weight_sums: the exam's z_3, the lecture's z_mèo, the Anki deck's head-2
# outputs from its wrong weights), 16 (session 28); the Anki deck's cards judged against the head and tensor they
# name, their numbered rows together (check.line_rows: head 2's scaled scores halved, 3; the concatenation's token 2,
# its slip 0.3320 and its head-2 half copied from token 1, 3); the lecture's ``"mèo" dành 57.61% sự chú ý cho chính
# nó``, its tokens named by its square table of the weights (check.token_words.note_tokens, check.own_weights), 1
# (session 29)
HELDOUT14 = {"en_anki_cloze_cards_second_head_separately": 26, "en_asciidoc_tables_scientific_notation": 5,
             "en_notebook_printoptions_grad_fn_linear": 4, "en_sphinx_rst_list_table_grid_table": 5,
             "vi_colab_einsum_row_vectors_percent": 9, "vi_cross_attention_column_vectors_kt": 6,
             "vi_exam_solution_index_notation_sums": 8, "vi_lecture_temperature_tau_weight_matrix": 11}

# heldout15 (notes written for the round, mistakes planted): FIRST_RUN.md found 18 of 52 and called 36 right numbers
# wrong (the multi-query post's heads numbered from 1, read 0-based; the notebook's ``Out[2]:`` prompt read as the
# output O); both fixed (check.head_subscripts, notation.NOTEBOOK_PROMPT). Since then, LaTeX tabular tables
# (check.latex_tabular: the report's transposed S_12, unmasked row, 0.1957 and 1.9646), 7; list items named q5:, o4 ≈
# (check.row_items: the slides' q5 row without √2 and o4), 4; a hand ``S[0, 2] = 7.0`` where the code binds ``S = Q @
# K.T`` (check.code_names: the notebook's transposed index), 2; the Keras page's ``exp(..) = .., exp(..) = .., which sum
# to 5.4696`` (torch 5.4669: check.exponentials.restated_sum, notation.EXP_SUM_PHRASES), 1; its prose restating the
# prints, ``token 3 attends 0.4176 / 0.2802 / ..`` and ``the outputs are [..], [..] and [.., 0.6236]``
# (check.prose_rows), 2 (session 28); the Viblo blog's rows named by the token words it declares itself (``4 token:
# *Tôi*, *yêu*, *Hà*, *Nội*``, then ``- *Nội*: **0.3189**, ..``, its √2 forgotten) and its worked row under ``Lấy hàng
# của token *yêu* làm ví dụ:`` (0.5838 for 0.5388) (check.token_words), 5; the multi-query post's chains ``O_2 = A_2 V =
# [[..]]`` (1.7823) and ``O = [O_1 | O_2] = [[..]]`` (head 2's pair swapped) (check.label_chains), 3; the notebook's
# prose ``từ hàng điểm `[2, 0.5, 2]` thì softmax cho `[0.4498, ..]``` (the raw score row's softmax, √2 forgotten:
# check.raw_softmax), 3 (session 29)
HELDOUT15 = {"en_jax_log_softmax_logits_z": 2, "en_keras_tf_tensor_prints": 6, "en_multi_query_shared_kv_two_heads": 4,
             "en_revealjs_slides_two_significant_digits": 5, "vi_hoi_dap_one_weight_running_prose": 2,
             "vi_jupyter_out_cells_numpy_array": 9, "vi_latex_tabular_hline_causal_minus_1e9": 8,
             "vi_viblo_blog_bold_numbers_image_alt": 10}

# heldout16 (real public notes again, seven pages): FIRST_RUN.md found 5 of 19 (the widget's first softmax row) and
# called 2 right numbers wrong (the widget's second example's query read as the scenario's). Since then, a print's
# result pasted as comments led by the array's head or by row labels (check.comment_prints: the lesson's output
# ``# tensor([[2.2000, 3.2000],`` and the attention matrix's ``# Pos 1  [0.1, 0.7, 0.2]``), 10; an object literal's
# softmax list judged as the softmax of the score list of its object, another object's input starting another
# example (check.object_examples: the widget's second softmax row, and its query no longer judged), 4
HELDOUT16 = {"en_mdx_hero_scores_matrix_in_comment": 4, "en_mdx_hero_weights_times_v_print_comment": 6,
             "en_react_widget_examples_dot_products_softmax": 9}

# heldout17 (real public notes, seven pages; kinds no round had searched for: a quiz, a coding challenge, a TensorFlow
# notebook, a PDF viewer's page, a Rust example, a GitBook page, a skill file): FIRST_RUN.md found 8 of 99 and called 1
# right number wrong (a run-together 'e0.7842e1.3569e1.2487=2.1902=3.8839=3.4858' read as one chain:
# check.equal_numbers).
# Since then, a challenge's test case of the scenario's inputs (check.challenge_cases), 4; operands that are the given
# inputs exact (check.exact_inputs: the skill file's 0.34×0.53 + .. = 0.775), 1; lists of an escaped opening bracket
# (check.open_brackets: GitBook's \[0.53, 0.34, 0.98]) and each weight times its value row on its own line
# (check.weighted_rows: the second section's 0.4064 × [..] = [0.2156, ..] and 0.3645's, each printed three times), 21;
# a starred environment whose star is escaped (check.open_brackets.starred_envs: the KaTeX source's
# e^{0.7842} &= 2.1902), 1; a derivation in list items, each opening with '=' (check.notations._sum_going_on: the skill
# file's '- = [0.399, 0.386, 0.861]' below its weighted sum), 1; an exponential of KaTeX's align source
# ('e^{0.7842} &= 2.1902': check.notations._EXP_TERM) names the score row, and each sum below restating its values is
# judged (check.exponentials.restated_sum: the rendered copies' 2.1902 and their total 9.5599, torch 9.5606), 4; the
# weighted values added entry by entry below their products, then the output row (check.weighted_rows._summed_below:
# '[0.0779+0.2156+0.1057, ..]=[0.3992,0.3858,0.8610]', three copies), 21; a run of exponentials whose exponents
# restate scores found wrong above, its sum and its weights (check.restated_scores: the skill file's exp(0.775) = 2.170
# .. Sum = 9.307, Weights: [0.233, 0.401, 0.366]), 10
HELDOUT17 = {"en_coding_challenge_test_cases_expected": 4, "en_gitbook_inline_code_dot_products_wrong_self_score": 1,
             "en_gitbook_katex_thrice_weighted_embeddings": 49, "en_skill_table_embeddings_bullets_rounded_scores": 17}

# heldout18 (real public notes, seven pages; a Vietnamese lecture's bmatrix without leading zeros, codecogs READMEs,
# Chinese online-judge samples, two notebooks): FIRST_RUN.md found 0 of 48 and called 6 right numbers wrong (the
# lecture's per-head Q^{(1)}, Q^{(2)}, V^{(2)} judged as another head's: check.head_superscripts).
# Since then, formulas URL-encoded in image links read as their math (check.url_latex) and a matrix judged as what
# its own equation's left side names (check.equation_subject: the READMEs' weights, context vectors, K), 27; a Q or V
# written as X times its W where the scenario projects X judged as the note's own (forms.projected_here), 10
HELDOUT18 = {"en_readme_codecogs_url_latex_causal_mask": 5, "en_readme_codecogs_url_latex_trainable_weights": 32}

# the numbers torch proves wrong per note (tests/corpus/heldout/truth.py), from the eighth round on (the rounds before
# assert their total, Round.wrong)
TORCH_WRONG = {
    "heldout8": {"bn_multihead_split_heads": 0, "en_exam_notes_ktu_three_tokens": 21, "en_multihead_two_heads_flip": 0,
        "en_notes_causal_order_shipment": 17, "fr_course_le_chat_dort_fences": 5, "fr_course_smiles_cco_pmatrix": 6,
        "it_chapter_single_query_decimal_comma": 0, "zh_book_vit_patch_tokens": 2,
        "zh_comments_causal_sdpa_weights": 10},
    # 131 in FIRST_RUN.md; 133 since the convention on results of printed arithmetic (docs/course.md): products of
    # the wrong weights 0.422 and 0.504 are wrong, the Qwen2-VL note's 6.16 right
    "heldout9": {"en_reference_pmatrix_column_value": 9, "es_tlob_doc_projected_python_blocks": 106,
        "pt_book_causal_mask_given_scores": 4, "pt_test_script_expected_constants": 3,
        "ru_problems_single_query_details": 0, "zh_hant_kernel_regression_cat_mouse": 8, "zh_sdpa_notes_values_tens": 3,
        "zh_transformer_notes_qkv_equal_x": 0},
    # 45 in FIRST_RUN.md; 44 since the convention on results of printed arithmetic: the Korean course's 5.3 is its
    # weights' 5.26
    "heldout10": {"en_codex_four_tokens_one_query": 0, "en_lesson_self_attention_by_hand": 10,
        "en_textbook_decoder_step_encoder_keys": 4, "fr_course_obsidian_lost_row_breaks": 3,
        "ko_lecture_day43_hand_calculation": 2, "ko_obsidian_note_the_cat": 10, "tr_course_numpy_printed_comments": 15,
        "zh_study_plan_day2_two_tokens": 0},
    # 75 in FIRST_RUN.md; 73 since the convention on results of printed arithmetic: the Chinese course note's
    # [49.72, 59.72] is its weights' arithmetic; the practice problems' 0.29 right, 1.52 wrong
    "heldout11": {"en_exam_model_solution_marks": 0, "en_practice_problems_cat_sat_projection": 9,
        "en_study_guide_latex_backticked_rows": 43, "ko_blog_one_query_python_output": 0,
        "ko_diffusion_card_cross_attention": 0, "ko_mkdocs_exercise_admonition": 2,
        "zh_course_notes_two_queries_three_keys": 15, "zh_obsidian_note_projection_two_tokens": 4,
        "zhtw_course_two_heads_by_hand": 0},
    # 49 on the first run; 42 under the convention on results of printed arithmetic (a number written as the result
    # of arithmetic of right operands printed there is right where it rounds that arithmetic or torch's tensor). Seven
    # numbers became right, each the exact arithmetic of its right printed operands where torch differs:
    #
    # - river bank line 53: ``1.978 + 0.000 + 2.006 = 3.984`` (torch's output 3.9834);
    # - river bank line 36: ``2.0281 + 4.1132 + 4.1132 = 10.2545`` (torch's row sum e^(1/√2) + 2e^√2 = 10.2546);
    # - einsum chapter line 75: ``e^{2.8284} ≈ 16.918`` (exp(2.8284) = 16.9184; torch e^(2√2) = 16.9188);
    # - einsum chapter line 82: ``e^{4.2426} ≈ 69.589`` (exp(4.2426) = 69.5885; torch e^(3√2) = 69.5914);
    # - einsum chapter line 96: ``0.804 [10, 0] + 0.196 [0, 20] = [8.04, 3.92]``'s 3.92 (0.196 · 20; torch 3.9114);
    # - Korean lecture line 73: ``[0.2483, 0] + [0, 0.2483] + [1.0070, 1.0070] = [1.2553, 1.2553]``, both numbers
    #   (the sums of line 72's right printed terms; torch 1.25523).
    #
    # Still wrong: the same values restated with no operands beside them (river bank line 56's 3.984; the Korean
    # code output's 1.2553, line 85; the einsum chapter's 16.918 and 69.589 as terms of its sums, lines 77-78 and 84-85,
    # so their sums 21.031 and 4912.67 have a wrong operand and are judged by torch alone), and e^{8.4853} ≈ 4843.08
    # (exp(8.4853) = 4843.050; torch 4842.960).
    "heldout12": {"en_course_day35_obsidian_callouts_river_bank": 16, "en_interview_notes_four_tokens_softmax_row": 1,
        "en_math_chapter_einsum_ai_by_hand_tables": 13, "en_notebook_cross_attention_mpmath": 9,
        "en_obsidian_finance_details_scalar_values": 0, "en_quarto_exercise_fenced_divs": 0,
        "ko_lecture_stable_softmax_three_tokens": 3, "vi_exercise_sheet_leading_dot": 0,
        "vi_review_log_bahdanau_trace": 0, "zh_mha_notes_two_heads_causal_wo": 0},
    "heldout13": {"en_julia_repl_matrix_float64": 12, "en_rmarkdown_console_row_labels": 10,
        "en_spreadsheet_cells_exp_formulas": 15, "en_thread_five_tokens_given_logits": 6,
        "ja_zenn_linear_layout_approx_equal": 5, "vi_forum_decimal_comma_semicolon_lists": 22,
        "vi_marp_slides_causal_minus_infinity": 7, "vi_plaintext_unicode_brackets_two_heads": 19},
    "heldout14": {"en_anki_cloze_cards_second_head_separately": 26, "en_asciidoc_tables_scientific_notation": 5,
        "en_notebook_printoptions_grad_fn_linear": 4, "en_sphinx_rst_list_table_grid_table": 5,
        "vi_colab_einsum_row_vectors_percent": 9, "vi_cross_attention_column_vectors_kt": 6,
        "vi_exam_solution_index_notation_sums": 8, "vi_lecture_temperature_tau_weight_matrix": 11},
    "heldout15": {"en_jax_log_softmax_logits_z": 4, "en_keras_tf_tensor_prints": 6,
        "en_multi_query_shared_kv_two_heads": 4, "en_revealjs_slides_two_significant_digits": 5,
        "vi_hoi_dap_one_weight_running_prose": 5, "vi_jupyter_out_cells_numpy_array": 10,
        "vi_latex_tabular_hline_causal_minus_1e9": 8, "vi_viblo_blog_bold_numbers_image_alt": 10},
    "heldout16": {"en_chapter_math_identity_scores_softmax_example": 0, "en_mdx_hero_scores_matrix_in_comment": 4,
        "en_mdx_hero_weights_times_v_print_comment": 6, "en_notebook_sentence_embeddings_bank_dot_softmax": 0,
        "en_numpy_script_sci_comment_outputs_unscaled": 0, "en_react_widget_examples_dot_products_softmax": 9,
        "vi_book_translation_simplified_attention_blockquote": 0,
        "vi_book_translation_trainable_weights_torch_rand": 0},
    "heldout17": {"en_book_pdf_page_output_labels_3d_tensors": 0, "en_coding_challenge_test_cases_expected": 4,
        "en_gitbook_inline_code_dot_products_wrong_self_score": 10, "en_gitbook_katex_thrice_weighted_embeddings": 68,
        "en_quiz_predict_output_options": 0, "en_rust_candle_softmax_assert_rounded": 0,
        "en_skill_table_embeddings_bullets_rounded_scores": 17, "en_tf_notebook_float32_tensor_prints": 0},
    "heldout18": {"en_notebook_latex_example_cell_w2_z2_times": 0, "en_numpy_notebook_rand_seed0_weights_8_decimals": 0,
        "en_readme_codecogs_url_latex_causal_mask": 7, "en_readme_codecogs_url_latex_trainable_weights": 41,
        "vi_lecture_bmatrix_two_heads_causal_leading_dot": 0, "zh_oj_masked_multihead_semicolon_args_sample": 0,
        "zh_oj_problem_json_input_single_head_sample": 0},
}

# each round's FIRST_RUN.md, the measure before any change: its all-row as it was printed, and the commit it ran on
FIRST_RUN = {
    "heldout": ("| **all** | 12 | 2 | 17% | 7 | 435 | 203 |", "9ea1ce7"),
    "heldout2": ("| **all** | 61 | 16 | 26% | 13 | 552 | 1036 |", "28300da"),
    "heldout3": ("| **all** | 56 | 2 | 4% | 0 | 271 | 530 |", "3de87be"),
    "heldout4": ("| **all** | 12 | 4 | 33% | 0 | 168 | 118 |", "e72f0c9"),
    "heldout5": ("| **all** | 183 | 0 | 0% | 9 | 133 | 1009 |", "0b85a26"),
    "heldout6": ("| **all** | 61 | 21 | 34% | 2 | 412 | 328 |", "7ade271"),
    "heldout7": ("| **all** | 44 | 5 | 11% | 0 | 216 | 343 |", "7041670"),
    "heldout8": ("| **all** | 61 | 19 | 31% | 35 | 616 | 890 |", "3bf355d"),
    "heldout9": ("| **all** | 131 | 25 | 19% | 0 | 423 | 545 |", "7a769c1"),
    "heldout10": ("| **all** | 45 | 7 | 16% | 8 | 272 | 353 |", "0527606"),
    "heldout11": ("| **all** | 75 | 45 | 60% | 11 | 435 | 892 |", "e78f0e7"),
    "heldout12": ("| **all** | 49 | 16 | 33% | 1 | 380 | 615 |", "18fd6a3"),
    "heldout13": ("| **all** | 96 | 20 | 21% | 13 | 241 | 813 |", "64d4179"),
    "heldout14": ("| **all** | 74 | 14 | 19% | 3 | 349 | 460 |", "e7e2c14"),
    "heldout15": ("| **all** | 52 | 18 | 35% | 36 | 424 | 543 |", "5c7bed6"),
    "heldout16": ("| **all** | 19 | 5 | 26% | 2 | 265 | 271 |", "6644d45"),
    "heldout17": ("| **all** | 99 | 8 | 8% | 1 | 187 | 388 |", "d0fafab"),
    "heldout18": ("| **all** | 48 | 0 | 0% | 6 | 329 | 615 |", "698e2f9"),
}

ROUNDS = [
    Round("heldout", {"en", "vi", "zh"}, 8, 12, HELDOUT, "| **all** | 12 | 11 | 92% | 0 |"),
    # 61 in FIRST_RUN.md; the 62nd is zh's weight restated as a coefficient (``1: 0.0 * [1, 2, 3]``, torch 0.0634),
    # claimed since check judges the note's sums of its rounded weights (notations.rounded_weight_sums)
    # (52 since the convention on results of printed arithmetic: zh's products of its right weight 0.5, see HELDOUT2)
    Round("heldout2", {"en", "vi", "zh", "ko"}, 11, 52, HELDOUT2, "| **all** | 52 | 52 | 100% | 0 |"),
    Round("heldout3", {"en", "ko", "fr", "ja"}, 10, 54, HELDOUT3, "| **all** | 54 | 38 | 70% | 0 |"),
    Round("heldout4", {"en", "pt", "zh"}, 8, 12, HELDOUT4, "| **all** | 12 | 12 | 100% | 0 |"),
    Round("heldout5", {"de", "en", "py"}, 8, 183, HELDOUT5, "| **all** | 183 | 181 | 99% | 0 |"),
    Round("heldout6", {"es", "tr"}, 8, 61, HELDOUT6, "| **all** | 61 | 39 | 64% | 0 |"),
    Round("heldout7", {"en", "vi", "ko", "id"}, 8, 39, HELDOUT7, "| **all** | 39 | 29 | 74% | 0 |"),
    Round("heldout8", {"bn", "en", "fr", "it", "zh"}, 8, 61, HELDOUT8, "| **all** | 61 | 46 | 75% | 0 |"),
    Round("heldout9", {"en", "es", "pt", "ru", "zh"}, 8, 133, HELDOUT9, "| **all** | 133 | 74 | 56% | 0 |"),
    Round("heldout10", {"en", "fr", "ko", "tr", "zh"}, 8, 44, HELDOUT10, "| **all** | 44 | 37 | 84% | 0 |"),
    Round("heldout11", {"en", "ko", "zh", "zhtw"}, 9, 73, HELDOUT11, "| **all** | 73 | 48 | 66% | 0 |"),
    # 49 in FIRST_RUN.md; 42 under the convention on results of printed arithmetic (claims audited with or_arith),
    # each the exact arithmetic of right printed operands where torch differs: the river-bank lesson's
    # ``1.978 + 0.000 + 2.006 = 3.984`` (line 53, torch 3.9834) and ``2.0281 + 4.1132 + 4.1132 = 10.2545`` (line 36,
    # torch 10.2546); the einsum chapter's ``e^{2.8284} ≈ 16.918`` (line 75, torch 16.9188), ``e^{4.2426} ≈ 69.589``
    # (line 82, torch 69.5914) and ``0.196 [0, 20]``'s 3.92 (line 96, torch 3.9114); the Korean lecture's
    # ``[1.2553, 1.2553]`` (line 73: the sums of line 72's right terms, torch 1.25523)
    Round("heldout12", {"en", "ko", "vi", "zh"}, 10, 42, HELDOUT12, "| **all** | 42 | 19 | 45% | 0 |"),
    # written for the round after public styles (each note's source line says so), mistakes planted; torch's truth
    Round("heldout13", {"en", "ja", "vi"}, 8, 96, HELDOUT13, "| **all** | 96 | 73 | 76% | 0 |"),
    # written for the round after public styles as heldout13's; torch's truth. The first run's 3 right numbers called
    # wrong (the cross-attention's alpha_2 judged as the softmax of e_1) are fixed (forms.softmax_tuples)
    Round("heldout14", {"en", "vi"}, 8, 74, HELDOUT14, "| **all** | 74 | 74 | 100% | 0 |"),
    # written for the round after public styles as heldout13's; torch's truth (truth.py's log_attn and logsumexp for
    # the JAX note). The first run's 36 right numbers called wrong are fixed (check.head_subscripts, NOTEBOOK_PROMPT)
    Round("heldout15", {"en", "vi"}, 8, 52, HELDOUT15, "| **all** | 52 | 46 | 88% | 0 |"),
    # real public notes again (seven pages; the two vi notes are two sections of one translated chapter); torch's
    # truth. The first run's 2 right numbers called wrong are fixed (check.object_examples)
    Round("heldout16", {"en", "vi"}, 8, 19, HELDOUT16, "| **all** | 19 | 19 | 100% | 0 |"),
    # real public notes again (seven pages; the two GitBook notes are two sections of one page); torch's truth. The
    # first run's right number called wrong is fixed (check.equal_numbers)
    Round("heldout17", {"en"}, 8, 99, HELDOUT17, "| **all** | 99 | 71 | 72% | 0 |"),
    # real public notes again (seven pages; the two READMEs are sections 4 and 5 of one course); torch's truth. The
    # first run's 6 right numbers called wrong are fixed (check.head_superscripts)
    Round("heldout18", {"en", "vi", "zh"}, 7, 48, HELDOUT18, "| **all** | 48 | 37 | 77% | 0 |"),
]


def _notes(r: Round) -> list[str]:
    return sorted(p.stem for p in (CORPUS / r.folder).glob("*.md") if p.with_suffix(".toml").exists())


NOTES = [(r, n) for r in ROUNDS for n in _notes(r)]
EARLIER = ["real"] + [r.folder for r in ROUNDS]


@pytest.mark.parametrize("r", ROUNDS, ids=lambda r: r.folder)
def test_a_round_is_new_real_notes(r):
    notes = _notes(r)
    assert len(notes) >= r.at_least
    assert {n.split("_")[0] for n in notes} == r.languages
    before = {p.read_text(encoding="utf-8").split("\n", 1)[0]
              for folder in EARLIER[:EARLIER.index(r.folder)] for p in (CORPUS / folder).glob("*.md")}
    firsts = [(CORPUS / r.folder / f"{n}.md").read_text(encoding="utf-8").split("\n", 1)[0] for n in notes]
    assert all(f.startswith("<!-- source: ") and f not in before for f in firsts)
    assert len(set(firsts)) == len(firsts)
    if r.folder not in TORCH_WRONG:  # (else per note: test_torch_proves_the_rounds_wrong_numbers_per_note)
        assert sum(sum(truth.torch_wrong(CORPUS / r.folder, n)[0].values()) for n in notes) == r.wrong


@pytest.mark.parametrize("r", ROUNDS, ids=lambda r: r.folder)
def test_the_first_run_table_is_kept(r):
    """FIRST_RUN.md is a round's measure before any change: its all-row stays as it was printed, on the commit named."""
    row, commit = FIRST_RUN[r.folder]
    text = (CORPUS / r.folder / "FIRST_RUN.md").read_text(encoding="utf-8")
    assert f"\n{row}\n" in text and commit in text


@pytest.mark.parametrize("r", [r for r in ROUNDS if r.folder in TORCH_WRONG], ids=lambda r: r.folder)
def test_torch_proves_the_rounds_wrong_numbers_per_note(r):
    assert sum(TORCH_WRONG[r.folder].values()) == r.wrong
    assert {n: sum(truth.torch_wrong(CORPUS / r.folder, n)[0].values()) for n in _notes(r)} == TORCH_WRONG[r.folder]


# notes that print no input, so that their scenario is the setup they state in words or code
NO_PRINTED_INPUT = {
    ("heldout", "zh_illustrative_weights_no_inputs"): "illustrative weights only, no Q, K, V",
    ("heldout2", "en_causal_grid_integer_scores"): "Q and K are a diagram's integer vectors; it prints their scores",
    ("heldout2", "en_rust_candle_softmax_doctest"): "a softmax doctest: its logits are in code, not printed as such",
    ("heldout2", "vi_causal_mask_seed789"): "X and W drawn from seed 789 in code",
    ("heldout3", "en_numpy_cross_attention_decode_steps"): "inputs drawn from default_rng(0) in code",
    ("heldout3", "en_numpy_cross_attention_seed42"): "inputs drawn from seed 42 in code",
    ("heldout3", "en_numpy_cross_attention_word_table"): "inputs drawn from seed 7 in code",
    ("heldout4", "zh_book_translation_diff_page"): "prints only its result, the context vector",
    ("heldout7", "en_dpo_text_fence_two_betas"): "its logits are reward / beta, written only as exponents",
    ("heldout16", "vi_book_translation_trainable_weights_torch_rand"): "X is printed in an earlier section, W drawn "
    "by torch.manual_seed(123) and torch.rand in code",
}


@pytest.mark.parametrize("r, name", NOTES, ids=[f"{r.folder}/{n}" for r, n in NOTES])
def test_the_scenario_reproduces_the_inputs_the_note_prints(r, name):
    """Every input a note prints (X and the W of a projection; Q, K, V given directly; the scores where the
    scenario gives them) is torch's value of the note's scenario at the note's precision: the scenario is the note's
    setup, so what check calls wrong is the note's and not a mistranscribed input."""
    _, _, scenario = truth.load(CORPUS / r.folder, name)
    source = scenario.get("source")
    inputs = {"x", "w_q", "w_k", "w_v"} if source == "project" else {"x", "q", "k", "v"} | (
        {"scores"} if source == "scores" else set())
    wrong, claimed = truth.torch_wrong(CORPUS / r.folder, name, only=inputs)
    assert not wrong
    assert (sum(claimed.values()) > 0) == ((r.folder, name) not in NO_PRINTED_INPUT)


FALSE_POSITIVES = (HELDOUT8_FALSE_POSITIVES | HELDOUT10_FALSE_POSITIVES | HELDOUT11_FALSE_POSITIVES
                   | HELDOUT12_FALSE_POSITIVES | HELDOUT13_FALSE_POSITIVES)


@pytest.mark.parametrize("r, name", [pytest.param(r, n, id=f"{r.folder}/{n}", marks=[pytest.mark.xfail(
    strict=True, reason=FALSE_POSITIVES[r.folder, n])] if (r.folder, n) in FALSE_POSITIVES else [])
    for r, n in NOTES])
def test_a_held_out_note_has_no_false_positive_and_the_recall_the_benchmark_prints(r, name):
    m = truth.measure(CORPUS / r.folder, name)
    assert m["false_pos"] == []
    assert m["found"] == r.found.get(name, 0)


@pytest.mark.parametrize("r", ROUNDS, ids=lambda r: r.folder)
def test_the_benchmark_measures_a_round(capsys, r):
    assert bench.main(["--dir", str(CORPUS / r.folder)]) == 0
    rows = capsys.readouterr().out.strip().split("\n")
    assert rows[-1].startswith(r.all_row)


def test_the_benchmark_refuses_a_folder_that_is_not_there():
    with pytest.raises(SystemExit) as err:
        bench.main(["--dir", str(CORPUS / "heldout2" / "no-such-folder")])
    assert err.value.code == 2


# Where --fix is known not to converge to torch's numbers (found when this test was widened from the fifth to
# seventh rounds to every round): check flags the right numbers, but a fix is missing or writes another tensor's value.
FIX_GAPS = {
}
ALL_FIX_GAPS = (FIX_GAPS | HELDOUT8_FIX_GAPS | HELDOUT10_FIX_GAPS | HELDOUT11_FIX_GAPS | HELDOUT12_FIX_GAPS
                | HELDOUT13_FIX_GAPS)
FOUND_NOTES = [pytest.param(r, n, id=f"{r.folder}/{n}", marks=[pytest.mark.xfail(strict=True, reason=(
    ALL_FIX_GAPS)[r.folder, n])] if (r.folder, n) in ALL_FIX_GAPS else [])
    for r in ROUNDS for n in sorted(r.found)]


# Wrong numbers a fix makes right though check did not find them: a result of printed arithmetic whose operands
# --fix rewrote is right by that arithmetic (docs/course.md: right by either). None now: heldout17's skill file's
# context line, whose 0.386 its fixed weights 0.229, 0.406, 0.365 made their arithmetic (0.38552; torch 0.38542), is
# read since session 30 (0.386 found; its fix, that arithmetic, leaves its text)
FIXED_BY_ARITHMETIC: dict = {}


@pytest.mark.parametrize("r, name", FOUND_NOTES)
def test_fix_converges_to_torchs_numbers(r, name, tmp_path):
    """``check --fix`` on a copy of a note with wrong numbers found: the fixed copy checks with 0 wrong, and every
    number it rewrote is torch's to the printed digits (the torch-wrong numbers left are exactly those check did not
    find)."""
    for ext in (".md", ".toml", ".claims.json"):
        shutil.copy(CORPUS / r.folder / f"{name}{ext}", tmp_path / f"{name}{ext}")
    opts = load_scenario(tmp_path / f"{name}.toml")
    report = check_file(tmp_path / f"{name}.md", opts, fix="write")
    assert report.diff and not report.wrong
    assert not check_file(tmp_path / f"{name}.md", opts).wrong
    before = sum(truth.torch_wrong(CORPUS / r.folder, name)[0].values())
    after = sum(truth.torch_wrong(tmp_path, name)[0].values())
    assert after == before - r.found[name] - FIXED_BY_ARITHMETIC.get((r.folder, name), 0)


def test_the_truth_reads_a_claim_whose_marker_holds_numbers_a_fix_changed():
    """A claim anchored before ``' = [0.402, 0.4635]'`` reads the same numbers once --fix made it ``0.4636``: the
    marker's text outside its numbers, at the place whose numbers are nearest (`` = [0.402, 0]`` reads so too)."""
    claim = {"lines": [1, 1], "tensor": "out", "rows": [0], "before": " = [0.402, 0.4635]", "list_index": 2}
    line = "- Output = [0.402, 0] + [0,0.329] + [0,0.1345] = [0.402, 0.4635]"
    assert truth.printed(line, claim) == ["0", "0.1345"]
    fixed = "- Output = [0.402, 0] + [0,0.329] + [0,0.1347] = [0.402, 0.4636]"
    assert truth.printed(fixed, claim) == ["0", "0.1347"]
    assert truth.printed("- Output: [1, 0] + [0, 1] + [2, 2]", claim) == ["2", "2"]  # no marker: the whole line
