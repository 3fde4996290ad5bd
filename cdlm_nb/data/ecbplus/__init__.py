"""ECB+ (Cybulska & Vossen, 2014): the cross-document event and entity coreference corpus, read from its official
XML release into the shared `COREF_FEATURES` schema, with the standard split and its statistics.

One module per step: `layout` (where the files lie, the validated-sentences CSV), `reader` (XML -> rows,
`load_ecbplus`), `report` (what reading left out), `splits` (the standard topic split, Datasets), `stats` (the
CDLM preprint (v1)'s Table 7 statistics) and `download` (fetching the release).
"""

from .download import ECBPLUS_CSV_URL, ECBPLUS_ZIP_URL, download_ecbplus
from .layout import SENTENCES_CSV, WHERE_TO_GET, XML_FOLDER, read_validated_sentences
from .reader import ENTITY_TAG_PREFIXES, EVENT_TAG_PREFIXES, load_ecbplus, mention_kind, mention_tokens, read_ecbplus
from .report import EcbPlusReport
from .splits import DEV_TOPICS, SPLITS, TEST_TOPICS, rows_to_datasets, split_of_topic
from .stats import ecbplus_stats, format_stats, split_stats

__all__ = [
    "DEV_TOPICS",
    "ECBPLUS_CSV_URL",
    "ECBPLUS_ZIP_URL",
    "ENTITY_TAG_PREFIXES",
    "EVENT_TAG_PREFIXES",
    "SENTENCES_CSV",
    "SPLITS",
    "TEST_TOPICS",
    "WHERE_TO_GET",
    "XML_FOLDER",
    "EcbPlusReport",
    "download_ecbplus",
    "ecbplus_stats",
    "format_stats",
    "load_ecbplus",
    "mention_kind",
    "mention_tokens",
    "read_ecbplus",
    "read_validated_sentences",
    "rows_to_datasets",
    "split_of_topic",
    "split_stats",
]
