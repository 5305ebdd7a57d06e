#!/usr/bin/env bash
# shellcheck disable=SC2317  # the checks are called through check()
# The hobbyist's first boot, on arm64 (issue 32; docs/deploy.md, "What CI proves"): build a
# minimal Debian arm64 root (the base of Raspberry Pi OS) with debootstrap, run under
# qemu-user-static through the kernel's binfmt_misc, prepare it with `deploy/install.sh --root`
# as an SD card image is prepared, boot it as far as dicetower-firstboot.service goes (its
# ExecStart, in the root, under qemu: apt-get, the venv, pip from PyPI), and check inside it:
#
#   service    the installed program started as dicetower.service starts it (its user, its
#              ExecStart, no terminal), with no GPIO and no display: exit 2 and one line;
#              again as a Pi 5 with no /dev/gpiochip* (a Pi's /proc/cpuinfo): one line
#   gpio       the GPIO stack the installer chose imports (lgpio, gpiozero's LGPIOFactory,
#              RPi.GPIO's API from rpi-lgpio)
#   roll, odds, no-store, sim, replay, verify_rolls
#              the installed program rolls and shows odds; the tower went in without the
#              store's web stack (no starlette: `dicetower board` says, in one line and
#              exit 2, what to install); a scripted panel session sets a
#              table code and rolls; the log passes `dicetower replay` and tools/verify_rolls.py
#              (run by the root's own python3, as a player's stdlib-only checker)
#   engine     the engine's tests (tests/engine) under the root's Python
#
#   .ci/arm64-root.sh [--suite bookworm|trixie] [--report FILE] [--rebuild] [--skip-engine] [--keep DIR]
#
# --skip-engine leaves out the engine's tests (minutes under emulation; ./run-tests runs them in
# the bookworm root only, see .ci/arm64.sh).
#
# Where the kernel cannot run arm64 binaries (no binfmt_misc, no qemu-aarch64 entry, not
# root) it says so in one line and exits 77; tests/deploy/test_arm64_root.py then skips, and
# fails under CI=true. The report (--report) has one line a check: "NAME ok SECONDS DETAIL" or
# "NAME FAIL SECONDS DETAIL", the timings of the parts ("time PART SECONDS"), and last
# "exit STATUS" (0: every check passed; 1: one failed; 77: arm64 cannot run here).
#
# The debootstrapped root is cached between runs on one machine: $DICETOWER_CI_CACHE
# (default /var/cache/dicetower-ci), one directory a recipe (suite, architecture, packages and
# ROOT_RECIPE below, hashed), rebuilt when the recipe changes, when it is older than
# $DICETOWER_ROOT_MAX_DAYS days (7: Debian's updates), or with --rebuild. Each run works on an
# overlay of it (nothing a run does reaches the cache); pip's and apt's downloads are cached
# beside it. Nothing of this is in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"

SUITE="bookworm"
SKIP_ENGINE=""
REPORT=""
REBUILD=""
KEEP=""
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) SUITE="${2:?--suite needs bookworm or trixie}"; shift ;;
        --report) REPORT="${2:?--report needs a file}"; shift ;;
        --rebuild) REBUILD=1 ;;
        --skip-engine) SKIP_ENGINE=1 ;;
        --keep) KEEP="${2:?--keep needs a directory}"; shift ;;
        -h | --help) awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; exit 0 ;;
        *) echo "arm64-root.sh: unknown option $1 (allowed: --suite bookworm|trixie, --report FILE, --rebuild, --skip-engine, --keep DIR)" >&2; exit 2 ;;
    esac
    shift
done
case "$SUITE" in bookworm | trixie) ;; *) echo "arm64-root.sh: --suite: bookworm or trixie, not $SUITE" >&2; exit 2 ;; esac

# What a Raspberry Pi OS Lite image has that debootstrap's minbase does not: its Python,
# systemd (systemctl), the user tools, the CA certificates. Bump ROOT_RECIPE to rebuild.
ROOT_RECIPE=1
INCLUDE="python3,ca-certificates,systemd,passwd"
CACHE="${DICETOWER_CI_CACHE:-/var/cache/dicetower-ci}"
MAX_DAYS="${DICETOWER_ROOT_MAX_DAYS:-7}"
# Test tools for the engine's tests in the root (a venv of their own, beside the installed one).
TEST_TOOLS=(pytest pytest-xdist hypothesis icepool scipy)
# The Pi whose /proc/cpuinfo the second service start sees: a Raspberry Pi 5 (revision d04170).
PI5_CPUINFO=$'processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd\n\nRevision\t: d04170\nSerial\t\t: 0000000000000000\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n'
[ -n "$REPORT" ] || REPORT="$(mktemp /tmp/dicetower-arm64-report.XXXXXX)"
: >"$REPORT"

say() { echo "arm64 $SUITE: $*" >&2; }
record() { printf '%s\n' "$*" >>"$REPORT"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- can this kernel run arm64 binaries? -------------------------------------------------------
cannot_run() {
    local line="this machine cannot run arm64 binaries ($1): the arm64 root checks did not run"
    say "$line"
    record "unavailable $line"
    exit 77
}

arm64_ready() {
    [ "$(id -u)" = 0 ] || cannot_run "not root: debootstrap and chroot need it"
    command -v debootstrap >/dev/null || cannot_run "no debootstrap; .ci/apt-packages.txt brings it"
    local conf=/usr/lib/binfmt.d/qemu-aarch64.conf entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
    [ -f "$conf" ] || cannot_run "no qemu-user-static ($conf); .ci/apt-packages.txt brings it"
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null ||
            cannot_run "the kernel has no binfmt_misc"
    fi
    if [ ! -e "$entry" ]; then
        # what systemd-binfmt does at boot, from the file qemu-user-static ships
        grep -v '^#' "$conf" >/proc/sys/fs/binfmt_misc/register 2>/dev/null ||
            cannot_run "binfmt_misc refused the qemu-aarch64 entry"
    fi
    grep -qx enabled "$entry" || cannot_run "binfmt_misc's qemu-aarch64 entry is disabled"
}

# --- the cached root --------------------------------------------------------------------------
# Debian's mirror as this machine's apt has it (a Debian host), else debootstrap's default.
host_mirror() {
    grep -qs '^ID=debian' /etc/os-release || return 0
    { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{ print $2 }'
      grep -hs '^deb ' /etc/apt/sources.list | awk '{ print $2 }'; } |
        grep -v security | head -n 1
}

recipe_key() {
    printf '%s\n' "$ROOT_RECIPE" "$SUITE" arm64 minbase "$INCLUDE" | sha256sum | cut -c1-12
}

# The base root for this recipe, built when missing, stale or asked for (under a lock: two
# runs at once build it once).
base_root() {
    local dir tmp mirror start
    dir="$CACHE/roots/$SUITE-$(recipe_key)"
    mkdir -p "$CACHE/roots"
    exec 9>"$CACHE/roots/.lock"
    flock 9
    if [ -f "$dir/.dicetower-built" ] && [ -z "$REBUILD" ] &&
        [ -z "$(find "$dir/.dicetower-built" -mtime +"$MAX_DAYS")" ]; then
        say "cached root $dir (built $(cat "$dir/.dicetower-built"))" >&2
        record "time debootstrap 0 (cached)"
    else
        rm -rf "$dir" "$CACHE/roots/$SUITE-"*.tmp "$CACHE/roots/$SUITE-"*-tools-*.tar
        tmp="$dir.tmp"
        mirror="$(host_mirror)"
        say "debootstrap --arch=arm64 --variant=minbase --include=$INCLUDE $SUITE (a few minutes)..." >&2
        start="$(now)"
        # shellcheck disable=SC2086  # no mirror: debootstrap's default
        if ! debootstrap --arch=arm64 --variant=minbase --include="$INCLUDE" "$SUITE" "$tmp" $mirror \
            >"$CACHE/roots/debootstrap-$SUITE.log" 2>&1; then
            tail -n 20 "$CACHE/roots/debootstrap-$SUITE.log" >&2
            say "debootstrap failed (log above, in $CACHE/roots/debootstrap-$SUITE.log)" >&2
            record "debootstrap FAIL $(since "$start") see $CACHE/roots/debootstrap-$SUITE.log"
            exit 1
        fi
        rm -rf "$tmp/var/cache/apt/archives/"*.deb "$tmp/var/lib/apt/lists/"*_Packages
        date -u +%Y-%m-%dT%H:%M:%SZ >"$tmp/.dicetower-built"
        mv "$tmp" "$dir"
        record "time debootstrap $(since "$start")"
    fi
    flock -u 9
    exec 9>&-
    printf '%s\n' "$dir"
}

# --- this run's root: an overlay of the cached one ----------------------------------------------
WORK=""
ROOT=""
MOUNTS=()
cleanup() {
    local status=$? i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null || true; done
    if [ -n "$WORK" ]; then
        if [ -n "$KEEP" ]; then say "kept the root at $ROOT (umount it, then rm -rf $WORK)"; else rm -rf "$WORK"; fi
    fi
    record "exit $status"  # the last line: the report is complete
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

mount_at() {  # mount ARGS... TARGET
    mount "$@"
    MOUNTS+=("${*: -1}")
}

work_root() {
    local base="$1"
    WORK="$(mktemp -d "${KEEP:-/var/tmp}/dicetower-arm64-$SUITE.XXXXXX")"
    ROOT="$WORK/root"
    mkdir -p "$WORK/upper" "$WORK/work" "$ROOT"
    if ! mount_at -t overlay overlay -o "lowerdir=$base,upperdir=$WORK/upper,workdir=$WORK/work" "$ROOT" 2>/dev/null; then
        cp -a --reflink=auto "$base/." "$ROOT/"  # no overlayfs here: a copy
    fi
    mount_at -t proc proc "$ROOT/proc"
    mount_at -t devpts -o newinstance,ptmxmode=0666 devpts "$ROOT/dev/pts"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
    # This machine reaches PyPI through its own certificate authorities: pip in the root is
    # given this machine's bundle (PIP_CERT), nothing in the root's own store changes.
    mkdir -p "$ROOT/run/dicetower-ci" "$CACHE/pip-$SUITE" "$ROOT/root/.cache/pip" "$CACHE/apt-$SUITE"
    cp /etc/ssl/certs/ca-certificates.crt "$ROOT/run/dicetower-ci/ca.crt"
    mount_at --bind "$CACHE/pip-$SUITE" "$ROOT/root/.cache/pip"
    mount_at --bind "$CACHE/apt-$SUITE" "$ROOT/var/cache/apt/archives"
    # The image's boot partition, as Raspberry Pi OS has it (install.sh turns I2C on there).
    mkdir -p "$ROOT/boot/firmware"
    printf '%s\n' "# Raspberry Pi OS's config.txt (a stand-in: the image's boot partition)" \
        "dtparam=audio=on" "#dtparam=i2c_arm=on" "" "[all]" >"$ROOT/boot/firmware/config.txt"
}

# in_root [--user USER] [ENV=VALUE...] -- COMMAND...: a command in the root, under qemu, with
# a clean environment (as systemd gives a service), no terminal on stdin.
in_root() {
    local user=() envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
        HOME=/root PIP_CERT=/run/dicetower-ci/ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1)
    if [ "$1" = "--user" ]; then
        local uid gid groups
        uid="$(awk -F: -v u="$2" '$1 == u { print $3 }' "$ROOT/etc/passwd")"
        gid="$(awk -F: -v u="$2" '$1 == u { print $4 }' "$ROOT/etc/passwd")"
        groups="$(awk -F: -v u="$2" '{ n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == u) print $3 }' \
            "$ROOT/etc/group" | paste -sd, -)"
        user=(--userspec="$uid:$gid" ${groups:+--groups="$groups"})
        envs[2]="HOME=/nonexistent"
        shift 2
    fi
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    chroot "${user[@]}" "$ROOT" /usr/bin/env -i "${envs[@]}" "$@" </dev/null
}

# check NAME COMMAND...: run a check, record ok/FAIL with its time and its output's last line.
FAILED=0
check() {
    local name="$1" start out status
    shift
    start="$(now)"
    out="$WORK/$name.out"
    if "$@" >"$out" 2>&1; then status=ok; else status=FAIL; FAILED=1; fi
    record "$name $status $(since "$start") $(tail -n 1 "$out" | tr -d '\r' | cut -c1-300)"
    say "$name: $status ($(since "$start") s)"
    [ "$status" = ok ] || sed 's/^/    /' "$out" | tail -n 30 >&2
}

unit_values() {  # UNIT KEY: the values of KEY= in a unit file in the root, one a line
    awk -F= -v k="$2" '$1 == k { sub(/^[^=]*=/, ""); print }' "$ROOT$1"
}

unit_value() {  # UNIT KEY: the first value of KEY=
    unit_values "$@" | head -n 1
}

# --- the checks -------------------------------------------------------------------------------
prepare_image() {
    # docs/deploy.md, "Preparing an SD card image": on this machine, into the mounted root
    bash "$REPO/deploy/install.sh" --root "$ROOT"
}

first_boot() {
    # what dicetower-firstboot.service runs on the device (its ExecStart, then ExecStartPost)
    local start post
    start="$(unit_value /etc/systemd/system/dicetower-firstboot.service ExecStart)"
    post="$(unit_value /etc/systemd/system/dicetower-firstboot.service ExecStartPost)"
    # shellcheck disable=SC2086  # the unit's command line, split as systemd splits it here
    in_root -- $start
    # shellcheck disable=SC2086
    in_root -- $post
    # and once more, as after a reboot: nothing left to change
    # shellcheck disable=SC2086
    in_root -- $start | tail -n 1 | grep -x "nothing to change: dicetower is already installed"
}

# The service's command and environment, as systemd runs it: its user, ExecStart,
# Environment=, STATE_DIRECTORY, stdin /dev/null and no terminal. Its output is in
# $WORK/service.line.
service_start() {
    local exec env=() user state out status=0
    exec="$(unit_value /etc/systemd/system/dicetower.service ExecStart)"
    mapfile -t env < <(unit_values /etc/systemd/system/dicetower.service Environment)
    user="$(unit_value /etc/systemd/system/dicetower.service User)"
    state="/var/lib/$(unit_value /etc/systemd/system/dicetower.service StateDirectory)"
    install -d -m 0700 -o "$(awk -F: -v u="$user" '$1 == u { print $3 }' "$ROOT/etc/passwd")" "$ROOT$state"
    # PrivateTmp=: a /tmp of its own; WorkingDirectory=
    mount -t tmpfs -o mode=1777 tmpfs "$ROOT/tmp"
    # shellcheck disable=SC2086  # the unit's command line
    out="$(in_root --user "$user" "${env[@]}" "STATE_DIRECTORY=$state" -- \
        env -C "$(unit_value /etc/systemd/system/dicetower.service WorkingDirectory)" $exec 2>&1)" || status=$?
    umount "$ROOT/tmp"
    printf '%s\n' "$out" | tee "$WORK/service.line"
    [ "$status" = 2 ] || { echo "exit status $status, not 2 (the tower cannot start here)"; return 1; }
    [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "not one line"; return 1; }
    [[ "$out" == "dicetower: "*GPIO* ]] || { echo "not the line about the GPIO"; return 1; }
    ! grep -q Traceback <<<"$out"
}

service_on_a_pi5() {
    # a Pi 5's /proc/cpuinfo over the root's, no /dev/gpiochip*: lgpio is asked, and fails
    printf '%s' "$PI5_CPUINFO" >"$WORK/cpuinfo"
    mount --bind "$WORK/cpuinfo" "$ROOT/proc/cpuinfo"
    local status=0
    service_start || status=$?
    umount "$ROOT/proc/cpuinfo"
    [ "$status" = 0 ] || return 1
    grep -q "lgpio: " "$WORK/service.line" || { echo "lgpio was not asked"; return 1; }
}

gpio_imports() {
    [ -z "$(ls "$ROOT"/dev/gpiochip* 2>/dev/null)" ] || { echo "the root has /dev/gpiochip*"; return 1; }
    # RPI_LGPIO_REVISION: rpi-lgpio answers as on a Pi 5 (it refuses to load off a Pi)
    # (lgpio makes its notification pipe in the working directory: one of its own)
    mkdir -p "$ROOT/var/tmp/dicetower-ci/gpio"
    in_root RPI_LGPIO_REVISION=d04170 -- env -C /var/tmp/dicetower-ci/gpio /opt/dicetower/venv/bin/python -c '
import importlib.metadata as m, sys
import lgpio, gpiozero.pins.lgpio
import RPi.GPIO
def where(module):
    return "venv" if "/opt/dicetower/venv/" in module.__file__ else "distribution"
print("python", sys.version.split()[0], "lgpio", hex(lgpio.LGPIO_PY_VERSION), where(lgpio),
      "RPi.GPIO", RPi.GPIO.VERSION, where(RPi.GPIO), "gpiozero", m.version("gpiozero"))'
}

# A tower installs without the store extra (deploy/install.sh without --store): no web stack in
# its venv, and `dicetower board` says in one line what to install.
no_store() {
    local out status=0
    if in_root -- /opt/dicetower/venv/bin/python -c "import starlette" 2>/dev/null; then
        echo "the tower's venv has starlette (the store extra) though --store was not given"
        return 1
    fi
    out="$(in_root -- /usr/local/bin/dicetower board --mqtt mqtt://127.0.0.1:1 2>&1)" || status=$?
    printf '%s\n' "$out"
    [ "$status" = 2 ] || { echo "exit status $status, not 2"; return 1; }
    [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || { echo "not one line"; return 1; }
    [[ "$out" == "dicetower board: the store's board needs the store extra"* ]] || { echo "not the line about the extra"; return 1; }
}

STATE=/var/tmp/dicetower-ci-state
roll_and_odds() {
    in_root -- /usr/local/bin/dicetower roll d6cv --stat 3 --cv 7 --seed arm64 --json &&
        in_root -- /usr/local/bin/dicetower odds infinity --rating 8 --cr 10 --json |
        grep '"success"'
}

panel_session() {
    # a table photographs the session's commitment at the question (its 16 digits), sets its
    # code (31425512) on the panel's buttons, then rolls twice; the tower stops (a scripted
    # run ends) and reveals the session into the log (docs/fairness.md, "At the table")
    rm -rf "${ROOT:?}$STATE"
    in_root -- /usr/local/bin/dicetower sim --state-dir "$STATE" \
        --press "roll plus 3 1 4 2 5 5 1 2 roll roll roll" >"$WORK/sim.txt" 2>&1
    grep -q "table seed '31425512' set" "$WORK/sim.txt" || { echo "no table seed set"; return 1; }
    grep -Eo '#[0-9]+ [0-9a-f]{16}' "$WORK/sim.txt" | tail -n 1
}

# What the players noted, as docs/fairness.md tells them: the commitment at the question (the
# 16 digits under "photograph the QR", two lines of 8) and every result (`#N HEX`, typed N:HEX).
noted_options() {
    local commitment results
    commitment="$(awk '/photograph the QR/ { getline a; getline b; gsub(/ /, "", a); gsub(/ /, "", b); print a b; exit }' \
        "$WORK/sim.txt")"
    results="$(grep -Eo '#[0-9]+ [0-9a-f]{16}' "$WORK/sim.txt" | sort -u | sed -E 's/^#([0-9]+) /--expect \1:/' | tr '\n' ' ')"
    if [ -z "$commitment" ] || [ -z "$results" ]; then
        echo "the panel session showed no commitment or fingerprint" >&2
        return 1
    fi
    echo "--table-seed 31425512 --expect $commitment $results"
}

replay_log() {
    local noted
    noted="$(noted_options)" || { echo "the panel session showed no commitment or roll fingerprint"; return 1; }
    # shellcheck disable=SC2086 # the options are words
    in_root -- /usr/local/bin/dicetower replay "$STATE/rolls.jsonl" --all-revealed $noted
}

verify_rolls() {
    local noted
    noted="$(noted_options)" || { echo "the panel session showed no commitment or roll fingerprint"; return 1; }
    local dir=/var/tmp/dicetower-ci/checker rules=() f id
    rm -rf "$ROOT$dir"
    install -D -m 644 "$REPO/tools/verify_rolls.py" "$ROOT$dir/verify_rolls.py"
    # the tool alone plus each system's rules module, as a player downloads them (named with
    # --rules, not found beside it in a checkout)
    for f in "$REPO"/engine/systems/*/verify_rules.py; do
        id="$(basename "$(dirname "$f")")"
        install -D -m 644 "$f" "$ROOT$dir/rules/$id.py"
        rules+=(--rules "$dir/rules/$id.py")
    done
    # the root's own python3 (stdlib only), as a player's laptop would run it
    # shellcheck disable=SC2086 # the options are words
    in_root -- python3 "$dir/verify_rolls.py" "${rules[@]}" --all-revealed $noted "$STATE/rolls.jsonl"
}

engine_tests() {
    local src=/var/tmp/dicetower-ci/src
    rm -rf "$ROOT$src"
    mkdir -p "$ROOT$src"
    # the source as installed (the image's copy) and the tests of this checkout; some engine
    # tests run `python -m hardware`, with the installed venv's packages (a .pth below)
    cp -a "$ROOT/opt/dicetower/src/." "$ROOT$src/"
    # (some engine tests check bench/'s odds scripts against the engine)
    # (tests/engine/verify/test_night.py runs the forgery corpus: tests/hardware/forgeries.py)
    (cd "$REPO" && tar -cf - --exclude=__pycache__ tests/__init__.py tests/conftest.py tests/support.py tests/engine \
        tests/hardware/__init__.py tests/hardware/forgeries.py \
        bench) |
        tar -C "$ROOT$src" -xf -
    # The test tools' venv (the root's python3, from PyPI) is kept beside the cached root:
    # unpacking numpy and scipy under emulation takes minutes.
    local tools
    tools="$CACHE/roots/$SUITE-$(recipe_key)-tools-$(printf '%s\n' "${TEST_TOOLS[@]}" | sha256sum | cut -c1-12).tar"
    if [ -f "$tools" ] && [ -z "$REBUILD" ]; then
        tar -C "$ROOT" -xf "$tools"
    fi
    # a cached venv is used only if it holds the tools (an interrupted run once cached an empty one)
    if ! in_root -- /var/tmp/dicetower-ci/venv/bin/python -c "import pytest, xdist, hypothesis, icepool, scipy" \
            2>/dev/null; then
        rm -rf "${ROOT:?}/var/tmp/dicetower-ci/venv"
        in_root -- python3 -m venv /var/tmp/dicetower-ci/venv
        in_root -- /var/tmp/dicetower-ci/venv/bin/python -m pip install --quiet "${TEST_TOOLS[@]}"
        in_root -- /var/tmp/dicetower-ci/venv/bin/python -c "import pytest, xdist, hypothesis, icepool, scipy"
        tar -C "$ROOT" -cf "$tools.tmp" var/tmp/dicetower-ci/venv && mv "$tools.tmp" "$tools"
    fi
    record "time test-tools $(since "$ENGINE_START")"
    local installed tools_site
    installed="$(in_root -- /opt/dicetower/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    tools_site="$(in_root -- /var/tmp/dicetower-ci/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    printf '%s\n' "$installed" >"$ROOT$tools_site/dicetower-installed.pth"
    # Under emulation each example runs ~10x slower: the "emulated" hypothesis profile
    # (tests/conftest.py) has no deadline; every test and example runs, on two workers (the
    # cores are free once the main suite is done).
    in_root DICETOWER_HYPOTHESIS_PROFILE=emulated -- sh -c \
        "cd $src && /var/tmp/dicetower-ci/venv/bin/python -m pytest -p no:cacheprovider -q -n 2 tests/engine"
}

# --- the run ----------------------------------------------------------------------------------
arm64_ready
RUN_START="$(now)"
base="$(base_root)"
work_root "$base"
say "root at $ROOT (machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
check uname in_root -- uname -m
grep -qx aarch64 "$WORK/uname.out" || { record "uname FAIL 0 not aarch64"; FAILED=1; }
check image prepare_image
part="$(now)"
check first-boot first_boot
record "time first-boot $(since "$part")"
check gpio gpio_imports
check service service_start
check service-pi5 service_on_a_pi5
check roll-odds roll_and_odds
check no-store no_store
check sim panel_session
check replay replay_log
check verify-rolls verify_rolls
ENGINE_START="$(now)"
if [ -n "$SKIP_ENGINE" ]; then
    record "engine skip 0 not run in the $SUITE root (--skip-engine): ./run-tests runs them in the bookworm root"
else
    check engine engine_tests
    record "time engine $(since "$ENGINE_START")"
fi
record "time total $(since "$RUN_START")"
say "done in $(since "$RUN_START") s: $([ "$FAILED" = 0 ] && echo "all checks passed" || echo "a check FAILED") (report $REPORT)"
exit "$FAILED"
