#!/usr/bin/env bash
# Rebuilds src/bench/group-costs.ts, the cost table the shard split (`bench --shard k/M`, `bench
# shards`) balances by, from the raw JSON of the last full-suite run (results/suite/, merged by
# `bench merge`; its rows keep every shard's select, first-call and per-call times, and from
# issue 24 on each group's wall time). Run from the repository root after a new run is merged:
#   bash packages/conformance/scripts/rebuild-group-costs.sh [report.json...]
# and commit the table with the run. Needs the built CLI and pnpm on PATH (scripts/bootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."
reports=("$@")
[ ${#reports[@]} -gt 0 ] || reports=(results/suite/bench-suite.json)
node dist/cli.cjs bench costs --out src/bench/group-costs.ts "${reports[@]}"
../../node_modules/.bin/biome format --write src/bench/group-costs.ts >/dev/null
# The CLI bundles the table: rebuild it, then print the split the next run's shards will use.
pnpm --filter @baracuda/conformance build >/dev/null
node dist/cli.cjs bench shards 2 --vs-torch --algos heuristic,autotune --rounds 3 --reps 30 --warmup 5 --tuned-on f16:ndhwc --time-budget-s 450
node dist/cli.cjs bench shards 3 --vs-torch --algos heuristic,autotune --rounds 3 --reps 30 --warmup 5 --tuned-on f16:ndhwc --time-budget-s 450
