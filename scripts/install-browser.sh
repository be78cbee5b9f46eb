#!/usr/bin/env bash
# Installs what the browser test (tests/server/query_page.rs) needs, from Debian's packages only:
# chromium, its WebDriver (chromedriver) and a CJK font so that 帥 and 將 do not render as boxes.
# Never downloads a browser build of its own. Needs root (or sudo) and apt-get.
set -euo pipefail
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
fc-list 2>/dev/null | grep -qi "wenquanyi zen hei" || need+=(fonts-wqy-zenhei)
if [ ${#need[@]} -eq 0 ]; then
    echo "install-browser: chromium, chromedriver and a CJK font are installed"
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-browser: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq chromium chromium-driver fonts-wqy-zenhei >/dev/null
chromium --version
chromedriver --version
