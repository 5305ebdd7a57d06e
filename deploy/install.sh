#!/usr/bin/env bash
# Install dicetower as an appliance on Raspberry Pi OS: packages, I2C at 400 kHz, the
# dicetower user, a venv under /opt/dicetower, the config, the hardened service, the udev rules,
# and `systemctl enable --now`. Run it again at any time: it changes only what is not as it
# should be, and says "nothing to change" when all is. With --root it prepares an SD card
# image instead and says what will run at first boot. docs/deploy.md explains each step.
#
#   sudo deploy/install.sh [--dry-run] [--root DIR] [--source DIR] [--store]
#
#   --dry-run     print every step and what it would run; touch nothing
#   --root DIR    prepare an image mounted at DIR: write its files, run nothing on this
#                 machine (no apt-get, venv, pip, systemctl, udevadm); a first-boot unit
#                 runs this script on the device for the rest (deploy/common.sh)
#   --source DIR  the dicetower source tree to install (default: the one this script is in)
#   --store       also the store's board (`dicetower board`): its web stack, the store extra;
#                 remembered, so later runs (and an image's first boot) keep it

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

while [ $# -gt 0 ]; do
    take_common_option "$@"
    if [ "$COMMON_TAKEN" -gt 0 ]; then shift "$COMMON_TAKEN"; continue; fi
    case "$1" in
        --source) [ $# -ge 2 ] || die "--source needs a directory"; SOURCE_DIR="$2"; shift ;;
        --source=*) SOURCE_DIR="${1#--source=}" ;;
        --store) STORE=1 ;;
        *) die "unknown option $1 (allowed: --dry-run, --root DIR, --source DIR, --store, --help)" ;;
    esac
    shift
done
if [ ! -f "$SOURCE_DIR/pyproject.toml" ] || [ ! -d "$SOURCE_DIR/hardware" ]; then
    die "--source: $SOURCE_DIR is not a dicetower source tree (no pyproject.toml and hardware/)"
fi
SOURCE_DIR="$(cd "$SOURCE_DIR" && pwd)"
need_root_user
need_image_root
# --store once is --store from then on (the first boot of an image runs this without options)
REMEMBERED=""
if [ -z "$STORE" ] && grep -qsx store "$(at "$EXTRAS_FILE")"; then
    STORE=1
    REMEMBERED=" (--store, remembered in $EXTRAS_FILE)"
fi
# What pip installs: the source, with the store extra where it is asked for (pyproject.toml)
TARGET="$SOURCE_DIR${STORE:+[store]}"

echo "dicetower install into $ROOT from $SOURCE_DIR${IMAGE:+ (an image: nothing is run on this machine)}${DRY_RUN:+ (dry run: nothing is changed)}"

# --- 1. distribution packages ---------------------------------------------------------------
venv="$(at "$VENV_DIR")"

# Whether the venv imports MODULE (the distribution's package through the system site
# packages, or our pip install from PyPI). find_spec, not import: RPi.GPIO proper refuses to be
# imported off a Pi.
venv_has() {
    [ -x "$venv/bin/python" ] &&
        "$venv/bin/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec(sys.argv[1]) is None)" \
            "$1" 2>/dev/null
}

# Which are missing: PACKAGES, python3-lgpio, and an RPi.GPIO API (python3-rpi-lgpio unless
# python3-rpi.gpio or it is installed); a GPIO one not where the venv has its module from PyPI.
wanted_packages() {
    local package has_api=""
    for package in "${PACKAGES[@]}"; do
        is_installed "$package" || echo "$package"
    done
    is_installed python3-lgpio || venv_has lgpio || echo python3-lgpio
    for package in "${RPI_GPIO_PACKAGES[@]}"; do
        is_installed "$package" && has_api=1
    done
    [ -n "$has_api" ] || venv_has RPi.GPIO || echo python3-rpi-lgpio
}

is_gpio_package() {
    local package
    for package in "${GPIO_PACKAGES[@]}"; do [ "$package" = "$1" ] && return 0; done
    return 1
}

step "packages ${PACKAGES[*]} ${GPIO_PACKAGES[*]}"
mapfile -t missing < <(wanted_packages)
GPIO_FROM_PYPI=()
if [ ${#missing[@]} -eq 0 ]; then
    ok "installed"
elif [ -n "$IMAGE" ]; then
    at_first_boot "apt-get install ${missing[*]} (needs the network; a GPIO package the distribution lacks comes from PyPI)"
else
    change "refresh the package lists" apt-get update -qq
    # A GPIO package this distribution's archive lacks (Debian bookworm and trixie have neither)
    # comes from PyPI into the venv instead (step "GPIO libraries"). (A dry run reads the
    # current lists.)
    from_archive=()
    for package in "${missing[@]}"; do
        if is_gpio_package "$package" && ! in_archive "$package"; then GPIO_FROM_PYPI+=("$package"); else
            from_archive+=("$package")
        fi
    done
    [ ${#GPIO_FROM_PYPI[@]} -eq 0 ] ||
        ok "not in this distribution's archive: ${GPIO_FROM_PYPI[*]} (from PyPI into the venv instead)"
    if [ ${#from_archive[@]} -gt 0 ]; then
        change "install ${from_archive[*]}" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends "${from_archive[@]}"
    fi
fi

# --- 2. groups and the service user -----------------------------------------------------------
step "groups ${DEVICE_GROUPS[*]}"
absent=()
for group in "${DEVICE_GROUPS[@]}"; do
    has_group "$group" || absent+=("$group")
done
if [ ${#absent[@]} -eq 0 ]; then
    ok "exist"
else
    # Raspberry Pi OS has them all; elsewhere SupplementaryGroups= would stop the unit.
    for group in "${absent[@]}"; do
        change "create $group" groupadd --system "${SHADOW_ROOT[@]}" "$group"
    done
fi

step "user $SERVICE_USER"
groups_csv="$(IFS=,; echo "${DEVICE_GROUPS[*]}")"
if ! has_user "$SERVICE_USER"; then
    change "create the system user (no login, no home)" useradd --system --user-group \
        --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin \
        --comment "dicetower dice tower" --groups "$groups_csv" "${SHADOW_ROOT[@]}" "$SERVICE_USER"
else
    lacking=()
    for group in "${DEVICE_GROUPS[@]}"; do
        group_members "$group" | grep -qx "$SERVICE_USER" || lacking+=("$group")
    done
    if [ ${#lacking[@]} -eq 0 ]; then
        ok "exists, in $groups_csv"
    else
        change "add to ${lacking[*]}" usermod --append \
            --groups "$(IFS=,; echo "${lacking[*]}")" "${SHADOW_ROOT[@]}" "$SERVICE_USER"
    fi
fi

# --- 3. I2C at 400 kHz --------------------------------------------------------------------------
i2c_block() {
    printf '%s\n' "$I2C_BEGIN" "[all]" "dtparam=i2c_arm=on" "dtparam=i2c_arm_baudrate=400000" "$I2C_END"
}

# Our block, as it is in FILE (empty when there is none).
i2c_block_in() {
    awk -v b="$I2C_BEGIN" -v e="$I2C_END" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }' "$1"
}

# Replace our block in FILE (or add it at the end, where it overrides earlier lines).
write_i2c_block() {
    local file="$1" tmp
    tmp="$(mktemp "$file.dicetower.XXXXXX")"
    awk -v b="$I2C_BEGIN" -v e="$I2C_END" '$0 == b { skip = 1 } !skip { print } $0 == e { skip = 0 }' "$file" >"$tmp"
    [ -z "$(tail -c 1 "$tmp")" ] || echo >>"$tmp"
    i2c_block >>"$tmp"
    chmod --reference="$file" "$tmp"
    mv -f "$tmp" "$file"
}

step "I2C in config.txt"
REBOOT=""
if ! boot_config="$(config_txt)"; then
    ok "no /boot/firmware/config.txt or /boot/config.txt (not Raspberry Pi OS): left alone"
elif [ "$(i2c_block_in "$(at "$boot_config")")" = "$(i2c_block)" ]; then
    ok "$boot_config has dtparam=i2c_arm=on, i2c_arm_baudrate=400000"
else
    change --show "append to $boot_config: [all] dtparam=i2c_arm=on dtparam=i2c_arm_baudrate=400000" \
        "turn I2C on at 400 kHz (after a reboot)" write_i2c_block "$(at "$boot_config")"
    REBOOT=1
fi

step "i2c-dev module at boot"
install_file "$DEPLOY_DIR/dicetower-modules.conf" "$MODULES_FILE" 644 || true

# --- 4. the program ---------------------------------------------------------------------------
# What identifies the source installed: a digest of every file pip installs from.
source_digest() {
    (cd "$SOURCE_DIR" &&
        find engine hardware firmware_bridge pyproject.toml README.md LICENSE -type f \
            ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 2>/dev/null |
        LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}

RESTART=""
step "venv $VENV_DIR"
if [ -x "$venv/bin/python" ]; then
    ok "exists"
elif [ -n "$IMAGE" ]; then
    # this machine's python3 may not even run on the device: the device makes its own venv
    at_first_boot "python3 -m venv --system-site-packages $VENV_DIR"
else
    # system site packages: Raspberry Pi OS's python3-lgpio, instead of building it
    change "create (with the system's packages, for python3-lgpio)" \
        python3 -m venv --system-site-packages "$venv"
fi

step "dicetower in the venv"
stamp="$venv/.dicetower-source"
digest="$(source_digest)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
    ok "this source is installed"
elif [ -n "$IMAGE" ]; then
    at_first_boot "pip install $IMAGE_SOURCE_DIR${STORE:+[store]} into the venv (needs the network for its dependencies)"
else
    change "install $SOURCE_DIR" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --force-reinstall --no-deps "$SOURCE_DIR"
    change "install its dependencies${STORE:+, with the store extra}" "$venv/bin/python" -m pip install --quiet \
        --disable-pip-version-check "$TARGET"
    [ -n "$DRY_RUN" ] || printf '%s\n' "$digest" >"$stamp"
    RESTART=1
    DEPS_INSTALLED=1
fi

remember_store() {
    mkdir -p "$(dirname "$1")"
    printf 'store\n' >"$1"
}

# The store's board (`dicetower board`): its web stack is the store extra, which a tower goes
# without (docs/deploy.md, "A tower or the store's board").
step "store extra"
if [ -z "$STORE" ]; then
    ok "not asked for: a tower (--store adds the store's board: starlette, uvicorn)"
else
    remembered_now=""
    if ! grep -qsx store "$(at "$EXTRAS_FILE")"; then
        change --show "echo store > $(at "$EXTRAS_FILE")" "remember --store (later runs and a first boot keep the board)" \
            remember_store "$(at "$EXTRAS_FILE")"
        remembered_now=1
    fi
    if [ -n "$IMAGE" ] || [ -n "${DEPS_INSTALLED:-}" ]; then
        # installed (or, in an image, to be installed at first boot) with the dependencies, above
        [ -n "$remembered_now" ] || ok "with dicetower's dependencies (above)$REMEMBERED"
    elif venv_has starlette && venv_has uvicorn && venv_has anyio; then
        ok "the venv imports starlette, uvicorn, anyio$REMEMBERED"
    else
        change "install the store extra (starlette, uvicorn)" "$venv/bin/python" -m pip install --quiet \
            --disable-pip-version-check "$TARGET"
    fi
fi

# The GPIO modules the venv cannot import (from the distribution's packages, seen through the
# system site packages, or a pip install of ours), as PYPI_GPIO entries. Without a venv (a
# dry run) those whose package the archive does not have.
gpio_modules_missing() {
    local entry package
    for entry in "${PYPI_GPIO[@]}"; do
        if [ -x "$venv/bin/python" ]; then
            venv_has "${entry%%:*}" || echo "$entry"
        else
            for package in "${GPIO_FROM_PYPI[@]}"; do
                [ "$package" != "${entry##*:}" ] || echo "$entry"
            done
        fi
    done
}

step "GPIO libraries lgpio, RPi.GPIO"
if [ -n "$IMAGE" ]; then
    at_first_boot "pip install lgpio, rpi-lgpio into the venv where the distribution has no python3-lgpio, python3-rpi-lgpio"
else
    mapfile -t lacking_modules < <(gpio_modules_missing)
    if [ ${#lacking_modules[@]} -eq 0 ] && [ ! -x "$venv/bin/python" ]; then
        ok "from the distribution's packages (the venv sees them)"
    elif [ ${#lacking_modules[@]} -eq 0 ]; then
        ok "the venv imports them"
    else
        for entry in "${lacking_modules[@]}"; do
            entry="${entry#*:}"
            requirement="${entry%%:*}"
            options=()
            if [ "$requirement" = "lgpio>=0.2" ] && [ -x "$venv/bin/python" ] &&
                "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; then
                requirement="$PYPI_LGPIO_313"  # a wheel for this Python
            fi
            [ "$requirement" = "lgpio>=0.2" ] || [ "$requirement" = "$PYPI_LGPIO_313" ] || options=(--no-deps)
            change "from PyPI (the distribution has no package for it)" "$venv/bin/python" -m pip install \
                --quiet --disable-pip-version-check "${options[@]}" "$requirement"
        done
        RESTART=1
    fi
fi

step "documentation"
install_file "$SOURCE_DIR/docs/deploy.md" "$PREFIX_DIR/docs/deploy.md" 644 || true

make_link() {  # TARGET LINK
    mkdir -p "$(dirname "$2")"
    ln -sfn "$1" "$2"
}

step "dicetower on PATH"
link="$(at /usr/local/bin/dicetower)"
if [ -L "$link" ] && [ "$(readlink "$link")" = "$VENV_DIR/bin/dicetower" ]; then
    ok "/usr/local/bin/dicetower"
elif [ -e "$link" ] && [ ! -L "$link" ]; then
    ok "/usr/local/bin/dicetower is another program: left alone"
else
    change --show "ln -sfn $VENV_DIR/bin/dicetower $link" \
        "link /usr/local/bin/dicetower" make_link "$VENV_DIR/bin/dicetower" "$link"
fi

# --- 5. configuration -------------------------------------------------------------------------
write_config() {
    mkdir -p "$(dirname "$2")"
    sed "s|^state_dir = .*|state_dir = \"$STATE_DIR\"|" "$1" >"$2.tmp"
    chmod 644 "$2.tmp"
    mv -f "$2.tmp" "$2"
}

step "config $CONFIG_FILE"
if [ -f "$(at "$CONFIG_FILE")" ]; then
    ok "kept as it is"
else
    change --show "sed 's|^state_dir = .*|state_dir = \"$STATE_DIR\"|' $SOURCE_DIR/hardware/default.toml > $(at "$CONFIG_FILE")" \
        "the default wiring, keeping its state in $STATE_DIR" \
        write_config "$SOURCE_DIR/hardware/default.toml" "$(at "$CONFIG_FILE")"
    RESTART=1
fi

# Whether the config turns on a network feature: an `mqtt = "..."` under [network].
wants_network() {
    local file
    file="$(at "$CONFIG_FILE")"
    [ -f "$file" ] || file="$SOURCE_DIR/hardware/default.toml"
    awk '/^[[:space:]]*\[/ { section = $0; gsub(/[[:space:]]/, "", section) }
         section == "[network]" && /^[[:space:]]*mqtt[[:space:]]*=[[:space:]]*"[^"]+"/ { found = 1 }
         END { exit !found }' "$file"
}

# Whether the config serves the phone page: `enabled = true` under [web].
wants_web() {
    local file
    file="$(at "$CONFIG_FILE")"
    [ -f "$file" ] || file="$SOURCE_DIR/hardware/default.toml"
    awk '/^[[:space:]]*\[/ { section = $0; gsub(/[[:space:]]/, "", section) }
         section == "[web]" && /^[[:space:]]*enabled[[:space:]]*=[[:space:]]*true/ { found = 1 }
         END { exit !found }' "$file"
}

# --- 6. the service and the udev rules ----------------------------------------------------------
UNIT_CHANGED=""
step "service unit"
install_file "$DEPLOY_DIR/dicetower.service" "$UNIT_FILE" 644 && UNIT_CHANGED=1

step "network drop-in"
if wants_network || wants_web; then
    install_file "$DEPLOY_DIR/dicetower-network.conf" "$DROP_IN_FILE" 644 && UNIT_CHANGED=1
elif [ -e "$(at "$DROP_IN_FILE")" ]; then
    remove_path "$DROP_IN_FILE" && UNIT_CHANGED=1
else
    ok "none ([network] mqtt is not configured: the service has no network)"
fi

step "phone page ([web])"
if wants_web; then
    install_file "$DEPLOY_DIR/dicetower-web.conf" "$WEB_DROP_IN_FILE" 644 && UNIT_CHANGED=1
    if [ -n "$IMAGE" ]; then
        at_first_boot "install Pyodide into /opt/dicetower/pyodide and avahi-daemon (needs the network)"
    else
        if ! command -v avahi-daemon >/dev/null 2>&1; then
            change "install avahi-daemon (the tower answers at http://$(hostname).local)" env \
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends avahi-daemon
        fi
        locked="$(grep -A1 '"node_modules/pyodide"' "$SOURCE_DIR/web/package-lock.json" | sed -n 's/.*"version": "\(.*\)".*/\1/p')"
        stamp_file="$(at /opt/dicetower/pyodide)/DICETOWER-PYODIDE-VERSION"
        if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$locked" ]; then
            ok "Pyodide $locked in /opt/dicetower/pyodide"
        else
            change "install Pyodide $locked for the phone page (checked against web/package-lock.json)" \
                python3 "$SOURCE_DIR/tools/fetch_pyodide.py" "$(at /opt/dicetower/pyodide)"
        fi
    fi
elif [ -e "$(at "$WEB_DROP_IN_FILE")" ]; then
    remove_path "$WEB_DROP_IN_FILE" && UNIT_CHANGED=1
else
    ok "off ([web] enabled is not true)"
fi

step "udev rules"
if install_file "$DEPLOY_DIR/70-dicetower.rules" "$UDEV_FILE" 644 && [ -z "$IMAGE" ]; then
    # (an image: udev reads the rules when the device boots)
    change "reload the rules" udevadm control --reload
    change "apply them to hwrng and serial ports" udevadm trigger --subsystem-match=misc --subsystem-match=tty
fi

# Copy the source into an image, for install.sh and pip at first boot (the files pip installs
# from, and deploy/ for the script and its units).
copy_source() {
    local dest="$1"
    rm -rf "$dest"
    mkdir -p "$dest"
    (cd "$SOURCE_DIR" && tar --exclude=__pycache__ --exclude='*.pyc' -cf - \
        engine hardware firmware_bridge deploy docs/deploy.md pyproject.toml README.md LICENSE) | tar -C "$dest" -xf -
    printf '%s\n' "$(source_digest)" >"$dest/.dicetower-source"
}

step "systemd"
if [ -n "$IMAGE" ]; then
    enabled="$(at "/etc/systemd/system/multi-user.target.wants/$UNIT_NAME")"
    if [ -L "$enabled" ]; then
        ok "$UNIT_NAME enabled"
    else
        at_first_boot "systemctl enable --now $UNIT_NAME"
    fi
elif [ ! -d "$(at /run/systemd/system)" ]; then
    # systemd is not running here (a chroot, as an image build under qemu has): enable the unit
    # (systemctl edits the unit links without systemd), and it starts at the next boot
    if systemctl is-enabled --quiet "$UNIT_NAME" 2>/dev/null; then
        ok "$UNIT_NAME enabled (systemd is not running here: it starts at boot)"
    else
        change "enable $UNIT_NAME (systemd is not running here: it starts at boot)" systemctl enable "$UNIT_NAME"
    fi
else
    if [ -n "$UNIT_CHANGED" ]; then
        change "reload the units" systemctl daemon-reload
    fi
    if systemctl is-enabled --quiet "$UNIT_NAME" 2>/dev/null && systemctl is-active --quiet "$UNIT_NAME" 2>/dev/null; then
        if [ -n "$UNIT_CHANGED$RESTART" ]; then
            change "restart (new unit, program or config)" systemctl restart "$UNIT_NAME"
        else
            ok "$UNIT_NAME enabled and running"
        fi
    else
        change "enable and start $UNIT_NAME" systemctl enable --now "$UNIT_NAME"
    fi
fi

if [ -n "$IMAGE" ]; then
    # What the device does at first boot: install.sh itself, from the source in the image.
    step "source for first boot"
    src="$(at "$IMAGE_SOURCE_DIR")"
    if [ -f "$src/.dicetower-source" ] && [ "$(cat "$src/.dicetower-source")" = "$(source_digest)" ]; then
        ok "$IMAGE_SOURCE_DIR holds this source"
    else
        change --show "tar -C $SOURCE_DIR -c engine hardware firmware_bridge deploy ... | tar -C $src -x" \
            "copy the source to $IMAGE_SOURCE_DIR" copy_source "$src"
    fi
    step "first-boot unit"
    install_file "$DEPLOY_DIR/$FIRSTBOOT_NAME" "$FIRSTBOOT_FILE" 644 || true
    link="$(at "$FIRSTBOOT_LINK")"
    if [ ${#FIRST_BOOT[@]} -eq 0 ]; then
        ok "nothing left for the first boot"
    elif [ -L "$link" ]; then
        ok "$FIRSTBOOT_NAME enabled"
    else
        # what `systemctl enable` does, on the image's files rather than this machine's systemd
        change --show "ln -s $FIRSTBOOT_FILE $link" "enable $FIRSTBOOT_NAME in the image" \
            make_link "$FIRSTBOOT_FILE" "$link"
    fi
fi

finish installed
if [ -n "$REBOOT" ] && [ -z "$DRY_RUN" ] && [ -z "$IMAGE" ]; then
    echo "reboot to turn I2C on at 400 kHz (the display needs it): sudo reboot"
fi
