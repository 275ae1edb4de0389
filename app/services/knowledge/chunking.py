"""Cutting a document's text into overlapping chunks, the unit search ranks.

About 1,000 characters a chunk (roughly 200-250 tokens of English: long enough to hold a paragraph's
idea, short enough that a snippet and a ranking point at the right place), each cut preferring a
paragraph break, then a sentence end, then a space, in the second half of the window. Consecutive
chunks overlap by about 150 characters so a sentence cut in two is still whole in one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

CHUNK_CHARS = 1000
OVERLAP_CHARS = 150
_SENTENCE_ENDS = (". ", "? ", "! ", ".\n", "?\n", "!\n", "\n")


@dataclass(frozen=True)
class Chunk:
    index: int
    start: int
    text: str


def _cut(text: str, start: int, end: int) -> int:
    """Where to end the chunk that starts at `start` and may run to `end` (exclusive)."""
    floor = start + (end - start) // 2
    paragraph = text.rfind("\n\n", floor, end)
    if paragraph != -1:
        return paragraph + 2
    best = max((text.rfind(mark, floor, end) + len(mark) for mark in _SENTENCE_ENDS), default=-1)
    if best > floor:
        return best
    space = text.rfind(" ", floor, end)
    return space + 1 if space != -1 else end


def chunk_text(text: str, *, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> list[Chunk]:
    """The chunks of `text`, in order; empty for text with nothing but white space."""
    chunks: list[Chunk] = []
    length = len(text)
    start = 0
    while start < length:
        end = min(start + size, length)
        if end < length:
            end = _cut(text, start, end)
        piece = text[start:end].strip()
        if piece:
            chunks.append(Chunk(index=len(chunks), start=start, text=piece))
        if end >= length:
            break
        next_start = max(end - overlap, start + 1)
        # Begin the overlap at a word, not inside one.
        space = text.find(" ", next_start, end)
        start = space + 1 if space != -1 else next_start
    return chunks
