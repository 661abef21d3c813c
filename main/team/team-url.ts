// Where a host's team is: a postgres:// URL and this machine's member name. SECURITY: a password
// is never taken from argv (every process on the machine reads /proc/PID/cmdline for as long as
// the host runs): a URL on the command line must not carry one; the password comes from
// GATEHOUSE_TEAM_URL, PGPASSFILE or ~/.pgpass, which the pg client reads itself. `sslmode` and
// the other URL parameters reach the pg client untouched.
import { hostname } from 'node:os';
import { UsageError } from '../core/usage-error.js';

export const TEAM_URL_ENV = 'GATEHOUSE_TEAM_URL';
export const TEAM_MEMBER_ENV = 'GATEHOUSE_TEAM_MEMBER';

/** A member's name: it keys every shipped event, so it must be the same on every start of the host. */
export const MEMBER_RULE = 'A team member name is 1-64 letters, digits, dots, dashes and underscores';
const MEMBER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

function parse(url: string, from: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${from} is not a URL: give postgres://USER@HOST:PORT/DATABASE.`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new UsageError(`${from} must be a postgres:// URL, not ${u.protocol}//…`);
  return u;
}

/**
 * The team URL: the one given on the command line (which must carry no password), else
 * GATEHOUSE_TEAM_URL (which may), else null.
 */
export function teamUrl(fromArgv: string | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (fromArgv !== undefined) {
    const u = parse(fromArgv, 'The team URL');
    if (u.password !== '' || u.searchParams.has('password')) {
      throw new UsageError(`The team URL on the command line carries a password, and every process on this machine can read a command line. Give the URL without it and put the password in ${TEAM_URL_ENV} (the whole URL), PGPASSFILE or ~/.pgpass.`);
    }
    return fromArgv;
  }
  const fromEnv = env[TEAM_URL_ENV];
  if (fromEnv === undefined || fromEnv === '') return null;
  parse(fromEnv, TEAM_URL_ENV);
  return fromEnv;
}

/** The team URL, or a usage error saying how to give one. */
export function requireTeamUrl(fromArgv: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = teamUrl(fromArgv, env);
  if (url === null) throw new UsageError(`No team database: give its URL (postgres://USER@HOST:PORT/DATABASE) or set ${TEAM_URL_ENV}.`);
  return url;
}

/** The URL as it may be printed or recorded: without its password. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.href;
  } catch {
    return '(unparsable URL)';
  }
}

/** This machine's member name: the one given, else GATEHOUSE_TEAM_MEMBER, else the host name. */
export function memberName(given: string | undefined, env: NodeJS.ProcessEnv = process.env, host = hostname()): string {
  const name = given ?? (env[TEAM_MEMBER_ENV] || host);
  if (!MEMBER_NAME.test(name)) throw new UsageError(`${MEMBER_RULE}, not "${name}"${given === undefined && !env[TEAM_MEMBER_ENV] ? ' (the host name): pick one with --team-member NAME' : ''}.`);
  return name;
}
