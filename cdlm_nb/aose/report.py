"""Notebook 08's tables, figure, attention view, recorded metrics and readings, beside AoSE's Tables 3-7
(Abdaoui & Dutta, *Attention over pre-trained Sentence Embeddings for Long Document Classification*,
arXiv:2307.09084, 2023; accuracy in %, times in hh:mm on two 16 GB GPUs)."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from .. import verdicts
from ..verdicts import reference_label
from .experiment import LONG, ClassificationRun, Corpus, in_length_group

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CORPUS_LABELS = {"imdb": "IMDB", "20ng": "20 Newsgroups", "mind": "MIND", "world": "embedded world"}
MODEL_LABELS = {"truncated": "encoder alone (first 512 tokens)", "mean": "mean of sentence embeddings",
                "aose": "AoSE", "tfidf": "TF-IDF + logistic regression"}
COLUMNS = ("time", "acc all", "acc <=512", "acc >512")
#: Tables 4 (IMDB), 5 (MIND) and 6 (20 Newsgroups): (fine-tuning, freezing), each (time, all, <=512, >512).
PAPER_RESULTS: dict[str, dict[str, tuple[tuple, tuple]]] = {
    "imdb": {"Roberta (512)": (("05:40", 95.2, 95.6, 93.0), ("00:12", 91.8, 92.2, 88.4)),
             "SMITH (2048)": (("04:28", 91.0, 91.0, 90.8), ("00:29", 74.0, 74.2, 73.0)),
             "Longformer (4096)": (("22:50", 95.6, 95.6, 95.4), ("00:30", 92.0, 92.0, 91.2)),
             "XLNet (4096)": (("22:20", 95.6, 95.5, 95.7), ("00:29", 92.2, 92.2, 91.8)),
             "AoSE (8192)": (("15:50", 95.7, 95.7, 95.8), ("00:35", 93.2, 93.2, 93.1))},
    "mind": {"Roberta (512)": (("09:20", 83.1, 80.7, 85.8), ("00:45", 77.4, 73.8, 81.6)),
             "SMITH (2048)": (("13:30", 80.8, 77.4, 84.8), ("00:52", 76.0, 71.6, 81.1)),
             "Longformer (4096)": (("66:45", 84.1, 80.7, 88.0), ("02:05", 77.7, 73.7, 82.3)),
             "XLNet (4096)": (("81:58", 83.4, 79.8, 87.3), ("04:12", 78.3, 74.2, 82.9)),
             "AoSE (8192)": (("83:10", 83.5, 79.8, 87.5), ("04:58", 79.1, 75.0, 83.9))},
    "20ng": {"Roberta (512)": (("02:15", 72.5, 71.5, 83.2), ("00:05", 63.7, 62.6, 75.0)),
             "SMITH (2048)": (("02:30", 60.0, 58.6, 74.5), ("00:07", 56.4, 55.0, 71.8)),
             "Longformer (4096)": (("10:20", 72.7, 71.4, 84.3), ("00:10", 64.1, 62.8, 77.7)),
             "XLNet (4096)": (("13:36", 72.8, 71.7, 84.2), ("00:17", 65.3, 63.8, 79.5)),
             "AoSE (8192)": (("14:30", 72.7, 71.5, 83.9), ("00:25", 66.0, 64.4, 79.9))},
}
#: Table 7 (IMDB): (fine-tuning all, <=512, >512, freezing all, <=512, >512).
PAPER_TRUNCATION = {"S-Roberta (512)": (95.3, 95.6, 92.8, 92.2, 92.7, 89.1),
                    "AoSE-512": (95.4, 95.7, 93.0, 92.6, 93.0, 89.9), "AoSE-1024": (95.7, 95.7, 95.7, 93.0, 93.1, 92.5),
                    "AoSE-2048": (95.7, 95.7, 95.8, 93.1, 93.1, 92.9),
                    "AoSE-4096": (95.7, 95.7, 95.8, 93.2, 93.2, 93.1)}
#: Table 3 (RoBERTa tokenizer): split -> (documents, documents > 512 tokens, mean tokens, max tokens, labels).
PAPER_DATA = {"imdb": {"train": (25000, 7729, 323, 3240, 2), "test": (25000, 3537, 314, 3257, 2)},
              "mind": {"train": (101523, 48093, 696, 51662, 15), "test": (28275, 13160, 651, 28287, 15)},
              "20ng": {"train": (11314, 1245, 398, 49561, 20), "test": (7532, 784, 372, 132115, 20)}}
DATA_COLUMNS = ("documents", "documents >512", "mean tokens", "max tokens", "labels")


def model_label(model: str) -> str:
    return f"AoSE-{model.split('_')[1]}" if model.startswith("aose_") else MODEL_LABELS.get(model, model)


def truncations(runs: Mapping[str, ClassificationRun]) -> list[int]:
    """The lengths N of the AoSE-N runs, shortest first."""
    return sorted(int(model[5:]) for model in runs if model.startswith("aose_"))


def data_table(corpora: Mapping[str, Corpus]) -> pd.DataFrame:
    """Table 3 for our data (tokens by the sentence transformer's tokenizer, special tokens excluded), with the
    paper's full corpora below (RoBERTa tokenizer)."""
    rows = {(f"ours: {CORPUS_LABELS[name]}", split): (
        len(tokens), sum(n > LONG for n in tokens), round(sum(tokens) / max(len(tokens), 1)), max(tokens, default=0),
        len(set(corpus.labels["train"]))) for name, corpus in corpora.items()
        for split, tokens in corpus.tokens.items()}  # train, then test
    rows |= {(f"paper: {CORPUS_LABELS[name]}", split): values
             for name, splits in PAPER_DATA.items() for split, values in splits.items()}
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(DATA_COLUMNS))


WHICH = {"acc": "all", "acc_short": "short", "acc_long": "long"}  # recorded name -> `ClassificationRun.accuracy`


def _accuracies(run: ClassificationRun) -> tuple[float, ...]:
    return tuple(round(run.accuracy(which), 1) for which in WHICH.values())


def references(corpus: Corpus) -> dict[str, dict[str, float]]:
    """The reference rows (%), on all, short and long test documents: answering the training set's majority class,
    and guessing classes at their training shares (`verdicts.class_references`; NaN where a subset is empty)."""
    rows: dict[str, dict[str, float]] = {"majority class": {}, "label prior": {}}
    for metric, which in WHICH.items():
        kept = [y for y, n in zip(corpus.labels["test"], corpus.tokens["test"]) if in_length_group(n, which)]
        values = verdicts.class_references(corpus.labels["train"], kept) if kept else dict.fromkeys(rows, math.nan)
        for row, value in values.items():
            rows[row][metric] = 100 * value
    return rows


def reference_metrics(name: str, corpus: Corpus) -> dict[str, float]:
    """`aose/<dataset>/reference/<majority_class|label_prior>/<acc|acc_short|acc_long>` (%); NaN left out."""
    return {key: value for key, value in verdicts.reference_metrics(f"aose/{name}", references(corpus)).items()
            if not math.isnan(value)}


def results_table(name: str, frozen: Mapping[str, ClassificationRun],
                  finetuned: Mapping[str, ClassificationRun], corpus: Corpus) -> pd.DataFrame:
    """Tables 4-6's layout: per model, fine-tuning and freezing (training time, accuracy on all / short / long
    test documents); ours and our reference rows, then the paper's for this corpus (none for the world)."""
    def ours(runs: Mapping[str, ClassificationRun], model: str) -> tuple:
        return (f"{runs[model].train_seconds:.0f} s", *_accuracies(runs[model])) if model in runs else ("",) * 4

    rows = {f"ours: {model_label(model)}": (*ours(finetuned, model), *ours(frozen, model))
            for model in ("truncated", "mean", "aose", "tfidf") if model in frozen or model in finetuned}
    rows |= {reference_label(row): ("", *(round(values[m], 1) for m in WHICH)) * 2
             for row, values in references(corpus).items()}
    rows |= {f"paper: {model}": (*tuned, *frozen_row)
             for model, (tuned, frozen_row) in PAPER_RESULTS.get(name, {}).items()}
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=pd.MultiIndex.from_product([("fine-tuning", "freezing"), COLUMNS]))


def truncation_table(frozen: Mapping[str, ClassificationRun], finetuned: Mapping[str, ClassificationRun],
                     corpus: Corpus) -> pd.DataFrame:
    """Table 7's layout: the encoder alone and AoSE-N (frozen here; fine-tuned AoSE at full length when run), our
    reference rows, then the paper's IMDB rows."""
    models = ["truncated", *(f"aose_{limit}" for limit in truncations(frozen)), "aose"]
    rows = {f"ours: {model_label(model)}": (
        *(_accuracies(finetuned[model]) if model in finetuned else ("",) * 3), *_accuracies(frozen[model]))
        for model in models}
    rows |= {reference_label(row): tuple(round(values[m], 1) for m in WHICH) * 2
             for row, values in references(corpus).items()}
    rows |= {f"paper (IMDB): {model}": values for model, values in PAPER_TRUNCATION.items()}
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=pd.MultiIndex.from_product([("fine-tuning", "freezing"), COLUMNS[1:]]))


def truncation_figure(results: Mapping[str, Mapping[str, ClassificationRun]]) -> "Figure":
    """Frozen accuracy on long (> 512 token) test documents against AoSE's truncation length, one line per corpus,
    the encoder alone dashed in the same colour; corpora without long test documents are named, not drawn."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    without = [CORPUS_LABELS[name] for name, runs in results.items() if math.isnan(runs["aose"].accuracy("long"))]
    for index, (name, runs) in enumerate(results.items()):
        if CORPUS_LABELS[name] in without:
            continue
        limits = truncations(runs)
        points = [(limit, runs[f"aose_{limit}"].accuracy("long")) for limit in limits]
        points.append((max(limits, default=LONG) * 2, runs["aose"].accuracy("long")))  # the full length
        ax.plot(*zip(*points), "o-", color=f"C{index}", label=f"{CORPUS_LABELS[name]}: AoSE")
        ax.axhline(runs["truncated"].accuracy("long"), color=f"C{index}", linestyle="--", linewidth=1,
                   label=f"{CORPUS_LABELS[name]}: encoder alone (first tokens)")
    if len(without) < len(results):
        ax.set_xscale("log", base=2)
        ax.legend(fontsize=7, loc="lower right")
    if without:
        ax.set_title(f"no test document longer than {LONG} tokens: {', '.join(without)}", fontsize=8)
    ax.set(xlabel="tokens AoSE reads per document (last point: all, up to the limit)",
           ylabel=f"accuracy on > {LONG}-token documents (%)")
    fig.tight_layout()
    return fig


def attention_view(corpus: Corpus, run: ClassificationRun, document: int = 0):
    """A test document's segments shaded by AoSE's α (darker = more weight), its gold and predicted label: HTML."""
    from IPython.display import HTML

    segments, alpha, names = corpus.segmented["test"][document].segments, run.alphas[document], corpus.label_names
    top = max(alpha, default=1.0) or 1.0
    spans = [f'<span style="background: rgba(230, 85, 13, {a / top:.2f})" title="α = {a:.3f}">{html.escape(s)}</span>'
             for s, a in zip(segments, alpha)]
    head = (f"<p><b>test document {document}</b>: gold <b>{names[run.labels[document]]}</b>, predicted "
            f"<b>{names[run.predictions[document]]}</b>, {run.tokens[document]} tokens, {len(segments)} segments</p>")
    return HTML(head + '<div style="line-height: 1.7">' + " ".join(spans) + "</div>")


def aose_metrics(name: str, setting: str, runs: Mapping[str, ClassificationRun]) -> dict[str, float]:
    """`aose/<dataset>/<setting>/<model>/<metric>` for acc, acc_short, acc_long (%) and train_s; NaN left out."""
    nested = {model: {metric: run.accuracy(which) for metric, which in WHICH.items()} | {"train_s": run.train_seconds}
              for model, run in runs.items()}
    return {key: value for key, value in verdicts.flat(f"aose/{name}/{setting}", nested).items()
            if not math.isnan(value)}


SETTINGS = {"frozen": "frozen", "finetuned": "fine-tuned"}  # recorded setting -> its words in a reading


def readings(name: str, frozen: Mapping[str, ClassificationRun], finetuned: Mapping[str, ClassificationRun],
             embed_seconds: float, corpus: Corpus, profile: str) -> list[str]:
    """AoSE's three claims on this corpus: only models above the reference rows (majority class, label prior) on
    accuracy are compared, under the noise rule (`verdicts`). Claim 3 is on training time, one timing per setting
    with neither interval nor seed band: described, never read; its accuracy side (the fine-tuning gain) is read."""
    label = CORPUS_LABELS[name]
    runs = {(setting, model): run for setting, group in (("frozen", frozen), ("finetuned", finetuned))
            for model, run in group.items()}
    labels = {key: f"{SETTINGS[key[0]]} {model_label(key[1])}" for key in runs}
    floor = verdicts.floor({row: values["acc"] for row, values in references(corpus).items()})
    learned = {key for key, run in runs.items() if verdicts.learned(run.accuracy(), floor)}
    lines = [verdicts.nothing_note(f"{label}, {labels[key]}", run.accuracy(), floor, "accuracy", " %",
                                   predictions=run.predictions)
             for key, run in runs.items() if key not in learned]
    if ("frozen", "aose") not in learned:
        return [*lines, f"- {label}: frozen AoSE {verdicts.LEARNED_NOTHING}, so the paper's claims cannot be checked."]
    spread, aose = verdicts.load_spread(profile), frozen["aose"]

    def claim(text: str, first: tuple[str, str], second: tuple[str, str], which: str) -> str:
        """`first` over `second` (keys of `runs`) on accuracy over the test documents `which`."""
        metric = "acc_long" if which == "long" else "acc"

        def difference() -> verdicts.Difference:
            band = verdicts.seed_band(spread, *(f"aose/{name}/{'/'.join(key)}/{metric}" for key in (first, second)),
                                      scale=100)
            return verdicts.mean_difference(runs[first].correct(which), runs[second].correct(which), band)

        if {first, second} <= learned:
            text += f" ({runs[first].accuracy(which):.1f} vs {runs[second].accuracy(which):.1f} %)"
        return verdicts.ordering_line(text, (first, second), learned, labels, difference, f"accuracy ({which})")

    if not any(n > LONG for n in aose.tokens):
        lines.append(f"- {label}: claims 1 and 2 cannot be checked here (no test document longer than {LONG} tokens).")
    else:
        lines.append(claim("Claim 1, frozen AoSE over the encoder alone on long documents", ("frozen", "aose"),
                           ("frozen", "truncated"), "long"))
        if limits := truncations(frozen):
            lines.append(claim(f"Claim 2, accuracy on long documents rises with the length read (all vs "
                               f"{limits[0]} tokens)", ("frozen", "aose"), ("frozen", f"aose_{limits[0]}"), "long"))
    if "aose" in finetuned:
        lines.append(f"- Claim 3, the frozen setting trains far faster: cannot be checked here (one timing per "
                     f"setting: no interval, no seed band): AoSE frozen {aose.train_seconds:.1f} s (+ "
                     f"{embed_seconds:.0f} s embedding, once for every model) vs fine-tuned "
                     f"{finetuned['aose'].train_seconds:.0f} s.")
        lines.append(claim("The paper's fine-tuning gain, fine-tuned AoSE over frozen AoSE, all test documents",
                           ("finetuned", "aose"), ("frozen", "aose"), "all"))
    if ("frozen", "tfidf") in learned:
        lines.append(claim("Frozen AoSE over the TF-IDF floor, all test documents", ("frozen", "aose"),
                           ("frozen", "tfidf"), "all"))
    return lines
