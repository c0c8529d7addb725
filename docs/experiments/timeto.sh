#!/usr/bin/env bash
# timeto.sh BEST TRACE.csv: the seconds at which a solve's trace (qrc solve
# --trace) first reaches a point with infeasibility <= 1e-6 and objective
# within 1%, 0.1% and 0.01% of BEST (relative to max(|BEST|, 1e-12)), or
# "-" when it never does. Used for the table in docs/performance.md.
set -euo pipefail
best=$1 trace=$2
awk -F, -v best="$best" '
NR == 1 { next }
{
  obj = $4; inf = $5; t = $1
  scale = (best < 0 ? -best : best); if (scale < 1e-12) scale = 1e-12
  if (inf <= 1e-6) {
    for (i = 1; i <= 3; i++) {
      tol = 10^(-1-i)   # 1e-2, 1e-3, 1e-4
      if (!(i in hit) && obj <= best + tol*scale) hit[i] = t
    }
  }
}
END {
  out = ""
  for (i = 1; i <= 3; i++) out = out (i > 1 ? " / " : "") ((i in hit) ? sprintf("%.3g s", hit[i]) : "-")
  print out
}' "$trace"
