#!/usr/bin/env bash
# Builds hearthloom-ingest_<version>_<arch>.deb from the release binary with Debian's own tools
# (dpkg-shlibdeps, dpkg-deb). The version is the binary's own (`--version`, from AgentVersion in
# Sources/IngestCore/Node/NodeTransport.swift): one number for the binary, the package and the man page.
# usage: make-deb.sh BINARY OUTDIR
set -euo pipefail
bin=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
version=$("$bin" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
doc=$root/usr/share/doc/hearthloom-ingest

install -Dm755 "$bin" "$root/usr/bin/hearthloom-ingest"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/hearthloom-ingest"
"$bin" completions bash | install -Dm644 /dev/stdin "$root/usr/share/bash-completion/completions/hearthloom-ingest"
"$bin" completions zsh | install -Dm644 /dev/stdin "$root/usr/share/zsh/vendor-completions/_hearthloom-ingest"
"$bin" completions fish | install -Dm644 /dev/stdin "$root/usr/share/fish/vendor_completions.d/hearthloom-ingest.fish"
"$bin" --man-page "$repo/README.md" | gzip -9n | install -Dm644 /dev/stdin "$root/usr/share/man/man1/hearthloom-ingest.1.gz"
# The user units, for every user's `systemctl --user`; they run the packaged binary.
for unit in "$repo"/systemd/*.service "$repo"/systemd/*.timer; do
    sed -e 's|%h/.local/bin/hearthloom-ingest|/usr/bin/hearthloom-ingest|' \
        -e 's|file://%h/.local/share/doc/hearthloom-ingest/README.md|file:///usr/share/doc/hearthloom-ingest/README.md.gz|' \
        "$unit" | install -Dm644 /dev/stdin "$root/usr/lib/systemd/user/$(basename "$unit")"
done
gzip -9n < "$repo/README.md" | install -Dm644 /dev/stdin "$doc/README.md.gz"
install -d "$doc/adapters.d"
install -m644 "$repo"/adapters.d/*.conf "$doc/adapters.d/"
install -m644 "$here/copyright" "$doc/copyright"
{
    echo "hearthloom-ingest ($version) unstable; urgency=medium"
    echo
    echo "  * Release $version, built from $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 'a source tree')."
    echo
    echo " -- Hearthloom developers <hearthloom-ingest@users.noreply.hearthloom.invalid>  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n | install -Dm644 /dev/stdin "$doc/changelog.gz"

# Depends on the libraries the binary links (dpkg-shlibdeps reads debian/control from its cwd).
work=$(mktemp -d)
trap 'rm -rf "$root" "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: hearthloom-ingest\n\nPackage: hearthloom-ingest\nArchitecture: any\n' > "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O "$root/usr/bin/hearthloom-ingest" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" -e "s|@SHLIBS@|$shlibs|" \
    "$here/control.in" > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +
find "$root" -exec touch --no-dereference -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$out"
deb="$out/hearthloom-ingest_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
