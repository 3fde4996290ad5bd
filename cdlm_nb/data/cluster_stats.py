"""How much cross-document information a corpus of clusters carries, by one text-only rule, so that the embedded
world and real Multi-News clusters are measured alike: the quantities that decide whether predicting a masked fact
can profit from the other documents.

A proxy fact is a word with a digit, or a capitalised word that does not open its sentence (names, places, dates,
numbers); `ClusterStats` lists what is measured per corpus. The values' entropy and distinct values per 1,000 fact
words grow with the sample, so corpora are compared on equally many clusters.
"""

from __future__ import annotations

import math
import os
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import permutations
from pathlib import Path
from typing import TYPE_CHECKING

from ..profiles import SEED
from .text import split_sentences

if TYPE_CHECKING:
    import pandas as pd

#: The world measured on as many clusters as the Multi-News sample (the distinct values per 1,000 fact words grow
#: with the clusters counted): recorded under the sample's metric prefix, since it exists only beside the sample.
MATCHED_WORLD = "multinews_world"

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d[\d,.:/-]*")


def proxy_facts(document: str) -> list[str]:
    """The document's proxy-fact words, lower-cased, in order (the module's rule)."""
    facts = []
    for sentence in split_sentences(document):
        for position, word in enumerate(_WORD.findall(sentence)):
            word = word.rstrip(".,:/-")
            if any(c.isdigit() for c in word) or (position > 0 and word[:1].isupper()):
                facts.append(word.lower())
    return facts


@dataclass(frozen=True)
class ClusterStats:
    """The module's statistics of one corpus."""

    clusters: int
    documents_per_cluster: float
    words_per_document: float
    fact_share: float  # proxy-fact words among all words
    facts_elsewhere: float  # of the fact words, those whose value another document of the cluster states
    missing_elsewhere: float  # of a document's distinct fact values, those another document lacks (mean over pairs)
    value_entropy_bits: float  # entropy of the fact values' distribution over the corpus
    values_per_1k_facts: float  # distinct fact values per 1,000 fact words


def cluster_statistics(clusters: Sequence[Sequence[str]]) -> ClusterStats:
    """`ClusterStats` of `clusters` (lists of document texts; one-document clusters state nothing elsewhere)."""
    documents = [doc for cluster in clusters for doc in cluster]
    facts = [[proxy_facts(doc) for doc in cluster] for cluster in clusters]
    words = sum(len(_WORD.findall(doc)) for doc in documents)
    fact_words = elsewhere = 0
    missing: list[float] = []
    values: Counter = Counter()
    for cluster in facts:
        sets = [set(doc) for doc in cluster]
        for i, doc in enumerate(cluster):
            others = set().union(*(s for j, s in enumerate(sets) if j != i))
            fact_words += len(doc)
            elsewhere += sum(value in others for value in doc)
            values.update(doc)
        missing += [len(sets[i] - sets[j]) / len(sets[i]) for i, j in permutations(range(len(sets)), 2) if sets[i]]
    total = sum(values.values())
    entropy = -sum(n / total * math.log2(n / total) for n in values.values()) if total else 0.0
    return ClusterStats(len(clusters), len(documents) / max(len(clusters), 1), words / max(len(documents), 1),
                        fact_words / max(words, 1), elsewhere / max(fact_words, 1),
                        sum(missing) / max(len(missing), 1), entropy, 1000 * len(values) / max(total, 1))


def sample_clusters(clusters: Sequence[Sequence[str]], n: int, seed: int = SEED) -> list[Sequence[str]]:
    """`n` clusters drawn without replacement (all of them when there are fewer)."""
    return random.Random(seed).sample(list(clusters), min(n, len(clusters)))


#: Row labels of `comparison_table`, by `ClusterStats` field.
LABELS = {"clusters": "clusters measured", "documents_per_cluster": "documents per cluster",
          "words_per_document": "words per document", "fact_share": "proxy-fact words (% of words)",
          "facts_elsewhere": "fact words another document states (%)",
          "missing_elsewhere": "a document's facts another one lacks (%)",
          "value_entropy_bits": "entropy of the fact values (bits)",
          "values_per_1k_facts": "distinct values per 1,000 fact words"}
_PERCENT = ("fact_share", "facts_elsewhere", "missing_elsewhere")


def comparison_table(stats: Mapping[str, ClusterStats]) -> "pd.DataFrame":
    """One column per corpus, one row per statistic (shares in %); beside Multi-News, the world on as many clusters."""
    import pandas as pd

    shown = ({"world": stats[MATCHED_WORLD], **{k: v for k, v in stats.items() if k not in ("world", MATCHED_WORLD)}}
             if MATCHED_WORLD in stats else stats)
    columns = {name: {LABELS[k]: round(100 * v if k in _PERCENT else v, 1) for k, v in asdict(s).items()}
               for name, s in shown.items()}
    return pd.DataFrame(columns)


def stats_metrics(stats: Mapping[str, ClusterStats]) -> dict[str, float]:
    """`calibration/<corpus>/<statistic>` (shares in %): `world` on all its training clusters (the same with or
    without the sample), all measured beside the sample under `calibration/multinews*` (its `record_input`)."""
    return {f"calibration/{name}/{key}": (100 * value if key in _PERCENT else float(value))
            for name, s in stats.items() for key, value in asdict(s).items()}


def multinews_sample(path: str | os.PathLike | None = None) -> Path | None:
    """`path`, else the Multi-News sample beside the checkout (`<shared data>/multinews`), else None."""
    from .sources import shared_sample

    return Path(path) if path else shared_sample("multinews")


def world_and_multinews(profile, multinews_path: str | None = None,
                        seed: int = SEED) -> tuple[dict[str, ClusterStats], list[str]]:
    """The profile's world (all its training clusters: `world`) and, given Multi-News (`multinews_sample`), on
    equally many clusters each: Multi-News, its clusters CDLM pretrains on (>= `CDLM_MIN_DOCUMENTS` documents: the
    world's calibration target) and the world again (`MATCHED_WORLD`); notes say what was measured."""
    from .corpora import world
    from .multinews import CDLM_MIN_DOCUMENTS, MULTINEWS_MANUAL, filter_min_documents, load_multinews

    world_clusters = world(profile.world).clusters["train"]["documents"]
    whole = {"world": cluster_statistics(world_clusters)}
    path = multinews_sample(multinews_path)
    if path is None:
        return whole, [f"Multi-News not measured: no sample beside the checkout. {MULTINEWS_MANUAL}"]
    loaded = load_multinews(path)
    real, pretraining = loaded["documents"], filter_min_documents(loaded, CDLM_MIN_DOCUMENTS)[0]["documents"]
    n = min(len(world_clusters), len(real), len(pretraining))
    stats = {**whole, MATCHED_WORLD: cluster_statistics(sample_clusters(world_clusters, n, seed)),
             "multinews": cluster_statistics(sample_clusters(real, n, seed)),
             "multinews_pretraining": cluster_statistics(sample_clusters(pretraining, n, seed))}
    return stats, [f"{n} clusters of each: the world's training clusters (profile {profile.name}), Multi-News from "
                   f"{path}, and its clusters with >= {CDLM_MIN_DOCUMENTS} documents (what CDLM pretrains on; "
                   f"{len(pretraining)} of {len(real)})"]


def readings(stats: Mapping[str, ClusterStats]) -> list[str]:
    """The world against the Multi-News clusters CDLM pretrains on (else all of Multi-News): what the table does not
    say, the length ratio and the fact words per cluster, which the entropy grows with."""
    if "multinews" not in stats:
        return ["- Only the world was measured: nothing to compare it with."]
    w = stats.get(MATCHED_WORLD, stats["world"])
    m = stats.get("multinews_pretraining", stats["multinews"])
    facts = [s.fact_share * s.words_per_document * s.documents_per_cluster for s in (w, m)]
    return [f"- Shared facts: {100 * w.facts_elsewhere:.0f} % against {100 * m.facts_elsewhere:.0f} % of fact words "
            f"stated by another document, in documents {m.words_per_document / w.words_per_document:.1f}× as long "
            f"in Multi-News; entropy grows with the fact words per cluster ({facts[0]:.0f} against {facts[1]:.0f})."]
