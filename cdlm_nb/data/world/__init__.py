"""The embedded world: a deterministic generator of related news, the offline data of every notebook.

1. A **topic** is an event type (`lexicon.EVENT_TYPES`) with two sibling **subtopics**, like ECB+'s
   "ecb"/"ecbplus" halves: the same kind of event with other participants, place, time and numbers, drawn from
   large pools (`facts`), so they are predictable only from the other documents about the same event.
2. Each subtopic is a **cluster** of 3-10 documents (`documents`): a **lead** sentence, then in random order **fact
   sentences** and **filler** sentences (stating none), from templates with synonyms for the event triggers.
3. Every trigger and entity becomes a gold **mention** with its cluster (ECB+ schema): one event or entity cluster
   per subtopic, across its documents (a city two topics draw gets two clusters); siblings never share one.

The datasets (`rows`; `DatasetDict`s split by **topic** into train/dev/test, so evaluation is on unseen events):
`clusters` (pretraining), `coref`, `pairs`, `qa` (HotpotQA layout: bridge and comparison questions over clean
"articles" and entity profiles), `classification` (a cluster's documents concatenated, labelled with the event
type) and `facts` (where each document states each fact, for masked-fact probes).

The knobs (`WorldConfig`, defaults in `profiles.WORLD`) decide whether cross-document context can help. The effect
column says how raising a knob moves `describe()["recoverable_fact_share"]` (the share of non-anchor fact
statements that another document of the same cluster also states correctly) and the words per document (values:
docs/experiments.md; cpu and gpu are calibrated against Multi-News by `tooling.world_calibration`).

| knob               | what it does                                                  | effect of raising it      |
|--------------------|---------------------------------------------------------------|---------------------------|
| `fact_overlap`     | P(a document states a given non-anchor fact); each fact is    | more recoverable (none at |
|                    | still stated by at least one document of its cluster          | 0.0, all at 1.0), longer  |
| `noise`            | P(a stated non-anchor fact goes wrong in a document: another  | fewer recoverable         |
|                    | number for numbers; a filler sentence instead for the others) |                           |
| `filler`           | target share of filler sentences (stating no fact)            | longer, recoverable kept  |
| `words_per_doc`    | fewest/most words; fillers are added or dropped to fit        | length only               |
| `docs_per_cluster` | fewest/most documents per cluster (skewed small: Multi-News)  | more witnesses per fact   |

At `fact_overlap=0` a masked fact can only be recovered from its own document (or guessed); at 1.0 every other
document of the cluster states it: the contrast a cross-document model should show.

Use: `world = generate_world(session.profile.world)`, then `world.clusters["train"]`, `world.describe()`.
"""

from .generate import LABEL_NAMES, SPLITS, World, check_config, generate_world
from .lexicon import EVENT_TYPES, check_lexicon
from .rows import FACT_FEATURES

__all__ = ["EVENT_TYPES", "FACT_FEATURES", "LABEL_NAMES", "SPLITS", "World", "check_config", "check_lexicon",
           "generate_world"]
