// Review of b181b52: inlinePrograms tested each awk program against a pattern that looked ahead
// from every `print` to the end of its statement (`\b(?:print|printf)\b[^;}\n]*?(?:\||>)`), and
// `\|\s*&?\s*getline` split a run of blanks after `|` in every way: time grew with the square of
// the program's length. One shell script under the 1 MiB scan limit (`awk '{ print $1 print $1 … }'`)
// took 72 s to scan, on the thread that scans; a `|` followed by 256 KiB of blanks over a minute.
//
// The scans below are linear and take tens of milliseconds here. No test measures time itself: each
// has a timeout (vitest fails a synchronous test that overran it) some hundred times what it needs,
// which a quadratic scan overruns many times over and a loaded machine does not approach.
import { describe, expect, it } from 'vitest';
import { filesRunBy, scanFile } from '../../../main/registry/scan/scan-file.js';
import { jsLoadedFiles, pythonLoadedFiles } from '../../../main/registry/scan/scan-plugin.js';
import { awkReaches, inlinePrograms } from '../../../main/registry/scan/shell-scan.js';

const MiB = 1024 * 1024;
const TIMEOUT_MS = 10_000;

describe('scan: an inline awk program is matched in linear time', () => {
  it('a 1 MiB script of `print $1 ` in one awk program', () => {
    const program = `{ ${'print $1 '.repeat((MiB - 64) / 9)}}`;
    const script = `#!/bin/sh\nawk '${program}' data.txt\n`;
    expect(inlinePrograms(script)).toEqual([]);
    expect(scanFile('run.sh', script)).toEqual([]);
  }, TIMEOUT_MS);

  it('a `|` followed by 256 KiB of blanks in an awk program', () => {
    const script = `#!/bin/sh\nawk '{ x |${' '.repeat(MiB / 4)}}' data.txt\n`;
    expect(inlinePrograms(script)).toEqual([]);
    expect(scanFile('run.sh', script)).toEqual([]);
  }, TIMEOUT_MS);

  it('the other patterns of b181b52 on 1 MiB of text shaped against them', () => {
    // RUNS_FILE (a script running a file by name), JS_LOAD and PY_LOAD (a file loaded by path).
    expect(filesRunBy(`sh${' '.repeat(MiB / 2)}<${' '.repeat(MiB / 2)}\n`)).toEqual([]);
    expect(filesRunBy(`sh${' -x'.repeat(MiB / 3)}\n`)).toEqual([]);
    expect(filesRunBy(`sh $${'a'.repeat(MiB)}\n`)).toEqual([]);
    expect(filesRunBy(`;${'./'.repeat(MiB / 2)}\n`)).toEqual([]);
    expect(jsLoadedFiles(`from './${'a'.repeat(MiB)}`)).toEqual([]);
    expect(jsLoadedFiles(`import${' '.repeat(MiB)}x`)).toEqual([]);
    expect(pythonLoadedFiles(`exec(${' '.repeat(MiB)}x`)).toEqual([]);
    expect(inlinePrograms(`awk ${'-v x=1 '.repeat(MiB / 7)}'{print}'\n`)).toEqual([]);
  }, TIMEOUT_MS);
});

describe('awkReaches: what makes an awk program a note', () => {
  it.each([
    ['system()', 'BEGIN { system("id") }', true],
    ['a command piped into getline', '{ "date" | getline d }', true],
    ['a command piped into getline, blanks and & between', '{ "date" |  & getline d }', true],
    ['a two-way pipe', '{ print |& "sh" }', true],
    ['print to a command', '{ print $1 | "sh" }', true],
    ['printf to a file', '{ printf "%s", $1 > "/tmp/x" }', true],
    ['print appending to a file, after other statements', '{ n++; print $1 >> out }', true],
    ['a comparison after print ends its statement', '{ print $1; if ($2 > 3) n++ }', false],
    ['plain print', '{ print $1, $2 }', false],
    ['print in a name', '{ reprint = $1 > 2 }', false],
    ['a pipe on a later line', '{ print $1\n x = a | b }', false],
  ])('%s', (_name, program, reaches) => {
    expect(awkReaches(program)).toBe(reaches);
  });
});
