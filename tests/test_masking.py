import random

import pytest
import torch

from cdlm_nb.inputs import pack_cluster
from cdlm_nb.masking import (
    IGNORE_INDEX,
    PATTERNS,
    PRONOUNS,
    CrossDocumentMLMCollator,
    collators_by_pattern,
    masking_metrics,
    masking_statistics,
    replacement_counts,
)
from cdlm_nb.support.errors import ConfigError

WORDS = ("court judge police said monday fire earthquake killed people city mayor announced plan storm coast "
         "rescue teams searched buildings officials reported aid region government he she they it").split()
N_BATCHES = 200


@pytest.fixture(scope="module")
def tokenizer(tiny_tokenizer):
    return tiny_tokenizer


@pytest.fixture(scope="module")
def rows(tokenizer):
    """Packed cross-document rows of varied lengths (so batches need padding)."""
    rng = random.Random(1)

    def document():
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))) + "."

    return [
        {"input_ids": pack_cluster([document() for _ in range(4)], tokenizer, length, rng).input_ids}
        for length in [rng.choice([60, 120, 200]) for _ in range(64)]
    ]


def batches(collator, rows, n=N_BATCHES, size=8):
    rng = random.Random(2)
    for _ in range(n):
        features = rng.sample(rows, size)
        yield features, collator(features)


def originals(features, width, pad_id):
    return torch.tensor([f["input_ids"] + [pad_id] * (width - len(f["input_ids"])) for f in features])


def test_never_masked_rule_and_labels_over_many_batches(tokenizer, rows):
    torch.manual_seed(0)
    collator = CrossDocumentMLMCollator(tokenizer, pattern="cdlm")
    protected = torch.tensor(sorted(set(tokenizer.all_special_ids)))
    n_predicted = n_maskable = 0
    for features, batch in batches(collator, rows):
        original = originals(features, batch["input_ids"].shape[1], tokenizer.pad_token_id)
        special = torch.isin(original, protected)  # includes <doc-s>, </doc-s>, <s>, </s> and padding
        predicted = batch["labels"] != IGNORE_INDEX
        assert not (predicted & special).any()
        assert torch.equal(batch["labels"][predicted], original[predicted])  # labels = the original tokens
        assert torch.equal(batch["input_ids"][~predicted], original[~predicted])  # nothing else changes
        assert not torch.isin(batch["input_ids"][predicted], protected[protected != tokenizer.mask_token_id]).any()
        for row_predicted, row_special, row_mask in zip(predicted, special, batch["attention_mask"].bool()):
            maskable = int((~row_special & row_mask).sum())
            assert int(row_predicted.sum()) == max(1, round(0.15 * maskable))  # BERT: 15 % of each row
            n_predicted += int(row_predicted.sum())
            n_maskable += maskable
    assert n_predicted / n_maskable == pytest.approx(0.15, abs=0.005)


def test_80_10_10_replacement_proportions(tokenizer, rows):
    torch.manual_seed(0)
    collator = CrossDocumentMLMCollator(tokenizer)
    counts = {"mask": 0, "random": 0, "same": 0}
    for _, batch in batches(collator, rows):
        predicted = batch["labels"] != IGNORE_INDEX
        inputs, labels = batch["input_ids"][predicted], batch["labels"][predicted]
        is_mask = inputs == tokenizer.mask_token_id
        counts["mask"] += int(is_mask.sum())
        counts["same"] += int((inputs == labels).sum())
        counts["random"] += int((~is_mask & (inputs != labels)).sum())
    total = sum(counts.values())
    assert total > 10_000
    assert counts["mask"] / total == pytest.approx(0.8, abs=0.02)
    # a random replacement equals the original with probability ~1/vocabulary, hence the slightly wider band
    assert counts["random"] / total == pytest.approx(0.1, abs=0.015)
    assert counts["same"] / total == pytest.approx(0.1, abs=0.015)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_global_attention_patterns(tokenizer, rows, pattern):
    collator = CrossDocumentMLMCollator(tokenizer, pattern=pattern)
    for features, batch in batches(collator, rows, n=50):
        glob = batch["global_attention_mask"].bool()
        predicted = batch["labels"] != IGNORE_INDEX
        lengths = [len(f["input_ids"]) for f in features]
        padding = torch.arange(glob.shape[1])[None, :] >= torch.tensor(lengths)[:, None]
        assert not glob[padding].any()
        assert not predicted[padding].any()
        assert (batch["input_ids"][padding] == tokenizer.pad_token_id).all()
        if pattern == "release":
            assert batch["attention_mask"].all()  # the released code attends padding
        else:
            assert torch.equal(batch["attention_mask"].bool(), ~padding)
        for row, length in enumerate(lengths):
            expected = torch.zeros(glob.shape[1], dtype=torch.bool)
            if pattern in ("cdlm", "rand"):
                expected = predicted[row].clone()  # the <s> token stays local: it is never predicted
            elif pattern == "prefix":
                expected[: round(0.15 * length)] = True
            elif pattern == "release":
                tokens = tokenizer.convert_ids_to_tokens(batch["labels"][row].clamp(min=0).tolist())
                pronoun = torch.tensor([t.lstrip("Ġ").lower() in PRONOUNS for t in tokens])
                expected = predicted[row] & ~pronoun
                expected[: int(predicted[row].sum())] = True
            assert torch.equal(glob[row], expected), (pattern, row)


def test_cdlm_keeps_the_first_token_local(tokenizer, rows):
    batch = CrossDocumentMLMCollator(tokenizer, pattern="cdlm")(rows[:8])
    assert (batch["input_ids"][:, 0] == tokenizer.cls_token_id).all()
    assert not batch["global_attention_mask"][:, 0].any()


def test_release_pattern_has_about_twice_the_global_tokens_of_cdlm(tokenizer, rows):
    cdlm = CrossDocumentMLMCollator(tokenizer, pattern="cdlm", seed=0)(rows)
    release = CrossDocumentMLMCollator(tokenizer, pattern="release", seed=0)(rows)
    assert torch.equal(cdlm["labels"], release["labels"])  # same seed, same masks
    ratio = release["global_attention_mask"].sum() / cdlm["global_attention_mask"].sum()
    assert 1.6 < ratio < 2.0


def test_seeded_collator_masks_each_row_the_same_whatever_the_batch(tokenizer, rows):
    collator = CrossDocumentMLMCollator(tokenizer, seed=7)
    first = collator(rows[:8])
    again = CrossDocumentMLMCollator(tokenizer, seed=7)(rows[4:12])  # other batch, other padding width
    for i in range(4):
        n = len(rows[4 + i]["input_ids"])
        assert torch.equal(first["input_ids"][4 + i, :n], again["input_ids"][i, :n])
        assert torch.equal(first["labels"][4 + i, :n], again["labels"][i, :n])
    assert torch.equal(collator(rows[:8])["input_ids"], first["input_ids"])  # repeated calls too
    other = CrossDocumentMLMCollator(tokenizer, seed=8)(rows[:8])
    assert not torch.equal(other["labels"], first["labels"])


def test_unseeded_collator_follows_torch_global_seed(tokenizer, rows):
    collator = CrossDocumentMLMCollator(tokenizer)
    torch.manual_seed(3)
    a = collator(rows[:8])
    b = collator(rows[:8])
    torch.manual_seed(3)
    c = collator(rows[:8])
    assert not torch.equal(a["labels"], b["labels"])
    assert torch.equal(a["labels"], c["labels"])


def test_padding_and_extra_keys(tokenizer, rows):
    features = [dict(row, doc_ids=[0] * len(row["input_ids"]), cluster_id="x") for row in rows[:3]]
    batch = CrossDocumentMLMCollator(tokenizer)(features)
    assert set(batch) == {"input_ids", "attention_mask", "global_attention_mask", "labels"}
    assert all(values.dtype == torch.long for values in batch.values())
    padding = torch.arange(batch["input_ids"].shape[1]) >= torch.tensor([[len(f["input_ids"])] for f in features])
    assert padding.any()  # rows of different lengths
    assert (batch["input_ids"][padding] == tokenizer.pad_token_id).all()
    assert (batch["labels"][padding] == IGNORE_INDEX).all()
    assert not batch["attention_mask"][padding].any() and batch["attention_mask"][~padding].all()
    assert not batch["global_attention_mask"][padding].any()


def test_bad_settings_raise_config_error(tokenizer):
    with pytest.raises(ConfigError, match="unknown CD-MLM attention pattern"):
        CrossDocumentMLMCollator(tokenizer, pattern="global")
    with pytest.raises(ConfigError, match="mlm_probability"):
        CrossDocumentMLMCollator(tokenizer, mlm_probability=1.5)
    with pytest.raises(ConfigError, match="empty batch"):
        CrossDocumentMLMCollator(tokenizer)([])


def test_replacement_counts_classify_predicted_positions():
    labels = torch.tensor([IGNORE_INDEX, 10, 11, 12, IGNORE_INDEX])
    inputs = torch.tensor([7, 4, 99, 12, 8])  # 4 = <mask>
    assert replacement_counts(inputs, labels, mask_token_id=4) == {"mask": 1, "random": 1, "unchanged": 1}


def test_masking_statistics_measure_bert_proportions(tokenizer, rows):
    ids = [row["input_ids"] for row in rows[:8]]
    stats = masking_statistics(CrossDocumentMLMCollator(tokenizer, pattern="cdlm"), ids, draws=50)
    assert stats["mask_rate"] == pytest.approx(0.15, abs=0.01)
    assert stats["mask_share"] == pytest.approx(0.8, abs=0.04)
    assert stats["random_share"] == pytest.approx(0.1, abs=0.03)
    assert stats["unchanged_share"] == pytest.approx(0.1, abs=0.03)
    collator = CrossDocumentMLMCollator(tokenizer)  # valid: the errors below are masking_statistics' own
    with pytest.raises(ConfigError, match="draws=0"):
        masking_statistics(collator, ids, draws=0)
    with pytest.raises(ConfigError, match="got 0 rows"):
        masking_statistics(collator, [], draws=1)
    assert masking_metrics(stats) == {f"masking/{name}": value for name, value in stats.items()}


def test_collators_by_pattern_mask_the_same_tokens(tokenizer, rows):
    collators = collators_by_pattern(tokenizer, seed=3)
    assert list(collators) == list(PATTERNS) and all(c.pattern == p for p, c in collators.items())
    labels = [collator(rows[:4])["labels"] for collator in collators.values()]
    assert all(torch.equal(labels[0], other) for other in labels[1:])
