"""The training examples of each model: related clusters (CDLM, Local, Prefix), unrelated documents (Rand CDLM and
the start's long base stage), or one document per example (Longformer and the first base stage), as in the CDLM
paper, §3."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import DataError
from ..inputs import pack_clusters, pack_random_documents
from ..variants import SINGLE_DOCUMENT_VARIANTS, UNRELATED_DOCUMENT_VARIANTS, check_variant

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedTokenizerBase

#: At most this many different random packings per cluster are materialised; the Trainer cycles over them.
MAX_PACKINGS_PER_CLUSTER = 4


def single_document_clusters(clusters: "Dataset") -> "Dataset":
    """Every document of every cluster as a cluster of its own: the inputs of single-document MLM (the first base
    stage)."""
    from datasets import Dataset

    ids, documents = [], []
    for cluster_id, docs in zip(clusters["cluster_id"], clusters["documents"]):
        for index, doc in enumerate(docs):
            ids.append(f"{cluster_id}/{index}")
            documents.append([doc])
    return Dataset.from_dict({"cluster_id": ids, "documents": documents, "summary": [""] * len(ids)},
                             features=clusters.features)


def pretraining_inputs(variant: str, clusters: "Dataset", tokenizer: "PreTrainedTokenizerBase", max_length: int,
                       n_examples: int, seed: int, sentence_markers: bool = False) -> "Dataset":
    """The packed training examples of one variant, about `n_examples` of them (fewer distinct ones are cycled).

    Related clusters for cdlm/local/prefix/release, unrelated documents for rand (as many as the cluster it stands
    in for) and base-long (up to `max_length`), one document per example for longformer and base. The packing
    summary (skipped clusters, truncated documents) is in `result.info.description`.
    """
    check_variant(variant)
    options = {"seed": seed, "sentence_markers": sentence_markers}
    if variant in SINGLE_DOCUMENT_VARIANTS:
        source, pack, options["min_documents"] = single_document_clusters(clusters), pack_clusters, 1
    elif variant in UNRELATED_DOCUMENT_VARIANTS:
        source, pack, options["fill"] = clusters, pack_random_documents, variant == "base-long"
    else:
        source, pack = clusters, pack_clusters
    packings = math.ceil(n_examples / max(1, len(source)))
    options["examples_per_cluster"] = min(MAX_PACKINGS_PER_CLUSTER, max(1, packings))
    examples = pack(source, tokenizer, max_length, **options)
    if len(examples) == 0:
        raise DataError(f"no {variant} pretraining examples: {examples.info.description}")
    return examples
