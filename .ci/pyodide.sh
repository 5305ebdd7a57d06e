# shellcheck shell=bash
# Sourced by ./run-tests (and ./tower): install the phone page's Pyodide, pinned by
# web/package-lock.json, into .pyodide (git-ignored), with tools/fetch_pyodide.py (standard
# library only: no npm needed). Without the npm registry it says so; the tests that need it are
# then skipped outside CI and fail under CI=true.
ensure_pyodide() {
    local py
    py="$(command -v python3 || true)"
    [ -n "$py" ] || return 0
    if ! "$py" tools/fetch_pyodide.py .pyodide; then
        echo "dicetower: the phone page's Pyodide could not be installed (above): its tests will not run" >&2
    fi
}
