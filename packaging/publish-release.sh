#!/usr/bin/env bash
# Attach a release's installers and their SHA256SUMS to the GitHub release of a version tag
# (made when it does not exist yet).  Run by the release workflow on a tag, with GH_TOKEN.
#
#   bash packaging/publish-release.sh TAG FOLDER
set -euo pipefail
TAG="$1"
FOLDER="$2"
test -f "$FOLDER/SHA256SUMS" || { echo "$FOLDER has no SHA256SUMS: run packaging/release-files.sh"; exit 2; }
# The tag must name the version the installers carry: their update check compares it.
# shellcheck source=packaging/lib.sh
. "$(dirname "$0")/lib.sh"
VERSION="$(app_version)"
[ "${TAG#v}" = "$VERSION" ] || { echo "tag $TAG does not match Hearth's version $VERSION"; exit 2; }
# a1, b2, rc1: published as a pre-release, which GitHub's "latest release" (and so the
# update check of every installed Hearth) leaves out.
PRERELEASE=()
if [[ "$TAG" =~ (a|b|rc|alpha|beta|dev)[0-9]*$ ]]; then
  PRERELEASE=(--prerelease)
fi
NOTES="Installers for Linux (.deb, .tar.gz), Windows (HearthSetup .exe) and macOS (.dmg).
The hearth-runtime-*.zip files are llama.cpp's CUDA runtime packs, which Hearth installs
itself (hearth engines install cuda-12); hearth-runtime-packs.json lists them.
Check a download with: sha256sum -c SHA256SUMS --ignore-missing (macOS: shasum -a 256 -c)."
if ! gh release view "$TAG" >/dev/null 2>&1; then
  gh release create "$TAG" --title "Hearth ${TAG#v}" --notes "$NOTES" --verify-tag "${PRERELEASE[@]}"
fi
gh release upload "$TAG" "$FOLDER"/* --clobber
