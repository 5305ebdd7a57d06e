# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts that source this
# Shared by deploy/install.sh and deploy/uninstall.sh (sourced, not run): options, the root,
# and how a step is reported and carried out. See docs/deploy.md.
#
# Every step first looks at the system (reading only) and then says one of:
#   ok      the thing is already as it should be (nothing is run)
#   change  it was not, and the command shown was run
#   would   (with --dry-run) it is not, and the command shown would be run
#   boot    (--root, an image) it is not, and the first-boot unit will do it on the device
# --dry-run never writes a file or runs a command that changes anything.
#
# --root DIR prepares an image: every file goes under DIR instead of /, DIR is handed to the
# commands that take one (useradd/groupadd/usermod/userdel --prefix, dpkg-query --admindir),
# and nothing is run that acts on the machine running the script (apt-get, python3 -m venv and
# pip, systemctl, udevadm): a first-boot unit in the image runs install.sh on the device, which
# does those. DICETOWER_INSTALL_LIVE=1 (the tests only, with the logging stand-ins of
# tests/deploy/fakebin first on PATH) runs them anyway, as on a device whose / is DIR.

set -euo pipefail
umask 022

DEPLOY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE_DIR="$(dirname "$DEPLOY_DIR")"
ROOT="/"
SHADOW_ROOT=()  # useradd/groupadd/usermod/userdel --prefix ROOT
DPKG_ROOT=()  # dpkg-query --admindir ROOT/var/lib/dpkg
DRY_RUN=""
IMAGE=""  # --root without DICETOWER_INSTALL_LIVE: an image; the device does the rest at first boot
STORE=""  # install.sh --store (or asked for by an earlier run): the store's board too
CHANGES=0
STEP=0
FIRST_BOOT=()  # what the first-boot unit will do on the device (image only)
IMAGE_DPKG=()  # (an image) its dpkg database, which must be there

UNIT_NAME="dicetower.service"
FIRSTBOOT_NAME="dicetower-firstboot.service"
FIRSTBOOT_FILE="/etc/systemd/system/$FIRSTBOOT_NAME"
FIRSTBOOT_LINK="/etc/systemd/system/multi-user.target.wants/$FIRSTBOOT_NAME"
PREFIX_DIR="/opt/dicetower"
VENV_DIR="$PREFIX_DIR/venv"
IMAGE_SOURCE_DIR="$PREFIX_DIR/src"  # the source an image carries, for install.sh at first boot
EXTRAS_FILE="$PREFIX_DIR/extras"  # the extras asked for (install.sh --store: "store"), one a line
CONFIG_DIR="/etc/dicetower"
CONFIG_FILE="$CONFIG_DIR/dicetower.toml"
STATE_DIR="/var/lib/dicetower"
UNIT_FILE="/etc/systemd/system/$UNIT_NAME"
DROP_IN_DIR="/etc/systemd/system/$UNIT_NAME.d"
DROP_IN_FILE="$DROP_IN_DIR/network.conf"
WEB_DROP_IN_FILE="$DROP_IN_DIR/web.conf"
UDEV_FILE="/etc/udev/rules.d/70-dicetower.rules"
MODULES_FILE="/etc/modules-load.d/dicetower.conf"
SERVICE_USER="dicetower"
DEVICE_GROUPS=(gpio i2c spi dialout audio)
PACKAGES=(python3-venv i2c-tools espeak-ng)  # in every Debian archive
# The GPIO stack (docs/wiring.md, "Pin backends"): lgpio, gpiozero's pin factory on every Pi
# model (the only one on a Pi 5), and RPi.GPIO's API, which luma uses for an SPI display's D/C
# pin, as rpi-lgpio (RPi.GPIO's API on lgpio: every model, the Pi 5 too). From the
# distribution where its archive has them (Raspberry Pi OS); elsewhere (Debian bookworm, trixie)
# from PyPI into the venv, as PYPI_GPIO says.
GPIO_PACKAGES=(python3-lgpio python3-rpi-lgpio)
RPI_GPIO_PACKAGES=(python3-rpi.gpio python3-rpi-lgpio)  # either gives the RPi.GPIO API
# MODULE:REQUIREMENT:PACKAGE: the module the venv must import, what pip installs where the
# distribution's PACKAGE is not to be had. PyPI's lgpio has wheels up to Python 3.12 only (it
# would be built from source, which a Pi has no compiler for): from 3.13 on, adafruit-lgpio,
# the same module as a wheel. rpi-lgpio goes in without its dependencies (it names lgpio's
# distribution, which adafruit-lgpio is not; the module is there either way).
PYPI_GPIO=("lgpio:lgpio>=0.2:python3-lgpio" "RPi.GPIO:rpi-lgpio>=0.6:python3-rpi-lgpio")
PYPI_LGPIO_313="adafruit-lgpio>=0.2"
I2C_BEGIN="# >>> dicetower: I2C on at 400 kHz (deploy/install.sh; deploy/uninstall.sh removes it)"
I2C_END="# <<< dicetower"

die() {
    echo "${0##*/}: $*" >&2
    exit 2
}

# The path of an absolute system path under the root.
at() {
    if [ "$ROOT" = "/" ]; then printf '%s\n' "$1"; else printf '%s\n' "${ROOT%/}$1"; fi
}

# take_common_option ARGS...: the options both scripts have (--dry-run, --root DIR, --help).
# Sets COMMON_TAKEN to how many arguments it used (0: not one of them).
take_common_option() {
    COMMON_TAKEN=0
    case "$1" in
        --dry-run) DRY_RUN=1; COMMON_TAKEN=1 ;;
        --root) [ $# -ge 2 ] || die "--root needs a directory"; set_root "$2"; COMMON_TAKEN=2 ;;
        --root=*) set_root "${1#--root=}"; COMMON_TAKEN=1 ;;
        -h | --help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
    esac
}

# set_root DIR: the root every path is under.
set_root() {
    [ -n "$1" ] || die "--root needs a directory"
    [ -d "$1" ] || die "--root: $1 is not a directory"
    ROOT="$(cd "$1" && pwd)"
    if [ "$ROOT" != "/" ]; then
        SHADOW_ROOT=(--prefix "$ROOT")
        DPKG_ROOT=(--admindir "$ROOT/var/lib/dpkg")
        if [ -z "${DICETOWER_INSTALL_LIVE:-}" ]; then
            IMAGE=1
            IMAGE_DPKG=(var/lib/dpkg/status)  # an image's packages are read from its dpkg database
        fi
    fi
}

need_root_user() {
    if [ -z "$DRY_RUN" ] && [ "$ROOT" = "/" ] && [ "$(id -u)" != 0 ]; then
        die "needs root: run it with sudo (or try --dry-run)"
    fi
}

step() {
    STEP=$((STEP + 1))
    CURRENT="$1"
}

ok() {
    printf '%-7s %s%s\n' "ok" "$CURRENT" "${1:+: $1}"
}

# change [--show TEXT] DESCRIPTION COMMAND...: run the command (or say that it would be run).
# The command is shown as it is run, or as TEXT where it is one of the functions below.
change() {
    local shown=""
    if [ "$1" = "--show" ]; then
        shown="$2"
        shift 2
    fi
    local what="$1"
    shift
    [ -n "$shown" ] || shown="$(quote "$@")"
    CHANGES=$((CHANGES + 1))
    printf '%-7s %s: %s\n' "$([ -n "$DRY_RUN" ] && echo would || echo change)" "$CURRENT" "$what"
    printf '          $ %s\n' "$shown"
    if [ -z "$DRY_RUN" ]; then
        # explicit: set -e does not hold inside a function called from an `if`
        "$@" || die "$CURRENT: failed: $shown"
    fi
    return 0
}

quote() {
    local out="" word
    for word in "$@"; do
        if [[ "$word" =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then out+="$word "; else out+="$(printf '%q' "$word") "; fi
    done
    printf '%s' "${out% }"
}

# at_first_boot WHAT: (an image) what the first-boot unit will do on the device instead.
at_first_boot() {
    FIRST_BOOT+=("$1")
    printf '%-7s %s: %s\n' "boot" "$CURRENT" "at first boot on the device: $1"
}

# install_file SOURCE TARGET MODE: copy when missing or different.
install_file() {
    local source="$1" target mode="$3"
    target="$(at "$2")"
    if [ -f "$target" ] && cmp -s "$source" "$target"; then
        ok "$2"
        return 1
    fi
    change "$2 $([ -e "$target" ] && echo "differs, replaced" || echo "installed")" \
        install -D -m "$mode" "$source" "$target"
    return 0
}

remove_path() {
    local target
    target="$(at "$1")"
    if [ ! -e "$target" ] && [ ! -L "$target" ]; then
        ok "$1 not there"
        return 1
    fi
    change "$1 removed" rm -rf -- "$target"
    return 0
}

# Whether a distribution package is installed (in the root's dpkg database).
is_installed() {
    [ "$(dpkg-query "${DPKG_ROOT[@]}" -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# Whether the package lists (apt-get update) offer a package: a candidate version.
in_archive() {
    local candidate
    candidate="$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')"
    [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# need_image_root: refuse, before touching anything, a --root that is not an image's root
# filesystem (the user tools and dpkg need its etc/passwd, etc/group and dpkg database).
need_image_root() {
    [ "$ROOT" != "/" ] || return 0
    local file lacking=()
    for file in etc/passwd etc/group "${IMAGE_DPKG[@]}"; do
        [ -e "$ROOT/$file" ] || lacking+=("$file")
    done
    [ ${#lacking[@]} -eq 0 ] ||
        die "--root: $ROOT is not an image's root filesystem (no ${lacking[*]}): mount the Raspberry Pi OS image's root partition there first (docs/deploy.md)"
}

has_group() {
    grep -q "^$1:" "$(at /etc/group)" 2>/dev/null
}

has_user() {
    grep -q "^$1:" "$(at /etc/passwd)" 2>/dev/null
}

# The members of a group, one a line.
group_members() {
    awk -F: -v g="$1" '$1 == g { n = split($4, m, ","); for (i = 1; i <= n; i++) print m[i] }' "$(at /etc/group)"
}

config_txt() {
    local candidate
    for candidate in /boot/firmware/config.txt /boot/config.txt; do
        if [ -f "$(at "$candidate")" ]; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    return 1
}

finish() {
    local verb="$1"
    if [ ${#FIRST_BOOT[@]} -gt 0 ]; then
        echo "at first boot, $FIRSTBOOT_NAME will run $IMAGE_SOURCE_DIR/deploy/install.sh on the device to:"
        printf '  - %s\n' "${FIRST_BOOT[@]}"
    fi
    if [ -n "$DRY_RUN" ]; then
        echo "dry run: $CHANGES change(s) would be made; nothing was touched"
    elif [ "$CHANGES" -eq 0 ]; then
        echo "nothing to change: dicetower is already $verb"
    else
        echo "done: $CHANGES change(s); dicetower is $verb"
    fi
}
