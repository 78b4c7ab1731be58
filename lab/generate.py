"""A deterministic generator of large structured corpora for benchmarks and tests.

`generate_corpus` writes a policy-style markdown handbook (`## N Title` sections of
`### N.M Title` provisions, section 1 holding definitions, about one provision in four citing
another as `Section N.M`) and a QE dict of questions whose evidence strings are exact, unique
sentences of that text. Words come from a few thousand seeded pseudo-words drawn with a
Zipf-Mandelbrot law, mixed with a few hundred common English content words, so keyword
retrieval is realistic: frequent words recur, most words are rare.
"""

import random
import re
from dataclasses import dataclass, field
from itertools import accumulate

_NOUNS = """
access account activity agreement alarm approval area assessment asset audit badge batch
boundary budget building cabinet calendar camera campus card cargo catalogue ceiling certificate
channel charge checklist circuit claim clearance client code committee complaint component
condition contract contractor corridor council counter coverage credit cylinder damage deadline
delivery department deposit desk device dispatch document door draft driver duty element
emergency employee entrance equipment escort estimate event exhibit exit expense facility fee
file filter floor form freight fund gate guest guide hazard hearing holiday incident inspection
instrument insurance inventory invoice journal key ladder laptop lease ledger licence light
locker log lounge machine manager manual material meeting member meter method mirror module
network notice office officer operator order owner panel parcel parking partner pass patrol
payment permit person photograph plan platform policy portal power premises printer procedure
project property proposal quota radio rate reader receipt record refund region register
registry report request reserve resident review roof room rota route sample schedule screen
seal season sensor server service shift signal site sponsor staff storage student supervisor
supplier survey system tablet team telescope tenant terminal ticket tool tour trainee
transfer transport trial tribunal trustee unit user vault vehicle vendor venue visitor volunteer
voucher warden warehouse warning window workshop
"""
_VERBS = """
accept adjust approve archive assess assign attach audit authorise book calibrate cancel
certify check clean close collect confirm consult cover deliver deposit disclose dispatch
document escort extend file forward inspect install issue label lock log maintain monitor
notify open record register reject release renew repair replace report request reserve
restore retain review revoke schedule seal sign store submit supervise suspend test transfer
update verify withdraw
"""
_ADJECTIVES = """
active annual approved authorised automatic available central certified closed critical
current daily digital domestic electrical emergency external final formal general hazardous
heavy internal junior late local main manual mobile monthly national new occasional open
optional original outdoor partial permanent personal portable primary private public
regional regular remote restricted routine secondary senior shared special standard
technical temporary urgent valid weekly written
"""
_NOUN_WORDS = _NOUNS.split()
_VERB_WORDS = _VERBS.split()
_ADJ_WORDS = _ADJECTIVES.split()

_ONSETS = [*"bcdfghklmnprstvwz", "br", "cl", "dr", "fl", "gr", "kr", "pl", "pr", "sk", "st", "tr"]
_VOWELS = [*"aeiouaeio", "ai", "ou", "ea"]
_CODAS = ["", "", "", "n", "r", "l", "m", "th", "x", "k"]

# Sentence templates: {N} noun phrase, {A} adjective, {V} verb, {D} number,
# {T} defined term, {R} cited provision id.
_RULES = [
    "Each {N} shall {V} the {N} within {D} days of the {N}.",
    "Every {A} {N} must {V} the {N} before any {N} begins.",
    "Where the {N} is {A}, the {N} should {V} each {N}.",
    "Only the {N} may {V} the {N} during {A} {N} hours.",
    "Any {N} found near the {N} must be reported to the {N} within {D} hours.",
    "The {N} keeps a record of every {N} and {N} for {D} months.",
    "Requests to {V} the {N} go to the {A} {N} at least {D} days ahead.",
    "No {N} may {V} more than {D} {N} items in one {N}.",
    "The {A} {N} can {V} the {N} once the {N} has been checked.",
    "Before the {N} closes, the {N} must {V} all {A} {N} entries.",
    "Unless the {N} objects, the {N} may {V} up to {D} {N} requests.",
    "Members of the {N} should {V} the {N} after every {A} {N}.",
]
_CITING = [
    "Subject to Section {R}, each {N} must {V} the {N} that a {T} uses.",
    "Any {T} must {V} the {N} as defined in Section {R}.",
    "The {N} applies the limits in Section {R} to every {T} and {N}.",
    "Where a {T} (see Section {R}) is involved, the {N} shall {V} the {N}.",
    "Unless Section {R} provides otherwise, the {N} may {V} each {T} within {D} days.",
    "Every {T} is handled by the {N} under Section {R} before the {N} can {V} it.",
]
_DEFINITIONS = [
    "The term {T} means the {A} {N} that may {V} the {N}.",
    "The term {T} refers to any {N} assigned to the {A} {N}.",
    "The term {T} covers every {N} used to {V} the {N} of a {N}.",
    "The term {T} describes the {N} kept by the {N} for {D} months.",
]
_QUESTIONS = [
    "What applies when {x}?",
    "Which provision governs {x}?",
    "What does the handbook say about {x}?",
    "How is {x} handled?",
    "What is required for {x}?",
    "Who is responsible for {x}?",
]
_SLOT = re.compile(r"\{([A-Z])\}")
_WORD = re.compile(r"[a-z][a-z-]+")


@dataclass
class _Provision:
    pid: str
    title: str
    sentences: list[str] = field(default_factory=list)
    terms: dict[str, str] = field(default_factory=dict)  # defined term -> its sentence


def _parse_template(template: str) -> list[str]:
    """Split a template into alternating literals and one-letter slot names."""
    return _SLOT.split(template)


_RULE_T = [_parse_template(t) for t in _RULES]
_CITING_T = [_parse_template(t) for t in _CITING]
_DEFINITION_T = [_parse_template(t) for t in _DEFINITIONS]
_TEMPLATE_WORDS = {
    w.lower() for t in _RULES + _CITING + _DEFINITIONS + _QUESTIONS for w in _WORD.findall(t)
}


class _Words:
    """Buffered weighted draws from one vocabulary (one `rng.choices` call per batch)."""

    def __init__(self, rng: random.Random, words: list[str], weights: list[float]) -> None:
        self._rng = rng
        self._words = words
        self._cum = list(accumulate(weights))
        self._buf: list[str] = []

    def take(self) -> str:
        if not self._buf:
            self._buf = self._rng.choices(self._words, cum_weights=self._cum, k=4096)
        return self._buf.pop()


def _pseudo_words(rng: random.Random, n: int, banned: set[str]) -> list[str]:
    """`n` distinct pronounceable pseudo-words of two or three syllables."""
    words: dict[str, None] = {}
    while len(words) < n:
        syllables = rng.choice((2, 2, 3))
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        if len(word) >= 4 and word not in banned:
            words[word] = None
    return list(words)


def _zipf(n: int, q: float = 10.0, s: float = 1.05) -> list[float]:
    """Zipf-Mandelbrot weights `1 / (rank + q)^s` for ranks 0..n-1."""
    return [1.0 / (rank + q) ** s for rank in range(n)]


class _Writer:
    """Fills sentence templates from the vocabularies, never repeating a sentence."""

    def __init__(self, rng: random.Random, n_pseudo: int) -> None:
        self.rng = rng
        english = _NOUN_WORDS + _VERB_WORDS + _ADJ_WORDS
        pseudo = _pseudo_words(rng, n_pseudo, set(english) | _TEMPLATE_WORDS)
        self.pseudo = pseudo
        nouns = pseudo + _NOUN_WORDS
        self.nouns = _Words(
            rng, nouns, [0.6 * w for w in _zipf(len(pseudo))] + _zipf(len(_NOUN_WORDS), q=20)
        )
        adjectives = pseudo + _ADJ_WORDS
        self.adjectives = _Words(
            rng, adjectives, [0.3 * w for w in _zipf(len(pseudo))] + _zipf(len(_ADJ_WORDS), q=10)
        )
        self.verbs = _Words(rng, _VERB_WORDS, _zipf(len(_VERB_WORDS), q=5))
        self.content = set(pseudo) | set(english)
        self.seen: set[str] = set()

    def noun_phrase(self) -> str:
        r = self.rng.random()
        n = 1 if r < 0.5 else 2 if r < 0.9 else 3
        return " ".join(self.nouns.take() for _ in range(n))

    def fill(self, pieces: list[str], term: str = "", ref: str = "") -> str:
        out = []
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                out.append(piece)
            elif piece == "N":
                out.append(self.noun_phrase())
            elif piece == "A":
                out.append(self.adjectives.take())
            elif piece == "V":
                out.append(self.verbs.take())
            elif piece == "D":
                out.append(str(self.rng.randint(2, 90)))
            elif piece == "T":
                out.append(term)
            else:
                out.append(ref)
        return "".join(out)

    def sentence(self, templates: list[list[str]], term: str = "", ref: str = "") -> str:
        """A sentence never written before (so every sentence occurs once in the text)."""
        while True:
            text = self.fill(self.rng.choice(templates), term, ref)
            if text not in self.seen:
                self.seen.add(text)
                return text

    def title(self, lo: int, hi: int) -> str:
        words = [self.nouns.take() for _ in range(self.rng.randint(lo, hi))]
        return " ".join(w.capitalize() for w in words)


def _definitions(writer: _Writer, terms: list[str]) -> list[_Provision]:
    """Section 1: six provisions of 3-6 defined terms each, titled by their first term."""
    rng = writer.rng
    provisions = []
    pool = iter(terms)
    for m in range(1, 7):
        provision = _Provision(pid=f"1.{m}", title="")
        for _ in range(rng.randint(3, 6)):
            term = next(pool)
            sentence = writer.sentence(_DEFINITION_T, term=term)
            provision.sentences.append(sentence)
            provision.terms[term] = sentence
        provision.title = next(iter(provision.terms)).capitalize()
        provisions.append(provision)
    return provisions


def _body(writer: _Writer, provision: _Provision, earlier: list[_Provision], pairs: list) -> None:
    """Fill a provision with 2-8 sentences (about 250-700 characters), sometimes citing."""
    rng = writer.rng
    target = rng.randint(250, 700)
    citations = 0
    if rng.random() < 0.25:
        citations = 1 if rng.random() < 0.6 else 2
    citing_at = set(rng.sample(range(4), citations))
    length = 0
    while len(provision.sentences) < 8:
        if len(provision.sentences) in citing_at:
            # Definitions are the hubs: about 40% of citations go to section 1.
            cited = rng.choice(earlier[:6] if rng.random() < 0.4 else earlier)
            if cited.terms:
                term, evidence = rng.choice(list(cited.terms.items()))
            else:
                term, evidence = writer.nouns.take(), rng.choice(cited.sentences)
            sentence = writer.sentence(_CITING_T, term=term, ref=cited.pid)
            pairs.append((provision, sentence, evidence))
        else:
            sentence = writer.sentence(_RULE_T)
        if len(provision.sentences) >= 2 and length + len(sentence) + 1 > 700:
            break
        provision.sentences.append(sentence)
        length += len(sentence) + 1
        if length >= target and len(provision.sentences) >= max(2, max(citing_at, default=0) + 1):
            break
    # Drop citation pairs whose sentence did not make it into the body.
    while pairs and pairs[-1][0] is provision and pairs[-1][1] not in provision.sentences:
        pairs.pop()


def _render_provision(provision: _Provision) -> str:
    sentences = provision.sentences
    if len(sentences) >= 5:
        half = len(sentences) // 2
        body = " ".join(sentences[:half]) + "\n\n" + " ".join(sentences[half:])
    else:
        body = " ".join(sentences)
    return f"### {provision.pid} {provision.title}\n\n{body}\n\n"


def _content_words(writer: _Writer, sentence: str) -> list[str]:
    words = dict.fromkeys(w for w in _WORD.findall(sentence.lower()) if w in writer.content)
    return list(words)


def _question_text(writer: _Writer, evidence: list[str]) -> str:
    """Question framing around 2-4 content words, the first taken from the first evidence."""
    rng = writer.rng
    first = _content_words(writer, evidence[0])
    pool = list(dict.fromkeys(w for s in evidence for w in _content_words(writer, s)))
    k = min(rng.randint(2, 4), len(pool))
    chosen = [rng.choice(first)] if first else []
    rest = [w for w in pool if w not in chosen]
    chosen += rng.sample(rest, max(0, k - len(chosen)))
    if len(chosen) == 1:
        x = chosen[0]
    else:
        x = ", ".join(chosen[:-1]) + " and " + chosen[-1]
        if len(chosen) == 2 and rng.random() < 0.5:
            x = " ".join(chosen)
    return rng.choice(_QUESTIONS).format(x=x)


def _questions(
    writer: _Writer, provisions: list[_Provision], pairs: list, n_questions: int
) -> list[dict]:
    rng = writer.rng
    rules = [p for p in provisions if not p.pid.startswith("1.")]
    rng.shuffle(pairs)
    questions = []
    for i in range(n_questions):
        r = rng.random()
        if r < 0.15 or not pairs:
            evidence = [rng.choice(rng.choice(rules).sentences)]
        else:
            provision, rule, cited = pairs[i % len(pairs)]
            evidence = [rule, cited]
            if r >= 0.85:
                others = [s for s in provision.sentences if s != rule]
                evidence.append(rng.choice(others))
        questions.append(
            {
                "id": f"g{i + 1:04d}",
                "question": _question_text(writer, evidence),
                "evidence": evidence,
                "split": "train" if i % 2 == 0 else "test",
            }
        )
    return questions


def generate_corpus(
    target_chars: int = 1_000_000, n_questions: int = 1000, seed: int = 0
) -> tuple[str, dict]:
    """A generated handbook of about `target_chars` characters and its QE dict.

    Returns `(markdown, {"questions": [...]})`, deterministic for a given seed. The markdown has a
    `# Generated handbook` title, a definitions section 1, then `## N Title` sections of 2-6
    `### N.M Title` provisions. Every sentence is unique and every evidence string is an exact
    sentence of the text, so it occurs there exactly once. About 70% of the questions need two
    sentences from different provisions (a rule and the provision it cites), the rest one or three;
    ids run `g0001`, `g0002`, ... and splits alternate train, test. For targets of 20,000
    characters or more the size is within 10% of `target_chars`.
    """
    if target_chars <= 0 or n_questions < 0:
        raise ValueError("target_chars must be positive and n_questions non-negative")
    rng = random.Random(seed)
    writer = _Writer(rng, n_pseudo=3000)
    terms = rng.sample(writer.pseudo[300:1500], 36)
    provisions = _definitions(writer, terms)
    parts = ["# Generated handbook\n\n", "## 1 Definitions\n\n"]
    parts += [_render_provision(p) for p in provisions]
    size = sum(map(len, parts))
    pairs: list = []
    n = 1
    while size < target_chars - 250 or n < 2:
        n += 1
        heading = f"## {n} {writer.title(1, 3)}\n\n"
        parts.append(heading)
        size += len(heading)
        for m in range(1, rng.randint(2, 6) + 1):
            if m > 2 and size >= target_chars - 250:
                break
            provision = _Provision(pid=f"{n}.{m}", title=writer.title(2, 4))
            _body(writer, provision, provisions, pairs)
            provisions.append(provision)
            block = _render_provision(provision)
            parts.append(block)
            size += len(block)
    text = "".join(parts).rstrip("\n") + "\n"
    return text, {"questions": _questions(writer, provisions, pairs, n_questions)}
