"""How long each chapter takes, in one generated place: the measured seconds of the published runs
(`baselines/<profile>.json`) and the gpu plan's minutes on a T4 (an estimate at the utilisation measured on an
H100), written into each notebook's first cell (its `**Time:**` line), the README's chapter table and its "What the
cpu run shows" box.
`cdlm-nb publish` rewrites them after every publish (`sync`), and tests keep them equal, so no two places
disagree."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from ..overview import CHAPTERS, measured_seconds, minutes

TIME_LINE = re.compile(r"^\*\*Time:\*\*.*$", re.M)
README_BLOCK = re.compile(r"(<!-- chapters:start -->\n).*?(<!-- chapters:end -->)", re.S)
FINDINGS_BLOCK = re.compile(r"(<!-- findings:start -->\n).*?(<!-- findings:end -->)", re.S)


def gpu_minutes() -> dict[str, float]:
    """Notebook stem -> minutes of compute on a T4 by the gpu plan (`cdlm-nb plan --device t4`), for the notebooks
    that run a model there."""
    from ..profiles import get_profile
    from .plan.cards import CARDS
    from .plan.report import suite_json

    return {nb["name"]: nb["minutes"] for nb in suite_json(get_profile("gpu"), CARDS["t4"])["notebooks"]}


def gpu_estimate_note() -> str:
    """How the T4 minutes were estimated, for the time line: at the share of the T4's peak measured on a T4, or (as
    now) at the H100's, which no T4 run has checked yet (`plan.cards.Card.utilisation_note`)."""
    from .plan.cards import CARDS, MEASURED_CARD

    if CARDS["t4"].utilisation_measured:
        return "estimate at the T4's measured utilisation"
    return f"estimate at the {MEASURED_CARD}'s utilisation"


def time_line(stem: str, cpu: Mapping[str, float], smoke: Mapping[str, float], gpu: Mapping[str, float]) -> str:
    """A notebook's `**Time:**` line: smoke and cpu as measured on 2 CPU cores, gpu as planned on a T4 (and at which
    utilisation)."""
    planned = (f"≈ {minutes(60 * gpu[stem])} of compute on a T4 ({gpu_estimate_note()})" if stem in gpu else
               "about the cpu time (it trains no model there)")
    return (f"**Time:** `smoke` {minutes(smoke[stem])} · `cpu` {minutes(cpu[stem])} (measured, 2 CPU cores) · "
            f"`gpu` {planned}.")


def chapters_markdown(cpu: Mapping[str, float]) -> str:
    """The README's chapter table: notebook (its published copy), what you learn, cpu minutes measured."""
    lines = ["| notebook | what you learn | cpu |", "|---|---|---:|"]
    for chapter in CHAPTERS:
        stem = f"{chapter.number}_{chapter.name}"
        lines.append(f"| [{stem}](docs/notebooks/{stem}.ipynb) | {chapter.teaches} | {minutes(cpu[stem])} |")
    lines.append(f"| **all twelve** (`make tutorial`) | | **{minutes(sum(cpu.values()))}** |")
    return "\n".join(lines)


def findings_markdown(metrics: Mapping[str, float]) -> str:
    """The figures of the README's box, read from the published cpu run: Table 1's test perplexities, the copy
    probe's gains with their intervals (reads another document's statement of a fact? 0: not at all), and the
    fine-tuned matchers read by the reading rule (a row not above both reference rows learned nothing here)."""
    from ..verdicts import learned

    names = {"longformer": "Longformer", "local": "Local", "rand": "Rand", "prefix": "Prefix", "cdlm": "CDLM"}
    ppl = " · ".join(f"{name} {metrics[f'perplexity/{key}']:.2f}" for key, name in names.items())
    gains = {name: [metrics[f"copy_gain/{key}{end}"] for end in ("", "/ci_low", "/ci_high")]
             for key, name in names.items() if key != "longformer"}
    copy = " · ".join(f"{name} {gain:+.3f} ({low:+.3f} to {high:+.3f})" for name, (gain, low, high) in gains.items())
    f1, acc = (f"matching/world/{m}" for m in ("f1", "acc"))
    floor_f1, floor_acc = (metrics[f"matching/world/reference/{row}"] for row in ("all_related/f1", "none_related/acc"))
    above = {names[key]: metrics[f"{f1}/{key}"] for key in names
             if learned(metrics[f"{f1}/{key}"], floor_f1) and learned(metrics[f"{acc}/{key}"], floor_acc)}
    scores = sorted(100 * metrics[f"{f1}/{key}"] for key in names)
    encoders = ("above both reference rows: " + ", ".join(f"{name} {100 * v:.1f}" for name, v in above.items())
                if above else f"every encoder ({scores[0]:.1f}-{scores[-1]:.1f}) learned nothing here (F1 at or under "
                              f"the {100 * floor_f1:.1f} of calling every pair related, or accuracy at or under "
                              f"calling none related)")
    return (f"- Test perplexity (notebook 03, lower is better): {ppl}.\n"
            f"- Copy gain (notebook 03, nats per token a masked fact gains from another document's statement of it, "
            f"95 % interval; 0: none): {copy}.\n"
            f"- Document matching F1 (notebook 05): {encoders}; TF-IDF cosine {100 * metrics[f'{f1}/tfidf']:.1f}.")


def sync(root: str | Path) -> list[Path]:
    """Rewrite every generated time and figure from `root`'s baselines: the `**Time:**` line of each notebook's
    first cell (notebooks/ and docs/notebooks/) and the README's blocks. Returns the files changed."""
    root = Path(root)
    cpu, smoke = (measured_seconds(root / "baselines" / f"{p}.json") for p in ("cpu", "smoke"))
    metrics = json.loads((root / "baselines" / "cpu.json").read_text())["metrics"]
    gpu, changed = gpu_minutes(), []
    for path in [*sorted((root / "notebooks").glob("*.ipynb")), *sorted((root / "docs" / "notebooks").glob("*.ipynb"))]:
        nb = json.loads(path.read_text())
        first = nb["cells"][0]
        text = "".join(first["source"]) if isinstance(first["source"], list) else first["source"]
        new = TIME_LINE.sub(time_line(path.stem, cpu, smoke, gpu), text)
        if new != text:
            first["source"] = new.splitlines(keepends=True) if isinstance(first["source"], list) else new
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
            changed.append(path)
    readme = root / "README.md"
    text = readme.read_text()
    new = README_BLOCK.sub(lambda m: m.group(1) + chapters_markdown(cpu) + "\n" + m.group(2), text)
    new = FINDINGS_BLOCK.sub(lambda m: m.group(1) + findings_markdown(metrics) + "\n" + m.group(2), new)
    if new != text:
        readme.write_text(new)
        changed.append(readme)
    return changed
