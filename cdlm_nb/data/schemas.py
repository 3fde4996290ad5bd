"""The shared `datasets.Features` every loader and the embedded world produce, so a notebook never cares
whether its data came from the generator or from a real corpus.

Spans are token offsets *within a sentence*, end-exclusive: `tokens[sentence][start:end]` is the mention.
"""

from __future__ import annotations

from datasets import ClassLabel, Features, List, Value

#: Pretraining input: one cluster of related documents (a Multi-News example, or one embedded subtopic).
CLUSTER_FEATURES = Features({
    "cluster_id": Value("string"),  # unique within the dataset
    "documents": List(Value("string")),  # plain-text documents, >= 1; CDLM packs clusters with >= 3
    "summary": Value("string"),  # reference summary where the corpus has one, else ""
})

#: Coreference corpus: one row per document with its tokenised sentences and gold mentions (ECB+ layout).
COREF_FEATURES = Features({
    "doc_id": Value("string"),  # e.g. "1_10ecb"
    "topic": Value("string"),  # e.g. "1"
    "subtopic": Value("string"),  # e.g. "1_ecb" / "1_ecbplus": same event type, different event
    "sentence_ids": List(Value("int32")),  # the corpus' own sentence numbers, parallel to `sentences`
    "sentences": List(List(Value("string"))),  # tokens per sentence
    "mentions": List({
        "mention_id": Value("string"),  # unique within the corpus
        "kind": Value("string"),  # "event" or "entity"
        "type": Value("string"),  # the corpus tag, e.g. ACTION_OCCURRENCE, HUMAN_PART_PER, LOC_GEO
        "sentence": Value("int32"),  # index into the document's `sentences`
        "start": Value("int32"),  # first token, within the sentence
        "end": Value("int32"),  # one past the last token
        "text": Value("string"),  # " ".join(tokens[start:end]), kept for checking and reading
        "cluster_id": Value("string"),  # gold cluster; unique ids for singletons
        "singleton": Value("bool"),  # no other mention of the same kind and topic shares its cluster
    }),
})

#: Document pairs for matching (same event?) and sentence-to-document localisation.
PAIR_FEATURES = Features({
    "pair_id": Value("string"),
    "doc_a": List(Value("string")),  # sentences of the first document
    "doc_b": List(Value("string")),  # sentences of the second document
    "label": Value("int32"),  # 1 = related (same event / citing), 0 = not
    "kind": Value("string"),  # "positive", "hard_negative", "easy_negative", or "" when unknown
    "positive_sentences": List(Value("int32")),  # indices into doc_a that doc_b is about; [] if none
})

#: Multi-hop QA in the Hugging Face `hotpot_qa` layout (the original JSON layout is converted to it).
QA_FEATURES = Features({
    "id": Value("string"),
    "question": Value("string"),
    "answer": Value("string"),
    "type": Value("string"),  # "bridge" or "comparison"
    "level": Value("string"),  # "easy" / "medium" / "hard" ("" if unknown)
    "supporting_facts": {"title": List(Value("string")), "sent_id": List(Value("int32"))},
    "context": {"title": List(Value("string")), "sentences": List(List(Value("string")))},
})


def classification_features(label_names: list[str]) -> Features:
    """Long-document classification: the text and a ClassLabel with the corpus' own label names."""
    return Features({"text": Value("string"), "label": ClassLabel(names=list(label_names))})
