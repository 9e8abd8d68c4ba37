#!/usr/bin/env bash
# Authenticode signing, run by the release workflow only when the signing secrets exist:
# WINDOWS_CERT_PFX (the certificate, base64) and WINDOWS_CERT_PASSWORD.
#
#   bash packaging/windows/sign.sh FILE...
set -euo pipefail
# Git Bash turns arguments that look like paths ("/VERYSILENT", "/f") into Windows paths
# when it starts a Windows program; these scripts convert their paths themselves (cygpath).
export MSYS_NO_PATHCONV=1 MSYS2_ARG_CONV_EXCL="*"
: "${WINDOWS_CERT_PFX:?the certificate (base64) is not set}"
: "${WINDOWS_CERT_PASSWORD:?the password of the certificate is not set}"
PFX="$(mktemp -d)/hearth.pfx"
trap 'rm -f "$PFX"' EXIT
printf '%s' "$WINDOWS_CERT_PFX" | base64 -d >"$PFX"
SIGNTOOL="${SIGNTOOL:-$(command -v signtool || find "/c/Program Files (x86)/Windows Kits/10/bin" -name signtool.exe -path '*x64*' | sort | tail -1)}"
for file in "$@"; do
  "$SIGNTOOL" sign /f "$(cygpath -w "$PFX")" /p "$WINDOWS_CERT_PASSWORD" /fd sha256 \
    /tr http://timestamp.digicert.com /td sha256 "$file"
done
