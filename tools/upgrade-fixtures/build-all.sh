#!/bin/bash
# Rebuilds fixtures/upgrade/schema-N for every older state schema: builds the agent of the last
# commit that wrote schema N (in a throwaway worktree under $WORK) and runs make-fixture.py with it.
#
# usage: tools/upgrade-fixtures/build-all.sh [N...]     (default: every schema in the table)
#
# When a commit raises StateStore.schemaVersion to V+1, add the line `V <that commit's parent>`
# below, run this script for V, commit fixtures/upgrade/schema-V, and UpgradeTests picks it up.
set -euo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-$(command -v swift || echo /opt/swift/usr/bin/swift)}
WORK=${WORK:-/tmp/hearthloom-upgrade-builds}

LAST_COMMIT_OF_SCHEMA=(
    "1 8ffb220becc41ef6d8fa83b7765fc8a985d10c1c"   # before 22078f6 (schema 2: the state store journal)
    "2 afe9ac0d1efd6e656f4951869a1cf83f89448b8c"   # before fe1459c (schema 3: health's shared sample buckets)
    "3 6f2fd7d829ccdf6bb65679ef122bdc98cb1e69e5"   # before 1b0c294 (schema 4: one generic record store)
)

wanted=("$@")
for line in "${LAST_COMMIT_OF_SCHEMA[@]}"; do
    read -r schema commit <<<"$line"
    if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $schema "* ]]; then continue; fi
    tree="$WORK/schema-$schema"
    [ -d "$tree" ] || git worktree add --detach "$tree" "$commit"
    "$SWIFT" build -c release --package-path "$tree"
    python3 tools/upgrade-fixtures/make-fixture.py --schema "$schema" --commit "$commit" \
        --binary "$tree/.build/release/hearthloom-ingest"
done
echo "kept worktrees under $WORK (remove with: git worktree remove --force DIR)"
