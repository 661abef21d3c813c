// Trojan Source (CVE-2021-42574 and its zero-width cousin): characters that render as nothing, or
// that reorder how a line is displayed, make code read differently from how it runs — a comment
// that visually closes early, an identifier that looks like another. Checked in every text file.

import type { Collector } from './collector.js';

// One precompiled pattern over all the characters we report; most files never match, and the
// regex engine skips them far faster than a loop in JavaScript would.
const SUSPECT = /[\u200B-\u200F\u2060\uFEFF\u202A-\u202E\u2066-\u2069\u061C]/g;

const NAMES: Record<number, string> = {
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x2060: 'WORD JOINER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (byte order mark)',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x061c: 'ARABIC LETTER MARK',
};

function label(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')} ${NAMES[code] ?? ''}`.trim();
}

/**
 * `code`: the file is JavaScript or TypeScript, where a zero-width character weighs 3 as in
 * Triggerfish's scanner (it can make two identifiers look the same); in prose (a README with an
 * emoji joined by U+200D) it stays a weight-2 finding.
 */
export function scanTrojanSource(c: Collector, code = false): void {
  const text = c.text;
  const zeroWidth = code ? 'js.zero-width' : 'text.zero-width';
  SUSPECT.lastIndex = 0;
  if (!SUSPECT.test(text)) return;
  SUSPECT.lastIndex = 0;
  for (let m = SUSPECT.exec(text); m; m = SUSPECT.exec(text)) {
    if (c.full('text.bidi-control') && c.full('text.bidi-mark') && c.full(zeroWidth)) break;
    const code = text.charCodeAt(m.index);
    // A byte order mark as the very first character is an encoding marker, not a trick.
    if (code === 0xfeff && m.index === 0) continue;
    if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) {
      c.at('text.bidi-control', m.index, `Invisible bidirectional control character ${label(code)}: it reorders how the text is displayed, so the code that runs can differ from the code a reviewer sees (Trojan Source).`);
    } else if (code === 0x200e || code === 0x200f || code === 0x061c) {
      c.at('text.bidi-mark', m.index, `Invisible bidirectional mark ${label(code)}: it can change the displayed order of the characters around it, so what a reviewer reads may not be what runs.`);
    } else {
      c.at(zeroWidth, m.index, `Invisible zero-width character ${label(code)}: it can make two different identifiers or strings look identical, hiding what the code really refers to.`);
    }
  }
}
