"""Fine-tuning the multi-task QA model (AdamW, linear warm-up then decay) and predicting with it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import torch

from ..batching import length_grouped_batches
from ..encoders import takes_global_attention
from ..finetuning import Epoch, TrainSetup, input_lengths, per_device, predict_batches, to_device, train_epochs
from .decoding import Decoded, decode
from .inputs import QAInput, QALabels
from .model import MultiHopQA, collate, multitask_loss


def fine_tune(model: MultiHopQA, inputs: Sequence[QAInput], labels: Sequence[QALabels], setup: TrainSetup, *,
              pad_id: int, device: str = "cpu", per_device_batch: int | None = None) -> Iterator[Epoch]:
    """Train encoder and heads on the summed multi-task loss (`per_device_batch`: questions per forward pass),
    yielding after each epoch (`finetuning.train_epochs`)."""
    def batch_loss(indices: list[int]) -> torch.Tensor:
        batch = to_device(collate([inputs[i] for i in indices], [labels[i] for i in indices], pad_id,
                                  takes_global_attention(model.encoder)), device)
        return multitask_loss(model(**batch), batch)

    return train_epochs(model, input_lengths(inputs), batch_loss, setup, device=device,
                        split=per_device(per_device_batch), what="questions")


def predict(model: MultiHopQA, inputs: Sequence[QAInput], *, pad_id: int, batch_size: int, max_answer_tokens: int,
            device: str = "cpu") -> tuple[dict[str, Decoded], float]:
    """Each question's decoded prediction, and the seconds it took."""
    model.to(device).eval()
    global_first = takes_global_attention(model.encoder)

    def heads(indices: list[int]) -> dict[str, np.ndarray]:
        batch = to_device(collate([inputs[i] for i in indices], None, pad_id, global_first), device)
        return {name: value.float().cpu().numpy() for name, value in model(**batch).items()}

    outputs, seconds = predict_batches(heads, length_grouped_batches(input_lengths(inputs), batch_size),
                                       device=device, desc="answering")
    decoded = {inputs[i].qid: decode(inputs[i], {name: value[row] for name, value in logits.items()}, max_answer_tokens)
               for indices, logits in outputs for row, i in enumerate(indices)}
    return decoded, seconds
