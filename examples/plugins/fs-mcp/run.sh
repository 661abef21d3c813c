#!/bin/sh
# Starts @modelcontextprotocol/server-filesystem (a dependency of Gatehouse) on stdio.
# The first argument is the only folder the server may touch.
here=$(dirname "$0")
mkdir -p "$1"
exec node "$here/../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" "$@"
