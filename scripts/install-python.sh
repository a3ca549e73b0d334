#!/usr/bin/env bash
# Puts the `chipless` command of the build in BUILD_DIR on the PATH (/usr/local/bin) and the
# package of this source tree on /usr/bin/python3's path (a .pth file in its site folder),
# so that `chipless study ...` and `python3 -m chipless.study ...` work from any directory,
# and `import torch` brings the `spyre` and `tpu` devices with it.
# Idempotent and silent when all is in place; uses sudo only when not root.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: install-python.sh BUILD_DIR}" && pwd)"
site="$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ "$(readlink /usr/local/bin/chipless 2>/dev/null)" != "$build/bin/chipless" ]; then
  $SUDO mkdir -p /usr/local/bin
  $SUDO ln -sfn "$build/bin/chipless" /usr/local/bin/chipless
  echo "install-python: /usr/local/bin/chipless -> $build/bin/chipless"
fi
# The .pth file also loads chipless's PyTorch devices when a program imports torch
# (python/chipless_autoload.py; CHIPLESS_TORCH_AUTOLOAD=0 turns that off).
pth="$(printf '%s\nimport chipless_autoload' "$src/python")"
if [ "$(cat "$site/chipless.pth" 2>/dev/null)" != "$pth" ]; then
  $SUDO mkdir -p "$site"
  echo "$pth" | $SUDO tee "$site/chipless.pth" >/dev/null
  echo "install-python: $site/chipless.pth -> $src/python (and the torch autoload)"
fi
