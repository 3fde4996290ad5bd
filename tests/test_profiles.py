from dataclasses import FrozenInstanceError, fields, is_dataclass

import pytest

from cdlm_nb.profiles import PROFILES, Profile, get_profile, profile_names
from cdlm_nb.support.errors import ConfigError


def test_profiles_in_increasing_size_then_the_rehearsal():
    assert profile_names() == ["smoke", "cpu", "gpu", "gpu-rehearsal"]
    assert set(PROFILES) == set(profile_names())


@pytest.mark.parametrize("name", ["smoke", "cpu", "gpu", "gpu-rehearsal"])
def test_every_profile_resolves_with_every_section(name):
    profile = get_profile(name)
    assert profile.name == name
    for f in fields(Profile):
        value = getattr(profile, f.name)
        assert value is not None, f"{name}.{f.name} is unset"
        if is_dataclass(value):  # sections are frozen dataclasses
            with pytest.raises(FrozenInstanceError):
                setattr(value, fields(value)[0].name, None)


def test_offline_profiles_use_the_embedded_world_and_gpu_the_hub():
    assert get_profile("smoke").data_source == "embedded"
    assert get_profile("cpu").data_source == "embedded"
    assert get_profile("gpu").data_source == "hub"


def test_unknown_profile_lists_the_valid_ones():
    with pytest.raises(ConfigError, match="smoke.*cpu.*gpu"):
        get_profile("laptop")


def test_override_rejects_unknown_fields():
    cpu = get_profile("cpu")
    assert cpu.override(seed=7).seed == 7
    with pytest.raises(ConfigError, match="stpes"):
        cpu.override(stpes=3)


def _is_size(value) -> bool:
    """An integer size, a tuple of them, or None ("all")."""
    if isinstance(value, tuple):
        return all(_is_size(v) and v is not None for v in value)
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _size_of(value) -> float:
    return float("inf") if value is None else max(value) if isinstance(value, tuple) else value


def _differences(gpu, rehearsal, where: str):
    """(path, gpu value, rehearsal value) of every leaf field that differs, recursing into nested sections."""
    for f in fields(gpu):
        a, b = getattr(gpu, f.name), getattr(rehearsal, f.name)
        if is_dataclass(a):
            yield from _differences(a, b, f"{where}.{f.name}")
        elif a != b:
            yield f"{where}.{f.name}", a, b


def test_the_rehearsal_differs_from_gpu_only_in_sizes():
    gpu, rehearsal = get_profile("gpu"), get_profile("gpu-rehearsal")
    differences = list(_differences(gpu, rehearsal, "profile"))
    assert differences, "the rehearsal must shrink something"
    not_sizes = [(path, a, b) for path, a, b in differences
                 if path not in ("profile.name", "profile.description", "profile.minutes_budget")
                 and not (_is_size(a) and _is_size(b))]
    assert not not_sizes, f"the rehearsal changes more than sizes: {not_sizes}"
    grown = [(path, a, b) for path, a, b in differences
             if path.count(".") > 1 and not _size_of(b) <= _size_of(a)]
    assert not grown, f"a rehearsal size is not below gpu's: {grown}"
    # the fields that decide which code runs are gpu's
    assert (rehearsal.data_source, rehearsal.encoder.kind, rehearsal.pretrain.fp16, rehearsal.pretrain.variants) == (
        gpu.data_source, gpu.encoder.kind, gpu.pretrain.fp16, gpu.pretrain.variants)


# Integer fields the rehearsal keeps at gpu's value although they exceed SMALL, and why none of them is a count of
# work that grows the rehearsal's time: every other integer (epochs, steps, pairs, repeats, ...) must be shrunk.
SMALL = 5
KEPT_AT_GPU = {
    "profile.seed": "a seed, not a size",
    "profile.pretrain.seeds": "seeds, not sizes",
    "profile.world.seed": "a seed, not a size",
    "profile.encoder.hidden_size": "the model's shape: the stand-ins' `--shape` decides what runs",
    "profile.encoder.num_layers": "the model's shape: the stand-ins' `--shape` decides what runs",
    "profile.encoder.num_heads": "the model's shape: the stand-ins' `--shape` decides what runs",
    "profile.encoder.intermediate_size": "the model's shape: the stand-ins' `--shape` decides what runs",
    "profile.encoder.vocab_size": "the model's shape: the stand-ins' `--shape` decides what runs",
    "profile.multihop.max_answer_tokens": "a rule of the task (longest answer span), bounded by the shrunk inputs",
    "profile.match_ignition.lambdas": "three λ values compared, each one scoring pass over the shrunk test pairs",
    "profile.match_ignition.training.batch_size": "pairs per step; the rehearsal's 8 pairs make one step",
    "profile.classification.min_tokens": "a segmentation rule (shortest segment), not a count",
    "profile.classification.max_tokens": "a segmentation rule (longest segment), bounded by the shrunk documents",
    "profile.world.docs_per_cluster": "the generator's document shape; the world's topics are shrunk",
    "profile.world.words_per_doc": "the generator's document shape; the world's topics are shrunk",
    "profile.world.preamble_words": "the generator's document shape; the world's topics are shrunk",
}


def _unchanged_integers(gpu, rehearsal, where: str):
    """(path, value) of every integer (or tuple-of-integers) leaf the rehearsal leaves at gpu's value."""
    for f in fields(gpu):
        a, b = getattr(gpu, f.name), getattr(rehearsal, f.name)
        if is_dataclass(a):
            yield from _unchanged_integers(a, b, f"{where}.{f.name}")
        elif a == b and a not in (None, ()) and _is_size(a):
            yield f"{where}.{f.name}", a


def test_every_loop_bound_of_gpu_is_shrunk_in_the_rehearsal():
    """A bound left at gpu's value (the CDA search's 100 epochs) made the rehearsal run until a float comparison
    happened to stop it; nested sections (the recipe searches) count too."""
    kept = dict(_unchanged_integers(get_profile("gpu"), get_profile("gpu-rehearsal"), "profile"))
    large = {path: value for path, value in kept.items() if _size_of(value) > SMALL and path not in KEPT_AT_GPU}
    assert not large, f"gpu-sized integers left in the rehearsal (shrink them in rehearsal/sizes.py): {large}"
    stale = sorted(set(KEPT_AT_GPU) - set(kept))
    assert not stale, f"KEPT_AT_GPU names fields the rehearsal now shrinks or that no longer exist: {stale}"
    assert get_profile("gpu-rehearsal").cda.epochs < get_profile("gpu").cda.epochs


def test_no_code_branches_on_a_profile_name():
    """A branch on `.name == "gpu"` would let the rehearsal skip what gpu runs; profiles are read by their fields."""
    import ast
    from pathlib import Path

    import cdlm_nb

    offenders = []
    for path in Path(cdlm_nb.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                names = [n for n in (node.left, *node.comparators)
                         if isinstance(n, ast.Attribute) and n.attr == "name"]
                literals = [n for n in (node.left, *node.comparators)
                            if isinstance(n, ast.Constant) and n.value in PROFILES]
                if names and literals:
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, f"code compares a name with a profile name: {offenders}"


def _sources() -> str:
    """The package's code (the profile values aside) and the notebooks' cells: where a setting can be read."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    code = [p.read_text() for p in (root / "cdlm_nb").rglob("*.py") if p.parent.name != "profiles"
            or p.name == "sections.py"]
    cells = ["".join(cell["source"]) for notebook in sorted((root / "notebooks").glob("*.ipynb"))
             for cell in json.loads(notebook.read_text())["cells"] if cell["cell_type"] == "code"]
    return "\n".join(code + cells)


def test_every_field_of_every_section_is_read():
    """A setting nothing reads would do nothing: every section field is read as `.field` by the package or a
    notebook (the profile values themselves aside)."""
    import re

    sources, profile = _sources(), get_profile("cpu")
    sections = {f.name: getattr(profile, f.name) for f in fields(Profile) if is_dataclass(getattr(profile, f.name))}
    unread = [f"{name}.{field.name}" for name, section in sections.items() for field in fields(section)
              if not re.search(rf"\.{field.name}\b", sources)]
    assert not unread, f"settings no code reads: {unread}"


@pytest.mark.parametrize("section", ["matching", "cda"])
def test_the_learning_rates_are_the_search_and_one_rate_trains_without_it(section):
    """The rates a profile gives are the ones trained: searched on dev with `select_on_dev`, else exactly one
    (several without a search are refused, naming the field); each rate and epoch count is in the search's cache
    key, so a change retrains."""
    from dataclasses import replace

    from cdlm_nb.recipe_search import setting

    config = getattr(get_profile("cpu"), section)
    assert config.select_on_dev and config.search.learning_rates == config.learning_rates
    assert config.search.epochs == config.epochs
    for change in (dict(learning_rates=(7e-4,)), dict(epochs=config.epochs + 1)):
        assert setting(replace(config, **change)) != setting(config)
    single = replace(config, learning_rates=(7e-4,), select_on_dev=False)
    assert single.search is None and single.learning_rate == 7e-4
    with pytest.raises(ConfigError, match="learning_rates"):
        replace(config, select_on_dev=False)


def test_with_parameters_puts_in_what_a_notebook_sets_and_keeps_the_rest():
    from cdlm_nb.profiles import with_parameters

    matching = get_profile("cpu").matching
    assert with_parameters(matching, "notebook 05", learning_rates=None, epochs=None) == matching
    changed = with_parameters(matching, "notebook 05", learning_rates=[1e-4, 2e-4], epochs=2)
    assert changed.learning_rates == (1e-4, 2e-4) and changed.search.epochs == 2
    assert changed.batch_size == matching.batch_size
    with pytest.raises(ConfigError, match="notebook 05"):
        with_parameters(matching, "notebook 05", learning_rate=1e-4)
