// What a command word names: the program's file name, look-alike letters folded, versioned
// interpreters, and which programs read shell or other code from their input.


// Look-alike letters folded to ASCII, so `сurl` (Cyrillic с) is judged as the curl it imitates.
const CONFUSABLES: Record<string, string> = {
  а: 'a', с: 'c', е: 'e', о: 'o', р: 'p', х: 'x', у: 'y', і: 'i', ѕ: 's', ј: 'j', ԁ: 'd', ӏ: 'l',
  һ: 'h', ԛ: 'q', ԝ: 'w', в: 'b', к: 'k', м: 'm', н: 'h', т: 't', ο: 'o', α: 'a', ν: 'v', ι: 'i',
  κ: 'k', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ε: 'e', ѵ: 'v', ɡ: 'g', ℓ: 'l',
};

export function commandName(word0: string): string {
  const slash = word0.lastIndexOf('/');
  return slash >= 0 ? word0.slice(slash + 1) : word0;
}

export function foldConfusables(name: string): string {
  let out = '';
  for (const ch of name.normalize('NFKC')) out += CONFUSABLES[ch] ?? CONFUSABLES[ch.toLowerCase()] ?? ch;
  return out;
}

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'csh', 'tcsh', 'rbash']);

export const INTERPRETERS = new Set(['python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'lua', 'nodejs', 'deno', 'bun']);

/** `python3.12`, `perl5.36`, `pypy3`: judged as the interpreter they are a version of. */
export const VERSIONED = /^(python3?|perl|ruby|lua|php|node)[0-9.]+$/;
