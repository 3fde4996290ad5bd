"""The embedded world: a deterministic generator of related news, the offline data of every notebook.

1. A **topic** is an event type (`lexicon.EVENT_TYPES`) with two sibling **subtopics**, like ECB+'s
   "ecb"/"ecbplus" halves: the same kind of event with other participants, place, time and numbers, drawn from
   large pools (`facts`), so they are predictable only from the other documents about the same event.
2. Each subtopic is a **cluster** of 3-10 documents (`documents`): a **lead** sentence, then in random order **fact
   sentences** and **filler** sentences (stating none), from templates with synonyms for the event triggers.
3. Every trigger and entity becomes a gold **mention** with its cluster (ECB+ schema): one event or entity cluster
   per subtopic, across its documents (a city two topics draw gets two clusters); siblings never share one.

The datasets (`World`'s fields, built by `rows`) are `DatasetDict`s split by **topic** into train/dev/test, so
evaluation is on unseen events.

The knobs (`WorldConfig`, which says what each does; values in docs/experiments.md, cpu and gpu calibrated against
Multi-News by `tooling.world_calibration`) decide whether cross-document context can help. Raising `fact_overlap`
makes more non-anchor facts recoverable (`describe()["recoverable_fact_share"]`: another document of the cluster
states them correctly; none at 0.0, all at 1.0) and documents longer, `noise` fewer recoverable; `filler` and
`words_per_doc` change the length only, `docs_per_cluster` the witnesses per fact. At `fact_overlap=0` a masked fact
can only be recovered from its own document (or guessed); at 1.0 every other document of the cluster states it: the
contrast a cross-document model should show.

Use: `world = generate_world(session.profile.world)`, then `world.clusters["train"]`, `world.describe()`.
"""

from .generate import LABEL_NAMES, SPLITS, World, check_config, generate_world
from .lexicon import EVENT_TYPES, check_lexicon
from .rows import FACT_FEATURES

__all__ = ["EVENT_TYPES", "FACT_FEATURES", "LABEL_NAMES", "SPLITS", "World", "check_config", "check_lexicon",
           "generate_world"]
