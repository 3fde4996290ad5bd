"""Shared by the attention-analysis tests: a hand-made two-topic coreference corpus and a tiny Longformer."""

import pytest


def _doc(doc_id, topic, sentences, mentions):
    sentences = [s.split() for s in sentences]
    rows = []
    for i, (kind, sentence, start, end, cluster) in enumerate(mentions):
        rows.append({"mention_id": f"{doc_id}/{i}", "kind": kind, "type": "", "sentence": sentence, "start": start,
                     "end": end, "text": " ".join(sentences[sentence][start:end]), "cluster_id": cluster,
                     "singleton": False})
    return {"doc_id": doc_id, "topic": topic, "subtopic": f"{topic}_ecb", "sentence_ids": list(range(len(sentences))),
            "sentences": sentences, "mentions": rows}


CORPUS = [
    _doc("1_1ecb", "1", ["Obama named Regina Benjamin surgeon general .", "She is a doctor in Alabama ."],
         [("event", 0, 1, 2, "E1"), ("entity", 0, 0, 1, "P1"), ("entity", 0, 2, 4, "P2"), ("event", 1, 1, 2, "E3")]),
    _doc("1_2ecb", "1", ["The president nominates a new surgeon general .", "Benjamin accepted the job ."],
         [("event", 0, 2, 3, "E1"), ("entity", 0, 0, 2, "P1"), ("entity", 1, 0, 1, "P2"), ("event", 1, 1, 2, "E2")]),
    _doc("1_3ecbplus", "1", ["Benjamin accepted the nomination on Monday ."],
         [("event", 0, 1, 2, "E2"), ("entity", 0, 0, 1, "P2")]),
    _doc("2_1ecb", "2", ["An earthquake hit Chile .", "Buildings collapsed in Santiago ."],
         [("event", 0, 2, 3, "E4"), ("entity", 0, 3, 4, "L1"), ("event", 1, 1, 2, "E5")]),
    _doc("2_2ecb", "2", ["A strong quake struck Chile on Saturday ."],
         [("event", 0, 3, 4, "E4"), ("entity", 0, 4, 5, "L1")]),
]


@pytest.fixture
def corpus():
    """The hand-made corpus: topic 1 (a nomination, three documents), topic 2 (an earthquake, two documents)."""
    return CORPUS


@pytest.fixture
def mentions():
    """The corpus's mentions of both kinds, by mention id."""
    from cdlm_nb.coref.mentions import collect_mentions

    return {m.mention_id: m for kind in ("event", "entity") for m in collect_mentions(CORPUS, kind)}


@pytest.fixture
def longformer():
    """`longformer(tokenizer, window)`: a seeded random 2-layer LongformerForMaskedLM (the shared `tiny_encoder` has
    one fixed window; these tests need one wider than the input, and a narrow one)."""

    def build(tokenizer, window):
        import torch
        from transformers import LongformerConfig, LongformerForMaskedLM

        torch.manual_seed(0)
        config = LongformerConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=2,
                                  num_attention_heads=2, intermediate_size=32, attention_window=window,
                                  max_position_embeddings=258, pad_token_id=tokenizer.pad_token_id, type_vocab_size=1)
        return LongformerForMaskedLM(config).eval()

    return build


@pytest.fixture
def toy_results():
    """A hand-made results table (rows of `run.analyse_pairs`): cdlm and local, one pair skipped."""
    import pandas as pd

    rows = [
        ("cdlm", "event", "pos", 80.0, "ok"), ("cdlm", "event", "pos", 60.0, "ok"),
        ("cdlm", "entity", "pos", 90.0, "ok"),
        ("cdlm", "event", "neg", 40.0, "ok"), ("cdlm", "entity", "neg", 50.0, "ok"),
        ("cdlm", "entity", "neg", float("nan"), "mention has no tokens"),
        ("local", "event", "pos", 55.0, "ok"), ("local", "entity", "pos", 45.0, "ok"),
        ("local", "event", "neg", 50.0, "ok"), ("local", "entity", "neg", 52.0, "ok"),
    ]
    frame = pd.DataFrame(rows, columns=["model", "kind", "label", "percentile", "status"])
    return frame.assign(truncated_documents=[0, 1, 0, 0, 0, 0, 2, 0, 0, 0], pair=[0, 1, 0, 2, 1, 2, 0, 0, 2, 1])
