// The operator token. Generated once per GATEHOUSE_HOME and kept (owner-only), so a console
// left open keeps working when the host restarts; `--token-file`/GATEHOUSE_TOKEN override,
// `--new-token` rotates.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeSecretFile } from '../../home.js';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Tokens travel in URLs and WebSocket subprotocols: keep to characters both accept. */
export function validToken(t: string): boolean {
  return /^[A-Za-z0-9_-]{16,256}$/.test(t);
}

export const TOKEN_RULE = 'The operator token (--token-file or GATEHOUSE_TOKEN) must be 16 to 256 characters of A-Z, a-z, 0-9, "-" or "_".';

export const AGENT_TOKEN_RULE = 'The agent token (--agent-token-file or GATEHOUSE_AGENT_TOKEN) must be 16 to 256 characters of A-Z, a-z, 0-9, "-" or "_".';

export function operatorToken(home: string, opts: { given?: string; rotate?: boolean } = {}): string {
  return keptToken(join(home, 'operator-token'), TOKEN_RULE, opts);
}

/**
 * The agent token: opens /mcp and the hook route, nothing else. Kept per home like the
 * operator token, so agents configured once keep working across restarts.
 */
export function agentToken(home: string, opts: { given?: string; rotate?: boolean } = {}): string {
  return keptToken(join(home, 'agent-token'), AGENT_TOKEN_RULE, opts);
}

function keptToken(file: string, rule: string, opts: { given?: string; rotate?: boolean }): string {
  if (opts.given !== undefined) {
    if (!validToken(opts.given)) throw new Error(rule);
    return opts.given;
  }
  if (!opts.rotate && existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (validToken(t)) {
      // Kept, but never readable by others: a token file copied in or made under a loose umask.
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
      return t;
    }
  }
  const t = newToken();
  writeSecretFile(file, t + '\n');
  return t;
}

/**
 * Where `gatehouse serve` may take a token from. SECURITY: never its argv: /proc/PID/cmdline is
 * readable by every process on the machine, agents included, for as long as the host runs.
 */
export interface TokenSource {
  /** The option naming the file (`-` is stdin). */
  fileOption: '--token-file' | '--agent-token-file';
  /** The argv option that is refused, for the message. */
  argvOption: '--token' | '--agent-token';
  envVar: 'GATEHOUSE_TOKEN' | 'GATEHOUSE_AGENT_TOKEN';
  rule: string;
}

export const OPERATOR_TOKEN_SOURCE: TokenSource = { fileOption: '--token-file', argvOption: '--token', envVar: 'GATEHOUSE_TOKEN', rule: TOKEN_RULE };
export const AGENT_TOKEN_SOURCE: TokenSource = { fileOption: '--agent-token-file', argvOption: '--agent-token', envVar: 'GATEHOUSE_AGENT_TOKEN', rule: AGENT_TOKEN_RULE };

/** The refusal for a token given on the command line, saying what to use instead. */
export function tokenOnArgvMessage(src: TokenSource): string {
  return `${src.argvOption} is refused: a token on the command line is visible to every process on this machine (/proc/PID/cmdline). Put it in a file only you can read and pass ${src.fileOption} PATH, pipe it in with ${src.fileOption} -, or set ${src.envVar}.`;
}

/**
 * The token from `--token-file PATH` (`-`: stdin) or the environment, or undefined for the kept
 * one. Throws a sentence naming the source when it is unreadable, empty or malformed. The
 * variable is removed from this process's environment once read, so that plugins, terminals
 * and other children the host starts do not inherit it.
 */
export function readTokenSource(src: TokenSource, file: string | undefined, env: NodeJS.ProcessEnv, readStdin: () => string = () => readFileSync(0, 'utf8')): string | undefined {
  const fromEnv = env[src.envVar];
  delete env[src.envVar];
  if (file !== undefined && fromEnv !== undefined && fromEnv !== '') {
    throw new Error(`Give the token one way: ${src.fileOption} or ${src.envVar}, not both.`);
  }
  let raw: string;
  let where: string;
  if (file !== undefined) {
    where = file === '-' ? `${src.fileOption} - (stdin)` : `${src.fileOption} ${file}`;
    try {
      raw = file === '-' ? readStdin() : readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`Cannot read the token from ${where}: ${(err as Error).message}.`, { cause: err });
    }
  } else if (fromEnv !== undefined && fromEnv !== '') {
    where = src.envVar;
    raw = fromEnv;
  } else {
    return undefined;
  }
  const token = raw.trim();
  if (!validToken(token)) throw new Error(`The token read from ${where} is not valid. ${src.rule}`);
  return token;
}
