"""Find corrections in what the person typed: rules of English first, then a small learned model
over words; no network.

Runs inside the UserPromptSubmit hook on every prompt, so it must be cheap and must rather
miss a correction than invent one: a false positive becomes a remembered "rule" nobody gave.
The design follows from that:

* The first stage counts only **clause-initial** forms. "Never use X" and "No, don't X" are
  corrections; "add a flag so it doesn't print colors" and "make sure the tests don't hit the
  network" hold the same words in a subordinate clause and are requests. A second stage
  (:mod:`.cues`) reads phrasings without such an opening, each by two cues at once ("the api
  listens on 8081 not 8080", "CI's red since your commit"). For a short prompt both pass over,
  a learned model (:mod:`.learned`) may still say it is a correction, without its parts.
* **Quoted material is masked** before matching: code fences, `inline code`, "double",
  'single' and “curly” quotes, and lines starting with ``>``. What the person quotes is not
  what the person says. Masked spans are restored in what is extracted, so
  "use `pnpm`, not `npm`" still yields pnpm and npm.
* **Questions are not corrections** ("should we never use X?"), except the rhetorical forms
  that are ("why did you X?", "didn't I tell you to X?", "can you stop X?").
* Praise, thanks and reassurance ("no problem", "no, that's great", "don't worry", "never
  mind") and temporary instructions ("don't push yet", "for now") are left alone.

Kinds and confidence (explicit high, implicit medium, inferred low):

* ``explicit`` 0.9: the person states the rule ("never use X", "use X, not Y", "that's
  wrong, ...", "No, do it this way"). An explicit statement stays explicit when it is
  introduced by a repetition phrase ("Like I said, never use npm"); ``repeated`` is then set.
* ``implicit`` 0.6: the person signals a repeated or unwanted behaviour ("I already told
  you...", "again, ...", "for the third time", "I didn't ask for that", "you keep doing X").
* ``implicit`` 0.3 (inferred): a rhetorical question from which a correction is inferred
  ("why did you delete the tests?").
"""

from __future__ import annotations

import re

from ..files import regex_cache
from . import cues
from .similar import correction_key

__all__ = [
    "Detection",
    "detect",
    "detect_by_rules",
    "EXPLICIT_CONFIDENCE",
    "IMPLICIT_CONFIDENCE",
    "INFERRED_CONFIDENCE",
]

EXPLICIT_CONFIDENCE = 0.9
IMPLICIT_CONFIDENCE = 0.6
INFERRED_CONFIDENCE = 0.3

_MAX_PART = 200  # characters kept of what_was_wrong / what_is_right
_MAX_MESSAGE = 4000  # longer prompts are pasted material, scanned only at the start


_DETECTION_FIELDS = (
    "kind",
    "what_was_wrong",
    "what_is_right",
    "confidence",
    "key",
    "statement",
    "signal",
    "sentence",
    "repeated",
    "scope_hint",
    "verb",
)


class Detection:
    """One detected correction. A plain class: ``dataclasses`` costs ~6 ms per hook process.

    kind: "explicit" | "implicit" | "inferred" (the learned model's, with no parts);
    what_was_wrong / what_is_right: "" when the person did not say (the caller fills the wrong
    part from context); key: normalised dedupe key
    (similar.correction_key); statement: one short sentence ("use pnpm, not npm"); signal:
    which form matched ("use-not", "never", "already-told", ...); sentence: where it came from,
    quotes restored; repeated: the person said it is a repetition; scope_hint: "project" when
    the person said "in this repo"/"here"; verb: "use" when the forbidden/required thing is a
    tool or name being used.
    """

    __slots__ = _DETECTION_FIELDS

    def __init__(
        self,
        *,
        kind: str,
        what_was_wrong: str,
        what_is_right: str,
        confidence: float,
        key: str,
        statement: str,
        signal: str,
        sentence: str,
        repeated: bool = False,
        scope_hint: str | None = None,
        verb: str = "",
    ):
        self.kind = kind
        self.what_was_wrong = what_was_wrong
        self.what_is_right = what_is_right
        self.confidence = confidence
        self.key = key
        self.statement = statement
        self.signal = signal
        self.sentence = sentence
        self.repeated = repeated
        self.scope_hint = scope_hint
        self.verb = verb

    @classmethod
    def inferred(cls, statement: str, sentence: str, *, confidence: float, signal: str) -> Detection:
        """A correction recognised as a whole, without its parts (the learned model's, or the
        session-end model's): it waits in review for the person to fill them in."""
        return cls(
            kind="inferred",
            what_was_wrong="",
            what_is_right="",
            confidence=confidence,
            key="",
            statement=statement,
            signal=signal,
            sentence=sentence,
        )

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in _DETECTION_FIELDS}

    def __eq__(self, other) -> bool:
        return isinstance(other, Detection) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return (
            f"Detection({self.kind}, wrong={self.what_was_wrong!r}, right={self.what_is_right!r}, "
            f"confidence={self.confidence}, signal={self.signal!r})"
        )


# --------------------------------------------------------------------------- patterns

_P: dict[str, re.Pattern[str]] = {}

_VERB_ALT = (
    r"use|run|call|prefer|pick|choose|go with|switch to|try|write|put|do|install|import|type|"
    r"launch|start|open|edit|read|keep|set|name|make it|return|add|commit|push|deploy|test"
)
#: Verbs that say how a team does a thing ("we indent with 4 spaces", "we format with black").
_HOUSE_VERBS = (
    r"indent|format|lint|tag|branch|rebase|squash|merge|build|bundle|package|compile|wrap|quote|log|store|ship|release"
)
_NEG_LEAD = (
    r"you\s+(?:should|must|need\s+to)\s+(?:never|not)|you\s+shouldn'?t|you\s+mustn'?t|"
    r"please\s+(?:never|don'?t|do\s+not)|never\s+ever|never|do\s+not\s+ever|don'?t\s+ever|do\s+not|"
    r"don'?t|dont|avoid|quit|no\s+more|we\s+(?:never|don'?t|do\s+not)|"
    r"i\s+don'?t\s+want\s+you\s+to|i\s+do\s+not\s+want\s+you\s+to|stop|"
    r"we(?:'re|\s+are)\s+not\s+using|we\s+no\s+longer\s+use|we\s+stopped\s+using"
)
_SOURCES = {
    # interjections that may open a sentence; "no" is remembered as a signal
    "interj": r"(?P<w>no+|nope|nah|negative|wrong|incorrect|ugh+|argh+|hey|ok(?:ay)?|so|well|and|but|also|please|pls|plz|"
    r"seriously|wait|hm+|oh|look|listen|dude|man|come on|geez|jeez|sigh|hmm+|omg|ffs|"
    r"whoa|woah|uh+|um+|erm|hold\s+on|hang\s+on|yikes|oof|as\s+a\s+rule|actually|absolutely|kindly|"
    r"as\s+(?:mentioned|discussed|agreed)(?:\s+(?:earlier|before|above|yesterday))?|"
    r"if\s+it'?s\s+not\s+too\s+much\s+trouble|if\s+you\s+don'?t\s+mind|one\s+(?:small|more|last)\s+thing|"
    r"(?:so\s+)?sorry\s+to\s+nitpick|thank\s+you\s+for\s+this|thanks\s+for\s+this|"
    r"(?:sorry\s*,?\s*)?i\s+think|(?:sorry\s*,?\s*)?i\s+believe|sorry\s+to\s+be\s+(?:picky|pedantic|a\s+pain)\s*,?\s*but|"
    r"like\s+(?:before|last\s+time)|as\s+usual|same\s+as\s+(?:before|last\s+time)|"
    r"for\s+(?:the\s+love\s+of\s+\w+|(?:god|heaven|pete|christ)'?s\s+sake|crying\s+out\s+loud))"
    r"(?:\s*[,.!:;—–-]+\s*|\s+(?=(?:don'?t|do not|never|not|stop|i|that'?s|it'?s|wrong|just|"
    r"please|use|always|instead|you|so|ok|okay|well|and|but|also|no|nope|hey|look|listen|seriously|"
    r"avoid|we)\b)|\s*$)",
    "use_not": rf"^(?P<verb>{_VERB_ALT}|it'?s|it\s+is|it\s+should\s+be|should\s+be|(?:that|this)\s+should\s+be|"
    r"(?:that|this|it)\s+(?:should|must)\s+go\s+(?:to|in|into|under|on)|"
    r"i\s+meant|i\s+said|i\s+asked\s+for|i\s+wanted|we\s+use|you\s+should\s+(?:have\s+)?(?:use|used)|"
    r"just\s+use|always\s+use)\s+(?P<right>.+?)\s*(?P<sep>,|;|—|–|-)?\s*(?:and\s+|but\s+)?"
    r"(?P<neg>not|instead\s+of|rather\s+than)\s+(?P<wrong>.+)$",
    "bare_not": r"^(?P<right>[^,;]+?)\s*(?:,|;|—|–)\s*not\s+(?P<wrong>.+)$",
    "instead_of": rf"^(?:instead\s+of|rather\s+than)\s+(?P<wrong>.+?)\s*,\s*(?:(?:you\s+should|please|just)\s+)?"
    rf"(?P<verb>{_VERB_ALT})?\s*(?P<right>.+)$",
    "prefer_over": r"^(?:always\s+)?prefer\s+(?P<right>.+?)\s+(?:over|to)\s+(?P<wrong>.+)$",
    "use_instead": rf"^(?:(?:just|please)\s+)?(?P<verb>{_VERB_ALT})\s+(?P<right>.+?)\s*,?\s+instead\b(?:\s+of\s+(?P<wrong>.+))?\W*$",
    "forget": r"^(?:don'?t|do\s+not|never)\s+forget\s+(?:to\s+|about\s+)?(?P<right>.+)$",
    "neg": rf"^(?P<lead>{_NEG_LEAD})\s+(?P<rest>.+)$",
    "always": r"^(?:you\s+(?:should|must)\s+always|always|we\s+always|make\s+sure\s+(?:you|to)\s+always|"
    r"from\s+now\s+on\s*,?|going\s+forward\s*,?|in\s+the\s+future\s*,?)\s+(?P<right>.+)$",
    "wrong": r"^(?:that'?s|that\s+is|this\s+is|it'?s|it\s+is|you'?re|you\s+are|you\s+got\s+(?:it|that))\s+"
    r"(?:(?:all|completely|totally|still|just|clearly|simply)\s+)?"
    r"(?P<what>wrong|incorrect|not\s+(?:right|correct|it|what\s+i\s+(?:asked|wanted|meant|said)(?:\s+for)?)|"
    r"the\s+wrong\s+\w+|the\s+(?:prod|production|live)\s+\w+)\b(?P<rest>.*)$",
    "you_wrong_thing": r"^you\s+(?:used|edited|ran|changed|deleted|picked|opened|modified|touched|called|installed)\s+"
    r"the\s+wrong\s+(?P<thing>.+)$",
    "wrong_thing": r"^wrong\s+(?:[\w.\-]+\s+){0,2}?(?P<thing>file|branch|dir|directory|folder|spot|location|namespace|"
    r"context|cluster|workspace|command|function|method|class|package|"
    r"repo|repository|project|version|path|tool|module|test|one|place|approach|port|host|url|"
    r"region|database|db|env|environment|key|name|value|table|column|endpoint|library|image|tag|"
    r"format|order|variable|account|bucket|server|service|config|package\s+manager)\b(?P<rest>.*)$",
    "should_have": r"^you\s+(?:should\s+have|should'?ve|were\s+supposed\s+to|was\s+supposed\s+to)\s+(?P<right>.+)$",
    "shouldnt_have": r"^you\s+(?:shouldn'?t\s+have|should\s+not\s+have|should\s+never\s+have)\s+(?P<wrong>.+)$",
    "i_meant": r"^i\s+(?:meant|wanted|asked\s+for|asked\s+you\s+to)\s+(?P<right>.+)$",
    "can_you_stop": r"^(?:can|could|would|will)\s+you\s+(?:please\s+|maybe\s+|just\s+)*(?:stop|quit|not|never)\s+"
    r"(?P<rest>.+?)\??$",
    "no_not": r"^not\s+(?P<wrong>.+?)(?:\s*(?:,|;|—|–)\s*(?:but\s+)?(?P<right>.+))?$",
    "not_a_verdict": r"^not\s+(?:true|correct|right(?!\s+(?:now|away|here|there))|accurate|the\s+case|what\s+i\s+(?:asked|meant|said|wanted))\b",
    # implicit
    "told": r"^(?:i(?:'ve|\s+have)?\s+(?:already\s+|just\s+|literally\s+|specifically\s+|clearly\s+)?(?:told|asked)\s+you|"
    r"didn'?t\s+i\s+(?:just\s+)?(?:tell|ask)\s+you|did\s+i\s+not\s+(?:tell|ask)\s+you|"
    r"how\s+many\s+times\s+(?:do|must|should|will|have)\s+i\s+(?:have\s+to\s+|got\s+to\s+)?(?:tell|ask|remind)\s+you|"
    r"how\s+many\s+times\s+(?:do|must|should|will|have)\s+i\s+(?:have\s+to\s+|got\s+to\s+)?(?:say|repeat)(?:\s+(?:it|this|that))?|"
    r"how\s+many\s+times\s+(?:do|must|should|will|have)\s+(?:i|we)\s+(?:need\s+to\s+|have\s+to\s+)?"
    r"(?:go\s+over|discuss|talk\s+about)\s+(?:this|that|it)|"
    r"we(?:'ve|\s+have)\s+(?:been\s+over|discussed|talked\s+about|gone\s+over)\s+(?:this|that|it)|"
    r"(?:this\s+is\s+|that'?s\s+)?the\s+(?:second|third|fourth|fifth|tenth|nth|umpteenth|hundredth|\d+(?:st|nd|rd|th))\s+"
    r"time\s+(?:i'?m\s+|i\s+am\s+|i'?ve\s+|i\s+have\s+)?(?:telling|saying|asking|told|said|asked)(?:\s+you)?|"
    r"i(?:'ve|\s+have)?\s+(?:already\s+)?(?:said|mentioned|explained)\s+(?:this|that|it)|"
    r"i\s+keep\s+(?:telling|asking|reminding)\s+you)\b(?P<tail>.*)$",
    "again": r"^(?:once\s+again|again|one\s+more\s+time|yet\s+again)\b\s*[,:!.—–-]+\s*(?P<rest>.+)$",
    "like_said": r"^(?:like|as)\s+i(?:'ve|\s+have)?\s+(?:already\s+)?(?:said|mentioned|told\s+you|explained|asked|wrote|"
    r"said\s+before)(?:\s+(?:before|already|earlier|previously|twice|many\s+times|\w+\s+times))?\b"
    r"\s*[,:!.—–-]*\s*(?P<rest>.*)$",
    "nth_time": r"^for\s+the\s+(?:second|third|fourth|fifth|sixth|tenth|nth|umpteenth|hundredth|millionth|last|"
    r"\d+(?:st|nd|rd|th))\s+time\b\s*[,:!.—–-]*\s*(?P<rest>.*)$",
    "why": r"^why\s+(?P<aux>did|would|are|were|have|do|didn'?t|don'?t|is\s+it\s+that)\s+you\s+"
    r"(?P<keep>keep\s+(?:on\s+)?)?(?P<what>.+?)\s*\??$",
    "didnt_ask": r"^(?:i\s+(?:didn'?t|did\s+not|never)\s+ask(?:ed)?(?:\s+you)?(?:\s+(?:for|to))?|"
    r"did\s+(?:anyone|anybody|i)\s+ask(?:\s+you)?\s+(?:for|to)|"
    r"nobody\s+asked(?:\s+you)?(?:\s+(?:for|to))?|no\s*one\s+asked(?:\s+you)?(?:\s+(?:for|to))?)\b"
    r"\s*(?P<wrong>.*)$",
    "keep": r"^you(?:'re|\s+are)?\s+(?:keep|still|again|constantly)\s+(?:on\s+)?(?P<wrong>\w+ing\b.*)$",
    "you_always": r"^you\s+always\s+(?P<wrong>.+)$",
    "you_never": r"^you\s+never\s+(?P<right>.+)$",
    "did_it_again": r"^(?:you(?:'ve|\s+have)?\s+(?:did|done)\s+(?:it|that|this)\s+again|you(?:'re|\s+are)\s+doing\s+"
    r"(?:it|that|this)\s+again|there\s+you\s+go\s+again|not\s+again|same\s+mistake(?:\s+again)?)\b(?P<rest>.*)$",
    "forgot": r"^you\s+(?:forgot\s+to|forgot|failed\s+to|missed|neglected\s+to|skipped)\s+(?P<right>.+)$",
    # "no sudo", "no pip, use uv", "No wildcard imports": a thing banned by naming it after "no"
    "no_thing": r"^no\s+(?!(?:problem|problems|worries|worry|thanks|thank|need|biggie|doubt|way|kidding|issues?|rush|"
    r"pressure|probs?|sweat|idea|change|changes|luck|clue|complaints?|objections?|concerns?|notes?|comments?|difference|one|"
    r"longer|matter|big\s+deal|offense|harm|hurry|reason|chance|news|response|errors?|output|"
    r"tests?\s+(?:are|were|fail)|it|that|this|i|we|you|sir|ma'?am)\b)"
    r"(?P<wrong>(?:more\s+)?[\w.`'/@+\-\ue000\ue001]+(?:\s+[\w.`'/@+\-\ue000\ue001]+){0,4}?)"
    r"(?:\s+(?:please|pls|plz|again|anymore|here|ever))*"
    r"(?:\s*(?:,|;|—|–|\s-)\s*(?:just\s+|instead\s*,?\s*|but\s+)?(?:(?P<verb>use|make\s+it|run|write|call|put|keep)\s+)?"
    r"(?P<right>.+?))?\W*$",
    # a finite verb makes "no X ..." a statement ("no tests are failing")
    "finite": r"\b(?:is|are|was|were|has|have|had|fails?|failed|failing|works?|worked|returns?|returned|runs?|ran|"
    r"does|did|do|can|will|seems?|looks?|shows?|showed|happens?|happened|got|get|gets|left|found)\b",
    # a short answer after "no": "nope, pnpm", "no. 8080"
    "short_answer": r"^(?!(?:same|still|just|it|that|this|these|those|nothing|none|all|yet|now|later|maybe|thanks|"
    r"thank|sorry|idea|go|not|never|i|we|you|he|she|they|my|our|problem|worries|way|rush|"
    r"luck|change|clue|one|good|great|fine|ok|okay|sure|yes|yeah|yep|right|correct|exactly|perfect|"
    r"because|but|and|or|so|then|also|too|again|wait|hmm+|haha|lol)\b)"
    r"[\w.`'/@+:\-\ue000\ue001]+(?:\s+[\w.`'/@+:\-\ue000\ue001]+){0,2}\W*$",
    # "pythonw again.", "AGAIN with the npm??"
    "thing_again": r"^(?:(?P<wrong>[\w.`'/@+\-\ue000\ue001]+(?:\s+[\w.`'/@+\-\ue000\ue001]+){0,2})\s+again|"
    r"again\s+with\s+(?:the\s+)?(?P<wrong2>.+?))\W*$",
    # "too many comments", "less chatty please", "shorter answers please"
    "style_amount": r"^(?P<what>(?:way\s+)?(?:too|less|fewer|shorter|simpler|smaller|more\s+concise|much\s+shorter)"
    r"(?:\s+[\w'-]+){0,4}?)(?:\s+(?:please|pls|plz|again|now))*(?:\W*$|\s*(?:,|;|—|–)\s*(?=\w).{0,120}$)",
    # "X does Y, don't use it": the object comes back as a pronoun after a comma
    "pronoun_ban": r"^(?P<subj>[\w.`'/@+\-\ue000\ue001]+)\b.*?,\s*(?:so\s+)?(?:don'?t|never|do\s+not|stop)\s+"
    r"(?:use|using|run|running|call|calling|touch|touching)\s+(?:it|that|this|them)\W*$",
    # "you broke the build"
    "you_broke": r"^(?:you(?:'ve|\s+have)?|(?:that|this|your)(?:\s+(?:last\s+)?(?:change|edit|fix|refactor))?"
    r"(?:\s+has)?)\s+(?:broke|broken|messed\s+up|screwed\s+up|ruined|overwrote|clobbered)\s+"
    r"(?P<wrong>.+?)\W*$",
    # "undo that", "revert that change", "put it back"
    "revert": r"^(?:please\s+)?(?:undo|revert|roll\s+back)\s+(?:that|this|it|those|these|your|"
    r"what\s+you(?:\s+just)?\s+(?:did|changed|wrote|added|removed)|the\s+(?:last|previous)\s+(?:change|edit)|"
    r"(?:the|those|these)\s+changes?\s+you)\b(?P<rest>.*)$|"
    r"^(?:please\s+)?(?:put|change|set|roll)\s+(?:it|that|them|this|the\s+(?:old|original|previous)\s+[\w.`'/-]+"
    r"(?:\s+[\w.`'/-]+)?)\s+back\b(?P<rest2>.*)$",
    # "you weren't supposed to touch the frontend"
    "not_supposed": r"^you\s+(?:weren'?t|were\s+not|wasn'?t|was\s+not)\s+supposed\s+to\s+(?P<wrong>.+)$",
    # one cheap scan before anything else: a correction holds at least one of these words
    "prefilter": r"\b(?:no+|nope|nah|never|don'?t|dont|do\s+not|stop|quit|avoid|always|instead|rather|"
    r"wrong|incorrect|told|tell|again|said|time|why|ask|asked|keep|still|forgot|failed|missed|"
    r"meant|should|should'?ve|shouldn'?t|supposed|prefer|not|from\s+now\s+on|going\s+forward|"
    r"future|mentioned|explained|skipped|neglected|constantly|use|using|it'?s|that'?s|"
    r"too|less|fewer|shorter|simpler|broke|undo|revert|back|supposed|stop|alone|once|been\s+over|"
    r"gone|deprecated|obsolete|legacy|"
    # the second stage (cues.py)
    r"your|you'?ve|you'?re|you\s+(?:want|just|also|now|have|edited|patched|changed|modified|got|bumped|used|"
    r"put|added|wrote|created|installed|upgraded|reformatted|touched|deleted|removed|renamed|moved|pointed|"
    r"hardcoded|committed|pushed|imported|set|reverted|updated|replaced)|whatever|table|no[\s-]?go|forbidden|"
    r"banned|prohibited|unacceptable|limits|out\s+of|away|off|weren'?t|wasn'?t|isn'?t|yours|needed|required|"
    r"part|outdated|ancient|dead|retired|old|longer|migrated|switched|went|wanted|scrap|restore|reset|rid|"
    r"throw|only|stick|beyond|scope|outside|over\s+(?:this|that|it)|swap|switch|replace|lose|ditch|broken|"
    r"fails?|failing|crash\w*|blank|red|bad|worse|wiped|500|negative|rule|refrain|liked|takes|expects|accepts|"
    r"returns|anymore|tone|whenever|let'?s|circumstances|same|roll|belongs|convention|else|correct|kindly|"
    r"remember|forward|here\s+on|creep|reverse|moved|removed|read-only|unnecessary|overkill|been|that'?ll|"
    r"what\s+could|spins?|stuck|forever|disabled|spare|acceptable|throughout|times|standing|pattern|pls|plz)\b",
    "we_verbs": r"(?:use|run|call|commit|push|write|deploy|merge|allow|put|store|hardcode|hard-code|add|install|"
    r"import|touch|edit|modify|check\s+in|ship|mock|rely|depend|keep|log|print|expose|release|"
    r"need\s+(?!to\b)|want\s+(?!to\b))\b",
    "pronoun_start": r"(?:i|i'm|i've|i'd|we|he|she|they|it|you|my|our)\b",
    "not_a_verb": r"(?:here|there|up|down|good|great|happy|glad|nice|fun|welcome|ready|a|an|the|so|such|my|your|"
    r"our|his|her|their|in|on|at|with|for|been|was|were|had|love|loved|liked|wanted|enjoy|enjoyed|"
    r"i|i'll|i'm|we|we'll|you|you're|it|it's|there's|that|this|nice|cool|awesome|\w+ing|\w+ed)\b",
    # filters
    "praise_after_no": r"^(?:problem|worries|worry|thanks|thank\s+you|need|biggie|doubt|way|kidding|issue|issues|"
    r"rush|pressure|prob|probs|sweat|go\s+ahead|go\s+on|carry\s+on|proceed|continue|keep\s+going)\b|^(?:that'?s|it'?s|this\s+is|that\s+is|it\s+is|all|looks|"
    r"everything'?s?)\s+(?:\w+\s+)?(?:fine|great|perfect|good|ok|okay|awesome|right|correct|"
    r"excellent|amazing|nice|well|exactly|alright|cool)\b|^(?:not\s+(?:yet|now|really|quite|"
    r"sure|today|exactly|at\s+all|necessarily|bad))\b|^i\s+(?:don'?t|do\s+not)\s+think\b",
    "neg_exclude": r"^(?:worry|worries|mind|know|think|understand|apologi[sz]e|be\s+sorry|hesitate|care|"
    r"tell\s+(?:anyone|anybody|him|her|them|my\s+\w+)|"
    r"(?:locally|remotely|here|there|again|once|twice|anywhere|before|since)(?=\W*$)|"
    r"get\s+me\s+wrong|thank|panic|rush|stress|feel|stop\b|forget|believe|remember|recall|see|"
    r"seen|been|had|heard|thought|felt|known|gone|got|gotten|was|were|is|are|have|has|mean|"
    r"matter|bother|give\s+up|quit\b(?=\s*(?:[.!,]|$|on\b|now\b))|say\s+never|lose\s+(?:hope|heart|faith|sight)|"
    r"miss\s+(?:a\s+beat|out)|sweat|settle|take\s+it\s+personally|hold\s+back|look\s+back|"
    r"be\s+(?:afraid|scared|shy|discouraged|sad|hard|so|too|nervous|a\s+stranger|silly|ridiculous)|"
    r"get\s+(?:discouraged|down|upset|mad|me\s+wrong)|"
    r"let\s+(?:anything|anyone|nobody|nothing|it|that|this|them|people|him|her|me|yourself)|"
    r"let\s+.{0,60}?\b(?:bring|get|keep|hold|stop)\s+you)\b",
    "temporary": r"\b(?:yet|for\s+now|right\s+now|until|myself|i'?ll\s+(?:do|handle|take\s+care\s+of)\s+it|at\s+the\s+moment|for\s+the\s+moment|today|this\s+time|"
    r"for\s+this\s+one)\b",
    "scope": r"\s+(?:(?:in|for|on|within)\s+(?:this|the|our|my)\s+(?:project|repo|repository|codebase|code\s*base|"
    r"folder|directory|app|package|workspace|monorepo)|here|around\s+here)$",
    "explain": r"\s*(?:,|;|—|–|\s-\s|\s--\s)\s*(?:because|since|as|it|it'?s|this|that'?s|that|which|otherwise|so|"
    r"they|we|you|i|cause|cuz|'cause)\b.*$|\s+(?:because|since|otherwise|as\s+it|cause|cuz)\b.*$",
    "this_way": r"^(?:do\s+it|do\s+this|do\s+that|like)\s+(?:this|that)(?:\s+way)?\s*[:,—–-]\s*(?P<how>.+)$",
    "trail": r"(?:\s*[,;:]?\s+(?:again|anymore|any\s+more|ever|ever\s+again|please|okay|ok|thanks|thank\s+you|"
    r"for\s+god'?s\s+sake|seriously|already|man|dude|guys|period)|\s*[.!?,;:…]+)$",
    "imperative": rf"^(?:{_VERB_ALT}|do|don'?t|never|always|change|remove|delete|revert|undo|rename|move|fix|restore|"
    r"put|leave|go|switch|replace|drop|get\s+rid\s+of|rewrite|redo|swap|check|look|keep|stick|"
    r"instead|just|only|it\s+should|it'?s|it\s+is|that\s+should|you\s+should|you\s+need|we\s+use|"
    r"we\s+don'?t|the\s+other|i\s+meant|i\s+said|i\s+asked|i\s+wanted)\b",
    "question_word": r"^(?:should|shall|would|could|can|do|does|did|is|are|was|were|will|what|how|which|when|where|who|"
    r"whom|whose|has|have|may|might)\b",
    "strip_use_verb": r"^(?:use|using|used|utilize|utilise|utilizing|utilising|rely\s+on|relying\s+on)\s+(?P<obj>.+)$",
    "gerund": r"^(?P<w>[a-z]+ing)\b(?P<rest>.*)$",
    # ", my password is ...", "; it breaks the console": a new clause is not part of the object.
    "new_clause": r"\s*(?:[,;:]|\s[-–—]+)\s*(?=(?:my|our|your|i|i'm|we|we're|it|it's|this|that|there|also|btw|"
    r"by\s+the\s+way|please|thanks|thank\s+you|because|since)\b)",
    "split": r"(?<=[.!?;])\s+|\n+",
    "to_or_not": r"^(?:\s*(?:already|before|earlier|twice|before|many\s+times|so\s+many\s+times|a\s+million\s+times|"
    r"a\s+hundred\s+times|\d+\s+times|\w+\s+times|this|that|it)\b)*\s*(?:(?P<neg>not\s+to|never\s+to)\s+"
    r"(?P<wrong>.+)|to\s+(?P<right>.+)|that\s+(?P<that>.+)|\s*[,:.!—–-]+\s*(?P<rest>.+))?$",
}


def _re(name: str) -> re.Pattern[str]:
    p = _P.get(name)
    if p is None:
        flags = re.IGNORECASE | (re.MULTILINE if name == "split" else 0)
        p = regex_cache.compile(_SOURCES[name], flags)
        _P[name] = p
    return p


# --------------------------------------------------------------------------- masking

_MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001"


class _Masked:
    """Text with quoted spans replaced by placeholders that read as one opaque word."""

    def __init__(self, text: str):
        self.spans: list[str] = []
        t = text.replace("’", "'").replace("‘", "'")
        t = regex_cache.sub(r"(?ms)^(```|~~~).*?(?:^\1[^\n]*$|\Z)", self._hide_block, t)
        t = regex_cache.sub(r"(?m)^[ \t]*>.*$", "", t)  # quoted reply lines
        t = regex_cache.sub(r"`([^`\n]+)`", self._hide, t)
        t = regex_cache.sub(r'"([^"\n]{1,300})"', self._hide, t)
        t = regex_cache.sub(r"“([^”\n]{1,300})”", self._hide, t)
        t = regex_cache.sub(r"(?<![A-Za-z0-9])'([^'\n]{1,300}?)'(?![A-Za-z0-9])", self._hide, t)
        self.text = t

    def _hide(self, m: re.Match[str]) -> str:
        self.spans.append(m.group(1).strip())
        return f"{_MARK_OPEN}{len(self.spans) - 1}{_MARK_CLOSE}"

    def _hide_block(self, m: re.Match[str]) -> str:
        body = m.group(0).strip("`~\n ")
        body = body.split("\n", 1)[1] if "\n" in body and regex_cache.match(r"^\w*$", body.split("\n", 1)[0]) else body
        self.spans.append(body.strip())
        return f" {_MARK_OPEN}{len(self.spans) - 1}{_MARK_CLOSE} "

    def restore(self, s: str) -> str:
        return regex_cache.sub(f"{_MARK_OPEN}(\\d+){_MARK_CLOSE}", lambda m: self.spans[int(m.group(1))], s)

    @staticmethod
    def only_quote(s: str) -> bool:
        return regex_cache.fullmatch(f"\\s*(?:{_MARK_OPEN}\\d+{_MARK_CLOSE}\\s*)+[.!?]*\\s*", s) is not None


# --------------------------------------------------------------------------- helpers

_E_VERBS = {
    "us": "use",
    "writ": "write",
    "mak": "make",
    "creat": "create",
    "delet": "delete",
    "chang": "change",
    "remov": "remove",
    "mov": "move",
    "cod": "code",
    "typ": "type",
    "sav": "save",
    "clos": "close",
    "compil": "compile",
    "renam": "rename",
    "configur": "configure",
    "invok": "invoke",
    "includ": "include",
    "pars": "parse",
    "merg": "merge",
    "forc": "force",
    "pip": "pipe",
    "leav": "leave",
    "giv": "give",
    "hav": "have",
    "tak": "take",
    "hardcod": "hardcode",
    "generat": "generate",
    "updat": "update",
    "ignor": "ignore",
    "replac": "replace",
    "overwrit": "overwrite",
    "rebas": "rebase",
    "releas": "release",
    "skipp": "skip",
    "stag": "stage",
    "squash": "squash",
    "hid": "hide",
    "guess": "guess",
    "assum": "assume",
    "introduc": "introduce",
    "produc": "produce",
    "reduc": "reduce",
    "serv": "serve",
    "archiv": "archive",
    "bypass": "bypass",
    "disabl": "disable",
    "enabl": "enable",
    "wip": "wipe",
    "doubl": "double",
    "wrapp": "wrap",
    "truncat": "truncate",
    "duplicat": "duplicate",
    "mock": "mock",
    "paus": "pause",
    "clon": "clone",
    "prun": "prune",
    "dat": "date",
}


def _base_verb(gerund: str) -> str:
    stem = gerund[:-3]
    low = stem.lower()
    if low in _E_VERBS:
        return _E_VERBS[low]
    if len(low) > 2 and low[-1] == low[-2] and low[-1] not in "dflsz":
        return stem[:-1]  # running -> run, committing -> commit (but adding -> add)
    return stem


def _clean(part: str, masked: _Masked) -> tuple[str, str | None]:
    """Trim fillers and scope phrases, restore quotes; returns (text, scope_hint)."""
    s = _re("explain").sub("", part.strip()).strip()
    m = _re("this_way").match(s)
    if m:
        s = m.group("how")
    scope_hint = None
    for _ in range(4):
        before = s
        s = _re("trail").sub("", s).strip()
        m = _re("scope").search(s)
        if m:
            scope_hint = "project"
            s = s[: m.start()].strip()
        if s == before:
            break
    m = _re("new_clause").search(s)
    if m and m.start() > 0:
        s = s[: m.start()]
    return _clip(masked.restore(s).strip().strip("\"'`“”").strip()), scope_hint


def _clip(s: str) -> str:
    """At most ``_MAX_PART`` characters of a stored part, marked when cut."""
    return s if len(s) <= _MAX_PART else s[:_MAX_PART].rstrip() + "…"


def _strip_use(obj: str) -> tuple[str, str]:
    """'using pythonw.exe' -> ('pythonw.exe', 'use'); 'pushing to main' -> ('push to main', '')."""
    m = _re("strip_use_verb").match(obj)
    if m:
        return m.group("obj"), "use"
    g = _re("gerund").match(obj)
    if g and g.group("w").lower() not in (
        "nothing",
        "something",
        "anything",
        "everything",
        "thing",
        "string",
        "king",
        "ring",
        "spring",
    ):
        return _base_verb(g.group("w")) + g.group("rest"), ""
    return obj, ""


def _wordcount(s: str) -> int:
    return len(s.split())


_FILLER_WORDS = {
    "just",
    "really",
    "so",
    "very",
    "probably",
    "definitely",
    "actually",
    "simply",
    "basically",
    "still",
    "been",
    "a",
    "the",
    "that",
    "this",
    "it",
}
_PAST_TENSE = {
    "saw",
    "was",
    "were",
    "did",
    "had",
    "got",
    "went",
    "came",
    "knew",
    "thought",
    "felt",
    "heard",
    "said",
    "told",
    "made",
    "took",
    "found",
    "gave",
    "left",
    "ran",
    "wrote",
    "met",
    "became",
    "began",
    "kept",
    "seemed",
    "expected",
    "imagined",
    "dreamed",
    "dreamt",
    "realized",
    "realised",
    "stopped",
}
_AUX_END = regex_cache.compile(
    r"\b(?:do|does|did|is|are|was|were|can|could|should|would|will|must|have|has|had|may|might)$", re.I
)


# --------------------------------------------------------------------------- per-sentence matching


class _Hit:
    __slots__ = ("kind", "confidence", "signal", "wrong", "right", "verb", "repeated", "scope_hint", "sentence")

    def __init__(
        self,
        kind: str,
        confidence: float,
        signal: str,
        wrong: str = "",
        right: str = "",
        verb: str = "",
        repeated: bool = False,
        scope_hint: str | None = None,
        sentence: str = "",
    ):
        self.kind, self.confidence, self.signal = kind, confidence, signal
        self.wrong, self.right, self.verb = wrong, right, verb
        self.repeated, self.scope_hint, self.sentence = repeated, scope_hint, sentence

    @property
    def has_content(self) -> bool:
        return bool(self.wrong or self.right)


class _Clause:
    """What every explicit form reads: the clause, the masked spans of its message, and whether
    it follows a bare "no"; :meth:`hit` builds the answer with the spans put back."""

    __slots__ = ("body", "masked", "after_no")

    def __init__(self, body: str, masked: _Masked, after_no: bool):
        self.body, self.masked, self.after_no = body, masked, after_no

    def hit(self, signal: str, wrong: str = "", right: str = "", verb: str = "") -> _Hit:
        w, s1 = _clean(wrong, self.masked) if wrong else ("", None)
        r, s2 = _clean(right, self.masked) if right else ("", None)
        return _Hit("explicit", EXPLICIT_CONFIDENCE, signal, w, r, verb, scope_hint=s1 or s2)


# An explicit form's builder returns _NEXT to let the next form try; anything else is the
# answer, None included (the clause was recognised as not a correction).
_NEXT = object()


def _inline(pattern: str):
    return lambda body: regex_cache.match(pattern, body, re.I)


def _use_not(m, c):
    if not (
        _wordcount(m.group("right")) <= 8
        and _wordcount(m.group("wrong")) <= 10
        and not _AUX_END.search(m.group("right"))
        and not (
            m.group("wrong").lower().startswith(("only", "just", "yet", "now"))
            and not (m.group("sep") and regex_cache.match(r"(?:only|just)\s+(?:the|a|one)\b", m.group("wrong"), re.I))
        )
        and (
            m.group("sep")
            or m.group("neg").lower() != "not"
            or "use" in m.group("verb").lower()
            or m.group("verb").lower() in ("run", "call", "install", "import", "launch", "prefer")
        )
        and m.group("right").lower() not in _FILLER_WORDS
    ):
        return _NEXT
    verb = m.group("verb").lower()
    verb = "use" if "use" in verb else ("" if verb.startswith(("it", "should", "that", "this", "i ", "we")) else verb)
    return c.hit("use-not", wrong=m.group("wrong"), right=m.group("right"), verb=verb)


def _instead_of(m, c):
    if not (
        m.group("verb") or (_wordcount(m.group("right")) <= 3 and not _re("pronoun_start").match(m.group("right")))
    ):
        return _NEXT
    verb = (m.group("verb") or "").lower()
    return c.hit("instead-of", wrong=m.group("wrong"), right=m.group("right"), verb="use" if verb == "use" else verb)


def _use_instead(m, c):
    verb = m.group("verb").lower()
    return c.hit(
        "use-instead", wrong=m.group("wrong") or "", right=m.group("right"), verb="use" if verb == "use" else verb
    )


def _negation(m, c):
    lead, rest = m.group("lead").lower(), m.group("rest")
    if _re("neg_exclude").match(rest) or _re("temporary").search(rest):
        return None
    if lead.startswith("no") and regex_cache.search(
        r"\b(?:thanks|thank\s+you|nice|great|finally|yay|awesome)\b", rest, re.I
    ):
        return None  # "no more warnings, thanks!": relief, not a ban
    first = rest.split()[0].lower().strip(",.;:!?") if rest.split() else ""
    if lead.startswith("we") and "us" not in lead and not _re("we_verbs").match(rest):
        return None  # "we don't go often": a habit, not a convention
    if first in _PAST_TENSE:
        return None  # "never saw this coming"
    if regex_cache.match(r"^\w+\s+(?:anything|nothing|everything)(?:\s+else)?\W*$", rest, re.I):
        return None  # "perfect, don't change anything else": no thing named to ban
    if lead == "stop" or lead == "quit":
        if first == "with":  # "stop with the print() calls"
            rest = regex_cache.sub(r"^with\s+(?:the\s+|all\s+the\s+|these\s+|those\s+)?", "", rest, flags=re.I)
        elif not (first.endswith("ing") or first in ("it", "that", "this", "doing")):
            return None  # "stop the server" is an instruction, not a correction
    elif first.endswith("ed") and first not in (
        "need",
        "feed",
        "seed",
        "embed",
        "shed",
        "speed",
        "proceed",
        "exceed",
    ):
        return None  # "never used it before": a statement
    # "don't use npm, use pnpm (instead)" / "never X - Y instead"
    alt = regex_cache.match(
        rf"^(?P<wrong>.+?)\s*(?:,|;|—|–|\s-)\s*(?:but\s+|instead\s*,?\s*|just\s+|rather\s*,?\s*)?"
        rf"(?P<verb>{_VERB_ALT})\s+(?P<right>.+?)(?:\s+instead)?\W*$",
        rest,
        re.I,
    )
    if not alt:
        # "stop using tabs, we indent with 4 spaces": the house's way, said with "we"
        alt = regex_cache.match(
            rf"^(?P<wrong>.+?)\s*(?:,|;|—|–|\s-)\s*(?:but\s+|here\s+|instead\s*,?\s*)?"
            rf"(?:we|we're|we\s+are|our\s+convention\s+is\s+to)\s+(?:always\s+|now\s+|just\s+|only\s+)?"
            rf"(?P<verb>{_VERB_ALT}|{_HOUSE_VERBS})\s+(?P<right>.+?)(?:\s+instead)?\W*$",
            rest,
            re.I,
        )
    right = ""
    if alt and not _re("temporary").search(alt.group("right")):
        rest, right = alt.group("wrong"), alt.group("right")
        alt_verb = alt.group("verb").lower()
        if "use" not in alt_verb:  # "..., open a pull request": the verb is part of what is right
            right = f"{alt.group('verb')} {right}"
    wrong, verb = _strip_use(rest)
    if right and starts_with_action(right):
        verb = ""  # "indent with 4 spaces, not tabs": what is right carries its own verb
    signal = (
        "never"
        if "never" in lead
        else ("stop" if lead in ("stop", "quit") else ("avoid" if lead == "avoid" else "dont"))
    )
    return c.hit(signal, wrong=wrong, right=right, verb=verb)


def _always(m, c):
    if (
        _re("temporary").search(m.group("right"))
        or _re("not_a_verb").match(m.group("right"))
        or (
            c.body.lower().startswith("we ")
            and (
                not _re("we_verbs").match(m.group("right"))
                or regex_cache.search(
                    r"\bon\s+\w+days?\b|\bevery\s+\w+|\bat\s+(?:night|midnight|noon|\d)", m.group("right"), re.I
                )
            )
        )
    ):
        return _NEXT
    right, verb = _strip_use(m.group("right"))
    return c.hit("always", right=right, verb=verb)


def _thats_wrong(m, c):
    rest = regex_cache.sub(r"^\s*(?:[,:;.!—–-]+|\s+)\s*", "", m.group("rest"))
    inner = _explicit(rest, c.masked, after_no=True, question=False) if rest else None
    if inner is not None:
        inner.signal = "thats-wrong+" + inner.signal
        return inner
    right, verb = _strip_use(rest) if rest and not _re("praise_after_no").match(rest) else ("", "")
    return c.hit("thats-wrong", right=right, verb=verb)


def _wrong_thing_then(m, c):
    rest = regex_cache.sub(r"^\s*[,:;.!—–-]*\s*", "", m.group("rest"))
    right, verb = _strip_use(rest) if rest else ("", "")
    return c.hit("wrong-thing", wrong="the wrong " + m.group("thing"), right=right, verb=verb)


def _should_have(m, c):
    right, verb = _strip_use(m.group("right"))
    if right == m.group("right"):
        right = regex_cache.sub(r"^used\s+", "", right, flags=re.I)
        verb = "use" if right != m.group("right") else ""
    return c.hit("should-have", right=right, verb=verb)


def _no_not_short(m, c):
    if (
        _wordcount(m.group("wrong")) <= 4
        and not _re("finite").search(m.group("wrong"))
        and (m.group("right") is None or _wordcount(m.group("right")) <= 6)
    ):
        return c.hit("no-not", wrong=m.group("wrong"), right=m.group("right") or "")
    return _NEXT


def _no_thing(m, c):
    if _re("finite").search(m.group("wrong")) or _wordcount(m.group("wrong")) > 5:
        return _NEXT
    verb = (m.group("verb") or "").lower()
    wrong, v2 = _strip_use(m.group("wrong"))
    right = m.group("right") or ""
    if right and (_re("finite").search(right) or _re("pronoun_start").match(right)):
        right = ""  # "no git reset --hard, you'll lose my work": a reason, not the alternative
    return c.hit(
        "no-thing",
        wrong=regex_cache.sub(r"^more\s+", "", wrong, flags=re.I),
        right=right,
        verb="use" if verb == "use" else (v2 or verb),
    )


def _you_did_x_do_y(m, c):
    verb = m.group("verb").lower()
    return c.hit(
        "you-did-x-do-y", wrong=m.group("wrong"), right=m.group("right"), verb="use" if verb == "use" else verb
    )


def _style_amount(m, c):
    if _wordcount(m.group("what")) > 5:
        return _NEXT
    what = m.group("what")
    if what.lower().startswith(("too", "way too")):
        return c.hit("style", wrong=what)
    return c.hit("style", right=what)


def _after_a_no(_m, c):
    """After a bare "no" the clause is the answer, whatever its shape; it ends the search."""
    body = c.body
    m = regex_cache.match(
        r"^(?P<right>(?:a|an|the|plain|just\s+a|just\s+an)\s+.{1,40}?)\s+(?:is|are)\s+"
        r"(?:fine|enough|ok|okay|good\s+enough|sufficient)\b",
        body,
        re.I,
    )
    if m:
        return c.hit("no-then", right=m.group("right"))
    m = regex_cache.match(
        r"^(?:(?:the|its|it'?s)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are|should\s+be|must\s+be)|"
        r"[\w-]+(?:\s+[\w-]+)?\s+(?:should|must|needs\s+to)\s+be)\s+(?P<value>.{1,60})$",
        body,
        re.I,
    )
    if (
        m
        and not _re("praise_after_no").match(m.group("value"))
        and not regex_cache.match(
            r"(?:fine|good|great|ok|okay|done|green|passing|working|back|up|down|gone|there)\b",
            m.group("value"),
            re.I,
        )
    ):
        return c.hit("no-then", right=body)
    m = _re("short_answer").match(body)
    if m and not _re("question_word").match(body):
        return c.hit("no-then", right=body.rstrip(".!"))
    m = _re("i_meant").match(body)
    if m:
        return c.hit("i-meant", right=m.group("right"))
    if _re("not_a_verdict").match(body):
        return c.hit("thats-wrong")  # "no, not true": a verdict, as contentless as "that's wrong"
    m = _re("no_not").match(body)
    if m and not _re("praise_after_no").match(body):
        return c.hit("no-not", wrong=m.group("wrong"), right=m.group("right") or "")
    m = _re("bare_not").match(body)
    if m and _wordcount(m.group("right")) <= 8 and _wordcount(m.group("wrong")) <= 6:
        return c.hit("x-not-y", wrong=m.group("wrong"), right=m.group("right"))
    if regex_cache.match(
        r"^(?:it|that|this|everything|all\s+of\s+it)\s+should\s+(?:be\s+)?(?:fine|ok|okay|good|alright|"
        r"all\s+right|safe|work|pass|done)\b",
        body,
        re.I,
    ):
        return None  # "no, it should be fine": reassurance
    if _re("imperative").match(body) and not _re("temporary").search(body):
        right, verb = _strip_use(body)
        return c.hit("no-then", right=right, verb=verb)
    return None


def _bare_not(m, c):
    if (
        _wordcount(m.group("right")) <= 3
        and _wordcount(m.group("wrong")) <= 3
        and not _re("question_word").match(c.body)
    ):
        return c.hit("x-not-y", wrong=m.group("wrong"), right=m.group("right"))
    return _NEXT


# The explicit forms of a statement, in the order they are tried: (name, find, build).
# find: the name of a pattern of the detector's table (compiled on first use), a function
# body -> match, or None for a form that reads the clause itself; build(m, clause).
_EXPLICIT_FORMS: tuple = (
    ("don't forget", "forget", lambda m, c: c.hit("dont-forget", right=m.group("right"))),
    ("use X not Y", "use_not", _use_not),
    ("X instead of Y", "instead_of", _instead_of),
    (
        "prefer X over Y",
        "prefer_over",
        lambda m, c: c.hit("prefer-over", wrong=m.group("wrong"), right=m.group("right"), verb="use"),
    ),
    ("use X instead", "use_instead", _use_instead),
    ("shouldn't have", "shouldnt_have", lambda m, c: c.hit("shouldnt-have", wrong=m.group("wrong"))),
    ("never / don't / stop", "neg", _negation),
    ("always", "always", _always),
    ("that's wrong", "wrong", _thats_wrong),
    (
        "you did the wrong thing",
        "you_wrong_thing",
        lambda m, c: c.hit("wrong-thing", wrong="the wrong " + m.group("thing")),
    ),
    ("the wrong thing", "wrong_thing", _wrong_thing_then),
    ("should have", "should_have", _should_have),
    (
        "X is wrong, use Y",
        _inline(
            r"^(?P<wrong>[\w.`'/@+\-\ue000\ue001]+(?:\s+[\w.-]+)?)\s+(?:is|are)\s+(?:wrong|gone|deprecated|dead|"
            r"outdated|obsolete|banned|not\s+allowed|the\s+old\s+\w+|legacy)\b[^,;.]*(?:,|;|—|–|\.)\s*"
            r"(?:so\s+|just\s+)?(?P<verb>use|run)\s+(?P<right>.+?)\W*$"
        ),
        lambda m, c: c.hit("x-is-wrong", wrong=m.group("wrong"), right=m.group("right"), verb=m.group("verb").lower()),
    ),
    (
        # "setup.py is gone, everything is in pyproject now": what replaced it said in a clause
        "X is gone, Y",
        _inline(
            r"^(?P<wrong>[\w.`'/@+\-\ue000\ue001]+(?:\s+[\w.-]+)?)\s+(?:is|are)\s+(?:gone|deprecated|dead|outdated|"
            r"obsolete|banned|not\s+allowed|legacy|no\s+longer\s+(?:used|supported|there))\b\s*(?:,|;|—|–|\.)\s*"
            r"(?P<right>.{3,120}?)\W*$"
        ),
        lambda m, c: (
            _NEXT
            if m.group("wrong").lower().startswith(("it", "that", "this", "he", "she", "they"))
            else c.hit("x-is-wrong", wrong=m.group("wrong"), right=m.group("right"))
        ),
    ),
    (
        # "the env var is DATABASE_URL, not DB_URL", "the port is 5433 not 5432"
        "the X is Y, not Z",
        _inline(
            r"^(?:the|our|its|this|that)\s+(?P<what>[\w.\-]+(?:\s+[\w.\-]+){0,2})\s+(?:is|are|should\s+be)\s+"
            r"(?P<right>[^,;]{1,60}?)\s*(?:,|;|—|–)?\s+not\s+(?P<wrong>[^,;]{1,60}?)\W*$"
        ),
        lambda m, c: c.hit("x-is-y-not-z", wrong=m.group("wrong"), right=m.group("right")),
    ),
    (
        "leave X alone",
        _inline(r"^leave\s+(?P<wrong>.{1,60}?)\s+alone\b"),
        lambda m, c: c.hit("dont", wrong="touch " + m.group("wrong")),
    ),
    (
        "you're in the wrong X",
        _inline(
            r"^you(?:'re|\s+are)\s+(?:on|in|using|editing|looking\s+at|in\s+the)\s+the\s+wrong\s+(?P<thing>[\w-]+)"
        ),
        lambda m, c: c.hit("wrong-thing", wrong="the wrong " + m.group("thing")),
    ),
    (
        # "not true", "not correct, it works": a verdict on what the agent said, not a ban on
        # "true"; as contentless as "that's wrong"
        "not true (a verdict)",
        "not_a_verdict",
        lambda m, c: c.hit("thats-wrong"),
    ),
    (
        "not X(, Y)",
        _inline(
            r"^not\s+(?!(?:sure|yet|now|really|bad|quite|exactly|at\s+all|necessarily|today|much|a\s+problem|"
            r"an?\s+issue|that\s+i\s+know|so|too|great|good|ideal|again|anymore|my|your|his|her|our|their|me|us|"
            r"him|them|even|only|just|always|ever|every|all|everything|i|we|you|it|a\s+big|likely|possible|"
            r"working|fixed|since|until|unless|if|when|because)\b)"
            r"(?P<wrong>[^,;]{1,40}?)(?:\s*[,;]\s*(?P<right>[^,;]{1,40}?))?\W*$"
        ),
        _no_not_short,
    ),
    ("no X", "no_thing", _no_thing),
    ("not it", "pronoun_ban", lambda m, c: c.hit("dont", wrong=m.group("subj"), verb="use")),
    (
        # "you used npm, use pnpm instead", "you edited the generated file, edit the template instead"
        "you did X, do Y instead",
        _inline(
            r"^you(?:'ve|\s+have)?\s+(?:used|ran|run|edited|changed|called|installed|opened|picked|chose|wrote|"
            r"imported|modified|touched|deleted|added|started|launched)\s+(?P<wrong>.{1,80}?)\s*(?:,|;|—|–)\s*"
            rf"(?:so\s+|just\s+|please\s+)?(?P<verb>{_VERB_ALT})\s+(?P<right>.{{1,80}}?)\s+instead\W*$"
        ),
        _you_did_x_do_y,
    ),
    ("not supposed to", "not_supposed", lambda m, c: c.hit("shouldnt-have", wrong=m.group("wrong"))),
    ("revert", "revert", lambda m, c: c.hit("revert")),
    ("too much / more X", "style_amount", _style_amount),
    ("not like that", _inline(r"^not\s+like\s+(?:that|this)\b"), lambda m, c: c.hit("not-like-that")),
    ("after a no", None, lambda m, c: _after_a_no(m, c) if c.after_no else _NEXT),
    (
        "I meant",
        "i_meant",
        lambda m, c: c.hit("i-meant", right=m.group("right")) if c.body.lower().startswith("i meant") else _NEXT,
    ),
    ("X not Y", "bare_not", _bare_not),
)


def _explicit(body: str, masked: _Masked, *, after_no: bool, question: bool) -> _Hit | None:
    """The explicit forms, tried on a clause whose interjections were stripped."""
    c = _Clause(body, masked, after_no)
    if question:
        m = _re("can_you_stop").match(body)
        if m:
            wrong, verb = _strip_use(m.group("rest"))
            return c.hit("can-you-stop", wrong=wrong, verb=verb)
        return None
    for _name, find, build in _EXPLICIT_FORMS:
        m = None
        if find is not None:
            m = _re(find).match(body) if type(find) is str else find(body)
            if not m:
                continue
        out = build(m, c)
        if out is not _NEXT:
            return out
    return None


def _implicit(body: str, masked: _Masked, *, question: bool) -> _Hit | None:
    def hit(signal: str, wrong: str = "", right: str = "", conf: float = IMPLICIT_CONFIDENCE, verb: str = "") -> _Hit:
        w, s1 = _clean(wrong, masked) if wrong else ("", None)
        r, s2 = _clean(right, masked) if right else ("", None)
        return _Hit(
            "implicit",
            conf,
            signal,
            w,
            r,
            verb,
            repeated=signal not in ("why", "didnt-ask", "forgot"),
            scope_hint=s1 or s2,
        )

    def with_inner(signal: str, rest: str) -> _Hit:
        """A repetition phrase followed by the instruction itself."""
        rest = (rest or "").strip()
        if rest:
            inner = _explicit(rest, masked, after_no=False, question=False)
            if inner is not None:
                inner.repeated = True
                inner.signal = f"{signal}+{inner.signal}"
                return inner
            inner_imp = _implicit(rest, masked, question=False)
            if inner_imp is not None:
                inner_imp.signal = f"{signal}+{inner_imp.signal}"
                inner_imp.repeated = True
                return inner_imp
            right, verb = _strip_use(rest)
            return hit(signal, right=right, verb=verb)
        return hit(signal)

    m = _re("told").match(body)
    if m:
        t = _re("to_or_not").match(m.group("tail").strip())
        if t is None:
            return hit("already-told")
        if t.group("wrong"):
            wrong, verb = _strip_use(t.group("wrong"))
            return hit("already-told", wrong=wrong, verb=verb)
        if t.group("right"):
            right, verb = _strip_use(t.group("right"))
            return hit("already-told", right=right, verb=verb)
        return with_inner("already-told", t.group("that") or t.group("rest") or "")

    m = _re("why").match(body)
    if m:
        aux = m.group("aux").lower()
        what = m.group("what")
        if aux == "do" and not m.group("keep"):
            return None  # "why do you think so?": a question
        if aux.startswith(("didn", "don")):
            right, verb = _strip_use(what)
            return hit("why", right=right, conf=INFERRED_CONFIDENCE, verb=verb)
        wrong, verb = _strip_use(what)
        conf = IMPLICIT_CONFIDENCE if m.group("keep") else INFERRED_CONFIDENCE
        return hit("you-keep" if m.group("keep") else "why", wrong=wrong, conf=conf, verb=verb)

    m = _re("thing_again").match(body)
    if (
        m
        and not _re("imperative").match(body)
        and not _re("finite").search(body)
        and not regex_cache.search(r"\b(?:broke|crashed|died|went|fell|hung|gone|done|been|\w+ed)\b", body, re.I)
        and not regex_cache.search(
            r"\b(?:congrat\w*|thanks?|great|nice|good|glad|happy|chat|talk|see|meet|welcome)\b", body, re.I
        )
        and not _re("question_word").match(body)
    ):
        wrong, verb = _strip_use(m.group("wrong") or m.group("wrong2") or "")
        return hit("again", wrong=wrong, verb=verb)

    if question:
        return None

    for signal in ("again", "like_said", "nth_time"):
        m = _re(signal).match(body)
        if m:
            return with_inner(signal.replace("_", "-"), m.group("rest"))

    m = regex_cache.match(
        r"^still\s+(?:wrong|incorrect|not\s+(?:right|correct|it|what\s+i\s+(?:asked|wanted|meant)))\b\W*(?P<rest>.*)$",
        body,
        re.I,
    )
    if m:
        return with_inner("still-wrong", m.group("rest"))

    m = regex_cache.match(r"^for\s+once\b\s*[,:]?\s*(?P<rest>.+)$", body, re.I)
    if m and _re("imperative").match(m.group("rest")):  # "for once, run the tests" (not "for once it worked")
        return with_inner("for-once", m.group("rest"))

    m = _re("you_broke").match(body)
    if m:
        return hit("you-broke", wrong="breaking " + m.group("wrong"))

    m = regex_cache.match(r"^i\s+(?:said|told\s+you)\s*[:,]?\s+(?P<rest>.+)$", body, re.I)
    if m:
        inner = _explicit(m.group("rest"), masked, after_no=True, question=False)
        if inner is not None:
            inner.repeated = True
            inner.signal = "i-said+" + inner.signal
            return inner
        if _wordcount(m.group("rest")) <= 3 and not _re("pronoun_start").match(m.group("rest")):
            right, verb = _strip_use(m.group("rest"))
            return hit("i-said", right=right, verb=verb)

    if regex_cache.match(r"^stop\W*$", body, re.I):
        return hit("stop")

    m = _re("didnt_ask").match(body)
    if m:
        wrong = m.group("wrong").strip()
        if wrong.lower().rstrip(".!") in ("that", "this", "it", "any of that", "any of this", "for that"):
            wrong = ""
        wrong, verb = _strip_use(wrong)
        return hit("didnt-ask", wrong=wrong, verb=verb)

    m = _re("did_it_again").match(body)
    if m:
        rest = regex_cache.sub(r"^\s*[,:;.!—–-]*\s*", "", m.group("rest"))
        return with_inner("did-it-again", rest)

    m = _re("keep").match(body)
    if m:
        wrong, verb = _strip_use(m.group("wrong"))
        return hit("you-keep", wrong=wrong, verb=verb)

    m = _re("you_always").match(body)
    if m:
        wrong, verb = _strip_use(m.group("wrong"))
        return hit("you-always", wrong=wrong, verb=verb)

    m = _re("you_never").match(body)
    if m and not regex_cache.match(r"(?:know|cease|fail\s+to)\b", m.group("right"), re.I):
        right, verb = _strip_use(m.group("right"))
        return hit("you-never", right=right, verb=verb)

    m = _re("forgot").match(body)
    if m:
        right, verb = _strip_use(m.group("right"))
        return hit("forgot", right=right, verb=verb)
    return None


_EXASPERATED = {"seriously", "come on", "geez", "jeez", "sigh", "omg", "ffs", "dude", "man"}


def _sentence_hit(sentence: str, masked: _Masked, *, prev_no: bool) -> tuple[_Hit | None, bool]:
    """Returns (hit, this sentence was a bare rejection such as 'No.' or 'Wrong!')."""
    s = sentence.strip()
    if not s or _Masked.only_quote(s):
        return None, False
    question = s.rstrip().endswith("?") or bool(regex_cache.search(r"\?\s*[!.]*$", s))
    body = s
    saw_no = False
    exasperated = False
    repeated = False
    interjections = 0
    while True:
        m = _re("interj").match(body)
        if not m or m.end() == 0:
            break
        word = m.group("w").lower()
        if word.startswith("no") or word in ("nah", "negative", "wrong", "incorrect"):
            saw_no = True
        elif word in _EXASPERATED or word.startswith(("ugh", "argh", "for ")):
            exasperated = True
        elif word.startswith(("like ", "as usual", "same as", "as mentioned", "as discussed", "as agreed")):
            repeated = True
        elif word == "but" and saw_no:
            return None, False  # "Nope, but it's my first time": an answer with a contrast
        body = body[m.end() :].lstrip()
        interjections += 1
        if interjections > 4:
            break
    body = body.strip()
    if not body:
        return None, saw_no  # "No." on its own: remember it for the next sentence
    hit: _Hit | None
    if exasperated and regex_cache.match(r"^(?:again|(?:you\s+did\s+it\s+)?again)\W*$", body, re.I):
        hit = _Hit("implicit", IMPLICIT_CONFIDENCE, "again", "", "", "", repeated=True)
        hit.sentence = masked.restore(s)
        return hit, False
    if saw_no and _re("praise_after_no").match(body):
        return None, False
    if regex_cache.match(r"^never\s*mind\b", body, re.I):
        return None, False
    after_no = saw_no or prev_no
    # Question forms other than the rhetorical ones are not corrections.
    if (
        question
        and _re("question_word").match(body)
        and not regex_cache.match(
            r"^(?:can|could|would|will)\s+you\s+(?:please\s+|maybe\s+|just\s+)*(?:stop|quit|not|never)\b", body, re.I
        )
    ):
        hit = _implicit(body, masked, question=True)
        if hit is None and regex_cache.match(_POLITE_UNDO, body, re.I):
            hit = _cue_hit(body, masked, after_no=after_no)
            if hit is not None:
                hit.sentence = masked.restore(s)
        return hit, False
    # "In Ruby we don't write `return` ...": a leading scope phrase before a team convention
    m = regex_cache.match(
        r"^(?:in|for|with)\s+[^,]{1,30}?,?\s+(?=we\s+(?:don'?t|do\s+not|never|always|use|prefer)\b)", body, re.I
    )
    if m:
        body = body[m.end() :]
    hit = _explicit(body, masked, after_no=after_no, question=question)
    if hit is None:
        hit = _implicit(body, masked, question=question)
    if hit is None and not question:
        # "we use pytest, don't write unittest classes": a ban in the second clause, unless the first
        # sets a condition ("if the build fails, don't retry")
        m = regex_cache.match(
            r"^(?P<first>[^,;]{3,80}?)(?:\s*[,;]\s*(?P<second>(?:so\s+)?(?:don'?t|do\s+not|never|stop|quit|avoid)\b.+)|"
            r"\s+and\s+(?P<second2>(?:quit|stop)\s+\w+ing\b.+))$",
            body,
            re.I,
        )
        if m and not regex_cache.match(
            r"(?:if|when|whenever|once|unless|until|after|before|while|as\s+soon\s+as|in\s+case|"
            r"exactly|yes|yeah|yep|yup|right|correct|perfect|good|great|fine|sure|lgtm|looks\s+good)\b",
            m.group("first"),
            re.I,
        ):
            hit = _explicit(
                regex_cache.sub(r"^so\s+", "", m.group("second") or m.group("second2"), flags=re.I),
                masked,
                after_no=False,
                question=False,
            )
    # A question mark after a statement is hedging ("the java version should be 17, not 21?"):
    # the second stage reads it; questions that open with a question word stay questions.
    if hit is None and (
        not question or not _re("question_word").match(body) or regex_cache.match(_POLITE_UNDO, body, re.I)
    ):
        hit = _cue_hit(body, masked, after_no=after_no)
    if hit is not None:
        hit.sentence = masked.restore(s)
        hit.repeated = hit.repeated or repeated
    return hit, False


# "can you back out the commit you just made?", "could you use podman instead of docker going
# forward?": a correction asked politely
_POLITE_UNDO = (
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:undo|revert|back\s+out|roll\s+back|restore|scrap)\b|"
    r"^(?:can|could|would|will)\s+you\s+.{1,80}\b(?:instead\s+of|going\s+forward|from\s+now\s+on)\b"
)

# "my bad, I gave you the wrong ticket number": the person corrects their own message, not the agent
_OWN_MISTAKE = regex_cache.compile(
    r"\b(?:my\s+(?:bad|fault|mistake|typo)|i\s+messed\s+(?:it\s+)?up|i\s+(?:gave|sent|told)\s+you\s+the\s+wrong|"
    r"i\s+(?:pasted|typed|copied)\s+the\s+wrong)\b",
    re.I,
)

# Second-stage signals that name what is wrong with enough certainty to count as explicit.
_EXPLICIT_CUES = frozenset({"contrast", "verdict", "deprecated", "prefer", "wrong-thing"})


def _cue_hit(body: str, masked: _Masked, *, after_no: bool) -> _Hit | None:
    """The indirect phrasings of :mod:`.cues`, as a hit with its parts cleaned."""
    if _re("temporary").search(body):
        return None
    found = cues.match(body, masked.text, after_no=after_no)
    if found is None:
        return None
    signal, wrong, right = found
    w, s1 = _clean(wrong, masked) if wrong else ("", None)
    r, s2 = _clean(right, masked) if right else ("", None)
    if signal in _EXPLICIT_CUES and (w or r):
        kind, confidence = "explicit", EXPLICIT_CONFIDENCE
    else:
        kind, confidence = "implicit", IMPLICIT_CONFIDENCE
    return _Hit(kind, confidence, f"cue-{signal}", w, r, "", repeated=signal == "repeat", scope_hint=s1 or s2)


def starts_with_action(text: str) -> bool:
    """Whether what is right is said as an action ("open a pull request") rather than a thing
    ("pnpm"): a verb of the alternatives followed by its object."""
    return bool(regex_cache.match(rf"^(?:{_VERB_ALT}|{_HOUSE_VERBS})\s+\S", text.strip(), re.I))


def _statement(hit: _Hit) -> str:
    verb = hit.verb
    if hit.wrong and hit.right:
        return f"{verb} {hit.right}, not {hit.wrong}".strip() if verb else f"{hit.right}, not {hit.wrong}"
    if hit.wrong:
        if hit.signal.endswith("avoid") or hit.signal in ("cue-verdict", "cue-deprecated"):
            return f"avoid {hit.wrong}"
        if hit.signal == "cue-scope":
            return f"do not change {hit.wrong} unless asked"
        if hit.signal.endswith("shouldnt-have"):
            return f"should not have {hit.wrong}"
        if hit.signal.endswith("wrong-thing"):
            return f"not {hit.wrong}"
        if hit.signal.endswith("didnt-ask"):
            return f"do not add {hit.wrong} unless asked"
        return f"do not {verb + ' ' if verb else ''}{hit.wrong}"
    if hit.right:
        return f"{verb + ' ' if verb else ''}{hit.right}"
    return hit.sentence


def detect(message: str, turn=None) -> Detection | None:
    """Return the correction in ``message`` or None. Never raises on text input.

    The hand-written rules first (they say what was wrong and what is right); for a short prompt
    they pass over, the learned model of :mod:`.learned` may still recognise a correction, which
    is then recorded as inferred with the prompt as its statement. ``turn`` is the agent's last
    turn (:class:`.agent_turn.AgentTurn`) or a callable reading it, for the model only; read
    only when the model runs."""
    if not message or not isinstance(message, str):
        return None
    text = message[:_MAX_MESSAGE]
    if _OWN_MISTAKE.search(text):  # the person corrects their own message: neither rules nor model
        return None
    masked = _Masked(text)
    found = _by_rules(text, masked)
    if found is not None:
        return found
    from . import learned

    if not masked.text.strip() or _Masked.only_quote(masked.text) or not learned.is_correction(masked.text, turn):
        return None
    sentence = masked.restore(masked.text).strip()
    statement = _clip(sentence)
    return Detection.inferred(statement, sentence, confidence=INFERRED_CONFIDENCE, signal="learned")


def warm_regex_cache() -> bool:
    """Compile every pattern of both stages and write them to :mod:`memory_cli.files.regex_cache`, so
    that no prompt's hook compiles one (``memory-cli install`` calls this). Patterns used inline
    are added by the hooks that first need them. True when the cache file was written."""
    from ..files import regex_cache

    for name in _SOURCES:
        _re(name)
    cues.compile_all()
    from ..privacy import redact, secret_formats
    from . import learned  # noqa: F401  (its patterns compile on import)

    redact._rules()  # the redactor's own patterns and its provider formats, used on every prompt
    secret_formats.compile_all()
    return regex_cache.save(replace=True)


def detect_by_rules(message: str) -> Detection | None:
    """The hand-written rules alone (:func:`detect` without the learned model)."""
    if not message or not isinstance(message, str):
        return None
    text = message[:_MAX_MESSAGE]
    return None if _OWN_MISTAKE.search(text) else _by_rules(text)


def _by_rules(text: str, masked: _Masked | None = None) -> Detection | None:
    """The rules on ``text`` (already cut to ``_MAX_MESSAGE``); ``masked`` when the caller has it."""
    if not _re("prefilter").search(text):
        return None
    masked = masked or _Masked(text)
    hits: list[_Hit] = []
    prev_no = False
    prev_question = ""
    for sentence in _re("split").split(masked.text):
        if sentence is None:
            continue
        hit, bare_no = _sentence_hit(sentence, masked, prev_no=prev_no)
        if hit is None and prev_question and cues.strong_no(sentence):
            # "kubectl delete against prod? absolutely not.": the refusal names what came before
            wrong, hint = _clean(prev_question.rstrip(" ?"), masked)
            hit = _Hit("explicit", EXPLICIT_CONFIDENCE, "refused", wrong, "", "", scope_hint=hint)
            hit.sentence = masked.restore(f"{prev_question} {sentence.strip()}")
        prev_no = bare_no
        prev_question = sentence.strip() if sentence.strip().endswith("?") else ""
        if hit is not None:
            hits.append(hit)
    if not hits:
        return None
    best = max(hits, key=lambda h: (h.confidence, h.has_content, bool(h.wrong and h.right)))
    # Fill what the strongest sentence left out from the others ("That's wrong. Use pnpm, not npm.")
    repeated = any(h.repeated for h in hits)
    wrong, right, verb, scope_hint = best.wrong, best.right, best.verb, best.scope_hint
    for h in hits:
        if h is best:
            continue
        if not wrong and h.wrong:
            wrong = h.wrong
            verb = verb or h.verb
        if not right and h.right:
            right = h.right
            verb = verb or h.verb
        scope_hint = scope_hint or h.scope_hint
    kind = "explicit" if any(h.kind == "explicit" for h in hits) else "implicit"
    confidence = max(h.confidence for h in hits)
    merged = _Hit(kind, confidence, best.signal, wrong, right, verb, repeated, scope_hint, best.sentence)
    return Detection(
        kind=kind,
        what_was_wrong=wrong,
        what_is_right=right,
        confidence=confidence,
        key=correction_key(wrong, right) if (wrong or right) else "",
        statement=_statement(merged),
        signal=best.signal,
        sentence=best.sentence,
        repeated=repeated,
        scope_hint=scope_hint,
        verb=verb,
    )
