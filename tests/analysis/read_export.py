"""Reads a `simpairs export` directory with DuckDB and prints what the Rust test checks, as JSON:
row counts, each pair's national matchpoint total summed from the results table, the last
generation's standings, and the answers to the README's example queries (those it has, run as
printed, and a check of the first against each pair's own first standing)."""
import re
import json
import sys

import duckdb

d = sys.argv[1]
readme = open(sys.argv[2], encoding="utf-8").read() if len(sys.argv) > 2 else ""
con = duckdb.connect()
for table in ["results", "submissions", "dead_letters", "standings"]:
    con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{d}/{table}.parquet')")


def rows(sql):
    cur = con.execute(sql)
    names = [c[0] for c in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


out = {
    "counts": {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
               for t in ["results", "submissions", "dead_letters", "standings"]},
    # Each pair's national total: its NS results' NS matchpoints and its EW results' EW ones.
    "totals": rows("""
        SELECT club, section, pair, direction, sum(mp) AS mp, count(*) AS boards FROM (
          SELECT club, section, ns_pair AS pair, CASE movement WHEN 'howell' THEN '' ELSE 'NS' END AS direction,
                 national_ns_mp AS mp FROM results WHERE national_ns_mp IS NOT NULL
          UNION ALL
          SELECT club, section, ew_pair, CASE movement WHEN 'howell' THEN '' ELSE 'EW' END,
                 national_ew_mp FROM results WHERE national_ew_mp IS NOT NULL)
        GROUP BY ALL ORDER BY ALL"""),
    "last_standings": rows("""
        SELECT club, section, pair, direction, place, percent FROM standings
        WHERE generation = (SELECT max(generation) FROM standings) ORDER BY ALL"""),
    # The README's example queries.
    "top_movers": rows("""
        WITH first_last AS (
          SELECT club, section, pair, direction,
                 arg_min(place, generation) AS first_place, arg_max(place, generation) AS last_place
          FROM standings GROUP BY ALL)
        SELECT *, first_place - last_place AS gained FROM first_last ORDER BY gained DESC, club, section, pair, direction LIMIT 5"""),
    "board_contracts": rows("""
        SELECT contract, declarer, count(*) AS tables, round(avg(national_ns_percent), 2) AS ns_percent
        FROM results WHERE board = 1 AND contract IS NOT NULL GROUP BY ALL ORDER BY tables DESC, contract, declarer"""),
    "club_average": rows("""
        SELECT club, round(avg(percent), 2) AS average_percent, count(*) AS pairs FROM standings
        WHERE generation = (SELECT max(generation) FROM standings) GROUP BY club ORDER BY club"""),
}


def readme_queries():
    """The README's DuckDB queries, each run as printed on this export."""
    queries = []
    for block in re.findall(r"```sql\n(.*?)```", readme, re.S):
        for statement in block.split(";"):
            if statement.strip() and not all(
                    line.strip().startswith("--") or not line.strip() for line in statement.splitlines()):
                queries.append(statement.replace("'out/", f"'{d}/"))
    return [rows(q) for q in queries]


def moved_misread(moved):
    """The rows of the README's first query whose percentage on arrival is not that pair's own
    first standing (the pair read by club, section, number and direction)."""
    wrong = []
    for r in moved:
        first = con.execute("""
            SELECT arg_min(percent, generation) FROM standings
            WHERE club = ? AND pair = ? AND direction = ? AND players = ?""",
                            [r["club"], r["pair"], r.get("direction"), r["players"]]).fetchone()[0]
        if first is None or abs(first - r["on_arrival"]) > 1e-9:
            wrong.append(r)
    return wrong


out["readme"] = readme_queries()
out["readme_moved_misread"] = moved_misread(out["readme"][0]) if out["readme"] else []
print(json.dumps(out, default=str))
