#!/usr/bin/env python3
"""Shares of CPU samples by phase, from the folded stacks `scripts/flamegraph` keeps with FOLDED:

    PERF_FREQ=499 FOLDED=score.txt scripts/flamegraph score-L.svg "score L.csv" target/release/simpairs score data/L.csv
    scripts/flame_shares.py score.txt score      (or: ingest, replay)

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
        ("the file read (pread: the kernel's copy from the page cache)", ["pread"]),
        ("chunks parsed", ["read_chunk_with", "read_chunk_fast"]),
        ("chunks cut at line ends, quotes looked for", ["csv_parts::read_range", "chunk_bytes"]),
        ("chunks' boards noted for the duplicate check", ["join::Part::new", "boards_played"]),
        ("chunks joined in order (names, rows appended)", ["join_in_order", "Joiner::add"]),
        ("duplicates", ["duplicate_rows"]),
        ("scored and ranked", ["simpairs_scoring::engine", "simpairs_scoring::standings", "radix::"]),
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
        ("national boards rescored", ["score_boards_growing"]),
        ("board scores and standings made into events", ["derive::board_events", "derive::standings_event", "keep_changed"]),
        ("output written, hashed, signed", ["append_sealed"]),
        ("records staged", ["stage_batch", "stage_decoded"]),
        ("log read", ["embedded::reader"]),
        ("records decoded (lines skimmed)", ["state::decode", "staging::decoded", "skim::"]),
    ],
    "replay": [
        ("index: seal signatures", ["check_signer"]),
        ("index: judge, results checked and built into fields", ["check_results"]),
        ("index: judge, results decoded from the messages", ["applied_lines"]),
        ("index: judge, the rest", ["judge::judge"]),
        ("index: records decoded (lines skimmed)", ["state::decode"]),
        ("index: records staged", ["stage_decoded", "stage_at"]),
        ("index: log read", ["embedded::reader"]),
        ("index: what applied encoded as the index holds it", ["announce::announce", "encode_submission_applied"]),
        ("index: written", ["history::store::write"]),
        ("answer: the national field joined from the clubs' fields", ["replay_at", "by_club_into", "ClubsField", "Field::append", "Field::concat"]),
        ("answer: scored", ["simpairs_scoring::engine", "simpairs_scoring::standings"]),
        ("answer: JSON written", ["write_json_of", "report::"]),
        ("answer: the rest", ["commands::replay::run"]),
    ],
}

# Leaves the CSV reader inlines, whose caller is often not found.
PARSING_LEAVES = {"eight_digits", "digits", "plain", "field_end", "cached_pair", "push_mut"}

# Leaves of the production build whose caller is often not found (inlined into rayon's workers),
# put down to the phase their own name belongs to.
JUDGE_BUILT = ["push_typed", "typed_pair", "typed_row", "Rules::check", "table_order", "NumberTables::unit", "Field::pair_numbered"]
LEAVES = {
    "ingest": [
        ("judge: results checked and built into fields", JUDGE_BUILT),
        ("BLAKE3, caller not found (the submissions' digests, the output's record hashes)", ["blake3_"]),
        ("SHA-512, caller not found (Ed25519: the seals verified, the output signed)", ["sha512"]),
        ("the kernel's copies into and out of the page cache", ["copy_folio_from_iter", "_copy_to_iter", "filemap_read"]),
    ],
    "replay": [
        ("index: judge, results checked and built into fields", JUDGE_BUILT),
        ("index: records decoded (lines skimmed)", ["Codec::skim"]),
        ("index: judge, the submissions' digests (BLAKE3)", ["blake3_"]),
        # The JSON reads each result from the field, and its texts, as it writes it.
        ("answer: JSON written", ["Field::result", "result_json::"]),
    ],
}


def leaf_phase(kind, leaf, stack):
    if kind == "score" and leaf in PARSING_LEAVES:
        return "chunks parsed"
    if kind == "score" and "memchr::count_raw" in leaf:
        return "first pass: lines counted"
    for phase, names in LEAVES.get(kind, []):
        if any(name in leaf for name in names):
            return phase
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
