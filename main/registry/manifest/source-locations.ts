// Where a field of a manifest sits in its source text, so that a problem found on the parsed
// value (by the schema or by the command checks) can point at a line and column.
//
// The parsers we use (smol-toml, JSON.parse) return plain values without positions, so for TOML
// and JSON a small scanner walks the (already valid) text and records the offset of every key,
// table header and array element by path. YAML documents carry node ranges already.
// All of this runs only when a manifest has problems; a valid manifest never pays for it.
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { LineIndex } from '../../core/line-index.js';

export type ManifestSyntax = 'toml' | 'yaml' | 'json';
export type PathSegment = string | number;
export interface Position {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units (what editors such as Monaco count). */
  column: number;
}

const keyOf = (path: readonly PathSegment[]): string => path.join('\u0000');

/** Positions of the fields of one manifest source, by path. */
export class SourceLocator {
  private constructor(private readonly offsets: Map<string, number>, private readonly lines: LineIndex) {}

  static for(syntax: ManifestSyntax, source: string): SourceLocator {
    const offsets = new Map<string, number>();
    try {
      if (syntax === 'toml') new TomlKeyScanner(source, offsets).scan();
      else if (syntax === 'json') new JsonScanner(source, offsets).scanDocument();
      else collectYaml(source, offsets);
    } catch {
      // A scanner that trips keeps what it found so far: a missing position is better than none.
    }
    return new SourceLocator(offsets, new LineIndex(source));
  }

  /** Position of the field at `path`, or of its closest enclosing field that has one. */
  find(path: readonly PathSegment[]): Position | undefined {
    for (let n = path.length; n > 0; n--) {
      const offset = this.offsets.get(keyOf(path.slice(0, n)));
      if (offset !== undefined) return this.lines.position(offset);
    }
    return undefined;
  }

  /** Position of exactly this path, without falling back to a parent. */
  exact(path: readonly PathSegment[]): Position | undefined {
    const offset = this.offsets.get(keyOf(path));
    return offset === undefined ? undefined : this.lines.position(offset);
  }
}

function record(offsets: Map<string, number>, path: readonly PathSegment[], offset: number): void {
  const k = keyOf(path);
  if (!offsets.has(k)) offsets.set(k, offset);
}

// ---------------------------------------------------------------------------------------------
// TOML: a lenient scanner over text that smol-toml already accepted. It knows keys (bare, quoted,
// dotted), [table] and [[array]] headers, inline tables, arrays, strings of all four kinds and
// comments; every other value is skipped up to its delimiter.

const BARE_KEY = /[A-Za-z0-9_-]/;

class TomlKeyScanner {
  private i = 0;
  private table: PathSegment[] = [];
  private readonly arrayTableCounts = new Map<string, number>();
  constructor(private readonly s: string, private readonly offsets: Map<string, number>) {}

  scan(): void {
    const s = this.s;
    while (this.i < s.length) {
      this.skipBlank(true);
      if (this.i >= s.length) break;
      if (s[this.i] === '[') this.header();
      else this.keyValue(this.table);
      this.skipToLineEnd();
    }
  }

  private header(): void {
    const s = this.s;
    const isArray = s[this.i + 1] === '[';
    this.i += isArray ? 2 : 1;
    this.skipBlank(false);
    const start = this.i;
    const segs = this.key(() => {});
    this.skipBlank(false);
    this.i += isArray ? 2 : 1;
    segs.forEach((_, n) => record(this.offsets, segs.slice(0, n + 1), start));
    if (isArray) {
      const k = keyOf(segs);
      const idx = this.arrayTableCounts.get(k) ?? 0;
      this.arrayTableCounts.set(k, idx + 1);
      this.table = [...segs, idx];
      record(this.offsets, this.table, start);
    } else {
      this.table = segs;
    }
  }

  private keyValue(base: PathSegment[]): void {
    const path = [...base];
    this.key((seg, offset) => {
      path.push(seg);
      record(this.offsets, path, offset);
    });
    this.skipBlank(false);
    if (this.s[this.i] === '=') this.i++;
    this.value(path);
  }

  /** Reads a dotted key; calls `onSegment` with each segment and where it starts. */
  private key(onSegment: (seg: string, offset: number) => void): string[] {
    const s = this.s;
    const segs: string[] = [];
    for (;;) {
      this.skipBlank(false);
      const start = this.i;
      let seg: string;
      if (s[this.i] === '"' || s[this.i] === "'") seg = this.string();
      else {
        while (this.i < s.length && BARE_KEY.test(s[this.i] ?? '')) this.i++;
        seg = s.slice(start, this.i);
        if (this.i === start) this.i++; // not a key character: step over it rather than loop
      }
      segs.push(seg);
      onSegment(seg, start);
      this.skipBlank(false);
      if (s[this.i] !== '.') return segs;
      this.i++;
    }
  }

  private value(path: PathSegment[]): void {
    const s = this.s;
    this.skipBlank(false);
    const c = s[this.i];
    if (c === '"' || c === "'") {
      this.string();
    } else if (c === '{') {
      this.i++;
      for (;;) {
        this.skipBlank(false);
        if (this.i >= s.length || s[this.i] === '}') break;
        const before = this.i;
        this.keyValue(path);
        this.skipBlank(false);
        if (s[this.i] === ',') this.i++;
        if (this.i === before) break; // text that is not TOML: stop rather than spin
      }
      this.i++;
    } else if (c === '[') {
      this.i++;
      for (let idx = 0; ; idx++) {
        this.skipBlank(true);
        if (this.i >= s.length || s[this.i] === ']') break;
        const before = this.i;
        record(this.offsets, [...path, idx], this.i);
        this.value([...path, idx]);
        this.skipBlank(true);
        if (s[this.i] === ',') this.i++;
        if (this.i === before) break; // text that is not TOML: stop rather than spin
      }
      this.i++;
    } else {
      while (this.i < s.length && !',]}\n#'.includes(s[this.i] ?? '')) this.i++;
    }
  }

  /** Reads a basic, literal or multi-line string starting at the quote; returns its text. */
  private string(): string {
    const s = this.s;
    const q = s[this.i] ?? '"';
    const triple = s.startsWith(q.repeat(3), this.i);
    const open = triple ? 3 : 1;
    const start = this.i + open;
    let j = start;
    for (;;) {
      if (j >= s.length) break;
      if (q === '"' && s[j] === '\\') {
        j += 2;
        continue;
      }
      if (triple ? s.startsWith(q.repeat(3), j) : s[j] === q) break;
      j++;
    }
    let end = j + open;
    // A multi-line string may end with up to two extra quotes that belong to its content.
    if (triple) while (s[end] === q && end - j < 5) end++;
    const raw = s.slice(start, triple ? end - 3 : j);
    this.i = Math.min(end, s.length);
    if (q === "'") return raw;
    try {
      return JSON.parse(`"${raw.replace(/\n/g, '\\n')}"`) as string;
    } catch {
      return raw;
    }
  }

  private skipBlank(newlines: boolean): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ' ' || c === '\t' || (newlines && (c === '\n' || c === '\r'))) this.i++;
      else if (c === '#' && newlines) {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
      } else break;
    }
  }

  private skipToLineEnd(): void {
    const s = this.s;
    while (this.i < s.length && s[this.i] !== '\n') this.i++;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON: a strict recursive-descent scanner. On valid JSON it records the offset of every key and
// array element; on invalid JSON it throws a JsonSyntaxError at the first offending character,
// which is how syntax errors get a position when JSON.parse's message carries none.

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

export class JsonScanner {
  private i = 0;
  constructor(private readonly s: string, private readonly offsets = new Map<string, number>()) {}

  scanDocument(): void {
    this.ws();
    this.value([]);
    this.ws();
    if (this.i < this.s.length) this.fail('unexpected text after the JSON value');
  }

  private fail(what: string): never {
    throw new JsonSyntaxError(what, this.i);
  }

  private ws(): void {
    const s = this.s;
    while (this.i < s.length && ' \t\n\r'.includes(s[this.i] ?? '')) this.i++;
  }

  private value(path: PathSegment[]): void {
    const s = this.s;
    const c = s[this.i];
    if (c === undefined) this.fail('unexpected end of input');
    if (c === '{') {
      this.i++;
      this.ws();
      if (s[this.i] === '}') {
        this.i++;
        return;
      }
      for (;;) {
        this.ws();
        if (s[this.i] !== '"') this.fail('expected a double-quoted property name');
        const start = this.i;
        const key = this.string();
        record(this.offsets, [...path, key], start);
        this.ws();
        if (s[this.i] !== ':') this.fail("expected ':' after the property name");
        this.i++;
        this.ws();
        this.value([...path, key]);
        this.ws();
        if (s[this.i] === ',') {
          this.i++;
          continue;
        }
        if (s[this.i] === '}') {
          this.i++;
          return;
        }
        this.fail("expected ',' or '}' after the property value");
      }
    }
    if (c === '[') {
      this.i++;
      this.ws();
      if (s[this.i] === ']') {
        this.i++;
        return;
      }
      for (let idx = 0; ; idx++) {
        this.ws();
        record(this.offsets, [...path, idx], this.i);
        this.value([...path, idx]);
        this.ws();
        if (s[this.i] === ',') {
          this.i++;
          continue;
        }
        if (s[this.i] === ']') {
          this.i++;
          return;
        }
        this.fail("expected ',' or ']' after the array element");
      }
    }
    if (c === '"') {
      this.string();
      return;
    }
    const lit = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(s.slice(this.i, this.i + 400));
    if (!lit) this.fail(`unexpected character ${JSON.stringify(c)}`);
    this.i += lit[0].length;
  }

  private string(): string {
    const s = this.s;
    const start = this.i;
    this.i++;
    for (;;) {
      const c = s[this.i];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') break;
      if (c.charCodeAt(0) < 0x20) this.fail('control character in a string');
      if (c === '\\') {
        const e = s[this.i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(this.i + 2, this.i + 6))) this.fail('bad \\u escape');
          this.i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail('bad escape in a string');
        this.i += 2;
        continue;
      }
      this.i++;
    }
    this.i++;
    return JSON.parse(s.slice(start, this.i)) as string;
  }
}

// ---------------------------------------------------------------------------------------------
// YAML: node ranges from the document.

function collectYaml(source: string, offsets: Map<string, number>): void {
  const doc = parseDocument(source);
  const visit = (node: unknown, path: PathSegment[]): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const range = (pair.key as YamlNode | null)?.range;
        const p = [...path, key];
        if (range) record(offsets, p, range[0]);
        visit(pair.value, p);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, idx) => {
        const range = (item as YamlNode | null)?.range;
        const p = [...path, idx];
        if (range) record(offsets, p, range[0]);
        visit(item, p);
      });
    }
  };
  visit(doc.contents, []);
}
