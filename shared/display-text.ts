// Display safety for text an agent supplied (commands, paths, tool, agent and session names,
// reasons, outputs): shown to an operator in a terminal (the CLI) or in the console, it must show
// what runs. Raw, a terminal obeys the escape codes in it (erase a line, move the cursor, print a
// forged "approved" line), a newline starts a fake record, and bidi controls (U+202E …) reorder
// what is drawn so `rm -rf ~ #‮/tmp` reads as something else; zero-width and other invisible
// characters make two different strings look the same. Every such character is shown as a
// visible escape instead (`\x1b`, `\n`, `\u202e`), in the CLI and the console alike. Only the
// display changes: the data (what runs, what is logged, what is hashed) is never rewritten.
//
// Shared by main (CLI output) and the renderer (React views): no Node or DOM APIs here.

/** Why a character is escaped: the console styles them apart, and warns on bidi and invisible ones. */
export type HiddenKind = 'control' | 'bidi' | 'invisible' | 'space' | 'line-break';

export type DisplaySegment =
  | { kind: 'text'; text: string }
  | {
      kind: HiddenKind;
      /** The character(s) as they are in the data. */
      raw: string;
      /** What the CLI prints: `\x1b`, `\n`, `\u202e`, `\u{e0041}`. */
      escape: string;
      /** The code point(s) for the console's token: `U+202E`. */
      codePoint: string;
    };

export interface DisplayOptions {
  /**
   * Keep line feeds as line breaks (a multi-line command in a detail view). Off by default: in a
   * list, table cell or one-line summary, a newline would start what looks like another record.
   */
  multiline?: boolean;
}

// Bidirectional formatting: embeddings, overrides, isolates, marks (LRM, RLM, ALM).
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;
// Characters that draw nothing: zero-width space/joiners, word joiner, BOM, soft hyphen, invisible
// operators, Mongolian vowel separator, combining grapheme joiner, Hangul fillers, variation
// selectors, tag characters (U+E0000–E007F: whole hidden ASCII messages), and any other format
// character (Unicode category Cf), and every other default-ignorable code point: what a renderer
// is told to draw as nothing (Khmer inherent vowels U+17B4/5, Mongolian free variation selectors,
// U+2065, U+FFF0–FFF8, the rest of the tag plane), which Cf alone misses. The joiners, the combining grapheme joiner and the selectors
// are listed to be found one by one, not to combine with a neighbour, which is what
// no-misleading-character-class warns about.
// eslint-disable-next-line no-misleading-character-class -- each one is wanted on its own
const INVISIBLE = /[\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\u180E\u034F\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
// C0, DEL and C1 controls (ESC, CSI, OSC, BEL, backspace, carriage return …).
const CONTROL = /[\p{Cc}]/u;
// Spaces other than U+0020 look like a space and are not one to the shell (no-break, en/em, ideographic …).
const SPACE = /[\p{Zs}]/u;
// Line and paragraph separators: a line break to some renderers, nothing to the shell.
const LINE_BREAK = /[\u2028\u2029]/u;
// Lone surrogates cannot be drawn; they show as whatever the font substitutes. (With the u flag a
// surrogate pair is one code point, so only a lone half matches.)
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const ANY = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- INVISIBLE's joiners and selectors, as above
  `${CONTROL.source}|${BIDI.source}|${INVISIBLE.source}|${LINE_BREAK.source}|(?! )${SPACE.source}|${LONE_SURROGATE.source}`,
  'gu',
);

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

function classify(ch: string): HiddenKind {
  if (CONTROL.test(ch)) return 'control';
  if (BIDI.test(ch)) return 'bidi';
  if (LINE_BREAK.test(ch)) return 'line-break';
  if (SPACE.test(ch)) return 'space';
  return 'invisible';
}

/** The visible escape of one character: `\n`, `\x1b`, `\u202e`, `\u{e0041}`. */
export function escapeChar(ch: string): string {
  const short = SHORT[ch];
  if (short) return short;
  const cp = ch.codePointAt(0)!;
  if (cp <= 0x7f) return `\\x${hex(cp, 2)}`;
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  return `\\u{${hex(cp, 0)}}`;
}

/** `U+202E` for the console's token. */
export function codePointLabel(ch: string): string {
  return `U+${hex(ch.codePointAt(0)!, 4).toUpperCase()}`;
}

/** The text cut into plain runs and hidden characters (one segment per hidden character). */
export function displaySegments(text: string, opts: DisplayOptions = {}): DisplaySegment[] {
  const out: DisplaySegment[] = [];
  let last = 0;
  ANY.lastIndex = 0;
  for (let m = ANY.exec(text); m !== null; m = ANY.exec(text)) {
    const ch = m[0];
    if (opts.multiline && ch === '\n') continue;
    if (m.index > last) out.push({ kind: 'text', text: text.slice(last, m.index) });
    out.push({ kind: LONE_SURROGATE.test(ch) ? 'invisible' : classify(ch), raw: ch, escape: escapeChar(ch), codePoint: codePointLabel(ch) });
    last = m.index + ch.length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

/**
 * The text with every control, bidi, invisible and look-alike space character written as a
 * visible escape: what every CLI output of agent-supplied text prints. Plain text is unchanged.
 */
export function displayText(text: string, opts: DisplayOptions = {}): string {
  ANY.lastIndex = 0;
  if (!ANY.test(text)) return text;
  return displaySegments(text, opts).map((s) => (s.kind === 'text' ? s.text : s.escape)).join('');
}

/** displayText of any value: strings as they are, anything else as JSON (whose own escapes stay). */
export function displayValue(value: unknown, opts: DisplayOptions = {}): string {
  return displayText(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)), opts);
}

/**
 * The kinds of hidden characters the text holds that change how it reads: bidi controls and
 * invisible characters (the console's warning badge on a command). Empty when there are none.
 */
export function deceptiveKinds(text: string): ('bidi' | 'invisible')[] {
  const kinds = new Set<'bidi' | 'invisible'>();
  for (const s of displaySegments(text)) {
    if (s.kind === 'bidi' || s.kind === 'invisible') kinds.add(s.kind);
  }
  return [...kinds];
}

// Inside JSON strings, the hidden characters JSON.stringify leaves raw (it escapes only C0, quote
// and backslash). Never structural: the pretty-printer's own newlines and spaces are ASCII.
const JSON_HIDDEN = new RegExp(`(?![\\u0000-\\u007E])(?:${ANY.source})`, 'gu');

/**
 * JSON.stringify for a terminal: the same JSON value (a parser reads back identical data), with
 * DEL, C1, bidi, invisible and look-alike space characters written as \uXXXX escapes, so `--json`
 * output printed to a terminal cannot reorder or hide what it shows either.
 */
export function jsonText(value: unknown, space?: number): string {
  return jsonEscapeHidden(JSON.stringify(value, null, space) ?? 'null');
}

/** The escaping of jsonText for JSON already serialized with JSON.stringify (the export's lines). */
export function jsonEscapeHidden(json: string): string {
  return json.replace(JSON_HIDDEN, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i), 4)}`;
    return out;
  });
}

/**
 * The body of the desktop notification for new inbox items, in both shells (the Electron main
 * process's native one and the serve console's browser one): plain text, so the agent's names
 * are written with their hidden characters escaped. A hook call's tool name is whatever the agent
 * sent: raw, a newline in it forges a second line of the notification and a bidi control
 * reorders it.
 */
export function approvalNotice(added: readonly { agent: string; tool: string }[]): string {
  if (added.length !== 1) return `${added.length} new calls wait for approval`;
  return `${displayText(added[0]!.agent)} wants to call ${displayText(added[0]!.tool)}`;
}

/**
 * A call's arguments on one line for a listing: every key and every value, a string longer than
 * `max` cut to its start with the number of characters cut, then made safe to print. Never the
 * whole JSON cut at a length: the agent orders the keys and sizes the values, so a long first
 * value would push the one that matters (a path, a host) out of what the operator reads.
 */
export function briefArguments(value: unknown, max = 120): string {
  const json = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && v.length > max ? `${v.slice(0, max - 1)}… (${v.length - max + 1} more characters)` : v));
  return displayText(json ?? 'null');
}
