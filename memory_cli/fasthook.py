"""The command Claude Code runs for each hook event (``memory-cli install`` registers it):

    <python> -I -S <package>/memory_cli/fasthook.py [--path DIR]... [--db PATH] hook <Event>

Kept to a few lines because a script is compiled from source on every start, while modules
load from bytecode: the work is in :mod:`memory_cli.hooks.entry`.
"""

import sys
from os.path import abspath, dirname

here = dirname(abspath(__file__))
sys.path.append(dirname(here))
from memory_cli.hooks.entry import main  # noqa: E402

main(sys.argv[1:], here)
