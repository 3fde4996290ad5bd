"""How much cross-document information a corpus of clusters carries, measured by one rule that reads only the text,
so that the embedded world and real Multi-News clusters are measured alike.

The rule's proxy for a fact: a word with a digit, or a capitalised word that does not open its sentence (names,
places, dates, numbers). Per corpus: documents per cluster, words per document, the share of words that are proxy
facts, the share of those whose value (the word, lower-cased) another document of the cluster also states, how
often a fact one document states is missing from another, and how varied the values are (the entropy of their
distribution and the distinct values per 1,000 fact words, on equally many clusters per corpus). These are the
quantities that decide whether predicting a masked fact can profit from the other documents.
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


def word_count(document: str) -> int:
    return len(_WORD.findall(document))


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
    """`ClusterStats` of `clusters` (each a list of document texts; clusters of one document count in the lengths
    but state nothing elsewhere)."""
    documents = [doc for cluster in clusters for doc in cluster]
    facts = [[proxy_facts(doc) for doc in cluster] for cluster in clusters]
    words = sum(word_count(doc) for doc in documents)
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
    """`n` clusters drawn without replacement (all of them when there are fewer): corpora compared on equally many
    clusters, since the entropy and the distinct values grow with the sample."""
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
    """One column per corpus, one row per statistic (shares in %); beside Multi-News, the world on as many clusters
    (`world_and_multinews`)."""
    import pandas as pd

    shown = ({"world": stats[MATCHED_WORLD], **{k: v for k, v in stats.items() if k not in ("world", MATCHED_WORLD)}}
             if MATCHED_WORLD in stats else stats)
    columns = {name: {LABELS[k]: round(100 * v if k in _PERCENT else v, 1) for k, v in asdict(s).items()}
               for name, s in shown.items()}
    return pd.DataFrame(columns)


def stats_metrics(stats: Mapping[str, ClusterStats]) -> dict[str, float]:
    """`calibration/<corpus>/<statistic>` for results.json (shares in %): `world` on all its training clusters (the
    same with or without the Multi-News sample), and everything measured beside the sample under
    `calibration/multinews*` (what `record_input("multinews_sample", "calibration/multinews", ...)` marks)."""
    return {f"calibration/{name}/{key}": (100 * value if key in _PERCENT else float(value))
            for name, s in stats.items() for key, value in asdict(s).items()}


def multinews_sample(path: str | os.PathLike | None = None) -> Path | None:
    """`path`, else the Multi-News sample beside the checkout (`<shared data>/multinews`), else None."""
    from ..paths import shared_data_dir

    if path:
        return Path(path)
    shared = shared_data_dir()
    return shared / "multinews" if shared is not None and (shared / "multinews").is_dir() else None


def world_and_multinews(profile, multinews_path: str | None = None, seed: int = SEED) -> tuple[dict[str, ClusterStats],
                                                                                            list[str]]:
    """The statistics of the profile's world (all its training clusters: `world`), and with Multi-News
    (`multinews_path`, else the sample beside the checkout) those of Multi-News, of its clusters CDLM pretrains on
    (>= `CDLM_MIN_DOCUMENTS` documents, the world's calibration target: `world_calibration`) and of the world again
    (`MATCHED_WORLD`), on equally many clusters each; notes say what was measured."""
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
    """Where the world differs from the Multi-News clusters CDLM pretrains on (else all of Multi-News), on the
    statistics that matter for cross-document prediction."""
    if "multinews" not in stats:
        return ["- Only the world was measured: nothing to compare it with."]
    w = stats.get(MATCHED_WORLD, stats["world"])
    m = stats.get("multinews_pretraining", stats["multinews"])
    return [f"- Documents: the world's have {w.words_per_document:.0f} words, Multi-News's {m.words_per_document:.0f} "
            f"({m.words_per_document / w.words_per_document:.1f}× as long); {w.documents_per_cluster:.1f} against "
            f"{m.documents_per_cluster:.1f} documents per cluster.",
            f"- Shared facts: {100 * w.facts_elsewhere:.0f} % of the world's fact words are stated by another "
            f"document of the cluster, {100 * m.facts_elsewhere:.0f} % of Multi-News's; a document's facts are "
            f"missing from another one {100 * w.missing_elsewhere:.0f} % against {100 * m.missing_elsewhere:.0f} % "
            "of the time.",
            f"- Variety: {w.values_per_1k_facts:.0f} against {m.values_per_1k_facts:.0f} distinct values per 1,000 "
            f"fact words; the entropy of the values ({w.value_entropy_bits:.1f} against {m.value_entropy_bits:.1f} "
            f"bits) also grows with the number of fact words, {_facts_per_cluster(w):.0f} against "
            f"{_facts_per_cluster(m):.0f} per cluster here."]


def _facts_per_cluster(stats: ClusterStats) -> float:
    return stats.fact_share * stats.words_per_document * stats.documents_per_cluster
