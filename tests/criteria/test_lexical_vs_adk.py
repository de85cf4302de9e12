"""``response_match`` side by side with google-adk 2.13.0's ``response_match_score``.

Two references, each used when it is importable:

* ``adk``: google-adk's own ``final_response_match_v1._calculate_rouge_1_scores``,
  the function its ``RougeEvaluator`` scores every turn with (test-only extra);
* ``rules``: Google's ``rouge-score`` 0.1.2 (a test dependency) driven by a
  character-by-character transcription of ADK's published tokenizer rules,
  so the comparison still runs where google-adk is not installed.
"""

from __future__ import annotations

import functools
import random
import sys
import unicodedata
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval.criteria.lexical import adk_tokenize, rouge1

Scorer = Callable[[str, str], tuple[float, float, float]]
Tokenize = Callable[[str], list[str]]

TOLERANCE = 1e-9


def _adk_reference() -> tuple[Scorer, Tokenize] | None:
    try:
        from google.adk.evaluation import final_response_match_v1 as adk
    except ImportError:
        return None
    tokenizer = adk._UnicodeAwareTokenizer(use_stemmer=True)

    def score(candidate: str, reference: str) -> tuple[float, float, float]:
        s = adk._calculate_rouge_1_scores(candidate, reference)
        return (s.precision, s.recall, s.fmeasure)

    return score, tokenizer.tokenize


CJK = frozenset(
    code
    for low, high in ((0x4E00, 0x9FFF), (0x3040, 0x309F), (0x30A0, 0x30FF), (0xAC00, 0xD7AF))
    for code in range(low, high + 1)
)
UNSPACED = frozenset(
    code
    for low, high in ((0x0E00, 0x0E7F), (0x0E80, 0x0EFF), (0x1780, 0x17FF), (0x1000, 0x109F))
    for code in range(low, high + 1)
)


def _rules_reference() -> tuple[Scorer, Tokenize] | None:
    try:
        from rouge_score import rouge_scorer, tokenizers
    except ImportError:
        return None
    ascii_words = tokenizers.DefaultTokenizer(use_stemmer=True)

    def tokenize(text: str) -> list[str]:
        pieces: list[str] = []
        for char in unicodedata.normalize("NFKC", text).lower():
            mark = unicodedata.category(char).startswith("M")
            if ord(char) in CJK:
                pieces.append(f" {char} ")
            elif ord(char) in UNSPACED:
                pieces.append(char if mark else f" {char}")
            elif mark or char.isalnum():
                pieces.append(char)
            else:
                pieces.append(" ")
        tokens: list[str] = []
        for word in "".join(pieces).split():
            tokens.extend(ascii_words.tokenize(word) if word.isascii() else [word])
        return tokens

    class RulesTokenizer(tokenizers.Tokenizer):  # type: ignore[misc]
        def tokenize(self, text: str) -> list[str]:
            return tokenize(text)

    scorer = rouge_scorer.RougeScorer(["rouge1"], tokenizer=RulesTokenizer())

    def score(candidate: str, reference: str) -> tuple[float, float, float]:
        s = scorer.score(reference, candidate)["rouge1"]
        return (s.precision, s.recall, s.fmeasure)

    return score, tokenize


REFERENCES = {"adk": _adk_reference(), "rules": _rules_reference()}


@pytest.fixture(params=sorted(REFERENCES))
def reference(request: pytest.FixtureRequest) -> tuple[Scorer, Tokenize]:
    found = REFERENCES[request.param]
    if found is None:
        pytest.skip(f"reference {request.param!r} is not installed")
    return found


def test_some_reference_is_installed() -> None:
    assert any(found is not None for found in REFERENCES.values())


# ----------------------------------------------------------- generated pairs


def _words(text: str) -> list[str]:
    return text.split()


ENGLISH = _words(
    "the a an is are was were be been on in of to and or but not no yes it its "
    "run runs running ran runner cat cats quick quickly quicker happy happily "
    "happiness generous generously die dying died dies sky skies agree agreed "
    "agreement relational conditional rational valency digitizer conformably "
    "radically differently vilely analogously vietnamization predication operator "
    "feudalism decisiveness hopefulness callousness formality sensitivity "
    "sensibility triplicate formative formalize electricity electrical hopeful "
    "goodness revival allowance inference airliner gyroscopic adjustable defensible "
    "irritant replacement adjustment dependent adoption communism activate "
    "angularity homologous effective bowdlerize probate rate cease controlling roll "
    "generalizations oscillators restart restarting rebooting rebooted service "
    "services daemon daemons weather Paris meeting meetings meets London Tokyo "
    "answer answers answered question questions user users database databases "
    "configuration configured deploy deployment deployments error errors failing "
    "failed succeeded succeeding analysis analyses analyzed temperature degrees "
    "iPhone OpenAI GPT-4o e-mail don't it's U.S.A. C++ node.js user_id CamelCase "
    "20 42 3.14 1,000 2024-05-01 v2.13.0 100% $5 #tag @user"
)
PUNCTUATION = [".", ",", "!", "?", ";", ":", "…", "—", "-", "'", '"', "“", "”", "(", ")", "°"]

CJK_TEXTS = [
    "北京欢迎你",
    "今天天气很好。",
    "我们去公园散步吧！",
    "东京は日本の首都です",
    "テストを実行しました",
    "ﾃｽﾄ ｶﾞｷﾞ",
    "コーヒー・ショップ",
    "ひらがなとカタカナ",
    "한국어를 공부합니다",
    "서울은 아름답다",
    "「引用」、句読点。",
    "㐀㐁 兀 豈",
    "ㄱㄴ ㅏ",
    "價格是１２３元",
    "第３章",
    "ゝゞ゛゜",
]
THAI_TEXTS = [
    "ภาษาไทยเป็นภาษาที่สวยงาม",
    "ก่อนหน้านี้",
    "กินข้าว",
    "สวัสดีครับ",
    "๑๒๓ ฯลฯ ๆ ฿100",
    "ພາສາລາວ",
    "ສະບາຍດີ",
    "ភាសាខ្មែរ",
    "សួស្តី",
    "မြန်မာဘာသာ",
    "မင်္ဂလာပါ။",
    "ၑၒ",
]
ACCENTED = [
    "café",
    "cafe\u0301",
    "naïve",
    "résumé",
    "Ångström",
    "Straße",
    "STRASSE",
    "über",
    "façade",
    "señor",
    "niño",
    "İstanbul",
    "ıi",
    "Ǆemal",
    "ǅemal",
    "Tiếng Việt",
    "Nguyễn",
    "ﬁnancial ﬂow",
    "ＡＢＣ ｘｙｚ",
    "Ⅻ ⅻ",
    "①②",
    "x² ½ ¾",
    "Œuvre",
    "æsthetic",
    "Ελληνικά",
    "ΣΊΣΥΦΟΣ",
    "Русский язык",
    "Ёжик",
]
OTHER = [
    "العربية",
    "مرحبا بالعالم",
    "हिन्दी भाषा",
    "नमस्ते",
    "עברית",
    "🙂 emoji 👍🏽",
    "👨\u200d👩\u200d👧",
    "a\u200bb",
    "tab\there",
    "line\nbreak",
    "nbsp\u00a0word",
    "\u2028sep",
    "®™©",
    "∑∫√",
    "zero\u0000byte",
    "\ufeffbom",
    "\U00020000\U0002a6d6",
]


def _inflect(word: str, rng: random.Random) -> str:
    if not word.isalpha() or not word.isascii():
        return word
    return word + rng.choice(["s", "es", "ed", "ing", "ly", "ness", "ment", "ation", "er", ""])


def _random_ascii_word(rng: random.Random) -> str:
    letters = "abcdefghijklmnopqrstuvwxyzaeiouyesing"
    return "".join(rng.choice(letters) for _ in range(rng.randint(1, 12)))


def _sentence(rng: random.Random, pools: list[list[str]]) -> str:
    words: list[str] = []
    for _ in range(rng.randint(1, 14)):
        pool = rng.choice(pools)
        word = rng.choice(pool)
        roll = rng.random()
        if roll < 0.15:
            word = word.upper() if rng.random() < 0.5 else word.capitalize()
        elif roll < 0.3:
            word = _inflect(word, rng)
        if rng.random() < 0.2:
            word += rng.choice(PUNCTUATION)
        words.append(word)
    glue = rng.choice([" ", " ", " ", "", ", "])
    return glue.join(words)


def _mutate(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if roll < 0.15:
            continue
        if roll < 0.25:
            out.extend([word, word])
        elif roll < 0.4:
            out.append(_inflect(word, rng))
        elif roll < 0.5:
            out.append(word.swapcase())
        else:
            out.append(word)
    if rng.random() < 0.3:
        rng.shuffle(out)
    if rng.random() < 0.3:
        return unicodedata.normalize(rng.choice(["NFC", "NFD", "NFKD"]), " ".join(out))
    return " ".join(out)


FAMILIES: dict[str, list[list[str]]] = {
    "english": [ENGLISH],
    "stemming": [ENGLISH, [f"w{i}" for i in range(3)]],
    "cjk": [CJK_TEXTS, ENGLISH[:20]],
    "thai-lao-khmer-myanmar": [THAI_TEXTS],
    "accented-latin": [ACCENTED, ENGLISH[:30]],
    "mixed": [ENGLISH, CJK_TEXTS, THAI_TEXTS, ACCENTED, OTHER],
}


def _pairs(seed: int = 20260501, per_family: int = 70) -> Iterator[tuple[str, str, str]]:
    rng = random.Random(seed)
    for family, pools in FAMILIES.items():
        for _ in range(per_family):
            if family == "stemming":
                pools = [[_random_ascii_word(rng) for _ in range(20)]]
            reference = _sentence(rng, pools)
            roll = rng.random()
            if roll < 0.7:
                candidate = _mutate(reference, rng)
            elif roll < 0.9:
                candidate = _sentence(rng, pools)
            else:
                candidate = reference
            if family == "mixed" and rng.random() < 0.5:
                candidate = candidate.replace(" ", "")
            yield family, candidate, reference


PAIRS = list(_pairs())


def test_generated_pairs_cover_every_family() -> None:
    assert len(PAIRS) >= 400
    assert {family for family, _, _ in PAIRS} == set(FAMILIES)


def test_generated_pairs_match_reference(reference: tuple[Scorer, Tokenize]) -> None:
    score, tokenize = reference
    mismatches = []
    partial = 0
    for family, candidate, ref in PAIRS:
        ours = rouge1(candidate, ref)
        theirs = score(candidate, ref)
        if 0 < theirs[2] < 1:
            partial += 1
        if any(abs(a - b) > TOLERANCE for a, b in zip(ours, theirs, strict=True)):
            mismatches.append((family, candidate, ref, tuple(ours), theirs))
        assert adk_tokenize(candidate) == tokenize(candidate), (family, candidate)
    assert mismatches == []
    # The pairs exercise the interesting middle of the scale, not just 0 and 1.
    assert partial > len(PAIRS) // 2


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_arbitrary_unicode_matches_reference(candidate: str, reference_text: str) -> None:
    for name, found in REFERENCES.items():
        if found is None:
            continue
        score, tokenize = found
        assert adk_tokenize(candidate) == tokenize(candidate), name
        ours = rouge1(candidate, reference_text)
        theirs = score(candidate, reference_text)
        assert all(abs(a - b) <= TOLERANCE for a, b in zip(ours, theirs, strict=True)), name


@functools.cache
def _interesting_code_points() -> list[str]:
    return [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) not in ("Cn", "Co", "Cs")
        or code in CJK
        or code in UNSPACED
    ]


def test_every_code_point_tokenizes_like_reference(reference: tuple[Scorer, Tokenize]) -> None:
    # Each character after a space, a Latin letter and a Thai consonant, and
    # before a Latin letter, so every branch of the walk meets its neighbours.
    _, tokenize = reference
    chars = _interesting_code_points()
    chunk = 512
    for start in range(0, len(chars), chunk):
        text = "".join(f" {c}a{c}ก{c}" for c in chars[start : start + chunk])
        if adk_tokenize(text) != tokenize(text):
            # Name the first character that differs alone; a chunk can also differ when
            # every character alone agrees (a bug of length or of neighbours), so the chunk
            # itself must agree too.
            for c in chars[start : start + chunk]:
                one = f" {c}a{c}ก{c}"
                assert adk_tokenize(one) == tokenize(one), hex(ord(c))
            assert adk_tokenize(text) == tokenize(text), f"chunk from code point index {start}"
