#!/usr/bin/env python3
"""Score readers of meaning on the labelled real prompts: the agent asked to record lessons, the
hook's word detector held out by person, and the two together.

The agent path: a model behind an OpenAI-compatible endpoint (``--base-url``; for a local one,
``scripts/serve_local_model.py``) gets what the agent in a session has: the lesson instruction
memory-cli teaches at session start (``capture.instructions.lessons_text``, paid once per
session), the agent's last turn before the prompt (``tests/fixtures/real/context.jsonl``: its
last words and the tools it called) and the person's prompt. It is then asked whether, under that
instruction, it records a lesson: yes or no, read as the probability of "yes" from the first
answer token's log probabilities (so a ranking, ROC AUC, is measured too). Where it says yes, it
is asked for the ``quote`` and ``lesson`` it would record, and the quote goes through the same
check as ``record_correction`` (it must be in what the person typed): an invented quote is a
refused lesson, not a recorded one.

The detector: the rules and the model of feature version 3 at its shipped threshold, trained on
the other people of each of five person folds (as ``scripts/cv_capture_real.py`` does), so every
verdict is on a person the detector never saw. The agent path needs no training: no prompt it
is scored on was used to build it.

The session-end reader (``--session-end``): the model ``llm.provider = "openai-compatible"``
would use at session end, given each prompt as the end of a session (the agent's last turn, then
the person's prompt), with memory-cli's own summary request (``llm.prompts.SAVE_SYSTEM``,
``save_prompt``, ``SAVE_TOOL``, through ``llm.providers.ask``); it counts as finding the
correction when a correction it returns passes ``llm.validate.check_corrections`` (its quote is
in what the person typed). It gets no extra instruction and reads nothing the agent did not see.

Together: "either" (the agent records or the detector keeps it for review) and "both" (they
agree). A small local model is a lower bound of what the agent in a real session (a Claude-class
model that read the whole conversation) does: say which model in every figure.

    .venv/bin/python scripts/score_readers.py --base-url http://127.0.0.1:18777/v1 [--limit 240] [--seed 7]
    .venv/bin/python scripts/score_readers.py --base-url ... --session-end   # and the session-end reader
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
sys.path.insert(0, str(ROOT / "scripts"))

from cv_capture_real import Data, person_folds  # noqa: E402

PROMPT_CHARS = 1500
TURN_CHARS = 700
QUESTION = (
    "Stop before answering the person. Under the Lessons instruction above, do you record a lesson "
    "for the person's last message? Answer with one word: yes or no."
)
QUESTION_OUTSIDE = (
    "Under that instruction, does the agent record a lesson for the person's message? Answer with one word: yes or no."
)
QUOTE_QUESTION = (
    "You decided to record a lesson. Give the record_correction call's input as one JSON object: "
    '{"quote": "<the person\'s words, verbatim>", "lesson": "<one line: what to do instead>"}'
)


def lessons_instruction() -> str:
    from memory_cli.capture import instructions

    return instructions.lessons_text()


def quote_is_typed(quote: str, typed: str) -> bool:
    """The same check ``record_correction`` makes, when the module exists; else whitespace- and
    case-insensitive containment (what that check does)."""
    try:
        from memory_cli.capture.lessons import quote_found  # type: ignore[attr-defined]

        return bool(quote_found(quote, [typed]))
    except ImportError:

        def norm(s: str) -> str:
            return " ".join(s.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"').lower().split())

        q = norm(quote).strip(" \"'")
        return len(q) >= 3 and q in norm(typed)


def chat(base_url: str, messages: list[dict], *, max_tokens: int, logprobs: bool, timeout: float) -> dict:
    """One chat completion; retried twice after a timeout or a dropped connection (a local
    server on a busy machine), then the error is raised."""
    for attempt in range(3):
        try:
            return _chat(base_url, messages, max_tokens=max_tokens, logprobs=logprobs, timeout=timeout)
        except (TimeoutError, OSError):
            if attempt == 2:
                raise
            time.sleep(5)
    raise AssertionError("unreachable")


def _chat(base_url: str, messages: list[dict], *, max_tokens: int, logprobs: bool, timeout: float) -> dict:
    body: dict = {"messages": messages, "max_tokens": max_tokens, "temperature": 0}
    if logprobs:
        body.update(logprobs=True, top_logprobs=10)
    req = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def p_yes(answer: dict) -> float:
    """P(yes) from the first token's top log probabilities (yes/no in any case, with or without
    a leading space), renormalised over the two; the text answer when none is listed."""
    choice = answer["choices"][0]
    tops = ((choice.get("logprobs") or {}).get("content") or [{}])[0].get("top_logprobs") or []
    yes = no = 0.0
    for t in tops:
        word = str(t.get("token", "")).strip().lower()
        if word in ("yes", "y"):
            yes += math.exp(t["logprob"])
        elif word in ("no", "n"):
            no += math.exp(t["logprob"])
    if yes + no > 0:
        return yes / (yes + no)
    return 1.0 if str(choice["message"].get("content") or "").strip().lower().startswith("yes") else 0.0


def _agent_turn(turn) -> str:
    words = (turn.text or "").strip()[-TURN_CHARS:] if turn.found else ""
    tools = ", ".join(turn.tools[-8:]) if turn.found and turn.tools else ""
    agent = words or "(no earlier turn: this is the session's first message)"
    if tools:
        agent += f"\n\n[tools called in that turn: {tools}]"
    return agent


def conversation(row: dict, turn, framing: str) -> list[dict]:
    """``conversation``: the agent's turn and the person's message as the chat it is, the
    instruction as the system text (what the agent in a session sees). ``question``: the same
    three texts in one message, asked about from outside (easier for a small model)."""
    if framing == "question":
        return [
            {
                "role": "user",
                "content": "A coding agent works under this instruction:\n\n"
                + LESSONS
                + "\n\nThe agent's last turn:\n<agent>\n"
                + _agent_turn(turn)
                + "\n</agent>\n\n"
                + "The person's next message:\n<person>\n"
                + row["prompt"][:PROMPT_CHARS]
                + "\n</person>",
            }
        ]
    return [
        {"role": "system", "content": "You are a coding agent working in the person's repository.\n\n" + LESSONS},
        {"role": "assistant", "content": _agent_turn(turn)},
        {"role": "user", "content": row["prompt"][:PROMPT_CHARS]},
    ]


def auc(scores: list[float], labels: list[int]) -> float:
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def prf(hits: list[bool], labels: list[int]) -> tuple[int, int, int, float, float, float]:
    tp = sum(1 for h, y in zip(hits, labels) if h and y)
    fp = sum(1 for h, y in zip(hits, labels) if h and not y)
    fn = sum(1 for h, y in zip(hits, labels) if not h and y)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return tp, fp, fn, p, r, (2 * p * r / (p + r) if p + r else 0.0)


def detector_held_out(data: Data, threshold: float = 0.35) -> tuple[dict[int, bool], dict[int, float]]:
    """Each prompt's detector verdict and probability from a model trained without its person."""
    n = len(data.real)
    hits: dict[int, bool] = {}
    probs: dict[int, float] = {}
    for fold in person_folds(data.real, 0):
        test = [i for i in range(n) if data.real[i]["person"] in fold]
        train = [i for i in range(n) if data.real[i]["person"] not in fold]
        p = data.probs(data.train(train, 3, True), test, None)
        for i in test:
            probs[i] = max(p[i], 1.0 if data.rules[i] else 0.0)
            hits[i] = data.rules[i] or p[i] >= threshold
    return hits, probs


LESSONS = ""


class SessionEndReader:
    """memory-cli's session-end summary, through the openai-compatible provider, on one prompt
    at a time: a throwaway store holds the provider's daily call count."""

    def __init__(self, base_url: str, timeout: float):
        import tempfile

        from memory_cli.store.db import Store

        self.dir = tempfile.mkdtemp(prefix="score-session-end-")
        self.store = Store.open(str(Path(self.dir) / "scores.db"))
        self.settings = {
            "llm": {
                "provider": "openai-compatible",
                "base_url": base_url,
                "timeout_s": int(timeout),
                "max_calls_per_day": 100000,
            }
        }

    def finds(self, row: dict, turn) -> tuple[bool, list[dict]]:
        """(a correction it returned passed the quote check, what it returned)."""
        from memory_cli.llm import prompts, providers
        from memory_cli.llm.validate import check_corrections

        text = f"[assistant] {_agent_turn(turn)[:TURN_CHARS]}\n[person] {row['prompt'][:PROMPT_CHARS]}"
        answer = providers.ask(
            self.store,
            self.settings,
            providers.provider_for(self.settings),
            purpose="summarize",
            system=prompts.SAVE_SYSTEM,
            prompt=prompts.save_prompt(text, project=None, existing=[]),
            tool=prompts.SAVE_TOOL,
        )
        kept, _refused = check_corrections(answer.input, typed=[row["prompt"]])
        return bool(kept), kept


def main() -> int:
    global LESSONS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", required=True, help="the OpenAI-compatible server, up to /v1")
    ap.add_argument("--model-name", default="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (llama.cpp, CPU)")
    ap.add_argument("--limit", type=int, default=240, help="prompts scored, drawn at random (seeded)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threshold", type=float, default=0.5, help="P(yes) at which the agent records")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", help="write each prompt's scores here (JSON Lines)")
    ap.add_argument("--framing", choices=("conversation", "question"), default="conversation")
    ap.add_argument("--session-end", action="store_true", help="also score the session-end reader")
    args = ap.parse_args()
    session_end = SessionEndReader(args.base_url, args.timeout) if args.session_end else None
    ended: list[bool] = []
    LESSONS = lessons_instruction()
    data = Data()
    det_hit, det_p = detector_held_out(data)
    idx = list(range(len(data.real)))
    random.Random(args.seed).shuffle(idx)
    idx = sorted(idx[: args.limit])
    labels = [int(data.real[i]["correction"]) for i in idx]
    print(
        f"{len(idx)} of {len(data.real)} real prompts drawn at random (seed {args.seed}), "
        f"{sum(labels)} corrections, {len({data.real[i]['person'] for i in idx})} people; "
        f"agent path: {args.model_name} at {args.base_url}, framing {args.framing}",
        file=sys.stderr,
    )
    agent_p: list[float] = []
    recorded: list[bool] = []
    refused = 0
    started = time.monotonic()
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    for k, i in enumerate(idx):
        row, turn = data.real[i], data.turns[i]
        msgs = conversation(row, turn, args.framing)
        if args.framing == "question":
            ask_msgs = [{"role": "user", "content": msgs[0]["content"] + "\n\n" + QUESTION_OUTSIDE}]
        else:
            ask_msgs = msgs + [{"role": "system", "content": QUESTION}]
        ans = chat(args.base_url, ask_msgs, max_tokens=1, logprobs=True, timeout=args.timeout)
        p = p_yes(ans)
        rec = False
        quote = lesson = None
        if p >= args.threshold:
            got = chat(
                args.base_url,
                (
                    [{"role": "user", "content": msgs[0]["content"] + "\n\n" + QUOTE_QUESTION}]
                    if args.framing == "question"
                    else msgs + [{"role": "system", "content": QUOTE_QUESTION}]
                ),
                max_tokens=100,
                logprobs=False,
                timeout=args.timeout,
            )
            text = str(got["choices"][0]["message"].get("content") or "")
            try:
                obj = json.loads(text[text.find("{") : text.rfind("}") + 1])
                quote, lesson = str(obj.get("quote") or ""), str(obj.get("lesson") or "")
            except ValueError:
                quote = lesson = ""
            rec = bool(quote) and quote_is_typed(quote, row["prompt"])
            refused += not rec
        agent_p.append(p)
        recorded.append(rec)
        found: list[dict] = []
        if session_end is not None:
            try:
                hit, found = session_end.finds(row, turn)
            except Exception as e:  # an answer the provider refuses: no correction found
                hit, found = False, [{"error": f"{type(e).__name__}: {e}"[:200]}]
            ended.append(hit)
        if out:
            out.write(
                json.dumps(
                    {
                        "i": i,
                        "label": labels[k],
                        "p_yes": round(p, 4),
                        "recorded": rec,
                        "quote": quote,
                        "lesson": lesson,
                        "detector": det_hit[i],
                        "session_end": found if session_end is not None else None,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        if (k + 1) % 20 == 0:
            rate = (time.monotonic() - started) / (k + 1)
            print(f"  {k + 1}/{len(idx)} scored, {rate:.1f} s a prompt", file=sys.stderr, flush=True)
    if out:
        out.close()
    det = [det_hit[i] for i in idx]
    said_yes = [p >= args.threshold for p in agent_p]
    rows = [
        ("detector alone (held out by person)", det, [det_p[i] for i in idx]),
        (f"agent says yes (P(yes) >= {args.threshold})", said_yes, agent_p),
        ("agent records (yes, and its quote passes the check)", recorded, None),
        ("either: agent records or detector keeps", [a or d for a, d in zip(recorded, det)], None),
        ("both agree", [a and d for a, d in zip(recorded, det)], None),
    ]
    if session_end is not None:
        rows += [
            ("session-end reader finds it (its quote passes the check)", ended, None),
            ("session-end reader or detector", [a or d for a, d in zip(ended, det)], None),
        ]
    print(f"\n{'reader':<54}{'TP':>5}{'FP':>5}{'FN':>5}{'prec':>7}{'rec':>7}{'F1':>7}{'AUC':>7}")
    for name, hits, scores in rows:
        tp, fp, fn, p, r, f1 = prf(hits, labels)
        a = f"{auc(scores, labels):>7.3f}" if scores else f"{'':>7}"
        print(f"{name:<54}{tp:>5}{fp:>5}{fn:>5}{p:>7.2f}{r:>7.2f}{f1:>7.2f}{a}")
    print(
        f"\nquotes refused by the check: {refused} of {sum(said_yes)} yes answers; "
        f"{(time.monotonic() - started) / max(1, len(idx)):.1f} s a prompt; "
        "prompts on which the agent is told anything extra by the hook for this: 0 "
        "(the instruction is in the session-start context only)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
