#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests, once (playwright cannot download browsers
# on these machines; playwright-core drives /usr/bin/chromium instead), and a small CJK font so
# screenshots of Chinese text show glyphs.
set -euo pipefail
if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi 'WenQuanYi'; then
  exit 0
fi
echo "[setup-browser] installing chromium and fonts-wqy-microhei from Debian"
if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium fonts-wqy-microhei
