"""Cross-document perplexity of a model: the shared evaluation masks, the attention pattern per model, and agreement
with the model's own loss."""

from __future__ import annotations

import math

import pytest

from cdlm_nb.perplexity.evaluate import evaluate_perplexity
from cdlm_nb.pretraining.heldout import EVAL_MASK_SEED, heldout_examples
from cdlm_nb.support.errors import DataError


def test_every_model_is_scored_on_the_same_masked_tokens(heldout, model):
    tokenizer, examples = heldout
    by_variant = {v: evaluate_perplexity(model, tokenizer, examples, v, batch_size=4, n_resamples=50)
                  for v in ("longformer", "cdlm", "prefix")}
    counts = {r.token_counts for r in by_variant.values()}
    assert len(counts) == 1 and by_variant["cdlm"].n_clusters == 6  # 12 examples, summed per cluster
    # the same weights with another attention pattern give another perplexity
    assert by_variant["cdlm"].ppl != pytest.approx(by_variant["longformer"].ppl, rel=1e-6)
    for r in by_variant.values():
        assert r.ci_low <= r.ppl <= r.ci_high
    assert not model.training  # evaluation leaves the model in the mode it found it in


def test_perplexity_matches_the_model_loss(heldout, model):
    """exp of the Trainer's loss (mean over the batch's masked tokens) on one batch is our perplexity."""
    import torch

    from cdlm_nb.masking import CrossDocumentMLMCollator

    tokenizer, examples = heldout
    batch = CrossDocumentMLMCollator(tokenizer, pattern="cdlm", seed=EVAL_MASK_SEED)(
        [{"input_ids": ids} for ids in examples["input_ids"]])
    with torch.no_grad():
        loss = model(**batch).loss.item()
    ours = evaluate_perplexity(model, tokenizer, examples, "cdlm", batch_size=len(examples), n_resamples=10)
    assert ours.ppl == pytest.approx(math.exp(loss), rel=1e-4)


def test_evaluate_perplexity_refuses_unpacked_or_empty_examples(heldout, model):
    tokenizer, examples = heldout
    with pytest.raises(DataError, match="input_ids"):
        evaluate_perplexity(model, tokenizer, examples.remove_columns("input_ids"), "cdlm")
    with pytest.raises(DataError, match="empty"):
        evaluate_perplexity(model, tokenizer, examples.select([]), "cdlm")


def test_heldout_clusters_give_one_example_each_within_the_pretraining_length(tiny_tokenizer):
    from datasets import Dataset

    from cdlm_nb.data.schemas import CLUSTER_FEATURES
    from cdlm_nb.profiles import get_profile

    profile = get_profile("smoke")
    documents = [[f"report {c} number {d} said the mayor of town{c}" for d in range(n)] for c, n in
                 enumerate((2, 3, 1))]
    clusters = Dataset.from_list([{"cluster_id": f"t{c}", "documents": docs, "summary": ""}
                                  for c, docs in enumerate(documents)], features=CLUSTER_FEATURES)
    examples = heldout_examples(clusters, tiny_tokenizer, profile)
    assert list(examples["cluster_id"]) == ["t0", "t1"]  # the single-document cluster has no cross-document context
    assert "1 clusters with fewer than 2 documents skipped" in examples.info.description
    assert max(len(ids) for ids in examples["input_ids"]) <= profile.pretrain.max_length
