#!/usr/bin/env bash
# Fails when a native addon needs a glibc symbol version above the baseline (default 2.28), or
# a dynamic libstdc++ (the addons link it statically). Usage: check-glibc.sh [file.node ...];
# without arguments it checks every addon the build made and every prebuilt package holds.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASELINE="${BARACUDA_GLIBC_MAX:-2.28}"
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  shopt -s nullglob
  files=(packages/*/build/Release/*.node packages/native-linux-*/*.node)
fi
[ ${#files[@]} -gt 0 ] || { echo "check-glibc: no .node file found (build first)" >&2; exit 1; }

status=0
for file in "${files[@]}"; do
  # readelf reads any ELF target, so the cross-built arm64 addon is checked by the same tool.
  versions=$(readelf -W --dyn-syms "$file" | grep -oE '[A-Za-z0-9_]+@GLIBC_[0-9.]+' | sort -u || true)
  highest=$(printf '%s\n' "$versions" | grep -oE 'GLIBC_[0-9.]+' | sed 's/GLIBC_//' | sort -uV | tail -1)
  above=$(printf '%s\n' "$versions" | awk -F'@GLIBC_' -v max="$BASELINE" 'NF == 2 {
      split($2, a, "."); split(max, b, ".")
      if (a[1] > b[1] || (a[1] == b[1] && a[2] + 0 > b[2] + 0)) printf " %s", $0 }')
  arch=$(readelf -h "$file" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
  if readelf -d "$file" | grep -q 'NEEDED.*libstdc++'; then
    echo "FAIL $file ($arch): links libstdc++ dynamically" >&2; status=1
  elif [ -n "$above" ]; then
    echo "FAIL $file ($arch): needs glibc above $BASELINE:$above" >&2; status=1
  else
    echo "ok   $file ($arch): highest GLIBC_${highest:-none} <= $BASELINE"
  fi
done
exit $status
