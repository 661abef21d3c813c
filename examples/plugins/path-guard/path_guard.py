#!/usr/bin/env python3
"""A crust NDJSON checker: one JSON request per line on stdin, one answer per line on stdout.

Blocks any call touching a path outside ``allowed_dirs``, and any network operation when
``block_network`` is true. Diagnostics go to stderr only.
"""
import json
import os
import sys

allowed = []
block_network = False


def inside(path, root):
    path = os.path.normpath(path)
    root = os.path.normpath(os.path.expanduser(root))
    return path == root or path.startswith(root.rstrip("/") + "/")


def evaluate(params):
    if block_network and ("network" in params["operations"] or params["hosts"]):
        return {
            "rule_name": "path-guard-network",
            "severity": "high",
            "action": "block",
            "message": "Network access is blocked by path-guard.",
        }
    for path in params["paths"]:
        if not any(inside(path, root) for root in allowed):
            return {
                "rule_name": "path-guard-outside",
                "severity": "high",
                "action": "block",
                "message": "%s is outside the allowed folders (%s)." % (path, ", ".join(allowed)),
            }
    return None


def main():
    global allowed, block_network
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            method = req.get("method")
            if method == "init":
                config = (req.get("params") or {}).get("config") or {}
                allowed = [str(d) for d in config.get("allowed_dirs", [])]
                block_network = bool(config.get("block_network", False))
                answer = {"result": "ok"}
            elif method == "evaluate":
                answer = {"result": evaluate(req["params"])}
            elif method == "close":
                print(json.dumps({"result": "ok"}), flush=True)
                return
            else:
                answer = {"error": "unknown method %r" % method}
        except Exception as exc:  # answer every line, even a bad one
            answer = {"error": "path-guard: %s" % exc}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
