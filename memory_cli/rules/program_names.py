"""How a program's name is compared with a command rule's: one decision, shared by the rule set
(its index of program keys), the engine (which words of a line may name one) and the command
patterns (which program a parsed command runs). Standard library only; nothing imported.
"""


def versionless(word: str) -> str:
    """pip under a versioned name (``pip3``, ``pip3.11``, ``pip-3.11``) is pip; any other word
    is itself. The one place this is decided (``command_pattern.normalize_program`` calls it)."""
    if word.startswith("pip") and len(word) > 3:
        version = word[3:].lstrip("-")
        if version and version.replace(".", "").isdigit():
            return "pip"
    return word
