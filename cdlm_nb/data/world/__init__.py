"""The embedded world: a deterministic generator of related news, the offline data of every notebook.

How a document is made, in one read:

1. A **topic** is an event type (earthquake, acquisition, ...; see `lexicon.EVENT_TYPES`) with two sibling
   **subtopics**, like ECB+'s "ecb"/"ecbplus" halves: the same kind of event with different participants,
   place, time and numbers. Each subtopic draws its **facts** (who, where, when, how many) at random from
   large pools, so they are predictable only from the other documents about the same event.
2. Each subtopic is a **cluster** of 3-10 documents (skewed to the small end, like Multi-News). Every document
   states the anchor facts (who/where the story is about) and each other fact with probability `fact_overlap`;
   each fact is stated by at least one document of the cluster.
3. A document is a **lead** sentence followed, in random order, by **fact sentences** that state the remaining
   facts and **filler** sentences that state none. Sentences come from templates with synonyms for the event
   triggers; entities get their full name at their first mention and an alias later (surname, short name,
   description, pronoun).
4. While writing, every trigger and entity becomes a gold **mention** with its cluster (ECB+ schema): one event
   or entity cluster per subtopic, across its documents; siblings never share a cluster.

The datasets built from it: `clusters` (pretraining), `coref`, `pairs`, `qa` (HotpotQA layout: bridge and
comparison questions over clean "articles" and entity profiles), `classification` (a cluster's documents
concatenated, labelled with the event type) and `facts` (where each document states each fact, for
masked-fact probes). All are `DatasetDict`s split by **topic** into train/dev/test, so evaluation is on unseen
events.

Entity clusters are scoped to a subtopic, as ECB+ annotates instances: a city that two unrelated topics
happen to draw gets two clusters. Names of people, companies, products and awards are unique in a world.

The knobs (`WorldConfig`, defaults in `profiles.WORLD`) decide whether cross-document context can help. The
effect column says how raising a knob moves `describe()["recoverable_fact_share"]`, the share of non-anchor fact
statements that another document of the same cluster also states correctly, and the mean words per document (the
values it gives: docs/experiments.md; cpu and gpu are calibrated against Multi-News clusters by
`tooling.world_calibration`).

| knob               | what it does                                                  | effect of raising it      |
|--------------------|---------------------------------------------------------------|---------------------------|
| `fact_overlap`     | P(a document states a given non-anchor fact); each fact is    | more recoverable (none at |
|                    | still stated by at least one document of its cluster          | 0.0, all at 1.0), longer  |
| `noise`            | P(a stated non-anchor fact goes wrong in a document: another  | fewer recoverable         |
|                    | number for numbers; a filler sentence instead for the others) |                           |
| `filler`           | target share of filler sentences (stating no fact)            | longer, recoverable kept  |
| `words_per_doc`    | fewest/most words; fillers are added or dropped to fit (fact  | length only               |
|                    | sentences never are)                                          |                           |
| `docs_per_cluster` | fewest/most documents per cluster (skewed small: Multi-News)  | more witnesses per fact   |

At `fact_overlap=0` a masked fact can only be recovered from its own document (or guessed); at 1.0 every
other document of the cluster states it: the contrast a cross-document model should show.

Use: `world = generate_world(session.profile.world)`, then `world.clusters["train"]`, `world.describe()`,
`highlight_mentions(world.coref["dev"][0])`.

Where each step lives:

| module      | what                                                                            |
|-------------|---------------------------------------------------------------------------------|
| `lexicon`   | the data (read from `lexicon.toml`): name pools, event types, their templates   |
| `templates` | the template language ("{slot}", "{event:form}", "[optional]"), tokens <-> text |
| `facts`     | drawing a subtopic's facts (`Fact`, `EntityProfile`, `Subtopic`, `NameBook`)    |
| `writing`   | filling a template into a sentence with gold mentions (`Writer`, `Document`)    |
| `documents` | which facts each document states, its sentence plan, fillers and length         |
| `rows`      | the `coref`, `pairs` and `facts` rows (and `highlight_mentions`)                |
| `qa`        | the HotpotQA-style `qa` rows                                                    |
| `checks`    | `check_config`, `check_lexicon`                                                 |
| `generate`  | `World` (with `describe()`) and `generate_world`                                |
"""

from .checks import check_config, check_lexicon
from .generate import LABEL_NAMES, SPLITS, World, generate_world
from .lexicon import EVENT_TYPES
from .rows import FACT_FEATURES, highlight_mentions

__all__ = [
    "EVENT_TYPES", "FACT_FEATURES", "LABEL_NAMES", "SPLITS", "World", "check_config", "check_lexicon",
    "generate_world", "highlight_mentions",
]
