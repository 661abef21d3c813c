// The scanner's rule catalogue: one stable id per kind of finding, its weight, and whether it is
// reported once per file. The CLI, the plugins view and the docs list rules from this table.
//
// Weights: 3 = fails a plugin on its own (code execution, remote code, reverse shells, hidden
// instructions to the model); 2 = dangerous in context (two of them fail a plugin with the default
// thresholds); 1 = worth a look.
//
// "Once per file" rules describe a capability the file uses (it reads the environment, it writes to a
// computed path) rather than one dangerous line; reporting each occurrence would let a handful of
// ordinary lines add up to a failed scan, so the first occurrence is reported and the message lists
// the other lines.

import type { Finding } from '../types.js';

export interface RuleInfo {
  weight: Finding['weight'];
  /** Reported once per file (first occurrence; the message lists the other lines). */
  perFile?: boolean;
  /** Short title for rule lists. */
  title: string;
}

export const RULES = {
  // JavaScript / TypeScript (parsed with the TypeScript compiler)
  'js.eval': { weight: 3, title: 'eval' },
  'js.function-constructor': { weight: 3, title: 'Function constructor' },
  'js.child-process': { weight: 3, title: 'child_process module' },
  'js.vm': { weight: 3, title: 'vm module' },
  'js.import-url': { weight: 3, title: 'import of a URL' },
  'js.import-outside': { weight: 3, title: 'import of a file outside the plugin folder' },
  'js.dynamic-import': { weight: 2, title: 'import or require of a computed name' },
  'js.process-binding': { weight: 3, title: 'process.binding / process.dlopen' },
  'js.network-listener': { weight: 2, title: 'network listener' },
  'js.fs-write-outside': { weight: 3, title: 'write to an absolute or home path' },
  'js.fs-write-parent': { weight: 2, title: 'write to a path containing ..' },
  'js.fs-write-temp': { weight: 1, perFile: true, title: 'write to the temp folder' },
  'js.fs-write-computed': { weight: 1, perFile: true, title: 'write to a computed path' },
  'js.env-access': { weight: 1, perFile: true, title: 'environment variable read' },
  'js.env-dump': { weight: 2, title: 'whole environment read' },
  // Triggerfish's scanner table (its weights): a mod.ts written for Deno, or hiding what it does.
  'js.atob': { weight: 3, title: 'atob (decodes base64 text, the usual first step of running hidden code)' },
  'js.prompt-injection': { weight: 3, title: 'text addressed to the model in code ("ignore previous instructions", a hidden <system> block)' },
  'js.deno-subprocess': { weight: 3, title: 'Deno.run / Deno.Command (runs programs)' },
  'js.deno-listen': { weight: 3, title: 'Deno.listen / Deno.serve (a network listener)' },
  'js.deno-env': { weight: 2, perFile: true, title: 'Deno.env (environment access)' },
  'js.deno-fs': { weight: 2, perFile: true, title: 'Deno file system access (Deno.readTextFile, Deno.writeFile, …)' },
  'js.obfuscation': { weight: 2, perFile: true, title: 'ROT13 or base64 manipulation' },
  'js.zero-width': { weight: 3, title: 'zero-width character in code' },

  // Python (patterns over code with comments and strings blanked out)
  'py.exec-eval': { weight: 3, title: 'exec / eval' },
  'py.exec-decoded': { weight: 3, title: 'decoded data executed' },
  'py.subprocess': { weight: 3, title: 'subprocess' },
  'py.os-exec': { weight: 3, title: 'os.system / os.popen / os.exec* / os.spawn* / pty.spawn' },
  'py.socket': { weight: 2, perFile: true, title: 'raw sockets' },
  'py.deserialize': { weight: 2, title: 'pickle / marshal loads' },
  'py.dynamic-import': { weight: 2, title: '__import__ / import_module of a computed name' },
  'py.dynamic-call': { weight: 3, title: 'a computed module plus a computed attribute (getattr) reaches any function' },
  'py.network-send': { weight: 2, title: 'HTTP POST / upload' },
  'py.network-request': { weight: 1, perFile: true, title: 'HTTP request' },

  // Shell (patterns over code with comments and quoted text blanked out)
  'sh.curl-pipe-shell': { weight: 3, title: 'download piped into a shell' },
  'sh.dev-tcp': { weight: 3, title: '/dev/tcp or /dev/udp' },
  'sh.dev-tcp-obfuscated': { weight: 3, title: '/dev/tcp spelled in pieces or built from variables' },
  'sh.obfuscated-command': { weight: 3, title: 'command spelled with escape codes or decoded at run time' },
  'sh.base64-exec': { weight: 3, title: 'decoded data executed' },
  'sh.reverse-shell': { weight: 3, title: 'reverse shell' },
  'sh.rm-rf-critical': { weight: 3, title: 'rm -rf on /, home or a system folder' },
  'sh.rm-rf': { weight: 2, title: 'rm -rf' },
  'sh.chmod-setuid': { weight: 2, title: 'chmod setuid/setgid' },
  'sh.chmod-world-writable': { weight: 1, title: 'chmod world-writable' },
  'sh.eval-variable': { weight: 2, title: 'eval of a variable or command output' },
  'sh.write-home': { weight: 2, title: 'redirect into the home folder' },

  // Lua (the adapters' Lua scanner, main/registry/scan/lua-scan.ts, and its weights: patterns over code
  // with comments and string contents blanked out)
  'lua.os-execute': { weight: 3, title: 'os.execute' },
  'lua.io-popen': { weight: 3, title: 'io.popen' },
  'lua.load-string': { weight: 3, title: 'load / loadstring / dofile / loadfile' },
  'lua.debug': { weight: 2, title: 'debug library' },

  // Every text file
  'text.bidi-control': { weight: 3, title: 'bidirectional override/isolate character' },
  'text.bidi-mark': { weight: 2, title: 'bidirectional mark character' },
  'text.zero-width': { weight: 2, title: 'zero-width character' },

  // Descriptions shown to the model (tool poisoning)
  'poison.ignore-instructions': { weight: 3, title: 'tells the model to ignore its instructions' },
  'poison.hidden-block': { weight: 3, title: 'hidden instruction block' },
  'poison.conceal': { weight: 3, title: 'tells the model to hide something from the user' },
  'poison.sensitive-file': { weight: 3, title: 'asks for secrets (SSH keys, cloud credentials, .env)' },
  'poison.exfiltrate-secrets': { weight: 3, title: 'asks to send secrets or conversation data elsewhere' },
  'poison.exfiltrate': { weight: 2, title: 'asks to send data to a URL or elsewhere' },
  'poison.preflight': { weight: 3, title: '"before using this tool, read …"' },
  'poison.invisible-text': { weight: 3, title: 'invisible characters in a description' },

  // The plugin folder and its manifest: what it reaches outside itself
  'plugin.symlink-outside': { weight: 3, title: 'symbolic link to a file or folder outside the plugin' },
  'manifest.permission-escape': { weight: 3, title: 'permission path in the plugin folder that a symbolic link takes outside it' },
  'manifest.permission-sensitive': { weight: 3, title: 'permission on /, the home folder or a credential store' },
  'manifest.write-outside': { weight: 2, title: 'write permission outside the plugin folder' },
  'manifest.read-outside': { weight: 1, title: 'read permission outside the plugin folder' },

  // The scan itself
  'scan.file-too-large': { weight: 1, title: 'file too large to scan' },
  'scan.error': { weight: 3, title: 'the scanner failed on this file' },
  'scan.unscanned-code': { weight: 1, title: 'code in a language the scanner does not read (Perl, Ruby, PHP, Tcl, awk), in a file or given inline' },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;
