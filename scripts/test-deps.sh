#!/usr/bin/env bash
# Installs the real servers the integration tests run against (Debian packages):
# Alertmanager, Prometheus with promtool, Chromium (the status page's browser test drives
# it with playwright-core; npm's browser downloads do not work everywhere), and PostgreSQL (the
# tests start throwaway clusters of their own with its initdb and pg_ctl: test/helpers/postgres.ts;
# the cluster the package sets up is never used). Safe to run again; needs root or sudo for apt-get.
set -euo pipefail
missing=()
command -v prometheus-alertmanager >/dev/null 2>&1 || command -v alertmanager >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
{ command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; } || missing+=(prometheus)
# fonts-liberation is only a recommendation of chromium: without a font the screenshot shows boxes.
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-liberation)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
