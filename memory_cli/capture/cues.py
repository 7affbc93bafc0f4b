"""The second stage of correction detection: indirect phrasings, judged by two cues at once.

:mod:`.detect` recognises corrections by how they open ("never use X", "use X, not Y", "I told
you ..."). People also correct an agent without any such opening: "the api listens on 8081 not
8080", "`any` is a no-go in our TS code", "CI's red since your commit", "back that out",
"componentWillMount is long gone, use a useEffect". Each form here pairs a cue that is common in
ordinary prompts with a second one that makes it a correction, so that the look-alikes keep
passing:

* a **contrast** ("X, not Y") only after a verb that states where or what something is
  ("is", "lives in", "goes in", "listens on", "we're on");
* a **failure** ("blank", "fails", "500", "crashloops") only beside the agent's own change
  ("since your edit", "after you changed", "whatever you did");
* a **verdict** on a practice ("is off the table", "is a no-go", "is forbidden", "weren't
  needed", "aren't yours to change");
* **deprecation** ("is deprecated", "is ancient", "is the old v1 binary") only with the
  replacement in the same message ("use v4", "it's docker compose now");
* the agent's **action** ("you edited", "you bumped", "you've got") only with what was meant
  ("instead of", "the source is in", "should be", "everywhere");
* **undo** and **scope** verbs that only make sense about the agent's last change ("back that
  out", "scrap the refactor", "reset that file to HEAD", "only change what I asked",
  "keep the diff minimal");
* **standing** instructions and team conventions, told by a marker of time or of the team
  ("when you push, it's --force-with-lease", "..., always", "going forward", "our convention
  is snake_case", "we moved to date-fns").

Reported speech ("the docs say ...", "kubectl says: ..."), conditions ("if it fails ...") and
one-off instructions ("for now") are refused here. Questions stay with the first stage, except
a statement hedged with a question mark ("the java version should be 17, not 21?") and a polite
request to undo ("can you back out the commit you just made?"). :func:`match` returns
``(signal, wrong, right)`` or None; :mod:`.detect` builds the hit and cleans the parts.
"""

from __future__ import annotations

import re

from ..files import regex_cache

_F = re.IGNORECASE


class _Lazy:
    """A pattern compiled on first use. Every prompt is a fresh hook process and compiling all of
    these costs about 17 ms; :func:`match` tries only the forms whose words the sentence holds."""

    __slots__ = ("source", "flags", "_p")

    def __init__(self, source: str, flags: int = _F):
        self.source, self.flags = source, flags
        self._p: re.Pattern[str] | None = None

    def _get(self) -> re.Pattern[str]:
        if self._p is None:
            self._p = regex_cache.compile(self.source, self.flags)
        return self._p

    def match(self, s: str) -> re.Match[str] | None:
        return self._get().match(s)

    def search(self, s: str) -> re.Match[str] | None:
        return self._get().search(s)


def compile_all() -> None:
    """Compile every lazy pattern of this module (for :func:`detect.warm_regex_cache`)."""
    for value in list(globals().values()):
        if isinstance(value, _Lazy):
            value._get()


# The end of a sentence: punctuation only. Not ``\W*$``, which would also take the closing mark of
# a masked quote and leave the quote unrestorable.
_END = r"[\s.!?,;:…]*$"

# One word of a name, a path, a flag or a masked quote ("\ue000" ... "\ue001").
_W = r"[\w.`'/@+:#=~*\-\ue000\ue001]+"

_CONTRAST = _Lazy(
    r"^(?:(?:the|our|my|this|that|its|their)\s+)?(?P<subj>(?:" + _W + r"\s+){0,5}?)"
    r"(?:is|are|'s|goes|go|lives?|belongs?|sits?|listens\s+on|runs\s+on|should\s+be|should\s+go\s+(?:in|to|under)|"
    r"takes|expects|accepts|uses|returns|needs|wants|means|(?:we'?re|we\s+are|you'?re|you\s+are)\s+supposed\s+to\s+use|"
    r"needs\s+to\s+be|has\s+to\s+be|have\s+to\s+be|must\s+be|we'?re\s+on|we\s+are\s+on|we'?re\s+using|"
    r"(?:go|goes|live|lives)\s+(?:in|under|into)|have\s+to\s+be\s+run\s+via|has\s+to\s+be\s+run\s+via|"
    r"we\s+go\s+through|we\s+use)\s+"
    r"(?P<right>[^,;]{1,80}?)\s*,?\s+(?:and\s+)?(?:not|rather\s+than|instead\s+of)\s+(?P<wrong>[^,;!?]{1,80}?)"
    r"(?:\s*[,;—–]\s+.{0,200})?" + _END,
    _F,
)
# A contrast sets two names or values side by side; a verb or a condition in the first one makes
# it a sentence ("so important - even if it's not always easy").
_CLAUSE_WORD = _Lazy(
    r"\b(?:if|when|though|although|it'?s|is|are|was|were|be|been|could|can|did|does|do|would|should|will|must|may|"
    r"might)\b"
)
# "staging is down, not related to anything we did": "not" before an adjective negates it
_NOT_A_THING = _Lazy(
    r"(?:related|sure|really|yet|just|only|even|necessarily|exactly|quite|that|because|due|caused|ready|done|"
    r"working|needed|important|relevant|supported|possible)\b"
)
_DOUBT = frozenset(("sure", "certain", "convinced"))
_PLEASE_NOT = _Lazy(
    r"^(?P<right>[^,;]{1,60}?)\s+(?:please|pls|plz)\s*[,;—–-]?\s*(?:not|rather\s+than|instead\s+of)\s+(?P<wrong>.{1,80}?)"
    + _END,
    _F,
)
_THAT_IS_THE = _Lazy(
    r"^(?:that'?s|thats|that\s+is|this\s+is|it'?s)\s+(?:the|a|an)\s+(?P<wrong>[^,;]{1,60}?)\s*[,;]\s*"
    r"the\s+(?:real|actual|live|right|correct|current|proper|new|main)\s+(?:\w+\s+)?(?:is|are|lives?|sits?)\s+"
    r"(?:(?:in|under|at|on)\s+)?(?P<right>.{1,80}?)" + _END,
    _F,
)
_THAT_IS_THE_OLD = _Lazy(
    r"^(?:that'?s|thats|that\s+is|this\s+is|those\s+are)\s+the\s+(?:old|outdated|legacy|deprecated|v\d|generated|"
    r"compiled|vendored|wrong|staging|test|dev|local|prod|production)\s+(?P<wrong>.{1,60}?)" + _END,
    _F,
)

_IS_WRONG = _Lazy(
    r"^(?:the|that|this|your|those|these)\s+(?P<wrong>(?:"
    + _W
    + r"\s+){0,3}?"
    + _W
    + r")\s+(?:is|are|was|were|looks|seems)\s+"
    r"(?:(?:all|completely|totally|still|just|clearly|definitely|obviously)\s+)?(?:wrong|incorrect|not\s+right|"
    r"not\s+(?:the\s+)?(?:correct|right)(?:\s+one)?)\b(?!\s+about\b)",
    _F,
)
_THAT_IS_A = _Lazy(r"^(?:that'?s|thats|that\s+is|this\s+is|it'?s)\s+(?:the|a|an)\s+(?P<wrong>[^,;]{1,60}?)" + _END, _F)

_CHANGE_VERBS = (
    r"touched|changed|edited|added|removed|deleted|renamed|moved|bumped|upgraded|downgraded|refactored|rewrote|"
    r"reformatted|merged|pushed|committed|ran|updated|modified|replaced|patched|installed|dropped|switched|"
    r"set|put|wrote|enabled|disabled|turned|did\s+that|did\s+this|"
    r"made\s+(?:that|this|the|your)"
)
_AGENT_CHANGE = _Lazy(
    r"\b(?:since|after|before|when)\s+you\s+(?:just\s+)?(?:" + _CHANGE_VERBS + r")\b|"
    r"(?:^|[,;:—–]\s*)you(?:'ve|\s+have)?\s+(?:just\s+)?(?:" + _CHANGE_VERBS + r")\b|"
    r"\b(?:the|that|this)\s+" + _W + r"\s+you\s+(?:just\s+)?(?:" + _CHANGE_VERBS + r")\b|"
    r"\byour\s+(?:last\s+|latest\s+|recent\s+|new\s+)?(?:" + _W + r"\s+)?"
    r"(?:edit|change|commit|refactor|fix|patch|update|pr|rewrite|tweak|migration|push|merge|upgrade)s?\b|"
    r"\bwhatever\s+you\s+(?:did|changed|touched)\b|"
    r"\b(?:since|after)\s+(?:the|that|this)\s+last\s+(?:change|edit|commit|push|update)\b|"
    r"^(?:that|this)\s+(?:last\s+)?(?:change|edit|migration|commit|refactor|fix|patch|update|rename|upgrade)\b",
    _F,
)
_FAILURE = _Lazy(
    r"\b(?:blank|broke|broken|breaks|breaking|fails?|failed|failing|red|crash\w*|500s?|"
    r"stopped\s+working|no\s+longer\s+(?:works?|builds?|compiles?|starts?)|"
    r"(?:doesn'?t|does\s+not|won'?t|can'?t)\s+(?:work|compile|build|start|load|submit|connect|render|boot|run)|"
    r"wiped|wipes|destroy|deleted|wrecked|bad|worse|regress\w*|hangs?|times?\s+out|refused|panics?|segfaults?|lost|"
    r"loop|did\s+nothing|spins?|spinning|stuck|forever|infinite|freezes|frozen|jitter\w*|oom\S*|killed)\b",
    _F,
)
# "that commit broke the build last week" is history, not the agent's last change.
_LONG_AGO = _Lazy(r"\b(?:last\s+(?:week|month|year|night|sprint|release)|yesterday|ago|in\s+(?:19|20)\d\d)\b", _F)
_SUCCESS = _Lazy(
    r"\b(?:(?:now|all)\s+(?:pass|passes|passing|green|works?)|(?:pass|passes|passing|green|works?)\s+(?:now|again)|"
    r"(?:is|are|'re|'s)\s+(?:green|passing|fixed)|fixed\s+it|thanks|thank\s+you|great|nice|better|looks\s+good|lgtm|"
    r"flaky|unrelated|not\s+(?:your|you)|wasn'?t\s+(?:your|you)|my\s+(?:fault|bad|mistake)|cleanly|well\s+done|"
    r"(?:nothing|never|didn'?t|did\s+not|doesn'?t|hasn'?t|without)\s+(?:\w+\s+)?(?:broke|break|breaking|fail\w*))\b",
    _F,
)

_VERDICT = _Lazy(
    r"^(?P<wrong>.{1,80}?)\s+(?:is|are|'s|'re)\s+(?:(?:absolutely|totally|strictly|completely|simply|just)\s+)?"
    r"(?:off\s+the\s+table|a\s+(?:hard\s+)?no[\s-]?go|not\s+(?:acceptable|allowed|an\s+option|how\s+we\s+do\s+(?:it|things))|"
    r"not\s+ok(?:ay)?\s*,?\s+(?:ever|here|in\b)|forbidden|banned|prohibited|unacceptable|off[\s-]limits|"
    r"never\s+(?:ok(?:ay)?|acceptable|allowed|fine)|read[\s-]only\s+for\s+you)\b|"
    r"^(?P<wrong2>.{1,80}?)\s+(?:isn'?t|aren'?t)\s+(?:acceptable|allowed|an\s+option)\b",
    _F,
)
_NOT_HOW = _Lazy(
    r"^(?:that'?s|this\s+is|that\s+is)\s+not\s+how\s+we\s+do\s+(?:it|things|that)(?:\s+here)?\s*[:,;—–-]\s*(?P<rest>.+)$",
    _F,
)
_STAY_OUT = _Lazy(
    r"^(?P<wrong>.{1,60}?)\s+(?:stays?|goes?|keeps?)\s+out\s+of\s+(?:the\s+)?(?:repo|repository|git|codebase|code|commits?|"
    r"source\s+control|logs?)\b",
    _F,
)
_STAY_AWAY = _Lazy(
    r"^(?:(?:please|just)\s+)?(?:stay|keep)\s+away\s+from\s+(?P<wrong>.+?)" + _END + r"|"
    r"^(?P<subj>"
    + _W
    + r")\s.{0,80}?[,;—–]\s*(?:so\s+)?(?:stay|keep)\s+away\s+from\s+(?:it|that|them|this)"
    + _END
    + r"|"
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?stop\s+with\s+(?P<wrong3>.+?)" + _END + r"|"
    r"^(?:(?:please|just)\s+)?keep\s+(?:your\s+hands|it)\s+off\s+(?:of\s+)?(?P<wrong2>.+?)" + _END,
    _F,
)
_NOT_NEEDED = _Lazy(
    r"^(?P<wrong>.{1,80}?)\s+(?:weren'?t|were\s+not|wasn'?t|was\s+not)\s+(?:needed|necessary|wanted|asked\s+for|"
    r"part\s+of\s+(?:this|that|it|the|my)(?:\s+\w+)?)\b|"
    r"^(?P<wrong2>.{1,80}?)\s+(?:aren'?t|are\s+not|isn'?t|is\s+not)\s+yours\s+to\s+\w+|"
    r"^(?P<wrong3>.{1,80}?)\s+(?:isn'?t|is\s+not|aren'?t|are\s+not)\s+(?:needed|necessary|required)\b.*?[,;]\s*"
    r"(?:so\s+)?(?:drop|remove|delete|lose|take\s+out)\s+(?:it|them|that)\b|"
    r"^(?P<wrong4>.{1,80}?)\s+(?:isn'?t|is\s+not|aren'?t|are\s+not)\s+part\s+of\s+(?:the|our)\s+(?:toolchain|stack|setup)\b|"
    r"^(?P<wrong5>.{1,80}?)\s+(?:was|were)\s+(?:unnecessary|overkill|not\s+needed|not\s+necessary)\b",
    _F,
)

_DEPRECATED = _Lazy(
    r"^(?P<wrong>.{1,80}?)\s+(?:is|are|'s|was|were|has\s+been|have\s+been)\s+(?:[\w.\-]+\s+and\s+)?(?:(?:now|long|officially|basically|way|so|"
    r"the)\s+)?(?:deprecated|unsupported|gone|obsolete|outdated|ancient|legacy|dead|removed|retired|on\s+(?:its|their)\s+way\s+out|"
    r"the\s+old(?:\s+" + _W + r"){0,3}|no\s+longer\s+(?:used|supported|maintained|a\s+thing))\b(?P<rest>.*)$",
    _F,
)
_MOVED_OFF = _Lazy(
    r"^we\s+(?:moved|migrated|switched|went)\s+(?:off|away\s+from)\s+(?P<wrong>.+?)(?:\s+(?:ages|years|months|weeks|a\s+while)\s+ago)?"
    r"\s*(?:[,;—–]\s*(?P<rest>.+))?$",
    _F,
)
_REPLACEMENT = _Lazy(
    r"\b(?:use|using|it'?s|we\s+use|we'?re\s+on|we\s+are\s+on|write\s+to|switch\s+to|go\s+with|just\s+(?:put|write|call)|"
    r"put|rewrite|swap|move|migrate|needs|it\s+needs|requires|"
    r"everything\s+(?:goes|is|lives)|replaced\s+by|"
    r"now|instead|in\s+favou?r\s+of)\b",
    _F,
)

_USE_LEAD = _Lazy(
    r"[,;:—–]\s*(?:just\s+|so\s+)?(?:use|it'?s|we\s+use|write\s+to|switch\s+to|go\s+with)\s+(?P<right>.+?)(?:\s+now)?"
    + _END,
    _F,
)
_YOU_DID = _Lazy(
    r"(?:^|[,;:—–]\s*)you(?:'ve|\s+have|'re|\s+are)?\s+(?:just\s+|also\s+|now\s+)?(?P<act>edited|patched|changed|modified|looking\s+at|"
    r"got|bumped|used|put|added|wrote|created|installed|upgraded|reformatted|touched|deleted|removed|renamed|moved|"
    r"pointed|hardcoded|hard-coded|committed|pushed|imported|set|reverted|updated|replaced)\b(?P<what>.*)$",
    _F,
)
_MEANT = _Lazy(
    r"\binstead\s+of\b|\bnot\s+the\b|[,;]\s*(?:the|it'?s|that'?s)\s+(?:real|actual|right|correct|live|source|original|"
    r"proper)\b|\bthe\s+(?:real|actual|source|live|right|correct)\s+\w+(?:\s+\w+)?\s+(?:is|are|lives?)\b|"
    r"\bshould\s+be\b(?!\s+(?:good|fine|ok|okay|done|ready|enough|all\s+set))|\beverywhere\b|\bwhile\s+(?:fixing|i|you\s+were)|\bwhen\s+i\s+(?:asked|only|just|said)\b|"
    r"\bwhich\s+(?:our|the|we)\b.{0,40}\b(?:don'?t|doesn'?t|can'?t|isn'?t)\b",
    _F,
)
_YOU_WANT = _Lazy(
    r"^(?:you\s+want|what\s+you\s+want\s+is)\s+(?P<right>(?:[\w.\-]*\d[\w.\-]*|\ue000\d+\ue001))" + _END, _F
)

_UNDO = _Lazy(
    r"^(?:(?:please|just|can\s+you|could\s+you)\s+)?(?:"
    r"back\s+(?:that|it|this|those|these)\s+out|back\s+out\s+(?:of\s+)?(?:that|those|these|the|your)\b|"
    r"scrap\s+(?:that|this|it|your|those|these|the\s+(?:refactor|rewrite|change|changes|approach|whole\s+thing|"
    r"last|new|edit|edits))\b|"
    r"restore\s+the\s+(?:previous|old|earlier)\s+(?:version|behaviou?r|code|state|implementation|logic|"
    r"file|one|value|setting|config|wording|text|name|signature)\b|restore\s+the\s+original\b|"
    r"(?:undo|roll\s+back|reverse)\s+(?:the|your|that|this|those|these)\s+(?:last\s+|latest\s+|previous\s+|recent\s+)?"
    r"(?:"
    + _W
    + r"\s+){0,2}?(?:rename|renaming|change|changes|edit|edits|refactor|commit|update|upgrade|bump|fix|patch|move|"
    r"deletion|removal|reformat|reformatting)\b(?!.*\b(?:last\s+week|yesterday|ago)\b)|"
    r"i\s+(?:liked|preferred)\s+the\s+(?:previous|old|original|earlier)\s+(?:version|one|way|code)\b|"
    r"put\s+(?:the|my|that|this|those|these|it)\s+(?:" + _W + r"\s+){0,3}?back(?=[\s.!?,;:…]*$|\s*[,;.!])|"
    r"reset\s+(?:that|this|it|the)\b.*?\bto\s+(?:head|main|master|origin|how\s+it\s+was|what\s+it\s+was)\b|"
    r"revert\s+(?:the|your|those|these|all\s+the)\s+(?:" + _W + r"\s+){0,3}?(?:changes?|edits?)\b|"
    r"take\s+.{1,60}?\s+back\s+out\b|"
    r"get\s+rid\s+of\s+(?:what|everything|whatever)\s+you\b|"
    r"put\s+.{1,60}?\s+back\s+(?:exactly\s+)?(?:as|the\s+way|how|to\s+how|to\s+what)\b|"
    r"throw\s+(?:that|it|this)\s+(?:away|out)\b)",
    _F,
)
_SCOPE = _Lazy(
    r"^(?:(?:please|just)\s+)?(?:only\s+(?:change|touch|edit|do|fix)\s+what\s+i\s+(?:asked|said|told)|"
    r"stick\s+to\s+(?:the\s+task|what\s+i\s+asked|the\s+ticket|the\s+brief)(?:\s+at\s+hand)?(?="
    + _END
    + r"|\s*[,;.!])|"
    r"(?:that'?s|this\s+is|that\s+is)\s+(?:way\s+|far\s+|well\s+)?(?:beyond|more\s+than|outside\s+(?:of\s+)?)\s*"
    r"(?:what\s+i\s+asked|the\s+scope|scope)|"
    r"(?:that'?s|this\s+is)\s+out\s+of\s+scope)\b|"
    r"[,;:—–]\s*(?:please\s+)?keep\s+the\s+(?:diff|change|pr|patch)\s+(?:minimal|small|focused|tight)\b|"
    r"^(?:just|only)\s+.{1,60}?,\s*nothing\s+else\b|"
    r"^(?:please\s+)?keep\s+(?:the\s+|your\s+|all\s+)?changes\s+(?:inside|within|to|in)\b|\bscope\s+creep\b|"
    r"\band\s+stick\s+to\s+(?:the\s+task|what\s+i\s+asked|the\s+ticket|the\s+brief)\b",
    _F,
)
_REPEAT = _Lazy(
    r"^(?:how\s+many\s+times\b(?!\s+(?:does|do|did|is|are|was|were|has|have|will|should|can|would)\s+(?!i\b))|"
    r"once\s+more\s*[:,—–-]|"
    r"(?:we|i)\s+(?:literally\s+|just\s+|only\s+)*(?:just\s+)?(?:went|gone|been)\s+over\s+(?:this|that|it)\b|"
    r"(?:the\s+)?same\s+(?:thing|mistake|issue|problem)\s+(?:as|again)\b|once\s+more\s+you\b|"
    r"(?:this\s+is|that'?s|it'?s)\s+the\s+(?:second|third|fourth|fifth|\w+th|\d+(?:st|nd|rd|th))\s+time\s+"
    r"you(?:'ve|\s+have)?\s+(?!asked|mentioned|said|told|explained|wanted)(?:\w+ed|done|made|broken|got|gotten|written|run|did|made|forgotten|ignored)\b)",
    _F,
)
_PREFER = _Lazy(
    r"^(?:we|i)\s+(?:much\s+|strongly\s+|always\s+)?prefer\s+(?P<right>.+?)\s+(?:over|to|rather\s+than|instead\s+of)\s+"
    r"(?P<wrong>.+?)(?:\s+(?:here|in\s+this\s+\w+))?(?:\s*[,;—–]\s*.*)?$",
    _F,
)
_RATHER = _Lazy(
    r"^i'?d\s+(?:much\s+|really\s+)?rather\s+you\s+(?:(?P<neg>didn'?t|did\s+not|not|never)\s+(?P<wrong>.+)|"
    r"(?P<right>.+?)\s+(?:instead\s+of|rather\s+than)\s+(?P<wrong2>.+?)"
    r"\s+(?:going\s+forward|from\s+now\s+on|in\s+future|in\s+the\s+future|here|in\s+this\s+\w+))(?:\s*[,;—–].*)?"
    + _END,
    _F,
)
_SWAP = _Lazy(
    r"^(?:(?:please|just)\s+)?(?:swap|switch)\s+(?:that|this|it|those|these)\s+(?:out\s+)?(?:for|with|to)\s+(?P<right>.+?)"
    + _END
    + r"|"
    r"^(?:(?:please|just)\s+)?replace\s+(?:that|this|it|those|these)\s+with\s+(?P<right2>.+?)" + _END,
    _F,
)
_LOSE = _Lazy(
    r"^(?:(?:please|just)\s+)?(?:lose|ditch)\s+(?:the|those|these|that|all\s+the|all\s+those)\s+(?P<wrong>.+?)" + _END,
    _F,
)
_WE_DONT_DO = _Lazy(
    r"^we\s+(?:don'?t|do\s+not|never)\s+do\s+(?P<wrong>.+?)\s+(?:here|in\s+this\s+(?:repo|codebase|project|team|house)|"
    r"any\s*more)\b",
    _F,
)
_NOT_LANGUAGE = _Lazy(
    r"^(?P<right>.{1,60}?)\s*[,;—–]\s*this\s+(?:isn'?t|is\s+not|ain'?t)\s+"
    r"(?:java|javascript|go|golang|c|c\+\+|c#|python|php|ruby|perl|rust|node|kotlin|swift)" + _END,
    _F,
)
_PREFER_IF = _Lazy(
    r"^(?:i'?d|i\s+would)\s+(?:really\s+|much\s+)?prefer\s+(?!to\b)(?:if\s+you\s+|that\s+you\s+|you\s+)?"
    r"(?P<right>[^,;]+?)(?:\s+(?:rather\s+than|instead\s+of|over)\s+(?P<wrong>[^,;]+?))?(?:\s*[,;—–]\s*.*)?" + _END
)
_INSTEAD = _Lazy(
    r"[,;]\s*so\s+(?P<right>[^,;]{1,60}?)\s+instead\s+of\s+(?P<wrong>[^,;]{1,60}?)"
    r"(?:\s+(?:every\s+time|each\s+time|always|please|here|going\s+forward|from\s+now\s+on))?" + _END + r"|"
    r"^(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?P<right2>[^,;]{1,60}?)\s+instead\s+of\s+(?P<wrong2>[^,;]{1,60}?)"
    r"\s+(?:every\s+time|each\s+time|always|going\s+forward|from\s+now\s+on|in\s+(?:the\s+)?future)"
    r"(?:\s*[,;—–?]\s*.*)?" + _END
)
_QUOTED_NOT = _Lazy(r"[,;:]\s*(?P<right>\ue000\d+\ue001)\s*,?\s+not\s+(?P<wrong>\ue000\d+\ue001)" + _END)
_LETS_NOT = _Lazy(r"^let'?s\s+(?:not|never)\s+(?P<wrong>.+?)" + _END)
_NO_CIRCUMSTANCES = _Lazy(
    r"^under\s+no\s+circumstances\s+(?:(?:should\s+you|are\s+you\s+to|do|may\s+you|can\s+you)\s+)?(?P<wrong>.+?)" + _END
)
_STANDING = _Lazy(
    r"^(?:when(?:ever)?|every\s+time|each\s+time)\s+you\s+(?!'re|are\b|finish|get\s+a\s+chance)[^,]{1,60},\s*"
    r"(?P<lead>always|never|it'?s|use)\s+(?P<rest>.+?)" + _END
)
_SHOULD_BE_VALUE = _Lazy(
    r"^(?:the|that|this|our)\s+(?P<wrong>(?:" + _W + r"\s+){0,4}?)should\s+be\s+"
    r"(?P<right>[\w.\-/:@]*(?:\d|[\w][./_:@-][\w])[\w.\-/:@]*|\ue000\d+\ue001)(?:\s*[,;—–]\s*.*)?" + _END
)
_MEANT_NEXT = _Lazy(
    r"^(?:our|only|just|the\s+(?:real|actual|right|correct|source|live|original|proper)\b|"
    r"(?:it'?s|it\s+is|they'?re)\s+(?:in|under|at)\b)"
)
_I_SAID = _Lazy(
    r"^i\s+(?:already\s+|clearly\s+|literally\s+)?said\s+(?!(?:i|we|you|he|she|they|it|that|this|so|no|yes|"
    r"something|nothing)\b)(?P<right>(?:" + _W + r")(?:\s+" + _W + r"){0,2}?)(?:\s*[,;—–]\s*.*)?" + _END
)
_REFRAIN = _Lazy(r"^(?:please\s+)?(?:refrain|abstain)\s+from\s+(?P<wrong>.+?)" + _END)
_TONE = _Lazy(r"^(?:please\s+)?tone\s+(?:it|that|this)\s+down\b")
_MOVED_TO = _Lazy(
    r"(?:^|[:—–]\s*)we\s+(?:moved|migrated|switched)\s+(?:over\s+)?to\s+(?P<right>[^,;]{1,60}?)(?:\s+(?:ages|years|months|weeks|a\s+while)\s+"
    r"ago|\s+(?:last|this)\s+\w+)?(?:\s*[,;—–]\s*.*)?" + _END
)
_STICK_WITH = _Lazy(r"(?:^|[,;]\s*)(?:just\s+)?stick\s+with\s+(?P<right>[^,;]{1,60}?)" + _END)
_NOT_REASON = _Lazy(
    r"^(?P<right>[^,;]{1,40}?)\s*,\s*not\s+(?P<wrong>[^,;]{1,40}?)\s*[,;]\s+(?:the|it|this|that|we|our|they|since|because|as|"
    r"same|otherwise)\b.*$"
)
_ALWAYS_END = _Lazy(
    r"^(?:please\s+)?(?P<right>[^,;]{3,80}?)\s*,\s*(?:always|every\s+(?:single\s+)?time|each\s+time|from\s+now\s+on|"
    r"from\s+here\s+on(?:\s+out)?|going\s+forward)" + _END
)
_SARCASM = _Lazy(
    r"^(?:sure|great|yeah|oh\s+sure|perfect)\s*,\s*(?P<wrong>.{3,100}?)\s*[,;—–]\s*(?:what\s+could\s+(?:possibly\s+)?go\s+wrong|"
    r"that'?ll\s+(?:go|end|work\s+out)\s+(?:great|well|fine))"
)
_YOU_SET = _Lazy(
    r"\b(?:the|that|this)\s+(?:"
    + _W
    + r"\s+){0,2}you\s+(?:just\s+)?(?:set|used|picked|chose|wrote|added|put|gave)\b.*?"
    r"\bshould\s+be\s+(?P<right>" + _W + r")"
)
_CONVENTION = _Lazy(
    r"^(?P<right>.{3,100}?)\s*[,;—–]\s*(?:that'?s|that\s+is|it'?s)\s+(?:our|the)\s+(?:\w+\s+){0,2}?"
    r"(?:convention|style|rule|standard|setting|guideline|policy)\b"
)
_OVER_FROM_NOW = _Lazy(
    r"^(?P<right>[^,;]{1,40}?)\s+over\s+(?P<wrong>[^,;]{1,40}?)\s*,?\s+(?:from\s+(?:here|now)\s+on(?:\s+out)?|going\s+forward|"
    r"always|please)\b"
)
_STANDING_NEG = _Lazy(
    r"^(?P<wrong>.{1,60}?)\s+(?:shouldn'?t|should\s+not|must\s+not|mustn'?t|can'?t|cannot)\s+.*\b(?:going\s+forward|"
    r"from\s+now\s+on|from\s+here\s+on|in\s+(?:the\s+)?future|any\s*more)\b"
)
_YOU_BEEN = _Lazy(
    r"\byou(?:'ve|\s+have)\s+been\s+(?!doing|feeling|keeping|getting|working|busy|having|thinking|enjoying|looking)"
    r"(?:\w+ing)\b|\byou\s+(?:just\s+)?(?:ran|used|called|ran)\b.*\b(?:twice|again|"
    r"every\s+(?:single\s+)?time|three\s+times|(?:twice|two\s+times)\s+now)\b"
)
_YOU_MADE = _Lazy(
    r"\b(?:the|that|this|your)\s+(?:" + _W + r"\s+){0,2}you\s+(?:just\s+)?(?:generated|wrote|created|added|declared|"
    r"changed|set|used|touched|edited|picked|put|made|modified)\b"
)
_MADE_WRONG = _Lazy(
    r"\b(?:but|yet|instead|everywhere|wrong|did\s+nothing|isn'?t|is\s+not|aren'?t|doesn'?t|won'?t|should|needs\s+to|"
    r"belongs|is\s+the\s+(?:dev|test|old|wrong|legacy|generated|staging|local|template)\b)"
)
_REMEMBER = _Lazy(r"^(?:please\s+)?remember\s+to\s+(?P<right>.+?)" + _END)
_CONVENTION_IS = _Lazy(
    r"^(?:our|the)\s+(?:\w+\s+){0,2}?(?:convention|style|rule|standard)\s+(?:is|says)\s+"
    r"(?!(?:on|in|at|documented|described|written|here|there|a|an|the)\b)(?P<right>[^,;.]{2,60}?)(?:\s*[,;—–].*)?"
    + _END
)
_MOVED_IN = _Lazy(
    r"^(?P<wrong>.{1,60}?)\s+(?:moved|was\s+moved|has\s+moved)\s+to\s+(?P<right>[^,;]{1,60}?)\s+(?:back\s+)?"
    r"(?:in|since|a\s+while\s+ago|long\s+ago|years\s+ago)\b"
)
_SOMEONE_REMOVED = _Lazy(
    r"^(?:[\w.-]+\s+){1,2}(?:removed|dropped)\s+(?P<wrong>.{1,60}?)\s+(?:long\s+ago|years\s+ago|ages\s+ago|in\s+[\w.]+)\b"
)
_TWO_TOKENS = _Lazy(r"^(?P<right>[\w.\-/:@\ue000\ue001]+)\s+not\s+(?P<wrong>[\w.\-/:@\ue000\ue001]+)" + _END)
_OFF_LIMITS = _Lazy(r"^off[\s-]limits\b[^:]*:\s*(?P<wrong>.+?)" + _END)
_POLITE_USE = _Lazy(
    r"^(?:would\s+you\s+mind|could\s+you|can\s+you|please)\s+(?:using|use|switching|switch|going|go|moving|move)\b"
)
# "..., for this screen and any new ones", "in this file and everything after": a rule for later
_STANDING_MARK = _Lazy(
    r"\b(?:any\s+(?:new|future)\s+\w+|everything\s+after|from\s+now(?:\s+on)?|going\s+forward|for\s+(?:next\s+time|"
    r"the\s+future|future\s+\w+)|in\s+(?:the\s+)?future|throughout|every\s+(?:script|file|function|component|"
    r"screen|module|test)\s+you\s+(?:touch|write|add))\b"
)
# "That's a standing rule.", "That's the house style.", "That goes for every script you touch.":
# the sentence before it is the rule
_RULE_MARK = _Lazy(
    r"^(?:that'?s|this\s+is|it'?s)\s+(?:a|the|our)\s+(?:standing\s+|hard\s+|house\s+|team\s+)?"
    r"(?:rule|style|convention|standard|pattern\s+to\s+follow|way\s+we\s+do\s+(?:it|things))\b|"
    r"^that\s+goes\s+for\s+(?:every|all|any)\b|^(?:and\s+)?remember\s+(?:that|this)\s+for\s+(?:next\s+time|the\s+future|later)\b|"
    r"^stick\s+to\s+(?:that|this|it)\b|^keep\s+to\s+(?:that|this)\s+(?:format|style|pattern)\b|"
    r"^(?:and\s+)?(?:for|in)\s+any\s+(?:future|new)\s+\w+\s+(?:as\s+well|too)\b"
)
_KEEP_USING = _Lazy(r"^(?:(?:just|please)\s+)?keep\s+using\s+(?P<right>.+?)" + _END)
_LETS_USE = _Lazy(
    r"^let'?s\s+(?:use|stick\s+with|keep)\s+(?P<right>.+?)\s+(?:throughout|everywhere|from\s+now\s+on|going\s+forward)"
    + _END
)
_SPARE_ME = _Lazy(r"^(?:(?:please|just)\s+)?spare\s+me\s+(?:the\s+)?(?P<wrong>.+?)" + _END)
_LEAVE_ALONE = _Lazy(
    r"\bleave\s+(?:the\s+|my\s+|that\s+|those\s+|our\s+)?(?P<wrong>[^,;]{1,40}?)\s+(?:alone|untouched|as\s+(?:it\s+)?is)\b"
)
_REVERT_THAT = _Lazy(
    r"^(?:(?:please|just)\s+)?revert\s+(?:just\s+|only\s+)?(?:that|this|those|these)\b|"
    r"^(?:(?:would|could|can)\s+you\s+(?:kindly\s+|please\s+)?)(?:change|set|rename|switch|turn)\s+.{1,60}?\s+back\s+to\b"
)
_RULE_GATE = regex_cache.compile(
    r"rule|style|convention|standard|pattern|goes\s+for|remember|stick\s+to|keep\s+to|any\s+(?:future|new)"
)
_LAST_TIMES = _Lazy(r"\b(?:like|as|same\s+as)\s+the\s+last\s+(?:two|three|four|few|couple\s+of|\d+)\s+times\b")
_STRONG_NO = _Lazy(r"^(?:absolutely|definitely|certainly|hell)\s+not|^hell\s+no\b|^no\s+way\b|^not\s+a\s+chance\b", _F)

_REPORTED = _Lazy(
    r"\b(?:the\s+[\w-]+(?:\s+[\w-]+)?|he|she|they|someone|somebody|it|\w+'s\s+\w+)\s+(?:says?|said|wrote|writes|"
    r"commented|printed|prints|reads|complains?|complained|mentions?|mentioned|states?|claims?)\b|"
    r"\b[\w.-]+\s+(?:says?|said|printed|prints|outputs?|reads|complains?|wrote)\s*:|"
    r"\b(?:according\s+to|is\s+complaining|error:|warning:|traceback|exception)"
)
_CONDITION = _Lazy(
    r"^(?:if|when|whenever|once(?!\s+more\b)|unless|until|(?:after|before)(?!\s+(?:your|you)\b)|while|as\s+soon\s+as|"
    r"in\s+case|maybe|perhaps|"
    r"we\s+(?:could|might|should\s+probably))\b",
    _F,
)
_SELF = _Lazy(r"\b(?:i|i'?ve|i\s+have)\s+(?:gave|give|given|sent|told|typed|pasted|wrote|made|broke)\b", _F)


def strong_no(sentence: str) -> bool:
    """A flat refusal on its own ("absolutely not.", "hell no"): it rejects what came before."""
    return bool(_STRONG_NO.match(sentence.strip()))


# The words each form needs, checked as plain substrings of the lower-cased sentence before its
# pattern is compiled or run.
_GATES = {
    "is_wrong": ("wrong", "incorrect", "not right", "not correct", "not the correct", "not the right"),
    "that_is_the": (
        "the real ",
        "the actual ",
        "the live ",
        "the right ",
        "the correct ",
        "the current ",
        "the proper ",
        "the new ",
        "the main ",
    ),
    "contrast": ("not ", "rather than", "instead of"),
    "failure": (
        "blank",
        "broke",
        "break",
        "fail",
        "red",
        "crash",
        "500",
        "working",
        "longer",
        "n't",
        "not ",
        "wiped",
        "destroy",
        "deleted",
        "wrecked",
        "bad",
        "worse",
        "regress",
        "hang",
        "time",
        "refused",
        "panic",
        "segfault",
    ),
    "verdict": (
        "isn't acceptable",
        "isnt acceptable",
        "aren't acceptable",
        "isn't allowed",
        "aren't allowed",
        "isn't an option",
        "read-only for you",
        "read only for you",
        "off the table",
        "no-go",
        "no go",
        "nogo",
        "not acceptable",
        "not allowed",
        "not an option",
        "not ok",
        "forbidden",
        "banned",
        "prohibited",
        "unacceptable",
        "off-limits",
        "off limits",
        "never ok",
        "never acceptable",
        "never allowed",
        "never fine",
        "out of",
    ),
    "not_how": ("not how we do",),
    "stay_away": ("away from", "hands off", "keep it off", "stop with"),
    "not_needed": ("needed", "necessary", "wanted", "asked for", "part of", "yours to", "required", "overkill"),
    "deprecated": (
        "deprecated",
        "unsupported",
        "gone",
        "obsolete",
        "outdated",
        "ancient",
        "legacy",
        "dead",
        "removed",
        "retired",
        "way out",
        "the old",
        "no longer",
        "moved off",
        "migrated off",
        "switched off",
        "away from",
        "the generated",
        "the compiled",
        "the vendored",
        "the wrong",
        "the v",
        "the staging",
        "the test",
        "the dev",
        "the local",
        "the prod",
    ),
    "you": ("you",),
    "undo": (
        "back",
        "reverse",
        "scrap",
        "restore",
        "reset",
        "revert",
        "take ",
        "rid of",
        "put ",
        "throw",
        "undo",
        "liked the",
        "preferred the",
    ),
    "scope": (
        "only ",
        "stick to",
        "keep the",
        "beyond",
        "more than",
        "outside",
        "out of scope",
        "keep changes",
        "keep your changes",
        "keep all changes",
        "scope creep",
    ),
    "repeat": ("how many times", "once more", "over this", "over that", "over it", "time you", "same "),
    "prefer": ("prefer", "rather"),
    "standing": ("whenever you", "when you", "every time you", "each time you"),
    "from_now": ("going forward", "from now on", "from here on", "future", "anymore", "any more"),
    "misc": (
        "remember",
        "moved",
        "removed",
        "dropped",
        "limits",
        "alone",
        "untouched",
        "as it is",
        "keep using",
        "let",
        "spare me",
        "times",
        "rule",
        "style",
        "convention",
        "standard",
        "pattern",
        "goes for",
        "stick to",
        "keep to",
        "any future",
        "any new",
    ),
    "should_be": ("should be",),
    "said": ("i said", "i already said", "i clearly said", "i literally said"),
    "moved": ("moved to", "migrated to", "switched to", "moved over to", "stick with"),
    "always_end": ("always", "every time", "each time", "from now on", "going forward", "from here on"),
    "sarcasm": ("what could", "that'll go", "that'll end", "that'll work", "thatll"),
    "you_set": ("you set", "you used", "you picked", "you chose", "you wrote", "you added", "you put", "you gave"),
    "convention": ("convention", "style", "rule", "standard", "setting", "guideline", "policy"),
    "refrain": (
        "refrain",
        "abstain",
        "tone it down",
        "tone that down",
        "tone this down",
        "let's not",
        "lets not",
        "let's never",
        "no circumstances",
    ),
    "swap": ("swap", "switch", "replace"),
    "verdict2": ("lose ", "ditch ", "do "),
    "language": ("this isn't", "this is not", "this ain't"),
}


def _has(low: str, gate: str) -> bool:
    return any(word in low for word in _GATES[gate])


class _Sentence:
    """What every form of :func:`match` reads: the sentence, its lowercase, the message around it."""

    __slots__ = ("b", "low", "message", "body", "after_no")

    def __init__(self, b: str, low: str, message: str, body: str, after_no: bool):
        self.b, self.low, self.message, self.body, self.after_no = b, low, message, body, after_no


# A form's builder returns _NEXT to let the next form try; anything else is the answer (None too).
_NEXT = object()


def _standing(m, s):
    # "when you run kubectl, always pass --context": a standing rule, not a one-off condition
    if _REPORTED.search(s.b):
        return _NEXT
    return ("verdict", m.group("rest"), "") if m.group("lead").lower() == "never" else ("always", "", m.group("rest"))


def _contrast(_m, s):
    b = s.b
    m = _CONTRAST.match(b) or _PLEASE_NOT.match(b)
    if (
        m
        and len(m.group("wrong").split()) <= 8
        and not _CLAUSE_WORD.search(m.group("right"))
        and not _NOT_A_THING.match(m.group("wrong"))
        # "is it possible to set up not a local database but ...": "is" first asks a question
        and not b.lstrip().lower().startswith(("is ", "are "))
    ):
        return "contrast", _head(m.group("wrong")), m.group("right")
    # "Mnn not sure": doubt, not "sure" banned for "Mnn" ("still not working" stays a verdict)
    if (m := _OVER_FROM_NOW.match(b) or _TWO_TOKENS.match(b)) and m.group("wrong").lower().rstrip(".") not in _DOUBT:
        return "contrast", m.group("wrong"), m.group("right")
    m = _INSTEAD.search(b)
    right = m and (m.group("right") or m.group("right2"))
    if m and not _CLAUSE_WORD.search(right) and not _CONDITION.match(right):
        return "contrast", m.group("wrong") or m.group("wrong2"), right
    m = _QUOTED_NOT.search(b)
    if m:
        return "contrast", m.group("wrong"), m.group("right")
    m = _NOT_REASON.match(b)
    if m and not _CLAUSE_WORD.search(m.group("right")):
        return "contrast", m.group("wrong"), m.group("right")
    return _NEXT


def _broke(_m, s):
    # the failure in the same sentence, or in the one before ("now nothing compiles. you removed ...")
    b = s.b
    around = b if _has(s.low, "failure") and _FAILURE.search(b) else _prev_sentence(s.message, s.body)
    if not (around and _FAILURE.search(around)):
        around = _next_sentence(s.message, s.body)
    if (
        around
        and _FAILURE.search(around)
        and not any(p.search(t) for t in (b, around) for p in (_SUCCESS, _SELF, _LONG_AGO))
    ):
        return "broke", "", ""
    return _NEXT


def _deprecated(_m, s):
    b, message, body = s.b, s.message, s.body
    m = _DEPRECATED.match(b)
    if m and (_REPLACEMENT.search(m.group("rest")) or _short_rest(message, body)):
        use = _USE_LEAD.search(m.group("rest"))
        return "deprecated", _tail(m.group("wrong")), _head(use.group("right")) if use else ""
    m = _MOVED_OFF.match(b)
    if m and m.group("rest"):
        return "deprecated", m.group("wrong"), m.group("rest") or ""
    m = _THAT_IS_THE_OLD.match(b)
    if m and (
        _short_rest(message, body) or regex_cache.search(r"\b(?:is|are|lives?)\b", _next_sentence(message, body))
    ):
        return "wrong-thing", m.group("wrong"), ""
    return _NEXT


def _you(_m, s):
    b = s.b
    m = _YOU_DID.search(b)
    if (
        m
        and (_MEANT.search(m.group("what")) or _MEANT_NEXT.match(_next_sentence(s.message, s.body)))
        and not _SUCCESS.search(b)
    ):
        return "you-did", "", ""
    m = _YOU_WANT.match(b)
    if m:
        return "you-want", "", m.group("right")
    if _YOU_BEEN.search(b) and not _SUCCESS.search(b):
        return "you-keep", "", ""
    if _YOU_MADE.search(b) and _MADE_WRONG.search(b) and not _SUCCESS.search(b):
        return "you-did", "", ""
    return _NEXT


def _refrain(_m, s):
    b = s.b
    if m := _REFRAIN.match(b):
        return "verdict", m.group("wrong"), ""
    if _TONE.match(b):
        return "style", "", ""
    if m := _LETS_NOT.match(b) or _NO_CIRCUMSTANCES.match(b):
        return "verdict", m.group("wrong"), ""
    return _NEXT


def _prefer(_m, s):
    b = s.b
    m = _PREFER.match(b) or _PREFER_IF.match(b)
    if m:
        return "prefer", m.group("wrong"), m.group("right")
    m = _RATHER.match(b)
    if m:
        return "prefer", m.group("wrong") or m.group("wrong2") or "", m.group("right") or ""
    return _NEXT


def _wrong_only(signal):
    return lambda m, s: (signal, m.group("wrong"), "")


def _right_only(signal):
    return lambda m, s: (signal, "", m.group("right"))


def _bare(signal):
    return lambda m, s: (signal, "", "")


# The forms, in the order they are tried: (name, gate, find, build).
# gate: a _GATES name, a tuple of words (any in the lowercased sentence), a predicate on the
# sentence, or None; find: b -> match (None: the form has no single pattern); build(m, s).
_FORMS: tuple = (
    ("standing rule", "standing", _STANDING.match, _standing),
    ("condition or report", None, lambda b: _CONDITION.match(b) or _REPORTED.search(b), lambda m, s: None),
    ("that's a ... after no", lambda s: s.after_no, _THAT_IS_A.match, _wrong_only("wrong-thing")),
    ("is wrong", "is_wrong", _IS_WRONG.match, _wrong_only("wrong-thing")),
    (
        "that's the X, not Y",
        "that_is_the",
        _THAT_IS_THE.match,
        lambda m, s: ("contrast", m.group("wrong"), m.group("right")),
    ),
    ("contrast", "contrast", None, _contrast),
    ("you set", "you_set", _YOU_SET.search, _right_only("you-did")),
    ("should be", "should_be", _SHOULD_BE_VALUE.match, _right_only("contrast")),
    ("you broke it", lambda s: "you" in s.low or s.low.startswith(("that ", "this ")), _AGENT_CHANGE.search, _broke),
    ("verdict", "verdict", _VERDICT.match, lambda m, s: ("verdict", _tail(m.group("wrong") or m.group("wrong2")), "")),
    ("stay out", "verdict", _STAY_OUT.match, lambda m, s: ("verdict", _tail(m.group("wrong")), "")),
    ("not how", "not_how", _NOT_HOW.match, lambda m, s: ("verdict", "", m.group("rest"))),
    (
        "stay away",
        "stay_away",
        _STAY_AWAY.match,
        lambda m, s: (
            "verdict",
            _head(m.group("wrong") or m.group("subj") or m.group("wrong2") or m.group("wrong3") or ""),
            "",
        ),
    ),
    (
        "not needed",
        "not_needed",
        _NOT_NEEDED.match,
        lambda m, s: (
            "scope",
            _tail(next(g for g in m.group("wrong", "wrong2", "wrong3", "wrong4", "wrong5") if g)),
            "",
        ),
    ),
    ("deprecated", "deprecated", None, _deprecated),
    ("you did, want, keep", "you", None, _you),
    ("from now on, never", "from_now", _STANDING_NEG.match, _wrong_only("verdict")),
    ("remember", ("remember",), _REMEMBER.match, _right_only("always")),
    ("the convention is", "convention", _CONVENTION_IS.match, _right_only("prefer")),
    ("moved into", ("moved",), _MOVED_IN.match, lambda m, s: ("deprecated", m.group("wrong"), m.group("right"))),
    (
        "someone removed",
        ("removed", "dropped"),
        _SOMEONE_REMOVED.match,
        lambda m, s: ("deprecated", m.group("wrong"), "") if _short_rest(s.message, s.body) else _NEXT,
    ),
    ("off limits", ("limits",), _OFF_LIMITS.match, _wrong_only("verdict")),
    ("undo", "undo", lambda b: _UNDO.match(b) or _REVERT_THAT.match(b), _bare("revert")),
    ("leave alone", ("alone", "untouched", "as it is"), _LEAVE_ALONE.search, _wrong_only("scope")),
    ("keep using", ("keep using",), _KEEP_USING.match, _right_only("prefer")),
    ("let's use", ("let",), _LETS_USE.match, _right_only("always")),
    ("spare me", ("spare me",), _SPARE_ME.match, _wrong_only("verdict")),
    ("like the last times", ("times",), _LAST_TIMES.search, _bare("repeat")),
    (
        "rule mark",
        lambda s: _RULE_GATE.search(s.low),
        _RULE_MARK.match,
        lambda m, s: ("always", "", before) if (before := _prev_sentence(s.message, s.body)) else _NEXT,
    ),
    ("scope", "scope", _SCOPE.search, _bare("scope")),
    ("repeat", "repeat", _REPEAT.match, _bare("repeat")),
    ("moved to, stick with", "moved", lambda b: _MOVED_TO.search(b) or _STICK_WITH.search(b), _right_only("prefer")),
    (
        "always at the end",
        "always_end",
        _ALWAYS_END.match,
        lambda m, s: _NEXT if _CLAUSE_WORD.search(m.group("right")) else ("always", "", m.group("right")),
    ),
    ("sarcasm", "sarcasm", _SARCASM.match, _wrong_only("verdict")),
    ("convention", "convention", _CONVENTION.match, _right_only("prefer")),
    ("I said", "said", _I_SAID.match, _right_only("prefer")),
    ("refrain", "refrain", None, _refrain),
    ("prefer", "prefer", None, _prefer),
    ("swap", "swap", _SWAP.match, lambda m, s: ("swap", "", m.group("right") or m.group("right2") or "")),
    ("lose, we don't do", "verdict2", lambda b: _LOSE.match(b) or _WE_DONT_DO.match(b), _wrong_only("verdict")),
    ("not this language", "language", _NOT_LANGUAGE.match, _right_only("style")),
)

# The table as walked: a gate named in _GATES replaced by its words once, at import.
_FORM_TABLE = tuple(
    (name, _GATES[gate] if isinstance(gate, str) else gate, find, build) for name, gate, find, build in _FORMS
)


def match(body: str, message: str, *, after_no: bool = False) -> tuple[str, str, str] | None:
    """``(signal, wrong, right)`` for a sentence ``body`` of ``message`` that corrects the agent
    without the openings the first stage knows, or None. ``after_no``: the sentence follows a
    "no" / "nope", so "that's the generated file" names the wrong thing."""
    b = body.strip()
    low = b.lower().replace("’", "'")
    if not b or not any(_has(low, gate) for gate in _GATES) and not after_no:
        return None
    s = _Sentence(b, low, message, body, after_no)
    for _name, gate, find, build in _FORM_TABLE:
        if gate is not None:
            if isinstance(gate, tuple):
                for word in gate:
                    if word in low:
                        break
                else:
                    continue
            elif not gate(s):
                continue
        m = None
        if find is not None:
            m = find(b)
            if not m:
                continue
        out = build(m, s)
        if out is not _NEXT:
            return out
    return None


def _head(part: str) -> str:
    """The part before a following clause: "the public API, other teams use it" -> "the public API"."""
    return regex_cache.split(r"\s*[,;:—–]\s+", part.strip(), maxsplit=1)[0]


def _tail(part: str) -> str:
    """The part after a leading clause: "that's not how we do it: raw SQL" -> "raw SQL"."""
    return regex_cache.split(r"[,;:—–]\s+", part.strip())[-1]


# Sentences of the whole message; unlike the detector's own split, ";" does not end one here.
_SENTENCE_END = regex_cache.compile(r"(?<=[.!?])\s+|\n+")


def _prev_sentence(message: str, body: str) -> str:
    """The sentence before ``body`` in the message, or ""."""
    i = message.find(body)
    if i <= 0:
        return ""
    before = message[:i].strip()
    return _SENTENCE_END.split(before)[-1].strip() if before else ""


def _next_sentence(message: str, body: str) -> str:
    """The sentence after ``body`` in the message, or ""."""
    i = message.find(body)
    if i < 0:
        return ""
    rest = message[i + len(body) :].strip(" .!,;:—–-\n")
    return _SENTENCE_END.split(rest, maxsplit=1)[0].strip()


def _short_rest(message: str, body: str) -> bool:
    """Whether the replacement follows ``body`` as a sentence of its own: a bare name or a few
    words ("networking.k8s.io/v1"), or one that says to use it; not a question."""
    nxt = _next_sentence(message, body)
    if len(nxt) < 2:
        return False
    if nxt.endswith("?"):
        return bool(_POLITE_USE.match(nxt))
    return len(nxt.split()) <= 4 or bool(
        _REPLACEMENT.match(nxt) or _STANDING_MARK.search(nxt) or "instead" in nxt.lower()
    )
