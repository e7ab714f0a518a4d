#!/usr/bin/env bash
# Leave the bundled checkpoint (18 MB) out of the tree that travels to a lent GPU, and bring it back.
# The tree is limited to 64 MiB: the repository's files (34 MB), the packed encoder (29 MB) and a packed
# init checkpoint of the 320-wide model (14 MB) are 77 MB together; a stage that trains another model
# does not need the bundled one. Run in the repository root, here:
#   bash tools/gpu_stage/slim_tree.sh on    # before the call: the file is untracked in the index and
#                                           # ignored in .git/info/exclude; it stays on disk
#   bash tools/gpu_stage/slim_tree.sh off   # after the call: tracked again, as before
# Commit nothing while it is on (git status shows the file as deleted).
set -euo pipefail
LEFT_OUT=assets/stickgen-default/model.safetensors
EXCLUDE=$(git rev-parse --git-path info/exclude)
case "${1:-}" in
    on)
        git diff --quiet HEAD -- "$LEFT_OUT" || { echo "$LEFT_OUT differs from HEAD; commit or restore it first" >&2; exit 1; }
        git rm -q --cached -- "$LEFT_OUT"
        grep -qxF "/$LEFT_OUT" "$EXCLUDE" 2>/dev/null || echo "/$LEFT_OUT" >> "$EXCLUDE"
        echo "left out of the tree: $LEFT_OUT (bash $0 off brings it back)" ;;
    off)
        git reset -q HEAD -- "$LEFT_OUT"
        grep -vxF "/$LEFT_OUT" "$EXCLUDE" > "$EXCLUDE.tmp" || true
        mv "$EXCLUDE.tmp" "$EXCLUDE"
        git diff --quiet HEAD -- "$LEFT_OUT" && echo "tracked again: $LEFT_OUT" ;;
    *) echo "usage: bash $0 on|off" >&2; exit 2 ;;
esac
