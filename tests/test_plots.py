import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from cdlm_nb.attention_pattern import GLOBAL_ATTENTION, LOCAL_ATTENTION, NO_ATTENTION  # noqa: E402
from cdlm_nb.plots import (  # noqa: E402
    PATTERN_COLOURS,
    _layout,
    document_palette,
    facts_html,
    plot_packed_input,
    plot_patterns,
    readable_tokens,
)
from cdlm_nb.support.errors import ConfigError  # noqa: E402

DOC_IDS = [-1] + [0] * 12 + [1] * 12 + [-1]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_layout_wraps_words_and_keeps_subwords_together():
    placed = _layout(["<s>", " The", " quake", " struck", "ed", " Lima", ".", "</s>"], line_chars=12)
    assert [p.text for p in placed] == ["<s>", "The", "quake", "struck", "ed", "Lima", ".", "</s>"]
    assert all(p.column + len(p.text) <= 12 for p in placed)
    struck, ed = placed[3], placed[4]
    assert ed.line == struck.line and ed.column == struck.column + len(struck.text)  # a subword abuts its word
    assert placed[1].column == len("<s>") + 1 and placed[2].line == 1  # words a space apart; wrap before "quake"


def test_document_palette_gives_distinct_colours():
    colours = document_palette(10)
    assert len(set(colours)) == 10 and document_palette(12)[10] == colours[0]


def test_readable_tokens_decode_each_id(tiny_tokenizer):
    tokenizer = tiny_tokenizer
    ids = tokenizer("the quake struck")["input_ids"]
    tokens = readable_tokens(tokenizer, torch.tensor(ids))
    assert tokens[0] == "<s>" and tokens[-1] == "</s>" and "".join(tokens[1:-1]) == " the quake struck"


def test_plot_packed_input_builds_a_figure_with_a_legend_per_document():
    tokens = [" w"] * len(DOC_IDS)
    masked = np.zeros(len(DOC_IDS), bool)
    masked[[3, 15]] = True
    fig = plot_packed_input(tokens, DOC_IDS, masked, masked, title="example")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["document 1", "document 2", "predicted (2)", "global attention (2)"]
    assert len(fig.axes[0].texts) == len(tokens)


def test_plot_packed_input_rejects_mismatched_lengths():
    with pytest.raises(ConfigError, match="doc_index"):
        plot_packed_input([" a", " b"], [0])


def test_an_attention_pattern_draws_the_kinds_in_their_colours():
    attention = np.ones(len(DOC_IDS), int)
    is_global = np.zeros(len(DOC_IDS), int)
    is_global[5] = 1
    fig = plot_patterns({"cdlm": {"attention_mask": [attention], "global_attention_mask": [is_global]}}, window=4,
                        doc_ids=DOC_IDS)
    image = fig.axes[0].images[0]
    kinds = image.get_array()
    assert kinds[0, 2] == LOCAL_ATTENTION and kinds[0, 5] == GLOBAL_ATTENTION and kinds[0, 20] == NO_ATTENTION
    assert matplotlib.colors.to_hex(image.cmap(image.norm(GLOBAL_ATTENTION))) == PATTERN_COLOURS[GLOBAL_ATTENTION]


def test_plot_patterns_has_one_panel_per_pattern():
    n = len(DOC_IDS)
    batches = {
        "local": {"attention_mask": torch.ones(1, n, dtype=torch.long), "global_attention_mask": torch.zeros(1, n)},
        "cdlm": {"attention_mask": torch.ones(1, n, dtype=torch.long),
                 "global_attention_mask": torch.tensor([[1] + [0] * (n - 1)])},
    }
    fig = plot_patterns(batches, window=4, doc_ids=DOC_IDS)
    assert [ax.get_title() for ax in fig.axes] == ["local: 0% global", f"cdlm: {1 / n:.0%} global"]
    with pytest.raises(ConfigError):
        plot_patterns({}, window=4)


def test_facts_html_marks_each_statement_of_the_fact():
    documents = ["A fine of 5 was imposed.", "Nothing here.", "The fine: 6 <dollars>."]
    facts = [{"doc_index": 0, "fact": "fine", "char_start": 10, "char_end": 11, "correct": True},
             {"doc_index": 2, "fact": "fine", "char_start": 10, "char_end": 11, "correct": False},
             {"doc_index": 2, "fact": "judge", "char_start": 0, "char_end": 3, "correct": True}]
    text = facts_html(documents, facts, "fine")
    assert text.count("<mark") == 2 and ">5</mark>" in text and ">6</mark>" in text
    assert "&lt;dollars&gt;" in text and "document 2</b> (0 statement(s))" in text
    with pytest.raises(ConfigError, match="deaths"):
        facts_html(documents, facts, "deaths")


def test_the_tokens_of_a_word_of_one_weight_are_drawn_as_one_text():
    fig = plot_packed_input([" quake", "s", " struck", "ed", " Lima"], [0] * 5, [False, False, False, True, False])
    texts = fig.axes[0].texts
    assert [(t.get_text(), t.get_fontweight()) for t in texts] == [("quakes", "normal"), ("struck", "normal"),
                                                                    ("ed", "bold"), ("Lima", "normal")]
    assert texts[2].get_position()[0] == texts[1].get_position()[0] + len("struck")  # each run at its own column
