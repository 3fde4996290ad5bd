"""`EcbPlusReport`: what reading ECB+ left out or changed, so that nothing is dropped silently."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class EcbPlusReport:
    """What reading the corpus left out or changed, so that nothing is dropped silently."""

    files_read: int = 0
    documents_kept: int = 0
    documents_without_validated_sentences: list[str] = field(default_factory=list)
    validated_sentences_not_in_document: list[str] = field(default_factory=list)  # "doc_id:sentence"
    validated_documents_not_found: list[str] = field(default_factory=list)  # in the CSV, no XML file
    mentions_kept: int = 0
    mentions_outside_kept_sentences: int = 0  # by design when validated_only: not gold there
    mentions_crossing_sentences: list[str] = field(default_factory=list)  # "doc_id:m_id", skipped
    mentions_with_unknown_tag: list[str] = field(default_factory=list)  # "doc_id:m_id:TAG", skipped
    markables_without_tokens: list[str] = field(default_factory=list)  # not descriptors, skipped
    mentions_in_several_relations: list[str] = field(default_factory=list)  # first relation kept
    discontinuous_mentions_widened: list[str] = field(default_factory=list)  # kept as covering span
    relations_of_other_types: int = 0  # neither CROSS_DOC_COREF nor INTRA_DOC_COREF, ignored
    clusters_mixing_kinds: list[str] = field(default_factory=list)  # kept; statistics count them per kind

    def problems(self) -> dict[str, int]:
        """Counts of what could not be read as annotated (not the by-design validated-sentence filter)."""
        return {
            "mentions crossing sentences": len(self.mentions_crossing_sentences),
            "mentions with a tag that is neither event nor entity": len(self.mentions_with_unknown_tag),
            "markables without tokens": len(self.markables_without_tokens),
            "validated sentences missing from their document": len(self.validated_sentences_not_in_document),
            "validated documents without an XML file": len(self.validated_documents_not_found),
        }

    def lines(self) -> list[str]:
        """A human-readable summary, one line per non-empty item."""
        out = [f"{self.files_read} files read, {self.documents_kept} documents and {self.mentions_kept} mentions kept"]
        items = {
            "documents without validated sentences (left out)": self.documents_without_validated_sentences,
            "validated sentences missing from their document": self.validated_sentences_not_in_document,
            "validated documents without an XML file": self.validated_documents_not_found,
            "mentions crossing sentences (skipped)": self.mentions_crossing_sentences,
            "mentions with a tag that is neither event nor entity (skipped)": self.mentions_with_unknown_tag,
            "markables without tokens (skipped)": self.markables_without_tokens,
            "mentions in several relations (first kept)": self.mentions_in_several_relations,
            "discontinuous mentions (widened to their covering span)": self.discontinuous_mentions_widened,
            "clusters linking events and entities (counted per kind)": self.clusters_mixing_kinds,
        }
        for label, values in items.items():
            if values:
                shown = ", ".join(values[:5]) + (", ..." if len(values) > 5 else "")
                out.append(f"{len(values)} {label}: {shown}")
        if self.mentions_outside_kept_sentences:
            out.append(f"{self.mentions_outside_kept_sentences} mentions outside the kept sentences (not gold there)")
        if self.relations_of_other_types:
            out.append(f"{self.relations_of_other_types} relations of other types ignored")
        return out
