#!/usr/bin/env bash
# Signing and notarisation on macOS, run by the release workflow only when the secrets
# exist: MACOS_CERT_P12 (base64) and MACOS_CERT_PASSWORD to sign with a Developer ID;
# APPLE_ID, APPLE_TEAM_ID and APPLE_APP_PASSWORD to notarise.
#
#   bash packaging/macos/sign.sh app     # sign dist/Hearth.app (before the dmg step)
#   bash packaging/macos/sign.sh dmg     # notarise and staple the .dmg (after it)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=packaging/lib.sh
. packaging/lib.sh
case "${1:-}" in
  app)
    : "${MACOS_CERT_P12:?the certificate (base64) is not set}"
    : "${MACOS_CERT_PASSWORD:?the password of the certificate is not set}"
    keychain="$(mktemp -d)/signing.keychain-db"
    certificate="$(mktemp -d)/hearth.p12"
    printf '%s' "$MACOS_CERT_P12" | base64 --decode >"$certificate"
    security create-keychain -p "" "$keychain"
    security set-keychain-settings "$keychain"
    security unlock-keychain -p "" "$keychain"
    security import "$certificate" -k "$keychain" -P "$MACOS_CERT_PASSWORD" -T /usr/bin/codesign
    security set-key-partition-list -S apple-tool:,apple: -s -k "" "$keychain" >/dev/null
    security list-keychains -d user -s "$keychain"
    rm -f "$certificate"
    identity="$(security find-identity -v -p codesigning "$keychain" | sed -n 's/.*"\(Developer ID Application.*\)"/\1/p' | head -1)"
    [ -n "$identity" ] || { echo "the certificate holds no Developer ID Application identity"; exit 2; }
    # Inside out, never --deep: --deep signs a PyInstaller bundle's Qt frameworks as plain
    # folders ("bundle format unrecognized") and gives every file the app's entitlements.
    # First each Mach-O file (libraries, Python extensions, the frameworks' binaries),
    # deepest first, then each framework as a bundle, then the app with its entitlements.
    sign() { codesign --force --options runtime --timestamp --sign "$identity" "$@"; }
    app=dist/Hearth.app
    main="$app/Contents/MacOS/hearth"
    find "$app/Contents" -type f ! -path "$main" -print0 | while IFS= read -r -d '' file; do
      if file -b "$file" | grep -q 'Mach-O'; then
        printf '%s\t%s\n' "$(tr -dc / <<<"$file" | wc -c)" "$file"
      fi
    done | sort -rn | cut -f2- | while IFS= read -r file; do sign "$file"; done
    find "$app/Contents" -type d -name '*.framework' -print0 | while IFS= read -r -d '' framework; do
      printf '%s\t%s\n' "$(tr -dc / <<<"$framework" | wc -c)" "$framework"
    done | sort -rn | cut -f2- | while IFS= read -r framework; do sign "$framework"; done
    sign --entitlements packaging/macos/entitlements.plist "$app"
    codesign --verify --deep --strict --verbose=2 "$app"
    ;;
  dmg)
    : "${APPLE_ID:?}" "${APPLE_TEAM_ID:?}" "${APPLE_APP_PASSWORD:?}"
    dmg="dist/Hearth-$(app_version).dmg"
    xcrun notarytool submit "$dmg" --apple-id "$APPLE_ID" --team-id "$APPLE_TEAM_ID" \
      --password "$APPLE_APP_PASSWORD" --wait
    xcrun stapler staple "$dmg"
    ;;
  *)
    sed -n '2,8p' "$0"
    exit 2
    ;;
esac
