#!/usr/bin/env bash
# Installs the real servers the integration tests run against (Debian packages):
# Alertmanager. Safe to run again; needs root or sudo for apt-get.
set -euo pipefail
missing=()
command -v prometheus-alertmanager >/dev/null 2>&1 || command -v alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
