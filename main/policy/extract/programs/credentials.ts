// Key and credential tools: ssh-keygen, gpg, cloud CLIs, password stores.
import { has, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import type { Ctx, Env, EW, Handler } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { kubeServer } from './server-clients.js';

/** ssh-keygen: `-f FILE` is read (`-y`, `-l`) and may be written (`-p`, a new key). */
function sshKeygen(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const p = parseArgs(args, 'abCEfImMNnOPrstVwzZDFRYGKTJjLSuW', []);
  for (const o of p.opts) {
    if (!o.value) continue;
    if (o.name === '-f') {
      pathOf(o.value, env, c, 'read');
      c.col.op('write');
    } else if (o.name === '-s') pathOf(o.value, env, c, 'read');
    else if (o.name === '-D' || o.name === '-w') {
      c.col.op('execute');
      c.col.evasive('ssh-keygen loads a provider library');
    }
  }
  if (!has(p, '-f') && !has(p, '-F', '-R', '-H')) c.col.recursivePath('~/.ssh', env.cwd);
  for (const a of p.pos) pathOf(a, env, c, 'read');
}

/** gpg exporting secret keys reads the whole key store (`--homedir`, default ~/.gnupg). */
function gpg(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  const home = args.findIndex((a) => a.t === '--homedir');
  const dir = home >= 0 ? args[home + 1] : undefined;
  if (args.some((a) => /^--(export|export-secret-keys|export-secret-subkeys|list-secret-keys|decrypt|sign|clearsign|detach-sign)$|^-[a-zA-Z]*[dsK]$/.test(a.t))) {
    if (dir) pathOf(dir, env, c, 'read', true);
    else c.col.recursivePath('~/.gnupg', env.cwd);
  }
  unknownProgram(args, env, c);
}

/** Programs that read a protected store without naming it (`aws configure get`, `pass show`). */
const IMPLICIT: Record<string, (args: EW[]) => string | null> = {
  aws: (a) => ((a[0]?.t === 'configure' && /^(get|list|export-credentials)$/.test(a[1]?.t ?? '')) || a[0]?.t === 'sts' || (a[0]?.t === 'ecr' && a[1]?.t === 'get-login-password') ? '~/.aws' : null),
  az: (a) => (a[0]?.t === 'account' && /^get-access-token$/.test(a[1]?.t ?? '') ? '~/.azure' : null),
  gh: (a) => (a[0]?.t === 'auth' && (a[1]?.t === 'token' || a.some((w) => w.t === '--show-token' || w.t === '-t')) ? '~/.config/gh' : null),
  gcloud: (a) => (a.some((w) => /^print-(access|identity)-token$|^config-helper$/.test(w.t)) ? '~/.config/gcloud' : null),
  kubectl: (a) => (a[0]?.t === 'config' && a[1]?.t === 'view' && a.some((w) => w.t === '--raw' || w.t === '--flatten') ? '~/.kube' : null),
  pass: (a) => (a[0]?.t !== 'init' && a[0]?.t !== 'version' && a[0]?.t !== 'help' ? '~/.password-store' : null),
  gopass: () => '~/.password-store',
  'secret-tool': (a) => (/^(lookup|search)$/.test(a[0]?.t ?? '') ? '~/.local/share/keyrings' : null),
};

function implicitRead(name: string): Handler {
  return (args, env, c) => {
    const tree = IMPLICIT[name]?.(args.filter((a) => !a.t.startsWith('-') || a.t === '--raw' || a.t === '--flatten' || a.t === '--show-token' || a.t === '-t'));
    if (tree) {
      c.col.op('read');
      c.col.recursivePath(tree, env.cwd);
      // A token printed is a credential handed out, whether or not a rule protects where it lives.
      c.col.evasive(`${name} hands out a stored credential`);
    }
    unknownProgram(args, env, c);
  };
}

/** Key and credential tools: they read a protected store, often without naming it. */
export const CREDENTIAL_PROGRAMS: Record<string, Handler> = {
  'ssh-keygen': sshKeygen, gpg, gpg2: gpg,
  aws: implicitRead('aws'), az: implicitRead('az'), gh: implicitRead('gh'), gcloud: implicitRead('gcloud'), kubectl: (args, env, c, feed, name) => { implicitRead('kubectl')(args, env, c, feed, name); kubeServer(args, env, c, feed, name); },
  pass: implicitRead('pass'), gopass: implicitRead('gopass'),
  'secret-tool': implicitRead('secret-tool'),
};
