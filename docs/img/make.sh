#!/usr/bin/env bash
# Redraws the README's pictures of report.html: a 16-rank ring barrier and a recursive-doubling
# barrier on a 4x4 torus, as headless Chromium shows them (Debian's `chromium`).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for algo in ring rd; do
  ./target/release/mgensim run scenarios/barrier.toml --set network.dims=[4,4] \
    --set workload.ranks=16 --set workload.args.algo=$algo --out "$tmp/$algo" -q >/dev/null
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1200,1900 \
    --virtual-time-budget=2000 --screenshot="docs/img/report-$algo.png" \
    "file://$tmp/$algo/report.html" 2>/dev/null
done
echo "docs/img/report-ring.png docs/img/report-rd.png"
