// Shell options that change what a glob matches, turned on by `shopt -s` or `bash -O`: the
// judge expands later globs with them (globs.ts), so `shopt -s dotglob; cat ~/*/id_rsa` is
// judged as the `cat ~/.ssh/id_rsa` it runs.
import { GLOB_DOT, GLOB_NOCASE, GLOB_STAR } from '../globs.js';
import type { Ctx, EW } from './types.js';

const GLOB_OPTIONS: Record<string, number> = { dotglob: GLOB_DOT, nocaseglob: GLOB_NOCASE, globstar: GLOB_STAR };

/** One option name turned on; a computed one may be any of them. Other options change no glob. */
export function globOption(a: EW, c: Ctx): void {
  const bits = !a.known ? GLOB_DOT | GLOB_NOCASE | GLOB_STAR : Object.hasOwn(GLOB_OPTIONS, a.t) ? (GLOB_OPTIONS[a.t] as number) : 0;
  if (bits) addGlobOpts(c, bits);
  // Not a glob option, but one `shopt -s` turns on: the last stage of a pipeline then runs in the shell.
  if (!a.known || a.t === 'lastpipe') c.lastpipe = true;
}

/** Turns glob options on for the rest of the call (globs.ts GLOB_*), subshells and nested shells too. */
export function addGlobOpts(c: Ctx, bits: number): void {
  c.globOpts = (c.globOpts ?? 0) | bits;
}
