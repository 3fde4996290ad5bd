"""Notebook 08's readings on made-up results, on each side of each threshold: a model is above both reference rows
on accuracy or learned nothing; a claim holds only when the paired interval over test documents excludes 0 and the
difference exceeds the seed band (`verdicts`); Claim 3's timings, one per setting, are never read."""

import pytest

from cdlm_nb.aose import report
from cdlm_nb.aose.experiment import ClassificationRun, Corpus

LABELS = [0, 1] * 20  # 40 test documents: the even ones short, the odd ones long
TOKENS = [100, 600] * 20
LONG = [i for i, n in enumerate(TOKENS) if n > 512]
#: Majority class (0) and label prior (0.6 x 0.5 + 0.4 x 0.5) both score 50 % of the test documents: the floor.
CORPUS = Corpus("imdb", ["negative", "positive"], {}, {"train": [0, 0, 0, 1, 1], "test": LABELS},
                {"train": [10] * 5, "test": TOKENS}, {})


def _run(model, setting="frozen", wrong=(), seconds=1.0, tokens=TOKENS):
    """A run right on every test document but those in `wrong`."""
    predictions = [1 - y if i in wrong else y for i, y in enumerate(LABELS)]
    return ClassificationRun(model, setting, predictions, LABELS, list(tokens), seconds)


def _band(monkeypatch, points, first, second):
    """A made-up seed spread whose band for the metric `first` minus `second` is `points` (all of it `first`'s)."""
    spread = {first: {"sd": points / 1.96}, second: {"sd": 0.0}}
    monkeypatch.setattr(report.verdicts, "load_spread", lambda profile: spread)


def _line(lines, start):
    (line,) = [line for line in lines if line.startswith(start)]
    return line


CLAIM1 = "- Claim 1, frozen AoSE over the encoder alone on long documents"
FIRST_10_LONG = LONG[:10]


@pytest.mark.parametrize(("points", "verdict"), [(49.0, "holds here"), (51.0, "not resolved at this scale")])
def test_claim_1_holds_only_beyond_the_seed_band(monkeypatch, points, verdict):
    _band(monkeypatch, points, "aose/imdb/frozen/aose/acc_long", "aose/imdb/frozen/truncated/acc_long")
    frozen = {"aose": _run("aose"), "truncated": _run("truncated", wrong=FIRST_10_LONG)}  # 100 vs 50 % on long
    line = _line(report.readings("imdb", frozen, {}, 1.0, CORPUS, "cpu"), CLAIM1)
    assert line.startswith(f"{CLAIM1} (100.0 vs 50.0 %): accuracy (long) difference +50.0 (95 % paired bootstrap +")
    assert line.endswith(f"seed band ±{points:.1f}) -> {verdict}.")


def test_a_difference_beyond_the_band_whose_interval_holds_0_is_not_resolved(monkeypatch):
    _band(monkeypatch, 0.0, "aose/imdb/frozen/aose/acc_long", "aose/imdb/frozen/truncated/acc_long")
    frozen = {"aose": _run("aose"), "truncated": _run("truncated", wrong=LONG[:1])}  # one long document apart
    line = _line(report.readings("imdb", frozen, {}, 1.0, CORPUS, "cpu"), CLAIM1)
    assert "accuracy (long) difference +5.0 (95 % paired bootstrap +0.0 to +" in line
    assert line.endswith("seed band ±0.0) -> not resolved at this scale.")


def test_claim_2_reads_all_tokens_against_the_shortest_cut(monkeypatch):
    _band(monkeypatch, 10.0, "aose/imdb/frozen/aose/acc_long", "aose/imdb/frozen/aose_512/acc_long")
    frozen = {"aose": _run("aose"), "truncated": _run("truncated"), "aose_1024": _run("aose_1024"),
              "aose_512": _run("aose_512", wrong=FIRST_10_LONG)}
    line = _line(report.readings("imdb", frozen, {}, 1.0, CORPUS, "cpu"), "- Claim 2")
    assert line.startswith("- Claim 2, accuracy on long documents rises with the length read (all vs 512 tokens) "
                           "(100.0 vs 50.0 %): accuracy (long) difference +50.0")
    assert line.endswith("seed band ±10.0) -> holds here.")


TWELVE_SHORT = range(0, 24, 2)  # 12 short documents wrong: 70 % accuracy, a paired interval clear of 0


@pytest.mark.parametrize(("frozen_wrong", "tuned_wrong", "verdict"), [
    (TWELVE_SHORT, (), "holds here"), ((), TWELVE_SHORT, "reversed here"), ((), (), "not resolved at this scale")])
def test_the_fine_tuning_gain_is_read_and_claim_3_only_described(monkeypatch, frozen_wrong, tuned_wrong, verdict):
    _band(monkeypatch, 5.0, "aose/imdb/finetuned/aose/acc", "aose/imdb/frozen/aose/acc")
    frozen = {"aose": _run("aose", wrong=frozen_wrong, seconds=8.6), "truncated": _run("truncated")}
    finetuned = {"aose": _run("aose", "finetuned", wrong=tuned_wrong, seconds=56.0)}
    lines = report.readings("imdb", frozen, finetuned, 78.0, CORPUS, "cpu")
    assert ("- Claim 3, the frozen setting trains far faster: cannot be checked here (one timing per setting: no "
            "interval, no seed band): AoSE frozen 8.6 s (+ 78 s embedding, once for every model) vs fine-tuned "
            "56 s.") in lines
    line = _line(lines, "- The paper's fine-tuning gain, fine-tuned AoSE over frozen AoSE, all test documents (")
    assert line.endswith(f"seed band ±5.0) -> {verdict}.")


def test_a_fine_tuned_aose_at_the_reference_rows_is_not_compared(monkeypatch):
    _band(monkeypatch, 5.0, "aose/imdb/finetuned/aose/acc", "aose/imdb/frozen/aose/acc")
    frozen = {"aose": _run("aose"), "truncated": _run("truncated")}
    finetuned = {"aose": _run("aose", "finetuned", wrong=range(0, 40, 2))}  # 50 %: level with the floor
    lines = report.readings("imdb", frozen, finetuned, 1.0, CORPUS, "cpu")
    assert lines[0].startswith("- IMDB, fine-tuned AoSE: learned nothing here (accuracy 50.0 %, not above the 50.0 %")
    assert ("- The paper's fine-tuning gain, fine-tuned AoSE over frozen AoSE, all test documents: cannot be checked "
            "here (learned nothing here: fine-tuned AoSE).") in lines


@pytest.mark.parametrize(("wrong", "read"), [(range(0, 40, 2), False), (range(2, 40, 2), True)])
def test_tf_idf_is_read_only_above_the_reference_rows(monkeypatch, wrong, read):
    _band(monkeypatch, 0.0, "aose/imdb/frozen/aose/acc", "aose/imdb/frozen/tfidf/acc")
    frozen = {"aose": _run("aose"), "truncated": _run("truncated"), "tfidf": _run("tfidf", wrong=wrong)}  # 50, 52.5 %
    lines = report.readings("imdb", frozen, {}, 1.0, CORPUS, "cpu")
    tfidf = [line for line in lines if line.startswith("- Frozen AoSE over the TF-IDF floor, all test documents")]
    nothing = [line for line in lines if line.startswith("- IMDB, frozen TF-IDF + logistic regression: learned")]
    assert (len(tfidf), len(nothing)) == ((1, 0) if read else (0, 1))
    assert all(line.startswith("- Frozen AoSE over the TF-IDF floor, all test documents (100.0 vs 52.5 %): accuracy "
                               "(all) difference +47.5 (95 % paired bootstrap +") and line.endswith("-> holds here.")
               for line in tfidf)


def test_without_long_test_documents_claims_1_and_2_are_not_checked(monkeypatch):
    _band(monkeypatch, 0.0, "aose/imdb/frozen/aose/acc_long", "aose/imdb/frozen/truncated/acc_long")
    short = [100] * 40
    frozen = {"aose": _run("aose", tokens=short), "truncated": _run("truncated", tokens=short)}
    assert report.readings("imdb", frozen, {}, 1.0, CORPUS, "cpu") == [
        "- IMDB: claims 1 and 2 cannot be checked here (no test document longer than 512 tokens)."]
