// How deeply a JSON value nests, measured without recursion (a value an agent sends may nest
// hundreds of thousands of levels deep, and a recursive walk would overflow the stack).

/** Levels of objects and arrays an agent's tool arguments may have. Real tools use fewer than ten. */
export const MAX_ARGUMENT_NESTING = 100;

/**
 * Where `value` first nests deeper than `max` objects and arrays (the value itself is level 1),
 * as a path like `a.b[0].c…`, or null when it does not.
 */
export function jsonTooDeep(value: unknown, max: number): string | null {
  const stack: [unknown, number, string][] = [[value, 0, '']];
  while (stack.length) {
    const [v, depth, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const level = depth + 1;
    if (level > max) return path.length > 120 ? `${path.slice(0, 120)}…` : path || '(the value itself)';
    // Only the first few segments of a path are ever shown: build no more of it than that.
    const child = (k: string) => (path.length > 120 ? path : path + k);
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, level, child(`[${i}]`)]));
    else for (const [k, x] of Object.entries(v)) stack.push([x, level, child(path ? `.${k}` : k)]);
  }
  return null;
}

/**
 * The offset in JSON text where it first nests deeper than `max` objects and arrays, or null.
 * Linear, on the text (before JSON.parse): what comes after would walk every level again.
 */
export function jsonTextTooDeep(text: string, max: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth = Math.max(0, depth - 1);
  }
  return null;
}
