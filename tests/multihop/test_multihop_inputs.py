"""The HotpotQA input: markers, global positions, what each head reads, the labels and the counted cuts."""

from cdlm_nb.multihop.inputs import (
    add_qa_markers,
    encode_question,
    encode_questions,
    preview_question,
    question_labels,
    span_text,
)


def test_input_layout_and_what_each_head_reads(qa_row, qa_tokenizer):
    markers = add_qa_markers(qa_tokenizer)
    item = encode_question(qa_row, qa_tokenizer, markers, max_length=256)
    ids = item.input_ids
    assert ids[0] == markers.cls and ids[1] == markers.question_start and ids[-1] == markers.sep
    assert [ids[p] for p in item.paragraph_positions] == [markers.doc_start] * 3
    assert [ids[p] for p in item.sentence_positions] == [markers.sentence_end] * 6
    assert ids.count(markers.title_start) == ids.count(markers.title_end) == ids.count(markers.doc_end) == 3
    question_end = ids.index(markers.question_end)
    assert set(range(question_end + 1)) <= set(item.global_positions)  # <s> and the whole question
    assert set(item.paragraph_positions + item.sentence_positions) <= set(item.global_positions)
    assert item.sentence_keys[3] == ("Acme Corp", 1) and item.sentence_paragraph == [0, 0, 1, 1, 2, 2]
    assert item.cut_sentences == 0 and "**" in preview_question(qa_row, qa_tokenizer, max_length=256)


def test_labels_mark_gold_paragraphs_sentences_and_the_answer_span(qa_row, qa_tokenizer):
    markers = add_qa_markers(qa_tokenizer)
    item = encode_question(qa_row, qa_tokenizer, markers, max_length=256)
    labels = question_labels(item, qa_row)
    assert labels.paragraphs == [0, 1, 1] and labels.sentences == [0, 0, 1, 0, 0, 1]
    assert labels.answer_type == 0 and span_text(item, labels.start, labels.end) == "Lyon"
    yes_no = question_labels(item, {**qa_row, "answer": "Yes"})
    assert yes_no.answer_type == 1 and yes_no.start == yes_no.end == -1


def test_cut_sentences_and_missing_answers_are_counted(qa_row, qa_tokenizer):
    markers = add_qa_markers(qa_tokenizer)
    full = encode_question(qa_row, qa_tokenizer, markers, max_length=256)
    short = encode_question(qa_row, qa_tokenizer, markers, max_length=len(full.input_ids) - 8)
    assert short.cut_sentences >= 1 and len(short.input_ids) <= len(full.input_ids) - 8
    assert short.input_ids[-1] == markers.sep
    encoded = encode_questions([qa_row], qa_tokenizer, markers, max_length=len(full.input_ids) - 8)
    assert encoded.answers_not_found == 1  # "Lyon" sits in the last sentence, which was cut
    assert encoded.cut_sentences == short.cut_sentences and encoded.total_sentences == 6
