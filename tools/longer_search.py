"""A longer dev search, run once, for a system that stayed at the label prior in its notebook's search (issue 37):
the same learning rates, data and seed as the notebook, only a longer schedule, so the dev curve shows whether (and
after how much training) it leaves the prior. Only dev is printed and written (the shared run code also scores
test; nothing here reads it).

    .venv/bin/python tools/longer_search.py runs/cpu matching prefix --epochs 15
    .venv/bin/python tools/longer_search.py runs/cpu cda bert_han --epochs 150
    .venv/bin/python tools/longer_search.py runs/cpu-ecbplus cross minilm_cross --epochs 4 --data ecbplus

`matching` is notebook 05's pair classifier on one of notebook 02's encoders (read from RUN_DIR's models);
`cda` notebook 10's matchers (`aose` is notebook 11's AoSE matcher, on the same pairs); `cross` notebook 11's
MiniLM cross-encoders (`minilm_cross`, or `match_ignition` with both filters) at notebook 09's learning rate. CDA
keeps its early stopping unless `--patience` is given; `--data` as the notebooks' DATA. Prints the dev macro-F1 of
every point (° every dev pair one class, * the best) and the seconds, and writes them to
RUN_DIR/longer_search/<data>_<task>_<system>_<epochs>.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path


def longer_search(run_dir: str, task: str, system: str, epochs: int, patience: int | None = None,
                  profile_name: str = "cpu", data_name: str = "auto"):
    """The `recipe_search.SearchResult` of `system`'s search with its profile's space stretched to `epochs`."""
    from cdlm_nb.data.matching_pairs import matching_data
    from cdlm_nb.profiles import get_profile

    profile = get_profile(profile_name)
    if task == "cross":
        config = replace(profile.match_ignition.training, epochs=epochs, select_on_dev=True)
        searched = replace(profile.match_ignition, training=config)
    else:
        section = profile.matching if task == "matching" else profile.cda
        config = replace(section, epochs=epochs)
    if task == "cda" and patience is not None:
        config = replace(config, patience=patience)
    notebook_10 = task == "cda" and system != "aose"  # 05 and 11 read the profile's pairs, 10 caps them itself
    data = matching_data(profile, data_name, None, None, Path(run_dir), config.max_pairs if notebook_10 else None)
    if task == "cross":
        from cdlm_nb.match_ignition.experiment import cross_encoder_filters, filter_splits, variant_search
        from cdlm_nb.recipe_search import train_and_score

        alpha, keep = cross_encoder_filters(system, profile.match_ignition)
        return train_and_score(variant_search(system, filter_splits(data.splits, keep), alpha, searched,
                                             seed=profile.seed)).recipe
    if task == "matching":
        from cdlm_nb.matching.experiment import ClassifierSearch
        from cdlm_nb.recipe_search import train_and_score
        from cdlm_nb.variants import PretrainedShelf

        encoder = PretrainedShelf(run_dir, profile.name).load(system)
        if encoder is None:
            raise SystemExit(f"no pretrained {system!r} in {run_dir}/models: run notebook 02 there first")
        search = ClassifierSearch.start(system, encoder.model, encoder.tokenizer, data.splits, config,
                                        seed=profile.seed)
        return train_and_score(search).recipe
    from cdlm_nb.cda import experiment
    from cdlm_nb.recipe_search import train_and_score
    from cdlm_nb.sentence_encoders import load_sentence_encoder

    splits = (experiment.through_csv(data.splits, Path(run_dir) / "cda_files" / data.source)[0] if notebook_10
              else data.splits)
    words = experiment.model_spec(system)[0] == "gru_han"  # GRU-HAN reads words, the others sentence vectors
    encoder = None if words else load_sentence_encoder("minilm", "cpu")
    prepared = experiment.prepare(splits, config, encoder, run_dir)
    return train_and_score(experiment.ModelSearch(system, prepared, config, seed=profile.seed)).recipe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="the notebooks' run folder (notebook 02's models, the cached files)")
    parser.add_argument("task", choices=("matching", "cda", "cross"))
    parser.add_argument("system", help="a notebook 02 variant (matching), a CDA model name (cda), minilm_cross or "
                                       "match_ignition (cross)")
    parser.add_argument("--data", default="auto", help="the notebooks' DATA (auto: the profile's, e.g. ecbplus)")
    parser.add_argument("--epochs", type=int, required=True, help="the longer schedule's epochs")
    parser.add_argument("--patience", type=int, default=None, help="cda: epochs without a better dev loss")
    parser.add_argument("--profile", default="cpu")
    args = parser.parse_args(argv)
    from cdlm_nb.recipe_search import space_table

    result = longer_search(args.run_dir, args.task, args.system, args.epochs, args.patience, args.profile, args.data)
    print(space_table({args.system: result}).T.to_string())
    out = Path(args.run_dir) / "longer_search" / f"{args.data}_{args.task}_{args.system}_{args.epochs}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result.to_json(), indent=1) + "\n")
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
