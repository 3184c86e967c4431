#!/usr/bin/env bash
# Fails the job with promptcanary compare's exit code (step "Gate on the
# verdict" of action.yml), after the report was uploaded and commented.
# Environment: PC_EXIT_CODE, PC_INSTALL_ONLY.
set -euo pipefail
[ "${PC_INSTALL_ONLY:-false}" != true ] || exit 0
code=${PC_EXIT_CODE:-}
case "$code" in
0) echo "promptcanary: no drift at or above the fail-on-drift threshold" ;;
1) echo "::error title=promptcanary::drift at or above the fail-on-drift threshold (exit 1); see the report" ;;
2) echo "::error title=promptcanary::usage or configuration error (exit 2): nothing was called; see the log of the compare step" ;;
3) echo "::error title=promptcanary::no verdict (exit 3): nothing was measured or compared; see the log of the compare step" ;;
'') echo "::error title=promptcanary::the compare step set no exit code" ;;
*) echo "::error title=promptcanary::promptcanary compare exited $code; see the log of the compare step" ;;
esac
[[ "$code" =~ ^[0-9]+$ ]] || exit 1
exit "$code"
