// Services and schedulers: systemctl, at, crontab.
import { pathOf } from '../shell/path-args.js';
import { nested } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, MAX_DEPTH } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { pipeReason } from './interpreters.js';

/** at/batch run shell code later: a literal here-document or here-string is analysed; other input is unsure. */
function atCmd(args: EW[], env: Env, c: Ctx, feed: Feed, name: string): void {
  if (args.some((a) => /^-[lrdc]$/.test(a.t)) || name === 'atq' || name === 'atrm') return;
  const f = args.findIndex((a) => a.t === '-f');
  if (f >= 0) {
    const file = args[f + 1];
    if (file) pathOf(file, env, c, 'read');
    return;
  }
  const here = feed.redirects.find((r) => r.op === '<<' || r.op === '<<-' || r.op === '<<<');
  if (here && here.bodyLiteral && here.body !== undefined && env.depth < MAX_DEPTH) nested(here.body, env, c);
  else if (feed.upstream) c.col.evasive(pipeReason(feed.upstream, env, c));
  else c.col.evasive(`${name} runs shell code from its input later`);
}

/** crontab installs commands that run later, out of Gatehouse's sight. */
function crontab(args: EW[], env: Env, c: Ctx): void {
  if (args.some((a) => a.t === '-l')) return;
  c.col.op('write');
  c.col.evasive('crontab installs commands that run later');
  for (const a of args) if (a.known && !a.t.startsWith('-')) pathOf(a, env, c, 'read');
}

/** systemctl/launchctl/service: starting or enabling a unit runs what the unit file says, out of sight. */
function serviceCtl(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const sub = args.find((a) => !a.t.startsWith('-'))?.t ?? '';
  if (/^(start|restart|reload|enable|reenable|edit|link|set-environment|import-environment|load|bootstrap|kickstart|submit|try-restart|reload-or-restart|daemon-reload|preset)$/.test(sub) || name === 'service') {
    c.col.op('execute');
    c.col.evasive(`${name} ${sub} runs a service Gatehouse does not see`);
  }
  unknownProgram(args, env, c);
}

/** Services and schedulers: what they start runs later or elsewhere, out of Gatehouse's sight. */
export const SERVICE_PROGRAMS: Record<string, Handler> = {
  systemctl: serviceCtl, launchctl: serviceCtl, service: serviceCtl,
  at: atCmd, batch: atCmd, crontab,
};
