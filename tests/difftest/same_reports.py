#!/usr/bin/env python3
"""Checks that two builds of `diving` play the same simulations.

A speed change to the engine or a built-in bot must not change a single game. This runs the
same seeded `diving sim --json` commands with both binaries and compares the reports, leaving
out the timing fields. Usage:

    python3 tests/difftest/same_reports.py OLD_BINARY NEW_BINARY

Exits 1 and names the runs whose reports differ.

Against a build from before issue 19 the two `house` runs with greedy bots differ, and must:
greedy now plans with the ruleset's hooks (the house mods change oxygen costs). The `house`
run with random bots still plays the same games.

Against a build from before the paired report named what the games share, the `--baseline`
run differs only by the two fields added to `paired` (`shared`, `deals_differ`): the games are
the same.

Against a build from before a bot's interval was taken over the games (a bot in several
seats wins at most one of them a game), the runs with a bot in several seats differ in that
bot's `low` and `high` only: the games are the same.
"""
import json
import subprocess
import sys

RUNS = [
    ["sim", "--games", "3000", "--seed", "7", "--players", "greedy,greedy"],
    ["sim", "--games", "3000", "--seed", "7", "--players", "random,random,random,random"],
    ["sim", "--games", "3000", "--seed", "7", "--players", "greedy,random,greedy"],
    ["--ruleset", "house", "sim", "--games", "3000", "--seed", "7", "--players", "greedy,random"],
    ["--ruleset", "house", "sim", "--games", "2000", "--seed", "7", "--players", "random,random,random"],
    ["sim", "--games", "300", "--seed", "7", "--players", "mcts:50,greedy"],
    ["--ruleset", "house", "sim", "--games", "2000", "--seed", "7", "--players", "greedy,random",
     "--baseline", "standard"],
    # Two decks: hands can repeat a card.
    ["sim", "--games", "1000", "--seed", "3", "--players",
     "random,greedy,random,greedy,random,greedy,random,greedy"],
]

TIMING = {"speed", "games_per_second", "turns_per_second", "elapsed", "seconds"}


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def report(binary, args):
    out = subprocess.run([binary, "--json", *args], capture_output=True, text=True, check=True)
    return without_timing(json.loads(out.stdout))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = sys.argv[1:]
    differ = 0
    for args in RUNS:
        same = report(old, args) == report(new, args)
        differ += not same
        print("same     " if same else "DIFFERENT", " ".join(args))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
