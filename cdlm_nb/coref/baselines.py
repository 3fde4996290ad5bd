"""The same-head-lemma baseline for cross-document coreference (CDLM v1 Table 2-3 "Same Head-Lemma" rows).

On gold mentions, mentions of one kind whose heads share a lemma go into one cluster, within each gold
subtopic (the same event type and the same event, e.g. "1_ecb"). It is the classic strong lower bound on ECB+,
where the same words are reused across the articles about one event.

No parser or tagger is involved (none ships with this package), so head and lemma come from simple,
deterministic rules:
- entity head: after a leading preposition or determiner, the last word before a post-modifier (a
  preposition, a relative pronoun or a comma), so "the host of the Oscars" -> "host", "in Queens" -> "Queens",
  "Hugh Jackman" -> "Jackman"; a possessive "'s" is dropped; a capitalised head counts as a proper name;
- event head: after skipping auxiliaries, modals, "to" and determiners, the first token if it looks verbal
  (an -ed/-ing form or a known irregular verb: "roped in" -> "roped", "was killed" -> "killed"), else the
  token an entity would get ("a deadly earthquake" -> "earthquake");
- lemma: `lemmatize`, a small rule-based English lemmatizer (irregular forms, then -ies/-es/-s, -ed and -ing
  with undoubling and e-restoration). Any `str -> str` function can replace it through `lemmatizer=` (e.g.
  one built on lemminflect's `getAllLemmas`, whose wheel ships its data; it is not a dependency here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from .conll import MENTION_KINDS, coref_clusters
from .metrics import CorefScores, score_coreference

Lemmatizer = Callable[[str], str]
LEMMA_GROUPINGS = ("subtopic", "topic", "corpus")

#: Irregular and exceptional verb forms -> lemma (frequent news verbs, and forms the suffix rules get wrong).
IRREGULAR_VERBS = {
    **dict.fromkeys(("is", "are", "am", "was", "were", "been", "being", "'s", "'re", "'m"), "be"),
    **dict.fromkeys(("has", "had", "having", "'ve", "'d"), "have"),
    **dict.fromkeys(("does", "did", "done", "doing"), "do"),
    "said": "say", "says": "say", "made": "make", "makes": "make", "making": "make", "took": "take",
    "taken": "take", "taking": "take", "went": "go", "gone": "go", "goes": "go", "came": "come", "coming": "come",
    "got": "get", "gotten": "get", "gave": "give", "given": "give", "giving": "give", "saw": "see", "seen": "see",
    "knew": "know", "known": "know", "told": "tell", "found": "find", "left": "leave", "leaves": "leave",
    "leaving": "leave", "held": "hold", "brought": "bring", "thought": "think", "bought": "buy", "caught": "catch",
    "fought": "fight", "taught": "teach", "sought": "seek", "sent": "send", "spent": "spend", "built": "build",
    "lost": "lose", "losing": "lose", "led": "lead", "fled": "flee", "fell": "fall", "fallen": "fall",
    "felt": "feel", "kept": "keep", "met": "meet", "paid": "pay", "ran": "run", "sat": "sit", "stood": "stand",
    "understood": "understand", "won": "win", "wrote": "write", "written": "write", "writing": "write",
    "shot": "shoot", "struck": "strike", "stricken": "strike", "striking": "strike", "died": "die", "dies": "die",
    "dying": "die", "lied": "lie", "lies": "lie", "lying": "lie", "tied": "tie", "ties": "tie", "beaten": "beat",
    "began": "begin", "begun": "begin", "broke": "break", "broken": "break", "chose": "choose",
    "chosen": "choose", "drove": "drive", "driven": "drive", "ate": "eat", "eaten": "eat", "flew": "fly",
    "flown": "fly", "froze": "freeze", "frozen": "freeze", "grew": "grow", "grown": "grow", "hid": "hide",
    "hidden": "hide", "rose": "rise", "risen": "rise", "rode": "ride", "ridden": "ride", "rang": "ring",
    "rung": "ring", "sang": "sing", "sung": "sing", "sank": "sink", "sunk": "sink", "shook": "shake",
    "shaken": "shake", "spoke": "speak", "spoken": "speak", "stole": "steal", "stolen": "steal", "swore": "swear",
    "sworn": "swear", "threw": "throw", "thrown": "throw", "wore": "wear", "worn": "wear", "withdrew": "withdraw",
    "withdrawn": "withdraw", "drew": "draw", "drawn": "draw", "blew": "blow", "blown": "blow", "bit": "bite",
    "bitten": "bite", "bled": "bleed", "fed": "feed", "dealt": "deal", "meant": "mean", "heard": "hear",
    "laid": "lay", "slew": "slay", "slain": "slay", "sold": "sell", "overtook": "overtake", "upheld": "uphold",
    "withheld": "withhold", "woke": "wake", "hanged": "hang", "hanging": "hang", "banged": "bang",
    "banging": "bang", "created": "create", "creating": "create", "added": "add", "adding": "add",
    "agreed": "agree", "freed": "free", "guaranteed": "guarantee", "focused": "focus", "focusing": "focus",
    "controlled": "control", "controlling": "control", "patrolled": "patrol", "compelled": "compel",
    "expelled": "expel", "cancelled": "cancel", "invited": "invite", "inviting": "invite", "united": "unite",
    "ignited": "ignite", "excited": "excite", "cited": "cite", "hoped": "hope", "hoping": "hope",
    "abandoned": "abandon", "summoned": "summon", "developed": "develop", "developing": "develop",
    "used": "use", "using": "use",
}
#: Irregular nouns, invariable plurals and pronoun case forms -> lemma.
IRREGULAR_OTHERS = {
    **{word: word for word in ("morning", "evening", "during", "thing", "nothing", "something", "everything",
                               "anything", "ceiling", "wedding", "king", "string", "spring")},
    "men": "man", "women": "woman", "children": "child", "feet": "foot", "teeth": "tooth", "mice": "mouse",
    "lives": "life", "wives": "wife", "knives": "knife", "thieves": "thief", "news": "news", "series": "series",
    "species": "species", "crises": "crisis", "analyses": "analysis", "police": "police", "people": "people",
    "him": "he", "his": "he", "her": "she", "hers": "she", "them": "they", "their": "they", "theirs": "they",
    "its": "it", "me": "i", "my": "i", "us": "we", "our": "we",
}
IRREGULAR = {**IRREGULAR_VERBS, **IRREGULAR_OTHERS}
#: Verb forms that look like base forms, so that the event-head rule still sees them as verbs.
UNINFLECTED_VERBS = frozenset(
    {"hit", "set", "put", "cut", "let", "quit", "hurt", "cast", "beat", "spread", "shut", "bid"}
)
AUXILIARIES = frozenset({
    "be", "is", "was", "were", "are", "am", "been", "being", "has", "have", "had", "will", "would", "shall",
    "should", "can", "could", "may", "might", "must", "do", "did", "does", "to", "not", "n't", "never", "the",
    "a", "an", "this", "that", "these", "those", "'s", "'ve", "'re", "'ll", "'d",
})
#: Tokens that start a post-modifier of a noun phrase: the head is the token before.
POST_MODIFIER_STARTS = frozenset({
    "of", "in", "at", "on", "for", "from", "with", "by", "to", "near", "after", "before", "during", "into", "over",
    "under", "about", "against", "between", "since", "outside", "inside", "who", "whom", "whose", "which",
    "that", "where", "when", ",", "(", "-LRB-", ":", ";",
})
_VOWELS = set("aeiou")


def _restore_e(stem: str) -> str:
    """Put back the silent e an -ed/-ing suffix removed ("announc" -> "announce", "kill" stays)."""
    if len(stem) < 3:
        return stem
    last, before = stem[-1], stem[-2]
    consonant_before = before not in _VOWELS
    # 3rd-from-last letter, to tell a single vowel ("nam", "decid") from a vowel pair ("join", "avoid").
    single_vowel = before in "aiou" and stem[-3] not in _VOWELS
    if last in "cvu" or stem.endswith("uir"):  # announc, arriv, continu, acquir
        return stem + "e"
    if last == "z" and before != "z":  # seiz, realiz
        return stem + "e"
    if last == "s" and not consonant_before:  # rais, releas, caus, us
        return stem + "e"
    if last == "g" and (before in "rd" or stem.endswith(("ang", "eng", "ung")) or (before == "a" and single_vowel)):
        return stem + "e"  # charg, judg, chang, challeng, plung, manag
    if last == "l" and (consonant_before and before not in "lrwn" or before in "iou" and single_vowel):
        return stem + "e"  # handl, settl, rul, fil, consol
    if last == "t" and before == "a":
        return stem if stem[-3] in "eoa" else stem + "e"  # locat, evacuat, but treat, float
    if single_vowel and (last in "dkmnbp" or last == "r" and before != "o"
                         or last == "t" and before in "ou"):
        return stem + "e"  # decid, strik, nam, defin, describ, escap, fir, vot, prosecut
    return stem


def _strip_verbal(word: str, suffix: str) -> str | None:
    """The lemma of an -ed / -ing form, or None when the word is too short to carry the suffix."""
    stem = word[: -len(suffix)]
    if len(stem) < 3 or not set(stem) & (_VOWELS | {"y"}):  # bring, string, sting keep their -ing
        return None
    if stem[-1] == stem[-2] and stem[-1] in "bgmnprt":  # stopped, planned, occurred
        return stem[:-1]
    if suffix == "ed" and stem.endswith("i"):  # carried -> carry
        return stem[:-1] + "y"
    return _restore_e(stem)


def lemmatize(word: str) -> str:
    """A small rule-based English lemma: lower-cased, irregular forms looked up, one inflection removed."""
    word = word.lower()
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ing"):
        return _strip_verbal(word, "ing") or word
    if word.endswith("eed"):  # need, speed, proceed (agreed/freed are irregular entries)
        return word
    if word.endswith("ed"):
        return _strip_verbal(word, "ed") or word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith(("ches", "shes", "xes", "zzes", "oes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _has_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token) and token.lower() not in ("'s", "'")


def _noun_phrase_head(tokens: Sequence[str], start: int) -> int:
    """The last word from `start` up to the first post-modifier start ("of", "who", ",", ...)."""
    head = start
    for i in range(start, len(tokens)):
        if i > start and tokens[i].lower() in POST_MODIFIER_STARTS:
            break
        if _has_word(tokens[i]):
            head = i
    return head


def _looks_verbal(token: str) -> bool:
    word = token.lower()
    return (word.endswith(("ed", "ing")) and len(word) > 4) or word in IRREGULAR_VERBS or word in UNINFLECTED_VERBS


def mention_head(tokens: Sequence[str], kind: str) -> int:
    """Index (within the mention) of the head token of an event or entity mention, by the rules above."""
    if kind not in MENTION_KINDS:
        raise ConfigError(f"mention kind {kind!r} is unknown; use one of {MENTION_KINDS}")
    words = [i for i, token in enumerate(tokens) if _has_word(token)] or list(range(len(tokens)))
    # skip a leading preposition, determiner or auxiliary: "in Queens", "the host", "was killed"
    lexical = [i for i in words if tokens[i].lower() not in AUXILIARIES | POST_MODIFIER_STARTS] or words
    if kind == "event" and _looks_verbal(tokens[lexical[0]]):
        return lexical[0]  # "roped in", "opened fire", "took place": the verb, whatever follows
    return _noun_phrase_head(tokens, lexical[0])


def head_lemma(tokens: Sequence[str], kind: str, lemmatizer: Lemmatizer = lemmatize) -> str:
    """The lemma of a mention's head token; an entity head with a capital initial is taken as a proper name
    and only lower-cased ("Cheeks" stays "cheeks"). A trailing possessive "'s" is removed first."""
    head = tokens[mention_head(tokens, kind)]
    if head.lower().endswith("'s") and len(head) > 2:
        head = head[:-2]
    if kind == "entity" and head[:1].isupper():
        return head.lower()
    return lemmatizer(head)


def head_lemma_assignment(
    rows: Iterable[Mapping[str, Any]], kind: str, *, lemmatizer: Lemmatizer = lemmatize, group_by: str = "subtopic",
) -> dict[str, str]:
    """mention_id -> predicted cluster label "<group>/<head lemma>" for every `kind` mention of the rows."""
    if group_by not in LEMMA_GROUPINGS:
        raise ConfigError(f"group_by must be one of {LEMMA_GROUPINGS}, not {group_by!r}")
    assignment = {}
    for row in rows:
        group = "" if group_by == "corpus" else row[group_by]
        for mention in row["mentions"]:
            if mention["kind"] != kind:
                continue
            tokens = row["sentences"][mention["sentence"]][mention["start"] : mention["end"]]
            assignment[mention["mention_id"]] = f"{group}/{head_lemma(tokens, kind, lemmatizer)}"
    return assignment


def head_lemma_scores(
    rows: Iterable[Mapping[str, Any]], kinds: Sequence[str] = MENTION_KINDS, *, lemmatizer: Lemmatizer = lemmatize,
    group_by: str = "subtopic", remove_singletons: bool = False,
) -> dict[str, CorefScores]:
    """Score the same-head-lemma baseline against the gold clusters, per mention kind."""
    rows = list(rows)
    scores = {}
    for kind in kinds:
        assignment = head_lemma_assignment(rows, kind, lemmatizer=lemmatizer, group_by=group_by)
        key = coref_clusters(rows, kind)
        response = coref_clusters(rows, kind, assignment)
        scores[kind] = score_coreference(key, response, remove_singletons=remove_singletons)
    return scores
