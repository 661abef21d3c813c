#!/bin/sh
# One JSON object in on stdin, one JSON object out on stdout (the WraithRun contract).
# Parsed with python3's json module because POSIX sh has no JSON parser.
python3 -c '
import json, sys
args = json.load(sys.stdin)
name = str(args.get("name", "world"))
mark = "!" if args.get("excited") else "."
json.dump({"greeting": "Hello, " + name + mark}, sys.stdout)
'
