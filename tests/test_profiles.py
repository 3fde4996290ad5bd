from dataclasses import FrozenInstanceError, fields, is_dataclass

import pytest

from cdlm_nb.errors import ConfigError
from cdlm_nb.profiles import PROFILES, Profile, get_profile, profile_names


def test_three_profiles_in_increasing_size():
    assert profile_names() == ["smoke", "cpu", "gpu"]
    assert set(PROFILES) == set(profile_names())


@pytest.mark.parametrize("name", ["smoke", "cpu", "gpu"])
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
