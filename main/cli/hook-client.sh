# Gatehouse's Claude Code hook client in bash (and curl), built to out/main/gatehouse-hook.sh.
#
# Claude Code runs its PreToolUse hook before every tool call and its PostToolUse hooks after, so
# the hook's start-up is paid on every call. `gatehouse hook` (main/cli/hook-command.ts) starts
# Node, ~70 ms here before it does anything; this client is one bash process that talks HTTP over
# bash's /dev/tcp, a few ms (bench/gateway.ts, "hook round trip, command form"). Gatehouse writes
# it into Claude Code's settings where /bin/bash and curl are (main/gateway/agent-launcher.ts);
# elsewhere (Windows, no curl) the Node command stays, and the other agents' hooks, which map their
# input and watch the agent that started them, run the Node command everywhere.
#
#   /bin/bash gatehouse-hook.sh [--report] [--home DIR] [--timeout S] [--unreachable deny|ask] [--agent-token-file FILE]
#
# It answers as `gatehouse hook` does: the input goes to the host as it came, and the host's
# answer is printed as it came when it is a decision ({"hookSpecificOutput": ...}), nothing when it
# is "no decision" ({"continue":true}). SECURITY: every other way out prints a deny (or the
# operator's unreachable answer when the host cannot be reached) and exits 0, or exits non-zero
# so the fail-closed tail Gatehouse writes after the command exits 2: Claude Code runs the tool
# after a hook that exits 0 with nothing on stdout, or with anything but 2. --report (the
# PostToolUse hooks): the tool has run, nothing is printed whatever happens, and the exit is 0.
#
# SECURITY: nothing may outlast --timeout (Claude Code runs the tool when its own timeout kills the
# hook). /dev/tcp has no timeout of its own but `read -t` for the answer, so it is used only where
# the rest cannot block that long: an input of at most FAST_MAX bytes (it fits the socket's
# buffers, so writing it cannot wait on a stalled host) and a timeout of at least FAST_MIN_TIMEOUT
# seconds (a connect to a stalled host whose queue is full gives up within ~127 s on Linux, 75 s on
# macOS). Everything else, and a /dev/tcp that does not open, goes through curl --max-time.
#
# SECURITY: the agent token never goes on a command line (every process can read those): printf is
# a bash builtin, and curl reads it, with the address, from a config on file descriptor 3 (a
# here-document). `-q` first: no ~/.curlrc may add options; --noproxy: never through a proxy.

PATH="${PATH:+$PATH:}/usr/bin:/bin"
# Bytes, not characters, in ${#...}: the Content-Length.
LC_ALL=C
# A host that closes early makes a write fail rather than end this process without an answer.
trap '' PIPE
FAST_MAX=32768 FAST_MIN_TIMEOUT=130
report= home= timeout=590 when_unreachable= tokenfile=

# Milliseconds since the epoch into `t` (bash 5's EPOCHREALTIME; else `date`, to the second; 0 unknown).
clock() {
  if [ -n "$EPOCHREALTIME" ]; then
    t=${EPOCHREALTIME/[.,]/}; t=${t%???}
  else
    t=$(date +%s 2>/dev/null)000
  fi
  case $t in '' | *[!0-9]*) t=0 ;; esac
}
# When the call was sent: Claude Code's own timeout runs from here, so every wait below is what is
# left of --timeout since then (a connect to a stalled host took up to ~127 s, and the wait for the
# answer, or curl's after a connect that failed, then had the whole --timeout again).
clock
now=$t

# The answer Claude Code reads ($1 allow|deny|ask, $2 the reason, made JSON-safe), then exit 0.
answer() {
  [ -n "$report" ] && exit 0
  local reason=${2//[$'\001'-$'\037']/}
  reason=${reason//\\/\\\\}
  reason=${reason//\"/\\\"}
  printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"%s","permissionDecisionReason":"%s"}}\n' "$1" "$reason"
  exit 0
}

# The host cannot be asked ($1 why): the operator's --unreachable, else the hookUnreachable setting
# (settings.json, as the host writes it), else deny.
unreachable() {
  mode=$when_unreachable
  if [ -z "$mode" ] && [ -r "$home/settings.json" ]; then
    IFS= read -r -d '' settings < "$home/settings.json"
    case $settings in *'"hookUnreachable": "ask"'* | *'"hookUnreachable":"ask"'*) mode=ask ;; esac
  fi
  [ "$mode" = ask ] || mode=deny
  answer "$mode" "Gatehouse is not running ($1), so it cannot check this call. Start it with \`gatehouse serve\` (or \`gatehouse\`, which opens the console)."
}

while [ $# -gt 0 ]; do
  case $1 in
    --report) report=1; shift; continue ;;
    --home | --timeout | --unreachable | --agent-token-file) [ $# -ge 2 ] || answer deny "Gatehouse's hook client was given $1 without a value; the call is blocked. Write the hook again from Gatehouse." ;;
    *) answer deny "Gatehouse's hook client does not know the option \"$1\"; the call is blocked. Write the hook again from Gatehouse." ;;
  esac
  case $1 in
    --home) home=$2 ;;
    --timeout) timeout=$2 ;;
    --unreachable) when_unreachable=$2 ;;
    --agent-token-file) tokenfile=$2 ;;
  esac
  shift 2
done
case $timeout in '' | *[!0-9]* | 0) answer deny "--timeout must be a whole, positive number of seconds, not \"$timeout\"." ;; esac
case $when_unreachable in '' | deny | ask) ;; *) answer deny "--unreachable must be deny or ask, not \"$when_unreachable\"." ;; esac

# The default home, as main/home.ts finds it.
if [ -z "$home" ]; then
  if [ -n "$GATEHOUSE_HOME" ]; then home=$GATEHOUSE_HOME
  elif [[ $OSTYPE == darwin* ]]; then home="$HOME/Library/Application Support/gatehouse"
  else home="${XDG_CONFIG_HOME:-$HOME/.config}/gatehouse"
  fi
fi

# A named agent's token (`gatehouse agent token create`): one line of 16 to 256 of A-Z a-z 0-9 - _.
# One that cannot be read is a mistake in the hook's configuration: deny, whatever --unreachable says.
named=
if [ -n "$tokenfile" ]; then
  fix="Fix --agent-token-file in the hook command."
  [ -r "$tokenfile" ] && [ -f "$tokenfile" ] || answer deny "Gatehouse cannot check this call: the agent token file $tokenfile could not be read. $fix"
  lines=0
  while IFS=' 	' read -r line || [ -n "$line" ]; do
    [ -n "$line" ] && { named=$line; lines=$((lines + 1)); }
  done < "$tokenfile"
  case $lines:$named in
    1:*[!A-Za-z0-9_-]* | 1:) lines=0 ;;
  esac
  if [ "$lines" != 1 ] || [ ${#named} -lt 16 ] || [ ${#named} -gt 256 ]; then
    answer deny "Gatehouse cannot check this call: $tokenfile does not hold an agent token (16 to 256 characters of A-Z, a-z, 0-9, \"-\" or \"_\"). $fix"
  fi
fi

# serve.json, as the host writes it (shells/serve/serve-file.ts: one field a line): the host's pid,
# its hook address and the agent token.
serve="$home/serve.json"
[ -e "$serve" ] || unreachable "no $serve"
[ -r "$serve" ] || unreachable "$serve could not be read"
pid= url= token=
while IFS= read -r line || [ -n "$line" ]; do
  case $line in
    '  "pid": '*) pid=${line#'  "pid": '}; pid=${pid%,} ;;
    '  "hookUrl": "'*) url=${line#'  "hookUrl": "'}; url=${url%,}; url=${url%\"} ;;
    '  "agentToken": "'*) token=${line#'  "agentToken": "'}; token=${token%,}; token=${token%\"} ;;
  esac
done < "$serve"
case $pid in '' | *[!0-9]*) pid= ;; esac
# Only what needs no quoting in an HTTP header or curl's config: a base64url token, and an
# http://HOST:PORT/PATH address.
case $token in '' | *[!A-Za-z0-9_-]*) token= ;; esac
case $url in http://*[!]A-Za-z0-9._:/%@[-]*) url= ;; http://?*) ;; *) url= ;; esac
[ -n "$pid" ] && [ -n "$url" ] && [ -n "$token" ] || unreachable "$serve has no pid, hookUrl and agentToken"
kill -0 "$pid" 2>/dev/null || unreachable "the host recorded in $serve (pid $pid) has exited"
[ -n "$named" ] && token=$named

# The input as it came (up to a NUL, which JSON never holds).
IFS= read -r -d '' body

# Whole seconds of --timeout left into `left` (what has passed counted in whole seconds: a wait ends
# within a second of --timeout, well inside the margin to Claude Code's own); none left is a deny.
remaining() {
  clock
  if [ "$now" = 0 ] || [ "$t" = 0 ]; then left=$timeout; else left=$((timeout - (t - now) / 1000)); fi
  [ "$left" -gt 0 ] || answer deny "Gatehouse did not answer within $timeout s, so the call is denied."
}

# The host's answer: sets `code` (the HTTP status) and `reply` (the body), or answers itself.
via_curl() {
  local out status
  remaining
  out=$(printf '%s' "$body" | curl -q --silent --globoff --noproxy '*' --proto =http --max-time "$left" --config /dev/fd/3 --data-binary @- --write-out '%{http_code}' 3<<EOF
url = "$url"
header = "Authorization: Bearer $token"
header = "Content-Type: application/json"
header = "Expect:"
header = "x-gatehouse-hook-deadline-ms: ${timeout}000"
header = "x-gatehouse-hook-sent-at: $now"
header = "x-gatehouse-hook-client: claude-code"
EOF
)
  status=$?
  case $status in
    0) ;;
    28) answer deny "Gatehouse did not answer within $timeout s, so the call is denied." ;;
    126 | 127) answer deny "Gatehouse's hook client could not run curl (exit $status; is curl installed?), so it cannot check this call. Install curl, or write the hook again from Gatehouse to use the Node command." ;;
    *) unreachable "$url did not answer: curl exit $status" ;;
  esac
  code=${out:${#out}-3}
  reply=${out%???}
}

# The fast way: HTTP/1.1 over bash's /dev/tcp, one request, the connection closed after the answer.
# Returns 1 when it cannot be used here, having sent nothing.
via_dev_tcp() {
  [ "${#body}" -le "$FAST_MAX" ] && [ "$timeout" -ge "$FAST_MIN_TIMEOUT" ] || return 1
  local rest=${url#http://} hostport target host port response head length status
  hostport=${rest%%/*}
  target=/${rest#*/}
  [ "$hostport" = "$rest" ] && target=/
  host=${hostport%:*} port=${hostport##*:}
  host=${host#[} host=${host%]}
  case $port in '' | *[!0-9]*) return 1 ;; esac
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1
  printf 'POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\nx-gatehouse-hook-deadline-ms: %s000\r\nx-gatehouse-hook-sent-at: %s\r\nx-gatehouse-hook-client: claude-code\r\n\r\n%s' \
    "$target" "$hostport" "$token" "${#body}" "$timeout" "$now" "$body" >&3 2>/dev/null
  # To the end of the answer (the host closes the connection), within the timeout in all.
  remaining
  IFS= read -r -d '' -t "$left" response <&3
  status=$?
  exec 3<&-
  [ "$status" -gt 128 ] && answer deny "Gatehouse did not answer within $timeout s, so the call is denied."
  case $response in
    HTTP/1.[01]\ [0-9][0-9][0-9]*$'\r\n\r\n'*) ;;
    '') unreachable "$url did not answer: the connection closed without an answer" ;;
    *) answer deny "Gatehouse answered the hook with no HTTP status; the call is denied." ;;
  esac
  code=${response:9:3}
  head=${response%%$'\r\n\r\n'*}
  reply=${response#*$'\r\n\r\n'}
  # A whole answer only: its length as the host said it.
  length=${head#*$'\r\n'[Cc]ontent-[Ll]ength: }
  length=${length%%$'\r\n'*}
  if [ "$length" = "$head" ] || [ "$length" != "${#reply}" ]; then
    answer deny "Gatehouse's answer to the hook was cut short or had no length; the call is denied."
  fi
}

via_dev_tcp || via_curl
[ -n "$report" ] && exit 0
if [ "$code" = 200 ]; then
  case $reply in
    '{"continue":true}') exit 0 ;;
    *$'\n'*) ;;
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"'allow'"'*'}}' | \
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"'deny'"'*'}}' | \
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"'ask'"'*'}}')
      printf '%s\n' "$reply"
      exit 0 ;;
  esac
fi
answer deny "Gatehouse answered the hook with HTTP $code and no decision; the call is denied."
