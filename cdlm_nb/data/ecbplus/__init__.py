"""ECB+ (Cybulska & Vossen, 2014): the cross-document event and entity coreference corpus, read from its official
XML release (`download`) into the shared `COREF_FEATURES` schema, with the standard split and its statistics
(`reader`, which also holds `DEV_TOPICS`, the tag prefixes, `mention_kind` and the `EcbPlusReport`)."""

from .download import ECBPLUS_CSV_URL, ECBPLUS_ZIP_URL, SENTENCES_CSV, XML_FOLDER, download_ecbplus
from .reader import (
    TEST_TOPICS,
    ecbplus_stats,
    format_stats,
    load_ecbplus,
    read_ecbplus,
    rows_to_datasets,
    split_of_topic,
)

__all__ = ["ECBPLUS_CSV_URL", "ECBPLUS_ZIP_URL", "SENTENCES_CSV", "TEST_TOPICS", "XML_FOLDER", "download_ecbplus",
           "ecbplus_stats", "format_stats", "load_ecbplus", "read_ecbplus", "rows_to_datasets", "split_of_topic"]
