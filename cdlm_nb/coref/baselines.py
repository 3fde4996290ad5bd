"""The same-head-lemma baseline (CDLM v1 Tables 2-3): on gold mentions, mentions of one kind whose heads share a lemma
form one cluster within each gold subtopic, the classic strong lower bound on ECB+.

Heads and lemmas come from deterministic rules (no parser here): an entity's head is the last word before a
post-modifier ("the host of the Oscars" -> "host"), a capitalised one a proper name; an event's head is its first
token after auxiliaries if it looks verbal ("was killed" -> "killed"), else the entity rule. `lemmatize` (irregular
forms, then -s/-ed/-ing with undoubling and e-restoration) can be replaced by any `str -> str` (`lemmatizer=`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..support.errors import ConfigError
from .mentions import MENTION_KINDS, check_kind, coref_clusters
from .metrics import CorefScores, score_coreference

Lemmatizer = Callable[[str], str]
LEMMA_GROUPINGS = ("subtopic", "topic", "corpus")


def _by_lemma(table: str) -> dict[str, str]:
    """{form: lemma} from `"lemma form form; lemma form; ..."`; a lemma alone maps to itself (no suffix rule)."""
    return {form: lemma for entry in table.split(";") for lemma, *forms in [entry.split()] for form in forms or [lemma]}


#: Irregular and exceptional verb forms -> lemma (frequent news verbs, and forms the suffix rules get wrong).
IRREGULAR_VERBS = _by_lemma("""
    be is are am was were been being 's 're 'm; have has had having 've 'd; do does did done doing; say said says;
    make made makes making; take took taken taking; go went gone goes; come came coming; get got gotten;
    give gave given giving; see saw seen; know knew known; tell told; find found; leave left leaves leaving; hold held;
    bring brought; think thought; buy bought; catch caught; fight fought; teach taught; seek sought; send sent;
    spend spent; build built; lose lost losing; lead led; flee fled; fall fell fallen; feel felt; keep kept; meet met;
    pay paid; run ran; sit sat; stand stood; understand understood; win won; write wrote written writing; shoot shot;
    strike struck stricken striking; die died dies dying; lie lied lies lying; tie tied ties; beat beaten;
    begin began begun; break broke broken; choose chose chosen; drive drove driven; eat ate eaten; fly flew flown;
    freeze froze frozen; grow grew grown; hide hid hidden; rise rose risen; ride rode ridden; ring rang rung;
    sing sang sung; sink sank sunk; shake shook shaken; speak spoke spoken; steal stole stolen; swear swore sworn;
    throw threw thrown; wear wore worn; withdraw withdrew withdrawn; draw drew drawn; blow blew blown; bite bit bitten;
    bleed bled; feed fed; deal dealt; mean meant; hear heard; lay laid; slay slew slain; sell sold; overtake overtook;
    uphold upheld; withhold withheld; wake woke; hang hanged hanging; bang banged banging; create created creating;
    add added adding; agree agreed; free freed; guarantee guaranteed; focus focused focusing;
    control controlled controlling; patrol patrolled; compel compelled; expel expelled; cancel cancelled;
    invite invited inviting; unite united; ignite ignited; excite excited; cite cited; hope hoped hoping;
    abandon abandoned; summon summoned; develop developed developing; use used using
""")
#: Irregular nouns, invariable plurals and pronoun case forms -> lemma.
IRREGULAR_OTHERS = _by_lemma("""
    morning; evening; during; thing; nothing; something; everything; anything; ceiling; wedding; king; string; spring;
    man men; woman women; child children; foot feet; tooth teeth; mouse mice; life lives; wife wives; knife knives;
    thief thieves; news; series; species; crisis crises; analysis analyses; police; people; he him his; she her hers;
    they them their theirs; it its; i me my; we us our
""")
IRREGULAR = {**IRREGULAR_VERBS, **IRREGULAR_OTHERS}
#: Verb forms that look like base forms, so that the event-head rule still sees them as verbs.
UNINFLECTED_VERBS = frozenset("hit set put cut let quit hurt cast beat spread shut bid".split())
AUXILIARIES = frozenset("""be is was were are am been being has have had will would shall should can could may might
    must do did does to not n't never the a an this that these those 's 've 're 'll 'd""".split())
#: Tokens that start a post-modifier of a noun phrase: the head is the token before.
POST_MODIFIER_STARTS = frozenset("""of in at on for from with by to near after before during into over under about
    against between since outside inside who whom whose which that where when , ( -LRB- : ;""".split())
_VOWELS = set("aeiou")


def _restore_e(stem: str) -> str:
    """Put back the silent e an -ed/-ing suffix removed ("announc" -> "announce", "kill" stays)."""
    if len(stem) < 3:
        return stem
    last, before = stem[-1], stem[-2]
    consonant_before = before not in _VOWELS
    # 3rd-from-last letter, to tell a single vowel ("nam", "decid") from a vowel pair ("join", "avoid").
    single_vowel = before in "aiou" and stem[-3] not in _VOWELS
    if (last in "cvu" or stem.endswith("uir")  # announc, arriv, continu, acquir
            or last == "z" and before != "z"  # seiz, realiz
            or last == "s" and not consonant_before):  # rais, releas, caus, us
        return stem + "e"
    if last == "g" and (before in "rd" or stem.endswith(("ang", "eng", "ung")) or (before == "a" and single_vowel)):
        return stem + "e"  # charg, judg, chang, challeng, plung, manag
    if last == "l" and (consonant_before and before not in "lrwn" or before in "iou" and single_vowel):
        return stem + "e"  # handl, settl, rul, fil, consol
    if last == "t" and before == "a":
        return stem if stem[-3] in "eoa" else stem + "e"  # locat, evacuat, but treat, float
    if single_vowel and (last in "dkmnbp" or last == "r" and before != "o" or last == "t" and before in "ou"):
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
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and not word.endswith("eed"):  # need, proceed stay (agreed, freed: irregular)
            return _strip_verbal(word, suffix) or word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zzes", "oes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def mention_head(tokens: Sequence[str], kind: str) -> int:
    """Index (within the mention) of the head token of an event or entity mention, by the rules above."""
    check_kind(kind)
    has_word = [any(ch.isalnum() for ch in token) and token.lower() not in ("'s", "'") for token in tokens]
    words = [i for i, word in enumerate(has_word) if word] or list(range(len(tokens)))
    # skip a leading preposition, determiner or auxiliary: "in Queens", "the host", "was killed"
    head = ([i for i in words if tokens[i].lower() not in AUXILIARIES | POST_MODIFIER_STARTS] or words)[0]
    first = tokens[head].lower()
    if kind == "event" and ((first.endswith(("ed", "ing")) and len(first) > 4) or first in IRREGULAR_VERBS
                            or first in UNINFLECTED_VERBS):
        return head  # "roped in", "opened fire", "took place": the verb, whatever follows
    for i in range(head + 1, len(tokens)):  # else the last word before a post-modifier ("of", "who", ",", ...)
        if tokens[i].lower() in POST_MODIFIER_STARTS:
            break
        head = i if has_word[i] else head
    return head


def head_lemma(tokens: Sequence[str], kind: str, lemmatizer: Lemmatizer = lemmatize) -> str:
    """The lemma of a mention's head, less a possessive "'s"; a capitalised entity head (a name) is only lower-cased."""
    head = tokens[mention_head(tokens, kind)]
    if head.lower().endswith("'s") and len(head) > 2:
        head = head[:-2]
    if kind == "entity" and head[:1].isupper():
        return head.lower()
    return lemmatizer(head)


def head_lemma_assignment(rows: Iterable[Mapping[str, Any]], kind: str, *, lemmatizer: Lemmatizer = lemmatize,
                          group_by: str = "subtopic") -> dict[str, str]:
    """mention_id -> predicted cluster label "<group>/<head lemma>" for every `kind` mention of the rows."""
    if group_by not in LEMMA_GROUPINGS:
        raise ConfigError(f"group_by must be one of {LEMMA_GROUPINGS}, not {group_by!r}")
    return {m["mention_id"]: f"{'' if group_by == 'corpus' else row[group_by]}/"
                             f"{head_lemma(row['sentences'][m['sentence']][m['start']:m['end']], kind, lemmatizer)}"
            for row in rows for m in row["mentions"] if m["kind"] == kind}


def head_lemma_scores(rows: Iterable[Mapping[str, Any]], kinds: Sequence[str] = MENTION_KINDS, *,
                      lemmatizer: Lemmatizer = lemmatize, group_by: str = "subtopic") -> dict[str, CorefScores]:
    """Score the same-head-lemma baseline against the gold clusters, per mention kind."""
    rows = list(rows)
    predicted = {kind: head_lemma_assignment(rows, kind, lemmatizer=lemmatizer, group_by=group_by) for kind in kinds}
    return {kind: score_coreference(coref_clusters(rows, kind), coref_clusters(rows, kind, predicted[kind]))
            for kind in kinds}
