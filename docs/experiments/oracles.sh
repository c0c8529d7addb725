#!/usr/bin/env bash
# oracles.sh [LIMIT]: runs every oracle on the examples and the pendigits
# models with qrc compare (CPU seconds, LIMIT per method, default 30s) and
# prints, per model and oracle, the CPU time to a feasible iterate
# (infeasibility <= 1e-6) within 1% / 0.1% / 0.01% of the best known
# objective: the best feasible value any method reached, or the reference
# value given below (IPOPT's, for pendigits.scale). Needs ../shared/data
# for the pendigits rows. Writes the compare outputs under /tmp/qrc-oracles.
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=${1:-30s}
go build -o /tmp/qrc-oracles-bin ./cmd/qrc
qrc=/tmp/qrc-oracles-bin
out=/tmp/qrc-oracles
shared=../shared/data

run() { # name reference methods model args...
  local name=$1 ref=$2 methods=$3; shift 3
  local dir=$out/$name
  rm -rf "$dir"
  "$qrc" compare "$@" --methods "$methods" --time-limit "$limit" --out "$dir" >/dev/null 2>&1 || true
  local best=$ref
  if [ "$best" = "-" ]; then
    best=$(cat "$dir"/*.csv | awk -F, '$2=="outer" && $8<=1e-6 {if (b=="" || $7<b) b=$7} END {printf "%.10g", b}')
  fi
  for m in ${methods//,/ }; do
    [ -f "$dir/$m.csv" ] || continue
    awk -F, -v best="$best" -v name="$name" -v m="$m" '
      $2=="outer" && $8<=1e-6 {
        s = (best < 0 ? -best : best); if (s < 1e-9) s = 1e-9
        for (i = 1; i <= 3; i++) if (!(i in hit) && $7 <= best + 10^(-1-i)*s) hit[i] = $3
        if (fin == "" || $7 < fin) fin = $7
      }
      END {
        printf "| %s | %s | %s |", name, m, best
        for (i = 1; i <= 3; i++) printf " %s |", (i in hit) ? sprintf("%.3g", hit[i]) : "-"
        printf " %.7g |\n", fin
      }' "$dir/$m.csv"
  done
}

echo "| model | oracle | best known | to 1% (CPU s) | to 0.1% | to 0.01% | best feasible reached |"
echo "|---|---|---|---|---|---|---|"
run phase - iqrc,bundle,stochastic examples/phase.qrc
run fairness - iqrc,smooth,bundle,stochastic examples/fairness.qrc
run npc-digits - iqrc,smooth,bundle,stochastic examples/npc.qrc
if [ -f $shared/pendigits.scale ]; then
  run npc-pendigits.scale 3.5153887 iqrc,smooth,bundle,stochastic,penalty examples/npc.qrc --data train=$shared/pendigits.scale
  run npc-hinge-pendigits.scale - iqrc,bundle,stochastic docs/experiments/npc_hinge.qrc --data train=$shared/pendigits.scale
  run npc-pendigits - iqrc,smooth,bundle,stochastic,penalty examples/npc.qrc --data train=$shared/pendigits
else
  echo "(../shared/data is absent: the pendigits rows are left out)"
fi
