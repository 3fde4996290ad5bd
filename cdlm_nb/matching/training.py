"""Fine-tuning a pair classifier and scoring pairs with it: padding into tensors, the cross-entropy loop (AdamW,
linear decay), and batched scoring with its throughput."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from .. import finetuning
from ..batching import length_grouped_batches
from ..collate import pad_batch
from ..encoders import takes_global_attention
from ..finetuning import Epoch, ScoringResult, TrainSetup, input_lengths, to_device
from .inputs import MatchInput

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel


def collate(inputs: Sequence[MatchInput], pad_id: int, protocol: str = "paper",
            global_first: bool = True) -> dict[str, "torch.Tensor"]:
    """Pad a batch: input_ids and attention_mask ("released": all ones, padding attended), and for a Longformer
    the global mask: on the first token ("paper"), on none ("local": an explicit zero mask, so <s> reads only its
    window), or left out ("released": the classifier's own default, global attention on <s>)."""
    import torch

    batch = pad_batch([{"input_ids": item.input_ids} for item in inputs], {"input_ids": pad_id})
    if protocol == "released":
        batch["attention_mask"] = torch.ones_like(batch["attention_mask"])
    if global_first and protocol != "released":
        batch["global_attention_mask"] = torch.zeros_like(batch["attention_mask"])
        batch["global_attention_mask"][:, 0] = int(protocol == "paper")
    return batch


def fine_tune(model: "PreTrainedModel", inputs: Sequence[MatchInput], labels: Sequence[int], setup: TrainSetup, *,
              pad_id: int, protocol: str = "paper", device: str = "cpu", per_device_batch: int | None = None,
              class_weighted: bool = False) -> Iterator[Epoch]:
    """Train encoder and head together with cross-entropy on the pair labels (`class_weighted`: each class's loss
    weighted by n / (2 n_class), `balanced_weights`), yielding after each epoch (`finetuning.train_epochs`)."""
    import torch

    targets = torch.tensor(labels, dtype=torch.long)
    weight = balanced_weights(labels).to(device) if class_weighted else None

    def batch_loss(indices: list[int]) -> "torch.Tensor":
        batch = to_device(collate([inputs[i] for i in indices], pad_id, protocol, takes_global_attention(model)),
                          device)
        return torch.nn.functional.cross_entropy(model(**batch).logits.float(), targets[indices].to(device),
                                                 weight=weight)

    return finetuning.train_epochs(model, input_lengths(inputs), batch_loss, setup, device=device,
                                   split=finetuning.per_device(per_device_batch), what="pairs")


def balanced_weights(labels: Sequence[int], classes: int = 2) -> "torch.Tensor":
    """Per-class loss weights n / (classes x n_class) (scikit-learn's "balanced"): with a third of the pairs
    related, a related pair weighs 1.5 and an unrelated one 0.75, as if the classes were balanced (as the CDA
    benchmark's are); a class absent from `labels` weighs 0."""
    import torch

    counts = torch.bincount(torch.tensor(list(labels), dtype=torch.long), minlength=classes).float()
    return torch.where(counts > 0, counts.sum() / (classes * counts.clamp(min=1)), torch.zeros_like(counts))


def score(model: "PreTrainedModel", inputs: Sequence[MatchInput], *, pad_id: int, batch_size: int,
          protocol: str = "paper", device: str = "cpu") -> ScoringResult:
    """P(related) for every pair (softmax of the two logits), batched by length, with the wall-clock time."""
    import torch

    model.to(device).eval()
    global_first = takes_global_attention(model)

    def related(indices: list[int]):
        batch = to_device(collate([inputs[i] for i in indices], pad_id, protocol, global_first), device)
        return torch.softmax(model(**batch).logits.float(), dim=-1)[:, 1].cpu().numpy()

    outputs, seconds = finetuning.predict_batches(related, length_grouped_batches(input_lengths(inputs), batch_size),
                                                  device=device, desc="scoring pairs")
    return ScoringResult(finetuning.scattered(outputs, len(inputs)), seconds)
