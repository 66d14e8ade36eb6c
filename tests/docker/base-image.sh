#!/bin/sh
# Makes sure Docker has the image debian:bookworm-slim, which deploy/Dockerfile and the nginx
# image start from: an image already there is used; otherwise it is pulled; where no registry can
# be reached it is built here from Debian's packages with debootstrap, trimmed like Debian's own
# slim image (no manuals, documentation or translations), and imported.
#
# The trimmed root file system is kept as a tarball, so building the image again (after
# `docker rmi` or `docker system prune -a`) takes seconds instead of minutes:
#   ${MANCALA_DOCKER_CACHE:-/var/cache/mancala-online}/debian-bookworm-slim-v1.tar
# Delete it to bootstrap afresh. Needs root and the `debootstrap` package
# (deploy/install-deps.sh docker). Usage: base-image.sh
set -eu

image=debian:bookworm-slim
cache=${MANCALA_DOCKER_CACHE:-/var/cache/mancala-online}
# The name's version changes when the recipe below does, so an old tarball is not reused.
tarball=$cache/debian-bookworm-slim-v1.tar

if docker image inspect "$image" >/dev/null 2>&1; then
  echo "base-image: $image is there"
  exit 0
fi
if timeout 300 docker pull "$image"; then
  exit 0
fi
echo "base-image: cannot pull $image; making it here"

if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null 2>&1 || {
    echo "base-image: debootstrap is missing (deploy/install-deps.sh docker installs it)" >&2
    exit 1
  }
  mkdir -p "$cache"
  root=$(mktemp -d "$cache/rootfs.XXXXXX")
  trap 'rm -rf "$root" "$tarball.part"' EXIT
  trap 'exit 130' INT TERM

  # The mirror this machine's apt uses for bookworm (debootstrap's own default otherwise).
  mirror=$(cat /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null | awk '
    /^URIs:/ { uri = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm" && uri != "") { print uri; exit } }
    /^deb / && $3 == "bookworm" { print $2; exit }' || true)
  case "$mirror" in
    http://* | https://*) ;;
    *) mirror="" ;;
  esac
  start=$(date +%s)
  # shellcheck disable=SC2086 # an empty mirror is no argument
  debootstrap --variant=minbase bookworm "$root" $mirror >"$root.log" 2>&1 || {
    tail -n 30 "$root.log" >&2
    rm -f "$root.log"
    echo "base-image: debootstrap failed" >&2
    exit 1
  }
  rm -f "$root.log"

  # What Debian's slim image leaves out, now and in every package installed later.
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
CFG
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root/usr/share/man/"* "$root/usr/share/info/"* "$root/usr/share/groff/"* \
    "$root/usr/share/lintian/"* "$root/usr/share/linda/"* "$root/usr/share/locale/"*
  # apt in an image: no package caches or translations kept, no services started by packages.
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
CFG
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  # Debian's package sources as this machine has them (updates and security included).
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/debian.sources"
    rm -f "$root/etc/apt/sources.list"
  elif grep -q '^deb .* bookworm' /etc/apt/sources.list 2>/dev/null; then
    grep '^deb .* bookworm' /etc/apt/sources.list >"$root/etc/apt/sources.list"
  fi
  rm -rf "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"* "$root/var/log/"*.log \
    "$root/var/log/apt/"* "$root/var/cache/debconf/"*-old "$root/var/lib/dpkg/"*-old
  : >"$root/etc/resolv.conf"
  : >"$root/etc/hostname"

  tar -C "$root" --numeric-owner -cf "$tarball.part" .
  mv "$tarball.part" "$tarball"
  echo "base-image: bootstrapped in $(($(date +%s) - start)) s, cached in $tarball"
fi

docker import --change 'CMD ["bash"]' "$tarball" "$image" >/dev/null
echo "base-image: imported $image from $tarball ($(docker image inspect -f '{{.Size}}' "$image") bytes)"
