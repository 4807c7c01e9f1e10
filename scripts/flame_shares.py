#!/usr/bin/env python3
"""Shares of CPU samples by phase, from the folded stacks `scripts/flamegraph` keeps with FOLDED:

    PERF_FREQ=499 FOLDED=score.txt scripts/flamegraph score-L.svg "score L.csv" target/release/simpairs score data/L.csv
    scripts/flame_shares.py score.txt score      (or: ingest)

A sample counts for the first phase, in the order listed, that names a frame of its stack. A
sample with none (DWARF unwinding often finds no caller for a memcpy, a page fault or a closure
inlined into rayon's workers) counts by its leaf, and what is left is listed by leaf too, so
that the table says what was not attributed as well as what was. (docs/benchmarks.md, "Where
the time goes".)
"""

import collections
import re
import sys

PHASES = {
    "score": [
        ("rows copied into the joined columns", ["RowSlot::fill", "join::::place"]),
        ("chunks parsed", ["read_chunk_fast"]),
        ("the file read (pread)", ["pread"]),
        ("names joined", ["field::join", "take_names_of"]),
        ("duplicates", ["duplicate_rows"]),
        ("scored and ranked", ["simpairs_scoring::engine", "simpairs_scoring::standings"]),
        ("the table", ["report::"]),
    ],
    "ingest": [
        ("judge: seal signatures", ["check_signer"]),
        ("judge: results checked and built into fields", ["check_results"]),
        ("judge: results decoded from the messages", ["applied_lines"]),
        ("judge: the rest", ["judge::judge"]),
        ("announce: packed and compressed", ["Packer::compressed"]),
        ("announce: SubmissionApplied encoded", ["encode_submission_applied"]),
        ("announce: the rest", ["announce::announce"]),
        ("clubs' own fields scored", ["simpairs_scoring::scored"]),
        ("national boards rescored", ["Aggregator::derive"]),
        ("output written, hashed, signed", ["append_sealed"]),
        ("records staged", ["stage_batch"]),
        ("log read", ["embedded::reader"]),
        ("records decoded", ["state::decode"]),
    ],
}

# Leaves the CSV reader inlines, whose caller is often not found.
PARSING_LEAVES = {"eight_digits", "digits", "plain", "field_end", "cached_pair", "push_mut"}


def leaf_phase(kind, leaf, stack):
    if kind == "score" and leaf in PARSING_LEAVES:
        return "chunks parsed"
    if kind == "score" and "memchr::count_raw" in leaf:
        return "first pass: lines counted"
    if leaf.startswith(("__memcpy", "__memmove")):
        return "memcpy, caller not found"
    if "fault" in stack or "clear_page" in stack:
        return "page faults, caller not found"
    if any(k in leaf for k in ("malloc", "free", "unlink_chunk", "consolidate")):
        return "allocation, caller not found"
    return None


def main():
    path, kind = sys.argv[1], sys.argv[2]
    phases = PHASES[kind]
    shares, unknown, total = collections.Counter(), collections.Counter(), 0
    for line in open(path):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        n = int(n)
        total += n
        frames = re.split(r";(?! )", stack)[1:]
        phase = next((name for name, subs in phases if any(s in f for f in frames for s in subs)), None)
        if phase is None:
            leaf = frames[-1].replace("_[i]", "")
            phase = leaf_phase(kind, leaf, ";".join(frames))
            if phase is None:
                phase = "other, caller not found"
                unknown[leaf] += n
        shares[phase] += n
    for phase, n in shares.most_common():
        print(f"{100 * n / total:5.1f}%  {phase}")
    for leaf, n in unknown.most_common(15):
        print(f"         {100 * n / total:5.1f}%  other: {leaf[:80]}")


if __name__ == "__main__":
    main()
