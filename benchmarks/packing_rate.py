"""How fast does this machine tokenize and pack a Multi-News-sized training split (notebook 02, issue 54)?

Multi-News train has about 45,000 clusters; the embedded world's generator makes about 1,000 training clusters per
500 topics before it runs out of unique names, so `--worlds` worlds of different seeds are generated and
concatenated (cluster ids prefixed by the world). A byte-level BPE of `--vocab` tokens (RoBERTa's size by default)
is trained on their documents; then, as notebook 02 does on the gpu profile (sentence markers, `--length` tokens),
the split is tokenized once (`inputs.tokenize_clusters`) and packed twice from the tokens: related clusters (CDLM,
Local and Prefix; `inputs.pack_tokenized`) and unrelated documents (Rand; `inputs.pack_random_tokenized`), one
packing per cluster, in memory. Reported: seconds and corpus tokens per second of each step (the documents' own
tokens, without the `<doc-s>`, `<s>` and `</s>` the layout adds), and the process's peak resident memory.

    .venv/bin/python benchmarks/packing_rate.py                     # 46 worlds: ~45,800 clusters
    .venv/bin/python benchmarks/packing_rate.py --worlds 5 --json   # ~5,000 clusters
    .venv/bin/python benchmarks/packing_rate.py --clusters saved/   # a CLUSTER_FEATURES split saved with save_to_disk

Numbers depend on the machine and on what else runs on it: compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from dataclasses import replace


def world_clusters(worlds: int, topics: int):
    """The training clusters of `worlds` embedded worlds (seeds counted up from the gpu profile's), concatenated."""
    from datasets import concatenate_datasets

    from cdlm_nb.data.world import generate_world
    from cdlm_nb.profiles import get_profile

    base = get_profile("gpu").world
    parts = []
    for index in range(worlds):
        config = replace(base, topics=topics, dev_topics=1, test_topics=1, task_topics=1, seed=base.seed + index)
        train = generate_world(config).clusters["train"]
        parts.append(train.map(lambda row, i=index: {"cluster_id": f"w{i}/{row['cluster_id']}"}))
    return concatenate_datasets(parts).flatten_indices()


def timed(function):
    """(what `function()` returns, its wall-clock seconds)."""
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def measure(clusters, vocab: int, length: int, sentence_markers: bool) -> dict:
    """Seconds and corpus tokens per second of tokenizing the split and of each packing notebook 02 makes of it."""
    import numpy as np
    import pyarrow.compute as pc

    from cdlm_nb.inputs import pack_random_tokenized, pack_tokenized, tokenize_clusters
    from cdlm_nb.pretraining.inputs import corpus_fingerprint
    from cdlm_nb.tokenization import document_separator_ids, sequence_markers, train_tokenizer

    texts = [doc for docs in clusters["documents"] for doc in docs]
    tokenizer, train_s = timed(lambda: train_tokenizer(texts, vocab_size=vocab, model_max_length=length))
    _, hash_s = timed(lambda: corpus_fingerprint(clusters))
    tokens, tokenize_s = timed(lambda: tokenize_clusters(clusters, tokenizer, sentence_markers))
    ids = pc.list_flatten(pc.list_flatten(tokens.with_format("arrow")["blocks"])).to_numpy()
    markers = [*document_separator_ids(tokenizer), *sequence_markers(tokenizer)]
    corpus_tokens = int((~np.isin(ids, markers)).sum())  # the text's tokens, as `plan.workloads` counts them
    related, related_s = timed(lambda: pack_tokenized(tokens, tokenizer, length, sentence_markers=sentence_markers))
    unrelated, unrelated_s = timed(lambda: pack_random_tokenized(tokens, tokenizer, length,
                                                                  sentence_markers=sentence_markers))
    words = sum(len(text.split()) for text in texts)
    return {
        "clusters": len(clusters), "documents": len(texts), "words": words, "corpus_tokens": corpus_tokens,
        "marker_tokens": len(ids) - corpus_tokens,
        "tokens_per_word": corpus_tokens / words, "vocab": len(tokenizer), "length": length,
        "sentence_markers": sentence_markers, "bpe_training_s": train_s, "corpus_hash_s": hash_s,
        "tokenize_s": tokenize_s, "tokenize_tokens_per_s": corpus_tokens / tokenize_s,
        "related_examples": len(related), "related_s": related_s, "related_tokens_per_s": corpus_tokens / related_s,
        "unrelated_examples": len(unrelated), "unrelated_s": unrelated_s,
        "unrelated_tokens_per_s": corpus_tokens / unrelated_s,
        "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=46, help="embedded worlds to concatenate (~1,000 clusters each)")
    parser.add_argument("--topics", type=int, default=500, help="topics per world (more runs out of unique names)")
    parser.add_argument("--clusters", help="a saved CLUSTER_FEATURES split instead of generated worlds")
    parser.add_argument("--vocab", type=int, default=50265, help="BPE vocabulary (Longformer-base's by default)")
    parser.add_argument("--length", type=int, default=4096, help="tokens per packed example (the gpu profile's)")
    parser.add_argument("--no-markers", action="store_true", help="without <s> ... </s> around sentences")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    args = parser.parse_args(argv)

    import datasets

    datasets.disable_progress_bars()
    if args.clusters:
        clusters, generate_s = timed(lambda: datasets.load_from_disk(args.clusters))
    else:
        clusters, generate_s = timed(lambda: world_clusters(args.worlds, args.topics))
    result = {"generate_s": generate_s, **measure(clusters, args.vocab, args.length, not args.no_markers)}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{result['clusters']:,} clusters, {result['corpus_tokens']:,} tokens "
              f"({result['tokens_per_word']:.2f} per word, BPE of {result['vocab']:,})")
        for step in ("tokenize", "related", "unrelated"):
            print(f"  {step:9}  {result[step + '_s']:7.1f} s  {result[step + '_tokens_per_s']:12,.0f} tokens/s")
        print(f"  peak resident memory {result['peak_rss_gib']:.2f} GiB")
    return result


if __name__ == "__main__":
    main()
