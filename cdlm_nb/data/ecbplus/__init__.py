"""ECB+ (Cybulska & Vossen, 2014): the cross-document event and entity coreference corpus, read from its official
XML release into the shared `COREF_FEATURES` schema, with the standard split and its statistics.

Modules: `download` (where the files lie, the validated-sentences CSV, fetching the release), `reader` (XML -> rows
and a report of what was left out, `load_ecbplus`) and `splits` (the standard topic split, its Datasets and the CDLM
preprint (v1)'s Table 7 statistics).
"""

from .download import ECBPLUS_CSV_URL, ECBPLUS_ZIP_URL, SENTENCES_CSV, XML_FOLDER, download_ecbplus
from .reader import ENTITY_TAG_PREFIXES, EVENT_TAG_PREFIXES, EcbPlusReport, load_ecbplus, mention_kind, read_ecbplus
from .splits import DEV_TOPICS, SPLITS, TEST_TOPICS, ecbplus_stats, format_stats, rows_to_datasets, split_of_topic

__all__ = ["DEV_TOPICS", "ECBPLUS_CSV_URL", "ECBPLUS_ZIP_URL", "ENTITY_TAG_PREFIXES", "EVENT_TAG_PREFIXES",
           "SENTENCES_CSV", "SPLITS", "TEST_TOPICS", "XML_FOLDER", "EcbPlusReport", "download_ecbplus", "ecbplus_stats",
           "format_stats", "load_ecbplus", "mention_kind", "read_ecbplus", "rows_to_datasets", "split_of_topic"]
