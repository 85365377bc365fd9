#!/usr/bin/env bash
# The mutating proxy in CI.
#
#   tools/mutating-proxy/ci.sh selftest   the proxy's self-test: its frame code against the
#                                         codec and the corpus, pass-through passes every
#                                         scenario (quick; .ci/run runs it)
#   tools/mutating-proxy/ci.sh            the self-test, then the measure of the suite with
#                                         issue 13's bar: every fault the corpus exercises is
#                                         caught, every legal variant passes, and at least
#                                         90 % of failing scenarios name first a requirement
#                                         of their fault; then that the measure's fast
#                                         path (replay) gives, on a sample of the faults
#                                         and variants, exactly what running every
#                                         scenario live gives; then the broken harnesses:
#                                         the runner survives each
#
# Needs only python3 and the release build of the command line, which it builds.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --release --locked -p openrdma
python3 tools/mutating-proxy/selftest.py
if [ "${1:-}" = selftest ]; then
    exit 0
fi
out=${MUTATING_PROXY_OUT:-$(mktemp -d)}
mkdir -p "$out"
python3 tools/mutating-proxy/measure.py --check --jobs 2 \
    --md "$out/measure.md" --json "$out/measure.json" --workdir "$out/runs"
python3 tools/mutating-proxy/measure.py --agree --every 31 --jobs 2 \
    --workdir "$out/agree" >/dev/null
python3 tools/mutating-proxy/measure_broken.py --check \
    --md "$out/broken.md" --workdir "$out/broken"
