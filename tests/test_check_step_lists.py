"""Flash cards: clozes (``{{c1::0.6698}}``) read as their answers, and one token's steps listed on one line
(``token 1: e^s = .. and .., sum .., weights .. and ..``) read as that token's rows of e^ŝ, their sum and the weights,
in the head of the card (heads counted from 1 where the note counts so).

The setup: Q, K, V 2 × 4, two heads of width 2, / √2. torch (float64), scaled scores per head and their softmax:
head 1: ŝ = [[0.70711, 0], [0.70711, 0.70711]], e^ŝ = [[2.02811, 1], [2.02811, 2.02811]], sums 3.02811, 4.05623,
        weights [[0.66976, 0.33024], [0.5, 0.5]];
head 2: ŝ = [[0.70711, 2.12132], [0, 0.70711]], e^ŝ = [[2.02811, 8.34214], [1, 2.02811]], sums 10.37026, 3.02811,
        weights [[0.19557, 0.80443], [0.33024, 0.66976]].
Head 2 scaled by 2 in place of √2 (a mistake people make with d_model = 4): ŝ row 1 = [0.5, 1.5], e^ŝ = [1.64872,
4.48169], sum 6.13041, weights [0.26894, 0.73106]: every one of them wrong.
"""
from attnwalk.check import check_text
from attnwalk.check.clozes import unclozed
from attnwalk.check.fix import fixed_text

SETUP = dict(variant="sdpa", source="direct", heads=2, scale="sqrt_dk", q=[[1, 0, 2, 1], [0, 1, 1, 0]],
             k=[[1, 1, 0, 1], [0, 1, 1, 1]], v=[[1, 0, 0, 2], [0, 1, 2, 0]])

CARDS = ("#separator:tab\n"
         "Cloze\tHead 1, token 1: e^s = {{c1::2.0281}} and {{c2::1.0000}}, sum {{c3::3.0281}}, weights "
         "{{c4::0.6698}} and {{c5::0.3302}}\n"
         "Cloze\tHead 2, token 1: e^s = {{c1::2.0281}} and {{c2::8.3421}}, sum {{c3::10.3703}}, weights "
         "{{c4::0.1956}} and {{c5::0.8044}}\n"
         "Cloze\tHead 2, token 2: e^s = 1.0000 and 2.0281, sum {{c1::3.0281}}, weights {{c2::0.3302::w1}} and "
         "{{c3::0.6698}}\n")


def _by_status(report) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"verified": [], "wrong": [], "unknown": []}
    for r in report.recs:
        out[r.status].append(r.text)
    return out


def test_a_cloze_is_its_answer_and_keeps_the_lines():
    text = "a = [{{c1::0.7071}}, {{c2::0.0000::hint}}]\n{{c3::x}}\n"
    assert unclozed(text) == "a = [0.7071, 0.0000]\nx\n"
    assert unclozed("no cloze {{c1::\n}}") == "no cloze {{c1::\n}}"  # a cloze never spans lines


def test_every_right_number_of_both_heads_cards_is_verified():
    got = _by_status(check_text(CARDS, SETUP))
    assert got["wrong"] == []
    assert got["verified"] == ["2.0281", "1.0000", "3.0281", "0.6698", "0.3302",
                               "2.0281", "8.3421", "10.3703", "0.1956", "0.8044",
                               "1.0000", "2.0281", "3.0281", "0.3302", "0.6698"]


def test_head_2_scaled_by_2_is_wrong_everywhere():
    card = ("Cloze\tHead 1, token 1: weights {{c1::0.6698}} and {{c2::0.3302}}\n"
            "Cloze\tHead 2, token 1: e^s = {{c1::1.6487}} and {{c2::4.4817}}, sum {{c3::6.1304}}, weights "
            "{{c4::0.2689}} and {{c5::0.7311}}\n")
    report = check_text(card, SETUP)
    assert [r.text for r in report.wrong] == ["1.6487", "4.4817", "6.1304", "0.2689", "0.7311"]
    assert [r.failure()[1] for r in report.wrong] == ["2.0281", "8.3421", "10.3703", "0.1956", "0.8044"]
    fixed = fixed_text(card, lambda t: check_text(t, SETUP))  # --fix writes torch's inside the clozes
    assert "e^s = {{c1::2.0281}} and {{c2::8.3421}}, sum {{c3::10.3703}}, weights {{c4::0.1956}} and " \
           "{{c5::0.8044}}" in fixed
    assert check_text(fixed, SETUP).wrong == []


def test_a_sum_that_adds_its_printed_exponentials_is_not_called_wrong():
    # 2.0 + 8.3 = 10.3 (each e^ŝ right at one decimal), torch's sum 10.37 rounds to 10.4: the printed arithmetic
    got = _by_status(check_text("Head 2, token 1: e^s = 2.0 and 8.3, sum 10.3\n\nHead 1\n", SETUP))
    assert got["wrong"] == [] and got["verified"][:2] == ["2.0", "8.3"]
    # the same sum of a wrong e^ŝ is wrong
    assert [r.text for r in check_text("Head 2, token 1: e^s = 2.0 and 8.9, sum 10.9\n\nHead 1\n", SETUP).wrong] \
        == ["8.9", "10.9"]


def test_a_line_without_its_token_is_not_read():
    got = _by_status(check_text("Head 2: e^s = 1.6487 and 4.4817, sum 6.1304, weights 0.2689 and 0.7311\n", SETUP))
    assert got["wrong"] == [] and got["verified"] == []
