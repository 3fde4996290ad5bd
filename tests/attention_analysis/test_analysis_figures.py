from dataclasses import replace

import numpy as np
import pytest

from cdlm_nb.attention_analysis.figures import html_target_document, plot_mpr, plot_target_document, token_shades
from cdlm_nb.attention_analysis.report import position_correlation
from cdlm_nb.attention_analysis.run import explain_pairs
from cdlm_nb.coref.mentions import MentionPair


def test_target_document_views(tiny_tokenizer, corpus, mentions, longformer):
    import matplotlib

    matplotlib.use("Agg")
    pair = MentionPair(mentions["1_1ecb/0"], mentions["1_2ecb/0"])  # "named" -> "nominates"
    model = longformer(tiny_tokenizer, window=4)
    [(_, explained)] = explain_pairs(model, tiny_tokenizer, [pair], corpus, max_length=200)
    shades = token_shades(explained)
    assert set(shades) == set(explained.candidates)
    assert min(shades.values()) == 0.0 and max(shades.values()) == 1.0
    best = max(explained.candidates, key=lambda p: explained.scores[p])
    assert shades[best] == 1.0
    rising = replace(explained, scores=np.arange(len(explained.scores), dtype=float))
    assert position_correlation(rising) == pytest.approx(1.0)
    assert position_correlation(replace(rising, scores=-rising.scores)) == pytest.approx(-1.0)
    fig = plot_target_document(explained, tiny_tokenizer)
    assert "nominates" in fig.axes[0].get_title(loc="left")
    page = html_target_document(explained, tiny_tokenizer)
    assert "border:2px solid black" in page and "not coreferring" not in page


def test_plot_mpr_draws_pooled_values_and_paper_marks(toy_results):
    import matplotlib

    matplotlib.use("Agg")
    fig = plot_mpr(toy_results, ["local", "cdlm"])
    ax = fig.axes[0]
    heights = sorted(bar.get_height() for bar in ax.patches)
    # pos/neg for local and cdlm, events and entities pooled
    assert heights == pytest.approx(sorted([50.0, 230 / 3, 51.0, 45.0]))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Local CDLM", "CDLM"]  # display names
