#!/usr/bin/env bash
# Create the peer-systems virtual environment at benchmarks/.venv-peers
# (smartnoise-synth 1.0.8: AIM, MST, MWEM over mbi 1.1.0 and jax 0.10.2).
#
# Idempotent: a stamp file records the requirement set that was installed;
# when it matches, the script exits at once.  Delete the venv (or pass
# --force) to rebuild.
#
# By default torch/opacus are NOT installed: smartnoise-synth needs them only
# for its GAN synthesizers (DPCTGAN, PATEGAN, ...), and PyPI's default Linux
# torch wheel pulls ~6 GB of CUDA libraries.  smartnoise-synth is therefore
# installed with --no-deps plus an explicit list of its other dependencies.
# Set PEERS_WITH_TORCH=1 to install the full dependency set instead.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/benchmarks/.venv-peers"
stamp="$venv/.peers-installed"
python="${PYTHON:-python3}"

# Pinned versions (the set the BENCHMARKS.md figures were measured with).
SNSYNTH="smartnoise-synth==1.0.8"
DEPS=(
  "smartnoise-sql==1.0.10"
  "opendp==0.14.2"
  "mbi==1.1.0"
  "jax==0.10.2"
  "jaxlib==0.10.2"
  "numpy==2.4.6"
  "pandas==2.3.3"
  "scipy==1.17.1"
  "networkx==3.6.1"
  "disjoint-set==0.9.0"
  "pac-synth==0.0.8"
  "Faker>=17.0.0"
)
with_torch="${PEERS_WITH_TORCH:-0}"
spec="$SNSYNTH ${DEPS[*]} with_torch=$with_torch"

die() { echo "setup_peers.sh: ERROR: $*" >&2; exit 1; }

force=0
[[ "${1:-}" == "--force" ]] && force=1

if [[ $force == 0 && -x "$venv/bin/python" && -f "$stamp" ]] \
   && [[ "$(cat "$stamp")" == "$spec" ]]; then
  echo "peers venv up to date: $venv"
  exit 0
fi

command -v "$python" >/dev/null || die "$python not found"
"$python" -c 'import sys; assert (3, 10) <= sys.version_info[:2] < (3, 15)' \
  || die "smartnoise-synth 1.0.8 needs Python >=3.10,<3.15 ($python is $("$python" -V 2>&1))"

rm -f "$stamp"
if [[ ! -x "$venv/bin/python" ]]; then
  echo "creating venv $venv"
  "$python" -m venv "$venv" || die "could not create venv at $venv (is python3-venv installed?)"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check)

"${pip[@]}" install -q --upgrade pip || die "could not upgrade pip in $venv"

if [[ "$with_torch" == "1" ]]; then
  echo "installing $SNSYNTH with all its dependencies (torch, opacus: large)"
  "${pip[@]}" install "$SNSYNTH" "${DEPS[@]}" \
    || die "pip install of $SNSYNTH (full dependencies) failed; see the pip output above"
else
  echo "installing ${DEPS[*]}"
  "${pip[@]}" install "${DEPS[@]}" \
    || die "pip install of smartnoise-synth's dependencies failed; see the pip output above"
  echo "installing $SNSYNTH (--no-deps: torch/opacus left out)"
  "${pip[@]}" install --no-deps "$SNSYNTH" \
    || die "pip install of $SNSYNTH failed; see the pip output above"
fi

# Smoke test: the three synthesizers must import and jax must run on CPU.
"$venv/bin/python" - <<'EOF' || die "installed packages do not import cleanly (see traceback above)"
import jax.numpy as jnp
import mbi
from snsynth import Synthesizer
from snsynth.mst import MSTSynthesizer
from snsynth.aim import AIMSynthesizer
from snsynth.mwem import MWEMSynthesizer
from importlib.metadata import version
assert float(jnp.ones(3).sum()) == 3.0
print("ok: smartnoise-synth", version("smartnoise-synth"), "mbi", version("mbi"),
      "jax", version("jax"), "opendp", version("opendp"), "numpy", version("numpy"))
EOF

echo "$spec" > "$stamp"
echo "peers venv ready: $venv"
