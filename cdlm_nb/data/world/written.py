"""What the writer produces: sentences of tokens with their gold mentions and fact statements, and documents.

Data types only, apart from `writing` (which fills them) and `facts` (whose `Subtopic` keeps its documents), so
neither of those two imports the other's ideas back.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .templates import detokenize


@dataclass(frozen=True)
class Span:
    """A stretch of tokens in a sentence: a gold mention or a fact statement."""

    start: int
    end: int
    label: str  # mention: its cluster key ("" = singleton); statement: the role
    kind: str = ""  # mention: "event"/"entity"
    tag: str = ""  # mention: ECB+ type; statement: "" if correct, else "wrong"


@dataclass
class Sentence:
    """A written sentence: its tokens, its gold mentions and the facts it states."""

    tokens: list[str]
    mentions: list[Span]
    statements: list[Span]

    @cached_property
    def text(self) -> str:
        """The sentence as plain text."""
        return detokenize(self.tokens)[0]


@dataclass
class Document:
    """A written document: sentences in reading order, and which facts it states (correctly or not)."""

    id: str
    sentences: list[Sentence]
    stated: dict[str, bool]  # role -> stated correctly?

    @cached_property
    def text(self) -> str:
        """The document as plain text: its sentences joined by spaces."""
        return " ".join(sentence.text for sentence in self.sentences)

    @property
    def words(self) -> int:
        """Whitespace-separated words: what `WorldConfig.words_per_doc` bounds."""
        return len(self.text.split())
