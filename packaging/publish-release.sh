#!/usr/bin/env bash
# Attach a release's installers and their SHA256SUMS to the GitHub release of a version tag
# (made when it does not exist yet).  Run by the release workflow on a tag, with GH_TOKEN.
#
#   bash packaging/publish-release.sh TAG FOLDER
set -euo pipefail
TAG="$1"
FOLDER="$2"
test -f "$FOLDER/SHA256SUMS" || { echo "$FOLDER has no SHA256SUMS: run packaging/release-files.sh"; exit 2; }
NOTES="Installers for Linux (.deb, .tar.gz), Windows (HearthSetup .exe) and macOS (.dmg).
Check a download with: sha256sum -c SHA256SUMS --ignore-missing (macOS: shasum -a 256 -c)."
if ! gh release view "$TAG" >/dev/null 2>&1; then
  gh release create "$TAG" --title "Hearth ${TAG#v}" --notes "$NOTES" --verify-tag
fi
gh release upload "$TAG" "$FOLDER"/* --clobber
