"""The tutorial's one fine-tuning loop (coreference, matching, multi-hop QA, classification, CDA) and what it stands
on: batching, optimizer and schedule, mixed precision, early stopping, scores (pretraining uses `Trainer` instead)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from .batching import length_grouped_batches
from .profiles import SEED
from .support.errors import DataError
from .support.precision import precision
from .support.progress import progress

if TYPE_CHECKING:
    import numpy as np
    import torch

#: Bumped whenever `train_epochs` changes what a recipe learns (2: gradients clipped; 3: Hugging Face's
#: length-grouped order): in every cached recipe search's key, so a run folder never reuses stale weights.
LOOP_VERSION = 3
T = TypeVar("T")
#: batch_loss(indices) -> the task's mean loss on those inputs (its forward pass, run under `autocast`)
BatchLoss = Callable[[list[int]], "torch.Tensor"]
#: split(batch) -> the batch cut into forward passes that fit in memory (their gradients add up to the batch's)
Split = Callable[[list[int]], list[list[int]]]


@dataclass(frozen=True)
class TrainSetup:
    """How a model is fine-tuned; each field means the same for every task."""

    epochs: int
    batch_size: int  # inputs per optimizer step (a `Split` may cut it into several forward passes)
    learning_rate: float
    seed: int = SEED
    warmup: float = 0.0  # share of the steps over which the rate rises linearly from zero
    decay: bool = True  # then falls linearly to zero at the last step (False: it stays constant)
    optimizer: str = "adamw"  # "adamw" (weight decay 0.01), or "adam" (none: the CDA paper)
    random_batches: bool = False  # i.i.d. batches (the CDA paper) instead of batches of similar length
    max_grad_norm: float | None = 1.0  # clipping (BERT's, the Trainer's): one bad batch cannot upset a tiny model


@dataclass(frozen=True)
class Epoch:
    """One epoch of `train_epochs`, as the caller's loop sees it between epochs."""

    number: int  # 1-based
    losses: list[float]  # every batch's loss in this epoch
    seconds: float  # training so far (what the caller does between epochs, e.g. scoring dev, left out)


def train_epochs(model: "torch.nn.Module", lengths: Sequence[int], batch_loss: BatchLoss, setup: TrainSetup, *,
                 device: str = "cpu", parameters=None, split: Split | None = None,
                 what: str = "inputs") -> Iterator[Epoch]:
    """Train `model` in place on inputs of these token `lengths`, yielding after each epoch (in eval mode) so that the
    caller's loop can score dev, keep weights or stop. `parameters`: optimizer parameter groups (default: all). One
    device: fine-tuning is minutes on one GPU at every profile's sizes (docs/gpu.md)."""
    import torch
    from transformers import get_constant_schedule_with_warmup, get_linear_schedule_with_warmup

    if not lengths:
        raise DataError(f"no training {what}: the training split is empty")
    torch.manual_seed(setup.seed)
    model.to(device)
    kinds = {"adamw": torch.optim.AdamW, "adam": torch.optim.Adam}
    if setup.optimizer not in kinds:
        raise ValueError(f"TrainSetup.optimizer={setup.optimizer!r}: use one of {sorted(kinds)}")
    # the fused kernel: one pass over all parameters instead of a loop over tensors
    optimizer = kinds[setup.optimizer](model.parameters() if parameters is None else parameters,
                                       lr=setup.learning_rate, fused=True)
    steps = setup.epochs * -(-len(lengths) // setup.batch_size)
    warmup = round(setup.warmup * steps)  # linear warm-up, then linear decay to zero (or constant)
    schedule = (get_linear_schedule_with_warmup(optimizer, warmup, steps) if setup.decay
                else get_constant_schedule_with_warmup(optimizer, warmup))
    scaler = gradient_scaler(device)
    epochs = epoch_batches(lengths, setup)
    seconds = 0.0
    for epoch in range(1, setup.epochs + 1):
        started = time.perf_counter()
        model.to(device).train()
        losses: list[float] = []
        for batch in progress(next(epochs), desc=f"epoch {epoch}/{setup.epochs}"):
            loss = 0.0
            for piece in (split or per_device(None))(batch):
                with autocast(device):
                    piece_loss = batch_loss(piece) * (len(piece) / len(batch))
                scaler.scale(piece_loss).backward()
                loss += piece_loss.item()
            if setup.max_grad_norm is not None:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_([p for group in optimizer.param_groups for p in group["params"]],
                                               setup.max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            schedule.step()
            optimizer.zero_grad()
            losses.append(loss)
        model.eval()
        seconds += time.perf_counter() - started
        yield Epoch(epoch, losses, seconds)


def epoch_batches(lengths: Sequence[int], setup: TrainSetup) -> Iterator[list[list[int]]]:
    """Each epoch's batches: a new length-grouped order each epoch (little padding), or i.i.d. batches."""
    import numpy as np

    rng = np.random.default_rng(setup.seed)
    for epoch in range(setup.epochs):
        if setup.random_batches:
            yield pieces(rng.permutation(len(lengths)).tolist(), setup.batch_size)
        else:
            yield length_grouped_batches(lengths, setup.batch_size, seed=setup.seed + epoch)


def input_lengths(inputs: Sequence) -> list[int]:
    """Tokens of each encoded input (anything with `input_ids`): what `batching.length_grouped_batches` groups by."""
    return [len(item.input_ids) for item in inputs]


def per_device(per_device_batch: int | None) -> Split:
    """A `Split` into forward passes of at most `per_device_batch` inputs (None: one pass)."""
    return lambda batch: pieces(batch, per_device_batch)


def pieces(indices: list[int], per_device_batch: int | None) -> list[list[int]]:
    """A batch cut into forward passes of at most `per_device_batch` inputs (None: one pass)."""
    size = per_device_batch or len(indices)
    return [indices[i:i + size] for i in range(0, len(indices), size)]


def cpu_state(model: "torch.nn.Module") -> dict[str, "torch.Tensor"]:
    """A copy of the model's weights in CPU memory: a kept checkpoint takes no room on the accelerator."""
    return {name: tensor.detach().to("cpu", copy=True) for name, tensor in model.state_dict().items()}


@dataclass
class EarlyStopping:
    """Called after each epoch (True: stop once `dev_loss()` has not improved by `min_improvement` for `patience`
    epochs), keeping the best epoch's weights in CPU memory for `restore`."""

    model: "torch.nn.Module"
    dev_loss: Callable[[], float]
    patience: int
    min_improvement: float = 0.0
    losses: list[float] = field(default_factory=list)
    best_epoch: int = 0
    best_state: dict | None = None
    waited: int = 0

    def __call__(self, epoch: int) -> bool:
        self.losses.append(self.dev_loss())
        best = self.losses[self.best_epoch - 1] if self.best_epoch else float("inf")
        if improved(self.losses[-1], best, self.min_improvement):
            self.best_epoch, self.best_state, self.waited = epoch, cpu_state(self.model), 0
        else:
            self.waited += 1
        return self.waited >= self.patience

    def restore(self) -> None:
        """Load the best epoch's weights; an error when no epoch had a finite dev loss (training diverged)."""
        if self.best_state is None:
            raise FloatingPointError(f"every dev loss was NaN ({len(self.losses)} epochs): training diverged; "
                                     "lower the learning rate")
        self.model.load_state_dict(self.best_state)


def improved(loss: float, best: float, min_improvement: float) -> bool:
    """Lower than `best` by at least `min_improvement` (a NaN never is): creeping down by a hair does not count."""
    return loss < best - min_improvement


def to_device(batch: dict[str, "torch.Tensor"], device: str) -> dict[str, "torch.Tensor"]:
    """Every tensor of `batch` on `device`."""
    return {name: tensor.to(device) for name, tensor in batch.items()}


def synchronize(device: "str | torch.device") -> None:
    """Wait for a CUDA device's queued work (else a clock read times only the kernels' launch)."""
    import torch

    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def autocast(device: str):
    """Mixed precision in the device's `precision.precision` on a GPU (docs/experiments.md); full on a CPU."""
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision(device))
    return torch.autocast(device_type="cuda", dtype=dtype or torch.float32, enabled=dtype is not None)


def gradient_scaler(device: str) -> "torch.amp.GradScaler":
    """Loss scaling for fp16 (its gradients would underflow without it); a pass-through in bf16 and fp32."""
    import torch

    return torch.amp.GradScaler("cuda", enabled=precision(device) == "fp16")


def predict_batches(forward: Callable[[list[int]], T], batches: Iterable[list[int]], *, device: str = "cpu",
                    split: Split | None = None, desc: str = "predicting") -> tuple[list[tuple[list[int], T]], float]:
    """The one inference loop: `forward(indices)` on every piece of every batch, in inference mode under `autocast`;
    each (indices, output) in order, and the seconds it took (queued device work included)."""
    import torch

    outputs = []
    start = time.perf_counter()
    with torch.inference_mode():
        for batch in progress(list(batches), desc=desc, leave=False):  # gone once done: dev is scored every epoch
            for piece in (split or per_device(None))(batch):
                with autocast(device):
                    outputs.append((piece, forward(piece)))
    synchronize(device)
    return outputs, time.perf_counter() - start


def scattered(outputs: Sequence[tuple[list[int], "np.ndarray"]], n: int) -> "np.ndarray":
    """One value per input from `predict_batches`' outputs (an array per batch), in the inputs' order."""
    import numpy as np

    values = np.zeros(n, dtype=np.float32)
    for indices, batch_values in outputs:
        values[indices] = batch_values
    return values


#: P(positive) at which a trained binary classifier says yes: the likelier class, fixed, never tuned on test.
DECISION_THRESHOLD = 0.5


def decide(probabilities: "Sequence[float] | np.ndarray") -> "np.ndarray":
    """0/1 decisions at `DECISION_THRESHOLD`."""
    import numpy as np

    return (np.asarray(probabilities) >= DECISION_THRESHOLD).astype(int)


@dataclass
class ScoringResult:
    """Probabilities of a list of pairs, and how fast they were computed."""

    probabilities: "np.ndarray"
    seconds: float

    @property
    def pairs_per_second(self) -> float:
        return len(self.probabilities) / self.seconds if self.seconds > 0 else float("nan")
