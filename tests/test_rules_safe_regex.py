"""User regexes: clear errors, and no way for a pattern or a huge text to stall a hook.

No timing assertions (the project's rule): the tests assert verdicts, and that work that could
not be finished is reported as `unchecked` rather than hanging or being guessed.
"""

from __future__ import annotations

import pytest

from memory_cli.rules.safe_regex import (
    InvalidRegex,
    RegexInfo,
    SafeRegex,
    analyze_regex,
    compile_user_regex,
    fork_available,
    search_many,
)

BIG = ("x = 1\n" * 1_700_000)[:10_000_000]

needs_fork = pytest.mark.skipif(not fork_available(), reason="needs os.fork")


@pytest.mark.parametrize(
    "pattern,fragment",
    [
        ("a(", "missing ), unterminated subpattern at position 1"),
        ("*x", "nothing to repeat at position 0"),
        ("[z-a]", "bad character range"),
        ("(?P<n>a)(?P<n>b)", "redefinition of group name"),
        ("", "empty regular expression"),
    ],
)
def test_invalid_regexes_are_refused_with_the_reason(pattern, fragment):
    with pytest.raises(InvalidRegex) as e:
        compile_user_regex(pattern)
    assert fragment in str(e.value)
    if pattern:
        assert repr(pattern) in str(e.value)


def test_case_insensitive_unless_asked():
    assert compile_user_regex(r"pythonw\.exe").search("PYTHONW.EXE")
    assert not compile_user_regex(r"pythonw\.exe", case_sensitive=True).search("PYTHONW.EXE")


@pytest.mark.parametrize(
    "pattern,risk",
    [
        (r"pythonw\.exe", "linear"),
        (r"\d{3}-\d{4}", "linear"),
        (r"a.*b", "poly"),
        (r"git\s+push\s+--force", "poly"),
        (r"(a+)+$", "exp"),
        (r"(a*)*b", "exp"),
        (r"(\w+\s?)*$", "exp"),
        (r"(a|ab)*c", "exp"),
        (r"(x)\1", "exp"),
    ],
)
def test_risk_classes(pattern, risk):
    assert analyze_regex(pattern).risk == risk


def test_analysis_is_plain_data_that_round_trips():
    info = analyze_regex(r"\bconsole\.log\(")
    assert info.required == ("console.log(",)
    assert info.anchor == ("console.log(", 0, 0)
    again = RegexInfo.from_dict(info.to_dict())
    assert again == info
    assert SafeRegex(r"\bconsole\.log\(", info=info.to_dict()).search("x console.LOG(1)")


@pytest.mark.parametrize(
    "pattern,text,expected",
    [
        (r"pythonw\.exe", "run PYTHONW.EXE now", "PYTHONW.EXE"),
        (r"\bconsole\.log\b", "myconsole.logger()", None),
        (r"\bconsole\.log\b", "  console.log(x)", "console.log"),
        (r"(^|/)\.env$", "/home/u/p/.env", "/.env"),
        (r"(^|/)\.env$", "/home/u/p/.env.example", None),
        (r"[A-Z]{3}-\d+", "ticket abc-12", "abc-12"),
        (r"git\s+push\s+--force", "git   push --force", "git   push --force"),
        (r"(?-i:Secret)", "secret", None),
    ],
)
def test_verdicts_match_python_re(pattern, text, expected):
    out = search_many([(SafeRegex(pattern), text)], budget_ms=1000)
    assert out.matches.get(0) == expected
    assert not out.unchecked


def test_a_literal_at_the_end_of_a_10mb_write_is_found():
    text = BIG + "\nsubprocess.run(['PYTHONW.EXE', 'app.py'])\n"
    jobs = [
        (SafeRegex(r"pythonw\.exe"), text),
        (SafeRegex(r"\bpythonw\.exe\b"), text),
        (SafeRegex(r"subprocess\.run\(\['pythonw"), text),
    ]
    out = search_many(jobs, budget_ms=2000)
    assert out.matches == {0: "PYTHONW.EXE", 1: "PYTHONW.EXE", 2: "subprocess.run(['PYTHONW"}
    assert out.unchecked == []


def test_absent_required_text_decides_without_running_the_regex():
    # (a+)+$ would take ages on this text, but it contains no "zq" at all.
    out = search_many([(SafeRegex(r"zq(a+)+$"), "a" * 5000 + "!")], budget_ms=1000)
    assert out.matches == {} and out.unchecked == [] and not out.forked


@needs_fork
def test_catastrophic_pattern_is_cut_off_and_reported_not_waited_for():
    evil = SafeRegex(r"(a+)+$")
    fine = SafeRegex(r"pythonw\.exe")
    out = search_many([(evil, "a" * 40 + "!"), (fine, "pythonw.exe x")], budget_ms=150)
    assert out.unchecked == [0]
    assert out.matches == {1: "pythonw.exe"}
    assert out.timed_out and out.forked


@needs_fork
def test_catastrophic_pattern_still_decides_small_inputs_in_the_child():
    out = search_many([(SafeRegex(r"(a+)+$"), "aaaa")], budget_ms=2000)
    assert out.matches == {0: "aaaa"} and out.forked and not out.unchecked


@needs_fork
def test_one_stuck_pattern_does_not_starve_the_others():
    text = BIG + "\ntoken=1234567812345678\n"
    # "y" is present, so the shortcut cannot rule the stuck pattern out.
    jobs = [(SafeRegex(r"(x+x+)+y"), "x" * 40 + "!y"), (SafeRegex(r"\d{16}"), text)]
    out = search_many(jobs, budget_ms=3000)
    assert out.matches.get(1) == "1234567812345678"
    assert out.unchecked == [0]


def test_cheap_jobs_are_decided_even_when_the_budget_is_already_spent():
    # A slow start (a busy machine) must not turn a microsecond check into an allow.
    jobs = [
        (SafeRegex("x"), "x"),
        (SafeRegex(r"rm\s+-rf\s+/"), "sudo rm  -rf / now"),
        (SafeRegex(r"(^|/)\.env$"), "/p/.env"),
        (SafeRegex(r"\d{3}-\d{4}"), "call 555-1234"),
    ]
    out = search_many(jobs, budget_ms=0)
    assert out.unchecked == [] and sorted(out.matches) == [0, 1, 2, 3]


def test_risky_or_large_jobs_are_not_guessed_when_the_budget_is_already_spent():
    jobs = [(SafeRegex(r"(a+)+$"), "a" * 40 + "!"), (SafeRegex(r"x\d+y"), BIG + "x1y")]
    out = search_many(jobs, budget_ms=0)
    assert out.unchecked == [0, 1] and out.matches == {}
    assert out.reasons == {0: "budget", 1: "budget"}


def test_the_ceiling_stops_even_cheap_work_and_says_so():
    import time

    out = search_many([(SafeRegex("x"), "x")], deadline=time.perf_counter() + 1, ceiling=time.process_time() - 1)
    assert out.unchecked == [0] and out.reasons == {0: "ceiling"}


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a{1,999}){1,999}$",
        r"((a{1,10}){1,10}){1,10}$",
        r"(a|a){1,1000}y",
        r"(a|aa){1,200}$",
        r"(\w{1,30}\s?){1,30}$",
        r"(?:x{2,50}){2,50}z",
    ],
)
def test_nested_or_alternated_bounded_repeats_are_risky(pattern):
    assert analyze_regex(pattern).risk == "exp"


@pytest.mark.parametrize(
    "pattern,risk",
    [
        (r"(\.\d{1,3}){3}", "linear"),
        (r"(foo|bar){1,3}", "linear"),
        (r"password.{0,20}=", "linear"),
        (r"AKIA[0-9A-Z]{16}", "linear"),
        (r"a{1,999}$", "poly"),
    ],
)
def test_small_bounded_repeats_stay_cheap(pattern, risk):
    assert analyze_regex(pattern).risk == risk


@needs_fork
@pytest.mark.parametrize(
    "pattern,text",
    [
        (r"(a{1,999}){1,999}$", "a" * 30 + "!"),
        (r"((a{1,10}){1,10}){1,10}$", "a" * 30 + "!"),
        (r"(a|a){1,1000}y", "a" * 30 + "!y"),
    ],
)
def test_nested_bounded_repeats_run_under_the_deadline_not_in_process(pattern, text):
    out = search_many([(SafeRegex(pattern), text)], budget_ms=300)
    assert out.forked and out.matches == {}


def test_search_raises_timeout_instead_of_guessing():
    with pytest.raises(TimeoutError):
        SafeRegex(r"(a+)+$").search("a" * 40 + "!", budget_ms=100)
