#!/bin/sh
# The container's default config (Dockerfile): the shipped config with its rules beside it
# and the state on the volume. Fails when the shipped config no longer has the lines edited.
# Usage: scripts/container-config.sh OUT_DIR   (run from the project root)
set -eu
out=$1
mkdir -p "$out/rules"
cp rules/*.yaml "$out/rules/"
sed -e 's#^  - \.\./rules/#  - rules/#' \
    -e 's|^  path: data/avawatch\.db .*|  path: /var/lib/avawatch/avawatch.db    # on the volume|' \
    config/avawatch.yaml > "$out/avawatch.yaml"
grep -q '^  - rules/validators\.yaml' "$out/avawatch.yaml"
! grep -q '\.\./rules/' "$out/avawatch.yaml"
grep -q '^  path: /var/lib/avawatch/avawatch\.db' "$out/avawatch.yaml"
