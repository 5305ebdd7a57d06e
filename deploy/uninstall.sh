#!/usr/bin/env bash
# Remove what deploy/install.sh put in place: the service (stopped and disabled), its unit and
# drop-in, the udev rules, the I2C lines it added to config.txt, the i2c-dev module file, the
# command link and /opt/dicetower. Kept unless --purge: the roll log and player state
# (/var/lib/dicetower), the config (/etc/dicetower) and the dicetower user. Always kept: the
# distribution packages and the gpio/i2c/spi/dialout groups, which other programs use too.
#
#   sudo deploy/uninstall.sh [--dry-run] [--root DIR] [--purge]
#
#   --dry-run   print every step and what it would run; touch nothing
#   --root DIR  the root install.sh was given (an image: nothing is run on this machine)
#   --purge     also remove the roll log, the player state, the config and the user

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PURGE=""
while [ $# -gt 0 ]; do
    take_common_option "$@"
    if [ "$COMMON_TAKEN" -gt 0 ]; then shift "$COMMON_TAKEN"; continue; fi
    case "$1" in
        --purge) PURGE=1 ;;
        *) die "unknown option $1 (allowed: --dry-run, --root DIR, --purge, --help)" ;;
    esac
    shift
done
need_root_user

echo "dicetower uninstall from $ROOT${DRY_RUN:+ (dry run: nothing is changed)}"

step "service"
if [ -n "$IMAGE" ]; then
    # an image: its units are files (what `systemctl disable` removes), nothing runs here
    enabled="/etc/systemd/system/multi-user.target.wants/$UNIT_NAME"
    remove_path "$enabled" || true
elif systemctl is-enabled --quiet "$UNIT_NAME" 2>/dev/null || systemctl is-active --quiet "$UNIT_NAME" 2>/dev/null; then
    # stopping reveals the open dice session into the roll log, as on any shutdown
    change "stop and disable $UNIT_NAME" systemctl disable --now "$UNIT_NAME"
else
    ok "$UNIT_NAME not enabled, not running"
fi

step "service unit"
removed=""
remove_path "$UNIT_FILE" && removed=1
remove_path "$DROP_IN_DIR" && removed=1
remove_path "$FIRSTBOOT_LINK" && removed=1  # an image's first-boot unit (deploy/install.sh --root)
remove_path "$FIRSTBOOT_FILE" && removed=1
if [ -n "$removed" ] && [ -z "$IMAGE" ]; then
    change "reload the units" systemctl daemon-reload
fi

step "udev rules"
if remove_path "$UDEV_FILE" && [ -z "$IMAGE" ]; then
    change "reload the rules" udevadm control --reload
    change "apply them to hwrng and serial ports" udevadm trigger --subsystem-match=misc --subsystem-match=tty
fi

# Remove our block from FILE, leaving every other line as it was.
remove_i2c_block() {
    local file="$1" tmp
    tmp="$(mktemp "$file.dicetower.XXXXXX")"
    awk -v b="$I2C_BEGIN" -v e="$I2C_END" '$0 == b { skip = 1 } !skip { print } $0 == e { skip = 0 }' "$file" >"$tmp"
    chmod --reference="$file" "$tmp"
    mv -f "$tmp" "$file"
}

step "I2C in config.txt"
if ! boot_config="$(config_txt)"; then
    ok "no config.txt"
elif grep -qxF "$I2C_BEGIN" "$(at "$boot_config")"; then
    change --show "remove the dicetower block from $boot_config" \
        "remove the lines install.sh added (I2C stays on if it was on before)" \
        remove_i2c_block "$(at "$boot_config")"
else
    ok "$boot_config has no dicetower lines"
fi

step "i2c-dev module at boot"
remove_path "$MODULES_FILE" || true

step "dicetower on PATH"
link="$(at /usr/local/bin/dicetower)"
if [ -L "$link" ] && [ "$(readlink "$link")" = "$VENV_DIR/bin/dicetower" ]; then
    remove_path /usr/local/bin/dicetower || true
else
    ok "no link of ours at /usr/local/bin/dicetower"
fi

step "program"
remove_path "$PREFIX_DIR" || true

if [ -n "$PURGE" ]; then
    step "roll log and player state"
    remove_path "$STATE_DIR" || true
    step "config"
    remove_path "$CONFIG_DIR" || true
    step "user $SERVICE_USER"
    if has_user "$SERVICE_USER"; then
        change "remove the user (and its group)" userdel "${SHADOW_ROOT[@]}" "$SERVICE_USER"
    else
        ok "not there"
    fi
else
    step "kept"
    ok "$STATE_DIR (roll log, player state), $CONFIG_DIR, user $SERVICE_USER: --purge removes them"
fi
step "kept"
ok "packages ${PACKAGES[*]} ${GPIO_PACKAGES[*]} and groups ${DEVICE_GROUPS[*]} (other programs use them)"

finish removed
