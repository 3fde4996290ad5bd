"""The multi-task model: batch shapes and masks, a loss that ignores what it should, and heads that learn."""

import copy

import torch

from cdlm_nb.finetuning import TrainSetup
from cdlm_nb.multihop.inputs import add_qa_markers, encode_questions
from cdlm_nb.multihop.model import MultiHopQA, collate, fine_tune, multitask_loss, predict


def _encoded(rows, tokenizer, model=None):
    markers = add_qa_markers(tokenizer, model)
    return markers, encode_questions(rows, tokenizer, markers, max_length=256)


def test_collate_pads_and_masks(qa_row, qa_tokenizer):
    short = {**qa_row, "id": "q2", "context": {"title": ["Acme Corp"], "sentences": [["Acme Corp sells anvils."]]}}
    markers, encoded = _encoded([qa_row, short], qa_tokenizer)
    batch = collate(encoded.inputs, encoded.labels, markers.pad, global_attention=True)
    assert batch["input_ids"].shape[0] == 2 and batch["paragraph_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch["sentence_mask"].sum(1).tolist() == [6, 1]
    assert batch["global_attention_mask"][0, 0] == 1 and batch["attention_mask"][1, -1] == 0
    assert batch["span_mask"][0].sum() == sum(s >= 0 for s in encoded.inputs[0].token_sentence)
    length = len(encoded.inputs[1].input_ids)
    assert (batch["input_ids"][1, length:] == markers.pad).all() and not batch["span_mask"][1, length:].any()
    assert batch["paragraph_positions"][1].tolist() == [*encoded.inputs[1].paragraph_positions, 0, 0]
    assert batch["paragraph_labels"][1].tolist() == [*map(float, encoded.labels[1].paragraphs), 0.0, 0.0]
    assert batch["sentence_labels"].shape == batch["sentence_positions"].shape == (2, 6)
    dtypes = {name: values.dtype for name, values in batch.items()}
    assert {name for name, dtype in dtypes.items() if dtype == torch.bool} == {"paragraph_mask", "sentence_mask",
                                                                              "span_mask"}
    assert dtypes["paragraph_labels"] == dtypes["sentence_labels"] == torch.float
    assert dtypes["input_ids"] == dtypes["global_attention_mask"] == dtypes["paragraph_positions"] == torch.long


def test_loss_is_finite_and_skips_the_span_of_yes_no_questions(qa_row, qa_tokenizer, tiny_encoder):
    encoder = copy.deepcopy(tiny_encoder.model)
    markers, encoded = _encoded([qa_row, {**qa_row, "id": "q2", "answer": "no"}], qa_tokenizer, encoder)
    model = MultiHopQA(encoder).eval()
    batch = collate(encoded.inputs, encoded.labels, markers.pad, global_attention=True)
    logits = model(**batch)
    assert logits["paragraph"].shape == (2, 3) and logits["answer_type"].shape == (2, 3)
    assert torch.isfinite(multitask_loss(logits, batch))
    assert batch["start_labels"].tolist()[1] == -1


def test_the_heads_learn_two_questions_by_heart(qa_row, qa_tokenizer, tiny_encoder):
    encoder = copy.deepcopy(tiny_encoder.model)
    other = {**qa_row, "id": "q2", "question": "Did Acme Corp sell anvils?", "answer": "yes",
             "supporting_facts": {"title": ["Acme Corp"], "sent_id": [1]}}
    markers, encoded = _encoded([qa_row, other], qa_tokenizer, encoder)
    model = MultiHopQA(encoder)
    losses = [loss for epoch in fine_tune(model, encoded.inputs, encoded.labels, TrainSetup(60, 2, 3e-3, warmup=0.1),
                                          pad_id=markers.pad) for loss in epoch.losses]
    assert losses[-1] < 0.2 * losses[0]
    decoded, seconds = predict(model, encoded.inputs, pad_id=markers.pad, batch_size=2, max_answer_tokens=10)
    assert decoded["q1"].answer == "Lyon" and decoded["q2"].answer == "yes" and seconds > 0
    assert decoded["q1"].paragraphs == ["Acme Corp", "Jean Dupont"]
